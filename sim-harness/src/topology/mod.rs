//! Topologies: a [`Fabric`] is hosts, switches and output ports joined by cables. Each
//! topology kind is one module that fills a [`FabricBuilder`] ([`fat_tree`], [`two_dc`]; REPS's
//! n-senders-through-one-switch micro benchmark or Zeropod pods are new modules, not a
//! rewrite). The engine only sees the generic [`Fabric`].
//!
//! ## Ports, cables and names
//!
//! Every cable is two output ports, one per direction; each port is named after the end it
//! leaves from, and these names are used in `links.csv`, `queues.csv` and `failures[].link`:
//!
//! | name            | output port                                                       |
//! |-----------------|-------------------------------------------------------------------|
//! | `host{h}`       | host h's NIC, towards its ToR                                     |
//! | `tor{t}.down{i}`| ToR t towards its i-th host (host `t * hosts_per_tor + i`)         |
//! | `tor{t}.up{j}`  | ToR t towards uplink j: spine j (2 tiers) or agg j of its pod (3)  |
//! | `agg{a}.down{i}`| agg a (pod `a / aggs_per_pod`) towards the pod's i-th ToR          |
//! | `agg{a}.up{j}`  | agg a towards spine `(a mod aggs_per_pod) * radix/2 + j`           |
//! | `spine{s}.down{i}`| spine s towards ToR i (2 tiers) or towards pod i's agg (3 tiers) |
//! | `spine{s}.up{j}`| `two_dc`: core s towards its border switch (j-th of its links)     |
//! | `border{b}.down{i}`| `two_dc`: border b towards link i to its cores (see [`two_dc`]) |
//! | `border{b}.wan{n}`| `two_dc`: border b's inter-DC link n (to the other border)       |
//!
//! Switches are numbered per tier from 0 (ToRs, then aggs, then spines); hosts from 0, in
//! ToR order. A failure names a cable by either of its ports (`tor0.up3` and `spine3.down0`
//! are the same cable) and acts on both directions: link down (a port whose cable is down
//! drops what it transmits, cause `link_down`, and switches do not route around it) or a
//! new rate. An unknown name is an error on `failures[i].link`.
//!
//! ## Routing
//!
//! Each switch has a [`Route`]: destinations in its host range go down a fixed port, the
//! others go up through a port chosen by the switch's ECMP hash of (source, destination,
//! entropy value), seeded per switch ([`ecmp_hash`]): fixed and deterministic.
//!
//! ## Buffer sizing ("1bdp")
//!
//! `buffer = "1bdp"` is one bandwidth-delay product of the longest path: the host link
//! rate times the base RTT, where the base RTT is, for the longest host-to-host path of `L`
//! links and `S` switches, `2 (L * link_delay + S * switch_latency) + L * ser(DATA) +
//! L * ser(ACK)`, with `ser(x)` the serialization time of a full DATA packet (`mtu +
//! header_bytes`) or an ACK (`header_bytes`) at the host link rate. (3-tier: L = 6, S = 5;
//! 2-tier: L = 4, S = 3.) In a `two_dc` the longest path is the longest intra-DC one
//! ([`two_dc`]); an inter-DC flow's own values come from [`Fabric::path`].

pub mod adaptive;
pub mod cores;
pub mod fat_tree;
pub mod spray_rr;

/// Switch-side routing that replaces the ECMP hash of the entropy value for some load
/// balancers (`transport.lb`): one `Option` in the engine, so ECMP / OPS / REPS runs pay a
/// single check per routed packet.
#[derive(Debug, Clone)]
pub enum SwitchRouting {
    /// `adaptive_roce`: the least-loaded uplink ([`adaptive`]).
    Adaptive(adaptive::AdaptiveSwitches),
    /// `spray_rr`: round-robin per input link ([`spray_rr`]).
    Spray(spray_rr::SpraySwitches),
}
pub mod two_dc;
pub mod zeropod;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::scenario::{Scenario, TopologyKind};

/// A node a port sits on or leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    /// A host (its index).
    Host(u32),
    /// A switch (its index).
    Switch(u32),
}

/// One output port (one direction of a cable).
#[derive(Debug, Clone, PartialEq)]
pub struct PortSpec {
    /// Name (see the module doc).
    pub name: String,
    /// Where the port sits.
    pub owner: Node,
    /// Where its cable leads.
    pub peer: Node,
    /// The port of the opposite direction of the same cable.
    pub reverse: u32,
    /// Line rate in Gb/s.
    pub gbps: f64,
    /// Propagation delay of the cable, ps.
    pub prop_ps: u64,
    /// What the port is (set when the fabric is finished): code asks the role, never the
    /// name.
    pub role: PortRole,
}

