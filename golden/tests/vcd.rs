//! VCD export, parsed back with the independent `vcd` crate: header, timescale, variable
//! declarations (kind and width) and the number and content of value changes.

use golden::vcd::{classify, to_vcd_string, write_vcd_with, VarKind, VcdOptions};
use golden::{registry, Recorder, Trace};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use vcd::{Command, ScopeItem, TimescaleUnit, VarType};

/// All variables of a parsed header, with their dotted scope path below the top scope.
fn collect_vars(items: &[ScopeItem], path: &str, out: &mut Vec<(String, vcd::Var)>) {
    for item in items {
        match item {
            ScopeItem::Var(v) => {
                let name = if path.is_empty() {
                    v.reference.clone()
                } else {
                    format!("{path}.{}", v.reference)
                };
                out.push((name, v.clone()));
            }
            ScopeItem::Scope(s) => {
                let p = if path.is_empty() {
                    s.identifier.clone()
                } else {
                    format!("{path}.{}", s.identifier)
                };
                collect_vars(&s.items, &p, out);
            }
            _ => {}
        }
    }
}

struct Parsed {
    header: vcd::Header,
    /// (dotted name without the top scope, var)
    vars: Vec<(String, vcd::Var)>,
    timestamps: Vec<u64>,
    /// (timestamp, id code, change text)
    changes: Vec<(u64, vcd::IdCode, String)>,
}

fn parse(text: &str) -> Parsed {
    let mut p = vcd::Parser::new(text.as_bytes());
    let header = p.parse_header().expect("VCD header parses");
    let mut all = Vec::new();
    collect_vars(&header.items, "", &mut all);
    // Strip the top (block) scope.
    let vars = all
        .into_iter()
        .map(|(n, v)| (n.split_once('.').map(|x| x.1.to_string()).unwrap_or(n), v))
        .collect();
    let mut timestamps = Vec::new();
    let mut changes = Vec::new();
    let mut now = 0;
    for cmd in p {
        match cmd.expect("VCD body parses") {
            Command::Timestamp(t) => {
                now = t;
                timestamps.push(t);
            }
            Command::ChangeScalar(id, v) => changes.push((now, id, format!("{v}"))),
            Command::ChangeVector(id, v) => changes.push((now, id, format!("b{v}"))),
            Command::ChangeReal(id, r) => changes.push((now, id, format!("r{r}"))),
            Command::ChangeString(id, s) => changes.push((now, id, format!("s{s}"))),
            _ => {}
        }
    }
    Parsed {
        header,
        vars,
        timestamps,
        changes,
    }
}

/// Expected (timestamps, number of value changes) computed directly from the trace: the
/// first cycle dumps every signal, later cycles count a signal when its last value in that
/// cycle differs from its previous value.
fn expected_changes(t: &Trace) -> (Vec<u64>, usize) {
    let mut per_cycle: BTreeMap<u64, BTreeMap<&str, &Value>> = BTreeMap::new();
    for r in &t.records {
        per_cycle
            .entry(r.cycle)
            .or_default()
            .insert(&r.signal, &r.value);
    }
    let nsig = t.signals().len();
    let mut cur: BTreeMap<&str, &Value> = BTreeMap::new();
    let mut count = 0;
    let mut stamps = Vec::new();
    for (i, (c, m)) in per_cycle.iter().enumerate() {
        stamps.push(*c);
        if i == 0 {
            count += nsig;
            cur.extend(m.iter().map(|(k, v)| (*k, *v)));
            continue;
        }
        for (k, v) in m {
            if cur.get(k) != Some(v) {
                count += 1;
                cur.insert(k, v);
            }
        }
    }
    (stamps, count)
}

