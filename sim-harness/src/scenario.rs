//! Scenario files: one TOML file describes one experiment (DESIGN.md, "Scenario files").
//!
//! Every field has a default; unknown fields are rejected. Units are in the field name
//! (`_ns`, `_us`, `_gbps`) or in the value (`"8MiB"`, `"1bdp"`).

use serde::{Deserialize, Serialize};

/// One experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Name of the experiment (goes into every output file).
    pub name: String,
    /// Seed of every random draw in the run.
    pub seed: u64,
    /// The network.
    pub topology: Topology,
    /// Congestion control and load balancing.
    pub transport: Transport,
    /// The traffic.
    pub workload: Workload,
    /// Failure injection: links going down or changing rate.
    pub failures: Vec<Failure>,
    /// Random loss on links (`[[loss]]`, Uno 2.4 / Table 1); not written out when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loss: Vec<Loss>,
    /// What to record.
    pub output: Output,
    /// Wormhole fast-forwarding.
    pub skip: Skip,
    /// When to stop.
    pub stop: Stop,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            name: "default".into(),
            seed: 1,
            topology: Topology::default(),
            transport: Transport::default(),
            workload: Workload::default(),
            failures: Vec::new(),
            loss: Vec::new(),
            output: Output::default(),
            skip: Skip::default(),
            stop: Stop::default(),
        }
    }
}

/// Kind of network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// k-ary fat tree, 2 or 3 tiers.
    FatTree,
    /// n hosts (or senders) under one switch with n uplinks to n receivers' switch
    /// (REPS section 4.3.2 micro benchmark shape).
    SingleTor,
    /// Two datacenters joined by long links (Uno).
    TwoDc,
    /// Zeropod pods.
    ZeropodPods,
}

/// The network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Topology {
    /// fat_tree | single_tor | two_dc | zeropod_pods.
    pub kind: TopologyKind,
    /// Fat-tree tiers: 2 (leaf-spine) or 3.
    pub tiers: u32,
    /// Switch radix k (even).
    pub radix: u32,
    /// Number of hosts; 0 means the full tree for this radix (k^2/2 for 2 tiers, k^3/4 for 3).
    pub hosts: u32,
    /// Link rate in Gb/s (every link unless overridden).
    pub link_gbps: f64,
    /// Propagation delay of each link in ns.
    pub link_delay_ns: u64,
    /// Per-switch processing latency in ns.
    pub switch_latency_ns: u64,
    /// Output buffer per switch port: bytes ("500KB", "1MiB", 409600) or BDP multiples ("1bdp").
    pub buffer: Size,
    /// Oversubscription at the ToR (downlinks : uplinks), 1.0 = full bisection.
    pub oversubscription: f64,
    /// RED/ECN `K_min` as a fraction of each switch port's buffer (REPS 4.1: 0.2).
    pub ecn_kmin: f64,
    /// RED/ECN `K_max` as a fraction of each switch port's buffer (REPS 4.1: 0.8).
    pub ecn_kmax: f64,
    /// Which core (spine) switches carry traffic at full rate: `all`, or `odd_only` (DCSIM
    /// 4.2 "oversubscribed": the even-indexed spines' links run at `slow_core_fraction` of
    /// their rate from t = 0).
    pub core_links: CoreLinks,
    /// Rate of the removed cores' links, as a fraction of `link_gbps` (DCSIM 4.2: 0.01).
    pub slow_core_fraction: f64,
    /// A phantom queue on every switch output port (Uno: virtual queues that grow on
    /// ingress and drain at a constant rate slightly below the line rate; RED/ECN then marks
    /// on the phantom level): off by default.
    pub phantom_queue: bool,
    /// Drain rate of the phantom queues, a fraction of each port's line rate, in (0, 1].
    pub phantom_drain: f64,
    /// Which switch output ports get a phantom queue when `phantom_queue` is on, by role
    /// (default: every switch port).
    pub phantom_ports: Vec<SwitchPortRole>,
    /// Which queue drives a phantom-equipped port's ECN marks (Uno 4.1.3): the phantom
    /// queue (default), the physical one (phantom only observed), or both.
    pub phantom_mark_on: PhantomMarkOn,
    /// Capacity of every phantom queue (bytes or BDP multiples of the run's reference BDP);
    /// its RED thresholds are `ecn_kmin` / `ecn_kmax` of it. Unset: each port's own buffer.
    /// Uno (1, 2.3, 4.1.3) sizes phantom queues to "match the high BDPs of the inter-DC
    /// connections regardless of the physical queue capacity". Written out only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phantom_size: Option<Size>,
    /// RED/ECN `K_min` of the phantom queues as a fraction of their capacity; unset,
    /// `ecn_kmin` (Uno 5.1: 25%; the authors' simulator runs its Uno figures with 2%).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phantom_kmin: Option<f64>,
    /// RED/ECN `K_max` of the phantom queues; unset, `ecn_kmax` (Uno 5.1: 75%; the
    /// authors' simulator: 60%).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phantom_kmax: Option<f64>,
    /// When a phantom queue's RED/ECN marker decides: `arrival` (the default: on the level a
    /// packet sees when offered) or `departure` (on the level when it starts transmission,
    /// as the Uno authors' htsim queue marks). Written out only when `departure`.
    #[serde(skip_serializing_if = "EcnMark::is_arrival")]
    pub phantom_mark_at: EcnMark,
    /// `[topology.two_dc]`: the inter-DC part of `kind = "two_dc"` (written out only when it
    /// differs from its defaults).
    #[serde(skip_serializing_if = "TwoDcSection::is_default")]
    pub two_dc: TwoDcSection,
    /// When a switch port's physical-queue RED/ECN marker decides: on `departure` (the
    /// default: the occupancy a packet leaves behind when it starts transmission, as htsim,
    /// the REPS paper's simulator, and most switch ASICs do) or on `arrival` (the occupancy
    /// an arriving packet sees; dcfab's rule before session 4).
    pub ecn_mark: EcnMark,
}

