//! dcPIM in the fabric (`transport.cc = "dcpim"`, a DCSIM baseline: DCSIM paper section
//! 4.1-4.2, dcPIM SIGCOMM 2022 section 3), on small versions of the shipped DCSIM
//! scenarios: the 3-tier fat tree of k = 4 (16 hosts), the paper's links, switches, buffers
//! and 9 KB DATAs, five all-to-all-v collectives of sizes {2, 4, 8, 16}, 2-BDP flows.
//!
//! * completion, conservation of DATAs and control packets, determinism;
//! * the matching is a matching: every epoch, no receiver has two senders
//!   (`dcpim_conflicts`), a sender has one register;
//! * a flow under one BDP is sent without any matching packet (DCSIM 4.2), a larger one
//!   only through RTS / GRANT / ACCEPT;
//! * the DCSIM paper's ordering (Fig. 7): DCSIM's mean CCT below dcPIM's, DCSIM without
//!   DATA loss;
//! * the refusals name their field.

mod fabric;

use fabric::{packets_conserved, run, small_dcsim, x};
use sim_harness::overrides::{load, Source};
use sim_harness::{simulate, RunControl, RunResult, Scenario};
use std::path::PathBuf;

fn scenario(file: &str, sets: &[&str]) -> Scenario {
    let mut all = vec!["transport.cc=dcpim"];
    all.extend_from_slice(sets);
    small_dcsim(file, &all)
}

fn complete_and_conserved(r: &RunResult) {
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "every flow completes"
    );
    assert!(r.flows.iter().all(|f| f.end_ps > 0));
    packets_conserved(r);
}

#[test]
fn a2av_completes_matches_and_is_deterministic() {
    let s = scenario("dcsim_a2av.toml", &[]);
    let r = run(&s);
    complete_and_conserved(&r);
    // The matching ran with real control packets and carried the scheduled bytes.
    assert!(x(&r, "dcpim_rts") > 0.0 && x(&r, "dcpim_grants") > 0.0);
    assert!(x(&r, "dcpim_accepts") > 0.0);
    assert!(x(&r, "dcpim_matching_rounds") > 0.0 && x(&r, "dcpim_epochs") > 0.0);
    assert!(x(&r, "dcpim_scheduled_bytes") > 0.0);
    assert_eq!(
        x(&r, "dcpim_ctrl_bytes"),
        64.0 * (x(&r, "dcpim_rts")
            + x(&r, "dcpim_grants")
            + x(&r, "dcpim_accepts")
            + x(&r, "dcpim_revokes"))
    );
    // A matching: no receiver has two senders in any epoch; at most one pair per host.
    assert_eq!(x(&r, "dcpim_conflicts"), 0.0, "{:?}", r.summary.extra);
    let per_epoch = x(&r, "dcpim_matched_pairs_per_epoch");
    assert!(per_epoch > 0.0 && per_epoch <= 16.0, "{per_epoch}");
    // Every pair was made by an ACCEPT (the pairs are counted once per epoch they send).
    assert!(x(&r, "dcpim_matched_pairs") <= x(&r, "dcpim_accepts"));
    // The same seed and scenario give the same results.
    let again = run(&s);
    let strip = |r: &RunResult| {
        let mut e = r.summary.extra.clone();
        e.retain(|k, _| !k.contains("wall") && !k.ends_with("_per_s"));
        (e, r.flows.iter().map(|f| f.end_ps).collect::<Vec<_>>())
    };
    assert_eq!(strip(&r), strip(&again));
}

#[test]
fn a_flow_under_one_bdp_is_sent_without_matching_packets() {
    // A permutation of half-BDP messages: unscheduled, no RTS / GRANT / ACCEPT at all.
    let short = run(&scenario(
        "dcsim_a2av.toml",
        &[
            "workload.kind=\"permutation\"",
            "workload.collectives=0",
            "workload.message=\"0.5bdp\"",
        ],
    ));
    complete_and_conserved(&short);
    let flows = short.summary.flows as f64;
    assert_eq!(x(&short, "dcpim_unscheduled_flows"), flows);
    for k in ["dcpim_rts", "dcpim_grants", "dcpim_accepts", "dcpim_epochs"] {
        assert_eq!(x(&short, k), 0.0, "{k}");
    }
    assert_eq!(x(&short, "dcpim_scheduled_bytes"), 0.0);
    assert!(
        x(&short, "dcpim_unscheduled_bytes")
            >= x(&short, "dcpim_unscheduled_threshold_bytes") * 0.4 * flows
    );
    // Four BDPs: every byte goes through the matching.
    let long = run(&scenario(
        "dcsim_a2av.toml",
        &[
            "workload.kind=\"permutation\"",
            "workload.collectives=0",
            "workload.message=\"4bdp\"",
        ],
    ));
    complete_and_conserved(&long);
    assert_eq!(x(&long, "dcpim_unscheduled_bytes"), 0.0);
    assert!(x(&long, "dcpim_rts") > 0.0 && x(&long, "dcpim_accepts") >= flows);
    // A permutation is matched in the first round: each receiver has one sender.
    assert_eq!(
        x(&long, "dcpim_first_round_matches"),
        x(&long, "dcpim_accepts")
    );
    // Waiting for the matching costs at least one epoch (the short flows do not wait).
    let epoch_ps = x(&long, "dcpim_epoch_us") * 1e6;
    let min_fct = long
        .flows
        .iter()
        .map(|f| f.end_ps - f.start_ps)
        .min()
        .unwrap();
    assert!(min_fct as f64 > epoch_ps, "{min_fct} vs epoch {epoch_ps}");
}

#[test]
fn dcsim_beats_dcpim_on_a2av_without_loss() {
    let p = run(&scenario("dcsim_a2av.toml", &[]));
    let d = run(&scenario("dcsim_a2av.toml", &["transport.cc=\"dcsim\""]));
    complete_and_conserved(&p);
    assert_eq!(x(&d, "data_loss_rate"), 0.0);
    let (pc, dc) = (x(&p, "mean_cct_ps"), x(&d, "mean_cct_ps"));
    assert!(dc < pc, "DCSIM mean CCT {dc} not below dcPIM's {pc}");
}

#[test]
fn refusals_name_their_field() {
    // Refused when the scenario is read (the section's checks) or when it is run.
    let err = |sets: &[&str]| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/dcsim_a2av.toml");
        let small = "topology.radix=4".to_string();
        let mut all = vec!["transport.cc=dcpim".to_string(), small];
        all.extend(sets.iter().map(|s| s.to_string()));
        match load(Source::File(&path), &all) {
            Err(e) => e.to_string(),
            Ok(s) => simulate(&s, &RunControl::default())
                .map(|_| ())
                .expect_err("refused")
                .to_string(),
        }
    };
    assert!(err(&["transport.lb=\"reps\""]).starts_with("transport.lb:"));
    let e = err(&["transport.dcpim.epoch_rtts=1.0"]);
    assert!(e.starts_with("transport.dcpim.epoch_rtts:"), "{e}");
    let e = err(&["transport.dcpim.rounds=0"]);
    assert!(e.starts_with("transport.dcpim.rounds:"), "{e}");
}
