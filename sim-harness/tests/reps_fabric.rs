//! REPS end to end in the fabric (REPS paper section 4.3): small instances of the three
//! micro benchmarks of `scenarios/reps_*.toml`, each run under ECMP / OPS / REPS on the same
//! seed, asserting the direction and rough size of the paper's results.
//!
//! Setup as in section 4.1 (400 Gb/s, 4 KiB MTU, 500 ns links, 500 ns switches, 1-BDP
//! buffers, K_min 20% / K_max 80%, RTO 70 us), on smaller trees and messages so each run
//! takes well under a second in the dev profile.

mod fabric;
use fabric::run_lb as run;
use sim_harness::lb_stats::{SELECTION_COLUMNS, SELECTION_TABLE};
use sim_harness::scenario::{Failure, LbKind, Scenario, WorkloadKind};
use sim_harness::RunResult;

/// Section 4.1 parameters on a 2-tier fat tree of radix `radix` ([`fabric::reps_paper_setup`]).
fn paper_setup(radix: u32, message: u64, kind: WorkloadKind) -> Scenario {
    let mut s = fabric::reps_paper_setup("reps_fabric_test", radix, message, kind);
    s.output.selection_bucket_us = 10.0;
    s
}

fn us(ps: u64) -> f64 {
    ps as f64 / 1e6
}

fn extra(r: &RunResult, k: &str) -> f64 {
    *r.summary
        .extra
        .get(k)
        .unwrap_or_else(|| panic!("no extra {k}"))
}

/// DATA packets the ToR chose `port` for in buckets starting in `[t0_us, t1_us)`, and the
/// same over every uplink of that ToR.
fn selected(r: &RunResult, port: &str, t0_us: f64, t1_us: f64) -> (u64, u64) {
    let t = &r.tables[SELECTION_TABLE];
    assert_eq!(t.header, SELECTION_COLUMNS);
    let tor = format!("{}.", port.split('.').next().unwrap());
    let (mut mine, mut all) = (0, 0);
    for row in &t.rows {
        let at: f64 = row[0].parse().unwrap();
        if at < t0_us || at >= t1_us || !row[1].starts_with(&tor) {
            continue;
        }
        let n: u64 = row[2].parse().unwrap();
        all += n;
        if row[1] == port {
            mine += n;
        }
    }
    (mine, all)
}

fn share(r: &RunResult, port: &str, t0_us: f64, t1_us: f64) -> f64 {
    let (mine, all) = selected(r, port, t0_us, t1_us);
    assert!(
        all > 0,
        "no DATA through {port}'s ToR in [{t0_us}, {t1_us}) us"
    );
    mine as f64 / all as f64
}

/// Section 4.3.1: tornado and permutation on a healthy 2-tier tree (32 hosts, 4 uplinks
/// per ToR, 4 MiB). REPS finishes no later than OPS (the paper: up to 25% better; Figure 2:
/// about 4% on a 16 MiB tornado) with fewer ECN marks (REPS keeps queues below K_min), and
/// both far ahead of ECMP, whose flow collisions halve or worse some flows' rate.
#[test]
fn symmetric_reps_matches_ops_and_beats_ecmp() {
    for kind in [WorkloadKind::Tornado, WorkloadKind::Permutation] {
        let s = paper_setup(8, 4 << 20, kind);
        let (ecmp, ops, reps) = (
            run(&s, LbKind::Ecmp),
            run(&s, LbKind::Ops),
            run(&s, LbKind::Reps),
        );
        let (e, o, r) = (
            ecmp.summary.max_fct_ps,
            ops.summary.max_fct_ps,
            reps.summary.max_fct_ps,
        );
        let msg = format!(
            "{kind:?}: max FCT ECMP {:.1} us, OPS {:.1} us, REPS {:.1} us",
            us(e),
            us(o),
            us(r)
        );
        assert!(r as f64 <= o as f64 * 1.05, "REPS <= 1.05 x OPS; {msg}");
        assert!(e as f64 >= r as f64 * 1.3, "ECMP >= 1.3 x REPS; {msg}");
        assert!(
            reps.summary.ecn_marks < ops.summary.ecn_marks,
            "REPS marks {} < OPS marks {}; {msg}",
            reps.summary.ecn_marks,
            ops.summary.ecn_marks
        );
        // REPS ran its algorithm: most EVs recycled from ACK echoes, no failure suspected.
        assert!(extra(&reps, "reps_recycled") > 0.8 * reps.summary.data_packets as f64);
        assert_eq!(extra(&reps, "reps_freezes"), 0.0);
        assert!(!ops.summary.extra.contains_key("reps_recycled"));
    }
}

