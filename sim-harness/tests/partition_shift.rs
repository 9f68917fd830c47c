//! Shifting a paused partition in time (DESIGN.md "partition", Wormhole fast-forward): a flow
//! whose ports and flow state are paused mid-run and moved `delta` later ends exactly as the
//! same flow started `delta` later, packet for packet.

use sim_harness::engine::Sim;
use sim_harness::scenario::{CcKind, LbKind, Scenario, Size, WorkloadKind};
use sim_harness::{validate::validate, RunControl, RunResult};

/// One flow (an incast of degree 1) of 2 MiB on a 2-tier radix-4 fat tree (8 hosts), REPS.
fn one_flow(lb: LbKind) -> Scenario {
    let mut s = Scenario {
        name: "partition_shift".into(),
        ..Scenario::default()
    };
    s.topology.tiers = 2;
    s.topology.radix = 4;
    s.workload.kind = WorkloadKind::Incast;
    s.workload.degree = 1;
    s.workload.message = Size::Bytes(2 << 20);
    s.transport.lb = lb;
    // Output that records absolute times for the whole run, not per partition: off.
    s.output.queue_sample_us = 0.0;
    s.output.selection_bucket_us = 0.0;
    validate(&s).unwrap();
    s
}

fn shifted(s: &Scenario, pause_at: u64, delta: u64) -> RunResult {
    let ctl = RunControl::default();
    let mut sim = Sim::build(s).unwrap();
    sim.run_until(pause_at, &ctl);
    let ports: Vec<u32> = (0..sim.port_count()).collect();
    sim.shift_partition(&ports, &[0], delta);
    sim.run(&ctl);
    sim.results(s)
}

fn offset(s: &Scenario, delta: u64) -> RunResult {
    let mut sim = Sim::build(s).unwrap();
    sim.delay_starts(delta);
    sim.run(&RunControl::default());
    sim.results(s)
}

/// Mid-flow (about 42 us at 400 Gb/s): packets on the wire and a timer armed.
const PAUSE_AT: u64 = 20_000_000;

/// Shift the whole of `s`'s one flow (all ports) at [`PAUSE_AT`] by `delta` and check it
/// ends exactly like the run offset by `delta`, and that another delta ends elsewhere.
/// `delta` must be a whole number of cycles of every clock whose origin stays at 0 in the
/// offset run, else the two runs quantize differently.
fn check(s: &Scenario, delta: u64, what: &str) -> RunResult {
    let pause_at = PAUSE_AT;
    let (a, b) = (shifted(s, pause_at, delta), offset(s, delta));
    assert_eq!(a.flows.len(), 1);
    let (fa, fb) = (&a.flows[0], &b.flows[0]);
    assert!(
        fa.end_ps > delta + pause_at,
        "{what}: completed after the shift"
    );
    assert_eq!(fa.end_ps, fb.end_ps, "{what}");
    assert_eq!(fa.fct_ps, fb.fct_ps + delta, "{what}: paused for delta");
    assert_eq!(
        (
            fa.packets_sent,
            fa.retransmits,
            fa.ecn_acks,
            fa.out_of_order
        ),
        (
            fb.packets_sent,
            fb.retransmits,
            fb.ecn_acks,
            fb.out_of_order
        ),
        "{what}"
    );
    assert_eq!(a.links, b.links, "{what}: every port carried the same");
    assert_eq!(a.summary.end_time_ps, b.summary.end_time_ps, "{what}");
    assert_eq!(a.summary.drops, b.summary.drops, "{what}");
    assert_eq!(a.summary.ecn_marks, b.summary.ecn_marks, "{what}");
    // Not a vacuous comparison: a shift of a different size ends elsewhere.
    let c = shifted(s, pause_at, delta + 1_000_000);
    assert_eq!(c.flows[0].end_ps, fb.end_ps + 1_000_000, "{what}");
    b
}

#[test]
fn shifted_partition_equals_offset_run() {
    for lb in [LbKind::Reps, LbKind::Ops] {
        // Delta a whole number of NIC cycles and not of anything else.
        check(&one_flow(lb), 7_654_321_000, &format!("{lb:?}"));
    }
}

/// A DCSIM flow: its hosts' engines, receivers and timers move with the partition.
#[test]
fn shifted_dcsim_partition_equals_offset_run() {
    let mut s = one_flow(LbKind::Reps);
    s.transport.cc = CcKind::Dcsim;
    validate(&s).unwrap();
    // A whole number of NIC cycles (1 ns) and of the DCSIM ports' cycles (8 bytes at
    // 400 Gb/s: 160 ps), and 1 ms (the other delta) is too.
    let delta = 7_654_320_000;
    let b = check(&s, delta, "dcsim");
    let x = &b.summary.extra;
    assert!(x["sims_sent"] > 0.0 && x["data_acks_sent"] > 0.0, "{x:?}");
    let shifted_run = shifted(&s, PAUSE_AT, delta);
    for key in [
        "sims_sent",
        "sim_acks_sent",
        "data_acks_sent",
        "sim_timeouts",
        "data_timeouts",
    ] {
        assert_eq!(shifted_run.summary.extra[key], x[key], "dcsim: {key}");
    }
}

/// A DCTCP flow through switch ports with phantom queues, which mark it: each queue's
/// synced cycle moves with its port's clock, so it drains nothing over the shift.
#[test]
fn shifted_phantom_partition_equals_offset_run() {
    let mut s = one_flow(LbKind::Reps);
    s.topology.phantom_queue = true;
    validate(&s).unwrap();
    let b = check(&s, 7_654_321_000, "phantom");
    assert!(
        b.summary.ecn_marks > 0,
        "the phantom queues marked the flow"
    );
}

/// A Uno flow (UnoCC paced, UnoLB's subflows; packet units and erasure-coded blocks) through
/// switch ports with phantom queues (Uno 4.1.3): its sender's send times and timeout FIFO,
/// its receiver's block timers and arrival gap, and the send stamps its packets in flight
/// carry (the RTT UnoCC reads, and the queueing delay the metrics read) move with the
/// partition, so it ends exactly as the offset run (Wormhole 6.2), its packets' queueing
/// delays included (without the stamps' shift the packets in flight at the pause count the
/// shifted time as queueing delay, and their ACKs as RTT).
#[test]
fn shifted_uno_partition_equals_offset_run() {
    for ec in [false, true] {
        let mut s = one_flow(LbKind::Reps);
        s.transport.cc = CcKind::Uno;
        s.transport.lb = LbKind::Unolb;
        s.transport.uno.ec_intra = ec;
        s.topology.phantom_queue = true;
        validate(&s).unwrap();
        // A whole number of NIC cycles (1 ns) and of send-stamp units (16 ps).
        let b = check(&s, 7_654_320_000, &format!("uno ec {ec}"));
        let x = &b.summary.extra;
        assert_eq!(x["uno_blocks_decoded"] > 0.0, ec, "{x:?}");
        let shifted_run = shifted(&s, PAUSE_AT, 7_654_320_000);
        for key in [
            "uno_blocks_decoded",
            "uno_parity_sent",
            "uno_qa_events",
            "uno_md_events",
            "uno_gentle_md_events",
            "uno_sender_timeouts",
            "mean_queueing_delay_ps",
            "max_queueing_delay_ps",
        ] {
            assert_eq!(shifted_run.summary.extra[key], x[key], "uno ec {ec}: {key}");
        }
    }
}
