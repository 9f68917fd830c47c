//! Incremental port-level partitions (`../shared/papers/wormhole.md` Def. 1, Appendix E):
//! flows join a partition at their start and leave at their completion, each change an
//! interrupt of the partition (5.3).
//!
//! * **Partitions** (Def. 1, Appendix E, [`Partitions`]): a flow's path is every output
//!   port its DATA can use ([`Sim::flow_ports`]: the ECMP path, or with per-packet spraying
//!   every up port a tree route offers) and, with `skip.partition_by = "all_ports"` (the
//!   default), every port its ACKs / NACKs use on the way back; with `"data_ports"` those
//!   ACK ports are indexed but do not merge partitions. Flows join at their start (merge)
//!   and leave at their completion (split).
//! * **Foreign ACK interrupts** (`data_ports`, `skip.foreign_ack_interrupts`, beyond 5.3):
//!   a flow starting or completing whose ACKs cross DATA ports of other partitions
//!   interrupts them ([`Sim::foreign_ack_interrupt`]).

use super::*;

/// A flow's ECMP path both ways, as [`Sim::credit_skipped_links`] credits it (each port
/// once, ascending).
#[derive(Debug, Clone)]
pub(super) struct CreditPaths {
    data: Vec<u32>,
    acks: Vec<u32>,
}

impl Sim {
    /// The output ports flow `f`'s packets can use (the flow's ECMP entropy both ways, or
    /// every up port under per-packet spraying and under DCSIM, whose SIMs draw fresh EVs):
    /// (its partition path, its other ACK ports).
    /// With `partition_by = "data_ports"` the DATA path and the ACK path; with `"all_ports"`
    /// both in the path.
    pub(crate) fn flow_ports(&self, f: u32) -> (Vec<u32>, Vec<u32>) {
        let flow = &self.flows[f as usize];
        let ev = self.single_path_ev(f);
        let all = self.wh.as_ref().is_some_and(|w| w.all_ports);
        let mut data = std::collections::BTreeSet::new();
        let mut acks = std::collections::BTreeSet::new();
        self.walk(flow.spec.src, flow.spec.dst, ev, &mut data);
        self.walk(
            flow.spec.dst,
            flow.spec.src,
            ev,
            if all { &mut data } else { &mut acks },
        );
        (data.into_iter().collect(), acks.into_iter().collect())
    }

    /// Flow `f`'s ECMP entropy when all its packets take one path both ways; `None` when
    /// they are sprayed (a per-packet load balancer, or DCSIM, which draws a fresh EV for
    /// each SIM, its DATA following, and for each DATA-ACK, or pHost, which draws one for
    /// each RTS, token and DONE, whatever `transport.lb` says).
    fn single_path_ev(&self, f: u32) -> Option<u16> {
        use crate::transport::TransportDriver;
        if matches!(
            self.transport,
            TransportDriver::Dcsim(_) | TransportDriver::Phost(_)
        ) {
            return None;
        }
        match &self.flows[f as usize].lb {
            Lb::Ecmp(e) => Some(e.ev()),
            _ => None,
        }
    }