/// Section 4.3.2 micro benchmark: 4 senders under ToR 0 send 8 MiB each to 4 receivers
/// under ToR 1 through 4 uplinks, one of them at 200 Gb/s. OPS keeps choosing each uplink
/// equally and is held to 4 x 200 Gb/s; REPS recycles fewer entropies of the marked slow
/// path and approaches 3 x 400 + 200 Gb/s (paper: 799 us vs 1400 us, 0.57x).
#[test]
fn asymmetric_reps_avoids_the_slow_uplink() {
    let mut s = paper_setup(8, 8 << 20, WorkloadKind::Tornado);
    s.topology.hosts = 8;
    s.workload.one_way = true;
    s.failures.push(Failure {
        link: "tor0.up0".into(),
        at_us: 0.0,
        for_us: None,
        gbps: Some(200.0),
        ..Default::default()
    });
    let (ops, reps) = (run(&s, LbKind::Ops), run(&s, LbKind::Reps));
    assert_eq!(reps.summary.flows, 4);
    let (o, r) = (ops.summary.max_fct_ps, reps.summary.max_fct_ps);
    let end = us(o.max(r));
    let (so, sr) = (
        share(&ops, "tor0.up0", 0.0, end),
        share(&reps, "tor0.up0", 0.0, end),
    );
    let msg = format!(
        "max FCT OPS {:.1} us, REPS {:.1} us; slow-uplink share OPS {so:.3}, REPS {sr:.3}",
        us(o),
        us(r)
    );
    assert!(r as f64 <= 0.85 * o as f64, "REPS <= 0.85 x OPS; {msg}");
    assert!(
        (0.2..0.3).contains(&so),
        "OPS sprays evenly over 4 uplinks; {msg}"
    );
    assert!(sr <= 0.8 * so, "REPS uses the slow uplink less; {msg}");
    // Only ToR 0's hosts send: ToR 1's uplinks carry no DATA.
    assert_eq!(selected(&reps, "tor1.up0", 0.0, end).1, 0);
}

