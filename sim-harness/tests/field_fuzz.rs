//! Hostile values in every scenario field: for every field path (found through serde, as
//! `cli_docs.rs` does, including the per-transport sections and the entries of `[[loss]]`
//! and `[[failures]]`), a bounded set of values its type makes hostile goes through what
//! `dcfab run --dry-run` does (`overrides::resolve`, `estimate::check`,
//! `output::scenario_toml`), in-process, on a shipped scenario where the field matters.
//! Each must be accepted or refused with an error that names the field (and prints a number
//! like `1e30` as written, not as its 31 digits); none may panic.
//!
//! `explore` (ignored) sends every value to every field on every base and prints a table of
//! the outcomes, for audits (`cargo test -p sim-harness --test field_fuzz -- --ignored
//! --nocapture`).

use sim_harness::overrides::{self, Override, Source};
use sim_harness::scenario::Scenario;
use sim_harness::{estimate, output, Error};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use toml::{Table, Value};

/// A scenario a field is tried on: a shipped file (or the built-in default) plus `--set`s.
struct Base {
    name: &'static str,
    file: Option<&'static str>,
    sets: &'static [&'static str],
}

const BASES: &[Base] = &[
    Base {
        name: "default",
        file: None,
        sets: &[],
    },
    Base {
        name: "uno",
        file: Some("uno_fairness.toml"),
        sets: &[],
    },
    Base {
        name: "uno_loss",
        file: Some("uno_failures.toml"),
        sets: &["loss.0={ link = \"inter_dc\", model = \"bernoulli\", rate = 0.01, at_us = 1 }"],
    },
    Base {
        name: "wormhole",
        file: Some("wormhole_gpt_64.toml"),
        sets: &[],
    },
    Base {
        name: "zeropod",
        file: Some("zeropod_incast.toml"),
        sets: &[],
    },
    Base {
        name: "dcsim",
        file: Some("dcsim_a2av.toml"),
        sets: &[],
    },
    Base {
        name: "failures",
        file: Some("failure_link.toml"),
        sets: &[],
    },
    Base {
        name: "pfabric",
        file: Some("dcsim_figs/fig5_all_to_all.toml"),
        sets: &["transport.cc=pfabric"],
    },
    Base {
        name: "phost",
        file: Some("dcsim_figs/fig5_all_to_all.toml"),
        sets: &["transport.cc=phost"],
    },
    Base {
        name: "dcpim",
        file: Some("dcsim_figs/fig5_all_to_all.toml"),
        sets: &["transport.cc=dcpim"],
    },
];

/// The base where a field matters (the first matching prefix; else the default).
fn base_of(path: &str) -> &'static str {
    const ROUTES: &[(&str, &str)] = &[
        ("transport.uno.", "uno"),
        ("workload.two_dc.", "uno"),
        ("topology.two_dc.", "uno"),
        ("loss", "uno_loss"),
        ("skip.", "wormhole"),
        ("workload.llm", "wormhole"),
        ("transport.zeropod.", "zeropod"),
        ("topology.zeropod", "zeropod"),
        ("transport.dcsim", "dcsim"),
        ("failures", "failures"),
        ("transport.pfabric.", "pfabric"),
        ("transport.phost.", "phost"),
        ("transport.dcpim.", "dcpim"),
    ];
    ROUTES
        .iter()
        .find(|(p, _)| path.starts_with(p))
        .map_or("default", |(_, b)| b)
}

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("scenarios")
}

fn base_table(b: &Base) -> Table {
    let t = match b.file {
        None => overrides::read_table(Source::BuiltIn),
        Some(f) => overrides::read_table(Source::File(&scenarios_dir().join(f))),
    }
    .unwrap();
    let mut t = t;
    for s in b.sets {
        Override::parse(s, "--set").unwrap().apply(&mut t).unwrap();
    }
    // The base itself must pass, or every value would be refused for another reason.
    let s = overrides::resolve(t.clone(), &[]).unwrap_or_else(|e| panic!("base {}: {e}", b.name));
    estimate::check(&s, AVAILABLE).unwrap();
    t
}

/// The memory `estimate::check` is told about: fixed, so the test does not depend on the
/// machine, and unbounded, so that verdict (a run too big for this machine, blamed on its
/// largest consumer, not on a bad value) does not hide what validation says of a value.
const AVAILABLE: u64 = u64::MAX;