    /// `wire` DATAs of `payload` bytes of flow `f`, and their ACKs, crossed its ports while
    /// its partition was skipped (Wormhole 6.2's fast-forward): counted in `links.csv`
    /// (`tx_bytes`, `tx_packets`, and so `utilization`; kept in `link_credit`, apart from the
    /// port's counters) on each port of its ECMP path both
    /// ways, as the full run counts them. A flow sprayed per packet has no single path
    /// (which up ports its skipped packets would have taken is not known): not counted.
    pub(crate) fn credit_skipped_links(&mut self, f: u32, wire: u64, payload: u64) {
        let Some(ev) = self.single_path_ev(f) else {
            return;
        };
        if wire == 0 {
            return;
        }
        let i = f as usize;
        let cached = self
            .wh
            .as_ref()
            .and_then(|w| w.credit_paths.get(i))
            .is_some_and(|c| c.as_ref().is_some_and(|(e, _)| *e == ev));
        if !cached {
            let flow = &self.flows[i];
            let (src, dst) = (flow.spec.src, flow.spec.dst);
            let (mut data, mut acks) = (Default::default(), Default::default());
            self.walk(src, dst, Some(ev), &mut data);
            self.walk(dst, src, Some(ev), &mut acks);
            let paths = CreditPaths {
                data: data.into_iter().collect(),
                acks: acks.into_iter().collect(),
            };
            let n_flows = self.flows.len();
            let Some(w) = self.wh.as_mut() else { return };
            if w.credit_paths.len() < n_flows {
                w.credit_paths.resize_with(n_flows, || None);
            }
            w.credit_paths[i] = Some((ev, Box::new(paths)));
        }
        let hdr = u64::from(self.hdr_bytes);
        let n_ports = self.ports.len();
        let Some(w) = self.wh.as_mut() else { return };
        if w.link_credit.is_empty() {
            w.link_credit = vec![(0, 0); n_ports];
        }
        let Some(Some((_, paths))) = w.credit_paths.get(i) else {
            return;
        };
        for (ports, bytes) in [(&paths.data, payload + hdr), (&paths.acks, hdr)] {
            for &p in ports {
                let c = &mut w.link_credit[p as usize];
                c.0 += wire;
                c.1 += wire * bytes;
            }
        }
    }

    /// Port `p`'s `(tx_packets, tx_bytes)` for `links.csv`: what it sent, plus what skipped
    /// flows would have sent across it ([`Sim::credit_skipped_links`]).
    pub(crate) fn link_tx(&self, p: usize) -> (u64, u64) {
        let port = &self.ports[p];
        let (n, b) = self
            .wh
            .as_ref()
            .and_then(|w| w.link_credit.get(p).copied())
            .unwrap_or((0, 0));
        (port.tx_packets + n, port.tx_bytes + b)
    }

    pub(super) fn walk(
        &self,
        src: u32,
        dst: u32,
        ev: Option<u16>,
        out: &mut std::collections::BTreeSet<u32>,
    ) {
        let mut todo = vec![src];
        // One buffer for every hop's choices.
        let mut next = Vec::new();
        out.insert(src);
        while let Some(p) = todo.pop() {
            let Node::Switch(s) = self.ports[p as usize].peer else {
                continue;
            };
            let (route, seed) = self.switches[s as usize];
            next.clear();
            match ev {
                Some(ev) => next.extend(route.select(src, dst, ev, seed)),
                // Every entropy: every port `select` may choose (a border switch: all its
                // ports).
                None if matches!(route, Route::Tree { .. }) => {
                    if let Some((first, n)) = route.choices(dst) {
                        next.extend(first..first + n);
                    }
                }
                None => {
                    let sw = &self.fabric.switches[s as usize];
                    next.extend(sw.first_port..sw.first_port + sw.n_ports);
                }
            }
            for &n in &next {
                if out.insert(n) {
                    todo.push(n);
                }
            }
        }
    }

