//! Golden scenarios for Uno's blocks (`nic::uno`, the phantom-marking switch port).
//!
//! * `uno_cc_scripted`: one UnoCC flow (intra-DC, 100 Gb/s at 1 GHz, RTT 14 us, BDP 175 kB)
//!   driven by a scripted ACK sequence through every branch of Algorithm 1: AI on unmarked
//!   ACKs, an epoch with marks and queueing delay (full MD), epochs with marks but no delay
//!   (gentle MD, `MD_scale` 0.3 then 0.09), a physical-queue epoch resetting `MD_scale`,
//!   then an ACK drought firing Quick Adapt and the held RTT.
//! * `uno_phantom_port`: `OutputPortCtl` with Uno's phantom queue (drain 0.9 x line, RED at
//!   25 % / 75 % of the phantom cap) marking on both queues: a burst overflowing the
//!   physical buffer (drops count in full in the phantom), then line-rate arrivals that keep
//!   the physical queue empty while phantom marking ramps to 100 %.
//! * `uno_ec_block`: UnoRC's (8, 2) Reed-Solomon blocks: block 0 loses 2 packets and is
//!   decoded from the other 8; block 1 loses 3, the receiver's timer NACKs it, the sender
//!   resends the whole block and it decodes.
//!
//! Signals:
//!
//! ```text
//!  uno_cc_scripted (cycle = ACK arrival)
//!   phase                   string  part of the script
//!   ack.bytes, ack.ecn, ack.rtt   input
//!   ai, epoch_end, md, gentle, qa bool    what Algorithm 1 did
//!   cwnd                    int     bytes;  md_scale_q15, ecn_ewma_q15, md_ecn_q15  Q1.15
//!   word                    string  the 42-byte packed UnoCC word, hex
//!  uno_phantom_port (cycle = port cycle)
//!   arrive.bytes            int     input
//!   physical_before, phantom_before  int  occupancies seen by the packet (bytes)
//!   verdict                 string  "enqueue" | "mark" | "drop"
//!   phantom_bytes, queue_bytes       int  after the packet
//!  uno_ec_block (cycle = NIC cycle)
//!   send.block, send.index, send.parity, send.retransmit, send.payload (hex)
//!   lost                    int     packet index dropped by the script
//!   rx.verdict              string  "pending" | "decodable" | "ignored"
//!   decode                  string  "ok" (payloads checked) | error
//!   nack                    int     block NACKed by the receiver timer
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use nic::uno::ec::{BlockCodec, Payload};
use nic::uno::rc::RxVerdict;
use nic::uno::{RcReceiver, RcSender, UnoCc, UnoCcConfig, UnoRcConfig};
use rtl_models::{Cycles, Lfsr32, Rate};
use serde_json::json;
use switch::output_port::{Admit, MarkOn, OutputPortCtl, PhantomPortConfig, PortConfig};

/// Uno golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "uno_cc_scripted",
            description: DESC_CC,
            run: uno_cc_scripted,
        },
        GoldenScenario {
            name: "uno_phantom_port",
            description: DESC_PORT,
            run: uno_phantom_port,
        },
        GoldenScenario {
            name: "uno_ec_block",
            description: DESC_EC,
            run: uno_ec_block,
        },
    ]
}

const DESC_CC: &str = "UnoCC (Alg. 1) scripted ACKs on an intra-DC flow: AI, full MD (marks \
                       + delay), gentle MD x2 (marks, no delay), MD_scale reset, Quick Adapt \
                       and the held RTT";
const DESC_PORT: &str = "Uno phantom-queue port marking on both queues: a burst overflowing \
                         the physical buffer (drops count in the phantom), then line-rate \
                         arrivals: physical queue empty, phantom marks ramp to 100%";
const DESC_EC: &str = "UnoRC (8,2) Reed-Solomon blocks: 2 losses decoded from any 8 of 10; \
                       3 losses NACKed by the receiver timer, block resent and decoded";

/// Parameters of `uno_cc_scripted`.
pub mod cc_params {
    /// MTU, bytes.
    pub const MTU: u32 = 4096;
    /// Intra-DC RTT, cycles (14 us at 1 GHz).
    pub const RTT: u64 = 14_000;
    /// Intra-DC BDP, bytes (100 Gb/s x 14 us).
    pub const BDP: u64 = 175_000;
    /// Cycles between ACKs at about line rate.
    pub const ACK_GAP: u64 = 330;
    /// Queueing delay of the physical-queue epochs, cycles.
    pub const QUEUE_DELAY: u64 = 5_000;
}

