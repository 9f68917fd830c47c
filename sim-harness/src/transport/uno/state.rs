//! The Uno transports' state in a run (Uno 4.1-4.2, 5.1): per flow its path constants
//! (inter-DC or not, base RTT, BDP: 4.1.1's per-flow RTT and BDP), its sender (UnoTx) and
//! receiver (UnoRx), per host its ready ring, and the run's counters.

use super::rx::{self, UnoRx};
use super::section::UnoSection;
use super::tx::{FlowCc, TxStats, UnoTx};
use crate::event::Time;
use crate::flow::FlowRt;
use crate::scenario::CcKind;
use crate::transport::ctx::Cx;
use crate::transport::TransportDriver;
use nic::uno::ec::BlockCodec;
use rtl_models::{Cycles, Rate};
use std::collections::VecDeque;

/// Per-flow constants of the Uno transports, from the flow's path.
#[derive(Debug, Clone, Copy)]
pub(super) struct FlowParams {
    pub(super) inter_dc: bool,
    pub(super) base_rtt_ps: u64,
    pub(super) bdp_bytes: u64,
}

/// Counters of the Uno transports (summed over finished flows; the live ones are added at
/// the end).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Totals {
    pub(super) tx: TxStats,
    pub(super) rx: rx::RxStats,
}

/// The Uno transports' state: per flow its sender and receiver, per host its ready ring.
#[derive(Debug)]
pub struct UnoState {
    pub(super) cc: CcKind,
    pub(super) sec: UnoSection,
    pub(super) mtu: u32,
    pub(super) params: Vec<FlowParams>,
    pub(super) intra_rtt: Cycles,
    pub(super) intra_bdp: u64,
    /// The largest inter-DC flow BDP (the intra-DC BDP without inter-DC flows): Gemini's
    /// `gemini_h` unit.
    pub(super) inter_bdp: u64,
    pub(super) line_rate: Rate,
    pub(super) delay_thresh: Cycles,
    pub(super) init_cwnd: crate::scenario::Size,
    pub(super) rto_ps: u64,
    /// `authors_rto`: what the intra- and the inter-DC flows add to their base RTT, ps.
    pub(super) authors_rto_ps: Option<(u64, u64)>,
    pub(super) codec: Option<BlockCodec>,
    pub(super) tx: Vec<Option<Box<UnoTx>>>,
    pub(super) rx: Vec<Option<Box<UnoRx>>>,
    pub(super) ready: Vec<VecDeque<u32>>,
    pub(super) totals: Totals,
}

impl Clone for UnoState {
    fn clone(&self) -> Self {
        UnoState {
            cc: self.cc,
            sec: self.sec.clone(),
            mtu: self.mtu,
            params: self.params.clone(),
            intra_rtt: self.intra_rtt,
            intra_bdp: self.intra_bdp,
            inter_bdp: self.inter_bdp,
            line_rate: self.line_rate,
            delay_thresh: self.delay_thresh,
            init_cwnd: self.init_cwnd,
            rto_ps: self.rto_ps,
            authors_rto_ps: self.authors_rto_ps,
            codec: self
                .codec
                .as_ref()
                .and_then(|c| BlockCodec::new(c.data() as u8, c.parity() as u8).ok()),
            tx: self.tx.clone(),
            rx: self.rx.clone(),
            ready: self.ready.clone(),
            totals: self.totals,
        }
    }
}

impl UnoState {
    /// The ready ring of host `h`.
    #[inline]
    pub(crate) fn ready(&mut self, h: u32) -> &mut VecDeque<u32> {
        &mut self.ready[h as usize]
    }

