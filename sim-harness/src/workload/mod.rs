//! Workloads: which host sends how many bytes to which host, and when.
//!
//! * `permutation`: every host sends one message to a distinct random host and receives one
//!   (a uniformly random derangement: no host sends to itself), all at time 0 (REPS 4.2).
//! * `tornado`: host i sends to `(i + hosts/2) mod hosts` (REPS 4.2), at time 0; with
//!   `workload.one_way` only hosts `i < hosts/2` send (REPS 4.3.2 micro benchmark).
//! * `incast`: `degree` distinct random senders to one random receiver, at time 0.
//! * `all_to_all`: every host to every other host, at time 0 (`hosts * (hosts-1)` flows);
//!   with `workload.parallel = p` at most p at a time per host ([`ai`]).
//! * `ring_allreduce`, `butterfly_allreduce`: REPS 4.2's AllReduce collectives ([`ai`]).
//! * `all_to_all_v` and collectives (`workload.collectives >= 1`): see
//!   [`collectives`] (DCSIM 4.1); each flow carries its collective id.
//! * `websearch`: `workload.flows` flows with sizes drawn from the DCTCP web-search CDF
//!   ([`WEBSEARCH_CDF`], piecewise-linear between its points) and Poisson arrivals whose
//!   rate makes the offered load `workload.load` of every host's link on average:
//!   `lambda = load * hosts * link_rate / (8 * mean_size)` flows per second, each flow
//!   from a uniform random host to a uniform random other host.
//!
//! * `llm`: one LLM-training iteration, flows started by their dependencies ([`llm`]).
//! * `workload.infinite`: the pairs above with flows that never end ([`infinite`], DCSIM
//!   Fig. 4).
//!
//! The message size of every non-websearch flow is `workload.message` (bytes or BDPs).
//! Every draw comes from the run's ChaCha8 generator, seeded from `scenario.seed`.

pub mod ai;
pub mod collectives;
pub mod infinite;
pub mod llm;
pub mod uno;

use crate::error::{Error, Result};
use crate::scenario::{A2aOrder, Scenario, WorkloadKind};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One flow (message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowSpec {
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Message size in bytes (at least 1).
    pub bytes: u64,
    /// Start time, ps.
    pub start_ps: u64,
    /// Collective the flow belongs to (DCSIM 4.1; 0 for workloads without collectives).
    pub collective: u32,
}

/// The DCTCP web-search flow-size CDF (Alizadeh et al., SIGCOMM 2010; the `WebSearch`
/// distribution of the HPCC/pFabric traffic generators): (bytes, cumulative probability).
pub const WEBSEARCH_CDF: [(f64, f64); 12] = [
    (0.0, 0.0),
    (10_000.0, 0.15),
    (20_000.0, 0.20),
    (30_000.0, 0.30),
    (50_000.0, 0.40),
    (80_000.0, 0.53),
    (200_000.0, 0.60),
    (1_000_000.0, 0.70),
    (2_000_000.0, 0.80),
    (5_000_000.0, 0.90),
    (10_000_000.0, 0.97),
    (30_000_000.0, 1.00),
];

/// Mean of [`WEBSEARCH_CDF`] (piecewise-linear interpolation), bytes: about 1.71 MB.
pub fn websearch_mean() -> f64 {
    WEBSEARCH_CDF
        .windows(2)
        .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
        .sum()
}

/// One web-search flow size for a uniform draw `u` in [0, 1), at least 1 byte.
pub fn websearch_size(u: f64) -> u64 {
    for w in WEBSEARCH_CDF.windows(2) {
        let ((s0, c0), (s1, c1)) = (w[0], w[1]);
        if u < c1 {
            let x = s0 + (u - c0) / (c1 - c0) * (s1 - s0);
            return (x.round() as u64).max(1);
        }
    }
    WEBSEARCH_CDF[WEBSEARCH_CDF.len() - 1].0 as u64
}

/// The next start time (seconds) after `t` of a Poisson process of rate `lambda` per second:
/// one uniform draw of `rng` (web-search and `uno_mix` arrivals). The last start time must
/// stay within the simulator's clock: a tiny load would push it past u64 ps (validation
/// refuses it first, see `crate::estimate::check`; this is the generator's own guard, an
/// error on `workload.load` naming the `what` workload's arrivals).
pub(crate) fn next_arrival(
    rng: &mut ChaCha8Rng,
    t: f64,
    lambda: f64,
    load: f64,
    what: &str,
) -> Result<f64> {
    let limit_s = crate::units::MAX_TIME_US * 1e-6;
    let u: f64 = rng.gen();
    let t = t + -(1.0 - u).ln() / lambda;
    if t.is_nan() || t > limit_s {
        return Err(Error::field(
            "workload.load",
            format!(
                "at load {load} the {what} arrivals pass {limit_s} s of simulated time; raise \
                 workload.load or lower workload.flows"
            ),
        ));
    }
    Ok(t)
}

/// A uniformly random derangement of `0..n` (n >= 2), by rejection: Fisher-Yates until no
/// fixed point (about e tries on average).
pub fn derangement(n: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    loop {
        for i in (1..n as usize).rev() {
            let j = rng.gen_range(0..=i);
            v.swap(i, j);
        }
        if v.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return v;
        }
    }
}