/// Section 4.3.3 micro benchmark, scaled down: a permutation of 8 MiB messages on 64 hosts
/// (4 ToRs with 8 uplinks each) with two failures of ToR 0's uplinks, a shorter one (100 us
/// from t = 20 us) and a longer one (150 us from t = 150 us). REPS stops choosing a failed
/// uplink (its entropies stop coming back, and freezing mode stops exploring), finishes
/// well before OPS and drops fewer packets (paper, 64 MiB on a larger tree: more than 35%
/// faster, 2.5x fewer drops). Without freezing mode REPS still beats OPS (Appendix C.4).
#[test]
fn failures_reps_stops_choosing_the_failed_uplink() {
    let mut s = paper_setup(16, 8 << 20, WorkloadKind::Permutation);
    s.topology.hosts = 64;
    let fails = [("tor0.up0", 20.0, 100.0), ("tor0.up1", 150.0, 150.0)];
    for (link, at, dur) in fails {
        s.failures.push(Failure {
            link: link.into(),
            at_us: at,
            for_us: Some(dur),
            gbps: None,
            ..Default::default()
        });
    }
    let (ops, reps) = (run(&s, LbKind::Ops), run(&s, LbKind::Reps));
    let (o, r) = (ops.summary.max_fct_ps, reps.summary.max_fct_ps);
    let (dop, drp) = (ops.summary.drops, reps.summary.drops);
    let msg = format!(
        "max FCT OPS {:.1} us, REPS {:.1} us; drops OPS {dop}, REPS {drp}",
        us(o),
        us(r)
    );
    assert!(r as f64 <= 0.8 * o as f64, "REPS much faster; {msg}");
    assert!(drp as f64 * 1.25 <= dop as f64, "REPS drops fewer; {msg}");
    // REPS detected the failures (Appendix A) and froze.
    assert!(extra(&reps, "failure_detections") > 0.0, "{msg}");
    assert!(extra(&reps, "reps_freezes") > 0.0, "{msg}");
    // From one RTO after each failure starts until it ends, OPS keeps spraying about 1/8
    // of ToR 0's DATA onto the failed uplink; REPS hardly ever chooses it.
    for (link, at, dur) in fails {
        let (t0, t1) = (at + s.transport.rto_us, at + dur);
        let (so, sr) = (share(&ops, link, t0, t1), share(&reps, link, t0, t1));
        assert!(so >= 0.05, "OPS is oblivious: {link} share {so:.3}; {msg}");
        assert!(
            sr <= so / 4.0,
            "{link} in [{t0}, {t1}) us: REPS share {sr:.4}, OPS share {so:.3}; {msg}"
        );
    }
    // Drops at a down link are counted at its ports: both directions of each failed cable.
    let failed_ports = ["tor0.up0", "spine0.down0", "tor0.up1", "spine1.down0"];
    for r in [&ops, &reps] {
        let at_failed: u64 = r
            .links
            .iter()
            .filter(|l| failed_ports.contains(&l.link.as_str()))
            .map(|l| l.drops)
            .sum();
        let link_down = r.summary.drops_by_cause["link_down"];
        assert!(link_down > 0);
        assert!(at_failed >= link_down, "{at_failed} < {link_down}");
        let elsewhere = r.summary.drops - at_failed;
        assert!(elsewhere <= r.summary.drops - link_down);
    }
    // Appendix C.4: freezing mode off still beats OPS, and never freezes.
    let mut nf = s.clone();
    nf.transport.reps.freezing = false;
    let nofreeze = run(&nf, LbKind::Reps);
    assert_eq!(extra(&nofreeze, "reps_freezes"), 0.0);
    assert!(extra(&nofreeze, "reps_failures_ignored") > 0.0);
    assert!(
        nofreeze.summary.max_fct_ps < o,
        "REPS without freezing {:.1} us; {msg}",
        us(nofreeze.summary.max_fct_ps)
    );
}

/// The selection table counts every DATA packet a ToR routes up, once, in the bucket of
/// its routing time; `selection_bucket_us = 0` turns it off.
#[test]
fn selection_table_accounts_for_every_packet_sent_up() {
    let mut s = paper_setup(8, 1 << 20, WorkloadKind::Tornado);
    s.output.selection_bucket_us = 5.0;
    let r = run(&s, LbKind::Reps);
    let t = &r.tables[SELECTION_TABLE];
    // Tornado on 32 hosts: every flow leaves its ToR, so each DATA packet is chosen once at
    // its source ToR (2 tiers: a ToR only routes up traffic of its own hosts).
    let total: u64 = t
        .rows
        .iter()
        .map(|row| row[2].parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, r.summary.data_packets);
    let bytes: u64 = t
        .rows
        .iter()
        .map(|row| row[3].parse::<u64>().unwrap())
        .sum();
    let mtu_wire = 4096 + s.transport.header_bytes as u64;
    assert!(bytes <= total * mtu_wire && bytes > total * (mtu_wire / 2));
    // Buckets are 5 us apart and every uplink (8 ToRs x 4) appears in each.
    let times: std::collections::BTreeSet<String> = t.rows.iter().map(|r| r[0].clone()).collect();
    assert!(times.contains("0") && times.contains("5") && times.contains("10"));
    assert_eq!(t.rows.len(), times.len() * 32);
    s.output.selection_bucket_us = 0.0;
    assert!(!run(&s, LbKind::Reps).tables.contains_key(SELECTION_TABLE));
}
