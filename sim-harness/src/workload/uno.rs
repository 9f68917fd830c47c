//! The two-datacenter workloads of Uno section 5.1 (`topology.kind = "two_dc"`; hosts
//! `0..H` are datacenter 0, `H..2H` datacenter 1), with their knobs in `[workload.two_dc]`:
//!
//! * `mixed_incast` ("Microbenchmarks", Fig. 3 / 8): `intra_senders` hosts of the receiver's
//!   datacenter and `inter_senders` hosts of the other one each send `workload.message` to one
//!   receiver, all at t = 0. With `rpc_flows` > 0 (Fig. 4, "Phantom queues"), that many small
//!   messages (sizes from `scenarios/data/google_rpc_cdf.csv`, Homa's Google-all-RPC workload)
//!   follow from random hosts of the receiver's datacenter to the same receiver, Poisson
//!   arrivals with mean gap `rpc_gap_us` from `rpc_start_us` on.
//! * `uno_mix` ("Realistic Workload", Fig. 10-12): Poisson arrivals at `workload.load` of the
//!   host link rate, `workload.flows` flows; each flow is intra-DC (web-search sizes,
//!   `scenarios/data/websearch_cdf.csv`) or inter-DC (`scenarios/data/wan_alibaba_like_cdf.csv`,
//!   a stand-in for Alibaba's regional-WAN sizes: see its header), with `inter_fraction` of the
//!   offered bytes inter-DC ("the ratio of datacenter to WAN traffic is set to 4:1": 0.2);
//!   sources uniform, destinations uniform in the source's datacenter or the other one.
//! * `dc_allreduce` (the AI training workload, Fig. 13 C): `iterations` data-parallel
//!   Allreduce bursts across the two datacenters, one every `iteration_us`; each burst is drawn
//!   uniformly from `burst_min..=burst_max` ("approximately 70-500 MiB per iteration") and
//!   spread evenly over `groups` Allreduce groups, group g pairing host `g * H / groups` of
//!   each datacenter, which exchange their halves (one flow each way; with `one_way` only the
//!   flow from datacenter 0 to 1, as the authors' Fig. 13 matrices). Iteration i is
//!   collective i (`collectives.csv`: its completion time).
//!
//! A permutation "across both DCs" is `workload.kind = "permutation"` on a `two_dc`: a random
//! derangement of all hosts, so about half the flows cross.

use super::FlowSpec;
use crate::error::{Error, Result};
use crate::scenario::{Scenario, Size, WorkloadKind};
use crate::units::num;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The web-search CDF as shipped (`scenarios/data/websearch_cdf.csv`).
pub const WEBSEARCH_CDF_CSV: &str = include_str!("../../../scenarios/data/websearch_cdf.csv");
/// The Alibaba-WAN-like inter-DC CDF as shipped (`scenarios/data/wan_alibaba_like_cdf.csv`).
pub const WAN_CDF_CSV: &str = include_str!("../../../scenarios/data/wan_alibaba_like_cdf.csv");
/// The inter-DC sizes of the Uno authors' Fig. 10 traffic matrix, as shipped
/// (`scenarios/data/uno_artifact_inter_cdf.csv`).
pub const ARTIFACT_INTER_CDF_CSV: &str =
    include_str!("../../../scenarios/data/uno_artifact_inter_cdf.csv");
/// The intra-DC sizes of the same matrix, as shipped
/// (`scenarios/data/uno_artifact_intra_cdf.csv`).
pub const ARTIFACT_INTRA_CDF_CSV: &str =
    include_str!("../../../scenarios/data/uno_artifact_intra_cdf.csv");
/// The Google-all-RPC message sizes as shipped (`scenarios/data/google_rpc_cdf.csv`).
pub const RPC_CDF_CSV: &str = include_str!("../../../scenarios/data/google_rpc_cdf.csv");
/// The RPC sizes of the Uno authors' Fig. 4 run, as shipped
/// (`scenarios/data/uno_artifact_rpc_cdf.csv`).
pub const ARTIFACT_RPC_CDF_CSV: &str =
    include_str!("../../../scenarios/data/uno_artifact_rpc_cdf.csv");

