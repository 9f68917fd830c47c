//! Fixed-capacity FIFO with occupancy in entries **and** bytes.
//!
//! The packet / descriptor queue of every port: at most `N` entries (descriptor SRAM
//! depth) and, optionally, at most `byte_limit` bytes (data-buffer size). Each entry carries
//! the byte length of what it describes, so the byte occupancy is exact. A push that does
//! not fit is refused with [`Full`] (which resource ran out) and counted in
//! [`Fifo::rejected`]: a full FIFO is a counted event, never a panic.
//!
//! ```text
//!   push(item, bytes)            +---+---+---+---+   N slots         pop() / peek()
//!   ---------------------------->| e | e | e |   |------------------------------>
//!   Err(Full::Slots | Bytes)     +---+---+---+---+   (item, bytes)
//!   (rejected += 1)              len: entries, bytes: sum of entry bytes <= byte_limit
//! ```
//!
//! `N` must be at least 1 and below 2^16 (`N = 0` or `N >= 65536` fails to compile: the
//! ring's capacity check).
//!
//! Units: `len` in entries, `bytes` / `byte_limit` in bytes, entry length in bytes (u32).
//! Backed by [`Ring`], a fixed ring of `N` slots with a head pointer and a count (the
//! hardware's read pointer and occupancy counter); nothing allocates.
//!
//! State budget (see [`StateBudget`] impl): `N * (T::BITS + 32)` bits of entry SRAM (item plus
//! its 32-bit length), a `bits_for(N-1)`-bit head pointer, a `bits_for(N)`-bit count, a 64-bit
//! byte-occupancy register and a 32-bit rejected counter. The byte limit is configuration.

use crate::budget::{bits_for, StateBudget};
use crate::clock::Cycles;
use crate::clocked::Clocked;
use crate::counter::SatCounter;

/// Why a push was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Full {
    /// All `N` entry slots are in use.
    Slots,
    /// The entry would take the byte occupancy above the byte limit.
    Bytes,
}

/// Width in bits of the per-entry byte length field.
pub const LEN_BITS: u32 = 32;

/// A fixed ring of `N` slots: the descriptor SRAM of a FIFO with its read pointer (`head`)
/// and occupancy counter (`len`), both 16-bit registers. (A slot is an `Option` only
/// because the crate has no `unsafe`: the `len` slots from `head` always hold `Some`.) Same behaviour as
/// `heapless::Deque` for the operations it has (push at the back, pop / peek at the front,
/// iterate oldest to newest), but `len`, `is_empty` and `is_full` are one register read,
/// and the slot index is a mask when `N` is a power of two (a compare-and-wrap otherwise).
///
/// `N` must be in `1..65536` (checked at compile time).
///
/// Layout: the two registers come before the slots (`repr(C)`), so that a ring that
/// holds few entries (it restarts at slot 0 when emptied, [`Ring::pop_front`]) touches
/// one or two cache lines of the simulator's memory, not its first slot and its end.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Ring<T: Copy, const N: usize> {
    head: u16,
    len: u16,
    buf: [Option<T>; N],
}

impl<T: Copy, const N: usize> Ring<T, N> {
    const CAP_OK: () = assert!(
        N >= 1 && N <= u16::MAX as usize,
        "Ring: N must be in 1..65536"
    );

    /// An empty ring.
    #[inline]
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAP_OK;
        Ring {
            buf: [None; N],
            head: 0,
            len: 0,
        }
    }

    /// Slot of the entry `off` places after the head (`off <= N`).
    #[inline(always)]
    fn slot(&self, off: usize) -> usize {
        let i = self.head as usize + off;
        if N.is_power_of_two() {
            i & (N - 1)
        } else if i >= N {
            i - N
        } else {
            i
        }
    }

    /// Entries held.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no entry is held.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether all `N` slots are in use.
    #[inline(always)]
    pub const fn is_full(&self) -> bool {
        self.len as usize == N
    }

    /// Slot count `N`.
    #[inline(always)]
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Append `item`; handed back when the ring is full.
    #[inline]
    pub fn push_back(&mut self, item: T) -> Result<(), T> {
        if self.is_full() {
            return Err(item);
        }
        let i = self.slot(self.len as usize);
        self.buf[i] = Some(item);
        self.len += 1;
        Ok(())
    }

    /// Remove and return the oldest entry.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        // The `len >= 1` slots from `head` (wrapping) hold `Some`: written by `push_back`.
        let h = self.head as usize;
        self.len -= 1;
        // An emptied ring starts over at slot 0 (both pointers reset when the count
        // reaches zero): the same entries in the same order, but a queue that keeps
        // draining reuses its first slots instead of sweeping all `N`.
        self.head = if self.len == 0 {
            0
        } else {
            self.slot(1) as u16
        };
        self.buf[h]
    }

    /// The oldest entry, without removing it.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.is_empty() {
            return None;
        }
        self.buf[self.head as usize].as_ref()
    }

    /// Entries from oldest to newest.
    #[inline]
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        (0..self.len as usize).filter_map(move |k| self.buf[self.slot(k)].as_ref())
    }

    /// Apply `f` to every entry in place, oldest first (a simulator editing the
    /// descriptors it keeps, e.g. times carried in packet headers).
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        for k in 0..self.len as usize {
            let s = self.slot(k);
            if let Some(x) = self.buf[s].as_mut() {
                f(x);
            }
        }
    }

    /// Drop every entry.
    #[inline]
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

