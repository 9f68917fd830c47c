//! `[transport]`: MTU, RTO, initial window, slow start, header size, EV width, each
//! transport's own section (checked by its struct), and per-connection state.

use super::numbers::{num, positive};
use super::{MAX_EVS_BITS, MAX_HEADER_BYTES, MAX_MTU, MAX_RTO_US, MIN_MTU};
use crate::error::{Error, Result};
use crate::scenario::{CcKind, Scenario, Transport};
use crate::units;

/// `transport.*` and the per-transport sections.
pub(super) fn check_transport(t: &Transport) -> Result<()> {
    if !(MIN_MTU..=MAX_MTU).contains(&t.mtu) {
        return Err(Error::field(
            "transport.mtu",
            format!(
                "must be between {MIN_MTU} and {MAX_MTU} bytes, got {}",
                t.mtu
            ),
        ));
    }
    positive("transport.rto_us", t.rto_us)?;
    // The NICs hold the RTO in 32-bit cycles of the 1 GHz clock (below 2^31).
    if !(0.001..=MAX_RTO_US).contains(&t.rto_us) {
        return Err(Error::field(
            "transport.rto_us",
            format!(
                "{} us is out of range: allowed 0.001 to {MAX_RTO_US} us (below 2^31 NIC cycles)",
                num(t.rto_us)
            ),
        ));
    }
    units::check_size("transport.init_cwnd", t.init_cwnd)?;
    // Slow start lives in the DCTCP sender; a Zeropod scenario carries it for its buffered
    // baseline (`--set transport.cc=dctcp`), as it carries the baseline's ECN thresholds.
    if t.slow_start && !matches!(t.cc, CcKind::Dctcp | CcKind::Zeropod) {
        return Err(Error::field(
            "transport.slow_start",
            format!(
                "only cc = \"dctcp\" has slow start (cc = \"{}\" does not)",
                t.cc.name()
            ),
        ));
    }
    if !(1..=MAX_HEADER_BYTES).contains(&t.header_bytes) {
        return Err(Error::field(
            "transport.header_bytes",
            format!(
                "must be between 1 and {MAX_HEADER_BYTES} bytes, got {}",
                t.header_bytes
            ),
        ));
    }
    // The per-transport sections check themselves (their structs live with the transports).
    t.reps.check()?;
    t.dcsim.check()?;
    t.uno.check()?;
    t.zeropod.check()?;
    t.pfabric.check()?;
    t.phost.check()?;
    t.dcpim.check()?;
    if !(1..=MAX_EVS_BITS).contains(&t.evs_bits) {
        return Err(Error::field(
            "transport.evs_bits",
            format!("must be between 1 and {MAX_EVS_BITS}, got {}", t.evs_bits),
        ));
    }
    Ok(())
}

/// `transport.reps.per_connection` and `transport.per_connection_cwnd` (flows of a (src, dst)
/// pair as messages of one connection) are modelled in the DCTCP-family driver only, and
/// not under wormhole's skipping (its partitions shift flow clocks one by one).
pub(super) fn check_per_connection(s: &Scenario) -> Result<()> {
    let t = &s.transport;
    for (on, field) in [
        (t.reps.per_connection, "transport.reps.per_connection"),
        (t.per_connection_cwnd, "transport.per_connection_cwnd"),
    ] {
        if !on {
            continue;
        }
        if !matches!(t.cc, CcKind::Dctcp | CcKind::Mprdma) {
            return Err(Error::field(
                field,
                format!(
                    "per-connection state is modelled for cc = \"dctcp\" or \"mprdma\" only, \
                     not \"{}\" (set it to false)",
                    t.cc.name()
                ),
            ));
        }
        if s.skip.enabled {
            return Err(Error::field(
                field,
                "per-connection state does not run under skip.enabled (set one of them off)",
            ));
        }
    }
    Ok(())
}
