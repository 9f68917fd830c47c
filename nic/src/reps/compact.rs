//! A compact REPS state word: field widths derived from the buffer size `N` and the EV
//! width `EV_BITS` instead of Table 1's fixed bytes. It behaves identically to the Table 1
//! word (a property test drives both with the same inputs and compares every output).
//!
//! Two savings over Table 1:
//!
//! * `head` needs `bits_for(N - 1)` bits (3 for 8 entries) and `numberOfValidEVs`
//!   `bits_for(N)` (4 for 8 entries) instead of 8 each; `cachedEV` needs `EV_BITS`.
//! * The `N` validity bits are not stored at all. In every reachable state the valid EVs
//!   are exactly the `numberOfValidEVs` slots just before `head` (Alg. 1 lines 12-14
//!   append at `head`; Alg. 2 lines 4-6 consume the oldest at `head - numberOfValidEVs`),
//!   so `isValid[i]` is a function of (`head`, `numberOfValidEVs`) — see
//!   [`crate::reps::state::in_valid_window`]. The Table 1 word's `set_word` rejects any word
//!   that breaks this, and a property test checks it after every step.
//!
//! `exitFreezingMode` (32), `isFreezingMode` (1), `exploreCounter` (8) keep Table 1's
//! widths, and `isEmpty` gets its own bit.
//!
//! ## Bit layout (`bitvec`, LSB-first over the bytes)
//!
//! ```text
//!  offset                        field               width
//!  0                             cachedEV[0..N]      N x EV_BITS
//!  N*EV_BITS                     head                bits_for(N-1)
//!  + head                        numberOfValidEVs    bits_for(N)
//!  + nValid                      exitFreezingMode    32   (NIC cycles, u32)
//!  + 32                          isFreezingMode      1
//!  + 1                           exploreCounter      8
//!  + 8                           notEmpty            1    (= !repsBuffer.isEmpty())
//!                                padding to BYTES*8  0..7 (zero)
//!
//!  N = 8:  EV_BITS = 16 -> 177 bits (23 B)   8 -> 113 bits (15 B)   5 -> 89 bits (12 B)
//!          Table 1     -> 193 bits (25 B)
//! ```

use bitvec::prelude::*;
use rtl_models::budget::bits_for;
use rtl_models::StateBudget;

use super::state::{in_valid_window, RepsRepr, RepsState, RepsWordError};
use crate::lb::Ev;

/// Bits of the compact layout for `n` buffer entries of `ev_bits`-bit EVs.
pub const fn compact_bits(n: usize, ev_bits: usize) -> usize {
    let head = if n == 0 {
        0
    } else {
        bits_for(n as u64 - 1) as usize
    };
    n * ev_bits + head + bits_for(n as u64) as usize + 32 + 1 + 8 + 1
}

/// Bytes of the compact layout (bits rounded up).
pub const fn compact_bytes(n: usize, ev_bits: usize) -> usize {
    compact_bits(n, ev_bits).div_ceil(8)
}

/// The compact REPS word for an `N`-entry buffer of `EV_BITS`-bit EVs, stored in `BYTES`
/// bytes (`BYTES` must equal [`compact_bytes`]`(N, EV_BITS)`; a mismatch is a compile-time
/// error when the word is constructed). Use the aliases [`CompactWord8x16`],
/// [`CompactWord8x8`], [`CompactWord8x5`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CompactWord<const N: usize, const EV_BITS: usize, const BYTES: usize> {
    bytes: [u8; BYTES],
}

/// 8 entries of 16-bit EVs: 177 bits, 23 bytes.
pub type CompactWord8x16 = CompactWord<8, 16, { compact_bytes(8, 16) }>;
/// 8 entries of 8-bit EVs: 113 bits, 15 bytes.
pub type CompactWord8x8 = CompactWord<8, 8, { compact_bytes(8, 8) }>;
/// 8 entries of 5-bit EVs: 89 bits, 12 bytes.
pub type CompactWord8x5 = CompactWord<8, 5, { compact_bytes(8, 5) }>;

