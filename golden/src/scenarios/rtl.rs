//! Golden scenarios for the `rtl-models` building blocks: `Lfsr32`, `TokenBucket`,
//! `PhantomQueue` + `RedMarker`, `RedMarker`, `Fifo` (`fifo_fill_drain`: slot and byte
//! limits refusing pushes, FIFO order of pops) and `SatCounter` (`sat_counter_clip`: an
//! up/down counter clipping at both ends).

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use rtl_models::{
    Clocked, Fifo, Full, Lfsr32, PhantomConfig, PhantomQueue, RandomSource, Rate, RedConfig,
    RedMarker, SatCounter, TokenBucket,
};
use serde_json::json;

/// rtl-models golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "lfsr32_seed1",
            description: DESC_LFSR,
            run: lfsr32_seed1,
        },
        GoldenScenario {
            name: "token_bucket_quarter_rate",
            description: DESC_TOKEN_BUCKET,
            run: token_bucket_quarter_rate,
        },
        GoldenScenario {
            name: "phantom_red_ramp",
            description: DESC_PHANTOM_RED,
            run: phantom_red_ramp,
        },
        GoldenScenario {
            name: "red_marker_occupancy_ramp",
            description: DESC_RED_RAMP,
            run: red_marker_occupancy_ramp,
        },
        GoldenScenario {
            name: "fifo_fill_drain",
            description: DESC_FIFO,
            run: fifo_fill_drain,
        },
        GoldenScenario {
            name: "sat_counter_clip",
            description: DESC_SAT,
            run: sat_counter_clip,
        },
    ]
}

const DESC_LFSR: &str = "Lfsr32 seeded with 1: first 64 draws (32 register clocks each)";
const DESC_TOKEN_BUCKET: &str = "TokenBucket at 1/4 token/cycle, depth 2, starting empty, \
                                 asked for a token every cycle then idling to full";
const DESC_PHANTOM_RED: &str = "Uno 4.1.3 / 5.1: phantom queue (drain 0.9 x line) feeding a \
                                RED marker (25%/75%) while offered load ramps 0.5 -> 1.0 x \
                                line rate, then holds";
const DESC_RED_RAMP: &str = "REPS 4.1 RED marker (K_min 20%, K_max 80% of one BDP) as the \
                             queue occupancy ramps 0 -> 1 BDP, one LFSR draw per packet";
const DESC_FIFO: &str = "Fifo<u32, 4> with a 1000-byte limit: pushes until a byte-limit \
                         refusal, then until a slot refusal, pops in order, refill, drain to \
                         empty and one pop of an empty FIFO";
const DESC_SAT: &str = "SatCounter<3> (0..=7): increments clipping at 7, a clipped add, \
                        decrements and a clipped sub at 0";

/// 64 draws of `Lfsr32::new(1)`: signal `draw` (the u32 returned, which is also the register
/// contents after its 32 clocks) at cycle i.
fn lfsr32_seed1() -> Trace {
    let seed = 1u32;
    let mut rec = Recorder::new(
        "Lfsr32",
        json!({"taps": format!("{:#010x}", rtl_models::lfsr::LFSR32_TAPS), "clocks_per_draw": 32}),
        seed as u64,
        DESC_LFSR,
    );
    let mut l = Lfsr32::new(seed);
    for i in 0..64u64 {
        rec.record(i, "draw", l.next_u32());
    }
    rec.finish()
}

