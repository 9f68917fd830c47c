//! Sweeps as a Slurm job array. `collect` on a partial array, then on a whole one, gives the
//! local sweep's `sweep.csv` bit for bit but for the wall-clock columns; and the same through
//! a real single-node Slurm cluster (slurmctld, slurmd, munged started by
//! `tests/slurm/cluster.sh` under a temporary directory), skipped with a message where Slurm
//! is not installed or the test is not root.

mod common;
use common::{dcfab_env as dcfab_in, ok};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// 8 hosts, permutation of 32 KiB messages, stopped at 200 us.
fn tiny_toml() -> String {
    common::tiny_scenario("32KiB", "\n[stop]\nmax_time_us = 200.0\n")
}

const GRID: [&str; 4] = ["--grid", "transport.lb=ecmp,reps", "--grid", "seed=1,2"];

/// Columns that measure the machine, not the simulation.
const WALL: [&str; 3] = ["wall_s", "events_per_s", "data_packets_per_s"];

/// sweep.csv without its wall-clock columns (provenance and every other field kept).
fn without_wall(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let prov = lines.next().unwrap().to_string();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(lines.collect::<Vec<_>>().join("\n").into_bytes().as_slice())
        .into_records()
        .map(|r| r.unwrap().iter().map(String::from).collect::<Vec<_>>())
        .collect::<Vec<_>>();
    let header = r[0].clone();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !WALL.contains(&header[i].as_str()))
        .collect();
    assert!(keep.len() + WALL.len() == header.len(), "{header:?}");
    for row in &mut r {
        *row = keep.iter().map(|&i| row[i].clone()).collect();
    }
    r.insert(0, vec![prov]);
    r
}

fn local_sweep(dir: &Path) -> Vec<Vec<String>> {
    ok(&dcfab_in(
        dir,
        &[
            &["sweep", "tiny.toml"],
            &GRID[..],
            &["--out", "local", "--quiet", "-j", "2"],
        ]
        .concat(),
        &[],
    ));
    without_wall(&dir.join("local/sweep.csv"))
}

#[test]
fn collect_writes_what_exists_then_matches_the_local_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("tiny.toml"), tiny_toml()).unwrap();
    let local = local_sweep(d);

    let out = ok(&dcfab_in(
        d,
        &[
            &["sweep", "tiny.toml"],
            &GRID[..],
            &[
                "--out",
                "remote",
                "--slurm",
                "job",
                "--slurm-no-submit",
                "--slurm-partition",
                "short",
                "--slurm-sbatch=--mem=1G",
            ],
        ]
        .concat(),
        &[],
    ));
    assert!(out.contains("4 array tasks"), "{out}");
    let script = std::fs::read_to_string(d.join("job/sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3"), "{script}");
    assert!(script.contains("#SBATCH --partition=short"), "{script}");
    assert!(script.contains("#SBATCH --mem=1G"), "{script}");
    assert!(d.join("job/runs/3.toml").is_file());
    assert!(
        !d.join("remote/sweep.csv").exists(),
        "nothing runs before the tasks"
    );

    // Tasks 0 and 2 done, as an array would leave them: the script's own command line.
    for t in ["0", "2"] {
        ok(&dcfab_in(
            d,
            &[
                "sweep", "--slurm", "job", "--task", t, "--out", "remote", "--quiet",
            ],
            &[],
        ));
    }
    let part = dcfab_in(d, &["sweep", "collect", "job"], &[]);
    assert_eq!(
        part.status.code(),
        Some(1),
        "missing tasks fail the collect"
    );
    let err = String::from_utf8_lossy(&part.stderr);
    assert!(
        err.contains("task 1 (") && err.contains("task 3 ("),
        "{err}"
    );
    assert!(
        !err.contains("task 0 (") && !err.contains("task 2 ("),
        "{err}"
    );
    let partial = without_wall(&d.join("remote/sweep.csv"));
    assert_eq!(partial[0], local[0], "provenance");
    assert_eq!(partial[1], local[1], "header");
    assert_eq!(partial[2], local[2], "task 0's row");
    assert_eq!(partial[4], local[4], "task 2's row");
    let status = local[1].iter().position(|h| h == "status").unwrap();
    assert_eq!(partial[3][status], "missing");
    assert!(partial[3][status + 1..].iter().all(String::is_empty));

    for t in ["1", "3"] {
        ok(&dcfab_in(
            d,
            &[
                "sweep", "--slurm", "job", "--task", t, "--out", "remote", "--quiet",
            ],
            &[],
        ));
    }
    let out = ok(&dcfab_in(d, &["sweep", "collect", "job"], &[]));
    assert!(
        out.contains("4 of 4 tasks done, 0 not ok, 0 missing"),
        "{out}"
    );
    assert_eq!(without_wall(&d.join("remote/sweep.csv")), local);
    assert!(d.join("remote/sweep_mean_fct_ps.svg").is_file());
    // The runs' own files match too.
    let run = &local[2][0];
    assert_eq!(
        std::fs::read(d.join("local").join(run).join("flows.csv")).unwrap(),
        std::fs::read(d.join("remote").join(run).join("flows.csv")).unwrap()
    );

    // A task number out of range names the flag.
    let bad = dcfab_in(
        d,
        &["sweep", "--slurm", "job", "--task", "9", "--out", "remote"],
        &[],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--task"));
}