/// What `dcfab run --dry-run` does after loading.
fn dry_run(table: Table, o: &Override) -> Result<(), Error> {
    let s: Scenario = overrides::resolve(table, std::slice::from_ref(o))?;
    estimate::check(&s, AVAILABLE)?;
    output::scenario_toml(&s)?;
    Ok(())
}

/// Whether the struct at `path` (segments; `x[]` = an entry of array `x`) takes a key:
/// the field names from serde's `deny_unknown_fields` error for a probe key, or None when
/// the value at `path` is not a struct.
fn struct_fields(path: &[String]) -> Option<Vec<String>> {
    let mut probe = Table::new();
    probe.insert("__probe".into(), Value::Integer(1));
    let mut v = Value::Table(probe);
    for seg in path.iter().rev() {
        let (key, array) = match seg.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (seg.as_str(), false),
        };
        if array {
            v = Value::Array(vec![v]);
        }
        let mut t = Table::new();
        t.insert(key.to_string(), v);
        v = Value::Table(t);
    }
    let err = v.try_into::<Scenario>().err()?.to_string();
    if !err.contains("unknown field `__probe`") {
        return None;
    }
    let list = err
        .split("expected one of ")
        .nth(1)
        .or_else(|| err.split("expected ").nth(1))?;
    let list = list.lines().next()?;
    Some(
        list.split(", ")
            .flat_map(|f| f.split(" or "))
            .map(|f| f.trim().trim_matches('`').to_string())
            .collect(),
    )
}

/// Every leaf field path, `a.b.c` with `x.0` for an entry of array `x` (what `--set` takes).
fn field_paths() -> Vec<String> {
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = todo.pop() {
        let fields = struct_fields(&path).expect("a struct");
        for f in fields {
            let mut child = path.clone();
            child.push(f.clone());
            if struct_fields(&child).is_some() {
                todo.push(child);
                continue;
            }
            child.pop();
            child.push(format!("{f}[]"));
            if struct_fields(&child).is_some() {
                todo.push(child);
                continue;
            }
            child.pop();
            child.push(f);
            out.push(
                child
                    .iter()
                    .map(|s| s.replace("[]", ".0"))
                    .collect::<Vec<_>>()
                    .join("."),
            );
        }
    }
    out.sort();
    out
}

/// The field's path as errors spell it: `loss[0].rate` for `loss.0.rate`, and a deprecated
/// alias by the field it sets (`transport.dcsim_h` -> `transport.dcsim.h`).
fn error_path(path: &str) -> String {
    let p = path.replace(".0.", "[0].");
    for section in ["dcsim", "reps"] {
        if let Some(rest) = p.strip_prefix(&format!("transport.{section}_")) {
            return format!("transport.{section}.{rest}");
        }
    }
    p
}

/// Whether error `msg` names field `path`: in its field part, or (a constraint between
/// fields of one section, reported on one of them) by the field's name in the problem, as
/// `transport.uno.ec_data: ec_data must be at least 1 and ec_data + ec_parity at most 16`.
fn names_field(msg: &str, path: &str) -> bool {
    let want = error_path(path);
    if msg.contains(&want) || msg.contains(path) {
        return true;
    }
    let (section, name) = want.rsplit_once('.').unwrap_or(("", &want));
    let Some((field, problem)) = msg.split_once(": ") else {
        return false;
    };
    field.starts_with(section)
        && problem
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == name)
}

/// The value at `path` in a resolved scenario, to pick the values its type makes hostile.
fn current<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = root;
    for seg in path.split('.') {
        v = match seg.parse::<usize>() {
            Ok(i) => v.get(i)?,
            Err(_) => v.get(seg)?,
        };
    }
    Some(v)
}

/// Values hostile to every field: wrong types, and the edge numbers.
const ANY: &[&str] = &[
    "0",
    "-1",
    "1e30",
    "-1e30",
    "1e-30",
    "nan",
    "inf",
    "-inf",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "4294967296",
    "\"\"",
    "\"bogus_name\"",
    "{ a = 1 }",
    "[]",
    "true",
];
/// Extra values for a string field (sizes with units, enum names).
const STRINGS: &[&str] = &[
    "\"0\"",
    "\"0B\"",
    "\"-1KB\"",
    "\"1e30GiB\"",
    "\"99999999999999999999TB\"",
    "\"nanbdp\"",
    "\"infbdp\"",
    "\"0bdp\"",
    "\"-1bdp\"",
    "\"1e-30bdp\"",
    "\"1e30bdp\"",
];
/// Extra values for an array field.
const ARRAYS: &[&str] = &[
    "[0]",
    "[-1]",
    "[nan]",
    "[1e30]",
    "[4294967296]",
    "[\"bogus\"]",
    "[0, 0]",
    "[{ a = 1 }]",
];
/// Extra values for a number field.
const NUMBERS: &[&str] = &["0.5", "1", "2", "65536", "1e9", "-0.5"];