/// A bucket refilling at 1/4 token per cycle, depth 2, starting empty. For 24 cycles a
/// request for one token arrives every cycle (`granted` says whether it got one), then the bucket
/// idles 16 cycles via `advance` and `tokens` is sampled at the end. `tokens` (whole tokens)
/// and `tokens_q` (Q32.32 fill) are recorded whenever they change.
fn token_bucket_quarter_rate() -> Trace {
    let (num, den, depth) = (1u64, 4u64, 2u32);
    let mut rec = Recorder::new(
        "TokenBucket",
        json!({"rate_tokens_per_cycle": format!("{num}/{den}"), "depth_tokens": depth, "start": "empty"}),
        0,
        DESC_TOKEN_BUCKET,
    );
    let rate = Rate::from_ratio(num, den).expect("1/4 fits Q32.32");
    let mut b = TokenBucket::new_empty(rate, depth).expect("depth 2 is valid");
    let mut last_q = u64::MAX;
    let mut sample = |rec: &mut Recorder, cycle: u64, b: &TokenBucket| {
        if b.tokens_q() != last_q {
            last_q = b.tokens_q();
            rec.record(cycle, "tokens", b.tokens());
            rec.record(cycle, "tokens_q", b.tokens_q());
        }
    };
    let mut cycle = 0u64;
    for _ in 0..24 {
        sample(&mut rec, cycle, &b);
        let granted = b.try_take(1);
        rec.record(cycle, "granted", granted);
        b.tick();
        cycle += 1;
    }
    sample(&mut rec, cycle, &b);
    b.advance(16);
    cycle += 16;
    sample(&mut rec, cycle, &b);
    rec.finish()
}

/// Line rate of the phantom/RED examples: 400 Gb/s on a 1 GHz port clock = 50 B/cycle.
const LINE_BYTES_PER_CYCLE: u64 = 50;
/// Uno's MTU (Table 2), bytes.
const MTU: u32 = 4096;

/// Parameters of the `phantom_red_ramp` scenario.
pub mod phantom_red_ramp_params {
    /// Packets during the ramp (load rises linearly from start to end).
    pub const RAMP_PACKETS: u64 = 100;
    /// Packets after the ramp, offered at the end load.
    pub const PLATEAU_PACKETS: u64 = 80;
    /// Offered load of the first packet, per mille of line rate.
    pub const LOAD_START_PERMILLE: u64 = 500;
    /// Offered load at the end of the ramp and on the plateau, per mille of line rate.
    pub const LOAD_END_PERMILLE: u64 = 1000;
    /// Phantom-queue capacity in bytes (8 MTUs); RED thresholds are 25 % / 75 % of it.
    pub const PHANTOM_CAP_BYTES: u64 = 8 * super::MTU as u64;
    /// LFSR seed of the RED marker's draws.
    pub const SEED: u32 = 0x5EED_0001;
}

/// The paper's phantom-queue argument (Uno section 2 and 4.1.3; thresholds from section 5.1):
/// a 400 Gb/s port (50 B/cycle at 1 GHz) receives 4096-byte packets whose offered load ramps
/// linearly from 0.5x to 1.0x line rate over 100 packets and then stays at line rate for 80
/// more. Each arrival updates the physical queue (drains at line rate) and the phantom queue
/// (drains at 0.9 x line rate, capped at 8 MTUs); the RED marker decides ECN on the phantom
/// occupancy seen by the arriving packet (MinECNThresh = 25 %, MaxECNThresh = 75 % of the
/// phantom capacity). The phantom queue builds once load passes 0.9 x line rate and marking
/// goes from never to always, while every packet finds the physical queue empty.
///
/// Signals, at each arrival cycle, as seen by the arriving packet (before its own enqueue):
/// `load_permille`, `queue_bytes` (physical), `phantom_bytes`, `mark_prob_q32` (Q0.32), `ecn`.
fn phantom_red_ramp() -> Trace {
    use phantom_red_ramp_params::*;
    let line = Rate::from_int(LINE_BYTES_PER_CYCLE as u32);
    let drain = line.scale(9, 10).expect("0.9 x 50 B/cycle fits Q32.32");
    let pcfg = PhantomConfig {
        drain,
        cap_bytes: PHANTOM_CAP_BYTES,
    };
    let rcfg = RedConfig::percent_of(PHANTOM_CAP_BYTES, 25, 75);
    let mut rec = Recorder::new(
        "PhantomQueue+RedMarker",
        json!({
            "line_bytes_per_cycle": LINE_BYTES_PER_CYCLE,
            "period_ps": 1000,
            "mtu_bytes": MTU,
            "phantom": serde_json::to_value(pcfg).expect("config serialises"),
            "phantom_drain": "0.9 x line rate",
            "red": serde_json::to_value(rcfg).expect("config serialises"),
            "red_thresholds": "25% / 75% of phantom capacity",
            "ramp_packets": RAMP_PACKETS,
            "plateau_packets": PLATEAU_PACKETS,
            "load_permille": [LOAD_START_PERMILLE, LOAD_END_PERMILLE],
        }),
        SEED as u64,
        DESC_PHANTOM_RED,
    );
    let mut phantom = PhantomQueue::from_config(pcfg).expect("valid phantom config");
    let red = RedMarker::new(rcfg).expect("valid RED config");
    let mut rng = Lfsr32::new(SEED);
    let mut queue_bytes: u64 = 0;
    let mut cycle: u64 = 0;
    for i in 0..RAMP_PACKETS + PLATEAU_PACKETS {
        let load = LOAD_START_PERMILLE
            + i.min(RAMP_PACKETS - 1) * (LOAD_END_PERMILLE - LOAD_START_PERMILLE)
                / (RAMP_PACKETS - 1);
        if i > 0 {
            // Inter-arrival gap (rounded up) so that MTU / gap <= load x line rate.
            let gap = (MTU as u64 * 1000).div_ceil(LINE_BYTES_PER_CYCLE * load);
            cycle += gap;
            queue_bytes = queue_bytes.saturating_sub(gap * LINE_BYTES_PER_CYCLE);
        }
        phantom.sync_to(cycle);
        let occupancy = phantom.occupancy();
        let prob = red.mark_probability_q32(occupancy);
        let ecn = red.should_mark(occupancy, &mut rng);
        rec.record(cycle, "load_permille", load);
        rec.record(cycle, "queue_bytes", queue_bytes);
        rec.record(cycle, "phantom_bytes", occupancy);
        rec.record(cycle, "mark_prob_q32", prob);
        rec.record(cycle, "ecn", ecn);
        phantom.on_enqueue(MTU);
        queue_bytes += MTU as u64;
    }
    rec.finish()
}

