//! Scenario validation: every static check on a [`Scenario`], each naming the field and the
//! problem (`topology.radix: must be even, got 7`).
//!
//! [`validate`] runs before anything else, both in the CLI (so a bad `--set` fails before an
//! output directory is made) and first thing in [`crate::simulate`]. It checks everything that
//! can be decided from the scenario alone: topology shape, positive rates / delays / MTU,
//! sizes, workloads that need more hosts than the topology has, failure times, skipping
//! parameters. Checks that need the built network (does link `tor0.up3` exist?) happen when
//! the simulator builds it, with the same `field: problem` errors.
//!
//! Limits that protect the machine (not the physics): at most [`MAX_RADIX`] ports per switch,
//! [`MAX_HOSTS`] hosts and [`MAX_FLOWS`] flows per run.
//!
//! One module per part of the scenario it checks. [`validate`] runs them in this order and
//! reports the first problem found: the run's `name` (`output`), `topology` (then the
//! `topology.buffer` size, once the transport's MTU is known), `transport`, `workload`,
//! `failures`, the `[output]` section (`output`), `skip` (then `stop.max_time_us` and
//! Wormhole's own checks), `supported`, `built`:
//!
//! * `output` -- the run's `name` (its output directory) and the `[output]` section;
//! * `topology` -- `[topology]`: radix, tiers, hosts, rates, delays, ECN and phantom
//!   thresholds;
//! * `transport` -- `[transport]` and its per-transport sections, per-connection state;
//! * `workload` -- `[workload]`: load, message size, kind-specific fields, flow count;
//! * `failures` -- `[[loss]]` and `[[failures]]` entries;
//! * `skip` -- `[skip]` (Wormhole fast-forwarding);
//! * `supported` -- features the scenario format names but the fabric simulator does not
//!   run yet;
//! * `built` -- checks that need the built network (link names, BDP-relative sizes, phantom
//!   queues);
//! * `capacity` -- host and flow counts ([`max_hosts`], [`host_count`], [`flow_count`]),
//!   shared with the topology builders and the run estimate;
//! * `numbers` -- the shared number checks (finite, positive, non-negative) and formatting.

mod built;
mod capacity;
mod failures;
mod numbers;
mod output;
mod skip;
mod supported;
#[cfg(test)]
mod tests;
mod topology;
mod transport;
mod workload;

use crate::error::{Error, Result};
use crate::scenario::{Scenario, Size};
use crate::units;
use built::check_built;
pub use capacity::{flow_count, host_count, max_hosts, tor_host_ports};
use failures::check_failures;
use numbers::non_negative;
use output::{check_name, check_output};
use skip::check_skip;
use supported::check_supported;
use topology::check_topology;
use transport::check_transport;
use workload::check_workload;

/// Largest switch radix accepted.
pub const MAX_RADIX: u32 = 256;
/// Largest number of hosts in one run.
pub const MAX_HOSTS: u64 = 1 << 20;
/// Largest number of flows one workload may generate.
pub const MAX_FLOWS: u64 = 10_000_000;
/// Smallest MTU (bytes of payload per DATA packet).
pub const MIN_MTU: u32 = 64;
/// Largest MTU.
pub const MAX_MTU: u32 = 65_536;
/// Largest `transport.header_bytes`: the one limit the fabric simulator enforces (a header
/// of at most 4 KiB, the size of ACKs, NACKs and trimmed packets).
pub const MAX_HEADER_BYTES: u32 = 4096;
/// Largest number of DATA packets in one message (the NICs number packets in 31 bits).
pub const MAX_MESSAGE_PACKETS: u64 = 1 << 31;
/// Largest entropy-value width (REPS and the UE header carry 16-bit EVs).
pub const MAX_EVS_BITS: u32 = 16;
/// Bound (exclusive) of `transport.reps.freezing_timeout_us` (see [`crate::transport::reps`]).
pub use crate::transport::reps::MAX_FREEZING_TIMEOUT_US;
/// Largest `transport.rto_us`: the NICs hold the RTO in cycles of the 1 GHz clock, below 2^31.
pub const MAX_RTO_US: f64 = 2_000_000.0;

/// Check a scenario before a run. Returns the first problem found.
pub fn validate(s: &Scenario) -> Result<()> {
    check_name(&s.name)?;
    let hosts = check_topology(s)?;
    check_transport(&s.transport)?;
    units::check_size("topology.buffer", s.topology.buffer)?;
    if let Size::Bytes(b) = s.topology.buffer {
        let packet = u64::from(s.transport.mtu) + u64::from(s.transport.header_bytes);
        if b < packet {
            return Err(Error::field(
                "topology.buffer",
                format!(
                    "{b} bytes cannot hold one {packet}-byte DATA packet \
                     (transport.mtu + transport.header_bytes)"
                ),
            ));
        }
    }
    check_workload(s, hosts)?;
    check_failures(s)?;
    check_output(s)?;
    check_skip(s)?;
    non_negative("stop.max_time_us", s.stop.max_time_us)?;
    units::us_to_ps("stop.max_time_us", s.stop.max_time_us)?;
    crate::wormhole::checks::check(s)?;
    check_supported(s)?;
    check_built(s)?;
    Ok(())
}
