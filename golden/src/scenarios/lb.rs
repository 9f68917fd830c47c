//! Golden scenarios for the REPS evaluation's baseline load balancers (REPS section 4.1):
//! `nic::lb::{Plb, Flowlet, Mprdma, Mptcp, Bitmap}` and `switch::adaptive_routing`.
//!
//! * `lb_plb_flowbender`: PLB with FlowBender's parameters (repath after one round with more
//!   than 5 % of ACKs marked; 8 ACKs per round): clean rounds keep the EV, a congested round
//!   repaths at the next send, a failure detection repaths.
//! * `lb_flowlet_half_rtt`: flowlet switching with the timeout at RTT/2 (100 cycles of a
//!   200-cycle RTT): gaps up to the timeout keep the EV, longer gaps draw a new one.
//! * `lb_mprdma_pool`: MPRDMA's ACK-clocked VP pool: probes while empty, unmarked ACKs return
//!   their EV, marked and slow (PSN more than `delta` below `snd_ooh`) ones are dropped, a
//!   full pool overwrites its oldest entry.
//! * `lb_mptcp_subflows`: 8 subflows on fixed EVs, round robin then by subflow window (fewest
//!   packets in flight).
//! * `lb_bitmap_strack`: an 8-EV bitmap: a lap visits every EV, ECN / NACK mark EVs bad, sends
//!   skip them, the periodic clear forgets them, an all-bad bitmap still sends.
//! * `switch_adaptive_routing`: an 8-uplink switch picking the least-loaded up uplink, ties
//!   round robin, a failed uplink skipped, then random ties.
//! * `mprdma_dctcp_scripted`: the congestion control the baselines run on
//!   (`nic::transport::MprdmaDctcpSender`): a 24-packet message over a scripted zero-delay
//!   loop, four CE-marked packets each taking half an MTU off the window (the first one
//!   already), per-ACK additive increase, a trimmed packet costing one MTU and retransmitted.
//!   Signals: `op` ("ack" | "nack"), `psn`, `ecn`, `sent` (PSNs put on the wire after the
//!   event, retransmissions marked `r`), `cwnd`, `inflight`, `snd_una`, `done`.
//!
//! Signals (cycle = NIC or switch clock cycle of the event; events 10 cycles apart):
//!
//! ```text
//!  op                      string  "send" | "ack" | "nack" | "failure" | "occupancy" |
//!                                  "link" | "choose"                            (input)
//!  ack.ev, ack.ecn, ack.psn        the ACK's fields                             (input)
//!  ack.outcome             string  MPRDMA: "pooled" | "marked" | "slow"         (output)
//!  send.ev                 int     the DATA packet's EV                         (output)
//!  send.probe              bool    MPRDMA: a new random VP                       (output)
//!  send.new_flowlet        bool    flowlet: the gap exceeded the timeout         (output)
//!  send.subflow            int     MPTCP subflow                                 (output)
//!  send.skipped, send.all_bad      BitMap skip count / no good EV                (output)
//!  word                    string  the packed per-connection (per-switch) word, hex bytes
//!                                  in address order (layouts in the block's module doc)
//!  <register>              int/bool  decoded registers after the step
//!  ar.port, ar.bytes, ar.cands     adaptive routing inputs; ar.choice the chosen uplink
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use nic::lb::mprdma::MprdmaAck;
use nic::lb::{
    Bitmap, BitmapConfig, Flowlet, FlowletConfig, LoadBalancer, Mprdma, MprdmaConfig, Mptcp,
    MptcpConfig, Plb, PlbConfig, SubflowPick,
};
use nic::transport::{DctcpConfig, MprdmaDctcpSender, SackReceiver};
use rtl_models::Clocked;
use rtl_models::Lfsr32;
use serde_json::json;
use switch::adaptive_routing::{AdaptiveRouting8, ArConfig, TieBreak};

const DESC_PLB: &str = "Plb, FlowBender parameters (1 round > 5% marked, 8 ACKs per round): \
                        clean rounds keep the EV, a congested round and a failure repath";
const DESC_FLOWLET: &str = "Flowlet, timeout RTT/2 = 100 cycles: gaps <= 100 keep the EV, \
                            longer gaps start a new flowlet with a new random EV";