/// REPS section 4.1's baseline marking (K_min = 20 %, K_max = 80 % of a one-BDP queue; RED as
/// in section 2.1): a 400 Gb/s x 12 us BDP = 600 000 bytes queue, one packet per 8 cycles,
/// occupancy rising linearly from 0 to one BDP over 100 packets and the marker drawing
/// from an LFSR for each. Signals: `queue_bytes`, `mark_prob_q32`, `ecn`.
fn red_marker_occupancy_ramp() -> Trace {
    const BDP_BYTES: u64 = 600_000;
    const PACKETS: u64 = 100;
    const SEED: u32 = 0x0000_2E95;
    let cfg = RedConfig::percent_of(BDP_BYTES, 20, 80);
    let red = RedMarker::new(cfg).expect("valid RED config");
    let mut rec = Recorder::new(
        "RedMarker",
        json!({
            "red": serde_json::to_value(cfg).expect("config serialises"),
            "thresholds": "K_min 20% / K_max 80% of one BDP",
            "bdp_bytes": BDP_BYTES,
            "packets": PACKETS,
            "cycles_per_packet": 8,
        }),
        SEED as u64,
        DESC_RED_RAMP,
    );
    let mut rng = Lfsr32::new(SEED);
    for i in 0..=PACKETS {
        let cycle = i * 8;
        let q = i * BDP_BYTES / PACKETS;
        rec.record(cycle, "queue_bytes", q);
        rec.record(cycle, "mark_prob_q32", red.mark_probability_q32(q));
        rec.record(cycle, "ecn", red.should_mark(q, &mut rng));
    }
    rec.finish()
}

/// Byte limit of the `fifo_fill_drain` FIFO.
const FIFO_BYTE_LIMIT: u64 = 1000;

