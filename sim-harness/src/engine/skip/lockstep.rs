//! Lockstep followers (`skip.memo_lockstep` and its options `lockstep_complete`,
//! `lockstep_stay`, `lockstep_fixed_leader`; dcfab's extension of
//! `../shared/papers/wormhole.md` 4.4 and 6.2).
//!
//! * **Lockstep transients** (`skip.memo_lockstep`, off by default; dcfab's extension of
//!   4.4 and 6.2, [`Follow`]). Partitions that start the same transient at the same tick (the
//!   32 GPU pairs of a pipeline boundary) all miss both memos at once, so nothing is ever
//!   replayed. With the option, the interrupted-transient lookups of one tick are grouped
//!   by their start-state graph plus each flow's unsent packets in eighth-octaves
//!   ([`remaining_class`]): the first partition of a group (lowest id) *leads*, simulated at
//!   packet level; each other one *follows* it through the graphs' isomorphism (flow `i` of
//!   the follower plays the leader's flow `map[i]`) and is paused at once (queues frozen,
//!   6.2) until the next known event. At any wake-up of a follower (its own known event, a
//!   skip-back by a flow joining it, the leader's transient ending by an interrupt, or one
//!   more tick of the leader's progress exceeding a flow's skippable bytes,
//!   [`Sim::lockstep_check`]) each of its flows is advanced by what its leader flow got
//!   acknowledged since the pause (the leader has been simulated up to now: causal), at
//!   most its remaining bytes less the packet-level tail reserve, and takes the leader
//!   flow's cwnd / alpha / slow-start flag; its completions are then simulated, as after a
//!   steady skip. When the leader turns steady its followers go on into a steady skip at
//!   their counterparts' rates (3.2 step 3). A follower never outlives its leader's data
//!   (released whenever the leader's miss ends) and affects no other partition.
//!   Measured (`benches/README.md`, session 9): the followers of the first pipeline
//!   boundary of paper-size GPT-13B / 128 simulate 17-29 % of their packets, but their FCTs
//!   move by ~0.5 % (the follower resumes with its own window in flight and queues from
//!   the pause), which the pipeline DAG amplifies downstream: 59.3x fewer events at 1.36 %
//!   mean FCT error (the default 57.3x at 0.42 %), hence off; on the shipped gpt_64, where
//!   the followers end in their leader's steady state, 69.8x at 0.014 % (default 43.3x).
//!   With `skip.lockstep_complete` as well, a follower's flow whose packets left to
//!   acknowledge matched its leader flow's (within 1/128) at the pause is not woken before
//!   its tail: it completes at the leader flow's completion ([`Sim::lockstep_complete`];
//!   its stale packets dropped before their host), the follower's other flows resuming
//!   there. Measured (session 9): exact for the completed flows, but at paper size the
//!   leader of the later micro-batches is itself a released follower (already ~0.3 % off)
//!   and the followers' other flows resume mid-transfer from their paused window: 56.9x at
//!   1.76 % (95.8x at 2.08 % with `data_ports`), hence off.
//!   `skip.lockstep_fixed_leader` (beyond the paper, 4.4) keeps lane 0 the leader: a host
//!   that ever had a followed flow is tainted ([`Sim::exact`]) and a partition touching one
//!   never leads; the key then weights flows by rank in id order ([`Sim::order_graph`])
//!   and compares their packets left with a tolerance ([`Sim::close_to`]) instead of the
//!   eighth-octave classes, which split a follower one packet off its leader at a class
//!   boundary. `skip.lockstep_stay` (with `lockstep_complete`, beyond 6.2) keeps a follower
//!   whose other flows all match paused across its leader flow's completion, and re-follows
//!   a follower resumed by an interrupt at that same instant ([`Sim::refollow`]), so the
//!   first pipeline boundary's followers never run at packet level. Measured
//!   (`benches/README.md` session 10): that boundary becomes exact, but the next one
//!   (cross-ToR) moves by 3-22 % as the followers' network footprint differs: paper size
//!   63.4x at 1.37 % (fixed leader), 99.7x at 1.77 % (stay + `data_ports`), hence off.
//!
//! The placeholders of `skip.lockstep_shadow` are in [`super::shadow`].

use super::*;

