//! Fabric simulator tests: completion under loss, determinism, failures, conservation,
//! stop conditions, and errors that name their field.

use sim_harness::scenario::{Failure, LbKind, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, Error, RunControl, RunResult};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn scenario(tiers: u32, radix: u32, message: u64, lb: LbKind) -> Scenario {
    let mut s = Scenario {
        name: "des_test".into(),
        ..Scenario::default()
    };
    s.topology.tiers = tiers;
    s.topology.radix = radix;
    s.workload.message = Size::Bytes(message);
    s.transport.lb = lb;
    s.output.queue_sample_us = 0.0;
    s
}

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

fn extra(r: &RunResult, k: &str) -> u64 {
    *r.summary
        .extra
        .get(k)
        .unwrap_or_else(|| panic!("no extra {k}")) as u64
}

fn cause(r: &RunResult, c: &str) -> u64 {
    r.summary.drops_by_cause.get(c).copied().unwrap_or(0)
}

fn assert_conserved(r: &RunResult) {
    let m = &r.summary;
    assert_eq!(
        m.data_packets,
        extra(r, "data_delivered")
            + extra(r, "data_dropped")
            + extra(r, "data_trimmed")
            + extra(r, "data_in_flight_end"),
        "DATA: sent = delivered + dropped + trimmed + in flight ({:?})",
        m.extra
    );
    assert_eq!(
        extra(r, "ctrl_created"),
        extra(r, "ctrl_delivered") + extra(r, "ctrl_dropped") + extra(r, "ctrl_in_flight_end"),
        "control packets: created = delivered + dropped + in flight ({:?})",
        m.extra
    );
    assert_eq!(m.drops, m.drops_by_cause.values().sum::<u64>());
    assert_eq!(
        m.drops,
        extra(r, "data_dropped") + extra(r, "ctrl_dropped"),
        "every drop has a cause"
    );
}

/// 1 MiB messages (more than a BDP) with a one-BDP initial window: ECMP collisions
/// overflow one-BDP buffers. Every flow still completes, under both ECMP and OPS, because
/// the receiver keeps out-of-order data and the RTO covers every packet in flight.
#[test]
fn every_flow_completes_with_1bdp_buffers_under_ecmp_and_ops() {
    for lb in [LbKind::Ecmp, LbKind::Ops] {
        let s = scenario(3, 8, 1 << 20, lb);
        let r = run(&s);
        let m = &r.summary;
        assert_eq!(m.flows, 128);
        assert_eq!(m.flows_completed, 128, "{lb:?}: {m:?}");
        assert!(r.flows.iter().all(|f| f.end_ps > 0 && f.fct_ps > 0));
        assert_eq!(extra(&r, "buffer_bytes"), extra(&r, "bdp_bytes"));
        assert_eq!(extra(&r, "stalled"), 0);
        if lb == LbKind::Ecmp {
            assert!(
                cause(&r, "buffer_full") > 0,
                "ECMP collisions overflow a BDP buffer"
            );
            assert!(m.retransmits > 0);
        }
        assert_conserved(&r);
        // Nothing left in the network once every flow is done but stray duplicates.
        assert_eq!(extra(&r, "data_in_flight_end"), 0);
    }
}

#[test]
fn trimming_turns_overflow_into_nacks_and_completes() {
    let mut s = scenario(3, 8, 1 << 20, LbKind::Ecmp);
    s.transport.trimming = true;
    let r = run(&s);
    assert_eq!(r.summary.flows_completed, 128);
    assert!(r.summary.trims > 0);
    assert_eq!(cause(&r, "buffer_full"), 0, "trimmed, not dropped");
    assert!(extra(&r, "headers_delivered") > 0);
    assert_conserved(&r);
}

/// Same seed, same scenario: the full result is identical except the wall-clock fields.
#[test]
fn runs_are_bit_identical() {
    let mut s = scenario(2, 8, 256 << 10, LbKind::Ops);
    s.output.queue_sample_us = 1.0;
    s.failures.push(Failure {
        link: "tor1.up2".into(),
        at_us: 3.0,
        for_us: Some(20.0),
        gbps: None,
        ..Default::default()
    });
    let strip = |mut r: RunResult| {
        r.summary.wall_s = 0.0;
        r.summary.events_per_s = 0.0;
        r.summary.data_packets_per_s = 0.0;
        r
    };
    let a = strip(run(&s));
    let b = strip(run(&s));
    assert!(!a.queues.is_empty(), "queue samples recorded");
    assert!(a
        .queues
        .iter()
        .all(|q| q.bytes > 0 && !q.port.starts_with("host")));
    assert_eq!(a, b);
    s.seed = 2;
    let c = strip(run(&s));
    assert_ne!(a.flows, c.flows, "another seed gives another run");
}

/// A ToR uplink failing for 100 us during a permutation: drops with cause `link_down`
/// appear, and the slowest flow takes longer than without the failure.
#[test]
fn a_failing_link_adds_link_down_drops_and_slows_the_slowest_flow() {
    let base = scenario(2, 8, 1 << 20, LbKind::Ops);
    let mut failing = base.clone();
    failing.failures.push(Failure {
        link: "tor0.up0".into(),
        at_us: 5.0,
        for_us: Some(100.0),
        gbps: None,
        ..Default::default()
    });
    let (a, b) = (run(&base), run(&failing));
    assert_eq!(cause(&a, "link_down"), 0);
    assert!(cause(&b, "link_down") > 0, "{:?}", b.summary.drops_by_cause);
    assert!(b.summary.drops > a.summary.drops);
    assert!(
        b.summary.max_fct_ps > a.summary.max_fct_ps,
        "max FCT {} (failure) vs {} (healthy)",
        b.summary.max_fct_ps,
        a.summary.max_fct_ps
    );
    assert_eq!(b.summary.flows_completed, 32);
    let down = b.links.iter().find(|l| l.link == "tor0.up0").unwrap();
    assert!(down.drops > 0);
    assert_conserved(&b);
}

