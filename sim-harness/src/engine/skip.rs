//! Wormhole in the run loop (`../shared/papers/wormhole.md` sections 4-6): incremental
//! port-level partitions, per-flow steady-state detection, fast-forwarding of steady
//! partitions with skip-back, memoization of unsteady periods, and the LLM DAG's
//! dependency-driven flow starts. Active only when `skip.enabled` or `workload.kind = "llm"`
//! ([`Sim::wh`] is `Some`); otherwise the run loop is the plain one.
//!
//! * **Partitions** (Def. 1, Appendix E, [`Partitions`]): a flow's path is every output
//!   port its DATA can use ([`Sim::flow_ports`]: the ECMP path, or with per-packet spraying
//!   every up port a tree route offers) and, with `skip.partition_by = "all_ports"` (the
//!   default), every port its ACKs / NACKs use on the way back; with `"data_ports"` those
//!   ACK ports are indexed but do not merge partitions. Flows join at their start (merge)
//!   and leave at their completion (split).
//! * **ACK ports shared with other partitions** (`data_ports` only): when a partition is
//!   skipped, its ports that carry another partition's ACKs are *not* paused: they keep
//!   serving their control lane in real time with their DATA lane held
//!   ([`PortRt::data_frozen`]; its occupancy stays, 6.2), and its own ACK-only ports run
//!   on. With `skip.held_occupancy` (beyond 6.2, whose paused ports carry nothing of the
//!   skipped flows) a held DATA lane keeps the skipped flows' rate as occupancy: a control
//!   packet waits for the end of a virtual DATA packet of a stream at that rate
//!   ([`Sim::held_wait`]). A packet of a skipped flow that reaches its host across such a port at `t` is held
//!   and delivered at `t + delta` when the partition resumes (as if its whole path had been
//!   shifted), so no skipped sender or receiver changes during the skip. The approximation:
//!   while skipped, the partition's ACKs are missing from the ports it shares with others;
//!   each such port serializes at its line rate less that ACK load (one header per DATA
//!   packet at the flows' estimated rates, [`Sim::add_phantom`]) instead. A flow that
//!   starts with its ACKs on a paused port of a skipped partition resumes it (skip-back).
//!   Measured (`benches/README.md`, session 6b): 85x fewer events on paper-size GPT-13B /
//!   128 but 1.35 % mean FCT error (the pipeline flows' timing moves), so not the default.
//! * **Steady state** (5.1, Eq. 6/7): every `skip.sample_us` each active flow's sending rate
//!   (payload bytes of the DATA packets it sent in the interval) goes to its
//!   [`SteadyDetector`] (`skip.theta`, `skip.samples`). Any change of a partition (a flow
//!   starting or finishing in it, a resume) resets its flows' detectors (5.3).
//! * **What `R(t_k)` is** (`skip.rate_metric`; 3 / 5.1 "a unified metric -- sending rate",
//!   7.3 / Fig. 13a with Theorem 1: the rate, the in-flight bytes and the queue are
//!   equivalent for steady-state identification): `"packets"` (the default, above), `"cc"`
//!   (the CCA's own rate at the sample instant, DCTCP's `cwnd / srtt` with
//!   [`FlowRt::srtt8`](crate::flow::FlowRt::srtt8) RFC 6298's smoothed RTT: no packet
//!   quantization) or `"inflight"` (bytes in flight / srtt), either capped at the host line
//!   rate (a sender whose window does not bind sends at its NIC's rate, not at
//!   `cwnd / srtt`). Eq. 7's estimate, the rate a
//!   skipped flow is advanced at, must stay what the flow delivers (`skip.rate_estimate`):
//!   `"packets"` (its packets over the window), `"timed"` (its new packets between the
//!   newest sends seen at the window's two ends over the exact time between them) or
//!   `"metric"` (the metric's window mean: cwnd / srtt over-states DCTCP's delivery by
//!   3-20 % at a few packets of window, measured). Under a CC metric a flow is steady only
//!   when, besides Eq. 6 on the metric, its window saw no loss (a sender stalled in an RTO
//!   has a constant window) and its measured rate lies within theta of the metric's mean.
//!   Measured (`benches/README.md`, session 8): on paper-size GPT-13B / 128, `"cc"` with
//!   `partition_by = "data_ports"` gives 73x fewer events at 0.93 % mean FCT error (the
//!   default 57x at 0.42 %), short of the 100x; `"packets"` stays the default.
//! * **Fast-forward** (5.3, 6.2, 6.3): when every flow of a partition is steady,
//!   [`skip::plan_skip`] gives the next interrupt: a flow's completion at its estimated
//!   rate (keeping [`RESERVE_BDPS`] BDPs of each flow for the packet level), a known event
//!   (the next timed arrival, a failure's start or end, the stop time) or the horizon
//!   ([`HORIZON_PS`]). The partition is *paused* at once ([`EventQueue::pause`]: its
//!   queues frozen with their occupancy, its events held) and a wake-up is scheduled at the
//!   interrupt. At the wake-up (or earlier, when a flow starting at `t2` needs one of its
//!   ports: the skip-back of 6.3, [`skip::skip_back`]) the partition resumes: each flow's
//!   sender drops the bytes it sent meanwhile at its estimated rate from its unsent part
//!   ([`nic::transport::DctcpSender::fast_forward`], whole packets), every absolute time
//!   the partition holds and its held events move by the time skipped
//!   ([`Sim::shift_state`], [`EventQueue::resume`]). Other partitions never see any of it.
//!   Pausing until the interrupt instead of shifting at the start makes skip-back a
//!   shorter resume: no event is ever moved back in time.
//! * **Soundness limits.** Only the DCTCP-style transport is fast-forwarded (its per-flow
//!   block state is the sender's window, unchanged in a steady state, and its message
//!   length; the REPS word and failure detector are left as they are: at a steady rate
//!   REPS recycles the same cached EVs, and their cycle counters move with the flow's
//!   clock; `tests/wormhole.rs` `reps_is_skipped_within_one_percent`: 7x fewer events,
//!   0.28 % mean FCT error on a cross-ToR tornado). DCSIM keeps per-host engines and counters that are not per flow: a DCSIM run
//!   with `skip.enabled` runs in full, says so on stderr and reports
//!   `wormhole_skip_refused = 1`.
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
//!   `skip.lockstep_shadow` (with `data_ports`, beyond 6.2, [`Sim::wh_mirror`]) gives a
//!   paused follower its leader's footprint on the ports it shares with other partitions:
//!   every packet a leader flow starts sending on a port of its path is mirrored as a placeholder
//!   ([`SHADOW_FLOW`], same size and lane) into the follower counterpart's port at the same
//!   hop when that port is not paused with it (its ACK-only ports; its DATA ports held with
//!   their control lane live, whose line also stays busy as long as the leader's), then
//!   serialized and discarded. A trace of paper-size GPT-13B / 128 showed these are the
//!   only ports that differ from the full run when the second pipeline boundary starts (per
//!   follower lane, the stage-1 host's NIC port without the first boundary's ACKs and the
//!   ToR port down to it without its DATA). Measured (`benches/README.md` session 11):
//!   exact on a small shared-port test; on the shipped sizes it removes most of
//!   `data_ports` lockstep's error (gpt_64 1.22 % to 0.020 %), at paper size 95.0x at
//!   1.56 % instead of 99.7x at 1.77 %: the rest is `data_ports`' own skipping of the
//!   colliding cross-ToR flows (1.35 % without lockstep), hence off.

use super::*;
use crate::scenario::{RateEstimate, RateMetric};
use crate::wormhole::guidance::{Guidance, GuidanceInput};
use crate::wormhole::llm::{LlmDag, TaskKind};
use crate::wormhole::memo::{self, CcState, FlowConflictGraph, MemoDb, MemoValue, Trajectory};
use crate::wormhole::partition::{Change, PartitionId, Partitions};
use crate::wormhole::skip::{self, KnownEvent, SkipBack, SkipPlan, SteadyFlow};
use crate::wormhole::steady::SteadyDetector;

