//! Phase 4, Accept: resolving receiver-side conflicts (Algorithm 1 lines 26-29). "Choose one
//! grant to accept from each receiver's grant list. For the unapproved grants, the
//! corresponding ports are also restored as unoccupied."

use super::{first_of_each_group, GrantList};
use crate::pod::Grant;
use crate::ports::PortStates;

/// The per-receiver allocator.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AcceptAllocator<const Q: usize> {
    requests: GrantList<Q>,
    accepted: GrantList<Q>,
    released: GrantList<Q>,
}

impl<const Q: usize> AcceptAllocator<Q> {
    /// Empty allocator.
    pub const fn new() -> Self {
        AcceptAllocator {
            requests: GrantList::new(),
            accepted: GrantList::new(),
            released: GrantList::new(),
        }
    }
    /// Forget last iteration's state.
    pub fn clear(&mut self) {
        self.requests.clear();
        self.accepted.clear();
        self.released.clear();
    }
    /// Add one Grant-2 result.
    pub fn add_request(&mut self, g: Grant) {
        self.requests.push(g);
    }
    /// Arbitrate: the most urgent grant of each receiver (`n` hosts per pod).
    pub fn allocate(&mut self, n: usize) {
        self.requests.sort_by_key(|g| (g.receiver_slot(n), g.key));
        let (acc, rel) = (&mut self.accepted, &mut self.released);
        first_of_each_group(
            self.requests.as_slice(),
            |g| g.receiver_slot(n),
            |g| acc.push(*g),
            |g| rel.push(*g),
        );
    }
    /// UpdateState: ReleasePorts of the unaccepted grants (line 29).
    pub fn update_state<const M: usize>(&self, ports: &mut PortStates<M>) {
        for g in self.released.as_slice() {
            ports.release(g);
        }
    }
    /// `Accept`: this iteration's scheduled demands and paths.
    pub fn grants(&self) -> &[Grant] {
        self.accepted.as_slice()
    }
}
