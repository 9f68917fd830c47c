//! Bad input to the `dcfab` binary: every class exits 1 with ONE line on stderr,
//! `error: <field>: <problem>`, naming the field (or file, or flag), and never panics.
//! None of these runs the simulator, so they are fast.

mod common;
use common::{dcfab, expect_error};
use std::path::Path;
use std::process::Output;

/// `dcfab run` on the built-in default with these `--set`s.
fn run_set(sets: &[&str]) -> Output {
    let mut args = vec!["run", "--out", "/nonexistent-dcfab-test-dir/never"];
    for s in sets {
        args.push("--set");
        args.push(s);
    }
    dcfab(&args)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn unknown_field_in_file() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "s.toml", "[topology]\nradixx = 8\n");
    let line = expect_error(&dcfab(&["run", &f]), "topology.radixx");
    assert!(line.contains("unknown field"), "{line}");
    let f = write(tmp.path(), "t.toml", "colour = \"blue\"\n");
    expect_error(&dcfab(&["run", &f]), "colour");
    let f = write(tmp.path(), "u.toml", "[topology]\nkind = \"torus\"\n");
    let line = expect_error(&dcfab(&["run", &f]), "topology.kind");
    assert!(line.contains("fat_tree"), "lists the kinds: {line}");
}

#[test]
fn odd_radix() {
    let line = expect_error(&run_set(&["topology.radix=7"]), "topology.radix");
    assert!(line.contains("even"), "{line}");
}

#[test]
fn zero_hosts() {
    let line = expect_error(&run_set(&["topology.radix=0"]), "topology.radix");
    assert!(line.contains("no hosts"), "{line}");
}

#[test]
fn more_hosts_than_the_radix_allows() {
    let line = expect_error(
        &run_set(&["topology.radix=4", "topology.tiers=2", "topology.hosts=9"]),
        "topology.hosts",
    );
    assert!(line.contains("at most 8"), "{line}");
}

#[test]
fn tiers_not_two_or_three() {
    expect_error(&run_set(&["topology.tiers=4"]), "topology.tiers");
    expect_error(&run_set(&["topology.tiers=1"]), "topology.tiers");
}

#[test]
fn non_positive_rate_delay_mtu() {
    expect_error(&run_set(&["topology.link_gbps=0"]), "topology.link_gbps");
    expect_error(&run_set(&["topology.link_gbps=-100"]), "topology.link_gbps");
    expect_error(
        &run_set(&["topology.link_delay_ns=0"]),
        "topology.link_delay_ns",
    );
    // A negative integer does not even fit the type: serde names the field.
    expect_error(
        &run_set(&["topology.link_delay_ns=-5"]),
        "topology.link_delay_ns",
    );
    expect_error(&run_set(&["transport.mtu=0"]), "transport.mtu");
    expect_error(
        &run_set(&["topology.oversubscription=0.5"]),
        "topology.oversubscription",
    );
}

#[test]
fn bad_sizes() {
    let line = expect_error(
        &run_set(&["workload.message=12parsecs"]),
        "workload.message",
    );
    assert!(line.contains("parsecs"), "{line}");
    expect_error(&run_set(&["workload.message=0"]), "workload.message");
    expect_error(&run_set(&["topology.buffer=-1bdp"]), "topology.buffer");
    // A buffer smaller than one packet.
    expect_error(&run_set(&["topology.buffer=1000"]), "topology.buffer");
}

#[test]
fn flows_to_missing_hosts() {
    // 128 hosts: an incast of degree 128 needs 129.
    let line = expect_error(
        &run_set(&["workload.kind=incast", "workload.degree=128"]),
        "workload.degree",
    );
    assert!(line.contains("129"), "{line}");
    expect_error(
        &run_set(&["workload.kind=incast", "workload.degree=0"]),
        "workload.degree",
    );
}

#[test]
fn bad_skip_theta() {
    expect_error(&run_set(&["skip.theta=0"]), "skip.theta");
    expect_error(&run_set(&["skip.theta=1.5"]), "skip.theta");
    expect_error(&run_set(&["skip.theta=nan"]), "skip.theta");
}

#[test]
fn bad_loss_place_and_reroute_stale() {
    expect_error(
        &run_set(&["loss.0.link=tor0.up0", "loss.0.place=queue"]),
        "loss[0].place",
    );
    expect_error(
        &run_set(&["transport.uno.reroute_stale=maybe"]),
        "transport.uno.reroute_stale",
    );
}

#[test]
fn negative_failure_times() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "f.toml",
        "[[failures]]\nlink = \"tor0.up0\"\nat_us = -3\n",
    );
    expect_error(&dcfab(&["run", &f]), "failures[0].at_us");
    let f = write(
        tmp.path(),
        "g.toml",
        "[[failures]]\nlink = \"tor0.up0\"\nat_us = 3\nfor_us = 0\n",
    );
    expect_error(&dcfab(&["run", &f]), "failures[0].for_us");
    expect_error(
        &run_set(&["failures.0.link=tor0.up0", "failures.0.at_us=-1"]),
        "failures[0].at_us",
    );
}

#[test]
fn unreadable_file() {
    let line = expect_error(
        &dcfab(&["run", "/nonexistent/dcfab/scenario.toml"]),
        "/nonexistent/dcfab/scenario.toml",
    );
    assert!(line.to_lowercase().contains("no such file"), "{line}");
    // A directory is not a scenario either.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    expect_error(&dcfab(&["run", d]), d);
}

