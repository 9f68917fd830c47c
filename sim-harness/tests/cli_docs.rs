//! README stays true: the quick-start commands match `.ci/run`, every scenario field,
//! `summary.json` field and CSV column has a row in README's tables, and every relative link
//! of README.md, benches/README.md and docs/*.md reaches an existing file and heading.

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
        "#### skip_flows.csv",
        sim_harness::engine::SKIP_FLOWS_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .collect(),
    );
    check(
        "#### uplink_selection.csv",
        sim_harness::lb_stats::SELECTION_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .collect(),
    );
}

/// GitHub's heading anchor: lowercase; letters, digits, `-` and `_` kept; a space becomes `-`;
/// every other character (punctuation, backticks) dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown text's headings (fenced code skipped; a repeated slug gets
/// `-1`, `-2`, ... as on GitHub).
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if fenced || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes + 1..]);
        let n = seen.entry(base.clone()).or_insert(0);
        out.push(if *n == 0 { base } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// The targets of the inline links and images of a markdown text, with their line numbers
/// (fenced code and `code spans` skipped; absolute URLs left out).
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: every other backtick-separated piece is code.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].trim();
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push((i + 1, target.to_string()));
            }
            rest = &after[end..];
        }
    }
    out
}

/// Broken relative links of the markdown file `name` (repository path): a target file that
/// does not exist, or an `#anchor` that is no heading of the markdown file it points at.
fn broken_links(root: &std::path::Path, name: &str, text: &str) -> Vec<String> {
    let dir = std::path::Path::new(name)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let mut broken = Vec::new();
    for (line, target) in link_targets(text) {
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            root.join(name)
        } else {
            root.join(dir).join(path)
        };
        if !path.is_empty() && !file.exists() {
            broken.push(format!(
                "{name}:{line}: `{target}`: no file {}",
                file.display()
            ));
            continue;
        }
        if let Some(anchor) = anchor {
            if file.extension().is_some_and(|e| e == "md") {
                let heads = if path.is_empty() {
                    anchors(text)
                } else {
                    anchors(&std::fs::read_to_string(&file).unwrap())
                };
                if !heads.iter().any(|h| h == anchor) {
                    broken.push(format!(
                        "{name}:{line}: `{target}`: no heading with anchor #{anchor}"
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn markdown_links_point_at_existing_files_and_headings() {
    // The checker itself: a missing file, a missing anchor and a good link.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let sample =
        "# Top\n\n## Two words: `x.y`\n\n[a](#two-words-xy) [b](#nowhere) [c](docs/none.md) \
                  [d](README.md#quick-start) [e](https://example.com/#x) `[f](#in-code)`\n";
    let found = broken_links(&root, "SAMPLE.md", sample);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("#nowhere") && found[1].contains("docs/none.md"),
        "{found:?}"
    );
    assert_eq!(
        slug("Uno (`transport.cc = \"uno\"`)"),
        "uno-transportcc--uno"
    );
    assert_eq!(anchors("## A\n## A\n## A\n"), ["a", "a-1", "a-2"]);

    let mut names = vec!["README.md".to_string(), "benches/README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    assert!(docs.contains(&"docs/uno.md".to_string()), "{docs:?}");
    names.extend(docs);
    let mut broken = Vec::new();
    for name in &names {
        broken.extend(broken_links(&root, name, &repo_file(name)));
    }
    assert!(
        broken.is_empty(),
        "broken markdown links:\n{}",
        broken.join("\n")
    );
}

/// README stays scannable: no line outside a code block is over 400 characters (a table row
/// or paragraph that needs more links to its details under `docs/`).
#[test]
fn readme_lines_are_at_most_400_characters() {
    let readme = repo_file("README.md");
    let mut inside = false;
    let mut long = Vec::new();
    for (i, line) in readme.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            continue;
        }
        let n = line.chars().count();
        if !inside && n > 400 {
            long.push(format!(
                "line {}: {n} characters: {}",
                i + 1,
                line.chars().take(60).collect::<String>()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "README lines over 400 characters:\n{}",
        long.join("\n")
    );
}

/// The field table of README's "Scenario format" stays scannable: every row fits in 400
/// characters, and a row that says more in `docs/scenario-fields.md` links to its own field's
/// heading there; that file has one heading per linked field, in the table's order.
#[test]
fn scenario_table_rows_are_short_and_link_their_details() {
    let readme = repo_file("README.md");
    let doc = section(&readme, "## Scenario format");
    let table: Vec<&str> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| field | default | meaning |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(table.len() > 100, "{} rows", table.len());
    let long: Vec<String> = table
        .iter()
        .filter(|l| l.chars().count() > 400)
        .map(|l| l.chars().take(60).collect())
        .collect();
    assert!(
        long.is_empty(),
        "Scenario format rows over 400 characters: {long:?}"
    );

    let details = repo_file("docs/scenario-fields.md");
    let heads: Vec<String> = details
        .lines()
        .filter_map(|l| l.strip_prefix("## `")?.strip_suffix('`'))
        .map(str::to_string)
        .collect();
    let mut linked = Vec::new();
    for row in &table {
        let Some(at) = row.find("](docs/scenario-fields.md#") else {
            continue;
        };
        let field = row[3..].split('`').next().unwrap().to_string();
        let target = row[at + 2..].split(')').next().unwrap();
        assert_eq!(
            target,
            format!("docs/scenario-fields.md#{}", slug(&format!("`{field}`"))),
            "the row of `{field}` links to another field's details"
        );
        linked.push(field);
    }
    assert!(linked.len() > 30, "{linked:?}");
    assert_eq!(
        heads, linked,
        "docs/scenario-fields.md: one heading per linked field, in the table's order"
    );
}