/// Stops the cluster however the test ends.
struct Cluster {
    script: PathBuf,
    dir: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.script)
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn slurm_missing() -> Option<String> {
    for bin in [
        "/usr/sbin/slurmctld",
        "/usr/sbin/slurmd",
        "/usr/sbin/munged",
        "/usr/bin/sbatch",
        "/usr/bin/squeue",
        "/usr/bin/sinfo",
    ] {
        if !Path::new(bin).exists() {
            return Some(format!(
                "{bin} is not installed (apt-get install slurm-wlm munge)"
            ));
        }
    }
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("the fixture runs slurmd as root and this test is not root".into());
    }
    None
}

#[test]
fn slurm_cluster_runs_the_sweep_as_the_local_one() {
    if let Some(why) = slurm_missing() {
        // Written to the stderr handle itself: libtest captures print!/eprint! of passing
        // tests, so this line shows in every `cargo test` log.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED slurm_cluster_runs_the_sweep_as_the_local_one: {why}"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("tiny.toml"), tiny_toml()).unwrap();
    let cluster = Cluster {
        script: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slurm/cluster.sh"),
        dir: d.join("cluster"),
    };
    let start = Command::new("timeout")
        .args(["60", "bash"])
        .arg(&cluster.script)
        .arg("start")
        .arg(&cluster.dir)
        .arg(free_port().to_string())
        .arg(free_port().to_string())
        .output()
        .unwrap();
    assert!(
        start.status.success(),
        "cluster start: {}{}",
        String::from_utf8_lossy(&start.stdout),
        String::from_utf8_lossy(&start.stderr)
    );
    let conf = cluster.dir.join("slurm.conf");
    let conf = conf.to_str().unwrap();
    let env = [("SLURM_CONF", conf)];

    let out = ok(&dcfab_in(
        d,
        &[
            &["sweep", "tiny.toml"],
            &GRID[..],
            &[
                "--out",
                "remote",
                "--slurm",
                "job",
                "--slurm-time",
                "5",
                "--plot",
            ],
        ]
        .concat(),
        &env,
    ));
    assert!(out.contains("submitted Slurm job array"), "{out}");
    let job = std::fs::read_to_string(d.join("job/job_id"))
        .unwrap()
        .trim()
        .to_string();
    assert!(job.parse::<u64>().is_ok(), "job id '{job}'");

    let t0 = Instant::now();
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-j", &job])
            .env("SLURM_CONF", conf)
            .output()
            .unwrap();
        let gone = String::from_utf8_lossy(&q.stderr).contains("Invalid job id");
        if (q.status.success() && q.stdout.is_empty()) || gone {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the array is still queued after 120 s: {}",
            String::from_utf8_lossy(&q.stdout)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let collected = dcfab_in(d, &["sweep", "collect", "job"], &[]);
    let logs: Vec<String> = std::fs::read_dir(d.join("job/logs"))
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        collected.status.code(),
        Some(0),
        "collect: {}\ntask logs: {logs:?}",
        String::from_utf8_lossy(&collected.stderr)
    );
    let local = local_sweep(d);
    assert_eq!(without_wall(&d.join("remote/sweep.csv")), local);
    // --plot at submission: each task drew its run's figures, collect the sweep's.
    for row in &local[2..] {
        let f = d.join("remote").join(&row[0]).join("fct_cdf.svg");
        assert!(f.is_file(), "{}", f.display());
    }
    assert!(d.join("remote/sweep_max_fct_ps.svg").is_file());
    drop(cluster);
}