impl<const N: usize, const EV_BITS: usize, const BYTES: usize> CompactWord<N, EV_BITS, BYTES> {
    /// Width of `head`.
    pub const HEAD_BITS: usize = if N == 0 {
        0
    } else {
        bits_for(N as u64 - 1) as usize
    };
    /// Width of `numberOfValidEVs`.
    pub const NUMBER_OF_VALID_EVS_BITS: usize = bits_for(N as u64) as usize;
    /// Bit offset of `head`.
    pub const HEAD_AT: usize = N * EV_BITS;
    /// Bit offset of `numberOfValidEVs`.
    pub const NUMBER_OF_VALID_EVS_AT: usize = Self::HEAD_AT + Self::HEAD_BITS;
    /// Bit offset of `exitFreezingMode`.
    pub const EXIT_FREEZING_MODE_AT: usize =
        Self::NUMBER_OF_VALID_EVS_AT + Self::NUMBER_OF_VALID_EVS_BITS;
    /// Bit offset of `isFreezingMode`.
    pub const IS_FREEZING_MODE_AT: usize = Self::EXIT_FREEZING_MODE_AT + 32;
    /// Bit offset of `exploreCounter`.
    pub const EXPLORE_COUNTER_AT: usize = Self::IS_FREEZING_MODE_AT + 1;
    /// Bit offset of `notEmpty`.
    pub const NOT_EMPTY_AT: usize = Self::EXPLORE_COUNTER_AT + 8;
    /// Bits used (the state budget).
    pub const BITS_USED: usize = Self::NOT_EMPTY_AT + 1;

    /// Compile-time layout check, forced by every constructor.
    const LAYOUT_OK: () = {
        assert!(N >= 1 && N <= 128, "REPS buffer size must be 1..=128");
        assert!(
            EV_BITS >= 1 && EV_BITS <= 16,
            "EV width must be 1..=16 bits"
        );
        assert!(
            Self::BITS_USED == compact_bits(N, EV_BITS),
            "layout and compact_bits disagree"
        );
        assert!(
            BYTES == compact_bytes(N, EV_BITS),
            "BYTES must be compact_bytes(N, EV_BITS)"
        );
    };

    /// The reset state (all zero).
    pub const fn new() -> Self {
        let () = Self::LAYOUT_OK;
        CompactWord { bytes: [0; BYTES] }
    }

    /// The raw bytes.
    pub const fn bytes(&self) -> [u8; BYTES] {
        self.bytes
    }

    /// Decode raw bytes: checks padding, `head < N`, `numberOfValidEVs <= N` (the encoding;
    /// the rest is [`RepsRepr::check`]).
    pub fn from_bytes(bytes: [u8; BYTES]) -> Result<Self, RepsWordError> {
        let () = Self::LAYOUT_OK;
        let w = CompactWord { bytes };
        let bits = w.bytes.view_bits::<Lsb0>();
        if bits[Self::BITS_USED..].any() {
            return Err(RepsWordError::Field {
                field: "padding",
                problem: "bits above the compact layout must be zero",
            });
        }
        if w.get(Self::HEAD_AT, Self::HEAD_BITS) as usize >= N {
            return Err(RepsWordError::Field {
                field: "head",
                problem: "must be below REPS_BUFFER_SIZE",
            });
        }
        if w.get(Self::NUMBER_OF_VALID_EVS_AT, Self::NUMBER_OF_VALID_EVS_BITS) as usize > N {
            return Err(RepsWordError::Field {
                field: "numberOfValidEVs",
                problem: "exceeds REPS_BUFFER_SIZE",
            });
        }
        Ok(w)
    }

    /// The logical view.
    pub fn to_repr(&self) -> RepsRepr<N> {
        RepsRepr::read_from(self)
    }

    fn get(&self, at: usize, width: usize) -> u32 {
        if width == 0 {
            return 0;
        }
        self.bytes.view_bits::<Lsb0>()[at..at + width].load_le::<u32>()
    }

    fn put(&mut self, at: usize, width: usize, v: u32) {
        if width == 0 {
            return;
        }
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        self.bytes.view_bits_mut::<Lsb0>()[at..at + width].store_le::<u32>(v & mask);
    }
}

