//! # Zeropod cell formats (Zeropod §III-B1, §IV-A, §IV-C, §V-A)
//!
//! Zeropod cuts traffic into fixed-size cells: a **data cell** of 512 B payload behind a
//! 40 B header, and one 40 B **control cell** format shared by RTS (endhost or Core to the
//! scheduler) and SCHD (scheduler to endhost or Core) (§V-A: "Each data cell contains a 512B
//! payload and a 40B header. The size of one control cell, including RTS and SCHD, is 40B").
//!
//! Packed views are kept apart from logical forms, smoltcp-style (as `nic::reps::word` does):
//!
//! * [`route`]: the source route (one `u6` output-port field per hop plus a hop pointer), the
//!   sub-field the data header and SCHD share;
//! * [`data`]: [`DataHeader`] (zero-copy view over 40 bytes) and [`DataHeaderRepr`];
//! * [`control`]: [`ControlCell`] (view) with [`RtsRepr`] and [`SchdRepr`].
//!
//! Bit `b` of a cell is bit `b % 8` of byte `b / 8`; multi-byte fields are little-endian.
//! Bad bytes give a [`CellError`] naming the field; nothing here panics on input.

pub mod control;
pub mod data;
pub mod route;

pub use control::{
    ControlCell, MiceEntry, RtsArrival, RtsRepr, SchdRepr, TrafficKind, RTS_ARRIVALS, TOP_K,
};
pub use data::{DataHeader, DataHeaderRepr};
pub use route::{Route, MAX_HOPS};

use core::fmt;

/// Bytes of a data-cell payload (§V-A).
pub const PAYLOAD_LEN: usize = 512;
/// Bytes of a data-cell header and of a control cell (§V-A).
pub const HEADER_LEN: usize = 40;
/// Bits of a data-cell header / control cell.
pub const HEADER_BITS: u32 = (HEADER_LEN as u32) * 8;
/// Bytes of a whole data cell on the wire.
pub const DATA_CELL_LEN: usize = PAYLOAD_LEN + HEADER_LEN;

/// The cell type, bits 1:0 of byte 0 of every cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum CellKind {
    /// A data cell (scheduled or optimistic).
    Data = 0,
    /// A request-to-send control cell.
    Rts = 1,
    /// A schedule control cell.
    Schd = 2,
}

impl CellKind {
    /// Decode bits 1:0 of byte 0.
    pub const fn from_bits(b: u8) -> Result<Self, CellError> {
        match b & 0b11 {
            0 => Ok(CellKind::Data),
            1 => Ok(CellKind::Rts),
            2 => Ok(CellKind::Schd),
            _ => Err(CellError::Field {
                field: "kind",
                problem: "cell type 3 is reserved",
            }),
        }
    }
}

/// A rejected cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellError {
    /// The buffer is shorter than a header / control cell.
    Truncated {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        need: usize,
    },
    /// A field holds a value the format does not allow.
    Field {
        /// The field, as named in the layout tables.
        field: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
}

impl fmt::Display for CellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CellError::Truncated { len, need } => {
                write!(f, "cell truncated: {len} bytes, need {need}")
            }
            CellError::Field { field, problem } => write!(f, "{field}: {problem}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CellError {}

pub(crate) fn check_len(len: usize) -> Result<(), CellError> {
    if len < HEADER_LEN {
        Err(CellError::Truncated {
            len,
            need: HEADER_LEN,
        })
    } else {
        Ok(())
    }
}

/// Little-endian byte helpers over a buffer that may be short (reads give 0, writes vanish).
pub(crate) mod bytes {
    pub fn get(b: &[u8], i: usize) -> u8 {
        b.get(i).copied().unwrap_or(0)
    }
    pub fn get_le(b: &[u8], start: usize, n: usize) -> u64 {
        let mut v = 0u64;
        for i in (0..n).rev() {
            v = (v << 8) | get(b, start + i) as u64;
        }
        v
    }
    pub fn set(b: &mut [u8], i: usize, mask: u8, bits: u8) {
        if let Some(x) = b.get_mut(i) {
            *x = (*x & !mask) | (bits & mask);
        }
    }
    pub fn set_le(b: &mut [u8], start: usize, n: usize, v: u64) {
        for i in 0..n {
            set(b, start + i, 0xff, (v >> (8 * i)) as u8);
        }
    }
}

/// One row per header field of the `dcfab budget` table: bits used by each field against the
/// 40 B (320 bit) header the paper gives.
pub const BUDGET_ROWS: &[crate::BudgetRow] = &[
    data::field_row(
        "Zeropod data header: kind u2 + scheduled u1 + priority u3",
        6,
    ),
    data::field_row(
        "Zeropod data header: source route (hops u3 + hop ptr u3 + 5 x u6)",
        route::ROUTE_BITS,
    ),
    data::field_row("Zeropod data header: src host u16 + dst host u16", 32),
    data::field_row("Zeropod data header: flow id u16", 16),
    data::field_row("Zeropod data header: sequence number u32", 32),
    data::field_row("Zeropod data header: payload length u10", 10),
    data::field_row("Zeropod data header: all fields", data::USED_BITS),
    control::row(
        "Zeropod RTS: all fields (2 arrivals, 16 top-k mice, backpressure u32)",
        control::RTS_USED_BITS,
    ),
    control::row(
        "Zeropod SCHD: all fields (epoch, dst, volume, kind, core, route)",
        control::SCHD_USED_BITS,
    ),
];
