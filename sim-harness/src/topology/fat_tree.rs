//! 2- and 3-tier fat trees of any even radix k, with ToR oversubscription and a host limit.
//!
//! * A ToR has `d = validate::tor_host_ports(k, o)` host ports (k/2 at oversubscription
//!   o = 1, `round(k o / (1 + o))` above) and `u = k - d` uplinks.
//! * 2 tiers: `ceil(hosts / d)` ToRs (at most k) and `u` spines; ToR t's uplink j goes to
//!   spine j, whose down port t comes back. `hosts = k d` for the full tree (k = 64,
//!   hosts = 1024: 32 ToRs of 32 hosts, 32 spines).
//! * 3 tiers: pods of k/2 ToRs and `u` aggs; ToR i of pod p has uplink j to agg j of pod p;
//!   each agg has k/2 up ports, agg g's up port j goes to spine `g * k/2 + j` (so there are
//!   `u * k/2` spines, each with one down port per pod). Full tree: `k * k/2 * d` hosts
//!   (k = 8: 128 hosts, 32 ToRs, 32 aggs, 16 spines).
//!
//! With `topology.hosts` below the full size, hosts fill ToRs (and ToRs fill pods) in
//! order, and only the switches needed exist: the last ToR or pod may be partial.

use super::{Fabric, FabricBuilder, Route, Tier};
use crate::error::Result;
use crate::scenario::Topology;
use crate::validate::{host_count, tor_host_ports};

/// Build a fat tree for `t` (validated: even radix, 2 or 3 tiers, hosts that fit).
pub fn build(t: &Topology) -> Result<Fabric> {
    let hosts = host_count(t) as u32;
    let mut b = FabricBuilder::new(hosts, t.link_gbps);
    let tree = add_tree(&mut b, t, TreeAt::default(), hosts);
    b.set_longest(tree.longest.links, tree.longest.switches);
    Ok(b.finish())
}

/// Where a fat tree sits in a larger fabric (`two_dc`): its first host and the first index of
/// its ToRs, aggs and spines (so names stay unique), and how many up ports each spine gets
/// (towards a border switch; 0 in a plain fat tree).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TreeAt {
    /// First host of the tree.
    pub host0: u32,
    /// First ToR, agg and spine index.
    pub tor0: u32,
    pub agg0: u32,
    pub spine0: u32,
    /// Up ports per spine (`spine{s}.up{j}`), after its down ports; not connected here.
    pub spine_up: u32,
}

/// What [`add_tree`] built: counts, the spines (switch id, first up port), the longest path.
#[derive(Debug, Clone)]
pub(super) struct Tree {
    pub tors: u32,
    pub aggs: u32,
    /// Per spine: (switch id, port id of its up port 0).
    pub spines: Vec<(u32, u32)>,
    pub longest: super::PathShape,
}