/// `skip.lockstep_fixed_leader`: a follower's flows may have packets left that differ from
/// their leader counterparts' by this fraction (1/64), or by 4 packets.
pub(super) const LOCKSTEP_TOLERANCE: u64 = 64;

/// A lockstep follower's link to its leader (`skip.memo_lockstep`).
#[derive(Debug, Clone)]
pub(super) struct Follow {
    pub(super) leader: PartitionId,
    /// Per flow of the follower (`Frozen::flows` order): the leader's flow in its place
    /// (the isomorphism of the two start-state graphs).
    pub(super) lead_flows: Vec<u32>,
    /// Those leader flows' oldest unacknowledged PSN (`snd_una`) when the follower was
    /// paused.
    pub(super) base: Vec<u64>,
    /// ... at the last sampling tick (the wake-up rule of [`Sim::lockstep_check`]).
    pub(super) prev: Vec<u64>,
    /// Per flow: `skip.lockstep_complete` and its packets left to acknowledge equalled its
    /// leader flow's at the pause, so it completes at the leader flow's completion
    /// ([`Sim::lockstep_complete`]) and is not woken before its tail reserve.
    pub(super) matching: Vec<bool>,
}

/// A leader candidate of one sampling tick's interrupted-transient lookups: the partition
/// and its flows in its start-state graph's vertex order (a lookup permutes them into the
/// follower's order, [`memo::PerFlowValue`]).
#[derive(Debug, Clone)]
pub(super) struct LeadRef {
    pub(super) leader: PartitionId,
    pub(super) flows: Vec<u32>,
}

impl memo::PerFlowValue for LeadRef {
    fn lengths(&self) -> Vec<(&'static str, usize)> {
        vec![("flows", self.flows.len())]
    }

    fn permuted(&self, map: &[u32]) -> Self {
        LeadRef {
            leader: self.leader,
            flows: map.iter().map(|&m| self.flows[m as usize]).collect(),
        }
    }

    fn approx_bytes(&self) -> usize {
        self.flows.len() * 4 + 4
    }
}

/// A flow's unsent packets in eighth-octaves (`8 floor(log2 n)` plus the next three bits;
/// 0 for none), at most 17 bits: the part of the lockstep key that tells flows at different
/// points of their messages apart.
pub(super) fn remaining_class(unsent: u32) -> u32 {
    if unsent == 0 {
        return 0;
    }
    let b = 31 - unsent.leading_zeros();
    let frac = if b >= 3 {
        (unsent >> (b - 3)) & 7
    } else {
        (unsent << (3 - b)) & 7
    };
    (1 + b * 8 + frac).min((1 << 17) - 1)
}

impl Sim {
    /// The lockstep key under `skip.lockstep_fixed_leader`: the conflict graph of `flows`
    /// (id order) with each flow weighted by its rank in that order and its slow-start flag,
    /// so that the isomorphism maps the `i`-th flow of a follower onto the `i`-th of its
    /// leader (the same micro-batch in another lane). How far along each flow is, is
    /// checked with a tolerance ([`Sim::close_to`]) instead of the eighth-octave classes of
    /// [`remaining_class`], which split a follower one packet off its leader from it
    /// whenever the two straddle a class boundary (measured: 511 / 513 packets left).
    pub(super) fn order_graph(&self, flows: &[u32]) -> Option<FlowConflictGraph> {
        let w = self.wh.as_ref()?;
        let mut weights = Vec::with_capacity(flows.len());
        for (i, &f) in flows.iter().enumerate() {
            let Some(Cc::Dctcp(s)) = &self.flows[f as usize].cc else {
                return None;
            };
            let class = (i as u32) << 1 | u32::from(s.cc_state().2);
            weights.push((class, w.ports[f as usize].as_slice()));
        }
        Some(FlowConflictGraph::from_paths(&weights))
    }

    /// Each of `flows` has as many packets left to send as its counterpart in `lead`,
    /// within [`LOCKSTEP_TOLERANCE`] of the counterpart's (at least 4 packets): the
    /// follower may take the leader's trajectory (`skip.lockstep_fixed_leader`).
    pub(super) fn close_to(&self, flows: &[u32], lead: &[u32]) -> bool {
        let left = |f: u32| match &self.flows[f as usize].cc {
            Some(Cc::Dctcp(s)) => Some(u64::from(s.regs().total.saturating_sub(s.regs().snd_una))),
            _ => None,
        };
        flows
            .iter()
            .zip(lead)
            .all(|(&f, &lf)| match (left(f), left(lf)) {
                (Some(a), Some(b)) => a.abs_diff(b) <= (b / LOCKSTEP_TOLERANCE).max(4),
                _ => false,
            })
    }

