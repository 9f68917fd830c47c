//! Port occupation state `S` of Algorithm 1 for one epoch: which links of the pod a granted
//! (or tentatively granted) path holds. One bit per link, `M <= 32` (k <= 64).
//!
//! ```text
//!  tor_up[t]   bit a : link ToR t -> Agg a   (Agg a's input port from ToR t)
//!  agg_down[a] bit t : link Agg a -> ToR t   (Agg a's output port t)
//!  agg_up[a]   bit j : link Agg a -> Core a + j*M (Agg a's output port M + j)
//!  core_down   bit c : link Core c -> Agg c % M (Agg's input port from Core c)
//! ```

use rtl_models::zeropod_cell::TrafficKind;

use crate::pod::Grant;

/// Link occupation bitmaps of one pod, half-radix `M`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortStates<const M: usize> {
    /// ToR t's up links, bit a.
    pub tor_up: [u64; M],
    /// Agg a's down links, bit t.
    pub agg_down: [u64; M],
    /// Agg a's up links, bit j.
    pub agg_up: [u64; M],
    /// Core down links into the pod, bit c.
    pub core_down: u64,
}

impl<const M: usize> Default for PortStates<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const M: usize> PortStates<M> {
    /// All links idle.
    pub const fn new() -> Self {
        PortStates {
            tor_up: [0; M],
            agg_down: [0; M],
            agg_up: [0; M],
            core_down: 0,
        }
    }

    /// Bits of state (for the budget).
    pub const BITS: u32 = (3 * M * M + 64) as u32;

    /// The (word, bit) pairs of the links `g` holds: at most two (the Agg's input and output).
    fn links(&self, g: &Grant) -> [(Link, u32); 2] {
        let a = g.agg as usize;
        match g.traffic {
            TrafficKind::E2E => [
                (Link::TorUp(g.src as usize / M), a as u32),
                (Link::AggDown(a), (g.dst as usize / M) as u32),
            ],
            TrafficKind::E2P => [
                (Link::TorUp(g.src as usize / M), a as u32),
                (Link::AggUp(a), (g.core as usize / M) as u32),
            ],
            TrafficKind::C2E => [
                (Link::CoreDown, g.core as u32),
                (Link::AggDown(a), (g.dst as usize / M) as u32),
            ],
        }
    }

    fn word(&mut self, l: Link) -> &mut u64 {
        match l {
            Link::TorUp(t) => &mut self.tor_up[t],
            Link::AggDown(a) => &mut self.agg_down[a],
            Link::AggUp(a) => &mut self.agg_up[a],
            Link::CoreDown => &mut self.core_down,
        }
    }

    /// True if every link of `g` is idle.
    pub fn is_free(&self, g: &Grant) -> bool {
        let mut s = *self;
        self.links(g).iter().all(|&(l, b)| *s.word(l) >> b & 1 == 0)
    }

    /// MarkOccupied (Algorithm 1 line 19).
    pub fn occupy(&mut self, g: &Grant) {
        for (l, b) in self.links(g) {
            *self.word(l) |= 1 << b;
        }
    }

    /// ReleasePorts (Algorithm 1 lines 24, 29).
    pub fn release(&mut self, g: &Grant) {
        for (l, b) in self.links(g) {
            *self.word(l) &= !(1 << b);
        }
    }

    /// Bitwise OR (start an epoch from the failed-link mask).
    pub fn union(&self, o: &Self) -> Self {
        let mut r = *self;
        for i in 0..M {
            r.tor_up[i] |= o.tor_up[i];
            r.agg_down[i] |= o.agg_down[i];
            r.agg_up[i] |= o.agg_up[i];
        }
        r.core_down |= o.core_down;
        r
    }
}

#[derive(Debug, Clone, Copy)]
enum Link {
    TorUp(usize),
    AggDown(usize),
    AggUp(usize),
    CoreDown,
}
