//! RED / ECN marker: the switch's marking decision from a queue occupancy.
//!
//! REPS section 2.1 ("ECN marking ... in Random Early Detection (RED), switches
//! probabilistically mark packets based on queue size, with the marking probability
//! increasing linearly between two thresholds (K_min and K_max)") and section 4.1 (baseline:
//! `K_min` = 20 % and `K_max` = 80 % of a one-BDP queue); Uno section 5.1 (never marked below
//! `MinECNThresh`, always above `MaxECNThresh`, linear in between; 25 % / 75 % of the queue).
//! DCTCP's step marking is the special case `kmin == kmax`.
//!
//! ```text
//!   P(mark)
//!    1.0 |                  +---------  always at/above kmax
//!   pmax |               .-'|
//!        |            .-'   |          p(q) = pmax * (q - kmin) / (kmax - kmin)
//!        |         .-'      |
//!    0.0 +--------+---------+--------> queue_bytes (real or phantom occupancy)
//!               kmin      kmax
//! ```
//!
//! Units: thresholds and occupancy in bytes; probabilities in Q0.32 (`2^32` = 1.0), held in
//! a `u64` so 1.0 is representable. Hardware computes the slope
//! `pmax / (kmax - kmin)` once at configuration time (Q0.64 per byte), so a decision is one
//! subtract, one multiply and one compare against a 32-bit LFSR draw
//! ([`RandomSource::chance_q32`]). The random source is drawn only for `kmin <= q < kmax`.
//!
//! The marker is stateless beyond its configuration registers: its state budget is zero
//! bits; [`RedMarker::CONFIG_BITS`] gives the configuration width.

use crate::budget::StateBudget;
use crate::clock::Cycles;
use crate::clocked::Clocked;
use crate::error::ConfigError;
use crate::lfsr::RandomSource;

/// Probability 1.0 in the Q0.32 units of [`RedConfig::pmax_q32`].
pub const PROB_ONE: u64 = 1 << 32;

/// RED/ECN marking thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RedConfig {
    /// Below this occupancy (bytes) a packet is never marked.
    pub kmin_bytes: u64,
    /// At or above this occupancy (bytes) a packet is always marked. `>= kmin_bytes`.
    pub kmax_bytes: u64,
    /// Marking probability reached just below `kmax_bytes`, Q0.32 (`PROB_ONE` = 1.0).
    pub pmax_q32: u64,
}

impl RedConfig {
    /// Linear ramp from 0 at `kmin_bytes` to 1.0 at `kmax_bytes` (REPS 4.1, Uno 5.1).
    pub const fn linear(kmin_bytes: u64, kmax_bytes: u64) -> Self {
        RedConfig {
            kmin_bytes,
            kmax_bytes,
            pmax_q32: PROB_ONE,
        }
    }

    /// DCTCP step marking: mark iff occupancy `>= k_bytes`.
    pub const fn step(k_bytes: u64) -> Self {
        Self::linear(k_bytes, k_bytes)
    }

    /// Thresholds at `kmin_pct` % and `kmax_pct` % of `queue_bytes` (rounded down), ramp to
    /// 1.0 (REPS 4.1: 20 / 80 of one BDP; Uno 5.1: 25 / 75).
    pub const fn percent_of(queue_bytes: u64, kmin_pct: u64, kmax_pct: u64) -> Self {
        Self::linear(
            (queue_bytes as u128 * kmin_pct as u128 / 100) as u64,
            (queue_bytes as u128 * kmax_pct as u128 / 100) as u64,
        )
    }

