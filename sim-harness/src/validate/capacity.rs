//! Host and flow counts of a scenario: the most hosts a topology attaches ([`max_hosts`]),
//! the ToR's host-facing ports at an oversubscription ([`tor_host_ports`]), the run's host
//! count ([`host_count`]) and the flows a workload generates ([`flow_count`]). Used by the
//! topology and workload checks, the topology builders and the run estimate.

use crate::scenario::{Scenario, TopologyKind, WorkloadKind};

/// The most hosts topology `t` can attach (before `topology.hosts` picks fewer):
///
/// * `fat_tree`: k²/2 for 2 tiers, k³/4 for 3 tiers (k = `radix`), reduced by ToR
///   oversubscription o to `round(k·o/(1+o))` host ports per ToR instead of k/2;
/// * `two_dc`: two such fat trees;
/// * `zeropod_pods`: the Zeropod fat tree of k-port switches, k³/4 hosts (Zeropod Fig. 1);
/// * `single_tor`: `radix` hosts (radix/2 senders under one switch, radix/2 receivers).
///
/// Computed in u64, so no radix overflows. Assumes `radix >= 2` and, for fat trees,
/// `tiers` in {2, 3} (see [`validate`](super::validate)).
pub fn max_hosts(t: &crate::scenario::Topology) -> u64 {
    let k = u64::from(t.radix);
    let fat_tree = |tiers: u32| -> u64 {
        let per_tor = tor_host_ports(k, t.oversubscription);
        match tiers {
            2 => k * per_tor,
            _ => k * (k / 2) * per_tor,
        }
    };
    match t.kind {
        TopologyKind::FatTree => fat_tree(t.tiers),
        TopologyKind::TwoDc => 2 * fat_tree(t.tiers),
        TopologyKind::ZeropodPods => k * k * k / 4,
        TopologyKind::SingleTor => k,
    }
}

/// Host-facing ports of a ToR with radix `k` at oversubscription `o` (downlinks : uplinks);
/// k/2 at o = 1.
pub fn tor_host_ports(k: u64, o: f64) -> u64 {
    if o <= 1.0 || !o.is_finite() {
        return k / 2;
    }
    ((k as f64) * o / (1.0 + o)).round() as u64
}

/// Number of hosts the run will have: `topology.hosts`, or [`max_hosts`] when it is 0.
pub fn host_count(t: &crate::scenario::Topology) -> u64 {
    if t.hosts == 0 {
        max_hosts(t)
    } else {
        u64::from(t.hosts)
    }
}

/// Number of flows the workload generates on `hosts` hosts, if it is fixed by the scenario
/// (`None` for workloads whose flow count is decided while running, e.g. `llm`).
pub fn flow_count(s: &Scenario, hosts: u64) -> Option<u64> {
    let w = &s.workload;
    match w.kind {
        WorkloadKind::Tornado if w.one_way => Some(hosts / 2),
        // n collectives over at most `max(collective_sizes)` hosts each (an upper bound).
        WorkloadKind::Permutation | WorkloadKind::AllToAll | WorkloadKind::AllToAllV
            if w.collectives > 0 =>
        {
            let size = w
                .collective_sizes
                .iter()
                .map(|&n| u64::from(n).min(hosts))
                .max()
                .unwrap_or(0);
            let per = match w.kind {
                WorkloadKind::Permutation => size,
                _ => size * size.saturating_sub(1),
            };
            Some(u64::from(w.collectives).saturating_mul(per))
        }
        WorkloadKind::Permutation | WorkloadKind::Tornado => Some(hosts),
        WorkloadKind::Incast => Some(u64::from(w.degree)),
        WorkloadKind::AllToAll | WorkloadKind::AllToAllV => Some(hosts * hosts.saturating_sub(1)),
        WorkloadKind::Websearch => Some(u64::from(w.flows)),
        WorkloadKind::Llm => None,
        WorkloadKind::MixedIncast | WorkloadKind::UnoMix | WorkloadKind::DcAllreduce => {
            Some(crate::workload::uno::flow_count(s))
        }
        WorkloadKind::RingAllreduce => Some(hosts),
        WorkloadKind::ButterflyAllreduce => Some(hosts * u64::from(hosts.max(1).ilog2())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Topology;

    #[test]
    fn fat_tree_capacities() {
        let mut t = Topology {
            radix: 4,
            tiers: 2,
            ..Topology::default()
        };
        assert_eq!(max_hosts(&t), 8);
        t.tiers = 3;
        assert_eq!(max_hosts(&t), 16);
        t.radix = 16;
        assert_eq!(max_hosts(&t), 1024);
        t.oversubscription = 3.0;
        assert_eq!(max_hosts(&t), 16 * 8 * 12);
    }
}
