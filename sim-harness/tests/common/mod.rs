//! Helpers shared by the `dcfab` CLI tests: run the binary (with `CI=true`, so no progress
//! bar), and check its exit and its one-line errors; and by the trace tests, a run's outputs
//! without its trace. Each test file uses a subset.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `dcfab ARGS` in the current directory.
pub fn dcfab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(args)
        .env("CI", "true")
        .output()
        .expect("dcfab runs")
}

/// `dcfab ARGS` in `dir`.
pub fn dcfab_in(dir: &Path, args: &[&str]) -> Output {
    dcfab_env(dir, args, &[])
}

/// `dcfab ARGS` in `dir` with extra environment variables.
pub fn dcfab_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dcfab"));
    c.args(args).current_dir(dir).env("CI", "true");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("dcfab runs")
}

/// Assert exit 0; returns stdout.
#[track_caller]
pub fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Assert a clean one-line error that starts with `error: <field>: ` and says something after
/// it (exit 1, no panic); returns the line.
#[track_caller]
pub fn expect_error(out: &Output, field: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "exit code; stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one message expected, got: {err}");
    let prefix = format!("error: {field}: ");
    assert!(
        lines[0].starts_with(&prefix),
        "expected '{prefix}...', got: {err}"
    );
    assert!(
        lines[0].len() > prefix.len() + 5,
        "the message says what is wrong: {err}"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout");
    lines[0].to_string()
}

/// The tiny scenario of the CLI tests: 8 hosts (a 2-tier k = 4 fat tree at 100 Gb/s, 500 ns
/// links, 1-BDP buffers), seed 3, a permutation of `message` (e.g. `"64KiB"`), then `rest`
/// (the test's own sections, TOML).
pub fn tiny_scenario(message: &str, rest: &str) -> String {
    format!(
        r#"
name = "tiny"
seed = 3

[topology]
kind = "fat_tree"
tiers = 2
radix = 4
link_gbps = 100
link_delay_ns = 500
buffer = "1bdp"

[workload]
kind = "permutation"
message = "{message}"
{rest}"#
    )
}

/// Every output of `r` but the packet trace and its summary keys, and the wall-clock fields:
/// what a run with `output.trace` must leave as the run without it had it.
pub fn outputs_without_trace(r: &sim_harness::RunResult) -> String {
    let mut r = r.clone();
    r.trace = None;
    r.trace_file = None;
    r.summary.wall_s = 0.0;
    r.summary.events_per_s = 0.0;
    r.summary.data_packets_per_s = 0.0;
    r.summary.extra.remove("trace_records");
    r.summary.extra.remove("trace_truncated");
    serde_json::to_string(&r).unwrap()
}
