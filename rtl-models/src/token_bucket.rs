//! Token bucket: a rate in tokens per cycle and a depth in whole tokens.
//!
//! Used by the DCSIM arbiter to release SIMs at C / (alpha + 2.1) (DCSIM Eq. 2, section 2.3)
//! with depth 2 (Theorem 3), and by anything else that needs a pacer.
//!
//! ```text
//!            rate (tokens/cycle, Q32.32)
//!                 |
//!            +----v----+   try_take(n) -> granted?
//!            | tokens  |-----------------------------> (consumes n on grant)
//!            | <=depth |
//!            +---------+
//! ```
//!
//! The fill level is Q32.32 tokens. Refill happens at the clock edge (`tick`), capped at
//! `depth`; because refill is monotone and the cap is a `min`, `advance(n)` is exactly
//! `min(tokens + n * rate, depth)`.

use crate::budget::StateBudget;
use crate::clock::Cycles;
use crate::clocked::Clocked;
use crate::fixed::{Rate, FRAC_BITS};

/// A token bucket. State: the Q32.32 fill level (64 bits); rate and depth are configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenBucket {
    rate: Rate,
    depth_q: u64,
    tokens_q: u64,
}

impl TokenBucket {
    /// A bucket refilling at `rate` tokens per cycle, holding at most `depth` tokens,
    /// starting full. `None` if `depth` is zero or does not fit Q32.32.
    pub const fn new(rate: Rate, depth: u32) -> Option<Self> {
        if depth == 0 {
            return None;
        }
        let depth_q = (depth as u64) << FRAC_BITS;
        Some(TokenBucket {
            rate,
            depth_q,
            tokens_q: depth_q,
        })
    }

    /// Same, but starting empty.
    pub const fn new_empty(rate: Rate, depth: u32) -> Option<Self> {
        match Self::new(rate, depth) {
            Some(mut b) => {
                b.tokens_q = 0;
                Some(b)
            }
            None => None,
        }
    }

    /// Whole tokens available now.
    pub const fn tokens(&self) -> u32 {
        (self.tokens_q >> FRAC_BITS) as u32
    }

    /// The raw Q32.32 fill level.
    pub const fn tokens_q(&self) -> u64 {
        self.tokens_q
    }

    /// Configured rate.
    pub const fn rate(&self) -> Rate {
        self.rate
    }

    /// Configured depth in whole tokens.
    pub const fn depth(&self) -> u32 {
        (self.depth_q >> FRAC_BITS) as u32
    }

    /// Whether `n` tokens are available (no side effect).
    pub const fn can_take(&self, n: u32) -> bool {
        self.tokens_q >= (n as u64) << FRAC_BITS
    }

    /// Take `n` tokens if available; returns whether they were granted.
    pub fn try_take(&mut self, n: u32) -> bool {
        let need = (n as u64) << FRAC_BITS;
        if self.tokens_q >= need {
            self.tokens_q -= need;
            true
        } else {
            false
        }
    }

    /// Idle cycles until `n` tokens are available (0 if already); `None` if never
    /// (rate zero or `n` above the depth).
    pub fn cycles_until(&self, n: u32) -> Option<Cycles> {
        let need = (n as u64) << FRAC_BITS;
        if need > self.depth_q {
            return None;
        }
        if self.tokens_q >= need {
            return Some(0);
        }
        self.rate.cycles_to((need - self.tokens_q) as u128)
    }
}

impl Clocked for TokenBucket {
    #[inline]
    fn tick(&mut self) {
        self.tokens_q = self.tokens_q.saturating_add(self.rate.0).min(self.depth_q);
    }

    #[inline]
    fn advance(&mut self, cycles: Cycles) {
        // A full bucket stays full (the fill saturates at the depth): skip the product.
        if self.tokens_q >= self.depth_q {
            return;
        }
        let filled = self.tokens_q as u128 + self.rate.over(cycles);
        self.tokens_q = filled.min(self.depth_q as u128) as u64;
    }
}

impl StateBudget for TokenBucket {
    const NAME: &'static str = "Token bucket";
    const BITS: u32 = 64;
    const UNIT: &'static str = "per bucket";
}
// Packed form: the fill-level register; rate and depth are the only other fields
// (configuration), so a new state field or a wider level breaks the build.
const _: () = assert!(
    TokenBucket::BITS == crate::field_bits!(TokenBucket, tokens_q)
        && 8 * core::mem::size_of::<TokenBucket>() as u32
            == TokenBucket::BITS
                + crate::field_bits!(TokenBucket, rate)
                + crate::field_bits!(TokenBucket, depth_q)
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn refills_and_caps() {
        let mut b = TokenBucket::new_empty(Rate::from_ratio(1, 4).unwrap(), 2).unwrap();
        assert!(!b.try_take(1));
        assert_eq!(b.cycles_until(1), Some(4));
        for _ in 0..4 {
            b.tick();
        }
        assert!(b.try_take(1));
        b.advance(1000);
        assert_eq!(b.tokens(), 2);
        assert_eq!(b.cycles_until(3), None);
        assert!(TokenBucket::new(Rate::ZERO, 0).is_none());
    }

    proptest! {
        #[test]
        fn advance_equals_idle_ticks(num in 0u64..1000, den in 1u64..1000, depth in 1u32..8,
                                     start in 0u32..8, n in 0u64..3000) {
            let mut a = TokenBucket::new_empty(Rate::from_ratio(num, den).unwrap(), depth).unwrap();
            a.advance(start as u64 * 7);
            crate::testing::assert_advance_eq_ticks(&a, n);
        }
    }
}
