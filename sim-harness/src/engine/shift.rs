//! Shifting part of a run in time (Wormhole's fast-forward, DESIGN.md "partition"): a set of
//! ports and flows is paused and moved `delta` ps later, its pending events with it
//! ([`crate::event::EventQueue::pause`] / `resume`), and so is every absolute time its state
//! holds: a port's line (`busy_until`), its pending `TxDone` / `Deliver`, the packets on its
//! link, its driver's clock (a switch port's, which its phantom queue's synced cycle counts
//! in; a DCSIM port's), the times its flows' packets carry in their headers for their
//! transport or metrics (every DATA's send stamp, Uno's echo of it, a pHost token's
//! expiry: [`crate::transport::TransportDriver::shift_packet`]); a
//! flow's NIC clock (the origin of its sender, load balancer and detector cycle counters)
//! and its timer; the transport's state of the flows and of the hosts whose NIC port is in
//! the set ([`crate::transport::TransportDriver::shift`]: a DCSIM host's clock, receiver
//! deadlines and timer; a Uno sender's send times, a receiver's block timers; a pHost
//! host's token scheduler and sender clocks and held tokens). The packets of the set's
//! flows carry their times along wherever they wait: on a link, in a port's lanes, or in
//! the queues of a port driver that keeps its own (DCSIM, pFabric). Which events
//! belong to the set is [`crate::event::Kind::owner`].
//!
//! Not shifted: flows not started (their start time stays), and the run-wide stall
//! deadline (`last_progress`, one for the whole run).

use super::*;
use crate::event::PartitionSet;

/// Partition id used by [`Sim::shift_partition`] while it holds the events.
const SHIFT_ID: u32 = u32::MAX;

impl Sim {
    /// Run until simulated time `t` (or an earlier stop), leaving the rest to a later
    /// [`Sim::run`].
    pub fn run_until(&mut self, t: Time, ctl: &RunControl) {
        let max = self.max_time;
        self.max_time = t.min(max);
        self.run(ctl);
        self.max_time = max;
    }

    /// Move ports `ports` and flows `flows` (a partition: flows sharing ports, transitively)
    /// `delta` ps later, now: their pending events and every absolute time they hold (see
    /// the module doc). Afterwards they behave as an unshifted run started `delta` later.
    pub fn shift_partition(&mut self, ports: &[u32], flows: &[u32], delta: Time) {
        self.q.pause(SHIFT_ID, partition_set(ports, flows));
        self.shift_state(ports, flows, delta);
        self.q.resume(SHIFT_ID, delta);
    }

    /// Move every absolute time ports `ports` and flows `flows` hold `delta` ps later (not
    /// their events: the caller has them paused in the queue, and resumes them by `delta`).
    pub(crate) fn shift_state(&mut self, ports: &[u32], flows: &[u32], delta: Time) {
        let later = |t: &mut Time| {
            if *t != NEVER {
                *t = t.saturating_add(delta);
            }
        };
        // Packets whose headers carry times read back (every DATA's send stamp, Uno's echo,
        // pHost's token expiry): those of the set's flows waiting in its ports, in their
        // drivers' queues or on their links move too.
        let stamped = self.transport.shifts_packets();
        let mut mine = Vec::new();
        if stamped {
            mine = flows.to_vec();
            mine.sort_unstable();
        }
        for &p in ports {
            let port = &mut self.ports[p as usize];
            port.busy_until = port.busy_until.saturating_add(delta);
            later(&mut port.txdone_at);
            later(&mut port.deliver_at);
            for (at, _) in port.link.iter_mut() {
                *at = at.saturating_add(delta);
            }
            port.kind.shift(delta);
            if stamped {
                let (link, ctrl, data) = (&mut port.link, &mut port.ctrl_q, &mut port.data_q);
                let pks = link
                    .iter_mut()
                    .map(|(_, pk)| pk)
                    .chain(ctrl.iter_mut())
                    .chain(data.iter_mut());
                for pk in pks.filter(|pk| mine.binary_search(&pk.flow).is_ok()) {
                    self.transport.shift_packet(pk, delta);
                }
                let transport = &self.transport;
                port.kind.for_each_packet_mut(|pk| {
                    if mine.binary_search(&pk.flow).is_ok() {
                        transport.shift_packet(pk, delta);
                    }
                });
            }
        }
        for &f in flows {
            let flow = &mut self.flows[f as usize];
            flow.clock.shift(delta);
            later(&mut flow.timer_at);
        }
        // A host's NIC port is port `h` (ports 0..hosts are the host NICs).
        let hosts: Vec<u32> = ports
            .iter()
            .copied()
            .filter(|&p| p < self.fabric.hosts)
            .collect();
        self.transport.shift(&hosts, flows, delta);
    }

