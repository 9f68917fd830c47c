//! Wormhole in the run loop (`../shared/papers/wormhole.md` sections 4-6): incremental
//! port-level partitions, per-flow steady-state detection, fast-forwarding of steady
//! partitions with skip-back, memoization of unsteady periods, and the LLM DAG's
//! dependency-driven flow starts. Active only when `skip.enabled` or `workload.kind = "llm"`
//! ([`Sim::wh`] is `Some`); otherwise the run loop is the plain one.
//!
//! One module per mechanism (each cites the paper section it implements, and says where it
//! goes beyond the paper):
//!
//! * [`setup`]: installing Wormhole for a run; what may be skipped (soundness limits).
//! * [`partitions`]: port-level partitions (Def. 1, Appendix E).
//! * [`steady`]: steady-state detection, `R(t_k)` (5.1, Eq. 6/7); the NIC-bound model
//!   (`skip.nic_bound_samples`, beyond 3 / 6.2).
//! * [`fast_forward`]: freeze / wake-up / resume and skip-back (5.3, 6.2, 6.3).
//! * [`exact`]: the NIC-bound model's skips by whole round-robin rounds
//!   (`skip.nic_bound_exact`, beyond 5.3 / 6.2).
//! * [`failure`]: a link failure's start and end are interrupts (5.3); the memo only on
//!   healthy links.
//! * [`held`]: `data_ports`: held DATA lanes, phantom ACK load, held packets (beyond 6.2).
//! * [`memoize`]: memoization of unsteady periods (4).
//! * [`trajectory`]: interrupted transients (beyond 4.3-4.4).
//! * [`lockstep`]: lockstep followers (beyond 4.4, 6.2).
//! * [`shadow`]: a follower's mirrored footprint (beyond 6.2).
//! * [`uno_drift`]: when, and how long, a UnoCC flow may be skipped (its window; beyond
//!   5.1 / 5.3).
//! * [`dag`]: the LLM DAG's flow starts.
//! * [`summary`]: Eq. 11 / 13 guidance (5.2) and the summary counters.

use super::*;
use crate::scenario::{RateEstimate, RateMetric};
use crate::wormhole::guidance::{Guidance, GuidanceInput};
use crate::wormhole::llm::{LlmDag, TaskKind};
use crate::wormhole::memo::{self, CcState, FlowConflictGraph, MemoDb, MemoValue, Trajectory};
use crate::wormhole::partition::{Change, PartitionId, Partitions};
use crate::wormhole::skip::{self, KnownEvent, SkipBack, SkipPlan, SteadyFlow};
use crate::wormhole::steady::SteadyDetector;

mod dag;
mod exact;
mod failure;
mod fast_forward;
mod flow_log;
mod held;
mod lockstep;
mod memoize;
mod partitions;
mod setup;
mod shadow;
mod steady;
mod summary;
mod trajectory;
mod uno_drift;

use dag::*;
use exact::*;
use fast_forward::*;
pub(in crate::engine) use flow_log::FlowPauses;
pub use flow_log::SKIP_FLOWS_COLUMNS;
use lockstep::*;
use memoize::*;
use steady::*;
use summary::*;
use trajectory::*;
use uno_drift::*;

pub(crate) use shadow::SHADOW_FLOW;

/// [`Kind::Wormhole`] index of the rate-sampling tick.
const TICK: u32 = 0;
/// [`Kind::Wormhole`] index of a wake-up of skipped partitions.
const WAKE: u32 = 1;
/// [`Kind::Wormhole`] index of the start of DAG task 0 (`TASK0 + 2 t`; its end `+ 1`).
const TASK0: u32 = 2;
/// [`Kind::Wormhole`] index of the delivery of held packet slot 0 (`HELD0 + slot`).
const HELD0: u32 = 1 << 27;
/// [`Kind::Wormhole`] index of the same-instant re-follow of lockstep followers released
/// by their leader's interrupt (`skip.lockstep_stay`, [`Sim::refollow`]).
const REFOLLOW: u32 = HELD0 - 1;

impl Wormhole {
    /// The steady detector's window, ps (Eq. 6's `l` samples: `skip.samples` x
    /// `skip.sample_us`).
    fn window_ps(&self) -> u64 {
        self.sample_ps.saturating_mul(self.samples as u64)
    }

    /// Bytes one sampling tick carries at the host line rate (rounded up).
    fn line_tick_bytes(&self) -> u64 {
        (u128::from(self.capacity_bps) * u128::from(self.sample_ps)).div_ceil(8_000_000_000_000)
            as u64
    }
}