    /// The same thresholds with `pmax = num / den`; the error names `pmax_q32`.
    pub const fn with_pmax(self, num: u64, den: u64) -> Result<Self, ConfigError> {
        if den == 0 || num > den {
            return Err(ConfigError::new(
                "pmax_q32",
                "pmax must be a ratio in [0, 1]",
            ));
        }
        let p = ((num as u128) << 32) / den as u128;
        Ok(RedConfig {
            pmax_q32: p as u64,
            ..self
        })
    }

    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.kmax_bytes < self.kmin_bytes {
            return Err(ConfigError::new("kmax_bytes", "below kmin_bytes"));
        }
        if self.pmax_q32 > PROB_ONE {
            return Err(ConfigError::new("pmax_q32", "above 1.0 (2^32)"));
        }
        Ok(())
    }
}

/// The RED/ECN marking decision of one queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RedMarker {
    cfg: RedConfig,
    /// `pmax / (kmax - kmin)` in Q0.64 per byte, rounded up (so ramp points at exact
    /// fractions of the range give exact probabilities; the error is at most 2^-32), clipped to
    /// `u64::MAX` (only reachable for a 1-byte range, where the ramp is never used).
    slope_q64: u64,
}

impl RedMarker {
    /// Configuration register width: kmin, kmax, slope (pmax is folded into the slope).
    pub const CONFIG_BITS: u32 = 3 * 64;

    /// A marker for `cfg`; the error names the bad field.
    pub const fn new(cfg: RedConfig) -> Result<Self, ConfigError> {
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        let range = cfg.kmax_bytes - cfg.kmin_bytes;
        let slope_q64 = if range == 0 {
            0
        } else {
            let s = ((cfg.pmax_q32 as u128) << 32).div_ceil(range as u128);
            if s > u64::MAX as u128 {
                u64::MAX
            } else {
                s as u64
            }
        };
        Ok(RedMarker { cfg, slope_q64 })
    }

    /// The configuration.
    pub const fn config(&self) -> RedConfig {
        self.cfg
    }

    /// Marking probability (Q0.32, [`PROB_ONE`] = 1.0) at occupancy `queue_bytes`.
    #[inline]
    pub const fn mark_probability_q32(&self, queue_bytes: u64) -> u64 {
        if queue_bytes < self.cfg.kmin_bytes {
            0
        } else if queue_bytes >= self.cfg.kmax_bytes {
            PROB_ONE
        } else {
            let d = queue_bytes - self.cfg.kmin_bytes;
            ((d as u128 * self.slope_q64 as u128) >> 32) as u64
        }
    }

    /// Whether a packet arriving at occupancy `queue_bytes` is ECN-marked: never below
    /// `kmin`, always at/above `kmax`, with the linear probability in between (one draw).
    #[inline]
    pub fn should_mark<R: RandomSource>(&self, queue_bytes: u64, rng: &mut R) -> bool {
        if queue_bytes < self.cfg.kmin_bytes {
            false
        } else if queue_bytes >= self.cfg.kmax_bytes {
            true
        } else {
            rng.chance_q32(self.mark_probability_q32(queue_bytes))
        }
    }
}