    /// Delay every flow's start by `delta` ps (before the run): the whole run offset in time,
    /// to compare a shifted partition with.
    pub fn delay_starts(&mut self, delta: Time) {
        for f in &mut self.flows {
            f.spec.start_ps = f.spec.start_ps.saturating_add(delta);
        }
    }
}

/// The event-queue set of ports `ports` and flows `flows`.
pub(crate) fn partition_set(ports: &[u32], flows: &[u32]) -> PartitionSet {
    let mut set = PartitionSet::new();
    for &p in ports {
        set.add_port(p);
    }
    for &f in flows {
        set.add_flow(f);
    }
    set
}

impl Sim {
    /// Set flow `f`'s start time (before the run; for tests that need flows arriving at
    /// chosen times). Start times must stay in flow order (each flow's start at least its
    /// predecessor's and at most its successor's): refused, with the reason, otherwise,
    /// and for a started flow.
    pub fn set_flow_start(&mut self, f: u32, start_ps: Time) -> Result<()> {
        let bad = |why: String| Err(Error::field("flow", format!("flow {f}: {why}")));
        let i = f as usize;
        let Some(flow) = self.flows.get(i) else {
            return bad("no such flow".into());
        };
        if flow.cc.is_some() || flow.end_ps != 0 || start_ps == NEVER {
            return bad("already started, or no start time".into());
        }
        let prev = i.checked_sub(1).map_or(0, |j| self.flows[j].spec.start_ps);
        let next = self.flows.get(i + 1).map_or(NEVER, |x| x.spec.start_ps);
        if start_ps < prev || start_ps > next {
            return bad(format!(
                "start {start_ps} ps out of flow order ({prev}..={next} ps)"
            ));
        }
        self.flows[i].spec.start_ps = start_ps;
        self.cm = None;
        Ok(())
    }

    /// Give flow `f` (not started) the endpoints `src -> dst` and `bytes` bytes, keeping
    /// its start time (for tests and tools that need a traffic pattern no workload kind
    /// generates, e.g. partitions of chosen shapes). The collective metrics, built from the
    /// original specs, are dropped; a transport that sized the flow's record at setup (pHost,
    /// dcPIM) sizes it again (before session 21 they kept the old size: a pHost flow made
    /// 30 MB sent the old 1 MB). Refused (with the reason) for a started flow, an
    /// unknown host, a flow to itself, an empty message, or endpoints moved to or from an
    /// inter-DC pair of a `two_dc` fabric (whose timing is the pair's path's).
    pub fn set_flow(&mut self, f: u32, src: u32, dst: u32, bytes: u64) -> Result<()> {
        let hosts = self.fabric.hosts;
        let bad = |why: String| Err(Error::field("flow", format!("flow {f}: {why}")));
        let Some(flow) = self.flows.get_mut(f as usize) else {
            return bad("no such flow".into());
        };
        if flow.cc.is_some() || flow.end_ps != 0 {
            return bad("already started".into());
        }
        if src >= hosts || dst >= hosts || src == dst || bytes == 0 {
            return bad(format!(
                "{src} -> {dst} of {bytes} bytes (hosts 0..{hosts}, distinct, at least 1 byte)"
            ));
        }
        // A flow's base RTT, BDP, RTO and load-balancer timing were sized at build for its
        // endpoints: the same inside one datacenter, its own path's across two.
        let (old_src, old_dst) = (flow.spec.src, flow.spec.dst);
        let moved = (old_src, old_dst) != (src, dst);
        if moved && (self.fabric.is_inter(old_src, old_dst) || self.fabric.is_inter(src, dst)) {
            return bad(format!(
                "{old_src} -> {old_dst} cannot become {src} -> {dst}: an inter-DC flow's base \
                 RTT, BDP and timeouts are its path's, sized at build"
            ));
        }
        self.transport.respec(f, bytes)?;
        let flow = &mut self.flows[f as usize];
        flow.spec.src = src;
        flow.spec.dst = dst;
        flow.spec.bytes = bytes;
        self.cm = None;
        Ok(())
    }
}