/// Wormhole's run state ([`Sim::wh`]).
#[derive(Debug)]
pub(crate) struct Wormhole {
    /// Fast-forwarding on (asked for, and the transport allows it).
    skip: bool,
    refused: bool,
    sample_ps: u64,
    theta: f64,
    samples: usize,
    mtu: u64,
    reserve_bytes: u64,
    capacity_bps: u64,
    /// `skip.partition_by = "all_ports"`: ACK ports merge partitions too.
    all_ports: bool,
    /// `skip.rate_metric`: what `R(t_k)` is.
    metric: RateMetric,
    /// `skip.rate_estimate`: which rate advances a skipped flow.
    estimate: RateEstimate,
    /// `skip.nic_bound_samples`: the model-based steady test's window (0: off).
    nic_bound: usize,
    /// The transport's flows may ramp too slowly for Eq. 6 to see
    /// ([`crate::transport::TransportDriver::slow_ramp`]): keep each flow's window, bytes
    /// in flight, ECN and loss counts per sample for [`uno_drift::uno_class`].
    slow_ramp: bool,
    /// DCTCP-style senders (`dctcp`, `mprdma`): a window on its additive increase is not
    /// steady ([`steady::Sampler::window_climbing`]).
    window_climb: bool,
    /// A flow with a dropped DATA its sender has not yet settled as lost is held unsteady
    /// ([`crate::transport::TransportDriver::holds_unsettled_losses`],
    /// [`steady::Sampler::undeclared`]).
    loss_aware: bool,
    /// `skip.nic_bound_exact`: model skips by whole round-robin rounds ([`exact`]).
    nic_exact: bool,
    /// `skip.nic_bound_inexact`: a model skip that cannot go by whole rounds goes at the
    /// model's rates instead of not at all.
    nic_inexact: bool,
    /// `skip.nic_bound_exact`: each started flow's DATA path and ACK path apart (under
    /// `all_ports` its partition path is their union), for the model's load test.
    split_paths: Vec<(Vec<u32>, Vec<u32>)>,
    /// `skip.nic_bound_samples`: the per-tick loads, kept for their vectors.
    nic_loads: NicLoads,
    parts: Partitions,
    /// ACK header bytes per DATA packet of `mtu` payload bytes (the ACK load of a flow).
    hdr: u64,
    /// Per port, the skipped partitions' ACK load it stands in for (bit/s).
    phantom: BTreeMap<u32, u64>,
    /// Held packets waiting for their delivery event (`HELD0 + slot`), and free slots.
    redeliver: Vec<Option<(u32, Packet)>>,
    free_slots: Vec<u32>,
    /// Ports of each started flow (empty until it starts).
    ports: Vec<Vec<u32>>,
    /// Per flow: how often its partition was paused, and when it first was with the DATA
    /// packets it had sent then (`skip_flows.csv`, [`Sim::skip_flows_table`]).
    pauses: Vec<FlowPauses>,
    active: Samplers,
    frozen: BTreeMap<PartitionId, Box<Frozen>>,
    /// Per port, the skipped partitions ([`Wormhole::frozen`]) holding it, paused or live:
    /// a starting flow with none on its paths resumes no partition, without a pass over
    /// every skipped one ([`Sim::wh_flow_start`]).
    frozen_ports: Vec<u32>,
    /// `skip.held_occupancy`: per port, its virtual DATA stream's `(tx, period)` and the
    /// inputs they came from ([`Sim::virt_period`]).
    #[allow(clippy::type_complexity)]
    virt_period: Vec<Option<((u64, u64, u64), (u64, u64))>>,
    misses: BTreeMap<PartitionId, Miss>,
    /// Partitions whose unsteady period began since the last tick (memo lookups due).
    lookups: std::collections::BTreeSet<PartitionId>,
    memo: MemoDb,
    /// Interrupted transients (`skip.memo_interrupted`), keyed by the start-state graph.
    traj: Option<MemoDb<Trajectory>>,
    /// Ticks between a steady-memo miss and its interrupted-transient lookup (at least 1).
    traj_delay: u32,
    /// Per port, the wire packets and bytes skipped flows would have sent across it
    /// (`(tx_packets, tx_bytes)`, [`Sim::credit_skipped_links`]): added to `links.csv` at
    /// the end, kept apart from the port's own counters, which count what was simulated
    /// (the exact NIC-bound skip measures its host ports' rounds from them).
    link_credit: Vec<(u64, u64)>,
    /// Per flow, its ECMP path both ways for [`Sim::credit_skipped_links`] (DATA ports, ACK
    /// ports) and the entropy they were walked with (routes never change, so a flow's
    /// paths change only with its entropy).
    credit_paths: Vec<Option<(u16, Box<partitions::CreditPaths>)>>,
    /// `skip.memo_lockstep`: partitions starting the same transient at the same tick follow
    /// one leader.
    lockstep: bool,
    /// `skip.lockstep_complete`: matching follower flows complete with their leader's.
    lockstep_complete: bool,
    /// Per flow: completed by [`Sim::lockstep_complete`]; its packets still in the network
    /// are dropped before their host ([`Sim::wh_hold`]).
    purged: Vec<bool>,
    /// Some flow is in `purged`: host arrivals are checked ([`Sim::wh_hold`]).
    purged_any: bool,
    /// `skip.lockstep_stay`: a follower whose other flows all match stays paused across its
    /// leader flow's completion ([`Sim::lockstep_complete`]).
    lockstep_stay: bool,
    /// Followers kept paused across their leader flow's completion now: not released by
    /// that completion's interrupt ([`Sim::release_followers`]).
    keep: Vec<PartitionId>,
    /// Followers resumed by an interrupt at this instant (one of their flows, one of their
    /// leader's), to follow on at the same instant ([`Sim::refollow`]).
    refollow: Vec<(u32, u32)>,
    /// `skip.lockstep_fixed_leader`: only an exact partition (no flow on a [`Self::tainted`]
    /// host) leads a lockstep group.
    fixed_leader: bool,
    /// `skip.lockstep_shadow`: paused followers mirror their leader's packets on their
    /// shared ports ([`Sim::wh_mirror`]).
    shadow_on: bool,
    /// `skip.held_occupancy`: held DATA lanes keep the skipped flows' rate as occupancy
    /// ([`Sim::held_wait`]).
    held_occupancy: bool,
    /// `skip.foreign_ack_interrupts` (`data_ports`): ACKs crossing a partition's DATA ports
    /// interrupt it and key the memo ([`Sim::foreign_ack_interrupt`]).
    foreign_acks: bool,
    /// Per leader port: (leader flow, follower port, follower) for each follower port that
    /// mirrors a packet of that flow starting on that port, in the order mapped (a per-port
    /// index: the lookup at every leader transmission is a short scan, not a map search).
    shadow: Vec<Vec<(u32, u32, PartitionId)>>,
    /// Per flow: mirror entries keyed by it (a quick filter before [`Self::shadow`]).
    shadow_lead: Vec<u32>,
    /// Placeholders of DATA waiting on a port whose DATA lane is held.
    shadow_q: BTreeMap<u32, VecDeque<Packet>>,
    /// Per host: one of its flows was a lockstep follower, so every later flow of the host
    /// (its DAG successors start at a followed flow's completion) is off the exact run.
    tainted: Vec<bool>,
    /// Leader -> its paused followers (in the order they were paused: partition id order).
    leads: BTreeMap<PartitionId, Vec<PartitionId>>,
    done_seen: usize,
    /// Completed flows still in their partitions: their transport still acts for them
    /// ([`Sim::wh_lingering`]).
    lingering: Vec<u32>,
    started: usize,
    dag: Option<DagRun>,
    st: WhStats,
    /// Refusal warnings (setup); the guidance warnings are added at the run's end.
    warnings: Vec<String>,
    /// Eq. 11 / 13 inputs but `N` (when skipping), checked at setup.
    guidance: Option<GuidanceInput>,
    /// Active flows sending from / to each host (its host port), and the most seen on one
    /// host port at a time: the guidance's `N` (see [`Sim::wh_guidance`]).
    host_out: Vec<u32>,
    host_in: Vec<u32>,
    flows_per_port_max: u32,
}

