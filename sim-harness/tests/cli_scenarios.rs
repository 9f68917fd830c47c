//! Every shipped scenario (`scenarios/*.toml`) is valid: `dcfab run FILE --dry-run` accepts
//! it and prints the resolved scenario, which reads back to the same scenario.

use sim_harness::overrides::{load, Source};
use std::path::PathBuf;
use std::process::Command;

fn scenario_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_scenario_is_valid() {
    let files = scenario_files();
    for name in [
        "default.toml",
        "permutation_1024.toml",
        "failure_link.toml",
        "incast.toml",
        "websearch.toml",
    ] {
        assert!(
            files.iter().any(|f| f.ends_with(name)),
            "scenarios/{name} exists"
        );
    }
    for f in &files {
        let out = Command::new(env!("CARGO_BIN_EXE_dcfab"))
            .args(["run", "--dry-run"])
            .arg(f)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {err}", f.display());
        let printed: sim_harness::Scenario =
            toml::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
        let loaded = load(Source::File(f), &[]).unwrap();
        assert_eq!(printed, loaded, "{}", f.display());
    }
}

#[test]
fn dry_run_applies_overrides_and_builtin_default() {
    let out = Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args([
            "run",
            "--dry-run",
            "--seed",
            "9",
            "--set",
            "transport.lb=reps",
            "--no-skip",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s: sim_harness::Scenario = toml::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(s.seed, 9);
    assert_eq!(s.transport.lb, sim_harness::scenario::LbKind::Reps);
    assert!(!s.skip.enabled);
    assert_eq!(s.name, "default");
    assert_eq!(s.topology.radix, 8);
}