/// `[workload.two_dc]`: the knobs of the two-datacenter workloads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TwoDcWorkload {
    /// `mixed_incast`: senders in the receiver's datacenter.
    pub intra_senders: u32,
    /// `mixed_incast`: senders in the other datacenter.
    pub inter_senders: u32,
    /// `uno_mix`: fraction of the offered bytes (or flows, `inter_share`) in inter-DC flows
    /// (Uno 5.1, 4:1: 0.2).
    pub inter_fraction: f64,
    /// `uno_mix`: what `inter_fraction` is a fraction of: `bytes` (default) or `flows` (the
    /// authors' Fig. 10 traffic matrix: 20.6% of its flows are inter-DC). Written out only
    /// when not `bytes`.
    #[serde(skip_serializing_if = "InterShare::is_bytes")]
    pub inter_share: InterShare,
    /// `uno_mix`: the inter-DC size CDF: `wan_alibaba_like` (default, a synthetic stand-in)
    /// or `uno_artifact` (the authors' Fig. 10 traffic matrix's inter-DC sizes). Written out
    /// only when not the default.
    #[serde(skip_serializing_if = "InterSizes::is_default")]
    pub inter_sizes: InterSizes,
    /// `uno_mix`: the intra-DC size CDF: `websearch` (default, DCTCP's web search) or
    /// `uno_artifact` (the authors' Fig. 10 traffic matrix's intra-DC sizes, median 6.2 KB).
    /// Written out only when not the default.
    #[serde(skip_serializing_if = "IntraSizes::is_default")]
    pub intra_sizes: IntraSizes,
    /// `dc_allreduce`: training iterations.
    pub iterations: u32,
    /// `dc_allreduce`: time between two iterations' bursts, us.
    pub iteration_us: f64,
    /// `dc_allreduce`: smallest burst per iteration (Uno 5.1: about 70 MiB).
    pub burst_min: Size,
    /// `dc_allreduce`: largest burst per iteration (Uno 5.1: about 500 MiB).
    pub burst_max: Size,
    /// `dc_allreduce`: Allreduce groups (host pairs, one per datacenter) sharing a burst.
    pub groups: u32,
    /// `dc_allreduce`: only the flow from datacenter 0 to datacenter 1 of each group (each
    /// still `burst / (2 groups)` bytes), as the Uno authors' Fig. 13 traffic matrices
    /// (`fail_one.cm`, `ai.cm`: every flow from a host of datacenter 0 to one of datacenter 1).
    /// Written out only when true.
    #[serde(skip_serializing_if = "is_false")]
    pub one_way: bool,
    /// `mixed_incast`: small RPC messages to the receiver from its own datacenter (Uno Fig. 4).
    pub rpc_flows: u32,
    /// `mixed_incast`: mean gap between two RPC arrivals (Poisson), us.
    pub rpc_gap_us: f64,
    /// `mixed_incast`: time of the first possible RPC arrival, us.
    pub rpc_start_us: f64,
    /// `mixed_incast`: the RPC size CDF: `google` (default, Homa's Google-all-RPC) or
    /// `uno_artifact` (the authors' Fig. 4 run: 4 to 16 KB). Written out only when not the
    /// default.
    #[serde(skip_serializing_if = "RpcSizes::is_default")]
    pub rpc_sizes: RpcSizes,
    /// `mixed_incast`: where the intra-DC senders are drawn: `any` (default, any host of the
    /// receiver's datacenter) or `other_pod` (only hosts outside the receiver's pod, as in the
    /// Uno authors' Fig. 3 / 8 traffic matrices: receiver 240, intra-DC senders 130-137 of a
    /// k = 8 tree, pod 7 against pod 0). Written out only when not the default.
    #[serde(skip_serializing_if = "IntraPlacement::is_default")]
    pub intra_placement: IntraPlacement,
}

impl Default for TwoDcWorkload {
    fn default() -> Self {
        TwoDcWorkload {
            intra_senders: 4,
            inter_senders: 4,
            inter_fraction: 0.2,
            inter_share: InterShare::Bytes,
            inter_sizes: InterSizes::WanAlibabaLike,
            intra_sizes: IntraSizes::Websearch,
            iterations: 10,
            iteration_us: 10_000.0,
            burst_min: Size::Bytes(70 << 20),
            burst_max: Size::Bytes(500 << 20),
            groups: 8,
            one_way: false,
            rpc_flows: 0,
            rpc_gap_us: 10.0,
            rpc_start_us: 0.0,
            rpc_sizes: RpcSizes::Google,
            intra_placement: IntraPlacement::Any,
        }
    }
}

/// `workload.two_dc.intra_placement`: which hosts `mixed_incast` draws its intra-DC senders
/// from (docs/uno.md, Session 10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntraPlacement {
    /// Any host of the receiver's datacenter but the receiver.
    Any,
    /// Only hosts outside the receiver's pod (the Uno authors' `.cm` files).
    OtherPod,
}

impl IntraPlacement {
    fn is_default(&self) -> bool {
        *self == IntraPlacement::Any
    }
}

/// Hosts per pod of one datacenter's tree (3 tiers: radix / 2 ToRs of `tor_host_ports` hosts);
/// a 2-tier tree is one pod of `per_dc` hosts.
fn pod_hosts(s: &Scenario, per_dc: u64) -> u64 {
    let t = &s.topology;
    if t.tiers == 3 {
        let d = crate::validate::tor_host_ports(u64::from(t.radix), t.oversubscription);
        (u64::from(t.radix) / 2 * d).clamp(1, per_dc.max(1))
    } else {
        per_dc.max(1)
    }
}

/// `workload.two_dc.rpc_sizes`: the size CDF of `mixed_incast`'s RPCs (Uno Fig. 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RpcSizes {
    /// `scenarios/data/google_rpc_cdf.csv` (the paper's words, 2.3: "the Google RPC CDF").
    Google,
    /// `scenarios/data/uno_artifact_rpc_cdf.csv` (the authors' Fig. 4 traffic matrix).
    UnoArtifact,
}

impl RpcSizes {
    fn is_default(&self) -> bool {
        *self == RpcSizes::Google
    }

    /// The CDF.
    pub fn cdf(self) -> Cdf {
        match self {
            RpcSizes::Google => rpc_cdf(),
            RpcSizes::UnoArtifact => Cdf::parse("uno_artifact_rpc_cdf.csv", ARTIFACT_RPC_CDF_CSV)
                .expect("shipped file, tested"),
        }
    }
}

/// `workload.two_dc.inter_share`: what `inter_fraction` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterShare {
    /// A fraction of the offered bytes.
    Bytes,
    /// A fraction of the flows.
    Flows,
}

/// `workload.two_dc.inter_sizes`: the inter-DC flow-size CDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterSizes {
    /// `scenarios/data/wan_alibaba_like_cdf.csv`.
    WanAlibabaLike,
    /// `scenarios/data/uno_artifact_inter_cdf.csv`.
    UnoArtifact,
}

