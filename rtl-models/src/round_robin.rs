//! Round-robin arbiter with priorities: one grant per cycle among `N` requesters.
//!
//! After BookSim2's `RoundRobinArbiter` (`src/arbiters/roundrobin_arb.cpp`, interface in
//! `src/arbiters/arbiter.hpp`): requests are added during the cycle
//! ([`RoundRobinArbiter::add_request`]), [`RoundRobinArbiter::arbitrate`] picks the winner
//! (the highest priority; among equal priorities, the first requester at or after the
//! round-robin pointer), and only [`RoundRobinArbiter::update_state`] moves the pointer past
//! the winner. Arbitrate is separated from UpdateState so an allocator (iSLIP-style
//! Request / Grant / Accept, the Zeropod scheduler, the DCSIM arbiter) can arbitrate, find out
//! whether the grant was accepted, and only then commit it. The clock edge
//! ([`Clocked::tick`]) clears the cycle's requests and selection; the pointer persists.
//!
//! ```text
//!   add_request(input, pri) --> +------------------------+
//!          (N request lines)    |  highest pri, ties:    |--> arbitrate() -> Some(winner)
//!                               |  first at/after `next` |
//!                               +-----------^------------+
//!   update_state() ---------------- next := winner + 1 (mod N)  (only on update)
//!   tick()          ---------------- requests and selection cleared
//! ```
//!
//! Fairness: with equal priorities, a requester that keeps requesting is granted within `N`
//! updated rounds (each update moves the pointer past the winner, so at most `N - 1` others
//! can be served before it).
//!
//! Units: inputs are indices `0..N`; priorities are `u8` (larger wins). State budget: the
//! pointer register, `bits_for(N - 1)` bits; requests and the selection are per-cycle wires.

use crate::budget::{bits_for, StateBudget};
use crate::clock::Cycles;
use crate::clocked::Clocked;
use crate::error::ConfigError;

/// A round-robin arbiter over `N` requesters (`1 <= N <= 65536`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoundRobinArbiter<const N: usize> {
    /// Priority of each input's request this cycle (`None`: not requesting).
    requests: [Option<u8>; N],
    /// Winner chosen by the last [`RoundRobinArbiter::arbitrate`] this cycle.
    selected: Option<u16>,
    /// Round-robin pointer: the input with the highest tie-break priority (BookSim keeps
    /// the last winner; we keep the one after it, which is the same register).
    next: u16,
}

impl<const N: usize> Default for RoundRobinArbiter<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> RoundRobinArbiter<N> {
    const VALID_N: () = assert!(N >= 1 && N <= 1 << 16, "N must be in 1..=65536");

    /// An arbiter with no requests and the pointer at input 0.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_N;
        RoundRobinArbiter {
            requests: [None; N],
            selected: None,
            next: 0,
        }
    }

    /// Input `input` requests with priority `pri` this cycle (larger wins). A second request
    /// from the same input keeps the higher priority (BookSim `AddRequest`). The error names
    /// `input` if it is not below `N`.
    pub fn add_request(&mut self, input: usize, pri: u8) -> Result<(), ConfigError> {
        let slot = self.requests.get_mut(input).ok_or(ConfigError::new(
            "input",
            "not below the number of requesters N",
        ))?;
        *slot = Some(match *slot {
            Some(p) if p >= pri => p,
            _ => pri,
        });
        Ok(())
    }

    /// Whether `input` requests this cycle.
    pub fn is_requesting(&self, input: usize) -> bool {
        matches!(self.requests.get(input), Some(Some(_)))
    }

    /// Pick the winner among this cycle's requests without touching the pointer: the
    /// highest priority, ties to the first input at or after the pointer (cyclically).
    /// `None` if nobody requests.
    pub fn arbitrate(&mut self) -> Option<usize> {
        let mut best: Option<(usize, u8)> = None;
        let start = self.next as usize;
        for k in 0..N {
            let i = (start + k) % N;
            if let Some(p) = self.requests[i] {
                if !matches!(best, Some((_, bp)) if bp >= p) {
                    best = Some((i, p));
                }
            }
        }
        self.selected = best.map(|(i, _)| i as u16);
        self.selected.map(usize::from)
    }

    /// The winner of the last [`RoundRobinArbiter::arbitrate`] this cycle.
    pub fn selected(&self) -> Option<usize> {
        self.selected.map(usize::from)
    }

    /// Commit the last grant: the pointer moves just past the winner (BookSim
    /// `UpdateState`). No effect if nothing was selected.
    pub fn update_state(&mut self) {
        if let Some(w) = self.selected {
            self.next = ((w as usize + 1) % N) as u16;
        }
    }

    /// Drop this cycle's requests and selection (BookSim `Clear`); the pointer stays.
    pub fn clear(&mut self) {
        self.requests = [None; N];
        self.selected = None;
    }

    /// The round-robin pointer: the input that wins ties next.
    pub const fn pointer(&self) -> usize {
        self.next as usize
    }

    /// Packed form: the pointer register.
    pub const fn pack(&self) -> u16 {
        self.next
    }

    /// An arbiter with no requests and the pointer from [`RoundRobinArbiter::pack`]; the
    /// error names `pointer` if it is not below `N`.
    pub const fn unpack(pointer: u16) -> Result<Self, ConfigError> {
        if pointer as usize >= N {
            return Err(ConfigError::new(
                "pointer",
                "not below the number of requesters N",
            ));
        }
        let mut a = Self::new();
        a.next = pointer;
        Ok(a)
    }
}

/// The clock edge ends the cycle: requests and the selection are cleared, the pointer kept.
impl<const N: usize> Clocked for RoundRobinArbiter<N> {
    #[inline]
    fn tick(&mut self) {
        self.clear();
    }

