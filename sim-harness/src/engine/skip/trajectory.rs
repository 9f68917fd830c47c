//! Interrupted transients (`skip.memo_interrupted`, dcfab's extension of
//! `../shared/papers/wormhole.md` 4.3-4.4): recording, storing and replaying a transient
//! that an interrupt ends before any steady state.
//!
//! * **Interrupted transients** (`skip.memo_interrupted`, off by default; dcfab's extension
//!   of 4.3-4.4, [`Trajectory`]). The paper stores a transient when its partition turns
//!   steady or meets a flow completion (4.3) and skips only up to that end. Here a steady-memo
//!   miss is also looked up, [`TRAJ_DELAY_TICKS`] later, in a second database keyed by the
//!   conflict graph with each flow weighted by its *start state* ([`state_class`]: the
//!   rate class of its last sample, as in 4.2, plus its DCTCP cwnd, alpha and slow-start
//!   flag, beyond the paper). A miss records, at every tick, each flow's new packets sent
//!   and cc state; when an interrupt (a flow joining, leaving, or merging the partition)
//!   ends the period before any steady state, the points are stored. A hit pauses the
//!   partition for as many stored ticks as every flow's skippable bytes and the known events
//!   allow; at the wake-up, or at a skip-back by an arrival (6.3, bytes interpolated
//!   between ticks), each flow is advanced by the stored bytes and takes the stored cwnd,
//!   alpha and slow-start flag ([`nic::transport::DctcpSender::set_cc_state`]). What is
//!   not carried: the window in flight and the queues keep their state from the skip's
//!   start (6.2), so a transient that fills a pipeline is replayed with its start's
//!   in-flight data; crediting the stored *sent* packets (not the acknowledged ones) is the
//!   closer choice (measured). Two transients with the same start classes but another
//!   phase within a tick are taken for the same. Measured (`benches/README.md`, session
//!   7): on the shipped LLM scenarios it gains nothing (the pipeline partitions chain
//!   through ACK ports under `all_ports` and rarely repeat), hence off.

use super::*;

/// Longest transient (sampling ticks) recorded for the interrupted-transient memo: a
/// partition unsteady for longer is not stored.
pub const TRAJ_MAX_TICKS: usize = 400;

/// Ticks between a steady-memo miss and its interrupted-transient lookup: the lookup sees
/// each new flow's first rate sample (measured on paper-size GPT-13B / 128: 1, 2 and 3
/// ticks give the same events within 4 %, `benches/README.md` session 7).
pub const TRAJ_DELAY_TICKS: u32 = 1;

/// An interrupted-transient vertex weight: rate class `rc` (bits 0-4), the cwnd in
/// half-octaves of `mtu` (bits 5-10), alpha in quarters of 1.0 (bits 11-13), slow start
/// (bit 14).
pub(super) fn state_class(rc: u32, (cwnd, alpha, ss): CcState, mtu: u64) -> u32 {
    let pkts = (u64::from(cwnd) / mtu.max(1)).max(1);
    // 2 log2(pkts), rounded down to half-octaves: floor(log2(pkts^2)).
    let cw = (63 - pkts.saturating_mul(pkts).leading_zeros()).min(63);
    let a = (alpha >> 14).min(4);
    rc.min(31) | cw << 5 | a << 11 | u32::from(ss) << 14
}

impl Sim {
    /// The interrupted-transient key of a partition with `flows` (vertex order) now: the
    /// conflict graph with each flow weighted by its start state, the rate class of its last
    /// sample (4.2's instantaneous rate) and, beyond the paper, its DCTCP block state: cwnd
    /// in half-octaves of the MTU, alpha in quarters, the slow-start flag. Two transients
    /// are taken for the same only when every flow starts in the same classes. `None` when
    /// that memo is off or a flow is not a DCTCP sender.
    pub(super) fn start_state_graph(&self, flows: &[u32]) -> Option<FlowConflictGraph> {
        self.state_graph(flows, false)
    }

    /// [`Sim::start_state_graph`], with `remaining` each weight also carrying the flow's
    /// unsent packets in eighth-octaves ([`remaining_class`]): the lockstep key. A follower
    /// flow is advanced by its counterpart's progress, so two flows of a partition in the
    /// same start state but at different points of their messages (a flow that started
    /// earlier and one that just joined) must not be taken for each other.
    pub(super) fn state_graph(&self, flows: &[u32], remaining: bool) -> Option<FlowConflictGraph> {
        let w = self.wh.as_ref()?;
        if w.traj.is_none() && !w.lockstep {
            return None;
        }
        let mut weights = Vec::with_capacity(flows.len());
        for &f in flows {
            let Some(Cc::Dctcp(s)) = &self.flows[f as usize].cc else {
                return None;
            };
            let rate = w.active.get(&f).map_or(0, |s| s.last_rate);
            let rc = memo::rate_class(rate, w.capacity_bps, RATE_CLASSES);
            let mut class = state_class(rc, s.cc_state(), w.mtu);
            if remaining {
                class |= remaining_class(s.unsent()) << 15;
            }
            weights.push((class, w.ports[f as usize].as_slice()));
        }
        Some(FlowConflictGraph::from_paths(&weights))
    }

