//! `dcfab sweep <SCENARIO> --grid path=v1,v2,... [--grid ...] [--jobs N] --out DIR`: run the
//! cross product of the grids in parallel, each run in its own sub-directory, and write
//! `sweep.csv` (one row per run: the grid values and the summary metrics).

use super::common::{self, fmt_ps, LazyBar};
use super::Outcome;
use rayon::prelude::*;
use sim_harness::estimate;
use sim_harness::output::{self, DCFAB_VERSION};
use sim_harness::overrides::{self, Override};
use sim_harness::results::Summary;
use sim_harness::{simulate, Error, Result, RunControl, Scenario};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Run a parameter sweep.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Scenario file (TOML); without it, the built-in default.
    #[arg(value_name = "SCENARIO")]
    pub scenario: Option<PathBuf>,
    /// A parameter and its values, e.g. `--grid transport.lb=ecmp,ops,reps` (repeatable;
    /// the runs are the cross product, the first grid varying slowest).
    #[arg(
        long = "grid",
        value_name = "PATH=V1,V2,...",
        required_unless_present = "task"
    )]
    pub grids: Vec<String>,
    /// Override a scenario field for every run (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub sets: Vec<String>,
    /// Seed of every run (a `--grid seed=1,2,3` overrides it).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Runs at a time [default: the number of CPUs].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Output directory: one sub-directory per run, plus sweep.csv.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// No Wormhole skipping in any run.
    #[arg(long)]
    pub no_skip: bool,
    /// No progress bar and no table on stdout.
    #[arg(long, short)]
    pub quiet: bool,
    /// `--plot`, `--metric`: figures (cli/plot.rs).
    #[command(flatten)]
    pub plot: super::plot::PlotFlags,
    /// `--slurm DIR` and its options (cli/slurm.rs).
    #[command(flatten)]
    pub slurm: super::slurm::SlurmArgs,
}

/// One `--grid`.
#[derive(Debug)]
struct Grid {
    /// Canonical path (`failures.0.at_us`).
    path: String,
    /// The path as the user wrote it.
    spelled: String,
    values: Vec<Override>,
}

fn parse_grid(arg: &str) -> Result<Grid> {
    let bad = |problem: String| Error::Cli {
        flag: "--grid".into(),
        problem,
    };
    let (path, vals) = arg.split_once('=').ok_or_else(|| {
        bad(format!(
            "'{arg}' is not path=v1,v2,... (e.g. transport.lb=ecmp,ops)"
        ))
    })?;
    let path = path.trim();
    // The canonical spelling: `failures[0].at_us` and `failures.0.at_us` are one path.
    let path = &overrides::parse_path(path, "--grid")?.join(".");
    let raw: Vec<&str> = vals.split(',').map(str::trim).collect();
    if raw.iter().any(|v| v.is_empty()) {
        return Err(bad(format!("'{arg}' has an empty value")));
    }
    let values = raw
        .iter()
        .map(|v| Override::parse(&format!("{path}={v}"), "--grid"))
        .collect::<Result<Vec<_>>>()?;
    Ok(Grid {
        path: path.to_string(),
        spelled: arg
            .split_once('=')
            .map_or("", |(p, _)| p.trim())
            .to_string(),
        values,
    })
}

/// Largest number of runs in one sweep.
pub const MAX_RUNS: usize = 100_000;

/// Whether grid path `a` covers `b` (equal, or `b` is inside `a`: `failures` covers
/// `failures.0.at_us`), on canonical (dot-joined) paths.
fn covers(a: &str, b: &str) -> bool {
    b == a || b.strip_prefix(a).is_some_and(|r| r.starts_with('.'))
}

