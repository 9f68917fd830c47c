//! Oblivious packet spraying (OPS): a fresh random entropy value for every DATA packet.
//!
//! REPS section 2.2 ("Oblivious Packet Spraying", also called Random Packet Spraying):
//! the sender picks a random EV from the entropy value set (EVS = `2^evs_bits` values) for
//! each packet, so the switches' ECMP hashes spread one flow over all equal-cost paths. OPS
//! ignores congestion and failure feedback (section 4.3.1: it "keeps choosing all paths
//! equally").
//!
//! ```text
//!             RandomSource (LFSR)
//!                   |
//!            +------v-------+
//!  on_send ->| r & evs_mask |--> EV (new value every packet)
//!            +--------------+
//!  on_ack / on_failure_detection: ignored
//! ```
//!
//! Units: EVs are dimensionless `evs_bits`-wide values. The only register is the EVS mask
//! (configuration, 16 bits); the random bits come from the NIC's shared RandomSource.

use super::ecmp::evs_mask;
use super::{Ev, LoadBalancer};
use rtl_models::{Clocked, Cycles, RandomSource, StateBudget};

/// A packet-spraying chooser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ops {
    /// `2^evs_bits - 1` (REPS section 4.5.2: EVS size).
    mask: u16,
}

impl Ops {
    /// A sprayer over an EVS of `2^evs_bits` values (`evs_bits` clamped to `1..=16`).
    pub const fn new(evs_bits: u32) -> Self {
        Ops {
            mask: evs_mask(evs_bits) as u16,
        }
    }

    /// The EVS mask.
    pub const fn mask(&self) -> u16 {
        self.mask
    }

    /// Packed form: the mask register.
    pub const fn pack(&self) -> [u8; 2] {
        self.mask.to_le_bytes()
    }

    /// Inverse of [`Ops::pack`].
    pub const fn unpack(b: [u8; 2]) -> Self {
        Ops {
            mask: u16::from_le_bytes(b),
        }
    }
}

impl LoadBalancer for Ops {
    #[inline]
    fn on_send<R: RandomSource>(&mut self, _now: Cycles, rng: &mut R) -> Ev {
        (rng.next_u32() as u16) & self.mask
    }

    #[inline]
    fn on_ack(&mut self, _now: Cycles, _ev: Ev, _ecn: bool) {}
}

impl Clocked for Ops {
    /// OPS has no time-dependent state.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Ops {
    const NAME: &'static str = "OPS entropy chooser";
    const BITS: u32 = 16;
    const UNIT: &'static str = "per connection";
}
// Packed form: the mask register is the block's only field and fills the packed bytes.
const _: () = assert!(
    Ops::BITS == rtl_models::field_bits!(Ops, mask)
        && Ops::BITS as usize == 8 * core::mem::size_of::<Ops>()
        && Ops::BITS as usize == 8 * Ops::new(1).pack().len()
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    #[test]
    fn sprays_uniformly_over_the_evs() {
        let mut rng = Lfsr32::new(11);
        let mut o = Ops::new(3);
        let mut hist = [0u32; 8];
        for t in 0..8000 {
            let ev = o.on_send(t, &mut rng);
            assert!(ev < 8);
            hist[ev as usize] += 1;
        }
        for h in hist {
            assert!((850..1150).contains(&h), "{hist:?}");
        }
    }

    #[test]
    fn consecutive_packets_change_ev() {
        let mut rng = Lfsr32::new(5);
        let mut o = Ops::new(16);
        let evs: [Ev; 4] = core::array::from_fn(|i| o.on_send(i as u64, &mut rng));
        assert!(evs.windows(2).any(|w| w[0] != w[1]), "{evs:?}");
    }

    proptest! {
        #[test]
        fn pack_round_trips(bits in 1u32..=16) {
            let o = Ops::new(bits);
            prop_assert_eq!(Ops::unpack(o.pack()), o);
            prop_assert_eq!(o.mask() as u32 + 1, 1u32 << bits);
        }

        #[test]
        fn advance_equals_idle_ticks(bits in 1u32..=16, n in 0u64..2000) {
            rtl_models::testing::assert_advance_eq_ticks(&Ops::new(bits), n);
        }
    }
}
