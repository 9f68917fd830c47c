//! The DCSIM paper's figure scenarios (`scenarios/dcsim_figs/`, docs/dcsim_figures.md) on
//! small instances (3-tier k = 4 fat tree, 16 hosts, the paper's links, buffers, 9 KB DATAs):
//!
//! * infinite flows (`workload.infinite`, section 4.1 / Fig. 4): on a permutation the
//!   fabric is kept near full, no flow ever completes and the run ends at `stop.max_time_us`;
//! * Fig. 5(a)'s exception and its cause: on a permutation of 0.5-BDP flows dcPIM (sent
//!   without matching) completes before DCSIM, whose CCT is at least RTT_max (Eq. 4's fixed
//!   SIM-to-DATA delay) plus the flow's transmission; at 1 BDP dcPIM matches first and DCSIM
//!   completes before it;
//! * Fig. 7's "pHost achieves the lowest queueing delay [...] at the cost of a higher CCT"
//!   holds when pHost sends no free first BDP (`transport.phost.free_bdp = 0`), not with
//!   pHost's free BDP (then it queues most of the four);
//! * `workload.order`: an all-to-all whose hosts all send to 0, 1, 2, ... in step makes
//!   DCSIM's round-robin SIMs an incast that dies at the spines; in the shifted order
//!   (host i to i + 1, i + 2, ...) or a random order per host DCSIM keeps its SIM loss low
//!   and the fabric busy;
//! * Fig. 13's direction: fractional DCSIM's CCT is not above sync's by more than a little,
//!   and no variant at fraction >= 0.85 loses a DATA;
//! * `scenarios/dcsim_figs/run.sh` runs a real (tiny) sweep, skips a cc the binary refuses,
//!   and its collector's CSV and table carry the sweep's numbers.

use sim_harness::overrides::{load, Source};
use sim_harness::{simulate, RunControl, RunResult, Scenario};
use std::path::PathBuf;
use std::process::Command;

fn figs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/dcsim_figs")
}

fn scenario(file: &str, sets: &[&str]) -> Scenario {
    let mut all = vec!["output.queue_sample_us=0".to_string()];
    all.extend(sets.iter().map(|s| s.to_string()));
    load(Source::File(&figs_dir().join(file)), &all).expect("scenario loads")
}

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

fn x(r: &RunResult, k: &str) -> f64 {
    *r.summary
        .extra
        .get(k)
        .unwrap_or_else(|| panic!("no extra.{k} in {:?}", r.summary.extra))
}

/// Infinite flows on a permutation (one flow per host): utilization over the window near 1
/// for DCSIM and the baseline, no flow completes, the run stops exactly at the time limit,
/// and every flow is still sending at the end.
#[test]
fn infinite_permutation_fills_the_fabric_and_never_ends() {
    for cc in ["dcsim", "dctcp"] {
        let s = scenario(
            "fig4_infinite_a2a.toml",
            &[
                &format!("transport.cc={cc}"),
                "workload.kind=permutation",
                "workload.order=in_step",
                "stop.max_time_us=100",
                "workload.infinite_warmup_us=40",
            ],
        );
        let r = run(&s);
        assert_eq!(r.summary.flows, 16, "{cc}");
        assert_eq!(
            r.summary.flows_completed, 0,
            "{cc}: an infinite flow never ends"
        );
        assert_eq!(
            r.summary.end_time_ps, 100_000_000,
            "{cc}: stops at max_time"
        );
        let u = x(&r, "utilization_window");
        assert!(
            u > 0.85 && u <= 1.0,
            "{cc}: utilization over [40, 100] us = {u}"
        );
        // The warm-up (before RTT_max for DCSIM, slow start for DCTCP) is outside the window.
        assert!(u > x(&r, "utilization"), "{cc}");
        assert_eq!(x(&r, "window_start_ps"), 40e6);
        assert_eq!(x(&r, "window_end_ps"), 100e6);
        assert_eq!(x(&r, "data_loss_rate"), 0.0, "{cc}");
        // Every flow delivered in the window's last tenth: none of them ended.
        let iv = &r.tables["intervals"];
        assert!(!iv.rows.is_empty());
        assert!(r.summary.data_packets > 16 * 500, "{cc}");
    }
}