const DESC_MPRDMA: &str = "Mprdma (delta 32, L 64, 8-entry pool): probes, ACK-clocked reuse, \
                           marked and slow ACKs drop their VP, full pool overwrites oldest";
const DESC_MPTCP: &str = "Mptcp, 8 subflows on fixed EVs: round robin, then least packets in \
                          flight (subflow window)";
const DESC_BITMAP: &str = "Bitmap, 8 EVs, clear every 500 cycles: laps, ECN/NACK mark bad, \
                           skips, periodic clear, all-bad send";
const DESC_MPRDMA_CC: &str = "MprdmaDctcpSender<1>, 24 x 1000 B, init cwnd 8 MTU: CE-marked \
                              PSNs 2, 3, 4, 10 cut MTU/2 each, unmarked ACKs add MTU^2/cwnd, \
                              PSN 6 trimmed -> NACK -> -1 MTU -> retransmit, completion";
const DESC_AR: &str = "AdaptiveRouting8 (64-byte load units): least-loaded up uplink, round \
                       robin ties, failed uplink skipped, random ties";

/// Baseline load-balancer golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "lb_plb_flowbender",
            description: DESC_PLB,
            run: lb_plb_flowbender,
        },
        GoldenScenario {
            name: "lb_flowlet_half_rtt",
            description: DESC_FLOWLET,
            run: lb_flowlet_half_rtt,
        },
        GoldenScenario {
            name: "lb_mprdma_pool",
            description: DESC_MPRDMA,
            run: lb_mprdma_pool,
        },
        GoldenScenario {
            name: "lb_mptcp_subflows",
            description: DESC_MPTCP,
            run: lb_mptcp_subflows,
        },
        GoldenScenario {
            name: "lb_bitmap_strack",
            description: DESC_BITMAP,
            run: lb_bitmap_strack,
        },
        GoldenScenario {
            name: "switch_adaptive_routing",
            description: DESC_AR,
            run: switch_adaptive_routing,
        },
        GoldenScenario {
            name: "mprdma_dctcp_scripted",
            description: DESC_MPRDMA_CC,
            run: mprdma_dctcp_scripted,
        },
    ]
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn lb_plb_flowbender() -> Trace {
    let seed = 0x91B;
    let cfg = PlbConfig::flowbender(16, 8);
    let mut rec = Recorder::new(
        "Plb",
        json!({
            "evs_bits": cfg.evs_bits,
            "round_acks": cfg.round_acks,
            "ecn_threshold_q8": cfg.ecn_threshold_q8,
            "congested_rounds": cfg.congested_rounds,
            "rng": "Lfsr32",
        }),
        seed,
        DESC_PLB,
    );
    let mut rng = Lfsr32::new(seed as u32);
    let mut p = Plb::new(cfg, &mut rng).expect("valid PLB config");
    let mut now = 0u64;
    let state = |rec: &mut Recorder, t: u64, p: &Plb| {
        rec.record(t, "acks", p.acks() as u64);
        rec.record(t, "marked", p.marked() as u64);
        rec.record(t, "congested", p.congested() as u64);
        rec.record(t, "repath", p.repath_pending());
        rec.record(t, "word", hex(&p.pack()));
    };
    // Rounds: clean, one mark (12.5 % > 5 %: repath), clean, then a failure.
    for marks in [&[][..], &[5][..], &[][..]] {
        for k in 0..8u64 {
            now += 10;
            let ev = p.on_send(now, &mut rng);
            rec.record(now, "op", "send");
            rec.record(now, "send.ev", ev as u64);
            state(&mut rec, now, &p);
            now += 10;
            let ecn = marks.contains(&k);
            p.on_ack(now, ev, ecn);
            rec.record(now, "op", "ack");
            rec.record(now, "ack.ev", ev as u64);
            rec.record(now, "ack.ecn", ecn);
            state(&mut rec, now, &p);
        }
    }
    for op in ["send", "failure", "send", "send"] {
        now += 10;
        rec.record(now, "op", op);
        if op == "send" {
            let ev = p.on_send(now, &mut rng);
            rec.record(now, "send.ev", ev as u64);
        } else {
            p.on_failure_detection(now);
        }
        state(&mut rec, now, &p);
    }
    rec.finish()
}