    /// Partition `id` is on the exact run (`skip.lockstep_fixed_leader`): none of its
    /// flows' hosts ever had a lockstep follower flow ([`Wormhole::tainted`]).
    pub(super) fn exact(&self, id: PartitionId) -> bool {
        let Some(w) = self.wh.as_ref() else {
            return false;
        };
        w.parts.flows(id).is_some_and(|fl| {
            fl.iter().all(|&f| {
                let spec = &self.flows[f as usize].spec;
                !w.tainted[spec.src as usize] && !w.tainted[spec.dst as usize]
            })
        })
    }

    /// Make partition `id` (flows `flows`, vertex order) a lockstep follower of `lr.leader`,
    /// which opened a miss of the same start-state graph at this tick and simulates it at
    /// packet level: paused at once (queues frozen, 6.2) until a wake-up (its own interrupt,
    /// a skip-back, the leader's transient ending, or its skippable bytes running out,
    /// [`Sim::lockstep_check`]), where it is advanced by the leader's trajectory up to then
    /// ([`Sim::thaw`]). Beyond the paper: Wormhole 4.4 only replays stored transients, which
    /// partitions in lockstep never find (they all miss at the same tick). Returns false (no
    /// follow) when the partition cannot be paused.
    pub(super) fn follow(&mut self, id: PartitionId, flows: &[u32], lr: LeadRef) -> bool {
        // A leader still holding followers (kept across a completion, `skip.lockstep_stay`)
        // does not follow in turn: no chains of followers.
        if self
            .wh
            .as_ref()
            .is_some_and(|w| w.lockstep_stay && w.leads.contains_key(&id))
        {
            return false;
        }
        let Some(sf) = self.steady_flows(id, |_| Some(0)) else {
            return false;
        };
        if sf.len() != flows.len()
            || lr.flows.len() != flows.len()
            || sf.iter().zip(flows).any(|(a, &b)| a.flow != b)
        {
            return false;
        }
        let w = self.wh.as_ref().expect("wormhole on");
        // A flow with less than one tick at line rate to skip would be woken at the next
        // tick having skipped nothing, one tick late: not worth a pause.
        let tick = w.line_tick_bytes();
        if sf.iter().any(|f| f.skippable() < tick) {
            return false;
        }
        let limit = self.next_known_ps();
        let until = limit.min(self.now.saturating_add(HORIZON_PS));
        if until < self.now.saturating_add(w.sample_ps) {
            return false;
        }
        let base: Vec<u64> = lr
            .flows
            .iter()
            .map(|&f| match &self.flows[f as usize].cc {
                Some(Cc::Dctcp(s)) => u64::from(s.regs().snd_una),
                _ => 0,
            })
            .collect();
        let left = |f: u32| match &self.flows[f as usize].cc {
            Some(Cc::Dctcp(s)) => Some(s.regs().total.saturating_sub(s.regs().snd_una)),
            _ => None,
        };
        let matching: Vec<bool> = flows
            .iter()
            .zip(&lr.flows)
            .map(|(&f, &lf)| match (left(f), left(lf)) {
                // Within 1/128 of what is left: completing with the leader's flow is at
                // most that much of the rest of its transfer early or late.
                (Some(a), Some(b)) => w.lockstep_complete && a.abs_diff(b) * 128 <= b,
                _ => false,
            })
            .collect();
        // The follower's flows keep their rate weights (the leader's are unchanged too).
        let hints: Vec<Option<u64>> = flows
            .iter()
            .map(|f| w.active.get(f).and_then(|s| s.hint))
            .collect();
        let plan = SkipPlan {
            from_ps: self.now,
            until_ps: until,
            cause: skip::Interrupt::Horizon,
            advance: Vec::new(),
        };
        self.freeze(id, plan, sf, None, None);
        let w = self.wh.as_mut().expect("wormhole on");
        let Some(fr) = w.frozen.get_mut(&id) else {
            return false;
        };
        fr.follow = Some(Follow {
            leader: lr.leader,
            lead_flows: lr.flows,
            prev: base.clone(),
            base,
            matching,
        });
        for (f, h) in flows.iter().zip(hints) {
            if let Some(s) = w.active.get_mut(f) {
                s.hint = h;
            }
        }
        w.leads.entry(lr.leader).or_default().push(id);
        w.st.lock_follows += 1;
        for &f in flows {
            let spec = &self.flows[f as usize].spec;
            w.tainted[spec.src as usize] = true;
            w.tainted[spec.dst as usize] = true;
        }
        if w.shadow_on {
            self.shadow_map(id);
        }
        true
    }