/// A `Fifo<u32, 4>` limited to 1000 bytes, one operation per cycle. Signals: `op`
/// ("push" | "pop"), `push.item`, `push.bytes`, `push.result` ("ok" | "full_bytes" |
/// "full_slots"), `pop.item`, `pop.bytes` (or `pop.empty`), then `len`, `bytes`, `rejected`.
fn fifo_fill_drain() -> Trace {
    let mut rec = Recorder::new(
        "Fifo<u32, 4>",
        json!({"slots": 4, "byte_limit": FIFO_BYTE_LIMIT}),
        0,
        DESC_FIFO,
    );
    let mut f: Fifo<u32, 4> = Fifo::with_byte_limit(FIFO_BYTE_LIMIT);
    #[derive(Clone, Copy)]
    enum Op {
        Push(u32, u32),
        Pop,
    }
    let script = [
        Op::Push(1, 300),
        Op::Push(2, 300),
        Op::Push(3, 300),
        Op::Push(4, 200), // 1100 > 1000 bytes: refused by the byte limit
        Op::Push(5, 100), // exactly 1000 bytes: accepted, all 4 slots used
        Op::Push(6, 0),   // no slot left (checked before bytes)
        Op::Pop,
        Op::Pop,
        Op::Push(7, 450),
        Op::Push(8, 150),
        Op::Pop,
        Op::Pop,
        Op::Pop,
        Op::Pop,
        Op::Pop, // empty
    ];
    for (cycle, op) in script.iter().enumerate() {
        let c = cycle as u64;
        match *op {
            Op::Push(item, bytes) => {
                rec.record(c, "op", "push");
                rec.record(c, "push.item", item);
                rec.record(c, "push.bytes", bytes);
                let r = match f.push(item, bytes) {
                    Ok(()) => "ok",
                    Err(Full::Bytes) => "full_bytes",
                    Err(Full::Slots) => "full_slots",
                };
                rec.record(c, "push.result", r);
            }
            Op::Pop => {
                rec.record(c, "op", "pop");
                match f.pop() {
                    Some((item, bytes)) => {
                        rec.record(c, "pop.item", item);
                        rec.record(c, "pop.bytes", bytes);
                    }
                    None => rec.record(c, "pop.empty", true),
                }
            }
        }
        rec.record(c, "len", f.len() as u64);
        rec.record(c, "bytes", f.bytes());
        rec.record(c, "rejected", f.rejected());
        f.tick();
    }
    rec.finish()
}