/// Add a fat tree of `hosts` hosts (host ids `at.host0..`, already created by the builder) to
/// `b`; ToRs and aggs route up (ECMP) for every host outside their range, spines route up
/// over their `at.spine_up` up ports for hosts outside the tree.
pub(super) fn add_tree(b: &mut FabricBuilder, t: &Topology, at: TreeAt, hosts: u32) -> Tree {
    let k = t.radix;
    let d = tor_host_ports(k as u64, t.oversubscription) as u32;
    let u = k - d;
    let prop = t.link_delay_ns * 1000;
    let g = t.link_gbps;
    let n_tor = hosts.div_ceil(d);
    let h0 = at.host0;
    let (lo_all, hi_all) = (h0, h0 + hosts);
    let mut spines = Vec::new();
    let mut longest = super::PathShape {
        links: 2,
        switches: 1,
    };

    // ToRs.
    let mut tor_first = Vec::with_capacity(n_tor as usize);
    for tor in 0..n_tor {
        let lo = h0 + tor * d;
        let hi = (lo + d).min(hi_all);
        let n_down = hi - lo;
        let ti = at.tor0 + tor;
        let names = (0..n_down)
            .map(|i| format!("tor{ti}.down{i}"))
            .chain((0..u).map(|j| format!("tor{ti}.up{j}")))
            .collect();
        let (sw, first) = b.add_switch(Tier::Tor, ti, names, g);
        b.set_route(
            sw,
            Route::Tree {
                lo,
                hi,
                per_down: 1,
                first_down: first,
                first_up: first + n_down,
                n_up: u,
            },
        );
        for i in 0..n_down {
            b.connect(lo + i, first + i, prop);
        }
        tor_first.push((first, n_down));
    }

    let spine_names = |s: u32, n_down: u32| -> Vec<String> {
        (0..n_down)
            .map(|i| format!("spine{s}.down{i}"))
            .chain((0..at.spine_up).map(|j| format!("spine{s}.up{j}")))
            .collect()
    };
    if t.tiers == 2 {
        for s in 0..u {
            let si = at.spine0 + s;
            let (sw, first) = b.add_switch(Tier::Spine, si, spine_names(si, n_tor), g);
            b.set_route(
                sw,
                Route::Tree {
                    lo: lo_all,
                    hi: hi_all,
                    per_down: d,
                    first_down: first,
                    first_up: first + n_tor,
                    n_up: at.spine_up,
                },
            );
            for (tor, &(tf, n_down)) in tor_first.iter().enumerate() {
                b.connect(tf + n_down + s, first + tor as u32, prop);
            }
            spines.push((sw, first + n_tor));
        }
        if n_tor > 1 {
            longest = super::PathShape {
                links: 4,
                switches: 3,
            };
        }
        return Tree {
            tors: n_tor,
            aggs: 0,
            spines,
            longest,
        };
    }

    // 3 tiers.
    let half = k / 2;
    let pods = n_tor.div_ceil(half);
    let per_pod_hosts = half * d;
    let mut agg_first = Vec::with_capacity((pods * u) as usize);
    for p in 0..pods {
        let lo = h0 + p * per_pod_hosts;
        let hi = (lo + per_pod_hosts).min(hi_all);
        let tors_here = (hi - lo).div_ceil(d);
        for gi in 0..u {
            let a = at.agg0 + p * u + gi;
            let names = (0..tors_here)
                .map(|i| format!("agg{a}.down{i}"))
                .chain((0..half).map(|j| format!("agg{a}.up{j}")))
                .collect();
            let (sw, first) = b.add_switch(Tier::Agg, a, names, g);
            b.set_route(
                sw,
                Route::Tree {
                    lo,
                    hi,
                    per_down: d,
                    first_down: first,
                    first_up: first + tors_here,
                    n_up: half,
                },
            );
            for i in 0..tors_here {
                let (tf, n_down) = tor_first[(p * half + i) as usize];
                b.connect(tf + n_down + gi, first + i, prop);
            }
            agg_first.push((first, tors_here));
        }
    }
    for gi in 0..u {
        for j in 0..half {
            let s = gi * half + j;
            let si = at.spine0 + s;
            let (sw, first) = b.add_switch(Tier::Spine, si, spine_names(si, pods), g);
            b.set_route(
                sw,
                Route::Tree {
                    lo: lo_all,
                    hi: hi_all,
                    per_down: per_pod_hosts,
                    first_down: first,
                    first_up: first + pods,
                    n_up: at.spine_up,
                },
            );
            for p in 0..pods {
                let (af, tors_here) = agg_first[(p * u + gi) as usize];
                b.connect(af + tors_here + j, first + p, prop);
            }
            spines.push((sw, first + pods));
        }
    }
    if pods > 1 {
        longest = super::PathShape {
            links: 6,
            switches: 5,
        };
    } else if n_tor > 1 {
        longest = super::PathShape {
            links: 4,
            switches: 3,
        };
    }
    Tree {
        tors: n_tor,
        aggs: pods * u,
        spines,
        longest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn topo(tiers: u32, radix: u32, hosts: u32) -> Topology {
        Topology {
            tiers,
            radix,
            hosts,
            ..Scenario::default().topology
        }
    }

    /// Walk from `src` to `dst` with entropy `ev`: the hops (switch names).
    fn path(f: &Fabric, src: u32, dst: u32, ev: u16) -> Vec<String> {
        super::super::test_walk(f, src, dst, ev, 10)
    }

    #[test]
    fn three_tier_k8_has_128_hosts_and_right_paths() {
        let f = build(&topo(3, 8, 0)).unwrap();
        assert_eq!(f.hosts, 128);
        let count = |p: &str| f.switches.iter().filter(|s| s.name.starts_with(p)).count();
        assert_eq!((count("tor"), count("agg"), count("spine")), (32, 32, 16));
        // Each cable has two ports: 128 host + 128 ToR-down + 128 up + 128 agg-down + ...
        assert_eq!(f.ports.len(), 128 * 6);
        assert_eq!(path(&f, 0, 1, 0), ["tor0"]);
        assert_eq!(path(&f, 0, 5, 0).len(), 3, "same pod: tor-agg-tor");
        assert_eq!(
            path(&f, 0, 127, 3).len(),
            5,
            "other pod: tor-agg-spine-agg-tor"
        );
        assert_eq!(f.longest.links, 6);
        for p in &f.ports {
            assert_eq!(
                f.ports[p.reverse as usize].reverse,
                f.port_by_name(&p.name).unwrap()
            );
        }
    }

    #[test]
    fn two_tier_radix64_1024_hosts() {
        let f = build(&topo(2, 64, 1024)).unwrap();
        let count = |p: &str| f.switches.iter().filter(|s| s.name.starts_with(p)).count();
        assert_eq!((count("tor"), count("spine")), (32, 32));
        assert_eq!(path(&f, 0, 1000, 9).len(), 3);
        assert_eq!(f.longest.links, 4);
        assert!(f.port_by_name("spine31.down31").is_some());
        assert!(f.port_by_name("spine31.down32").is_none());
    }

    #[test]
    fn ecmp_uses_every_uplink() {
        let f = build(&topo(3, 8, 0)).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for ev in 0..200u16 {
            let p = path(&f, 0, 127, ev);
            seen.insert(p[2].clone());
        }
        assert_eq!(
            seen.len(),
            16,
            "all 16 spines reachable from pod 0 to pod 7"
        );
    }

    #[test]
    fn oversubscription_and_partial_trees() {
        let t = Topology {
            oversubscription: 3.0,
            ..topo(2, 8, 0)
        };
        let f = build(&t).unwrap();
        // 6 hosts and 2 uplinks per ToR, 8 ToRs, 2 spines.
        assert_eq!(f.hosts, 48);
        assert_eq!(
            f.switches
                .iter()
                .filter(|s| s.name.starts_with("spine"))
                .count(),
            2
        );
        let f = build(&topo(3, 8, 20)).unwrap();
        assert_eq!(f.hosts, 20);
        assert_eq!(path(&f, 0, 19, 1).len(), 5);
        assert!(f.port_by_name("tor4.down3").is_some());
        assert!(f.port_by_name("tor5.down0").is_none());
    }
}
