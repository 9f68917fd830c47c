//! The skip itself (`../shared/papers/wormhole.md` 5.3, 6.2, 6.3): plan, freeze, wake-up,
//! skip-back and resume (shift) of a steady partition.
//!
//! * **Fast-forward** (5.3, 6.2, 6.3): when every flow of a partition is steady,
//!   [`skip::plan_skip`] gives the next interrupt: a flow's completion at its estimated
//!   rate (keeping `skip.reserve_bdps` BDPs of each flow for the packet level), a known event
//!   (the next timed arrival, a failure's start or end, the stop time) or the horizon
//!   ([`HORIZON_PS`]). The partition is *paused* at once ([`EventQueue::pause`]: its
//!   queues frozen with their occupancy, its events held) and a wake-up is scheduled at the
//!   interrupt. At the wake-up (or earlier, when a flow starting at `t2` needs one of its
//!   ports: the skip-back of 6.3, [`skip::skip_back`]) the partition resumes: each flow's
//!   sender drops the bytes it sent meanwhile at its estimated rate from its unsent part
//!   ([`crate::transport::TransportDriver::fast_forward`]: whole packets, or Uno's whole
//!   erasure-coded blocks), every absolute time the partition holds and its held events
//!   move by the time skipped ([`Sim::shift_state`], [`EventQueue::resume`]). Other
//!   partitions never see any of it.
//!   Pausing until the interrupt instead of shifting at the start makes skip-back a
//!   shorter resume: no event is ever moved back in time.
//! * **Block state advanced** (the "DCTCP / Uno window ... advanced consistently"):
//!   a DCTCP window that saw no ECN mark and no loss over the detector window grows by the
//!   skipped ACKs, unmarked ([`nic::transport::DctcpSender::fast_forward_acks`]), as the
//!   full run's does (a NIC-bound flow in congestion avoidance climbs one MSS per RTT with
//!   nothing marked; frozen, it met a later interrupt with less window than the full run's:
//!   session 25); a marked window (AIMD around a queue) is kept. UnoCC's windows:
//!   `uno_drift.rs`.

use super::*;

/// The skip horizon when no interrupt is foreseen (6.3: "a relatively large time"): 1 s.
pub const HORIZON_PS: u64 = 1_000_000_000_000;

/// A paused (skipped) partition.
#[derive(Debug, Clone)]
pub(super) struct Frozen {
    pub(super) plan: SkipPlan,
    pub(super) flows: Vec<SteadyFlow>,
    pub(super) ports: Vec<u32>,
    pub(super) flow_ids: Vec<u32>,
    /// Ports left running with their DATA lane held (they carry other partitions' ACKs).
    pub(super) live: Vec<u32>,
    /// The ACK load the partition's flows would put on ports of other partitions (port,
    /// bit/s), taken off those ports' line rate while it is skipped.
    pub(super) phantom: Vec<(u32, u64)>,
    /// Packets of the partition's flows that reached their host while it was skipped:
    /// (arrival time, host, packet), delivered again `delta` later when it resumes.
    pub(super) held: Vec<(Time, u32, Packet)>,
    /// `skip.held_occupancy`: the rate (bit/s) each held port's virtual DATA stream got.
    pub(super) virt: Vec<(u32, u64)>,
    /// A memo hit's transient: it ends at `.0` with the stored bytes `.1` per flow (in
    /// `flows` order); the plan's steady part (at `flows`' rates, from what is left after the
    /// transient) follows it. `None`: a steady skip only.
    pub(super) transient: Option<(Time, Vec<u64>)>,
    /// An interrupted-transient hit: the stored points (in `flows` order) up to the plan's
    /// end, read at a wake-up or skip-back for each flow's bytes and block state.
    pub(super) traj: Option<Trajectory>,
    /// A lockstep follower (`skip.memo_lockstep`): advanced at its wake-up by what its
    /// leader's flows have sent since it was paused.
    pub(super) follow: Option<Follow>,
    /// `skip.lockstep_shadow`: the follower's mirror entries (leader port, leader flow,
    /// follower port) in [`Wormhole::shadow`], taken out when it resumes.
    pub(super) shadow: Vec<(u32, u32, u32)>,
    /// `skip.nic_bound_exact`: a model skip by whole rounds of its host port ([`exact`]).
    pub(super) exact: Option<Exact>,
    /// UnoCC flows skipped with their window growing ([`UnoClass::grows`]), with their
    /// class: their windows take the skipped ACKs' additive increase when the partition
    /// resumes (a `Drift` flow's also counts as queue, [`Sampler::uno_grown`]).
    pub(super) growing: Vec<(u32, UnoClass)>,
}

