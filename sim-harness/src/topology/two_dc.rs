//! `topology.kind = "two_dc"`: two datacenters joined by border switches (Uno section 5.1,
//! "Topology"): "two 8-ary fat-tree datacenters, each consisting of 16 core switches and 8
//! pods with 4 aggregate and 4 edge switches. Each edge switch is connected to 4 servers. The
//! datacenters are connected through two border switches that are interconnected through
//! eight links. Also, every core switch is connected to a border switch through eight links."
//!
//! * Each datacenter is the fat tree of `topology.{tiers, radix, oversubscription}`
//!   ([`super::fat_tree`]) with half the hosts (`topology.hosts`, even; 0 = two full trees:
//!   k = 8, 3 tiers gives 2 x 128 hosts). DC0's hosts are `0..H`, DC1's `H..2H`
//!   ([`super::Fabric::dc_of`]); switch indices continue across the two (DC1's first ToR of a
//!   k = 8 tree is `tor32`, its first core `spine16`), so every name is unique.
//! * Border switch `border{d}` of DC d: `topology.two_dc.border_links_per_core` links to each
//!   of its cores (`spine{s}.up{j}` <-> `border{d}.down{s_local * L + j}`, at `link_gbps` with
//!   `link_delay_ns`), and `dc_links` inter-DC links (`border0.wan{n}` <-> `border1.wan{n}`)
//!   at `dc_link_gbps` with a one-way propagation delay of `dc_link_delay_us`.
//! * Routing: ToRs and aggs send every host outside their range up (ECMP), so does a core for
//!   the other datacenter's hosts (over its border links); a border sends its own
//!   datacenter's hosts down over any core and the others across any inter-DC link, both by
//!   the ECMP hash of (source, destination, entropy) ([`super::Route::Border`]): a sprayed or
//!   re-pathed flow uses every inter-DC link.
//! * Buffers: ports only inter-DC traffic crosses (`spine_up`, `border_down`, `border_wan`,
//!   [`super::PortRole::inter_dc`]) hold `two_dc.dc_buffer` bytes, every other switch port
//!   `topology.buffer`.
//! * The run's reference base RTT and BDP (`1bdp` buffers, RED thresholds, summary
//!   `base_rtt_ps`) are those of the longest intra-DC path ([`super::Fabric::longest`]); each
//!   flow also knows its own ([`super::Fabric::path`]): an inter-DC flow's base RTT includes
//!   both directions of the inter-DC link.
//!
//! Uno's defaults (Table 2: intra-DC RTT 14 us, inter-DC RTT 2 ms, 100 Gb/s, 1 MiB buffers)
//! with `mtu = 4096`, `header_bytes = 64`: `link_gbps = 100`, `link_delay_ns = 831`,
//! `switch_latency_ns = 200`, `buffer = "1MiB"` give an intra-DC base RTT of 14.0 us; with
//! `dc_link_delay_us = 990` the inter-DC base RTT is 2.0 ms (README, "two_dc").

use super::fat_tree::{add_tree, TreeAt};
use super::{Fabric, FabricBuilder, PathShape, Route, Tier};
use crate::error::{Error, Result};
use crate::scenario::{Size, Topology};
use crate::units::num;
use crate::validate::host_count;
use serde::{Deserialize, Serialize};

/// Largest `topology.two_dc.dc_links` and `border_links_per_core`.
pub const MAX_DC_LINKS: u32 = 1024;
/// Largest `topology.two_dc.dc_link_delay_us` (1 s one way).
pub const MAX_DC_LINK_DELAY_US: f64 = 1_000_000.0;

/// `[topology.two_dc]`: the inter-DC part of a `two_dc` topology.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TwoDcSection {
    /// Inter-DC links between the two border switches (Uno 5.1: 8).
    pub dc_links: u32,
    /// Rate of each inter-DC link, Gb/s (absent: `topology.link_gbps`).
    pub dc_link_gbps: Option<f64>,
    /// One-way propagation delay of each inter-DC link, us (990: a 2 ms inter-DC base RTT
    /// with the module doc's intra-DC settings).
    pub dc_link_delay_us: f64,
    /// Buffer of every port only inter-DC traffic crosses (absent: `topology.buffer`).
    pub dc_buffer: Option<Size>,
    /// Links between each core and its border switch (Uno 5.1: 8).
    pub border_links_per_core: u32,
    /// Whether the physical RED/ECN marker of the ports only inter-DC traffic crosses marks
    /// (default); `false`: those ports never mark on their physical queue, as the Uno
    /// authors' htsim builds them for runs without `-interEcn` (their baselines'
    /// `CompositeQueueNoEcn`). A phantom queue's own marks are not affected. Written out
    /// only when `false`.
    #[serde(skip_serializing_if = "is_true")]
    pub dc_ecn: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Default for TwoDcSection {
    fn default() -> Self {
        TwoDcSection {
            dc_links: 8,
            dc_link_gbps: None,
            dc_link_delay_us: 990.0,
            dc_buffer: None,
            border_links_per_core: 8,
            dc_ecn: true,
        }
    }
}

