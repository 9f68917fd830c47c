//! Bit packing for the load balancers' per-connection words.
//!
//! Every word is little-endian and LSB-first: bit `b` of the word is bit `b % 8` of byte
//! `b / 8`, and a field of width `w` at bit offset `o` occupies bits `o..o + w` (its LSB at
//! `o`). The layouts are tabulated in each block's module doc; [`BitCursor`] writes and
//! reads fields in that order, so a layout is the sequence of `put` / `get` calls.

use core::fmt;

/// A per-connection word whose bytes do not decode to a reachable state: the field and
/// what is wrong with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WordError {
    /// The field, as named in the layout table.
    pub field: &'static str,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl WordError {
    /// An error on `field`.
    pub const fn new(field: &'static str, problem: &'static str) -> Self {
        WordError { field, problem }
    }
}

impl fmt::Display for WordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for WordError {}

/// A read/write position in a byte word (LSB-first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BitCursor {
    /// Next bit offset.
    pub pos: u32,
}

impl BitCursor {
    /// A cursor at bit 0.
    pub const fn new() -> Self {
        BitCursor { pos: 0 }
    }

    /// Write the low `width` bits of `value` (`width <= 32`) at the cursor; bits beyond the
    /// buffer are dropped (never a panic).
    pub fn put(&mut self, buf: &mut [u8], width: u32, value: u32) {
        for i in 0..width {
            let b = self.pos + i;
            if let Some(byte) = buf.get_mut((b / 8) as usize) {
                let m = 1u8 << (b % 8);
                if (value >> i) & 1 != 0 {
                    *byte |= m;
                } else {
                    *byte &= !m;
                }
            }
        }
        self.pos += width;
    }

    /// Read `width` bits (`width <= 32`) at the cursor; bits beyond the buffer read as 0.
    pub fn get(&mut self, buf: &[u8], width: u32) -> u32 {
        let mut v = 0u32;
        for i in 0..width {
            let b = self.pos + i;
            let bit = buf.get((b / 8) as usize).map_or(0, |x| (x >> (b % 8)) & 1);
            v |= (bit as u32) << i;
        }
        self.pos += width;
        v
    }
}

/// `now() >= t` for 32-bit cycle stamps with wrap-around (serial-number arithmetic): exact
/// while the two are less than 2^31 cycles apart.
#[inline]
pub const fn reached(now32: u32, t: u32) -> bool {
    (now32.wrapping_sub(t) as i32) >= 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lsb_first_layout() {
        let mut b = [0u8; 3];
        let mut c = BitCursor::new();
        c.put(&mut b, 4, 0xa);
        c.put(&mut b, 12, 0x123);
        assert_eq!(b, [0x3a, 0x12, 0x00]);
        let mut c = BitCursor::new();
        assert_eq!(c.get(&b, 4), 0xa);
        assert_eq!(c.get(&b, 12), 0x123);
        assert_eq!(c.get(&b, 8), 0);
        // Past the end: dropped on write, zero on read.
        assert_eq!(c.get(&b, 8), 0);
    }

    #[test]
    fn serial_compare() {
        assert!(reached(5, 5));
        assert!(reached(6, 5));
        assert!(!reached(4, 5));
        assert!(reached(3, u32::MAX - 2));
    }

    proptest! {
        #[test]
        fn put_get_round_trip(fields in proptest::collection::vec((1u32..=32, any::<u32>()), 1..8)) {
            let mut b = [0u8; 32];
            let mut c = BitCursor::new();
            for &(w, v) in &fields { c.put(&mut b, w, v); }
            let mut c = BitCursor::new();
            for &(w, v) in &fields {
                let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
                prop_assert_eq!(c.get(&b, w), v & mask);
            }
        }
    }
}