    /// Flow `f` starts now (before its transport opens): resume every skipped partition it
    /// touches (skip-back), join the partitions, reset detectors, look the new unsteady
    /// period up in the memo.
    pub(in crate::engine) fn wh_flow_start(&mut self, f: u32) {
        let (ports, acks) = self.flow_ports(f);
        if self.wh.as_ref().is_some_and(|w| w.nic_exact) {
            self.exact_split(f, &ports, &acks);
        }
        let Some(w) = self.wh.as_mut() else { return };
        let mut touched: Vec<PartitionId> = ports
            .iter()
            .filter_map(|&p| w.parts.partition_of_port(p))
            .filter(|id| w.frozen.contains_key(id))
            .collect();
        // A follower kept paused across a completion (`skip.lockstep_stay`) keeps the ports
        // it was paused with, which may have left its partition: a flow starting on one
        // resumes it too, or that port would be paused twice (its events held by one
        // partition, its state shifted by both: a `Deliver` lost, the link never served).
        // Its ACKs need the paused ports of a skipped partition: resume it too. (Only when
        // a skipped partition holds one of its ports at all.)
        let held = |p: &u32| w.frozen_ports[*p as usize] > 0;
        if ports.iter().any(held) {
            touched.extend(
                w.frozen
                    .iter()
                    .filter(|(_, fr)| {
                        ports.iter().any(|p| {
                            fr.ports.binary_search(p).is_ok() || fr.live.binary_search(p).is_ok()
                        })
                    })
                    .map(|(&id, _)| id),
            );
        }
        if acks.iter().any(held) {
            touched.extend(
                w.frozen
                    .iter()
                    .filter(|(_, fr)| acks.iter().any(|p| fr.ports.binary_search(p).is_ok()))
                    .map(|(&id, _)| id),
            );
        }
        // `data_ports`: its ACKs load a DATA port of a skipped partition (a held one too):
        // that partition's rates change, so it resumes ([`Sim::foreign_ack_interrupt`]).
        touched.extend(
            acks.iter()
                .filter(|_| w.foreign_acks)
                .filter_map(|&p| w.parts.partition_of_port(p))
                .filter(|id| w.frozen.contains_key(id)),
        );
        touched.sort_unstable();
        touched.dedup();
        for id in touched {
            self.note_refollow(id);
            self.thaw(id);
        }
        let w = self.wh.as_ref().expect("checked");
        for id in w.parts.partitions_of_ports(&ports) {
            self.traj_store(id);
        }
        let w = self.wh.as_mut().expect("checked");
        let change = w
            .parts
            .start_flow_acks(f, &ports, &acks)
            .expect("a flow starts once");
        w.ports[f as usize] = ports;
        w.started += 1;
        let spec = &self.flows[f as usize].spec;
        let (src, dst) = (spec.src as usize, spec.dst as usize);
        w.host_out[src] += 1;
        w.host_in[dst] += 1;
        w.flows_per_port_max = w
            .flows_per_port_max
            .max(w.host_out[src])
            .max(w.host_in[dst]);
        w.active.insert(
            f,
            Sampler::new(SteadyDetector::new(w.theta, w.samples).expect("checked by validate")),
        );
        w.st.partitions_max = w.st.partitions_max.max(w.parts.ids().count() as u64);
        let id = match change {
            Change::Merged { into, absorbed } => {
                for a in absorbed {
                    w.misses.remove(&a);
                    w.lookups.remove(&a);
                }
                into
            }
            Change::Created(id) | Change::Joined(id) => id,
            _ => unreachable!("start_flow creates, joins or merges"),
        };
        self.reset_partition(id);
        self.foreign_ack_interrupt(&acks);
    }

    /// `skip.partition_by = "data_ports"` (beyond `../shared/papers/wormhole.md` 5.3): a
    /// flow starting or completing whose ACKs cross DATA ports of other partitions is an
    /// interrupt of those partitions too. Its ACKs take (or give back) `hdr / mtu` of such a
    /// port's line rate, so a flow bottlenecked there changes rate (measured: ~1.5 % on a
    /// host port) although no partition merges or splits; Eq. 6's window (theta 0.05 in W2)
    /// does not see a step that small, and a skip planned at the old rate would run on at it.
    /// So each such partition's detectors restart (a skipped one was resumed by the caller:
    /// a skip-back) and its pending memo miss is dropped (its key was taken in the old ACK
    /// context; the memo key counts foreign ACK streams, [`Sim::conflict_graph`]). Under
    /// `all_ports` a flow has no separate ACK ports (they merge partitions): a no-op.
    pub(super) fn foreign_ack_interrupt(&mut self, acks: &[u32]) {
        let w = self.wh.as_ref().expect("wormhole on");
        if acks.is_empty() || !w.foreign_acks {
            return;
        }
        for id in w.parts.partitions_of_ports(acks) {
            self.interrupt_partition(id);
            let w = self.wh.as_mut().expect("wormhole on");
            w.misses.remove(&id);
            w.st.foreign_ack_interrupts += 1;
        }
    }

