//! `dcfab run` and `dcfab sweep` end to end on tiny scenarios (k=4 fat trees, small
//! messages): the output files, their provenance, determinism, `--set`, the default output
//! directory, sweeps, and Ctrl-C.

mod common;
use common::{dcfab_in, ok};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// 8 hosts (2-tier k=4 fat tree), permutation of 64 KiB messages.
fn tiny_toml() -> String {
    common::tiny_scenario("64KiB", "\n[output]\nqueue_sample_us = 1.0\n")
}

fn tiny(dir: &Path) -> String {
    let p = dir.join("tiny.toml");
    std::fs::write(&p, tiny_toml()).unwrap();
    p.to_str().unwrap().to_string()
}

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn json(p: impl AsRef<Path>) -> serde_json::Value {
    serde_json::from_str(&read(p)).unwrap()
}

/// Rows of a dcfab CSV: checks the provenance line, returns (header, rows).
fn csv_rows(p: impl AsRef<Path>, seed: u64) -> (Vec<String>, Vec<Vec<String>>) {
    let text = read(p);
    let mut lines = text.lines();
    let prov = lines.next().unwrap();
    assert_eq!(
        prov,
        format!(
            "# dcfab_version={} scenario=tiny seed={seed}",
            env!("CARGO_PKG_VERSION")
        )
    );
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn run_writes_every_output_with_provenance() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tiny(tmp.path());
    let stdout = ok(&dcfab_in(
        tmp.path(),
        &["run", &f, "--out", "res", "--seed", "5"],
    ));
    assert!(stdout.contains("scenario tiny"), "{stdout}");
    assert!(stdout.contains("8 of 8 completed"), "{stdout}");
    let res = tmp.path().join("res");

    let s = json(res.join("summary.json"));
    assert_eq!(s["seed"], 5);
    assert_eq!(s["scenario"], "tiny");
    assert_eq!(s["dcfab_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(s["interrupted"], false);
    assert_eq!(s["flows"], 8);
    assert_eq!(s["flows_completed"], 8);
    for k in [
        "max_fct_ps",
        "mean_fct_ps",
        "p99_fct_ps",
        "drops",
        "ecn_marks",
        "events",
        "wall_s",
        "events_per_s",
        "data_packets",
        "data_packets_per_s",
    ] {
        assert!(s.get(k).is_some(), "summary.json has {k}");
    }
    let mean = s["mean_fct_ps"].as_u64().unwrap();
    let max = s["max_fct_ps"].as_u64().unwrap();
    assert!(mean > 0 && mean <= max, "mean {mean} max {max}");
    // 64 KiB at 100 Gb/s is at least 5.2 us of serialization.
    assert!(max > 5_000_000, "max FCT {max} ps");
    assert!(s["data_packets"].as_u64().unwrap() >= 8 * 16);

    let (h, rows) = csv_rows(res.join("flows.csv"), 5);
    assert_eq!(rows.len(), 8);
    let (bytes, fct) = (col(&h, "bytes"), col(&h, "fct_ps"));
    let (src, dst) = (col(&h, "src"), col(&h, "dst"));
    for r in &rows {
        assert_eq!(r[bytes], "65536");
        assert!(r[fct].parse::<u64>().unwrap() > 0);
        assert_ne!(r[src], r[dst]);
    }
    csv_rows(res.join("queues.csv"), 5);
    let (h, links) = csv_rows(res.join("links.csv"), 5);
    assert!(!links.is_empty());
    col(&h, "utilization");

    let back: sim_harness::Scenario = toml::from_str(&read(res.join("scenario.toml"))).unwrap();
    assert_eq!(back.seed, 5);
    assert_eq!(back.name, "tiny");
    assert_eq!(back.topology.radix, 4);
    // No temporary files left behind.
    for e in std::fs::read_dir(&res).unwrap() {
        let n = e.unwrap().file_name().into_string().unwrap();
        assert!(!n.starts_with('.'), "leftover {n}");
    }
}

#[test]
fn same_seed_same_results_and_set_applies() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tiny(tmp.path());
    ok(&dcfab_in(tmp.path(), &["run", &f, "--out", "a", "--quiet"]));
    ok(&dcfab_in(tmp.path(), &["run", &f, "--out", "b", "--quiet"]));
    let a = read(tmp.path().join("a/flows.csv"));
    assert_eq!(
        a,
        read(tmp.path().join("b/flows.csv")),
        "bit-identical reruns"
    );
    assert_eq!(
        read(tmp.path().join("a/queues.csv")),
        read(tmp.path().join("b/queues.csv"))
    );

    let out = dcfab_in(
        tmp.path(),
        &[
            "run",
            &f,
            "--out",
            "c",
            "--quiet",
            "--set",
            "workload.message=16KiB",
        ],
    );
    assert!(ok(&out).is_empty(), "--quiet prints nothing");
    let (h, rows) = csv_rows(tmp.path().join("c/flows.csv"), 3);
    assert!(rows.iter().all(|r| r[col(&h, "bytes")] == "16384"));
    let back: sim_harness::Scenario =
        toml::from_str(&read(tmp.path().join("c/scenario.toml"))).unwrap();
    assert_eq!(
        back.workload.message,
        sim_harness::scenario::Size::Bytes(16384)
    );
}

#[test]
fn builtin_default_and_default_output_dir() {
    let tmp = tempfile::tempdir().unwrap();
    // The built-in default, shrunk by --set so the test stays fast.
    let out = dcfab_in(
        tmp.path(),
        &[
            "run",
            "--set",
            "topology.radix=4",
            "--set",
            "workload.message=8KiB",
        ],
    );
    ok(&out);
    assert!(out.stderr.is_empty(), "no progress bar without a terminal");
    let s = json(tmp.path().join("out/default/summary.json"));
    assert_eq!(s["scenario"], "default");
    assert_eq!(s["flows"], 16, "3-tier k=4 fat tree: 16 hosts");
}

#[test]
fn sweep_runs_the_cross_product() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tiny(tmp.path());
    let stdout = ok(&dcfab_in(
        tmp.path(),
        &[
            "sweep",
            &f,
            "--grid",
            "transport.lb=ecmp,ops",
            "--grid",
            "workload.message=8KiB,16KiB",
            "--set",
            "output.trace=true",
            "--jobs",
            "2",
            "--out",
            "sw",
        ],
    ));
    assert!(stdout.contains("sweep.csv"), "{stdout}");
    let text = read(tmp.path().join("sw/sweep.csv"));
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("# dcfab_version="));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..4],
        ["run", "transport.lb", "workload.message", "status"]
    );
    assert!(header.contains(&"mean_fct_ps") && header.contains(&"seed"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    let expect = [
        ("ecmp", "8KiB"),
        ("ecmp", "16KiB"),
        ("ops", "8KiB"),
        ("ops", "16KiB"),
    ];
    for (r, (lb, msg)) in rows.iter().zip(expect) {
        assert_eq!((r[1], r[2], r[3]), (lb, msg, "ok"));
        let dir = tmp.path().join("sw").join(r[0]);
        let s = json(dir.join("summary.json"));
        assert_eq!(s["flows_completed"], 8, "{}", r[0]);
        let back: sim_harness::Scenario = toml::from_str(&read(dir.join("scenario.toml"))).unwrap();
        assert_eq!(format!("{:?}", back.transport.lb).to_lowercase(), lb);
        // Each run wrote its trace into its own directory as it went.
        let trace = read(dir.join("trace.jsonl"));
        assert_eq!(
            (trace.lines().count() - 1) as f64,
            s["extra"]["trace_records"].as_f64().unwrap(),
            "{}",
            r[0]
        );
    }
    let left: Vec<String> = std::fs::read_dir(tmp.path().join("sw"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "staging left behind: {left:?}");
}

#[test]
fn ctrl_c_stops_and_still_writes() {
    let tmp = tempfile::tempdir().unwrap();
    // Far too big to finish in the test: 128 hosts each sending 1 GiB.
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args([
            "run",
            "--out",
            "big",
            "--set",
            "workload.message=1GiB",
            "--set",
            "name=big",
            // The trace of one host, written as the run goes: kept up to the interrupt.
            "--set",
            "output.trace=true",
            "--set",
            "output.trace_ports=[\"host0\"]",
        ])
        .current_dir(tmp.path())
        .env("CI", "true")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // The shell's builtin `kill`: no dependency on procps.
    let status = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the run did not stop within 60 s of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        code,
        Some(130),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let res = tmp.path().join("big");
    let s = json(res.join("summary.json"));
    assert_eq!(s["interrupted"], true);
    let done = s["flows_completed"].as_u64().unwrap();
    assert!(
        done < 128,
        "interrupted before all flows completed ({done})"
    );
    let flows = read(res.join("flows.csv"));
    assert_eq!(flows.lines().count(), 2 + 128, "every flow is listed");
    assert!(res.join("scenario.toml").is_file());
    let trace = read(res.join("trace.jsonl"));
    let records: Vec<&str> = trace.lines().skip(1).collect();
    assert_eq!(
        records.len() as f64,
        s["extra"]["trace_records"].as_f64().unwrap()
    );
    assert!(!records.is_empty() && records.iter().all(|l| l.contains("\"host0.")));
}
