//! `[topology]`: radix, tiers, oversubscription and host count against the shape's
//! capacity, link rate / delay / switch latency, ECN thresholds, the slowed core, phantom
//! thresholds (and, through [`crate::scenario`], the `two_dc` section).

use super::capacity::{host_count, max_hosts};
use super::numbers::{finite, largest_packet, num, positive, problem_of};
use super::{MAX_HOSTS, MAX_RADIX};
use crate::error::{Error, Result};
use crate::scenario::{Scenario, TopologyKind};
use crate::units;

/// Topology checks; returns the host count.
pub(super) fn check_topology(s: &Scenario) -> Result<u64> {
    let t = &s.topology;
    let kind = match t.kind {
        TopologyKind::FatTree => "fat_tree",
        TopologyKind::SingleTor => "single_tor",
        TopologyKind::TwoDc => "two_dc",
        TopologyKind::ZeropodPods => "zeropod_pods",
    };
    if t.radix < 2 {
        return Err(Error::field(
            "topology.radix",
            format!(
                "must be at least 2, got {} (a switch without ports has no hosts)",
                t.radix
            ),
        ));
    }
    if t.radix & 1 == 1 {
        return Err(Error::field(
            "topology.radix",
            format!(
                "must be even (half the ports go down, half up), got {}",
                t.radix
            ),
        ));
    }
    if t.radix > MAX_RADIX {
        return Err(Error::field(
            "topology.radix",
            format!("must be at most {MAX_RADIX}, got {}", t.radix),
        ));
    }
    let fat_tree_like = matches!(t.kind, TopologyKind::FatTree | TopologyKind::TwoDc);
    if fat_tree_like && !(t.tiers == 2 || t.tiers == 3) {
        return Err(Error::field(
            "topology.tiers",
            format!("a {kind} has 2 or 3 tiers, got {}", t.tiers),
        ));
    }
    finite("topology.oversubscription", t.oversubscription)?;
    if t.oversubscription < 1.0 {
        return Err(Error::field(
            "topology.oversubscription",
            format!(
                "must be at least 1.0 (downlinks : uplinks), got {}",
                num(t.oversubscription)
            ),
        ));
    }
    if t.oversubscription > f64::from(t.radix - 1) {
        return Err(Error::field(
            "topology.oversubscription",
            format!(
                "{} leaves a radix-{} ToR without an uplink (at most {})",
                num(t.oversubscription),
                t.radix,
                t.radix - 1
            ),
        ));
    }
    let cap = max_hosts(t);
    let shape = if fat_tree_like {
        format!("a {}-tier {kind} of radix {}", t.tiers, t.radix)
    } else {
        format!("a {kind} of radix {}", t.radix)
    };
    if u64::from(t.hosts) > cap {
        return Err(Error::field(
            "topology.hosts",
            format!("{} hosts do not fit {shape} (at most {cap})", t.hosts),
        ));
    }
    let hosts = host_count(t);
    if hosts < 2 {
        return Err(Error::field(
            "topology.hosts",
            format!("{shape} has {hosts} host(s); a network needs at least 2"),
        ));
    }
    if hosts > MAX_HOSTS {
        return Err(Error::field(
            "topology.hosts",
            format!("{shape} has {hosts} hosts, more than the limit of {MAX_HOSTS}; set topology.hosts lower"),
        ));
    }
    t.two_dc.check(t)?;
    positive("topology.link_gbps", t.link_gbps)?;
    // Every rate must serialize the largest packet in Q32 ps without overflowing u64.
    let packet = largest_packet(&s.transport);
    units::gbps_to_ser_q32("topology.link_gbps", t.link_gbps, packet)?;
    if t.link_delay_ns == 0 {
        return Err(Error::field(
            "topology.link_delay_ns",
            "must be positive, got 0",
        ));
    }
    units::ns_to_ps("topology.link_delay_ns", t.link_delay_ns)?;
    units::ns_to_ps("topology.switch_latency_ns", t.switch_latency_ns)?;
    for (field, v) in [
        ("topology.ecn_kmin", t.ecn_kmin),
        ("topology.ecn_kmax", t.ecn_kmax),
    ] {
        finite(field, v)?;
        if !(0.0..=1.0).contains(&v) {
            return Err(Error::field(
                field,
                format!("must be a fraction of the buffer, 0 to 1, got {}", num(v)),
            ));
        }
    }
    finite("topology.slow_core_fraction", t.slow_core_fraction)?;
    if !(t.slow_core_fraction > 0.0 && t.slow_core_fraction <= 1.0) {
        return Err(Error::field(
            "topology.slow_core_fraction",
            format!(
                "must be in (0, 1] (a fraction of link_gbps), got {}",
                num(t.slow_core_fraction)
            ),
        ));
    }
    if t.core_links == crate::scenario::CoreLinks::OddOnly {
        let slow = t.link_gbps * t.slow_core_fraction;
        units::gbps_to_ser_q32("topology.slow_core_fraction", slow, packet).map_err(|e| {
            Error::field(
                "topology.slow_core_fraction",
                format!(
                    "{} x topology.link_gbps = {} Gb/s for the slowed spines: {}",
                    num(t.slow_core_fraction),
                    num(slow),
                    problem_of(e)
                ),
            )
        })?;
    }
    if t.ecn_kmin > t.ecn_kmax {
        return Err(Error::field(
            "topology.ecn_kmin",
            format!(
                "{} is above topology.ecn_kmax = {}",
                num(t.ecn_kmin),
                num(t.ecn_kmax)
            ),
        ));
    }
    for (field, v) in [
        ("topology.phantom_kmin", t.phantom_kmin),
        ("topology.phantom_kmax", t.phantom_kmax),
    ] {
        if let Some(v) = v {
            finite(field, v)?;
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::field(
                    field,
                    format!(
                        "must be a fraction of the phantom capacity, 0 to 1, got {}",
                        num(v)
                    ),
                ));
            }
        }
    }
    let (pk_min, pk_max) = (
        t.phantom_kmin.unwrap_or(t.ecn_kmin),
        t.phantom_kmax.unwrap_or(t.ecn_kmax),
    );
    if (t.phantom_kmin.is_some() || t.phantom_kmax.is_some()) && pk_min > pk_max {
        return Err(Error::field(
            "topology.phantom_kmin",
            format!(
                "{} is above the phantom K_max {} (topology.phantom_kmax, or \
                 topology.ecn_kmax when it is not set)",
                num(pk_min),
                num(pk_max)
            ),
        ));
    }
    Ok(hosts)
}
