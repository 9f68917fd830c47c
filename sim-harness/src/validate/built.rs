//! Checks that need the built network: failure and loss link names, one lossy entry per
//! cable, BDP-relative buffers and messages, the DCSIM, pFabric and pHost parameters, and
//! phantom queues per switch port rate.

use super::numbers::{finite, num};
use super::MAX_MESSAGE_PACKETS;
use crate::error::{Error, Result};
use crate::scenario::Scenario;

/// Checks that need the network: failure link names, and every value derived from the base
/// RTT and BDP (BDP-relative buffers and messages, the DCSIM parameters). Builds the fabric
/// (ports only; no flows), the same way the engine will.
pub(super) fn check_built(s: &Scenario) -> Result<()> {
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
    if s.transport.cc == crate::scenario::CcKind::Phost {
        crate::transport::phost::receiver(s, &fabric, d.base_rtt_ps, d.bdp_bytes)?;
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
            check_phantom(s, &fabric, cap, "topology.phantom_size")?;
        }
        None => {
            check_phantom(s, &fabric, d.buffer_bytes, "topology.buffer")?;
            if d.dc_buffer_bytes != d.buffer_bytes {
                check_phantom(s, &fabric, d.dc_buffer_bytes, "topology.two_dc.dc_buffer")?;
            }
        }
    }
    Ok(())
}

/// `topology.phantom_queue`: the drain fraction, and each switch port rate's phantom queue
/// (capped at the port buffer) must be one the port block can hold. `cap_field` names the
/// field the cap comes from (`topology.phantom_size`, else the port buffer's field).
fn check_phantom(
    s: &Scenario,
    fabric: &crate::topology::Fabric,
    buffer_bytes: u64,
    cap_field: &str,
) -> Result<()> {
    let t = &s.topology;
    finite("topology.phantom_drain", t.phantom_drain)?;
    if !(t.phantom_drain > 0.0 && t.phantom_drain <= 1.0) {
        return Err(Error::field(
            "topology.phantom_drain",
            format!(
                "must be in (0, 1] (a fraction of the line rate), got {}",
                num(t.phantom_drain)
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
        .map_err(|e| {
            // The block's `cap_bytes` limit is a problem of the cap, not of the drain.
            let field = if e.ends_with("(cap_bytes)") {
                cap_field
            } else {
                "topology.phantom_drain"
            };
            Error::field(field, e)
        })?;
    }
    Ok(())
}
