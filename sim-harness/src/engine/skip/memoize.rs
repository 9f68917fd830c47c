//! Memoization of unsteady periods (`../shared/papers/wormhole.md` section 4): the
//! steady-state memo's lookup, hit and insert.
//!
//! * **Memoization** (section 4, [`MemoDb`]): at the start of each unsteady period of a
//!   partition (a flow started or finished in it; looked up at the next sampling tick, so
//!   flows starting together make one lookup; partitions of at most [`MEMO_MAX_FLOWS`]
//!   flows) its flow conflict graph (flows weighted by the rate class of their last
//!   estimate, kept across detector resets, 0 for a new flow; edges by shared ports) is
//!   looked up. A miss remembers the graph, the flows' bytes so far and the time; when the
//!   partition next becomes steady the entry (end rates, per-flow transient bytes,
//!   convergence time) is inserted. A hit skips the transient and goes straight on into the
//!   steady state (3.2 step 3): one pause covers the stored convergence time (each flow
//!   advanced by its stored transient bytes) and then the steady period at the stored end
//!   rates up to the next interrupt ([`skip::plan_skip`] from the transient's end). A flow
//!   whose skippable bytes the transient would exceed cuts the transient short, pro rata.
//!   Skip-back inside the transient takes its bytes pro rata, after it the transient's
//!   bytes plus the end rates' (6.3).

use super::*;

/// Rate classes of the conflict graph's flow weights ([`memo::rate_class`]).
pub(super) const RATE_CLASSES: u32 = 16;

/// `data_ports`: foreign ACK streams on a flow's DATA ports told apart by the memo key
/// (more count as this many).
const FOREIGN_ACK_CLASSES: usize = 8;

/// Largest partition (flows) the memo looks up: a conflict graph costs O(flows^2) to build,
/// and a partition that large (an all-to-all through the spines) rarely repeats exactly.
pub const MEMO_MAX_FLOWS: usize = 128;

/// A memo miss waiting for its partition's steady state.
#[derive(Debug, Clone)]
pub(super) struct Miss {
    pub(super) graph: FlowConflictGraph,
    /// The partition's flows (graph vertex order) and their DATA packets sent at the start.
    pub(super) flows: Vec<(u32, u64)>,
    pub(super) at: Time,
    /// The interrupted-transient key (flows weighted by their start state, same vertex
    /// order), once looked up (that memo on).
    pub(super) xgraph: Option<FlowConflictGraph>,
    /// Ticks until that lookup (`traj_delay`: the first ticks after an interrupt, the new
    /// flows' first windows, are simulated and not part of the stored transient).
    pub(super) due: u32,
    /// When that lookup was made, and each flow's next new PSN then.
    pub(super) xat: Time,
    pub(super) xsent: Vec<u64>,
    /// Per sampling tick since `xat`: each flow's (new packets sent since `xat`, cc state).
    /// Sent, not acknowledged: a hit keeps the window in flight at its start, so it is
    /// credited what the stored transient sent (measured: crediting the acknowledged
    /// packets made the pipeline flows 12 % slow, the window's first RTT counted twice);
    /// new PSNs, not every transmission (retransmissions are no progress).
    pub(super) points: Vec<Vec<(u64, CcState)>>,
    /// Longer than [`TRAJ_MAX_TICKS`]: not stored.
    pub(super) overflow: bool,
    /// A run whose transport ramps slowly: the flows' ECN-marked ACKs and losses at the
    /// start, summed (a transient with a congestion signal is not stored).
    pub(super) signals: u64,
}

