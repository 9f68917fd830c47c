//! The examples of every `dcfab ... --help` work: each subcommand's help has an `Examples:`
//! section, every `dcfab run` example passes `--dry-run` from the repository root, every
//! `dcfab sweep` example's grid values pass `--dry-run` one by one, every scenario file an
//! example names exists, and the `budget`, `golden list` and `trace` examples run. README's
//! Quick start quotes what `dcfab run` prints, and a closed stdout is no panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn dcfab(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(args)
        .current_dir(dir)
        .env("CI", "1")
        .output()
        .unwrap()
}

fn help(cmd: &[&str]) -> String {
    let mut args = cmd.to_vec();
    args.push("--help");
    let out = dcfab(&args, &root());
    assert!(out.status.success(), "dcfab {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The example command lines of a help text: lines starting with `dcfab `, cut at the first
/// run of two spaces (the description that may follow on the same line).
fn examples(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("dcfab "))
        .map(|l| {
            let cmd = l.split("  ").next().unwrap();
            cmd.split_whitespace().skip(1).map(String::from).collect()
        })
        .collect()
}

fn check_ok(args: &[String], dir: &Path) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = dcfab(&a, dir);
    assert!(
        out.status.success(),
        "help example `dcfab {}` failed: {}",
        a.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_help_example_works() {
    let tmp = tempfile::tempdir().unwrap();
    let subcommands: [&[&str]; 8] = [
        &[],
        &["run"],
        &["sweep"],
        &["budget"],
        &["golden"],
        &["trace"],
        &["plot"],
        &["sweep", "collect"],
    ];
    let (mut runs, mut sweeps) = (0, 0);
    for sub in subcommands {
        let text = help(sub);
        let ex = examples(&text);
        if !sub.is_empty() {
            assert!(
                text.contains("Example") && !ex.is_empty(),
                "`dcfab {} --help` has no examples:\n{text}",
                sub.join(" ")
            );
        }
        for args in ex {
            for a in &args {
                if a.starts_with("scenarios/") {
                    assert!(root().join(a).is_file(), "help example names missing {a}");
                }
            }
            match args[0].as_str() {
                "run" => {
                    let mut a = args.clone();
                    if !a.iter().any(|x| x == "--dry-run") {
                        a.push("--dry-run".into());
                    }
                    check_ok(&a, &root());
                    runs += 1;
                }
                "sweep" if args.get(1).map(String::as_str) != Some("collect") => {
                    let scenario = args[1].clone();
                    for (i, a) in args.iter().enumerate() {
                        if a != "--grid" {
                            continue;
                        }
                        let (path, values) = args[i + 1].split_once('=').unwrap();
                        for v in values.split(',') {
                            let set = format!("{path}={v}");
                            check_ok(
                                &[
                                    "run".into(),
                                    scenario.clone(),
                                    "--set".into(),
                                    set,
                                    "--dry-run".into(),
                                ],
                                &root(),
                            );
                        }
                    }
                    sweeps += 1;
                }
                "budget" | "trace" => check_ok(&args, tmp.path()),
                "golden" if args[1] == "list" => check_ok(&args, tmp.path()),
                _ => {}
            }
        }
    }
    assert!(runs >= 5 && sweeps >= 3, "runs {runs}, sweeps {sweeps}");
    assert!(tmp.path().join("tb.vcd").is_file());
}

/// `dcfab golden list | head -1`: stdout closed early is no panic, and no backtrace.
#[test]
fn closed_stdout_is_no_panic() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(["golden", "list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(out.status.code(), Some(0 | 141)), "{out:?}");
}

/// README's Quick start quotes the built-in default's summary: it is what `dcfab run` prints
/// (every line but the wall-clock `speed`; a change that moves the default's results must
/// update the quote).
#[test]
fn quick_start_quotes_the_default_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let quick = &readme[readme.find("## Quick start").unwrap()..];
    let quick = &quick[..quick[3..].find("\n## ").unwrap()];
    let block = quick
        .split("```text\n")
        .nth(1)
        .expect("a text block")
        .split("```")
        .next()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = dcfab(&["run", "--out", "out/default"], tmp.path());
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).unwrap();
    let keep = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("speed"))
            .map(String::from)
            .collect()
    };
    assert_eq!(
        keep(block),
        keep(&printed),
        "README Quick start's summary is stale"
    );
}

/// `dcfab run uno_failures` (a shipped scenario's name, not its file) points at the file; any
/// other missing file is the plain error.
#[test]
fn a_scenario_name_points_at_its_file() {
    let out = dcfab(&["run", "uno_failures", "--dry-run"], &root());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("error: uno_failures: no such file; did you mean the shipped scenario scenarios/uno_failures.toml?"),
        "{err}"
    );
    let out = dcfab(&["run", "no_such_scenario", "--dry-run"], &root());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.starts_with("error: no_such_scenario: "), "{err}");
    assert!(!err.contains("did you mean"), "{err}");
}

/// Every `extra` key a short run of the packet-level transports writes to `summary.json` has
/// a row in README "Output format" (`key` or `extra.key`; `zeropod` and `llm` name theirs by
/// pattern and are left out).
#[test]
fn extra_keys_of_real_runs_are_documented() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let doc = &readme[readme.find("## Output format").unwrap()..];
    let doc = &doc[..doc.find("\n## ").unwrap()];
    let tmp = tempfile::tempdir().unwrap();
    let runs: [&[&str]; 6] = [
        &[],
        &["scenarios/uno_failures.toml"],
        &["scenarios/dcsim_a2av.toml"],
        &[
            "scenarios/dcsim_figs/fig5_all_to_all.toml",
            "--set",
            "transport.cc=pfabric",
        ],
        &[
            "scenarios/dcsim_figs/fig5_all_to_all.toml",
            "--set",
            "transport.cc=phost",
        ],
        &[
            "scenarios/dcsim_figs/fig5_all_to_all.toml",
            "--set",
            "transport.cc=dcpim",
        ],
    ];
    let mut missing = Vec::new();
    for (i, extra) in runs.iter().enumerate() {
        let dir = tmp.path().join(i.to_string());
        let mut args: Vec<String> = vec!["run".into()];
        args.extend(extra.iter().map(|a| {
            if a.starts_with("scenarios/") {
                root().join(a).to_string_lossy().into_owned()
            } else {
                a.to_string()
            }
        }));
        args.extend(["--set", "stop.max_time_us=50", "-q", "--out"].map(String::from));
        args.push(dir.to_string_lossy().into_owned());
        check_ok(&args, tmp.path());
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        let keys = summary["extra"].as_object().unwrap().keys();
        assert!(keys.len() > 10);
        for k in keys {
            if !doc.contains(&format!("`{k}`")) && !doc.contains(&format!("`extra.{k}`")) {
                missing.push(format!("{k} ({extra:?})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README 'Output format' has no row for: {missing:?}"
    );
}
