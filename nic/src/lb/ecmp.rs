//! ECMP at the sender: one entropy value (EV) for the whole flow.
//!
//! REPS section 2.2 ("Equal Cost Multi-Path"): every switch hashes the packet's header
//! fields (here source, destination and EV) to pick one of its equal-cost output ports, so a
//! flow whose EV never changes follows one path for its lifetime. The EV is drawn once, at
//! connection setup, uniformly from the entropy value set (EVS = `2^evs_bits` values).
//!
//! ```text
//!   setup: ev = rand() mod EVS          (one draw from the RandomSource)
//!
//!            +---------+
//!  on_send ->|  ev:16  |--> EV (same value for every DATA packet)
//!            +---------+
//!  on_ack / on_failure_detection: ignored (ECMP does not adapt)
//! ```
//!
//! Units: `ev` is an entropy value (dimensionless, `evs_bits` wide); there is no time state.

use super::{Ev, LoadBalancer};
use rtl_models::{Clocked, Cycles, RandomSource, StateBudget};

/// Largest supported EVS width in bits (the EV header field is 16 bits).
pub const MAX_EVS_BITS: u32 = 16;

/// A fixed-entropy (ECMP) chooser: one EV per flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ecmp {
    /// The flow's entropy value (REPS section 2.2).
    ev: Ev,
}

impl Ecmp {
    /// A chooser with the EV drawn uniformly from an EVS of `2^evs_bits` values
    /// (`evs_bits` is clamped to `1..=16`).
    pub fn new<R: RandomSource>(evs_bits: u32, rng: &mut R) -> Self {
        Ecmp {
            ev: (rng.next_u32() & evs_mask(evs_bits)) as Ev,
        }
    }

    /// A chooser with a given EV.
    pub const fn with_ev(ev: Ev) -> Self {
        Ecmp { ev }
    }

    /// The flow's EV.
    pub const fn ev(&self) -> Ev {
        self.ev
    }

    /// Packed form: the EV register.
    pub const fn pack(&self) -> [u8; 2] {
        self.ev.to_le_bytes()
    }

    /// Inverse of [`Ecmp::pack`].
    pub const fn unpack(b: [u8; 2]) -> Self {
        Ecmp {
            ev: Ev::from_le_bytes(b),
        }
    }
}

/// Mask of the low `evs_bits` bits (`evs_bits` clamped to `1..=16`).
pub const fn evs_mask(evs_bits: u32) -> u32 {
    let b = if evs_bits == 0 {
        1
    } else if evs_bits > MAX_EVS_BITS {
        MAX_EVS_BITS
    } else {
        evs_bits
    };
    (1u32 << b) - 1
}

impl LoadBalancer for Ecmp {
    #[inline]
    fn on_send<R: RandomSource>(&mut self, _now: Cycles, _rng: &mut R) -> Ev {
        self.ev
    }

    #[inline]
    fn on_ack(&mut self, _now: Cycles, _ev: Ev, _ecn: bool) {}
}

impl Clocked for Ecmp {
    /// ECMP has no time-dependent state.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Ecmp {
    const NAME: &'static str = "ECMP entropy chooser";
    const BITS: u32 = 16;
    const UNIT: &'static str = "per connection";
}
// Packed form: the EV register is the block's only field and fills the packed bytes.
const _: () = assert!(
    Ecmp::BITS == rtl_models::field_bits!(Ecmp, ev)
        && Ecmp::BITS as usize == 8 * core::mem::size_of::<Ecmp>()
        && Ecmp::BITS as usize == 8 * Ecmp::with_ev(0).pack().len()
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    #[test]
    fn same_ev_for_every_packet_and_inside_evs() {
        let mut rng = Lfsr32::new(9);
        let mut e = Ecmp::new(8, &mut rng);
        let first = e.on_send(0, &mut rng);
        assert!(first < 256);
        for t in 1..100 {
            e.on_ack(t, (t * 7) as Ev, t % 2 == 0);
            e.on_failure_detection(t);
            assert_eq!(e.on_send(t, &mut rng), first);
        }
    }

    #[test]
    fn flows_get_spread_evs() {
        let mut rng = Lfsr32::new(3);
        let mut evs = [0 as Ev; 64];
        for e in evs.iter_mut() {
            *e = Ecmp::new(16, &mut rng).ev();
        }
        evs.sort_unstable();
        let distinct = 1 + evs.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(distinct > 60, "{distinct}");
    }

    proptest! {
        #[test]
        fn pack_round_trips(ev in any::<u16>()) {
            let e = Ecmp::with_ev(ev);
            prop_assert_eq!(Ecmp::unpack(e.pack()), e);
        }

        #[test]
        fn advance_equals_idle_ticks(ev in any::<u16>(), n in 0u64..2000) {
            rtl_models::testing::assert_advance_eq_ticks(&Ecmp::with_ev(ev), n);
        }
    }
}