    /// At a sampling tick: the interrupted-transient lookups that are due, and one point
    /// (each flow's packets sent since the lookup, its cc state) for every remembered miss
    /// looked up before, whose partition is simulated.
    pub(super) fn traj_record(&mut self) {
        let Some(w) = self.wh.as_mut() else { return };
        if (w.traj.is_none() && !w.lockstep) || w.misses.is_empty() {
            return;
        }
        // Only the interrupted-transient memo stores points; lockstep followers read their
        // leader's flows directly.
        let record = w.traj.is_some();
        let now = self.now;
        let mut due = Vec::new();
        for (&id, m) in w.misses.iter_mut() {
            if m.overflow || m.at >= now || w.frozen.contains_key(&id) {
                continue;
            }
            if m.xgraph.is_none() {
                m.due = m.due.saturating_sub(1);
                if m.due == 0 {
                    due.push(id);
                }
                continue;
            }
            if m.xat >= now || !record {
                continue;
            }
            if m.points.len() >= TRAJ_MAX_TICKS {
                m.overflow = true;
                m.points = Vec::new();
                continue;
            }
            let mut pt = Vec::with_capacity(m.flows.len());
            for (&(f, _), &at) in m.flows.iter().zip(&m.xsent) {
                let Some(Cc::Dctcp(s)) = &self.flows[f as usize].cc else {
                    m.overflow = true;
                    break;
                };
                pt.push((u64::from(s.regs().snd_nxt).saturating_sub(at), s.cc_state()));
            }
            m.points.push(pt);
        }
        // The leaders opened at this tick, by start-state graph (a follower must start its
        // transient at the same tick as its leader: lockstep).
        let mut leads: MemoDb<LeadRef> = MemoDb::new();
        if self.wh.as_ref().is_some_and(|w| w.fixed_leader) {
            // Exact partitions first (stable, id order): one of them leads a group whenever
            // the group has one.
            let mut due = due;
            due.sort_by_key(|&id| !self.exact(id));
            for id in due {
                self.traj_lookup(id, &mut leads);
            }
            return;
        }
        for id in due {
            self.traj_lookup(id, &mut leads);
        }
    }

    /// The interrupted-transient lookup of partition `id` (a remembered miss of the steady
    /// memo): a hit skips the stored transient (the miss is dropped: its transient is not
    /// simulated), a miss starts recording one.
    pub(super) fn traj_lookup(&mut self, id: PartitionId, leads: &mut MemoDb<LeadRef>) {
        let Some(w) = self.wh.as_ref() else { return };
        let Some(m) = w.misses.get(&id) else { return };
        let flows: Vec<u32> = m.flows.iter().map(|&(f, _)| f).collect();
        let Some(xg) = self.start_state_graph(&flows) else {
            let w = self.wh.as_mut().expect("wormhole on");
            if let Some(m) = w.misses.get_mut(&id) {
                m.overflow = true;
            }
            return;
        };
        let w = self.wh.as_mut().expect("wormhole on");
        if let Some(tr) = w.traj.as_mut().and_then(|db| db.lookup(&xg)) {
            if self.traj_hit(id, &flows, tr) {
                let w = self.wh.as_mut().expect("wormhole on");
                w.misses.remove(&id);
                return;
            }
        }
        let fixed = self.wh.as_ref().is_some_and(|w| w.fixed_leader);
        let lg = if fixed {
            self.order_graph(&flows)
        } else {
            self.wh
                .as_ref()
                .is_some_and(|w| w.lockstep)
                .then(|| self.state_graph(&flows, true))
                .flatten()
        };
        if let Some(lg) = lg {
            if let Some(lr) = leads.lookup(&lg) {
                if (!fixed || self.close_to(&flows, &lr.flows)) && self.follow(id, &flows, lr) {
                    let w = self.wh.as_mut().expect("wormhole on");
                    w.misses.remove(&id);
                    return;
                }
            } else if self.wh.as_ref().is_some_and(|w| w.fixed_leader) && !self.exact(id) {
                // `skip.lockstep_fixed_leader`: a partition off the exact run never leads.
                let w = self.wh.as_mut().expect("wormhole on");
                w.st.lock_refused_leads += 1;
            } else {
                let _ = leads.insert(
                    lg,
                    LeadRef {
                        leader: id,
                        flows: flows.clone(),
                    },
                );
            }
        }
        let sent: Vec<u64> = flows
            .iter()
            .map(|&f| match &self.flows[f as usize].cc {
                Some(Cc::Dctcp(s)) => u64::from(s.regs().snd_nxt),
                _ => 0,
            })
            .collect();
        let now = self.now;
        let w = self.wh.as_mut().expect("wormhole on");
        if let Some(m) = w.misses.get_mut(&id) {
            m.xgraph = Some(xg);
            m.xat = now;
            m.xsent = sent;
        }
    }