impl Sim {
    /// Known future events (5.3): the next timed arrival, failures, the stop time.
    pub(super) fn known_events(&self) -> Vec<KnownEvent> {
        let mut k = Vec::new();
        if let Some(f) = self.flows.get(self.next_arrival) {
            if f.spec.start_ps != NEVER && f.spec.start_ps >= self.now {
                k.push(KnownEvent {
                    at_ps: f.spec.start_ps,
                    id: 0,
                });
            }
        }
        for (i, f) in self.failures.iter().enumerate() {
            for (j, t) in [Some(f.at), f.until].into_iter().enumerate() {
                if let Some(t) = t.filter(|&t| t >= self.now) {
                    k.push(KnownEvent {
                        at_ps: t,
                        id: 1 + 2 * i as u64 + j as u64,
                    });
                }
            }
        }
        if self.max_time != NEVER && self.max_time >= self.now {
            k.push(KnownEvent {
                at_ps: self.max_time,
                id: u64::MAX,
            });
        }
        k
    }

    /// The time of the earliest known future event (5.3's predetermined interrupts), or
    /// `NEVER`.
    pub(super) fn next_known_ps(&self) -> u64 {
        self.known_events()
            .iter()
            .map(|k| k.at_ps)
            .min()
            .unwrap_or(NEVER)
    }

    /// The fast-forward of `flows` to their next interrupt (6.3: a completion at the estimated
    /// rate or a known event, within the horizon and `limit`), if it skips at least one
    /// sampling interval.
    pub(super) fn plan_ahead(&self, flows: &[SteadyFlow], limit: u64) -> Option<SkipPlan> {
        let known = self.known_events();
        let horizon = self.now.saturating_add(HORIZON_PS).min(limit);
        let plan = skip::plan_skip(self.now, flows, &known, Some(horizon)).ok()??;
        let sample_ps = self.wh.as_ref()?.sample_ps;
        (plan.shift_ps() >= sample_ps).then_some(plan)
    }

    /// Fast-forward partition `id` (all its flows steady) if an interrupt lies ahead.
    pub(super) fn try_skip(&mut self, id: PartitionId) {
        let Some(w) = self.wh.as_ref() else { return };
        if !w.skip {
            return;
        }
        let est = |f: u32| w.active.get(&f).and_then(|s| s.estimate(w));
        let Some(mut flows) = self.steady_flows(id, est) else {
            return;
        };
        self.cap_at_data_ports(&mut flows);
        // A UnoCC window growing into queues: only until its growth could draw a mark.
        let limit = self.uno_window_limit(&flows);
        let w = self.wh.as_mut().expect("wormhole on");
        if limit < self.now.saturating_add(w.sample_ps) {
            w.st.uno_drift_held += 1;
            return;
        }
        let Some(mut plan) = self.plan_ahead(&flows, limit) else {
            return;
        };
        // A partition steady by `skip.nic_bound_samples`' model alone stores no memo entry:
        // its transient ends in a state the memo's key (the conflict graph of its DATA
        // ports) does not describe (the host's ACK load from flows of other partitions sets
        // its rate), so another partition with that key would take its rates.
        let w = self.wh.as_ref().expect("wormhole on");
        let by_model = w.nic_bound > 0
            && flows
                .iter()
                .any(|f| w.active.get(&f.flow).is_some_and(|s| s.model_only(w)));
        // `skip.nic_bound_exact`: by whole rounds of the host port ([`exact`]).
        let mut exact = None;
        if by_model && w.nic_exact {
            match self.exact_plan(id, &flows, &plan) {
                ExactPlan::Rounds(p, r) => {
                    plan = p;
                    exact = Some(r);
                }
                // No whole round before the interrupt: no skip (Eq. 6 may still find the
                // partition steady at a later tick).
                ExactPlan::NoSkip => {
                    self.wh.as_mut().expect("wormhole on").st.exact_no_round += 1;
                    return;
                }
                // Not exactly periodic: not skipped by the model either (measured: taking
                // such partitions at the model's rate, as without the field, adds 0.1-0.7
                // points of mean FCT error; `benches/README.md`, session 17b), unless
                // `skip.nic_bound_inexact` says to (session 28: at 6 us samples it skips
                // 10 % more at the same error).
                ExactPlan::NotApplicable => {
                    let w = self.wh.as_mut().expect("wormhole on");
                    w.st.exact_refused += 1;
                    if !w.nic_inexact {
                        return;
                    }
                }
            }
        }
        if by_model {
            self.wh.as_mut().expect("wormhole on").misses.remove(&id);
        } else {
            self.memo_insert(id, &flows);
        }
        let rates: Vec<(u32, u64)> = flows.iter().map(|f| (f.flow, f.rate_bps)).collect();
        self.freeze(id, plan, flows, None, None);
        if let Some(r) = exact {
            let w = self.wh.as_mut().expect("wormhole on");
            if let Some(fr) = w.frozen.get_mut(&id) {
                fr.exact = Some(r);
                w.st.exact_skips += 1;
            }
        }
        // A leader turned steady: its followers go on into the same steady state (3.2 step
        // 3, as a memo hit does).
        let w = self.wh.as_ref().expect("wormhole on");
        if w.leads.contains_key(&id) {
            let skipped = w.frozen.contains_key(&id);
            self.release_followers(id, skipped.then_some(rates));
        }
    }