/// The congestion controller's own sending rate (bit/s) at a sampling instant, for
/// `skip.rate_metric` `"cc"` (DCTCP: `cwnd / srtt`) or `"inflight"` (bytes in flight /
/// `srtt`), before the caller's cap at the host line rate: Wormhole 3 / 5.1 samples "the sending rate" of the CCA, and 7.3 (Fig. 13a,
/// Theorem 1) takes the rate, the in-flight bytes and the queue as equivalent metrics. A
/// window CCA's rate over its RTT has no packet quantization at the sample instant. 0 before
/// the first RTT sample (`srtt8`, 8 x SRTT in 1 GHz NIC cycles = ns), or for a sender
/// without a window (never skipped: refused at setup).
fn cc_rate(cc: &Cc, srtt8: u32, metric: RateMetric) -> u64 {
    let Cc::Dctcp(s) = cc else { return 0 };
    if srtt8 == 0 {
        return 0;
    }
    let bytes = match metric {
        RateMetric::Inflight => s.inflight(),
        _ => s.cwnd(),
    };
    // bytes * 8 bit / (srtt8 / 8 ns) = bytes * 64e9 / srtt8 bit/s.
    (u128::from(bytes) * 64_000_000_000 / u128::from(srtt8)) as u64
}

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

/// Flow id of a lockstep follower's placeholder packet (`skip.lockstep_shadow`,
/// [`Sim::wh_mirror`]): serialized by its port and discarded, never on a link.
pub(crate) const SHADOW_FLOW: u32 = u32::MAX;

/// Bytes of each flow kept for packet-level simulation after a skip, in BDPs of the run:
/// the tail (last window in flight, its ACKs) is simulated, not estimated.
pub const RESERVE_BDPS: u64 = 1;

/// The skip horizon when no interrupt is foreseen (6.3: "a relatively large time"): 1 s.
pub const HORIZON_PS: u64 = 1_000_000_000_000;

/// Rate classes of the conflict graph's flow weights ([`memo::rate_class`]).
const RATE_CLASSES: u32 = 16;

/// `skip.lockstep_fixed_leader`: a follower's flows may have packets left that differ from
/// their leader counterparts' by this fraction (1/64), or by 4 packets.
const LOCKSTEP_TOLERANCE: u64 = 64;

/// Largest partition (flows) the memo looks up: a conflict graph costs O(flows^2) to build,
/// and a partition that large (an all-to-all through the spines) rarely repeats exactly.
pub const MEMO_MAX_FLOWS: usize = 128;

/// Longest transient (sampling ticks) recorded for the interrupted-transient memo: a
/// partition unsteady for longer is not stored.
pub const TRAJ_MAX_TICKS: usize = 400;

/// Ticks between a steady-memo miss and its interrupted-transient lookup: the lookup sees
/// each new flow's first rate sample (measured on paper-size GPT-13B / 128: 1, 2 and 3
/// ticks give the same events within 4 %, `benches/README.md` session 7).
pub const TRAJ_DELAY_TICKS: u32 = 1;

/// One active flow's rate sampler.
#[derive(Debug, Clone)]
struct Sampler {
    det: SteadyDetector,
    /// DATA packets sent at the last sample (`None`: no baseline yet).
    last: Option<u64>,
    steady: bool,
    /// The flow's last rate estimate (bit/s), kept across detector resets: its weight in the
    /// conflict graph of the next unsteady period (4.2: the instantaneous rate; `None`, class
    /// 0, for a flow that has not had one yet).
    hint: Option<u64>,
    /// The flow's last rate sample (bit/s), kept across detector resets: its rate in the
    /// start state of an interrupted-transient lookup.
    last_rate: u64,
    /// Unless `skip.rate_metric` and `skip.rate_estimate` are both `"packets"`: at each of
    /// the last `l + 1` samples (since the last reset), the flow's DATA packets sent
    /// (cumulative) and its newest PSN sent with that send's NIC cycle stamp, for the
    /// steady estimate and the sent-something check.
    hist: std::collections::VecDeque<HistPoint>,
}

/// The active flows' samplers ([`Wormhole::active`]): a slot per flow index, the sorted
/// list of the active ones and the (unordered) list of those not frozen in a skipped
/// partition, so the sampling tick walks only the flows it samples (most active flows are
/// frozen) and a lookup is one index, where the `BTreeMap` this replaces walked its nodes
/// and every frozen flow. Same interface and order (by flow index) as the map.
#[derive(Debug, Default)]
struct Samplers {
    slots: Vec<Option<Box<Sampler>>>,
    ids: Vec<u32>,
    /// Active flows not in a paused partition (the ones sampled), in no particular order:
    /// a tick's samples are independent of each other.
    live: Vec<u32>,
    /// Per flow index, its place in `live` ([`NOT_LIVE`] if none).
    live_at: Vec<u32>,
}

/// [`Samplers::live_at`] of a flow not in `live`.
const NOT_LIVE: u32 = u32::MAX;

impl Samplers {
    fn get(&self, f: &u32) -> Option<&Sampler> {
        self.slots.get(*f as usize)?.as_deref()
    }

    fn get_mut(&mut self, f: &u32) -> Option<&mut Sampler> {
        self.slots.get_mut(*f as usize)?.as_deref_mut()
    }

    fn insert(&mut self, f: u32, s: Sampler) {
        let i = f as usize;
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        if self.slots[i].replace(Box::new(s)).is_none() {
            let at = self.ids.partition_point(|&x| x < f);
            self.ids.insert(at, f);
            self.put_live(f, true);
        }
    }

    fn remove(&mut self, f: &u32) {
        if self
            .slots
            .get_mut(*f as usize)
            .and_then(Option::take)
            .is_some()
        {
            let at = self.ids.partition_point(|&x| x < *f);
            self.ids.remove(at);
            self.put_live(*f, false);
        }
    }

    /// Whether active flow `f` is in a paused partition.
    fn is_frozen(&self, f: u32) -> bool {
        self.get(&f).is_some() && self.live_at[f as usize] == NOT_LIVE
    }

    /// Mark active flow `f` paused or not (nothing for a flow not active).
    fn set_frozen(&mut self, f: u32, frozen: bool) {
        if self.get(&f).is_some() {
            self.put_live(f, !frozen);
        }
    }

    /// Add `f` to `live` or take it out (swapping the last one into its place).
    fn put_live(&mut self, f: u32, live: bool) {
        let i = f as usize;
        if self.live_at.len() <= i {
            self.live_at.resize(i + 1, NOT_LIVE);
        }
        let at = self.live_at[i];
        if live && at == NOT_LIVE {
            self.live_at[i] = self.live.len() as u32;
            self.live.push(f);
        } else if !live && at != NOT_LIVE {
            self.live.swap_remove(at as usize);
            if let Some(&g) = self.live.get(at as usize) {
                self.live_at[g as usize] = at;
            }
            self.live_at[i] = NOT_LIVE;
        }
    }

    /// The active flows, in index order.
    fn keys(&self) -> std::slice::Iter<'_, u32> {
        self.ids.iter()
    }
}

/// A flow's sender at one sampling tick ([`Sampler::hist`]).
#[derive(Debug, Clone, Copy)]
struct HistPoint {
    /// DATA packets sent (cumulative).
    sent: u64,
    /// The newest PSN sent and its send's NIC cycle stamp.
    newest: Option<(u32, u32)>,
    /// Packets declared lost (cumulative).
    losses: u64,
}

impl Sampler {
    /// Packets sent over the detector's window (its last `l` intervals), once it is full.
    fn window_packets(&self, l: usize) -> Option<u64> {
        let n = self.hist.len();
        (n > l).then(|| self.hist[n - 1].sent - self.hist[n - 1 - l].sent)
    }

    /// Packets the flow's sender declared lost (NACK or RTO) over the detector's window.
    fn window_losses(&self, l: usize) -> Option<u64> {
        let n = self.hist.len();
        (n > l).then(|| self.hist[n - 1].losses - self.hist[n - 1 - l].losses)
    }

    /// The new packets sent between the newest sends seen at the window's first and last
    /// samples, over the exact time between those sends (bit/s); `None` if none.
    fn window_timed(&self, l: usize, mtu: u64) -> Option<u64> {
        let n = self.hist.len();
        if n <= l {
            return None;
        }
        let ((p0, t0), (p1, t1)) = (self.hist[n - 1 - l].newest?, self.hist[n - 1].newest?);
        let (pk, dt) = (p1.wrapping_sub(p0), t1.wrapping_sub(t0));
        if pk == 0 || dt == 0 || pk >= 1 << 31 {
            return None;
        }
        // NIC cycles are ns: bytes * 8 / (dt ns).
        Some((u128::from(pk) * u128::from(mtu) * 8_000_000_000 / u128::from(dt)) as u64)
    }

