//! The Zeropod control cell (§III-A, §IV-A, §IV-B1, §IV-C): one 40 B format for RTS and SCHD.
//!
//! RTS (endhost or Core port to its pod's scheduler, once per epoch):
//!
//! ```text
//!  byte    bits   field                                                 width
//!  0       1:0    kind (1 = RTS)                                        u2
//!  0       2      from_core (sender is a Core port, not an endhost)     u1
//!  0       4:3    arrivals (entries used, 0..=2)                        u2
//!  0       7:5    reserved (0)
//!  1..3           src (host index in pod, or Core index)                u16
//!  3..11          arrival[i]: dst host u16, newly arrived cells u16     2 x 32
//!  11..15         backpressure: bit p = no relay to pod p (§IV-A2)      u32
//!  15      4:0    mice (top-k entries used, 0..=16)                     u5
//!  15      7:5    reserved (0)
//!  16..40         mice[i] at bits 12i..12i+12: dst slot u9, size u3     16 x 12
//!                                                                used  314 of 320 bits
//! ```
//!
//! SCHD (scheduler to the sender it grants):
//!
//! ```text
//!  byte    bits   field                                                 width
//!  0       1:0    kind (2 = SCHD)                                       u2
//!  0       2      to_core (addressee is a Core port)                    u1
//!  0       4:3    traffic (0 E2E, 1 E2P, 2 C2E)                         u2
//!  0       7:5    reserved (0)
//!  1..3           to (sender host index in pod, or Core index)          u16
//!  3..5           epoch the grant applies to                            u16
//!  5..7           dst (host for E2E/C2E, pod for E2P)                   u16
//!  7..9           volume in cells                                       u16
//!  9              core (E2P/C2E)                                        u8
//!  10..15         route (see `route`)                                   36
//!  15             first data slot of the grant                          u8
//!  16..40         reserved (0)
//!                                                                used  121 of 320 bits
//! ```
//!
//! The mice size is the PIAS-style size class `ceil(log2(cells))` capped at 7 (§IV-B1: "the
//! sizes of these mice flows, which can be estimated from the endhost's local PIAS queue").

use arbitrary_int::{u3, u9};

use super::route::{Route, ROUTE_BITS, ROUTE_LEN};
use super::{bytes, check_len, CellError, CellKind, HEADER_BITS, HEADER_LEN};
use crate::BudgetRow;

/// Arrival entries per RTS.
pub const RTS_ARRIVALS: usize = 2;
/// Top-k mice entries per RTS (§V-A: top-16).
pub const TOP_K: usize = 16;
/// Bits the RTS uses.
pub const RTS_USED_BITS: u32 =
    2 + 1 + 2 + 16 + 32 * RTS_ARRIVALS as u32 + 32 + 5 + 12 * TOP_K as u32;
/// Bits the SCHD uses.
pub const SCHD_USED_BITS: u32 = 2 + 1 + 2 + 16 + 16 + 16 + 16 + 8 + ROUTE_BITS + 8;
const _: () = assert!(RTS_USED_BITS <= HEADER_BITS && SCHD_USED_BITS <= HEADER_BITS);
const _: () = assert!(16 + (12 * TOP_K) / 8 == HEADER_LEN);

pub(crate) const fn row(block: &'static str, bits: u32) -> BudgetRow {
    BudgetRow {
        block,
        krate: "rtl-models",
        unit: "per control cell",
        bits,
        bytes: bits.div_ceil(8),
        paper_bits: Some(HEADER_BITS),
        paper_ref: "Zeropod V-A: 40 B control cell",
    }
}

/// The three kinds of traffic a Zeropod scheduler manages (§IV-A1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TrafficKind {
    /// Endhost to endhost inside the pod.
    #[default]
    E2E = 0,
    /// Endhost up to a Core, for another pod.
    E2P = 1,
    /// Core down to an endhost of this pod.
    C2E = 2,
}

/// One "newly arrived data" entry of an RTS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RtsArrival {
    /// Destination host (global index).
    pub dst: u16,
    /// Newly arrived cells for it.
    pub cells: u16,
}

/// One top-k mice entry of an RTS (§IV-B1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MiceEntry {
    /// Destination slot in the scheduler's matrix (host index in pod, or `hosts + pod`).
    pub dst: u9,
    /// Size class `ceil(log2(cells))`, 0..=7 (smaller is mousier).
    pub size: u3,
}

impl MiceEntry {
    /// An entry for destination slot `dst` (< 512) of size class `size` (< 8).
    pub fn new(dst: u16, size: u8) -> Result<Self, CellError> {
        Ok(MiceEntry {
            dst: u9::try_new(dst).map_err(|_| err("mice.dst", "destination slot above 511"))?,
            size: u3::try_new(size).map_err(|_| err("mice.size", "size class above 7"))?,
        })
    }
}

