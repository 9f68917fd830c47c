//! Sweeps as a Slurm job array (README "Sweeps on Slurm"):
//!
//! - `dcfab sweep SCENARIO --grid ... --out OUT --slurm DIR [--slurm-no-submit]` plans the
//!   sweep exactly as a local one, stores it resolved in DIR (`sweep.json`: grid paths, run
//!   names and values, OUT; `runs/<i>.toml`: each run's resolved scenario) with a job script
//!   `sweep.sbatch` (one array task per grid point), and submits it with `sbatch` when that is
//!   on the PATH;
//! - each task runs `dcfab sweep --slurm DIR --task I --out OUT`: run `I` of the stored sweep,
//!   its results in `OUT/<run name>/` as locally, its `sweep.csv` row in `DIR/tasks/<i>.json`;
//! - `dcfab sweep collect DIR` writes `OUT/sweep.csv` from the task rows with the local sweep's
//!   own row writer (so the two files are the same but for the wall-clock columns) and the
//!   figures, and names every task that failed or left no result (status `missing`).

use super::common;
use super::plot::{self, MetricArgs};
use super::sweep::{self, Args, Planned, Row, Status};
use super::Outcome;
use serde::{Deserialize, Serialize};
use sim_harness::output::{self, DCFAB_VERSION};
use sim_harness::overrides::{self, Source};
use sim_harness::{Error, Result, Scenario};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `--slurm` options of `dcfab sweep`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SlurmArgs {
    /// Run the sweep as a Slurm job array: store the resolved sweep and the job script
    /// `sweep.sbatch` in DIR and submit it with `sbatch` (results go to --out as locally;
    /// `dcfab sweep collect DIR` then writes sweep.csv).
    #[arg(long, value_name = "DIR")]
    pub slurm: Option<PathBuf>,
    /// With --slurm: write the job script but do not submit it.
    #[arg(long, requires = "slurm")]
    pub slurm_no_submit: bool,
    /// With --slurm: run only array task N of the sweep stored in DIR (what the job script
    /// runs; --grid, --set and SCENARIO are taken from DIR).
    #[arg(long, value_name = "N", requires = "slurm")]
    pub task: Option<usize>,
    /// With --slurm: the partition (`#SBATCH --partition`).
    #[arg(long, value_name = "NAME", requires = "slurm")]
    pub slurm_partition: Option<String>,
    /// With --slurm: the time limit of each task (`#SBATCH --time`, e.g. `30`, `2:00:00`).
    #[arg(long, value_name = "TIME", requires = "slurm")]
    pub slurm_time: Option<String>,
    /// With --slurm: CPUs per task (`#SBATCH --cpus-per-task`) [default: 1; a run is
    /// single-threaded].
    #[arg(long, value_name = "N", requires = "slurm")]
    pub slurm_cpus_per_task: Option<u32>,
    /// With --slurm: an extra `#SBATCH` option, e.g. `--mem=4G` or `--account=x` (repeatable).
    #[arg(long = "slurm-sbatch", value_name = "OPTION", requires = "slurm")]
    pub slurm_sbatch: Vec<String>,
}

/// `dcfab sweep collect DIR`: assemble sweep.csv and the figures of a `--slurm DIR` sweep;
/// names failed and missing tasks.
#[derive(clap::Args, Debug)]
pub struct CollectArgs {
    /// The directory given to `--slurm`.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Do not draw the sweep figures.
    #[arg(long)]
    pub no_plot: bool,
    /// Print only errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Metrics of the sweep figures.
    #[command(flatten)]
    pub metrics: MetricArgs,
}

/// `DIR/sweep.json`: the resolved sweep.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct Stored {
    /// dcfab version that planned it (tasks refuse another one).
    pub dcfab_version: String,
    /// Where the runs and sweep.csv go (absolute).
    pub out: PathBuf,
    /// The `--grid` paths, in order.
    pub grid_paths: Vec<String>,
    /// Each run: sub-directory name and grid values.
    pub runs: Vec<StoredRun>,
}

/// One grid point of [`Stored`].
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct StoredRun {
    /// Sub-directory name.
    pub name: String,
    /// Grid values as written on the command line.
    pub values: Vec<String>,
}

/// `DIR/tasks/<i>.json`: a finished task's `sweep.csv` row, columns as text (exact).
#[derive(Debug, Serialize, Deserialize)]
struct TaskRow {
    status: String,
    columns: Vec<(String, String)>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(p).map_err(io(p))?;
    std::fs::canonicalize(p).map_err(io(p))
}

fn scenario_file(dir: &Path, i: usize) -> PathBuf {
    dir.join("runs").join(format!("{i}.toml"))
}

fn task_file(dir: &Path, i: usize) -> PathBuf {
    dir.join("tasks").join(format!("{i}.json"))
}

