//! The fabric's packet trace (`output.trace`, `engine/trace.rs`): its records agree with the
//! run's own counters, it changes no other output, its scope fields select exactly a subset
//! of the full trace, its cap truncates visibly, it exports to VCD, and bad scope fields are
//! refused by name. (Under Wormhole: `tests/wormhole.rs`,
//! `a_trace_of_a_skip_run_holds_what_it_simulates_and_moves_nothing`.)

mod common;

use common::outputs_without_trace;
use golden::schema::Trace;
use sim_harness::scenario::{CcKind, Loss, LossModel, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, RunControl, RunResult};
use std::collections::BTreeMap;

/// An incast of degree 6 into one host of a 2-tier radix-4 fat tree (8 hosts), 256 KiB
/// each, buffers of 8 packets: the receiver's ToR port queues and drops.
fn incast() -> Scenario {
    let mut s = Scenario {
        name: "trace_incast".into(),
        ..Scenario::default()
    };
    s.topology.tiers = 2;
    s.topology.radix = 4;
    s.topology.buffer = Size::Bytes(8 * 4160);
    s.workload.kind = WorkloadKind::Incast;
    s.workload.degree = 6;
    s.workload.message = Size::Bytes(256 << 10);
    s
}

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).unwrap()
}

fn traced(s: &Scenario) -> (RunResult, Trace) {
    let mut s = s.clone();
    s.output.trace = true;
    let r = run(&s);
    let t = Trace::from_jsonl(r.trace.as_deref().expect("a trace")).unwrap();
    (r, t)
}

/// `(port or host, signal)` of a record.
fn split(signal: &str) -> (&str, &str) {
    signal.rsplit_once('.').unwrap()
}

/// Records by (signal suffix, first word of the value: the packet kind).
fn counts(t: &Trace) -> BTreeMap<(String, bool, String), u64> {
    let mut c = BTreeMap::new();
    for r in &t.records {
        let (port, sig) = split(&r.signal);
        if let Some(v) = r.value.as_str() {
            let kind = v.split(' ').next().unwrap().to_string();
            *c.entry((sig.to_string(), port.starts_with("host"), kind))
                .or_default() += 1;
        }
    }
    c
}

/// Per port, its `tx` records and its `drop` records are `links.csv`'s `tx_packets` and
/// `drops` (every port, switch and host, whatever path sent the packet).
fn assert_links_match(r: &RunResult, t: &Trace, what: &str) {
    let mut tx: BTreeMap<&str, u64> = BTreeMap::new();
    let mut drops: BTreeMap<&str, u64> = BTreeMap::new();
    for x in &t.records {
        match split(&x.signal) {
            (p, "tx") => *tx.entry(p).or_default() += 1,
            (p, "drop") => *drops.entry(p).or_default() += 1,
            _ => {}
        }
    }
    for l in &r.links {
        let n = |m: &BTreeMap<&str, u64>| m.get(l.link.as_str()).copied().unwrap_or(0);
        assert_eq!(n(&tx), l.tx_packets, "{what}: tx records of {}", l.link);
        assert_eq!(n(&drops), l.drops, "{what}: drop records of {}", l.link);
    }
}

fn get(r: &RunResult, k: &str) -> f64 {
    r.summary.extra[k]
}

