//! Out-of-order receiver with selective acknowledgement.
//!
//! The REPS paper's baseline transport "allows the receiver to accept and acknowledge
//! out-of-order packets" (section 4.1); REPS-FPGA's transport places out-of-order payload
//! directly and tracks delivery in a SACK bitmap (section 4.1, "REPS-FPGA"). This block keeps
//! the cumulative ACK point and a bitmap of the PSNs received above it:
//!
//! ```text
//!   DATA psn --> [ psn < cum_ack or bit set ]--yes--> duplicate (ACKed again)
//!                         | no
//!                [ psn >= cum_ack + 64*WORDS ]--yes--> beyond window: discarded, no ACK
//!                         | no
//!                set bit; out_of_order if psn != cum_ack
//!                slide cum_ack over the set bits (clearing them)
//!                         |
//!                         v
//!               ACK {psn, cum_ack, ecn echo, ev echo}
//!
//!   trimmed DATA psn --> NACK {psn, ev}   (nothing recorded)
//! ```
//!
//! State: `cum_ack` (32 bits) and a bitmap of `64 * WORDS` bits indexed by
//! `psn mod 64*WORDS`. Counters (`stats`) are instrumentation, not hardware state.

use super::{slot, Ack, Nack, Psn};
use crate::lb::Ev;
use rtl_models::{Clocked, Cycles, StateBudget};

/// Receiver counters (instrumentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReceiverStats {
    /// DATA packets received (including duplicates).
    pub received: u64,
    /// DATA packets whose PSN was not the next expected one (arrived out of order).
    pub out_of_order: u64,
    /// DATA packets received again (already delivered).
    pub duplicates: u64,
    /// DATA packets beyond the window (discarded; a correct sender never sends them).
    pub beyond_window: u64,
    /// Trimmed DATA headers answered with a NACK.
    pub nacks: u64,
}

/// The receiving end of one message, with a window of `64 * WORDS` PSNs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SackReceiver<const WORDS: usize> {
    cum_ack: Psn,
    rcvd: [u64; WORDS],
    /// Counters.
    pub stats: ReceiverStats,
}

impl<const WORDS: usize> Default for SackReceiver<WORDS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const WORDS: usize> SackReceiver<WORDS> {
    const POW2: () = assert!(WORDS.is_power_of_two(), "WORDS must be a power of two");

    /// Window size in PSNs.
    pub const WINDOW: u32 = 64 * WORDS as u32;

    /// A receiver expecting PSN 0 first.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::POW2;
        SackReceiver {
            cum_ack: 0,
            rcvd: [0; WORDS],
            stats: ReceiverStats {
                received: 0,
                out_of_order: 0,
                duplicates: 0,
                beyond_window: 0,
                nacks: 0,
            },
        }
    }

    /// Every PSN below this has been received.
    pub const fn cum_ack(&self) -> Psn {
        self.cum_ack
    }

    /// The SACK bitmap word that holds `psn`'s bit (whatever the window position): a
    /// simulator uses its address to prefetch the state a DATA arrival will touch.
    pub fn sack_word(&self, psn: Psn) -> &u64 {
        &self.rcvd[slot(psn, WORDS).0]
    }

    /// Whether `psn` has been received.
    pub fn has(&self, psn: Psn) -> bool {
        if psn < self.cum_ack {
            return true;
        }
        if psn - self.cum_ack >= Self::WINDOW {
            return false;
        }
        let (w, b) = slot(psn, WORDS);
        self.rcvd[w] >> b & 1 == 1
    }

    /// A DATA packet arrived. Returns the ACK to send, or `None` if the PSN is beyond the
    /// window (discarded, counted in `stats.beyond_window`).
    pub fn on_data(&mut self, psn: Psn, ecn: bool, ev: Ev) -> Option<Ack> {
        self.stats.received += 1;
        if self.has(psn) {
            self.stats.duplicates += 1;
        } else {
            if psn - self.cum_ack >= Self::WINDOW {
                self.stats.beyond_window += 1;
                return None;
            }
            if psn != self.cum_ack {
                self.stats.out_of_order += 1;
            }
            let (w, b) = slot(psn, WORDS);
            self.rcvd[w] |= 1 << b;
            // Slide the cumulative point over the received run.
            loop {
                let (w, b) = slot(self.cum_ack, WORDS);
                if self.rcvd[w] >> b & 1 == 0 {
                    break;
                }
                self.rcvd[w] &= !(1 << b);
                self.cum_ack += 1;
            }
        }
        Some(Ack {
            psn,
            cum_ack: self.cum_ack,
            ecn,
            ev,
        })
    }

    /// A trimmed DATA header arrived: answer with a NACK.
    pub fn on_trimmed(&mut self, psn: Psn, ev: Ev) -> Nack {
        self.stats.nacks += 1;
        Nack { psn, ev }
    }
}