impl<T: Copy, const N: usize> Default for Ring<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + core::fmt::Debug, const N: usize> core::fmt::Debug for Ring<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A FIFO of at most `N` entries of `T` (each with a byte length) and at most
/// `byte_limit` bytes.
///
/// Layout (simulator only): the byte counters first, then the ring's registers and slots
/// (`repr(C)`), so a FIFO's registers and its first slots share cache lines.
#[derive(Clone)]
#[repr(C)]
pub struct Fifo<T: Copy, const N: usize> {
    bytes: u64,
    byte_limit: u64,
    rejected: SatCounter<32>,
    q: Ring<(T, u32), N>,
}

impl<T: Copy, const N: usize> Fifo<T, N> {
    /// An empty FIFO limited only by its `N` slots.
    pub const fn new() -> Self {
        Self::with_byte_limit(u64::MAX)
    }

    /// An empty FIFO that also refuses pushes that would hold more than `byte_limit` bytes.
    pub const fn with_byte_limit(byte_limit: u64) -> Self {
        Fifo {
            q: Ring::new(),
            bytes: 0,
            byte_limit,
            rejected: SatCounter::new(),
        }
    }

    /// Append `item` of `bytes` bytes; refused (and counted) when no slot is free or the
    /// byte limit would be exceeded. Slots are checked first.
    #[inline]
    pub fn push(&mut self, item: T, bytes: u32) -> Result<(), Full> {
        if self.q.is_full() {
            self.rejected.inc();
            return Err(Full::Slots);
        }
        let after = self.bytes + bytes as u64; // <= N * 2^32: no overflow
        if after > self.byte_limit {
            self.rejected.inc();
            return Err(Full::Bytes);
        }
        // Cannot fail: checked `is_full` above.
        let _ = self.q.push_back((item, bytes));
        self.bytes = after;
        Ok(())
    }

    /// Whether `bytes` more bytes in one entry would be accepted now (no side effect).
    #[inline]
    pub fn can_push(&self, bytes: u32) -> bool {
        !self.q.is_full() && self.bytes + bytes as u64 <= self.byte_limit
    }

    /// Remove and return the oldest entry and its byte length.
    #[inline]
    pub fn pop(&mut self) -> Option<(T, u32)> {
        let (item, b) = self.q.pop_front()?;
        self.bytes -= b as u64;
        Some((item, b))
    }

    /// The oldest entry and its byte length, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<(T, u32)> {
        self.q.front().copied()
    }

    /// Entries held.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether no entry is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Whether all `N` slots are in use.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.q.is_full()
    }

    /// Bytes held (sum of the entries' lengths).
    #[inline]
    pub const fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Configured byte limit (`u64::MAX` when unlimited).
    #[inline]
    pub const fn byte_limit(&self) -> u64 {
        self.byte_limit
    }

    /// Entry capacity `N`.
    #[inline]
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Pushes refused so far (saturating 32-bit counter).
    #[inline]
    pub const fn rejected(&self) -> u64 {
        self.rejected.get()
    }

    /// Entries from oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = (T, u32)> + '_ {
        self.q.iter().copied()
    }

    /// Apply `f` to every entry's item in place, oldest first (sizes unchanged).
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        self.q.for_each_mut(|(t, _)| f(t));
    }

    /// Drop every entry (the rejected counter is kept).
    pub fn clear(&mut self) {
        self.q.clear();
        self.bytes = 0;
    }
}