/// When the physical ECN marker of a switch port decides (`switch::output_port::MarkAt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMark {
    /// On the occupancy an arriving packet sees (before it is added).
    Arrival,
    /// On the occupancy behind a packet when it starts transmission.
    Departure,
}

impl EcnMark {
    fn is_arrival(&self) -> bool {
        *self == EcnMark::Arrival
    }
}

pub use crate::topology::two_dc::TwoDcSection;

/// A switch output port's role, as a scenario names it (`topology.phantom_ports`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchPortRole {
    /// A ToR port towards a host (`tor<t>.down<i>`).
    TorDown,
    /// A ToR port towards the next tier (`tor<t>.up<j>`).
    TorUp,
    /// An aggregation port towards a ToR (`agg<a>.down<i>`).
    AggDown,
    /// An aggregation port towards a spine (`agg<a>.up<j>`).
    AggUp,
    /// A spine port towards the tier below (`spine<s>.down<i>`).
    SpineDown,
    /// `two_dc`: a core port towards its border switch (`spine<s>.up<j>`).
    SpineUp,
    /// `two_dc`: a border port towards a core (`border<b>.down<i>`).
    BorderDown,
    /// `two_dc`: a border port on an inter-DC link (`border<b>.wan<n>`).
    BorderWan,
}

impl SwitchPortRole {
    /// Every switch port role.
    pub const ALL: [SwitchPortRole; 8] = [
        SwitchPortRole::TorDown,
        SwitchPortRole::TorUp,
        SwitchPortRole::AggDown,
        SwitchPortRole::AggUp,
        SwitchPortRole::SpineDown,
        SwitchPortRole::SpineUp,
        SwitchPortRole::BorderDown,
        SwitchPortRole::BorderWan,
    ];

    /// The roles of a fat tree's switch ports: the default of `topology.phantom_ports`
    /// (a `two_dc` run names the border roles to give them phantom queues too).
    pub const FAT_TREE: [SwitchPortRole; 5] = [
        SwitchPortRole::TorDown,
        SwitchPortRole::TorUp,
        SwitchPortRole::AggDown,
        SwitchPortRole::AggUp,
        SwitchPortRole::SpineDown,
    ];
}

/// Which queue drives the ECN marks of a port with a phantom queue
/// (`switch::output_port::MarkOn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhantomMarkOn {
    /// The phantom queue (Uno's choice).
    Phantom,
    /// The physical queue; the phantom queue is only observed.
    Physical,
    /// Either: marked when the physical or the phantom marker says so.
    Both,
}

/// Which core (spine) switches are in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreLinks {
    /// Every spine at full rate.
    All,
    /// Only the odd-indexed spines at full rate; the even-indexed ones' links are slowed to
    /// `slow_core_fraction` of their rate at t = 0 (DCSIM 4.2).
    OddOnly,
}