    /// Pause partition `id` until `plan.until_ps` (a wake-up then).
    pub(super) fn freeze(
        &mut self,
        id: PartitionId,
        plan: SkipPlan,
        flows: Vec<SteadyFlow>,
        transient: Option<(Time, Vec<u64>)>,
        traj: Option<Trajectory>,
    ) {
        self.note_pauses(id);
        let classes: Vec<(u32, UnoClass)> = flows
            .iter()
            .filter_map(|f| Some((f.flow, self.uno_class_of(f.flow)?)))
            .collect();
        if classes.iter().any(|&(_, c)| c == UnoClass::Drift) {
            self.wh.as_mut().expect("wormhole on").st.uno_drift_skips += 1;
        }
        let growing: Vec<(u32, UnoClass)> =
            classes.into_iter().filter(|(_, c)| c.grows()).collect();
        let w = self.wh.as_ref().expect("wormhole on");
        // Ports carrying other partitions' ACKs keep running (DATA lane held); the rest
        // pause. A port whose driver serves its own queues cannot hold its DATA lane alone.
        let all_ports = w.all_ports;
        let purged = w.purged_any;
        let live = w.parts.foreign_ack_ports(id);
        let ports: Vec<u32> = w
            .parts
            .ports(id)
            .map(|p| {
                p.into_iter()
                    .filter(|p| live.binary_search(p).is_err())
                    .collect()
            })
            .unwrap_or_default();
        if live.iter().any(|&p| {
            let k = &self.ports[p as usize].kind;
            k.self_scheduled() || matches!(k, PortDriver::Pfabric(_))
        }) {
            return;
        }
        // The ACKs the skipped flows would send across other partitions' ports (one header
        // per DATA packet): that much of those ports' line rate stays taken.
        let mut phantom: BTreeMap<u32, u64> = BTreeMap::new();
        for f in &flows {
            let bps = (u128::from(f.rate_bps) * u128::from(w.hdr) / u128::from(w.mtu)) as u64;
            let ack = w.parts.ack_path(f.flow).unwrap_or_default();
            for p in ack.iter().filter(|p| ports.binary_search(p).is_err()) {
                if live.binary_search(p).is_err() {
                    *phantom.entry(*p).or_default() += bps;
                }
            }
        }
        let phantom: Vec<(u32, u64)> = phantom.into_iter().collect();
        let flow_ids: Vec<u32> = flows.iter().map(|f| f.flow).collect();
        for &p in &live {
            self.ports[p as usize].data_frozen = true;
        }
        // `skip.held_occupancy`: each held port's virtual DATA stream, at the summed rate
        // of the skipped flows whose DATA crosses it.
        let mut virt: Vec<(u32, u64)> = Vec::new();
        if w.held_occupancy {
            for &p in &live {
                let bps: u64 = flows
                    .iter()
                    .filter(|f| {
                        w.parts
                            .path(f.flow)
                            .is_some_and(|path| path.binary_search(&p).is_ok())
                    })
                    .map(|f| f.rate_bps)
                    .sum();
                if bps > 0 {
                    let port = &mut self.ports[p as usize];
                    if port.virt_bps == 0 {
                        port.virt_t0 = self.now;
                    }
                    port.virt_bps += bps;
                    virt.push((p, bps));
                }
            }
        }
        self.add_phantom(&phantom, true);
        // Under `all_ports` every port of the partition's flows is paused: none of their
        // packets can reach a host until it resumes, so deliveries need no check.
        self.set_wh_holding(!all_ports || purged);
        self.q.pause(id, shift::partition_set(&ports, &flow_ids));
        if self.trace.is_some() {
            let cause = match plan.cause {
                skip::Interrupt::Completion(f) => format!("completion_of_{f}"),
                skip::Interrupt::Known(_) => "known_event".to_string(),
                skip::Interrupt::Horizon => "horizon".to_string(),
            };
            self.trace_pause(id, &flow_ids, plan.until_ps, &cause);
        }
        let w = self.wh.as_mut().expect("wormhole on");
        self.q.push(plan.until_ps, Comp::new(Kind::Wormhole, WAKE));
        w.st.skips += 1;
        if transient.is_some() {
            w.st.memo_skips += 1;
        }
        if traj.is_some() {
            w.st.traj_skips += 1;
        }
        for f in &flows {
            if let Some(s) = w.active.get_mut(&f.flow) {
                // A stored transient's flows keep the rate weight they had (none is steady).
                if traj.is_none() {
                    s.hint = Some(f.rate_bps);
                }
            }
            w.active.set_frozen(f.flow, true);
        }
        for &p in ports.iter().chain(&live) {
            w.frozen_ports[p as usize] += 1;
        }
        w.frozen.insert(
            id,
            Box::new(Frozen {
                plan,
                flows,
                ports,
                flow_ids,
                live,
                phantom,
                held: Vec::new(),
                virt,
                transient,
                traj,
                follow: None,
                shadow: Vec::new(),
                exact: None,
                growing,
            }),
        );
    }

