//! `[transport.reps]`: the knobs of the REPS load balancer (REPS section 3.2, Algorithm 1),
//! used when `transport.lb = "reps"`; [`crate::flow::reps_config`] turns them into the
//! `nic` block's [`nic::reps::RepsConfig`].

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Bound (exclusive) of `transport.reps.freezing_timeout_us`: REPS keeps `exitFreezingMode`
/// as a 32-bit wrap-around stamp of the 1 GHz NIC clock, so the timeout is below 2^31 cycles.
pub const MAX_FREEZING_TIMEOUT_US: f64 = 2_147_483.648;

/// `[transport.reps]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepsSection {
    /// Freezing mode (section 3.2) on or off (Appendix C.4 runs REPS without it).
    pub freezing: bool,
    /// `FREEZING_TIMEOUT` (Algorithm 1 line 24) in us: how long a connection stays in
    /// freezing mode after a failure detection.
    pub freezing_timeout_us: f64,
}

impl Default for RepsSection {
    fn default() -> Self {
        RepsSection {
            freezing: true,
            freezing_timeout_us: 100.0,
        }
    }
}

impl RepsSection {
    /// Check the section (whatever `lb` is, like every field); errors name
    /// `transport.reps.<field>`.
    pub fn check(&self) -> Result<()> {
        let v = self.freezing_timeout_us;
        const F: &str = "transport.reps.freezing_timeout_us";
        if !v.is_finite() {
            return Err(Error::field(F, format!("must be a finite number, got {v}")));
        }
        if v < 0.0 {
            return Err(Error::field(F, format!("must not be negative, got {v}")));
        }
        // FREEZING_TIMEOUT is compared as a 32-bit wrap-around cycle stamp (1 GHz NIC clock).
        if v >= MAX_FREEZING_TIMEOUT_US {
            return Err(Error::field(
                F,
                format!("must be below {MAX_FREEZING_TIMEOUT_US} us (2^31 NIC cycles), got {v}"),
            ));
        }
        Ok(())
    }
}
