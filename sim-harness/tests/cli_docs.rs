//! README stays true: the quick-start commands match `.ci/run`, and every scenario field,
//! `summary.json` field and CSV column has a row in README's tables.

use sim_harness::output::{header_of, summary_file};
use sim_harness::results::{FlowRecord, LinkRecord, QueueSample, Summary};
use sim_harness::scenario::{Failure, Scenario};
use std::path::PathBuf;

fn repo_file(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The text of README section `heading` (up to the next heading of the same or higher level).
fn section(readme: &str, heading: &str) -> String {
    let start = readme
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no '{heading}'"));
    let level = heading.split(' ').next().unwrap();
    let rest = &readme[start + heading.len() + 2..];
    let mut end = rest.len();
    let mut pos = 0;
    for line in rest.split_inclusive('\n') {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 && hashes <= level.len() && line[hashes..].starts_with(' ') {
            end = pos;
            break;
        }
        pos += line.len();
    }
    rest[..end].to_string()
}

/// Shell commands in the ```sh blocks of a text.
fn sh_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.trim() == "```sh" {
            inside = true;
        } else if line.trim() == "```" {
            inside = false;
        } else if inside && !line.trim().is_empty() {
            out.push(line.trim().to_string());
        }
    }
    out
}

#[test]
fn quick_start_has_two_commands_and_ci_runs_the_test_one() {
    let readme = repo_file("README.md");
    let quick = sh_blocks(&section(&readme, "## Quick start"));
    assert_eq!(
        quick,
        [
            "cargo run --release -p sim-harness --bin dcfab -- run",
            "cargo test --workspace"
        ]
    );
    let ci = repo_file(".ci/run");
    assert!(ci.contains("set -euo pipefail"));
    let cargo_lines: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("cargo "))
        .collect();
    assert_eq!(
        cargo_lines.last().copied(),
        Some(quick[1].as_str()),
        ".ci/run ends with README's test command"
    );
    assert!(cargo_lines.contains(&"cargo fmt --all --check"));
    assert!(cargo_lines.contains(&"cargo clippy --workspace --all-targets -- -D warnings"));
}

/// The field names of the struct at `path` (`[]` = the scenario, `["failures[]"]` = one
/// failure), read from serde's `deny_unknown_fields` error for a probe key, so fields that
/// are not serialized by default (`Option`s) are listed too.
fn struct_fields(path: &[String]) -> Vec<String> {
    let mut probe = toml::Table::new();
    probe.insert("__probe".into(), toml::Value::Integer(1));
    let mut v = toml::Value::Table(probe);
    for seg in path.iter().rev() {
        let (key, array) = match seg.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (seg.as_str(), false),
        };
        if array {
            v = toml::Value::Array(vec![v]);
        }
        let mut t = toml::Table::new();
        t.insert(key.to_string(), v);
        v = toml::Value::Table(t);
    }
    let err = v.try_into::<Scenario>().unwrap_err().to_string();
    let list = err
        .split("expected one of ")
        .nth(1)
        .or_else(|| err.split("expected ").nth(1))
        .unwrap_or_else(|| panic!("no field list in: {err}"));
    let list = list.lines().next().unwrap();
    // "`a`, `b`, `c`" (one of), or "`a` or `b`" (two fields).
    list.split(", ")
        .flat_map(|f| f.split(" or "))
        .map(|f| f.trim().trim_matches('`').to_string())
        .collect()
}

/// Every documented path: `section.field`, `failures[].field`, and the containers.
fn field_paths() -> Vec<String> {
    let mut s = Scenario::default();
    s.failures.push(Failure {
        link: "tor0.up0".into(),
        at_us: 1.0,
        for_us: Some(1.0),
        gbps: Some(1.0),
        ..Default::default()
    });
    let defaults = toml::Value::try_from(&s).unwrap();
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = todo.pop() {
        // The default value of the struct at `path`, if serialized.
        let mut node = Some(&defaults);
        for seg in &path {
            node = node.and_then(|n| match seg.strip_suffix("[]") {
                Some(k) => n.get(k).and_then(|a| a.get(0)),
                None => n.get(seg.as_str()),
            });
        }
        for f in struct_fields(&path) {
            let value = node.and_then(|n| n.get(f.as_str()));
            let mut child = path.clone();
            let name = |c: &[String]| c.join(".");
            match value {
                Some(toml::Value::Table(_)) => {
                    child.push(f);
                    todo.push(child);
                }
                Some(toml::Value::Array(a)) if a.first().is_some_and(|e| e.is_table()) => {
                    child.push(f.clone());
                    out.push(name(&child));
                    child.pop();
                    child.push(format!("{f}[]"));
                    todo.push(child);
                }
                _ => {
                    child.push(f);
                    out.push(name(&child));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_scenario_field_is_documented() {
    let readme = repo_file("README.md");
    let doc = section(&readme, "## Scenario format");
    let paths = field_paths();
    assert!(paths.len() > 30, "{paths:?}");
    assert!(paths.contains(&"failures[].gbps".to_string()), "{paths:?}");
    assert!(paths.contains(&"topology.radix".to_string()), "{paths:?}");
    let missing: Vec<&String> = paths
        .iter()
        .filter(|p| !doc.contains(&format!("| `{p}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "README 'Scenario format' needs a row `| `path` | default | meaning |` for: {missing:?}"
    );
}

#[test]
fn every_output_column_is_documented() {
    let readme = repo_file("README.md");
    let check = |heading: &str, cols: Vec<String>| {
        let doc = section(&readme, heading);
        assert!(!cols.is_empty());
        for c in cols {
            assert!(
                doc.contains(&format!("| `{c}` |")),
                "README '{heading}' has no row for `{c}`"
            );
        }
    };
    let summary = serde_json::to_value(summary_file(
        &Scenario::default(),
        &Summary::default(),
        false,
    ))
    .unwrap();
    check(
        "### summary.json",
        summary.as_object().unwrap().keys().cloned().collect(),
    );
    check("### flows.csv", header_of::<FlowRecord>());
    check("### queues.csv", header_of::<QueueSample>());
    check("### links.csv", header_of::<LinkRecord>());
    check(
        "#### uplink_selection.csv",
        sim_harness::lb_stats::SELECTION_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .collect(),
    );
}
