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

// The `Examples:` of every `--help` (README "The `dcfab` command" has the same commands; every
// `dcfab run` line here is checked by tests/cli_docs.rs with `--dry-run`). Run from the
// repository root, where `scenarios/` is.

/// `dcfab --help`, after the subcommands.
const MAIN_HELP: &str = "\
Quick start (from the repository root):
  dcfab run                      the built-in default: 128-host permutation of 2 MiB on a
                                 3-tier k=8 fat tree (scenarios/default.toml) -> out/default/
  dcfab run scenarios/uno_failures.toml --set stop.max_time_us=500
                                 a shipped scenario, its first 500 us of simulated time
  dcfab run --help               options and examples (also: dcfab sweep --help, ...)

`dcfab` here is target/release/dcfab after `cargo build --release -p sim-harness`.

Shipped scenarios: scenarios/*.toml (README \"Scenario files shipped\"); scenario fields:
README \"Scenario format\"; output files (summary.json, flows.csv, ...): README \"Output format\".";

/// `dcfab run --help`.
const RUN_HELP: &str = "\
Examples:
  dcfab run
      the built-in default scenario; writes out/default/ (summary.json, flows.csv, ...)
  dcfab run scenarios/reps_symmetric.toml --set transport.lb=ops --out out/reps_ops
      a shipped scenario with one field changed (here REPS's spraying baseline, OPS)
  dcfab run scenarios/zeropod_incast.toml --set transport.cc=dctcp
      Zeropod's incast on its DCTCP baseline
  dcfab run scenarios/uno_realistic.toml --set stop.max_time_us=2000 --plot
      stop after 2 ms of simulated time and draw the SVG figures next to the results
  dcfab run scenarios/dcsim_a2av.toml --dry-run
      check the scenario and print it fully resolved; run nothing
  dcfab run --set output.trace=true --set stop.max_time_us=5
      also record the packet trace, out/default/trace.jsonl (`dcfab trace` turns it into VCD)

A run shows a progress bar on stderr (when it is a terminal). Ctrl-C stops it and still writes
what was computed (summary.json says \"interrupted\": true; exit code 130).";

/// `dcfab sweep --help`.
const SWEEP_HELP: &str = "\
Examples:
  dcfab sweep scenarios/incast.toml --grid transport.lb=ecmp,ops,reps --grid seed=1,2 --out out/lb
      6 runs in out/lb/<i>-transport.lb=<lb>-seed=<s>/ and one row each in out/lb/sweep.csv
  dcfab sweep scenarios/uno_phantom.toml --grid topology.phantom_queue=true,false --out out/phantom --plot
      Uno with and without phantom queues, plus sweep_mean_fct_ps.svg and sweep_max_fct_ps.svg
  dcfab sweep scenarios/incast.toml --grid transport.lb=ecmp,reps --out /shared/lb --slurm /shared/lb-job
      a Slurm job array instead of local runs; then `dcfab sweep collect /shared/lb-job`

Ctrl-C stops the running runs (their results are written) and skips the rest; sweep.csv says
which run was interrupted or not started.";

/// `dcfab budget --help`.
const BUDGET_HELP: &str = "\
Examples:
  dcfab budget             one row per block: bits per connection / port / pod, and the paper's figure
  dcfab budget --json      the same rows as a JSON array";

/// `dcfab golden --help`.
const GOLDEN_HELP: &str = "\
Examples:
  dcfab golden list        the block-level golden scenarios
  dcfab golden verify      re-run every one against golden/traces/ (exit 1 on a mismatch)
  dcfab golden bless       rewrite the traces after an intended change (review the git diff)";

/// `dcfab trace --help`.
const TRACE_HELP: &str = "\
Examples:
  dcfab trace token_bucket_quarter_rate --vcd tb.vcd      open tb.vcd in GTKWave / Surfer
  dcfab trace phantom_red_ramp --jsonl -                  the trace as JSON Lines on stdout

A fabric run's packet trace (`dcfab run --set output.trace=true`) is such a file:
`dcfab trace out/default/trace.jsonl --vcd default.vcd` opens every port of the run.";

/// `dcfab plot --help`.
const PLOT_HELP: &str = "\
Examples:
  dcfab plot out/default                        a run: fct_cdf.svg, queues.svg, links.svg, ...
  dcfab plot out/lb --metric p99_fct_ps         a sweep: sweep_p99_fct_ps.svg against the first grid
  dcfab plot out/lb --runs                      a sweep, and every run's own figures";

/// `dcfab sweep collect --help`.
const COLLECT_HELP: &str = "\
Example:
  dcfab sweep collect /shared/lb-job     OUT/sweep.csv and the sweep figures; exit 1 until every task is ok";

/// dcfab: cycle-accurate NIC/switch block models and a fabric discrete-event simulator.
#[derive(Parser, Debug)]
#[command(name = "dcfab", version, propagate_version = true)]
#[command(after_help = MAIN_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one scenario (or the built-in default) and write its results.
    // `--metric` is shared with `sweep` (plot::PlotFlags) but a run's figures take none: it is
    // refused with a message (run.rs), and kept out of `dcfab run --help`.
    #[command(after_help = RUN_HELP, mut_arg("metrics", |a| a.hide(true)))]
    Run(run::Args),
    /// Run the cross product of parameter grids in parallel; one sub-directory per run plus sweep.csv.
    #[command(after_help = SWEEP_HELP)]
    Sweep(sweep::Args),
    /// Print the hardware state budget of every block against each paper.
    #[command(after_help = BUDGET_HELP)]
    Budget(budget::Args),
    /// Verify (or re-bless) every block against its checked-in golden trace.
    #[command(after_help = GOLDEN_HELP)]
    Golden(golden::Args),
    /// Produce one golden scenario's trace (or load a trace file) as JSON Lines and/or VCD.
    #[command(after_help = TRACE_HELP)]
    Trace(trace::Args),
    /// Draw SVG figures of a run's or a sweep's output directory.
    #[command(after_help = PLOT_HELP)]
    Plot(plot::Args),
    // `dcfab sweep collect DIR` (main() routes it here, slurm::route_collect).
    /// Write sweep.csv and the figures of a `--slurm` sweep from its finished tasks.
    #[command(
        after_help = COLLECT_HELP,
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
    quiet_broken_pipe();
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

/// `dcfab golden list | head`: when stdout is closed early, `println!` panics with "failed
/// printing to stdout: Broken pipe". Exit quietly instead, with the shell's code for a
/// process ended by SIGPIPE (141), as a C tool would; every other panic is reported as before.
/// Results a run writes are complete before its summary is printed.
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