/// `dcfab sweep collect ...` is parsed as the hidden subcommand `sweep-collect ...` (the
/// sweep's own arguments, `--out` among them, are required, so `collect` cannot be a clap
/// subcommand of `sweep`).
pub fn route_collect(mut argv: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if argv.len() >= 3 && argv[1] == "sweep" && argv[2] == "collect" {
        argv.remove(2);
        argv[1] = "sweep-collect".into();
    }
    argv
}

/// Handle `--slurm ... --task N` and `--slurm DIR`; `None`: a local sweep.
pub fn intercept(args: &Args) -> Result<Option<Outcome>> {
    let Some(dir) = &args.slurm.slurm else {
        return Ok(None);
    };
    match args.slurm.task {
        Some(n) => run_task(dir, n, &args.out, args.quiet, args.plot.plot).map(Some),
        None => submit(args, dir).map(Some),
    }
}

/// Quote for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The job script: one array task per run, each running `dcfab sweep --task`.
pub fn job_script(
    s: &SlurmArgs,
    dir: &Path,
    out: &Path,
    dcfab: &Path,
    name: &str,
    tasks: usize,
    plot: bool,
) -> Result<String> {
    let mut lines = vec![
        "#!/bin/bash".to_string(),
        format!("# dcfab {DCFAB_VERSION} sweep as a Slurm job array: one task per grid point."),
        format!(
            "# Submit: sbatch {}   Afterwards: dcfab sweep collect {}",
            shell_quote(&dir.join("sweep.sbatch").to_string_lossy()),
            shell_quote(&dir.to_string_lossy())
        ),
        format!("#SBATCH --job-name=dcfab-{name}"),
        format!("#SBATCH --array=0-{}", tasks.saturating_sub(1)),
        format!("#SBATCH --chdir={}", dir.display()),
        format!("#SBATCH --output={}/logs/%A_%a.out", dir.display()),
        format!(
            "#SBATCH --cpus-per-task={}",
            s.slurm_cpus_per_task.unwrap_or(1)
        ),
        "#SBATCH --ntasks=1".to_string(),
    ];
    if let Some(p) = &s.slurm_partition {
        lines.push(format!("#SBATCH --partition={p}"));
    }
    if let Some(t) = &s.slurm_time {
        lines.push(format!("#SBATCH --time={t}"));
    }
    for extra in &s.slurm_sbatch {
        let e = extra.trim();
        if !e.starts_with('-') || e.contains('\n') {
            return Err(Error::Cli {
                flag: "--slurm-sbatch".into(),
                problem: format!("'{extra}' is not one sbatch option (e.g. --mem=4G)"),
            });
        }
        lines.push(format!("#SBATCH {e}"));
    }
    for (what, v) in [
        ("--slurm-partition", &s.slurm_partition),
        ("--slurm-time", &s.slurm_time),
    ] {
        if v.as_deref()
            .is_some_and(|v| v.is_empty() || v.contains(char::is_whitespace))
        {
            return Err(Error::Cli {
                flag: what.into(),
                problem: "must be one word".into(),
            });
        }
    }
    if s.slurm_cpus_per_task == Some(0) {
        return Err(Error::Cli {
            flag: "--slurm-cpus-per-task".into(),
            problem: "must be at least 1".into(),
        });
    }
    lines.push("set -eu".into());
    lines.push(format!(
        "exec {} sweep --quiet --slurm {} --out {} --task \"$SLURM_ARRAY_TASK_ID\"{}",
        shell_quote(&dcfab.to_string_lossy()),
        shell_quote(&dir.to_string_lossy()),
        shell_quote(&out.to_string_lossy()),
        if plot { " --plot" } else { "" }
    ));
    Ok(lines.join("\n") + "\n")
}

/// `sbatch` on the PATH, if any.
fn find_sbatch() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("sbatch"))
        .find(|p| p.is_file())
}