/// Refuse a field given by two grids (under any spelling), or a grid inside another's field.
fn check_distinct(grids: &[Grid]) -> Result<()> {
    for (i, g) in grids.iter().enumerate() {
        for h in &grids[..i] {
            if g.path == h.path {
                return Err(Error::Cli {
                    flag: "--grid".into(),
                    problem: format!(
                        "'{}' is given twice (as '{}' and '{}'); give each field one grid",
                        g.path, h.spelled, g.spelled
                    ),
                });
            }
            if covers(&h.path, &g.path) || covers(&g.path, &h.path) {
                return Err(Error::Cli {
                    flag: "--grid".into(),
                    problem: format!(
                        "'{}' and '{}' overlap (one sets part of the other); grid each field once",
                        h.spelled, g.spelled
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Number of runs: the product of the grid sizes, checked and at most [`MAX_RUNS`].
fn run_count(grids: &[Grid]) -> Result<usize> {
    let too_many = || Error::Cli {
        flag: "--grid".into(),
        problem: format!(
            "the grids make {} runs; at most {MAX_RUNS}",
            grids
                .iter()
                .map(|g| g.values.len().to_string())
                .collect::<Vec<_>>()
                .join(" x ")
        ),
    };
    grids
        .iter()
        .try_fold(1usize, |n, g| n.checked_mul(g.values.len()))
        .filter(|&n| n <= MAX_RUNS)
        .ok_or_else(too_many)
}

/// The cap of `--jobs`: 4 runs per CPU, at most 256 (runs beyond the CPUs only compete).
pub fn max_jobs(cpus: usize) -> usize {
    cpus.saturating_mul(4).clamp(1, 256)
}

/// One run of the sweep.
pub(super) struct Planned {
    pub(super) name: String,
    pub(super) values: Vec<String>,
    pub(super) scenario: Scenario,
}

fn dir_name(index: usize, total: usize, values: &[(&str, &str)]) -> String {
    let width = total.saturating_sub(1).to_string().len();
    let mut name = format!("{index:0width$}");
    for (p, v) in values {
        name.push('-');
        name.push_str(p);
        name.push('=');
        name.push_str(v);
    }
    let mut clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '=' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect();
    clean.truncate(120);
    clean
}

/// Build and validate every run of the cross product before running any.
pub(super) fn plan(args: &Args) -> Result<Vec<Planned>> {
    let loaded = common::load(
        args.scenario.as_deref(),
        &args.sets,
        args.seed,
        args.no_skip,
    )?;
    let grids = args
        .grids
        .iter()
        .map(|g| parse_grid(g))
        .collect::<Result<Vec<_>>>()?;
    check_distinct(&grids)?;
    let total = run_count(&grids)?;
    let available = estimate::available_memory();
    let mut runs = Vec::with_capacity(total);
    for index in 0..total {
        // Mixed-radix digits, first grid most significant.
        let mut rem = index;
        let mut picks = vec![0usize; grids.len()];
        for (gi, g) in grids.iter().enumerate().rev() {
            picks[gi] = rem % g.values.len();
            rem /= g.values.len();
        }
        let chosen: Vec<&Override> = grids
            .iter()
            .zip(&picks)
            .map(|(g, &p)| &g.values[p])
            .collect();
        let labels: Vec<(&str, &str)> = chosen
            .iter()
            .map(|o| (o.path.as_str(), o.raw.as_str()))
            .collect();
        let name = dir_name(index, total, &labels);
        let mut list = loaded.overrides.clone();
        list.extend(chosen.iter().map(|o| (*o).clone()));
        let ctx = |e| common::with_context(e, &format!("in sweep run {name}"));
        let scenario = overrides::resolve(loaded.table.clone(), &list).map_err(ctx)?;
        let trace_in = estimate::TraceIn::File;
        if let Some(w) = estimate::check_with(&scenario, available, trace_in).map_err(ctx)? {
            eprintln!("warning: sweep run {name}: {w}");
        }
        runs.push(Planned {
            name,
            values: chosen.iter().map(|o| o.raw.clone()).collect(),
            scenario,
        });
    }
    Ok(runs)
}

/// What became of one run.
pub(super) enum Status {
    Ok(Summary),
    Interrupted(Summary),
    Failed(String),
    Skipped,
}

impl Status {
    pub(super) fn label(&self) -> String {
        match self {
            Status::Ok(_) => "ok".into(),
            Status::Interrupted(_) => "interrupted".into(),
            Status::Failed(e) => format!("error: {e}"),
            Status::Skipped => "skipped".into(),
        }
    }
    fn summary(&self) -> Option<&Summary> {
        match self {
            Status::Ok(s) | Status::Interrupted(s) => Some(s),
            _ => None,
        }
    }
}

pub(super) fn run_one(p: &Planned, out: &std::path::Path) -> Status {
    if common::stopped() {
        return Status::Skipped;
    }
    let dir = out.join(&p.name);
    let result = output::begin_run(&dir).and_then(|staging| {
        // A trace is written into the staging directory as the run goes.
        let ctl = RunControl {
            progress: None,
            stop: Some(common::stop_flag()),
            trace_dir: Some(&staging),
        };
        let r = simulate(&p.scenario, &ctl).inspect_err(|_| output::abandon_run(&staging))?;
        let interrupted = common::stopped();
        output::finish_run(&staging, &dir, &p.scenario, &r, interrupted)?;
        Ok((r.summary, interrupted))
    });
    match result {
        Ok((s, false)) => Status::Ok(s),
        Ok((s, true)) => Status::Interrupted(s),
        Err(e) => {
            eprintln!("error: {e} (sweep run {})", p.name);
            Status::Failed(e.to_string())
        }
    }
}

/// Plan, run in parallel, write sweep.csv, print a table.
pub fn execute(args: Args) -> Result<Outcome> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = max_jobs(cpus);
    match args.jobs {
        Some(0) => {
            return Err(Error::Cli {
                flag: "--jobs".into(),
                problem: format!("must be at least 1 (and at most {cap})"),
            })
        }
        Some(j) if j > cap => {
            return Err(Error::Cli {
                flag: "--jobs".into(),
                problem: format!(
                    "{j} is more than the limit of {cap} (4 per CPU, {cpus} CPUs, at most 256): \
                     more runs at a time than that only compete for the CPUs and memory"
                ),
            })
        }
        _ => {}
    }
    if args.slurm.slurm.is_some() {
        args.plot.metrics.refuse(
            "with --slurm the sweep figures are drawn by `dcfab sweep collect DIR`: give \
             --metric there",
        )?;
    } else if !args.plot.plot {
        args.plot
            .metrics
            .refuse("--metric chooses the figures --plot draws; give --plot too")?;
    }
    if let Some(outcome) = super::slurm::intercept(&args)? {
        return Ok(outcome);
    }
    let runs = plan(&args)?;
    let grid_paths: Vec<String> = args
        .grids
        .iter()
        .filter_map(|g| g.split_once('=').map(|(p, _)| p.trim().to_string()))
        .collect();
    if args.plot.plot {
        check_metrics(&args.plot.metrics.metrics, &runs, &grid_paths)?;
    }
    let jobs = args.jobs.unwrap_or(cpus).min(runs.len().max(1));
    // The whole sweep is written into a staging directory and moved into place at the end,
    // so `--out` never mixes two sweeps (a run of the last sweep that this one lacks does
    // not survive).
    output::check_replaceable(&args.out)?;
    let staging = output::staging_dir(&args.out)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Error::Cli {
            flag: "--jobs".into(),
            problem: format!("cannot start {jobs} threads: {e}"),
        })?;

    common::install_ctrl_c();
    let bar = LazyBar::new(common::progress_enabled(args.quiet), "runs");
    let done = AtomicU64::new(0);
    let total = runs.len() as u64;
    let statuses: Vec<Status> = pool.install(|| {
        runs.par_iter()
            .map(|p| {
                let st = run_one(p, &staging);
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                bar.update(n, total, || format!("last: {}", p.name));
                st
            })
            .collect()
    });
    bar.finish();

    let written = write_sweep_csv(&staging, &grid_paths, &runs, &statuses)
        .and_then(|()| output::commit_dir(&staging, &args.out));
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    written?;
    if args.plot.plot {
        super::plot::after_sweep(&args.out, &args.plot.metrics, args.quiet)?;
    }
    if !args.quiet {
        print_table(&args, &runs, &statuses);
    }
    let failed = statuses
        .iter()
        .filter(|s| matches!(s, Status::Failed(_)))
        .count();
    if failed > 0 {
        eprintln!("error: {failed} of {} sweep runs failed", runs.len());
        return Ok(Outcome::Failed);
    }
    if common::stopped() {
        return Ok(Outcome::Interrupted);
    }
    Ok(Outcome::Done)
}

fn write_sweep_csv(
    dir: &std::path::Path,
    grid_paths: &[String],
    runs: &[Planned],
    statuses: &[Status],
) -> Result<()> {
    let rows: Vec<Row> = runs
        .iter()
        .zip(statuses)
        .map(|(p, st)| row_of(p, st))
        .collect();
    write_rows(dir, runs.first().map(|p| &p.scenario), grid_paths, &rows)
}

/// One row of `sweep.csv`: run name, grid values, status label, summary columns.
pub(super) struct Row {
    pub(super) name: String,
    pub(super) values: Vec<String>,
    pub(super) status: String,
    pub(super) cols: Vec<(String, String)>,
}

/// `--metric` names with `--plot`, checked before any run: a `sweep.csv` column (a summary
/// field, a grid path, or an `extra.` / `drops.` entry, which only the runs name).
fn check_metrics(metrics: &[String], runs: &[Planned], grid_paths: &[String]) -> Result<()> {
    let Some(first) = runs.first() else {
        return Ok(());
    };
    let fixed: Vec<String> = output::summary_columns(&first.scenario, &Summary::default())
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for m in metrics {
        let known = fixed.contains(m)
            || grid_paths.contains(m)
            || ["extra.", "drops."].iter().any(|p| m.starts_with(p));
        if !known {
            return Err(Error::Cli {
                flag: "--metric".into(),
                problem: format!(
                    "'{m}' is not a sweep.csv column; one of {}, a --grid path, \
                     extra.<name> or drops.<cause>",
                    fixed.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// The `sweep.csv` row of a run.
pub(super) fn row_of(p: &Planned, st: &Status) -> Row {
    Row {
        name: p.name.clone(),
        values: p.values.clone(),
        status: st.label(),
        cols: st
            .summary()
            .map(|s| output::summary_columns(&p.scenario, s))
            .unwrap_or_default(),
    }
}

/// Write `out/sweep.csv` (provenance from `base`, the first run's scenario).
pub(super) fn write_rows(
    out: &std::path::Path,
    base: Option<&Scenario>,
    grid_paths: &[String],
    rows: &[Row],
) -> Result<()> {
    // Union of metric names, in first-seen order.
    let mut metrics: Vec<String> = Vec::new();
    for row in rows {
        for (k, _) in &row.cols {
            // A grid over `seed` already has its column.
            if !metrics.contains(k) && !grid_paths.contains(k) {
                metrics.push(k.clone());
            }
        }
    }
    let mut header = vec!["run".to_string()];
    header.extend(grid_paths.iter().cloned());
    header.push("status".into());
    header.extend(metrics.iter().cloned());
    let prov = match base {
        Some(s) => format!(
            "# dcfab_version={DCFAB_VERSION} scenario={} seed={} grid={}",
            s.name,
            s.seed,
            grid_paths.join(",")
        ),
        None => format!("# dcfab_version={DCFAB_VERSION}"),
    };
    let path = out.join("sweep.csv");
    output::atomic_write(&path, |w| {
        writeln!(w, "{prov}")?;
        let mut c = csv::WriterBuilder::new().has_headers(false).from_writer(w);
        let io = |e: csv::Error| std::io::Error::other(e.to_string());
        c.write_record(&header).map_err(io)?;
        for row in rows {
            let mut rec = vec![row.name.clone()];
            rec.extend(row.values.iter().cloned());
            rec.push(row.status.clone());
            for m in &metrics {
                rec.push(
                    row.cols
                        .iter()
                        .find(|(k, _)| k == m)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default(),
                );
            }
            c.write_record(&rec).map_err(io)?;
        }
        c.flush()
    })
}

fn print_table(args: &Args, runs: &[Planned], statuses: &[Status]) {
    let w = runs.iter().map(|p| p.name.len()).max().unwrap_or(3).max(3);
    println!(
        "{:<w$}  {:<11}  {:>13}  {:>14}  {:>14}  {:>14}  {:>8}",
        "run", "status", "flows done", "mean FCT", "p99 FCT", "max FCT", "drops"
    );
    for (p, st) in runs.iter().zip(statuses) {
        let status = match st {
            Status::Failed(_) => "error".to_string(),
            other => other.label(),
        };
        match st.summary() {
            Some(s) => println!(
                "{:<w$}  {:<11}  {:>13}  {:>14}  {:>14}  {:>14}  {:>8}",
                p.name,
                status,
                format!("{}/{}", s.flows_completed, s.flows),
                fmt_ps(s.mean_fct_ps),
                fmt_ps(s.p99_fct_ps),
                fmt_ps(s.max_fct_ps),
                s.drops
            ),
            None => println!("{:<w$}  {:<11}", p.name, status),
        }
    }
    println!("wrote {}", args.out.join("sweep.csv").display());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_parse_and_name_runs() {
        let g = parse_grid("transport.lb=ecmp, ops,reps").unwrap();
        assert_eq!(g.path, "transport.lb");
        assert_eq!(g.values.len(), 3);
        assert_eq!(g.values[1].raw, "ops");
        assert!(parse_grid("transport.lb").is_err());
        assert!(parse_grid("transport.lb=a,,b").is_err());
        assert_eq!(
            dir_name(3, 12, &[("transport.lb", "ops"), ("name", "a b")]),
            "03-transport.lb=ops-name=a_b"
        );
    }
}