    /// Flow `f`'s transport has opened: its partition begins an unsteady period, looked up
    /// in the memo at the next sampling tick (flows that start together, as a collective's
    /// do, make one lookup).
    pub(in crate::engine) fn wh_flow_opened(&mut self, f: u32) {
        if let Some(w) = self.wh.as_mut().filter(|w| w.skip) {
            if let Some(id) = w.parts.partition_of_flow(f) {
                w.lookups.insert(id);
            }
        }
    }

    /// An interrupt not known in advance reaches partition `id` (5.3): resumed if skipped
    /// (a skip-back, 6.3; the resume resets its detectors), else its detectors reset.
    pub(super) fn interrupt_partition(&mut self, id: PartitionId) {
        if self.wh.as_ref().is_some_and(|w| w.frozen.contains_key(&id)) {
            self.note_refollow(id);
            self.thaw(id);
        } else {
            self.reset_partition(id);
        }
    }

    /// Reset the detectors of partition `id`'s flows (an interrupt, 5.3).
    pub(super) fn reset_partition(&mut self, id: PartitionId) {
        let w = self.wh.as_mut().expect("wormhole on");
        let Some(flows) = w.parts.flows(id) else {
            return;
        };
        for f in flows {
            if let Some(s) = w.active.get_mut(f) {
                s.det.reset();
                s.last = None;
                s.steady = false;
                s.hist.clear();
                s.model = None;
            }
        }
    }

    pub(super) fn wh_completions(&mut self) {
        let w = self.wh.as_mut().expect("wormhole on");
        w.done_seen = self.flows_done;
        let done: Vec<u32> = w
            .active
            .keys()
            .copied()
            .filter(|&f| self.flows[f as usize].end_ps != 0)
            .collect();
        for f in done {
            if let Some(id) = self.wh.as_ref().and_then(|w| w.parts.partition_of_flow(f)) {
                self.lockstep_complete(id, f);
                self.traj_store(id);
                if let Some(w) = self.wh.as_mut().filter(|w| w.lockstep_stay) {
                    w.keep.clear();
                }
            }
            let w = self.wh.as_mut().expect("wormhole on");
            w.active.remove(&f);
            let spec = &self.flows[f as usize].spec;
            w.host_out[spec.src as usize] -= 1;
            w.host_in[spec.dst as usize] -= 1;
            if let Some(id) = w.parts.partition_of_flow(f) {
                w.misses.remove(&id);
                w.lookups.remove(&id);
            }
            // A flow whose transport still acts for it (pHost: its sender waits for the
            // DONE, with an RTS re-send timer armed) stays in its partition until it stops
            // (`wh_lingering`); its task ends now.
            if self.transport.lingers(f) {
                w.lingering.push(f);
            } else {
                self.wh_leave(f);
            }
            let w = self.wh.as_mut().expect("wormhole on");
            if let Some(d) = w.dag.as_ref() {
                let t = d.flow_task[f as usize];
                self.task_end(t);
            }
        }
        // Follower flows completed with their leader's (`skip.lockstep_complete`) leave now
        // too, so their successors start at the same instant as the leader's.
        if self
            .wh
            .as_ref()
            .is_some_and(|w| w.lockstep_complete && w.done_seen != self.flows_done)
        {
            self.wh_completions();
        }
    }

    /// Completed flows kept in their partitions while their transport still acted for them
    /// ([`crate::transport::TransportDriver::lingers`]) leave once it stops. Their packets
    /// cross the partition's ports and their timers would fire while it is skipped; as
    /// members they pause with it (measured before: on GPT-128 paper size under pHost a
    /// completed flow's DONE, released into a skipped partition's ToR port, started there
    /// and left the port's line busy for the skip's length again once resumed: a 196 MB
    /// flow 86 % late, the iteration 10 %; a ring flow's RTS re-sent into a skipped host
    /// port, 11 % late).
    pub(super) fn wh_lingering(&mut self) {
        let w = self.wh.as_mut().expect("wormhole on");
        let mut gone = Vec::new();
        let transport = &self.transport;
        w.lingering.retain(|&f| {
            let stays = transport.lingers(f);
            if !stays {
                gone.push(f);
            }
            stays
        });
        for f in gone {
            self.wh_leave(f);
        }
    }

