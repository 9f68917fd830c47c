//! Engine hardening (issue 9): output settings never change simulated results (not even when a
//! run stalls), failures on one link compose, and slow links serialize as slowly as configured.
//! Small fat trees, so each run takes well under a second in the dev profile.

use sim_harness::scenario::{Failure, PhantomMarkOn, PortRole, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, RunControl, RunResult};

/// A 2-tier fat tree of radix 4 (8 hosts), a permutation of 64 KiB messages.
fn small() -> Scenario {
    let mut s = Scenario {
        name: "engine_hardening".into(),
        ..Scenario::default()
    };
    s.topology.tiers = 2;
    s.topology.radix = 4;
    s.workload.kind = WorkloadKind::Permutation;
    s.workload.message = Size::Bytes(64 * 1024);
    s.transport.rto_us = RTO_US as f64;
    s
}

/// RTO of [`small`], us (above its 11 us base RTT).
const RTO_US: u64 = 15;

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

/// Everything a run simulates, without what output settings decide: queue samples, the
/// uplink selection table, wall-clock fields and the collective metrics defined per sampling
/// interval (`metrics_interval_ps` is `output.queue_sample_us`, and `reorder_per_interval` is
/// per that interval). The event count stays in: the samplers' ticks are not counted.
fn simulated(r: &RunResult) -> String {
    let mut m = r.summary.clone();
    m.wall_s = 0.0;
    m.events_per_s = 0.0;
    m.data_packets_per_s = 0.0;
    m.extra.remove("metrics_interval_ps");
    m.extra.remove("reorder_per_interval");
    // Derived from the rate series (`output.rate_sample_us`).
    m.extra.remove("jain_index_final");
    m.extra.remove("jain_index_mean");
    m.extra.remove("converge_10pct_us");
    format!("{m:?}\n{:?}\n{:?}", r.flows, r.links)
}

/// [`simulated`] without the event count: for runs that differ by scheduled events of their
/// own (two failures where one would do).
fn simulated_but_events(r: &RunResult) -> String {
    let mut r = r.clone();
    r.summary.events = 0;
    simulated(&r)
}

fn stalled(r: &RunResult) -> bool {
    r.summary.extra.get("stalled") == Some(&1.0)
}

/// `output.queue_sample_us` (1 / 10 / 0), `output.selection_bucket_us` (10 / 3 / 0) and
/// `output.rate_sample_us` (0 / 2 / 0.5) change no simulated result, in a run that completes
/// and in one that stalls (a host link down from t = 0: its flows never finish), not even
/// `events` (before session 37 it counted the samplers' ticks). The queue samples are the
/// same with and without rate samples.
#[test]
fn output_settings_do_not_change_results() {
    let mut down = small();
    down.failures.push(Failure {
        link: "host0".into(),
        at_us: 0.0,
        for_us: None,
        gbps: None,
        ..Default::default()
    });
    for (name, base) in [("complete", small()), ("stalled", down)] {
        let mut reference = None;
        for (sample, bucket, rate) in [(1.0, 10.0, 0.0), (10.0, 3.0, 2.0), (0.0, 0.0, 0.5)] {
            let mut s = base.clone();
            s.output.queue_sample_us = sample;
            s.output.selection_bucket_us = bucket;
            s.output.rate_sample_us = rate;
            let r = run(&s);
            assert_eq!(r.rates.is_empty(), rate == 0.0, "{name}: rates.csv rows");
            if sample > 0.0 {
                // The same queue samples without rate samples.
                let mut q = s.clone();
                q.output.rate_sample_us = 0.0;
                assert_eq!(run(&q).queues, r.queues, "{name}: queue samples");
            }
            assert_eq!(stalled(&r), name == "stalled", "{name}: stalled flag");
            if sample > 0.0 && name == "stalled" {
                assert!(!r.queues.is_empty() || r.summary.events > 0);
            }
            let got = simulated(&r);
            match &reference {
                None => reference = Some(got),
                Some(want) => assert_eq!(
                    &got, want,
                    "{name}: queue_sample_us = {sample}, selection_bucket_us = {bucket}, \
                     rate_sample_us = {rate}"
                ),
            }
        }
    }
}

/// A run that stalls stops at exactly the last progress plus the stall window, and says so.
#[test]
fn stalled_run_stops_and_says_so() {
    let mut s = small();
    s.failures.push(Failure {
        link: "host0".into(),
        at_us: 0.0,
        for_us: None,
        gbps: None,
        ..Default::default()
    });
    let r = run(&s);
    assert!(stalled(&r));
    assert!(r.summary.flows_completed < r.summary.flows);
    // 2000 RTOs after the last progress (the last ACK of a flow that completed, or later).
    let window = 2000 * RTO_US * 1_000_000;
    let last_end = r.flows.iter().map(|f| f.end_ps).max().unwrap();
    assert!(r.summary.end_time_ps >= last_end + window);
    assert!(r.summary.end_time_ps <= last_end + window + RTO_US * 1_000_000);
}

