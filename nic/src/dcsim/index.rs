//! Model-side indexes of the DCSIM host engine (DCSIM section 2.4): what hardware finds with
//! a priority encoder or a CAM over its tables, found here without scanning them.
//!
//! ```text
//!   SlotMask (512 bits)        set / get / first set bit at or after `from`, circularly
//!     host:      flows that may send a SIM, flows held by their window (scheduler input)
//!     scheduler: the member flows of each collective
//!     flow:      free entries of the SIM table (the lowest one takes the next SIM)
//!   EvIndex<S>  (S buckets)    EV -> SIM-table entry of an outstanding SIM (the EV CAM)
//! ```
//!
//! Both are redundant with the tables they index (the member tags, the flows' counters,
//! the SIM entries): they hold no state of the algorithm and have no bit budget of their
//! own, like the comparator tree of [`super::host`]. A table indexed by a [`SlotMask`] has
//! at most [`MASK_SLOTS`] entries (checked at compile time by its users).
//!
//! Units: table entries (flow slots, SIM-table entries), EVs.

use crate::lb::Ev;

/// Entries a [`SlotMask`] covers.
pub const MASK_SLOTS: usize = 512;
const WORDS: usize = MASK_SLOTS / 64;

/// A set of table entries `0..MASK_SLOTS`, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlotMask([u64; WORDS]);

impl SlotMask {
    /// The empty set.
    pub const fn new() -> Self {
        SlotMask([0; WORDS])
    }

    /// Entries `0..n` (`n <= MASK_SLOTS`).
    pub fn first_n(n: usize) -> Self {
        let mut m = Self::new();
        for i in 0..n.min(MASK_SLOTS) {
            m.set(i, true);
        }
        m
    }

    /// Put entry `i` in (`on`) or out of the set (`i < MASK_SLOTS`).
    #[inline]
    pub fn set(&mut self, i: usize, on: bool) {
        let (w, b) = (i / 64, 1u64 << (i % 64));
        if on {
            self.0[w] |= b;
        } else {
            self.0[w] &= !b;
        }
    }

    /// Whether entry `i` is in the set.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Whether the set is not empty.
    #[inline]
    pub fn any(&self) -> bool {
        self.0.iter().any(|&w| w != 0)
    }

    /// The entries in both sets.
    #[inline]
    pub fn and(&self, o: &SlotMask) -> SlotMask {
        let mut m = *self;
        for (a, b) in m.0.iter_mut().zip(o.0.iter()) {
            *a &= *b;
        }
        m
    }

    /// The lowest entry `>= from`, if any.
    #[inline]
    pub fn first_at_or_after(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        if w >= WORDS {
            return None;
        }
        let mut bits = self.0[w] & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            if w == WORDS {
                return None;
            }
            bits = self.0[w];
        }
    }

    /// The first entry in circular order starting at `from`: the lowest `>= from`, else
    /// the lowest of all.
    #[inline]
    pub fn first_circular(&self, from: usize) -> Option<usize> {
        self.first_at_or_after(from)
            .or_else(|| self.first_at_or_after(0))
    }

    /// `self.and(o).first_circular(from)` for sets of entries below `n` only (`n <=
    /// MASK_SLOTS`): reads only the words that can hold them.
    #[inline]
    pub fn first_common_circular(&self, o: &SlotMask, from: usize, n: usize) -> Option<usize> {
        let words = n.div_ceil(64).min(WORDS);
        let w0 = from / 64;
        let word = |w: usize| self.0[w] & o.0[w];
        if w0 < words {
            let bits = word(w0) & (u64::MAX << (from % 64));
            if bits != 0 {
                return Some(w0 * 64 + bits.trailing_zeros() as usize);
            }
        }
        for w in (w0 + 1..words).chain(0..w0.min(words) + 1) {
            let bits = word(w);
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }
}

/// Bucket / chain terminator of [`EvIndex`].
const NIL: u16 = u16::MAX;

/// The EVs of a flow's outstanding SIMs, each to its SIM-table entry: `S` hash buckets
/// (`ev % S`) chained through the entries. Every outstanding entry is in the bucket of its
/// EV exactly once; free entries are in none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvIndex<const S: usize> {
    head: [u16; S],
    next: [u16; S],
}