fn lb_flowlet_half_rtt() -> Trace {
    let seed = 0xF10;
    let cfg = FlowletConfig::half_rtt(16, 200);
    let mut rec = Recorder::new(
        "Flowlet",
        json!({
            "evs_bits": cfg.evs_bits,
            "rtt_cycles": 200,
            "flowlet_timeout": cfg.flowlet_timeout,
            "rng": "Lfsr32",
        }),
        seed,
        DESC_FLOWLET,
    );
    let mut rng = Lfsr32::new(seed as u32);
    let mut f = Flowlet::new(cfg, &mut rng).expect("valid flowlet config");
    let mut now = 1_000u64;
    for gap in [
        0u64, 10, 10, 100, 101, 20, 99, 250, 10, 100, 100, 101, 5, 1_000,
    ] {
        now += gap;
        let new = f.gap_expired(now);
        let ev = f.on_send(now, &mut rng);
        rec.record(now, "op", "send");
        rec.record(now, "send.gap", gap);
        rec.record(now, "send.new_flowlet", new);
        rec.record(now, "send.ev", ev as u64);
        rec.record(now, "word", hex(&f.pack()));
        // ACKs and failures are ignored (congestion oblivious).
        f.on_ack(now, ev, true);
        f.on_failure_detection(now);
    }
    rec.finish()
}

fn lb_mprdma_pool() -> Trace {
    let seed = 0x3DA;
    let cfg = MprdmaConfig::paper(16);
    let mut rec = Recorder::new(
        "Mprdma",
        json!({
            "evs_bits": cfg.evs_bits,
            "delta": cfg.delta,
            "ooo_window": cfg.ooo_window,
            "pool": nic::lb::mprdma::POOL,
            "rng": "Lfsr32",
        }),
        seed,
        DESC_MPRDMA,
    );
    let mut rng = Lfsr32::new(seed as u32);
    let mut m = Mprdma::new(cfg).expect("valid MPRDMA config");
    let mut now = 0u64;
    let state = |rec: &mut Recorder, t: u64, m: &Mprdma| {
        rec.record(t, "count", m.count() as u64);
        rec.record(t, "head", m.head() as u64);
        if let Some(o) = m.snd_ooh() {
            rec.record(t, "snd_ooh", o as u64);
        }
        rec.record(t, "word", hex(&m.pack()));
    };
    let mut send = |rec: &mut Recorder, m: &mut Mprdma, now: &mut u64| -> u16 {
        *now += 10;
        let (ev, probe) = m.choose(&mut rng);
        rec.record(*now, "op", "send");
        rec.record(*now, "send.ev", ev as u64);
        rec.record(*now, "send.probe", probe);
        state(rec, *now, m);
        ev
    };
    let ack = |rec: &mut Recorder, m: &mut Mprdma, now: &mut u64, ev: u16, ecn: bool, psn: u32| {
        *now += 10;
        let r = m.observe_ack(ev, ecn, Some(psn));
        rec.record(*now, "op", "ack");
        rec.record(*now, "ack.ev", ev as u64);
        rec.record(*now, "ack.ecn", ecn);
        rec.record(*now, "ack.psn", psn as u64);
        rec.record(*now, "ack.outcome", r.name());
        if let MprdmaAck::Pooled { evicted } = r {
            rec.record(*now, "ack.evicted", evicted);
        }
        state(rec, *now, m);
    };
    // Start-up: four probes.
    let evs: Vec<u16> = (0..4).map(|_| send(&mut rec, &mut m, &mut now)).collect();
    // ACKs: in order, one marked, then PSN 100 pushes snd_ooh so PSN 3 is slow (97 > 32).
    ack(&mut rec, &mut m, &mut now, evs[0], false, 0);
    ack(&mut rec, &mut m, &mut now, evs[1], true, 1);
    ack(&mut rec, &mut m, &mut now, evs[2], false, 100);
    ack(&mut rec, &mut m, &mut now, evs[3], false, 3);
    // Reuse in ACK order, then the empty pool probes.
    for _ in 0..3 {
        send(&mut rec, &mut m, &mut now);
    }
    // Ten unmarked ACKs fill the 8-entry pool and overwrite the two oldest.
    for k in 0..10u16 {
        ack(&mut rec, &mut m, &mut now, 0x100 + k, false, 101 + k as u32);
    }
    for _ in 0..9 {
        send(&mut rec, &mut m, &mut now);
    }
    rec.finish()
}

