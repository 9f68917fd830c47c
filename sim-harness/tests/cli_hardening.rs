//! Issue 9 (hardening): one test per class of hostile input. Each would have caught the
//! class before the fix: overflowing unit conversions, a sweep grid given twice, hangs and
//! memory blow-ups from one small field, an uncapped `--jobs`, mixed output directories and
//! SIGTERM, misleading validation messages. Runs are tiny (8 hosts, short time limits).

mod common;
use common::{dcfab, expect_error};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `dcfab run --dry-run` on the built-in default with these `--set`s.
fn dry(sets: &[&str]) -> Output {
    let mut args = vec!["run", "--dry-run"];
    for s in sets {
        args.push("--set");
        args.push(s);
    }
    dcfab(&args)
}

/// `--set`s of a tiny run: 8 hosts, 64 KiB messages.
const TINY: [&str; 4] = [
    "topology.radix=4",
    "topology.tiers=2",
    "workload.message=64KiB",
    "stop.max_time_us=200",
];

fn run_tiny(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "--quiet", "--out", out.to_str().unwrap()];
    for s in TINY.iter().chain(extra) {
        args.push("--set");
        args.push(s);
    }
    dcfab(&args)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// Class 1: every conversion to ps / Q32 is bounded; the values of the issue are refused
/// with the field, the value and the range.
#[test]
fn unit_conversions_cannot_overflow() {
    let line = expect_error(
        &dry(&["topology.link_delay_ns=18446744073709552"]),
        "topology.link_delay_ns",
    );
    assert!(
        line.contains("18446744073709552 ns") && line.contains("1 s"),
        "{line}"
    );
    expect_error(
        &dry(&["topology.switch_latency_ns=18446744073709552"]),
        "topology.switch_latency_ns",
    );
    let line = expect_error(&dry(&["topology.link_gbps=0.005"]), "topology.link_gbps");
    assert!(line.contains("0.01 to 100000 Gb/s"), "{line}");
    // 68 KiB packets at 0.01 Gb/s would overflow the Q32 serialization: refused.
    let line = expect_error(
        &dry(&[
            "transport.mtu=65536",
            "transport.header_bytes=4096",
            "topology.link_gbps=0.01",
        ]),
        "topology.link_gbps",
    );
    assert!(line.contains("too slow"), "{line}");
    expect_error(
        &dry(&["failures.0.link=tor0.up0", "failures.0.at_us=1e300"]),
        "failures[0].at_us",
    );
    expect_error(
        &dry(&[
            "failures.0.link=tor0.up0",
            "failures.0.at_us=1",
            "failures.0.for_us=1e12",
        ]),
        "failures[0].for_us",
    );
    expect_error(
        &dry(&[
            "failures.0.link=tor0.up0",
            "failures.0.at_us=1",
            "failures.0.gbps=0.001",
        ]),
        "failures[0].gbps",
    );
    expect_error(&dry(&["stop.max_time_us=1e20"]), "stop.max_time_us");
    expect_error(&dry(&["transport.rto_us=1e9"]), "transport.rto_us");
    expect_error(
        &dry(&["topology.core_links=odd_only", "topology.link_gbps=0.5"]),
        "topology.slow_core_fraction",
    );
    expect_error(
        &dry(&["transport.dcsim.ack_every=70000"]),
        "transport.dcsim.ack_every",
    );
    // The limits themselves are accepted.
    let out = dry(&[
        "topology.link_delay_ns=1000000000",
        "topology.link_gbps=100000",
        "stop.max_time_us=1e9",
        "output.queue_sample_us=0",
        "output.selection_bucket_us=0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Class 2: one field given by two grids under two spellings, overlapping grids and a run
/// count that overflows are refused before anything is written.
#[test]
fn sweep_grids_are_distinct_and_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep");
    let o = out.to_str().unwrap();
    let base = [
        "--set",
        "failures.0.link=tor0.up0",
        "--set",
        "failures.0.at_us=1",
    ];
    let sweep = |grids: &[&str]| {
        let mut args = vec!["sweep", "--out", o];
        args.extend(base);
        for g in grids {
            args.push("--grid");
            args.push(g);
        }
        dcfab(&args)
    };
    let line = expect_error(
        &sweep(&["failures.0.at_us=1,2", "failures[0].at_us=3"]),
        "--grid",
    );
    assert!(line.contains("given twice"), "{line}");
    let line = expect_error(
        &sweep(&[
            "failures=[{link=\"tor0.up0\"; at_us=1}]",
            "failures.0.at_us=1,2",
        ]),
        "--grid",
    );
    assert!(
        line.contains("overlap") || line.contains("--grid"),
        "{line}"
    );
    let line = expect_error(
        &sweep(&["failures.0.at_us=1,2", "failures.0[at_us]=3"]),
        "--grid",
    );
    assert!(!line.is_empty());
    // 9 grids of 200 values: 200^9 runs overflows a 64-bit count.
    let values: Vec<String> = (0..200).map(|i| i.to_string()).collect();
    let values = values.join(",");
    let paths = [
        "seed",
        "topology.link_delay_ns",
        "topology.switch_latency_ns",
        "transport.mtu",
        "transport.header_bytes",
        "transport.evs_bits",
        "workload.degree",
        "workload.flows",
        "transport.dcsim.ack_every",
    ];
    let grids: Vec<String> = paths.iter().map(|p| format!("{p}={values}")).collect();
    let grids: Vec<&str> = grids.iter().map(String::as_str).collect();
    let line = expect_error(&sweep(&grids), "--grid");
    assert!(line.contains("at most 100000"), "{line}");
    assert!(!out.exists(), "nothing is written for a refused sweep");
}

/// Class 3: one small field cannot hang the run or exhaust memory; refusals name the field
/// and come back at once, from `--dry-run` as from a run. Long runs are warned about.
#[test]
fn one_small_field_cannot_hang_or_blow_up() {
    let start = Instant::now();
    for load in ["1e-14", "1e-13", "1e-12"] {
        let l = format!("workload.load={load}");
        let line = expect_error(&dry(&["workload.kind=websearch", &l]), "workload.load");
        assert!(line.contains("1000 s"), "{line}");
        let out = dcfab(&[
            "run",
            "--quiet",
            "--out",
            "/nonexistent-dcfab/x",
            "--set",
            "workload.kind=websearch",
            "--set",
            &l,
        ]);
        expect_error(&out, "workload.load");
    }
    let line = expect_error(
        &dry(&["output.queue_sample_us=1e-6"]),
        "output.queue_sample_us",
    );
    assert!(line.contains("0.001"), "{line}");
    expect_error(
        &dry(&["output.selection_bucket_us=1e-6"]),
        "output.selection_bucket_us",
    );
    // Allowed intervals over a long workload: terabytes of samples, refused on the field.
    let line = expect_error(
        &dry(&["output.queue_sample_us=0.001", "workload.message=8GiB"]),
        "output.queue_sample_us",
    );
    assert!(
        line.contains("memory") && line.contains("available"),
        "{line}"
    );
    expect_error(
        &dry(&["output.selection_bucket_us=0.001", "workload.message=8GiB"]),
        "output.selection_bucket_us",
    );
    // 8000 GB messages: accepted, with a warning carrying the estimate.
    let out = dry(&[
        "workload.message=8000GB",
        "output.queue_sample_us=0",
        "output.selection_bucket_us=0",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("warning: ") && err.contains("more than an hour") && err.contains("events"),
        "{err}"
    );
    // A message too large to ever finish at the link rate is refused.
    expect_error(
        &dry(&["workload.message=\"1000TB\"", "topology.link_gbps=0.01"]),
        "workload.message",
    );
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "refusals are immediate"
    );
}

/// Class 4: `--jobs` is capped.
#[test]
fn jobs_are_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("s");
    let line = expect_error(
        &dcfab(&[
            "sweep",
            "--grid",
            "seed=1,2",
            "--jobs",
            "100000",
            "--out",
            o.to_str().unwrap(),
        ]),
        "--jobs",
    );
    assert!(line.contains("100000") && line.contains("limit"), "{line}");
}

/// Class 5: a directory holds one run: a second run without a table removes the first
/// run's table file, and nothing is left beside the directory.
#[test]
fn a_rerun_leaves_no_stale_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("res");
    let first = run_tiny(&out, &["output.selection_bucket_us=10"]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(names(&out).contains(&"uplink_selection.csv".to_string()));
    let second = run_tiny(&out, &["output.selection_bucket_us=0"]);
    assert_eq!(second.status.code(), Some(0));
    let files = names(&out);
    assert!(
        !files.contains(&"uplink_selection.csv".to_string()),
        "stale file survived: {files:?}"
    );
    assert!(files.contains(&"summary.json".to_string()));
    assert_eq!(
        names(tmp.path()),
        ["res"],
        "no staging directory left beside it"
    );
    // A directory that is not a run is never replaced.
    std::fs::write(tmp.path().join("notes.txt"), "keep").unwrap();
    let line = expect_error(&run_tiny(tmp.path(), &[]), "--out");
    assert!(line.contains("not a dcfab output directory"), "{line}");
    assert!(tmp.path().join("notes.txt").exists());
}

/// Class 5: SIGTERM stops a long run like the first Ctrl-C: exit 143, a complete directory
/// with `interrupted: true`, replacing the previous run as a whole.
#[test]
fn sigterm_writes_a_complete_interrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("res");
    assert_eq!(
        run_tiny(&out, &["output.selection_bucket_us=10"])
            .status
            .code(),
        Some(0)
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(["run", "--quiet", "--out", out.to_str().unwrap()])
        .args([
            "--set",
            "workload.message=4GiB",
            "--set",
            "output.selection_bucket_us=0",
        ])
        .env("CI", "true")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(60);
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("dcfab did not stop within 60 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(code, Some(143));
    let files = names(&out);
    for f in [
        "summary.json",
        "flows.csv",
        "queues.csv",
        "links.csv",
        "scenario.toml",
    ] {
        assert!(files.contains(&f.to_string()), "{f} missing: {files:?}");
    }
    assert!(
        !files.contains(&"uplink_selection.csv".to_string()),
        "{files:?}"
    );
    let sum: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sum["interrupted"], true);
    assert_eq!(names(tmp.path()), ["res"]);
}

/// Class 6: the misleading messages of the issue now name the field, the value and what is
/// allowed, in the user's terms.
#[test]
fn validation_tells_the_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let f = file("a.toml", "topology = [1, 2]\n");
    let line = expect_error(&dcfab(&["run", "--dry-run", &f]), "topology");
    assert!(!line.contains("unit variant"), "{line}");
    assert!(line.contains("table"), "{line}");
    let f = file("b.toml", "[topology]\nbuffer = 2.5\n");
    let line = expect_error(&dcfab(&["run", "--dry-run", &f]), "topology.buffer");
    assert!(
        line.contains("2.5") && line.contains("whole number of bytes") && !line.contains("Raw"),
        "{line}"
    );
    let f = file("c.toml", "[workload]\nmessage = -1\n");
    let line = expect_error(&dcfab(&["run", "--dry-run", &f]), "workload.message");
    assert!(line.contains("-1") && line.contains("negative"), "{line}");
    let line = expect_error(
        &dry(&["workload.message=\"20000000000GB\""]),
        "workload.message",
    );
    assert!(
        line.contains("out of range") && line.contains("1 PB"),
        "{line}"
    );
    let line = expect_error(&dry(&["topology.link_gbps=1e-300"]), "topology.link_gbps");
    assert!(line.contains("1e-300") && line.contains("0.01"), "{line}");
    let line = expect_error(
        &dcfab(&["golden", "verify", "--dir", "/nonexistent-dcfab-golden"]),
        "--dir",
    );
    assert!(line.contains("does not exist"), "{line}");
    let line = expect_error(
        &dcfab(&["golden", "verify", "--dir", tmp.path().to_str().unwrap()]),
        "--dir",
    );
    assert!(line.contains("none of the"), "{line}");
}

/// Class 5 for sweeps: a second sweep into the same directory replaces the first as a whole
/// (a run directory of the first sweep that the second lacks does not survive).
#[test]
fn a_second_sweep_replaces_the_first() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sw");
    let sweep = |seeds: &str| {
        let mut args = vec![
            "sweep",
            "--quiet",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ];
        for s in &TINY {
            args.push("--set");
            args.push(s);
        }
        args.push("--grid");
        args.push(seeds);
        dcfab(&args)
    };
    let first = sweep("seed=1,2,3");
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(names(&out).len(), 4, "{:?}", names(&out));
    let second = sweep("seed=7");
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(names(&out), ["0-seed=7", "sweep.csv"]);
    assert_eq!(names(tmp.path()), ["sw"]);
}