/// The logical RTS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RtsRepr {
    /// The sender is a Core port (its arrivals are C2E demand).
    pub from_core: bool,
    /// Host index in the pod or Core index.
    pub src: u16,
    /// Newly arrived data, `n_arrivals` entries used.
    pub arrivals: [RtsArrival; RTS_ARRIVALS],
    /// Used arrival entries.
    pub n_arrivals: u8,
    /// Backpressure flags: bit `p` set = this Core must not relay to pod `p`.
    pub backpressure: u32,
    /// Top-k mice destinations, `n_mice` used.
    pub mice: [MiceEntry; TOP_K],
    /// Used mice entries.
    pub n_mice: u8,
}

/// The logical SCHD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SchdRepr {
    /// The addressee is a Core port.
    pub to_core: bool,
    /// E2E, E2P or C2E.
    pub traffic: TrafficKind,
    /// Sender host index in pod, or Core index.
    pub to: u16,
    /// Epoch the grant applies to.
    pub epoch: u16,
    /// Destination: host (E2E, C2E) or pod (E2P).
    pub dst: u16,
    /// Cells granted.
    pub volume: u16,
    /// Core (E2P, C2E).
    pub core: u8,
    /// Source route of the granted path.
    pub route: Route,
    /// First data slot of the grant in the epoch.
    pub slot: u8,
}

/// A view of a 40 B control cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControlCell<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ControlCell<T> {
    /// Wrap without checking the length.
    pub const fn new_unchecked(buffer: T) -> Self {
        ControlCell { buffer }
    }
    /// Wrap, checking the buffer holds 40 bytes.
    pub fn new_checked(buffer: T) -> Result<Self, CellError> {
        check_len(buffer.as_ref().len())?;
        Ok(ControlCell { buffer })
    }
    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// The cell kind.
    pub fn kind(&self) -> Result<CellKind, CellError> {
        CellKind::from_bits(bytes::get(self.b(), 0))
    }
}

fn err(field: &'static str, problem: &'static str) -> CellError {
    CellError::Field { field, problem }
}

impl RtsRepr {
    /// Parse an RTS.
    pub fn parse<T: AsRef<[u8]>>(c: &ControlCell<T>) -> Result<Self, CellError> {
        let b = c.b();
        check_len(b.len())?;
        if c.kind()? != CellKind::Rts {
            return Err(err("kind", "not an RTS"));
        }
        let b0 = b[0];
        if b0 & 0xe0 != 0 {
            return Err(err("flags.reserved", "bits 7:5 of byte 0 must be zero"));
        }
        let n_arrivals = (b0 >> 3) & 0b11;
        if n_arrivals as usize > RTS_ARRIVALS {
            return Err(err("arrivals", "more than 2 arrival entries"));
        }
        let mut r = RtsRepr {
            from_core: b0 & 0x04 != 0,
            src: bytes::get_le(b, 1, 2) as u16,
            n_arrivals,
            backpressure: bytes::get_le(b, 11, 4) as u32,
            ..RtsRepr::default()
        };
        for i in 0..RTS_ARRIVALS {
            let a = RtsArrival {
                dst: bytes::get_le(b, 3 + 4 * i, 2) as u16,
                cells: bytes::get_le(b, 5 + 4 * i, 2) as u16,
            };
            if i >= n_arrivals as usize && a != RtsArrival::default() {
                return Err(err("arrival", "unused arrival entry is not zero"));
            }
            r.arrivals[i] = a;
        }
        let b15 = b[15];
        if b15 & 0xe0 != 0 {
            return Err(err("mice.reserved", "bits 7:5 of byte 15 must be zero"));
        }
        if b15 as usize > TOP_K {
            return Err(err("mice", "more than 16 top-k entries"));
        }
        r.n_mice = b15;
        for i in 0..TOP_K {
            let w = mice_bits(b, i);
            if i >= b15 as usize && w != 0 {
                return Err(err("mice", "unused top-k entry is not zero"));
            }
            r.mice[i] = MiceEntry {
                dst: u9::new(w & 0x1ff),
                size: u3::new((w >> 9) as u8),
            };
        }
        Ok(r)
    }

    /// The packed 40 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        let n_arr = (self.n_arrivals as usize).min(RTS_ARRIVALS);
        let n_mice = (self.n_mice as usize).min(TOP_K);
        b[0] = CellKind::Rts as u8 | (u8::from(self.from_core) << 2) | ((n_arr as u8) << 3);
        bytes::set_le(&mut b, 1, 2, self.src as u64);
        for (i, a) in self.arrivals.iter().take(n_arr).enumerate() {
            bytes::set_le(&mut b, 3 + 4 * i, 2, a.dst as u64);
            bytes::set_le(&mut b, 5 + 4 * i, 2, a.cells as u64);
        }
        bytes::set_le(&mut b, 11, 4, self.backpressure as u64);
        b[15] = n_mice as u8;
        for (i, m) in self.mice.iter().take(n_mice).enumerate() {
            let w = m.dst.value() | ((m.size.value() as u16) << 9);
            set_mice_bits(&mut b, i, w);
        }
        b
    }
}

fn mice_bits(b: &[u8], i: usize) -> u16 {
    let bit = 16 * 8 + 12 * i;
    let v = bytes::get_le(b, bit / 8, 3) >> (bit % 8);
    (v & 0xfff) as u16
}

