//! Installing Wormhole for a run (`skip.*` and the `llm` workload read and checked, the
//! refusals decided): which transports and engines may be fast-forwarded at all.
//!
//! * **Soundness limits.** A transport is fast-forwarded when its driver can advance its
//!   senders and shift what they hold ([`crate::transport::TransportDriver::skip_refusal`],
//!   `transport/skip.rs`):
//!   - the DCTCP-style transport, `transport.cc = "dctcp"` and `"mprdma"` (the same sender
//!     with MPRDMA's per-ACK cut): its per-flow block state is the sender's window,
//!     unchanged in a steady state, and its message length; the REPS word and failure
//!     detector are left as they are: at a steady rate REPS recycles the same cached EVs,
//!     and their cycle counters move with the flow's clock (`tests/wormhole.rs`
//!     `reps_is_skipped_within_one_percent`: 7x fewer events, 0.28 % mean FCT error on a
//!     cross-ToR tornado; `mprdma_is_skipped_within_one_percent`);
//!   - Uno, `transport.cc = "uno"` (UnoCC, UnoRC with or without erasure coding, UnoLB),
//!     and its baseline `"mprdma_bbr"`: the message advanced by whole units (packets, or
//!     blocks with their parity), the sender's and receiver's ps times and the paused
//!     packets' send stamps shifted, UnoCC's epoch, Quick Adapt and pacer (MPRDMA's window,
//!     BBR's state machine) in cycles of the flow's clock
//!     (`uno_is_skipped_within_one_percent`, `uno_inter_dc_erasure_coded_flow_...`,
//!     `mprdma_bbr_is_skipped_within_one_percent`).
//!   - DCSIM under `partition_by = "all_ports"`: never-sent DATAs taken off the end of the
//!     message in the host engine (past the window and the DATAs the outstanding SIMs will
//!     take: Eq. 3 holds), the host's engine clock, receivers and timer shifted with its
//!     partition (`dcsim_is_skipped_within_one_percent`).
//!   - pFabric under `all_ports`: never-sent packets off the end of the message at both
//!     ends, the remaining bytes (its priority) as the full run's
//!     (`pfabric_is_skipped_within_one_percent`).
//!   - pHost under `all_ports`: never-named packets off the end of the message in both
//!     `nic::phost` blocks, a host's token scheduler and sender shifted whole
//!     (`phost_is_skipped_within_one_percent`).
//!
//!   Refused, the run simulated in full with a warning naming `skip.enabled` and the reason
//!   (stderr, `wormhole_skip_refused = 1`): DCSIM, pFabric and pHost under `data_ports` (a
//!   host's engine and receivers, a pFabric port's priority buffer, a pHost host's clock
//!   and timer, serve flows of several partitions), dcPIM (its fabric-wide epochs),
//!   Zeropod (a slotted region), and Uno's baseline `gemini` (its ECN estimate and delay
//!   reaction move while its rate looks steady: no steady test on its CC state; measured
//!   9.9 % FCT error on an inter-DC flow).
//!
//! * **Moving paths.** Under a load balancer that keeps one path at a time and moves it
//!   (PLB, flowlets), a flow is steady only when its path held over the whole detector
//!   window: a reroute is an interrupt (5.3), and one that is not known in advance
//!   ([`crate::flow::Lb::moving_path`], `Sampler::path_held`).
//!
//! * **Window against RTT.** A flow whose feedback loop (its base RTT; under DCSIM plus
//!   `RTTmax`, [`crate::transport::TransportDriver::feedback_ps`]) exceeds the detector's
//!   window (`skip.samples` x `skip.sample_us`) is never steady ([`Sim::steady_flows`]); the
//!   run warns at setup naming both fields.

use super::*;