impl Default for Topology {
    fn default() -> Self {
        Topology {
            kind: TopologyKind::FatTree,
            tiers: 3,
            radix: 8,
            hosts: 0,
            link_gbps: 400.0,
            link_delay_ns: 1000,
            switch_latency_ns: 500,
            buffer: Size::Bdp(1.0),
            oversubscription: 1.0,
            ecn_kmin: 0.2,
            ecn_kmax: 0.8,
            core_links: CoreLinks::All,
            slow_core_fraction: 0.01,
            phantom_queue: false,
            phantom_drain: 0.9,
            phantom_ports: SwitchPortRole::FAT_TREE.to_vec(),
            phantom_mark_on: PhantomMarkOn::Phantom,
            phantom_size: None,
            phantom_kmin: None,
            phantom_mark_at: EcnMark::Arrival,
            phantom_kmax: None,
            two_dc: TwoDcSection::default(),
            ecn_mark: EcnMark::Departure,
        }
    }
}

/// Congestion control kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// DCTCP-style window CC tolerant of reordering (the REPS paper's baseline).
    Dctcp,
    /// Uno.
    Uno,
    /// DCSIM SIM/DATA transport.
    Dcsim,
    /// Zeropod scheduled transport.
    Zeropod,
    /// Gemini-style CC (ECN for intra-DC, delay for inter-DC congestion): a Uno baseline.
    Gemini,
    /// MPRDMA-style ECN window CC intra-DC, BBR inter-DC: a Uno baseline.
    MprdmaBbr,
    /// The DCTCP variant of MPRDMA (REPS 4.1's baseline CC): a per-ACK cut of half a packet
    /// on every ECN-marked ACK, no EWMA (`nic::transport::MprdmaDctcpSender`).
    Mprdma,
    /// pFabric (a DCSIM baseline): priority switch ports, line-rate hosts
    /// ([`crate::transport::pfabric`]).
    Pfabric,
    /// pHost (receiver tokens, free first BDP): a DCSIM baseline (`crate::transport::phost`).
    Phost,
    /// dcPIM (Cai et al., SIGCOMM 2022), a DCSIM baseline: epoch matching by RTS / GRANT /
    /// ACCEPT rounds ([`crate::transport::dcpim`]).
    Dcpim,
}

/// Load-balancer (entropy chooser) kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LbKind {
    /// One entropy value per flow.
    Ecmp,
    /// Oblivious packet spraying: a random entropy value per packet.
    Ops,
    /// Recycled Entropy Packet Spraying.
    Reps,
    /// Uno's subflow load balancer.
    Unolb,
    /// PLB with FlowBender-like aggressive parameters (repath after one congested round).
    Plb,
    /// Flowlet switching, flowlet timeout at half the base RTT.
    Flowlet,
    /// MPRDMA: ECN-driven per-packet VP choice, ACK clocking, out-of-order window `L`.
    Mprdma,
    /// MPTCP-like: 8 subflows, each on its own entropy value.
    Mptcp,
    /// BitMap: per-EV congestion bits, STrack-like.
    Bitmap,
    /// Adaptive RoCE: switches pick the least-loaded uplink per packet (the NIC keeps an
    /// ECMP entropy value, which the switches ignore).
    AdaptiveRoce,
    /// Round-robin packet spraying in the switches, as the dcPIM simulator the DCSIM paper ran
    /// its baselines in (DCSIM 4.1; Terabit-Ethernet/dcPIM `simulator/coresim/
    /// fatTreeTopology.cpp`, `load_balancing = 0`, the setting of all its configurations): a
    /// switch sends each packet bound up the tree to the next of its uplinks, one counter per
    /// input link, started at a random uplink. The NIC keeps an ECMP entropy value, which the
    /// switches ignore. With `cc = "dcsim"` the switches route DCSIM's own per-SIM EVs.
    SprayRr,
}

impl LbKind {
    /// Whether the switches route this load balancer's packets adaptively (least-loaded
    /// uplink) instead of by the ECMP hash of the entropy value.
    pub const fn switch_adaptive(self) -> bool {
        matches!(self, LbKind::AdaptiveRoce)
    }

    /// Whether the switches spray this load balancer's packets round-robin over their
    /// uplinks (one counter per input link) instead of by the ECMP hash of the entropy value.
    pub const fn switch_round_robin(self) -> bool {
        matches!(self, LbKind::SprayRr)
    }
}

