//! pHost's entry points for the engine: a packet reaching a host (RTS and DATA to the
//! receiver, tokens and DONE to the sender) and pHost's timers (`HostTimer`: a host's token
//! scheduler and waiting flows; `FlowTimer`: a flow's RTS re-send check).

use super::driver::{ctrl, ph};
use super::receiver::{rx_arm, rx_data, rx_rts, rx_sync};
use super::sender::{arm_flow, tx_admit, tx_done, tx_token};
use super::state::TxPhase;
use super::{DONE, RTS};
use crate::event::{Kind, NEVER};
use crate::packet::{Packet, PktKind};
use crate::transport::ctx::Cx;

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    match pk.kind {
        PktKind::Data => rx_data(cx, h, pk),
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            match pk.psn {
                RTS => rx_rts(cx, h, pk.flow),
                DONE => tx_done(cx, h, pk.flow),
                _ => tx_token(cx, h, pk),
            }
        }
        // No trimming under pHost (refused); nothing else is sent.
        PktKind::Header => {
            let c = cx.counters();
            c.headers_delivered += 1;
            c.ctrl_delivered += 1;
        }
        PktKind::Nack
        | PktKind::Sim
        | PktKind::SimAck
        | PktKind::DataAck
        | PktKind::PimRts
        | PktKind::PimGrant
        | PktKind::PimAccept => {}
    }
}

/// A timer of pHost: `HostTimer` (host `i`'s token scheduler, waiting flows) or
/// `FlowTimer` (flow `i`'s RTS re-send check).
pub(crate) fn timer(cx: &mut Cx, kind: Kind, i: u32) {
    let now = cx.now();
    match kind {
        Kind::HostTimer => {
            let hs = &mut ph(cx.parts().transport).hosts[i as usize];
            if hs.timer_at != now {
                return;
            }
            hs.timer_at = NEVER;
            rx_sync(cx, i);
            tx_admit(cx, i);
            rx_arm(cx, i);
        }
        Kind::FlowTimer => {
            let p = cx.parts();
            let flow = &mut p.flows[i as usize];
            if !flow.take_timer(now) {
                return;
            }
            let (h, dst) = (flow.spec.src, flow.spec.dst);
            let st = ph(p.transport);
            let fs = &mut st.flows[i as usize];
            if fs.tx != TxPhase::Open {
                return;
            }
            let hs = &mut st.hosts[h as usize];
            // Nothing more to send on its own: every packet sent, or no free token left.
            let idle = fs.sent_n == fs.pkts || hs.tx.flow(i).is_none_or(|e| e.free == 0);
            if idle && now >= fs.last_news + st.p.rts_timeout_ps {
                fs.last_news = now;
                st.k.rts_resent += 1;
                let rts = ctrl(flow, i, h, dst, RTS, fs.pkts, p.hdr_bytes);
                let at = now + st.p.rts_timeout_ps;
                cx.send_ctrl(h, rts);
                arm_flow(cx, i, at);
            } else {
                // Still sending on its own: look again a timeout later.
                let at = if idle {
                    (fs.last_news + st.p.rts_timeout_ps).max(now + 1)
                } else {
                    now + st.p.rts_timeout_ps
                };
                arm_flow(cx, i, at);
            }
        }
        _ => {}
    }
}