fn lb_mptcp_subflows() -> Trace {
    let seed = 0x8F;
    let mut rec = Recorder::new(
        "Mptcp",
        json!({
            "evs_bits": 16,
            "subflows": nic::lb::mptcp::SUBFLOWS,
            "pick": ["round_robin (rr.*)", "least_inflight (win.*)"],
            "rng": "Lfsr32 (setup draws: rr subflows 0..7, then win subflows 0..7)",
        }),
        seed,
        DESC_MPTCP,
    );
    let mut rng = Lfsr32::new(seed as u32);
    let mut rr = Mptcp::new(
        MptcpConfig {
            evs_bits: 16,
            pick: SubflowPick::RoundRobin,
        },
        &mut rng,
    )
    .expect("valid MPTCP config");
    let mut win = Mptcp::new(
        MptcpConfig {
            evs_bits: 16,
            pick: SubflowPick::LeastInflight,
        },
        &mut rng,
    )
    .expect("valid MPTCP config");
    for (k, e) in rr.evs().iter().enumerate() {
        rec.record(0, &format!("rr.subflow{k}.ev"), *e as u64);
    }
    for (k, e) in win.evs().iter().enumerate() {
        rec.record(0, &format!("win.subflow{k}.ev"), *e as u64);
    }
    let mut now = 0u64;
    for (name, m) in [("rr", &mut rr), ("win", &mut win)] {
        let evs = m.evs();
        let mut step = |m: &mut Mptcp, op: &str, ev: Option<u16>| {
            now += 10;
            rec.record(now, &format!("{name}.op"), op);
            match op {
                "send" => {
                    let (k, ev) = m.pick();
                    rec.record(now, &format!("{name}.send.subflow"), k as u64);
                    rec.record(now, &format!("{name}.send.ev"), ev as u64);
                }
                "ack" => {
                    let ev = ev.unwrap_or(0);
                    rec.record(now, &format!("{name}.ack.ev"), ev as u64);
                    m.on_ack(now, ev, false);
                }
                _ => {
                    let ev = ev.unwrap_or(0);
                    rec.record(now, &format!("{name}.nack.ev"), ev as u64);
                    m.on_nack(now, ev);
                }
            }
            let f = m.inflight();
            rec.record(now, &format!("{name}.inflight"), json!(f));
            rec.record(now, &format!("{name}.rr"), m.rr() as u64);
            rec.record(now, &format!("{name}.word"), hex(&m.pack()));
        };
        for _ in 0..12 {
            step(m, "send", None);
        }
        step(m, "ack", Some(evs[3]));
        step(m, "ack", Some(evs[3]));
        step(m, "nack", Some(evs[6]));
        step(m, "ack", Some(evs[0]));
        for _ in 0..6 {
            step(m, "send", None);
        }
    }
    rec.finish()
}