/// Congestion control and load balancing.
///
/// Each transport's own parameters are a section owned by its module: `[transport.reps]`
/// ([`RepsSection`], `crate::transport::reps`) and `[transport.dcsim]` ([`DcsimSection`],
/// `crate::dcsim::section`). The old flat names (`transport.reps_freezing`,
/// `transport.dcsim_variant`, ...) are still read, with a deprecation line on stderr
/// (`TransportToml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "TransportToml")]
pub struct Transport {
    /// dctcp | mprdma | uno | gemini | mprdma_bbr | dcsim | zeropod | phost | pfabric | dcpim.
    pub cc: CcKind,
    /// ecmp | ops | reps | unolb | plb | flowlet | mprdma | mptcp | bitmap | adaptive_roce |
    /// spray_rr.
    pub lb: LbKind,
    /// Bytes of payload per DATA packet.
    pub mtu: u32,
    /// Packet trimming at switches (header forwarded at high priority instead of a drop).
    pub trimming: bool,
    /// Bits of entropy value space (EVS = 2^evs_bits).
    pub evs_bits: u32,
    /// Retransmission timeout in us (REPS 4.1: 70).
    pub rto_us: f64,
    /// Initial congestion window: bytes or BDP multiples ("1bdp").
    pub init_cwnd: Size,
    /// TCP slow start from `init_cwnd` until the first ECN cut or loss (`cc = "dctcp"`
    /// only; REPS 4.1's senders start at one BDP without it). Written out only when on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub slow_start: bool,
    /// Header bytes: added to each DATA packet's payload on the wire; the size of ACKs,
    /// NACKs and trimmed packets.
    pub header_bytes: u32,
    /// A flow opens with the congestion window the last completed flow of its (src, dst)
    /// pair ended with (its initial window when there is none): the flows of a pair are
    /// messages of one connection, as the REPS artifact's `-connections_mapping` runs every
    /// load balancer (`UecSrc::startFlow` loads `CONNECTION_INFO_MAP[src_dst].cwnd`, which
    /// `checkFinished` stored). DCTCP-family transports (`cc = "dctcp"` or `"mprdma"`) only.
    /// Written out only when on.
    #[serde(skip_serializing_if = "is_false")]
    pub per_connection_cwnd: bool,
    /// `[transport.reps]`: the REPS load balancer (`lb = "reps"`).
    pub reps: RepsSection,
    /// `[transport.dcsim]`: the DCSIM transport (`cc = "dcsim"`).
    pub dcsim: DcsimSection,
    /// `[transport.uno]`: the Uno transport (`cc = "uno"`, and its baselines); written out
    /// only when it differs from its defaults.
    #[serde(skip_serializing_if = "UnoSection::is_default")]
    pub uno: UnoSection,
    /// `[transport.zeropod]`: Zeropod (`cc = "zeropod"`). Left out of a resolved
    /// `scenario.toml` while it holds the defaults, so runs of other transports write the same
    /// file as before the section existed.
    #[serde(skip_serializing_if = "ZeropodSection::is_default")]
    pub zeropod: ZeropodSection,
    /// `[transport.pfabric]`: pFabric (`cc = "pfabric"`); written out only when it differs
    /// from its defaults.
    #[serde(skip_serializing_if = "crate::transport::pfabric::PfabricSection::is_default")]
    pub pfabric: crate::transport::pfabric::PfabricSection,
    /// `[transport.phost]`: pHost (`cc = "phost"`); written out only when it differs from
    /// its defaults.
    #[serde(skip_serializing_if = "PhostSection::is_default")]
    pub phost: PhostSection,
    /// `[transport.dcpim]`: dcPIM (`cc = "dcpim"`); written out only when it differs from
    /// its defaults.
    #[serde(skip_serializing_if = "DcpimSection::is_default")]
    pub dcpim: DcpimSection,
}

pub use crate::dcsim::section::{DcsimSection, DcsimVariantKind};
pub use crate::transport::phost::PhostSection;

pub use crate::transport::dcpim::DcpimSection;
pub use crate::transport::reps::{FreezeExit, RepsSection};
pub use crate::transport::uno::UnoSection;
pub use crate::transport::zeropod::ZeropodSection;