/// The tier of a switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Top of rack: hosts below.
    Tor,
    /// Aggregation (3-tier fat trees).
    Agg,
    /// Spine / core: the top tier of a fat tree.
    Spine,
    /// Border switch of a datacenter (`two_dc`): its cores below, inter-DC links across.
    Border,
}

/// What an output port is, by where it sits and which way its cable leads (towards the hosts
/// or away from them). New fabrics (two datacenters, Zeropod pods) add roles. A scenario names
/// the switch roles in `topology.phantom_ports` (snake case: `tor_down`, ..., `border_wan`);
/// a host NIC's role has no scenario name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PortRole {
    /// A host's NIC port (towards its ToR).
    #[serde(skip)]
    HostNic,
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
    /// `two_dc`: a spine (core) port towards its datacenter's border switch (`spine<s>.up<j>`).
    SpineUp,
    /// `two_dc`: a border switch port towards a core of its datacenter (`border<b>.down<i>`).
    BorderDown,
    /// `two_dc`: a border switch port on an inter-DC link, towards the other border
    /// (`border<b>.wan<n>`).
    BorderWan,
}

impl PortRole {
    /// Every switch port role (all but [`PortRole::HostNic`]).
    pub const SWITCH: [PortRole; 8] = [
        PortRole::TorDown,
        PortRole::TorUp,
        PortRole::AggDown,
        PortRole::AggUp,
        PortRole::SpineDown,
        PortRole::SpineUp,
        PortRole::BorderDown,
        PortRole::BorderWan,
    ];

    /// The roles of a fat tree's switch ports: the default of `topology.phantom_ports`
    /// (a `two_dc` run names the border roles to give them phantom queues too).
    pub const FAT_TREE: [PortRole; 5] = [
        PortRole::TorDown,
        PortRole::TorUp,
        PortRole::AggDown,
        PortRole::AggUp,
        PortRole::SpineDown,
    ];

    /// Whether only inter-DC traffic crosses a port of this role (`two_dc`: the core ports
    /// towards the border, and every border port): `topology.two_dc.dc_buffer` sizes them.
    pub const fn inter_dc(self) -> bool {
        matches!(
            self,
            PortRole::SpineUp | PortRole::BorderDown | PortRole::BorderWan
        )
    }

    /// The role of a port of a switch of `tier` whose cable leads up (`up`) or down.
    pub const fn of(tier: Tier, up: bool) -> PortRole {
        match (tier, up) {
            (Tier::Tor, false) => PortRole::TorDown,
            (Tier::Tor, true) => PortRole::TorUp,
            (Tier::Agg, false) => PortRole::AggDown,
            (Tier::Agg, true) => PortRole::AggUp,
            (Tier::Spine, false) => PortRole::SpineDown,
            (Tier::Spine, true) => PortRole::SpineUp,
            (Tier::Border, _) => PortRole::BorderDown,
        }
    }
}

/// A host-to-host path: its shape, and its base RTT and BDP ([`Fabric::path`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Path {
    /// Cables and switches traversed.
    pub shape: PathShape,
    /// Base RTT (see the module doc, with this path's shape and cables), ps.
    pub base_rtt_ps: u64,
    /// BDP at the host link rate over this path's base RTT, bytes.
    pub bdp_bytes: u64,
}

/// How a switch picks the output port for a destination: one variant per kind of fabric
/// (today the fat tree's up/down ECMP route; two-datacenter and source-routed cell routes are
/// further variants), dispatched by a `match` in [`Route::select`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Hosts `lo..hi` are below this switch: port `first_down + (dst - lo) / per_down`.
    /// Any other destination goes up: port `first_up + ecmp_hash(..) * n_up / 2^32`.
    Tree {
        /// First host below.
        lo: u32,
        /// One past the last host below.
        hi: u32,
        /// Hosts behind each down port.
        per_down: u32,
        /// Port id of down port 0.
        first_down: u32,
        /// Port id of up port 0.
        first_up: u32,
        /// Up ports (0 at the top tier).
        n_up: u32,
    },
    /// A border switch (`two_dc`): hosts `lo..hi` are in its datacenter and go down through
    /// one of its `n_down` core ports, any other host goes across one of its `n_wan` inter-DC
    /// links; both chosen by the ECMP hash, like [`Route::Tree`]'s up ports.
    Border {
        /// First host of its datacenter.
        lo: u32,
        /// One past its datacenter's last host.
        hi: u32,
        /// Port id of down port 0.
        first_down: u32,
        /// Down ports (towards the cores).
        n_down: u32,
        /// Port id of inter-DC port 0.
        first_wan: u32,
        /// Inter-DC ports.
        n_wan: u32,
    },
}

