//! Golden scenarios for the baseline transport and the oblivious entropy choosers
//! (`nic::transport::{DctcpSender, SackReceiver}`, REPS section 4.1; `nic::lb::{Ecmp, Ops}`,
//! REPS section 2.2).
//!
//! * `dctcp_sack_scripted`: one 40-packet message over a scripted two-way link: per-ACK
//!   additive window growth, CE-echoing ACKs cutting the window by `alpha / 2` once per
//!   window and alpha following the marked fraction, a delayed packet delivered out of order
//!   and acknowledged selectively (SACK), a trimmed packet answered by a NACK and retransmitted
//!   at once, a dropped packet recovered by the RTO, and completion.
//! * `lb_ecmp_ops_evs`: the EVs ECMP (one per flow, drawn at setup) and OPS (one per packet)
//!   choose from one seeded NIC LFSR, with 16-bit and 5-bit EV spaces.
//!
//! `dctcp_sack_scripted` signals (cycle = NIC clock cycle; at most one delivery per
//! direction and one send per cycle):
//!
//! ```text
//!  send.psn, send.retx       int, bool  DATA put on the wire
//!  rx.psn                    int        DATA (or trimmed header) reaching the receiver
//!  rx.kind                   string     "data" | "data_ce" | "trimmed"
//!  rx.cum_ack                int        receiver's cumulative ACK point after it
//!  rx.out_of_order           bool       the PSN was not the one expected
//!  ack.psn, ack.cum_ack, ack.ecn        ACK reaching the sender
//!  nack.psn                  int        NACK reaching the sender
//!  rto.lost                  int        packets an RTO expiry declared lost
//!  cwnd, alpha, snd_una, inflight       sender registers (bytes; alpha Q0.16), on change
//!  done                      bool       every packet acknowledged
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use nic::lb::{Ecmp, LoadBalancer, Ops};
use nic::transport::{DctcpConfig, DctcpSender, Psn, SackReceiver};
use rtl_models::{Clocked, Cycles, Lfsr32};
use serde_json::json;

const DESC_DCTCP: &str = "DctcpSender<1> + SackReceiver<1>, 40 x 1000 B (last 500 B), RTT 20 \
                          cycles, RTO 200: window growth, CE ACKs cut cwnd by alpha/2, \
                          out-of-order delivery + SACK, trim -> NACK -> retransmit, drop -> \
                          RTO -> retransmit, completion";
const DESC_LB: &str = "Ecmp (4 flows) and Ops from one Lfsr32 (seed 0xEC4F), 16-bit and \
                       5-bit EV spaces: ECMP fixed per flow, OPS fresh per packet";

/// Transport and entropy-chooser golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "dctcp_sack_scripted",
            description: DESC_DCTCP,
            run: dctcp_sack_scripted,
        },
        GoldenScenario {
            name: "lb_ecmp_ops_evs",
            description: DESC_LB,
            run: lb_ecmp_ops_evs,
        },
    ]
}

/// Parameters of `dctcp_sack_scripted`.
pub mod dctcp_params {
    /// Payload bytes per packet.
    pub const MTU: u32 = 1000;
    /// Message size: 39 full packets and a 500-byte last one.
    pub const MESSAGE_BYTES: u64 = 39 * MTU as u64 + 500;
    /// One-way delay of DATA and ACK, cycles.
    pub const DELAY: u64 = 10;
    /// Retransmission timeout, cycles.
    pub const RTO: u32 = 200;
    /// PSNs whose first transmission is CE-marked by the network.
    pub const CE_PSNS: [u32; 2] = [12, 13];
    /// PSN whose first transmission is delayed (delivered out of order).
    pub const LATE_PSN: u32 = 18;
    /// Extra delay of `LATE_PSN`, cycles.
    pub const LATE_EXTRA: u64 = 9;
    /// PSN whose first transmission is trimmed to a header (NACK).
    pub const TRIM_PSN: u32 = 22;
    /// PSN whose first transmission is dropped (RTO).
    pub const DROP_PSN: u32 = 27;
}

/// What the scripted network does to a DATA packet.
#[derive(Clone, Copy, PartialEq)]
enum Fate {
    Deliver { ce: bool, extra: u64 },
    Trim,
    Drop,
}

fn fate(psn: Psn, retx: bool) -> Fate {
    use dctcp_params::*;
    if retx {
        return Fate::Deliver {
            ce: false,
            extra: 0,
        };
    }
    match psn {
        p if p == TRIM_PSN => Fate::Trim,
        p if p == DROP_PSN => Fate::Drop,
        p if p == LATE_PSN => Fate::Deliver {
            ce: false,
            extra: LATE_EXTRA,
        },
        p => Fate::Deliver {
            ce: CE_PSNS.contains(&p),
            extra: 0,
        },
    }
}