impl Default for Transport {
    fn default() -> Self {
        Transport {
            cc: CcKind::Dctcp,
            lb: LbKind::Ops,
            mtu: 4096,
            trimming: false,
            evs_bits: 16,
            rto_us: 70.0,
            init_cwnd: Size::Bdp(1.0),
            slow_start: false,
            header_bytes: 64,
            per_connection_cwnd: false,
            reps: RepsSection::default(),
            dcsim: DcsimSection::default(),
            uno: UnoSection::default(),
            zeropod: ZeropodSection::default(),
            pfabric: Default::default(),
            phost: PhostSection::default(),
            dcpim: DcpimSection::default(),
        }
    }
}

/// `[transport]` as read from a file: [`Transport`] plus the deprecated flat aliases of the
/// per-transport sections (`reps_*` for `[transport.reps]`, `dcsim_*` for `[transport.dcsim]`).
/// An alias that is given overrides the section's value and prints a deprecation line on
/// stderr.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct TransportToml {
    cc: CcKind,
    lb: LbKind,
    mtu: u32,
    trimming: bool,
    evs_bits: u32,
    rto_us: f64,
    init_cwnd: Size,
    slow_start: bool,
    header_bytes: u32,
    per_connection_cwnd: bool,
    reps: RepsSection,
    dcsim: DcsimSection,
    uno: UnoSection,
    zeropod: ZeropodSection,
    pfabric: crate::transport::pfabric::PfabricSection,
    phost: PhostSection,
    dcpim: DcpimSection,
    reps_freezing: Option<bool>,
    reps_freezing_timeout_us: Option<f64>,
    dcsim_variant: Option<DcsimVariantKind>,
    dcsim_fraction: Option<f64>,
    dcsim_small_queue_pkts: Option<u32>,
    dcsim_small_bytes: Option<u32>,
    dcsim_h: Option<f64>,
    dcsim_bucket_depth: Option<u32>,
    dcsim_data_buffer: Option<Size>,
    dcsim_data_buffer_ratio: Option<f64>,
    dcsim_ack_every: Option<u32>,
    dcsim_ack_interval_rtts: Option<f64>,
}

impl Default for TransportToml {
    fn default() -> Self {
        let t = Transport::default();
        TransportToml {
            cc: t.cc,
            lb: t.lb,
            mtu: t.mtu,
            trimming: t.trimming,
            evs_bits: t.evs_bits,
            rto_us: t.rto_us,
            init_cwnd: t.init_cwnd,
            slow_start: t.slow_start,
            header_bytes: t.header_bytes,
            per_connection_cwnd: t.per_connection_cwnd,
            reps: t.reps,
            dcsim: t.dcsim,
            uno: t.uno,
            zeropod: t.zeropod,
            pfabric: t.pfabric,
            phost: t.phost,
            dcpim: t.dcpim,
            reps_freezing: None,
            reps_freezing_timeout_us: None,
            dcsim_variant: None,
            dcsim_fraction: None,
            dcsim_small_queue_pkts: None,
            dcsim_small_bytes: None,
            dcsim_h: None,
            dcsim_bucket_depth: None,
            dcsim_data_buffer: None,
            dcsim_data_buffer_ratio: None,
            dcsim_ack_every: None,
            dcsim_ack_interval_rtts: None,
        }
    }
}

/// Move a deprecated flat alias into its section field, with a deprecation line.
fn alias<T>(old: Option<T>, old_name: &str, new_name: &str, field: &mut T) {
    if let Some(v) = old {
        eprintln!(
            "warning: transport.{old_name} is deprecated; use transport.{new_name} \
             (a [transport.{}] section)",
            new_name.split('.').next().unwrap_or(new_name)
        );
        *field = v;
    }
}