impl Route {
    /// The output port for a packet `src -> dst` carrying entropy value `ev`, at a switch
    /// whose hash seed is `seed`: one of [`Route::choices`], by the ECMP hash. `None` if the
    /// destination is unreachable from here.
    #[inline]
    pub fn select(&self, src: u32, dst: u32, ev: u16, seed: u64) -> Option<u32> {
        let (first, n) = self.choices(dst)?;
        if n == 1 {
            // The one choice (as the hash would pick: `(h * 1) >> 32 == 0`), unhashed.
            return Some(first);
        }
        let h = ecmp_hash(src, dst, ev, seed) as u64;
        Some(first + ((h * n as u64) >> 32) as u32)
    }

    /// The output ports (first port id, count) a packet for `dst` may leave by here, whatever
    /// its entropy: a tree switch's one down port towards `dst` when `dst` is below it, else
    /// its uplinks; a border switch's core ports for its own datacenter, its inter-DC links
    /// for the other. `None` when there is no way on.
    #[inline]
    pub fn choices(&self, dst: u32) -> Option<(u32, u32)> {
        match *self {
            Route::Tree {
                lo,
                hi,
                per_down,
                first_down,
                first_up,
                n_up,
            } => {
                if dst >= lo && dst < hi {
                    Some((first_down + (dst - lo) / per_down, 1))
                } else {
                    (n_up > 0).then_some((first_up, n_up))
                }
            }
            Route::Border {
                lo,
                hi,
                first_down,
                n_down,
                first_wan,
                n_wan,
            } => {
                let (first, n) = if dst >= lo && dst < hi {
                    (first_down, n_down)
                } else {
                    (first_wan, n_wan)
                };
                (n > 0).then_some((first, n))
            }
        }
    }

    /// The equal-cost uplinks (first port id, count) a packet for `dst` chooses among here;
    /// `None` when `dst` is below this switch (a fixed down port) or there is no uplink.
    /// A border switch's choices are all equal-cost: its core ports for its own datacenter,
    /// its inter-DC links for the other.
    #[inline]
    pub fn up_ports(&self, dst: u32) -> Option<(u32, u32)> {
        match *self {
            Route::Tree { lo, hi, .. } if dst >= lo && dst < hi => None,
            _ => self.choices(dst),
        }
    }
}

/// The ECMP hash of a switch: a seeded 64-bit mix (splitmix64 finalizer, two rounds) of
/// (source, destination, entropy value), reduced to 32 bits.
#[inline]
pub fn ecmp_hash(src: u32, dst: u32, ev: u16, seed: u64) -> u32 {
    #[inline]
    fn mix(mut x: u64) -> u64 {
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    let a = mix((src as u64) << 32 ^ dst as u64 ^ seed);
    (mix(a ^ ev as u64 ^ seed.rotate_left(17)) >> 32) as u32
}

/// One switch.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    /// Name (`tor3`, `agg0`, `spine7`).
    pub name: String,
    /// Its tier.
    pub tier: Tier,
    /// Its index within its tier (the 3 of `tor3`).
    pub index: u32,
    /// Its routing rule.
    pub route: Route,
    /// Its output ports (`first..first + count`).
    pub first_port: u32,
    /// Number of output ports.
    pub n_ports: u32,
}

/// The longest host-to-host path (for the base RTT and the BDP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathShape {
    /// Cables traversed.
    pub links: u32,
    /// Switches traversed.
    pub switches: u32,
}

/// A built network.
#[derive(Debug, Clone, PartialEq)]
pub struct Fabric {
    /// Number of hosts; host h's NIC port is port h.
    pub hosts: u32,
    /// Every output port; ports `0..hosts` are the host NICs.
    pub ports: Vec<PortSpec>,
    /// Every switch.
    pub switches: Vec<SwitchSpec>,
    /// The longest path.
    pub longest: PathShape,
    /// Host link rate, Gb/s.
    pub host_gbps: f64,
    /// Hosts per datacenter: `hosts` for a single fabric; `two_dc` numbers DC0's hosts
    /// `0..hosts_per_dc`, then DC1's ([`Fabric::dc_of`]).
    pub hosts_per_dc: u32,
}