/// Fig. 5(a) (DCSIM 4.2): "DCSIM completes faster than dcPIM [...] except for an half-BDP
/// size in the permutation traffic. [...] Under 1 BDP, dcPIM does not activate its full
/// algorithm for small flows [...]. Above 1 BDP, the dcPIM algorithm is activated, worsening
/// the CCT." On the 16-host permutation: at 0.5 BDP dcPIM's CCT is below DCSIM's and below
/// RTT_max, DCSIM's is at least RTT_max plus the flow's serialization (its first DATA leaves
/// RTT_max after its SIM, Eq. 4); at 1 BDP DCSIM's CCT is below dcPIM's (which waits for an
/// epoch's matching).
#[test]
fn permutation_half_bdp_is_dcpims_and_one_bdp_is_dcsims() {
    let cct = |cc: &str, size: &str| {
        let s = scenario(
            "fig5_permutation.toml",
            &[
                "topology.radix=4",
                &format!("transport.cc={cc}"),
                &format!("workload.message={size}"),
            ],
        );
        let r = run(&s);
        assert_eq!(r.summary.flows_completed, 16, "{cc} {size}");
        assert_eq!(x(&r, "data_loss_rate"), 0.0, "{cc} {size}");
        (x(&r, "mean_cct_ps"), r)
    };
    let (dcsim_half, r) = cct("dcsim", "0.5bdp");
    let rtt_max = x(&r, "rtt_max_ps");
    // 44 DATAs of 9064 B at 800 Gb/s: 4.0 us on the sender's link.
    let ser_ps = 44.0 * 9064.0 * 8.0 / 800.0 * 1000.0;
    assert!(
        dcsim_half >= rtt_max + ser_ps,
        "DCSIM 0.5 BDP: CCT {dcsim_half} ps < RTT_max {rtt_max} + serialization {ser_ps}"
    );
    let (dcpim_half, _) = cct("dcpim", "0.5bdp");
    assert!(
        dcpim_half < rtt_max && dcpim_half < 0.5 * dcsim_half,
        "0.5 BDP: dcPIM {dcpim_half} ps against DCSIM {dcsim_half} (RTT_max {rtt_max})"
    );
    let (dcsim_one, _) = cct("dcsim", "1bdp");
    let (dcpim_one, _) = cct("dcpim", "1bdp");
    assert!(
        dcsim_one < 0.8 * dcpim_one,
        "1 BDP: DCSIM {dcsim_one} ps not below dcPIM {dcpim_one}"
    );
    // Session 7 (dcPIM's k = 4 channels and token window): DCSIM also below dcPIM at 2 and
    // 8 BDP (60.7 / 107.2 against 74.2 / 120.0 us on 16 hosts; level at 4 BDP, 76.8 / 77.3).
    for size in ["2bdp", "8bdp"] {
        let (dcsim, _) = cct("dcsim", size);
        let (dcpim, _) = cct("dcpim", size);
        assert!(
            dcsim < 0.95 * dcpim,
            "{size}: DCSIM {dcsim} ps not below dcPIM {dcpim}"
        );
    }
}

/// Fig. 7 (DCSIM 4.2): "pHost achieves the lowest queueing delay due to its conservative
/// schedule, which comes at the cost of a higher CCT." Five all-to-all-v collectives of
/// 1-BDP flows on 16 hosts: with `free_bdp = 0` (every DATA on a token) pHost's mean
/// queueing delay is below DCSIM's, dcPIM's and pFabric's and its CCT above DCSIM's; with
/// pHost's free first BDP (its paper, the default) every flow of the five collectives
/// bursts its first BDP at t = 0 and pHost queues more than DCSIM.
#[test]
fn five_a2av_phost_queues_least_only_without_free_tokens() {
    let go = |sets: &[&str]| {
        let mut all = vec!["workload.message=1bdp"];
        all.extend_from_slice(sets);
        let r = run(&scenario("fig7_five_a2av.toml", &all));
        (x(&r, "mean_queueing_delay_ps"), x(&r, "mean_cct_ps"))
    };
    let (q_dcsim, c_dcsim) = go(&["transport.cc=dcsim"]);
    let (q_ph0, c_ph0) = go(&["transport.cc=phost", "transport.phost.free_bdp=0"]);
    let (q_ph1, _) = go(&["transport.cc=phost"]);
    let (q_pim, _) = go(&["transport.cc=dcpim"]);
    let (q_pf, _) = go(&["transport.cc=pfabric"]);
    assert!(
        q_ph0 < q_dcsim && q_ph0 < q_pim && q_ph0 < q_pf,
        "queueing (ps): pHost free_bdp=0 {q_ph0}, DCSIM {q_dcsim}, dcPIM {q_pim}, pFabric {q_pf}"
    );
    assert!(c_ph0 > c_dcsim, "CCT: pHost {c_ph0} ps, DCSIM {c_dcsim}");
    assert!(
        q_ph1 > 2.0 * q_dcsim,
        "pHost with its free BDP {q_ph1} ps against DCSIM {q_dcsim}"
    );
}