impl<const S: usize> Default for EvIndex<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const S: usize> EvIndex<S> {
    /// No entries.
    pub const fn new() -> Self {
        EvIndex {
            head: [NIL; S],
            next: [NIL; S],
        }
    }

    #[inline]
    fn bucket(ev: Ev) -> usize {
        ev as usize % S
    }

    /// Entry `slot` now holds an outstanding SIM with `ev`.
    #[inline]
    pub fn insert(&mut self, slot: usize, ev: Ev) {
        let b = Self::bucket(ev);
        self.next[slot] = self.head[b];
        self.head[b] = slot as u16;
    }

    /// Entry `slot` (holding `ev`) is free again.
    #[inline]
    pub fn remove(&mut self, slot: usize, ev: Ev) {
        let b = Self::bucket(ev);
        let mut cur = self.head[b];
        if cur as usize == slot {
            self.head[b] = self.next[slot];
            return;
        }
        while cur != NIL {
            let n = self.next[cur as usize];
            if n as usize == slot {
                self.next[cur as usize] = self.next[slot];
                return;
            }
            cur = n;
        }
        debug_assert!(false, "EV index: entry {slot} not in its bucket");
    }

    /// The entry whose EV is `ev`, among the entries `ev_of` says hold one (`ev_of(slot)`
    /// is the EV of entry `slot`).
    #[inline]
    pub fn find(&self, ev: Ev, ev_of: impl Fn(usize) -> Option<Ev>) -> Option<usize> {
        let mut cur = self.head[Self::bucket(ev)];
        while cur != NIL {
            if ev_of(cur as usize) == Some(ev) {
                return Some(cur as usize);
            }
            cur = self.next[cur as usize];
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_finds_in_circular_order() {
        let mut m = SlotMask::new();
        assert_eq!(m.first_circular(0), None);
        assert!(!m.any());
        for i in [3, 64, 130, 511] {
            m.set(i, true);
        }
        assert!(m.get(130) && !m.get(131) && m.any());
        assert_eq!(m.first_at_or_after(0), Some(3));
        assert_eq!(m.first_at_or_after(4), Some(64));
        assert_eq!(m.first_at_or_after(65), Some(130));
        assert_eq!(m.first_at_or_after(131), Some(511));
        assert_eq!(m.first_at_or_after(512), None);
        assert_eq!(m.first_circular(512), Some(3));
        m.set(511, false);
        assert_eq!(m.first_circular(131), Some(3));
        let mut o = SlotMask::new();
        o.set(64, true);
        o.set(5, true);
        assert_eq!(m.and(&o).first_circular(0), Some(64));
        for from in [0, 3, 4, 64, 65, 200, 511] {
            assert_eq!(
                m.first_common_circular(&o, from, 512),
                m.and(&o).first_circular(from)
            );
        }
        o.set(3, true);
        assert_eq!(m.first_common_circular(&o, 65, 512), Some(3));
        assert_eq!(m.first_common_circular(&o, 4, 512), Some(64));
        assert_eq!(m.first_common_circular(&o, 4, 64), Some(3), "only word 0");
        assert_eq!(SlotMask::first_n(70).first_at_or_after(69), Some(69));
        assert_eq!(SlotMask::first_n(70).first_at_or_after(70), None);
    }

    #[test]
    fn ev_index_chains_collisions() {
        let mut evs = [None::<Ev>; 4];
        let mut x: EvIndex<4> = EvIndex::new();
        // 1, 5 and 9 share bucket 1.
        for (slot, ev) in [(0, 1), (2, 5), (3, 9), (1, 2)] {
            evs[slot] = Some(ev);
            x.insert(slot, ev);
        }
        let find = |x: &EvIndex<4>, evs: &[Option<Ev>; 4], ev| x.find(ev, |s| evs[s]);
        assert_eq!(find(&x, &evs, 5), Some(2));
        assert_eq!(find(&x, &evs, 13), None);
        x.remove(2, 5);
        evs[2] = None;
        assert_eq!(find(&x, &evs, 5), None);
        assert_eq!(find(&x, &evs, 9), Some(3));
        assert_eq!(find(&x, &evs, 1), Some(0));
        x.remove(3, 9);
        evs[3] = None;
        x.remove(0, 1);
        evs[0] = None;
        assert_eq!(find(&x, &evs, 1), None);
        assert_eq!(find(&x, &evs, 2), Some(1));
    }
}