/// Stateless: clock edges change nothing.
impl Clocked for RedMarker {
    #[inline]
    fn tick(&mut self) {}
    #[inline]
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for RedMarker {
    const NAME: &'static str = "RED/ECN marker";
    const BITS: u32 = 0;
    const UNIT: &'static str = "per port (configuration registers only)";
}
// Packed form: no run-time state (the model's fields are the configuration and the slope,
// nothing else); the configuration registers are kmin, kmax and the slope (pmax, kept in
// `cfg` for read-back, is folded into the slope in hardware).
const _: () = assert!(
    RedMarker::BITS == 0
        && 8 * core::mem::size_of::<RedMarker>() as u32
            == crate::field_bits!(RedMarker, cfg) + crate::field_bits!(RedMarker, slope_q64)
);
const _: () = assert!(
    RedMarker::CONFIG_BITS
        == crate::field_bits!(RedConfig, kmin_bytes)
            + crate::field_bits!(RedConfig, kmax_bytes)
            + crate::field_bits!(RedMarker, slope_q64)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lfsr::Lfsr32;
    use proptest::prelude::*;

    #[test]
    fn thresholds_and_step() {
        let mut rng = Lfsr32::new(3);
        let m = RedMarker::new(RedConfig::step(1000)).unwrap();
        assert!(!m.should_mark(999, &mut rng));
        assert!(m.should_mark(1000, &mut rng));
        let lin = RedMarker::new(RedConfig::linear(100, 300)).unwrap();
        assert_eq!(lin.mark_probability_q32(99), 0);
        assert_eq!(lin.mark_probability_q32(100), 0);
        assert_eq!(lin.mark_probability_q32(200), PROB_ONE / 2);
        assert_eq!(lin.mark_probability_q32(300), PROB_ONE);
        let half = RedMarker::new(RedConfig::linear(0, 1000).with_pmax(1, 2).unwrap()).unwrap();
        assert_eq!(half.mark_probability_q32(500), PROB_ONE / 4);
        let c = RedConfig::percent_of(1_000_000, 20, 80);
        assert_eq!((c.kmin_bytes, c.kmax_bytes), (200_000, 800_000));
    }

    #[test]
    fn marking_frequency_follows_ramp() {
        let m = RedMarker::new(RedConfig::linear(0, 1000)).unwrap();
        let mut rng = Lfsr32::new(11);
        let marks = (0..20_000).filter(|_| m.should_mark(250, &mut rng)).count();
        assert!((4_500..5_500).contains(&marks), "{marks}");
    }

    #[test]
    fn errors_name_fields() {
        assert_eq!(
            RedMarker::new(RedConfig::linear(10, 5)).unwrap_err().field,
            "kmax_bytes"
        );
        let bad = RedConfig {
            pmax_q32: PROB_ONE + 1,
            ..RedConfig::step(1)
        };
        assert_eq!(RedMarker::new(bad).unwrap_err().field, "pmax_q32");
        assert_eq!(
            RedConfig::step(1).with_pmax(3, 2).unwrap_err().field,
            "pmax_q32"
        );
        assert_eq!(
            RedConfig::step(1).with_pmax(1, 0).unwrap_err().field,
            "pmax_q32"
        );
    }

    proptest! {
        #[test]
        fn probability_is_monotone_and_bounded(kmin in 0u64..1_000_000, range in 0u64..1_000_000,
                                               pnum in 0u64..=1000, q1 in 0u64..3_000_000, q2 in 0u64..3_000_000) {
            let cfg = RedConfig::linear(kmin, kmin + range).with_pmax(pnum, 1000).unwrap();
            let m = RedMarker::new(cfg).unwrap();
            let (lo, hi) = if q1 <= q2 { (q1, q2) } else { (q2, q1) };
            prop_assert!(m.mark_probability_q32(lo) <= m.mark_probability_q32(hi));
            if hi < kmin + range { prop_assert!(m.mark_probability_q32(hi) <= cfg.pmax_q32); }
            let mut rng = Lfsr32::new(q1 as u32);
            prop_assert_eq!(m.should_mark(hi, &mut rng), hi >= kmin + range || (hi >= kmin && rng_mark(m, hi, q1 as u32)));
        }

        #[test]
        fn advance_equals_idle_ticks(kmin in 0u64..10_000, range in 0u64..10_000, n in 0u64..500, q in 0u64..30_000, seed: u32) {
            let b = RedMarker::new(RedConfig::linear(kmin, kmin + range)).unwrap();
            let a = crate::testing::assert_advance_eq_ticks(&b, n);
            let (mut ra, mut rb) = (Lfsr32::new(seed), Lfsr32::new(seed));
            prop_assert_eq!(a.should_mark(q, &mut ra), b.should_mark(q, &mut rb));
        }
    }

    /// Reference: the in-between decision is one LFSR draw compared with the probability.
    fn rng_mark(m: RedMarker, q: u64, seed: u32) -> bool {
        let mut r = Lfsr32::new(seed);
        (r.next_u32() as u64) < m.mark_probability_q32(q)
    }
}
