//! Sending in the Uno transports: each host's round robin over the flows that the window and
//! the pacer (UnoCC paces at cwnd / base RTT, Uno 4.1) let send, and each flow's one timer at
//! its earliest deadline: the pacer, the sender timeout, the receiver's block timers (UnoRC's
//! block NACKs, 4.2).

use super::state::flow_state;
use crate::event::{Kind, NEVER};
use crate::flow::Lb;
use crate::packet::{Packet, PktKind};
use crate::transport::ctx::Cx;
use crate::transport::TransportDriver;
use nic::lb::LoadBalancer;

/// After anything changed flow `f`'s sender: into its host's ready ring if it may send
/// now, and its timer armed.
pub(super) fn after_change(cx: &mut Cx, f: u32) {
    let Some((_, now_c, flow, st)) = flow_state(cx, f) else {
        return;
    };
    let h = flow.spec.src;
    let Some(tx) = st.tx[f as usize].as_deref() else {
        return;
    };
    if tx.can_send(now_c) {
        if !flow.in_ready {
            flow.in_ready = true;
            st.ready[h as usize].push_back(f);
        }
        cx.kick(h);
    }
    arm(cx, f);
}

/// Arm flow `f`'s timer at its earliest deadline: the pacer (when only it holds a
/// packet back), the sender timeout, the receiver's block timers.
pub(super) fn arm(cx: &mut Cx, f: u32) {
    let Some((now, now_c, flow, st)) = flow_state(cx, f) else {
        return;
    };
    let mut at = NEVER;
    if let Some(tx) = st.tx[f as usize].as_deref() {
        if let Some(c) = tx.pace_wait(now_c) {
            at = at.min(flow.clock.start_of(c));
        }
        if let Some(t) = tx.deadline_ps() {
            at = at.min(t);
        }
    }
    if let Some(t) = st.rx[f as usize].as_deref().and_then(|r| r.deadline_ps()) {
        at = at.min(t);
    }
    let at = at.max(now);
    // (`at < timer_at <= NEVER`: never NEVER.)
    if let Some(at) = flow.earlier_timer(at) {
        cx.arm(at, Kind::FlowTimer, f);
    }
}

/// Flow `f`'s timer: block timers (NACKs), sender timeouts, the pacer.
pub(crate) fn timer(cx: &mut Cx, f: u32) {
    let hdr = cx.hdr_bytes();
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    if !flow.take_timer(now) {
        return;
    }
    let now_c = flow.clock.cycle_at(now);
    let (dst, src) = (flow.spec.dst, flow.spec.src);
    let TransportDriver::Uno(st) = p.transport else {
        return;
    };
    let nacks = st.rx[f as usize]
        .as_deref_mut()
        .map(|r| r.on_timer(now))
        .unwrap_or_default();
    let mut timeouts = 0;
    if let Some(tx) = st.tx[f as usize].as_deref_mut() {
        let before = tx.stats.timeouts;
        for ev in tx.on_timer(now_c, now) {
            flow.lb.on_nack_or_timeout(now_c, ev, &mut flow.rng);
        }
        timeouts = tx.stats.timeouts - before;
        // A sender timeout is the failure signal of the other choosers: PLB repaths at once
        // on a timeout (PLB section 3, FlowBender 3.2), REPS enters freezing mode; ECMP and
        // OPS ignore it, UnoLB took it above.
        if timeouts > 0 && !matches!(flow.lb, Lb::Uno(_)) {
            flow.lb.on_failure_detection(now_c);
        }
    }
    p.c.timeouts += timeouts;
    for k in nacks {
        let nack = Packet {
            flow: f,
            src: dst,
            dst: src,
            psn: k,
            cum_ack: 0,
            bytes: hdr,
            ev: 0,
            kind: PktKind::Nack,
            ecn: false,
        };
        cx.send_ctrl(dst, nack);
    }
    after_change(cx, f);
}

/// The next DATA packet host `h` sends: round robin over its ready flows.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    loop {
        let p = cx.parts();
        let now = p.now;
        let TransportDriver::Uno(st) = p.transport else {
            return None;
        };
        let f = st.ready[h as usize].pop_front()?;
        let flow = &mut p.flows[f as usize];
        let now_c = flow.clock.cycle_at(now);
        let Some(tx) = st.tx[f as usize].as_deref_mut() else {
            flow.in_ready = false;
            continue;
        };
        if !tx.can_send(now_c) {
            flow.in_ready = false;
            arm(cx, f);
            continue;
        }
        let (lb, rng) = (&mut flow.lb, &mut flow.rng);
        let Some((wpn, payload, ev)) = tx.send(now_c, now, || lb.on_send(now_c, rng)) else {
            flow.in_ready = false;
            continue;
        };
        if tx.can_send(now_c) {
            st.ready[h as usize].push_back(f);
        } else {
            flow.in_ready = false;
        }
        let pk = Packet::data(f, h, flow.spec.dst, wpn, payload + p.hdr_bytes, ev);
        arm(cx, f);
        cx.counters().data_sent += 1;
        return Some(pk);
    }
}
