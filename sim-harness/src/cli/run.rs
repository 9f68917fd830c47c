//! `dcfab run [SCENARIO] [--out DIR] [--seed N] [--set path=value ...]`: run one scenario.

use super::common::{self, fmt_ps, fmt_rate, LazyBar};
use super::Outcome;
use sim_harness::output::{self, DCFAB_VERSION};
use sim_harness::results::{Progress, ProgressBasis, ProgressView, RunResult};
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
    args.plot.metrics.refuse(
        "it chooses the figures of a sweep (dcfab sweep --plot, dcfab plot SWEEP_DIR); a \
         run's own figures take no metric",
    )?;
    let scenario = overrides::resolve(loaded.table, &loaded.overrides)?;
    // The same cost verdict for --dry-run and a run: refuse what cannot fit, warn on long runs.
    // The trace is written as the run goes (`RunControl::trace_dir`): not in memory.
    let avail = estimate::available_memory();
    if let Some(warning) = estimate::check_with(&scenario, avail, estimate::TraceIn::File)? {
        eprintln!("warning: {warning}");
    }
    if args.dry_run {
        // The packet trace's flows and ports are checked against the workload and the
        // fabric, which only a build makes (nothing runs).
        let o = &scenario.output;
        if o.trace && !(o.trace_flows.is_empty() && o.trace_ports.is_empty()) {
            sim_harness::run::check_trace_scope(&scenario)?;
        }
        print!("{}", output::scenario_toml(&scenario)?);
        return Ok(Outcome::Done);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&scenario.name));

    common::install_ctrl_c();
    let show = common::progress_enabled(args.quiet);
    let bar = LazyBar::new(show, "");
    let basis = ProgressBasis::of(&scenario);
    let started = std::time::Instant::now();
    let report = |p: Progress| {
        let v = ProgressView::new(&p, basis, started.elapsed().as_secs_f64());
        bar.update((v.fraction() * 1000.0) as u64, 1000, || {
            progress_line(&v, &p)
        })
    };
    // The run's staging directory first: a trace is written there as the run goes.
    let staging = output::begin_run(&out)?;
    let ctl = RunControl {
        // No bar, no report: the progress (O(flows) per report) is not computed at all.
        progress: if show { Some(&report) } else { None },
        stop: Some(common::stop_flag()),
        trace_dir: Some(&staging),
    };
    let result = simulate(&scenario, &ctl);
    bar.finish();
    let result = result.inspect_err(|_| output::abandon_run(&staging))?;
    let interrupted = common::stopped();
    let files = output::finish_run(&staging, &out, &scenario, &result, interrupted)?;
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

/// Bytes in a human binary unit: "512 B", "1.50 KiB", "8.00 MiB", "2.00 GiB", "1.25 TiB".
fn fmt_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// Wall-clock seconds as "42s", "3m07s", "2h05m".
fn fmt_eta(s: f64) -> String {
    let s = s.round() as u64;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s / 60) % 60)
    }
}

/// The progress bar's message: done of total with the rate and ETA, then the flow count
/// and the simulated time.
fn progress_line(v: &ProgressView, p: &Progress) -> String {
    let eta = v.eta_s.map_or_else(|| "-".to_string(), fmt_eta);
    let head = match v.basis {
        ProgressBasis::Bytes => format!(
            "{} of {}  {}/s",
            fmt_bytes(v.done as f64),
            fmt_bytes(v.total as f64),
            fmt_bytes(v.per_s)
        ),
        ProgressBasis::SimTime => format!(
            "sim {} of {}  {}/s",
            fmt_ps(v.done),
            fmt_ps(v.total),
            fmt_ps(v.per_s as u64)
        ),
    };
    let sim = match v.basis {
        ProgressBasis::Bytes => format!("  sim {}", fmt_ps(p.sim_time_ps)),
        ProgressBasis::SimTime => String::new(),
    };
    format!(
        "{head}  ETA {eta}  flows {}/{}{sim}",
        v.flows_done, v.flows_total
    )
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
    if m.flows_completed == 0 {
        println!("  FCT        - (no flow completed)");
    } else {
        println!(
            "  FCT        mean {}  p99 {}  max {}",
            fmt_ps(m.mean_fct_ps),
            fmt_ps(m.p99_fct_ps),
            fmt_ps(m.max_fct_ps)
        );
    }
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
    if m.flows_completed < m.flows {
        // A time limit, Ctrl-C or a stall: say what the files hold (README "Output format").
        println!(
            "  unfinished {} flows: end_ps = 0 in flows.csv; the FCT figures cover completed flows only",
            m.flows - m.flows_completed
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_shows_bytes_rate_eta_and_flows() {
        let p = Progress {
            sim_time_ps: 45_100_000,
            flows_done: 0,
            flows_total: 1024,
            bytes_done: 2 << 30,
            bytes_total: 8 << 30,
            max_time_ps: 0,
        };
        let v = ProgressView::new(&p, ProgressBasis::Bytes, 4.0);
        assert_eq!(
            progress_line(&v, &p),
            "2.00 GiB of 8.00 GiB  512.00 MiB/s  ETA 12s  flows 0/1024  sim 45.100 us"
        );
        let p = Progress {
            max_time_ps: 1_000_000_000,
            sim_time_ps: 250_000_000,
            ..p
        };
        let v = ProgressView::new(&p, ProgressBasis::SimTime, 100.0);
        assert_eq!(
            progress_line(&v, &p),
            "sim 250.000 us of 1.000 ms  2.500 us/s  ETA 5m00s  flows 0/1024"
        );
        assert_eq!(fmt_eta(7300.0), "2h01m");
        assert_eq!(fmt_bytes(512.0), "512 B");
    }
}
