//! Phase 3, Grant 2: resolving sender-side conflicts (Algorithm 1 lines 21-24). "Approve one
//! grant from each sender's grant list. For the unapproved grants, the corresponding switch
//! ports are restored as unoccupied."

use super::{first_of_each_group, GrantList};
use crate::pod::Grant;
use crate::ports::PortStates;

/// The per-sender allocator.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grant2Allocator<const Q: usize> {
    requests: GrantList<Q>,
    grants: GrantList<Q>,
    released: GrantList<Q>,
}

impl<const Q: usize> Grant2Allocator<Q> {
    /// Empty allocator.
    pub const fn new() -> Self {
        Grant2Allocator {
            requests: GrantList::new(),
            grants: GrantList::new(),
            released: GrantList::new(),
        }
    }
    /// Forget last iteration's state.
    pub fn clear(&mut self) {
        self.requests.clear();
        self.grants.clear();
        self.released.clear();
    }
    /// Add one Grant-1 result.
    pub fn add_request(&mut self, g: Grant) {
        self.requests.push(g);
    }
    /// Arbitrate: the most urgent grant of each sender (`n` hosts per pod).
    pub fn allocate(&mut self, n: usize) {
        self.requests.sort_by_key(|g| (g.sender_slot(n), g.key));
        let (grants, released) = (&mut self.grants, &mut self.released);
        first_of_each_group(
            self.requests.as_slice(),
            |g| g.sender_slot(n),
            |g| grants.push(*g),
            |g| released.push(*g),
        );
    }
    /// UpdateState: ReleasePorts of the unapproved grants (line 24).
    pub fn update_state<const M: usize>(&self, ports: &mut PortStates<M>) {
        for g in self.released.as_slice() {
            ports.release(g);
        }
    }
    /// The grants `G2`.
    pub fn grants(&self) -> &[Grant] {
        self.grants.as_slice()
    }
}
