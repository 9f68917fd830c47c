//! The entry point of a fabric run: scenario in, results out.

use crate::error::{Error, Result};
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
pub fn simulate(s: &Scenario, _ctl: &RunControl) -> Result<RunResult> {
    crate::validate::validate(s)?;
    Err(Error::field("topology.kind", "the fabric simulator is being built"))
}