fn lb_bitmap_strack() -> Trace {
    let seed = 0xB17;
    let cfg = BitmapConfig {
        paths_log2: 3,
        clear_period: 500,
    };
    let mut rec = Recorder::new(
        "Bitmap",
        json!({
            "paths_log2": cfg.paths_log2,
            "clear_period": cfg.clear_period,
            "rng": "Lfsr32 (one draw at setup, one per lap)",
        }),
        seed,
        DESC_BITMAP,
    );
    let mut rng = Lfsr32::new(seed as u32);
    let mut b = Bitmap::new(cfg, 0, &mut rng).expect("valid BitMap config");
    let mut now = 0u64;
    let state = |rec: &mut Recorder, t: u64, b: &Bitmap| {
        rec.record(t, "bad", b.bad());
        rec.record(t, "idx", b.idx() as u64);
        rec.record(t, "xor", b.xor() as u64);
        rec.record(t, "next_clear", b.next_clear() as u64);
        rec.record(t, "word", hex(&b.pack()));
    };
    let mut send = |rec: &mut Recorder, b: &mut Bitmap, now: u64| -> u16 {
        let s = b.choose(now, &mut rng);
        rec.record(now, "op", "send");
        rec.record(now, "send.ev", s.ev as u64);
        rec.record(now, "send.skipped", s.skipped as u64);
        rec.record(now, "send.all_bad", s.all_bad);
        state(rec, now, b);
        s.ev
    };
    // One lap, the ACKs of its first four packets (two marked), a NACK.
    let mut sent = Vec::new();
    for _ in 0..8 {
        now += 10;
        sent.push(send(&mut rec, &mut b, now));
    }
    for (k, &ev) in sent.iter().take(4).enumerate() {
        now += 10;
        let ecn = k % 2 == 1;
        b.on_ack(now, ev, ecn);
        rec.record(now, "op", "ack");
        rec.record(now, "ack.ev", ev as u64);
        rec.record(now, "ack.ecn", ecn);
        state(&mut rec, now, &b);
    }
    now += 10;
    b.on_nack(now, sent[6]);
    rec.record(now, "op", "nack");
    rec.record(now, "ack.ev", sent[6] as u64);
    state(&mut rec, now, &b);
    // Ten sends skip the three bad EVs.
    for _ in 0..10 {
        now += 10;
        send(&mut rec, &mut b, now);
    }
    // Mark everything bad: the send still goes out, flagged.
    for ev in 0..8u16 {
        now += 10;
        b.on_ack(now, ev, true);
    }
    now += 10;
    send(&mut rec, &mut b, now);
    // The clear at cycle 500 forgets every mark.
    now = 500;
    send(&mut rec, &mut b, now);
    now += 10;
    send(&mut rec, &mut b, now);
    rec.finish()
}

fn switch_adaptive_routing() -> Trace {
    let seed = 0xA12;
    let mut rec = Recorder::new(
        "AdaptiveRouting8",
        json!({
            "uplinks": 8,
            "quantum_log2": 6,
            "tie_break": ["round_robin (phase 1-3)", "random (phase 4)"],
            "rng": "Lfsr32",
        }),
        seed,
        DESC_AR,
    );
    let mut rng = Lfsr32::new(seed as u32);
    let cfg = ArConfig {
        quantum_log2: 6,
        tie_break: TieBreak::RoundRobin,
    };
    let mut ar = AdaptiveRouting8::new(cfg).expect("valid AR config");
    let mut now = 0u64;
    let state = |rec: &mut Recorder, t: u64, ar: &AdaptiveRouting8| {
        rec.record(t, "loads", json!(ar.loads()));
        rec.record(t, "up", ar.up_mask());
        rec.record(t, "rr", ar.rr() as u64);
        rec.record(t, "word", hex(&ar.pack()));
    };
    let mut choose =
        |rec: &mut Recorder, ar: &mut AdaptiveRouting8, now: &mut u64, cands: u64, bytes: u32| {
            *now += 10;
            let c = ar.choose(cands, bytes, &mut rng);
            rec.record(*now, "op", "choose");
            rec.record(*now, "ar.cands", cands);
            rec.record(*now, "ar.bytes", bytes as u64);
            rec.record(*now, "ar.choice", c.map_or(json!(null), |p| json!(p)));
            state(rec, *now, ar);
        };
    // Phase 1: empty ports, ties round robin.
    for _ in 0..4 {
        choose(&mut rec, &mut ar, &mut now, 0xff, 4096);
    }
    // Phase 2: the ports report their occupancy; the least loaded wins.
    for (p, occ) in [(0, 40_000u64), (1, 8_192), (2, 0), (3, 12_288), (4, 4_096)] {
        now += 10;
        ar.set_occupancy(p, occ).expect("port in range");
        rec.record(now, "op", "occupancy");
        rec.record(now, "ar.port", p as u64);
        rec.record(now, "ar.bytes", occ);
        state(&mut rec, now, &ar);
    }
    for _ in 0..6 {
        choose(&mut rec, &mut ar, &mut now, 0xff, 4096);
    }
    // Phase 3: uplink 5 fails; candidates restricted to {4, 5, 6}.
    now += 10;
    ar.set_port_up(5, false).expect("port in range");
    rec.record(now, "op", "link");
    rec.record(now, "ar.port", 5u64);
    rec.record(now, "ar.up", false);
    state(&mut rec, now, &ar);
    for _ in 0..3 {
        choose(&mut rec, &mut ar, &mut now, 0x70, 4096);
    }
    choose(&mut rec, &mut ar, &mut now, 0x20, 4096);
    // Phase 4: random ties on a fresh engine.
    ar = AdaptiveRouting8::new(ArConfig {
        tie_break: TieBreak::Random,
        ..cfg
    })
    .expect("valid AR config");
    for _ in 0..8 {
        choose(&mut rec, &mut ar, &mut now, 0xff, 0);
    }
    rec.finish()
}