    /// Resume every skipped partition whose target time has come.
    pub(super) fn wh_wake(&mut self) {
        let now = self.now;
        let Some(w) = self.wh.as_ref() else { return };
        let due: Vec<PartitionId> = w
            .frozen
            .iter()
            .filter(|(_, fr)| fr.plan.until_ps <= now)
            .map(|(&id, _)| id)
            .collect();
        for id in due {
            self.thaw(id);
        }
    }

    /// Resume skipped partition `id` now: at its target time the plan's advance, earlier the
    /// skip-back's (6.3); its senders advanced, its times and held events shifted by the
    /// time skipped.
    pub(super) fn thaw(&mut self, id: PartitionId) {
        let now = self.now;
        let w = self.wh.as_mut().expect("wormhole on");
        let Some(fr) = w.frozen.remove(&id) else {
            return;
        };
        let fr = *fr;
        for &p in fr.ports.iter().chain(&fr.live) {
            w.frozen_ports[p as usize] -= 1;
        }
        if self.trace.is_some() {
            self.trace_resume(id, &fr.flow_ids, fr.plan.from_ps, fr.plan.until_ps);
        }
        let w = self.wh.as_mut().expect("wormhole on");
        for &f in &fr.flow_ids {
            w.active.set_frozen(f, false);
        }
        if !fr.shadow.is_empty() {
            // Its DATA lanes serve its own packets again: the placeholders left go.
            for &p in &fr.live {
                w.shadow_q.remove(&p);
            }
            self.shadow_unmap(id, &fr.shadow);
        }
        let w = self.wh.as_mut().expect("wormhole on");
        let mut cc: Vec<(u32, CcState)> = Vec::new();
        let advance = if let Some(fo) = &fr.follow {
            // A lockstep follower: each flow advanced by what its leader's flow got
            // acknowledged since the pause (simulated up to now, so causal), at most its
            // skippable bytes, with the leader flow's block state now. Acknowledged, not
            // sent: the follower keeps its own window in flight from the pause (6.2), so its
            // bytes still to deliver become the leader's (measured: crediting the new PSNs
            // sent made the followers 0.3-1.2 % slow, the acknowledged ones -0.5 to +0.65 %;
            // `benches/README.md` session 9).
            if let Some(v) = w.leads.get_mut(&fo.leader) {
                v.retain(|&x| x != id);
                if v.is_empty() {
                    w.leads.remove(&fo.leader);
                }
            }
            // Its samplers take the leader flows' last sample and rate weight too: the next
            // lookup keys the follower by the state it was advanced to.
            for (f, &lf) in fr.flows.iter().zip(&fo.lead_flows) {
                let lead = w.active.get(&lf).map(|s| (s.last_rate, s.hint));
                if let (Some((rate, hint)), Some(s)) = (lead, w.active.get_mut(&f.flow)) {
                    s.last_rate = rate;
                    s.hint = hint;
                }
            }
            let mtu = w.mtu;
            fr.flows
                .iter()
                .zip(fo.lead_flows.iter().zip(&fo.base))
                .map(|(f, (&lf, &base))| {
                    let Some(Cc::Dctcp(s)) = &self.flows[lf as usize].cc else {
                        return (f.flow, 0);
                    };
                    let acked = u64::from(s.regs().snd_una).saturating_sub(base);
                    if acked > 0 {
                        cc.push((f.flow, s.cc_state()));
                    }
                    (f.flow, acked.saturating_mul(mtu).min(f.skippable()))
                })
                .collect()
        } else if let Some(tr) = &fr.traj {
            // The stored points: at tick k = elapsed / tick, bytes interpolated to `now`
            // between k and k + 1, the block state of tick k (the start state before tick 1).
            if now < fr.plan.until_ps {
                w.st.skip_backs += 1;
            }
            let elapsed = now - fr.plan.from_ps;
            let k = ((elapsed / tr.tick_ps) as usize).min(tr.ticks());
            let part = elapsed - k as u64 * tr.tick_ps;
            fr.flows
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let at = |j: usize| if j == 0 { 0 } else { tr.bytes[i][j - 1] };
                    let mut b = at(k);
                    if k < tr.ticks() && part > 0 {
                        let next = at(k + 1).saturating_sub(b);
                        b += (u128::from(next) * u128::from(part) / u128::from(tr.tick_ps)) as u64;
                    }
                    if k > 0 {
                        cc.push((f.flow, tr.cc[i][k - 1]));
                    }
                    (f.flow, b)
                })
                .collect()
        } else if now >= fr.plan.until_ps {
            fr.plan.advance.clone()
        } else if let Some(x) = &fr.exact {
            // A skip-back of an exact skip: the whole rounds nearest to the time skipped.
            w.st.skip_backs += 1;
            w.st.exact_skip_backs += 1;
            let mtu = w.mtu;
            exact_back(x, &self.flows, &fr.flow_ids, now - fr.plan.from_ps)
                .into_iter()
                .map(|(f, n)| (f, n * mtu))
                .collect()
        } else if let Some((conv_until, bytes)) = &fr.transient {
            w.st.skip_backs += 1;
            let from = fr.plan.from_ps;
            if now < *conv_until {
                // A stored transient cut short: its bytes pro rata.
                let (done, all) = (now - from, conv_until - from);
                fr.flows
                    .iter()
                    .zip(bytes)
                    .map(|(f, &b)| {
                        (
                            f.flow,
                            (u128::from(b) * u128::from(done) / u128::from(all)) as u64,
                        )
                    })
                    .collect()
            } else {
                // The transient, then the steady part up to now at the end rates.
                fr.flows
                    .iter()
                    .zip(bytes)
                    .map(|(f, &b)| {
                        let steady =
                            skip::bytes_in(f.rate_bps, now - conv_until).min(f.skippable());
                        (f.flow, b + steady)
                    })
                    .collect()
            }
        } else {
            w.st.skip_backs += 1;
            match skip::skip_back(&fr.plan, &fr.flows, now) {
                Ok(SkipBack::Rollback { advance, .. }) => advance,
                _ => fr.plan.advance.clone(),
            }
        };
        let mtu = w.mtu;
        let delta = now - fr.plan.from_ps;
        w.st.skipped_ps += delta;
        // A steady skip (Eq. 6) of DCTCP flows: the windows that saw no ECN mark and no loss
        // over the detector window grow by the skipped ACKs, unmarked, as in the full run.
        let plain = fr.follow.is_none()
            && fr.traj.is_none()
            && fr.transient.is_none()
            && fr.exact.is_none()
            && w.window_climb;
        let l = w.samples;
        let mut skipped = 0;
        for (f, bytes) in advance {
            let n = self.fast_forward_flow(f, bytes / mtu, fr.plan.from_ps);
            skipped += n;
            let w = self.wh.as_ref().expect("wormhole on");
            if plain && w.active.get(&f).is_some_and(|s| !s.signalled(l)) {
                if let Some(Cc::Dctcp(s)) = &mut self.flows[f as usize].cc {
                    s.fast_forward_acks(u32::try_from(n).unwrap_or(u32::MAX), None);
                    let w = self.wh.as_mut().expect("wormhole on");
                    w.st.windows_grown += 1;
                }
            }
            if let Some(&(_, class)) = fr.growing.iter().find(|(g, _)| *g == f) {
                let before = self.transport.uno_window(f).map_or(0, |u| u.cwnd);
                self.transport.uno_fast_forward_unmarked(f, n, delta);
                let after = self.transport.uno_window(f).map_or(0, |u| u.cwnd);
                // A window-limited window's growth went into queues (frozen here); a
                // slack window's into room its NIC does not use.
                let w = self.wh.as_mut().expect("wormhole on");
                if let Some(s) = w.active.get_mut(&f).filter(|_| class == UnoClass::Drift) {
                    s.uno_grown += after.saturating_sub(before);
                }
            }
            if let Some(x) = &fr.exact {
                let flow = &mut self.flows[f as usize];
                let src = flow.spec.src;
                if let Some(Cc::Dctcp(s)) = &mut flow.cc {
                    // The window state as the full run's `n` ACKs leave it.
                    let at_ack = s.inflight_at_next_ack(x.period(src));
                    s.fast_forward_acks(u32::try_from(n).unwrap_or(u32::MAX), at_ack);
                }
            }
        }
        for (f, (cwnd, alpha, ss)) in cc {
            if let Some(Cc::Dctcp(s)) = &mut self.flows[f as usize].cc {
                s.set_cc_state(cwnd, alpha, ss);
            }
        }
        self.shift_state(&fr.ports, &fr.flow_ids, delta);
        self.q.resume(id, delta);
        self.last_progress = now;
        for &(p, bps) in &fr.virt {
            let port = &mut self.ports[p as usize];
            port.virt_bps = port.virt_bps.saturating_sub(bps);
        }
        if let Some(x) = &fr.exact {
            self.exact_release(x, delta);
        }
        for &p in &fr.live {
            self.release_held(p, &fr.flow_ids, delta);
        }
        self.add_phantom(&fr.phantom, false);
        let w = self.wh.as_mut().expect("wormhole on");
        w.st.skipped_packets += skipped;
        for (t, h, mut pk) in fr.held {
            self.transport.shift_packet(&mut pk, delta);
            let slot = match w.free_slots.pop() {
                Some(s) => {
                    w.redeliver[s as usize] = Some((h, pk));
                    s
                }
                None => {
                    w.redeliver.push(Some((h, pk)));
                    (w.redeliver.len() - 1) as u32
                }
            };
            self.q.push(
                t.saturating_add(delta),
                Comp::new(Kind::Wormhole, HELD0 + slot),
            );
        }
        let holding = (!w.all_ports && !w.frozen.is_empty()) || w.purged_any;
        self.set_wh_holding(holding);
        self.reset_partition(id);
    }
}
