//! Uno end to end in the fabric (Uno sections 4-5): the transport (`cc = "uno"`, UnoRC,
//! UnoLB) and its baselines (`"gemini"`, `"mprdma_bbr"`) on small instances, each
//! asserting the direction of a paper result. Every run takes well under a second or two
//! in the dev profile.

use sim_harness::scenario::{CcKind, Failure, LbKind, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, RunControl, RunResult};

/// A 2-tier fat tree of radix 4 (8 hosts) at 100 Gb/s, 4 KiB MTU, 1 MiB buffers,
/// RED 25% / 75% (Uno 5.1), `kind` workload of `message` bytes.
fn fat_tree(message: u64, kind: WorkloadKind) -> Scenario {
    let mut s = Scenario {
        name: "uno_test".into(),
        seed: 1,
        ..Scenario::default()
    };
    let t = &mut s.topology;
    t.tiers = 2;
    t.radix = 4;
    t.link_gbps = 100.0;
    t.link_delay_ns = 1000;
    t.switch_latency_ns = 500;
    t.buffer = Size::Bytes(1 << 20);
    t.ecn_kmin = 0.25;
    t.ecn_kmax = 0.75;
    s.transport.mtu = 4096;
    s.workload.kind = kind;
    s.workload.message = Size::Bytes(message);
    s.output.queue_sample_us = 0.0;
    s
}

fn run(s: &Scenario) -> RunResult {
    let r = simulate(s, &RunControl::default()).expect("run");
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "{:?}/{:?}: every flow completes",
        s.transport.cc, s.transport.lb
    );
    r
}

fn extra(r: &RunResult, k: &str) -> f64 {
    *r.summary
        .extra
        .get(k)
        .unwrap_or_else(|| panic!("no extra {k}"))
}

#[test]
fn each_uno_transport_completes_deterministically() {
    for (cc, lb) in [
        (CcKind::Uno, LbKind::Unolb),
        (CcKind::Uno, LbKind::Ops),
        (CcKind::Gemini, LbKind::Ops),
        (CcKind::MprdmaBbr, LbKind::Ops),
    ] {
        let mut s = fat_tree(256 * 1024, WorkloadKind::Permutation);
        s.transport.cc = cc;
        s.transport.lb = lb;
        let a = run(&s);
        let b = run(&s);
        assert_eq!(a.flows, b.flows, "{cc:?}: same seed, same flows");
        assert_eq!(a.summary.max_fct_ps, b.summary.max_fct_ps);
        assert!(
            a.summary.data_packets >= 8 * 64,
            "{cc:?}: every packet sent"
        );
        // No loss in a permutation: nothing retransmitted, no block NACKed.
        assert_eq!(extra(&a, "uno_units_retransmitted"), 0.0, "{cc:?}");
    }
}

/// UnoRC on every flow (`ec_intra`): every block is decoded, a block that lost at most y
/// packets is recovered by the code (no retransmission), and with EC and UnoLB the flows
/// through a failed link finish sooner than spraying without EC (Uno 5.2.3, Fig. 13 A).
#[test]
fn erasure_coding_recovers_blocks_across_a_failed_link() {
    let mut s = fat_tree(512 * 1024, WorkloadKind::Permutation);
    s.transport.cc = CcKind::Uno;
    s.transport.uno.ec_intra = true;
    s.failures.push(Failure {
        link: "tor0.up0".into(),
        at_us: 5.0,
        for_us: None,
        gbps: None,
    });
    s.transport.lb = LbKind::Unolb;
    let ec = run(&s);
    // 8 flows of 128 packets: 16 blocks of 8 each.
    assert_eq!(extra(&ec, "uno_blocks_decoded"), 8.0 * 16.0);
    assert!(
        extra(&ec, "uno_blocks_recovered") > 0.0,
        "the code rebuilt lost data"
    );
    assert!(extra(&ec, "uno_parity_sent") >= 8.0 * 16.0 * 2.0);
    assert_eq!(extra(&ec, "uno_decode_failures"), 0.0);
    assert!(
        extra(&ec, "uno_reroutes") > 0.0,
        "UnoLB left the failed path"
    );

    s.transport.uno.ec = false;
    s.transport.lb = LbKind::Ops;
    let spray = run(&s);
    assert_eq!(extra(&spray, "uno_blocks_decoded"), 0.0);
    let (e, o) = (ec.summary.max_fct_ps, spray.summary.max_fct_ps);
    assert!(
        e < o,
        "Uno + EC + UnoLB ({e} ps) beats spraying without EC ({o} ps) across a failure"
    );
}