/// PSNs whose first transmission is CE-marked in `mprdma_dctcp_scripted`.
const CC_MARKED: [u32; 4] = [2, 3, 4, 10];
/// PSN whose first transmission is trimmed in `mprdma_dctcp_scripted`.
const CC_TRIMMED: u32 = 6;

fn mprdma_dctcp_scripted() -> Trace {
    let cfg = DctcpConfig {
        mtu: 1000,
        init_cwnd: 8_000,
        min_cwnd: 1_000,
        max_cwnd: 1 << 20,
        rto: 10_000,
        g_shift: 4,
        alpha_init: 0,
        slow_start: false,
    };
    let mut rec = Recorder::new(
        "MprdmaDctcpSender",
        json!({
            "mtu": cfg.mtu,
            "init_cwnd": cfg.init_cwnd,
            "min_cwnd": cfg.min_cwnd,
            "message_bytes": 24_000,
            "marked_psns": CC_MARKED,
            "trimmed_psn": CC_TRIMMED,
            "loop": "zero delay: one DATA reaches the receiver per event, in send order",
        }),
        0,
        DESC_MPRDMA_CC,
    );
    let mut s = MprdmaDctcpSender::<1>::new(cfg, 24_000, 0).expect("valid CC config");
    let mut rx = SackReceiver::<1>::new();
    let mut wire: std::collections::VecDeque<(u32, bool)> = Default::default();
    let mut now = 0u64;
    let fill = |s: &mut MprdmaDctcpSender<1>,
                wire: &mut std::collections::VecDeque<(u32, bool)>| {
        let mut sent = Vec::new();
        while let Some(p) = s.next_packet() {
            wire.push_back((p.psn, p.retx));
            sent.push(format!("{}{}", p.psn, if p.retx { "r" } else { "" }));
        }
        sent.join(",")
    };
    let sent = fill(&mut s, &mut wire);
    rec.record(now, "sent", sent);
    rec.record(now, "cwnd", s.cwnd() as u64);
    while let Some((psn, retx)) = wire.pop_front() {
        now += 10;
        s.advance(10);
        if psn == CC_TRIMMED && !retx {
            let n = rx.on_trimmed(psn, 0);
            s.on_nack(n.psn);
            rec.record(now, "op", "nack");
            rec.record(now, "psn", psn as u64);
        } else {
            let ecn = CC_MARKED.contains(&psn) && !retx;
            if let Some(a) = rx.on_data(psn, ecn, 0) {
                s.on_ack(&a);
            }
            rec.record(now, "op", "ack");
            rec.record(now, "psn", psn as u64);
            rec.record(now, "ecn", ecn);
        }
        let sent = fill(&mut s, &mut wire);
        if !sent.is_empty() {
            rec.record(now, "sent", sent);
        }
        rec.record(now, "cwnd", s.cwnd() as u64);
        rec.record(now, "inflight", s.inflight() as u64);
        rec.record(now, "snd_una", s.regs().snd_una as u64);
        if s.is_done() {
            rec.record(now, "done", true);
            break;
        }
    }
    rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn distinct(v: &[&Value]) -> usize {
        let mut s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        s.sort();
        s.dedup();
        s.len()
    }

    #[test]
    fn plb_repaths_once_per_congested_round_and_on_failure() {
        let t = lb_plb_flowbender();
        let evs = t.values("send.ev");
        // Rounds 1-2 share the first EV; round 3 starts a new one; the failure a third.
        assert_eq!(distinct(&evs[..16]), 1);
        assert_ne!(evs[16], evs[15]);
        assert_eq!(distinct(&evs[16..25]), 1);
        assert_ne!(evs[25], evs[24]);
        assert_eq!(distinct(&evs), 3);
    }

    #[test]
    fn flowlet_changes_ev_exactly_on_long_gaps() {
        let t = lb_flowlet_half_rtt();
        let gaps = t.values("send.gap");
        let new = t.values("send.new_flowlet");
        for (g, n) in gaps.iter().zip(&new) {
            assert_eq!(g.as_u64().unwrap() > 100, n.as_bool().unwrap(), "{g}");
        }
        assert_eq!(new.iter().filter(|n| n.as_bool().unwrap()).count(), 4);
    }

    #[test]
    fn mprdma_trace_has_every_outcome() {
        let t = lb_mprdma_pool();
        let out: Vec<&str> = t
            .values("ack.outcome")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for o in ["pooled", "marked", "slow"] {
            assert!(out.contains(&o), "{o}");
        }
        let evicted = t.values("ack.evicted");
        assert_eq!(evicted.iter().filter(|v| v.as_bool().unwrap()).count(), 2);
        let probes = t.values("send.probe");
        // 4 start-up probes, 2 reuses + 1 probe, 8 reuses + 1 probe.
        assert_eq!(probes.iter().filter(|v| v.as_bool().unwrap()).count(), 6);
    }

    #[test]
    fn mptcp_uses_only_its_eight_evs() {
        let t = lb_mptcp_subflows();
        let sub = t.values("rr.send.subflow");
        let want: Vec<u64> = (0..12).map(|i| i % 8).collect();
        let got: Vec<u64> = sub.iter().take(12).map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(got, want);
        // Window mode: in flight [2,2,2,2,1,1,1,1] after 12 sends (pointer at 4); the ACKs
        // of subflow 3 (two), the NACK of 6 and the ACK of 0 leave 3 and 6 empty: 6 first
        // (round-robin order from 4), then 3.
        let win: Vec<u64> = t
            .values("win.send.subflow")
            .iter()
            .skip(12)
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(&win[..2], &[6, 3]);
        assert!(distinct(&t.values("win.send.ev")) <= 8);
    }

    #[test]
    fn bitmap_never_sends_on_a_bad_ev_while_a_good_one_exists() {
        let t = lb_bitmap_strack();
        let all_bad: Vec<bool> = t
            .values("send.all_bad")
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        assert_eq!(all_bad.iter().filter(|b| **b).count(), 1);
        let skipped = t.values("send.skipped");
        assert!(skipped.iter().any(|v| v.as_u64().unwrap() > 0));
    }

    #[test]
    fn mprdma_cc_cuts_half_an_mtu_per_mark_and_completes() {
        let t = mprdma_dctcp_scripted();
        let cwnd: Vec<u64> = t
            .values("cwnd")
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let ops: Vec<&str> = t.values("op").iter().map(|v| v.as_str().unwrap()).collect();
        let ecn: Vec<bool> = t
            .values("ecn")
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        // cwnd[0] is the initial window; cwnd[k + 1] follows event k.
        assert_eq!(cwnd[0], 8_000);
        let mut acks = 0;
        for (k, op) in ops.iter().enumerate() {
            let (before, after) = (cwnd[k] as i64, cwnd[k + 1] as i64);
            if *op == "nack" {
                assert_eq!(after, before - 1_000);
            } else {
                if ecn[acks] {
                    assert_eq!(after, before - 500, "event {k}");
                } else {
                    assert!(after > before, "event {k}");
                }
                acks += 1;
            }
        }
        assert_eq!(ecn.iter().filter(|e| **e).count(), 4);
        assert_eq!(t.values("done"), vec![&json!(true)]);
        assert!(t
            .values("sent")
            .iter()
            .any(|v| v.as_str().unwrap().contains("6r")));
    }

    #[test]
    fn adaptive_routing_prefers_the_empty_port() {
        let t = switch_adaptive_routing();
        let c: Vec<Value> = t.values("ar.choice").into_iter().cloned().collect();
        assert_eq!(&c[..4], &[json!(0), json!(1), json!(2), json!(3)]);
        // After the occupancy reports, loads are [625,128,0,192,64,0,0,0] (64-byte units)
        // and the pointer is at 4: the empty ports tie and 5 comes first; the loaded ones
        // (0, 1, 3, 4) are not chosen while an empty one is left.
        assert_eq!(&c[4..8], &[json!(5), json!(6), json!(7), json!(2)]);
        assert_eq!(c[13], json!(null), "only the failed uplink was a candidate");
    }
}
