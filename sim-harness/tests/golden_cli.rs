//! `dcfab golden verify|bless` exit codes and `dcfab trace` output, on a scratch directory.

use std::path::Path;
use std::process::{Command, Output};

fn dcfab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(args)
        .output()
        .expect("dcfab runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn verify_exit_codes_follow_matches() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    // Empty directory: not a trace directory at all -> exit 1 naming --dir (issue 9: not
    // "15 golden traces differ").
    let out = dcfab(&["golden", "verify", "--dir", dir]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).starts_with("error: --dir: "),
        "{}",
        text(&out.stderr)
    );

    // Bless writes every trace; verify then passes.
    let out = dcfab(&["golden", "bless", "--dir", dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let names = golden::registry::names();
    for n in &names {
        assert!(Path::new(dir).join(format!("{n}.jsonl")).is_file(), "{n}");
    }
    let out = dcfab(&["golden", "verify", "--dir", dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains(&format!("{0} of {0} golden traces match", names.len())));

    // Tamper with line 3 of one trace: exit 1, and the first difference is shown.
    let victim = Path::new(dir).join(format!("{}.jsonl", names[0]));
    let original = std::fs::read_to_string(&victim).unwrap();
    let mut lines: Vec<String> = original.lines().map(String::from).collect();
    lines[2] = lines[2].replace("\"value\":", "\"value\":[0],\"x\":");
    std::fs::write(&victim, lines.join("\n") + "\n").unwrap();
    let out = dcfab(&["golden", "verify", "--dir", dir]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("MISMATCH  {}", names[0])),
        "{stdout}"
    );
    assert!(stdout.contains("line 3: expected"), "{stdout}");

    // A missing trace is reported as missing, not as a difference.
    std::fs::remove_file(&victim).unwrap();
    let out = dcfab(&["golden", "verify", "--dir", dir]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(&format!("MISSING   {}", names[0])));
    let err = text(&out.stderr);
    assert!(
        err.contains("1 golden trace(s) missing") && !err.contains("differ"),
        "{err}"
    );
}

#[test]
fn trace_exports_vcd_and_jsonl_and_rejects_unknown_names() {
    let tmp = tempfile::tempdir().unwrap();
    let name = golden::registry::names()[0];
    let vcd = tmp.path().join("out.vcd");
    let jsonl = tmp.path().join("out.jsonl");
    let out = dcfab(&[
        "trace",
        name,
        "--vcd",
        vcd.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v = std::fs::read_to_string(&vcd).unwrap();
    assert!(v.starts_with("$version dcfab golden"), "{v}");
    assert!(v.contains("$enddefinitions $end"));
    let j = std::fs::read_to_string(&jsonl).unwrap();
    let expected = (golden::registry::find(name).unwrap().run)().to_jsonl();
    assert_eq!(j, expected);

    // A trace file works as NAME too.
    let vcd2 = tmp.path().join("again.vcd");
    let out = dcfab(&[
        "trace",
        jsonl.to_str().unwrap(),
        "--vcd",
        vcd2.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&vcd2).unwrap(), v);

    // --width forces a vector width; a bad signal name is an error naming the flag.
    let t = (golden::registry::find(name).unwrap().run)();
    let sig = t.signals()[0].to_string();
    let vcd3 = tmp.path().join("wide.vcd");
    let width = format!("{sig}=64");
    let out = dcfab(&[
        "trace",
        name,
        "--vcd",
        vcd3.to_str().unwrap(),
        "--width",
        &width,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let wide = std::fs::read_to_string(&vcd3).unwrap();
    assert!(wide.contains(&format!(" 64 ! {sig} [63:0] $end")), "{wide}");
    let out = dcfab(&["trace", name, "--width", "nope=3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--width: 'nope'"),
        "{}",
        text(&out.stderr)
    );

    let out = dcfab(&["trace", "no_such_block"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("no_such_block") && err.contains(name), "{err}");
}
