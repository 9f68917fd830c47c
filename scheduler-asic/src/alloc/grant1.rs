//! Phase 2, Grant 1: resolving switch-port conflicts (Algorithm 1 lines 16-19). "For each Agg
//! switch with multiple requests, we allocate its available ports to requests" in priority
//! order: a request wins if its Agg input port and output port are both still free.

use super::GrantList;
use crate::pod::Grant;
use crate::ports::PortStates;

/// The per-Agg port allocator.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grant1Allocator<const Q: usize> {
    requests: GrantList<Q>,
    grants: GrantList<Q>,
}

impl<const Q: usize> Grant1Allocator<Q> {
    /// Empty allocator.
    pub const fn new() -> Self {
        Grant1Allocator {
            requests: GrantList::new(),
            grants: GrantList::new(),
        }
    }
    /// Forget last iteration's requests and grants.
    pub fn clear(&mut self) {
        self.requests.clear();
        self.grants.clear();
    }
    /// Add one request (from the Request phase).
    pub fn add_request(&mut self, g: Grant) {
        self.requests.push(g);
    }
    /// Arbitrate: per Agg, in key order, grant requests whose ports are free in `ports`.
    pub fn allocate<const M: usize>(&mut self, ports: &PortStates<M>) {
        self.requests.sort_by_key(|g| (g.agg, g.key));
        let mut s = *ports;
        for g in self.requests.as_slice() {
            if s.is_free(g) {
                s.occupy(g);
                self.grants.push(*g);
            }
        }
    }
    /// UpdateState: MarkOccupied for every grant (line 19).
    pub fn update_state<const M: usize>(&self, ports: &mut PortStates<M>) {
        for g in self.grants.as_slice() {
            ports.occupy(g);
        }
    }
    /// The requests `Req` of this iteration.
    pub fn requests(&self) -> &[Grant] {
        self.requests.as_slice()
    }
    /// The grants `G1`.
    pub fn grants(&self) -> &[Grant] {
        self.grants.as_slice()
    }
    /// Requests / grants refused for lack of capacity.
    pub fn overflow(&self) -> u32 {
        self.requests.overflow + self.grants.overflow
    }
}