    /// Eq. 7's estimate `R^` (bit/s) of a steady flow, `None` when not steady. Under
    /// `rate_metric = "packets"` the detector's window mean (as always). Under another
    /// metric the flow must also have sent a packet in the window (a stalled sender's window
    /// is "steady" too), and the estimate is the measured rate (`rate_estimate =
    /// "packets"`: the window's packets over its length, what the flow really delivered) or
    /// the metric's window mean (`"metric"`, at most the host line rate).
    fn estimate(&self, w: &Wormhole) -> Option<u64> {
        if w.metric == RateMetric::Packets && w.estimate != RateEstimate::Timed {
            return self.det.estimate();
        }
        let est = self.det.estimate()?;
        let pk = self.window_packets(w.samples).filter(|&p| p > 0)?;
        // A sender recovering from a loss (an RTO stall above all) keeps a constant window
        // over a constant srtt, "steady" by cwnd / srtt while it sends next to nothing: a
        // window with a loss in it is not steady under a CC metric.
        if w.metric != RateMetric::Packets && self.window_losses(w.samples) != Some(0) {
            return None;
        }
        Some(match w.estimate {
            RateEstimate::Metric => est.min(w.capacity_bps),
            RateEstimate::Packets | RateEstimate::Timed => {
                let measured = if w.estimate == RateEstimate::Timed {
                    self.window_timed(w.samples, w.mtu)?
                } else {
                    let bits = u128::from(pk) * u128::from(w.mtu) * 8 * 1_000_000_000_000;
                    (bits / (u128::from(w.sample_ps) * w.samples as u128)) as u64
                };
                // Calibration: the metric must describe what the flow delivered over the
                // window (a burst at the start of a window, a ramp the metric does not show,
                // a stalled sender). The measured rate has to lie within theta of the
                // metric's mean, the same relative bound Eq. 6 puts on the samples.
                if measured.abs_diff(est) as u128 * 1_000_000
                    >= u128::from(self.det.theta_ppm()) * u128::from(est)
                {
                    return None;
                }
                measured
            }
        })
    }
}

/// A paused (skipped) partition.
#[derive(Debug, Clone)]
struct Frozen {
    plan: SkipPlan,
    flows: Vec<SteadyFlow>,
    ports: Vec<u32>,
    flow_ids: Vec<u32>,
    /// Ports left running with their DATA lane held (they carry other partitions' ACKs).
    live: Vec<u32>,
    /// The ACK load the partition's flows would put on ports of other partitions (port,
    /// bit/s), taken off those ports' line rate while it is skipped.
    phantom: Vec<(u32, u64)>,
    /// Packets of the partition's flows that reached their host while it was skipped:
    /// (arrival time, host, packet), delivered again `delta` later when it resumes.
    held: Vec<(Time, u32, Packet)>,
    /// `skip.held_occupancy`: the rate (bit/s) each held port's virtual DATA stream got.
    virt: Vec<(u32, u64)>,
    /// A memo hit's transient: it ends at `.0` with the stored bytes `.1` per flow (in
    /// `flows` order); the plan's steady part (at `flows`' rates, from what is left after the
    /// transient) follows it. `None`: a steady skip only.
    transient: Option<(Time, Vec<u64>)>,
    /// An interrupted-transient hit: the stored points (in `flows` order) up to the plan's
    /// end, read at a wake-up or skip-back for each flow's bytes and block state.
    traj: Option<Trajectory>,
    /// A lockstep follower (`skip.memo_lockstep`): advanced at its wake-up by what its
    /// leader's flows have sent since it was paused.
    follow: Option<Follow>,
    /// `skip.lockstep_shadow`: the follower's mirror entries (leader port, leader flow,
    /// follower port) in [`Wormhole::shadow`], taken out when it resumes.
    shadow: Vec<(u32, u32, u32)>,
}

/// A lockstep follower's link to its leader (`skip.memo_lockstep`).
#[derive(Debug, Clone)]
struct Follow {
    leader: PartitionId,
    /// Per flow of the follower (`Frozen::flows` order): the leader's flow in its place
    /// (the isomorphism of the two start-state graphs).
    lead_flows: Vec<u32>,
    /// Those leader flows' oldest unacknowledged PSN (`snd_una`) when the follower was
    /// paused.
    base: Vec<u64>,
    /// ... at the last sampling tick (the wake-up rule of [`Sim::lockstep_check`]).
    prev: Vec<u64>,
    /// Per flow: `skip.lockstep_complete` and its packets left to acknowledge equalled its
    /// leader flow's at the pause, so it completes at the leader flow's completion
    /// ([`Sim::lockstep_complete`]) and is not woken before its tail reserve.
    matching: Vec<bool>,
}

