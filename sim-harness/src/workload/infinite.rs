//! Infinite flows (DCSIM section 4.1, "Collectives": "We also evaluate an *infinite*
//! all-to-all workload where each flow has an infinite size"; Fig. 4).
//!
//! `workload.infinite = true` keeps the workload's pairs (permutation, tornado, incast or
//! all-to-all, also as collectives) and gives every flow a size its sender's link cannot
//! carry before `stop.max_time_us`: the line-rate payload of the whole run plus two
//! packets, rounded to whole packets of `transport.mtu`. No flow can complete, the run ends
//! at the time limit, and the transports see ordinary (large) flows, so every transport runs
//! it unchanged. `workload.message` is not used.
//!
//! The steady-state measure is `extra.utilization_window`: DATA payload first received in
//! `[workload.infinite_warmup_us, stop.max_time_us]` over the hosts' capacity in that
//! window (section 4.1 metric 5, "the quantity of data received in a time interval,
//! divided by the total link capacity of the hosts"), beside the whole-run `utilization`.

use crate::error::{Error, Result};
use crate::scenario::{CcKind, Scenario, TopologyKind, WorkloadKind};
use crate::units::num;
use crate::workload::FlowSpec;

/// Bytes of an infinite flow: more than a `host_gbps` link carries in `max_time_us`
/// (payload at line rate, headers ignored), plus two packets, in whole `mtu` packets.
pub fn bytes(max_time_us: f64, host_gbps: f64, mtu: u32) -> u64 {
    let mtu = u64::from(mtu.max(1));
    let line = (host_gbps * 125.0 * max_time_us).ceil() as u64; // bytes per us = Gb/s * 125
    (line / mtu + 2) * mtu
}

/// Give every flow of `flows` the infinite size for scenario `s` on `host_gbps` links.
pub fn apply(s: &Scenario, host_gbps: f64, flows: &mut [FlowSpec]) {
    let b = bytes(s.stop.max_time_us, host_gbps, s.transport.mtu);
    for f in flows {
        f.bytes = b;
    }
}

/// The measurement window `[from, to]` of an infinite workload, ps (`None` otherwise).
pub fn window_ps(s: &Scenario) -> Option<(u64, u64)> {
    s.workload.infinite.then(|| {
        (
            (s.workload.infinite_warmup_us * 1e6).round() as u64,
            (s.stop.max_time_us * 1e6).round() as u64,
        )
    })
}

/// Validation of `workload.infinite` and `workload.infinite_warmup_us` (called by
/// `crate::validate`).
pub fn check(s: &Scenario) -> Result<()> {
    let w = &s.workload;
    let warm = w.infinite_warmup_us;
    if !warm.is_finite() || warm < 0.0 {
        return Err(Error::field(
            "workload.infinite_warmup_us",
            format!("must be a time in us, at least 0, got {}", num(warm)),
        ));
    }
    if !w.infinite {
        if warm > 0.0 {
            return Err(Error::field(
                "workload.infinite_warmup_us",
                "only an infinite workload has a measurement window (set workload.infinite = true, or 0)",
            ));
        }
        return Ok(());
    }
    let max = s.stop.max_time_us;
    if max.is_nan() || max <= 0.0 {
        return Err(Error::field(
            "workload.infinite",
            "infinite flows never end: set stop.max_time_us (the run's length) above 0",
        ));
    }
    if warm >= max {
        return Err(Error::field(
            "workload.infinite_warmup_us",
            format!(
                "the window [{warm}, {max}] us is empty: the warm-up must end before stop.max_time_us"
            ),
        ));
    }
    let ok_kind = matches!(
        w.kind,
        WorkloadKind::Permutation
            | WorkloadKind::Tornado
            | WorkloadKind::Incast
            | WorkloadKind::AllToAll
    );
    if !ok_kind || w.parallel > 0 {
        return Err(Error::field(
            "workload.infinite",
            "only permutation, tornado, incast and all_to_all (without workload.parallel) can \
             have infinite flows (all_to_all_v splits a finite message; set infinite = false)",
        ));
    }
    if s.topology.kind != TopologyKind::FatTree {
        return Err(Error::field(
            "workload.infinite",
            "infinite flows run on a fat_tree topology (set infinite = false)",
        ));
    }
    if s.transport.cc == CcKind::Zeropod {
        return Err(Error::field(
            "workload.infinite",
            "infinite flows are not supported under cc = \"zeropod\" (its Ideal needs finite sizes)",
        ));
    }
    let b = bytes(max, s.topology.link_gbps, s.transport.mtu);
    let packets = b.div_ceil(u64::from(s.transport.mtu.max(1)));
    if packets >= crate::validate::MAX_MESSAGE_PACKETS {
        return Err(Error::field(
            "stop.max_time_us",
            format!(
                "an infinite flow must outlast the run: {packets} packets at this rate and MTU, \
                 beyond the 2^31-packet limit of a flow; shorten the run"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_infinite_flow_outlasts_its_link() {
        // 800 Gb/s for 100 us = 10 MB of payload; 9000-byte packets.
        let b = bytes(100.0, 800.0, 9000);
        assert_eq!(b % 9000, 0);
        assert!(b > 10_000_000 && b <= 10_000_000 + 3 * 9000, "{b}");
    }

    #[test]
    fn checks_name_the_field() {
        let mut s = Scenario::default();
        s.workload.infinite = true;
        let e = check(&s).unwrap_err().to_string();
        assert!(
            e.starts_with("workload.infinite:") && e.contains("stop.max_time_us"),
            "{e}"
        );
        s.stop.max_time_us = 50.0;
        check(&s).unwrap();
        s.workload.infinite_warmup_us = 50.0;
        let e = check(&s).unwrap_err().to_string();
        assert!(e.starts_with("workload.infinite_warmup_us:"), "{e}");
        s.workload.infinite_warmup_us = 10.0;
        s.workload.kind = WorkloadKind::AllToAllV;
        let e = check(&s).unwrap_err().to_string();
        assert!(e.starts_with("workload.infinite:"), "{e}");
        s.workload.kind = WorkloadKind::AllToAll;
        s.workload.infinite = false;
        let e = check(&s).unwrap_err().to_string();
        assert!(e.starts_with("workload.infinite_warmup_us:"), "{e}");
        s.workload.infinite_warmup_us = 0.0;
        check(&s).unwrap();
    }
}