/// Two failures overlapping on one link (10-110 us and 20-30 us) hold it down like the outer
/// one alone: the inner one's end must not bring the link up.
#[test]
fn overlapping_failures_compose() {
    let fail = |at_us: f64, for_us: f64| Failure {
        link: "tor0.up0".into(),
        at_us,
        for_us: Some(for_us),
        gbps: None,
        ..Default::default()
    };
    let mut one = small();
    one.workload.message = Size::Bytes(512 * 1024);
    one.failures.push(fail(10.0, 100.0));
    let mut two = one.clone();
    two.failures.push(fail(20.0, 10.0));
    let (a, b) = (run(&one), run(&two));
    assert!(
        a.summary.drops_by_cause["link_down"] > 0,
        "the failure drops packets"
    );
    assert_eq!(simulated_but_events(&a), simulated_but_events(&b));
    assert_eq!(
        a.summary.events,
        b.summary.events - 2,
        "two more failure events"
    );

    // Rate changes compose too: an inner rate change ending restores the outer one's rate,
    // not the link's base rate.
    let slow = |at_us: f64, for_us: f64, gbps: f64| Failure {
        link: "tor0.up0".into(),
        at_us,
        for_us: Some(for_us),
        gbps: Some(gbps),
        ..Default::default()
    };
    let mut one = small();
    one.workload.message = Size::Bytes(512 * 1024);
    one.failures.push(slow(10.0, 100.0, 10.0));
    let mut two = one.clone();
    two.failures.push(slow(20.0, 10.0, 10.0));
    let (a, b) = (run(&one), run(&two));
    assert_eq!(simulated_but_events(&a), simulated_but_events(&b));
}

/// A link below 8 Mb/s serializes more slowly than a faster one (the ps-per-byte product
/// used to overflow u64 there, making 5 Mb/s faster than 10 Mb/s).
#[test]
fn slow_links_do_not_overflow_serialization() {
    let fct = |gbps: f64| {
        let mut s = small();
        s.workload.kind = WorkloadKind::Incast;
        s.workload.degree = 1;
        s.workload.message = Size::Bytes(8192);
        s.transport.rto_us = 1_000_000.0;
        s.topology.link_gbps = gbps;
        s.topology.buffer = Size::Bytes(1 << 20);
        s.output.queue_sample_us = 0.0;
        s.output.selection_bucket_us = 0.0;
        let r = run(&s);
        assert_eq!(r.summary.flows_completed, 1, "{gbps} Gb/s completes");
        r.summary.max_fct_ps
    };
    // 10 Mb/s is the slowest rate validation allows (`units.rs`); the old `bytes * ser_q32`
    // in u64 came within 25% of overflowing there and overflowed below about 8 Mb/s.
    let (f10, f20) = (fct(0.01), fct(0.02));
    assert!(
        f10 > f20,
        "10 Mb/s FCT {f10} ps must exceed 20 Mb/s FCT {f20} ps"
    );
    // Two packets of 4160 bytes at 10 Mb/s take at least 6.6 ms to serialize at the source.
    assert!(f10 > 6_600_000_000, "{f10}");
}

/// [`small`] as a 4-to-1 incast of 256 KiB (congestion at the receiver's ToR downlink), no
/// queue samples: the phantom-queue tests' load.
fn incast4() -> Scenario {
    let mut s = small();
    s.workload.kind = WorkloadKind::Incast;
    s.workload.degree = 4;
    s.workload.message = Size::Bytes(256 * 1024);
    s.output.queue_sample_us = 0.0;
    s
}

/// `topology.phantom_queue` puts a phantom queue (draining at 0.9 of the line rate) on every
/// switch port: an incast then gets ECN marks earlier, so more marks than on the real queue;
/// off (the default) is today's port.
#[test]
fn phantom_queue_is_selectable() {
    let mut s = incast4();
    let off = run(&s);
    s.topology.phantom_queue = true;
    let on = run(&s);
    assert_eq!(on.summary.flows_completed, on.summary.flows);
    assert!(
        on.summary.ecn_marks > off.summary.ecn_marks,
        "phantom {} marks vs real queue {}",
        on.summary.ecn_marks,
        off.summary.ecn_marks
    );
    s.topology.phantom_drain = 0.0;
    assert!(simulate(&s, &RunControl::default()).is_err());
}

/// The phantom queue is chosen per port (by role, `topology.phantom_ports`) and so is what
/// drives the marks (`topology.phantom_mark_on`): an incast's congested ToR downlink alone
/// with a phantom queue marks more than no phantom queue; a role this 2-tier fabric does not
/// have (aggregation uplinks), or phantom queues that only observe (`physical`), leave the run
/// bit-identical to no phantom queue; an empty selection is refused.
#[test]
fn phantom_queue_is_selectable_per_port() {
    let mut s = incast4();
    let off = run(&s);
    s.topology.phantom_queue = true;
    s.topology.phantom_ports = vec![PortRole::TorDown];
    let tor_down = run(&s);
    assert!(
        tor_down.summary.ecn_marks > off.summary.ecn_marks,
        "phantom on ToR downlinks {} marks vs none {}",
        tor_down.summary.ecn_marks,
        off.summary.ecn_marks
    );
    s.topology.phantom_ports = vec![PortRole::AggUp];
    assert_eq!(
        simulated(&run(&s)),
        simulated(&off),
        "no agg ports in 2 tiers"
    );
    s.topology.phantom_ports = PortRole::SWITCH.to_vec();
    s.topology.phantom_mark_on = PhantomMarkOn::Physical;
    assert_eq!(
        simulated(&run(&s)),
        simulated(&off),
        "phantom only observed"
    );
    s.topology.phantom_mark_on = PhantomMarkOn::Both;
    assert!(run(&s).summary.ecn_marks >= tor_down.summary.ecn_marks);
    s.topology.phantom_ports.clear();
    let e = simulate(&s, &RunControl::default()).expect_err("empty selection");
    assert!(e.to_string().contains("topology.phantom_ports"), "{e}");
}
