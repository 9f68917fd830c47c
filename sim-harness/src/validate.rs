//! Scenario validation: every check names the field and the problem.

use crate::error::Result;
use crate::scenario::Scenario;

/// Check a scenario before a run.
pub fn validate(_s: &Scenario) -> Result<()> {
    Ok(())
}
