//! Every registered golden scenario, re-run and held to its checked-in trace
//! (`golden/traces/<name>.jsonl`) and to its `insta` snapshot.
//!
//! To re-bless on purpose: `dcfab golden bless` (or `GOLDEN_BLESS=1 cargo test -p golden
//! --test golden`), then `INSTA_UPDATE=always cargo test -p golden --test golden` for the
//! snapshots, and review the diff.

use golden::{registry, traces_dir, Trace};

#[test]
fn every_scenario_matches_its_checked_in_trace() {
    let dir = traces_dir();
    if std::env::var_os("GOLDEN_BLESS").is_some() {
        let changed = golden::bless_all(&dir).expect("write traces");
        eprintln!("blessed: {changed:?}");
    }
    let outcomes = golden::verify_all(&dir);
    assert_eq!(outcomes.len(), registry::all().len());
    let failures: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.matched)
        .map(|o| {
            format!(
                "{}: {}",
                o.name,
                o.first_difference.as_deref().unwrap_or("mismatch")
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "golden traces differ (re-bless with `dcfab golden bless` if intended):\n{}",
        failures.join("\n")
    );
    // No stale trace files without a scenario.
    assert_eq!(golden::orphans(&dir).unwrap(), Vec::<String>::new());
}

#[test]
fn checked_in_traces_parse_and_name_their_block() {
    for s in registry::all() {
        let path = golden::trace_path(&traces_dir(), s.name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // reported by the test above
        };
        let t = Trace::from_jsonl(&text).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(
            t.header.schema_version,
            golden::SCHEMA_VERSION,
            "{}",
            s.name
        );
        assert!(!t.header.block.is_empty(), "{}", s.name);
        assert!(!t.records.is_empty(), "{} has no records", s.name);
        assert_eq!(t.to_jsonl(), text.replace("\r\n", "\n"), "{}", s.name);
    }
}

#[test]
fn snapshots() {
    for s in registry::all() {
        let jsonl = (s.run)().to_jsonl();
        insta::with_settings!({ description => s.description, omit_expression => true }, {
            insta::assert_snapshot!(s.name, jsonl);
        });
    }
}