fn check_against_trace(t: &Trace, text: &str) {
    let p = parse(text);
    let name = &t.header.block;
    assert!(p
        .header
        .version
        .as_deref()
        .unwrap()
        .starts_with("dcfab golden"));
    let period_ps = t.header.config.get("period_ps").and_then(Value::as_u64);
    let mult = period_ps.unwrap_or(1);
    let unit = if period_ps.is_some() {
        TimescaleUnit::PS
    } else {
        TimescaleUnit::NS
    };
    assert_eq!(p.header.timescale, Some((1, unit)), "{name}");
    // One variable per signal, in first-appearance order within each scope.
    let signals = t.signals();
    assert_eq!(p.vars.len(), signals.len(), "{name}");
    for sig in &signals {
        let (_, var) = p
            .vars
            .iter()
            .find(|(n, _)| n == sig)
            .unwrap_or_else(|| panic!("{name}: no $var for {sig}"));
        let kind = classify(
            t.records
                .iter()
                .filter(|r| r.signal == *sig)
                .map(|r| &r.value),
            None,
        );
        let (ty, size) = match kind {
            VarKind::Bit => (VarType::Wire, 1),
            VarKind::Unsigned(w) => (VarType::Wire, w),
            VarKind::Signed(w) => (VarType::Integer, w),
            VarKind::Real => (VarType::Real, 64),
            VarKind::Str => (VarType::String, 1),
        };
        assert_eq!((var.var_type, var.size), (ty, size), "{name}.{sig}");
    }
    let (stamps, count) = expected_changes(t);
    let stamps: Vec<u64> = stamps.iter().map(|c| c * mult).collect();
    assert_eq!(p.timestamps, stamps, "{name}");
    assert_eq!(p.changes.len(), count, "{name}");
}

#[test]
fn every_golden_trace_exports_to_a_parseable_vcd() {
    for s in registry::all() {
        let t = (s.run)();
        check_against_trace(&t, &to_vcd_string(&t));
    }
}

#[test]
fn value_kinds_scopes_and_changes() {
    let mut r = Recorder::new("Demo Block", json!({"x": 1}), 9, "all value kinds");
    r.record(0, "port0.valid", true);
    r.record(0, "port0.queue_bytes", 4096u32);
    r.record(0, "delta", -3i64);
    r.record(0, "ratio", 0.5);
    r.record(0, "state", "IDLE");
    r.record(3, "port0.valid", false);
    r.record(3, "port0.queue_bytes", 4096u32); // unchanged: no change line
    r.record(3, "delta", 2i64);
    r.record(3, "state", "SEND DATA");
    r.record(5, "ratio", Value::Null);
    r.record(5, "port1.drops", 7u8);
    let t = r.finish();
    let text = to_vcd_string(&t);
    let p = parse(&text);
    let find = |n: &str| p.vars.iter().find(|(m, _)| m == n).unwrap().1.clone();
    assert_eq!(
        p.header
            .find_scope(&["Demo_Block", "port0"])
            .unwrap()
            .items
            .len(),
        2
    );
    let valid = find("port0.valid");
    assert_eq!((valid.var_type, valid.size), (VarType::Wire, 1));
    let q = find("port0.queue_bytes");
    assert_eq!((q.var_type, q.size), (VarType::Wire, 13));
    let d = find("delta");
    assert_eq!((d.var_type, d.size), (VarType::Integer, 3));
    assert_eq!(find("ratio").var_type, VarType::Real);
    assert_eq!(find("state").var_type, VarType::String);
    assert_eq!(find("port1.drops").size, 3);
    assert_eq!(p.timestamps, vec![0, 3, 5]);
    let text_of = |name: &str, at: u64| -> Vec<String> {
        let code = find(name).code;
        p.changes
            .iter()
            .filter(|(t, c, _)| *t == at && *c == code)
            .map(|(_, _, s)| s.clone())
            .collect()
    };
    assert_eq!(text_of("port0.valid", 0), vec!["1"]);
    assert_eq!(text_of("port0.valid", 3), vec!["0"]);
    assert_eq!(text_of("port0.queue_bytes", 0), vec!["b1000000000000"]);
    assert!(text_of("port0.queue_bytes", 3).is_empty());
    assert_eq!(text_of("delta", 0), vec!["b101"]);
    assert_eq!(text_of("delta", 3), vec!["b10"]);
    assert_eq!(text_of("state", 3), vec!["sSEND_DATA"]);
    assert_eq!(text_of("port1.drops", 0), vec!["bx"]);
    assert_eq!(text_of("port1.drops", 5), vec!["b111"]);
    // 6 initial values + 3 changes at cycle 3 + 2 at cycle 5.
    assert_eq!(p.changes.len(), 6 + 3 + 2);
    check_against_trace(&t, &text);
}

