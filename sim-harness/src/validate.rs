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

use crate::error::{Error, Result};
use crate::scenario::{CcKind, Scenario, Size, TopologyKind, Transport, WorkloadKind};
use crate::units;

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
    check_rest(s)?;
    check_supported(s)?;
    check_built(s)?;
    Ok(())
}

/// The most hosts topology `t` can attach (before `topology.hosts` picks fewer):
///
/// * `fat_tree`: k²/2 for 2 tiers, k³/4 for 3 tiers (k = `radix`), reduced by ToR
///   oversubscription o to `round(k·o/(1+o))` host ports per ToR instead of k/2;
/// * `two_dc`: two such fat trees;
/// * `zeropod_pods`: the Zeropod fat tree of k-port switches, k³/4 hosts (Zeropod Fig. 1);
/// * `single_tor`: `radix` hosts (radix/2 senders under one switch, radix/2 receivers).
///
/// Computed in u64, so no radix overflows. Assumes `radix >= 2` and, for fat trees,
/// `tiers` in {2, 3} (see [`validate`]).
pub fn max_hosts(t: &crate::scenario::Topology) -> u64 {
    let k = u64::from(t.radix);
    let fat_tree = |tiers: u32| -> u64 {
        let per_tor = tor_host_ports(k, t.oversubscription);
        match tiers {
            2 => k * per_tor,
            _ => k * (k / 2) * per_tor,
        }
    };
    match t.kind {
        TopologyKind::FatTree => fat_tree(t.tiers),
        TopologyKind::TwoDc => 2 * fat_tree(t.tiers),
        TopologyKind::ZeropodPods => k * k * k / 4,
        TopologyKind::SingleTor => k,
    }
}

/// Host-facing ports of a ToR with radix `k` at oversubscription `o` (downlinks : uplinks);
/// k/2 at o = 1.
pub fn tor_host_ports(k: u64, o: f64) -> u64 {
    if o <= 1.0 || !o.is_finite() {
        return k / 2;
    }
    ((k as f64) * o / (1.0 + o)).round() as u64
}

/// Number of hosts the run will have: `topology.hosts`, or [`max_hosts`] when it is 0.
pub fn host_count(t: &crate::scenario::Topology) -> u64 {
    if t.hosts == 0 {
        max_hosts(t)
    } else {
        u64::from(t.hosts)
    }
}

/// Number of flows the workload generates on `hosts` hosts, if it is fixed by the scenario
/// (`None` for workloads whose flow count is decided while running, e.g. `llm`).
pub fn flow_count(s: &Scenario, hosts: u64) -> Option<u64> {
    let w = &s.workload;
    match w.kind {
        WorkloadKind::Tornado if w.one_way => Some(hosts / 2),
        // n collectives over at most `max(collective_sizes)` hosts each (an upper bound).
        WorkloadKind::Permutation | WorkloadKind::AllToAll | WorkloadKind::AllToAllV
            if w.collectives > 0 =>
        {
            let size = w
                .collective_sizes
                .iter()
                .map(|&n| u64::from(n).min(hosts))
                .max()
                .unwrap_or(0);
            let per = match w.kind {
                WorkloadKind::Permutation => size,
                _ => size * size.saturating_sub(1),
            };
            Some(u64::from(w.collectives).saturating_mul(per))
        }
        WorkloadKind::Permutation | WorkloadKind::Tornado => Some(hosts),
        WorkloadKind::Incast => Some(u64::from(w.degree)),
        WorkloadKind::AllToAll | WorkloadKind::AllToAllV => Some(hosts * hosts.saturating_sub(1)),
        WorkloadKind::Websearch => Some(u64::from(w.flows)),
        WorkloadKind::Llm => None,
        WorkloadKind::MixedIncast | WorkloadKind::UnoMix | WorkloadKind::DcAllreduce => {
            Some(crate::workload::uno::flow_count(s))
        }
        WorkloadKind::RingAllreduce => Some(hosts),
        WorkloadKind::ButterflyAllreduce => Some(hosts * u64::from(hosts.max(1).ilog2())),
    }
}

/// The largest packet on the wire: a DATA of `mtu + header_bytes` (each capped at its
/// limit, so an out-of-range MTU is reported on its own field).
fn largest_packet(t: &Transport) -> u32 {
    t.mtu.min(MAX_MTU) + t.header_bytes.min(MAX_HEADER_BYTES)
}

/// The problem part of a field error.
fn problem_of(e: Error) -> String {
    match e {
        Error::Field { problem, .. } => problem,
        other => other.to_string(),
    }
}

/// A number as the user would read it: `1e308`, not 309 digits; `0.5` as is.
fn num(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-3..1e6).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn finite(field: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must be a finite number, got {}", num(v)),
        ))
    }
}

fn positive(field: &str, v: f64) -> Result<()> {
    finite(field, v)?;
    if v > 0.0 {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must be positive, got {}", num(v)),
        ))
    }
}

fn non_negative(field: &str, v: f64) -> Result<()> {
    finite(field, v)?;
    if v >= 0.0 {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must not be negative, got {}", num(v)),
        ))
    }
}

