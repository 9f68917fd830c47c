//! The REPS per-connection state word in the layout of REPS Table 1: 193 bits in 25 bytes.
//!
//! A zero-copy view over a byte buffer (smoltcp's `wire` style): [`RepsWord`] wraps any
//! `T: AsRef<[u8]>` and reads / writes single fields in place, [`field`] names the byte
//! ranges, and [`RepsRepr::parse`] / [`RepsRepr::emit`] convert to and from the logical
//! [`RepsRepr`].
//!
//! ## Bit layout
//!
//! Bit `b` of the word is bit `b % 8` of byte `b / 8` (LSB first); multi-byte fields are
//! little-endian.
//!
//! ```text
//!  byte   bits      field (Table 1)                    width
//!  0..16  0..127    cachedEV[k] at bytes 2k..2k+2      8 x 16
//!  16     128..135  isValid[k] at bit k                8 x 1
//!  17     136..143  head: bits 2:0 slot index,         8
//!                   bits 6:3 reserved (0),
//!                   bit 7 notEmpty (= !repsBuffer.isEmpty())
//!  18     144..151  numberOfValidEVs (0..=8)           8
//!  19..23 152..183  exitFreezingMode (NIC cycles, u32) 32
//!  23     184..191  exploreCounter                     8
//!  24     192       isFreezingMode                     1
//!  24     193..199  padding (0)                        -
//!                                             total  193 bits = 25 bytes (7 bits padding)
//! ```
//!
//! Table 1 gives `head` 8 bits although an 8-entry buffer needs 3. Algorithm 2 line 19 also
//! needs `repsBuffer.isEmpty()`, which Table 1 does not list; this layout keeps it in
//! `head`'s spare MSB, stored inverted (`notEmpty`) so that an all-zero SRAM row is exactly
//! the reset state of Algorithm 1 lines 1-3. The total stays Table 1's 193 bits.

use rtl_models::StateBudget;

use super::state::{RepsRepr, RepsState, RepsWordError};
use crate::lb::Ev;

/// Entries in the Table 1 buffer (`REPS_BUFFER_SIZE`).
pub const BUFFER_SIZE: usize = 8;
/// Bytes of the Table 1 word.
pub const WORD_LEN: usize = field::WORD_LEN;
/// Bits of the Table 1 word: 8 x (16 + 1) + 8 + 8 + 32 + 1 + 8.
pub const WORD_BITS: u32 = (BUFFER_SIZE as u32) * (16 + 1) + 8 + 8 + 32 + 1 + 8;

const _: () = assert!(
    WORD_BITS == 193,
    "REPS Table 1: 193 bits with 8 buffer elements"
);
const _: () = assert!(WORD_LEN == 25 && WORD_BITS.div_ceil(8) as usize == WORD_LEN);

/// Byte positions of the fields (see the module doc for bits inside bytes).
#[allow(non_snake_case)]
pub mod field {
    /// A byte range.
    pub type Field = core::ops::Range<usize>;

    /// `repsBuffer[k].cachedEV`, little-endian u16, `k < 8`.
    pub const fn CACHED_EV(k: usize) -> Field {
        2 * k..2 * k + 2
    }
    /// `repsBuffer[k].isValid` is bit `k` of this byte.
    pub const IS_VALID: usize = 16;
    /// `head`: slot index in bits 2:0, `notEmpty` in bit 7, bits 6:3 reserved.
    pub const HEAD: usize = 17;
    /// `numberOfValidEVs`.
    pub const NUMBER_OF_VALID_EVS: usize = 18;
    /// `exitFreezingMode`, little-endian u32.
    pub const EXIT_FREEZING_MODE: Field = 19..23;
    /// `exploreCounter`.
    pub const EXPLORE_COUNTER: usize = 23;
    /// `isFreezingMode` is bit 0; bits 7:1 are padding.
    pub const FLAGS: usize = 24;
    /// Length of the word in bytes.
    pub const WORD_LEN: usize = 25;