struct CcBench {
    cc: UnoCc,
    rec: Recorder,
    /// Send time of the next packet whose ACK the script delivers.
    sent: Cycles,
}

impl CcBench {
    fn ack(&mut self, ecn: bool, delay: Cycles) -> nic::uno::cc::AckOutcome {
        use cc_params::*;
        let rtt = RTT + delay;
        let now = (self.sent + rtt).max(self.cc.now());
        let o = self.cc.on_ack(now, MTU, ecn, now - self.sent);
        let st = *self.cc.state();
        let r = &mut self.rec;
        r.record(now, "ack.bytes", MTU);
        r.record(now, "ack.ecn", ecn);
        r.record(now, "ack.rtt", now - self.sent);
        r.record(now, "ai", o.ai);
        r.record(now, "epoch_end", o.epoch_end);
        r.record(now, "md", o.md);
        r.record(now, "gentle", o.gentle);
        r.record(now, "qa", o.qa);
        r.record(now, "cwnd", self.cc.cwnd());
        r.record(now, "md_scale_q15", st.md_scale_q15);
        r.record(now, "ecn_ewma_q15", st.ecn_ewma_q15);
        r.record(now, "md_ecn_q15", self.cc.md_ecn_q15());
        r.record(now, "word", hex(&st.pack().into_bytes()));
        self.sent += ACK_GAP;
        o
    }

    /// ACKs until an epoch ends; returns its outcome.
    fn epoch(&mut self, ecn: bool, delay: Cycles) -> nic::uno::cc::AckOutcome {
        loop {
            let o = self.ack(ecn, delay);
            if o.epoch_end {
                return o;
            }
        }
    }