/// Plan, store, write the script, submit.
fn submit(args: &Args, dir: &Path) -> Result<Outcome> {
    let runs = sweep::plan(args)?;
    let dir = absolute(dir)?;
    let out = absolute(&args.out)?;
    let stored = Stored {
        dcfab_version: DCFAB_VERSION.into(),
        out: out.clone(),
        grid_paths: args
            .grids
            .iter()
            .filter_map(|g| g.split_once('=').map(|(p, _)| p.trim().to_string()))
            .collect(),
        runs: runs
            .iter()
            .map(|p| StoredRun {
                name: p.name.clone(),
                values: p.values.clone(),
            })
            .collect(),
    };
    let dcfab = std::env::current_exe().map_err(io(Path::new("dcfab")))?;
    let name = runs.first().map_or("sweep", |p| p.scenario.name.as_str());
    let script = job_script(
        &args.slurm,
        &dir,
        &out,
        &dcfab,
        name,
        runs.len(),
        args.plot.plot,
    )?;
    for sub in ["runs", "tasks", "logs"] {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(io(&d))?;
    }
    // A re-submission into the same DIR starts from no results.
    for i in 0..runs.len() {
        let _ = std::fs::remove_file(task_file(&dir, i));
    }
    for (i, p) in runs.iter().enumerate() {
        let text = output::scenario_toml(&p.scenario)?;
        output::atomic_write(&scenario_file(&dir, i), |w| w.write_all(text.as_bytes()))?;
    }
    let json = serde_json::to_string_pretty(&stored)
        .map_err(|e| Error::field("sweep.json", e.to_string()))?;
    output::atomic_write(&dir.join("sweep.json"), |w| writeln!(w, "{json}"))?;
    let script_path = dir.join("sweep.sbatch");
    output::atomic_write(&script_path, |w| w.write_all(script.as_bytes()))?;
    let sbatch = if args.slurm.slurm_no_submit {
        None
    } else {
        find_sbatch()
    };
    let Some(sbatch) = sbatch else {
        if !args.quiet {
            println!(
                "wrote {} ({} array tasks){}; submit with: sbatch {}",
                script_path.display(),
                runs.len(),
                if args.slurm.slurm_no_submit {
                    ""
                } else {
                    " (sbatch is not on the PATH)"
                },
                shell_quote(&script_path.to_string_lossy())
            );
            println!("when done: dcfab sweep collect {}", dir.display());
        }
        return Ok(Outcome::Done);
    };
    let res = std::process::Command::new(&sbatch)
        .arg("--parsable")
        .arg(&script_path)
        .output()
        .map_err(io(&sbatch))?;
    if !res.status.success() {
        return Err(Error::Cli {
            flag: "--slurm".into(),
            problem: format!(
                "sbatch {} failed: {}",
                script_path.display(),
                String::from_utf8_lossy(&res.stderr).trim()
            ),
        });
    }
    let stdout = String::from_utf8_lossy(&res.stdout);
    let job = stdout.trim().split(';').next().unwrap_or("").to_string();
    output::atomic_write(&dir.join("job_id"), |w| writeln!(w, "{job}"))?;
    if !args.quiet {
        println!(
            "submitted Slurm job array {job} ({} tasks) from {}",
            runs.len(),
            script_path.display()
        );
        println!("when done: dcfab sweep collect {}", dir.display());
    }
    Ok(Outcome::Done)
}

fn load_stored(dir: &Path) -> Result<Stored> {
    let path = dir.join("sweep.json");
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let stored: Stored = serde_json::from_str(&text).map_err(|e| Error::Parse {
        path: path.clone(),
        problem: e.to_string(),
    })?;
    if stored.dcfab_version != DCFAB_VERSION {
        return Err(Error::Parse {
            path,
            problem: format!(
                "dcfab_version: planned by dcfab {}, this is {DCFAB_VERSION}",
                stored.dcfab_version
            ),
        });
    }
    Ok(stored)
}

fn load_scenario(dir: &Path, i: usize) -> Result<Scenario> {
    let path = scenario_file(dir, i);
    let table = overrides::read_table(Source::File(&path))?;
    overrides::resolve(table, &[])
}

/// One array task: run `n` of the stored sweep, write its row.
/// With `plot`, the run's own figures are drawn too (`--plot` given at submission).
fn run_task(dir: &Path, n: usize, out: &Path, quiet: bool, plot: bool) -> Result<Outcome> {
    let stored = load_stored(dir)?;
    let Some(run) = stored.runs.get(n) else {
        return Err(Error::Cli {
            flag: "--task".into(),
            problem: format!(
                "{n} is not a task of {} (tasks 0 to {})",
                dir.display(),
                stored.runs.len().saturating_sub(1)
            ),
        });
    };
    let p = Planned {
        name: run.name.clone(),
        values: run.values.clone(),
        scenario: load_scenario(dir, n)?,
    };
    common::install_ctrl_c();
    std::fs::create_dir_all(out).map_err(io(out))?;
    let st = sweep::run_one(&p, out);
    let row = sweep::row_of(&p, &st);
    let task = TaskRow {
        status: row.status,
        columns: row.cols,
    };
    let json = serde_json::to_string(&task).map_err(|e| Error::field("task", e.to_string()))?;
    let tasks = dir.join("tasks");
    std::fs::create_dir_all(&tasks).map_err(io(&tasks))?;
    output::atomic_write(&task_file(dir, n), |w| writeln!(w, "{json}"))?;
    if !quiet {
        println!("task {n} ({}): {}", p.name, task.status);
    }
    if plot && !matches!(st, Status::Failed(_) | Status::Skipped) {
        plot::after_run(&out.join(&p.name), quiet)?;
    }
    Ok(match st {
        Status::Failed(_) => Outcome::Failed,
        Status::Interrupted(_) | Status::Skipped => Outcome::Interrupted,
        Status::Ok(_) => Outcome::Done,
    })
}

