//! Queue registers kept apart from their slots: a FIFO ring and a min-heap whose few bytes
//! of registers (head, length) a [`super::flow::DcsimFlow`] keeps in its first cache line
//! with its context and epoch, while the slot arrays lie behind the tables.
//!
//! ```text
//!   RingRegs { head, len }  +  [T; M] slots   FIFO: push_back, front, pop_front, iter
//!   HeapRegs { len }        +  [T; M] slots   min-heap: push, peek, pop, iter
//! ```
//!
//! Session 15b (issue 14): the flow's timer queues and release heap were `heapless` types,
//! each with its registers behind its own slots, so a flow visit read three or four lines
//! of registers spread over the flow's 17.5 KB before reaching an entry (the host hooks'
//! largest stalls in `perf`). Same behaviour as the `heapless` queues they replace: a FIFO
//! in push order, a heap popping its minimum (entries are compared as values, so the pop
//! order does not depend on how the heap is laid out).
//!
//! Units: slots.

/// An entry whose first field is its time key (a stored offset): the registers keep a copy
/// of the front entry's key so that the next deadline is read without the slots.
pub(crate) trait Keyed: Copy {
    /// The entry's time key.
    fn key(&self) -> u32;
}

impl Keyed for (u32, u16) {
    #[inline]
    fn key(&self) -> u32 {
        self.0
    }
}

impl Keyed for (u32, u32) {
    #[inline]
    fn key(&self) -> u32 {
        self.0
    }
}

impl Keyed for u32 {
    #[inline]
    fn key(&self) -> u32 {
        *self
    }
}

/// The registers of a FIFO ring over `M` slots (`M < 65536`), with a copy of the front
/// entry's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RingRegs {
    head: u16,
    len: u16,
    front_key: u32,
}

impl RingRegs {
    /// The empty ring.
    pub(crate) const fn new() -> Self {
        RingRegs {
            head: 0,
            len: 0,
            front_key: 0,
        }
    }

    /// Entries held.
    #[inline]
    pub(crate) const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether all `M` slots hold entries.
    #[inline]
    pub(crate) const fn is_full<T, const M: usize>(&self, _s: &[T; M]) -> bool {
        self.len as usize == M
    }

    /// Slot of the `i`-th entry from the front (`i <= M`).
    #[inline]
    const fn slot<const M: usize>(&self, i: usize) -> usize {
        let j = self.head as usize + i;
        if j >= M {
            j - M
        } else {
            j
        }
    }

    /// The oldest entry's key (from the registers: no slot read).
    #[inline]
    pub(crate) const fn front_key(&self) -> Option<u32> {
        if self.len == 0 {
            None
        } else {
            Some(self.front_key)
        }
    }

    /// The oldest entry.
    #[inline]
    pub(crate) fn front<T: Copy, const M: usize>(&self, s: &[T; M]) -> Option<T> {
        if self.len == 0 {
            None
        } else {
            Some(s[self.head as usize])
        }
    }

    /// Take the oldest entry.
    #[inline]
    pub(crate) fn pop_front<T: Keyed, const M: usize>(&mut self, s: &[T; M]) -> Option<T> {
        let e = self.front(s)?;
        self.head = self.slot::<M>(1) as u16;
        self.len -= 1;
        if self.len > 0 {
            self.front_key = s[self.head as usize].key();
        }
        Some(e)
    }

    /// Add `v` behind the newest entry; `false` (and nothing added) if full.
    #[inline]
    pub(crate) fn push_back<T: Keyed, const M: usize>(&mut self, s: &mut [T; M], v: T) -> bool {
        if self.len as usize >= M {
            return false;
        }
        if self.len == 0 {
            self.front_key = v.key();
        }
        s[self.slot::<M>(self.len as usize)] = v;
        self.len += 1;
        true
    }

    /// The entries, oldest first.
    #[inline]
    pub(crate) fn iter<'a, T: Copy, const M: usize>(
        &self,
        s: &'a [T; M],
    ) -> impl DoubleEndedIterator<Item = T> + 'a {
        let r = *self;
        (0..r.len as usize).map(move |i| s[r.slot::<M>(i)])
    }

    /// Apply `f` to every entry in place.
    pub(crate) fn for_each_mut<T: Keyed, const M: usize>(
        &mut self,
        s: &mut [T; M],
        mut f: impl FnMut(&mut T),
    ) {
        for i in 0..self.len as usize {
            f(&mut s[self.slot::<M>(i)]);
        }
        if self.len > 0 {
            self.front_key = s[self.head as usize].key();
        }
    }
}

/// The registers of a binary min-heap over `M` slots (`M < 65536`): slot 0 the minimum,
/// slot `j`'s children `2j + 1` and `2j + 2`; a copy of the minimum's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct HeapRegs {
    len: u16,
    top_key: u32,
}

impl HeapRegs {
    /// The empty heap.
    pub(crate) const fn new() -> Self {
        HeapRegs { len: 0, top_key: 0 }
    }

    /// The least entry's key (from the registers: no slot read).
    #[inline]
    pub(crate) const fn peek_key(&self) -> Option<u32> {
        if self.len == 0 {
            None
        } else {
            Some(self.top_key)
        }
    }

    /// The least entry.
    #[inline]
    pub(crate) fn peek<T: Copy, const M: usize>(&self, s: &[T; M]) -> Option<T> {
        if self.len == 0 {
            None
        } else {
            Some(s[0])
        }
    }