/// A leader candidate of one sampling tick's interrupted-transient lookups: the partition
/// and its flows in its start-state graph's vertex order (a lookup permutes them into the
/// follower's order, [`memo::PerFlowValue`]).
#[derive(Debug, Clone)]
struct LeadRef {
    leader: PartitionId,
    flows: Vec<u32>,
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

/// A memo miss waiting for its partition's steady state.
#[derive(Debug, Clone)]
struct Miss {
    graph: FlowConflictGraph,
    /// The partition's flows (graph vertex order) and their DATA packets sent at the start.
    flows: Vec<(u32, u64)>,
    at: Time,
    /// The interrupted-transient key (flows weighted by their start state, same vertex
    /// order), once looked up (that memo on).
    xgraph: Option<FlowConflictGraph>,
    /// Ticks until that lookup (`traj_delay`: the first ticks after an interrupt, the new
    /// flows' first windows, are simulated and not part of the stored transient).
    due: u32,
    /// When that lookup was made, and each flow's next new PSN then.
    xat: Time,
    xsent: Vec<u64>,
    /// Per sampling tick since `xat`: each flow's (new packets sent since `xat`, cc state).
    /// Sent, not acknowledged: a hit keeps the window in flight at its start, so it is
    /// credited what the stored transient sent (measured: crediting the acknowledged
    /// packets made the pipeline flows 12 % slow, the window's first RTT counted twice);
    /// new PSNs, not every transmission (retransmissions are no progress).
    points: Vec<Vec<(u64, CcState)>>,
    /// Longer than [`TRAJ_MAX_TICKS`]: not stored.
    overflow: bool,
}

impl Wormhole {
    /// Bytes one sampling tick carries at the host line rate (rounded up).
    fn line_tick_bytes(&self) -> u64 {
        (u128::from(self.capacity_bps) * u128::from(self.sample_ps)).div_ceil(8_000_000_000_000)
            as u64
    }
}

/// The LLM iteration being run.
#[derive(Debug, Clone)]
struct DagRun {
    dag: LlmDag,
    /// Flow index -> task, and task -> flow index (`u32::MAX`: a compute task).
    flow_task: Vec<u32>,
    task_flow: Vec<u32>,
    /// Dependencies not finished yet, per task.
    waiting: Vec<u32>,
    succ: Vec<Vec<u32>>,
    /// (start, finish) per task.
    times: Vec<(Time, Time)>,
    done: usize,
}

/// Counters of the summary's `wormhole_*` keys.
#[derive(Debug, Clone, Copy, Default)]
struct WhStats {
    ticks: u64,
    skips: u64,
    skip_backs: u64,
    skipped_ps: u64,
    skipped_packets: u64,
    partitions_max: u64,
    steady_entries: u64,
    memo_skips: u64,
    traj_skips: u64,
    /// Lockstep followers paused, released into their leader's steady skip, woken before
    /// their skippable bytes ran out.
    lock_follows: u64,
    lock_steady: u64,
    lock_reserve_wakes: u64,
    /// Follower flows completed at their leader flow's completion (`skip.lockstep_complete`)
    /// and their stale packets dropped before reaching their host.
    lock_completions: u64,
    lock_stale_drops: u64,
    /// Followers kept paused across a leader flow's completion (`skip.lockstep_stay`), and
    /// groups whose leader candidate was refused for a tainted host
    /// (`skip.lockstep_fixed_leader`).
    lock_stays: u64,
    lock_refollows: u64,
    lock_refused_leads: u64,
    /// Placeholders a paused follower's shared ports serialized for its leader's packets
    /// (`skip.lockstep_shadow`).
    lock_shadows: u64,
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
    active: Samplers,
    frozen: BTreeMap<PartitionId, Frozen>,
    misses: BTreeMap<PartitionId, Miss>,
    /// Partitions whose unsteady period began since the last tick (memo lookups due).
    lookups: std::collections::BTreeSet<PartitionId>,
    memo: MemoDb,
    /// Interrupted transients (`skip.memo_interrupted`), keyed by the start-state graph.
    traj: Option<MemoDb<Trajectory>>,
    /// Ticks between a steady-memo miss and its interrupted-transient lookup (at least 1).
    traj_delay: u32,
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
    /// Install Wormhole for scenario `s` (after the transport): nothing unless
    /// `skip.enabled` or an `llm` workload.
    pub(crate) fn wormhole_setup(&mut self, s: &Scenario) -> Result<()> {
        let llm = s.workload.kind == crate::scenario::WorkloadKind::Llm;
        if !s.skip.enabled && !llm {
            return Ok(());
        }
        // Only the DCTCP sender can be advanced (`DctcpSender::fast_forward`): every other
        // cc (MPRDMA's variant under the same driver included) runs in full, and says so.
        let refused = s.skip.enabled
            && !(matches!(self.transport, TransportDriver::Dctcp(_))
                && s.transport.cc == crate::scenario::CcKind::Dctcp);
        let skip = s.skip.enabled && !refused;
        let sample_ps = crate::units::us_to_ps("skip.sample_us", s.skip.sample_us)?;
        let mut warnings = Vec::new();
        if refused {
            warnings.push(format!(
                "skip.enabled: transport.cc = \"{}\" cannot be fast-forwarded soundly (only the \
                 DCTCP sender's per-flow state is advanced; DCSIM's hosts keep state that is \
                 not per flow, Uno's senders keep block and pacing state, MPRDMA's sender has \
                 no fast-forward yet); this run \
                 is simulated in full",
                format!("{:?}", s.transport.cc).to_lowercase()
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
            let t = &s.topology;
            let d = crate::validate::tor_host_ports(u64::from(t.radix), t.oversubscription);
            let (dag, _) = crate::workload::llm::dag(s, d as u32, self.fabric.hosts)?;
            // The collective metrics need every flow's start time up front; an LLM
            // iteration reports its own (`llm_*` keys, `iterations.csv`) instead.
            self.cm = None;
            Some(self.dag_setup(dag))
        } else {
            None
        };
        self.wh = Some(Box::new(Wormhole {
            skip,
            refused,
            sample_ps,
            theta: s.skip.theta,
            samples: s.skip.samples as usize,
            mtu,
            reserve_bytes: (RESERVE_BDPS * self.bdp_bytes).max(mtu),
            capacity_bps: (self.fabric.host_gbps * 1e9).round() as u64,
            all_ports: s.skip.partition_by == crate::scenario::PartitionBy::AllPorts,
            metric: s.skip.rate_metric,
            estimate: s.skip.rate_estimate,
            hdr: u64::from(s.transport.header_bytes),
            phantom: BTreeMap::new(),
            parts: Partitions::new(),
            redeliver: Vec::new(),
            free_slots: Vec::new(),
            ports: vec![Vec::new(); self.flows.len()],
            active: Samplers::default(),
            frozen: BTreeMap::new(),
            misses: BTreeMap::new(),
            lookups: Default::default(),
            memo: MemoDb::new(),
            traj: (skip && s.skip.memo_interrupted).then(MemoDb::new),
            traj_delay: TRAJ_DELAY_TICKS,
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
            shadow: vec![Vec::new(); self.ports.len()],
            shadow_lead: vec![0; self.flows.len()],
            shadow_q: BTreeMap::new(),
            tainted: vec![false; self.fabric.hosts as usize],
            leads: BTreeMap::new(),
            done_seen: 0,
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
            self.q.push(sample_ps, Comp::new(Kind::Wormhole, TICK));
        }
        Ok(())
    }

    fn dag_setup(&mut self, dag: LlmDag) -> DagRun {
        let n = dag.tasks.len();
        let mut task_flow = vec![u32::MAX; n];
        let mut flow_task = Vec::new();
        let mut succ = vec![Vec::new(); n];
        let mut waiting = vec![0u32; n];
        for (i, t) in dag.tasks.iter().enumerate() {
            if let TaskKind::Flow { .. } = t.kind {
                task_flow[i] = flow_task.len() as u32;
                flow_task.push(i as u32);
            }
            waiting[i] = t.deps.len() as u32;
            for &d in &t.deps {
                succ[d as usize].push(i as u32);
            }
        }
        debug_assert_eq!(flow_task.len(), self.flows.len());
        for (i, t) in dag.tasks.iter().enumerate() {
            if t.deps.is_empty() {
                self.q
                    .push(0, Comp::new(Kind::Wormhole, TASK0 + 2 * i as u32));
            }
        }
        DagRun {
            dag,
            flow_task,
            task_flow,
            waiting,
            succ,
            times: vec![(NEVER, NEVER); n],
            done: 0,
        }
    }

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

    /// After an event: flows that completed leave their partitions (and end their tasks).
    #[inline]
    pub(super) fn wh_after_event(&mut self) {
        if self
            .wh
            .as_ref()
            .is_some_and(|w| w.done_seen != self.flows_done)
        {
            self.wh_completions();
        }
    }

    fn task_start(&mut self, t: u32) {
        let now = self.now;
        let Some(d) = self.wh.as_mut().and_then(|w| w.dag.as_mut()) else {
            return;
        };
        d.times[t as usize].0 = now;
        match d.dag.tasks[t as usize].kind {
            TaskKind::Compute { duration_ps, .. } => {
                self.q.push(
                    now.saturating_add(duration_ps),
                    Comp::new(Kind::Wormhole, TASK0 + 2 * t + 1),
                );
            }
            TaskKind::Flow { .. } => {
                let f = d.task_flow[t as usize];
                self.flows[f as usize].spec.start_ps = now;
                self.wh_flow_start(f);
                self.transport_open(f);
                self.wh_flow_opened(f);
            }
        }
    }

    fn task_end(&mut self, t: u32) {
        let now = self.now;
        let Some(d) = self.wh.as_mut().and_then(|w| w.dag.as_mut()) else {
            return;
        };
        d.times[t as usize].1 = now;
        d.done += 1;
        let mut ready = Vec::new();
        for &s in &d.succ[t as usize] {
            d.waiting[s as usize] -= 1;
            if d.waiting[s as usize] == 0 {
                ready.push(s);
            }
        }
        for s in ready {
            self.task_start(s);
        }
    }

    /// The output ports flow `f`'s packets can use (the flow's ECMP entropy both ways, or
    /// every up port under per-packet spraying): (its partition path, its other ACK ports).
    /// With `partition_by = "data_ports"` the DATA path and the ACK path; with `"all_ports"`
    /// both in the path.
    pub(crate) fn flow_ports(&self, f: u32) -> (Vec<u32>, Vec<u32>) {
        let flow = &self.flows[f as usize];
        let ev = match &flow.lb {
            Lb::Ecmp(e) => Some(e.ev()),
            _ => None,
        };
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

    fn walk(&self, src: u32, dst: u32, ev: Option<u16>, out: &mut std::collections::BTreeSet<u32>) {
        let mut todo = vec![src];
        out.insert(src);
        while let Some(p) = todo.pop() {
            let Node::Switch(s) = self.ports[p as usize].peer else {
                continue;
            };
            let (route, seed) = self.switches[s as usize];
            let mut next = Vec::new();
            match ev {
                Some(ev) => next.extend(route.select(src, dst, ev, seed)),
                None => {
                    #[allow(irrefutable_let_patterns)]
                    if let Route::Tree {
                        lo,
                        hi,
                        per_down,
                        first_down,
                        first_up,
                        n_up,
                    } = route
                    {
                        if dst >= lo && dst < hi {
                            next.push(first_down + (dst - lo) / per_down);
                        } else {
                            next.extend(first_up..first_up + n_up);
                        }
                    } else {
                        let sw = &self.fabric.switches[s as usize];
                        next.extend(sw.first_port..sw.first_port + sw.n_ports);
                    }
                }
            }
            for n in next {
                if out.insert(n) {
                    todo.push(n);
                }
            }
        }
    }

    /// Flow `f` starts now (before its transport opens): resume every skipped partition it
    /// touches (skip-back), join the partitions, reset detectors, look the new unsteady
    /// period up in the memo.
    pub(super) fn wh_flow_start(&mut self, f: u32) {
        let (ports, acks) = self.flow_ports(f);
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
        // Its ACKs need the paused ports of a skipped partition: resume it too.
        touched.extend(
            w.frozen
                .iter()
                .filter(|(_, fr)| acks.iter().any(|p| fr.ports.binary_search(p).is_ok()))
                .map(|(&id, _)| id),
        );
        touched.sort_unstable();
        touched.dedup();
        for id in touched {
            self.note_refollow(id);
            self.thaw(id);
        }
        let w = self.wh.as_ref().expect("checked");
        let mut joined: Vec<PartitionId> = ports
            .iter()
            .filter_map(|&p| w.parts.partition_of_port(p))
            .collect();
        joined.sort_unstable();
        joined.dedup();
        for id in joined {
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
            Sampler {
                det: SteadyDetector::new(w.theta, w.samples).expect("checked by validate"),
                last: None,
                steady: false,
                hint: None,
                last_rate: 0,
                hist: Default::default(),
            },
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
    }

    /// Flow `f`'s transport has opened: its partition begins an unsteady period, looked up
    /// in the memo at the next sampling tick (flows that start together, as a collective's
    /// do, make one lookup).
    pub(super) fn wh_flow_opened(&mut self, f: u32) {
        if let Some(w) = self.wh.as_mut().filter(|w| w.skip) {
            if let Some(id) = w.parts.partition_of_flow(f) {
                w.lookups.insert(id);
            }
        }
    }

    /// Reset the detectors of partition `id`'s flows (an interrupt, 5.3).
    fn reset_partition(&mut self, id: PartitionId) {
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
            }
        }
    }

    /// DATA packets flow `f` has sent (first transmissions and retransmissions).
    fn packets_sent(&self, f: u32) -> Option<u64> {
        let flow = &self.flows[f as usize];
        flow.cc.as_ref().map(|c| c.stats().packets_sent)
    }

    fn wh_completions(&mut self) {
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

    /// The rate-sampling tick: one sample per active flow not skipped, then every partition
    /// whose flows are all steady is fast-forwarded.
    fn wh_tick(&mut self) {
        let w = self.wh.as_mut().expect("wormhole on");
        for id in std::mem::take(&mut w.lookups) {
            self.memo_lookup(id);
        }
        let w = self.wh.as_mut().expect("wormhole on");
        w.st.ticks += 1;
        let (mtu, sample_ps, metric, l) = (w.mtu, w.sample_ps, w.metric, w.samples);
        let keep_hist = metric != RateMetric::Packets || w.estimate == RateEstimate::Timed;
        // Partitions with a steady flow: the only ones that may be all steady.
        let mut ready: Vec<PartitionId> = Vec::new();
        // Out of `w` while sampling, so a sampler can read `w`'s settings.
        let mut active = std::mem::take(&mut w.active);
        for &f in &active.live {
            let Some(s) = active.slots[f as usize].as_deref_mut() else {
                continue;
            };
            let flow = &self.flows[f as usize];
            let Some(cc) = flow.cc.as_ref() else {
                continue;
            };
            let sent = cc.stats().packets_sent;
            if keep_hist {
                let newest = match cc {
                    Cc::Dctcp(d) => d.newest_sent(),
                    _ => None,
                };
                s.hist.push_back(HistPoint {
                    sent,
                    newest,
                    losses: cc.stats().losses,
                });
                if s.hist.len() > l + 1 {
                    s.hist.pop_front();
                }
            }
            if let Some(last) = s.last {
                let bits = u128::from(sent - last) * u128::from(mtu) * 8;
                let rate = (bits * 1_000_000_000_000 / u128::from(sample_ps)) as u64;
                s.det.push(match metric {
                    RateMetric::Packets => rate,
                    RateMetric::Cc | RateMetric::Inflight => {
                        cc_rate(cc, flow.srtt8, metric).min(w.capacity_bps)
                    }
                });
                s.last_rate = rate;
                let est = s.estimate(w);
                let steady = est.is_some();
                if steady {
                    s.hint = est;
                }
                if steady && !s.steady {
                    w.st.steady_entries += 1;
                }
                s.steady = steady;
            }
            s.last = Some(sent);
            if s.steady {
                ready.extend(w.parts.partition_of_flow(f));
            }
        }
        w.active = active;
        ready.sort_unstable();
        ready.dedup();
        // After the samples: an interrupted-transient lookup sees each flow's latest.
        self.traj_record();
        self.lockstep_check();
        let w = self.wh.as_ref().expect("wormhole on");
        ready.retain(|&id| {
            !w.frozen.contains_key(&id)
                && w.parts
                    .flows(id)
                    .is_some_and(|fl| fl.iter().all(|f| w.active.get(f).is_some_and(|s| s.steady)))
        });
        for id in ready {
            self.try_skip(id);
        }
        self.q
            .push(self.now + sample_ps, Comp::new(Kind::Wormhole, TICK));
    }

    /// The flows of partition `id` as [`SteadyFlow`]s at their steady rates `rate(f)`, if
    /// every one is a DCTCP sender.
    fn steady_flows(
        &self,
        id: PartitionId,
        rate: impl Fn(u32) -> Option<u64>,
    ) -> Option<Vec<SteadyFlow>> {
        let w = self.wh.as_ref()?;
        let mut v = Vec::new();
        for &f in w.parts.flows(id)? {
            let Some(Cc::Dctcp(s)) = &self.flows[f as usize].cc else {
                return None;
            };
            v.push(SteadyFlow {
                flow: f,
                remaining_bytes: u64::from(s.unsent()) * w.mtu,
                rate_bps: rate(f)?,
                reserve_bytes: w.reserve_bytes,
            });
        }
        Some(v)
    }

    /// Known future events (5.3): the next timed arrival, failures, the stop time.
    fn known_events(&self) -> Vec<KnownEvent> {
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
    fn next_known_ps(&self) -> u64 {
        self.known_events()
            .iter()
            .map(|k| k.at_ps)
            .min()
            .unwrap_or(NEVER)
    }

    /// The fast-forward of `flows` to their next interrupt (6.3: a completion at the estimated
    /// rate or a known event, within the horizon), if it skips at least one sampling interval.
    fn plan_ahead(&self, flows: &[SteadyFlow]) -> Option<SkipPlan> {
        let known = self.known_events();
        let horizon = self.now.saturating_add(HORIZON_PS);
        let plan = skip::plan_skip(self.now, flows, &known, Some(horizon)).ok()??;
        let sample_ps = self.wh.as_ref()?.sample_ps;
        (plan.shift_ps() >= sample_ps).then_some(plan)
    }

    /// Fast-forward partition `id` (all its flows steady) if an interrupt lies ahead.
    fn try_skip(&mut self, id: PartitionId) {
        let Some(w) = self.wh.as_ref() else { return };
        if !w.skip {
            return;
        }
        let est = |f: u32| w.active.get(&f).and_then(|s| s.estimate(w));
        let Some(flows) = self.steady_flows(id, est) else {
            return;
        };
        let Some(plan) = self.plan_ahead(&flows) else {
            return;
        };
        self.memo_insert(id, &flows);
        let rates: Vec<(u32, u64)> = flows.iter().map(|f| (f.flow, f.rate_bps)).collect();
        self.freeze(id, plan, flows, None, None);
        // A leader turned steady: its followers go on into the same steady state (3.2 step
        // 3, as a memo hit does).
        let w = self.wh.as_ref().expect("wormhole on");
        if w.leads.contains_key(&id) {
            let skipped = w.frozen.contains_key(&id);
            self.release_followers(id, skipped.then_some(rates));
        }
    }

    /// Pause partition `id` until `plan.until_ps` (a wake-up then).
    fn freeze(
        &mut self,
        id: PartitionId,
        plan: SkipPlan,
        flows: Vec<SteadyFlow>,
        transient: Option<(Time, Vec<u64>)>,
        traj: Option<Trajectory>,
    ) {
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
        self.wh_holding = !all_ports || purged;
        self.q.pause(id, shift::partition_set(&ports, &flow_ids));
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
        w.frozen.insert(
            id,
            Frozen {
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
            },
        );
    }

    /// Resume every skipped partition whose target time has come.
    fn wh_wake(&mut self) {
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
    fn thaw(&mut self, id: PartitionId) {
        let now = self.now;
        let w = self.wh.as_mut().expect("wormhole on");
        let Some(fr) = w.frozen.remove(&id) else {
            return;
        };
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
        let mut skipped = 0;
        for (f, bytes) in advance {
            if let Some(Cc::Dctcp(s)) = &mut self.flows[f as usize].cc {
                skipped +=
                    u64::from(s.fast_forward(u32::try_from(bytes / mtu).unwrap_or(u32::MAX)));
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
        for &p in &fr.live {
            self.ports[p as usize].data_frozen = false;
            self.kick(p);
        }
        self.add_phantom(&fr.phantom, false);
        let w = self.wh.as_mut().expect("wormhole on");
        w.st.skipped_packets += skipped;
        for (t, h, pk) in fr.held {
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
        self.wh_holding = (!w.all_ports && !w.frozen.is_empty()) || w.purged_any;
        self.reset_partition(id);
    }

    /// Add (or take back) a skipped partition's ACK load on ports of other partitions: each
    /// port serializes at its line rate less the ACK load it stands in for.
    fn add_phantom(&mut self, load: &[(u32, u64)], add: bool) {
        let w = self.wh.as_mut().expect("wormhole on");
        for &(p, bps) in load {
            let total = w.phantom.entry(p).or_default();
            if add {
                *total += bps;
            } else {
                *total -= bps;
            }
            let total = *total;
            if total == 0 {
                w.phantom.remove(&p);
            }
            let port = &mut self.ports[p as usize];
            let gbps = (port.gbps - total as f64 / 1e9).max(port.gbps / 2.0);
            port.ser_q32 = ser_q32(if total == 0 { port.gbps } else { gbps });
        }
    }

    /// Packet `pk` reaches host `h` while some partition is skipped: held if its flow's
    /// is, delivered otherwise.
    #[cold]
    #[inline(never)]
    pub(super) fn arrive_or_hold(&mut self, h: u32, pk: Packet) {
        if !self.wh_hold(h, &pk) {
            self.transport_arrive(h, pk);
        }
    }

    /// Packet `pk` of an active flow reaches its host now: if the flow's partition is
    /// skipped, hold it (delivered when the partition resumes, [`Sim::thaw`]) and say so.
    fn wh_hold(&mut self, h: u32, pk: &Packet) -> bool {
        let now = self.now;
        let Some(w) = self.wh.as_mut() else {
            return false;
        };
        if w.purged.get(pk.flow as usize).is_some_and(|&p| p) {
            // A stale packet of a flow completed with its lockstep leader: never delivered.
            w.st.lock_stale_drops += 1;
            return true;
        }
        if !w.active.is_frozen(pk.flow) {
            return false;
        }
        let Some(fr) = w
            .parts
            .partition_of_flow(pk.flow)
            .and_then(|id| w.frozen.get_mut(&id))
        else {
            return false;
        };
        fr.held.push((now, h, *pk));
        true
    }

    /// The delivery of held packet `slot` (its partition resumed): to its host, or held
    /// again if the partition is skipped once more.
    fn redeliver(&mut self, slot: u32) {
        let w = self.wh.as_mut().expect("wormhole on");
        let Some((h, pk)) = w.redeliver[slot as usize].take() else {
            return;
        };
        w.free_slots.push(slot);
        if self.wh_holding && self.wh_hold(h, &pk) {
            return;
        }
        self.transport_arrive(h, pk);
    }

    /// The conflict graph of partition `id` now (flows in id order, weighted by the rate
    /// class of their last estimate, 0 for a flow without one).
    fn conflict_graph(&self, id: PartitionId) -> Option<(FlowConflictGraph, Vec<u32>)> {
        let w = self.wh.as_ref()?;
        let flows: Vec<u32> = w.parts.flows(id)?.iter().copied().collect();
        let weights: Vec<(u32, &[u32])> = flows
            .iter()
            .map(|&f| {
                let r = w.active.get(&f).and_then(|s| s.hint).unwrap_or(0);
                (
                    memo::rate_class(r, w.capacity_bps, RATE_CLASSES),
                    w.ports[f as usize].as_slice(),
                )
            })
            .collect();
        Some((FlowConflictGraph::from_paths(&weights), flows))
    }

    /// The DATA packet size of the run (bytes; the MTU of the Wormhole settings).
    pub(crate) fn wh_mtu(&self) -> u32 {
        self.wh
            .as_ref()
            .map_or(0, |w| u32::try_from(w.mtu).unwrap_or(u32::MAX))
    }

    /// A new unsteady period of partition `id` begins: look it up; a hit skips the
    /// transient, a miss is remembered.
    fn memo_lookup(&mut self, id: PartitionId) {
        let Some(w) = self.wh.as_ref() else { return };
        let n = w.parts.flows(id).map_or(0, |f| f.len());
        if !w.skip || n == 0 || n > MEMO_MAX_FLOWS || w.frozen.contains_key(&id) {
            return;
        }
        let Some((g, flows)) = self.conflict_graph(id) else {
            return;
        };
        let w = self.wh.as_mut().expect("wormhole on");
        match w.memo.lookup(&g) {
            Some(v) => self.memo_hit(id, &flows, v),
            None => {
                let sent = flows
                    .iter()
                    .map(|&f| (f, self.packets_sent(f).unwrap_or(0)))
                    .collect();
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
                    },
                );
            }
        }
    }

    /// The interrupted-transient key of a partition with `flows` (vertex order) now: the
    /// conflict graph with each flow weighted by its start state, the rate class of its last
    /// sample (4.2's instantaneous rate) and, beyond the paper, its DCTCP block state: cwnd
    /// in half-octaves of the MTU, alpha in quarters, the slow-start flag. Two transients
    /// are taken for the same only when every flow starts in the same classes. `None` when
    /// that memo is off or a flow is not a DCTCP sender.
    fn start_state_graph(&self, flows: &[u32]) -> Option<FlowConflictGraph> {
        self.state_graph(flows, false)
    }

    /// [`Sim::start_state_graph`], with `remaining` each weight also carrying the flow's
    /// unsent packets in eighth-octaves ([`remaining_class`]): the lockstep key. A follower
    /// flow is advanced by its counterpart's progress, so two flows of a partition in the
    /// same start state but at different points of their messages (a flow that started
    /// earlier and one that just joined) must not be taken for each other.
    fn state_graph(&self, flows: &[u32], remaining: bool) -> Option<FlowConflictGraph> {
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

    /// The lockstep key under `skip.lockstep_fixed_leader`: the conflict graph of `flows`
    /// (id order) with each flow weighted by its rank in that order and its slow-start flag,
    /// so that the isomorphism maps the `i`-th flow of a follower onto the `i`-th of its
    /// leader (the same micro-batch in another lane). How far along each flow is, is
    /// checked with a tolerance ([`Sim::close_to`]) instead of the eighth-octave classes of
    /// [`remaining_class`], which split a follower one packet off its leader from it
    /// whenever the two straddle a class boundary (measured: 511 / 513 packets left).
    fn order_graph(&self, flows: &[u32]) -> Option<FlowConflictGraph> {
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
    fn close_to(&self, flows: &[u32], lead: &[u32]) -> bool {
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

    /// At a sampling tick: the interrupted-transient lookups that are due, and one point
    /// (each flow's packets sent since the lookup, its cc state) for every remembered miss
    /// looked up before, whose partition is simulated.
    fn traj_record(&mut self) {
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

    /// Partition `id` is on the exact run (`skip.lockstep_fixed_leader`): none of its
    /// flows' hosts ever had a lockstep follower flow ([`Wormhole::tainted`]).
    fn exact(&self, id: PartitionId) -> bool {
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

    /// The interrupted-transient lookup of partition `id` (a remembered miss of the steady
    /// memo): a hit skips the stored transient (the miss is dropped: its transient is not
    /// simulated), a miss starts recording one.
    fn traj_lookup(&mut self, id: PartitionId, leads: &mut MemoDb<LeadRef>) {
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
    fn traj_store(&mut self, id: PartitionId) {
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
    fn traj_hit(&mut self, id: PartitionId, flows: &[u32], tr: Trajectory) -> bool {
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

    /// Make partition `id` (flows `flows`, vertex order) a lockstep follower of `lr.leader`,
    /// which opened a miss of the same start-state graph at this tick and simulates it at
    /// packet level: paused at once (queues frozen, 6.2) until a wake-up (its own interrupt,
    /// a skip-back, the leader's transient ending, or its skippable bytes running out,
    /// [`Sim::lockstep_check`]), where it is advanced by the leader's trajectory up to then
    /// ([`Sim::thaw`]). Beyond the paper: Wormhole 4.4 only replays stored transients, which
    /// partitions in lockstep never find (they all miss at the same tick). Returns false (no
    /// follow) when the partition cannot be paused.
    fn follow(&mut self, id: PartitionId, flows: &[u32], lr: LeadRef) -> bool {
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

    /// The output ports flow `f`'s packets cross from `src` to `dst` (its DATA: the
    /// sender's to the receiver's; its ACKs: back), in hop order; `None` without a single
    /// ECMP path (per-packet spraying).
    fn hops(&self, f: u32, ack: bool) -> Option<Vec<u32>> {
        let flow = &self.flows[f as usize];
        let Lb::Ecmp(e) = &flow.lb else { return None };
        let (src, dst) = if ack {
            (flow.spec.dst, flow.spec.src)
        } else {
            (flow.spec.src, flow.spec.dst)
        };
        let mut out = vec![src];
        let mut p = src;
        while let Node::Switch(s) = self.ports[p as usize].peer {
            let (route, seed) = self.switches[s as usize];
            p = route.select(src, dst, e.ev(), seed)?;
            out.push(p);
            if out.len() > 64 {
                return None;
            }
        }
        Some(out)
    }

    /// `skip.lockstep_shadow`: follower `id` (just paused) mirrors its leader's packets on
    /// the ports of its paths that are not paused with it: its ACK-only ports (running; they
    /// may carry other partitions' DATA) and its DATA ports held with their control lane
    /// live (they carry other partitions' ACKs). Hop `i` of a follower flow's DATA (ACK)
    /// path mirrors hop `i` of its leader counterpart's, when the two paths are as long.
    /// dcfab's extension beyond Wormhole 6.2, whose frozen queues keep a skipped
    /// partition's occupancy but put none of its traffic on ports it shares: in a
    /// lockstep trajectory the follower's packets cross its shared ports as its leader's
    /// cross the leader's.
    fn shadow_map(&mut self, id: PartitionId) {
        let w = self.wh.as_ref().expect("wormhole on");
        let Some(fr) = w.frozen.get(&id) else { return };
        let Some(fo) = fr.follow.as_ref() else { return };
        let mut entries = Vec::new();
        for (f, &lf) in fr.flow_ids.iter().zip(&fo.lead_flows) {
            for ack in [false, true] {
                let (Some(mine), Some(lead)) = (self.hops(*f, ack), self.hops(lf, ack)) else {
                    continue;
                };
                if mine.len() != lead.len() {
                    continue;
                }
                for (&p2, &p) in mine.iter().zip(&lead) {
                    let paused = fr.ports.binary_search(&p2).is_ok();
                    let live = fr.live.binary_search(&p2).is_ok();
                    if live || !paused {
                        entries.push((p, lf, p2));
                    }
                }
            }
        }
        let w = self.wh.as_mut().expect("wormhole on");
        for &(p, lf, p2) in &entries {
            w.shadow[p as usize].push((lf, p2, id));
            w.shadow_lead[lf as usize] += 1;
        }
        // A held DATA lane's line is busy as long as its leader counterpart's (the
        // packet the leader's port is serializing now has its placeholder in progress).
        let now = self.now;
        for &(p, _, p2) in &entries {
            let busy = self.ports[p as usize].busy_until;
            let port = &mut self.ports[p2 as usize];
            if port.data_frozen && busy > now && busy != port.busy_until {
                port.busy_until = busy;
                if port.txdone_at != NEVER {
                    port.txdone_at = busy;
                    self.q.push(busy, Comp::new(Kind::TxDone, p2));
                }
            }
        }
        let w = self.wh.as_mut().expect("wormhole on");
        if let Some(fr) = w.frozen.get_mut(&id) {
            fr.shadow = entries;
        }
        self.wh_shadowing = true;
    }

    /// Take follower `id`'s mirror entries out (it resumes).
    fn shadow_unmap(&mut self, id: PartitionId, entries: &[(u32, u32, u32)]) {
        let Some(w) = self.wh.as_mut() else { return };
        for &(p, lf, p2) in entries {
            let v = &mut w.shadow[p as usize];
            if let Some(i) = v.iter().position(|&x| x == (lf, p2, id)) {
                v.remove(i);
                w.shadow_lead[lf as usize] -= 1;
            }
        }
    }

    /// Packet `pk` starts its transmission on port `p` now (`skip.lockstep_shadow`): if it
    /// is a leader flow's and the port is on its path, each paused follower mirroring it
    /// gets a placeholder of the same size in the same lane of its port at that hop (a
    /// control packet in the control lane; a DATA, where the follower's DATA lane is held,
    /// in [`Wormhole::shadow_q`], served only while that lane is held), served by the
    /// port's usual rules and discarded once serialized ([`SHADOW_FLOW`]): in lockstep the
    /// follower's port takes its line when the leader's does. A DATA placeholder for a
    /// running port (its DATA lane not held) is not made: only the follower's own (paused)
    /// DATA would be there.
    #[cold]
    #[inline(never)]
    pub(crate) fn wh_mirror(&mut self, p: u32, pk: &Packet) {
        let Some(w) = self.wh.as_mut() else { return };
        if w.shadow_lead.get(pk.flow as usize).is_none_or(|&n| n == 0) {
            return;
        }
        let Some(targets) = w.shadow.get(p as usize) else {
            return;
        };
        let sh = Packet {
            flow: SHADOW_FLOW,
            ..*pk
        };
        let mut kick = Vec::new();
        for &(_, p2, _) in targets.iter().filter(|t| t.0 == pk.flow) {
            let port = &mut self.ports[p2 as usize];
            if pk.kind.is_control() {
                port.ctrl_q.push_back(sh);
            } else if port.data_frozen {
                w.shadow_q.entry(p2).or_default().push_back(sh);
            } else {
                continue;
            }
            kick.push(p2);
        }
        w.st.lock_shadows += kick.len() as u64;
        for p2 in kick {
            self.kick(p2);
        }
    }

    /// The next DATA placeholder of port `p` (its DATA lane held), if any.
    #[cold]
    #[inline(never)]
    pub(crate) fn wh_shadow_pop(&mut self, p: u32) -> Option<Packet> {
        let w = self.wh.as_mut()?;
        let q = w.shadow_q.get_mut(&p)?;
        let x = q.pop_front();
        if q.is_empty() {
            w.shadow_q.remove(&p);
        }
        x
    }

    /// Port `p` has DATA placeholders waiting.
    #[cold]
    #[inline(never)]
    pub(crate) fn wh_shadow_pending(&self, p: u32) -> bool {
        self.wh
            .as_ref()
            .is_some_and(|w| w.shadow_q.contains_key(&p))
    }

    /// Leader `leader`'s transient ended (an interrupt, or a steady state with the leader's
    /// per-flow `rates`): each of its followers resumes now, advanced by the leader's
    /// trajectory ([`Sim::thaw`]); on a steady state it goes straight on into a steady skip
    /// at the rates of its counterparts in the leader, up to its own next interrupt (3.2
    /// step 3, as a memo hit does). Followers in the order they were paused.
    fn release_followers(&mut self, leader: PartitionId, rates: Option<Vec<(u32, u64)>>) {
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
            let Some(plan) = self.plan_ahead(&flows) else {
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
    fn note_refollow(&mut self, id: PartitionId) {
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
    fn refollow(&mut self) {
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
    fn lockstep_complete(&mut self, leader: PartitionId, lf: u32) {
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
            let left = u64::from(s.regs().total.saturating_sub(s.regs().snd_una));
            flow.stats = s.stats;
            if flow.conn != crate::flow::NO_CONN {
                self.conns.cwnd[flow.conn as usize] = s.cwnd();
            }
            flow.cc = None;
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
            self.wh_holding = true;
        }
    }

    /// At a sampling tick: wake every follower one more tick of its leader's progress
    /// would carry past one of its flows' skippable bytes (its remaining bytes less the
    /// packet-level tail reserve): it resumes at packet level with at least that reserve
    /// left, so its completions are simulated, not estimated.
    fn lockstep_check(&mut self) {
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

    /// Skip a transient the memo knows (4.4), then go straight to the steady state (3.2 step
    /// 3): the partition is paused for the stored convergence time with each flow advanced by
    /// its stored transient bytes, and on at the stored end rates until its next interrupt
    /// ([`skip::plan_skip`] from the transient's end, each flow's remaining bytes less its
    /// transient ones). A flow whose skippable bytes the transient would exceed cuts the
    /// transient short, pro rata, with no steady part.
    fn memo_hit(&mut self, id: PartitionId, flows: &[u32], v: MemoValue) {
        let Some(sf) = self.steady_flows(id, |f| {
            flows.iter().position(|&x| x == f).map(|i| v.end_rates[i])
        }) else {
            return;
        };
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
    fn memo_insert(&mut self, id: PartitionId, flows: &[SteadyFlow]) {
        let w = self.wh.as_mut().expect("wormhole on");
        let Some(m) = w.misses.remove(&id) else {
            return;
        };
        if m.flows.len() != flows.len() || m.flows.iter().zip(flows).any(|(a, b)| a.0 != b.flow) {
            return;
        }
        let mtu = w.mtu;
        let transient_bytes = m
            .flows
            .iter()
            .map(|&(f, at)| {
                let now = self.flows[f as usize]
                    .cc
                    .as_ref()
                    .map_or(at, |c| c.stats().packets_sent);
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

    /// The guidance of Eq. 11 / 13 (section 5.2) for this run's `C` (the host link rate),
    /// base `RTT` and `N`, and its warnings for `skip.theta` / `skip.samples`; `None` unless
    /// skipping. `N` is the most flows that were active at one time on one host port (sending
    /// from, or sending to, one host): the paper's derivation is DCTCP's fluid model of `N`
    /// long flows sharing one bottleneck, and on the fabrics and workloads here (collectives,
    /// one GPU per host port, full-bisection or oversubscribed trees) the host port is where
    /// concurrent flows meet for sure; a fabric link shared by more flows than any host port
    /// (hashing collisions, oversubscription) is not counted. Known at the run's end (flows
    /// start on their dependencies), so the warnings are printed then; at least 1.
    fn wh_guidance(&self) -> Option<(Guidance, Vec<String>)> {
        let w = self.wh.as_ref()?;
        let gin = GuidanceInput {
            flows: w.flows_per_port_max.max(1),
            ..w.guidance?
        };
        let g = Guidance::new(&gin).expect("checked at setup; N >= 1");
        let warn = g
            .warnings(w.theta, w.samples as u64)
            .into_iter()
            .map(|m| {
                format!(
                    "skip: {m} (N = {}: the most flows at once on one host port)",
                    gin.flows
                )
            })
            .collect();
        Some((g, warn))
    }

    /// The `wormhole_*` and `llm_*` summary keys and `iterations.csv`.
    pub(super) fn wh_results(&self, r: &mut RunResult) {
        let Some(w) = self.wh.as_ref() else { return };
        let x = &mut r.summary.extra;
        let mut warnings = w.warnings.len();
        if let Some((g, warn)) = self.wh_guidance() {
            for m in &warn {
                eprintln!("warning: {m}");
            }
            warnings += warn.len();
            for (k, v) in [
                ("wormhole_guidance_n", w.flows_per_port_max.max(1) as f64),
                ("wormhole_guidance_bdp_packets", g.bdp_packets),
                ("wormhole_guidance_theta_min", g.theta_min),
                ("wormhole_guidance_tc_rtts", g.period_rtts),
                ("wormhole_guidance_samples_min", g.samples_min as f64),
            ] {
                x.insert(k.into(), v);
            }
        }
        if let Some(db) = &w.traj {
            let ts = db.stats();
            insert_counts(
                x,
                &[
                    ("wormhole_memo_traj_hits", ts.hits),
                    ("wormhole_memo_traj_misses", ts.misses),
                    ("wormhole_memo_traj_size", ts.entries),
                    ("wormhole_memo_traj_skips", w.st.traj_skips),
                ],
            );
        }
        if w.lockstep {
            insert_counts(
                x,
                &[
                    ("wormhole_lockstep_follows", w.st.lock_follows),
                    ("wormhole_lockstep_steady", w.st.lock_steady),
                    ("wormhole_lockstep_reserve_wakes", w.st.lock_reserve_wakes),
                ],
            );
        }
        if w.lockstep_complete {
            insert_counts(
                x,
                &[
                    ("wormhole_lockstep_completions", w.st.lock_completions),
                    ("wormhole_lockstep_stale_drops", w.st.lock_stale_drops),
                ],
            );
        }
        if w.lockstep_stay {
            insert_counts(
                x,
                &[
                    ("wormhole_lockstep_stays", w.st.lock_stays),
                    ("wormhole_lockstep_refollows", w.st.lock_refollows),
                ],
            );
        }
        if w.fixed_leader {
            insert_counts(
                x,
                &[("wormhole_lockstep_refused_leads", w.st.lock_refused_leads)],
            );
        }
        if w.shadow_on {
            insert_counts(x, &[("wormhole_lockstep_shadows", w.st.lock_shadows)]);
        }
        let st = w.st;
        let ms = w.memo.stats();
        let events_per_pkt = if self.c.data_sent > 0 {
            self.c.events as f64 / self.c.data_sent as f64
        } else {
            0.0
        };
        let started = w.started.max(1) as f64;
        for (k, v) in [
            ("wormhole_skip", w.skip as u8 as f64),
            ("wormhole_skip_refused", w.refused as u8 as f64),
            ("wormhole_ticks", st.ticks as f64),
            ("wormhole_skips", st.skips as f64),
            ("wormhole_skip_backs", st.skip_backs as f64),
            ("wormhole_skipped_ps", st.skipped_ps as f64),
            ("wormhole_skipped_packets", st.skipped_packets as f64),
            (
                "wormhole_skipped_events",
                (st.skipped_packets as f64 * events_per_pkt).round(),
            ),
            ("wormhole_partitions", w.parts.stats().created as f64),
            ("wormhole_partitions_max", st.partitions_max as f64),
            (
                "wormhole_steady_entries_per_flow",
                st.steady_entries as f64 / started,
            ),
            ("wormhole_memo_hits", ms.hits as f64),
            ("wormhole_memo_misses", ms.misses as f64),
            ("wormhole_memo_size", ms.entries as f64),
            ("wormhole_memo_skips", st.memo_skips as f64),
            ("wormhole_warnings", warnings as f64),
        ] {
            x.insert(k.into(), v);
        }
        let Some(d) = w.dag.as_ref() else { return };
        let times: Vec<(u64, u64)> = d
            .times
            .iter()
            .map(|&(a, b)| {
                if a == NEVER || b == NEVER {
                    (0, 0)
                } else {
                    (a, b)
                }
            })
            .collect();
        let complete = d.done == d.dag.tasks.len();
        x.insert("llm_tasks".into(), d.dag.tasks.len() as f64);
        x.insert("llm_tasks_done".into(), d.done as f64);
        let Ok(it) = d.dag.iteration_times(&times) else {
            return;
        };
        x.insert(
            "llm_iteration_ps".into(),
            if complete {
                it.iteration_ps as f64
            } else {
                0.0
            },
        );
        let mut rows = Vec::new();
        for p in &it.phases {
            let name = format!("{:?}", p.phase).to_lowercase();
            x.insert(
                format!("llm_{name}_span_ps"),
                p.last_finish_ps.saturating_sub(p.first_start_ps) as f64,
            );
            x.insert(format!("llm_{name}_mean_ps"), p.mean_fct_ps as f64);
            rows.push(vec![
                "0".into(),
                name,
                p.tasks.to_string(),
                p.first_start_ps.to_string(),
                p.last_finish_ps.to_string(),
                p.mean_fct_ps.to_string(),
                p.max_fct_ps.to_string(),
            ]);
        }
        rows.push(vec![
            "0".into(),
            "iteration".into(),
            d.dag.tasks.len().to_string(),
            "0".into(),
            if complete { it.iteration_ps } else { 0 }.to_string(),
            String::new(),
            String::new(),
        ]);
        r.tables.insert(
            "iterations".into(),
            crate::results::Table {
                header: [
                    "iteration",
                    "phase",
                    "tasks",
                    "first_start_ps",
                    "last_finish_ps",
                    "mean_task_ps",
                    "max_task_ps",
                ]
                .map(String::from)
                .to_vec(),
                rows,
            },
        );
    }
}

/// An interrupted-transient vertex weight: rate class `rc` (bits 0-4), the cwnd in
/// half-octaves of `mtu` (bits 5-10), alpha in quarters of 1.0 (bits 11-13), slow start
/// (bit 14).
fn state_class(rc: u32, (cwnd, alpha, ss): CcState, mtu: u64) -> u32 {
    let pkts = (u64::from(cwnd) / mtu.max(1)).max(1);
    // 2 log2(pkts), rounded down to half-octaves: floor(log2(pkts^2)).
    let cw = (63 - pkts.saturating_mul(pkts).leading_zeros()).min(63);
    let a = (alpha >> 14).min(4);
    rc.min(31) | cw << 5 | a << 11 | u32::from(ss) << 14
}

/// A flow's unsent packets in eighth-octaves (`8 floor(log2 n)` plus the next three bits;
/// 0 for none), at most 17 bits: the part of the lockstep key that tells flows at different
/// points of their messages apart.
fn remaining_class(unsent: u32) -> u32 {
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

/// Counters as `summary.json` `extra` keys.
fn insert_counts(x: &mut std::collections::BTreeMap<String, f64>, counts: &[(&str, u64)]) {
    for &(k, v) in counts {
        x.insert(k.into(), v as f64);
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