    /// Completed flow `f` leaves its partition (Appendix E's split), which begins a new
    /// unsteady period.
    fn wh_leave(&mut self, f: u32) {
        let w = self.wh.as_mut().expect("wormhole on");
        let acks: Vec<u32> = if w.all_ports || !w.foreign_acks {
            Vec::new()
        } else {
            w.parts.ack_path(f).map(<[u32]>::to_vec).unwrap_or_default()
        };
        let change = w.parts.finish_flow(f).expect("an active flow");
        // A follower kept paused across a completion (`skip.lockstep_stay`) whose
        // partition splits resumes: its paused set is no longer one partition.
        // A leader that splits releases the followers it kept: its flows are no longer
        // one partition, so their completions would not reach them.
        if let Change::Split { kept, .. } = &change {
            let kept = *kept;
            if w.lockstep_stay && w.frozen.contains_key(&kept) {
                self.thaw(kept);
            }
            if self
                .wh
                .as_ref()
                .is_some_and(|w| w.lockstep_stay && w.leads.contains_key(&kept))
            {
                self.release_followers(kept, None);
            }
        }
        let ids = match change {
            Change::Shrunk(id) => vec![id],
            Change::Split { kept, new } => {
                let mut v = vec![kept];
                v.extend(new);
                v
            }
            _ => Vec::new(),
        };
        for id in ids {
            self.reset_partition(id);
            // A new unsteady period of what is left (3.2 step 7): looked up at the next
            // tick, like an arrival's.
            let w = self.wh.as_mut().expect("wormhole on");
            if w.skip {
                w.lookups.insert(id);
            }
        }
        self.foreign_ack_interrupt(&acks);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Sim;
    use crate::scenario::Scenario;

    /// A skipped flow's `links.csv` credit ([`Sim::credit_skipped_links`]) shows in
    /// [`Sim::link_tx`] on every port of its path, but never in the ports' own counters,
    /// which count what was simulated: the exact NIC-bound skip measures its host ports'
    /// rounds from those (with the credit in them, paper-size W2 + `held_occupancy` +
    /// `nic_bound_samples = 2` exact moved from 0.646 % to 0.928 % mean FCT error).
    #[test]
    fn skipped_link_credit_leaves_the_ports_own_counters() {
        let mut s = Scenario::default();
        s.skip.enabled = true;
        s.transport.lb = crate::scenario::LbKind::Ecmp;
        crate::validate::validate(&s).unwrap();
        let mut sim = Sim::build(&s).unwrap();
        let own = |sim: &Sim| -> Vec<(u64, u64)> {
            sim.ports
                .iter()
                .map(|p| (p.tx_packets, p.tx_bytes))
                .collect()
        };
        let before = own(&sim);
        let (src, dst) = (sim.flows[0].spec.src, sim.flows[0].spec.dst);
        sim.credit_skipped_links(0, 10, 4096);
        assert_eq!(own(&sim), before, "the ports' own counters moved");
        let credited: Vec<usize> = (0..sim.ports.len())
            .filter(|&p| sim.link_tx(p) != before[p])
            .collect();
        // Both directions of the flow's path: at least its two host ports.
        assert!(credited.contains(&(src as usize)), "{credited:?}");
        assert!(credited.contains(&(dst as usize)), "{credited:?}");
        let hdr = u64::from(sim.hdr_bytes);
        assert_eq!(sim.link_tx(src as usize), (10, 10 * (4096 + hdr)));
        assert_eq!(sim.link_tx(dst as usize), (10, 10 * hdr));
    }
}
