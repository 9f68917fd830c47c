//! The DCTCP-style host transport: the receiver (`SackReceiver`: ACK / NACK), the sender
//! (`DctcpSender` window, RTO timer, REPS failure detector), the host's round-robin pull of
//! DATA from its ready flows, and flow arrivals. Every function runs in the driver context
//! [`Cx`] (the engine is not reachable from here).

use super::ctx::Cx;
use super::TransportDriver;
use crate::engine::Cause;
use crate::event::Kind;
use crate::flow::{Cc, Conns, FlowRx, MprdmaSender, Sender, NO_CONN};
use crate::packet::{Packet, PktKind};
use nic::lb::LoadBalancer;
use nic::reps::LossVerdict;
use nic::transport::Ack;

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    match pk.kind {
        PktKind::Data | PktKind::Header => {
            let p = cx.parts();
            if pk.kind == PktKind::Data {
                p.c.data_delivered += 1;
            } else {
                p.c.headers_delivered += 1;
                p.c.ctrl_delivered += 1;
            }
            let FlowRx::Sack(rx) = &mut p.flows[f as usize].rx else {
                return;
            };
            // (reply: kind, cumulative ACK, ECN echo; metrics: new copy, cumulative point)
            let (reply, metric) = if pk.kind == PktKind::Data {
                let dups = rx.stats.duplicates;
                let r = rx
                    .on_data(pk.psn, pk.ecn, pk.ev)
                    .map(|a| (PktKind::Ack, a.cum_ack, a.ecn));
                let m = r.map(|(_, cum, _)| (rx.stats.duplicates == dups, cum));
                (r, m)
            } else {
                rx.on_trimmed(pk.psn, pk.ev);
                (Some((PktKind::Nack, 0, false)), None)
            };
            if let Some((new, cum)) = metric {
                cx.metrics_data(&pk, new, cum);
            }
            match reply {
                Some((kind, cum_ack, ecn)) => cx.reply(h, &pk, kind, pk.psn, cum_ack, ecn),
                None => {
                    // Beyond the receiver's window: discarded (counted as a drop).
                    cx.counters().data_delivered -= 1;
                    cx.drop_pkt(h, &pk, Cause::BeyondWindow);
                }
            }
        }
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            sender_ack(
                cx,
                f,
                Ack {
                    psn: pk.psn,
                    cum_ack: pk.cum_ack,
                    ecn: pk.ecn,
                    ev: pk.ev,
                },
            );
        }
        PktKind::Nack => {
            cx.counters().ctrl_delivered += 1;
            let p = cx.parts();
            let flow = &mut p.flows[f as usize];
            let now_c = flow.clock.cycle_at(p.now);
            if let Some(cc) = &mut flow.cc {
                cc.sync(now_c);
                cc.on_nack(pk.psn);
                Conns::lb(&mut p.conns.lb, &mut flow.lb, flow.conn_lb).on_nack(now_c, pk.ev);
                after_sender_change(cx, f);
            }
        }
        // DCSIM packets exist only in DCSIM runs (its own driver).
        PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
        PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept => {}
    }
}

/// ACK `a` reached flow `f`'s sender.
fn sender_ack(cx: &mut Cx, f: u32, a: Ack) {
    let p = cx.parts();
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(p.now);
    let Some(cc) = &mut flow.cc else { return };
    cc.sync(now_c);
    if let Some(rtt) = cc.rtt_sample(&a) {
        flow.detector.on_rtt_sample(now_c, rtt);
        flow.srtt8 = crate::flow::srtt8_update(flow.srtt8, rtt);
    }
    let newly = cc.on_ack(&a);
    Conns::lb(&mut p.conns.lb, &mut flow.lb, flow.conn_lb).on_ack_psn(now_c, a.ev, a.ecn, a.psn);
    let done = cc.is_done();
    if done {
        flow.stats = cc.stats();
        // `transport.per_connection_cwnd`: the connection's next flow opens with this window.
        if flow.conn != NO_CONN {
            p.conns.cwnd[flow.conn as usize] = cc.cwnd();
        }
        let cc = flow.cc.take();
        if let TransportDriver::Dctcp(d) = p.transport {
            d.recycle(cc);
        }
    }
    if newly > 0 {
        cx.progress();
    }
    if done {
        cx.flow_done(f);
        return;
    }
    after_sender_change(cx, f);
}

