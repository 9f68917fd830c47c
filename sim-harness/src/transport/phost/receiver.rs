//! pHost's destination side (Gao et al. 2015, section 3; `nic::phost::PhostReceiver`): an
//! RTS registers its flow with the host's token scheduler, which hands out one token per MTU
//! time to the SRPT flow (naming its next missing PSN) and downgrades flows whose tokens go
//! unanswered; DATA is recorded and the flow's DONE sent when all is in.

use super::driver::{ctrl, ph, PhostState};
use super::state::{bits, set, RxWait};
use super::{DONE, ON_TOKEN};
use crate::event::Kind;
use crate::packet::Packet;
use crate::transport::ctx::Cx;

/// Bring host `h`'s token scheduler to now, event by event, sending each token it hands
/// out (naming the flow's next missing PSN).
pub(super) fn rx_sync(cx: &mut Cx, h: u32) {
    let mut out = {
        let p = cx.parts();
        let target = p.now + 1;
        let hdr = p.hdr_bytes;
        let st = ph(p.transport);
        let mut out = std::mem::take(&mut st.scratch);
        let rx = &mut st.hosts[h as usize].rx;
        let windowed = rx.config().window > 0;
        while rx.now() < target {
            let step = rx.quiet_cycles().saturating_add(1).min(target - rx.now());
            rtl_models::Clocked::advance(&mut **rx, step);
            let Some(t) = rx.take_token() else { continue };
            let fs = &mut st.flows[t.flow as usize];
            let Some(psn) = fs.next_token_psn() else {
                continue;
            };
            if windowed {
                fs.tok_issued += 1;
                if fs.tok_of.is_empty() {
                    fs.tok_of = vec![0; fs.pkts as usize];
                }
                fs.tok_of[psn as usize] = fs.tok_issued;
            }
            st.k.tokens_sent += 1;
            let flow = &mut p.flows[t.flow as usize];
            let ns = (t.expiry / 1000) as u32;
            out.push(ctrl(flow, t.flow, h, flow.spec.src, psn, ns, hdr));
        }
        out
    };
    for pk in out.drain(..) {
        cx.send_ctrl(h, pk);
    }
    ph(cx.parts().transport).scratch = out;
}

/// Arm host `h`'s timer at its token scheduler's next event.
pub(super) fn rx_arm(cx: &mut Cx, h: u32) {
    let p = cx.parts();
    let hs = &mut ph(p.transport).hosts[h as usize];
    let q = hs.rx.quiet_cycles();
    if q == u64::MAX {
        return;
    }
    let at = hs.rx.now().saturating_add(q).max(p.now);
    if at < hs.timer_at {
        hs.timer_at = at;
        cx.arm(at, Kind::HostTimer, h);
    }
}

/// Register a flow with host `h`'s token scheduler, or queue it if the table is full.
fn rx_register(st: &mut PhostState, h: u32, w: RxWait) {
    let (f, size, free) = w;
    let hs = &mut st.hosts[h as usize];
    if hs.rx.on_rts(f, size, free).is_err() {
        hs.rx_wait.push(w);
        st.flows[f as usize].rx_waiting = true;
        st.k.rx_deferred += 1;
    }
}

/// Register waiting flows while host `h`'s token scheduler has entries, fewest packets
/// to grant first.
fn rx_admit(st: &mut PhostState, h: u32) {
    let hs = &mut st.hosts[h as usize];
    while let Some(i) = (0..hs.rx_wait.len()).min_by_key(|&i| {
        let (f, size, free) = hs.rx_wait[i];
        (size - free.min(size), f)
    }) {
        let (f, size, free) = hs.rx_wait[i];
        if hs.rx.on_rts(f, size, free).is_err() {
            break;
        }
        hs.rx_wait.swap_remove(i);
        st.flows[f as usize].rx_waiting = false;
    }
}

/// An RTS of flow `f` reached its destination `h`.
pub(super) fn rx_rts(cx: &mut Cx, h: u32, f: u32) {
    rx_sync(cx, h);
    let p = cx.parts();
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    if fs.complete {
        // The DONE was lost (or crossed the RTS): again.
        let hdr = p.hdr_bytes;
        let flow = &mut p.flows[f as usize];
        let done = ctrl(flow, f, h, flow.spec.src, DONE, 0, hdr);
        cx.send_ctrl(h, done);
    } else if !fs.rts_seen {
        fs.rts_seen = true;
        if fs.got.is_empty() {
            fs.got = bits(fs.pkts);
        }
        fs.cursor = fs.free;
        let w = (f, fs.pkts, fs.free);
        rx_register(st, h, w);
    } else if !fs.rx_waiting && st.hosts[h as usize].rx.flow(f).is_none() {
        // Everything was granted, yet packets are missing: grant them again.
        let missing = fs.pkts - fs.received;
        fs.cursor = 0;
        fs.regranted = true;
        st.k.regrants += 1;
        rx_register(st, h, (f, missing, 0));
    }
    rx_arm(cx, h);
}

/// A DATA reached its destination `h`.
pub(super) fn rx_data(cx: &mut Cx, h: u32, pk: Packet) {
    rx_sync(cx, h);
    let f = pk.flow;
    let psn = pk.psn & !ON_TOKEN;
    let p = cx.parts();
    p.c.data_delivered += 1;
    let st = ph(p.transport);
    let hs = &mut st.hosts[h as usize];
    let fs = &mut st.flows[f as usize];
    if pk.psn & ON_TOKEN != 0 {
        hs.rx.on_data(f);
        if let Some(&n) = fs.tok_of.get(psn as usize) {
            // The window counts from the latest token answered (forgiving earlier ones).
            fs.tok_answered = fs.tok_answered.max(n);
            hs.rx.forgive(f, fs.tok_issued - fs.tok_answered);
        }
    }
    let (new, done) = if fs.complete {
        (false, false)
    } else {
        if fs.got.is_empty() {
            fs.got = bits(fs.pkts);
        }
        let new = set(&mut fs.got, psn);
        fs.received += u32::from(new);
        if new {
            hs.rx.on_received(f);
        }
        let done = fs.received == fs.pkts;
        if done {
            fs.complete = true;
            fs.got = Vec::new();
            hs.rx.remove(f);
        }
        (new, done)
    };
    if !new {
        st.k.duplicates += 1;
    }
    let received = fs.received;
    let (sent, resent) = (fs.data_sent, fs.resent);
    rx_admit(st, h);
    let mut clean = pk;
    clean.psn = psn;
    cx.metrics_data(&clean, new, received);
    if new {
        cx.progress();
    }
    if done {
        cx.flow_done(f);
        let hdr = cx.hdr_bytes();
        let flow = cx.flow(f);
        // The sender's numbers as they stand (it has sent every packet).
        flow.stats.packets_sent = sent;
        flow.stats.retransmits = resent;
        let dst = flow.spec.src;
        let done = ctrl(flow, f, h, dst, DONE, 0, hdr);
        cx.send_ctrl(h, done);
    }
    rx_arm(cx, h);
}
