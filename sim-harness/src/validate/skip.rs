//! `[skip]`, Wormhole's fast-forwarding: theta, samples, the rate metric (a window CC's
//! only under DCTCP) and the lockstep memoization options and what each needs.

use super::numbers::{finite, num};
use crate::error::{Error, Result};
use crate::scenario::Scenario;

/// `skip.*` (Wormhole's own checks run after `stop.max_time_us`, in [`super::validate`]).
pub(super) fn check_skip(s: &Scenario) -> Result<()> {
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
    // The steady detector holds theta in ppm (wormhole::steady::SteadyDetector::new).
    if (s.skip.theta * 1e6).round() < 1.0 {
        return Err(Error::field(
            "skip.theta",
            format!(
                "is below the steady detector's resolution of 1 ppm (0.000001), got {}",
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
    finite("skip.reserve_bdps", s.skip.reserve_bdps)?;
    let max_reserve = crate::scenario::MAX_RESERVE_BDPS;
    if !(0.0..=max_reserve).contains(&s.skip.reserve_bdps) {
        return Err(Error::field(
            "skip.reserve_bdps",
            format!(
                "must be 0 to {} (BDPs of each skipped flow's tail simulated packet by \
                 packet; at least one mtu is kept), got {}",
                num(max_reserve),
                num(s.skip.reserve_bdps)
            ),
        ));
    }
    // `cwnd / srtt` and in-flight / srtt are a window CC's quantities: DCTCP's; every other
    // transport has none the sampler reads, but MPRDMA's variant, whose per-ACK cuts
    // let two flows of an incast hold unequal windows that look steady (measured on
    // `tests/wormhole.rs`' 2-to-1 incast: 9.9 % mean FCT error, DCTCP 0.87 %).
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
                s.transport.cc.name()
            ),
        ));
    }
    // "timed" times new PSNs between exact send stamps, which the DCTCP-style senders keep
    // and Uno's (units of packets or blocks, no per-PSN stamps) does not: it would never
    // find a flow steady.
    if s.skip.enabled
        && s.skip.rate_estimate == crate::scenario::RateEstimate::Timed
        && without_psn_stamps(s.transport.cc)
    {
        return Err(Error::field(
            "skip.rate_estimate",
            format!(
                "\"timed\" times a sender's new PSNs between their exact send stamps, which \
                 only the DCTCP-style senders (transport.cc = \"dctcp\" or \"mprdma\") keep; \
                 transport.cc = \"{}\" needs rate_estimate = \"packets\" or \"metric\"",
                s.transport.cc.name()
            ),
        ));
    }
    // An interrupted transient is keyed and replayed by DCTCP's window, alpha and slow-start
    // flag. Uno's senders keep none of them in that form (nothing would ever be stored), and
    // MPRDMA's per-ACK cuts make its incast transients differ from start states in the same
    // classes (measured on `tests/wormhole.rs`' repeat of two incast pairs: 7.8 % FCT error
    // on a replayed flow, DCTCP under 1 %).
    // (The transports never fast-forwarded are refused as a whole at setup.)
    if s.skip.enabled
        && s.skip.memo_interrupted
        && (without_psn_stamps(s.transport.cc)
            || matches!(
                s.transport.cc,
                crate::scenario::CcKind::Mprdma | crate::scenario::CcKind::MprdmaBbr
            ))
    {
        return Err(Error::field(
            "skip.memo_interrupted",
            format!(
                "replays a transient keyed by a DCTCP sender's window, alpha and slow-start \
                 flag, which transport.cc = \"{}\" does not replay soundly; use transport.cc \
                 = \"dctcp\" or memo_interrupted = false",
                s.transport.cc.name()
            ),
        ));
    }
    // A follower is advanced by its leader's DCTCP window and sequence numbers: only the
    // DCTCP sender has them (MPRDMA's and Uno's senders are fast-forwarded, not followed).
    if s.skip.enabled && s.skip.memo_lockstep && s.transport.cc != crate::scenario::CcKind::Dctcp {
        return Err(Error::field(
            "skip.memo_lockstep",
            format!(
                "shares a DCTCP sender's trajectory (sequence numbers, cwnd, alpha) among \
                 partitions in lockstep, which transport.cc = \"{}\" does not have; use \
                 transport.cc = \"dctcp\" or memo_lockstep = false",
                s.transport.cc.name()
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
    if s.skip.foreign_ack_interrupts
        && s.skip.partition_by != crate::scenario::PartitionBy::DataPorts
    {
        return Err(Error::field(
            "skip.foreign_ack_interrupts",
            "turns on the interrupts by ACKs crossing other partitions' DATA ports, which \
             exist only with skip.partition_by = \"data_ports\" (under \"all_ports\" ACK \
             ports merge partitions); set it or foreign_ack_interrupts = false"
                .to_string(),
        ));
    }
    if s.skip.nic_bound_samples > 0 {
        if s.skip.nic_bound_samples > s.skip.samples {
            return Err(Error::field(
                "skip.nic_bound_samples",
                format!(
                    "is the model-based steady test's window in sampling intervals and may \
                     not exceed skip.samples ({}), got {}",
                    s.skip.samples, s.skip.nic_bound_samples
                ),
            ));
        }
        if s.transport.cc != crate::scenario::CcKind::Dctcp {
            return Err(Error::field(
                "skip.nic_bound_samples",
                format!(
                    "tests a DCTCP sender's window, ECN marks and losses against its host's \
                     line rate, which transport.cc = \"{}\" does not have; use \
                     transport.cc = \"dctcp\" or nic_bound_samples = 0",
                    s.transport.cc.name()
                ),
            ));
        }
    }
    if s.skip.nic_bound_inexact && !s.skip.nic_bound_exact {
        return Err(Error::field(
            "skip.nic_bound_inexact",
            "says what skip.nic_bound_exact does with a partition it cannot skip by whole \
             rounds, so it needs nic_bound_exact = true; set that, or nic_bound_inexact = false"
                .to_string(),
        ));
    }
    if s.skip.nic_bound_exact && s.skip.nic_bound_samples == 0 {
        return Err(Error::field(
            "skip.nic_bound_exact",
            "makes skip.nic_bound_samples' model skips exact (whole round-robin rounds of \
             the host port), so it needs that model on; set skip.nic_bound_samples > 0 or \
             nic_bound_exact = false"
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
    Ok(())
}

/// The fast-forwarded transports whose senders keep no per-PSN send stamp and no DCTCP
/// window (Uno, DCSIM, pFabric, pHost): `skip.rate_estimate = "timed"` and
/// `skip.memo_interrupted` need one or the other.
fn without_psn_stamps(cc: crate::scenario::CcKind) -> bool {
    use crate::scenario::CcKind;
    matches!(
        cc,
        CcKind::Uno | CcKind::Dcsim | CcKind::Pfabric | CcKind::Phost
    )
}