/// Fig. 4's all-to-all on a 54-host tree (k = 6, whose spines a cross-pod incast reaches):
/// with every host sending to 0, 1, 2, ... in step, DCSIM's round-robin sends the SIMs of
/// all hosts to one destination at a time and over a fifth of them die; in the shifted
/// order or each host's own random order (`workload.order`) under 5% die and the
/// utilization over the window is at least 0.15 higher. None loses a DATA.
#[test]
fn shifted_all_to_all_keeps_dcsims_sims_alive() {
    let go = |order: &str| {
        let r = run(&scenario(
            "fig4_infinite_a2a.toml",
            &[
                "topology.radix=6",
                "stop.max_time_us=35",
                "workload.infinite_warmup_us=25",
                &format!("workload.order={order}"),
            ],
        ));
        assert_eq!(x(&r, "data_loss_rate"), 0.0, "order = {order}");
        (x(&r, "utilization_window"), x(&r, "sim_loss_rate"))
    };
    let (u_step, l_step) = go("in_step");
    assert!(l_step > 0.2, "in step: SIM loss {l_step}");
    for order in ["shifted", "random"] {
        let (u, l) = go(order);
        assert!(l < 0.05, "{order}: SIM loss {l}");
        assert!(
            u > u_step + 0.15,
            "utilization: {order} {u}, in step {u_step}"
        );
    }
}

/// A finite workload has no window (summary.json unchanged), and an infinite one without a
/// time limit or with an empty window is refused naming the field.
#[test]
fn infinite_needs_a_time_limit_and_only_infinite_has_a_window() {
    let r = run(&scenario(
        "fig5_permutation.toml",
        &["topology.radix=4", "workload.message=0.5bdp"],
    ));
    assert!(!r.summary.extra.contains_key("utilization_window"));
    for (sets, field) in [
        (&["stop.max_time_us=0"][..], "workload.infinite"),
        (
            &["workload.infinite_warmup_us=150"][..],
            "workload.infinite_warmup_us",
        ),
        (&["workload.kind=all_to_all_v"][..], "workload.infinite"),
        (&["workload.kind=permutation"][..], "workload.order"),
    ] {
        let mut all = vec!["output.queue_sample_us=0".to_string()];
        all.extend(sets.iter().map(|s| s.to_string()));
        let e = load(
            Source::File(&figs_dir().join("fig4_infinite_a2a.toml")),
            &all,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with(&format!("{field}:")), "{sets:?}: {e}");
    }
}

/// Fig. 13 (section 4.4): fractional DCSIM's CCT is "marginally lower" than sync's and its
/// "packet loss remains at 0%". Small instance: 3 all-to-all-v collectives of 1-BDP flows.
#[test]
fn fractional_cct_not_above_sync_and_lossless_from_0_85() {
    let base = ["workload.collectives=3", "workload.message=1bdp"];
    let one = |sets: &[&str]| {
        let mut all: Vec<&str> = base.to_vec();
        all.extend_from_slice(sets);
        let r = run(&scenario("fig13_fractional.toml", &all));
        assert_eq!(r.summary.flows_completed, r.summary.flows, "{sets:?}");
        r
    };
    let sync = one(&["transport.dcsim.variant=sync"]);
    let sync_cct = x(&sync, "mean_cct_ps");
    assert_eq!(x(&sync, "data_loss_rate"), 0.0, "sync");
    for f in ["0.95", "0.85", "0.7"] {
        let r = one(&[
            "transport.dcsim.variant=fractional",
            &format!("transport.dcsim.fraction={f}"),
        ]);
        let cct = x(&r, "mean_cct_ps");
        assert!(
            cct <= 1.03 * sync_cct,
            "fraction {f}: CCT {cct} ps vs sync {sync_cct} ps"
        );
        if f != "0.7" {
            assert_eq!(x(&r, "data_loss_rate"), 0.0, "fraction {f}");
        }
    }
}