impl Fabric {
    /// The datacenter of host `h` (0 in a single fabric; 0 or 1 in `two_dc`).
    pub fn dc_of(&self, h: u32) -> u32 {
        h / self.hosts_per_dc.max(1)
    }

    /// Whether a flow `src -> dst` crosses datacenters (its class is `inter`, else `intra`).
    pub fn is_inter(&self, src: u32, dst: u32) -> bool {
        self.dc_of(src) != self.dc_of(dst)
    }

    /// The output ports a failure named `name` takes down: the port of that name (its
    /// cable; the reverse direction is added by the caller), or, for a switch name (`tor3`,
    /// `agg0`, `spine7`: a switch failure, REPS 4.3.3), every port of that switch (each of
    /// its cables). `None` if nothing has that name.
    pub fn failure_ports(&self, name: &str) -> Option<Vec<u32>> {
        if let Some(p) = self.port_by_name(name) {
            return Some(vec![p]);
        }
        let sw = self.switches.iter().find(|s| s.name == name)?;
        Some((sw.first_port..sw.first_port + sw.n_ports).collect())
    }

    /// The port named `name`, if any.
    pub fn port_by_name(&self, name: &str) -> Option<u32> {
        self.ports
            .iter()
            .position(|p| p.name == name)
            .map(|i| i as u32)
    }

    /// The path `src -> dst` (hosts; entropy 0, as every path between two hosts of a fat tree
    /// has the same shape): its cables and switches, and its base RTT and BDP for DATA packets
    /// of `data_bytes` and ACKs of `ack_bytes` with `switch_ps` per switch (the formula of
    /// [`Fabric::base_rtt_ps`], with this path's own cables). On today's symmetric fat trees
    /// the longest path gives exactly [`Fabric::base_rtt_ps`] and [`Fabric::bdp_bytes`].
    pub fn path(
        &self,
        src: u32,
        dst: u32,
        switch_ps: u64,
        data_bytes: u32,
        ack_bytes: u32,
    ) -> Path {
        let (mut links, mut switches, mut prop) = (1u32, 0u32, self.ports[src as usize].prop_ps);
        let mut port = src;
        for _ in 0..64 {
            let Node::Switch(s) = self.ports[port as usize].peer else {
                break;
            };
            let Some(next) = self.switches[s as usize].route.select(src, dst, 0, 0) else {
                break;
            };
            switches += 1;
            links += 1;
            port = next;
            prop += self.ports[port as usize].prop_ps;
        }
        let (l, s) = (u64::from(links), u64::from(switches));
        let ser = |b: u32| ser_ps(b, self.host_gbps);
        let base_rtt_ps = 2 * (prop + s * switch_ps) + l * ser(data_bytes) + l * ser(ack_bytes);
        Path {
            shape: PathShape { links, switches },
            base_rtt_ps,
            bdp_bytes: self.bdp_bytes(base_rtt_ps),
        }
    }

    /// Base RTT of the longest path in ps, for DATA packets of `data_bytes` and ACKs of
    /// `ack_bytes` on the wire (see the module doc).
    pub fn base_rtt_ps(
        &self,
        prop_ps: u64,
        switch_ps: u64,
        data_bytes: u32,
        ack_bytes: u32,
    ) -> u64 {
        let l = self.longest.links as u64;
        let s = self.longest.switches as u64;
        let ser = |b: u32| ser_ps(b, self.host_gbps);
        2 * (l * prop_ps + s * switch_ps) + l * ser(data_bytes) + l * ser(ack_bytes)
    }

    /// The BDP in bytes for a base RTT of `rtt_ps` at the host link rate.
    pub fn bdp_bytes(&self, rtt_ps: u64) -> u64 {
        (self.host_gbps * 1e9 * rtt_ps as f64 / 8e12).round() as u64
    }
}

/// Serialization time of `bytes` at `gbps`, ps (rounded up).
pub fn ser_ps(bytes: u32, gbps: f64) -> u64 {
    (bytes as f64 * 8000.0 / gbps).ceil() as u64
}

