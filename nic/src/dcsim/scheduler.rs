//! Fair choice of the flow that sends the next SIM (DCSIM section 2.4 (1)): round robin
//! over collective IDs, then round robin over the flows of the chosen collective. Hosts
//! that do not know collective IDs put every flow in collective 0 (plain round robin).
//!
//! ```text
//!   member[F]  (collective of each flow slot, or none)
//!   last_coll  -- start after it -->  collective c (first with an eligible flow)
//!   last_flow[C] -- start after it --> flow f of c (first eligible)     pick(eligible) -> f
//! ```
//!
//! One pass over the `F` flow slots finds, for every collective, its next eligible flow
//! after that collective's pointer; then the first collective after `last_coll` that has
//! one wins, and both pointers move. Fixed capacity: `F` flow slots, `C` collectives.
//!
//! [`FlowScheduler::pick_masked`] makes the same choice from a set of eligible flows
//! (a [`SlotMask`]) and a model-side member set per collective (redundant with the tags,
//! no budget): a search of `C` bit sets instead of a pass over the `F` slots (the
//! hardware's priority encoders). Needs `F <= MASK_SLOTS`.

use rtl_models::budget::bits_for;
use rtl_models::StateBudget;

use super::index::{SlotMask, MASK_SLOTS};

/// Marker for a flow slot that belongs to no collective.
const NONE: u8 = u8::MAX;

/// Round robin over collectives, then over flows within a collective.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowScheduler<const F: usize, const C: usize> {
    member: [u8; F],
    last_coll: u8,
    last_flow: [u16; C],
    // Model-side index: the flow slots of each collective (slots below MASK_SLOTS).
    members: [SlotMask; C],
    // Model-side: how many flow slots each member set holds, so that a pick skips the
    // collectives with none without searching their sets (same choice).
    sizes: [u16; C],
}

impl<const F: usize, const C: usize> Default for FlowScheduler<F, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const F: usize, const C: usize> FlowScheduler<F, C> {
    const CAPACITY_CHECK: () = assert!(
        F >= 1 && F <= u16::MAX as usize && C >= 1 && C < NONE as usize,
        "FlowScheduler: need 1 <= F <= 65535 and 1 <= C <= 254"
    );

    /// No flows. The first pick serves collective 0, flow slot 0 first.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_CHECK;
        FlowScheduler {
            member: [NONE; F],
            last_coll: (C - 1) as u8,
            last_flow: [(F - 1) as u16; C],
            members: [SlotMask::new(); C],
            sizes: [0; C],
        }
    }

    /// Put flow slot `flow` in collective `coll`; `false` if out of range.
    pub fn insert(&mut self, flow: usize, coll: u8) -> bool {
        if flow >= F || coll as usize >= C {
            return false;
        }
        self.remove(flow);
        self.member[flow] = coll;
        if flow < MASK_SLOTS {
            self.members[coll as usize].set(flow, true);
            self.sizes[coll as usize] += 1;
        }
        true
    }

    /// Take flow slot `flow` out.
    pub fn remove(&mut self, flow: usize) {
        if flow < F {
            let c = self.member[flow];
            if c != NONE && flow < MASK_SLOTS {
                self.members[c as usize].set(flow, false);
                self.sizes[c as usize] -= 1;
            }
            self.member[flow] = NONE;
        }
    }

    /// The collective of flow slot `flow`.
    pub fn collective_of(&self, flow: usize) -> Option<u8> {
        match self.member.get(flow) {
            Some(&c) if c != NONE => Some(c),
            _ => None,
        }
    }

    /// The next flow to serve among those for which `eligible` holds; moves the pointers.
    pub fn pick(&mut self, mut eligible: impl FnMut(usize) -> bool) -> Option<usize> {
        let mut best = [(u16::MAX, 0u16); C]; // (distance after pointer, flow) per collective
        for (f, &c) in self.member.iter().enumerate() {
            if c == NONE {
                continue;
            }
            let c = c as usize;
            let dist = ((f + F - self.last_flow[c] as usize - 1) % F) as u16;
            if dist < best[c].0 && eligible(f) {
                best[c] = (dist, f as u16);
            }
        }
        for k in 1..=C {
            let c = (self.last_coll as usize + k) % C;
            if best[c].0 != u16::MAX {
                self.last_coll = c as u8;
                self.last_flow[c] = best[c].1;
                return Some(best[c].1 as usize);
            }
        }
        None
    }

    /// [`FlowScheduler::pick`] with the eligible flows given as a set: the same choice and
    /// the same pointer moves (only member flows count; slots of no collective in
    /// `eligible` are ignored). `F` must be at most [`MASK_SLOTS`] (else `None`).
    pub fn pick_masked(&mut self, eligible: &SlotMask) -> Option<usize> {
        if F > MASK_SLOTS {
            return None;
        }
        for k in 1..=C {
            let c = (self.last_coll as usize + k) % C;
            if self.sizes[c] == 0 {
                // An empty member set has no common slot with `eligible`.
                continue;
            }
            let from = (self.last_flow[c] as usize + 1) % F;
            if let Some(f) = self.members[c].first_common_circular(eligible, from, F) {
                self.last_coll = c as u8;
                self.last_flow[c] = f as u16;
                return Some(f);
            }
        }
        None
    }
}

