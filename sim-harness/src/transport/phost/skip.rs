//! pHost under Wormhole (`../shared/papers/wormhole.md` 5.3 / 6.2; `transport.cc =
//! "phost"` with `skip.partition_by = "all_ports"`): what a skipped partition's pHost
//! state needs.
//!
//! ```text
//!  skip_view     DATA transmissions; the packets a skip may take (fast_forward_data)
//!  fast_forward  k never-named packets off the end of the message at both ends:
//!                receiver to_grant / left, sender remaining (nic::phost blocks), pkts
//!  shift         a host's token scheduler and sender clocks, held tokens' expiries,
//!                its timer; a flow's RTS re-send clock (the tokens in flight move with
//!                the paused packets, TransportDriver::shift_packet)
//! ```
//!
//! A host's token scheduler serves the flows into it, its sender the flows out of it; the
//! tokens of the first and the DATA of the second leave by the host's NIC port, so under
//! `all_ports` both are in the partition of that port and shift together.
//!
//! **What a skip takes.** The packets at the top of the message that no token has named
//! and no DATA carried yet (PSNs from `max(cursor, hi_sent)` up): tokens name PSNs from
//! the receiver's cursor upwards, so those are the ones the full run's next tokens would
//! name after the ones in flight; they come off the end (`pkts` shrinks, the new last
//! packet carries the message's partial payload, `tail`). Never the flow's last packet to
//! grant or send on a token (the blocks' entries stay), none of the free packets (the
//! sender spends tokens first, so its free ones may go last), nothing while the flow is
//! not registered at its receiver, and nothing after a regrant (a PSN above the
//! cursor may then have been named already).

use super::driver::PhostState;
use super::state::TxPhase;
use crate::event::NEVER;
use crate::flow::FlowRt;
use crate::transport::skip::SkipView;

impl PhostState {
    /// The packets a fast-forward of flow `f` asked for `n` takes now (module doc).
    /// `src` and `dst` are the flow's hosts.
    pub(crate) fn fast_forward_data(&self, (src, dst): (u32, u32), f: u32, n: u32) -> u32 {
        let fs = &self.flows[f as usize];
        if fs.tx != TxPhase::Open || fs.regranted || fs.complete || !fs.rts_seen || fs.rx_waiting {
            return 0;
        }
        let Some(tx) = self.hosts[src as usize].tx.flow(f) else {
            return 0;
        };
        let Some(rx) = self.hosts[dst as usize].rx.flow(f) else {
            return 0;
        };
        if tx.rts_pending {
            return 0;
        }
        let untouched = fs.pkts.saturating_sub(fs.cursor.max(fs.hi_sent));
        n.min(untouched)
            .min(rx.to_grant.saturating_sub(1))
            .min(tx.remaining.saturating_sub(tx.free).saturating_sub(1))
    }

    /// Flow `f`'s sender as Wormhole's steady detector and skip see it: its DATA
    /// transmissions (first and repeated), the packets a skip may take; `None` unless it
    /// is sending.
    pub(crate) fn skip_view(&self, flows: &[FlowRt], f: u32) -> Option<SkipView> {
        let fs = &self.flows[f as usize];
        if fs.tx != TxPhase::Open {
            return None;
        }
        Some(SkipView {
            sent: fs.data_sent,
            losses: 0,
            // pHost's sender never declares a loss: its receiver's token window gives a lost
            // DATA's token up only after `window_timeout` cycles at the window (the flow's
            // rate climbs back a token at a time, which a skip would freeze) and grants the
            // DATA again at the message's end. So a pHost flow that lost a DATA stays
            // unsteady (`TransportDriver::holds_unsettled_losses`).
            settled: 0,
            ecn: 0,
            newest: None,
            skippable: u64::from(self.fast_forward_data(ends(flows, f), f, u32::MAX)),
        })
    }

    /// Wormhole fast-forward of flow `f`: up to `n` packets ([`Self::fast_forward_data`])
    /// were granted, sent and received at the steady rate while its partition was skipped;
    /// they come off the end of its message in both blocks and in `pkts`. Returns how many.
    pub(crate) fn fast_forward(&mut self, (src, dst): (u32, u32), f: u32, n: u32) -> u32 {
        let k = self.fast_forward_data((src, dst), f, n);
        if k == 0 {
            return 0;
        }
        let kr = self.hosts[dst as usize].rx.fast_forward(f, k);
        let kt = self.hosts[src as usize].tx.fast_forward(f, k);
        debug_assert_eq!(
            (kr, kt),
            (k, k),
            "both blocks take what fast_forward_data said"
        );
        self.flows[f as usize].pkts -= k;
        k
    }

    /// Whether flow `f`'s sender is still open (it has not had the flow's DONE).
    pub(crate) fn sender_open(&self, f: u32) -> bool {
        self.flows[f as usize].tx == TxPhase::Open
    }

    /// Move hosts `hosts` and flows `flows` (a partition) `delta` ps later: the blocks'
    /// clocks (1 ps cycles) and the tokens they hold, the tokens' copies in `held`, the
    /// host timer; each flow's last news (its RTS re-send clock).
    pub(crate) fn shift(&mut self, hosts: &[u32], flows: &[u32], delta: u64) {
        for &h in hosts {
            let hs = &mut self.hosts[h as usize];
            hs.rx.shift(delta);
            hs.tx.shift(delta);
            for t in &mut hs.held {
                t.expiry = t.expiry.saturating_add(delta);
            }
            if hs.timer_at != NEVER {
                hs.timer_at = hs.timer_at.saturating_add(delta);
            }
        }
        for &f in flows {
            let fs = &mut self.flows[f as usize];
            fs.last_news = fs.last_news.saturating_add(delta);
        }
    }
}

/// Flow `f`'s (source, destination) hosts.
pub(crate) fn ends(flows: &[FlowRt], f: u32) -> (u32, u32) {
    let spec = &flows[f as usize].spec;
    (spec.src, spec.dst)
}