/// A one-direction link: items become deliverable at their time, at most one per cycle,
/// earliest first (ties in send order).
struct Link<T> {
    q: Vec<(Cycles, u64, T)>,
    seq: u64,
}

impl<T: Copy> Link<T> {
    fn new() -> Self {
        Link {
            q: Vec::new(),
            seq: 0,
        }
    }
    fn send(&mut self, at: Cycles, item: T) {
        self.q.push((at, self.seq, item));
        self.seq += 1;
    }
    fn take(&mut self, now: Cycles) -> Option<T> {
        let i = (0..self.q.len())
            .filter(|&i| self.q[i].0 <= now)
            .min_by_key(|&i| (self.q[i].0, self.q[i].1))?;
        Some(self.q.remove(i).2)
    }
}

#[derive(Clone, Copy)]
enum Fwd {
    Data { psn: Psn, ce: bool },
    Trimmed { psn: Psn },
}

#[derive(Clone, Copy)]
enum Rev {
    Ack(nic::transport::Ack),
    Nack(Psn),
}

fn dctcp_sack_scripted() -> Trace {
    use dctcp_params::*;
    let cfg = DctcpConfig {
        mtu: MTU,
        init_cwnd: 4 * MTU,
        min_cwnd: MTU,
        max_cwnd: 32 * MTU,
        rto: RTO,
        g_shift: 4,
        alpha_init: nic::transport::dctcp::ALPHA_ONE,
        slow_start: false,
    };
    let mut rec = Recorder::new(
        "DctcpSender<1>+SackReceiver<1>",
        json!({
            "mtu": cfg.mtu,
            "init_cwnd": cfg.init_cwnd,
            "min_cwnd": cfg.min_cwnd,
            "max_cwnd": cfg.max_cwnd,
            "rto_cycles": cfg.rto,
            "g_shift": cfg.g_shift,
            "alpha_init_q16": cfg.alpha_init,
            "message_bytes": MESSAGE_BYTES,
            "one_way_delay_cycles": DELAY,
            "window_psns": DctcpSender::<1>::WINDOW,
            "script": {
                "ce_psns": CE_PSNS,
                "late_psn": LATE_PSN,
                "late_extra_cycles": LATE_EXTRA,
                "trim_psn": TRIM_PSN,
                "drop_psn": DROP_PSN,
                "retransmissions": "delivered unmarked",
            },
        }),
        0,
        DESC_DCTCP,
    );
    let mut s = DctcpSender::<1>::new(cfg, MESSAGE_BYTES, 0).expect("valid config");
    let mut r = SackReceiver::<1>::new();
    let mut fwd: Link<Fwd> = Link::new();
    let mut rev: Link<Rev> = Link::new();
    let mut last = [u64::MAX; 4];
    let mut regs = |rec: &mut Recorder, t: Cycles, s: &DctcpSender<1>| {
        let now = [
            s.cwnd() as u64,
            s.alpha() as u64,
            s.regs().snd_una as u64,
            s.inflight() as u64,
        ];
        for (i, name) in ["cwnd", "alpha", "snd_una", "inflight"].iter().enumerate() {
            if now[i] != last[i] {
                rec.record(t, name, now[i]);
            }
        }
        last = now;
    };
    regs(&mut rec, 0, &s);
    // Bounded: the script completes in well under 1000 cycles.
    while !s.is_done() && s.now() < 5_000 {
        let t = s.now();
        match rev.take(t) {
            Some(Rev::Ack(a)) => {
                rec.record(t, "ack.psn", a.psn);
                rec.record(t, "ack.cum_ack", a.cum_ack);
                rec.record(t, "ack.ecn", a.ecn);
                s.on_ack(&a);
            }
            Some(Rev::Nack(psn)) => {
                rec.record(t, "nack.psn", psn);
                s.on_nack(psn);
            }
            None => {}
        }
        match fwd.take(t) {
            Some(Fwd::Data { psn, ce }) => {
                let expected = r.cum_ack();
                rec.record(t, "rx.psn", psn);
                rec.record(t, "rx.kind", if ce { "data_ce" } else { "data" });
                if let Some(a) = r.on_data(psn, ce, 0) {
                    rev.send(t + DELAY, Rev::Ack(a));
                }
                rec.record(t, "rx.cum_ack", r.cum_ack());
                rec.record(t, "rx.out_of_order", psn != expected);
            }
            Some(Fwd::Trimmed { psn }) => {
                rec.record(t, "rx.psn", psn);
                rec.record(t, "rx.kind", "trimmed");
                let n = r.on_trimmed(psn, 0);
                rev.send(t + DELAY, Rev::Nack(n.psn));
            }
            None => {}
        }
        if let Some(p) = s.next_packet() {
            rec.record(t, "send.psn", p.psn);
            rec.record(t, "send.retx", p.retx);
            match fate(p.psn, p.retx) {
                Fate::Deliver { ce, extra } => {
                    fwd.send(t + DELAY + extra, Fwd::Data { psn: p.psn, ce })
                }
                Fate::Trim => fwd.send(t + DELAY, Fwd::Trimmed { psn: p.psn }),
                Fate::Drop => {}
            }
        }
        regs(&mut rec, t, &s);
        s.tick();
        if let Some(to) = s.take_timeout() {
            rec.record(to.at, "rto.lost", to.lost);
            regs(&mut rec, to.at, &s);
        }
    }
    rec.record(s.now(), "done", s.is_done());
    rec.finish()
}