/// Fills a [`Fabric`]: ports are created per switch (contiguous ids) and joined by cables.
#[derive(Debug)]
pub struct FabricBuilder {
    f: Fabric,
}

impl FabricBuilder {
    /// A fabric of `hosts` hosts (their NIC ports `host{h}` are ports `0..hosts`).
    pub fn new(hosts: u32, host_gbps: f64) -> Self {
        let ports = (0..hosts)
            .map(|h| PortSpec {
                name: format!("host{h}"),
                owner: Node::Host(h),
                peer: Node::Host(h),
                reverse: u32::MAX,
                gbps: host_gbps,
                prop_ps: 0,
                role: PortRole::HostNic,
            })
            .collect();
        FabricBuilder {
            f: Fabric {
                hosts,
                ports,
                switches: Vec::new(),
                longest: PathShape {
                    links: 2,
                    switches: 1,
                },
                host_gbps,
                hosts_per_dc: hosts,
            },
        }
    }

    /// Add switch `index` of `tier` (named e.g. `tor3`) with `port_names.len()` output
    /// ports; returns (switch id, id of its first port). Its route must be set with
    /// [`FabricBuilder::set_route`].
    pub fn add_switch(
        &mut self,
        tier: Tier,
        index: u32,
        port_names: Vec<String>,
        gbps: f64,
    ) -> (u32, u32) {
        let name = format!(
            "{}{index}",
            match tier {
                Tier::Tor => "tor",
                Tier::Agg => "agg",
                Tier::Spine => "spine",
                Tier::Border => "border",
            }
        );
        let id = self.f.switches.len() as u32;
        let first = self.f.ports.len() as u32;
        let n = port_names.len() as u32;
        for pn in port_names {
            self.f.ports.push(PortSpec {
                name: pn,
                owner: Node::Switch(id),
                peer: Node::Switch(id),
                reverse: u32::MAX,
                gbps,
                prop_ps: 0,
                role: PortRole::SpineDown,
            });
        }
        self.f.switches.push(SwitchSpec {
            name,
            tier,
            index,
            route: Route::Tree {
                lo: 0,
                hi: 0,
                per_down: 1,
                first_down: first,
                first_up: first,
                n_up: 0,
            },
            first_port: first,
            n_ports: n,
        });
        (id, first)
    }

    /// Set port `p`'s line rate (a cable with its own rate sets both of its ports).
    pub fn set_gbps(&mut self, p: u32, gbps: f64) {
        self.f.ports[p as usize].gbps = gbps;
    }

    /// Set switch `sw`'s route.
    pub fn set_route(&mut self, sw: u32, route: Route) {
        self.f.switches[sw as usize].route = route;
    }

    /// Join ports `a` and `b` by a cable of `prop_ps` propagation delay.
    pub fn connect(&mut self, a: u32, b: u32, prop_ps: u64) {
        let (oa, ob) = (
            self.f.ports[a as usize].owner,
            self.f.ports[b as usize].owner,
        );
        let pa = &mut self.f.ports[a as usize];
        pa.peer = ob;
        pa.reverse = b;
        pa.prop_ps = prop_ps;
        let pb = &mut self.f.ports[b as usize];
        pb.peer = oa;
        pb.reverse = a;
        pb.prop_ps = prop_ps;
    }

    /// Set the hosts per datacenter ([`Fabric::dc_of`]).
    pub fn set_hosts_per_dc(&mut self, n: u32) {
        self.f.hosts_per_dc = n;
    }

    /// Set the longest path.
    pub fn set_longest(&mut self, links: u32, switches: u32) {
        self.f.longest = PathShape { links, switches };
    }

    /// The finished fabric; every port must be connected. Sets each port's role: a switch
    /// port leads up when its peer is a switch of a higher tier.
    pub fn finish(mut self) -> Fabric {
        debug_assert!(self.f.ports.iter().all(|p| p.reverse != u32::MAX));
        let tier = |n: Node, sw: &[SwitchSpec]| match n {
            Node::Host(_) => None,
            Node::Switch(s) => Some(sw[s as usize].tier),
        };
        let rank = |t: Option<Tier>| match t {
            None => 0,
            Some(Tier::Tor) => 1,
            Some(Tier::Agg) => 2,
            Some(Tier::Spine) => 3,
            Some(Tier::Border) => 4,
        };
        for i in 0..self.f.ports.len() {
            let p = &self.f.ports[i];
            if let Some(own) = tier(p.owner, &self.f.switches) {
                let peer = tier(p.peer, &self.f.switches);
                let up = rank(peer) > rank(Some(own));
                self.f.ports[i].role = if own == Tier::Border && peer == Some(Tier::Border) {
                    PortRole::BorderWan
                } else {
                    PortRole::of(own, up)
                };
            }
        }
        self.f
    }
}