/// A `SatCounter<3>`, one operation per cycle. Signals: `op` ("inc" | "dec" | "add" |
/// "sub"), `arg` (for add / sub), `clipped`, `value`.
fn sat_counter_clip() -> Trace {
    let mut rec = Recorder::new(
        "SatCounter<3>",
        json!({"bits": 3, "max": SatCounter::<3>::MAX}),
        0,
        DESC_SAT,
    );
    let mut k: SatCounter<3> = SatCounter::new();
    let mut script: Vec<(&str, u64)> = vec![("inc", 1); 9];
    script.push(("sub", 3));
    script.push(("add", 10));
    script.extend([("dec", 1); 8]);
    script.push(("add", 2));
    script.push(("sub", 5));
    for (cycle, (op, arg)) in script.into_iter().enumerate() {
        let c = cycle as u64;
        rec.record(c, "op", op);
        let clipped = match op {
            "inc" => k.inc(),
            "dec" => k.dec(),
            "add" => {
                rec.record(c, "arg", arg);
                k.add(arg)
            }
            _ => {
                rec.record(c, "arg", arg);
                k.sub(arg)
            }
        };
        rec.record(c, "clipped", clipped);
        rec.record(c, "value", k.get());
        k.tick();
    }
    rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phantom_marks_while_the_physical_queue_stays_empty() {
        use phantom_red_ramp_params::*;
        let t = phantom_red_ramp();
        let load = t.series("load_permille");
        let queue = t.series("queue_bytes");
        let ecn = t.series("ecn");
        let phantom = t.series("phantom_bytes");
        let n = (RAMP_PACKETS + PLATEAU_PACKETS) as usize;
        assert_eq!(ecn.len(), n);
        // Load never exceeds line rate, so every packet finds the physical queue empty.
        assert!(queue.iter().all(|(_, q)| q.as_u64() == Some(0)));
        // Below the phantom drain rate (0.9 x line) the phantom queue empties between packets.
        for (i, (_, l)) in load.iter().enumerate() {
            if l.as_u64().unwrap() < 900 {
                assert_eq!(phantom[i].1.as_u64(), Some(0), "packet {i}");
                assert_eq!(ecn[i].1.as_bool(), Some(false));
            }
        }
        let first_mark = ecn
            .iter()
            .position(|(_, v)| v.as_bool() == Some(true))
            .expect("the ramp reaches the marking region");
        assert!(load[first_mark].1.as_u64().unwrap() > 900);
        let kmin = PHANTOM_CAP_BYTES / 4;
        assert!(phantom[first_mark].1.as_u64().unwrap() >= kmin);
        // The phantom queue ends past MaxECNThresh: the last packets are all marked.
        let kmax = PHANTOM_CAP_BYTES * 3 / 4;
        assert!(phantom[n - 1].1.as_u64().unwrap() >= kmax);
        assert!(ecn[n - 10..].iter().all(|(_, v)| v.as_bool() == Some(true)));
    }

    #[test]
    fn red_ramp_follows_thresholds() {
        let t = red_marker_occupancy_ramp();
        let q = t.series("queue_bytes");
        let ecn = t.series("ecn");
        let mut marked_between = 0;
        for (i, (_, qv)) in q.iter().enumerate() {
            let qv = qv.as_u64().unwrap();
            let m = ecn[i].1.as_bool().unwrap();
            if qv < 120_000 {
                assert!(!m, "marked below K_min at {qv}");
            } else if qv >= 480_000 {
                assert!(m, "unmarked above K_max at {qv}");
            } else if m {
                marked_between += 1;
            }
        }
        // 60 packets between the thresholds at mean probability 1/2.
        assert!((15..45).contains(&marked_between), "{marked_between}");
    }

    #[test]
    fn fifo_refuses_on_bytes_then_slots_and_pops_in_order() {
        let t = fifo_fill_drain();
        let results: Vec<&str> = t
            .series("push.result")
            .iter()
            .map(|(_, v)| v.as_str().unwrap())
            .collect();
        assert_eq!(results.iter().filter(|r| **r == "full_bytes").count(), 1);
        assert_eq!(results.iter().filter(|r| **r == "full_slots").count(), 1);
        let bytes = t.series("bytes");
        assert!(bytes
            .iter()
            .all(|(_, v)| v.as_u64().unwrap() <= FIFO_BYTE_LIMIT));
        assert!(bytes
            .iter()
            .any(|(_, v)| v.as_u64() == Some(FIFO_BYTE_LIMIT)));
        assert!(t
            .series("len")
            .iter()
            .all(|(_, v)| v.as_u64().unwrap() <= 4));
        // Pops return the accepted items in push order.
        let pushed: Vec<u64> = t
            .series("push.item")
            .iter()
            .zip(t.series("push.result"))
            .filter(|(_, (_, r))| r.as_str() == Some("ok"))
            .map(|((_, v), _)| v.as_u64().unwrap())
            .collect();
        let popped: Vec<u64> = t
            .series("pop.item")
            .iter()
            .map(|(_, v)| v.as_u64().unwrap())
            .collect();
        assert_eq!(popped, pushed);
        assert_eq!(t.series("pop.empty").len(), 1);
        assert_eq!(t.series("rejected").last().unwrap().1.as_u64(), Some(2));
    }

    #[test]
    fn sat_counter_sticks_at_both_ends() {
        let t = sat_counter_clip();
        let ops = t.series("op");
        let value = t.series("value");
        let clipped = t.series("clipped");
        // Reference: unbounded arithmetic clamped to 0..=7.
        let (mut model, mut clips_top, mut clips_bottom) = (0i64, 0, 0);
        for (i, (c, op)) in ops.iter().enumerate() {
            let arg = t
                .records
                .iter()
                .find(|r| r.signal == "arg" && r.cycle == *c)
                .map_or(1, |r| r.value.as_u64().unwrap()) as i64;
            let raw = match op.as_str().unwrap() {
                "inc" | "add" => model + arg,
                _ => model - arg,
            };
            let clamped = raw.clamp(0, 7);
            assert_eq!(value[i].1.as_i64(), Some(clamped), "cycle {c}");
            assert_eq!(clipped[i].1.as_bool(), Some(raw != clamped), "cycle {c}");
            if raw > 7 {
                clips_top += 1;
            }
            if raw < 0 {
                clips_bottom += 1;
            }
            model = clamped;
        }
        assert!(clips_top >= 2, "{clips_top}");
        assert!(clips_bottom >= 2, "{clips_bottom}");
    }
}