    /// Add `v`; `false` (and nothing added) if full.
    #[inline]
    pub(crate) fn push<T: Keyed + Ord, const M: usize>(&mut self, s: &mut [T; M], v: T) -> bool {
        let mut j = self.len as usize;
        if j >= M {
            return false;
        }
        self.len += 1;
        while j > 0 {
            let p = (j - 1) / 2;
            if s[p] <= v {
                break;
            }
            s[j] = s[p];
            j = p;
        }
        s[j] = v;
        if j == 0 {
            self.top_key = v.key();
        }
        true
    }

    /// Take the least entry.
    #[inline]
    pub(crate) fn pop<T: Keyed + Ord, const M: usize>(&mut self, s: &mut [T; M]) -> Option<T> {
        let top = self.peek(s)?;
        self.len -= 1;
        let n = self.len as usize;
        if n > 0 {
            let v = s[n];
            let mut j = 0;
            loop {
                let mut c = 2 * j + 1;
                if c >= n {
                    break;
                }
                if c + 1 < n && s[c + 1] < s[c] {
                    c += 1;
                }
                if v <= s[c] {
                    break;
                }
                s[j] = s[c];
                j = c;
            }
            s[j] = v;
            self.top_key = s[0].key();
        }
        Some(top)
    }

    /// The entries, in slot order.
    #[inline]
    pub(crate) fn iter<'a, T, const M: usize>(&self, s: &'a [T; M]) -> impl Iterator<Item = &'a T> {
        s[..self.len as usize].iter()
    }

    /// Apply `f` to every entry's value, keeping the heap order (`f` must be monotonic).
    pub(crate) fn for_each_mut<T: Keyed, const M: usize>(
        &mut self,
        s: &mut [T; M],
        f: impl FnMut(&mut T),
    ) {
        s[..self.len as usize].iter_mut().for_each(f);
        if self.len > 0 {
            self.top_key = s[0].key();
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// A tiny deterministic generator (xorshift).
    fn next(x: &mut u32) -> u32 {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        *x
    }

    #[test]
    fn ring_is_a_bounded_fifo() {
        for m in [1usize, 2, 3, 7, 8] {
            let mut s = [0u32; 8];
            let mut r = RingRegs::new();
            let mut model = std::collections::VecDeque::new();
            let mut x = 12345u32 + m as u32;
            for k in 0..4000u32 {
                // Only the first `m` slots: a ring of `m` through a sub-array.
                let sub: &mut [u32; 8] = &mut s;
                let v = next(&mut x);
                match v % 3 {
                    0 | 1 => {
                        let ok = match m {
                            1 => r.push_back::<u32, 1>((&mut sub[..1]).try_into().unwrap(), k),
                            2 => r.push_back::<u32, 2>((&mut sub[..2]).try_into().unwrap(), k),
                            3 => r.push_back::<u32, 3>((&mut sub[..3]).try_into().unwrap(), k),
                            7 => r.push_back::<u32, 7>((&mut sub[..7]).try_into().unwrap(), k),
                            _ => r.push_back::<u32, 8>(sub, k),
                        };
                        assert_eq!(ok, model.len() < m);
                        if ok {
                            model.push_back(k);
                        }
                    }
                    _ => {
                        let got = match m {
                            1 => r.pop_front::<u32, 1>((&sub[..1]).try_into().unwrap()),
                            2 => r.pop_front::<u32, 2>((&sub[..2]).try_into().unwrap()),
                            3 => r.pop_front::<u32, 3>((&sub[..3]).try_into().unwrap()),
                            7 => r.pop_front::<u32, 7>((&sub[..7]).try_into().unwrap()),
                            _ => r.pop_front::<u32, 8>(sub),
                        };
                        assert_eq!(got, model.pop_front());
                    }
                }
                assert_eq!(r.len(), model.len());
                assert_eq!(r.front_key(), model.front().copied());
                if m == 8 {
                    assert!(r.iter(&s).eq(model.iter().copied()));
                    assert!(r.iter(&s).rev().eq(model.iter().rev().copied()));
                    assert_eq!(r.is_full(&s), model.len() == 8);
                }
            }
        }
    }

    #[test]
    fn heap_pops_in_order() {
        let mut s = [(0u32, 0u32); 16];
        let mut h = HeapRegs::new();
        let mut model: std::vec::Vec<(u32, u32)> = std::vec::Vec::new();
        let mut x = 777u32;
        for k in 0..20_000u32 {
            let v = next(&mut x);
            if v % 5 < 3 {
                let e = (v % 40, k % 4);
                let ok = h.push(&mut s, e);
                assert_eq!(ok, model.len() < 16);
                if ok {
                    model.push(e);
                }
            } else {
                model.sort_unstable();
                let want = if model.is_empty() {
                    None
                } else {
                    Some(model.remove(0))
                };
                assert_eq!(h.peek(&s), want);
                assert_eq!(h.peek_key(), want.map(|e| e.0));
                assert_eq!(h.pop(&mut s), want);
            }
            let mut a: std::vec::Vec<_> = h.iter(&s).copied().collect();
            a.sort_unstable();
            let mut b = model.clone();
            b.sort_unstable();
            assert_eq!(a, b);
        }
    }
}
