//! The run's `name` (it names the output directory) and the `[output]` section: sampling
//! intervals, the fairness window, the per-class slowdown.

use super::numbers::non_negative;
use crate::error::{Error, Result};
use crate::scenario::{Scenario, TopologyKind};
use crate::units;

pub(super) fn check_name(name: &str) -> Result<()> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() {
        return Err(Error::field("name", "must not be empty"));
    }
    if name.len() > 100 || name.starts_with('.') || !name.chars().all(ok_char) {
        return Err(Error::field(
            "name",
            format!(
                "'{name}' is not a usable directory name (use up to 100 letters, digits, '_', '-', '.', not starting with '.')"
            ),
        ));
    }
    Ok(())
}

/// `output.trace_*`: the packet trace's window and cap (its flows and ports are checked
/// against the workload and the fabric when the engine is built, `engine/trace.rs`). Each
/// applies to the trace only, so setting one without `output.trace = true` is refused
/// rather than ignored.
fn check_trace(s: &Scenario) -> Result<()> {
    let o = &s.output;
    for (field, v) in [
        ("output.trace_from_us", o.trace_from_us),
        ("output.trace_until_us", o.trace_until_us),
    ] {
        non_negative(field, v)?;
        units::us_to_ps(field, v)?;
    }
    if o.trace_until_us > 0.0 && o.trace_until_us <= o.trace_from_us {
        return Err(Error::field(
            "output.trace_until_us",
            format!(
                "{} us is not after output.trace_from_us ({} us): the window would be empty \
                 (0 = to the end of the run)",
                units::num(o.trace_until_us),
                units::num(o.trace_from_us)
            ),
        ));
    }
    if o.trace_max_records == 0 {
        return Err(Error::field(
            "output.trace_max_records",
            "must be at least 1 (leave it out for the default, 10000000)",
        ));
    }
    if !o.trace {
        let set = [
            ("output.trace_from_us", o.trace_from_us > 0.0),
            ("output.trace_until_us", o.trace_until_us > 0.0),
            ("output.trace_flows", !o.trace_flows.is_empty()),
            ("output.trace_ports", !o.trace_ports.is_empty()),
            (
                "output.trace_max_records",
                o.trace_max_records != crate::scenario::DEFAULT_TRACE_MAX_RECORDS,
            ),
        ];
        if let Some((field, _)) = set.iter().find(|(_, on)| *on) {
            return Err(Error::field(
                *field,
                "applies to the packet trace only: set output.trace = true (or leave it out)",
            ));
        }
    }
    Ok(())
}

/// `output.*`: sample intervals (0 = off, else at least [`units::MIN_SAMPLE_US`]), the
/// fairness window against the rate series, and `fct_slowdown` (two datacenters only).
pub(super) fn check_output(s: &Scenario) -> Result<()> {
    for (field, v) in [
        ("output.queue_sample_us", s.output.queue_sample_us),
        ("output.selection_bucket_us", s.output.selection_bucket_us),
        ("output.rate_sample_us", s.output.rate_sample_us),
    ] {
        non_negative(field, v)?;
        units::us_to_ps(field, v)?;
        if v > 0.0 && v < units::MIN_SAMPLE_US {
            return Err(Error::field(
                field,
                format!(
                    "{v:?} us is out of range: allowed 0 (off) or {} to 1e9 us",
                    units::MIN_SAMPLE_US
                ),
            ));
        }
    }
    let w = s.output.fair_window_us;
    if !(w.is_finite() && w >= 0.0) || (w > 0.0 && w < s.output.rate_sample_us) || w > 1e9 {
        return Err(Error::field(
            "output.fair_window_us",
            format!(
                "{w:?} us is out of range: allowed 0 (per sample interval) or \
                 output.rate_sample_us ({}) to 1e9 us",
                s.output.rate_sample_us
            ),
        ));
    }
    if w > 0.0 && s.output.rate_sample_us == 0.0 {
        return Err(Error::field(
            "output.fair_window_us",
            "needs the rate series: set output.rate_sample_us above 0",
        ));
    }
    check_trace(s)?;
    if s.output.fct_slowdown && s.topology.kind != TopologyKind::TwoDc {
        return Err(Error::field(
            "output.fct_slowdown",
            "the per-class slowdown needs two datacenters: topology.kind = \"two_dc\"",
        ));
    }
    Ok(())
}