#[test]
fn trace_agrees_with_the_run_and_changes_nothing_else() {
    let s = incast();
    let plain = run(&s);
    assert!(plain.trace.is_none());
    let (r, t) = traced(&s);
    assert_eq!(
        outputs_without_trace(&plain),
        outputs_without_trace(&r),
        "the trace moved a result"
    );
    assert_eq!(t.header.block, "fabric");
    assert_eq!(t.header.seed, s.seed);
    assert_eq!(t.header.config["period_ps"], 1);
    assert_eq!(t.records.len() as f64, get(&r, "trace_records"));
    assert_eq!(get(&r, "trace_truncated"), 0.0);
    assert!(t.records.windows(2).all(|w| w[0].cycle <= w[1].cycle));
    let c = counts(&t);
    let n = |sig: &str, host: bool, kind: &str| {
        c.get(&(sig.to_string(), host, kind.to_string()))
            .copied()
            .unwrap_or(0)
    };
    assert_links_match(&r, &t, "DCTCP incast");
    // Every DATA a host sent (first copies and retransmissions) leaves its NIC once.
    assert_eq!(n("tx", true, "DATA"), r.summary.data_packets);
    assert!(
        r.summary.retransmits > 0 && r.summary.drops > 0,
        "a lossy incast"
    );
    // Every drop is a record, with its cause.
    let drops: u64 = c
        .iter()
        .filter(|((sig, _, _), _)| sig == "drop")
        .map(|(_, v)| v)
        .sum();
    assert_eq!(drops, r.summary.drops);
    let buffer_full = t
        .records
        .iter()
        .filter(|x| {
            x.value
                .as_str()
                .is_some_and(|v| v.ends_with("cause=buffer_full"))
        })
        .count() as u64;
    assert_eq!(buffer_full, r.summary.drops_by_cause["buffer_full"]);
    // Every DATA the receiver got crossed a switch port and reached it.
    assert_eq!(n("rx", true, "DATA"), get(&r, "data_delivered") as u64);
    // Its ToR port's buffer never holds more than the buffer, and fills up.
    let buffer = get(&r, "buffer_bytes") as u64;
    let q: Vec<u64> = t
        .records
        .iter()
        .filter(|x| split(&x.signal).1 == "queue_bytes")
        .map(|x| x.value.as_u64().unwrap())
        .collect();
    assert!(!q.is_empty());
    assert!(q.iter().all(|&b| b <= buffer), "a queue above the buffer");
    assert!(
        *q.iter().max().unwrap() + 4160 > buffer,
        "the incast fills a buffer"
    );
    // Same seed, same bytes.
    let (_, t2) = traced(&s);
    assert_eq!(t.to_jsonl(), t2.to_jsonl());
}

#[test]
fn scope_fields_select_a_subset_of_the_full_trace() {
    let s = incast();
    let (_, full) = traced(&s);
    let mut scoped = s.clone();
    scoped.output.trace_flows = vec![2];
    scoped.output.trace_ports = vec!["host2".into(), "tor0.down0".into(), "spine0.down0".into()];
    scoped.output.trace_from_us = 5.0;
    scoped.output.trace_until_us = 60.0;
    let (r, part) = traced(&scoped);
    let flow_of = |v: &str| -> Option<u32> {
        v.split(' ')
            .find_map(|w| w.strip_prefix("f="))
            .map(|f| f.parse().unwrap())
    };
    let ports = ["host2", "tor0.down0", "spine0.down0"];
    let keep = |x: &golden::schema::Record| {
        (5_000_000..60_000_000).contains(&x.cycle)
            && ports.contains(&split(&x.signal).0)
            && x.value.as_str().is_none_or(|v| flow_of(v) == Some(2))
    };
    let want: Vec<_> = full.records.iter().filter(|x| keep(x)).collect();
    // The queue records of a scoped trace are changes since its own last record: compare
    // the packet records one for one, the queue records by their values at those ports.
    let packets = |v: Vec<&golden::schema::Record>| -> Vec<golden::schema::Record> {
        v.into_iter()
            .filter(|x| x.value.is_string())
            .cloned()
            .collect()
    };
    let got = packets(part.records.iter().collect());
    assert!(got.len() > 10, "flow 2 sends through host2 in the window");
    assert_eq!(got, packets(want));
    assert!(part.records.iter().all(keep));
    assert_eq!(get(&r, "trace_truncated"), 0.0);
}

#[test]
fn the_cap_truncates_visibly() {
    let s = incast();
    let (_, full) = traced(&s);
    let mut capped = s.clone();
    capped.output.trace_max_records = 100;
    let (r, t) = traced(&capped);
    assert_eq!(t.records.len(), 100);
    assert_eq!(t.records[..], full.records[..100]);
    assert_eq!(get(&r, "trace_records"), 100.0);
    assert_eq!(get(&r, "trace_truncated"), 1.0);
}