fn set_mice_bits(b: &mut [u8], i: usize, w: u16) {
    let bit = 16 * 8 + 12 * i;
    let sh = bit % 8;
    let nbytes = if sh + 12 > 16 { 3 } else { 2 };
    let old = bytes::get_le(b, bit / 8, nbytes);
    let mask = 0xfffu64 << sh;
    let new = (old & !mask) | (((w as u64) & 0xfff) << sh);
    bytes::set_le(b, bit / 8, nbytes, new);
}

impl SchdRepr {
    /// Parse a SCHD.
    pub fn parse<T: AsRef<[u8]>>(c: &ControlCell<T>) -> Result<Self, CellError> {
        let b = c.b();
        check_len(b.len())?;
        if c.kind()? != CellKind::Schd {
            return Err(err("kind", "not a SCHD"));
        }
        let b0 = b[0];
        if b0 & 0xe0 != 0 {
            return Err(err("flags.reserved", "bits 7:5 of byte 0 must be zero"));
        }
        let traffic = match (b0 >> 3) & 0b11 {
            0 => TrafficKind::E2E,
            1 => TrafficKind::E2P,
            2 => TrafficKind::C2E,
            _ => return Err(err("traffic", "traffic kind 3 is reserved")),
        };
        if b[16..HEADER_LEN].iter().any(|&x| x != 0) {
            return Err(err("reserved", "bytes 16..40 must be zero"));
        }
        Ok(SchdRepr {
            to_core: b0 & 0x04 != 0,
            traffic,
            to: bytes::get_le(b, 1, 2) as u16,
            epoch: bytes::get_le(b, 3, 2) as u16,
            dst: bytes::get_le(b, 5, 2) as u16,
            volume: bytes::get_le(b, 7, 2) as u16,
            core: b[9],
            route: Route::parse(&b[10..10 + ROUTE_LEN])?,
            slot: b[15],
        })
    }

    /// The packed 40 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0] = CellKind::Schd as u8 | (u8::from(self.to_core) << 2) | ((self.traffic as u8) << 3);
        bytes::set_le(&mut b, 1, 2, self.to as u64);
        bytes::set_le(&mut b, 3, 2, self.epoch as u64);
        bytes::set_le(&mut b, 5, 2, self.dst as u64);
        bytes::set_le(&mut b, 7, 2, self.volume as u64);
        b[9] = self.core;
        self.route.emit(&mut b[10..10 + ROUTE_LEN]);
        b[15] = self.slot;
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rts_golden_and_roundtrip() {
        let mut r = RtsRepr {
            from_core: false,
            src: 7,
            n_arrivals: 1,
            backpressure: 0,
            n_mice: 2,
            ..RtsRepr::default()
        };
        r.arrivals[0] = RtsArrival { dst: 3, cells: 10 };
        r.mice[0] = MiceEntry {
            dst: u9::new(3),
            size: u3::new(2),
        };
        r.mice[1] = MiceEntry {
            dst: u9::new(0x1ff),
            size: u3::new(7),
        };
        let b = r.to_bytes();
        assert_eq!(&b[..5], &[0x09, 7, 0, 3, 0]);
        assert_eq!(&b[5..7], &[10, 0]);
        assert_eq!(b[15], 2);
        // entry 0 = 0x403 at bit 128, entry 1 = 0xfff at bit 140
        assert_eq!(&b[16..19], &[0x03, 0xf4, 0xff]);
        let p = RtsRepr::parse(&ControlCell::new_checked(&b[..]).unwrap()).unwrap();
        assert_eq!(p, r);
    }

    #[test]
    fn schd_golden_and_roundtrip() {
        let s = SchdRepr {
            to_core: false,
            traffic: TrafficKind::E2P,
            to: 1,
            epoch: 0x0102,
            dst: 2,
            volume: 3,
            core: 6,
            route: Route::new(&[1, 4]).unwrap(),
            slot: 0,
        };
        let b = s.to_bytes();
        assert_eq!(&b[..10], &[0x0a, 1, 0, 2, 1, 2, 0, 3, 0, 6]);
        assert_eq!(
            SchdRepr::parse(&ControlCell::new_unchecked(&b[..])).unwrap(),
            s
        );
    }

    #[test]
    fn bad_control_cells_name_the_field() {
        let mut b = RtsRepr::default().to_bytes();
        b[15] = 17;
        let e = RtsRepr::parse(&ControlCell::new_unchecked(&b[..])).unwrap_err();
        assert!(matches!(e, CellError::Field { field: "mice", .. }));
        let mut b = SchdRepr::default().to_bytes();
        b[0] |= 0x18;
        let e = SchdRepr::parse(&ControlCell::new_unchecked(&b[..])).unwrap_err();
        assert!(matches!(
            e,
            CellError::Field {
                field: "traffic",
                ..
            }
        ));
        let b = SchdRepr::default().to_bytes();
        let e = RtsRepr::parse(&ControlCell::new_unchecked(&b[..])).unwrap_err();
        assert!(matches!(e, CellError::Field { field: "kind", .. }));
        assert!(matches!(
            ControlCell::new_checked(&b[..10]),
            Err(CellError::Truncated { .. })
        ));
    }
}
