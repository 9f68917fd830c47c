//! The entry point of a fabric run: scenario in, results out.

use crate::error::Result;
use crate::results::{Progress, RunResult};
use crate::scenario::Scenario;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// How the caller watches and interrupts a run.
#[derive(Default, Clone, Copy)]
pub struct RunControl<'a> {
    /// Called now and then (at most a few times per wall-clock second) with the progress.
    pub progress: Option<&'a (dyn Fn(Progress) + Sync)>,
    /// When set to true the run stops at the next check and returns what it has so far
    /// (flows not completed have `end_ps = 0`).
    pub stop: Option<&'a AtomicBool>,
    /// An existing directory where a traced run (`output.trace`) writes `trace.jsonl` as it
    /// goes, so the trace does not sit in memory (`RunResult::trace_file` names it; the
    /// CLI passes the run's staging directory, [`crate::output::begin_run`]). `None`: the
    /// trace is held in memory (`RunResult::trace`).
    pub trace_dir: Option<&'a Path>,
}

impl RunControl<'_> {
    /// Where the memory estimate finds the trace.
    pub(crate) fn trace_in(&self) -> crate::estimate::TraceIn {
        match self.trace_dir {
            Some(_) => crate::estimate::TraceIn::File,
            None => crate::estimate::TraceIn::Memory,
        }
    }

    /// The file a traced run spools to, if any.
    pub(crate) fn trace_path(&self, s: &Scenario) -> Option<std::path::PathBuf> {
        self.trace_dir
            .filter(|_| s.output.trace)
            .map(|d| d.join("trace.jsonl"))
    }
}

/// Run one scenario to completion (or to `stop.max_time_us`, or until interrupted).
///
/// Validates the scenario, checks its estimated cost ([`crate::estimate::check`]), builds the fabric ([`crate::topology`]), the workload
/// ([`crate::workload`]) and the engine ([`crate::engine::Sim`]), runs the event loop and
/// returns every metric. Same scenario (same seed): bit-identical results, except the
/// wall-clock fields (`wall_s`, `events_per_s`, `data_packets_per_s`).
pub fn simulate(s: &Scenario, ctl: &RunControl) -> Result<RunResult> {
    crate::validate::validate(s)?;
    if s.transport.cc == crate::scenario::CcKind::Zeropod {
        return crate::zeropod::simulate(s, ctl);
    }
    // Refuse what cannot fit in memory (the CLI prints the long-run warning itself).
    crate::estimate::check_with(s, crate::estimate::available_memory(), ctl.trace_in())?;
    let mut sim = crate::engine::Sim::build(s)?;
    if let Some(path) = ctl.trace_path(s) {
        sim.spool_trace(&path)?;
    }
    sim.run(ctl);
    sim.dcsim_time_check()?;
    let mut r = sim.results(s);
    if let Some(t) = sim.take_trace()? {
        t.put(&mut r);
    }
    Ok(r)
}

/// `output.trace_flows` and `output.trace_ports` checked against the workload's flows and
/// the fabric's port names, which only a build makes: the packet engine's fabric, or a
/// Zeropod run's region names ([`crate::zeropod::check_trace`]). Nothing runs (`dcfab run
/// --dry-run`).
pub fn check_trace_scope(s: &Scenario) -> Result<()> {
    crate::validate::validate(s)?;
    if s.transport.cc == crate::scenario::CcKind::Zeropod {
        return crate::zeropod::check_trace(s);
    }
    crate::engine::Sim::build(s).map(|_| ())
}
