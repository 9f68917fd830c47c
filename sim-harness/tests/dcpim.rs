//! dcPIM in the fabric (`transport.cc = "dcpim"`, a DCSIM baseline: DCSIM paper section
//! 4.1-4.2, dcPIM SIGCOMM 2022 section 3), on small versions of the shipped DCSIM
//! scenarios: the 3-tier fat tree of k = 4 (16 hosts), the paper's links, switches, buffers
//! and 9 KB DATAs, five all-to-all-v collectives of sizes {2, 4, 8, 16}, 2-BDP flows.
//!
//! * completion, conservation of DATAs and control packets, determinism;
//! * the matching is a `k`-channel matching: at every point of the run no host is
//!   matched on more than `k` channels as a sender or as a receiver (proptest over seeds,
//!   `k` and sizes), no receiver has more than `k` (`dcpim_conflicts`);
//! * the token window binds on an all-to-all and makes dcPIM back off: shorter queues
//!   than without it, no DATA lost;
//! * a flow under one BDP is sent without any matching packet (DCSIM 4.2), a larger one
//!   only through RTS / GRANT / ACCEPT;
//! * the DCSIM paper's ordering (Fig. 7): DCSIM's mean CCT below dcPIM's, DCSIM without
//!   DATA loss;
//! * the refusals name their field.

mod fabric;

use fabric::{packets_conserved, run, small_dcsim, x};
use proptest::prelude::*;
use sim_harness::engine::Sim;
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
    // A k-channel matching: no receiver has more than k channels in any epoch; at most k
    // channels per sender (16 hosts, k = 4).
    assert_eq!(x(&r, "dcpim_channels"), 4.0);
    assert_eq!(x(&r, "dcpim_conflicts"), 0.0, "{:?}", r.summary.extra);
    let per_epoch = x(&r, "dcpim_matched_pairs_per_epoch");
    let links = x(&r, "dcpim_matched_links_per_epoch");
    assert!(per_epoch > 0.0 && per_epoch <= links, "{per_epoch} {links}");
    assert!(links <= 16.0 * 4.0, "{links}");
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
    let e = err(&["transport.dcpim.channels=33"]);
    assert!(e.starts_with("transport.dcpim.channels:"), "{e}");
    let e = err(&["transport.dcpim.token_window_bdp=-1"]);
    assert!(e.starts_with("transport.dcpim.token_window_bdp:"), "{e}");
    let e = err(&["transport.dcpim.token_window_timeout_rtts=0"]);
    assert!(
        e.starts_with("transport.dcpim.token_window_timeout_rtts:"),
        "{e}"
    );
}

/// The matching at points of a run of `s`: per sample, (sender, receiver, channels) as the
/// senders and as the receivers hold it.
type Sample = (Vec<(u32, u32, u32)>, Vec<(u32, u32, u32)>);

fn matchings(s: &Scenario, every_ps: u64, until_ps: u64) -> (Vec<Sample>, u32) {
    let ctl = RunControl::default();
    let mut sim = Sim::build(s).unwrap();
    let mut out = Vec::new();
    let mut t = every_ps;
    while t <= until_ps {
        sim.run_until(t, &ctl);
        let d = sim.dcpim().expect("a dcPIM run");
        out.push((d.current_matching(), d.current_receivers()));
        t += every_ps;
    }
    let k = sim.dcpim().unwrap().channels();
    (out, k)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// No host is ever matched on more than `k` channels, as a sender or as a receiver
    /// (dcPIM's `num_tx_link` / `num_rx_link <= pim_k`), whatever the seed, `k` and size;
    /// and some host is matched on more than one channel when k > 1 (the channels are used).
    #[test]
    fn no_host_matched_on_more_than_k_channels(seed in 1u64..1000, k in 1u32..5,
                                               size in prop::sample::select(vec!["2bdp", "4bdp"])) {
        let msg = format!("workload.message=\"{size}\"");
        let kk = format!("transport.dcpim.channels={k}");
        let mut s = scenario("dcsim_a2av.toml", &[msg.as_str(), kk.as_str()]);
        s.seed = seed;
        let (samples, got_k) = matchings(&s, 7_000_000, 140_000_000);
        prop_assert_eq!(got_k, k);
        let mut multi = false;
        for (tx, rx) in &samples {
            for view in [tx, rx] {
                let mut per: std::collections::BTreeMap<u32, u32> = Default::default();
                for &(h, _, l) in view {
                    prop_assert!(l >= 1);
                    *per.entry(h).or_default() += l;
                }
                prop_assert!(per.values().all(|&n| n <= k), "{per:?} k = {k}");
                multi |= per.values().any(|&n| n > 1);
            }
        }
        prop_assert!(samples.iter().any(|(tx, _)| !tx.is_empty()));
        if k > 1 {
            prop_assert!(multi, "k = {k}: no host ever on two channels");
        }
    }
}

#[test]
fn the_token_window_backs_off_on_an_all_to_all() {
    // Fig. 4's load on 16 hosts (infinite flows): with dcPIM's token window (the default,
    // 1 BDP) the senders wait for their tokens, so the queues stay shorter than without
    // a window (line rate per channel), and the window binds (stalls counted).
    let fig4 = |sets: &[&str]| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/dcsim_figs/fig4_infinite_a2a.toml");
        let mut all = vec![
            "transport.cc=dcpim",
            "stop.max_time_us=100",
            "workload.infinite_warmup_us=40",
        ];
        all.extend_from_slice(sets);
        let sets: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        let s = load(Source::File(&path), &sets).unwrap();
        run(&s)
    };
    let win = fig4(&[]);
    let open = fig4(&["transport.dcpim.token_window_bdp=0"]);
    assert!(x(&win, "dcpim_window_stalls") > 0.0);
    assert_eq!(x(&open, "dcpim_window_stalls"), 0.0);
    let (qw, qo) = (
        x(&win, "mean_queueing_delay_ps"),
        x(&open, "mean_queueing_delay_ps"),
    );
    assert!(
        qw < qo,
        "queueing with the window {qw} not below without {qo}"
    );
    assert_eq!(x(&win, "data_loss_rate"), 0.0);
}