impl Sim {
    /// Whether Wormhole has nothing left to do (every DAG task finished).
    pub(super) fn wh_finished(&self) -> bool {
        self.wh
            .as_ref()
            .is_none_or(|w| w.dag.as_ref().is_none_or(|d| d.done == d.dag.tasks.len()))
    }

    /// Whether the stall deadline applies (some flow started and not done, none paused).
    pub(super) fn wh_may_stall(&self) -> bool {
        self.wh
            .as_ref()
            .is_some_and(|w| w.started > self.flows_done && w.frozen.is_empty())
    }

    /// A [`Kind::Wormhole`] event.
    pub(super) fn on_wormhole(&mut self, i: u32) {
        match i {
            TICK => self.wh_tick(),
            WAKE => self.wh_wake(),
            REFOLLOW => self.refollow(),
            _ if i >= HELD0 => self.redeliver(i - HELD0),
            _ => {
                let t = (i - TASK0) / 2;
                if (i - TASK0).is_multiple_of(2) {
                    self.task_start(t);
                } else {
                    self.task_end(t);
                }
            }
        }
    }

    /// After an event: flows that completed leave their partitions (and end their tasks);
    /// those their transport still acts for leave once it stops.
    #[inline]
    pub(super) fn wh_after_event(&mut self) {
        if self
            .wh
            .as_ref()
            .is_some_and(|w| w.done_seen != self.flows_done)
        {
            self.wh_completions();
        }
        if self.wh.as_ref().is_some_and(|w| !w.lingering.is_empty()) {
            self.wh_lingering();
        }
    }

    /// The DATA packet size of the run (bytes; the MTU of the Wormhole settings).
    pub(crate) fn wh_mtu(&self) -> u32 {
        self.wh
            .as_ref()
            .map_or(0, |w| u32::try_from(w.mtu).unwrap_or(u32::MAX))
    }
}
