//! The entry point of a fabric run: scenario in, results out.

use crate::error::Result;
use crate::results::{Progress, RunResult};
use crate::scenario::Scenario;
use std::sync::atomic::AtomicBool;

/// How the caller watches and interrupts a run.
#[derive(Default, Clone, Copy)]
pub struct RunControl<'a> {
    /// Called now and then (at most a few times per wall-clock second) with the progress.
    pub progress: Option<&'a (dyn Fn(Progress) + Sync)>,
    /// When set to true the run stops at the next check and returns what it has so far
    /// (flows not completed have `end_ps = 0`).
    pub stop: Option<&'a AtomicBool>,
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
    crate::estimate::check(s, crate::estimate::available_memory())?;
    let mut sim = crate::engine::Sim::build(s)?;
    sim.run(ctl);
    sim.dcsim_time_check()?;
    let mut r = sim.results(s);
    r.trace = sim.take_trace();
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
