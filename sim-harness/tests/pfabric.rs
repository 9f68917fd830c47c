//! pFabric in the fabric (`transport.cc = "pfabric"`; pFabric, SIGCOMM 2013, section 4, as
//! DCSIM's paper section 4 uses it) on small versions of the shipped DCSIM scenarios (the
//! 3-tier fat tree of k = 4, 16 hosts, collective sizes {2, 4, 8, 16}, as
//! `tests/dcsim_fabric.rs` does):
//!
//! * every flow completes; DATAs and control packets (ACKs, probes) are conserved; every
//!   priority side-table slot is taken back; same seed, same results;
//! * DCSIM's orderings against pFabric (Fig. 7 / Fig. 8): zero DATA loss for DCSIM while
//!   pFabric drops, and DCSIM's mean CCT below pFabric's;
//! * pFabric is near the Ideal (Zeropod's global SRPT with preemption, pFabric's own
//!   reference): never below it, within a small factor on a lightly shared instance;
//! * the buffer follows `[transport.pfabric] buffer` (smaller: more drops);
//! * bad fields and unsupported combinations are refused with the field named.
//!
//! The mechanism (a short flow overtakes a long one at a shared port) is a unit test next
//! to the driver (`transport::pfabric::tests`): it needs flows no workload generates.

mod fabric;

use fabric::{packets_conserved, run, small_dcsim as scenario, x};
use sim_harness::overrides::{load, Source};
use sim_harness::workload::FlowSpec;
use sim_harness::{RunResult, Scenario};
use std::path::PathBuf;

fn pfabric(file: &str, sets: &[&str]) -> Scenario {
    let mut all = vec!["transport.cc=pfabric"];
    all.extend_from_slice(sets);
    scenario(file, &all)
}

fn complete(r: &RunResult) {
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "every flow completes"
    );
    assert_eq!(x(r, "collectives_completed"), x(r, "collectives"));
}

/// DATAs sent = delivered + dropped + in flight; control packets (ACKs and probes) created
/// = delivered + dropped + in flight; the drops are the pFabric ports' (arrivals dropped +
/// buffered packets evicted).
fn conserved(r: &RunResult) {
    packets_conserved(r);
    assert_eq!(
        r.summary.drops as f64,
        x(r, "pfabric_port_drops") + x(r, "pfabric_evictions"),
        "every drop is a pFabric port's"
    );
    assert_eq!(x(r, "pfabric_timeouts"), x(r, "timeouts"));
    assert_eq!(r.summary.retransmits as f64, x(r, "pfabric_retransmits"));
    // Each probe reached its receiver or was dropped (probes ride the priority buffers).
    assert!(x(r, "pfabric_probes_delivered") <= x(r, "pfabric_probes"));
}

#[test]
fn a2av_completes_conserves_and_is_deterministic() {
    let s = pfabric("dcsim_a2av.toml", &[]);
    let a = run(&s);
    complete(&a);
    conserved(&a);
    // 500 KB of 9064-byte packets per port; a window of one BDP (7.8 us at 800 Gb/s).
    assert_eq!(x(&a, "pfabric_buffer_pkts"), 55.0);
    let bdp = x(&a, "bdp_bytes");
    assert_eq!(x(&a, "pfabric_window_pkts"), (bdp / 9000.0).ceil());
    assert!(x(&a, "data_drops") > 0.0, "pFabric drops under a2av");
    assert!(
        x(&a, "pfabric_timeouts") > 0.0,
        "losses are found by timeouts"
    );
    let b = run(&s);
    let timeless = |r: &RunResult| {
        let mut t = r.summary.clone();
        (t.wall_s, t.events_per_s, t.data_packets_per_s) = (0.0, 0.0, 0.0);
        t
    };
    assert_eq!(timeless(&a), timeless(&b), "same seed, same summary");
    assert_eq!(a.flows, b.flows, "same seed, same flows");
}

#[test]
fn a2av_dcsim_is_lossless_and_beats_pfabric() {
    // Fig. 7: DCSIM's CCT below pFabric's, with zero DATA loss where pFabric drops.
    let d = run(&scenario("dcsim_a2av.toml", &[]));
    let p = run(&pfabric("dcsim_a2av.toml", &[]));
    complete(&d);
    complete(&p);
    assert_eq!(x(&d, "data_drops"), 0.0);
    assert!(
        x(&p, "data_loss_rate") > 0.01,
        "{}",
        x(&p, "data_loss_rate")
    );
    let (cd, cp) = (x(&d, "mean_cct_ps"), x(&p, "mean_cct_ps"));
    assert!(cd < cp, "mean CCT: DCSIM {cd} ps, pFabric {cp} ps");
}

#[test]
fn oversubscribed_dcsim_is_lossless_and_far_below_pfabric() {
    // Fig. 8: half the cores at 1%: pFabric loses more than 10% of its DATAs, DCSIM none,
    // and DCSIM's CCT is far lower.
    let d = run(&scenario("dcsim_oversubscribed.toml", &[]));
    let p = run(&pfabric("dcsim_oversubscribed.toml", &[]));
    complete(&d);
    complete(&p);
    conserved(&p);
    assert_eq!(x(&d, "data_drops"), 0.0);
    assert!(
        x(&p, "data_loss_rate") > 0.10,
        "{}",
        x(&p, "data_loss_rate")
    );
    let (cd, cp) = (x(&d, "mean_cct_ps"), x(&p, "mean_cct_ps"));
    assert!(cd < 0.5 * cp, "mean CCT: DCSIM {cd} ps, pFabric {cp} ps");
}

