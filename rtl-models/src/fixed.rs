//! Fixed-point rates: bytes (or tokens) per cycle in unsigned Q32.32.
//!
//! A 800 Gb/s port on a 1 GHz clock moves 100 bytes/cycle; a DCSIM SIM token bucket at
//! C/(alpha+2.1) adds about 0.0697 tokens/cycle. Q32.32 holds both exactly enough for
//! hardware (the fractional LSB is 2^-32 of a byte per cycle).

/// Fractional bits of [`Rate`].
pub const FRAC_BITS: u32 = 32;
/// One unit (1.0) in Q32.32.
pub const ONE: u64 = 1 << FRAC_BITS;

/// A rate in units per cycle, unsigned Q32.32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rate(pub u64);

impl Rate {
    /// Zero.
    pub const ZERO: Rate = Rate(0);

    /// `num / den` units per cycle, rounded down. `None` when `den == 0` or the rate
    /// does not fit Q32.32.
    pub const fn from_ratio(num: u64, den: u64) -> Option<Rate> {
        if den == 0 {
            return None;
        }
        let q = ((num as u128) << FRAC_BITS) / den as u128;
        if q > u64::MAX as u128 {
            None
        } else {
            Some(Rate(q as u64))
        }
    }

    /// Whole units per cycle.
    pub const fn from_int(units: u32) -> Rate {
        Rate((units as u64) << FRAC_BITS)
    }

    /// Units per cycle of a link of `bits_per_s` on a clock of `period_ps`.
    pub const fn from_link(bits_per_s: u64, period_ps: u64) -> Option<Rate> {
        // bytes/cycle = bits_per_s / 8 * period_ps / 1e12
        Self::from_ratio(bits_per_s.saturating_mul(period_ps) / 8, 1_000_000_000_000)
    }

    /// This rate scaled by `num/den` (for example 0.9 of line rate: `scale(9, 10)`).
    pub const fn scale(self, num: u64, den: u64) -> Option<Rate> {
        if den == 0 {
            return None;
        }
        let v = (self.0 as u128 * num as u128) / den as u128;
        if v > u64::MAX as u128 {
            None
        } else {
            Some(Rate(v as u64))
        }
    }

    /// Amount accumulated over `cycles`, in Q32.32 units (wide, never overflows).
    pub const fn over(self, cycles: u64) -> u128 {
        self.0 as u128 * cycles as u128
    }

    /// Whole units accumulated over `cycles` (floor), saturating at `u64::MAX`.
    pub const fn whole_over(self, cycles: u64) -> u64 {
        let v = self.over(cycles) >> FRAC_BITS;
        if v > u64::MAX as u128 {
            u64::MAX
        } else {
            v as u64
        }
    }

    /// Cycles needed to accumulate `amount_q` (Q32.32), rounded up; `None` at rate zero.
    pub const fn cycles_to(self, amount_q: u128) -> Option<u64> {
        if self.0 == 0 {
            return None;
        }
        let c = amount_q.div_ceil(self.0 as u128);
        if c > u64::MAX as u128 {
            Some(u64::MAX)
        } else {
            Some(c as u64)
        }
    }

    /// The rate as a float, for reports only (never inside a block).
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / ONE as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_rates() {
        // 800 Gb/s at 1 GHz = 100 B/cycle exactly.
        assert_eq!(
            Rate::from_link(800_000_000_000, 1000),
            Some(Rate::from_int(100))
        );
        // 400 Gb/s at 1 GHz = 50 B/cycle.
        assert_eq!(
            Rate::from_link(400_000_000_000, 1000),
            Some(Rate::from_int(50))
        );
        assert_eq!(Rate::from_ratio(1, 0), None);
    }

    #[test]
    fn accumulation() {
        let r = Rate::from_ratio(1, 3).unwrap();
        assert_eq!(r.whole_over(3), 0); // floor(3 * floor(2^32/3)) < 2^32
        assert_eq!(r.whole_over(4), 1);
        assert_eq!(r.cycles_to(ONE as u128), Some(4));
        assert_eq!(Rate::ZERO.cycles_to(1), None);
    }
}