    /// An interrupt (a flow arriving in or leaving partition `id`) ends its unsteady period
    /// before any steady state: store the transient sampled so far, keyed by its start-state
    /// graph (3.2 step 6 for a transient that ends in an interrupt).
    pub(super) fn traj_store(&mut self, id: PartitionId) {
        // A leader's transient ends here (an interrupt): its followers resume now.
        self.release_followers(id, None);
        let Some(w) = self.wh.as_mut() else { return };
        if w.traj.is_none() {
            return;
        }
        let Some(m) = w.misses.remove(&id) else {
            return;
        };
        let Some(xg) = m.xgraph else { return };
        if m.overflow || m.points.is_empty() {
            return;
        }
        let n = m.flows.len();
        let mtu = w.mtu;
        let tr = Trajectory {
            tick_ps: w.sample_ps,
            bytes: (0..n)
                .map(|i| m.points.iter().map(|p| p[i].0 * mtu).collect())
                .collect(),
            cc: (0..n)
                .map(|i| m.points.iter().map(|p| p[i].1).collect())
                .collect(),
        };
        if let Some(db) = w.traj.as_mut() {
            let _ = db.insert(xg, tr);
        }
    }

    /// Skip a stored interrupted transient (4.4, extended): partition `id` (flows `flows`,
    /// the hit's vertex order) is paused for as many of the stored ticks as every flow's
    /// skippable bytes and the known events allow; at the wake-up (or a skip-back, 6.3) each
    /// flow is advanced by the stored bytes at that point and takes the stored block state.
    /// Returns false (no skip) when not even one tick fits.
    pub(super) fn traj_hit(&mut self, id: PartitionId, flows: &[u32], tr: Trajectory) -> bool {
        let Some(sf) = self.steady_flows(id, |_| Some(0)) else {
            return false;
        };
        if sf.len() != flows.len() || sf.iter().zip(flows).any(|(a, &b)| a.flow != b) {
            return false;
        }
        let tick = tr.tick_ps;
        let limit = self.next_known_ps();
        let mut k = tr.ticks();
        while k > 0
            && (self.now.saturating_add(k as u64 * tick) > limit
                || sf
                    .iter()
                    .enumerate()
                    .any(|(i, f)| tr.bytes[i][k - 1] > f.skippable()))
        {
            k -= 1;
        }
        if k == 0 {
            return false;
        }
        let until = self.now + k as u64 * tick;
        let tr = Trajectory {
            tick_ps: tick,
            bytes: tr.bytes.iter().map(|b| b[..k].to_vec()).collect(),
            cc: tr.cc.iter().map(|c| c[..k].to_vec()).collect(),
        };
        let flows_at: Vec<SteadyFlow> = sf
            .iter()
            .enumerate()
            .map(|(i, f)| SteadyFlow {
                rate_bps: (u128::from(tr.bytes[i][k - 1]) * 8 * 1_000_000_000_000
                    / u128::from(until - self.now)) as u64,
                ..*f
            })
            .collect();
        let plan = SkipPlan {
            from_ps: self.now,
            until_ps: until,
            cause: skip::Interrupt::Horizon,
            advance: flows_at
                .iter()
                .enumerate()
                .map(|(i, f)| (f.flow, tr.bytes[i][k - 1]))
                .collect(),
        };
        self.freeze(id, plan, flows_at, None, Some(tr));
        self.wh.as_ref().is_some_and(|w| w.frozen.contains_key(&id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each part of an interrupted transient's start state moves the vertex weight: the rate
    /// class, the cwnd by half-octaves, alpha by quarters, slow start. Within one class the
    /// weight is the same.
    #[test]
    fn state_class_separates_start_states() {
        let mtu = 4096;
        let base = state_class(8, (32 * 4096, 0, false), mtu);
        assert_eq!(base, state_class(8, (33 * 4096, 1000, false), mtu));
        for other in [
            state_class(9, (32 * 4096, 0, false), mtu),
            state_class(8, (23 * 4096, 0, false), mtu),
            state_class(8, (46 * 4096, 0, false), mtu),
            state_class(8, (32 * 4096, 1 << 14, false), mtu),
            state_class(8, (32 * 4096, 0, true), mtu),
        ] {
            assert_ne!(other, base);
        }
        // Fields do not spill into each other at their extremes.
        let top = state_class(31, (u32::MAX, 1 << 16, true), mtu);
        assert_eq!(top & 31, 31);
        assert_eq!(top >> 14, 1);
    }
}
