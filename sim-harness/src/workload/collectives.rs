//! Collective workloads of the DCSIM evaluation (DCSIM section 4.1, "Collectives").
//!
//! A *collective* is a set of flows that start together (here all at t = 0). Its hosts:
//!
//! * `workload.collectives = 0`: one collective (id 0) of every host;
//! * `workload.collectives = n >= 1`: n collectives; collective `c` has a size drawn
//!   uniformly from `workload.collective_sizes` (capped at the host count) and that many
//!   distinct hosts drawn uniformly at random; a host may belong to several collectives
//!   ("possibly with hosts sharing several collectives").
//!
//! Within a collective of `n` hosts, with `M` = `workload.message` bytes:
//!
//! * `permutation` (ring all-reduce): a random derangement of its hosts, one flow of `M`
//!   bytes per host;
//! * `all_to_all` (tensor parallelism): `n (n - 1)` flows of `M` bytes;
//! * `all_to_all_v` (mixture of experts): "each packet from each sender chooses a random
//!   receiver out of the n - 1 other hosts". A sender has `(n - 1) * ceil(M / mtu)` packets
//!   of `mtu` payload bytes; each goes to a uniform other host of the collective (a
//!   multinomial split), and the packets to one receiver form one flow (receivers that drew
//!   no packet get no flow). The average flow is `M` rounded up to whole packets.
//!
//! Every flow carries its collective id ([`FlowSpec::collective`]): the DCSIM host's round
//! robin over collective IDs (section 2.4 (1)) and the collective completion time use it.
//! Draws come from the run's ChaCha8 generator, in a fixed order (collective sizes, hosts,
//! then flows collective by collective), so a seed fixes the workload for every transport.

use crate::error::{Error, Result};
use crate::scenario::{Scenario, WorkloadKind};
use crate::workload::{derangement, FlowSpec};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The hosts of each collective of scenario `s` on `hosts` hosts (index = collective id).
pub fn groups(s: &Scenario, hosts: u32, rng: &mut ChaCha8Rng) -> Result<Vec<Vec<u32>>> {
    let w = &s.workload;
    if w.collectives == 0 {
        return Ok(vec![(0..hosts).collect()]);
    }
    if w.collective_sizes.is_empty() {
        return Err(Error::field(
            "workload.collective_sizes",
            "needs at least one size when workload.collectives >= 1",
        ));
    }
    if let Some(&bad) = w.collective_sizes.iter().find(|&&n| n < 2) {
        return Err(Error::field(
            "workload.collective_sizes",
            format!("a collective needs at least 2 hosts, got a size of {bad}"),
        ));
    }
    let sizes: Vec<u32> = (0..w.collectives)
        .map(|_| w.collective_sizes[rng.gen_range(0..w.collective_sizes.len())].min(hosts))
        .collect();
    let mut all: Vec<u32> = (0..hosts).collect();
    let mut out = Vec::with_capacity(sizes.len());
    for n in sizes {
        // Partial Fisher-Yates: the first n entries are a uniform n-subset.
        for i in 0..n as usize {
            let j = rng.gen_range(i..all.len());
            all.swap(i, j);
        }
        let mut g = all[..n as usize].to_vec();
        g.sort_unstable();
        out.push(g);
    }
    Ok(out)
}

