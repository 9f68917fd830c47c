//! `[skip]`: Wormhole fast-forwarding (Wormhole 3-6: steady-state detection, Eq. 5-7;
//! partitions, Definition 1 / Algorithms 1-2; memoization, 4.3-4.4) and dcfab's extensions
//! of it (`engine/skip/`).

use serde::{Deserialize, Serialize};

/// Wormhole fast-forwarding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Skip {
    /// Enable steady-state skipping.
    pub enabled: bool,
    /// Steadiness threshold on the sampled rate variation (Wormhole Eq. 5-7).
    pub theta: f64,
    /// Number of rate samples `l`.
    pub samples: u32,
    /// Rate-sampling interval, us (each sample: the bytes a flow sent in one interval).
    #[serde(skip_serializing_if = "is_default_sample_us")]
    pub sample_us: f64,
    /// Which ports make flows one partition (Wormhole Definition 1).
    #[serde(skip_serializing_if = "is_default_partition_by")]
    pub partition_by: PartitionBy,
    /// Memoize transients that end in an interrupt (a flow arrival or completion) before
    /// they turn steady, sampled at every tick, keyed by the flows' start state (dcfab's
    /// extension of Wormhole 4.3-4.4; `engine/skip/trajectory.rs`). Off by default: measured, it
    /// does not pay on the shipped LLM scenarios (`benches/README.md`, session 7).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memo_interrupted: bool,
    /// Share a transient among partitions that start it in lockstep: a partition whose
    /// interrupted-transient key (conflict graph + start state) equals that of another
    /// partition opening its miss at the same tick follows it (paused, then advanced by the
    /// leader's simulated trajectory at its wake-up). dcfab's extension of Wormhole 4.4 /
    /// 6.2 (`engine/skip/lockstep.rs`); DCTCP only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memo_lockstep: bool,
    /// With `memo_lockstep`: a follower's flow whose packets left to acknowledge matched its
    /// leader counterpart's when it was paused completes at that counterpart's completion
    /// (its remaining bytes credited, its stale packets dropped before their host), instead
    /// of being woken before its tail (`engine/skip/lockstep.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lockstep_complete: bool,
    /// With `lockstep_complete`: a follower whose other flows all match stays paused across
    /// its leader flow's completion (the completed flow leaves it) and goes on following,
    /// instead of resuming its other flows mid-transfer (`engine/skip/lockstep.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lockstep_stay: bool,
    /// With `memo_lockstep`: only a partition simulated exactly from the start (none of its
    /// flows' hosts ever had a followed flow) leads a lockstep group; a partition touching a
    /// host of a former follower may follow but never leads (`engine/skip/lockstep.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lockstep_fixed_leader: bool,
    /// With `memo_lockstep` and `partition_by = "data_ports"`: while a lockstep follower is
    /// paused, its network footprint on the ports it shares with other partitions (its
    /// running ACK ports, its DATA ports held with their control lane live) is its leader's:
    /// every packet of a leader flow sent on a port of its path is mirrored, as a
    /// placeholder of the same size and lane, into the follower counterpart's port at the
    /// same hop, serialized there and discarded (`engine/skip/shadow.rs`, `Sim::wh_mirror`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lockstep_shadow: bool,
    /// With `partition_by = "data_ports"`: a skipped partition's held DATA lanes keep its
    /// flows' skipped rate as occupancy. Other partitions' control packets on such a port
    /// wait, as behind real DATA, for the end of a virtual MTU-sized DATA packet of a
    /// stream at the summed estimated rate of the skipped flows crossing it (started at
    /// the skip), instead of finding the line idle (beyond Wormhole 6.2, which pauses a
    /// skipped partition's ports outright; `engine/skip/held.rs`, `Sim::held_wait` in
    /// `engine/ports.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub held_occupancy: bool,
    /// With `partition_by = "data_ports"` (opt-in): a flow starting or completing whose
    /// ACKs cross a DATA port of another partition interrupts that partition (a skipped one
    /// resumes, the detectors restart, its pending memo miss is dropped), and the memo key
    /// counts each flow's foreign ACK streams, so no rate learned in another ACK context is
    /// replayed (beyond Wormhole 5.3 / 4; `engine/skip/partitions.rs`,
    /// `Sim::foreign_ack_interrupt`). Off by default: without it skipped flows can run
    /// ~1.5 % off on a small instance, but at paper size it costs a third of the skipped
    /// events and no mean error (`benches/README.md` Wormhole session 16b), which would
    /// leave `data_ports` dominated by `all_ports`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub foreign_ack_interrupts: bool,
    /// What the sampled sending rate `R(t_k)` of Eq. 5-6 is (Wormhole 3/5.1, "a unified
    /// metric -- sending rate"; 7.3 / Fig. 13a: R, the in-flight bytes and the queue are
    /// equivalent for steady-state identification, Theorem 1).
    #[serde(skip_serializing_if = "is_default_rate_metric")]
    pub rate_metric: RateMetric,
    /// Which rate advances a skipped flow's bytes (Eq. 7's estimate `R^`).
    #[serde(skip_serializing_if = "is_default_rate_estimate")]
    pub rate_estimate: RateEstimate,
    /// Bytes of each skipped flow kept for packet-level simulation before its completion, in
    /// BDPs of the run (at least one `mtu`): a skip plans a flow's completion as an interrupt
    /// only after `remaining - reserve` bytes, so the tail (its last window in flight and
    /// its ACKs) is simulated, not estimated (5.3's next interrupt; `engine/skip/setup.rs`).
    #[serde(skip_serializing_if = "is_default_reserve_bdps")]
    pub reserve_bdps: f64,
    /// A model-based steady test, `m` sampling intervals long (0: off): a flow whose
    /// sender is NIC-bound (its DCTCP window above what its fair share of its host's line
    /// rate needs over its smoothed RTT, no loss and no ECN-marked ACK over the last `m`
    /// intervals, empty queues beyond its host port, no port of its path loaded above its
    /// line rate by the partition's flows at their host shares) and whose measured rate
    /// over the last `m` intervals is within `theta` of that share (the host's line rate
    /// over its active flows, the round robin of its NIC) counts as steady without Eq. 6's
    /// `samples` window. dcfab's extension of Wormhole 3 / 6.2 (`engine/skip/steady.rs`);
    /// DCTCP only.
    #[serde(skip_serializing_if = "is_zero")]
    pub nic_bound_samples: u32,
    /// With `nic_bound_samples` > 0: a partition steady by that model is skipped by whole
    /// round-robin rounds of its host ports (one packet per flow plus the control packets a
    /// port sends per round; host ports carrying each other's ACKs at their joint period),
    /// each flow advanced by exactly that many packets and its DCTCP window state by that
    /// many ACKs, so it resumes where the full run would be instead of up to a packet off
    /// per flow; one not exactly periodic is not skipped by the model; a skip-back resumes
    /// at the nearest whole period. dcfab's extension of Wormhole 5.3 / 6.2
    /// (`engine/skip/exact.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nic_bound_exact: bool,
    /// With `nic_bound_exact`: a partition the model finds steady whose skip cannot go by
    /// whole rounds (no joint period of its host ports, a flow of it steady by Eq. 6 only)
    /// is skipped as without `nic_bound_exact` (at the model's rates, each flow resuming up
    /// to a packet off) instead of not at all. dcfab's extension
    /// (`engine/skip/fast_forward.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nic_bound_inexact: bool,
}