impl<const N: usize, const EV_BITS: usize, const BYTES: usize> Default
    for CompactWord<N, EV_BITS, BYTES>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const EV_BITS: usize, const BYTES: usize> RepsState<N>
    for CompactWord<N, EV_BITS, BYTES>
{
    const EV_FIELD_BITS: u32 = EV_BITS as u32;
    fn cached_ev(&self, i: usize) -> Ev {
        self.get((i % N) * EV_BITS, EV_BITS) as Ev
    }
    fn set_cached_ev(&mut self, i: usize, ev: Ev) {
        self.put((i % N) * EV_BITS, EV_BITS, ev as u32)
    }
    /// Derived: slot `i` is valid iff it is one of the `numberOfValidEVs` slots before
    /// `head`.
    fn is_valid(&self, i: usize) -> bool {
        in_valid_window(i, self.head(), self.number_of_valid_evs(), N)
    }
    /// Not stored (derived from `head` and `numberOfValidEVs`).
    fn set_is_valid(&mut self, _i: usize, _valid: bool) {}
    fn head(&self) -> usize {
        self.get(Self::HEAD_AT, Self::HEAD_BITS) as usize
    }
    fn set_head(&mut self, head: usize) {
        self.put(Self::HEAD_AT, Self::HEAD_BITS, head as u32)
    }
    fn number_of_valid_evs(&self) -> usize {
        self.get(Self::NUMBER_OF_VALID_EVS_AT, Self::NUMBER_OF_VALID_EVS_BITS) as usize
    }
    fn set_number_of_valid_evs(&mut self, n: usize) {
        self.put(
            Self::NUMBER_OF_VALID_EVS_AT,
            Self::NUMBER_OF_VALID_EVS_BITS,
            n as u32,
        )
    }
    fn exit_freezing_mode(&self) -> u32 {
        self.get(Self::EXIT_FREEZING_MODE_AT, 32)
    }
    fn set_exit_freezing_mode(&mut self, t: u32) {
        self.put(Self::EXIT_FREEZING_MODE_AT, 32, t)
    }
    fn is_freezing_mode(&self) -> bool {
        self.get(Self::IS_FREEZING_MODE_AT, 1) != 0
    }
    fn set_is_freezing_mode(&mut self, on: bool) {
        self.put(Self::IS_FREEZING_MODE_AT, 1, on as u32)
    }
    fn explore_counter(&self) -> u8 {
        self.get(Self::EXPLORE_COUNTER_AT, 8) as u8
    }
    fn set_explore_counter(&mut self, c: u8) {
        self.put(Self::EXPLORE_COUNTER_AT, 8, c as u32)
    }
    fn is_empty(&self) -> bool {
        self.get(Self::NOT_EMPTY_AT, 1) == 0
    }
    fn set_is_empty(&mut self, empty: bool) {
        self.put(Self::NOT_EMPTY_AT, 1, (!empty) as u32)
    }
}

macro_rules! compact_budget {
    ($ty:ty, $name:literal, $bits:literal) => {
        /// Compact layout budget, reported beside Table 1's 193 bits.
        impl StateBudget for $ty {
            const NAME: &'static str = $name;
            const BITS: u32 = <$ty>::BITS_USED as u32;
            const UNIT: &'static str = "per connection";
            const PAPER_BITS: Option<u32> = Some(193);
            const PAPER_REF: &'static str = "REPS Table 1";
        }
        const _: () = assert!(
            <$ty as StateBudget>::BITS == $bits
                && <$ty as StateBudget>::BYTES as usize == core::mem::size_of::<$ty>()
        );
    };
}

