//! A packet of the Uno transports reaches a host (Uno 4.1-4.2): a DATA is ACKed (echoing its
//! send stamp for the RTT, with the delivered flag of its unit: UnoRC's block decode, 4.2), a
//! trimmed DATA is NACKed, an ACK drives UnoCC (Algorithm 1) and the load balancer (UnoLB,
//! Algorithm 2), a NACK retransmits its unit and reroutes the subflow.

use super::results::add_tx;
use super::send::{after_change, arm};
use super::state::{flow_state, uno};
use super::tx::DONE;
use crate::packet::{Packet, PktKind};
use crate::transport::ctx::Cx;
use nic::lb::LoadBalancer;

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    match pk.kind {
        PktKind::Data => {
            let p = cx.parts();
            p.c.data_delivered += 1;
            let st = uno(p.transport);
            let Some(rx) = st.rx[f as usize].as_deref_mut() else {
                return;
            };
            let o = rx.on_data(p.now, f, pk.psn, st.codec.as_ref());
            // (Data a Wormhole fast-forward took off the message count as delivered: the
            // collective metrics add them, `Sim::fast_forward_flow`.)
            let delivered = rx.data_done;
            cx.metrics_data(&pk, o.new, delivered);
            cx.reply(h, &pk, PktKind::Ack, o.ack_psn, pk.cum_ack, pk.ecn);
            arm(cx, f);
        }
        PktKind::Header => {
            // A trimmed DATA: NACK it (the sender retransmits a packet unit; a block
            // unit waits for its block timer).
            let c = cx.counters();
            c.headers_delivered += 1;
            c.ctrl_delivered += 1;
            cx.reply(h, &pk, PktKind::Nack, pk.psn & !DONE, 0, false);
        }
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            ack(cx, f, pk);
        }
        PktKind::Nack => {
            cx.counters().ctrl_delivered += 1;
            let Some((now, now_c, flow, st)) = flow_state(cx, f) else {
                return;
            };
            // A trimmed packet of a coded block is left to the block timer.
            if pk.psn & DONE == 0 && st.ec_for(f as usize) {
                return;
            }
            let Some(tx) = st.tx[f as usize].as_deref_mut() else {
                return;
            };
            let rtt_ps = st.params[f as usize].base_rtt_ps;
            if let Some(ev) = tx.on_nack(now_c, now, rtt_ps, pk.psn) {
                flow.lb.on_nack_or_timeout(now_c, ev, &mut flow.rng);
            }
            after_change(cx, f);
        }
        PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
        PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept => {}
    }
}

/// ACK `pk` reached flow `f`'s sender.
fn ack(cx: &mut Cx, f: u32, pk: Packet) {
    let Some((now, now_c, flow, st)) = flow_state(cx, f) else {
        return;
    };
    let Some(tx) = st.tx[f as usize].as_deref_mut() else {
        return;
    };
    let rtt_c = crate::metrics::since(pk.cum_ack, now) / crate::clock::NIC_PERIOD_PS;
    let r = tx.on_ack(now_c, pk.psn & !DONE, pk.psn & DONE != 0, pk.ecn, rtt_c);
    flow.lb.on_ack(now_c, pk.ev, pk.ecn);
    if r.flow_done {
        let tx = st.tx[f as usize].take().expect("sender present");
        add_tx(&mut st.totals.tx, &tx.stats);
        flow.stats = nic::transport::SenderStats {
            packets_sent: tx.stats.packets_sent,
            retransmits: tx.stats.retransmits,
            ecn_acks: tx.stats.ecn_acks,
            nacks: tx.stats.nacks,
            timeouts: tx.stats.timeouts,
            ..Default::default()
        };
        flow.in_ready = false;
    }
    if r.newly > 0 {
        cx.progress();
    }
    if r.flow_done {
        cx.flow_done(f);
        return;
    }
    after_change(cx, f);
}