#[test]
fn random_loss_and_dcsim_control_packets_are_traced() {
    let mut s = incast();
    s.loss.push(Loss {
        link: "tor0.up0".into(),
        model: LossModel::Bernoulli,
        rate: 0.05,
        ..Loss::default()
    });
    let (r, t) = traced(&s);
    let lost = t
        .records
        .iter()
        .filter(|x| {
            x.value
                .as_str()
                .is_some_and(|v| v.ends_with("cause=random_loss"))
        })
        .count() as u64;
    assert!(lost > 0);
    assert_eq!(lost, r.summary.drops_by_cause["random_loss"]);
    assert_links_match(&r, &t, "random loss");

    let mut d = incast();
    d.transport.cc = CcKind::Dcsim;
    let plain = run(&d);
    let (r, t) = traced(&d);
    assert_eq!(
        outputs_without_trace(&plain),
        outputs_without_trace(&r),
        "the trace moved a DCSIM result"
    );
    // DCSIM's switch ports start their packets on a path of their own (`port/dcsim.rs`):
    // traced there too.
    assert_links_match(&r, &t, "DCSIM incast");
    let c = counts(&t);
    for kind in ["SIM", "SIM_ACK", "DATA", "DATA_ACK"] {
        for host in [true, false] {
            let n = c.get(&("tx".into(), host, kind.into())).copied();
            assert!(n.unwrap_or(0) > 0, "no {kind} sent (host port: {host})");
        }
    }
}

#[test]
fn the_trace_exports_to_vcd_in_picoseconds() {
    let mut s = incast();
    s.output.trace_ports = vec!["tor0.down0".into()];
    let (_, t) = traced(&s);
    let vcd = golden::vcd::to_vcd_string(&t);
    assert!(vcd.contains("$timescale 1ps $end"));
    assert!(vcd.contains("queue_bytes"));
    let last = t.records.last().unwrap().cycle;
    assert!(vcd.contains(&format!("#{last}\n")));
}

#[test]
fn bad_scope_fields_are_refused_by_name() {
    type Mutation = Box<dyn Fn(&mut Scenario)>;
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "output.trace_flows",
            Box::new(|s| {
                s.output.trace = true;
                s.output.trace_flows = vec![6];
            }),
        ),
        (
            "output.trace_ports",
            Box::new(|s| {
                s.output.trace = true;
                s.output.trace_ports = vec!["tor9.up0".into()];
            }),
        ),
        (
            "output.trace_until_us",
            Box::new(|s| {
                s.output.trace = true;
                s.output.trace_from_us = 10.0;
                s.output.trace_until_us = 10.0;
            }),
        ),
        (
            "output.trace_from_us",
            Box::new(|s| {
                s.output.trace = true;
                s.output.trace_from_us = -1.0;
            }),
        ),
        (
            "output.trace_max_records",
            Box::new(|s| {
                s.output.trace = true;
                s.output.trace_max_records = 0;
            }),
        ),
        (
            "output.trace_flows",
            Box::new(|s| s.output.trace_flows = vec![0]),
        ),
        // A Zeropod run is traced on its region's ports (`zeropod/trace.rs`): a packet
        // engine port name is refused.
        (
            "output.trace_ports",
            Box::new(|s| {
                s.output.trace = true;
                s.output.trace_ports = vec!["tor0.up0".into()];
                s.topology.kind = sim_harness::scenario::TopologyKind::ZeropodPods;
                s.transport.cc = CcKind::Zeropod;
                s.topology.radix = 8;
                s.topology.hosts = 32;
            }),
        ),
    ];
    for (field, set) in cases {
        let mut s = incast();
        set(&mut s);
        let e = simulate(&s, &RunControl::default())
            .err()
            .unwrap_or_else(|| panic!("{field}: accepted"))
            .to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
}

