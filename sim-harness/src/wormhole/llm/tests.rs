//! Tests of the LLM workload generator.

use super::*;
use std::collections::VecDeque;

const CT: ComputeTimes = ComputeTimes {
    fwd_ps: 1_000_000,
    bwd_ps: 2_000_000,
};

fn acyclic(d: &LlmDag) -> bool {
    // Kahn's algorithm, independent of the id order.
    let n = d.tasks.len();
    let mut indeg = vec![0usize; n];
    let mut out = vec![Vec::new(); n];
    for (i, t) in d.tasks.iter().enumerate() {
        for &p in &t.deps {
            indeg[i] += 1;
            out[p as usize].push(i);
        }
    }
    let mut q: VecDeque<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut seen = 0;
    while let Some(i) = q.pop_front() {
        seen += 1;
        for &j in &out[i] {
            indeg[j] -= 1;
            if indeg[j] == 0 {
                q.push_back(j);
            }
        }
    }
    seen == n
}

#[test]
fn gpt_7b_64_gpus_by_hand() {
    let c = table1(64, Family::Gpt, CT).unwrap();
    assert_eq!(c.hosts(), 64);
    // G = 2 x 16 x 12 x 4096^2 / 8 = 805 306 368 B; chunk G / 4 = 192 MiB.
    assert_eq!(c.gradient_bytes(), 805_306_368);
    assert_eq!(c.dp_chunk_bytes(), 201_326_592);
    // A = 2 x 2048 x 4096 / 8 = 2 MiB.
    assert_eq!(c.activation_bytes(), 2_097_152);
    let d = generate(&c).unwrap();
    // DP: 16 groups x 2 x 3 x 4 = 384 flows; PP: 32 pipelines x 1 boundary x 2 mb x 1.
    assert_eq!(d.totals(Phase::DpReduceScatter), (192, 192 * 201_326_592));
    assert_eq!(d.totals(Phase::DpAllGather), (192, 192 * 201_326_592));
    assert_eq!(d.totals(Phase::PpActivation), (64, 64 * 2_097_152));
    assert_eq!(d.totals(Phase::PpGradient), (64, 64 * 2_097_152));
    assert_eq!(d.totals(Phase::EpDispatch), (0, 0));
    let bytes: u64 = d.flows().map(|f| f.3).sum();
    assert_eq!(d.flows().count(), 512);
    assert_eq!(bytes, 77_577_846_784);
    // 64 GPUs x 2 micro-batches x (fwd + bwd) compute tasks.
    assert_eq!(d.tasks.len(), 512 + 256);
    assert!(acyclic(&d));
    // No contention, zero-time flows: GPipe takes (m + PP - 1)(F + B) = 3 x 3 ms.
    let fin = d.finish_times(|_| 0);
    assert_eq!(*fin.iter().max().unwrap(), 3 * (CT.fwd_ps + CT.bwd_ps));
    // Flows of 1 ps per MiB: the DP ring adds 6 steps of 192 ps, the pipeline 4 x 2 ps
    // hops... at least the compute path plus the ring.
    let fin = d.finish_times(|b| b >> 20);
    assert!(*fin.iter().max().unwrap() >= 3 * (CT.fwd_ps + CT.bwd_ps) + 6 * 192);
}