/// The flows of scenario `s` on `hosts` hosts, sorted by start time (then generation
/// order). `bdp_bytes` converts BDP-relative message sizes; `host_gbps` is the host link rate.
pub fn generate(
    s: &Scenario,
    hosts: u32,
    bdp_bytes: u64,
    host_gbps: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<FlowSpec>> {
    let w = &s.workload;
    let msg = w.message.bytes(bdp_bytes).max(1);
    let at0 = |src: u32, dst: u32| FlowSpec {
        src,
        dst,
        bytes: msg,
        start_ps: 0,
        collective: 0,
    };
    if uno::is_two_dc_kind(w.kind) {
        return uno::generate(s, hosts, msg, host_gbps, rng);
    }
    if w.collectives > 0 || w.kind == WorkloadKind::AllToAllV {
        // Collectives and all-to-all-v (DCSIM 4.1): [`collectives`].
        let mut flows = collectives::generate(s, hosts, bdp_bytes, rng)?;
        if w.infinite {
            infinite::apply(s, host_gbps, &mut flows);
        }
        return Ok(flows);
    }
    let mut flows: Vec<FlowSpec> = match w.kind {
        WorkloadKind::Permutation => derangement(hosts, rng)
            .into_iter()
            .enumerate()
            .map(|(i, d)| at0(i as u32, d))
            .collect(),
        WorkloadKind::Tornado => (0..if w.one_way { hosts / 2 } else { hosts })
            .map(|i| at0(i, (i + hosts / 2) % hosts))
            .collect(),
        WorkloadKind::Incast => {
            let rx = rng.gen_range(0..hosts);
            let mut others: Vec<u32> = (0..hosts).filter(|&h| h != rx).collect();
            for i in 0..w.degree as usize {
                let j = rng.gen_range(i..others.len());
                others.swap(i, j);
            }
            others[..w.degree as usize]
                .iter()
                .map(|&src| at0(src, rx))
                .collect()
        }
        WorkloadKind::AllToAll if w.parallel > 0 && w.self_clocked => {
            ai::all_to_all_self_clocked(hosts, msg, w.parallel, s.seed)
        }
        WorkloadKind::AllToAll if w.parallel > 0 => {
            ai::all_to_all(hosts, msg, w.parallel, host_gbps)
        }
        WorkloadKind::RingAllreduce => {
            let per_tor = if s.topology.tiers >= 2 {
                crate::validate::tor_host_ports(
                    u64::from(s.topology.radix),
                    s.topology.oversubscription,
                ) as u32
            } else {
                1
            };
            ai::ring_allreduce(hosts, per_tor, msg)
        }
        WorkloadKind::ButterflyAllreduce => ai::butterfly_allreduce(hosts, msg),
        WorkloadKind::AllToAll => {
            let mut v = Vec::with_capacity(hosts as usize * (hosts as usize - 1));
            for src in 0..hosts {
                // `workload.order`: the order of the host's flows.
                let mut dsts: Vec<u32> = (1..hosts).map(|d| (src + d) % hosts).collect();
                match w.order {
                    A2aOrder::InStep => dsts.sort_unstable(),
                    A2aOrder::Shifted => {}
                    A2aOrder::Random => dsts.shuffle(rng),
                }
                v.extend(dsts.into_iter().map(|dst| at0(src, dst)));
            }
            v
        }
        WorkloadKind::Websearch => {
            let lambda = w.load * hosts as f64 * host_gbps * 1e9 / (8.0 * websearch_mean());
            let mut t = 0.0f64; // seconds
            let mut v = Vec::with_capacity(w.flows as usize);
            // `workload.fixed_receiver`: each host's one receiver, drawn up front (only then:
            // without it the draws are those of before the option existed).
            let receivers: Vec<u32> = if w.fixed_receiver {
                (0..hosts)
                    .map(|src| {
                        let d = rng.gen_range(0..hosts - 1);
                        if d >= src {
                            d + 1
                        } else {
                            d
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            for _ in 0..w.flows {
                t = next_arrival(rng, t, lambda, w.load, "web-search")?;
                let src = rng.gen_range(0..hosts);
                let dst = if w.fixed_receiver {
                    receivers[src as usize]
                } else {
                    let d = rng.gen_range(0..hosts - 1);
                    if d >= src {
                        d + 1
                    } else {
                        d
                    }
                };
                v.push(FlowSpec {
                    src,
                    dst,
                    bytes: websearch_size(rng.gen()),
                    start_ps: (t * 1e12).round() as u64,
                    collective: 0,
                });
            }
            v
        }
        WorkloadKind::AllToAllV => unreachable!("generated by workload::collectives"),
        WorkloadKind::MixedIncast | WorkloadKind::UnoMix | WorkloadKind::DcAllreduce => {
            unreachable!("generated by workload::uno")
        }
        WorkloadKind::Llm => {
            let t = &s.topology;
            let d = crate::validate::tor_host_ports(u64::from(t.radix), t.oversubscription);
            llm::flows(s, d as u32, hosts)?
        }
    };
    if w.infinite {
        infinite::apply(s, host_gbps, &mut flows);
    }
    Ok(flows)
}

/// [`generate`], with an `llm` workload's DAG handed back with its flows: the engine runs
/// that DAG (`engine/skip/dag.rs`), so it is generated once per run (at 1024 GPUs about 7 % of
/// the setup each time). Any other workload: [`generate`]'s flows and `None`.
pub fn generate_with_dag(
    s: &Scenario,
    hosts: u32,
    bdp_bytes: u64,
    host_gbps: f64,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<FlowSpec>, Option<crate::wormhole::llm::LlmDag>)> {
    let w = &s.workload;
    if w.kind != WorkloadKind::Llm || w.collectives > 0 {
        return generate(s, hosts, bdp_bytes, host_gbps, rng).map(|f| (f, None));
    }
    let t = &s.topology;
    let d = crate::validate::tor_host_ports(u64::from(t.radix), t.oversubscription);
    let (dag, rail) = llm::dag(s, d as u32, hosts)?;
    let mut flows = llm::flows_of(s, &dag, &rail);
    if w.infinite {
        infinite::apply(s, host_gbps, &mut flows);
    }
    Ok((flows, Some(dag)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Size;
    use rand::SeedableRng;

    fn run(kind: WorkloadKind, hosts: u32, degree: u32) -> Vec<FlowSpec> {
        let mut s = Scenario::default();
        s.workload.kind = kind;
        s.workload.degree = degree;
        s.workload.message = Size::Bytes(1000);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        generate(&s, hosts, 1, 400.0, &mut rng).unwrap()
    }

    #[test]
    fn permutation_is_a_derangement() {
        for hosts in [2u32, 3, 16, 128] {
            let f = run(WorkloadKind::Permutation, hosts, 0);
            assert_eq!(f.len(), hosts as usize);
            let mut rx = vec![0u32; hosts as usize];
            for (i, fl) in f.iter().enumerate() {
                assert_eq!(fl.src, i as u32);
                assert_ne!(fl.src, fl.dst);
                rx[fl.dst as usize] += 1;
            }
            assert!(
                rx.iter().all(|&c| c == 1),
                "each host receives exactly once"
            );
        }
    }

    /// `workload.order`: every order gives each host one flow to every other host, in
    /// step (0, 1, 2, ...), shifted (i + 1, i + 2, ...) or in a random order of its own.
    #[test]
    fn all_to_all_orders() {
        let gen = |order: A2aOrder| {
            let mut s = Scenario::default();
            s.workload.kind = WorkloadKind::AllToAll;
            s.workload.message = Size::Bytes(1000);
            s.workload.order = order;
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            generate(&s, 8, 1, 400.0, &mut rng).unwrap()
        };
        let dsts = |f: &[FlowSpec], src: u32| -> Vec<u32> {
            f.iter().filter(|x| x.src == src).map(|x| x.dst).collect()
        };
        let (step, shift, rand) = (
            gen(A2aOrder::InStep),
            gen(A2aOrder::Shifted),
            gen(A2aOrder::Random),
        );
        for f in [&step, &shift, &rand] {
            assert_eq!(f.len(), 56);
            for src in 0..8 {
                let mut d = dsts(f, src);
                assert!(!d.contains(&src));
                d.sort_unstable();
                d.dedup();
                assert_eq!(d.len(), 7, "one flow to every other host");
            }
        }
        assert_eq!(dsts(&step, 3), [0, 1, 2, 4, 5, 6, 7]);
        assert_eq!(dsts(&shift, 3), [4, 5, 6, 7, 0, 1, 2]);
        let firsts: Vec<u32> = (0..8).map(|h| dsts(&rand, h)[0]).collect();
        assert!(
            (0..8).any(|h| dsts(&rand, h) != dsts(&step, h))
                && firsts.windows(2).any(|w| w[0] != w[1]),
            "random: {firsts:?}"
        );
        assert_eq!(rand, gen(A2aOrder::Random), "drawn from the seed");
    }

    #[test]
    fn tornado_pairs_twins() {
        let f = run(WorkloadKind::Tornado, 128, 0);
        assert_eq!((f[0].dst, f[1].dst, f[64].dst, f[127].dst), (64, 65, 0, 63));
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Tornado;
        s.workload.one_way = true;
        let f = generate(&s, 16, 1, 400.0, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert_eq!(f.len(), 8);
        assert!(f
            .iter()
            .enumerate()
            .all(|(i, x)| x.src == i as u32 && x.dst == i as u32 + 8));
    }

    #[test]
    fn incast_has_degree_distinct_senders_to_one_receiver() {
        let f = run(WorkloadKind::Incast, 32, 8);
        assert_eq!(f.len(), 8);
        let rx = f[0].dst;
        let mut srcs: Vec<u32> = f.iter().map(|x| x.src).collect();
        srcs.sort();
        srcs.dedup();
        assert_eq!(srcs.len(), 8);
        assert!(f.iter().all(|x| x.dst == rx && x.src != rx));
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Incast;
        s.workload.degree = 32;
        s.topology.hosts = 32;
        // Refused before generation, naming the field.
        let e = crate::validate::validate(&s).unwrap_err();
        assert!(matches!(e, Error::Field { field, .. } if field == "workload.degree"));
    }

    #[test]
    fn all_to_all_pairs() {
        let f = run(WorkloadKind::AllToAll, 5, 0);
        assert_eq!(f.len(), 20);
        assert!(f.iter().all(|x| x.src != x.dst));
    }

    #[test]
    fn websearch_sizes_follow_the_cdf() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let n = 200_000;
        let mut sum = 0.0;
        let mut below_80k = 0;
        for _ in 0..n {
            let b = websearch_size(rng.gen());
            sum += b as f64;
            below_80k += (b <= 80_000) as u32;
        }
        let mean = sum / n as f64;
        let want = websearch_mean();
        assert!((want - 1_711_250.0).abs() < 1.0, "{want}");
        assert!((mean / want - 1.0).abs() < 0.03, "mean {mean} vs {want}");
        let frac = below_80k as f64 / n as f64;
        assert!((frac - 0.53).abs() < 0.01, "P(size <= 80KB) = {frac}");
    }

    /// `workload.fixed_receiver`: every flow of a host goes to the one receiver it drew;
    /// without it a host's flows go to many receivers.
    #[test]
    fn websearch_fixed_receiver_keeps_one_receiver_per_host() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Websearch;
        s.workload.flows = 2_000;
        let receivers = |s: &Scenario| {
            let f = generate(s, 16, 1, 100.0, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
            assert!(f.iter().all(|x| x.src != x.dst && x.dst < 16));
            let mut per_src = vec![std::collections::BTreeSet::new(); 16];
            for x in &f {
                per_src[x.src as usize].insert(x.dst);
            }
            per_src.iter().map(|d| d.len()).max().unwrap()
        };
        assert!(receivers(&s) > 10, "a new receiver per flow");
        s.workload.fixed_receiver = true;
        assert_eq!(receivers(&s), 1, "one receiver per host");
    }

    #[test]
    fn websearch_arrivals_match_the_load() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Websearch;
        s.workload.flows = 20_000;
        s.workload.load = 0.5;
        let f = generate(&s, 16, 1, 100.0, &mut ChaCha8Rng::seed_from_u64(2)).unwrap();
        assert!(f.windows(2).all(|w| w[0].start_ps <= w[1].start_ps));
        let span_s = f.last().unwrap().start_ps as f64 * 1e-12;
        let offered = f.iter().map(|x| x.bytes as f64 * 8.0).sum::<f64>() / span_s;
        let load = offered / (16.0 * 100e9);
        assert!((load - 0.5).abs() < 0.05, "load {load}");
        assert!(f.iter().all(|x| x.src != x.dst && x.src < 16 && x.dst < 16));
    }
}