/// Parameters of `lb_ecmp_ops_evs`.
pub mod lb_params {
    /// Seed of the NIC's shared LFSR.
    pub const SEED: u32 = 0xEC4F;
    /// ECMP flows per EV-space width.
    pub const FLOWS: usize = 4;
    /// Packets sent per flow / per sprayer.
    pub const PACKETS: u64 = 16;
}

/// One shared `Lfsr32` (seed 0xEC4F). At cycle 0 four ECMP flows with a 16-bit EVS and four
/// with a 5-bit EVS are set up (one draw each, in that order). Then for 16 cycles every
/// flow sends one packet (`ecmp16.flow<i>`, `ecmp5.flow<i>`: its EV, no draw) and one OPS
/// sprayer per width sends one packet (`ops16`, `ops5`: one draw each, 16-bit first).
fn lb_ecmp_ops_evs() -> Trace {
    use lb_params::*;
    let mut rec = Recorder::new(
        "Ecmp+Ops",
        json!({
            "rng": "Lfsr32 shared by every chooser",
            "evs_bits": [16, 5],
            "ecmp_flows_per_width": FLOWS,
            "packets": PACKETS,
            "draw_order": "setup: ecmp16 flows 0..3, ecmp5 flows 0..3; per cycle: ops16, ops5",
        }),
        SEED as u64,
        DESC_LB,
    );
    let mut rng = Lfsr32::new(SEED);
    let mut ecmp16: Vec<Ecmp> = (0..FLOWS).map(|_| Ecmp::new(16, &mut rng)).collect();
    let mut ecmp5: Vec<Ecmp> = (0..FLOWS).map(|_| Ecmp::new(5, &mut rng)).collect();
    let mut ops16 = Ops::new(16);
    let mut ops5 = Ops::new(5);
    for t in 0..PACKETS {
        for (i, f) in ecmp16.iter_mut().enumerate() {
            rec.record(t, &format!("ecmp16.flow{i}"), f.on_send(t, &mut rng));
        }
        for (i, f) in ecmp5.iter_mut().enumerate() {
            rec.record(t, &format!("ecmp5.flow{i}"), f.on_send(t, &mut rng));
        }
        rec.record(t, "ops16", ops16.on_send(t, &mut rng));
        rec.record(t, "ops5", ops5.on_send(t, &mut rng));
    }
    rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtl_models::RandomSource;
    use serde_json::Value;

    fn u(v: &Value) -> u64 {
        v.as_u64().unwrap()
    }

    fn last_before(t: &Trace, signal: &str, cycle: u64) -> u64 {
        t.series(signal)
            .iter()
            .rev()
            .find(|(c, _)| *c < cycle)
            .map(|(_, v)| u(v))
            .unwrap()
    }

    #[test]
    fn dctcp_trace_shows_growth_cut_sack_nack_rto_and_completion() {
        use dctcp_params::*;
        let t = dctcp_sack_scripted();
        let cwnd = t.series("cwnd");
        // Window growth before the first marked ACK.
        let acks_ecn = t.series("ack.ecn");
        let first_ce = acks_ecn
            .iter()
            .find(|(_, v)| v.as_bool() == Some(true))
            .map(|(c, _)| *c)
            .expect("a CE-echoing ACK arrives");
        let before = last_before(&t, "cwnd", first_ce);
        assert!(before > 4 * MTU as u64, "cwnd grew to {before}");
        // The first CE ACK cuts by cwnd * alpha / 2 (alpha read before the ACK).
        let alpha = last_before(&t, "alpha", first_ce);
        let after = cwnd
            .iter()
            .find(|(c, _)| *c == first_ce)
            .map(|(_, v)| u(v))
            .expect("cwnd changes on the CE ACK");
        assert!(after < before);
        assert_eq!(after, before - ((before * alpha) >> 17));
        // Every window decrease on an ACK is a DCTCP cut on a CE-echoing ACK (or an MTU per
        // loss on a NACK / RTO), never on a clean ACK.
        let ce_cycles: Vec<u64> = acks_ecn
            .iter()
            .filter(|(_, v)| v.as_bool() == Some(true))
            .map(|(c, _)| *c)
            .collect();
        assert_eq!(ce_cycles.len(), CE_PSNS.len());
        let loss_cycles: Vec<u64> = t
            .series("nack.psn")
            .iter()
            .chain(t.series("rto.lost").iter())
            .map(|(c, _)| *c)
            .collect();
        for w in cwnd.windows(2) {
            let (c, now, prev) = (w[1].0, u(w[1].1), u(w[0].1));
            if now < prev {
                if ce_cycles.contains(&c) {
                    let alpha = last_before(&t, "alpha", c);
                    assert_eq!(now, prev - ((prev * alpha) >> 17), "cut at {c}");
                } else {
                    assert!(loss_cycles.contains(&c), "window shrank at {c}");
                    assert_eq!(now, prev - MTU as u64, "one MTU per loss at {c}");
                }
            }
        }
        // Alpha starts at 1.0 and decays in unmarked windows.
        let alphas = t.series("alpha");
        assert_eq!(u(alphas[0].1), 65536);
        assert!(alphas.len() >= 2 && u(alphas[1].1) < 65536);

        // Out-of-order delivery acknowledged selectively: an ACK above the cum point.
        let ooo: Vec<u64> = t
            .series("rx.out_of_order")
            .iter()
            .filter(|(_, v)| v.as_bool() == Some(true))
            .map(|(c, _)| *c)
            .collect();
        assert!(!ooo.is_empty());
        assert!(t.series("ack.psn").iter().any(|(c, p)| {
            let cum = t
                .series("ack.cum_ack")
                .iter()
                .find(|(cc, _)| cc == c)
                .map(|(_, v)| u(v))
                .unwrap();
            u(p) >= cum
        }));

        // Trim -> NACK -> the very next send is the retransmission.
        let sends: Vec<(u64, u64, bool)> = t
            .series("send.psn")
            .iter()
            .zip(t.series("send.retx"))
            .map(|((c, p), (_, r))| (*c, u(p), r.as_bool().unwrap()))
            .collect();
        let nack = t.series("nack.psn");
        assert_eq!(nack.len(), 1);
        assert_eq!(u(nack[0].1), TRIM_PSN as u64);
        let next = sends.iter().find(|s| s.0 >= nack[0].0).unwrap();
        assert_eq!((next.1, next.2), (TRIM_PSN as u64, true));
        assert!(next.0 - nack[0].0 <= 1, "retransmitted at once");

        // Drop -> RTO -> retransmission, not before the timeout.
        let rto = t.series("rto.lost");
        assert!(!rto.is_empty());
        let first_send = sends.iter().find(|s| s.1 == DROP_PSN as u64).unwrap();
        let retx = sends
            .iter()
            .find(|s| s.1 == DROP_PSN as u64 && s.2)
            .expect("dropped PSN retransmitted");
        let rto_at = rto[0].0;
        assert!(rto_at >= first_send.0 + RTO as u64);
        assert!(retx.0 >= rto_at);
        assert_eq!(
            sends.iter().filter(|s| s.2).count(),
            2,
            "two retransmissions"
        );

        // Completion: the receiver's cum ack covers the message.
        let done = t.series("done");
        assert_eq!(done.last().unwrap().1.as_bool(), Some(true));
        let rx_cum = t.series("rx.cum_ack");
        assert_eq!(u(rx_cum.last().unwrap().1), 40);
    }

    #[test]
    fn lb_trace_is_the_lfsr_bit_for_bit() {
        use lb_params::*;
        let t = lb_ecmp_ops_evs();
        let mut rng = Lfsr32::new(SEED);
        let setup: Vec<u32> = (0..2 * FLOWS).map(|_| rng.next_u32()).collect();
        for i in 0..FLOWS {
            let e16 = t.series(&format!("ecmp16.flow{i}"));
            let e5 = t.series(&format!("ecmp5.flow{i}"));
            assert_eq!(e16.len() as u64, PACKETS);
            assert!(e16.iter().all(|(_, v)| u(v) == (setup[i] & 0xFFFF) as u64));
            assert!(e5
                .iter()
                .all(|(_, v)| u(v) == (setup[FLOWS + i] & 31) as u64));
        }
        let o16 = t.series("ops16");
        let o5 = t.series("ops5");
        for k in 0..PACKETS as usize {
            assert_eq!(u(o16[k].1), (rng.next_u32() & 0xFFFF) as u64);
            assert_eq!(u(o5[k].1), (rng.next_u32() & 31) as u64);
        }
        // OPS sprays: many distinct EVs, ECMP one per flow.
        let mut d: Vec<u64> = o5.iter().map(|(_, v)| u(v)).collect();
        d.sort();
        d.dedup();
        assert!(d.len() >= 8, "{d:?}");
        assert!(o16.iter().any(|(_, v)| u(v) > 31));
    }
}
