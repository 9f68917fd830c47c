//! One allocator per phase of Algorithm 1, each behind the same small interface (BookSim's
//! habit: add requests, allocate, read grants; `arbitrate` separated from `update_state`):
//!
//! * [`request`]: phase 1, path selection (lines 7-13);
//! * [`grant1`]: phase 2, per-Agg switch-port allocation (lines 16-19);
//! * [`grant2`]: phase 3, one grant per sender (lines 21-24);
//! * [`accept`]: phase 4, one grant per receiver (lines 26-29).
//!
//! Requests and grants are [`Grant`]s; a smaller `key` is more urgent (top-k mice first,
//! then less aggregated data, then a random tie-break drawn in the Request phase).

pub mod accept;
pub mod grant1;
pub mod grant2;
pub mod request;

use heapless::Vec;

use crate::pod::Grant;

/// A fixed-capacity list of requests / grants; overflow is counted, never a panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantList<const Q: usize> {
    items: Vec<Grant, Q>,
    /// Entries refused because the list was full.
    pub overflow: u32,
}

impl<const Q: usize> Default for GrantList<Q> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const Q: usize> GrantList<Q> {
    /// An empty list.
    pub const fn new() -> Self {
        GrantList {
            items: Vec::new(),
            overflow: 0,
        }
    }
    /// Empty the list (the overflow count is kept).
    pub fn clear(&mut self) {
        self.items.clear();
    }
    /// Append `g`, or count an overflow.
    pub fn push(&mut self, g: Grant) {
        if self.items.push(g).is_err() {
            self.overflow = self.overflow.saturating_add(1);
        }
    }
    /// The entries.
    pub fn as_slice(&self) -> &[Grant] {
        &self.items
    }
    pub(crate) fn sort_by_key<K: Ord>(&mut self, f: impl FnMut(&Grant) -> K) {
        self.items.sort_unstable_by_key(f);
    }
}

/// Keep the first grant of each group of a list sorted by (group, key): the arbiter of
/// Grant-2 and Accept. Returns `(winners, losers)` through the two callbacks.
pub(crate) fn first_of_each_group(
    items: &[Grant],
    group: impl Fn(&Grant) -> usize,
    mut win: impl FnMut(&Grant),
    mut lose: impl FnMut(&Grant),
) {
    let mut last = usize::MAX;
    for g in items {
        let k = group(g);
        if k != last {
            win(g);
            last = k;
        } else {
            lose(g);
        }
    }
}
