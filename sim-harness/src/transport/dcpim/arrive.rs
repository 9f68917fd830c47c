//! A packet of dcPIM reaches a host: a DATA is ACKed (the token of dcPIM, modelled at the
//! sender: an answered DATA opens its channel's token window), a trimmed header NACKed, an
//! ACK or NACK drives the sender (selective resend), a matching packet goes to the rounds.

use super::matching::links_to;
use super::rounds::{arm_host, on_matching};
use super::state::{pim, DcpimState};
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
            let st = pim(p.transport);
            let fl = &mut st.flows[f as usize];
            let new = fl.on_data(pk.psn);
            let got = fl.n_rx;
            cx.metrics_data(&pk, new, got);
            cx.reply(h, &pk, PktKind::Ack, pk.psn, pk.cum_ack, pk.ecn);
        }
        PktKind::Header => {
            let c = cx.counters();
            c.headers_delivered += 1;
            c.ctrl_delivered += 1;
            cx.reply(h, &pk, PktKind::Nack, pk.psn, 0, false);
        }
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            on_ack(cx, h, pk);
        }
        PktKind::Nack => {
            let p = cx.parts();
            p.c.ctrl_delivered += 1;
            let dst = p.flows[f as usize].spec.dst;
            let st = pim(p.transport);
            let fl = &mut st.flows[f as usize];
            if fl.open && fl.on_nack(pk.psn) {
                if fl.scheduled {
                    answered(st, h, dst, 1);
                }
                resend_ready(cx, h, f);
            }
        }
        PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept => {
            cx.counters().ctrl_delivered += 1;
            on_matching(cx, h, pk);
        }
        PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
    }
}

/// Flow `f` (at host `h`) has packets to send again: an unscheduled flow back in its ring,
/// a scheduled one waits for a match (its host requests it).
pub(super) fn resend_ready(cx: &mut Cx, h: u32, f: u32) {
    let st = pim(cx.parts().transport);
    let fl = &mut st.flows[f as usize];
    let scheduled = fl.scheduled;
    if !scheduled && !fl.in_ring {
        fl.in_ring = true;
        st.hosts[h as usize].unsched.push_back(f);
    }
    let matched = !st.hosts[h as usize].cur_tx.is_empty();
    if scheduled {
        arm_host(cx, h, true);
    }
    if !scheduled || matched {
        cx.kick(h);
    }
}

/// An ACK reached flow `pk.flow`'s sender `h`.
fn on_ack(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    let st = pim(p.transport);
    let fl = &mut st.flows[f as usize];
    if !fl.open || !fl.on_ack(pk.psn) {
        return;
    }
    fl.progress_ps = now;
    // A token back: the receiver got a scheduled DATA (the window opens).
    let wake = fl.scheduled && {
        let dst = flow.spec.dst;
        answered(st, h, dst, 1);
        links_to(&st.hosts[h as usize].cur_tx, dst) > 0
    };
    let fl = &mut st.flows[f as usize];
    flow.lb.on_ack(flow.clock.cycle_at(now), pk.ev, pk.ecn);
    let done = fl.n_acked == fl.pkts;
    if done {
        fl.close();
        flow.stats.packets_sent = fl.tx;
        flow.stats.retransmits = fl.tx.saturating_sub(u64::from(fl.pkts));
        let hd = &mut st.hosts[h as usize];
        if let Some(i) = hd.sched.iter().position(|&g| g == f) {
            hd.sched.swap_remove(i);
        }
    }
    cx.progress();
    if wake {
        cx.kick(h);
    }
    if done {
        cx.flow_done(f);
    }
}

/// Scheduled DATAs of host `h` to `dst` answered (`n` tokens back): the window opens.
pub(super) fn answered(st: &mut DcpimState, h: u32, dst: u32, n: u32) {
    if let Some(pt) = st.hosts[h as usize].peers.get_mut(&dst) {
        pt.inflight = pt.inflight.saturating_sub(n);
    }
}