    fn phase(&mut self, name: &str) {
        let t = (self.sent + cc_params::RTT).max(self.cc.now());
        self.rec.record(t, "phase", name);
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn uno_cc_scripted() -> Trace {
    use cc_params::*;
    let line = Rate::from_ratio(25, 2).expect("12.5 B/cycle");
    let cfg = UnoCcConfig::uno(MTU, BDP, BDP, RTT, RTT, line);
    let config = json!({
        "mtu_bytes": MTU, "bdp_bytes": BDP, "alpha_q8": cfg.alpha_q8, "beta_q15": cfg.beta_q15,
        "k_bytes": cfg.k_bytes, "gentle_q15": cfg.gentle_q15, "ewma_shift": cfg.ewma_shift,
        "base_rtt": RTT, "epoch_period": cfg.epoch_period, "delay_thresh": cfg.delay_thresh,
        "max_cwnd_bytes": cfg.max_cwnd_bytes, "line_rate_q32": line.0,
        "clock": "1 GHz", "link": "100 Gb/s",
    });
    let mut b = CcBench {
        cc: UnoCc::new(cfg, 0).expect("valid UnoCC config"),
        rec: Recorder::new("UnoCc", config, 0, DESC_CC),
        sent: 0,
    };
    b.phase("ai");
    let o = b.epoch(false, 0);
    assert!(!o.md);
    b.phase("md_physical_queue");
    let o = b.epoch(true, QUEUE_DELAY);
    assert!(o.md && !o.gentle);
    // The queue drains: the ACKs still in flight carry its delay, so the epoch after the
    // switch still sees a physical queue; the one after it is marked without delay.
    b.phase("queue_drains");
    let o = b.epoch(true, 0);
    assert!(o.md && !o.gentle);
    b.phase("gentle_md");
    let o = b.epoch(true, 0);
    assert!(o.md && o.gentle);
    b.phase("gentle_md_again");
    let o = b.epoch(true, 0);
    assert!(o.md && o.gentle);
    b.phase("md_scale_reset");
    let o = b.epoch(true, QUEUE_DELAY);
    assert!(o.md && !o.gentle);
    // An ACK drought: the next packets' ACKs come 4 apart (a quarter of line rate) until QA.
    b.phase("quick_adapt");
    loop {
        b.sent += 3 * ACK_GAP;
        if b.ack(false, 0).qa {
            break;
        }
    }
    b.phase("held_rtt");
    let hold = b.cc.state().hold_until.value();
    while b.sent + RTT + QUEUE_DELAY < hold {
        let o = b.ack(true, QUEUE_DELAY);
        assert!(!o.md && !o.qa);
    }
    b.phase("after_hold");
    let o = b.epoch(true, QUEUE_DELAY);
    assert!(o.md);
    b.rec.finish()
}

/// Parameters of `uno_phantom_port`.
pub mod port_params {
    /// Line rate, bytes per cycle.
    pub const LINE: u32 = 50;
    /// Physical buffer, bytes.
    pub const BUFFER_BYTES: u64 = 16_384;
    /// Physical RED step, bytes.
    pub const PHYS_STEP: u64 = 8_192;
    /// Phantom cap, bytes.
    pub const PHANTOM_CAP: u64 = 65_536;
    /// Packet size, bytes.
    pub const BYTES: u32 = 4_096;
    /// Burst packets (one cycle).
    pub const BURST: u32 = 6;
    /// Line-rate packets after the burst.
    pub const STEADY: u32 = 200;
    /// RED LFSR seed.
    pub const SEED: u32 = 0x0000_0D0C;
}

fn uno_phantom_port() -> Trace {
    use port_params::*;
    let mut ph = PhantomPortConfig::uno(Rate::from_int(LINE), PHANTOM_CAP).expect("0.9 x 50");
    ph.mark_on = MarkOn::Both;
    let cfg = PortConfig {
        ecn: Some(rtl_models::RedConfig::step(PHYS_STEP)),
        phantom: Some(ph),
        ..PortConfig::tail_drop(BUFFER_BYTES)
    };
    let config = json!({
        "buffer_bytes": BUFFER_BYTES,
        "ecn": serde_json::to_value(cfg.ecn).expect("serialises"),
        "phantom": serde_json::to_value(ph.queue).expect("serialises"),
        "phantom_ecn": serde_json::to_value(ph.ecn).expect("serialises"),
        "mark_on": "Both",
        "line_bytes_per_cycle": LINE,
        "phantom_drain": "0.9 x line rate",
    });
    let mut rec = Recorder::new("OutputPortCtl", config, SEED as u64, DESC_PORT);
    let mut ctl = OutputPortCtl::new(cfg).expect("valid port");
    let mut rng = Lfsr32::new(SEED);
    let gap = (BYTES / LINE) as u64 + 1; // 82 cycles: just under line rate
    let mut arrive = |ctl: &mut OutputPortCtl, rec: &mut Recorder, now: Cycles| {
        let physical = ctl.occupancy_bytes();
        let phantom = ctl.phantom_bytes(now).unwrap_or(0);
        let v = match ctl.on_arrival(now, BYTES, &mut rng) {
            Admit::Enqueue { ecn_mark: true } => "mark",
            Admit::Enqueue { ecn_mark: false } => "enqueue",
            Admit::Trim => "trim",
            Admit::Drop => "drop",
        };
        rec.record(now, "arrive.bytes", BYTES);
        rec.record(now, "physical_before", physical);
        rec.record(now, "phantom_before", phantom);
        rec.record(now, "verdict", v);
        rec.record(now, "queue_bytes", ctl.occupancy_bytes());
        rec.record(now, "phantom_bytes", ctl.phantom_bytes(now).unwrap_or(0));
    };
    for _ in 0..BURST {
        arrive(&mut ctl, &mut rec, 0);
    }
    // The line drains the burst: one packet per `gap` cycles.
    let mut now = 0;
    while ctl.occupancy_bytes() > 0 {
        now += gap;
        ctl.on_departure(BYTES);
    }
    for _ in 0..STEADY {
        now += gap;
        arrive(&mut ctl, &mut rec, now);
        ctl.on_departure(BYTES);
    }
    rec.record(now, "drops", ctl.drops());
    rec.record(now, "marks", ctl.marks());
    rec.finish()
}

/// Parameters of `uno_ec_block`.
pub mod ec_params {
    /// Flow id of the payload model.
    pub const FLOW: u32 = 7;
    /// Data packets of the message (two blocks of 8).
    pub const DATA_PKTS: u32 = 16;
    /// Receiver block timer, cycles.
    pub const TIMEOUT: u64 = 2_000;
    /// Cycles between packets.
    pub const GAP: u64 = 100;
    /// One-way delay, cycles.
    pub const DELAY: u64 = 1_000;
    /// Packets lost on the first transmission: (block, index).
    pub const LOST: [(u32, u8); 5] = [(0, 2), (0, 9), (1, 0), (1, 4), (1, 8)];
}

fn uno_ec_block() -> Trace {
    use ec_params::*;
    let cfg = UnoRcConfig::uno(TIMEOUT);
    let config = json!({
        "data": cfg.data, "parity": cfg.parity, "timeout": TIMEOUT, "flow": FLOW,
        "data_pkts": DATA_PKTS, "gap": GAP, "one_way_delay": DELAY,
        "code": "systematic Reed-Solomon over GF(2^8) (reed-solomon-erasure), 8-byte payload model",
    });
    let mut rec = Recorder::new("UnoRc", config, 0, DESC_EC);
    let codec = BlockCodec::new(cfg.data, cfg.parity).expect("(8,2)");
    let mut tx = RcSender::<4>::new(cfg, DATA_PKTS, true).expect("valid");
    let mut rx = RcReceiver::<4>::new(TIMEOUT);
    let mut got: [[Option<Payload>; 10]; 2] = [[None; 10]; 2];
    let mut now: Cycles = 0;
    let mut decoded = 0;
    while decoded < 2 {
        match tx.next_packet() {
            Some(p) => {
                let payload = codec.encode(FLOW, p.block)[p.index as usize];
                rec.record(now, "send.block", p.block);
                rec.record(now, "send.index", p.index);
                rec.record(now, "send.parity", p.parity);
                rec.record(now, "send.retransmit", p.retransmit);
                rec.record(now, "send.payload", hex(&payload));
                let t = now + DELAY;
                if !p.retransmit && LOST.contains(&(p.block, p.index)) {
                    rec.record(t, "lost", p.index);
                } else {
                    got[p.block as usize][p.index as usize] = Some(payload);
                    let v = rx.on_packet(t, p.block, p.index, p.data_in_block);
                    let name = match v {
                        RxVerdict::Pending => "pending",
                        RxVerdict::Decodable { .. } => "decodable",
                        RxVerdict::Ignored => "ignored",
                    };
                    rec.record(t, "rx.verdict", name);
                    if let RxVerdict::Decodable { block, received } = v {
                        // Decode from exactly the packets the receiver counted.
                        let slots: Vec<Option<Payload>> = (0..10)
                            .map(|i| {
                                (received >> i & 1 == 1)
                                    .then(|| got[block as usize][i])
                                    .flatten()
                            })
                            .collect();
                        let r = codec.decode(FLOW, block, &slots);
                        rec.record(t, "decode", if r.is_ok() { "ok" } else { "error" });
                        decoded += r.is_ok() as u32;
                    }
                }
                now += GAP;
            }
            None => {
                // Idle until the receiver's next deadline; its NACK reaches the sender
                // one delay later.
                let Some(d) = rx.next_deadline() else { break };
                let t = d.max(now);
                if let Some(k) = rx.poll_nack(t) {
                    rec.record(t, "nack", k);
                    got[k as usize] = [None; 10];
                    tx.on_nack(k);
                }
                now = t + DELAY;
            }
        }
    }
    // The last packet sent arrived one delay later.
    rec.record(now - GAP + DELAY, "decoded", rx.decoded());
    rec.record(now - GAP + DELAY, "nacks", rx.nacks());
    rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cc_script_covers_every_branch() {
        let t = uno_cc_scripted();
        for s in ["ai", "md", "gentle", "qa"] {
            assert!(t.values(s).iter().any(|v| v.as_bool() == Some(true)), "{s}");
        }
        let scales: Vec<u64> = t
            .values("md_scale_q15")
            .iter()
            .filter_map(|v| v.as_u64())
            .collect();
        assert!(scales.contains(&9830) && scales.contains(&2948));
    }

    #[test]
    fn port_marks_on_phantom_while_physical_is_empty_and_counts_drops() {
        use port_params::*;
        let t = uno_phantom_port();
        let verdicts = t.values("verdict");
        let drops = verdicts
            .iter()
            .filter(|v| v.as_str() == Some("drop"))
            .count();
        assert_eq!(drops, 2);
        // The burst's phantom holds all 6 packets, the dropped ones included.
        let ph = t.values("phantom_bytes");
        assert_eq!(ph[BURST as usize - 1].as_u64(), Some(6 * BYTES as u64));
        let last = verdicts.len() - 20;
        assert!(verdicts[last..].iter().all(|v| v.as_str() == Some("mark")));
        let phys = t.values("physical_before");
        assert!(phys[BURST as usize..].iter().all(|v| v.as_u64() == Some(0)));
    }

    #[test]
    fn ec_decodes_two_losses_and_nacks_three() {
        let t = uno_ec_block();
        assert_eq!(t.values("nack").len(), 1);
        assert_eq!(t.values("nack")[0].as_u64(), Some(1));
        assert_eq!(
            t.values("decode")
                .iter()
                .filter(|v| v.as_str() == Some("ok"))
                .count(),
            2
        );
    }
}
