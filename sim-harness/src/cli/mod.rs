//! Command-line parsing and dispatch.
//!
//! To add a subcommand: write `cli/<name>.rs` with a `#[derive(clap::Args)] pub struct Args`
//! and a `pub fn execute(args: Args) -> Result<Outcome>`, declare the module below, and add
//! one variant (with a doc line: it is the help text) to [`Command`] and its arm to
//! [`Command::execute`].
//!
//! Errors are printed as one line `error: <field or file or flag>: <problem>` on stderr.
//! Exit codes: 0 success, 1 error (bad input or a failed run), 2 bad command line (clap),
//! 130 interrupted by Ctrl-C, 143 by SIGTERM (results computed so far are written).

use clap::{Parser, Subcommand};
use sim_harness::Result;
use std::process::ExitCode;

pub mod budget;
pub mod common;
pub mod golden;
pub mod plot;
pub mod run;
pub mod slurm;
pub mod sweep;
pub mod trace;

/// dcfab: cycle-accurate NIC/switch block models and a fabric discrete-event simulator.
#[derive(Parser, Debug)]
#[command(name = "dcfab", version, propagate_version = true)]
#[command(
    after_help = "Quick start: `dcfab run` runs the built-in 128-host permutation \
(scenarios/default.toml) and writes out/default/. See README.md for the scenario and output formats."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one scenario (or the built-in default) and write its results.
    Run(run::Args),
    /// Run the cross product of parameter grids in parallel; one sub-directory per run plus sweep.csv.
    Sweep(sweep::Args),
    /// Print the hardware state budget of every block against each paper.
    Budget(budget::Args),
    /// Verify (or re-bless) every block against its checked-in golden trace.
    Golden(golden::Args),
    /// Produce one golden scenario's trace (or load a trace file) as JSON Lines and/or VCD.
    Trace(trace::Args),
    /// Draw SVG figures of a run's or a sweep's output directory.
    Plot(plot::Args),
    /// `dcfab sweep collect DIR` (main() routes it here): sweep.csv and figures of a `--slurm` sweep.
    #[command(
        name = "sweep-collect",
        hide = true,
        override_usage = "dcfab sweep collect [OPTIONS] <DIR>"
    )]
    SweepCollect(slurm::CollectArgs),
}

impl Command {
    /// Run the subcommand.
    pub fn execute(self) -> Result<Outcome> {
        match self {
            Command::Run(a) => run::execute(a),
            Command::Sweep(a) => sweep::execute(a),
            Command::Budget(a) => budget::execute(a),
            Command::Golden(a) => golden::execute(a),
            Command::Trace(a) => trace::execute(a),
            Command::Plot(a) => plot::execute(a),
            Command::SweepCollect(a) => slurm::collect(&a),
        }
    }
}

/// How a subcommand ended (when it did not return an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything worked: exit 0.
    Done,
    /// Ctrl-C stopped it; partial results were written: exit 130.
    Interrupted,
    /// Some work failed and was reported already (e.g. one run of a sweep): exit 1.
    Failed,
}

/// Parse the command line, run, map the outcome to an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse_from(slurm::route_collect(std::env::args_os().collect()));
    match cli.command.execute() {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Interrupted) => ExitCode::from(if common::terminated() { 143 } else { 130 }),
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