    /// Leader `leader`'s transient ended (an interrupt, or a steady state with the leader's
    /// per-flow `rates`): each of its followers resumes now, advanced by the leader's
    /// trajectory ([`Sim::thaw`]); on a steady state it goes straight on into a steady skip
    /// at the rates of its counterparts in the leader, up to its own next interrupt (3.2
    /// step 3, as a memo hit does). Followers in the order they were paused.
    pub(super) fn release_followers(
        &mut self,
        leader: PartitionId,
        rates: Option<Vec<(u32, u64)>>,
    ) {
        let Some(w) = self.wh.as_mut() else { return };
        let Some(mut followers) = w.leads.remove(&leader) else {
            return;
        };
        if !w.keep.is_empty() {
            let (kept, gone): (Vec<PartitionId>, Vec<PartitionId>) =
                followers.into_iter().partition(|id| w.keep.contains(id));
            if !kept.is_empty() {
                w.leads.insert(leader, kept);
            }
            followers = gone;
        }
        for id in followers {
            let w = self.wh.as_ref().expect("wormhole on");
            let Some((own, lead_flows)) = w.frozen.get(&id).and_then(|fr| {
                fr.follow
                    .as_ref()
                    .filter(|fo| fo.leader == leader)
                    .map(|fo| (fr.flow_ids.clone(), fo.lead_flows.clone()))
            }) else {
                continue;
            };
            if rates.is_none() {
                self.note_refollow(id);
            }
            self.thaw(id);
            let Some(rates) = &rates else { continue };
            let rate = |f: u32| {
                let i = own.iter().position(|&x| x == f)?;
                rates.iter().find(|r| r.0 == lead_flows[i]).map(|r| r.1)
            };
            let Some(flows) = self.steady_flows(id, rate) else {
                continue;
            };
            let Some(plan) = self.plan_ahead(&flows, self.uno_window_limit(&flows)) else {
                continue;
            };
            let w = self.wh.as_mut().expect("wormhole on");
            w.st.lock_steady += 1;
            self.freeze(id, plan, flows, None, None);
        }
    }

    /// Follower `id` is resumed now by an interrupt (its leader's, or a flow joining it):
    /// with `skip.lockstep_stay` it is remembered (by one of its flows and that flow's
    /// leader counterpart) to follow on at this same instant ([`Sim::refollow`]).
    pub(super) fn note_refollow(&mut self, id: PartitionId) {
        let Some(w) = self.wh.as_mut().filter(|w| w.lockstep_stay) else {
            return;
        };
        let Some(pair) = w.frozen.get(&id).and_then(|fr| {
            let fo = fr.follow.as_ref()?;
            Some((*fr.flow_ids.first()?, *fo.lead_flows.first()?))
        }) else {
            return;
        };
        if w.refollow.is_empty() {
            self.q.push(self.now, Comp::new(Kind::Wormhole, REFOLLOW));
        }
        w.refollow.push(pair);
    }

