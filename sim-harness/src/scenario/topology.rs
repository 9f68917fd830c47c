//! `[topology]`: the network (DESIGN.md, "Scenario files"): fat trees, the REPS 4.3.2
//! single-ToR micro benchmark, Uno's two datacenters and Zeropod pods; link rates and delays,
//! switch buffers and RED/ECN thresholds (REPS 4.1), DCSIM 4.2's slowed cores and Uno's
//! phantom queues (Uno 4.1.3).

use serde::{Deserialize, Serialize};

use super::Size;

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
    pub phantom_ports: Vec<PortRole>,
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

/// A switch output port's role, as a scenario names it (`topology.phantom_ports`): the
/// fabric's own [`PortRole`] (a host NIC's role has no scenario name).
pub use crate::topology::PortRole;

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
            phantom_ports: PortRole::FAT_TREE.to_vec(),
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
