//! Helpers shared by the fabric tests of the DCSIM family (`dcsim_fabric`, and the baselines
//! `pfabric`, `phost`, `dcpim`): the shipped DCSIM scenarios shrunk to a k = 4 fat tree, a run,
//! a summary key, and packet conservation; and by the other fabric tests (`uno`, `uno_paper`,
//! `reps_fabric`, `reps_matrix`): a run in which every flow completes, and the REPS paper's
//! section 4.1 setup with a run under one load balancer. Each test file uses a subset.
#![allow(dead_code)]

use sim_harness::overrides::{load, Source};
use sim_harness::scenario::{LbKind, Size, WorkloadKind};
use sim_harness::{simulate, RunControl, RunResult, Scenario};
use std::path::PathBuf;

/// `scenarios/<file>` on a k = 4 fat tree (16 hosts) with collectives of 2 to 16 hosts and no
/// queue samples, then `sets` (`field=value`, as `--set`).
pub fn small_dcsim(file: &str, sets: &[&str]) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(file);
    let mut all: Vec<String> = [
        "topology.radix=4",
        "workload.collective_sizes=[2, 4, 8, 16]",
        "output.queue_sample_us=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    load(Source::File(&path), &all).expect("scenario loads")
}

/// Run `s` to the end.
pub fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

/// Run `s` to the end and check that every flow completed.
pub fn run_complete(s: &Scenario) -> RunResult {
    let r = run(s);
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "{:?}/{:?}: every flow completes",
        s.transport.cc, s.transport.lb
    );
    r
}

/// `summary.json`'s `extra.<k>` (the test fails naming the key when it is absent).
pub fn x(r: &RunResult, k: &str) -> f64 {
    *r.summary
        .extra
        .get(k)
        .unwrap_or_else(|| panic!("no extra.{k} in {:?}", r.summary.extra))
}

/// DATAs sent = delivered + dropped + in flight at the end; control packets created =
/// delivered + dropped + in flight.
pub fn packets_conserved(r: &RunResult) {
    assert_eq!(
        x(r, "data_sent"),
        x(r, "data_delivered") + x(r, "data_dropped") + x(r, "data_in_flight_end"),
        "DATA conservation: {:?}",
        r.summary.extra
    );
    assert_eq!(
        x(r, "ctrl_created"),
        x(r, "ctrl_delivered") + x(r, "ctrl_dropped") + x(r, "ctrl_in_flight_end"),
        "control conservation: {:?}",
        r.summary.extra
    );
}

/// REPS section 4.1 parameters on a 2-tier fat tree of radix `radix` (400 Gb/s, 4 KiB MTU,
/// 500 ns links and switches, 1-BDP buffers, K_min 20 % / K_max 80 %, RTO 70 us, seed 1),
/// scenario `name`, workload `kind` of `message` bytes, no queue samples (`reps_fabric`,
/// `reps_matrix`: each adds its own CC and output settings).
pub fn reps_paper_setup(name: &str, radix: u32, message: u64, kind: WorkloadKind) -> Scenario {
    let mut s = Scenario {
        name: name.into(),
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
    t.ecn_kmin = 0.2;
    t.ecn_kmax = 0.8;
    s.transport.mtu = 4096;
    s.transport.rto_us = 70.0;
    s.workload.kind = kind;
    s.workload.message = Size::Bytes(message);
    s.output.queue_sample_us = 0.0;
    s
}

/// `s` under load balancer `lb`, every flow completing ([`run_complete`]).
pub fn run_lb(s: &Scenario, lb: LbKind) -> RunResult {
    let mut s = s.clone();
    s.transport.lb = lb;
    run_complete(&s)
}