    /// `skip.lockstep_stay`: the followers resumed by an interrupt at this instant (the
    /// leader's arrivals or completions and each follower's own, which in lockstep happen at
    /// the same picosecond) follow their leader's partition again at once, before any packet
    /// of theirs is simulated, when the two partitions are still isomorphic (the flows in id
    /// order, [`Sim::order_graph`]) and every flow is as far along as its counterpart
    /// ([`Sim::close_to`]): a follower does not run at packet level from the window in flight
    /// and queues of its pause (6.2) between two micro-batches. dcfab's extension, beyond
    /// Wormhole 4.4 / 6.2 as [`Follow`] is.
    pub(super) fn refollow(&mut self) {
        let Some(w) = self.wh.as_mut() else { return };
        let pairs = std::mem::take(&mut w.refollow);
        for (ff, lf) in pairs {
            let w = self.wh.as_ref().expect("wormhole on");
            let (Some(id), Some(lead)) =
                (w.parts.partition_of_flow(ff), w.parts.partition_of_flow(lf))
            else {
                continue;
            };
            if id == lead || w.frozen.contains_key(&id) || w.frozen.contains_key(&lead) {
                continue;
            }
            let (Some(fl), Some(ll)) = (w.parts.flows(id), w.parts.flows(lead)) else {
                continue;
            };
            let flows: Vec<u32> = fl.iter().copied().collect();
            let lflows: Vec<u32> = ll.iter().copied().collect();
            let (Some(g), Some(lg)) = (self.order_graph(&flows), self.order_graph(&lflows)) else {
                continue;
            };
            let mut db: MemoDb<LeadRef> = MemoDb::new();
            let _ = db.insert(
                lg,
                LeadRef {
                    leader: lead,
                    flows: lflows,
                },
            );
            let Some(lr) = db.lookup(&g) else {
                continue;
            };
            if lr.leader == lead && self.close_to(&flows, &lr.flows) && self.follow(id, &flows, lr)
            {
                let w = self.wh.as_mut().expect("wormhole on");
                w.misses.remove(&id);
                w.lookups.remove(&id);
                w.st.lock_refollows += 1;
            }
        }
    }

    /// Flow `lf` of partition `leader` completed now (`skip.lockstep_complete`): every
    /// follower of `leader` with a matching flow in `lf`'s place (its packets left to
    /// acknowledge equalled `lf`'s at the pause, [`Follow::matching`]) is resumed
    /// ([`Sim::thaw`]: advanced by the leader's trajectory, its queues and events shifted)
    /// and that flow completes at this instant, its unacknowledged packets credited as
    /// skipped: the DAG starts its successors with the leader's. Its packets still in the
    /// network (the window in flight and the queue entries frozen at the pause, which in
    /// the lockstep trajectory were delivered long ago) are stale: they drain through their
    /// ports and are dropped before their host ([`Sim::wh_hold`]), never delivered. dcfab's
    /// extension of Wormhole 6.2 (a skipped flow normally completes at packet level).
    pub(super) fn lockstep_complete(&mut self, leader: PartitionId, lf: u32) {
        let Some(w) = self.wh.as_ref().filter(|w| w.lockstep_complete) else {
            return;
        };
        let Some(followers) = w.leads.get(&leader) else {
            return;
        };
        let mut todo: Vec<(PartitionId, u32, Option<usize>)> = Vec::new();
        for &id in followers {
            let Some(fr) = w.frozen.get(&id) else {
                continue;
            };
            let Some(fo) = fr.follow.as_ref().filter(|fo| fo.leader == leader) else {
                continue;
            };
            if let Some(i) = fo.lead_flows.iter().position(|&x| x == lf) {
                if fo.matching[i] {
                    // `skip.lockstep_stay` and its other flows all matching too: it stays
                    // paused, following on without this flow.
                    let stay = w.lockstep_stay
                        && fr.flows.len() > 1
                        && fo.matching.iter().enumerate().all(|(j, &m)| m || j == i);
                    todo.push((id, fr.flows[i].flow, stay.then_some(i)));
                }
            }
        }
        let now = self.now;
        for (id, f, stay) in todo {
            match stay {
                Some(i) => {
                    let w = self.wh.as_mut().expect("wormhole on");
                    let fr = w.frozen.get_mut(&id).expect("a follower");
                    fr.flows.remove(i);
                    fr.flow_ids.retain(|&x| x != f);
                    let fo = fr.follow.as_mut().expect("a follower");
                    fo.lead_flows.remove(i);
                    fo.base.remove(i);
                    fo.prev.remove(i);
                    fo.matching.remove(i);
                    w.active.set_frozen(f, false);
                    w.keep.push(id);
                    w.st.lock_stays += 1;
                }
                None => self.thaw(id),
            }
            let flow = &mut self.flows[f as usize];
            let Some(Cc::Dctcp(s)) = &flow.cc else {
                continue;
            };
            let left = s.regs().total.saturating_sub(s.regs().snd_una);
            flow.stats = s.stats;
            // Its packets left are delivered with its leader's (Wormhole 6.2's skip, not
            // simulated): counted as a fast-forward's skipped data are, so its receiver
            // completes in the collective metrics too (those it has not received yet).
            flow.skipped += left;
            if let Some(cm) = self.cm.as_deref_mut() {
                let rest = cm.datas(f).saturating_sub(cm.received(f));
                let mtu = u64::from(self.cfg.mtu);
                cm.on_skipped(f, rest, u64::from(rest), mtu, now, now);
                cm.on_flow_received(f, now);
            }
            let left = u64::from(left);
            if flow.conn != crate::flow::NO_CONN {
                self.conns.cwnd[flow.conn as usize] = s.cwnd();
            }
            let cc = flow.cc.take();
            if let TransportDriver::Dctcp(d) = &mut self.transport {
                d.recycle(cc);
            }
            flow.end_ps = now;
            self.flows_done += 1;
            if let Some(c) = self.chain.as_deref_mut() {
                c.done.push(f);
                self.q.push(
                    now,
                    Comp::new(Kind::Arrivals, crate::engine::chain::CHAIN_ARRIVALS),
                );
            }
            self.last_progress = now;
            let w = self.wh.as_mut().expect("wormhole on");
            w.purged[f as usize] = true;
            w.purged_any = true;
            w.st.skipped_packets += left;
            w.st.lock_completions += 1;
            self.set_wh_holding(true);
        }
    }