#[test]
fn iteration_times_by_hand() {
    let c = table1(64, Family::Gpt, CT).unwrap();
    let d = generate(&c).unwrap();
    // Contention-free schedule, 1 ps per MiB.
    let fin = d.finish_times(|b| b >> 20);
    let times: Vec<(u64, u64)> = d
        .tasks
        .iter()
        .zip(&fin)
        .map(|(t, &f)| {
            let dur = match t.kind {
                TaskKind::Compute { duration_ps, .. } => duration_ps,
                TaskKind::Flow { bytes, .. } => bytes >> 20,
            };
            (f - dur, f)
        })
        .collect();
    let it = d.iteration_times(&times).unwrap();
    assert_eq!(it.iteration_ps, *fin.iter().max().unwrap());
    let phase = |p| *it.phases.iter().find(|x| x.phase == p).unwrap();
    let fwd = phase(Phase::Forward);
    assert_eq!((fwd.first_start_ps, fwd.tasks), (0, 128));
    assert_eq!((fwd.mean_fct_ps, fwd.max_fct_ps), (CT.fwd_ps, CT.fwd_ps));
    let rs = phase(Phase::DpReduceScatter);
    assert_eq!((rs.tasks, rs.mean_fct_ps, rs.max_fct_ps), (192, 192, 192));
    let ag = phase(Phase::DpAllGather);
    assert_eq!(ag.last_finish_ps, it.iteration_ps);
    assert_eq!(phase(Phase::PpActivation).mean_fct_ps, 2);
    assert!(it.phases.iter().all(|p| p.phase != Phase::EpDispatch));
    // Bad input names the field.
    assert!(d
        .iteration_times(&times[1..])
        .unwrap_err()
        .to_string()
        .starts_with("times"));
    let mut bad = times.clone();
    bad[5] = (10, 5);
    assert!(d
        .iteration_times(&bad)
        .unwrap_err()
        .to_string()
        .contains("task 5"));
}

#[test]
fn moe_8x7b_64_gpus_by_hand() {
    let c = table1(64, Family::Moe, CT).unwrap();
    // X = 16 x (2048 / 8) x 2 x 4096 x 2 / 8 = 8 MiB.
    assert_eq!(c.ep_bytes(), 8_388_608);
    // G = 2 x 16 x (4 x 4096^2 / 8 + 1 x 8 x 4096^2) = 4 563 402 752 B.
    assert_eq!(c.gradient_bytes(), 4_563_402_752);
    let d = generate(&c).unwrap();
    // Per all-to-all kind: 2 fwd/bwd x 2 mb x 2 stages x 4 groups x 56 flows = 1792.
    assert_eq!(d.totals(Phase::EpDispatch), (1792, 1792 * 8_388_608));
    assert_eq!(d.totals(Phase::EpCombine), (1792, 1792 * 8_388_608));
    assert_eq!(d.totals(Phase::DpReduceScatter).0, 192);
    assert!(acyclic(&d));
    // EP group 0 of stage 0: dp 0..4 of tp 0 and tp 1 (hosts 0, 8, 16, 24, 1, 9, 17, 25).
    assert_eq!(c.ep_groups(0)[0], vec![0, 8, 16, 24, 1, 9, 17, 25]);
    // Zero-time flows: the all-to-alls add no time, the schedule is GPipe's.
    let fin = d.finish_times(|_| 0);
    assert_eq!(*fin.iter().max().unwrap(), 3 * (CT.fwd_ps + CT.bwd_ps));
}

#[test]
fn every_config_is_acyclic_and_covers_its_dp_groups() {
    for gpus in [64, 128, 256] {
        for fam in [Family::Gpt, Family::Moe] {
            let c = table1(gpus, fam, CT).unwrap();
            let d = generate(&c).unwrap();
            assert!(acyclic(&d), "{gpus} {fam:?}");
            assert!(d
                .tasks
                .iter()
                .enumerate()
                .all(|(i, t)| t.deps.iter().all(|&p| (p as usize) < i)));
            let dp = c.par.dp as u32;
            let mut sends = vec![0u32; c.hosts() as usize];
            let mut recvs = vec![0u32; c.hosts() as usize];
            for (id, src, dst, _) in d.flows() {
                if matches!(
                    d.tasks[id as usize].phase,
                    Phase::DpReduceScatter | Phase::DpAllGather
                ) {
                    sends[src as usize] += 1;
                    recvs[dst as usize] += 1;
                }
            }
            let groups = c.dp_groups();
            assert_eq!(groups.len() as u32, c.par.tp * c.par.pp);
            let mut members: Vec<u32> = groups.iter().flatten().copied().collect();
            members.sort_unstable();
            members.dedup();
            assert_eq!(
                members.len() as u32,
                c.hosts(),
                "DP groups cover every host"
            );
            for g in &groups {
                assert_eq!(g.len() as u32, dp);
                for &h in g {
                    let want = 2 * (dp - 1);
                    assert_eq!(
                        (sends[h as usize], recvs[h as usize]),
                        (want, want),
                        "host {h}"
                    );
                }
            }
            assert!(d
                .flows()
                .all(|(_, s, t, b)| s != t && s < c.hosts() && t < c.hosts() && b > 0));
        }
    }
}