    /// Whether host `h` has a flow ready.
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        !self.ready[h as usize].is_empty()
    }

    /// Whether flow `f` is erasure-coded.
    pub(super) fn ec_for(&self, f: usize) -> bool {
        self.cc == CcKind::Uno && self.sec.ec && (self.params[f].inter_dc || self.sec.ec_intra)
    }

    /// Payload bytes of flow `f` (of `bytes`) delivered as its sender knows it (units
    /// acknowledged as delivered, and data a Wormhole fast-forward took off the message,
    /// `mtu` each, capped at the size).
    pub(crate) fn acked_bytes(&self, f: u32, bytes: u64) -> u64 {
        let Some(tx) = self.tx[f as usize].as_deref() else {
            return 0;
        };
        (u64::from(tx.data_delivered_with_skipped()) * u64::from(self.mtu)).min(bytes)
    }

    /// Flow `f`'s UnoCC window; `None` for another CC or a flow not sending.
    pub(crate) fn uno_window(&self, f: u32) -> Option<crate::transport::skip::UnoWindow> {
        let tx = self.tx.get(f as usize)?.as_deref()?;
        match &tx.cc {
            FlowCc::Uno(c) => Some(crate::transport::skip::UnoWindow {
                cwnd: c.cwnd(),
                bdp: c.config().bdp_bytes,
                capped: c.cwnd() >= c.config().max_cwnd_bytes,
                alpha_bytes: c.config().alpha_q8.div_ceil(256),
                base_rtt_ps: c.config().base_rtt.saturating_mul(1000),
                inflight: tx.inflight(),
                mtu: u64::from(self.mtu),
            }),
            _ => None,
        }
    }

    /// Flow `f`'s sender as Wormhole's steady detector and skip see it (`None` before it
    /// opens or after it completed): wire packets sent (data, parity, retransmissions: the
    /// rate's unit), losses (NACKs and timeouts), ECN-marked ACKs, and the wire packets of
    /// the units a fast-forward may take.
    pub(crate) fn skip_view(&self, f: u32) -> Option<crate::transport::skip::SkipView> {
        let tx = self.tx[f as usize].as_deref()?;
        Some(crate::transport::skip::SkipView {
            sent: tx.stats.packets_sent,
            losses: tx.stats.nacks + tx.stats.timeouts,
            settled: tx.stats.settled,
            ecn: tx.stats.ecn_acks,
            newest: None,
            skippable: tx.skippable_wire(),
        })
    }

    /// Wormhole fast-forward of flow `f` (Wormhole 5.3 / 6.2): `wire` wire packets sent at
    /// the estimated rate while its partition was skipped come off its message as whole
    /// units, the same units at its sender ([`UnoTx::fast_forward`]) and its receiver
    /// ([`rx::UnoRx::fast_forward`]). Returns the wire packets and the data packets taken.
    pub(crate) fn fast_forward(&mut self, f: u32, wire: u64) -> (u64, u32) {
        let Some(tx) = self.tx[f as usize].as_deref_mut() else {
            return (0, 0);
        };
        let before = tx.data_delivered_with_skipped();
        let k = tx.fast_forward(wire);
        let taken = u64::from(k) * u64::from(tx.stride());
        let data = tx.data_delivered_with_skipped() - before;
        if let Some(rx) = self.rx[f as usize].as_deref_mut() {
            rx.fast_forward(k);
        }
        (taken, data)
    }

    /// Flow `f`'s UnoCC window as `wire` unmarked ACKs of `mtu` bytes over `skipped_ps`
    /// leave it ([`nic::uno::cc::UnoCc::fast_forward_unmarked`], one unmarked epoch per
    /// epoch period): a fast-forward of a window growing above its BDP
    /// (`engine/skip/uno_drift.rs`). Nothing for another CC.
    pub(crate) fn fast_forward_unmarked(&mut self, f: u32, wire: u64, skipped_ps: u64) {
        let mtu = u64::from(self.mtu);
        if let Some(FlowCc::Uno(c)) = self.tx[f as usize].as_deref_mut().map(|t| &mut t.cc) {
            let epochs = skipped_ps / c.config().epoch_period.saturating_mul(1000).max(1);
            c.fast_forward_unmarked(wire.saturating_mul(mtu), epochs);
        }
    }

    /// The data packets [`UnoState::fast_forward`]`(f, wire)` would take now, without
    /// taking them ([`UnoTx::fast_forward_data`]).
    pub(crate) fn fast_forward_data(&self, f: u32, wire: u64) -> u32 {
        self.tx[f as usize]
            .as_deref()
            .map_or(0, |tx| tx.fast_forward_data(wire))
    }

    /// Move every absolute time (ps) of flows `flows`' senders and receivers `delta` ps
    /// later (Wormhole 6.2, a skipped partition resumed): send times, timeout FIFO, block
    /// timers, last arrival. Their congestion control, pacers and UnoLB count cycles of
    /// the flows' clocks, shifted with the flows.
    pub(crate) fn shift_flows(&mut self, flows: &[u32], delta: u64) {
        for &f in flows {
            if let Some(tx) = self.tx[f as usize].as_deref_mut() {
                tx.shift(delta);
            }
            if let Some(rx) = self.rx[f as usize].as_deref_mut() {
                rx.shift(delta);
            }
        }
    }

    /// Blocks decoded so far (all flows).
    pub fn blocks_decoded(&self) -> u64 {
        self.totals.rx.decoded
            + self
                .rx
                .iter()
                .flatten()
                .map(|r| r.stats.decoded)
                .sum::<u64>()
    }
}

/// Flow `f` as the Uno handlers take it up: the simulated time, that time in the flow's NIC
/// cycles, the flow and the Uno state (`None` outside a Uno run).
#[inline]
pub(super) fn flow_state<'a>(
    cx: &'a mut Cx,
    f: u32,
) -> Option<(Time, Cycles, &'a mut FlowRt, &'a mut UnoState)> {
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(now);
    let TransportDriver::Uno(st) = p.transport else {
        return None;
    };
    Some((now, now_c, flow, st))
}

/// The Uno state of a Uno run.
#[inline]
pub(super) fn uno(t: &mut TransportDriver) -> &mut UnoState {
    match t {
        TransportDriver::Uno(u) => u,
        _ => unreachable!("Uno transport calls run only in Uno runs"),
    }
}