/// Budget: a `bits_for(C)`-bit collective tag per flow slot (C values plus "none"), the
/// collective pointer and one flow pointer per collective.
impl<const F: usize, const C: usize> StateBudget for FlowScheduler<F, C> {
    const NAME: &'static str = "DCSIM flow scheduler (RR collectives, then flows)";
    const BITS: u32 =
        F as u32 * bits_for(C as u64) + bits_for(C as u64 - 1) + C as u32 * bits_for(F as u64 - 1);
    const UNIT: &'static str = "per host";
    const PAPER_REF: &'static str = "DCSIM 2.4 (1) (no figure given)";
}
// Packed form: the model's byte-wide tags and 16-bit pointers hold the budget's fields.
const _: () = assert!(
    <FlowScheduler<128, 8> as StateBudget>::BITS == 128 * 4 + 3 + 8 * 7
        && <FlowScheduler<128, 8> as StateBudget>::BITS as usize
            <= 8 * core::mem::size_of::<FlowScheduler<128, 8>>()
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_over_collectives_then_flows() {
        let mut s: FlowScheduler<8, 3> = FlowScheduler::new();
        // Collective 0: flows 0, 1, 2; collective 1: flow 5; collective 2: flows 6, 7.
        for (f, c) in [(0, 0), (1, 0), (2, 0), (5, 1), (6, 2), (7, 2)] {
            assert!(s.insert(f, c));
        }
        let order: [usize; 12] = core::array::from_fn(|_| s.pick(|_| true).unwrap());
        assert_eq!(order, [0, 5, 6, 1, 5, 7, 2, 5, 6, 0, 5, 7]);
    }

    /// `pick_masked` makes `pick`'s choices, pointer moves included, on random member and
    /// eligible sets (a small LFSR-free generator keeps the test no_std-friendly).
    #[test]
    fn masked_pick_equals_the_scan() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut a: FlowScheduler<40, 3> = FlowScheduler::new();
        let mut b = a.clone();
        let mut picks = 0;
        for _ in 0..4000 {
            let r = next();
            let f = (r % 40) as usize;
            match (r >> 8) % 4 {
                0 => {
                    let c = ((r >> 16) % 3) as u8;
                    assert_eq!(a.insert(f, c), b.insert(f, c));
                }
                1 => {
                    a.remove(f);
                    b.remove(f);
                }
                _ => {
                    let bits = next();
                    let mut m = SlotMask::new();
                    for i in 0..40 {
                        m.set(i, bits >> i & 1 == 1);
                    }
                    let pa = a.pick(|i| m.get(i));
                    let pb = b.pick_masked(&m);
                    assert_eq!(pa, pb);
                    picks += usize::from(pa.is_some());
                }
            }
            assert_eq!(a, b);
        }
        assert!(picks > 1000, "{picks} picks");
    }

    #[test]
    fn skips_ineligible_and_empty() {
        let mut s: FlowScheduler<4, 2> = FlowScheduler::new();
        s.insert(0, 0);
        s.insert(1, 0);
        s.insert(3, 1);
        assert_eq!(s.pick(|f| f != 0), Some(1));
        assert_eq!(s.pick(|f| f != 3), Some(0));
        assert_eq!(s.pick(|_| false), None);
        s.remove(0);
        s.remove(1);
        assert_eq!(s.pick(|_| true), Some(3));
        assert_eq!(s.pick(|_| true), Some(3));
        assert!(!s.insert(4, 0));
        assert!(!s.insert(0, 2));
    }
}
