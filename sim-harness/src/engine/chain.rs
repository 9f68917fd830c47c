//! Self-clocked flow starts (`workload.self_clocked`, the REPS artifact's AllToAll with n
//! parallel connections, `crate::workload::ai`): flows without a start time wait in their
//! sending host's queue, in workload order, and a host opens the next one when one of its
//! flows completes. A completion (reported by the transport through
//! `transport::ctx::Cx::flow_done`) queues an `Arrivals` event at the same time, so the new
//! flow opens after the event that completed the old one, outside the transport.

use super::*;

/// Waiting flows per host, and the completions not yet acted on.
#[derive(Debug, Default)]
pub(crate) struct Chain {
    /// Per host: its waiting flows (engine indices), the next first.
    waiting: Vec<VecDeque<u32>>,
    /// Flows completed since the last `Arrivals` event.
    pub(crate) done: Vec<u32>,
    /// Flows opened by a completion (the stall check counts them as arrived).
    pub(crate) opened: usize,
}

/// `Comp` index of the `Arrivals` event a completion queues (0: the timed arrivals).
pub(crate) const CHAIN_ARRIVALS: u32 = 1;

impl Chain {
    /// The chain of `flows` (sorted by start time; those at [`NEVER`] wait) on `hosts` hosts;
    /// `None` when every flow has a start time.
    pub(crate) fn new(flows: &[FlowRt], hosts: usize) -> Option<Box<Chain>> {
        let mut c = Chain {
            waiting: vec![VecDeque::new(); hosts],
            ..Chain::default()
        };
        let mut any = false;
        for (i, f) in flows.iter().enumerate() {
            if f.spec.start_ps == NEVER {
                c.waiting[f.spec.src as usize].push_back(i as u32);
                any = true;
            }
        }
        any.then(|| Box::new(c))
    }
}

impl Sim {
    /// For each flow completed since the last call, its host opens its next waiting flow.
    pub(super) fn chain_arrivals(&mut self) {
        let Some(c) = self.chain.as_deref_mut() else {
            return;
        };
        let done = std::mem::take(&mut c.done);
        let mut open = Vec::with_capacity(done.len());
        for f in done {
            let src = self.flows[f as usize].spec.src as usize;
            if let Some(next) = c.waiting[src].pop_front() {
                c.opened += 1;
                open.push(next);
            }
        }
        for f in open {
            self.flows[f as usize].spec.start_ps = self.now;
            self.last_progress = self.now;
            self.transport_open(f);
        }
    }
}