/// The flows of scenario `s` (a collective workload: see the module doc) on `hosts` hosts;
/// `bdp_bytes` converts BDP-relative message sizes.
pub fn generate(
    s: &Scenario,
    hosts: u32,
    bdp_bytes: u64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<FlowSpec>> {
    let w = &s.workload;
    if !matches!(
        w.kind,
        WorkloadKind::Permutation | WorkloadKind::AllToAll | WorkloadKind::AllToAllV
    ) {
        return Err(Error::field(
            "workload.collectives",
            "only permutation, all_to_all and all_to_all_v form collectives (set it to 0)",
        ));
    }
    let msg = w.message.bytes(bdp_bytes).max(1);
    let mtu = u64::from(s.transport.mtu.max(1));
    let groups = groups(s, hosts, rng)?;
    let mut flows = Vec::new();
    for (c, g) in groups.iter().enumerate() {
        let c = c as u32;
        let n = g.len() as u32;
        let flow = |src: u32, dst: u32, bytes: u64| FlowSpec {
            src,
            dst,
            bytes,
            start_ps: 0,
            collective: c,
        };
        match w.kind {
            WorkloadKind::Permutation => {
                for (i, d) in derangement(n, rng).into_iter().enumerate() {
                    flows.push(flow(g[i], g[d as usize], msg));
                }
            }
            WorkloadKind::AllToAll => {
                for &src in g {
                    for &dst in g {
                        if src != dst {
                            flows.push(flow(src, dst, msg));
                        }
                    }
                }
            }
            _ => {
                let per_flow = msg.div_ceil(mtu);
                let mut counts = vec![0u64; g.len()];
                for (i, &src) in g.iter().enumerate() {
                    counts.iter_mut().for_each(|x| *x = 0);
                    for _ in 0..per_flow * u64::from(n - 1) {
                        let mut j = rng.gen_range(0..g.len() - 1);
                        if j >= i {
                            j += 1;
                        }
                        counts[j] += 1;
                    }
                    for (j, &k) in counts.iter().enumerate() {
                        if k > 0 {
                            flows.push(flow(src, g[j], k * mtu));
                        }
                    }
                }
            }
        }
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Size;
    use rand::SeedableRng;

    fn scenario(kind: WorkloadKind, collectives: u32) -> Scenario {
        let mut s = Scenario::default();
        s.workload.kind = kind;
        s.workload.collectives = collectives;
        s.workload.message = Size::Bytes(10 * 4096);
        s
    }

    #[test]
    fn groups_are_distinct_hosts_of_the_listed_sizes() {
        let s = scenario(WorkloadKind::AllToAllV, 20);
        let g = groups(&s, 128, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert_eq!(g.len(), 20);
        let mut sizes_seen = std::collections::BTreeSet::new();
        for h in &g {
            assert!([8, 16, 32, 64].contains(&h.len()), "{}", h.len());
            sizes_seen.insert(h.len());
            let mut d = h.clone();
            d.dedup();
            assert_eq!(d.len(), h.len(), "distinct hosts");
            assert!(h.iter().all(|&x| x < 128));
        }
        assert!(sizes_seen.len() >= 3, "{sizes_seen:?}");
        // Capped at the host count.
        let g = groups(&s, 10, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert!(g.iter().all(|h| h.len() <= 10));
    }

    #[test]
    fn all_to_all_v_splits_each_senders_packets_over_the_others() {
        let s = scenario(WorkloadKind::AllToAllV, 0);
        let f = generate(&s, 16, 1, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
        for src in 0..16u32 {
            let mine: Vec<&FlowSpec> = f.iter().filter(|x| x.src == src).collect();
            let pkts: u64 = mine.iter().map(|x| x.bytes / 4096).sum();
            assert_eq!(pkts, 15 * 10, "sender {src}: (n-1) * ceil(M/mtu) packets");
            assert!(mine.iter().all(|x| x.dst != src && x.bytes % 4096 == 0));
            assert!(mine.len() >= 12, "most receivers get some packets");
        }
        // Unbalanced: the flow sizes vary.
        let min = f.iter().map(|x| x.bytes).min().unwrap();
        let max = f.iter().map(|x| x.bytes).max().unwrap();
        assert!(max >= 2 * min, "{min} {max}");
        assert!(f.iter().all(|x| x.collective == 0 && x.start_ps == 0));
    }

    #[test]
    fn collectives_tag_their_flows() {
        let s = scenario(WorkloadKind::AllToAll, 3);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let f = generate(&s, 64, 1, &mut rng).unwrap();
        let g = groups(&s, 64, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        for (c, h) in g.iter().enumerate() {
            let n = h.len();
            let mine: Vec<&FlowSpec> = f.iter().filter(|x| x.collective == c as u32).collect();
            assert_eq!(mine.len(), n * (n - 1));
            assert!(mine
                .iter()
                .all(|x| h.contains(&x.src) && h.contains(&x.dst)));
        }
        let s = scenario(WorkloadKind::Permutation, 2);
        let f = generate(&s, 64, 1, &mut rng).unwrap();
        let g0 = f.iter().filter(|x| x.collective == 0).count();
        let g1 = f.iter().filter(|x| x.collective == 1).count();
        assert!(g0 >= 8 && g1 >= 8 && g0 + g1 == f.len());
    }

    #[test]
    fn bad_fields_are_named() {
        let mut s = scenario(WorkloadKind::AllToAllV, 2);
        s.workload.collective_sizes = vec![];
        let e = generate(&s, 16, 1, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err();
        assert!(
            matches!(e, Error::Field { ref field, .. } if field == "workload.collective_sizes")
        );
        s.workload.collective_sizes = vec![1];
        assert!(generate(&s, 16, 1, &mut ChaCha8Rng::seed_from_u64(1)).is_err());
        let s = scenario(WorkloadKind::Incast, 2);
        let e = generate(&s, 16, 1, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err();
        assert!(matches!(e, Error::Field { ref field, .. } if field == "workload.collectives"));
    }
}