#[test]
fn forced_width_and_period() {
    let mut r = Recorder::new("B", json!({"period_ps": 1250}), 0, "");
    r.record(0, "v", 1u32);
    r.record(2, "v", 2u32);
    let t = r.finish();
    let mut opts = VcdOptions::default();
    opts.widths.insert("v".into(), 16);
    let mut buf = Vec::new();
    write_vcd_with(&t, &mut buf, &opts).unwrap();
    let p = parse(std::str::from_utf8(&buf).unwrap());
    assert_eq!(p.header.timescale, Some((1, TimescaleUnit::PS)));
    assert_eq!(p.vars[0].1.size, 16);
    assert_eq!(p.timestamps, vec![0, 2500]);
}

/// `golden::stream` (a trace file read record by record, for traces larger than memory)
/// writes the bytes the whole-trace writers write: the VCD of `write_vcd_with` (with a
/// forced width too) and the JSON Lines of `to_jsonl`, for every golden trace and a trace
/// of every value kind; a bad file is refused with `Trace::from_jsonl`'s message.
#[test]
fn a_trace_file_streamed_exports_the_same_bytes() {
    use golden::stream::{scan, write_jsonl, write_vcd, StreamError};
    let dir = tempfile::tempdir().unwrap();
    let mut r = Recorder::new(
        "Demo Block",
        json!({"b": 1, "a": {"z": 2, "y": 3}}),
        9,
        "kinds",
    );
    r.record(0, "port0.valid", true);
    r.record(0, "delta", -3i64);
    r.record(0, "state", json!({"k": 2, "j": [1, 2]}));
    r.record(3, "port0.valid", false);
    r.record(3, "delta", 2i64);
    r.record(3, "delta", 5i64); // the last value of a cycle wins
    r.record(5, "ratio", 0.25);
    r.record(5, "ratio", Value::Null);
    let mut traces: Vec<Trace> = registry::all().iter().map(|s| (s.run)()).collect();
    traces.push(r.finish());
    for (i, t) in traces.iter().enumerate() {
        let path = dir.path().join(format!("t{i}.jsonl"));
        // A blank line in the file is skipped, as from_jsonl skips it.
        std::fs::write(&path, t.to_jsonl().replacen('\n', "\n\n", 1)).unwrap();
        let s = scan(&path).unwrap();
        assert_eq!(s.records, t.records.len() as u64);
        assert_eq!(s.signals.names(), t.signals());
        let mut opts = VcdOptions::default();
        if let Some(sig) = t.signals().first() {
            opts.widths.insert(sig.to_string(), 64);
        }
        let mut want = Vec::new();
        write_vcd_with(t, &mut want, &opts).unwrap();
        let mut got = Vec::new();
        write_vcd(&path, &s, &opts, &mut got).unwrap();
        assert!(got == want, "trace {i} ({}): VCD differs", t.header.block);
        let mut jsonl = Vec::new();
        write_jsonl(&path, &mut jsonl).unwrap();
        assert_eq!(String::from_utf8(jsonl).unwrap(), t.to_jsonl(), "trace {i}");
    }
    let t = &traces[traces.len() - 1];
    let good = t.to_jsonl();
    let mut lines: Vec<&str> = good.lines().collect();
    let last = lines.len() - 1;
    lines.swap(1, last);
    let back = lines.join("\n");
    for bad in [
        String::new(),
        "{\"schema_version\": 99}".to_string(),
        good.replacen("\"cycle\":3", "\"cycle\":\"x\"", 1),
        back,
    ] {
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, &bad).unwrap();
        let want = Trace::from_jsonl(&bad).unwrap_err();
        match scan(&path) {
            Err(StreamError::Parse(p)) => assert_eq!(p, want),
            other => panic!("{want}: got {other:?}"),
        }
    }
    let gone = dir.path().join("gone.jsonl");
    assert!(matches!(scan(&gone), Err(StreamError::Read(_))));
}