fn check_name(name: &str) -> Result<()> {
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

/// Topology checks; returns the host count.
fn check_topology(s: &Scenario) -> Result<u64> {
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
            format!("{} is above the phantom K_max {}", num(pk_min), num(pk_max)),
        ));
    }
    Ok(hosts)
}

fn check_transport(t: &Transport) -> Result<()> {
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
                "only cc = \"dctcp\" has slow start (cc = {:?} does not)",
                t.cc
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
fn check_per_connection(s: &Scenario) -> Result<()> {
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
                     not {:?} (set it to false)",
                    t.cc
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

fn check_workload(s: &Scenario, hosts: u64) -> Result<()> {
    let w = &s.workload;
    finite("workload.load", w.load)?;
    if !(w.load > 0.0 && w.load <= 1.0) {
        return Err(Error::field(
            "workload.load",
            format!(
                "must be in (0, 1] (fraction of the host link rate), got {}",
                num(w.load)
            ),
        ));
    }
    units::check_size("workload.message", w.message)?;
    if let Size::Bytes(b) = w.message {
        let mtu = u64::from(s.transport.mtu.max(1));
        let packets = b.div_ceil(mtu);
        if packets >= MAX_MESSAGE_PACKETS {
            return Err(Error::field(
                "workload.message",
                format!(
                    "{b} bytes is {packets} packets of transport.mtu = {mtu} bytes; a message \
                     has fewer than 2^31 packets (at most {} bytes at this MTU)",
                    (MAX_MESSAGE_PACKETS - 1) * mtu
                ),
            ));
        }
    }
    match w.kind {
        WorkloadKind::Incast => {
            if w.degree == 0 {
                return Err(Error::field(
                    "workload.degree",
                    "an incast needs at least 1 sender, got 0",
                ));
            }
            if u64::from(w.degree) >= hosts {
                return Err(Error::field(
                    "workload.degree",
                    format!(
                        "an incast of degree {} needs {} hosts (senders + receiver) but the topology has {hosts}",
                        w.degree,
                        u64::from(w.degree) + 1
                    ),
                ));
            }
        }
        WorkloadKind::Websearch if w.flows == 0 => {
            return Err(Error::field(
                "workload.flows",
                "a websearch workload needs at least 1 flow, got 0",
            ));
        }
        _ => {}
    }
    crate::workload::uno::check(s, hosts)?;
    crate::workload::infinite::check(s)?;
    if w.parallel > 0 && (w.kind != WorkloadKind::AllToAll || w.collectives > 0) {
        return Err(Error::field(
            "workload.parallel",
            "only a plain all_to_all limits its parallel connections (set it to 0)",
        ));
    }
    if w.fixed_receiver && w.kind != WorkloadKind::Websearch {
        return Err(Error::field(
            "workload.fixed_receiver",
            "only websearch draws a receiver per host (set it to false)",
        ));
    }
    check_per_connection(s)?;
    if !w.order.is_in_step()
        && (w.kind != WorkloadKind::AllToAll || w.parallel > 0 || w.collectives > 0)
    {
        return Err(Error::field(
            "workload.order",
            "only a plain all_to_all (parallel = 0, collectives = 0) orders its flows; set it \
             to \"in_step\" (or leave it out)",
        ));
    }
    if w.self_clocked {
        if w.kind != WorkloadKind::AllToAll || w.parallel == 0 {
            return Err(Error::field(
                "workload.self_clocked",
                "only an all_to_all with parallel >= 1 is self-clocked (set it to false)",
            ));
        }
        if s.skip.enabled {
            return Err(Error::field(
                "workload.self_clocked",
                "self-clocked flow starts do not run under skip.enabled (wormhole cannot \
                 foresee them); turn one off",
            ));
        }
    }
    if w.kind == WorkloadKind::ButterflyAllreduce && !hosts.is_power_of_two() {
        return Err(Error::field(
            "workload.kind",
            format!("butterfly_allreduce needs a power-of-two number of hosts, got {hosts}"),
        ));
    }
    if !w.background_ecmp.is_finite() || !(0.0..=1.0).contains(&w.background_ecmp) {
        return Err(Error::field(
            "workload.background_ecmp",
            format!("must be a fraction in [0, 1], got {}", w.background_ecmp),
        ));
    }
    if w.one_way && w.kind != WorkloadKind::Tornado {
        return Err(Error::field(
            "workload.one_way",
            "only a tornado workload can be one-way (set workload.kind = \"tornado\" or one_way = false)",
        ));
    }
    if w.collectives > 0 && w.collective_sizes.is_empty() {
        return Err(Error::field(
            "workload.collective_sizes",
            format!(
                "must list at least one size when workload.collectives = {}",
                w.collectives
            ),
        ));
    }
    if let Some(&bad) = w.collective_sizes.iter().find(|&&n| n < 2) {
        return Err(Error::field(
            "workload.collective_sizes",
            format!("a collective needs at least 2 hosts, got {bad}"),
        ));
    }
    if let Some(n) = flow_count(s, hosts) {
        if n > MAX_FLOWS {
            return Err(Error::field(
                "workload.kind",
                format!("this workload makes {n} flows on {hosts} hosts, more than the limit of {MAX_FLOWS}"),
            ));
        }
    }
    Ok(())
}

fn check_failures(s: &Scenario) -> Result<()> {
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

fn check_rest(s: &Scenario) -> Result<()> {
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
    finite("skip.theta", s.skip.theta)?;
    if !(s.skip.theta > 0.0 && s.skip.theta < 1.0) {
        return Err(Error::field(
            "skip.theta",
            format!(
                "must be between 0 and 1 (exclusive; a relative rate variation), got {}",
                num(s.skip.theta)
            ),
        ));
    }
    if s.skip.samples < 2 {
        return Err(Error::field(
            "skip.samples",
            format!("needs at least 2 rate samples, got {}", s.skip.samples),
        ));
    }
    // `cwnd / srtt` and in-flight / srtt are a window CC's quantities: the DCTCP-style
    // sender's (the only one Wormhole fast-forwards); every other transport has none.
    if s.skip.rate_metric != crate::scenario::RateMetric::Packets
        && s.transport.cc != crate::scenario::CcKind::Dctcp
    {
        return Err(Error::field(
            "skip.rate_metric",
            format!(
                "\"{}\" is a window CC's rate (cwnd or in-flight bytes over the smoothed RTT), \
                 which only transport.cc = \"dctcp\" has; transport.cc = \"{}\" needs \
                 rate_metric = \"packets\"",
                format!("{:?}", s.skip.rate_metric).to_lowercase(),
                format!("{:?}", s.transport.cc).to_lowercase()
            ),
        ));
    }
    // A follower is advanced by its leader's DCTCP window and sequence numbers: only the
    // DCTCP-style sender has them (and only it is fast-forwarded).
    if s.skip.enabled && s.skip.memo_lockstep && s.transport.cc != crate::scenario::CcKind::Dctcp {
        return Err(Error::field(
            "skip.memo_lockstep",
            format!(
                "shares a DCTCP sender's trajectory (sequence numbers, cwnd, alpha) among \
                 partitions in lockstep, which transport.cc = \"{}\" does not have; use \
                 transport.cc = \"dctcp\" or memo_lockstep = false",
                format!("{:?}", s.transport.cc).to_lowercase()
            ),
        ));
    }
    if s.skip.lockstep_complete && !s.skip.memo_lockstep {
        return Err(Error::field(
            "skip.lockstep_complete",
            "completes a lockstep follower's flows with its leader's, so it needs \
             skip.memo_lockstep = true; set both or lockstep_complete = false"
                .to_string(),
        ));
    }
    if s.skip.lockstep_stay && !s.skip.lockstep_complete {
        return Err(Error::field(
            "skip.lockstep_stay",
            "keeps a lockstep follower paused across its leader flow's completion, which \
             only skip.lockstep_complete makes happen; set skip.memo_lockstep = true and \
             skip.lockstep_complete = true too, or lockstep_stay = false"
                .to_string(),
        ));
    }
    if s.skip.lockstep_shadow
        && (!s.skip.memo_lockstep || s.skip.partition_by != crate::scenario::PartitionBy::DataPorts)
    {
        return Err(Error::field(
            "skip.lockstep_shadow",
            "mirrors a lockstep leader's packets onto the ports its paused followers share \
             with other partitions, which exist only with skip.memo_lockstep = true and \
             skip.partition_by = \"data_ports\"; set both or lockstep_shadow = false"
                .to_string(),
        ));
    }
    if s.skip.held_occupancy && s.skip.partition_by != crate::scenario::PartitionBy::DataPorts {
        return Err(Error::field(
            "skip.held_occupancy",
            "keeps a skipped partition's held DATA lanes occupied at its flows' rate, and \
             only skip.partition_by = \"data_ports\" holds DATA lanes; set it or \
             held_occupancy = false"
                .to_string(),
        ));
    }
    if s.skip.lockstep_fixed_leader && !s.skip.memo_lockstep {
        return Err(Error::field(
            "skip.lockstep_fixed_leader",
            "chooses the leader of a lockstep group, so it needs skip.memo_lockstep = true; \
             set both or lockstep_fixed_leader = false"
                .to_string(),
        ));
    }
    non_negative("stop.max_time_us", s.stop.max_time_us)?;
    units::us_to_ps("stop.max_time_us", s.stop.max_time_us)?;
    crate::wormhole::checks::check(s)?;
    Ok(())
}

// ------------------------------------------------------------------------------------------
// What the fabric simulator supports, and checks that need the built network. Every refusal
// `dcfab run` can give is here, so `--dry-run` (and the sweep's pre-check) agree with `run`.

/// The load balancers of REPS's comparison added in session 4 (per-flow NIC choosers and
/// the adaptive switch), which need the DCTCP-style transports.
fn lb_is_reps_baseline(lb: crate::scenario::LbKind) -> bool {
    use crate::scenario::LbKind as L;
    matches!(
        lb,
        L::Plb | L::Flowlet | L::Mprdma | L::Mptcp | L::Bitmap | L::AdaptiveRoce
    )
}

/// Features the scenario format names but the fabric simulator does not run yet.
fn check_supported(s: &Scenario) -> Result<()> {
    use crate::scenario::CcKind;
    let not_yet = |field: &str, what: &str, instead: &str| {
        Err(Error::field(
            field,
            format!("{what} is not supported yet by the fabric simulator ({instead})"),
        ))
    };
    if s.transport.lb.switch_round_robin() {
        if s.skip.enabled {
            return Err(Error::field(
                "transport.lb",
                "spray_rr switches keep a counter per input link, which wormhole skipping \
                 cannot replay: set skip.enabled = false or use ops",
            ));
        }
        if s.topology.kind != TopologyKind::FatTree {
            return Err(Error::field(
                "transport.lb",
                "spray_rr (the dcPIM simulator's round-robin spraying) runs on a fat_tree only",
            ));
        }
    }
    match s.transport.cc {
        CcKind::Dctcp | CcKind::Mprdma | CcKind::Dcsim => {}
        CcKind::Uno | CcKind::Gemini | CcKind::MprdmaBbr => {}
        CcKind::Pfabric => crate::transport::pfabric::check_supported(s)?,
        CcKind::Phost => crate::transport::phost::check_supported(s)?,
        CcKind::Dcpim => crate::transport::dcpim::check_supported(s)?,
        // Zeropod runs on its own slotted region (crate::zeropod); its checks live there.
        CcKind::Zeropod => return crate::zeropod::check_supported(s),
    }
    if s.transport.lb.switch_adaptive()
        && s.topology.radix as usize > 2 * crate::topology::adaptive::MAX_UPLINKS
    {
        return Err(Error::field(
            "topology.radix",
            format!(
                "adaptive_roce switches choose among at most {} uplinks: radix at most {}, got {}",
                crate::topology::adaptive::MAX_UPLINKS,
                2 * crate::topology::adaptive::MAX_UPLINKS,
                s.topology.radix
            ),
        ));
    }
    if s.transport.cc == CcKind::Dcsim && lb_is_reps_baseline(s.transport.lb) {
        return Err(Error::field(
            "transport.lb",
            "the REPS baseline load balancers run on the dctcp / mprdma transports, not dcsim",
        ));
    }
    crate::transport::uno::check_supported(s)?;
    let kind = match s.topology.kind {
        TopologyKind::FatTree => None,
        TopologyKind::SingleTor => Some("single_tor"),
        TopologyKind::TwoDc => None,
        // The buffered baseline of Zeropod: the pods as a fat tree (topology/zeropod.rs).
        TopologyKind::ZeropodPods => None,
    };
    if let Some(k) = kind {
        return not_yet("topology.kind", k, "use fat_tree or two_dc");
    }
    // DCSIM's SIM timing is set from one fabric-wide RTT_max; across two datacenters the
    // inter-DC paths would break it.
    if s.topology.kind == TopologyKind::TwoDc && s.transport.cc == CcKind::Dcsim {
        return not_yet(
            "transport.cc",
            "dcsim on a two_dc topology",
            "use dctcp, or dcsim on a fat_tree",
        );
    }
    if s.workload.kind == WorkloadKind::Llm && s.transport.cc == CcKind::Dcsim {
        return not_yet(
            "workload.kind",
            "llm under dcsim",
            "use transport.cc = \"dctcp\"",
        );
    }
    if s.workload.collectives > 0
        && !matches!(
            s.workload.kind,
            WorkloadKind::Permutation | WorkloadKind::AllToAll | WorkloadKind::AllToAllV
        )
    {
        return Err(Error::field(
            "workload.collectives",
            "only permutation, all_to_all and all_to_all_v form collectives (set it to 0)",
        ));
    }
    if s.output.trace {
        return not_yet(
            "output.trace",
            "a packet trace of a fabric run",
            "set it to false; block-level traces: dcfab trace",
        );
    }
    // FREEZING_TIMEOUT and the RTO are kept in 32-bit NIC-cycle (1 GHz) registers.
    let rto_cycles = crate::clock::NIC_CLOCK.us_to_cycles(s.transport.rto_us);
    if !(1.0..(1u64 << 31) as f64).contains(&rto_cycles) {
        return Err(Error::field(
            "transport.rto_us",
            format!(
                "must be between 0.001 and 2,000,000 us, got {}",
                s.transport.rto_us
            ),
        ));
    }
    Ok(())
}

/// Checks that need the network: failure link names, and every value derived from the base
/// RTT and BDP (BDP-relative buffers and messages, the DCSIM parameters). Builds the fabric
/// (ports only; no flows), the same way the engine will.
fn check_built(s: &Scenario) -> Result<()> {
    if s.transport.cc == crate::scenario::CcKind::Zeropod {
        return crate::zeropod::check_built(s);
    }
    let fabric = crate::topology::build(s)?;
    // Names, random cable sets, and lossy cables: each port loses by one entry only.
    let resolved = crate::engine::failure_sets::resolve(s, &fabric)?;
    let mut lossy: Vec<Option<String>> = vec![None; fabric.ports.len()];
    for (i, l) in s.loss.iter().enumerate() {
        for p in crate::engine::loss::loss_ports(&fabric, l).unwrap_or_default() {
            lossy[p as usize] = Some(format!("loss[{i}]"));
        }
    }
    for (i, (f, ports)) in s.failures.iter().zip(&resolved).enumerate() {
        if f.drop_prob.is_none() {
            continue;
        }
        for &c in ports {
            for p in [c, fabric.ports[c as usize].reverse] {
                if let Some(other) = &lossy[p as usize] {
                    return Err(Error::field(
                        format!("failures[{i}].drop_prob"),
                        format!(
                            "cable {} already loses packets by {other}; one lossy entry per \
                             cable",
                            fabric.ports[p as usize].name
                        ),
                    ));
                }
                lossy[p as usize] = Some(format!("failures[{i}]"));
            }
        }
    }
    for (i, l) in s.loss.iter().enumerate() {
        if crate::engine::loss::loss_ports(&fabric, l).is_none() {
            return Err(Error::field(
                format!("loss[{i}].link"),
                format!(
                    "no link named '{}' in this topology (a name from links.csv, or \
                     \"inter_dc\" or \"border\" on a two_dc)",
                    l.link
                ),
            ));
        }
    }
    let d = crate::engine::Derived::new(s, &fabric);
    let packet = u64::from(s.transport.mtu) + u64::from(s.transport.header_bytes);
    for (field, b) in [
        ("topology.buffer", d.buffer_bytes),
        ("topology.two_dc.dc_buffer", d.dc_buffer_bytes),
    ] {
        if b < packet {
            return Err(Error::field(
                field,
                format!(
                    "{b} bytes cannot hold one {packet}-byte DATA packet (transport.mtu + \
                     transport.header_bytes)"
                ),
            ));
        }
    }
    let pkts = s
        .workload
        .message
        .bytes(d.bdp_bytes)
        .div_ceil(u64::from(s.transport.mtu));
    if pkts >= MAX_MESSAGE_PACKETS {
        return Err(Error::field(
            "workload.message",
            format!("{pkts} packets in one message, more than 2^31"),
        ));
    }
    if s.transport.cc == crate::scenario::CcKind::Dcsim {
        crate::dcsim::config::check(s, &fabric, d.buffer_bytes, d.bdp_bytes)?;
    }
    if s.transport.cc == crate::scenario::CcKind::Pfabric {
        crate::transport::pfabric::buffer_pkts(s, d.buffer_bytes, d.bdp_bytes)?;
    }
    match s.topology.phantom_size {
        Some(z) => {
            let cap = z.bytes(d.bdp_bytes);
            let pkt = u64::from(s.transport.mtu + s.transport.header_bytes);
            if cap < pkt {
                return Err(Error::field(
                    "topology.phantom_size",
                    format!("{cap} bytes is less than one packet ({pkt} bytes)"),
                ));
            }
            if cap > rtl_models::phantom::MAX_CAP_BYTES {
                return Err(Error::field(
                    "topology.phantom_size",
                    format!(
                        "{cap} bytes is more than a phantom queue holds ({} bytes)",
                        rtl_models::phantom::MAX_CAP_BYTES
                    ),
                ));
            }
            check_phantom(s, &fabric, cap)?;
        }
        None => {
            check_phantom(s, &fabric, d.buffer_bytes)?;
            if d.dc_buffer_bytes != d.buffer_bytes {
                check_phantom(s, &fabric, d.dc_buffer_bytes)?;
            }
        }
    }
    Ok(())
}

/// `topology.phantom_queue`: the drain fraction, and each switch port rate's phantom queue
/// (capped at the port buffer) must be one the port block can hold.
fn check_phantom(s: &Scenario, fabric: &crate::topology::Fabric, buffer_bytes: u64) -> Result<()> {
    let t = &s.topology;
    finite("topology.phantom_drain", t.phantom_drain)?;
    if !(t.phantom_drain > 0.0 && t.phantom_drain <= 1.0) {
        return Err(Error::field(
            "topology.phantom_drain",
            format!(
                "must be in (0, 1] (a fraction of the line rate), got {}",
                t.phantom_drain
            ),
        ));
    }
    if t.phantom_queue && t.phantom_ports.is_empty() {
        return Err(Error::field(
            "topology.phantom_ports",
            "is empty, so no port would get a phantom queue: name at least one of tor_down, \
             tor_up, agg_down, agg_up, spine_down (two_dc also: spine_up, border_down, \
             border_wan) (or set topology.phantom_queue = false)",
        ));
    }
    if !t.phantom_queue {
        return Ok(());
    }
    let mut rates: Vec<u64> = fabric.ports[fabric.hosts as usize..]
        .iter()
        .map(|p| p.gbps.to_bits())
        .collect();
    rates.sort_unstable();
    rates.dedup();
    for g in rates {
        crate::port::phantom_config(
            f64::from_bits(g),
            t.phantom_drain,
            buffer_bytes,
            rtl_models::RedConfig::linear(0, buffer_bytes),
            t.phantom_mark_on,
        )
        .map_err(|e| Error::field("topology.phantom_drain", e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Failure, Topology};

    fn field_of(s: &Scenario) -> String {
        match validate(s) {
            Err(Error::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn default_is_valid_and_has_128_hosts() {
        let s = Scenario::default();
        validate(&s).unwrap();
        assert_eq!(host_count(&s.topology), 128);
    }

    #[test]
    fn fat_tree_capacities() {
        let mut t = Topology {
            radix: 4,
            tiers: 2,
            ..Topology::default()
        };
        assert_eq!(max_hosts(&t), 8);
        t.tiers = 3;
        assert_eq!(max_hosts(&t), 16);
        t.radix = 16;
        assert_eq!(max_hosts(&t), 1024);
        t.oversubscription = 3.0;
        assert_eq!(max_hosts(&t), 16 * 8 * 12);
    }

    #[test]
    fn each_problem_names_its_field() {
        type Mutation = Box<dyn Fn(&mut Scenario)>;
        let cases: Vec<(&str, Mutation)> = vec![
            ("name", Box::new(|s| s.name = "a/b".into())),
            ("topology.radix", Box::new(|s| s.topology.radix = 7)),
            ("topology.radix", Box::new(|s| s.topology.radix = 0)),
            ("topology.tiers", Box::new(|s| s.topology.tiers = 4)),
            ("topology.hosts", Box::new(|s| s.topology.hosts = 129)),
            (
                "topology.link_gbps",
                Box::new(|s| s.topology.link_gbps = 0.0),
            ),
            (
                "topology.link_gbps",
                Box::new(|s| s.topology.link_gbps = f64::NAN),
            ),
            (
                "topology.link_delay_ns",
                Box::new(|s| s.topology.link_delay_ns = 0),
            ),
            (
                "topology.oversubscription",
                Box::new(|s| s.topology.oversubscription = 0.5),
            ),
            (
                "topology.buffer",
                Box::new(|s| s.topology.buffer = Size::Bytes(100)),
            ),
            ("transport.mtu", Box::new(|s| s.transport.mtu = 0)),
            ("transport.evs_bits", Box::new(|s| s.transport.evs_bits = 0)),
            ("transport.rto_us", Box::new(|s| s.transport.rto_us = 0.0)),
            (
                "transport.dcsim.fraction",
                Box::new(|s| s.transport.dcsim.fraction = 1.5),
            ),
            (
                "transport.dcsim.small_queue_pkts",
                Box::new(|s| s.transport.dcsim.small_queue_pkts = 16),
            ),
            (
                "transport.dcsim.ack_every",
                Box::new(|s| s.transport.dcsim.ack_every = 0),
            ),
            (
                "transport.dcsim.data_buffer_ratio",
                Box::new(|s| {
                    s.transport.dcsim.data_buffer = Some(Size::Bytes(100_000));
                    s.transport.dcsim.data_buffer_ratio = 2.0;
                }),
            ),
            (
                "topology.slow_core_fraction",
                Box::new(|s| s.topology.slow_core_fraction = 0.0),
            ),
            (
                "workload.collective_sizes",
                Box::new(|s| s.workload.collective_sizes = vec![8, 1]),
            ),
            (
                "output.selection_bucket_us",
                Box::new(|s| s.output.selection_bucket_us = -1.0),
            ),
            (
                "transport.header_bytes",
                Box::new(|s| s.transport.header_bytes = 0),
            ),
            ("topology.ecn_kmax", Box::new(|s| s.topology.ecn_kmax = 1.5)),
            (
                "topology.phantom_kmax",
                Box::new(|s| s.topology.phantom_kmax = Some(1.5)),
            ),
            (
                "topology.phantom_kmin",
                Box::new(|s| {
                    s.topology.phantom_kmin = Some(0.8);
                    s.topology.phantom_kmax = Some(0.5);
                }),
            ),
            (
                "transport.uno.ewma_shift",
                Box::new(|s| s.transport.uno.ewma_shift = 0),
            ),
            (
                "transport.uno.max_cwnd",
                Box::new(|s| s.transport.uno.max_cwnd = 0.0),
            ),
            (
                "transport.uno.gentle_delay",
                Box::new(|s| s.transport.uno.gentle_delay = Some(-1.0)),
            ),
            (
                "transport.uno.baseline_max_cwnd",
                Box::new(|s| s.transport.uno.baseline_max_cwnd = Some(0.0)),
            ),
            (
                "transport.uno.init_cwnd_intra",
                Box::new(|s| s.transport.uno.init_cwnd_intra = Some(f64::NAN)),
            ),
            (
                "transport.uno.qa_hold",
                Box::new(|s| s.transport.uno.qa_hold = "once".to_string()),
            ),
            (
                "transport.uno.md_precision",
                Box::new(|s| s.transport.uno.md_precision = "q16".to_string()),
            ),
            (
                "transport.uno.epoch_period",
                Box::new(|s| s.transport.uno.epoch_period = "own".to_string()),
            ),
            (
                "transport.uno.ewma_gain",
                Box::new(|s| s.transport.uno.ewma_gain = Some(1.5)),
            ),
            (
                "transport.uno.ewma_gain",
                Box::new(|s| s.transport.uno.ewma_gain = Some(f64::NAN)),
            ),
            (
                "transport.uno.gentle_test",
                Box::new(|s| s.transport.uno.gentle_test = "last".to_string()),
            ),
            (
                "output.fair_window_us",
                Box::new(|s| {
                    s.output.rate_sample_us = 100.0;
                    s.output.fair_window_us = 50.0;
                }),
            ),
            (
                "output.fair_window_us",
                Box::new(|s| s.output.fair_window_us = 20_000.0),
            ),
            (
                "output.fct_slowdown",
                Box::new(|s| s.output.fct_slowdown = true),
            ),
            (
                "topology.ecn_kmin",
                Box::new(|s| {
                    s.topology.ecn_kmin = 0.9;
                    s.topology.ecn_kmax = 0.5;
                }),
            ),
            ("workload.load", Box::new(|s| s.workload.load = 1.5)),
            (
                "workload.degree",
                Box::new(|s| {
                    s.workload.kind = WorkloadKind::Incast;
                    s.workload.degree = 128;
                }),
            ),
            (
                "workload.kind",
                Box::new(|s| {
                    s.topology.radix = 64;
                    s.workload.kind = WorkloadKind::AllToAll;
                }),
            ),
            (
                "failures[0].at_us",
                Box::new(|s| {
                    s.failures.push(Failure {
                        link: "tor0.up0".into(),
                        at_us: -1.0,
                        for_us: None,
                        gbps: None,
                        ..Default::default()
                    })
                }),
            ),
            (
                "workload.fixed_receiver",
                Box::new(|s| s.workload.fixed_receiver = true),
            ),
            (
                "transport.reps.per_connection",
                Box::new(|s| {
                    s.transport.reps.per_connection = true;
                    s.transport.cc = crate::scenario::CcKind::Uno;
                }),
            ),
            (
                "transport.per_connection_cwnd",
                Box::new(|s| {
                    s.transport.per_connection_cwnd = true;
                    s.transport.cc = crate::scenario::CcKind::Dcsim;
                }),
            ),
            ("skip.theta", Box::new(|s| s.skip.theta = 0.0)),
            ("skip.samples", Box::new(|s| s.skip.samples = 1)),
            (
                "skip.held_occupancy",
                Box::new(|s| {
                    s.skip.enabled = true;
                    s.skip.held_occupancy = true;
                }),
            ),
            ("skip.sample_us", Box::new(|s| s.skip.sample_us = 0.0)),
            (
                "skip.rate_metric",
                Box::new(|s| {
                    s.skip.rate_metric = crate::scenario::RateMetric::Cc;
                    s.transport.cc = crate::scenario::CcKind::Uno;
                }),
            ),
            (
                "skip.memo_lockstep",
                Box::new(|s| {
                    s.skip.enabled = true;
                    s.skip.memo_lockstep = true;
                    s.transport.cc = crate::scenario::CcKind::Uno;
                }),
            ),
            (
                "skip.lockstep_complete",
                Box::new(|s| {
                    s.skip.enabled = true;
                    s.skip.lockstep_complete = true;
                }),
            ),
            (
                "skip.lockstep_stay",
                Box::new(|s| {
                    s.skip.enabled = true;
                    s.skip.memo_lockstep = true;
                    s.skip.lockstep_stay = true;
                }),
            ),
            (
                "skip.lockstep_shadow",
                Box::new(|s| {
                    s.skip.enabled = true;
                    s.skip.memo_lockstep = true;
                    s.skip.lockstep_shadow = true;
                }),
            ),
            (
                "skip.lockstep_fixed_leader",
                Box::new(|s| {
                    s.skip.enabled = true;
                    s.skip.lockstep_fixed_leader = true;
                }),
            ),
            (
                "workload.llm.bytes_scale",
                Box::new(|s| {
                    s.workload.kind = WorkloadKind::Llm;
                    s.workload.llm = Some(crate::scenario::LlmWorkload {
                        bytes_scale: 2.0,
                        ..Default::default()
                    });
                }),
            ),
            (
                "workload.llm.gpus",
                Box::new(|s| {
                    s.workload.kind = WorkloadKind::Llm;
                    s.workload.llm = Some(crate::scenario::LlmWorkload {
                        gpus: 96,
                        ..Default::default()
                    });
                }),
            ),
            ("stop.max_time_us", Box::new(|s| s.stop.max_time_us = -5.0)),
            (
                "output.queue_sample_us",
                Box::new(|s| s.output.queue_sample_us = -1.0),
            ),
            (
                "output.selection_bucket_us",
                Box::new(|s| s.output.selection_bucket_us = f64::NAN),
            ),
            (
                "transport.reps.freezing_timeout_us",
                Box::new(|s| s.transport.reps.freezing_timeout_us = -1.0),
            ),
            (
                "transport.reps.freezing_timeout_us",
                Box::new(|s| s.transport.reps.freezing_timeout_us = 3e6),
            ),
            (
                "transport.reps.failure_rtt_multiple",
                Box::new(|s| s.transport.reps.failure_rtt_multiple = 0.0),
            ),
            (
                "transport.reps.failure_window_us",
                Box::new(|s| s.transport.reps.failure_window_us = -1.0),
            ),
            ("workload.one_way", Box::new(|s| s.workload.one_way = true)),
            ("workload.parallel", Box::new(|s| s.workload.parallel = 4)),
            (
                "workload.background_ecmp",
                Box::new(|s| s.workload.background_ecmp = 1.5),
            ),
            ("output.trace", Box::new(|s| s.output.trace = true)),
            (
                "transport.header_bytes",
                Box::new(|s| s.transport.header_bytes = 4097),
            ),
            (
                "workload.message",
                Box::new(|s| s.workload.message = Size::Bytes(1 << 50)),
            ),
            (
                "topology.link_delay_ns",
                Box::new(|s| s.topology.link_delay_ns = 18_446_744_073_709_552),
            ),
            (
                "topology.switch_latency_ns",
                Box::new(|s| s.topology.switch_latency_ns = u64::MAX),
            ),
            (
                "topology.link_gbps",
                Box::new(|s| s.topology.link_gbps = 0.005),
            ),
            ("transport.rto_us", Box::new(|s| s.transport.rto_us = 3e6)),
            (
                "workload.message",
                Box::new(|s| s.workload.message = Size::Bytes(u64::MAX)),
            ),
            ("stop.max_time_us", Box::new(|s| s.stop.max_time_us = 1e10)),
            (
                "output.queue_sample_us",
                Box::new(|s| s.output.queue_sample_us = 1e-6),
            ),
        ];
        for (field, mutate) in cases {
            let mut s = Scenario::default();
            mutate(&mut s);
            assert_eq!(field_of(&s), field);
        }
    }

    #[test]
    fn incast_degree_boundary() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Incast;
        s.workload.degree = 127;
        validate(&s).unwrap();
        s.workload.degree = 128;
        assert!(validate(&s).is_err());
    }

    /// Every "not supported yet" refusal and every check that needs the built network is made
    /// by validation (so `--dry-run` refuses what `run` refuses), naming its field.
    #[test]
    fn unsupported_and_built_checks_are_validation() {
        use crate::scenario::{CcKind, LbKind};
        type Mutation = Box<dyn Fn(&mut Scenario)>;
        let cases: Vec<(&str, Mutation)> = vec![
            (
                "transport.cc",
                Box::new(|s| s.transport.cc = CcKind::Zeropod),
            ),
            ("transport.lb", Box::new(|s| s.transport.lb = LbKind::Unolb)),
            (
                "transport.lb",
                Box::new(|s| {
                    s.transport.lb = LbKind::SprayRr;
                    s.skip.enabled = true;
                }),
            ),
            (
                "transport.lb",
                Box::new(|s| {
                    s.transport.lb = LbKind::SprayRr;
                    s.topology.kind = TopologyKind::TwoDc;
                }),
            ),
            (
                "transport.lb",
                Box::new(|s| {
                    s.transport.lb = LbKind::SprayRr;
                    s.transport.cc = CcKind::Zeropod;
                    s.topology.kind = TopologyKind::ZeropodPods;
                }),
            ),
            (
                "transport.cc",
                Box::new(|s| {
                    s.topology.kind = TopologyKind::TwoDc;
                    s.transport.cc = CcKind::Dcsim;
                }),
            ),
            (
                "topology.two_dc.dc_buffer",
                Box::new(|s| {
                    s.topology.kind = TopologyKind::TwoDc;
                    s.topology.two_dc.dc_buffer = Some(crate::scenario::Size::Bytes(100));
                }),
            ),
            (
                "topology.phantom_size",
                Box::new(|s| {
                    s.topology.phantom_queue = true;
                    s.topology.phantom_size = Some(crate::scenario::Size::Bytes(100));
                }),
            ),
            (
                "topology.phantom_size",
                Box::new(|s| {
                    s.topology.phantom_queue = true;
                    s.topology.phantom_size = Some(crate::scenario::Size::Bytes(1 << 33));
                }),
            ),
            (
                "topology.kind",
                Box::new(|s| s.topology.kind = TopologyKind::SingleTor),
            ),
            (
                "topology.radix",
                Box::new(|s| {
                    s.topology.kind = TopologyKind::ZeropodPods;
                    s.transport.cc = CcKind::Zeropod;
                    s.topology.radix = 6;
                }),
            ),
            (
                "workload.kind",
                Box::new(|s| {
                    s.workload.kind = WorkloadKind::Llm;
                    s.transport.cc = CcKind::Dcsim;
                }),
            ),
            ("output.trace", Box::new(|s| s.output.trace = true)),
            (
                "workload.collectives",
                Box::new(|s| {
                    s.workload.kind = WorkloadKind::Tornado;
                    s.workload.collectives = 2;
                }),
            ),
            (
                "transport.header_bytes",
                Box::new(|s| s.transport.header_bytes = MAX_HEADER_BYTES + 1),
            ),
            ("transport.rto_us", Box::new(|s| s.transport.rto_us = 3e6)),
            (
                "failures[0].link",
                Box::new(|s| {
                    s.failures.push(Failure {
                        link: "tor99.up0".into(),
                        at_us: 1.0,
                        for_us: None,
                        gbps: None,
                        ..Default::default()
                    })
                }),
            ),
            (
                "topology.buffer",
                Box::new(|s| s.topology.buffer = Size::Bdp(0.001)),
            ),
        ];
        for (field, mutate) in cases {
            let mut s = Scenario::default();
            mutate(&mut s);
            assert_eq!(field_of(&s), field);
        }
        let mut s = Scenario::default();
        s.transport.header_bytes = MAX_HEADER_BYTES;
        validate(&s).unwrap();
        s.failures.push(Failure {
            link: "tor0.up3".into(),
            at_us: 1.0,
            for_us: None,
            gbps: None,
            ..Default::default()
        });
        validate(&s).unwrap();
    }
}