impl TwoDcSection {
    /// Whether every field has its default (the section is then not written out, so
    /// `scenario.toml` of other topologies is unchanged).
    pub fn is_default(&self) -> bool {
        *self == TwoDcSection::default()
    }

    /// Rate of the inter-DC links, Gb/s.
    pub fn wan_gbps(&self, t: &Topology) -> f64 {
        self.dc_link_gbps.unwrap_or(t.link_gbps)
    }

    /// Check the section (whatever the topology kind, like every field); errors name
    /// `topology.two_dc.<field>`.
    pub fn check(&self, t: &Topology) -> Result<()> {
        for (f, v) in [
            ("dc_links", self.dc_links),
            ("border_links_per_core", self.border_links_per_core),
        ] {
            if v == 0 || v > MAX_DC_LINKS {
                return Err(Error::field(
                    format!("topology.two_dc.{f}"),
                    format!("must be between 1 and {MAX_DC_LINKS}, got {v}"),
                ));
            }
        }
        const D: &str = "topology.two_dc.dc_link_delay_us";
        let d = self.dc_link_delay_us;
        if !(d.is_finite() && d > 0.0 && d <= MAX_DC_LINK_DELAY_US) {
            return Err(Error::field(
                D,
                format!(
                    "must be a delay above 0 and at most {MAX_DC_LINK_DELAY_US} us, got {}",
                    num(d)
                ),
            ));
        }
        if let Some(g) = self.dc_link_gbps {
            const G: &str = "topology.two_dc.dc_link_gbps";
            if !(g.is_finite() && (0.01..=100_000.0).contains(&g)) {
                return Err(Error::field(
                    G,
                    format!("must be a rate from 0.01 to 100000 Gb/s, got {}", num(g)),
                ));
            }
        }
        if let Some(b) = self.dc_buffer {
            crate::units::check_size("topology.two_dc.dc_buffer", b)?;
        }
        if t.kind == crate::scenario::TopologyKind::TwoDc && t.hosts % 2 == 1 {
            return Err(Error::field(
                "topology.hosts",
                format!(
                    "a two_dc splits its hosts evenly between the two datacenters, so it must \
                     be even (or 0 for two full trees), got {}",
                    t.hosts
                ),
            ));
        }
        Ok(())
    }
}

