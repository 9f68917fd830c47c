//! The AI collectives of REPS's evaluation (REPS 4.2, "AI collectives"): AllReduce by the
//! ring and the butterfly algorithm, and AllToAll with at most `n` parallel connections per
//! node. M = `workload.message` is the buffer each host reduces (AllReduce) or sends to each
//! peer (AllToAll).
//!
//! The fabric simulator has no dependencies between flows, so each collective is the flows
//! of its steps with their bytes, started when a line-rate schedule would start them:
//!
//! * `ring_allreduce`: a ring of the hosts laid out so that every connection crosses the
//!   spine (REPS 4.2: "the logical ring laid out such that all connections traverse the T1
//!   spine"): host i's successor is `(i + per_tor) mod hosts`, `per_tor` the hosts under a
//!   ToR. Its 2(n-1) steps (reduce-scatter, then all-gather) all go to the same successor,
//!   M/n bytes each, so they are one flow of `2 (n-1) M / n` bytes per host (the steps
//!   pipeline on one connection; only per-step synchronisation is not modelled).
//! * `butterfly_allreduce` (recursive halving and doubling; hosts a power of two): in round
//!   k = 0..log2(n) host i exchanges with `i XOR 2^k`, M / 2^(k+1) bytes in the
//!   reduce-scatter and as much in the all-gather: one flow of M / 2^k bytes per partner,
//!   all started at t = 0 (the rounds' dependencies are not modelled).
//! * `all_to_all` with `workload.parallel = p >= 1`: host i sends to `i+1, i+2, ...` (mod
//!   n), at most p connections at a time: the flows to peers `w p + 1 ..= (w+1) p` start at
//!   `w * p * M * 8 / rate`, when wave w - 1 would end at the host's line rate. `p = 0`
//!   starts every flow at t = 0 (the plain `all_to_all`).
//! * `all_to_all` with `parallel = n` and `self_clocked` (the REPS artifact's
//!   `gen_serialn_alltoall.py`, which the paper's Figure 3 runs with n = 4, 8, 16): the
//!   hosts in a random order drawn from the seed (position s is host `perm[s]`); position s
//!   sends in rounds d = 1..=h, h = (G-1) div n for G hosts, to
//!   positions `s + d + c h` (c = 0..n, mod G), then the (G-1) mod n left over to
//!   `s + n h + c + 1`. Its first n flows start at t = 0, the others have no start time
//!   ([`NEVER`]): the engine opens a host's next flow when one of its open flows completes
//!   (the artifact's per-round multishot triggers; it fires on "send done", dcfab on
//!   completion, one RTT later). The run's end is the collective's runtime.

use super::FlowSpec;
use crate::event::NEVER;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// The ring AllReduce flows of `hosts` hosts, `per_tor` under each ToR, buffer `msg` bytes.
pub fn ring_allreduce(hosts: u32, per_tor: u32, msg: u64) -> Vec<FlowSpec> {
    let n = u64::from(hosts);
    let bytes = (2 * (n - 1) * msg).div_ceil(n).max(1);
    let step = if per_tor >= 1 && per_tor < hosts {
        per_tor
    } else {
        1
    };
    (0..hosts)
        .map(|i| FlowSpec {
            src: i,
            dst: (i + step) % hosts,
            bytes,
            start_ps: 0,
            collective: 0,
        })
        .collect()
}

/// The butterfly AllReduce flows of `hosts` hosts, buffer `msg` bytes. `hosts` is a power of
/// two: scenario validation refuses other counts (`validate::workload::check_workload`,
/// naming `workload.kind`).
pub fn butterfly_allreduce(hosts: u32, msg: u64) -> Vec<FlowSpec> {
    debug_assert!(hosts.is_power_of_two(), "{hosts} hosts");
    let rounds = hosts.trailing_zeros();
    let mut v = Vec::with_capacity((hosts * rounds) as usize);
    for i in 0..hosts {
        for k in 0..rounds {
            v.push(FlowSpec {
                src: i,
                dst: i ^ (1 << k),
                bytes: (msg >> k).max(1),
                start_ps: 0,
                collective: 0,
            });
        }
    }
    v
}

/// The AllToAll flows of `hosts` hosts, `msg` bytes per pair, at most `parallel` connections
/// per host at a time on a line-rate schedule of `host_gbps` (0 = all at once).
pub fn all_to_all(hosts: u32, msg: u64, parallel: u32, host_gbps: f64) -> Vec<FlowSpec> {
    let wave_ps = if parallel == 0 {
        0
    } else {
        (parallel as f64 * msg as f64 * 8.0 / host_gbps * 1e3).round() as u64
    };
    let mut v = Vec::with_capacity(hosts as usize * (hosts as usize - 1));
    for src in 0..hosts {
        for d in 1..hosts {
            let wave = (d - 1).checked_div(parallel).unwrap_or(0);
            v.push(FlowSpec {
                src,
                dst: (src + d) % hosts,
                bytes: msg,
                start_ps: u64::from(wave).saturating_mul(wave_ps),
                collective: 0,
            });
        }
    }
    v
}