/// `workload.two_dc.intra_sizes`: the intra-DC flow-size CDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntraSizes {
    /// `scenarios/data/websearch_cdf.csv`.
    Websearch,
    /// `scenarios/data/uno_artifact_intra_cdf.csv`.
    UnoArtifact,
}

impl IntraSizes {
    fn is_default(&self) -> bool {
        *self == IntraSizes::Websearch
    }

    /// The CDF.
    pub fn cdf(self) -> Cdf {
        match self {
            IntraSizes::Websearch => websearch_cdf(),
            IntraSizes::UnoArtifact => {
                Cdf::parse("uno_artifact_intra_cdf.csv", ARTIFACT_INTRA_CDF_CSV)
                    .expect("shipped file, tested")
            }
        }
    }
}

impl InterShare {
    fn is_bytes(&self) -> bool {
        *self == InterShare::Bytes
    }
}

impl InterSizes {
    fn is_default(&self) -> bool {
        *self == InterSizes::WanAlibabaLike
    }

    /// The CDF.
    pub fn cdf(self) -> Cdf {
        match self {
            InterSizes::WanAlibabaLike => wan_cdf(),
            InterSizes::UnoArtifact => {
                Cdf::parse("uno_artifact_inter_cdf.csv", ARTIFACT_INTER_CDF_CSV)
                    .expect("shipped file, tested")
            }
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl TwoDcWorkload {
    /// Flows per `dc_allreduce` group and iteration: 2, or 1 with `one_way`.
    pub fn flows_per_group(&self) -> u64 {
        if self.one_way {
            1
        } else {
            2
        }
    }

    /// Probability that a `uno_mix` flow is inter-DC, with mean sizes `mi` / `mw`.
    pub fn p_inter(&self, mi: f64, mw: f64) -> f64 {
        match self.inter_share {
            InterShare::Bytes => p_inter(self.inter_fraction, mi, mw),
            InterShare::Flows => self.inter_fraction.clamp(0.0, 1.0),
        }
    }

    /// Whether every field has its default (the section is then not written out).
    pub fn is_default(&self) -> bool {
        *self == TwoDcWorkload::default()
    }
}

/// Whether `kind` is one of this module's workloads (they need a `two_dc` topology).
pub fn is_two_dc_kind(kind: WorkloadKind) -> bool {
    matches!(
        kind,
        WorkloadKind::MixedIncast | WorkloadKind::UnoMix | WorkloadKind::DcAllreduce
    )
}

/// A flow-size CDF: (bytes, cumulative probability) points, increasing, from 0 to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Cdf(pub Vec<(f64, f64)>);

impl Cdf {
    /// Parse `bytes,cdf` lines (`#` comments and the header line skipped).
    pub fn parse(name: &str, text: &str) -> std::result::Result<Cdf, String> {
        let mut v: Vec<(f64, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with("bytes") {
                continue;
            }
            let bad = || format!("{name} line {}: '{line}' is not `bytes,cdf`", i + 1);
            let (a, b) = line.split_once(',').ok_or_else(bad)?;
            let x: f64 = a.trim().parse().map_err(|_| bad())?;
            let c: f64 = b.trim().parse().map_err(|_| bad())?;
            if let Some(&(px, pc)) = v.last() {
                if x < px || c < pc {
                    return Err(format!("{name} line {}: not increasing", i + 1));
                }
            }
            v.push((x, c));
        }
        match (v.first(), v.last()) {
            (Some(&(_, 0.0)), Some(&(_, 1.0))) if v.len() >= 2 => Ok(Cdf(v)),
            _ => Err(format!("{name}: must run from cumulative 0 to 1")),
        }
    }

    /// Mean size, bytes (linear interpolation between points).
    pub fn mean(&self) -> f64 {
        self.0
            .windows(2)
            .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
            .sum()
    }

    /// The size for a uniform draw `u` in [0, 1), at least 1 byte.
    pub fn sample(&self, u: f64) -> u64 {
        for w in self.0.windows(2) {
            let ((s0, c0), (s1, c1)) = (w[0], w[1]);
            if u < c1 {
                let x = s0 + (u - c0) / (c1 - c0) * (s1 - s0);
                return (x.round() as u64).max(1);
            }
        }
        (self.0[self.0.len() - 1].0 as u64).max(1)
    }
}

/// The shipped web-search CDF.
pub fn websearch_cdf() -> Cdf {
    Cdf::parse("websearch_cdf.csv", WEBSEARCH_CDF_CSV).expect("shipped file, tested")
}

/// The shipped Alibaba-WAN-like CDF.
pub fn wan_cdf() -> Cdf {
    Cdf::parse("wan_alibaba_like_cdf.csv", WAN_CDF_CSV).expect("shipped file, tested")
}

/// The shipped Google-all-RPC CDF.
pub fn rpc_cdf() -> Cdf {
    Cdf::parse("google_rpc_cdf.csv", RPC_CDF_CSV).expect("shipped file, tested")
}

/// Check `[workload.two_dc]` and that a two-datacenter workload runs on a `two_dc` with
/// enough hosts; errors name the field.
pub fn check(s: &Scenario, hosts: u64) -> Result<()> {
    let w = &s.workload;
    let x = &w.two_dc;
    let f = |n: &str| format!("workload.two_dc.{n}");
    if !(x.inter_fraction.is_finite() && (0.0..=1.0).contains(&x.inter_fraction)) {
        return Err(Error::field(
            f("inter_fraction"),
            format!("must be a fraction 0 to 1, got {}", num(x.inter_fraction)),
        ));
    }
    if !(x.iteration_us.is_finite() && x.iteration_us >= 0.0) {
        return Err(Error::field(
            f("iteration_us"),
            format!(
                "must be a time of at least 0 us, got {}",
                num(x.iteration_us)
            ),
        ));
    }
    crate::units::us_to_ps(&f("iteration_us"), x.iteration_us * f64::from(x.iterations))?;
    crate::units::check_size(&f("burst_min"), x.burst_min)?;
    if !(x.rpc_gap_us.is_finite() && x.rpc_gap_us > 0.0) {
        return Err(Error::field(
            f("rpc_gap_us"),
            format!("must be a time above 0 us, got {}", num(x.rpc_gap_us)),
        ));
    }
    if !(x.rpc_start_us.is_finite() && x.rpc_start_us >= 0.0) {
        return Err(Error::field(
            f("rpc_start_us"),
            format!(
                "must be a time of at least 0 us, got {}",
                num(x.rpc_start_us)
            ),
        ));
    }
    crate::units::us_to_ps(&f("rpc_start_us"), x.rpc_start_us)?;
    // The expected last arrival, with room for the Poisson spread, must be a valid time.
    crate::units::us_to_ps(
        &f("rpc_gap_us"),
        x.rpc_start_us + 2.0 * x.rpc_gap_us * f64::from(x.rpc_flows),
    )?;
    if x.one_way && w.kind != WorkloadKind::DcAllreduce {
        return Err(Error::field(
            f("one_way"),
            "one-way Allreduce groups are part of the dc_allreduce workload only",
        ));
    }
    if x.rpc_flows > 0 && w.kind != WorkloadKind::MixedIncast {
        return Err(Error::field(
            f("rpc_flows"),
            "RPC messages are part of the mixed_incast workload only",
        ));
    }
    crate::units::check_size(&f("burst_max"), x.burst_max)?;
    if !is_two_dc_kind(w.kind) {
        return Ok(());
    }
    if s.topology.kind != crate::scenario::TopologyKind::TwoDc {
        return Err(Error::field(
            "workload.kind",
            "mixed_incast, uno_mix and dc_allreduce run on two datacenters: set \
             topology.kind = \"two_dc\"",
        ));
    }
    let per_dc = hosts / 2;
    match w.kind {
        WorkloadKind::MixedIncast => {
            if x.intra_senders + x.inter_senders == 0 {
                return Err(Error::field(
                    f("inter_senders"),
                    "a mixed incast needs at least one sender (intra_senders + inter_senders)",
                ));
            }
            if x.rpc_flows > 0 && per_dc < 2 {
                return Err(Error::field(
                    f("rpc_flows"),
                    "the receiver's datacenter has no other host to send RPCs",
                ));
            }
            if u64::from(x.intra_senders) >= per_dc {
                return Err(Error::field(
                    f("intra_senders"),
                    format!(
                        "{} senders besides the receiver do not fit a datacenter of {per_dc} hosts",
                        x.intra_senders
                    ),
                ));
            }
            if x.intra_placement == IntraPlacement::OtherPod {
                let others = per_dc - pod_hosts(s, per_dc);
                if u64::from(x.intra_senders) > others {
                    return Err(Error::field(
                        f("intra_placement"),
                        format!(
                            "\"other_pod\" draws the {} intra-DC senders from the {others} hosts \
                             outside the receiver's pod: too few (more radix or tiers = 3)",
                            x.intra_senders
                        ),
                    ));
                }
            }
            if u64::from(x.inter_senders) > per_dc {
                return Err(Error::field(
                    f("inter_senders"),
                    format!(
                        "{} senders do not fit a datacenter of {per_dc} hosts",
                        x.inter_senders
                    ),
                ));
            }
        }
        WorkloadKind::UnoMix if w.flows == 0 => {
            return Err(Error::field(
                "workload.flows",
                "a uno_mix workload needs at least 1 flow, got 0",
            ));
        }
        WorkloadKind::DcAllreduce => {
            if x.iterations == 0 {
                return Err(Error::field(f("iterations"), "must be at least 1, got 0"));
            }
            if x.groups == 0 || u64::from(x.groups) > per_dc {
                return Err(Error::field(
                    f("groups"),
                    format!(
                        "must be 1 to the hosts of a datacenter ({per_dc}), got {}",
                        x.groups
                    ),
                ));
            }
            let (lo, hi) = (x.burst_min.bytes(1), x.burst_max.bytes(1));
            if matches!(x.burst_min, Size::Bdp(_)) || matches!(x.burst_max, Size::Bdp(_)) {
                return Err(Error::field(f("burst_min"), "must be a size in bytes"));
            }
            if lo > hi {
                return Err(Error::field(
                    f("burst_max"),
                    format!("{hi} bytes is below burst_min ({lo})"),
                ));
            }
            if lo < 2 * u64::from(x.groups) {
                return Err(Error::field(
                    f("burst_min"),
                    format!(
                        "{lo} bytes cannot give each of 2 x {} flows a byte",
                        x.groups
                    ),
                ));
            }
            let mtu = u64::from(s.transport.mtu.max(1));
            if hi / (2 * u64::from(x.groups)) / mtu >= crate::validate::MAX_MESSAGE_PACKETS {
                return Err(Error::field(
                    f("burst_max"),
                    "a flow of the largest burst has more than 2^31 packets",
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Number of flows a two-datacenter workload generates.
pub fn flow_count(s: &Scenario) -> u64 {
    let x = &s.workload.two_dc;
    match s.workload.kind {
        WorkloadKind::MixedIncast => {
            u64::from(x.intra_senders) + u64::from(x.inter_senders) + u64::from(x.rpc_flows)
        }
        WorkloadKind::UnoMix => u64::from(s.workload.flows),
        WorkloadKind::DcAllreduce => {
            x.flows_per_group() * u64::from(x.iterations) * u64::from(x.groups)
        }
        _ => 0,
    }
}

/// Mean flow size of a two-datacenter workload, bytes (for estimates).
pub fn mean_bytes(s: &Scenario, msg: f64) -> f64 {
    let x = &s.workload.two_dc;
    match s.workload.kind {
        WorkloadKind::UnoMix => {
            let (mi, mw) = (x.intra_sizes.cdf().mean(), x.inter_sizes.cdf().mean());
            let p = x.p_inter(mi, mw);
            (1.0 - p) * mi + p * mw
        }
        WorkloadKind::DcAllreduce => {
            let (lo, hi) = (x.burst_min.bytes(1), x.burst_max.bytes(1));
            (lo + hi) as f64 / 2.0 / (2.0 * f64::from(x.groups.max(1)))
        }
        WorkloadKind::MixedIncast if x.rpc_flows > 0 => {
            let long = f64::from(x.intra_senders + x.inter_senders);
            let rpc = f64::from(x.rpc_flows);
            (long * msg + rpc * x.rpc_sizes.cdf().mean()) / (long + rpc)
        }
        _ => msg,
    }
}

/// Probability that a flow is inter-DC so that a fraction `f` of the bytes is, with mean sizes
/// `mi` (intra) and `mw` (inter).
fn p_inter(f: f64, mi: f64, mw: f64) -> f64 {
    if f <= 0.0 {
        0.0
    } else if f >= 1.0 {
        1.0
    } else {
        f * mi / (f * mi + (1.0 - f) * mw)
    }
}

/// A uniformly random host of datacenter `dc` other than `not`.
fn host_in(dc: u32, per_dc: u32, not: u32, rng: &mut ChaCha8Rng) -> u32 {
    let lo = dc * per_dc;
    if not >= lo && not < lo + per_dc {
        let h = lo + rng.gen_range(0..per_dc - 1);
        if h >= not {
            h + 1
        } else {
            h
        }
    } else {
        lo + rng.gen_range(0..per_dc)
    }
}

/// The flows of a two-datacenter workload on `hosts` hosts (checked by [`check`]).
pub fn generate(
    s: &Scenario,
    hosts: u32,
    msg: u64,
    host_gbps: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<FlowSpec>> {
    let w = &s.workload;
    let x = &w.two_dc;
    let per_dc = hosts / 2;
    let flow = |src, dst, bytes, start_ps, collective| FlowSpec {
        src,
        dst,
        bytes,
        start_ps,
        collective,
    };
    Ok(match w.kind {
        WorkloadKind::MixedIncast => {
            let rx = rng.gen_range(0..hosts);
            let (home, away) = (rx / per_dc, 1 - rx / per_dc);
            // `other_pod`: no intra-DC sender in the receiver's pod.
            let pod = pod_hosts(s, u64::from(per_dc)) as u32;
            let other_pod = x.intra_placement == IntraPlacement::OtherPod;
            let rx_pod = (rx - home * per_dc) / pod;
            let mut pick = |dc: u32, n: u32, skip: u32| -> Vec<u32> {
                let mut pool: Vec<u32> = (dc * per_dc..(dc + 1) * per_dc)
                    .filter(|&h| h != skip)
                    .filter(|&h| !(other_pod && dc == home && (h - dc * per_dc) / pod == rx_pod))
                    .collect();
                for i in 0..n as usize {
                    let j = rng.gen_range(i..pool.len());
                    pool.swap(i, j);
                }
                pool.truncate(n as usize);
                pool
            };
            let intra = pick(home, x.intra_senders, rx);
            let inter = pick(away, x.inter_senders, rx);
            let mut v: Vec<FlowSpec> = intra
                .into_iter()
                .chain(inter)
                .map(|src| flow(src, rx, msg, 0, 0))
                .collect();
            // Fig. 4's RPCs: drawn after the long flows, so rpc_flows = 0 draws nothing more.
            if x.rpc_flows > 0 {
                let cdf = x.rpc_sizes.cdf();
                let mut t = x.rpc_start_us * 1e-6;
                for _ in 0..x.rpc_flows {
                    let u: f64 = rng.gen();
                    t += -(1.0 - u).ln() * x.rpc_gap_us * 1e-6;
                    let src = host_in(home, per_dc, rx, rng);
                    let bytes = cdf.sample(rng.gen());
                    v.push(flow(src, rx, bytes, (t * 1e12).round() as u64, 0));
                }
            }
            v
        }
        WorkloadKind::UnoMix => {
            let (ci, cw) = (x.intra_sizes.cdf(), x.inter_sizes.cdf());
            let p = x.p_inter(ci.mean(), cw.mean());
            let mean = (1.0 - p) * ci.mean() + p * cw.mean();
            let lambda = w.load * hosts as f64 * host_gbps * 1e9 / (8.0 * mean);
            let mut t = 0.0f64;
            let mut v = Vec::with_capacity(w.flows as usize);
            for _ in 0..w.flows {
                t = super::next_arrival(rng, t, lambda, w.load, "uno_mix")?;
                let src = rng.gen_range(0..hosts);
                let inter = rng.gen::<f64>() < p;
                let home = src / per_dc;
                let (dst, bytes) = if inter {
                    (host_in(1 - home, per_dc, src, rng), cw.sample(rng.gen()))
                } else {
                    (host_in(home, per_dc, src, rng), ci.sample(rng.gen()))
                };
                v.push(flow(src, dst, bytes, (t * 1e12).round() as u64, 0));
            }
            v
        }
        WorkloadKind::DcAllreduce => {
            let (lo, hi) = (x.burst_min.bytes(1), x.burst_max.bytes(1));
            let per_flow_div = 2 * u64::from(x.groups);
            let mut v = Vec::with_capacity(flow_count(s) as usize);
            for it in 0..x.iterations {
                let burst = rng.gen_range(lo..=hi);
                let bytes = (burst / per_flow_div).max(1);
                let start = (f64::from(it) * x.iteration_us * 1e6).round() as u64;
                for g in 0..x.groups {
                    let a = (u64::from(g) * u64::from(per_dc) / u64::from(x.groups)) as u32;
                    let b = per_dc + a;
                    v.push(flow(a, b, bytes, start, it));
                    if !x.one_way {
                        v.push(flow(b, a, bytes, start, it));
                    }
                }
            }
            v
        }
        other => unreachable!("{other:?} is not a two_dc workload"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::TopologyKind;
    use rand::SeedableRng;

    fn scenario(kind: WorkloadKind) -> Scenario {
        let mut s = Scenario::default();
        s.topology.kind = TopologyKind::TwoDc;
        s.workload.kind = kind;
        s
    }

    #[test]
    fn shipped_cdfs_parse_and_websearch_matches_the_builtin() {
        let ws = websearch_cdf();
        assert_eq!(ws.0, super::super::WEBSEARCH_CDF.to_vec());
        assert!((ws.mean() - super::super::websearch_mean()).abs() < 1e-6);
        let wan = wan_cdf();
        assert!(
            wan.0.last().unwrap().0 <= 300e6,
            "Alibaba: all below 300 MB"
        );
        assert!((wan.mean() - 10_774_325.0).abs() < 1.0, "{}", wan.mean());
        assert!(Cdf::parse("x", "bytes,cdf\n1,0\n2,0.5\n").is_err());
        assert!(Cdf::parse("x", "1,0\n3,1\n2,1\n").is_err());
        assert!(Cdf::parse("x", "1,0\nseven,1\n").is_err());
    }

    /// `inter_share = "flows"`: `inter_fraction` of the flows cross datacenters (the
    /// authors' Fig. 10 matrix: 20.6%), with the authors' inter-DC sizes (at most 23.6 MB);
    /// by bytes (the default) the same 0.2 makes only a few percent of the flows inter-DC.
    #[test]
    fn uno_mix_inter_share_by_flows_or_bytes() {
        let art = InterSizes::UnoArtifact.cdf();
        assert_eq!(art.0.len(), 95);
        assert_eq!(art.0.last().unwrap().0, 23_576_684.0);
        let mut s = scenario(WorkloadKind::UnoMix);
        s.workload.flows = 4000;
        s.workload.load = 0.4;
        s.workload.two_dc.inter_share = InterShare::Flows;
        s.workload.two_dc.inter_sizes = InterSizes::UnoArtifact;
        let count = |s: &Scenario| {
            let f = generate(s, 32, 1000, 100.0, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
            let inter: Vec<u64> = f
                .iter()
                .filter(|x| x.src / 16 != x.dst / 16)
                .map(|x| x.bytes)
                .collect();
            (inter.len() as f64 / f.len() as f64, inter)
        };
        let (share, inter) = count(&s);
        assert!((0.18..0.22).contains(&share), "{share}");
        assert!(inter.iter().all(|&b| (565..=23_576_684).contains(&b)));
        s.workload.two_dc.inter_share = InterShare::Bytes;
        s.workload.two_dc.inter_sizes = InterSizes::WanAlibabaLike;
        let (share, _) = count(&s);
        assert!(share < 0.08, "{share}");
    }

    /// `intra_sizes = "uno_artifact"`: the intra-DC flows take the authors' matrix's sizes
    /// (56 B to 1.95 MB, mean 48.9 KB) instead of web search's (mean 1.7 MB, to 30 MB); the
    /// default leaves every draw as before.
    #[test]
    fn uno_mix_intra_sizes_from_the_authors_matrix() {
        let art = IntraSizes::UnoArtifact.cdf();
        assert_eq!(art.0.len(), 366);
        assert_eq!(art.0.last().unwrap().0, 1_948_183.0);
        // 48.9 KB is the sample's mean; the interpolated CDF's is 46.4 KB.
        assert!((45_000.0..50_000.0).contains(&art.mean()), "{}", art.mean());
        let mut s = scenario(WorkloadKind::UnoMix);
        s.workload.flows = 4000;
        s.workload.two_dc.inter_share = InterShare::Flows;
        s.workload.two_dc.inter_sizes = InterSizes::UnoArtifact;
        let intra = |s: &Scenario| -> Vec<u64> {
            generate(s, 32, 1000, 100.0, &mut ChaCha8Rng::seed_from_u64(9))
                .unwrap()
                .iter()
                .filter(|x| x.src / 16 == x.dst / 16)
                .map(|x| x.bytes)
                .collect()
        };
        let web = intra(&s);
        s.workload.two_dc.intra_sizes = IntraSizes::UnoArtifact;
        let small = intra(&s);
        assert_eq!(web.len(), small.len(), "the same flows, other sizes");
        assert!(small.iter().all(|&b| (56..=1_948_183).contains(&b)));
        let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len() as f64;
        assert!(
            mean(&small) < 0.1 * mean(&web),
            "{} {}",
            mean(&small),
            mean(&web)
        );
    }

    #[test]
    fn mixed_incast_senders_by_datacenter() {
        let mut s = scenario(WorkloadKind::MixedIncast);
        s.workload.two_dc.intra_senders = 3;
        s.workload.two_dc.inter_senders = 5;
        let f = generate(&s, 32, 1000, 100.0, &mut ChaCha8Rng::seed_from_u64(4)).unwrap();
        assert_eq!(f.len(), 8);
        let rx = f[0].dst;
        assert!(f
            .iter()
            .all(|x| x.dst == rx && x.src != rx && x.bytes == 1000));
        let same = f.iter().filter(|x| x.src / 16 == rx / 16).count();
        assert_eq!(same, 3);
        let mut srcs: Vec<u32> = f.iter().map(|x| x.src).collect();
        srcs.sort();
        srcs.dedup();
        assert_eq!(srcs.len(), 8);
    }

    /// `intra_placement = "other_pod"`: every intra-DC sender outside the receiver's pod (the
    /// authors' Fig. 3 / 8 matrices); `any` draws some inside it on this seed; too many senders
    /// for the other pods are refused naming the field.
    #[test]
    fn mixed_incast_other_pod_keeps_intra_senders_out_of_the_receivers_pod() {
        let mut s = scenario(WorkloadKind::MixedIncast);
        s.topology.tiers = 3;
        s.topology.radix = 4; // 16 hosts per datacenter, pods of 4
        s.workload.two_dc.intra_senders = 8;
        s.workload.two_dc.inter_senders = 4;
        let same_pod = |s: &Scenario, seed: u64| {
            let f = generate(s, 32, 1000, 100.0, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
            let rx = f[0].dst;
            assert_eq!(f.iter().filter(|x| x.src / 16 == rx / 16).count(), 8);
            f.iter()
                .filter(|x| x.src / 16 == rx / 16 && (x.src % 16) / 4 == (rx % 16) / 4)
                .count()
        };
        let any: usize = (1..=6).map(|seed| same_pod(&s, seed)).sum();
        assert!(any > 0, "8 of 15 hosts must hit the receiver's pod");
        s.workload.two_dc.intra_placement = IntraPlacement::OtherPod;
        assert!(check(&s, 32).is_ok());
        for seed in 1..=6 {
            assert_eq!(same_pod(&s, seed), 0, "seed {seed}");
        }
        s.workload.two_dc.intra_senders = 13;
        let e = check(&s, 32).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.intra_placement"), "{e}");
    }

    /// Fig. 4's RPCs: from the receiver's datacenter to the receiver, after the long flows,
    /// Poisson at the configured gap, Google-RPC sizes; the long flows are the same draws as
    /// without RPCs.
    #[test]
    fn mixed_incast_rpcs_follow_the_long_flows() {
        let mut s = scenario(WorkloadKind::MixedIncast);
        s.workload.two_dc.intra_senders = 0;
        s.workload.two_dc.inter_senders = 8;
        let plain = generate(&s, 32, 1 << 20, 100.0, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        s.workload.two_dc.rpc_flows = 4000;
        s.workload.two_dc.rpc_gap_us = 20.0;
        s.workload.two_dc.rpc_start_us = 1000.0;
        let f = generate(&s, 32, 1 << 20, 100.0, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert_eq!(flow_count(&s), 4008);
        assert_eq!(f.len(), 4008);
        assert_eq!(f[..8], plain[..]);
        let rx = f[0].dst;
        let rpcs = &f[8..];
        assert!(rpcs
            .iter()
            .all(|x| x.dst == rx && x.src != rx && x.src / 16 == rx / 16));
        assert!(f.windows(2).all(|w| w[0].start_ps <= w[1].start_ps));
        assert!(rpcs[0].start_ps >= 1_000_000_000);
        let span_us = (rpcs.last().unwrap().start_ps - 1_000_000_000) as f64 * 1e-6;
        let gap = span_us / rpcs.len() as f64;
        assert!((gap - 20.0).abs() < 1.5, "mean gap {gap} us");
        let mean = rpcs.iter().map(|x| x.bytes as f64).sum::<f64>() / rpcs.len() as f64;
        let median = {
            let mut b: Vec<u64> = rpcs.iter().map(|x| x.bytes).collect();
            b.sort_unstable();
            b[b.len() / 2]
        };
        assert!((150..400).contains(&median), "median {median} B");
        assert!(mean < 20_000.0, "mean {mean} B");
        let est = mean_bytes(&s, (1u64 << 20) as f64);
        assert!(est < 10_000.0, "estimate mean {est}");
    }

    /// `rpc_sizes = "uno_artifact"`: the authors' Fig. 4 RPCs, 4 to 16 KB, drawn from the same
    /// random numbers as the Google sizes (same senders and arrival times).
    #[test]
    fn rpc_sizes_from_the_authors_fig4_matrix() {
        let mut s = scenario(WorkloadKind::MixedIncast);
        s.workload.two_dc.intra_senders = 0;
        s.workload.two_dc.inter_senders = 8;
        s.workload.two_dc.rpc_flows = 2000;
        let google = generate(&s, 32, 1 << 20, 100.0, &mut ChaCha8Rng::seed_from_u64(5)).unwrap();
        assert!(google[8..].iter().any(|x| x.bytes > 16_000));
        s.workload.two_dc.rpc_sizes = RpcSizes::UnoArtifact;
        let art = generate(&s, 32, 1 << 20, 100.0, &mut ChaCha8Rng::seed_from_u64(5)).unwrap();
        assert_eq!(art[..8], google[..8]);
        for (a, g) in art[8..].iter().zip(&google[8..]) {
            assert_eq!((a.src, a.dst, a.start_ps), (g.src, g.dst, g.start_ps));
            assert!((4000..=16_000).contains(&a.bytes), "{} B", a.bytes);
        }
        let mean = art[8..].iter().map(|x| x.bytes as f64).sum::<f64>() / 2000.0;
        assert!((mean - 10_000.0).abs() < 300.0, "mean {mean} B");
        assert_eq!(RpcSizes::UnoArtifact.cdf().mean(), 10_000.0);
        let t = toml::to_string(&s.workload.two_dc).unwrap();
        assert!(t.contains("rpc_sizes = \"uno_artifact\""), "{t}");
        assert!(!toml::to_string(&TwoDcWorkload::default())
            .unwrap()
            .contains("rpc_sizes"));
    }

    #[test]
    fn rpc_fields_are_checked_by_name() {
        let mut s = scenario(WorkloadKind::MixedIncast);
        s.workload.two_dc.rpc_flows = 10;
        s.workload.two_dc.rpc_gap_us = 0.0;
        let e = check(&s, 32).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.rpc_gap_us"), "{e}");
        s.workload.two_dc.rpc_gap_us = 5.0;
        s.workload.two_dc.rpc_start_us = f64::NAN;
        let e = check(&s, 32).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.rpc_start_us"), "{e}");
        s.workload.two_dc.rpc_start_us = 0.0;
        assert!(check(&s, 32).is_ok());
        s.workload.kind = WorkloadKind::UnoMix;
        s.workload.flows = 10;
        let e = check(&s, 32).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.rpc_flows"), "{e}");
    }

    /// Offered load and the 4:1 intra:inter byte ratio come out as configured.
    #[test]
    fn uno_mix_load_and_byte_ratio() {
        let mut s = scenario(WorkloadKind::UnoMix);
        s.workload.flows = 40_000;
        s.workload.load = 0.4;
        let hosts = 32;
        let f = generate(&s, hosts, 0, 100.0, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
        assert!(f.windows(2).all(|w| w[0].start_ps <= w[1].start_ps));
        let inter = |x: &FlowSpec| x.src / 16 != x.dst / 16;
        let bytes =
            |it: &mut dyn Iterator<Item = &FlowSpec>| it.map(|x| x.bytes as f64).sum::<f64>();
        let b_inter = bytes(&mut f.iter().filter(|x| inter(x)));
        let b_all = bytes(&mut f.iter());
        let share = b_inter / b_all;
        assert!((share - 0.2).abs() < 0.03, "inter byte share {share}");
        let span_s = f.last().unwrap().start_ps as f64 * 1e-12;
        let load = b_all * 8.0 / span_s / (hosts as f64 * 100e9);
        assert!((load - 0.4).abs() < 0.06, "load {load}");
        assert!(f.iter().all(|x| x.src != x.dst && x.dst < hosts));
        // Inter-DC flows take the WAN sizes: their mean is far above web search's.
        let n_inter = f.iter().filter(|x| inter(x)).count() as f64;
        let n_intra = f.len() as f64 - n_inter;
        let mean_inter = b_inter / n_inter;
        let mean_intra = (b_all - b_inter) / n_intra;
        assert!(
            (mean_inter / wan_cdf().mean() - 1.0).abs() < 0.25,
            "{mean_inter}"
        );
        assert!(
            (mean_intra / websearch_cdf().mean() - 1.0).abs() < 0.1,
            "{mean_intra}"
        );
    }

    #[test]
    fn allreduce_bursts_in_range_and_paired_across_dcs() {
        let mut s = scenario(WorkloadKind::DcAllreduce);
        s.workload.two_dc.iterations = 50;
        s.workload.two_dc.groups = 4;
        let f = generate(&s, 256, 0, 100.0, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert_eq!(f.len(), 400);
        for it in 0..50u32 {
            let fl: Vec<_> = f.iter().filter(|x| x.collective == it).collect();
            assert_eq!(fl.len(), 8);
            let burst: u64 = fl.iter().map(|x| x.bytes).sum();
            assert!(((70 << 20) - 8..=500 << 20).contains(&burst), "{burst}");
            assert!(fl
                .iter()
                .all(|x| x.start_ps == u64::from(it) * 10_000_000_000));
            assert!(fl.iter().all(|x| x.src / 128 != x.dst / 128));
        }
        let mut srcs: Vec<u32> = f.iter().map(|x| x.src).collect();
        srcs.sort();
        srcs.dedup();
        assert_eq!(srcs, [0, 32, 64, 96, 128, 160, 192, 224]);
    }

    #[test]
    fn checks_name_the_field() {
        let hosts = 32;
        let mut s = scenario(WorkloadKind::MixedIncast);
        s.workload.two_dc.intra_senders = 16;
        let e = check(&s, hosts).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.intra_senders"), "{e}");
        let mut s = scenario(WorkloadKind::UnoMix);
        s.topology.kind = TopologyKind::FatTree;
        let e = check(&s, hosts).unwrap_err().to_string();
        assert!(e.contains("workload.kind"), "{e}");
        let mut s = scenario(WorkloadKind::DcAllreduce);
        s.workload.two_dc.burst_max = Size::Bytes(1);
        let e = check(&s, hosts).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.burst_max"), "{e}");
        let mut s = scenario(WorkloadKind::DcAllreduce);
        s.workload.two_dc.inter_fraction = 1.5;
        let e = check(&s, hosts).unwrap_err().to_string();
        assert!(e.contains("workload.two_dc.inter_fraction"), "{e}");
        assert!(check(&scenario(WorkloadKind::DcAllreduce), 256).is_ok());
    }
}
