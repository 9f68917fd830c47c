//! `[workload]`: the traffic (DESIGN.md, "Scenario files"): synthetic patterns, DCSIM 4.1's
//! collectives, REPS 4.2's AI collectives, Uno 5.1's two-datacenter mixes and
//! `[workload.llm]`, one Wormhole Table 1 training iteration.

use serde::{Deserialize, Serialize};

use super::{is_false, is_off, Size};

/// The order of each host's flows in an `all_to_all` (`workload.order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum A2aOrder {
    /// Every host to `0, 1, 2, ...` (skipping itself): all hosts step through the
    /// destinations together.
    #[default]
    InStep,
    /// Host `i` to `i + 1, i + 2, ...` (mod n): the shifted schedule of an all-to-all
    /// collective, n - 1 different destinations at each step.
    Shifted,
    /// Each host's destinations in its own random order (drawn from the seed).
    Random,
}

impl A2aOrder {
    /// The default (left out of a written `scenario.toml`).
    pub fn is_in_step(&self) -> bool {
        *self == A2aOrder::InStep
    }
}

/// Traffic patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Each host sends one message to a distinct random host.
    Permutation,
    /// Host i sends to host (i + hosts/2) mod hosts.
    Tornado,
    /// `degree` senders to one receiver.
    Incast,
    /// Every host to every other host.
    AllToAll,
    /// All-to-all-v (DCSIM).
    AllToAllV,
    /// Web-search flow sizes with Poisson arrivals.
    Websearch,
    /// LLM training collectives (Wormhole).
    Llm,
    /// `two_dc`: intra- and inter-DC senders to one receiver (Uno 5.1).
    MixedIncast,
    /// `two_dc`: web-search intra-DC and WAN-sized inter-DC flows, Poisson (Uno 5.1).
    UnoMix,
    /// `two_dc`: data-parallel Allreduce bursts across the datacenters (Uno 5.1).
    DcAllreduce,
    /// AllReduce by a ring laid across the spine (REPS 4.2; `workload::ai`).
    RingAllreduce,
    /// AllReduce by recursive halving and doubling (REPS 4.2; `workload::ai`).
    ButterflyAllreduce,
}