    /// At a sampling tick: wake every follower one more tick of its leader's progress
    /// would carry past one of its flows' skippable bytes (its remaining bytes less the
    /// packet-level tail reserve): it resumes at packet level with at least that reserve
    /// left, so its completions are simulated, not estimated.
    pub(super) fn lockstep_check(&mut self) {
        let Some(w) = self.wh.as_mut() else { return };
        if w.leads.is_empty() {
            return;
        }
        let (mtu, tick) = (w.mtu, w.line_tick_bytes());
        let mut wake = Vec::new();
        for followers in w.leads.values() {
            for &id in followers {
                let Some(fr) = w.frozen.get_mut(&id) else {
                    continue;
                };
                let Some(fo) = fr.follow.as_mut() else {
                    continue;
                };
                let mut near = false;
                for (i, f) in fr.flows.iter().enumerate() {
                    let sent = match &self.flows[fo.lead_flows[i] as usize].cc {
                        Some(Cc::Dctcp(s)) => u64::from(s.regs().snd_una),
                        _ => fo.prev[i],
                    };
                    let done = sent.saturating_sub(fo.base[i]);
                    // The next tick's progress: at most the line rate's (the last tick's
                    // when larger, a burst of ACKs), so a follower is never credited less
                    // than its leader progressed (which would make it late).
                    let step = sent
                        .saturating_sub(fo.prev[i])
                        .saturating_mul(mtu)
                        .max(tick);
                    fo.prev[i] = sent;
                    // A matching flow completes with its leader's ([`Sim::lockstep_complete`]).
                    if fo.matching[i] {
                        continue;
                    }
                    if done.saturating_mul(mtu).saturating_add(step) > f.skippable() {
                        near = true;
                    }
                }
                if near {
                    wake.push(id);
                }
            }
        }
        let w = self.wh.as_mut().expect("wormhole on");
        w.st.lock_reserve_wakes += wake.len() as u64;
        for id in wake {
            self.thaw(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remaining-bytes classes: monotone, eighth-octave wide, 0 only for none.
    #[test]
    fn remaining_class_is_monotone_in_eighth_octaves() {
        assert_eq!(remaining_class(0), 0);
        let mut last = 0;
        for n in 1..5000u32 {
            let c = remaining_class(n);
            assert!(c >= last && c > 0, "{n}");
            last = c;
        }
        // 1100 and 1150 share the eighth-octave [1024 + 0, 1024 + 128); 1300 is two on.
        assert_eq!(remaining_class(1100), remaining_class(1150));
        assert_eq!(remaining_class(1300), remaining_class(1100) + 2);
        assert!(remaining_class(u32::MAX) < 1 << 17);
    }
}
