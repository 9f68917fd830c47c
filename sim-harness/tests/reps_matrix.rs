//! REPS's Figure 3 comparison in the fabric (REPS paper 4.1-4.3): every load balancer of the
//! paper's matrix on small instances of its workloads, asserting the orderings the paper
//! states explicitly. Setup of section 4.1 (400 Gb/s, 4 KiB MTU, 500 ns links and switches,
//! 1-BDP buffers, K_min 20 % / K_max 80 %, RTO 70 us) on the MPRDMA DCTCP variant
//! (`transport.cc = "mprdma"`, the CC the paper runs every baseline on).

use sim_harness::scenario::{CcKind, LbKind, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, RunControl, RunResult};

/// Section 4.1 parameters on a 2-tier fat tree of radix `radix`.
fn paper_setup(radix: u32, message: u64, kind: WorkloadKind) -> Scenario {
    let mut s = Scenario {
        name: "reps_matrix_test".into(),
        seed: 1,
        ..Scenario::default()
    };
    let t = &mut s.topology;
    t.tiers = 2;
    t.radix = radix;
    t.link_gbps = 400.0;
    t.link_delay_ns = 500;
    t.switch_latency_ns = 500;
    t.buffer = Size::Bdp(1.0);
    s.transport.cc = CcKind::Mprdma;
    s.transport.mtu = 4096;
    s.transport.rto_us = 70.0;
    s.workload.kind = kind;
    s.workload.message = Size::Bytes(message);
    s.output.queue_sample_us = 0.0;
    s.output.selection_bucket_us = 0.0;
    s
}

fn run(s: &Scenario, lb: LbKind) -> RunResult {
    let mut s = s.clone();
    s.transport.lb = lb;
    let r = simulate(&s, &RunControl::default()).expect("run");
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "{lb:?}: every flow completes"
    );
    r
}

fn max_fct_us(r: &RunResult) -> f64 {
    r.flows
        .iter()
        .map(|f| (f.end_ps - f.start_ps) as f64 / 1e6)
        .fold(0.0, f64::max)
}

const ALL: [LbKind; 9] = [
    LbKind::Ecmp,
    LbKind::Ops,
    LbKind::Reps,
    LbKind::Plb,
    LbKind::Flowlet,
    LbKind::Mprdma,
    LbKind::Mptcp,
    LbKind::Bitmap,
    LbKind::AdaptiveRoce,
];

#[test]
fn explore() {
    for kind in [WorkloadKind::Permutation, WorkloadKind::Tornado] {
        let s = paper_setup(8, 1 << 20, kind);
        for lb in ALL {
            let t = std::time::Instant::now();
            let r = run(&s, lb);
            eprintln!(
                "{kind:?} {lb:?}: max fct {:.1} us ({:.2}s)",
                max_fct_us(&r),
                t.elapsed().as_secs_f64()
            );
        }
    }
}