#[test]
fn a_smaller_buffer_drops_more() {
    let big = run(&pfabric(
        "dcsim_a2av.toml",
        &["transport.pfabric.buffer=\"2bdp\""],
    ));
    let small = run(&pfabric(
        "dcsim_a2av.toml",
        &["transport.pfabric.buffer=\"100KB\""],
    ));
    complete(&big);
    complete(&small);
    conserved(&small);
    assert_eq!(x(&small, "pfabric_buffer_pkts"), 11.0);
    assert!(x(&big, "pfabric_buffer_pkts") > 55.0);
    assert!(
        x(&small, "data_loss_rate") > x(&big, "data_loss_rate"),
        "{} vs {}",
        x(&small, "data_loss_rate"),
        x(&big, "data_loss_rate")
    );
}

#[test]
fn pfabric_is_near_the_ideal_and_never_below_it() {
    // A permutation of 1-BDP messages plus an all-to-all of 0.5-BDP ones on the 16 hosts:
    // the Ideal serves every host's uplink and downlink by SRPT with preemption, no
    // headers, on one non-blocking switch (Zeropod's `ideal_fcts`); its FCT plus one base
    // RTT is a lower bound of a DES flow (the DES ends a flow at its last ACK).
    //
    // Measured: permutation 1.05x the Ideal; all-to-all 2.9x: every host's flows tie in
    // priority and are opened in destination order, so all hosts start with the same
    // receiver (an incast the Ideal's global matching avoids), with drops and timeouts.
    for (kind, msg, bound) in [("permutation", "1bdp", 1.5), ("all_to_all", "0.5bdp", 4.0)] {
        let s = pfabric(
            "dcsim_a2av.toml",
            &[
                &format!("workload.kind=\"{kind}\""),
                &format!("workload.message=\"{msg}\""),
                "workload.collectives=1",
                "workload.collective_sizes=[16]",
            ],
        );
        let r = run(&s);
        complete(&r);
        let specs: Vec<FlowSpec> = r
            .flows
            .iter()
            .map(|f| FlowSpec {
                src: f.src,
                dst: f.dst,
                bytes: f.bytes,
                start_ps: f.start_ps,
                collective: 0,
            })
            .collect();
        let rtt = x(&r, "base_rtt_ps") as u64;
        let ideal = sim_harness::zeropod::ideal::ideal_fcts(&specs, 16, 800.0, rtt);
        let mean = |v: &mut dyn Iterator<Item = u64>| {
            let v: Vec<u64> = v.collect();
            v.iter().sum::<u64>() as f64 / v.len() as f64
        };
        let ideal_mean = mean(&mut ideal.iter().copied());
        let pf_mean = mean(&mut r.flows.iter().map(|f| f.fct_ps));
        let ratio = pf_mean / ideal_mean;
        assert!(
            (1.0..bound).contains(&ratio),
            "{kind}: pFabric mean FCT {pf_mean} ps, Ideal {ideal_mean} ps (ratio {ratio})"
        );
    }
}

#[test]
fn bad_fields_and_unsupported_combinations_are_refused() {
    let err = |sets: &[&str]| -> String {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/dcsim_a2av.toml");
        let mut all = vec!["transport.cc=pfabric".to_string()];
        all.extend(sets.iter().map(|s| s.to_string()));
        load(Source::File(&path), &all)
            .expect_err("refused")
            .to_string()
    };
    for (sets, field) in [
        (&["transport.trimming=true"][..], "transport.trimming"),
        (&["topology.phantom_queue=true"], "topology.phantom_queue"),
        (&["transport.lb=\"plb\""], "transport.lb"),
        (
            &["transport.pfabric.window_bdp=0.0"],
            "transport.pfabric.window_bdp",
        ),
        (
            &["transport.pfabric.rto_rtts=-1.0"],
            "transport.pfabric.rto_rtts",
        ),
        (
            &["transport.pfabric.probe_after=0"],
            "transport.pfabric.probe_after",
        ),
        (
            &["transport.pfabric.buffer=\"5KB\""],
            "transport.pfabric.buffer",
        ),
        (
            &["transport.pfabric.buffer=\"10MB\""],
            "transport.pfabric.buffer",
        ),
        (&["topology.buffer=\"10MB\""], "topology.buffer"),
    ] {
        let e = err(sets);
        assert!(e.contains(field), "{sets:?}: {e}");
    }
    // Wormhole's skip advances pFabric's senders under `all_ports` only: under
    // `data_ports` refused with a warning, run in full; under `all_ports` (the default)
    // not refused (tests/wormhole.rs measures it).
    for (partition_by, refused) in [("data_ports", 1.0), ("all_ports", 0.0)] {
        let s = pfabric(
            "dcsim_a2av.toml",
            &[
                "skip.enabled=true",
                &format!("skip.partition_by=\"{partition_by}\""),
                "workload.collectives=1",
                "workload.collective_sizes=[4]",
            ],
        );
        let r = run(&s);
        complete(&r);
        assert_eq!(x(&r, "wormhole_skip_refused"), refused, "{partition_by}");
    }
}
