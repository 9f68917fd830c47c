//! `[transport]`: congestion control and load balancing. Each transport's own parameters are
//! a section owned by its module (`[transport.reps]`, `[transport.dcsim]`, `[transport.uno]`,
//! ...), re-exported here; the deprecated flat aliases are read by `transport_aliases`.

use serde::{Deserialize, Serialize};

use super::transport_aliases::TransportToml;
use super::{is_false, Size};

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

impl CcKind {
    /// The name a scenario gives this kind (`transport.cc = "..."`), for messages that ask
    /// the user to change it.
    pub const fn name(self) -> &'static str {
        match self {
            CcKind::Dctcp => "dctcp",
            CcKind::Uno => "uno",
            CcKind::Dcsim => "dcsim",
            CcKind::Zeropod => "zeropod",
            CcKind::Gemini => "gemini",
            CcKind::MprdmaBbr => "mprdma_bbr",
            CcKind::Mprdma => "mprdma",
            CcKind::Pfabric => "pfabric",
            CcKind::Phost => "phost",
            CcKind::Dcpim => "dcpim",
        }
    }
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
