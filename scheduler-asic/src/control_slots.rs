//! The in-band control plane's gap-filling rule (Zeropod §IV-C).
//!
//! "Inside each epoch, the sender sends one RTS at the i-th control slot and keeps the j-th
//! control slot empty for future SCHD, where i and j are the sender's and receiver's relative
//! position of all the endhosts under the same ToR/Agg." An epoch is `N` data slots with
//! `N + 1` control gaps around them; each gap holds one RTS and one SCHD (two 40 B control cells,
//! less than one 552 B data cell):
//!
//! ```text
//!  | gap 0 | data 0 | gap 1 | data 1 | ... | data N-1 | gap N |
//!  gap i = [ RTS (40 B) | SCHD (40 B) ]
//! ```
//!
//! Host `h` (position `h % M` under its ToR) sends its RTS in gap `h % M` and receives its SCHD
//! in gap `h % M`; Core `c` (position `c / M` among the Cores on Agg `c % M`) likewise in gap
//! `c / M`. Times are in bytes of line time from the start of the epoch on each link's own
//! (hop-delay aligned) timeline. Requires `N + 1 >= M` (and `N + 1 >= cores per Agg`).

use rtl_models::zeropod_cell::{DATA_CELL_LEN, HEADER_LEN};
use rtl_models::ConfigError;

/// Bytes of one control gap: an RTS and a SCHD.
pub const GAP_BYTES: u32 = 2 * HEADER_LEN as u32;
const _: () = assert!(
    GAP_BYTES < DATA_CELL_LEN as u32,
    "IV-C: two control cells < one data cell"
);

/// The slot layout of one epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochLayout {
    /// Data slots `N`.
    pub data_slots: u16,
    /// Half-radix `M` (hosts under a ToR, ToRs under an Agg).
    pub m: u16,
}

impl EpochLayout {
    /// A layout, checking `N + 1 >= M`.
    pub fn new(data_slots: u16, m: u16) -> Result<Self, ConfigError> {
        if data_slots == 0 {
            return Err(ConfigError::new("epoch_slots", "must be at least 1"));
        }
        if data_slots as u32 + 1 < m as u32 {
            return Err(ConfigError::new(
                "epoch_slots",
                "IV-C needs N + 1 >= k/2 control slots",
            ));
        }
        Ok(EpochLayout { data_slots, m })
    }

    /// Bytes of line time one epoch takes.
    pub const fn epoch_bytes(&self) -> u32 {
        self.data_slots as u32 * DATA_CELL_LEN as u32 + (self.data_slots as u32 + 1) * GAP_BYTES
    }

    /// Start of control gap `i`.
    pub const fn gap_start(&self, i: u16) -> u32 {
        i as u32 * (GAP_BYTES + DATA_CELL_LEN as u32)
    }

    /// Start of data slot `s`.
    pub const fn data_start(&self, s: u16) -> u32 {
        self.gap_start(s) + GAP_BYTES
    }

    /// Gap in which host `h` sends its RTS (`i`) and receives its SCHD (`j`).
    pub const fn host_gap(&self, h: u16) -> u16 {
        h % self.m
    }

    /// Gap in which Core `c` sends its RTS and receives its SCHD.
    pub const fn core_gap(&self, c: u16) -> u16 {
        c / self.m
    }

    /// `[start, end)` of an RTS sent in gap `i`.
    pub const fn rts_window(&self, i: u16) -> (u32, u32) {
        let s = self.gap_start(i);
        (s, s + HEADER_LEN as u32)
    }

    /// `[start, end)` of a SCHD received in gap `j`.
    pub const fn schd_window(&self, j: u16) -> (u32, u32) {
        let s = self.gap_start(j) + HEADER_LEN as u32;
        (s, s + HEADER_LEN as u32)
    }
}