impl From<TransportToml> for Transport {
    fn from(t: TransportToml) -> Transport {
        let (mut reps, mut d) = (t.reps, t.dcsim);
        alias(
            t.reps_freezing,
            "reps_freezing",
            "reps.freezing",
            &mut reps.freezing,
        );
        alias(
            t.reps_freezing_timeout_us,
            "reps_freezing_timeout_us",
            "reps.freezing_timeout_us",
            &mut reps.freezing_timeout_us,
        );
        alias(
            t.dcsim_variant,
            "dcsim_variant",
            "dcsim.variant",
            &mut d.variant,
        );
        alias(
            t.dcsim_fraction,
            "dcsim_fraction",
            "dcsim.fraction",
            &mut d.fraction,
        );
        alias(
            t.dcsim_small_queue_pkts,
            "dcsim_small_queue_pkts",
            "dcsim.small_queue_pkts",
            &mut d.small_queue_pkts,
        );
        alias(
            t.dcsim_small_bytes,
            "dcsim_small_bytes",
            "dcsim.small_bytes",
            &mut d.small_bytes,
        );
        alias(t.dcsim_h, "dcsim_h", "dcsim.h", &mut d.h);
        alias(
            t.dcsim_bucket_depth,
            "dcsim_bucket_depth",
            "dcsim.bucket_depth",
            &mut d.bucket_depth,
        );
        alias(
            t.dcsim_data_buffer.map(Some),
            "dcsim_data_buffer",
            "dcsim.data_buffer",
            &mut d.data_buffer,
        );
        alias(
            t.dcsim_data_buffer_ratio,
            "dcsim_data_buffer_ratio",
            "dcsim.data_buffer_ratio",
            &mut d.data_buffer_ratio,
        );
        alias(
            t.dcsim_ack_every,
            "dcsim_ack_every",
            "dcsim.ack_every",
            &mut d.ack_every,
        );
        alias(
            t.dcsim_ack_interval_rtts,
            "dcsim_ack_interval_rtts",
            "dcsim.ack_interval_rtts",
            &mut d.ack_interval_rtts,
        );
        Transport {
            cc: t.cc,
            lb: t.lb,
            mtu: t.mtu,
            trimming: t.trimming,
            evs_bits: t.evs_bits,
            rto_us: t.rto_us,
            init_cwnd: t.init_cwnd,
            slow_start: t.slow_start,
            header_bytes: t.header_bytes,
            per_connection_cwnd: t.per_connection_cwnd,
            reps,
            dcsim: d,
            uno: t.uno,
            zeropod: t.zeropod,
            pfabric: t.pfabric,
            phost: t.phost,
            dcpim: t.dcpim,
        }
    }
}

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

fn is_false(v: &bool) -> bool {
    !*v
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

/// Random loss on a link (`[[loss]]`; `crate::engine::loss`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Loss {
    /// A link name (both directions of the cable, like `failures[].link`), `inter_dc` for
    /// every inter-DC link of a `two_dc`, or `border` for every cable of its border switches
    /// (`engine::loss::loss_ports`).
    pub link: String,
    /// `uno_setup1` / `uno_setup2` (Uno Table 1), `block` (`block_packets`,
    /// `block_loss_probs`) or `bernoulli` (`rate`).
    pub model: LossModel,
    /// `block`: packets per block (Uno 2.4: 10).
    pub block_packets: u32,
    /// `block`: probability that a block loses 1, 2, 3, ... of its packets.
    pub block_loss_probs: Vec<f64>,
    /// `bernoulli`: probability that a packet is lost.
    pub rate: f64,
    /// When the link starts losing, us (Uno Fig. 13: a link "temporarily flaky").
    pub at_us: f64,
    /// How long it loses, us; absent = until the end of the run.
    pub for_us: Option<f64>,
    /// Where a switch port loses a packet: `wire` (after its queue) or `arrival` (before
    /// the buffer, the Uno authors' `CompositeQueue::receivePacket`).
    #[serde(skip_serializing_if = "LossPlace::is_wire")]
    pub place: LossPlace,
}

/// Where a lossy switch port loses a packet (`loss[].place`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPlace {
    /// On the wire, after the queue: a lost packet held its buffer slot and took its line
    /// time; only packets sent draw.
    #[default]
    Wire,
    /// On arrival, before the buffer check (spcl/Uno_SC25 `sim/compositequeue.cpp`,
    /// `CompositeQueue::receivePacket` under `failure_multiples`): a lost packet takes no
    /// buffer slot, no line time and no phantom-queue credit, and every arriving packet
    /// draws, the ones the full buffer then drops too. A host's own port stays `wire`.
    Arrival,
}

impl LossPlace {
    fn is_wire(&self) -> bool {
        *self == LossPlace::Wire
    }
}

impl Default for Loss {
    fn default() -> Self {
        Loss {
            link: String::new(),
            model: LossModel::UnoSetup1,
            block_packets: 10,
            block_loss_probs: Vec::new(),
            rate: 0.0,
            at_us: 0.0,
            for_us: None,
            place: LossPlace::Wire,
        }
    }
}

/// How a lossy link loses packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    /// Uno Table 1, Setup 1 (65 ms RTT): blocks of 10 lose 1 / 2 / 3 packets with
    /// probability 3.0e-4 / 7.5e-5 / 1.6e-5.
    UnoSetup1,
    /// Uno Table 1, Setup 2 (33 ms RTT): 4.0e-5 / 2.3e-5 / 4.9e-6.
    UnoSetup2,
    /// Blocks of `block_packets` losing k packets with `block_loss_probs[k - 1]`.
    Block,
    /// Each packet lost with probability `rate`.
    Bernoulli,
}

