//! Core (spine) selection of DCSIM's oversubscribed fabric (DCSIM 4.2, Fig. 8): "we
//! effectively halve the number of core switches by retaining only the odd-indexed switches
//! and reducing the rate of the remaining ones to 1% of their initial rate".
//!
//! With `topology.core_links = "odd_only"` the engine applies, at t = 0, a rate change to
//! `slow_core_fraction * link_gbps` on every cable of every even-indexed spine (both
//! directions: the spine's down ports and the aggregation or ToR up ports facing them),
//! through the same machinery as a `[[failures]]` rate change. ECMP keeps hashing over
//! every spine, so half the paths become nearly dead.

use super::{Fabric, Tier};
use crate::scenario::{CoreLinks, Topology};

/// The output ports of the spines `t.core_links` slows down (their reverse ports are the
/// other direction of the same cables); empty for `all`.
pub fn slowed_core_ports(f: &Fabric, t: &Topology) -> Vec<u32> {
    if t.core_links == CoreLinks::All {
        return Vec::new();
    }
    f.switches
        .iter()
        .filter(|sw| sw.tier == Tier::Spine && sw.index % 2 == 0)
        .flat_map(|sw| sw.first_port..sw.first_port + sw.n_ports)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn even_spines_of_a_k8_tree() {
        let mut s = Scenario::default();
        let f = super::super::build(&s).unwrap();
        assert!(slowed_core_ports(&f, &s.topology).is_empty());
        s.topology.core_links = CoreLinks::OddOnly;
        let p = slowed_core_ports(&f, &s.topology);
        // 8 even spines of 16, 8 pods each.
        assert_eq!(p.len(), 8 * 8);
        for &x in &p {
            let name = &f.ports[x as usize].name;
            let s: u32 = name["spine".len()..name.find('.').unwrap()]
                .parse()
                .unwrap();
            assert_eq!(s % 2, 0, "{name}");
            assert!(f.ports[f.ports[x as usize].reverse as usize]
                .name
                .starts_with("agg"));
        }
    }
}