    #[inline]
    fn advance(&mut self, cycles: Cycles) {
        if cycles > 0 {
            self.clear();
        }
    }
}

impl<const N: usize> StateBudget for RoundRobinArbiter<N> {
    const NAME: &'static str = "Round-robin arbiter (BookSim2)";
    /// The pointer register: an index into `N` inputs.
    const BITS: u32 = bits_for(N as u64 - 1);
    const UNIT: &'static str = "per arbiter";
}

/// Width of the pointer field in the model (its type), in bits.
const POINTER_FIELD_BITS: u32 = crate::field_bits!(RoundRobinArbiter<2>, next);
// Packed form: the pointer register holds every index, and the packed word is the field.
const _: () = assert!(
    <RoundRobinArbiter<65536> as StateBudget>::BITS == POINTER_FIELD_BITS
        && POINTER_FIELD_BITS == u16::BITS
        && <RoundRobinArbiter<8> as StateBudget>::BITS == 3
        && <RoundRobinArbiter<1> as StateBudget>::BITS == 0
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::assert_advance_eq_ticks;
    use proptest::prelude::*;

    #[test]
    fn pointer_moves_only_on_update() {
        let mut a = RoundRobinArbiter::<4>::new();
        a.add_request(1, 0).unwrap();
        a.add_request(3, 0).unwrap();
        assert_eq!(a.arbitrate(), Some(1));
        assert_eq!(
            a.arbitrate(),
            Some(1),
            "arbitrate alone does not move the pointer"
        );
        assert_eq!(a.pointer(), 0);
        a.update_state();
        assert_eq!(a.pointer(), 2);
        assert_eq!(a.arbitrate(), Some(3));
        a.update_state();
        assert_eq!(a.pointer(), 0);
        a.tick();
        assert_eq!(a.selected(), None);
        assert_eq!(a.arbitrate(), None);
        a.update_state();
        assert_eq!(a.pointer(), 0, "no winner, no move");
    }

    #[test]
    fn priority_beats_pointer_and_errors_name_input() {
        let mut a = RoundRobinArbiter::<4>::unpack(1).unwrap();
        a.add_request(1, 0).unwrap();
        a.add_request(0, 2).unwrap();
        a.add_request(0, 1).unwrap(); // keeps the higher priority
        assert_eq!(a.arbitrate(), Some(0));
        assert_eq!(a.add_request(4, 0).unwrap_err().field, "input");
        assert_eq!(
            RoundRobinArbiter::<4>::unpack(4).unwrap_err().field,
            "pointer"
        );
        assert!(!a.is_requesting(2) && a.is_requesting(1) && !a.is_requesting(9));
    }

    proptest! {
        /// Every persistent requester (equal priorities) is granted within N updated rounds.
        #[test]
        fn persistent_requesters_granted_within_n_rounds(mask in 1u16.., ptr in 0u16..16,
                                                        others in proptest::collection::vec(any::<u16>(), 0..40)) {
            let mut a = RoundRobinArbiter::<16>::unpack(ptr).unwrap();
            // Some rounds of arbitrary traffic first, to reach an arbitrary pointer.
            for m in others {
                for i in 0..16 { if m >> i & 1 == 1 { a.add_request(i, 0).unwrap(); } }
                a.arbitrate();
                a.update_state();
                a.tick();
            }
            let mut last_grant = [None::<usize>; 16];
            for round in 0..3 * 16 {
                for i in 0..16 { if mask >> i & 1 == 1 { a.add_request(i, 0).unwrap(); } }
                let w = a.arbitrate().expect("someone requests");
                prop_assert!(mask >> w & 1 == 1, "grant {} to a non-requester", w);
                last_grant[w] = Some(round);
                a.update_state();
                a.tick();
                if round + 1 >= 16 {
                    for i in (0..16).filter(|i| mask >> i & 1 == 1) {
                        let g = last_grant[i];
                        prop_assert!(g.is_some_and(|g| round + 1 - g <= 16),
                                     "input {} starved at round {}: last grant {:?}", i, round, g);
                    }
                }
            }
        }

        /// The grant is always a requester of the highest requested priority.
        #[test]
        fn grant_is_a_top_priority_requester(reqs in proptest::collection::vec((0usize..8, any::<u8>()), 0..12),
                                             ptr in 0u16..8) {
            let mut a = RoundRobinArbiter::<8>::unpack(ptr).unwrap();
            for &(i, p) in &reqs { a.add_request(i, p).unwrap(); }
            match a.arbitrate() {
                None => prop_assert!(reqs.is_empty()),
                Some(w) => {
                    let top = reqs.iter().map(|r| r.1).max().unwrap();
                    prop_assert!(reqs.iter().any(|&(i, p)| i == w && p == top));
                }
            }
        }

        /// `advance(n)` equals `n` idle ticks from any state, pending requests included.
        #[test]
        fn advance_equals_idle_ticks(reqs in proptest::collection::vec(0usize..8, 0..8), ptr in 0u16..8,
                                     arb: bool, n in 0u64..50) {
            let mut a = RoundRobinArbiter::<8>::unpack(ptr).unwrap();
            for &i in &reqs { a.add_request(i, 0).unwrap(); }
            if arb { a.arbitrate(); }
            assert_advance_eq_ticks(&a, n);
        }

        #[test]
        fn pack_round_trips(ptr in 0u16..8) {
            let a = RoundRobinArbiter::<8>::unpack(ptr).unwrap();
            prop_assert_eq!(RoundRobinArbiter::<8>::unpack(a.pack()).unwrap(), a);
        }
    }
}