/// The traffic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Workload {
    /// permutation | tornado | incast | all_to_all | all_to_all_v | websearch | llm.
    pub kind: WorkloadKind,
    /// Message size per flow.
    pub message: Size,
    /// Incast degree (senders per receiver).
    pub degree: u32,
    /// Target load for Poisson workloads (0..1 of host link rate).
    pub load: f64,
    /// Number of flows for Poisson workloads.
    pub flows: u32,
    /// Tornado only: only the first half of the hosts send (host i < hosts/2 to
    /// i + hosts/2), so traffic crosses the tree in one direction (REPS 4.3.2 micro
    /// benchmark).
    pub one_way: bool,
    /// Collectives (DCSIM 4.1): 0 = one collective of every host; n >= 1 = n collectives
    /// of `permutation`, `all_to_all` or `all_to_all_v`, each of a size drawn from
    /// `collective_sizes` over hosts drawn at random (a host may be in several), all
    /// starting at t = 0.
    pub collectives: u32,
    /// Sizes (hosts) a collective may have, drawn uniformly (DCSIM 4.1: 8, 16, 32, 64);
    /// capped at the host count.
    pub collective_sizes: Vec<u32>,
    /// `[workload.two_dc]`: the knobs of `mixed_incast`, `uno_mix` and `dc_allreduce`
    /// (written out only when it differs from its defaults).
    #[serde(skip_serializing_if = "TwoDcWorkload::is_default")]
    pub two_dc: TwoDcWorkload,
    /// `llm` only: the Table 1 configuration (`[workload.llm]`; absent = its defaults).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmWorkload>,
    /// `all_to_all` only: at most this many connections per host at a time (REPS 4.2's
    /// AllToAll with `n` parallel connections), on a line-rate schedule; 0 = all at once.
    pub parallel: u32,
    /// `all_to_all` with `parallel >= 1` only: self-clocked instead of the line-rate
    /// schedule, as the REPS artifact's AllToAll: the hosts in a seeded random order, each
    /// sending to its peers in rounds spread over the group, and a host opens its next
    /// connection when one of its open ones completes (`crate::workload::ai`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub self_clocked: bool,
    /// `all_to_all` (without `parallel` or `collectives`) only: the order of each host's
    /// flows, which a sender serving its flows in order (DCSIM's round-robin, section 2.4
    /// (1); SRPT's ties in pFabric and pHost) follows. Left out of the resolved
    /// `scenario.toml` when `in_step`.
    #[serde(skip_serializing_if = "A2aOrder::is_in_step")]
    pub order: A2aOrder,
    /// Background ECMP traffic (REPS 4.3.2): this fraction of the flows (drawn per flow
    /// from the seed) use ECMP whatever `transport.lb` is; 0 = none.
    pub background_ecmp: f64,
    /// Infinite flows (DCSIM 4.1, Fig. 4): every flow is larger than its host link can carry
    /// before `stop.max_time_us`, so none ends; `workload.message` is not used
    /// ([`crate::workload::infinite`]). Left out of the resolved `scenario.toml` when off.
    #[serde(skip_serializing_if = "is_false")]
    pub infinite: bool,
    /// Infinite flows: the window `[infinite_warmup_us, stop.max_time_us]` over which
    /// `extra.utilization_window` is measured, us (0 = from t = 0). Left out when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub infinite_warmup_us: f64,
    /// `websearch` only: each host draws its receiver once and sends every flow to it, as
    /// the REPS artifact's web-search traces ("For each node we select randomly the
    /// receiver", REPS 4.2; its `.cm` files repeat one `src->dst` per node), instead of a new
    /// random receiver per flow. Left out when off.
    #[serde(skip_serializing_if = "is_false")]
    pub fixed_receiver: bool,
}
/// GPT (TP-DP-PP) or MoE (TP-EP-DP-PP), Wormhole Table 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmFamily {
    /// Dense GPT.
    Gpt,
    /// Mixture of experts.
    Moe,
}

/// `[workload.llm]`: one training iteration of a Wormhole Table 1 configuration
/// ([`crate::wormhole::llm`]), each GPU a host of a rail-optimized fat tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmWorkload {
    /// gpt | moe.
    pub family: LlmFamily,
    /// GPUs: 64, 128, 256 or 1024 (Table 1); the topology needs at least as many hosts.
    pub gpus: u32,
    /// Forward compute per micro-batch and stage, us (used when `gpu_tflops` is 0).
    pub fwd_us: f64,
    /// Backward compute per micro-batch and stage, us (used when `gpu_tflops` is 0).
    pub bwd_us: f64,
    /// GPU rate in TFLOP/s: compute times from the model's FLOPs instead (0 = off).
    pub gpu_tflops: u64,
    /// Every message size times this factor (0 < x <= 1; 1 = the sizes of the formulas),
    /// for small instances.
    pub bytes_scale: f64,
}

impl Default for LlmWorkload {
    fn default() -> Self {
        LlmWorkload {
            family: LlmFamily::Gpt,
            gpus: 64,
            fwd_us: 50.0,
            bwd_us: 100.0,
            gpu_tflops: 0,
            bytes_scale: 1.0,
        }
    }
}

pub use crate::workload::uno::TwoDcWorkload;

impl Default for Workload {
    fn default() -> Self {
        Workload {
            kind: WorkloadKind::Permutation,
            message: Size::Bytes(2 * 1024 * 1024),
            degree: 8,
            load: 0.5,
            flows: 1000,
            one_way: false,
            collectives: 0,
            collective_sizes: vec![8, 16, 32, 64],
            llm: None,
            two_dc: TwoDcWorkload::default(),
            parallel: 0,
            self_clocked: false,
            order: A2aOrder::InStep,
            background_ecmp: 0.0,
            infinite: false,
            infinite_warmup_us: 0.0,
            fixed_receiver: false,
        }
    }
}
