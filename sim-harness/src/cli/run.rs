//! `dcfab run [SCENARIO] [--out DIR] [--seed N] [--set path=value ...]`: run one scenario.

use super::common::{self, fmt_ps, fmt_rate, LazyBar};
use super::Outcome;
use sim_harness::output::{self, DCFAB_VERSION};
use sim_harness::results::{Progress, RunResult};
use sim_harness::{estimate, overrides};
use sim_harness::{simulate, Result, RunControl, Scenario};
use std::path::{Path, PathBuf};

/// Run one scenario and write its results.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Scenario file (TOML). Without it, the built-in default: 128 hosts, 3-tier k=8 fat tree,
    /// permutation of 2 MiB messages (scenarios/default.toml).
    #[arg(value_name = "SCENARIO")]
    pub scenario: Option<PathBuf>,
    /// Output directory [default: out/<scenario name>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of every random draw (overrides the scenario's `seed`).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Override a scenario field, e.g. `--set transport.lb=reps` (repeatable; the value is
    /// TOML, or a plain string).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub sets: Vec<String>,
    /// Full packet-level detail: no Wormhole skipping (same as --set skip.enabled=false).
    #[arg(long)]
    pub no_skip: bool,
    /// No progress bar and no summary on stdout.
    #[arg(long, short)]
    pub quiet: bool,
    /// Check the scenario and print it fully resolved (defaults, --set, --seed); run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// `--plot`: figures (cli/plot.rs).
    #[command(flatten)]
    pub plot: super::plot::PlotFlags,
}

/// Load, run, write, print.
pub fn execute(args: Args) -> Result<Outcome> {
    let loaded = common::load(
        args.scenario.as_deref(),
        &args.sets,
        args.seed,
        args.no_skip,
    )?;
    let scenario = overrides::resolve(loaded.table, &loaded.overrides)?;
    // The same cost verdict for --dry-run and a run: refuse what cannot fit, warn on long runs.
    if let Some(warning) = estimate::check(&scenario, estimate::available_memory())? {
        eprintln!("warning: {warning}");
    }
    if args.dry_run {
        print!("{}", output::scenario_toml(&scenario)?);
        return Ok(Outcome::Done);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&scenario.name));

    common::install_ctrl_c();
    let bar = LazyBar::new(common::progress_enabled(args.quiet), "flows");
    let report = |p: Progress| {
        bar.update(p.flows_done, p.flows_total, || {
            format!("sim {}", fmt_ps(p.sim_time_ps))
        })
    };
    let ctl = RunControl {
        progress: Some(&report),
        stop: Some(common::stop_flag()),
    };
    let result = simulate(&scenario, &ctl);
    bar.finish();
    let result = result?;
    let interrupted = common::stopped();
    let files = output::write_run(&out, &scenario, &result, interrupted)?;
    if args.plot.plot {
        super::plot::after_run(&out, args.quiet)?;
    }
    if !args.quiet {
        print_summary(&scenario, &result, &out, &files, interrupted);
    }
    Ok(if interrupted {
        Outcome::Interrupted
    } else {
        Outcome::Done
    })
}

/// The short human summary on stdout.
fn print_summary(s: &Scenario, r: &RunResult, out: &Path, files: &[PathBuf], interrupted: bool) {
    let m = &r.summary;
    println!(
        "dcfab {DCFAB_VERSION}  scenario {}  seed {}{}",
        s.name,
        s.seed,
        if interrupted { "  (INTERRUPTED)" } else { "" }
    );
    println!(
        "  flows      {} of {} completed",
        m.flows_completed, m.flows
    );
    println!(
        "  FCT        mean {}  p99 {}  max {}",
        fmt_ps(m.mean_fct_ps),
        fmt_ps(m.p99_fct_ps),
        fmt_ps(m.max_fct_ps)
    );
    println!(
        "  packets    {} data, {} retransmitted, {} out of order",
        m.data_packets, m.retransmits, m.out_of_order
    );
    println!(
        "  network    {} drops, {} ECN marks, {} trims",
        m.drops, m.ecn_marks, m.trims
    );
    println!("  sim time   {}", fmt_ps(m.end_time_ps));
    if m.extra.get("stalled") == Some(&1.0) {
        println!("  STALLED    no flow made progress for 2000 RTOs; the run stopped there");
    }
    println!(
        "  speed      {} events in {:.3} s wall: {} events/s, {} data packets/s",
        m.events,
        m.wall_s,
        fmt_rate(m.events_per_s),
        fmt_rate(m.data_packets_per_s)
    );
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    println!("  wrote      {}/ ({})", out.display(), names.join(" "));
}