impl Sim {
    /// Install Wormhole for scenario `s` (after the transport): nothing unless
    /// `skip.enabled` or an `llm` workload.
    /// `resolved`: each `failures[i]`'s ports ([`crate::engine::failure_sets::resolve`]), as
    /// the build resolved them; `llm_dag`: an `llm` workload's DAG, as the build generated
    /// it with the flows ([`crate::workload::generate_with_dag`]).
    pub(crate) fn wormhole_setup(
        &mut self,
        s: &Scenario,
        resolved: &[Vec<u32>],
        llm_dag: Option<crate::wormhole::llm::LlmDag>,
    ) -> Result<()> {
        let llm = s.workload.kind == crate::scenario::WorkloadKind::Llm;
        if !s.skip.enabled && !llm {
            return Ok(());
        }
        // A transport whose senders cannot be advanced soundly runs in full, and says so.
        let refusal = if s.skip.enabled {
            self.transport.skip_refusal(s)
        } else {
            None
        };
        let refused = refusal.is_some();
        let skip = s.skip.enabled && !refused;
        let sample_ps = crate::units::us_to_ps("skip.sample_us", s.skip.sample_us)?;
        let mut warnings = Vec::new();
        if let Some(why) = refusal {
            warnings.push(format!(
                "skip.enabled: {why}, so it cannot be fast-forwarded soundly; this run is \
                 simulated in full"
            ));
        }
        // A flow whose feedback loop (base RTT; DCSIM: plus RTTmax) exceeds the detector's
        // window is never steady (its window would hold no feedback,
        // [`Sim::steady_flows`]): say so up front.
        let window_ps = sample_ps.saturating_mul(u64::from(s.skip.samples));
        let long: Vec<u64> = self
            .flows
            .iter()
            .map(|f| self.transport.feedback_ps(f.base.rtt_ps))
            .filter(|&r| r > window_ps)
            .collect();
        if skip && !long.is_empty() {
            let what = if matches!(self.transport, crate::transport::TransportDriver::Dcsim(_)) {
                "feedback loop (base RTT + DCSIM's RTTmax)"
            } else {
                "base RTT"
            };
            warnings.push(format!(
                "skip.samples x skip.sample_us = {} us is shorter than the {what} of {} \
                 flows (up to {} us): a window without one round of feedback cannot tell a \
                 steady flow, so they are never skipped (Eq. 13 wants T_C RTTs)",
                window_ps as f64 / 1e6,
                long.len(),
                long.iter().max().copied().unwrap_or(0) as f64 / 1e6
            ));
        }
        let mtu = u64::from(s.transport.mtu);
        // The guidance needs the flows per bottleneck `N`, known once the flows have run
        // (see `wh_guidance`); the other inputs are checked here, before the run.
        let guidance = if skip {
            let gin = GuidanceInput {
                link_gbps: self.fabric.host_gbps,
                rtt_ps: self.base_rtt_ps,
                flows: 1,
                mtu_bytes: s.transport.mtu,
                sample_interval_ps: sample_ps,
                header_bytes: s.transport.header_bytes,
                packets_metric: s.skip.rate_metric == crate::scenario::RateMetric::Packets,
            };
            Guidance::new(&gin)?;
            Some(gin)
        } else {
            None
        };
        for w in &warnings {
            eprintln!("warning: {w}");
        }
        let dag = if llm {
            let dag = match llm_dag {
                Some(d) => d,
                None => {
                    let t = &s.topology;
                    let d = crate::validate::tor_host_ports(u64::from(t.radix), t.oversubscription);
                    crate::workload::llm::dag(s, d as u32, self.fabric.hosts)?.0
                }
            };
            // The collective metrics need every flow's start time up front; an LLM
            // iteration reports its own (`llm_*` keys, `iterations.csv`) instead.
            self.cm = None;
            Some(self.dag_setup(dag))
        } else {
            None
        };
        // Paused partitions leave the queue sparse: the calendar picks its bucket width
        // from the events' density (the order, and so every result, is the same). A run
        // in full keeps the narrow width its dense queue is fastest with.
        if skip {
            self.q.adapt_width();
        }
        self.wh = Some(Box::new(Wormhole {
            skip,
            refused,
            sample_ps,
            theta: s.skip.theta,
            samples: s.skip.samples as usize,
            mtu,
            reserve_bytes: ((s.skip.reserve_bdps * self.bdp_bytes as f64) as u64).max(mtu),
            capacity_bps: (self.fabric.host_gbps * 1e9).round() as u64,
            all_ports: s.skip.partition_by == crate::scenario::PartitionBy::AllPorts,
            metric: s.skip.rate_metric,
            estimate: s.skip.rate_estimate,
            nic_bound: if skip {
                s.skip.nic_bound_samples as usize
            } else {
                0
            },
            nic_exact: skip && s.skip.nic_bound_samples > 0 && s.skip.nic_bound_exact,
            nic_inexact: s.skip.nic_bound_inexact,
            slow_ramp: self.transport.slow_ramp(s),
            window_climb: matches!(self.transport, crate::transport::TransportDriver::Dctcp(_)),
            loss_aware: self.transport.holds_unsettled_losses(),
            split_paths: Vec::new(),
            nic_loads: Default::default(),
            hdr: u64::from(s.transport.header_bytes),
            phantom: BTreeMap::new(),
            parts: Partitions::new(),
            redeliver: Vec::new(),
            free_slots: Vec::new(),
            ports: vec![Vec::new(); self.flows.len()],
            pauses: vec![FlowPauses::default(); self.flows.len()],
            active: Samplers::default(),
            frozen: BTreeMap::new(),
            frozen_ports: vec![0; self.ports.len()],
            virt_period: Vec::new(),
            misses: BTreeMap::new(),
            lookups: Default::default(),
            memo: MemoDb::new(),
            traj: (skip && s.skip.memo_interrupted).then(MemoDb::new),
            traj_delay: TRAJ_DELAY_TICKS,
            link_credit: Vec::new(),
            credit_paths: Vec::new(),
            lockstep: skip && s.skip.memo_lockstep,
            lockstep_complete: skip && s.skip.memo_lockstep && s.skip.lockstep_complete,
            purged: vec![false; self.flows.len()],
            purged_any: false,
            lockstep_stay: skip
                && s.skip.memo_lockstep
                && s.skip.lockstep_complete
                && s.skip.lockstep_stay,
            keep: Vec::new(),
            refollow: Vec::new(),
            fixed_leader: skip && s.skip.memo_lockstep && s.skip.lockstep_fixed_leader,
            shadow_on: skip && s.skip.memo_lockstep && s.skip.lockstep_shadow,
            held_occupancy: skip && s.skip.held_occupancy,
            foreign_acks: s.skip.foreign_ack_interrupts,
            shadow: vec![Vec::new(); self.ports.len()],
            shadow_lead: vec![0; self.flows.len()],
            shadow_q: BTreeMap::new(),
            tainted: vec![false; self.fabric.hosts as usize],
            leads: BTreeMap::new(),
            done_seen: 0,
            lingering: Vec::new(),
            started: 0,
            dag,
            st: WhStats::default(),
            warnings,
            guidance,
            host_out: vec![0; self.fabric.hosts as usize],
            host_in: vec![0; self.fabric.hosts as usize],
            flows_per_port_max: 0,
        }));
        if skip {
            self.list_lossy_windows(s, resolved);
            self.q.push(sample_ps, Comp::new(Kind::Wormhole, TICK));
        }
        Ok(())
    }
}