    /// Mask of the slot index inside the `head` byte.
    pub const HEAD_INDEX_MASK: u8 = 0x07;
    /// Reserved bits of the `head` byte.
    pub const HEAD_RESERVED_MASK: u8 = 0x78;
    /// `notEmpty` bit of the `head` byte.
    pub const HEAD_NOT_EMPTY: u8 = 0x80;
    /// `isFreezingMode` bit of the flags byte.
    pub const FLAGS_FREEZING: u8 = 0x01;
    /// Padding bits of the flags byte.
    pub const FLAGS_PADDING_MASK: u8 = 0xfe;
}

/// A read/write view of a Table 1 REPS word in a byte buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RepsWord<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> RepsWord<T> {
    /// Wrap `buffer` without checking its length (accessors then read zero / write nothing
    /// outside it rather than panic; use [`RepsWord::new_checked`]).
    pub const fn new_unchecked(buffer: T) -> RepsWord<T> {
        RepsWord { buffer }
    }

    /// Wrap `buffer`, checking it holds a whole word.
    pub fn new_checked(buffer: T) -> Result<RepsWord<T>, RepsWordError> {
        let w = Self::new_unchecked(buffer);
        w.check_len()?;
        Ok(w)
    }

    /// `Err(Truncated)` if the buffer is shorter than [`WORD_LEN`].
    pub fn check_len(&self) -> Result<(), RepsWordError> {
        let len = self.buffer.as_ref().len();
        if len < WORD_LEN {
            Err(RepsWordError::Truncated {
                len,
                need: WORD_LEN,
            })
        } else {
            Ok(())
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn byte(&self, i: usize) -> u8 {
        self.buffer.as_ref().get(i).copied().unwrap_or(0)
    }

    /// `repsBuffer[k].cachedEV` (`k` taken mod 8).
    pub fn cached_ev(&self, k: usize) -> Ev {
        let r = field::CACHED_EV(k % BUFFER_SIZE);
        u16::from_le_bytes([self.byte(r.start), self.byte(r.start + 1)])
    }

    /// `repsBuffer[k].isValid` (`k` taken mod 8).
    pub fn is_valid(&self, k: usize) -> bool {
        self.byte(field::IS_VALID) & (1 << (k % BUFFER_SIZE)) != 0
    }

    /// `head` (slot index, 0..8).
    pub fn head(&self) -> u8 {
        self.byte(field::HEAD) & field::HEAD_INDEX_MASK
    }

    /// The reserved bits 6:3 of the `head` byte (0 in a well-formed word).
    pub fn head_reserved(&self) -> u8 {
        (self.byte(field::HEAD) & field::HEAD_RESERVED_MASK) >> 3
    }

    /// `!repsBuffer.isEmpty()` (bit 7 of the `head` byte).
    pub fn not_empty(&self) -> bool {
        self.byte(field::HEAD) & field::HEAD_NOT_EMPTY != 0
    }

    /// `numberOfValidEVs` (raw byte; 0..=8 in a well-formed word).
    pub fn number_of_valid_evs(&self) -> u8 {
        self.byte(field::NUMBER_OF_VALID_EVS)
    }

    /// `exitFreezingMode` (NIC cycles, low 32 bits).
    pub fn exit_freezing_mode(&self) -> u32 {
        let s = field::EXIT_FREEZING_MODE.start;
        u32::from_le_bytes([
            self.byte(s),
            self.byte(s + 1),
            self.byte(s + 2),
            self.byte(s + 3),
        ])
    }

    /// `exploreCounter`.
    pub fn explore_counter(&self) -> u8 {
        self.byte(field::EXPLORE_COUNTER)
    }

    /// `isFreezingMode`.
    pub fn is_freezing_mode(&self) -> bool {
        self.byte(field::FLAGS) & field::FLAGS_FREEZING != 0
    }

    /// The 7 padding bits above `isFreezingMode` (0 in a well-formed word).
    pub fn padding(&self) -> u8 {
        (self.byte(field::FLAGS) & field::FLAGS_PADDING_MASK) >> 1
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> RepsWord<T> {
    fn byte_mut(&mut self, i: usize) -> Option<&mut u8> {
        self.buffer.as_mut().get_mut(i)
    }

    fn update(&mut self, i: usize, mask: u8, bits: u8) {
        if let Some(b) = self.byte_mut(i) {
            *b = (*b & !mask) | (bits & mask);
        }
    }

    /// Mutable access to the underlying buffer.
    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.buffer
    }

    /// Write `repsBuffer[k].cachedEV` (`k` taken mod 8).
    pub fn set_cached_ev(&mut self, k: usize, ev: Ev) {
        let r = field::CACHED_EV(k % BUFFER_SIZE);
        let [lo, hi] = ev.to_le_bytes();
        self.update(r.start, 0xff, lo);
        self.update(r.start + 1, 0xff, hi);
    }

    /// Write `repsBuffer[k].isValid` (`k` taken mod 8).
    pub fn set_is_valid(&mut self, k: usize, valid: bool) {
        let bit = 1u8 << (k % BUFFER_SIZE);
        self.update(field::IS_VALID, bit, if valid { bit } else { 0 });
    }

    /// Write `head` (low 3 bits of `head`).
    pub fn set_head(&mut self, head: u8) {
        self.update(field::HEAD, field::HEAD_INDEX_MASK, head);
    }

    /// Write the reserved bits 6:3 of the `head` byte (for tests of malformed words).
    pub fn set_head_reserved(&mut self, v: u8) {
        self.update(field::HEAD, field::HEAD_RESERVED_MASK, v << 3);
    }

    /// Write `!repsBuffer.isEmpty()`.
    pub fn set_not_empty(&mut self, not_empty: bool) {
        let b = if not_empty { field::HEAD_NOT_EMPTY } else { 0 };
        self.update(field::HEAD, field::HEAD_NOT_EMPTY, b);
    }

    /// Write `numberOfValidEVs`.
    pub fn set_number_of_valid_evs(&mut self, n: u8) {
        self.update(field::NUMBER_OF_VALID_EVS, 0xff, n);
    }

    /// Write `exitFreezingMode`.
    pub fn set_exit_freezing_mode(&mut self, t: u32) {
        let s = field::EXIT_FREEZING_MODE.start;
        for (i, b) in t.to_le_bytes().into_iter().enumerate() {
            self.update(s + i, 0xff, b);
        }
    }

    /// Write `exploreCounter`.
    pub fn set_explore_counter(&mut self, c: u8) {
        self.update(field::EXPLORE_COUNTER, 0xff, c);
    }

    /// Write `isFreezingMode`.
    pub fn set_is_freezing_mode(&mut self, on: bool) {
        let b = if on { field::FLAGS_FREEZING } else { 0 };
        self.update(field::FLAGS, field::FLAGS_FREEZING, b);
    }

    /// Write the 7 padding bits (for tests of malformed words).
    pub fn set_padding(&mut self, v: u8) {
        self.update(field::FLAGS, field::FLAGS_PADDING_MASK, v << 1);
    }
}

impl Default for RepsWord<[u8; WORD_LEN]> {
    /// The reset state (all zero bytes).
    fn default() -> Self {
        RepsWord::new_unchecked([0; WORD_LEN])
    }
}

impl RepsRepr<BUFFER_SIZE> {
    /// Parse a Table 1 word: checks the length, the reserved and padding bits and
    /// `numberOfValidEVs <= 8` (the encoding). Whether the state is reachable is
    /// [`RepsRepr::check`]'s job.
    pub fn parse<T: AsRef<[u8]>>(word: &RepsWord<T>) -> Result<Self, RepsWordError> {
        word.check_len()?;
        if word.head_reserved() != 0 {
            return Err(RepsWordError::Field {
                field: "head",
                problem: "reserved bits 6:3 of the head byte are set",
            });
        }
        if word.padding() != 0 {
            return Err(RepsWordError::Field {
                field: "padding",
                problem: "the 7 bits above isFreezingMode must be zero",
            });
        }
        if word.number_of_valid_evs() as usize > BUFFER_SIZE {
            return Err(RepsWordError::Field {
                field: "numberOfValidEVs",
                problem: "exceeds REPS_BUFFER_SIZE (8)",
            });
        }
        let mut r = RepsRepr::new();
        for k in 0..BUFFER_SIZE {
            r.cached_ev[k] = word.cached_ev(k);
            r.is_valid[k] = word.is_valid(k);
        }
        r.head = word.head();
        r.number_of_valid_evs = word.number_of_valid_evs();
        r.exit_freezing_mode = word.exit_freezing_mode();
        r.is_freezing_mode = word.is_freezing_mode();
        r.explore_counter = word.explore_counter();
        r.is_empty = !word.not_empty();
        Ok(r)
    }

    /// Write this repr into a Table 1 word (reserved and padding bits cleared). `head` is
    /// truncated to 3 bits; a buffer shorter than [`WORD_LEN`] receives only the bytes
    /// that fit.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, word: &mut RepsWord<T>) {
        for k in 0..BUFFER_SIZE {
            word.set_cached_ev(k, self.cached_ev[k]);
            word.set_is_valid(k, self.is_valid[k]);
        }
        word.set_head(self.head);
        word.set_head_reserved(0);
        word.set_not_empty(!self.is_empty);
        word.set_number_of_valid_evs(self.number_of_valid_evs);
        word.set_exit_freezing_mode(self.exit_freezing_mode);
        word.set_explore_counter(self.explore_counter);
        word.set_is_freezing_mode(self.is_freezing_mode);
        word.set_padding(0);
    }

    /// This repr as a fresh 25-byte word.
    pub fn to_word(&self) -> [u8; WORD_LEN] {
        let mut w = RepsWord::new_unchecked([0u8; WORD_LEN]);
        self.emit(&mut w);
        w.into_inner()
    }
}

/// The owned Table 1 word is a REPS storage layout.
impl RepsState<BUFFER_SIZE> for RepsWord<[u8; WORD_LEN]> {
    const EV_FIELD_BITS: u32 = 16;
    fn cached_ev(&self, i: usize) -> Ev {
        RepsWord::cached_ev(self, i)
    }
    fn set_cached_ev(&mut self, i: usize, ev: Ev) {
        RepsWord::set_cached_ev(self, i, ev)
    }
    fn is_valid(&self, i: usize) -> bool {
        RepsWord::is_valid(self, i)
    }
    fn set_is_valid(&mut self, i: usize, valid: bool) {
        RepsWord::set_is_valid(self, i, valid)
    }
    fn head(&self) -> usize {
        RepsWord::head(self) as usize
    }
    fn set_head(&mut self, head: usize) {
        RepsWord::set_head(self, head as u8)
    }
    fn number_of_valid_evs(&self) -> usize {
        RepsWord::number_of_valid_evs(self) as usize
    }
    fn set_number_of_valid_evs(&mut self, n: usize) {
        RepsWord::set_number_of_valid_evs(self, n as u8)
    }
    fn exit_freezing_mode(&self) -> u32 {
        RepsWord::exit_freezing_mode(self)
    }
    fn set_exit_freezing_mode(&mut self, t: u32) {
        RepsWord::set_exit_freezing_mode(self, t)
    }
    fn is_freezing_mode(&self) -> bool {
        RepsWord::is_freezing_mode(self)
    }
    fn set_is_freezing_mode(&mut self, on: bool) {
        RepsWord::set_is_freezing_mode(self, on)
    }
    fn explore_counter(&self) -> u8 {
        RepsWord::explore_counter(self)
    }
    fn set_explore_counter(&mut self, c: u8) {
        RepsWord::set_explore_counter(self, c)
    }
    fn is_empty(&self) -> bool {
        !self.not_empty()
    }
    fn set_is_empty(&mut self, empty: bool) {
        self.set_not_empty(!empty)
    }
}

/// The Table 1 layout: 193 bits per connection.
impl StateBudget for RepsWord<[u8; WORD_LEN]> {
    const NAME: &'static str = "REPS state (Table 1 layout, 8 x 16-bit EV)";
    const BITS: u32 = WORD_BITS;
    const UNIT: &'static str = "per connection";
    const PAPER_BITS: Option<u32> = Some(193);
    const PAPER_REF: &'static str = "REPS Table 1";
}

const _: () = assert!(
    <RepsWord<[u8; WORD_LEN]> as StateBudget>::BITS == 193
        && <RepsWord<[u8; WORD_LEN]> as StateBudget>::BYTES as usize == WORD_LEN
        && core::mem::size_of::<RepsWord<[u8; WORD_LEN]>>() == WORD_LEN
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-assembled word: EVs 0x1234, 0xabcd, 0x0005 in slots 0..3, slots 1 and 2
    /// valid, head 3, two valid EVs, exitFreezingMode 0xdeadbeef, exploreCounter 0x2a,
    /// not frozen.
    const GOLDEN: [u8; 25] = [
        0x34,
        0x12, // slot 0: 0x1234
        0xcd,
        0xab, // slot 1: 0xabcd
        0x05,
        0x00, // slot 2: 0x0005
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,        // slots 3..7
        0b0000_0110, // isValid: slots 1, 2
        0x83,        // head 3, notEmpty
        0x02,        // numberOfValidEVs
        0xef,
        0xbe,
        0xad,
        0xde, // exitFreezingMode
        0x2a, // exploreCounter
        0x00, // isFreezingMode = 0
    ];

    fn golden_repr() -> RepsRepr<8> {
        let mut r = RepsRepr::new();
        r.cached_ev[0] = 0x1234;
        r.cached_ev[1] = 0xabcd;
        r.cached_ev[2] = 0x0005;
        r.is_valid[1] = true;
        r.is_valid[2] = true;
        r.head = 3;
        r.number_of_valid_evs = 2;
        r.exit_freezing_mode = 0xdead_beef;
        r.explore_counter = 0x2a;
        r.is_empty = false;
        r
    }

    #[test]
    fn golden_bytes_parse_and_emit() {
        let w = RepsWord::new_checked(&GOLDEN[..]).unwrap();
        assert_eq!(w.cached_ev(1), 0xabcd);
        assert_eq!(w.head(), 3);
        assert!(w.not_empty());
        assert_eq!(w.exit_freezing_mode(), 0xdead_beef);
        let r = RepsRepr::parse(&w).unwrap();
        assert_eq!(r, golden_repr());
        assert_eq!(r.check(16), Ok(()));
        assert_eq!(golden_repr().to_word(), GOLDEN);
    }

    #[test]
    fn frozen_flag_is_bit_192() {
        let mut r = RepsRepr::<8>::new();
        r.is_freezing_mode = true;
        let w = r.to_word();
        assert_eq!(w[24], 0x01);
        assert!(w[..24].iter().all(|&b| b == 0));
    }

    #[test]
    fn zero_word_is_the_reset_state() {
        let r = RepsRepr::parse(&RepsWord::new_unchecked([0u8; 25])).unwrap();
        assert_eq!(r, RepsRepr::new());
        assert!(r.is_empty);
    }

    #[test]
    fn malformed_words_are_rejected_by_field() {
        let short = RepsWord::new_checked(&GOLDEN[..24]);
        assert_eq!(
            short.unwrap_err(),
            RepsWordError::Truncated { len: 24, need: 25 }
        );
        let field = |bytes: [u8; 25]| match RepsRepr::parse(&RepsWord::new_unchecked(bytes)) {
            Err(RepsWordError::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        };
        let mut b = GOLDEN;
        b[field::NUMBER_OF_VALID_EVS] = 9;
        assert_eq!(field(b), "numberOfValidEVs");
        let mut b = GOLDEN;
        b[field::HEAD] |= 0x10;
        assert_eq!(field(b), "head");
        let mut b = GOLDEN;
        b[field::FLAGS] |= 0x80;
        assert_eq!(field(b), "padding");
    }

    #[test]
    fn unchecked_short_buffers_never_panic() {
        let mut short = RepsWord::new_unchecked([0xffu8; 3]);
        assert_eq!(short.explore_counter(), 0);
        short.set_explore_counter(7);
        short.set_cached_ev(1, 0x0102);
        assert_eq!(short.into_inner(), [0xff, 0xff, 0x02]);
    }

    #[test]
    fn table_1_budget() {
        // REPS Table 1: "Total (8 elements in buffer) 193 ~ 25 bytes".
        type W = RepsWord<[u8; WORD_LEN]>;
        assert_eq!(<W as StateBudget>::BITS, 193);
        assert_eq!(<W as StateBudget>::BYTES, 25);
        assert_eq!(<W as StateBudget>::PAPER_BITS, Some(193));
        assert_eq!(<W as StateBudget>::PAPER_REF, "REPS Table 1");
    }
}