impl<T: Copy, const N: usize> Default for Fifo<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + core::fmt::Debug, const N: usize> core::fmt::Debug for Fifo<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fifo")
            .field("entries", &self.q)
            .field("bytes", &self.bytes)
            .field("byte_limit", &self.byte_limit)
            .field("rejected", &self.rejected.get())
            .finish()
    }
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for Fifo<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
            && self.byte_limit == other.byte_limit
            && self.rejected == other.rejected
            && self.q.len() == other.q.len()
            && self.q.iter().eq(other.q.iter())
    }
}
impl<T: Copy + Eq, const N: usize> Eq for Fifo<T, N> {}

/// A FIFO has no autonomous behaviour: idle cycles leave it unchanged.
impl<T: Copy, const N: usize> Clocked for Fifo<T, N> {
    #[inline]
    fn tick(&mut self) {}
    #[inline]
    fn advance(&mut self, _cycles: Cycles) {}
}

impl<T: Copy + StateBudget, const N: usize> StateBudget for Fifo<T, N> {
    const NAME: &'static str = "FIFO (entries + bytes)";
    const BITS: u32 = N as u32 * (T::BITS + LEN_BITS)
        + bits_for(if N == 0 { 0 } else { N as u64 - 1 })
        + bits_for(N as u64)
        + 64
        + 32;
    const UNIT: &'static str = "per queue";
}

/// Item widths of plain words stored in FIFOs.
macro_rules! word_budget {
    ($($t:ty => $name:literal),*) => {$(
        impl StateBudget for $t {
            const NAME: &'static str = $name;
            const BITS: u32 = <$t>::BITS;
            const UNIT: &'static str = "per word";
        }
    )*};
}
word_budget!(u8 => "u8 word", u16 => "u16 word", u32 => "u32 word", u64 => "u64 word");
impl StateBudget for bool {
    const NAME: &'static str = "flag";
    const BITS: u32 = 1;
    const UNIT: &'static str = "per flag";
}
impl StateBudget for () {
    const NAME: &'static str = "empty item";
    const BITS: u32 = 0;
}