/// Status label of a task that left no result.
pub const MISSING: &str = "missing";

/// Assemble sweep.csv (and the figures) from whatever tasks have finished.
pub fn collect(c: &CollectArgs) -> Result<Outcome> {
    if c.no_plot {
        c.metrics
            .refuse("--no-plot draws no figures, and --metric chooses the sweep figures")?;
    }
    let stored = load_stored(&c.dir)?;
    let job = std::fs::read_to_string(c.dir.join("job_id"))
        .ok()
        .map(|s| s.trim().to_string());
    let mut rows = Vec::with_capacity(stored.runs.len());
    let (mut failed, mut missing) = (Vec::new(), Vec::new());
    for (i, run) in stored.runs.iter().enumerate() {
        let path = task_file(&c.dir, i);
        let task: Option<TaskRow> = match std::fs::read_to_string(&path) {
            Ok(text) => Some(serde_json::from_str(&text).map_err(|e| Error::Parse {
                path: path.clone(),
                problem: e.to_string(),
            })?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(&path)(e)),
        };
        let task = task.unwrap_or_else(|| {
            missing.push(i);
            TaskRow {
                status: MISSING.into(),
                columns: Vec::new(),
            }
        });
        if task.status != "ok" && task.status != MISSING {
            failed.push(i); // error, or interrupted (e.g. by the time limit's SIGTERM)
        }
        rows.push(Row {
            name: run.name.clone(),
            values: run.values.clone(),
            status: task.status,
            cols: task.columns,
        });
    }
    let base = if stored.runs.is_empty() {
        None
    } else {
        Some(load_scenario(&c.dir, 0)?)
    };
    std::fs::create_dir_all(&stored.out).map_err(io(&stored.out))?;
    sweep::write_rows(&stored.out, base.as_ref(), &stored.grid_paths, &rows)?;
    let log = |i: usize| match &job {
        Some(j) => format!(" (log {}/logs/{j}_{i}.out)", c.dir.display()),
        None => String::new(),
    };
    for &i in &failed {
        eprintln!(
            "error: task {i} ({}) did not finish: {}{}",
            rows[i].name,
            rows[i].status,
            log(i)
        );
    }
    for &i in &missing {
        eprintln!(
            "missing: task {i} ({}) has no result yet (still queued or running, or it died){}",
            rows[i].name,
            log(i)
        );
    }
    if !c.quiet {
        println!(
            "wrote {} ({} of {} tasks done, {} not ok, {} missing)",
            stored.out.join("sweep.csv").display(),
            stored.runs.len() - missing.len(),
            stored.runs.len(),
            failed.len(),
            missing.len()
        );
    }
    if !c.no_plot && missing.len() < stored.runs.len() {
        plot::after_sweep(&stored.out, &c.metrics, c.quiet)?;
    }
    Ok(if failed.is_empty() && missing.is_empty() {
        Outcome::Done
    } else {
        Outcome::Failed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_collect_is_routed_to_the_hidden_subcommand() {
        let os = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            route_collect(os(&["dcfab", "sweep", "collect", "d"])),
            os(&["dcfab", "sweep-collect", "d"])
        );
        // A scenario file named like anything else stays a sweep.
        let sweep = os(&["dcfab", "sweep", "s.toml", "collect"]);
        assert_eq!(route_collect(sweep.clone()), sweep);
    }

    #[test]
    fn job_script_has_the_array_and_the_flags() {
        let s = SlurmArgs {
            slurm_partition: Some("short".into()),
            slurm_time: Some("10:00".into()),
            slurm_cpus_per_task: Some(2),
            slurm_sbatch: vec!["--mem=4G".into()],
            ..SlurmArgs::default()
        };
        let t = job_script(
            &s,
            Path::new("/d"),
            Path::new("/o it's"),
            Path::new("/bin/dcfab"),
            "x",
            6,
            true,
        )
        .unwrap();
        for want in [
            "#SBATCH --array=0-5",
            "#SBATCH --partition=short",
            "#SBATCH --time=10:00",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --mem=4G",
            "#SBATCH --output=/d/logs/%A_%a.out",
            r"--out '/o it'\''s' --task",
            "\"$SLURM_ARRAY_TASK_ID\" --plot",
        ] {
            assert!(t.contains(want), "{want} not in\n{t}");
        }
        let bad = SlurmArgs {
            slurm_sbatch: vec!["mem=4G".into()],
            ..SlurmArgs::default()
        };
        let e = job_script(
            &bad,
            Path::new("/d"),
            Path::new("/o"),
            Path::new("/b"),
            "x",
            1,
            false,
        );
        assert!(e.unwrap_err().to_string().contains("--slurm-sbatch"));
    }
}
