//! pHost's source side (Gao et al. 2015, section 3; `nic::phost::PhostSender`): a flow opens
//! (RTS, then its first BDP on free tokens), tokens arrive and are held until spent or
//! expired, DONE closes the flow, and the NIC's pull sends a token's packet (SRPT over the
//! host's flows) else a free one.

use super::driver::{ctrl, ph};
use super::state::{bits, get, set, Held, TxPhase, TOKENS};
use super::{ON_TOKEN, RTS};
use crate::event::{Kind, Time};
use crate::packet::Packet;
use crate::transport::ctx::Cx;
use nic::lb::LoadBalancer;
use nic::phost::Token;

/// Flow `f` starts now: its sender opens (or waits for an entry).
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let h = p.flows[f as usize].spec.src;
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    fs.sent = bits(fs.pkts);
    fs.last_news = p.now;
    fs.tx = TxPhase::Waiting;
    st.hosts[h as usize].tx_wait.push(f);
    cx.progress();
    tx_admit(cx, h);
    let st = ph(cx.parts().transport);
    if st.flows[f as usize].tx == TxPhase::Waiting {
        st.k.tx_deferred += 1;
    }
}

/// Open waiting flows of host `h` while its sender has entries, fewest packets first:
/// each sends its RTS, its free packets start.
pub(super) fn tx_admit(cx: &mut Cx, h: u32) {
    loop {
        let p = cx.parts();
        let now = p.now;
        let st = ph(p.transport);
        let hs = &mut st.hosts[h as usize];
        let Some(i) = (0..hs.tx_wait.len()).min_by_key(|&i| {
            let f = hs.tx_wait[i];
            (st.flows[f as usize].pkts, f)
        }) else {
            break;
        };
        let f = hs.tx_wait[i];
        let fs = &mut st.flows[f as usize];
        hs.tx_sync(now);
        if hs.tx.open(f, fs.pkts, fs.free).is_err() {
            // No free entry: the flows wait for one.
            break;
        }
        hs.tx_wait.swap_remove(i);
        let _ = hs.tx.take_rts();
        fs.tx = TxPhase::Open;
        fs.last_news = now;
        st.k.rts_sent += 1;
        let hdr = p.hdr_bytes;
        let flow = &mut p.flows[f as usize];
        let rts = ctrl(flow, f, h, flow.spec.dst, RTS, fs.pkts, hdr);
        let at = now + st.p.rts_timeout_ps;
        cx.send_ctrl(h, rts);
        arm_flow(cx, f, at);
        cx.kick(h);
    }
}

/// Arm flow `f`'s timer (its sender's RTS re-send check) at `at`.
pub(super) fn arm_flow(cx: &mut Cx, f: u32, at: Time) {
    if let Some(at) = cx.flow(f).earlier_timer(at) {
        cx.arm(at, Kind::FlowTimer, f);
    }
}

/// A token reached flow `pk.flow`'s source `h`.
pub(super) fn tx_token(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    let p = cx.parts();
    let now = p.now;
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    if fs.tx != TxPhase::Open {
        st.k.tokens_late += 1;
        return;
    }
    fs.last_news = now;
    let hs = &mut st.hosts[h as usize];
    hs.tx_sync(now);
    // The expiry in ns, 32 bits: read relative to now (within +-2^31 ns).
    let now_ns = now / 1000;
    let d = i64::from(pk.cum_ack.wrapping_sub(now_ns as u32) as i32);
    let expiry = (now_ns as i64 + d).max(0) as u64 * 1000;
    let token = Token { flow: f, expiry };
    // Dead on arrival or no room: the block counts it.
    if expiry <= now || hs.held.len() >= TOKENS {
        hs.tx.on_token(token);
        return;
    }
    // A PSN sent before (lost, or its flow entry gone): one more packet to send.
    if (get(&fs.sent, pk.psn) || hs.tx.flow(f).is_none()) && hs.tx.add(f, 1).is_err() {
        st.k.tokens_no_entry += 1;
        return;
    }
    hs.tx.on_token(token);
    hs.held.push(Held {
        flow: f,
        expiry,
        psn: pk.psn,
    });
    cx.kick(h);
}

/// The DONE of flow `f` reached its source `h`: the flow is closed there.
pub(super) fn tx_done(cx: &mut Cx, h: u32, f: u32) {
    let p = cx.parts();
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    if fs.tx == TxPhase::Done {
        return;
    }
    fs.tx = TxPhase::Done;
    fs.sent = Vec::new();
    let flow = &mut p.flows[f as usize];
    flow.stats.packets_sent = fs.data_sent;
    flow.stats.retransmits = fs.resent;
    st.hosts[h as usize].tx.close(f);
    tx_admit(cx, h);
}

/// The next DATA host `h` sends: a token's packet (SRPT over its flows), else a free one.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    let p = cx.parts();
    let now = p.now;
    let st = ph(p.transport);
    let hs = &mut st.hosts[h as usize];
    hs.tx_sync(now);
    let mut admit = false;
    let (f, psn, free) = loop {
        let Some(tp) = hs.tx.next_packet() else {
            break (0, None, false);
        };
        let fs = &mut st.flows[tp.flow as usize];
        // pHost: no token outlives its expiry (the block dropped those at tx_sync).
        debug_assert!(
            tp.token_expiry.is_none_or(|e| e > now),
            "spent an expired token"
        );
        let psn = match tp.token_expiry {
            Some(e) => match hs
                .held
                .iter()
                .position(|t| t.flow == tp.flow && t.expiry == e)
            {
                Some(i) => Some(hs.held.swap_remove(i).psn),
                None => fs.next_free_psn(),
            },
            None => fs.next_free_psn(),
        };
        // An entry freed: a waiting flow opens from the host timer (not inside the pull).
        admit |= hs.tx.flow(tp.flow).is_none() && !hs.tx_wait.is_empty();
        if psn.is_some() {
            break (tp.flow, psn, tp.free);
        }
    };
    if admit && now < hs.timer_at {
        hs.timer_at = now;
    } else {
        admit = false;
    }
    let pk = psn.map(|psn| {
        let fs = &mut st.flows[f as usize];
        fs.hi_sent = fs.hi_sent.max(psn + 1);
        if set(&mut fs.sent, psn) {
            fs.sent_n += 1;
        } else {
            fs.resent += 1;
        }
        fs.data_sent += 1;
        fs.last_news = now;
        if free {
            st.k.free_data += 1;
        } else {
            st.k.token_data += 1;
        }
        let flow = &mut p.flows[f as usize];
        let payload = if psn + 1 == fs.pkts {
            fs.tail
        } else {
            st.p.mtu
        };
        let now_c = flow.clock.cycle_at(now);
        let ev = flow.lb.on_send(now_c, &mut flow.rng);
        p.c.data_sent += 1;
        let psn = psn | if free { 0 } else { ON_TOKEN };
        Packet::data(f, h, flow.spec.dst, psn, payload + p.hdr_bytes, ev)
    });
    if admit {
        cx.arm(now, Kind::HostTimer, h);
    }
    pk
}
