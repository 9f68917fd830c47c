//! SVG figures of a run's or a sweep's output files (`dcfab plot`, `--plot` on `run` and
//! `sweep`; README "Figures"). Figures are read back from the files on disk, never from the
//! engine, so they can be redrawn for any output directory, also one from another machine.
//!
//! - [`data`]: reading the CSVs and `summary.json`;
//! - [`chart`]: the line and grouped bar charts (plotters, SVG backend only);
//! - [`run_figures`]: the figures of one run;
//! - [`sweep_figures`]: the comparison figures of a sweep.

pub mod chart;
pub mod data;
pub mod run_figures;
pub mod sweep_figures;

use crate::error::Result;
use std::path::{Path, PathBuf};

/// Draw every figure of the run in `dir` that its files allow; returns the files written.
pub fn plot_run(dir: &Path) -> Result<Vec<PathBuf>> {
    let who = data::RunLabel::of_dir(dir)?;
    let figures = [
        run_figures::fct_cdf,
        run_figures::queues,
        run_figures::rates,
        run_figures::fairness,
        run_figures::links,
        run_figures::utilization,
        run_figures::collectives,
        run_figures::uplinks,
    ];
    let mut out = Vec::new();
    for f in figures {
        out.extend(f(dir, &who)?);
    }
    Ok(out)
}

pub use sweep_figures::{plot_sweep, DEFAULT_METRICS};

/// `dir` holds a sweep (a `sweep.csv`) rather than one run.
pub fn is_sweep(dir: &Path) -> bool {
    dir.join("sweep.csv").is_file()
}