/// run.sh on a tiny grid (Fig. 5(a) on 16 hosts, DCSIM and DCTCP, and a cc no binary has):
/// the refused cc is skipped with a message, the collector writes one row per cc and size
/// whose CCT is the sweep's `extra.mean_cct_ps`, growing with the flow size, and the table.
#[test]
fn run_sh_sweeps_skips_refused_ccs_and_collects() {
    let tmp = std::env::temp_dir().join(format!("dcfab-dcsim-figs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let out = Command::new("bash")
        .arg(figs_dir().join("run.sh"))
        .arg(env!("CARGO_BIN_EXE_dcfab"))
        .arg(&tmp)
        .args([
            "--ccs",
            "dcsim,dctcp,phost,no_such_cc",
            "--only",
            "fig5_permutation",
            "--jobs",
            "2",
            "--",
            "--set",
            "topology.radix=4",
            "--set",
            "output.queue_sample_us=0",
        ])
        .output()
        .expect("bash and python3 run run.sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "run.sh failed: {stderr}");
    assert!(
        stderr.contains("skipping cc no_such_cc for fig5_permutation"),
        "{stderr}"
    );
    // The sweeps' own numbers: dcsim and dctcp with the scenario's settings, the paper's
    // baseline (phost) in its own sweep with the dcPIM simulator's (spray_rr).
    let mut want = std::collections::BTreeMap::new();
    for (dir, ccs, lb) in [
        ("fig5_permutation", ["dcsim", "dctcp"], "ops"),
        ("fig5_permutation_baselines", ["phost", "phost"], "spray_rr"),
    ] {
        let sweep = std::fs::read_to_string(tmp.join(dir).join("sweep.csv")).unwrap();
        let mut lines = sweep.lines().filter(|l| !l.starts_with('#'));
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        let (c_cc, c_msg, c_cct) = (
            col("transport.cc"),
            col("workload.message"),
            col("extra.mean_cct_ps"),
        );
        for l in lines {
            let v: Vec<&str> = l.split(',').collect();
            assert!(ccs.contains(&v[c_cc]), "{dir}: {l}");
            let written =
                std::fs::read_to_string(tmp.join(dir).join(v[col("run")]).join("scenario.toml"))
                    .unwrap();
            assert!(
                written.contains(&format!("lb = \"{lb}\"")),
                "{dir}: {written}"
            );
            let cct: f64 = v[c_cct].parse().unwrap();
            want.insert((v[c_cc].to_string(), v[c_msg].to_string()), cct / 1e6);
        }
    }
    assert_eq!(want.len(), 15, "3 ccs x 5 sizes: {want:?}");
    // The collector's CSV.
    let csv = std::fs::read_to_string(tmp.join("fig5_permutation.csv")).unwrap();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next().unwrap(),
        "x,cc,status,complete,cct_us,data_loss,qdelay_us,run"
    );
    let mut got = std::collections::BTreeMap::new();
    for l in rows {
        let v: Vec<&str> = l.split(',').collect();
        assert_eq!((v[2], v[3]), ("ok", "yes"), "{l}");
        let cct: f64 = v[4].parse().unwrap();
        let w = want[&(v[1].to_string(), v[0].to_string())];
        assert!((cct - w).abs() <= 0.051, "{l}: sweep says {w} us");
        got.insert((v[1].to_string(), v[0].to_string()), cct);
    }
    assert_eq!(got.len(), 15);
    for cc in ["dcsim", "dctcp"] {
        let c: Vec<f64> = ["0.5bdp", "1bdp", "2bdp", "4bdp", "8bdp"]
            .iter()
            .map(|m| got[&(cc.to_string(), m.to_string())])
            .collect();
        assert!(c.windows(2).all(|w| w[0] < w[1]), "{cc}: CCT grows: {c:?}");
    }
    assert!(!tmp.join("fig4.csv").exists(), "--only ran one figure");
    let md = std::fs::read_to_string(tmp.join("figures.md")).unwrap();
    assert!(md.contains("## Fig. 5(a): single permutation"), "{md}");
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| 8bdp |")).count(),
        3,
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Fig. 4's run (`fig4_infinite_a2a.toml`) with `cc` and the extra `--set`s: the
/// utilization over the steady window and the DATA loss rate.
fn fig4_utilization(cc: &str, extra: &[&str]) -> (f64, f64) {
    let mut sets = vec![format!("transport.cc={cc}")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
    let r = run(&scenario("fig4_infinite_a2a.toml", &sets));
    (x(&r, "utilization_window"), x(&r, "data_loss_rate"))
}

/// Fig. 4 (DCSIM 4.2): "The network utilization of DCSIM remains higher than in the other
/// algorithms by at least 14%" and DCSIM "achieves 0% loss". On 16 hosts (one all-to-all
/// of infinite flows, each host in its own random order) it holds against dcPIM with the
/// dcPIM simulator's defaults (k = 4 channels, a 1-BDP token window: 0.976 against 0.854
/// in docs/dcsim_figures.md); against pFabric DCSIM is above by less (0.907, 10 % of its
/// DATAs lost), and pHost fills the fabric (0.980): those two do not hold here. Without
/// the token window dcPIM is within a few percent of DCSIM (the window is what backs it
/// off).
#[test]
fn fig4_dcsim_utilization_above_dcpim_and_pfabric_without_loss() {
    let util = fig4_utilization;
    let (dcsim, dcsim_loss) = util("dcsim", &[]);
    assert_eq!(dcsim_loss, 0.0);
    let (dcpim, _) = util("dcpim", &[]);
    assert!(
        dcsim >= 1.10 * dcpim,
        "DCSIM {dcsim} not at least 10 % above dcPIM {dcpim}"
    );
    let (pfabric, pfabric_loss) = util("pfabric", &[]);
    assert!(
        dcsim > pfabric && pfabric_loss > 0.05,
        "{dcsim} {pfabric} {pfabric_loss}"
    );
    let (open, _) = util("dcpim", &["transport.dcpim.token_window_bdp=0"]);
    assert!(open > 1.05 * dcpim, "no window {open} vs window {dcpim}");
}

/// The settings under which the DCSIM paper ran its baselines, in the dcPIM simulator with
/// its defaults (docs/dcsim_figures.md, "Session 8"; `scenarios/dcsim_figs/run.sh`).
const AS_PAPER_RAN: [&str; 2] = [
    "transport.lb=spray_rr",
    "transport.phost.free_small_flows_only=true",
];

/// Fig. 4 (DCSIM 4.2) with the baselines as the paper ran them (session 8): the dcPIM
/// simulator sprays round-robin per input link (`load_balancing = 0`), and the hosts'
/// synchronized starts keep some uplinks doubly loaded; pFabric then loses about a fifth of
/// its DATAs and DCSIM's utilization is more than 14 % above pFabric's (0.976 against 0.794
/// on 16 hosts; 0.939 against 0.805 on 128), while with random spraying (ops) it is only
/// 7.6 % above (0.907), so the routing is what makes the paper's gap. pHost as that
/// simulator runs it (free tokens only for flows of at most a BDP: none here) is lossless
/// and level with DCSIM (0.986): the paper's 14 % over pHost does not hold.
#[test]
fn fig4_dcsim_14_percent_above_pfabric_as_the_paper_ran_it() {
    let util = fig4_utilization;
    let (dcsim, dcsim_loss) = util("dcsim", &[]);
    assert_eq!(dcsim_loss, 0.0);
    // DCSIM keeps its own SIM path choice under spray_rr: bit for bit the same run.
    assert_eq!(util("dcsim", &AS_PAPER_RAN), (dcsim, 0.0));
    let (rr, rr_loss) = util("pfabric", &AS_PAPER_RAN);
    assert!(
        dcsim >= 1.14 * rr && rr_loss > 0.12,
        "DCSIM {dcsim} against pFabric as the paper ran it {rr} (loss {rr_loss})"
    );
    let (ops, _) = util("pfabric", &[]);
    assert!(
        dcsim < 1.14 * ops && ops > 1.05 * rr,
        "pFabric with ops {ops}, with spray_rr {rr}"
    );
    let (phost, phost_loss) = util("phost", &AS_PAPER_RAN);
    assert_eq!(phost_loss, 0.0, "scheduled pHost on a full-bisection tree");
    assert!(phost > 0.98 * dcsim, "pHost {phost} against DCSIM {dcsim}");
}

/// Fig. 4 with pHost's receiver as the dcPIM simulator orders its flows
/// (`transport.phost.srpt_by_received`: fewest packets still to receive, ties to the flow
/// granted last; docs/dcsim_figures.md, "Session 8 (second part)"). With the default
/// (fewest still to grant, ties to the first RTS, from the ToR neighbour) the receivers
/// pair off at once and no token expires; with the simulator's rule tokens expire while
/// the matching settles, yet it settles: utilization within a point of the default, no
/// loss, and still not below DCSIM's (0.986 against 0.976), so the rule does not give the
/// paper's 14 %.
#[test]
fn fig4_phost_with_the_simulators_receiver_order_still_fills_the_fabric() {
    let run_ph = |extra: &[&str]| {
        let mut sets = vec!["transport.cc=phost"];
        sets.extend(AS_PAPER_RAN);
        sets.extend(extra);
        run(&scenario("fig4_infinite_a2a.toml", &sets))
    };
    let def = run_ph(&[]);
    let sim = run_ph(&["transport.phost.srpt_by_received=true"]);
    assert_eq!(
        x(&def, "phost_tokens_expired"),
        0.0,
        "default: pairs at once"
    );
    assert!(
        x(&sim, "phost_tokens_expired") > 20.0,
        "simulator's order: tokens expire while the matching settles"
    );
    let (u_def, u_sim) = (x(&def, "utilization_window"), x(&sim, "utilization_window"));
    assert!((u_def - u_sim).abs() < 0.01, "{u_def} against {u_sim}");
    assert_eq!(x(&sim, "data_loss_rate"), 0.0);
    let dcsim = x(
        &run(&scenario("fig4_infinite_a2a.toml", &["transport.cc=dcsim"])),
        "utilization_window",
    );
    assert!(u_sim > 0.98 * dcsim, "pHost {u_sim} against DCSIM {dcsim}");
}

/// Fig. 5 (DCSIM 4.2) with the baselines as the paper ran them (session 8), on 16 hosts.
/// (b) all-to-all: "the non-activation of dcPIM for short flows of size 0.5 x BDP increases
/// dcPIM's CCT even beyond that of pFabric and pHost": with round-robin spraying dcPIM's
/// unscheduled 0.5-BDP flows collide and lose DATAs (157.0 us against pFabric's 125.3 and
/// pHost's 100.6), with random spraying they do not (62.0 against 118.8 and 165.2). At 128
/// hosts it does not hold (dcPIM 615.3 against 678.1 and 713.4: docs/dcsim_figures.md). (a)
/// permutation: DCSIM completes before pHost at 4 and 8 BDP (76.8 / 107.6 against 86.5 /
/// 129.7 us: pHost's larger flows wait for tokens and lose DATAs in the sprays'
/// collisions), and both pHost and pFabric complete the 0.5-BDP flows long before DCSIM.
#[test]
fn fig5_orderings_as_the_paper_ran_the_baselines() {
    let cct = |file: &str, cc: &str, size: &str, extra: &[&str]| {
        let mut sets = vec![
            "topology.radix=4".to_string(),
            format!("transport.cc={cc}"),
            format!("workload.message={size}"),
        ];
        sets.extend(extra.iter().map(|s| s.to_string()));
        let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
        let r = run(&scenario(file, &sets));
        assert_eq!(
            r.summary.flows_completed, r.summary.flows,
            "{file} {cc} {size}"
        );
        x(&r, "mean_cct_ps")
    };
    let a2a = "fig5_all_to_all.toml";
    let dcpim = cct(a2a, "dcpim", "0.5bdp", &AS_PAPER_RAN);
    for cc in ["pfabric", "phost"] {
        let other = cct(a2a, cc, "0.5bdp", &AS_PAPER_RAN);
        assert!(
            dcpim > 1.1 * other,
            "0.5 BDP all-to-all: dcPIM {dcpim} ps not beyond {cc} {other}"
        );
    }
    let dcpim_ops = cct(a2a, "dcpim", "0.5bdp", &[]);
    assert!(dcpim_ops < 0.6 * dcpim, "dcPIM with ops {dcpim_ops}");
    let perm = "fig5_permutation.toml";
    for size in ["4bdp", "8bdp"] {
        let dcsim = cct(perm, "dcsim", size, &[]);
        let phost = cct(perm, "phost", size, &AS_PAPER_RAN);
        assert!(
            dcsim < 0.95 * phost,
            "{size} permutation: DCSIM {dcsim} ps not below pHost {phost}"
        );
    }
    let dcsim = cct(perm, "dcsim", "0.5bdp", &[]);
    for cc in ["pfabric", "phost"] {
        let other = cct(perm, cc, "0.5bdp", &AS_PAPER_RAN);
        assert!(
            other < 0.5 * dcsim,
            "0.5 BDP permutation: {cc} {other} against DCSIM {dcsim}"
        );
    }
}