/// Default [`Skip::reserve_bdps`]: one BDP of packet-level tail.
pub const DEFAULT_RESERVE_BDPS: f64 = 1.0;

/// Largest [`Skip::reserve_bdps`] accepted.
pub const MAX_RESERVE_BDPS: f64 = 1000.0;

fn is_default_reserve_bdps(x: &f64) -> bool {
    *x == DEFAULT_RESERVE_BDPS
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

/// [`Skip::rate_metric`]: the sample `R(t_k)` the steady-state test (Eq. 6) runs on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateMetric {
    /// The payload of the DATA packets a flow sent in the sampling interval (quantized to
    /// whole packets: a flow sending 3-4 packets per sample swings 25-33 % sample to sample).
    #[default]
    Packets,
    /// The congestion controller's own sending rate at the sampling instant: for DCTCP,
    /// `cwnd / srtt` (the window over the smoothed RTT, RFC 6298 EWMA of the ACKs' RTT
    /// samples), at most the host line rate. No packet quantization.
    Cc,
    /// The sender's bytes in flight over its smoothed RTT at the sampling instant (7.3's
    /// in-flight metric `I`, as a rate; quantized to whole packets in flight).
    Inflight,
}

fn is_default_rate_metric(x: &RateMetric) -> bool {
    *x == RateMetric::default()
}

/// [`Skip::rate_estimate`]: the rate a skipped flow is advanced at (Eq. 7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateEstimate {
    /// The packets the flow actually sent over the detection window (its measured rate,
    /// whatever `rate_metric` judged steadiness on).
    #[default]
    Packets,
    /// The new packets the flow sent between the last send before the window's first
    /// sample and the last send before its last one, over the exact time between those two
    /// sends: the measured rate without the window's whole-packet quantization (a flow
    /// sending 70 packets in the window is otherwise estimated to +-1.4 %).
    Timed,
    /// The mean of the `rate_metric` samples over the window (Eq. 7 literally).
    Metric,
}

fn is_default_rate_estimate(x: &RateEstimate) -> bool {
    *x == RateEstimate::default()
}

/// [`Skip::partition_by`]: the ports through which flows join one partition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartitionBy {
    /// The output ports of each flow's DATA direction (its path, Algorithm 1 / 2); ports its
    /// ACKs share with another partition keep serving their control lane while it is skipped.
    DataPorts,
    /// Every port a flow's DATA or ACKs use: partitions merge through ACK-only ports too
    /// (the default: within the 1 % error budget on every shipped LLM scenario).
    #[default]
    AllPorts,
}

fn is_default_partition_by(x: &PartitionBy) -> bool {
    *x == PartitionBy::default()
}

/// Default [`Skip::sample_us`].
pub const DEFAULT_SAMPLE_US: f64 = 1.0;

fn is_default_sample_us(x: &f64) -> bool {
    *x == DEFAULT_SAMPLE_US
}

impl Default for Skip {
    fn default() -> Self {
        Skip {
            enabled: false,
            theta: 0.05,
            samples: 2000,
            sample_us: DEFAULT_SAMPLE_US,
            partition_by: PartitionBy::default(),
            memo_interrupted: false,
            memo_lockstep: false,
            lockstep_complete: false,
            lockstep_stay: false,
            lockstep_fixed_leader: false,
            lockstep_shadow: false,
            held_occupancy: false,
            foreign_ack_interrupts: false,
            rate_metric: RateMetric::default(),
            rate_estimate: RateEstimate::default(),
            reserve_bdps: DEFAULT_RESERVE_BDPS,
            nic_bound_samples: 0,
            nic_bound_exact: false,
            nic_bound_inexact: false,
        }
    }
}