/// A link going down for a while, changing rate, or dropping packets at random; or such a
/// failure of a random fraction of a set of cables (`engine::failure_sets`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// Link name, e.g. `tor0.up3` (see README for naming).
    pub link: String,
    /// When the failure starts, in us.
    pub at_us: f64,
    /// How long it lasts, in us; absent = forever.
    #[serde(default)]
    pub for_us: Option<f64>,
    /// New rate in Gb/s instead of going down; absent = link down.
    #[serde(default)]
    pub gbps: Option<f64>,
    /// Instead of going down, the cable loses each packet crossing it (either direction)
    /// with this probability, drawn from the seed (REPS Fig. 8 "random drops", a partial
    /// failure); counted as drops of cause `random_loss`. Not with `gbps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_prob: Option<f64>,
    /// `link` names a set of cables (`tor_uplinks`, `agg_uplinks` or `switch_cables`) and
    /// this fraction of them (rounded, at least one), drawn from the seed, fail (REPS Fig. 8
    /// "1 % cables", Fig. 9); the chosen cables are listed in `failures.csv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_fraction: Option<f64>,
    /// Only the direction out of the port `link` names goes down (or changes rate); the
    /// cable's other direction keeps working. The Uno authors' `-fail_one` fails one queue,
    /// datacenter 0's border towards datacenter 1 (`border0.wan<n>`), and leaves the way back
    /// up, so the ACKs of a flow across it still return (Fig. 13). A link name only; not
    /// with `drop_prob` or `random_fraction`. Left out of `scenario.toml` when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub one_direction: bool,
}

/// What to record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Queue-occupancy sampling interval in us (0 = off).
    pub queue_sample_us: f64,
    /// Record a packet trace.
    pub trace: bool,
    /// Width of the time buckets of `uplink_selection.csv` (DATA packets and bytes each ToR
    /// uplink was chosen for, per bucket), in us; 0 = no table.
    pub selection_bucket_us: f64,
    /// Per-flow rate sampling interval in us (`rates.csv`, `fairness.csv` and the fairness
    /// summary keys); 0 = off. Left out of the resolved `scenario.toml` when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub rate_sample_us: f64,
    /// `converge_10pct_us` on rates averaged over windows of this many us (rounded to whole
    /// `rate_sample_us` intervals), and `fair_windows_within_10pct` (the share of those windows
    /// within 10%); 0 = per sample interval, no share. Left out of the resolved
    /// `scenario.toml` when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub fair_window_us: f64,
    /// Two datacenters only: add each class's FCT *slowdown* (FCT over the ideal FCT, the flow's
    /// base RTT plus its bytes at the host link rate, at least 1; Uno Fig. 11) to the summary:
    /// `slowdown_{all,intra,inter}_{mean,p99}`. Left out of the resolved `scenario.toml` when
    /// off, so that runs without it are unchanged.
    #[serde(skip_serializing_if = "is_false")]
    pub fct_slowdown: bool,
}

fn is_off(v: &f64) -> bool {
    *v == 0.0
}

impl Default for Output {
    fn default() -> Self {
        Output {
            queue_sample_us: 1.0,
            trace: false,
            selection_bucket_us: 10.0,
            rate_sample_us: 0.0,
            fair_window_us: 0.0,
            fct_slowdown: false,
        }
    }
}

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
    /// What the sampled sending rate `R(t_k)` of Eq. 5-6 is (Wormhole 3/5.1, "a unified
    /// metric -- sending rate"; 7.3 / Fig. 13a: R, the in-flight bytes and the queue are
    /// equivalent for steady-state identification, Theorem 1).
    #[serde(skip_serializing_if = "is_default_rate_metric")]
    pub rate_metric: RateMetric,
    /// Which rate advances a skipped flow's bytes (Eq. 7's estimate `R^`).
    #[serde(skip_serializing_if = "is_default_rate_estimate")]
    pub rate_estimate: RateEstimate,
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
            rate_metric: RateMetric::default(),
            rate_estimate: RateEstimate::default(),
        }
    }
}

/// When to stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Stop {
    /// Simulated-time limit in us (0 = until every flow completes).
    pub max_time_us: f64,
}