fn hostile_values(kind: Option<&Value>) -> Vec<&'static str> {
    let mut v: Vec<&str> = ANY.to_vec();
    match kind {
        Some(Value::String(_)) => v.extend(STRINGS),
        Some(Value::Array(_)) => v.extend(ARRAYS),
        Some(Value::Integer(_) | Value::Float(_)) => v.extend(NUMBERS),
        Some(_) => {}
        // An absent Option: any type may be right.
        None => {
            v.extend(STRINGS);
            v.extend(ARRAYS);
            v.extend(NUMBERS);
        }
    }
    v
}

/// One try: Ok(None) accepted, Ok(Some(msg)) refused, Err(msg) a panic.
fn attempt(table: &Table, path: &str, raw: &str) -> Result<Option<String>, String> {
    let o = Override::parse(&format!("{path}={raw}"), "--set").expect("parses");
    let t = table.clone();
    match catch_unwind(AssertUnwindSafe(|| dry_run(t, &o))) {
        Ok(Ok(())) => Ok(None),
        Ok(Err(e)) => Ok(Some(e.to_string())),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())),
    }
}

fn resolved_value(table: &Table) -> Value {
    let s = overrides::resolve(table.clone(), &[]).unwrap();
    Value::try_from(&s).unwrap()
}

/// The problems in the outcomes of `path` on `base`: panics, and errors that do not name
/// the field. Returns the number of values tried.
fn check_field(table: &Table, resolved: &Value, path: &str, problems: &mut Vec<String>) -> usize {
    let values = hostile_values(current(resolved, path));
    for &raw in &values {
        match attempt(table, path, raw) {
            Ok(None) => {}
            Ok(Some(msg)) => {
                if !names_field(&msg, path) {
                    problems.push(format!(
                        "{path}={raw}: error does not name the field: {msg}"
                    ));
                }
                if longest_digit_run(&msg) > MAX_DIGITS {
                    problems.push(format!(
                        "{path}={raw}: error prints a number in full (1e30 as 31 digits): {msg}"
                    ));
                }
            }
            Err(p) => problems.push(format!("{path}={raw}: PANIC: {p}")),
        }
    }
    values.len()
}

/// The most digits in a row an error may print: every 64-bit integer fits (20); a float
/// like `1e30` is printed as written (`crate::units::num`), not as its 31 digits.
const MAX_DIGITS: usize = 24;

