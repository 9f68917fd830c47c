//! Reassembly by sequence number (Zeropod §III-B1: "Each cell contains a small header, which
//! includes a sequence number that allows the cells to be reassembled back into packets at the
//! destination"). Per (src, flow): a cumulative count `base` (every cell below it is in) and a
//! 64-cell window bitmap above it. Optimistic cells later resent as scheduled arrive twice; the
//! second copy is a counted duplicate.

use rtl_models::zeropod_cell::DataHeaderRepr;
use rtl_models::StateBudget;

/// What happened to a received cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxOutcome {
    /// A new cell; `in_order` is the flow's contiguous count after it.
    New {
        /// Cells of the flow received contiguously from 0.
        in_order: u32,
    },
    /// Already received.
    Duplicate,
    /// Beyond the 64-cell window (dropped, counted).
    OutOfWindow,
    /// No free flow entry (dropped, counted).
    TableFull,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    src: u16,
    flow: u16,
    base: u32,
    window: u64,
}

/// Per-flow reassembly state for `F` flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reassembly<const F: usize> {
    entries: [Option<Entry>; F],
    /// Duplicates discarded.
    pub duplicates: u64,
    /// Cells dropped (window or table full).
    pub dropped: u64,
}

impl<const F: usize> Default for Reassembly<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const F: usize> Reassembly<F> {
    /// Empty table.
    pub const fn new() -> Self {
        Reassembly {
            entries: [None; F],
            duplicates: 0,
            dropped: 0,
        }
    }

    fn find(&self, src: u16, flow: u16) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| matches!(e, Some(e) if e.src == src && e.flow == flow))
    }

    /// Take one cell.
    pub fn receive(&mut self, h: &DataHeaderRepr) -> RxOutcome {
        let i = match self.find(h.src, h.flow) {
            Some(i) => i,
            None => match self.entries.iter().position(|e| e.is_none()) {
                Some(i) => {
                    self.entries[i] = Some(Entry {
                        src: h.src,
                        flow: h.flow,
                        base: 0,
                        window: 0,
                    });
                    i
                }
                None => {
                    self.dropped += 1;
                    return RxOutcome::TableFull;
                }
            },
        };
        let Some(e) = self.entries[i].as_mut() else {
            return RxOutcome::TableFull;
        };
        if h.seq < e.base {
            self.duplicates += 1;
            return RxOutcome::Duplicate;
        }
        let off = h.seq - e.base;
        if off >= 64 {
            self.dropped += 1;
            return RxOutcome::OutOfWindow;
        }
        if e.window >> off & 1 == 1 {
            self.duplicates += 1;
            return RxOutcome::Duplicate;
        }
        e.window |= 1 << off;
        let run = e.window.trailing_ones();
        e.base += run;
        e.window = if run == 64 { 0 } else { e.window >> run };
        RxOutcome::New { in_order: e.base }
    }

    /// Cells of (src, flow) received contiguously from 0.
    pub fn in_order(&self, src: u16, flow: u16) -> u32 {
        self.find(src, flow)
            .and_then(|i| self.entries[i])
            .map_or(0, |e| e.base)
    }

    /// Free the entry of a finished flow.
    pub fn release(&mut self, src: u16, flow: u16) {
        if let Some(i) = self.find(src, flow) {
            self.entries[i] = None;
        }
    }
}

/// Per flow: valid 1, src 16, flow 16, base 32, window 64.
impl<const F: usize> StateBudget for Reassembly<F> {
    const NAME: &'static str = "Zeropod reassembly";
    const UNIT: &'static str = "per NIC";
    const BITS: u32 = F as u32 * (1 + 16 + 16 + 32 + 64) + 2 * 64;
}
const _: () = assert!(<Reassembly<64> as StateBudget>::BITS == 64 * 129 + 128);
