//! `[workload]`: load, message size, each kind's own fields (incast degree, websearch flows,
//! Uno and infinite workloads, parallel / ordered / self-clocked all-to-all, collectives,
//! butterfly host count) and the flow-count limit.

use super::capacity::flow_count;
use super::numbers::{finite, num};
use super::transport::check_per_connection;
use super::{MAX_FLOWS, MAX_MESSAGE_PACKETS};
use crate::error::{Error, Result};
use crate::scenario::{Scenario, Size, WorkloadKind};
use crate::units;

/// `workload.*` on a topology of `hosts` hosts.
pub(super) fn check_workload(s: &Scenario, hosts: u64) -> Result<()> {
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
                        "an incast of degree {} needs {} hosts (senders + receiver) but the \
                         topology has {hosts}: lower workload.degree, or give the topology more \
                         hosts (topology.hosts, topology.radix)",
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
            format!(
                "butterfly_allreduce needs a power-of-two number of hosts, got {hosts}: set \
                 topology.hosts to a power of two, or choose another workload.kind"
            ),
        ));
    }
    if !w.background_ecmp.is_finite() || !(0.0..=1.0).contains(&w.background_ecmp) {
        return Err(Error::field(
            "workload.background_ecmp",
            format!(
                "must be a fraction in [0, 1], got {}",
                num(w.background_ecmp)
            ),
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
                format!(
                    "this workload makes {n} flows on {hosts} hosts, more than the limit of \
                     {MAX_FLOWS}: choose a workload.kind with fewer flows (or fewer \
                     workload.flows / workload.collectives), or fewer hosts (topology.hosts, \
                     topology.radix)"
                ),
            ));
        }
    }
    Ok(())
}