fn longest_digit_run(msg: &str) -> usize {
    msg.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn the_field_list_reaches_every_section() {
    let paths = field_paths();
    for p in [
        "topology.radix",
        "transport.uno.ec",
        "transport.zeropod.cores",
        "transport.dcsim.variant",
        "transport.dcsim_h",
        "transport.pfabric.window_bdp",
        "transport.phost.token_window_bdp",
        "transport.dcpim.rounds",
        "skip.enabled",
        "loss.0.place",
        "failures.0.gbps",
        "workload.two_dc.intra_senders",
        "workload.llm.bytes_scale",
        "stop.max_time_us",
    ] {
        assert!(paths.iter().any(|x| x == p), "{p} missing from {paths:?}");
    }
    assert!(paths.len() > 150, "{}: {paths:?}", paths.len());
}

#[test]
fn every_field_takes_hostile_values_without_a_panic() {
    let paths = field_paths();
    let bases: Vec<(&Base, Table, Value)> = BASES
        .iter()
        .map(|b| {
            let t = base_table(b);
            let v = resolved_value(&t);
            (b, t, v)
        })
        .collect();
    quiet_panics();
    let mut problems = Vec::new();
    let mut tried = 0;
    for path in &paths {
        let name = base_of(path);
        let (_, table, resolved) = bases.iter().find(|(b, ..)| b.name == name).unwrap();
        tried += check_field(table, resolved, path, &mut problems);
    }
    let _ = std::panic::take_hook();
    assert!(
        tried > 20 * paths.len(),
        "{tried} values on {} fields",
        paths.len()
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every value on every field on every base: a table of outcomes (audits only).
#[test]
#[ignore]
fn explore() {
    let paths = field_paths();
    quiet_panics();
    let mut accepted = Vec::new();
    for b in BASES {
        let table = base_table(b);
        let resolved = resolved_value(&table);
        let mut problems = Vec::new();
        for path in &paths {
            check_field(&table, &resolved, path, &mut problems);
            for raw in hostile_values(current(&resolved, path)) {
                if let Ok(None) = attempt(&table, path, raw) {
                    accepted.push(format!("{}\t{path}\t{raw}", b.name));
                }
            }
        }
        for p in problems {
            println!("{}\t{p}", b.name);
        }
    }
    let _ = std::panic::take_hook();
    let out = std::env::var("FIELD_FUZZ_ACCEPTED").unwrap_or("/tmp/fuzz13/accepted.tsv".into());
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&out, accepted.join("\n") + "\n").unwrap();
    println!("{} paths; accepted values written to {out}", paths.len());
}

/// The findings of the session-13 audit, one case each: refused before a run, naming the
/// field (each was a panic, a refusal only once the run started, or an error naming another
/// field).
#[test]
fn audit_findings_stay_fixed() {
    let base = |name: &str| base_table(BASES.iter().find(|b| b.name == name).unwrap());
    let cases: &[(&str, &str, &str, &str)] = &[
        // A panic (multiply overflow) building the DCSIM parameters.
        (
            "dcsim",
            "transport.dcsim.data_buffer_ratio",
            "1e30",
            "transport.dcsim.data_buffer_ratio: ",
        ),
        // Accepted by validation, then a panic in the steady detector (theta in ppm).
        ("wormhole", "skip.theta", "1e-30", "skip.theta: "),
        // Accepted by validation, then refused by the run naming transport.rto_us.
        (
            "default",
            "transport.reps.failure_rtt_multiple",
            "0.5",
            "transport.reps.failure_rtt_multiple: ",
        ),
        // `loss.place: ...` named no entry.
        ("uno_loss", "loss.0.place", "\"bogus\"", "loss[0].place: "),
        // Named workload.two_dc.rpc_gap_us.
        (
            "uno",
            "workload.two_dc.rpc_start_us",
            "1e30",
            "workload.two_dc.rpc_start_us: ",
        ),
        // Named topology.phantom_drain.
        (
            "uno_loss",
            "topology.buffer",
            "4294967296",
            "topology.buffer: ",
        ),
        // Named transport.dcsim.data_buffer (the DATA buffer is the port buffer's rest).
        (
            "dcsim",
            "topology.buffer",
            "4294967296",
            "topology.buffer: ",
        ),
        // Accepted by validation, then refused by the run's build: the time rounds to 0 ps
        // of the pHost blocks' clock, or passes their 32 bits (1000 base RTTs of 7.4 us).
        (
            "phost",
            "transport.phost.downgrade_rtts",
            "1e-30",
            "transport.phost.downgrade_rtts: gives 0 ps",
        ),
        (
            "phost",
            "transport.phost.downgrade_rtts",
            "1000",
            "transport.phost.downgrade_rtts: gives 7447680000 ps",
        ),
        (
            "phost",
            "transport.phost.downgrade_timeout_rtts",
            "1000",
            "transport.phost.downgrade_timeout_rtts: gives ",
        ),
        (
            "phost",
            "transport.phost.token_window_timeout_rtts",
            "1000",
            "transport.phost.token_window_timeout_rtts: gives ",
        ),
    ];
    for (b, path, raw, want) in cases {
        let msg = attempt(&base(b), path, raw)
            .unwrap_or_else(|p| panic!("{path}={raw}: panic: {p}"))
            .unwrap_or_else(|| panic!("{path}={raw}: accepted"));
        assert!(msg.starts_with(want), "{path}={raw}: {msg}");
    }
    // A quoted string of digits is a string, not "too large for an integer".
    let msg = attempt(&base("default"), "topology.link_gbps", "\"0\"")
        .unwrap()
        .unwrap();
    assert!(
        msg.contains("invalid type: string") && !msg.contains("too large"),
        "{msg}"
    );
}
