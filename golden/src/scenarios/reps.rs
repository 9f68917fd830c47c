//! Golden scenarios for the REPS load balancer (helper "reps" fills this list).

use crate::registry::GoldenScenario;

/// REPS golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    Vec::new()
}
