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
    if s.output.fct_slowdown && s.topology.kind != TopologyKind::TwoDc {
        return Err(Error::field(
            "output.fct_slowdown",
            "the per-class slowdown needs two datacenters: topology.kind = \"two_dc\"",
        ));
    }
    Ok(())
}