/// After anything changed flow `f`'s sender: judge an RTO, put the flow in its host's
/// ready ring if it can send, (re)arm the flow's timer event, and kick the host port.
fn after_sender_change(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(p.now);
    let Some(cc) = &mut flow.cc else { return };
    if cc.take_timeout().is_some() {
        p.c.timeouts += 1;
        // REPS Appendix A (the nic FailureDetector): freeze REPS on a failure.
        if flow.on_timeout(now_c, &mut p.conns.lb) == LossVerdict::Failure {
            p.c.failure_detections += 1;
        }
    }
    let Some(cc) = &mut flow.cc else { return };
    let h = flow.spec.src;
    let sendable = cc.can_send_within(flow.lb.max_ooo_packets());
    let deadline = cc.timer_deadline();
    let arm = deadline.and_then(|d| flow.earlier_timer(flow.clock.start_of(d)));
    if sendable && !flow.in_ready {
        flow.in_ready = true;
        p.transport.ready(h).push_back(f);
    }
    if let Some(t) = arm {
        cx.arm(t, Kind::FlowTimer, f);
    }
    if sendable {
        cx.kick(h);
    }
}

/// The next DATA packet host `h` sends: round robin over its ready flows.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    loop {
        let p = cx.parts();
        let f = p.transport.ready(h).pop_front()?;
        let flow = &mut p.flows[f as usize];
        let now_c = flow.clock.cycle_at(p.now);
        let Some(cc) = &mut flow.cc else {
            flow.in_ready = false;
            continue;
        };
        cc.sync(now_c);
        // A chooser's out-of-order limit (MPRDMA's L) holds new PSNs back; without one the
        // sender alone decides (and counts its own stalls).
        let max_ooo = flow.lb.max_ooo_packets();
        let next = match max_ooo {
            Some(_) if !cc.can_send_within(max_ooo) => None,
            _ => cc.next_packet(),
        };
        let Some(tx) = next else {
            flow.in_ready = false;
            after_sender_change(cx, f);
            continue;
        };
        let ev =
            Conns::lb(&mut p.conns.lb, &mut flow.lb, flow.conn_lb).on_send(now_c, &mut flow.rng);
        if cc.can_send_within(max_ooo) {
            p.transport.ready(h).push_back(f);
        } else {
            flow.in_ready = false;
        }
        let pk = Packet::data(f, h, flow.spec.dst, tx.psn, tx.payload + p.hdr_bytes, ev);
        let deadline = cc.timer_deadline();
        let arm = deadline.and_then(|d| flow.earlier_timer(flow.clock.start_of(d)));
        p.c.data_sent += 1;
        if let Some(t) = arm {
            cx.arm(t, Kind::FlowTimer, f);
        }
        return Some(pk);
    }
}

/// Flow `f`'s timer event.
pub(crate) fn timer(cx: &mut Cx, f: u32) {
    let now = cx.now();
    let flow = cx.flow(f);
    let now_c = flow.clock.cycle_at(now);
    if !flow.take_timer(now) {
        return;
    }
    if let Some(cc) = &mut flow.cc {
        cc.sync(now_c);
        after_sender_change(cx, f);
    }
}

/// Flow `f` starts now: its DCTCP sender, or MPRDMA's variant of it
/// (`transport.cc = "mprdma"`).
pub(crate) fn open(cx: &mut Cx, f: u32, mprdma: bool) {
    let mut cfg = cx.cfg();
    let p = cx.parts();
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(p.now);
    // The flow's own initial window and RTO (`FlowBase`: the run's values inside a
    // datacenter, larger across two).
    cfg.init_cwnd = flow.base.init_cwnd;
    // `transport.per_connection_cwnd`: the window the connection's last flow ended with.
    if flow.conn != NO_CONN {
        let w = p.conns.cwnd[flow.conn as usize];
        if w > 0 {
            cfg.init_cwnd = w;
        }
    }
    cfg.rto = flow.base.rto_cycles;
    const CHECKED: &str = "configuration and message size checked at build";
    flow.cc = Some(if mprdma {
        Cc::Mprdma(Box::new(
            MprdmaSender::new(cfg, flow.spec.bytes, now_c).expect(CHECKED),
        ))
    } else {
        // A closed flow's sender, reset in place (equal to a new one), else a new one.
        let spare = match p.transport {
            TransportDriver::Dctcp(d) => d.spare.pop(),
            _ => None,
        };
        Cc::Dctcp(match spare {
            Some(mut s) => {
                s.reset(cfg, flow.spec.bytes, now_c).expect(CHECKED);
                s
            }
            None => Box::new(Sender::new(cfg, flow.spec.bytes, now_c).expect(CHECKED)),
        })
    });
    cx.progress();
    after_sender_change(cx, f);
}
