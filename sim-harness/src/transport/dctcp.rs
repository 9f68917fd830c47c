//! The DCTCP-style host transport: the receiver (`SackReceiver`: ACK / NACK), the sender
//! (`DctcpSender` window, RTO timer, REPS failure detector), the host's round-robin pull of
//! DATA from its ready flows, and flow arrivals.

use crate::engine::{Cause, Sim};
use crate::event::{Comp, Kind, NEVER};
use crate::flow::{Cc, FlowRx, MprdmaSender, Sender};
use crate::packet::{Packet, PktKind};
use nic::lb::LoadBalancer;
use nic::reps::LossVerdict;
use nic::transport::Ack;

impl Sim {
    /// A packet reached host `h`.
    pub(crate) fn dctcp_arrive(&mut self, h: u32, pk: Packet) {
        let f = pk.flow;
        match pk.kind {
            PktKind::Data | PktKind::Header => {
                if pk.kind == PktKind::Data {
                    self.c.data_delivered += 1;
                } else {
                    self.c.headers_delivered += 1;
                    self.c.ctrl_delivered += 1;
                }
                let flow = &mut self.flows[f as usize];
                let FlowRx::Sack(rx) = &mut flow.rx else {
                    return;
                };
                let reply = if pk.kind == PktKind::Data {
                    let dups = rx.stats.duplicates;
                    let r = rx
                        .on_data(pk.psn, pk.ecn, pk.ev)
                        .map(|a| (PktKind::Ack, a.cum_ack, a.ecn));
                    if let Some((_, cum, _)) = r {
                        let new = rx.stats.duplicates == dups;
                        self.metrics_data(&pk, new, cum);
                    }
                    r
                } else {
                    rx.on_trimmed(pk.psn, pk.ev);
                    Some((PktKind::Nack, 0, false))
                };
                match reply {
                    Some((kind, cum_ack, ecn)) => {
                        let reply = Packet {
                            flow: f,
                            src: h,
                            dst: pk.src,
                            psn: pk.psn,
                            cum_ack,
                            bytes: self.hdr_bytes,
                            ev: pk.ev,
                            kind,
                            ecn,
                        };
                        self.send_ctrl(h, reply);
                    }
                    None => {
                        // Beyond the receiver's window: discarded (counted as a drop).
                        self.c.data_delivered -= 1;
                        self.drop_pkt(h, &pk, Cause::BeyondWindow);
                    }
                }
            }
            PktKind::Ack => {
                self.c.ctrl_delivered += 1;
                self.sender_ack(
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
                self.c.ctrl_delivered += 1;
                let flow = &mut self.flows[f as usize];
                let now_c = flow.clock.cycle_at(self.now);
                if let Some(cc) = &mut flow.cc {
                    cc.sync(now_c);
                    cc.on_nack(pk.psn);
                    flow.lb.on_nack(now_c, pk.ev);
                    self.after_sender_change(f);
                }
            }
            // DCSIM packets exist only in DCSIM runs (its own driver).
            PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
        }
    }

    pub(crate) fn sender_ack(&mut self, f: u32, a: Ack) {
        let flow = &mut self.flows[f as usize];
        let now_c = flow.clock.cycle_at(self.now);
        let Some(cc) = &mut flow.cc else { return };
        cc.sync(now_c);
        if let Some(rtt) = cc.rtt_sample(&a) {
            flow.detector.on_rtt_sample(now_c, rtt);
        }
        let newly = cc.on_ack(&a);
        flow.lb.on_ack_psn(now_c, a.ev, a.ecn, a.psn);
        if newly > 0 {
            self.last_progress = self.now;
        }
        if cc.is_done() {
            flow.stats = cc.stats();
            flow.cc = None;
            flow.end_ps = self.now;
            self.flows_done += 1;
            return;
        }
        self.after_sender_change(f);
    }

    /// After anything changed flow `f`'s sender: judge an RTO, put the flow in its host's
    /// ready ring if it can send, kick the host port, and (re)arm the flow's timer event.
    pub(crate) fn after_sender_change(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let now_c = flow.clock.cycle_at(self.now);
        let Some(cc) = &mut flow.cc else { return };
        if cc.take_timeout().is_some() {
            self.c.timeouts += 1;
            // REPS Appendix A (the nic FailureDetector): freeze REPS on a failure.
            if flow.on_timeout(now_c) == LossVerdict::Failure {
                self.c.failure_detections += 1;
            }
        }
        let Some(cc) = &mut flow.cc else { return };
        let h = flow.spec.src;
        let sendable = cc.can_send_within(flow.lb.max_ooo_packets());
        if let Some(d) = cc.timer_deadline() {
            let t = flow.clock.start_of(d);
            if t < flow.timer_at {
                flow.timer_at = t;
                self.q.push(t, Comp::new(Kind::FlowTimer, f));
            }
        }
        if sendable {
            if !flow.in_ready {
                flow.in_ready = true;
                self.transport.ready(h).push_back(f);
            }
            self.kick(h);
        }
    }

    /// The next DATA packet host `h` sends: round robin over its ready flows.
    pub(crate) fn dctcp_pull(&mut self, h: u32) -> Option<Packet> {
        loop {
            let f = self.transport.ready(h).pop_front()?;
            let flow = &mut self.flows[f as usize];
            let now_c = flow.clock.cycle_at(self.now);
            let Some(cc) = &mut flow.cc else {
                flow.in_ready = false;
                continue;
            };
            cc.sync(now_c);
            let max_ooo = flow.lb.max_ooo_packets();
            // A chooser's out-of-order limit (MPRDMA's L) holds new PSNs back; without one
            // the sender alone decides (and counts its own stalls).
            let next = match max_ooo {
                Some(_) if !cc.can_send_within(max_ooo) => None,
                _ => cc.next_packet(),
            };
            let Some(tx) = next else {
                flow.in_ready = false;
                self.after_sender_change(f);
                continue;
            };
            let ev = flow.lb.on_send(now_c, &mut flow.rng);
            if cc.can_send_within(max_ooo) {
                self.transport.ready(h).push_back(f);
            } else {
                flow.in_ready = false;
            }
            let pk = Packet {
                flow: f,
                src: h,
                dst: flow.spec.dst,
                psn: tx.psn,
                cum_ack: 0,
                bytes: tx.payload + self.hdr_bytes,
                ev,
                kind: PktKind::Data,
                ecn: false,
            };
            if let Some(d) = cc.timer_deadline() {
                let t = flow.clock.start_of(d);
                if t < flow.timer_at {
                    flow.timer_at = t;
                    self.q.push(t, Comp::new(Kind::FlowTimer, f));
                }
            }
            self.c.data_sent += 1;
            return Some(pk);
        }
    }

    pub(crate) fn on_flow_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let now_c = flow.clock.cycle_at(self.now);
        if flow.timer_at != self.now {
            return;
        }
        flow.timer_at = NEVER;
        if let Some(cc) = &mut flow.cc {
            cc.sync(now_c);
            self.after_sender_change(f);
        }
    }

    /// Flow `f` starts now: its DCTCP sender, or MPRDMA's variant of it
    /// (`transport.cc = "mprdma"`).
    pub(crate) fn dctcp_open(&mut self, f: u32, mprdma: bool) {
        let flow = &mut self.flows[f as usize];
        let now_c = flow.clock.cycle_at(self.now);
        const CHECKED: &str = "configuration and message size checked at build";
        flow.cc = Some(if mprdma {
            Cc::Mprdma(Box::new(
                MprdmaSender::new(self.cfg, flow.spec.bytes, now_c).expect(CHECKED),
            ))
        } else {
            Cc::Dctcp(Box::new(
                Sender::new(self.cfg, flow.spec.bytes, now_c).expect(CHECKED),
            ))
        });
        self.last_progress = self.now;
        self.after_sender_change(f);
    }
}
