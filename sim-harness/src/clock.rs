//! Clock domains: the one type that converts DES time (`u64` picoseconds) to a block's clock
//! cycles and back (DESIGN.md, "The fabric DES").
//!
//! A [`ClockDomain`] is a clock period and an origin (the DES time of its cycle 0). Cycle `c`
//! starts at `origin + c * period`. [`ClockDomain::shift`] moves the origin, which is how a
//! paused Wormhole partition's blocks are moved forward in time without touching their
//! cycle counters. The NIC and switch blocks of the baseline run on [`NIC_CLOCK`] (1 GHz,
//! origin 0); a DCSIM port runs on a clock of 8 bytes at its line rate, re-based when its
//! rate changes; the DCSIM host engines on a clock of `host_period_ps`.

use crate::event::Time;
use rtl_models::Cycles;

/// Picoseconds per cycle of the NIC and switch clocks of the baseline transport (1 GHz).
pub const NIC_PERIOD_PS: u64 = 1000;

/// The clock of the baseline NIC and switch blocks: 1 GHz from t = 0.
pub const NIC_CLOCK: ClockDomain = ClockDomain::new(NIC_PERIOD_PS, 0);

/// A clock: period and origin, both in picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockDomain {
    period_ps: u64,
    origin_ps: Time,
}

impl ClockDomain {
    /// A clock of `period_ps` (at least 1) whose cycle 0 starts at `origin_ps`.
    pub const fn new(period_ps: u64, origin_ps: Time) -> ClockDomain {
        assert!(period_ps > 0, "a clock period is at least 1 ps");
        ClockDomain {
            period_ps,
            origin_ps,
        }
    }

    /// The period, ps.
    #[inline]
    pub const fn period_ps(&self) -> u64 {
        self.period_ps
    }

    /// The origin (start of cycle 0), ps.
    #[inline]
    pub const fn origin_ps(&self) -> Time {
        self.origin_ps
    }

    /// The cycle in progress at `t` (the last cycle starting at or before `t`; cycle 0 before
    /// the origin).
    #[inline]
    pub fn cycle_at(&self, t: Time) -> Cycles {
        let d = t.saturating_sub(self.origin_ps);
        // The 1 GHz NIC clock is by far the most used: a division by a constant.
        if self.period_ps == NIC_PERIOD_PS {
            d / NIC_PERIOD_PS
        } else {
            d / self.period_ps
        }
    }

    /// The first cycle starting at or after `t`.
    #[inline]
    pub fn cycle_ceil(&self, t: Time) -> Cycles {
        t.saturating_sub(self.origin_ps).div_ceil(self.period_ps)
    }

    /// Start of cycle `c`, ps (saturating).
    #[inline]
    pub fn start_of(&self, c: Cycles) -> Time {
        self.origin_ps
            .saturating_add(c.saturating_mul(self.period_ps))
    }

    /// `c` cycles as a duration, ps (saturating).
    #[inline]
    pub fn cycles_ps(&self, c: Cycles) -> u64 {
        c.saturating_mul(self.period_ps)
    }

    /// A duration of `us` microseconds in whole cycles (rounded to nearest).
    pub fn us_to_cycles(&self, us: f64) -> f64 {
        (us * 1e6 / self.period_ps as f64).round()
    }

    /// Move the clock `delta` ps later: every cycle starts `delta` later.
    #[inline]
    pub fn shift(&mut self, delta: Time) {
        self.origin_ps = self.origin_ps.saturating_add(delta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn nic_clock_matches_the_old_division() {
        for t in [0u64, 999, 1000, 1001, 123_456_789] {
            assert_eq!(NIC_CLOCK.cycle_at(t), t / 1000);
            assert_eq!(NIC_CLOCK.start_of(t), t * 1000);
        }
    }

    proptest! {
        /// Conversions round-trip, and a shifted clock reads at `t + delta` what the unshifted
        /// one reads at `t`.
        #[test]
        fn conversions_and_shift(period in 1u64..100_000, origin in 0u64..1 << 40,
                                 t in 0u64..1 << 50, delta in 0u64..1 << 40) {
            let c = ClockDomain::new(period, origin);
            let k = c.cycle_at(t);
            prop_assert!(c.start_of(k) <= t.max(origin));
            prop_assert!(t < origin || t < c.start_of(k + 1));
            let kc = c.cycle_ceil(t);
            prop_assert!(c.start_of(kc) >= t);
            prop_assert!(kc == k || kc == k + 1);
            let mut s = c;
            s.shift(delta);
            prop_assert_eq!(s.cycle_at(t + delta), k);
            prop_assert_eq!(s.cycle_ceil(t + delta), kc);
            prop_assert_eq!(s.start_of(k), c.start_of(k) + delta);
        }
    }
}