/// Build the network of scenario `s` (validated).
pub fn build(s: &Scenario) -> Result<Fabric> {
    let t = &s.topology;
    match t.kind {
        TopologyKind::FatTree => fat_tree::build(t),
        TopologyKind::TwoDc => two_dc::build(t),
        TopologyKind::ZeropodPods => zeropod::build(t),
        other => Err(Error::field(
            "topology.kind",
            format!(
                "{} is not supported yet by the fabric simulator (use fat_tree)",
                match other {
                    TopologyKind::SingleTor => "single_tor",
                    TopologyKind::TwoDc => "two_dc",
                    TopologyKind::ZeropodPods => "zeropod_pods",
                    TopologyKind::FatTree => "fat_tree",
                }
            ),
        )),
    }
}

/// A ToR for the switch-routing unit tests (adaptive routing, round-robin spraying): hosts
/// 0-3 on down ports 10-13, four uplinks 14-17.
#[cfg(test)]
pub(crate) fn test_tor() -> Route {
    Route::Tree {
        lo: 0,
        hi: 4,
        per_down: 1,
        first_down: 10,
        first_up: 14,
        n_up: 4,
    }
}

/// For the topology unit tests: walk a packet `src -> dst` with entropy `ev` through `f` (each
/// switch's [`Route::select`], checked to stay on the switch's own ports) and return the
/// switches' names; a walk longer than `max_hops` switches fails as a loop.
#[cfg(test)]
pub(crate) fn test_walk(f: &Fabric, src: u32, dst: u32, ev: u16, max_hops: usize) -> Vec<String> {
    let mut hops = Vec::new();
    let mut port = src;
    loop {
        match f.ports[port as usize].peer {
            Node::Host(h) => {
                assert_eq!(h, dst);
                return hops;
            }
            Node::Switch(s) => {
                let sw = &f.switches[s as usize];
                hops.push(sw.name.clone());
                port = sw.route.select(src, dst, ev, s as u64).unwrap();
                assert!(port >= sw.first_port && port < sw.first_port + sw.n_ports);
                assert!(hops.len() < max_hops, "loop: {hops:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_spreads_evs_evenly_over_ports() {
        let mut hist = [0u32; 8];
        for ev in 0..8000u16 {
            let h = ecmp_hash(3, 77, ev, 0xabc) as u64;
            hist[((h * 8) >> 32) as usize] += 1;
        }
        for c in hist {
            assert!((900..1100).contains(&c), "{hist:?}");
        }
        assert_ne!(ecmp_hash(3, 77, 5, 1), ecmp_hash(3, 77, 5, 2), "seeded");
    }

    #[test]
    fn other_kinds_are_not_supported_yet() {
        let mut s = Scenario::default();
        s.topology.kind = TopologyKind::SingleTor;
        match build(&s) {
            Err(Error::Field { field, problem }) => {
                assert_eq!(field, "topology.kind");
                assert!(problem.contains("not supported yet"));
            }
            other => panic!("{other:?}"),
        }
    }

    /// `Fabric::path` of the longest pair gives the global (longest-path) base RTT and BDP
    /// exactly; a pair under one ToR has a shorter path (2 links, 1 switch).
    #[test]
    fn path_of_longest_pair_is_the_global_value() {
        for tiers in [2, 3] {
            let mut s = Scenario::default();
            s.topology.tiers = tiers;
            let f = build(&s).unwrap();
            let (prop, sw, data, ack) = (1_000_000, 500_000, 4160, 64);
            let rtt = f.base_rtt_ps(prop, sw, data, ack);
            let far = f.path(0, f.hosts - 1, sw, data, ack);
            assert_eq!(far.shape, f.longest);
            assert_eq!(far.base_rtt_ps, rtt);
            assert_eq!(far.bdp_bytes, f.bdp_bytes(rtt));
            let near = f.path(0, 1, sw, data, ack);
            assert_eq!((near.shape.links, near.shape.switches), (2, 1));
            assert!(near.base_rtt_ps < rtt && near.bdp_bytes < far.bdp_bytes);
        }
    }
}
