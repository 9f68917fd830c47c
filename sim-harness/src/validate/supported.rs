//! What the fabric simulator supports: features the scenario format names but the
//! simulator does not run yet, and the combinations it refuses (load balancers per
//! transport and topology, transports per topology and workload). Every refusal `dcfab run`
//! can give is here or in `built`, so `--dry-run` (and the sweep's pre-check) agree with
//! `run`.

use crate::error::{Error, Result};
use crate::scenario::{Scenario, TopologyKind, WorkloadKind};

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
pub(super) fn check_supported(s: &Scenario) -> Result<()> {
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
