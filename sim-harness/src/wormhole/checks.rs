//! Scenario checks of the `[skip]` fields the engine's Wormhole layer adds and of
//! `[workload.llm]` (called by [`crate::validate`], so `--dry-run` refuses the same).

use crate::error::{Error, Result};
use crate::scenario::{Scenario, WorkloadKind};
use crate::units;
use crate::units::num;

/// Largest `skip.samples`: each active flow keeps a ring of `l` 8-byte samples.
pub const MAX_SAMPLES: u32 = 100_000;

/// Check `skip.sample_us`, `skip.samples` against [`MAX_SAMPLES`] and `[workload.llm]`.
pub fn check(s: &Scenario) -> Result<()> {
    let us = s.skip.sample_us;
    if !(us.is_finite() && us > 0.0) {
        return Err(Error::field(
            "skip.sample_us",
            format!("must be a positive number of us, got {}", num(us)),
        ));
    }
    if units::us_to_ps("skip.sample_us", us)? < 1000 {
        return Err(Error::field(
            "skip.sample_us",
            format!("must be at least 0.001 us (one NIC cycle), got {}", num(us)),
        ));
    }
    if s.skip.samples > MAX_SAMPLES {
        return Err(Error::field(
            "skip.samples",
            format!("at most {MAX_SAMPLES} samples, got {}", s.skip.samples),
        ));
    }
    if s.workload.kind == WorkloadKind::Llm {
        crate::workload::llm::config(&crate::workload::llm::section(s))?;
        let t = &s.topology;
        let d = crate::validate::tor_host_ports(u64::from(t.radix), t.oversubscription);
        let hosts = crate::validate::host_count(t);
        crate::workload::llm::placement(s, d as u32, hosts.min(u64::from(u32::MAX)) as u32)?;
    } else if s.workload.llm.is_some() {
        return Err(Error::field(
            "workload.llm",
            "only with workload.kind = \"llm\"",
        ));
    }
    Ok(())
}