impl Sim {
    /// The conflict graph of partition `id` now (flows in id order, weighted by the rate
    /// class of their last estimate, 0 for a flow without one).
    pub(super) fn conflict_graph(&self, id: PartitionId) -> Option<(FlowConflictGraph, Vec<u32>)> {
        let w = self.wh.as_ref()?;
        let flows: Vec<u32> = w.parts.flows(id)?.iter().copied().collect();
        let weights: Vec<(u32, &[u32])> = flows
            .iter()
            .map(|&f| {
                let r = w.active.get(&f).and_then(|s| s.hint).unwrap_or(0);
                let class = memo::rate_class(r, w.capacity_bps, RATE_CLASSES);
                // `data_ports`: the key also says how many other partitions' flows send
                // ACKs across the flow's DATA ports (capped), so a rate learned without
                // that ACK load is not replayed with it ([`Sim::foreign_ack_interrupt`]).
                let foreign = if w.all_ports || !w.foreign_acks {
                    0
                } else {
                    w.parts.foreign_acks_on(f).min(FOREIGN_ACK_CLASSES) as u32
                };
                // A UnoCC flow's window (`uno_drift.rs`): its ramp, not its rate, sets the
                // transient ahead.
                let window = if w.slow_ramp {
                    self.transport.uno_window(f).map_or(0, uno_window_class)
                } else {
                    0
                };
                (
                    class + RATE_CLASSES * (foreign + (FOREIGN_ACK_CLASSES as u32 + 1) * window),
                    w.ports[f as usize].as_slice(),
                )
            })
            .collect();
        Some((FlowConflictGraph::from_paths(&weights), flows))
    }

    /// A new unsteady period of partition `id` begins: look it up; a hit skips the
    /// transient, a miss is remembered.
    pub(super) fn memo_lookup(&mut self, id: PartitionId) {
        let Some(w) = self.wh.as_ref() else { return };
        let n = w.parts.flows(id).map_or(0, |f| f.len());
        if !w.skip || n == 0 || n > MEMO_MAX_FLOWS || w.frozen.contains_key(&id) {
            return;
        }
        // A flow still in its start-up (DCSIM: no DATA sent yet) is not in the state a
        // stored transient starts from, nor one a hit may start from: the lookup waits for
        // the tick after its first DATA ([`crate::transport::TransportDriver::in_startup`]).
        if w.parts
            .flows(id)
            .is_some_and(|fl| fl.iter().any(|&f| self.transport.in_startup(f)))
        {
            let w = self.wh.as_mut().expect("wormhole on");
            w.lookups.insert(id);
            w.st.memo_deferred += 1;
            return;
        }
        if self.partition_degraded(id) {
            let w = self.wh.as_mut().expect("wormhole on");
            w.st.failure_memo_refused += 1;
            return;
        }
        let Some((g, flows)) = self.conflict_graph(id) else {
            return;
        };
        let w = self.wh.as_mut().expect("wormhole on");
        // A flow with a dropped DATA its sender has not settled yet has a retransmission to
        // come that no stored transient holds (`steady.rs`, [`Sampler::undeclared`]).
        let loss_pending = w.loss_aware
            && flows
                .iter()
                .any(|f| w.active.get(f).is_some_and(|s| s.loss_held));
        let found = match w.memo.lookup(&g) {
            Some(_) if loss_pending => {
                w.memo.unuse_hit();
                w.st.loss_memo_refused += 1;
                None
            }
            found => found,
        };
        match found {
            Some(v) => self.memo_hit(id, &flows, v),
            None => {
                let sent = flows
                    .iter()
                    .map(|&f| (f, self.packets_sent(f).unwrap_or(0)))
                    .collect();
                let signals = self.uno_signals(&flows);
                let w = self.wh.as_mut().expect("wormhole on");
                w.misses.insert(
                    id,
                    Miss {
                        graph: g,
                        flows: sent,
                        at: self.now,
                        xgraph: None,
                        due: w.traj_delay,
                        xat: NEVER,
                        xsent: Vec::new(),
                        points: Vec::new(),
                        overflow: false,
                        signals,
                    },
                );
            }
        }
    }

