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

use super::FlowSpec;
use crate::error::{Error, Result};

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

/// The butterfly AllReduce flows of `hosts` hosts (a power of two), buffer `msg` bytes.
pub fn butterfly_allreduce(hosts: u32, msg: u64) -> Result<Vec<FlowSpec>> {
    if !hosts.is_power_of_two() {
        return Err(Error::field(
            "workload.kind",
            format!("butterfly_allreduce needs a power-of-two number of hosts, got {hosts}"),
        ));
    }
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
    Ok(v)
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
        let f = butterfly_allreduce(8, 1024).unwrap();
        assert_eq!(f.len(), 8 * 3);
        let from0: Vec<(u32, u64)> = f
            .iter()
            .filter(|x| x.src == 0)
            .map(|x| (x.dst, x.bytes))
            .collect();
        assert_eq!(from0, vec![(1, 1024), (2, 512), (4, 256)]);
        assert!(butterfly_allreduce(12, 1024).is_err());
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