#[test]
fn a_slower_link_lowers_its_utilization_share() {
    let mut s = scenario(2, 8, 1 << 20, LbKind::Ops);
    s.failures.push(Failure {
        link: "spine0.down1".into(),
        at_us: 0.0,
        for_us: None,
        gbps: Some(100.0),
        ..Default::default()
    });
    let r = run(&s);
    assert_eq!(r.summary.flows_completed, 32);
    let slow = r.links.iter().find(|l| l.link == "spine0.down1").unwrap();
    let peer = r.links.iter().find(|l| l.link == "spine1.down1").unwrap();
    // Both directions of the cable change rate.
    let slow_up = r.links.iter().find(|l| l.link == "tor1.up0").unwrap();
    assert!(slow.tx_bytes > 0 && slow_up.tx_bytes > 0);
    assert!(
        slow.utilization <= 0.3,
        "100G of 400G: {}",
        slow.utilization
    );
    assert!(peer.utilization > slow.utilization);
}

/// Stopping at `stop.max_time_us` leaves packets in flight; they are all accounted for.
#[test]
fn conservation_with_packets_in_flight_at_the_end() {
    let mut s = scenario(3, 4, 2 << 20, LbKind::Ecmp);
    s.stop.max_time_us = 30.0;
    s.failures.push(Failure {
        link: "agg0.up1".into(),
        at_us: 10.0,
        for_us: None,
        gbps: None,
        ..Default::default()
    });
    let r = run(&s);
    assert_eq!(r.summary.end_time_ps, 30_000_000);
    assert!(r.summary.flows_completed < r.summary.flows);
    assert!(extra(&r, "data_in_flight_end") > 0);
    assert!(r.flows.iter().any(|f| f.end_ps == 0 && f.fct_ps == 0));
    assert_conserved(&r);
}

#[test]
fn stop_flag_and_progress_are_honoured() {
    let s = scenario(3, 4, 256 << 10, LbKind::Ops);
    let calls = AtomicUsize::new(0);
    let progress = |p: sim_harness::results::Progress| {
        assert!(p.flows_done <= p.flows_total);
        calls.fetch_add(1, Ordering::Relaxed);
    };
    let r = simulate(
        &s,
        &RunControl {
            progress: Some(&progress),
            stop: None,
            trace_dir: None,
        },
    )
    .unwrap();
    assert_eq!(r.summary.flows_completed, 16);
    assert!(calls.load(Ordering::Relaxed) >= 1);
    let stop = AtomicBool::new(true);
    let r = simulate(
        &s,
        &RunControl {
            progress: None,
            stop: Some(&stop),
            trace_dir: None,
        },
    )
    .unwrap();
    assert_eq!(r.summary.flows_completed, 0);
    assert_eq!(extra(&r, "interrupted"), 1);
    assert_eq!(r.flows.len(), 16, "partial results list every flow");
}

#[test]
fn workloads_run_end_to_end() {
    for (kind, flows) in [
        (WorkloadKind::Tornado, 16u64),
        (WorkloadKind::Incast, 4),
        (WorkloadKind::AllToAll, 16 * 15),
    ] {
        let mut s = scenario(3, 4, 64 << 10, LbKind::Ops);
        s.workload.kind = kind;
        s.workload.degree = 4;
        let r = run(&s);
        assert_eq!(r.summary.flows, flows, "{kind:?}");
        assert_eq!(r.summary.flows_completed, flows, "{kind:?}");
        assert_conserved(&r);
    }
    let mut s = scenario(2, 8, 1, LbKind::Ops);
    s.workload.kind = WorkloadKind::Websearch;
    s.workload.flows = 200;
    s.workload.load = 0.3;
    let r = run(&s);
    assert_eq!(r.summary.flows_completed, 200);
    assert!(r.flows.windows(2).all(|w| w[0].start_ps <= w[1].start_ps));
    assert!(r.flows.iter().any(|f| f.start_ps > 0));
}

fn field_error(s: &Scenario) -> (String, String) {
    match simulate(s, &RunControl::default()) {
        Err(Error::Field { field, problem }) => (field, problem),
        other => panic!("expected a field error, got {:?}", other.map(|r| r.summary)),
    }
}

#[test]
fn bad_scenarios_name_the_field() {
    let mut s = scenario(2, 8, 1000, LbKind::Ops);
    s.failures.push(Failure {
        link: "tor0.up9".into(),
        at_us: 1.0,
        for_us: None,
        gbps: None,
        ..Default::default()
    });
    let (f, p) = field_error(&s);
    assert_eq!(f, "failures[0].link");
    assert!(p.contains("tor0.up9"), "{p}");

    let mut s = scenario(2, 8, 1000, LbKind::Ops);
    s.topology.kind = sim_harness::scenario::TopologyKind::SingleTor;
    assert_eq!(field_error(&s).0, "topology.kind");

    let mut s = scenario(2, 8, 1000, LbKind::Ops);
    s.workload.kind = WorkloadKind::Llm;
    // Table 1's smallest configuration needs 64 GPUs: 8 hosts are too few.
    assert_eq!(field_error(&s).0, "topology.hosts");

    let mut s = scenario(2, 8, 1000, LbKind::Ops);
    s.topology.ecn_kmin = 0.9;
    assert!(field_error(&s).0.starts_with("topology.ecn_k"));

    let mut s = scenario(2, 8, 1000, LbKind::Ops);
    s.topology.buffer = Size::Bytes(4000);
    assert_eq!(field_error(&s).0, "topology.buffer");
}