/// Build the two datacenters of `t` (validated).
pub fn build(t: &Topology) -> Result<Fabric> {
    let x = &t.two_dc;
    let hosts = host_count(t) as u32;
    let per_dc = hosts / 2;
    let mut b = FabricBuilder::new(hosts, t.link_gbps);
    b.set_hosts_per_dc(per_dc);
    let l = x.border_links_per_core;
    let mut at = TreeAt {
        spine_up: l,
        ..TreeAt::default()
    };
    let mut borders = Vec::with_capacity(2);
    let mut longest = PathShape {
        links: 2,
        switches: 1,
    };
    for dc in 0..2u32 {
        at.host0 = dc * per_dc;
        let tree = add_tree(&mut b, t, at, per_dc);
        longest = tree.longest;
        let n_down = tree.spines.len() as u32 * l;
        let names = (0..n_down)
            .map(|i| format!("border{dc}.down{i}"))
            .chain((0..x.dc_links).map(|n| format!("border{dc}.wan{n}")))
            .collect();
        let (sw, first) = b.add_switch(Tier::Border, dc, names, t.link_gbps);
        b.set_route(
            sw,
            Route::Border {
                lo: at.host0,
                hi: at.host0 + per_dc,
                first_down: first,
                n_down,
                first_wan: first + n_down,
                n_wan: x.dc_links,
            },
        );
        let prop = t.link_delay_ns * 1000;
        for (s, &(_, up0)) in tree.spines.iter().enumerate() {
            for j in 0..l {
                b.connect(up0 + j, first + s as u32 * l + j, prop);
            }
        }
        borders.push(first + n_down);
        at.tor0 += tree.tors;
        at.agg0 += tree.aggs;
        at.spine0 += tree.spines.len() as u32;
    }
    let wan_prop = (x.dc_link_delay_us * 1e6).round() as u64;
    let wan_gbps = x.wan_gbps(t);
    for n in 0..x.dc_links {
        let (a, c) = (borders[0] + n, borders[1] + n);
        b.set_gbps(a, wan_gbps);
        b.set_gbps(c, wan_gbps);
        b.connect(a, c, wan_prop);
    }
    b.set_longest(longest.links, longest.switches);
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::super::PortRole;
    use super::*;
    use crate::scenario::{Scenario, TopologyKind};

    fn topo(tiers: u32, radix: u32, hosts: u32) -> Topology {
        Topology {
            kind: TopologyKind::TwoDc,
            tiers,
            radix,
            hosts,
            ..Scenario::default().topology
        }
    }

    /// Walk from `src` to `dst` with entropy `ev`: the switch names.
    fn walk(f: &Fabric, src: u32, dst: u32, ev: u16) -> Vec<String> {
        super::super::test_walk(f, src, dst, ev, 12)
    }

    /// Uno 5.1's topology: 2 x (16 cores, 8 pods of 4 aggs + 4 ToRs, 4 hosts per ToR), two
    /// borders with 8 links to each core and 8 inter-DC links.
    #[test]
    fn paper_topology_k8() {
        let f = build(&topo(3, 8, 0)).unwrap();
        assert_eq!((f.hosts, f.hosts_per_dc), (256, 128));
        let count = |p: &str| f.switches.iter().filter(|s| s.name.starts_with(p)).count();
        assert_eq!(
            (count("tor"), count("agg"), count("spine"), count("border")),
            (64, 64, 32, 2)
        );
        let role = |r: PortRole| f.ports.iter().filter(|p| p.role == r).count();
        assert_eq!(role(PortRole::SpineUp), 2 * 16 * 8);
        assert_eq!(role(PortRole::BorderDown), 2 * 16 * 8);
        assert_eq!(role(PortRole::BorderWan), 2 * 8);
        assert_eq!(role(PortRole::TorDown), 256);
        for p in &f.ports {
            assert_eq!(
                f.ports[p.reverse as usize].reverse,
                f.port_by_name(&p.name).unwrap()
            );
        }
        assert!(f.port_by_name("border0.wan7").is_some());
        assert!(f.port_by_name("border1.down127").is_some());
        assert!(f.port_by_name("spine31.up7").is_some());
        assert_eq!(f.dc_of(127), 0);
        assert_eq!(f.dc_of(128), 1);
        assert!(f.is_inter(3, 200) && !f.is_inter(130, 255));
        // Intra: tor-agg-spine-agg-tor; inter adds a border on each side.
        assert_eq!(walk(&f, 0, 127, 5).len(), 5);
        assert_eq!(walk(&f, 128, 255, 5).len(), 5);
        let w = walk(&f, 0, 255, 5);
        assert_eq!(w.len(), 8, "{w:?}");
        assert_eq!(w[3], "border0");
        assert_eq!(w[4], "border1");
        assert_eq!(
            f.longest,
            PathShape {
                links: 6,
                switches: 5
            }
        );
    }

    /// Every inter-DC link carries some entropy values; a border reaches every core.
    #[test]
    fn ecmp_spreads_over_inter_dc_links_and_cores() {
        let f = build(&topo(3, 8, 0)).unwrap();
        let b0 = f.switches.iter().position(|s| s.name == "border0").unwrap() as u32;
        let sw = &f.switches[b0 as usize];
        let mut wan = std::collections::BTreeSet::new();
        let mut down = std::collections::BTreeSet::new();
        for ev in 0..2000u16 {
            wan.insert(sw.route.select(1, 200, ev, 9).unwrap());
            down.insert(sw.route.select(200, 1, ev, 9).unwrap());
        }
        assert_eq!(wan.len(), 8);
        assert_eq!(down.len(), 128);
        assert!(wan
            .iter()
            .all(|&p| f.ports[p as usize].role == PortRole::BorderWan));
    }

    /// Inter-DC links get their own rate and delay; the path's base RTT includes them.
    #[test]
    fn inter_dc_links_rate_and_delay() {
        let mut t = topo(2, 4, 8);
        t.two_dc.dc_link_gbps = Some(50.0);
        t.two_dc.dc_link_delay_us = 100.0;
        let f = build(&t).unwrap();
        assert_eq!(f.hosts_per_dc, 4);
        let w = f.port_by_name("border1.wan3").unwrap() as usize;
        assert_eq!((f.ports[w].gbps, f.ports[w].prop_ps), (50.0, 100_000_000));
        let intra = f.path(0, 3, 0, 0, 0);
        let inter = f.path(0, 7, 0, 0, 0);
        assert_eq!((intra.shape.links, intra.shape.switches), (4, 3));
        assert_eq!((inter.shape.links, inter.shape.switches), (7, 6));
        assert_eq!(
            inter.base_rtt_ps,
            2 * (6 * t.link_delay_ns * 1000 + 100_000_000)
        );
    }

    #[test]
    fn section_checks_name_the_field() {
        let t = topo(3, 8, 0);
        type Mutation = Box<dyn Fn(&mut TwoDcSection)>;
        let bad: [(&str, Mutation); 5] = [
            ("topology.two_dc.dc_links", Box::new(|x| x.dc_links = 0)),
            (
                "topology.two_dc.border_links_per_core",
                Box::new(|x| x.border_links_per_core = 5000),
            ),
            (
                "topology.two_dc.dc_link_delay_us",
                Box::new(|x| x.dc_link_delay_us = f64::NAN),
            ),
            (
                "topology.two_dc.dc_link_gbps",
                Box::new(|x| x.dc_link_gbps = Some(-1.0)),
            ),
            (
                "topology.two_dc.dc_buffer",
                Box::new(|x| x.dc_buffer = Some(Size::Bdp(-1.0))),
            ),
        ];
        for (field, f) in bad {
            let mut x = TwoDcSection::default();
            f(&mut x);
            match x.check(&t) {
                Err(Error::Field { field: got, .. }) => assert_eq!(got, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        let odd = Topology { hosts: 7, ..t };
        assert!(odd.two_dc.check(&odd).is_err());
        assert!(TwoDcSection::default().check(&topo(3, 8, 0)).is_ok());
    }
}