/// A run given `RunControl::trace_dir` (what `dcfab run` and `dcfab sweep` give it: the
/// run's staging directory) writes `trace.jsonl` there as it goes instead of holding it
/// in memory: over several 1 MiB spool chunks, the file is byte for byte the text a run
/// without it returns, and every other output is the same.
#[test]
fn a_trace_written_as_the_run_goes_is_the_trace_held_in_memory() {
    let mut s = incast();
    s.workload.message = Size::Bytes(2 << 20);
    s.output.trace = true;
    let held = run(&s);
    let text = held.trace.as_deref().expect("a trace");
    assert!(
        text.len() > 3 << 20,
        "{} bytes: more than three chunks",
        text.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let ctl = RunControl {
        trace_dir: Some(dir.path()),
        ..RunControl::default()
    };
    let spooled = simulate(&s, &ctl).unwrap();
    assert!(spooled.trace.is_none(), "not held in memory");
    let file = spooled.trace_file.clone().expect("the trace's file");
    assert_eq!(file, dir.path().join("trace.jsonl"));
    assert!(
        std::fs::read_to_string(&file).unwrap() == text,
        "the same bytes"
    );
    assert_eq!(
        outputs_without_trace(&held),
        outputs_without_trace(&spooled)
    );
    // Without output.trace nothing is written there.
    s.output.trace = false;
    let plain = simulate(&s, &ctl).unwrap();
    assert!(plain.trace.is_none() && plain.trace_file.is_none());
    // A directory that does not exist is an error naming the file, not a lost trace.
    s.output.trace = true;
    let gone = dir.path().join("gone");
    let e = simulate(
        &s,
        &RunControl {
            trace_dir: Some(&gone),
            ..RunControl::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("gone/trace.jsonl"), "{e}");
}

#[test]
fn cli_writes_trace_jsonl_and_dcfab_trace_reads_it() {
    let dir = std::env::temp_dir().join(format!("dcfab_trace_cli_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("run");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(["run", "-q", "--set", "output.trace=true", "--set"])
        .arg("stop.max_time_us=3")
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(out.join("trace.jsonl")).unwrap();
    let t = Trace::from_jsonl(&text).unwrap();
    assert!(!t.records.is_empty());
    let vcd = dir.join("run.vcd");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .arg("trace")
        .arg(out.join("trace.jsonl"))
        .arg("--vcd")
        .arg(&vcd)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = std::fs::read_to_string(&vcd).unwrap();
    assert!(v.contains("$scope module host0 $end"));
    // The file is read record by record (golden::stream): the same VCD as the whole trace
    // gives, its JSON Lines back unchanged, and a bad --width or line named.
    let mut whole = Vec::new();
    golden::vcd::write_vcd(&t, &mut whole).unwrap();
    assert!(whole == v.as_bytes(), "streamed VCD = whole-trace VCD");
    let dcfab = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dcfab"))
            .arg("trace")
            .args(args)
            .output()
            .unwrap()
    };
    let file = out.join("trace.jsonl");
    let o = dcfab(&[file.as_os_str(), "--jsonl".as_ref(), "-".as_ref()]);
    assert!(o.status.success() && o.stdout == text.as_bytes());
    let o = dcfab(&[file.as_os_str(), "--width".as_ref(), "nope=3".as_ref()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--width: 'nope' is not a signal") && err.contains(" more"),
        "{err}"
    );
    let bad = dir.join("bad.jsonl");
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.len() - 1;
    lines.swap(1, last);
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let o = dcfab(&[bad.as_os_str(), "--vcd".as_ref(), vcd.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("line 3: cycle"),
        "{err}"
    );
    // --dry-run checks the trace's ports and flows against the fabric and the workload.
    for set in [
        r#"output.trace_ports=["tor0.nope"]"#,
        "output.trace_flows=[128]",
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcfab"))
            .args([
                "run",
                "--dry-run",
                "--set",
                "output.trace=true",
                "--set",
                set,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let field = set.split('=').next().unwrap();
        assert!(!o.status.success(), "{set}: accepted");
        assert!(err.contains(&format!("error: {field}: ")), "{set}: {err}");
    }
    // A run that fails after its staging directory was made (where its trace would have
    // gone) leaves neither it nor a changed run behind.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(["run", "-q", "--set", "output.trace=true", "--set"])
        .arg(r#"output.trace_ports=["tor0.nope"]"#)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(left.is_empty(), "staging left behind: {left:?}");
    assert_eq!(
        std::fs::read_to_string(out.join("trace.jsonl")).unwrap(),
        text
    );
    // A Zeropod run's trace has its region's ports: --dry-run checks against those, not
    // against the packet engine's fabric of the same topology.
    let zeropod = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/zeropod_multipod.toml"
    );
    for (set, ok) in [
        (r#"output.trace_ports=["tor0.down0"]"#, false),
        (r#"output.trace_ports=["core0.pod1","pod1.agg2.up3"]"#, true),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcfab"))
            .args(["run", zeropod, "--dry-run", "--set", "output.trace=true"])
            .args(["--set", set])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.success(), ok, "{set}: {err}");
        if !ok {
            assert!(
                err.contains("error: output.trace_ports: no port is named \"tor0.down0\""),
                "{err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
