//! Checking registered scenarios against their checked-in traces, and re-blessing them.
//!
//! ```text
//!  registry::all() ──run()──► Trace::to_jsonl ──┐
//!                                               ├─ line by line ─► VerifyOutcome { matched, first_difference }
//!  <dir>/<name>.jsonl ──────────────────────────┘
//! ```

use crate::registry::{self, GoldenScenario};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Where the checked-in golden traces live: `<golden crate>/traces`.
pub fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("traces")
}

/// The path of scenario `name`'s trace under `dir`.
pub fn trace_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.jsonl"))
}

/// Result of re-running one scenario against its checked-in trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyOutcome {
    /// Scenario name.
    pub name: String,
    /// Whether the fresh trace equals the file byte for byte (line endings aside).
    pub matched: bool,
    /// On mismatch: the 1-based line number with the expected (file) and actual (fresh)
    /// line, or why the file could not be read.
    pub first_difference: Option<String>,
}

/// Longest line excerpt shown in a difference.
const EXCERPT: usize = 240;

fn excerpt(s: Option<&str>) -> String {
    match s {
        None => "<end of file>".to_string(),
        Some(s) if s.chars().count() > EXCERPT => {
            format!("{}...", s.chars().take(EXCERPT).collect::<String>())
        }
        Some(s) => s.to_string(),
    }
}

/// The first line where `expected` and `actual` differ, as
/// `line N: expected `...`, actual `...``; `None` if they are equal line by line
/// (a trailing newline or `\r\n` line endings do not count as differences).
pub fn first_difference(expected: &str, actual: &str) -> Option<String> {
    let mut e = expected.lines();
    let mut a = actual.lines();
    let mut n = 0usize;
    loop {
        n += 1;
        match (e.next(), a.next()) {
            (None, None) => return None,
            (x, y) if x == y => continue,
            (x, y) => {
                return Some(format!(
                    "line {n}: expected `{}`, actual `{}`",
                    excerpt(x),
                    excerpt(y)
                ))
            }
        }
    }
}

/// Re-run `scenario` and compare it with `<dir>/<name>.jsonl`.
pub fn verify_one(dir: &Path, scenario: &GoldenScenario) -> VerifyOutcome {
    let path = trace_path(dir, scenario.name);
    let fresh = (scenario.run)().to_jsonl();
    let first_difference = match fs::read_to_string(&path) {
        Ok(expected) => first_difference(&expected, &fresh),
        Err(e) => Some(format!(
            "cannot read {}: {e} (run `dcfab golden bless` to create it)",
            path.display()
        )),
    };
    VerifyOutcome {
        name: scenario.name.to_string(),
        matched: first_difference.is_none(),
        first_difference,
    }
}

/// Re-run every registered scenario and compare each with its file under `dir`.
pub fn verify_all(dir: &Path) -> Vec<VerifyOutcome> {
    registry::all().iter().map(|s| verify_one(dir, s)).collect()
}

/// Write every registered scenario's fresh trace to `<dir>/<name>.jsonl` (creating `dir`).
/// Files whose content is already identical are left untouched. Returns the names of the
/// traces that were created or changed, in registry order.
pub fn bless_all(dir: &Path) -> io::Result<Vec<String>> {
    fs::create_dir_all(dir)?;
    let mut changed = Vec::new();
    for s in registry::all() {
        let path = trace_path(dir, s.name);
        let fresh = (s.run)().to_jsonl();
        if fs::read_to_string(&path).ok().as_deref() != Some(fresh.as_str()) {
            fs::write(&path, fresh)?;
            changed.push(s.name.to_string());
        }
    }
    Ok(changed)
}

/// `*.jsonl` files under `dir` that no registered scenario produces (stale traces), sorted.
pub fn orphans(dir: &Path) -> io::Result<Vec<String>> {
    let names = registry::names();
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let p = entry?.path();
        if p.extension().and_then(|e| e.to_str()) == Some("jsonl") {
            if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
                if !names.contains(&stem) {
                    out.push(stem.to_string());
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_reports_line_and_both_sides() {
        assert_eq!(first_difference("a\nb\n", "a\nb"), None);
        assert_eq!(first_difference("a\r\nb\r\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nb\nc\n", "a\nB\nc\n").as_deref(),
            Some("line 2: expected `b`, actual `B`")
        );
        assert_eq!(
            first_difference("a\n", "a\nextra\n").as_deref(),
            Some("line 2: expected `<end of file>`, actual `extra`")
        );
        let long = "x".repeat(1000);
        let d = first_difference(&long, "y").unwrap();
        assert!(d.len() < 300, "{d}");
    }

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("golden-verify-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn bless_then_verify_then_tamper() {
        let dir = tmpdir("unit");
        // Missing files are mismatches that say how to fix them.
        let out = verify_all(&dir);
        assert!(!out.is_empty());
        assert!(out.iter().all(|o| !o.matched));
        assert!(out[0].first_difference.as_ref().unwrap().contains("bless"));
        // Bless writes everything once, then nothing.
        let written = bless_all(&dir).unwrap();
        assert_eq!(written, registry::names());
        assert!(bless_all(&dir).unwrap().is_empty());
        assert!(verify_all(&dir).iter().all(|o| o.matched));
        // Tamper with line 2 of the first trace.
        let name = registry::names()[0];
        let p = trace_path(&dir, name);
        let text = fs::read_to_string(&p).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[1] = "{\"cycle\":0,\"signal\":\"tampered\",\"value\":0}";
        fs::write(&p, lines.join("\n")).unwrap();
        let out = verify_all(&dir);
        let bad: Vec<_> = out.iter().filter(|o| !o.matched).collect();
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].name, name);
        let d = bad[0].first_difference.as_ref().unwrap();
        assert!(
            d.starts_with("line 2: expected `{\"cycle\":0,\"signal\":\"tampered\""),
            "{d}"
        );
        // An unregistered file is an orphan.
        fs::write(trace_path(&dir, "stale_thing"), "x").unwrap();
        assert_eq!(orphans(&dir).unwrap(), vec!["stale_thing".to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
