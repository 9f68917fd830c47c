//! `[[loss]]` and `[[failures]]` entries: what can be checked before the network is built
//! (times, rates, random cable sets, one-direction failures). Link names are checked in
//! `built`.

use super::numbers::{largest_packet, non_negative, positive};
use crate::error::{Error, Result};
use crate::scenario::Scenario;
use crate::units;

/// `loss[i].*` and `failures[i].*`.
pub(super) fn check_failures(s: &Scenario) -> Result<()> {
    for (i, l) in s.loss.iter().enumerate() {
        crate::engine::loss::check_entry(i, l)?;
    }
    for (i, f) in s.failures.iter().enumerate() {
        let p = |name: &str| format!("failures[{i}].{name}");
        if f.link.trim().is_empty() {
            return Err(Error::field(
                p("link"),
                "must name a link (e.g. \"tor0.up0\")",
            ));
        }
        non_negative(&p("at_us"), f.at_us)?;
        units::us_to_ps(&p("at_us"), f.at_us)?;
        if let Some(d) = f.for_us {
            positive(&p("for_us"), d)?;
            units::us_to_ps(&p("for_us"), d)?;
        }
        if let Some(g) = f.gbps {
            positive(&p("gbps"), g)?;
            units::gbps_to_ser_q32(&p("gbps"), g, largest_packet(&s.transport))?;
        }
        crate::engine::failure_sets::check_entry(i, f)?;
        if f.one_direction && (f.drop_prob.is_some() || f.random_fraction.is_some()) {
            return Err(Error::field(
                p("one_direction"),
                "takes one direction of one named link down (or changes its rate); not with \
                 drop_prob or random_fraction",
            ));
        }
    }
    Ok(())
}
