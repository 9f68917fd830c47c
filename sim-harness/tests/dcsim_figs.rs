//! The DCSIM paper's figure scenarios (`scenarios/dcsim_figs/`, docs/dcsim_figures.md) on
//! small instances (3-tier k = 4 fat tree, 16 hosts, the paper's links, buffers, 9 KB DATAs):
//!
//! * infinite flows (`workload.infinite`, section 4.1 / Fig. 4): on a permutation the
//!   fabric is kept near full, no flow ever completes and the run ends at `stop.max_time_us`;
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
            "dcsim,dctcp,no_such_cc",
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
    // The sweep's own numbers.
    let sweep = std::fs::read_to_string(tmp.join("fig5_permutation/sweep.csv")).unwrap();
    let mut lines = sweep.lines().filter(|l| !l.starts_with('#'));
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (c_cc, c_msg, c_cct) = (
        col("transport.cc"),
        col("workload.message"),
        col("extra.mean_cct_ps"),
    );
    let mut want = std::collections::BTreeMap::new();
    for l in lines {
        let v: Vec<&str> = l.split(',').collect();
        let cct: f64 = v[c_cct].parse().unwrap();
        want.insert((v[c_cc].to_string(), v[c_msg].to_string()), cct / 1e6);
    }
    assert_eq!(want.len(), 10, "2 ccs x 5 sizes: {want:?}");
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
    assert_eq!(got.len(), 10);
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
        2,
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