    /// Skip a transient the memo knows (4.4), then go straight to the steady state (3.2 step
    /// 3): the partition is paused for the stored convergence time with each flow advanced by
    /// its stored transient bytes, and on at the stored end rates until its next interrupt
    /// ([`skip::plan_skip`] from the transient's end, each flow's remaining bytes less its
    /// transient ones). A flow whose skippable bytes the transient would exceed cuts the
    /// transient short, pro rata, with no steady part.
    pub(super) fn memo_hit(&mut self, id: PartitionId, flows: &[u32], v: MemoValue) {
        let Some(mut sf) = self.steady_flows(id, |f| {
            flows.iter().position(|&x| x == f).map(|i| v.end_rates[i])
        }) else {
            return;
        };
        // `data_ports`: end rates learned in another ACK context fit these ports' ACKs.
        self.cap_at_data_ports(&mut sf);
        if v.convergence_ps == 0 {
            return;
        }
        // The largest fraction n / d <= 1 of the transient every flow can send.
        let (mut n, mut d) = (1u128, 1u128);
        for (s, &b) in sf.iter().zip(&v.transient_bytes) {
            let k = u128::from(s.skippable());
            if u128::from(b) * n > k * d {
                (n, d) = (k, u128::from(b));
            }
        }
        let conv = (u128::from(v.convergence_ps) * n / d) as u64;
        let sample_ps = self.wh.as_ref().expect("wormhole on").sample_ps;
        if conv < sample_ps {
            return;
        }
        let conv_until = self.now.saturating_add(conv);
        let known = self.known_events();
        if known.iter().any(|k| k.at_ps < conv_until) {
            return;
        }
        let transient: Vec<u64> = v
            .transient_bytes
            .iter()
            .map(|&b| (u128::from(b) * n / d) as u64)
            .collect();
        let after: Vec<SteadyFlow> = sf
            .iter()
            .zip(&transient)
            .map(|(s, &b)| SteadyFlow {
                remaining_bytes: s.remaining_bytes - b,
                ..*s
            })
            .collect();
        let horizon = conv_until.saturating_add(HORIZON_PS);
        let steady = if n == d {
            skip::plan_skip(conv_until, &after, &known, Some(horizon))
                .ok()
                .flatten()
        } else {
            None
        };
        let plan = match steady {
            Some(p) => SkipPlan {
                from_ps: self.now,
                until_ps: p.until_ps,
                cause: p.cause,
                advance: p
                    .advance
                    .iter()
                    .zip(&transient)
                    .map(|(&(f, a), &b)| (f, a + b))
                    .collect(),
            },
            None => SkipPlan {
                from_ps: self.now,
                until_ps: conv_until,
                cause: skip::Interrupt::Horizon,
                advance: after
                    .iter()
                    .map(|s| s.flow)
                    .zip(transient.iter().copied())
                    .collect(),
            },
        };
        self.freeze(id, plan, after, Some((conv_until, transient)), None);
    }

    /// Partition `id` is steady: store its remembered miss (end rates, transient bytes,
    /// convergence time).
    pub(super) fn memo_insert(&mut self, id: PartitionId, flows: &[SteadyFlow]) {
        // Under UnoCC (`uno_drift.rs`), a transient is not stored when it ends in a drift (a
        // hit's steady part would run unbounded where the drift's own skip is bounded) or
        // saw a congestion signal (its MDs hang on `E`, `MD_scale` and the epoch phases,
        // which the key does not hold; measured on `wormhole_moe_64`: 3.8 % iteration
        // error with such transients replayed).
        let drift = flows
            .iter()
            .any(|f| self.uno_class_of(f.flow) == Some(UnoClass::Drift));
        let ids: Vec<u32> = flows.iter().map(|f| f.flow).collect();
        let signals = self.uno_signals(&ids);
        let degraded = self.partition_degraded(id);
        let w = self.wh.as_mut().expect("wormhole on");
        let Some(m) = w.misses.remove(&id) else {
            return;
        };
        if degraded {
            // Grown onto a failed link since its lookup (`failure.rs`).
            w.st.failure_memo_refused += 1;
            return;
        }
        if m.flows.len() != flows.len() || m.flows.iter().zip(flows).any(|(a, b)| a.0 != b.flow) {
            return;
        }
        if drift || signals != m.signals {
            w.st.uno_memo_refused += 1;
            return;
        }
        let mtu = w.mtu;
        let transient_bytes = m
            .flows
            .iter()
            .map(|&(f, at)| {
                let now = self.packets_sent(f).unwrap_or(at);
                now.saturating_sub(at) * mtu
            })
            .collect();
        let v = MemoValue {
            end_rates: flows.iter().map(|f| f.rate_bps).collect(),
            transient_bytes,
            convergence_ps: self.now - m.at,
        };
        let w = self.wh.as_mut().expect("wormhole on");
        let _ = w.memo.insert(m.graph, v);
    }
}
