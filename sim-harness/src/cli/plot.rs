//! `dcfab plot OUT_DIR [--metric NAME ...] [--runs]`: draw the SVG figures of a run's output
//! directory, or the comparison figures of a sweep's (README "Figures"). Also the `--plot`
//! and `--metric` flags of `run` and `sweep`.

use super::Outcome;
use sim_harness::plot;
use sim_harness::{Error, Result};
use std::path::{Path, PathBuf};

/// Draw the figures of a run or a sweep.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A run's output directory (summary.json, flows.csv, ...) or a sweep's (sweep.csv).
    #[arg(value_name = "OUT_DIR")]
    pub dir: PathBuf,
    /// A sweep: also draw every run's own figures in its sub-directory.
    #[arg(long)]
    pub runs: bool,
    /// Print nothing.
    #[arg(long, short)]
    pub quiet: bool,
    /// Metrics of the sweep figures.
    #[command(flatten)]
    pub metrics: MetricArgs,
}

/// The metric choice of sweep figures.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MetricArgs {
    /// A sweep.csv column to draw against the grid values, e.g. `p99_fct_ps` or
    /// `extra.mean_cct_ps` (repeatable) [default: mean_fct_ps and max_fct_ps].
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
}

impl MetricArgs {
    /// The metrics asked for, or the default ones.
    pub fn chosen(&self) -> Vec<String> {
        if self.metrics.is_empty() {
            plot::DEFAULT_METRICS
                .iter()
                .map(|m| m.to_string())
                .collect()
        } else {
            self.metrics.clone()
        }
    }
}

impl MetricArgs {
    /// Refuse `--metric` where no sweep figure is drawn: `why` says where it would apply
    /// (a flag that is given is never ignored).
    pub fn refuse(&self, why: &str) -> Result<()> {
        match self.metrics.first() {
            Some(m) => Err(Error::Cli {
                flag: "--metric".into(),
                problem: format!("'{m}' is not used: {why}"),
            }),
            None => Ok(()),
        }
    }
}

/// `--plot` (with `--metric`) on `run` and `sweep`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PlotFlags {
    /// Also draw the SVG figures next to the results (as `dcfab plot` does).
    #[arg(long)]
    pub plot: bool,
    /// Metrics of the sweep figures.
    #[command(flatten)]
    pub metrics: MetricArgs,
}

/// Draw the run's figures into `dir`; prints the files unless `quiet`.
pub fn after_run(dir: &Path, quiet: bool) -> Result<()> {
    let files = plot::plot_run(dir)?;
    report(&files, quiet);
    Ok(())
}

/// Draw the sweep's comparison figures into `dir`; prints the files unless `quiet`.
pub fn after_sweep(dir: &Path, metrics: &MetricArgs, quiet: bool) -> Result<()> {
    let files = plot::plot_sweep(dir, &metrics.chosen()).map_err(|e| match e {
        Error::Parse { path, problem } if problem.starts_with("no column") => Error::Cli {
            flag: "--metric".into(),
            problem: format!("{}: {problem}", path.display()),
        },
        other => other,
    })?;
    report(&files, quiet);
    Ok(())
}

fn report(files: &[PathBuf], quiet: bool) {
    if quiet {
        return;
    }
    if files.is_empty() {
        println!("plot: no data to draw");
    }
    for f in files {
        println!("plot: wrote {}", f.display());
    }
}

/// Draw the figures of a run, or of a sweep (and with `--runs` of each of its runs).
pub fn execute(args: Args) -> Result<Outcome> {
    if !args.dir.is_dir() {
        return Err(Error::Cli {
            flag: "OUT_DIR".into(),
            problem: format!("{} is not a directory", args.dir.display()),
        });
    }
    if !plot::is_sweep(&args.dir) {
        let why = "OUT_DIR is a run's directory (no sweep.csv); --metric chooses the figures \
                   of a sweep";
        args.metrics.refuse(why)?;
        if args.runs {
            return Err(Error::Cli {
                flag: "--runs".into(),
                problem: format!(
                    "{} is a run's directory (no sweep.csv); --runs draws the runs of a sweep",
                    args.dir.display()
                ),
            });
        }
        after_run(&args.dir, args.quiet)?;
        return Ok(Outcome::Done);
    }
    after_sweep(&args.dir, &args.metrics, args.quiet)?;
    if args.runs {
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&args.dir)
            .map_err(|source| Error::Io {
                path: args.dir.clone(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("summary.json").is_file())
            .collect();
        subdirs.sort();
        for d in subdirs {
            after_run(&d, args.quiet)?;
        }
    }
    Ok(Outcome::Done)
}
