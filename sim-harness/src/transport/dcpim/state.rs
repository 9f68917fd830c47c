//! dcPIM's state in a run: per host its matching registers and rings (`PimHost`), per flow
//! its sender and receiver (`PimFlow`), the shared epoch clock, and the `dcpim_*` counters.

use super::flow::PimFlow;
use super::matching::{EpochClock, PimHost};
use crate::packet::{Packet, PktKind};
use crate::transport::TransportDriver;

/// dcPIM's counters (summary.json `dcpim_*`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PimCounters {
    /// Epochs in which some host took part in the matching or sent scheduled data.
    pub epochs: u64,
    /// Rounds (of any epoch) in which at least one RTS was sent.
    pub rounds: u64,
    /// Sender-receiver pairs matched, summed over epochs (at the senders' epoch switch).
    pub matched_pairs: u64,
    /// Matches made in the first round (ACCEPTs of round 0).
    pub first_round_matches: u64,
    /// RTS, GRANT, ACCEPT, revoking GRANT packets sent.
    pub rts: u64,
    /// GRANTs sent.
    pub grants: u64,
    /// ACCEPTs sent.
    pub accepts: u64,
    /// Revoking GRANTs sent.
    pub revokes: u64,
    /// Matching packets dropped.
    pub ctrl_drops: u64,
    /// Epochs' receivers that had more than `k` channels matched to them (lost or late
    /// ACCEPT / revoke), summed over epochs.
    pub conflicts: u64,
    /// Channels matched, summed over epochs (at the senders' epoch switch).
    pub matched_links: u64,
    /// Pulls that found every current match's token window full (the sender waits).
    pub window_stalls: u64,
    /// Tokens released by the window timeout (`relax_token_gap`).
    pub window_relaxes: u64,
    /// DATA payload bytes sent unscheduled (flows under the threshold).
    pub unscheduled_bytes: u64,
    /// DATA payload bytes sent in matched epochs.
    pub scheduled_bytes: u64,
    /// Flows sent unscheduled.
    pub unscheduled_flows: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// DATA packets sent again (after a NACK or a timeout).
    pub retransmits: u64,
}

/// dcPIM's state: per host its matching registers and rings, per flow its sender and
/// receiver.
#[derive(Debug, Clone)]
pub struct DcpimState {
    pub(super) clock: EpochClock,
    pub(super) mtu: u32,
    pub(super) hdr: u32,
    /// Flows of fewer bytes are unscheduled.
    pub(super) unsched_bytes: u64,
    /// Serialization time of a full DATA at the host rate, ps.
    pub(super) ser_ps: u64,
    pub(super) rto_ps: u64,
    /// Rounds choosing the smallest remaining size (then random).
    pub(super) srpt_rounds: u32,
    /// Channels per host (dcPIM's `k`).
    pub(super) chans: u32,
    /// The token window of all `k` channels, DATAs (0: none).
    pub(super) window_pkts: f64,
    /// The token window timeout, ps.
    pub(super) window_timeout_ps: u64,
    /// DATAs one channel carries in an epoch (dcPIM's `pim_link_pkts`).
    pub(super) link_pkts: u64,
    pub(super) hosts: Vec<PimHost>,
    pub(super) flows: Vec<PimFlow>,
    /// The last epoch counted in `k.epochs`, plus one (0: none).
    pub(super) counted_epoch: u64,
    /// The last (epoch, round) counted in `k.rounds`, plus one in the epoch.
    pub(super) counted_round: (u64, u32),
    /// The last epoch whose matching was checked for conflicts, plus one.
    pub(super) checked_epoch: u64,
    /// Counters.
    pub k: PimCounters,
}

impl DcpimState {
    /// Whether host `h` may have DATA to send (the NIC then pulls; a pull may find none).
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        let hd = &self.hosts[h as usize];
        !hd.unsched.is_empty() || !hd.cur_tx.is_empty()
    }

    /// A packet was dropped.
    pub(crate) fn on_drop(&mut self, pk: &Packet) {
        if matches!(
            pk.kind,
            PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept
        ) {
            self.k.ctrl_drops += 1;
        }
    }

    /// Payload bytes of flow `f` (of `bytes`) acknowledged at its sender.
    pub(crate) fn acked_bytes(&self, f: u32, bytes: u64) -> u64 {
        (u64::from(self.flows[f as usize].n_acked) * u64::from(self.mtu)).min(bytes)
    }

    /// The epoch length, ps.
    pub fn epoch_ps(&self) -> u64 {
        self.clock.epoch_ps
    }

    /// The senders matched to receivers in the current epoch, as the senders see it
    /// (`(sender, receiver, channels)`).
    pub fn current_matching(&self) -> Vec<(u32, u32, u32)> {
        let mut v = Vec::new();
        for (h, hd) in self.hosts.iter().enumerate() {
            v.extend(hd.cur_tx.iter().map(|c| (h as u32, c.peer, c.links)));
        }
        v
    }

    /// The senders matched to each receiver in the current epoch, as the receivers see
    /// it (`(receiver, sender, channels)`).
    pub fn current_receivers(&self) -> Vec<(u32, u32, u32)> {
        let mut v = Vec::new();
        for (h, hd) in self.hosts.iter().enumerate() {
            v.extend(hd.cur_rx.iter().map(|c| (h as u32, c.peer, c.links)));
        }
        v
    }

    /// Channels per host (dcPIM's `k`).
    pub fn channels(&self) -> u32 {
        self.chans
    }

    pub(super) fn payload(&self, bytes: u64, psn: u32) -> u32 {
        let off = u64::from(psn) * u64::from(self.mtu);
        (bytes - off).min(u64::from(self.mtu)) as u32
    }
}

/// The dcPIM state of a dcPIM run.
#[inline]
pub(super) fn pim(t: &mut TransportDriver) -> &mut DcpimState {
    match t {
        TransportDriver::Dcpim(d) => d,
        _ => unreachable!("dcPIM calls run only in dcPIM runs"),
    }
}