#[test]
fn flow_counts_follow_the_formulas_for_all_of_table1() {
    for gpus in [64, 128, 256, 1024] {
        for fam in [Family::Gpt, Family::Moe] {
            let c = table1(gpus, fam, CT).unwrap();
            let d = generate(&c).unwrap();
            let (tp, dp, pp, ep) = (
                c.par.tp as u64,
                c.par.dp as u64,
                c.par.pp as u64,
                c.par.ep as u64,
            );
            let m = pp;
            // DP: TP PP groups x 2 (DP - 1) DP; PP: TP DP pipelines x (PP - 1) x m per
            // direction; EP: 2 directions x m x PP x TP DP / EP groups x EP (EP - 1).
            let rs = tp * pp * (dp - 1) * dp;
            assert_eq!(
                d.totals(Phase::DpReduceScatter),
                (rs, rs * c.dp_chunk_bytes())
            );
            assert_eq!(d.totals(Phase::DpAllGather).0, rs);
            let ppf = tp * dp * (pp - 1) * m;
            assert_eq!(
                d.totals(Phase::PpActivation),
                (ppf, ppf * c.activation_bytes())
            );
            assert_eq!(d.totals(Phase::PpGradient).0, ppf);
            let a2a = 2 * m * pp * tp * dp * (ep - 1);
            assert_eq!(d.totals(Phase::EpDispatch), (a2a, a2a * c.ep_bytes()));
            assert_eq!(d.totals(Phase::EpCombine).0, a2a);
            let computes = d
                .tasks
                .iter()
                .filter(|t| matches!(t.kind, TaskKind::Compute { .. }))
                .count() as u64;
            assert_eq!(computes, 2 * m * gpus as u64);
        }
    }
}

#[test]
fn table1_sizes_and_errors() {
    let c = table1(1024, Family::Gpt, CT).unwrap();
    assert_eq!((c.hosts(), c.model.name), (1024, "GPT-175B"));
    let c = table1(1024, Family::Moe, CT).unwrap();
    assert_eq!((c.hosts(), c.model.experts), (1024, 32));
    let e = table1(100, Family::Gpt, CT).unwrap_err();
    assert!(e.to_string().starts_with("workload.llm.gpus"), "{e}");
    let mut bad = table1(64, Family::Moe, CT).unwrap();
    bad.par.ep = 3;
    assert!(generate(&bad)
        .unwrap_err()
        .to_string()
        .starts_with("workload.llm.ep"));
    let mut bad = table1(64, Family::Gpt, CT).unwrap();
    bad.par.pp = 3;
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("workload.llm.pp"));
    let mut bad = table1(64, Family::Gpt, CT).unwrap();
    bad.par.dp = u32::MAX;
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .contains("GPUs, more than"));
    let mut bad = table1(64, Family::Gpt, CT).unwrap();
    bad.model.hidden = u64::MAX;
    assert!(generate(&bad)
        .unwrap_err()
        .to_string()
        .starts_with("workload.llm.hidden"));
    // GPT-7B, 64 GPUs at 400 TFLOP/s: 2 x 2048 x 16 x 12 x 4096^2 / 8 = 1.649e12 FLOPs
    // -> 4.123 ms forward.
    let t = table1(64, Family::Gpt, CT)
        .unwrap()
        .compute_from_tflops(400)
        .unwrap();
    assert_eq!(t.fwd_ps, 1_649_267_441_664 / 400);
    assert_eq!(t.bwd_ps, 2 * t.fwd_ps);
}
