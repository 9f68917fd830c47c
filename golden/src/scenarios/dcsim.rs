//! Golden scenarios for the DCSIM blocks (helper "dcsim" fills this list).

use crate::registry::GoldenScenario;

/// DCSIM golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    Vec::new()
}