impl Default for Stop {
    fn default() -> Self {
        Stop { max_time_us: 0.0 }
    }
}

/// A size: plain bytes, or a multiple of the path's bandwidth-delay product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// Multiples of the BDP.
    Bdp(f64),
}

impl Size {
    /// Parse "8MiB", "500KB", "9000", "1bdp", "2.5 BDP" (see [`crate::units::parse_size`]).
    pub fn parse(s: &str) -> Result<Size, String> {
        crate::units::parse_size(s)
    }

    /// Bytes, given the BDP in bytes for BDP-relative sizes.
    pub fn bytes(self, bdp_bytes: u64) -> u64 {
        match self {
            Size::Bytes(b) => b,
            Size::Bdp(m) => (m * bdp_bytes as f64).round().max(1.0) as u64,
        }
    }
}

impl Serialize for Size {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Size::Bytes(b) => s.serialize_u64(*b),
            Size::Bdp(m) => s.serialize_str(&format!("{m}bdp")),
        }
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        d.deserialize_any(SizeVisitor)
    }
}

/// Reads a size from an integer or a string, with messages in the user's terms (a float,
/// a negative number, a bool, a table or an array each say what a size looks like).
struct SizeVisitor;

const SIZE_FORMS: &str = "a size: a whole number of bytes (4096) or a string like \"8MiB\", \
                          \"500KB\", \"2.5bdp\"; 1 byte to 1 PB";

impl serde::de::Visitor<'_> for SizeVisitor {
    type Value = Size;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(SIZE_FORMS)
    }

    fn visit_u64<E: serde::de::Error>(self, b: u64) -> Result<Size, E> {
        if b == 0 {
            return Err(E::custom(format!("got 0; expected {SIZE_FORMS}")));
        }
        if b > crate::units::MAX_SIZE_BYTES {
            return Err(E::custom(format!(
                "{b} bytes is out of range: at most 1 PB (1000000000000000 bytes)"
            )));
        }
        Ok(Size::Bytes(b))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Size, E> {
        match u64::try_from(v) {
            Ok(b) => self.visit_u64(b),
            Err(_) => Err(E::custom(format!(
                "got {v} (negative); expected {SIZE_FORMS}"
            ))),
        }
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Size, E> {
        // `1e6` is a whole number of bytes written as a float: accept it.
        if v.is_finite() && v.fract() == 0.0 && v >= 0.0 && v <= u64::MAX as f64 {
            return self.visit_u64(v as u64);
        }
        let shown = crate::units::num(v);
        if v < 0.0 {
            return Err(E::custom(format!(
                "got {shown} (negative); expected {SIZE_FORMS}"
            )));
        }
        Err(E::custom(format!(
            "got {shown} (not a whole number of bytes); expected {SIZE_FORMS}"
        )))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Size, E> {
        crate::units::parse_size(s).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(Size::parse("8MiB"), Ok(Size::Bytes(8 << 20)));
        assert_eq!(Size::parse("500KB"), Ok(Size::Bytes(500_000)));
        assert_eq!(Size::parse("1bdp"), Ok(Size::Bdp(1.0)));
        assert!(Size::parse("-1bdp").is_err());
        assert!(Size::parse("12 parsecs").is_err());
    }

    #[test]
    fn transport_sections_and_deprecated_aliases() {
        let new: Scenario = toml::from_str(
            "[transport.dcsim]\nvariant = \"async\"\nack_every = 8\n\
             [transport.reps]\nfreezing = false\n",
        )
        .unwrap();
        let old: Scenario = toml::from_str(
            "[transport]\ndcsim_variant = \"async\"\ndcsim_ack_every = 8\nreps_freezing = false\n",
        )
        .unwrap();
        assert_eq!(new, old);
        assert_eq!(new.transport.dcsim.variant, DcsimVariantKind::Async);
        assert_eq!(new.transport.dcsim.ack_every, 8);
        assert!(!new.transport.reps.freezing);
        // Written back with the new names only.
        let text = toml::to_string(&new).unwrap();
        assert!(text.contains("[transport.dcsim]") && !text.contains("dcsim_variant"));
        assert!(toml::from_str::<Scenario>("[transport.dcsim]\nvariant_x = 1\n").is_err());
    }

    #[test]
    fn default_round_trips_through_toml() {
        let s = Scenario::default();
        let text = toml::to_string(&s).unwrap();
        let back: Scenario = toml::from_str(&text).unwrap();
        assert_eq!(s, back);
    }
}