/// The self-clocked AllToAll flows of `hosts` hosts, `msg` bytes per pair, `parallel`
/// connections per host (see the module doc); each host's flows in its sending order, the
/// first `parallel` at t = 0, the others at [`NEVER`] (opened by the engine).
pub fn all_to_all_self_clocked(hosts: u32, msg: u64, parallel: u32, seed: u64) -> Vec<FlowSpec> {
    let g = hosts;
    let n = parallel.clamp(1, g.saturating_sub(1).max(1));
    let mut perm: Vec<u32> = (0..g).collect();
    perm.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(
        seed ^ 0xa11_2a11_0000_0000,
    ));
    let (h, left) = ((g - 1) / n, (g - 1) % n);
    let mut v = Vec::with_capacity(g as usize * (g as usize - 1));
    for s in 0..g {
        let mut peers = Vec::with_capacity(g as usize - 1);
        for d in 1..=h {
            for c in 0..n {
                peers.push((s + d + c * h) % g);
            }
        }
        for c in 0..left {
            peers.push((s + n * h + c + 1) % g);
        }
        for (k, d) in peers.into_iter().enumerate() {
            v.push(FlowSpec {
                src: perm[s as usize],
                dst: perm[d as usize],
                bytes: msg,
                start_ps: if (k as u32) < n { 0 } else { NEVER },
                collective: 0,
            });
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_crosses_tors_and_carries_the_allreduce_volume() {
        let f = ring_allreduce(16, 4, 1600);
        assert_eq!(f.len(), 16);
        for x in &f {
            assert_ne!(x.src / 4, x.dst / 4, "every connection leaves its ToR");
            assert_eq!(x.bytes, 2 * 15 * 100);
        }
        let mut rx: Vec<u32> = f.iter().map(|x| x.dst).collect();
        rx.sort_unstable();
        assert_eq!(rx, (0..16).collect::<Vec<_>>(), "one receiver each");
    }

    #[test]
    fn butterfly_pairs_partners_with_halving_sizes() {
        let f = butterfly_allreduce(8, 1024);
        assert_eq!(f.len(), 8 * 3);
        let from0: Vec<(u32, u64)> = f
            .iter()
            .filter(|x| x.src == 0)
            .map(|x| (x.dst, x.bytes))
            .collect();
        assert_eq!(from0, vec![(1, 1024), (2, 512), (4, 256)]);
        // Other host counts are refused before generation, naming the field.
        let mut s = crate::scenario::Scenario::default();
        s.workload.kind = crate::scenario::WorkloadKind::ButterflyAllreduce;
        s.topology.hosts = 12;
        let e = crate::validate::validate(&s).unwrap_err().to_string();
        assert!(
            e.contains("workload.kind") && e.contains("power-of-two number of hosts, got 12"),
            "{e}"
        );
    }

    /// Every ordered pair once, n flows per host at t = 0, and a host's concurrent peers
    /// spread over the group (not consecutive positions).
    #[test]
    fn self_clocked_all_to_all_covers_every_pair_in_spread_rounds() {
        let (g, n) = (16u32, 4u32);
        let f = all_to_all_self_clocked(g, 1000, n, 7);
        assert_eq!(f.len(), (g * (g - 1)) as usize);
        let mut pairs: Vec<(u32, u32)> = f.iter().map(|x| (x.src, x.dst)).collect();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs.len(), (g * (g - 1)) as usize, "each pair once");
        assert!(f.iter().all(|x| x.src != x.dst));
        for h in 0..g {
            let mine: Vec<&FlowSpec> = f.iter().filter(|x| x.src == h).collect();
            let now: Vec<&&FlowSpec> = mine.iter().filter(|x| x.start_ps == 0).collect();
            assert_eq!(now.len(), n as usize, "host {h}: n flows at t = 0");
            assert!(mine[..n as usize].iter().all(|x| x.start_ps == 0));
            assert!(mine[n as usize..].iter().all(|x| x.start_ps == NEVER));
        }
        // The seed moves the host order, nothing else.
        let other = all_to_all_self_clocked(g, 1000, n, 8);
        assert_ne!(
            f.iter().map(|x| (x.src, x.dst)).collect::<Vec<_>>(),
            other.iter().map(|x| (x.src, x.dst)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn all_to_all_keeps_at_most_parallel_waves_in_flight() {
        let f = all_to_all(9, 1000, 3, 8.0);
        assert_eq!(f.len(), 72);
        // 1000 B at 8 Gb/s = 1 us per flow; a wave of 3 is 3 us.
        for x in f.iter().filter(|x| x.src == 0) {
            let d = (x.dst + 9 - x.src) % 9;
            assert_eq!(x.start_ps, u64::from((d - 1) / 3) * 3_000_000);
        }
        assert!(all_to_all(9, 1000, 0, 8.0).iter().all(|x| x.start_ps == 0));
    }
}