// Packed form of an 8-deep FIFO of 32-bit items: 8 x (32 + 32) entry bits, 3-bit head,
// 4-bit count, 64-bit byte register, 32-bit rejected counter; the model's storage holds it.
const _: () = assert!(<Fifo<u32, 8> as StateBudget>::BITS == 8 * 64 + 3 + 4 + 64 + 32);
const _: () = assert!(
    <Fifo<u32, 8> as StateBudget>::BITS as usize <= 8 * core::mem::size_of::<Fifo<u32, 8>>()
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slots_and_bytes_limit() {
        let mut f: Fifo<u16, 3> = Fifo::with_byte_limit(100);
        assert_eq!(f.push(1, 40), Ok(()));
        assert_eq!(f.push(2, 60), Ok(()));
        assert_eq!(f.push(3, 1), Err(Full::Bytes));
        assert_eq!(f.push(4, 0), Ok(()));
        assert_eq!(f.push(5, 0), Err(Full::Slots));
        assert_eq!(f.rejected(), 2);
        assert_eq!((f.len(), f.bytes()), (3, 100));
        assert_eq!(f.peek(), Some((1, 40)));
        assert_eq!(f.pop(), Some((1, 40)));
        assert!(f.can_push(40));
        assert!(!f.can_push(41));
        assert_eq!(f.pop(), Some((2, 60)));
        assert_eq!(f.pop(), Some((4, 0)));
        assert_eq!(f.pop(), None);
        assert_eq!(f.bytes(), 0);
        assert!(f.is_empty());
    }

    /// `for_each_mut` edits the entries in place, across the ring's wrap, and nothing else.
    #[test]
    fn for_each_mut_edits_entries_in_order() {
        let mut f: Fifo<u16, 3> = Fifo::new();
        for x in [1, 2, 3] {
            f.push(x, u32::from(x)).unwrap();
        }
        f.pop();
        f.push(4, 4).unwrap();
        let (mut seen, mut n) = ([0u16; 3], 0);
        f.for_each_mut(|x| {
            seen[n] = *x;
            n += 1;
            *x += 10;
        });
        assert_eq!((seen, n), ([2, 3, 4], 3));
        let mut it = f.iter();
        assert_eq!(it.next(), Some((12, 2)));
        assert_eq!(it.next(), Some((13, 3)));
        assert_eq!(it.next(), Some((14, 4)));
        assert_eq!(it.next(), None);
        assert_eq!(f.bytes(), 9);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(u32),
        Pop,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![(0u32..5000).prop_map(Op::Push), Just(Op::Pop)]
    }

    #[derive(Debug, Clone)]
    enum RingOp {
        Push(u32),
        Pop,
        Front,
        Clear,
    }

    fn ring_op() -> impl Strategy<Value = RingOp> {
        prop_oneof![
            8 => any::<u32>().prop_map(RingOp::Push),
            6 => Just(RingOp::Pop),
            2 => Just(RingOp::Front),
            1 => Just(RingOp::Clear),
        ]
    }

    /// Drive a `Ring<u32, N>` and a `VecDeque` bounded at `N` (the model) with the same
    /// operations; every answer and the contents after each step must agree.
    fn ring_matches_vecdeque<const N: usize>(ops: &[RingOp]) -> Result<(), TestCaseError> {
        extern crate std;
        use std::collections::VecDeque;
        use std::vec::Vec;
        let mut r: Ring<u32, N> = Ring::new();
        let mut m: VecDeque<u32> = VecDeque::new();
        for o in ops {
            match *o {
                RingOp::Push(x) => {
                    let want = if m.len() == N {
                        Err(x)
                    } else {
                        m.push_back(x);
                        Ok(())
                    };
                    prop_assert_eq!(r.push_back(x), want);
                }
                RingOp::Pop => prop_assert_eq!(r.pop_front(), m.pop_front()),
                RingOp::Front => prop_assert_eq!(r.front(), m.front()),
                RingOp::Clear => {
                    r.clear();
                    m.clear();
                }
            }
            prop_assert_eq!(r.len(), m.len());
            prop_assert_eq!(r.is_empty(), m.is_empty());
            prop_assert_eq!(r.is_full(), m.len() == N);
            prop_assert_eq!(
                r.iter().copied().collect::<Vec<_>>(),
                m.iter().copied().collect::<Vec<_>>()
            );
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn ring_is_a_bounded_vecdeque(ops in proptest::collection::vec(ring_op(), 0..300)) {
            // Power-of-two capacities take the mask, the others the compare-and-wrap.
            ring_matches_vecdeque::<1>(&ops)?;
            ring_matches_vecdeque::<2>(&ops)?;
            ring_matches_vecdeque::<3>(&ops)?;
            ring_matches_vecdeque::<8>(&ops)?;
            ring_matches_vecdeque::<12>(&ops)?;
            ring_matches_vecdeque::<64>(&ops)?;
        }
    }

    proptest! {
        #[test]
        fn conservation_and_order(limit in 0u64..20_000, ops in proptest::collection::vec(op(), 0..200)) {
            let mut f: Fifo<u32, 8> = Fifo::with_byte_limit(limit);
            let (mut pushed, mut popped, mut next_id, mut expect_id) = (0u64, 0u64, 0u32, 0u32);
            let mut rejected = 0;
            for o in ops {
                match o {
                    Op::Push(b) => match f.push(next_id, b) {
                        Ok(()) => { pushed += b as u64; next_id += 1; }
                        Err(_) => rejected += 1,
                    },
                    Op::Pop => if let Some((id, b)) = f.pop() {
                        prop_assert_eq!(id, expect_id);
                        expect_id += 1;
                        popped += b as u64;
                    },
                }
                let held: u64 = f.iter().map(|(_, b)| b as u64).sum();
                prop_assert_eq!(pushed, popped + f.bytes());
                prop_assert_eq!(held, f.bytes());
                prop_assert!(f.bytes() <= limit);
                prop_assert!(f.len() <= 8);
                prop_assert_eq!(f.len() as u32, next_id - expect_id);
            }
            prop_assert_eq!(f.rejected(), rejected);
        }

        #[test]
        fn advance_equals_idle_ticks(sizes in proptest::collection::vec(0u32..100, 0..8), n in 0u64..100) {
            let mut a: Fifo<u8, 8> = Fifo::new();
            for (i, s) in sizes.iter().enumerate() { a.push(i as u8, *s).unwrap(); }
            crate::testing::assert_advance_eq_ticks(&a, n);
        }
    }
}