compact_budget!(CompactWord8x16, "REPS state (compact, 8 x 16-bit EV)", 177);
compact_budget!(CompactWord8x8, "REPS state (compact, 8 x 8-bit EV)", 113);
compact_budget!(CompactWord8x5, "REPS state (compact, 8 x 5-bit EV)", 89);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_widths() {
        assert_eq!(CompactWord8x16::HEAD_BITS, 3);
        assert_eq!(CompactWord8x16::NUMBER_OF_VALID_EVS_BITS, 4);
        assert_eq!(
            CompactWord::<16, 16, { compact_bytes(16, 16) }>::HEAD_BITS,
            4
        );
        assert_eq!(
            CompactWord::<16, 16, { compact_bytes(16, 16) }>::NUMBER_OF_VALID_EVS_BITS,
            5
        );
        assert_eq!(CompactWord::<1, 16, { compact_bytes(1, 16) }>::HEAD_BITS, 0);
        assert_eq!(compact_bits(8, 16), 177);
        assert_eq!(compact_bytes(8, 16), 23);
        assert_eq!(compact_bytes(8, 8), 15);
        assert_eq!(compact_bytes(8, 5), 12);
    }

    /// Golden bytes of the compact 8 x 16 word for the same state as the Table 1 word's
    /// golden test: EVs 0x1234, 0xabcd, 0x0005 in slots 0..3, head 3, two valid EVs
    /// (slots 1 and 2, derived), exitFreezingMode 0xdeadbeef, exploreCounter 0x2a.
    #[test]
    fn golden_bytes() {
        let mut w = CompactWord8x16::new();
        w.set_cached_ev(0, 0x1234);
        w.set_cached_ev(1, 0xabcd);
        w.set_cached_ev(2, 0x0005);
        w.set_head(3);
        w.set_number_of_valid_evs(2);
        w.set_exit_freezing_mode(0xdead_beef);
        w.set_explore_counter(0x2a);
        w.set_is_empty(false);
        // bits 128..131 head=3 (0b011), 131..135 n=2 (0b0010) -> byte 16 = 0b0_0010_011 = 0x13
        // bits 135..167 exit: bit 135 = LSB of exit (1) -> byte 16 |= 0x80
        // exit << 7 from bit 128: 0xdeadbeef << 7 spans bytes 16..20
        let exit_shifted: u64 = (0xdead_beef_u64) << 7;
        let mut want = [0u8; 23];
        want[..6].copy_from_slice(&[0x34, 0x12, 0xcd, 0xab, 0x05, 0x00]);
        let tail: u64 = 0x13 | exit_shifted | (0x2a_u64 << 40) | (1u64 << 48);
        for (i, b) in tail.to_le_bytes()[..7].iter().enumerate() {
            want[16 + i] = *b;
        }
        assert_eq!(w.bytes(), want);
        let r = w.to_repr();
        assert_eq!(
            r.is_valid,
            [false, true, true, false, false, false, false, false]
        );
        assert_eq!(r.check(16), Ok(()));
        assert_eq!(CompactWord8x16::from_bytes(want), Ok(w));
    }

    #[test]
    fn narrow_evs_are_truncated_to_the_field() {
        let mut w = CompactWord8x5::new();
        w.set_cached_ev(7, 0xffff);
        assert_eq!(w.cached_ev(7), 0x1f);
        assert_eq!(w.cached_ev(6), 0);
        assert_eq!(w.head(), 0);
    }

    #[test]
    fn malformed_bytes_are_rejected_by_field() {
        let field = |b: [u8; 23]| match CompactWord8x16::from_bytes(b) {
            Err(RepsWordError::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        };
        let mut b = [0u8; 23];
        b[22] = 0x80; // bit 183 > 177
        assert_eq!(field(b), "padding");
        let mut b = [0u8; 23];
        b[16] = 0x48; // n = 0b1001 = 9 at bits 131..135
        assert_eq!(field(b), "numberOfValidEVs");
        // 5-entry buffer: head 3 bits can hold 5..7, which are illegal.
        let mut w = CompactWord::<5, 16, { compact_bytes(5, 16) }>::new();
        w.put(80, 3, 6);
        assert_eq!(
            CompactWord::<5, 16, { compact_bytes(5, 16) }>::from_bytes(w.bytes()).unwrap_err(),
            RepsWordError::Field {
                field: "head",
                problem: "must be below REPS_BUFFER_SIZE"
            }
        );
    }

    #[test]
    fn budgets_beside_table_1() {
        assert_eq!(<CompactWord8x16 as StateBudget>::BITS, 177);
        assert_eq!(<CompactWord8x16 as StateBudget>::BYTES, 23);
        assert_eq!(<CompactWord8x8 as StateBudget>::BITS, 113);
        assert_eq!(<CompactWord8x5 as StateBudget>::BITS, 89);
        assert_eq!(<CompactWord8x16 as StateBudget>::PAPER_BITS, Some(193));
    }
}
