//! Hardware randomness: a 32-bit Galois LFSR.
//!
//! Polynomial x^32 + x^22 + x^2 + x + 1 (maximal length, 2^32 - 1 states), right-shifting
//! Galois form with toggle mask `0x8020_0003`. One draw ([`RandomSource::next_u32`]) clocks
//! the register 32 times, so consecutive draws share no bits; an RTL design reproduces it
//! with a 32-step unrolled XOR network:
//!
//! ```text
//! repeat 32: lsb = s[0]; s = s >> 1; if lsb: s ^= 0x80200003
//! ```

use crate::budget::StateBudget;

/// A source of hardware random numbers.
pub trait RandomSource {
    /// 32 fresh random bits.
    fn next_u32(&mut self) -> u32;

    /// A value in `0..n` by multiply-shift (`(r * n) >> 32`), as hardware does it;
    /// returns 0 when `n == 0`.
    fn below(&mut self, n: u32) -> u32 {
        ((self.next_u32() as u64 * n as u64) >> 32) as u32
    }

    /// True with probability `num / 2^32`.
    fn chance_q32(&mut self, num: u64) -> bool {
        (self.next_u32() as u64) < num
    }
}

/// Toggle mask of the Galois LFSR (taps 32, 22, 2, 1).
pub const LFSR32_TAPS: u32 = 0x8020_0003;

/// A 32-bit Galois LFSR. The all-zero state is illegal and is replaced by 1 at seeding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lfsr32 {
    state: u32,
}

impl Lfsr32 {
    /// A register seeded with `seed` (0 becomes 1).
    pub const fn new(seed: u32) -> Self {
        Lfsr32 {
            state: if seed == 0 { 1 } else { seed },
        }
    }

    /// A register seeded from a 64-bit seed (folded, 0 becomes 1).
    pub const fn from_seed64(seed: u64) -> Self {
        Self::new((seed ^ (seed >> 32)) as u32)
    }

    /// One clock of the register.
    #[inline]
    pub fn step(&mut self) {
        let lsb = self.state & 1;
        self.state >>= 1;
        if lsb != 0 {
            self.state ^= LFSR32_TAPS;
        }
    }

    /// The register's current contents.
    pub const fn state(&self) -> u32 {
        self.state
    }
}

impl Default for Lfsr32 {
    fn default() -> Self {
        Self::new(0xACE1_u32)
    }
}

impl RandomSource for Lfsr32 {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        for _ in 0..32 {
            self.step();
        }
        self.state
    }
}

impl StateBudget for Lfsr32 {
    const NAME: &'static str = "LFSR (Galois, 32-bit)";
    const BITS: u32 = 32;
    const UNIT: &'static str = "per generator";
}
const _: () = assert!(core::mem::size_of::<Lfsr32>() * 8 == <Lfsr32 as StateBudget>::BITS as usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_first_values() {
        // Reference sequence from the RTL formula in the module doc, seed 1.
        let mut l = Lfsr32::new(1);
        let mut s: u32 = 1;
        for _ in 0..4 {
            for _ in 0..32 {
                let lsb = s & 1;
                s >>= 1;
                if lsb == 1 {
                    s ^= 0x8020_0003;
                }
            }
            assert_eq!(l.next_u32(), s);
        }
    }

    #[test]
    fn zero_seed_is_legal() {
        let mut l = Lfsr32::new(0);
        assert_ne!(l.next_u32(), 0);
    }

    #[test]
    fn below_is_in_range_and_spreads() {
        let mut l = Lfsr32::new(7);
        let mut hist = [0u32; 8];
        for _ in 0..8000 {
            let v = l.below(8);
            assert!(v < 8);
            hist[v as usize] += 1;
        }
        for h in hist {
            assert!((800..1200).contains(&h), "{hist:?}");
        }
    }

    #[test]
    fn period_does_not_short_cycle() {
        let mut l = Lfsr32::new(1);
        for _ in 0..100_000 {
            l.step();
            assert_ne!(l.state(), 1);
        }
    }
}