impl<const WORDS: usize> Clocked for SackReceiver<WORDS> {
    /// The receiver has no time-dependent state.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl<const WORDS: usize> StateBudget for SackReceiver<WORDS> {
    const NAME: &'static str = "SACK receiver (out-of-order window)";
    const BITS: u32 = 32 + 64 * WORDS as u32;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(
    (core::mem::size_of::<Psn>() + core::mem::size_of::<[u64; 8]>()) * 8
        == <SackReceiver<8> as StateBudget>::BITS as usize
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `sack_word` names the word that holds a PSN's bit: an out-of-order arrival sets
    /// that bit there.
    #[test]
    fn sack_word_holds_the_psn_bit() {
        let mut r = SackReceiver::<4>::new();
        for psn in [5u32, 70, 200, 255] {
            assert_eq!(*r.sack_word(psn) >> (psn % 64) & 1, 0);
            r.on_data(psn, false, 0).unwrap();
            assert_eq!(*r.sack_word(psn) >> (psn % 64) & 1, 1, "psn {psn}");
        }
    }

    #[test]
    fn in_order_and_out_of_order() {
        let mut r = SackReceiver::<1>::new();
        let a = r.on_data(0, false, 7).unwrap();
        assert_eq!((a.psn, a.cum_ack, a.ev), (0, 1, 7));
        let a = r.on_data(2, true, 9).unwrap();
        assert_eq!((a.psn, a.cum_ack, a.ecn), (2, 1, true));
        assert_eq!(r.stats.out_of_order, 1);
        let a = r.on_data(1, false, 1).unwrap();
        assert_eq!(a.cum_ack, 3);
        let a = r.on_data(2, false, 1).unwrap();
        assert_eq!(a.cum_ack, 3);
        assert_eq!(r.stats.duplicates, 1);
    }

    #[test]
    fn beyond_window_is_discarded_not_acked() {
        let mut r = SackReceiver::<1>::new();
        assert!(r.on_data(64, false, 0).is_none());
        assert_eq!(r.stats.beyond_window, 1);
        assert!(r.on_data(63, false, 0).is_some());
        assert!(!r.has(64));
    }

    proptest! {
        /// Any arrival order of any duplicates: cum_ack is the first missing PSN.
        #[test]
        fn cum_ack_is_first_hole(order in proptest::collection::vec(0u32..100, 0..300)) {
            let mut r = SackReceiver::<2>::new();
            let mut seen = [false; 100];
            for p in order {
                if r.on_data(p, false, 0).is_some() { seen[p as usize] = true; }
                let hole = seen.iter().position(|s| !s).unwrap_or(100) as u32;
                prop_assert_eq!(r.cum_ack(), hole);
            }
        }

        #[test]
        fn advance_equals_idle_ticks(n in 0u64..2000, p in 0u32..60) {
            let mut a = SackReceiver::<1>::new();
            a.on_data(p, false, 0);
            rtl_models::testing::assert_advance_eq_ticks(&a, n);
        }
    }
}
