//! Saturating counters: a `BITS`-wide unsigned register that sticks at 0 and `2^BITS - 1`.
//!
//! Hardware counters (drop counters, credit counters, `explore_counter`...) never wrap: an
//! increment at the top or a decrement at the bottom is clipped, and the clip is reported
//! to the caller so it can be counted.
//!
//! ```text
//!        inc/add(n) ----+        +---- dec/sub(n)
//!                       v        v
//!                 +---------------------+
//!                 |  value: BITS bits   |  0 <= value <= MAX = 2^BITS - 1
//!                 +---------------------+
//!                            |
//!                          get()
//! ```
//!
//! Units: whatever is counted (packets, bytes, events). `BITS` is 1..=64; a wider or zero
//! width is a compile-time error (evaluated when the counter is constructed).

use crate::budget::StateBudget;
use crate::clock::Cycles;
use crate::clocked::Clocked;

/// A `BITS`-bit saturating up/down counter (stored in a `u64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SatCounter<const BITS: u32> {
    value: u64,
}

impl<const BITS: u32> SatCounter<BITS> {
    /// Largest representable value, `2^BITS - 1`.
    pub const MAX: u64 = {
        assert!(
            BITS >= 1 && BITS <= 64,
            "SatCounter width must be 1..=64 bits"
        );
        if BITS == 64 {
            u64::MAX
        } else {
            (1u64 << BITS) - 1
        }
    };

    /// A counter at zero.
    pub const fn new() -> Self {
        let _ = Self::MAX; // force the width check
        SatCounter { value: 0 }
    }

    /// A counter at `value`, clipped to [`Self::MAX`].
    pub const fn with_value(value: u64) -> Self {
        SatCounter {
            value: if value > Self::MAX { Self::MAX } else { value },
        }
    }

    /// Current value.
    #[inline]
    pub const fn get(&self) -> u64 {
        self.value
    }

    /// Whether the counter is at zero.
    #[inline]
    pub const fn is_zero(&self) -> bool {
        self.value == 0
    }

    /// Whether the counter is at [`Self::MAX`].
    #[inline]
    pub const fn is_max(&self) -> bool {
        self.value == Self::MAX
    }

    /// Set to `value` (clipped); returns true if it was clipped.
    #[inline]
    pub fn set(&mut self, value: u64) -> bool {
        self.value = value.min(Self::MAX);
        value > Self::MAX
    }

    /// Back to zero.
    #[inline]
    pub fn reset(&mut self) {
        self.value = 0;
    }

    /// Add one; returns true if the counter was already at [`Self::MAX`] (clipped).
    #[inline]
    pub fn inc(&mut self) -> bool {
        self.add(1)
    }

    /// Subtract one; returns true if the counter was already at zero (clipped).
    #[inline]
    pub fn dec(&mut self) -> bool {
        self.sub(1)
    }

    /// Add `n`, saturating at [`Self::MAX`]; returns true if the result was clipped.
    #[inline]
    pub fn add(&mut self, n: u64) -> bool {
        let room = Self::MAX - self.value;
        let clipped = n > room;
        self.value += n.min(room);
        clipped
    }

    /// Subtract `n`, saturating at zero; returns true if the result was clipped.
    #[inline]
    pub fn sub(&mut self, n: u64) -> bool {
        let clipped = n > self.value;
        self.value -= n.min(self.value);
        clipped
    }
}

/// A counter has no autonomous behaviour: a clock edge without inputs leaves it unchanged.
impl<const BITS: u32> Clocked for SatCounter<BITS> {
    #[inline]
    fn tick(&mut self) {}
    #[inline]
    fn advance(&mut self, _cycles: Cycles) {}
}

impl<const BITS: u32> StateBudget for SatCounter<BITS> {
    const NAME: &'static str = "Saturating counter";
    const BITS: u32 = {
        let _ = Self::MAX; // width check
        BITS
    };
    const UNIT: &'static str = "per counter";
}
// Packed form: the value fits its storage word, and the widest counter is exactly one word.
const _: () =
    assert!(<SatCounter<64> as StateBudget>::BITS as usize == 8 * core::mem::size_of::<u64>());
const _: () = assert!(<SatCounter<13> as StateBudget>::BITS == 13 && SatCounter::<13>::MAX == 8191);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn saturates_both_ends() {
        let mut c = SatCounter::<3>::new();
        assert!(c.dec());
        assert_eq!(c.get(), 0);
        for _ in 0..7 {
            assert!(!c.inc());
        }
        assert!(c.is_max());
        assert!(c.inc());
        assert_eq!(c.get(), 7);
        assert!(!c.sub(5));
        assert_eq!(c.get(), 2);
        assert!(c.add(100));
        assert_eq!(c.get(), 7);
        assert!(c.sub(8));
        assert!(c.is_zero());
        assert_eq!(SatCounter::<3>::with_value(9).get(), 7);
        let mut w = SatCounter::<64>::with_value(u64::MAX - 1);
        assert!(!w.inc());
        assert!(w.inc());
        assert_eq!(w.get(), u64::MAX);
    }

    proptest! {
        #[test]
        fn matches_clamped_reference(ops in proptest::collection::vec((any::<bool>(), 0u64..40), 0..64)) {
            let mut c = SatCounter::<5>::new();
            let mut r: i64 = 0;
            for (up, n) in ops {
                let clipped = if up { c.add(n) } else { c.sub(n) };
                let raw = if up { r + n as i64 } else { r - n as i64 };
                let clamped = raw.clamp(0, 31);
                prop_assert_eq!(clipped, raw != clamped);
                r = clamped;
                prop_assert_eq!(c.get(), r as u64);
            }
        }

        #[test]
        fn advance_equals_idle_ticks(v in 0u64..1000, n in 0u64..200) {
            crate::testing::assert_advance_eq_ticks(&SatCounter::<9>::with_value(v), n);
        }
    }
}