#[test]
fn toml_syntax_error_names_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "bad.toml",
        "name = \"x\"\n[topology\nradix = 4\n",
    );
    let line = expect_error(&dcfab(&["run", &f]), &f);
    assert!(line.contains("line 2"), "{line}");
}

#[test]
fn bad_set() {
    let line = expect_error(&run_set(&["transport.lb"]), "--set");
    assert!(line.contains("path=value"), "{line}");
    expect_error(&run_set(&["a..b=1"]), "--set");
    let line = expect_error(&run_set(&["transport.lbb=ops"]), "transport.lbb");
    assert!(line.contains("unknown field"), "{line}");
    expect_error(&run_set(&["transport.lb=roundrobin"]), "transport.lb");
    expect_error(&run_set(&["topology.radix=eight"]), "topology.radix");
    expect_error(&run_set(&["seed.x=1"]), "seed");
}

#[test]
fn bad_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep");
    let o = out.to_str().unwrap();
    expect_error(
        &dcfab(&["sweep", "--grid", "transport.lb", "--out", o]),
        "--grid",
    );
    expect_error(
        &dcfab(&["sweep", "--grid", "transport.lb=ecmp,,ops", "--out", o]),
        "--grid",
    );
    let line = expect_error(
        &dcfab(&["sweep", "--grid", "topology.radix=4,5", "--out", o]),
        "topology.radix",
    );
    assert!(line.contains("topology.radix=5"), "names the run: {line}");
    expect_error(
        &dcfab(&["sweep", "--grid", "transport.lbb=ecmp", "--out", o]),
        "transport.lbb",
    );
    expect_error(
        &dcfab(&[
            "sweep", "--grid", "seed=1,2", "--grid", "seed=3", "--out", o,
        ]),
        "--grid",
    );
    expect_error(
        &dcfab(&["sweep", "--grid", "seed=1,2", "--jobs", "0", "--out", o]),
        "--jobs",
    );
    assert!(!out.exists(), "nothing is created before the grid is valid");
}

#[test]
fn bad_scenario_name() {
    expect_error(&run_set(&["name=../escape"]), "name");
}

#[test]
fn clap_rejects_unknown_flags_with_usage() {
    let out = dcfab(&["run", "--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--frobnicate"), "{err}");
    let out = dcfab(&["run", "--seed", "minus-one"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--seed"));
}

#[test]
fn features_not_built_yet_are_refused_not_ignored() {
    // A scenario asking for DCSIM across two datacenters, or UnoLB under a transport
    // without it, must not run as something else.
    let line = expect_error(
        &run_set(&["topology.kind=\"two_dc\"", "transport.cc=\"dcsim\""]),
        "transport.cc",
    );
    assert!(line.contains("not supported yet"), "{line}");
    expect_error(&run_set(&["transport.lb=\"unolb\""]), "transport.lb");
}

/// A flag that is given is never ignored: `--metric` where no sweep figure is drawn, and
/// `--runs` on a run's directory, are refused naming the flag (before anything runs).
#[test]
fn flags_that_would_be_ignored_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let out = out.to_str().unwrap();
    let sweep = |extra: &[&str]| {
        let mut a = vec!["sweep", "--grid", "seed=1,2", "--out", out, "--quiet"];
        a.extend_from_slice(extra);
        dcfab(&a)
    };
    // Without --plot: no figure is drawn.
    let line = expect_error(&sweep(&["--metric", "bogus"]), "--metric");
    assert!(
        line.contains("'bogus'") && line.contains("--plot"),
        "{line}"
    );
    // With --plot, an unknown column is refused before any run, listing the columns.
    let line = expect_error(&sweep(&["--plot", "--metric", "bogus"]), "--metric");
    assert!(
        line.contains("'bogus' is not a sweep.csv column") && line.contains("p99_fct_ps"),
        "{line}"
    );
    assert!(!Path::new(out).exists(), "refused before the runs");
    // With --slurm the figures are drawn by `sweep collect`.
    let slurm = tmp.path().join("slurm");
    let line = expect_error(
        &sweep(&[
            "--plot",
            "--metric",
            "drops",
            "--slurm",
            slurm.to_str().unwrap(),
        ]),
        "--metric",
    );
    assert!(line.contains("collect"), "{line}");
    assert!(!slurm.exists(), "refused before the sweep was stored");
    // `run` draws a run's figures, which take no metric.
    let line = expect_error(
        &dcfab(&["run", "--out", out, "--plot", "--metric", "drops"]),
        "--metric",
    );
    assert!(line.contains("sweep"), "{line}");
    assert!(!Path::new(out).exists(), "refused before the run");
    // `plot` on a run's directory (no sweep.csv): no sweep figures, no runs.
    let dir = tmp.path().to_str().unwrap();
    let line = expect_error(&dcfab(&["plot", dir, "--metric", "drops"]), "--metric");
    assert!(line.contains("run's directory"), "{line}");
    let line = expect_error(&dcfab(&["plot", dir, "--runs"]), "--runs");
    assert!(line.contains("sweep"), "{line}");
    // `sweep collect --no-plot` draws nothing to choose metrics for.
    let line = expect_error(
        &dcfab(&["sweep", "collect", dir, "--no-plot", "--metric", "drops"]),
        "--metric",
    );
    assert!(line.contains("--no-plot"), "{line}");
}
