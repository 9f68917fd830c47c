//! Golden scenarios for the switch output port (`switch::output_port::OutputPort<N>`,
//! REPS section 4.1 / 2.1 and Appendix A; phantom queue: Uno section 4.1.3).
//!
//! * `output_port_tail_drop_red`: a burst faster than the line fills the buffer: ECN marks
//!   (RED on the real occupancy) start between `K_min` and `K_max`, every packet is marked
//!   past `K_max`, arrivals that do not fit are tail-dropped; then odd-sized packets show the
//!   serializer holding the line `max(1, ceil(bytes / W))` cycles.
//! * `output_port_trim_priority`: trimming on: the overflow of a burst is trimmed to its
//!   header, which waits in the high-priority header FIFO and departs at the next packet
//!   boundary ahead of DATA that arrived earlier; an upstream-trimmed header takes the same
//!   path.
//! * `output_port_phantom_ecn`: a phantom queue (drain 0.9 x W) drives the marker while
//!   packets arrive at exactly line rate: the physical queue is empty at every arrival, the
//!   phantom level climbs through `K_min` / `K_max` and marking goes from never to always.
//!
//! Signals (cycle = port clock cycle; at most one arrival per cycle):
//!
//! ```text
//!  arrive.id, arrive.bytes   int     the packet offered this cycle            (input)
//!  arrive.trimmed            bool    an already-trimmed header (input, only when true)
//!  arrive.marker_level       int     bytes the ECN decision sees: phantom level (synced to
//!                                    this cycle) or real occupancy, before this packet
//!  verdict                   string  "enqueue" | "mark" | "trim" | "drop" | "header"
//!  depart.id, depart.bytes   int     the packet whose transmission started this cycle
//!  depart.ecn, depart.trimmed bool
//!  queue_bytes               int     data-queue occupancy (control block), on change
//!  queued_pkts               int     data + header descriptors waiting, on change
//!  phantom_bytes             int     phantom level (phantom scenario only), on change
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use rtl_models::{Clocked, PhantomConfig, Rate, RedConfig};
use serde_json::json;
use switch::output_port::{Admit, MarkOn, OutputPort, PacketDesc, PhantomPortConfig, PortConfig};

const DESC_TAIL: &str = "OutputPort<16>, W = 64 B/cycle, 4096 B buffer, RED 25%/75% on the \
                         real queue: a 512 B/cycle burst marks then tail-drops, then \
                         1/64/65/100/1500 B packets hold the line ceil(bytes/W) cycles";
const DESC_TRIM: &str = "OutputPort<8>, W = 64 B/cycle, 2048 B buffer, trimming to 64 B \
                         headers: the burst overflow is trimmed and its headers depart at the \
                         next packet boundary ahead of earlier DATA";
const DESC_PHANTOM: &str = "OutputPort<16>, W = 64 B/cycle, phantom queue draining 0.9 x W \
                            (cap 4096 B, RED 25%/75% of it): 512 B packets at exactly line \
                            rate find the real queue empty while phantom marking ramps to 100%";

/// Switch golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "output_port_tail_drop_red",
            description: DESC_TAIL,
            run: output_port_tail_drop_red,
        },
        GoldenScenario {
            name: "output_port_trim_priority",
            description: DESC_TRIM,
            run: output_port_trim_priority,
        },
        GoldenScenario {
            name: "output_port_phantom_ecn",
            description: DESC_PHANTOM,
            run: output_port_phantom_ecn,
        },
    ]
}

/// Line rate W of every scenario, bytes per cycle.
const W: u32 = 64;

/// Drives one port cycle by cycle and records inputs, verdicts, departures and occupancy.
struct Bench<const N: usize> {
    port: OutputPort<N>,
    rec: Recorder,
    last: (u64, usize, Option<u64>),
}

impl<const N: usize> Bench<N> {
    fn new(cfg: PortConfig, seed: u32, rec: Recorder) -> Self {
        Bench {
            port: OutputPort::new(cfg, W, seed).expect("valid port config"),
            rec,
            last: (u64::MAX, usize::MAX, None),
        }
    }

    /// One cycle: the optional arrival, the departure register, occupancy, then the edge.
    fn cycle(&mut self, arrival: Option<PacketDesc>) {
        let t = self.port.now();
        if let Some(d) = arrival {
            self.rec.record(t, "arrive.id", d.id);
            self.rec.record(t, "arrive.bytes", d.bytes);
            if d.trimmed {
                self.rec.record(t, "arrive.trimmed", true);
            } else {
                let level = match self.port.phantom_bytes() {
                    Some(p) => p,
                    None => self.port.ctl().occupancy_bytes(),
                };
                self.rec.record(t, "arrive.marker_level", level);
            }
            let verdict = match self.port.arrive(d) {
                Admit::Enqueue { ecn_mark: true } => "mark",
                Admit::Enqueue { ecn_mark: false } if d.trimmed => "header",
                Admit::Enqueue { ecn_mark: false } => "enqueue",
                Admit::Trim => "trim",
                Admit::Drop => "drop",
            };
            self.rec.record(t, "verdict", verdict);
        }
        if let Some(d) = self.port.take_departure() {
            self.rec.record(t, "depart.id", d.id);
            self.rec.record(t, "depart.bytes", d.bytes);
            self.rec.record(t, "depart.ecn", d.ecn);
            self.rec.record(t, "depart.trimmed", d.trimmed);
        }
        let now = (
            self.port.ctl().occupancy_bytes(),
            self.port.queued_pkts(),
            self.port.phantom_bytes(),
        );
        if now.0 != self.last.0 {
            self.rec.record(t, "queue_bytes", now.0);
        }
        if now.1 != self.last.1 {
            self.rec.record(t, "queued_pkts", now.1 as u64);
        }
        if let Some(p) = now.2 {
            if Some(p) != self.last.2 {
                self.rec.record(t, "phantom_bytes", p);
            }
        }
        self.last = now;
        self.port.tick();
    }

    /// Idle cycles until the port has nothing queued and the line is free.
    fn drain(&mut self) {
        while self.port.queued_pkts() > 0 || self.port.line_busy() {
            self.cycle(None);
        }
        // One more cycle shows the line idle with nothing departing.
        self.cycle(None);
    }
}

/// Parameters of `output_port_tail_drop_red`.
pub mod tail_drop_red_params {
    /// Data buffer, bytes.
    pub const BUFFER_BYTES: u64 = 4096;
    /// Packets of the burst (one per cycle).
    pub const BURST: u32 = 16;
    /// Bytes per burst packet (8 cycles on the line).
    pub const BURST_BYTES: u32 = 512;
    /// Sizes sent one by one after the burst drained (ids 100..).
    pub const ODD_SIZES: [u32; 5] = [1, 64, 65, 100, 1500];
    /// Seed of the port's RED LFSR.
    pub const SEED: u32 = 0x0000_0A11;
}

/// A 16-packet burst of 512-byte packets at one per cycle (8 x line rate) into an idle
/// port with a 4096-byte buffer and RED at 25 % / 75 % of it, then, once it drained,
/// back-to-back packets of 1, 64, 65, 100 and 1500 bytes all offered in consecutive cycles.
fn output_port_tail_drop_red() -> Trace {
    use tail_drop_red_params::*;
    let cfg = PortConfig {
        ecn: Some(RedConfig::percent_of(BUFFER_BYTES, 25, 75)),
        ..PortConfig::tail_drop(BUFFER_BYTES)
    };
    let rec = Recorder::new(
        "OutputPort<16>",
        port_config_json(&cfg, 16),
        SEED as u64,
        DESC_TAIL,
    );
    let mut b = Bench::<16>::new(cfg, SEED, rec);
    for id in 0..BURST {
        b.cycle(Some(PacketDesc::new(id, BURST_BYTES)));
    }
    b.drain();
    for (i, bytes) in ODD_SIZES.iter().enumerate() {
        b.cycle(Some(PacketDesc::new(100 + i as u32, *bytes)));
    }
    b.drain();
    b.rec.finish()
}

/// Parameters of `output_port_trim_priority`.
pub mod trim_priority_params {
    /// Data buffer, bytes (four burst packets).
    pub const BUFFER_BYTES: u64 = 2048;
    /// Header size a trimmed packet keeps, bytes.
    pub const HEADER_BYTES: u32 = 64;
    /// Packets of the burst (one per cycle).
    pub const BURST: u32 = 8;
    /// Bytes per burst packet.
    pub const BURST_BYTES: u32 = 512;
    /// Id of the already-trimmed header offered after the burst.
    pub const UPSTREAM_HEADER_ID: u32 = 50;
}

/// Trimming on: an 8-packet burst of 512-byte packets at one per cycle into a 2048-byte
/// buffer. Packets that do not fit are trimmed to 64-byte headers in the header FIFO;
/// one cycle after the burst an already-trimmed header from upstream arrives. Every header
/// departs at the next packet boundary, before the DATA still queued.
fn output_port_trim_priority() -> Trace {
    use trim_priority_params::*;
    let cfg = PortConfig {
        trimming: true,
        header_bytes: HEADER_BYTES,
        ..PortConfig::tail_drop(BUFFER_BYTES)
    };
    let rec = Recorder::new("OutputPort<8>", port_config_json(&cfg, 8), 0, DESC_TRIM);
    let mut b = Bench::<8>::new(cfg, 1, rec);
    for id in 0..BURST {
        b.cycle(Some(PacketDesc::new(id, BURST_BYTES)));
    }
    b.cycle(Some(PacketDesc {
        id: UPSTREAM_HEADER_ID,
        bytes: HEADER_BYTES,
        ecn: false,
        trimmed: true,
    }));
    b.drain();
    b.rec.finish()
}

/// Parameters of `output_port_phantom_ecn`.
pub mod phantom_ecn_params {
    /// Phantom capacity, bytes; RED thresholds are 25 % / 75 % of it.
    pub const PHANTOM_CAP_BYTES: u64 = 4096;
    /// Data buffer, bytes.
    pub const BUFFER_BYTES: u64 = 16384;
    /// Packets, one every `GAP` cycles.
    pub const PACKETS: u32 = 72;
    /// Bytes per packet.
    pub const BYTES: u32 = 512;
    /// Cycles between arrivals: `BYTES / W`, exactly line rate.
    pub const GAP: u32 = BYTES / super::W;
    /// Seed of the port's RED LFSR.
    pub const SEED: u32 = 0x0000_F00D;
}

/// Uno 4.1.3 on the cycle-accurate port: a phantom queue draining 0.9 x W, capped at
/// 4096 bytes, drives RED (25 % / 75 % of the cap) while 512-byte packets arrive every
/// 8 cycles (exactly line rate). Each packet adds 512 - 8 x 57.6 = 51.2 bytes of phantom
/// level: marks begin past 1024 bytes (packet ~20) and are certain past 3072 (packet ~60).
fn output_port_phantom_ecn() -> Trace {
    use phantom_ecn_params::*;
    let drain = Rate::from_int(W)
        .scale(9, 10)
        .expect("0.9 x 64 fits Q32.32");
    let cfg = PortConfig {
        phantom: Some(PhantomPortConfig {
            queue: PhantomConfig {
                drain,
                cap_bytes: PHANTOM_CAP_BYTES,
            },
            ecn: RedConfig::percent_of(PHANTOM_CAP_BYTES, 25, 75),
            mark_on: MarkOn::Phantom,
        }),
        ..PortConfig::tail_drop(BUFFER_BYTES)
    };
    let mut config = port_config_json(&cfg, 16);
    config["phantom_drain"] = json!("0.9 x line rate");
    let rec = Recorder::new("OutputPort<16>", config, SEED as u64, DESC_PHANTOM);
    let mut b = Bench::<16>::new(cfg, SEED, rec);
    for id in 0..PACKETS {
        b.cycle(Some(PacketDesc::new(id, BYTES)));
        for _ in 1..GAP {
            b.cycle(None);
        }
    }
    b.drain();
    b.rec.finish()
}

/// The port's configuration as recorded in a trace header. "ecn" is the marker in effect:
/// the physical one, or for a port marking on its phantom queue only, the phantom's (the
/// header these traces were first recorded with); "mark_on" appears only for a phantom port
/// that marks on the physical queue or on both.
fn port_config_json(cfg: &PortConfig, n: usize) -> serde_json::Value {
    let ecn = match cfg.phantom {
        Some(p) if p.mark_on == MarkOn::Phantom => Some(p.ecn),
        _ => cfg.ecn,
    };
    let mut v = json!({
        "buffer_bytes": cfg.buffer_bytes,
        "ecn": ecn.map(|r| serde_json::to_value(r).expect("config serialises")),
        "phantom": cfg.phantom.map(|p| serde_json::to_value(p.queue).expect("config serialises")),
        "trimming": cfg.trimming,
        "header_bytes": cfg.header_bytes,
        "descriptors": n,
        "line_bytes_per_cycle": W,
    });
    if let Some(p) = cfg.phantom.filter(|p| p.mark_on != MarkOn::Phantom) {
        v["mark_on"] = json!(format!("{:?}", p.mark_on));
        v["phantom_ecn"] = serde_json::to_value(p.ecn).expect("config serialises");
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn at<'a>(t: &'a Trace, signal: &str, cycle: u64) -> Option<&'a Value> {
        t.records
            .iter()
            .find(|r| r.signal == signal && r.cycle == cycle)
            .map(|r| &r.value)
    }

    /// Last recorded value of `signal` at or before `cycle`.
    fn level(t: &Trace, signal: &str, cycle: u64) -> u64 {
        t.series(signal)
            .iter()
            .rev()
            .find(|(c, _)| *c <= cycle)
            .map_or(0, |(_, v)| v.as_u64().unwrap())
    }

    #[test]
    fn tail_drop_red_marks_in_the_ramp_drops_when_full_and_serializes() {
        use tail_drop_red_params::*;
        let t = output_port_tail_drop_red();
        let verdicts = t.series("verdict");
        let kmin = BUFFER_BYTES / 4;
        let kmax = BUFFER_BYTES * 3 / 4;
        let (mut marks, mut drops) = (0, 0);
        for (c, v) in &verdicts {
            let seen = at(&t, "arrive.marker_level", *c).unwrap().as_u64().unwrap();
            match v.as_str().unwrap() {
                "mark" => {
                    assert!(seen >= kmin, "mark below K_min at cycle {c} ({seen})");
                    marks += 1;
                }
                "enqueue" => assert!(seen < kmax, "unmarked above K_max at cycle {c}"),
                "drop" => {
                    let bytes = at(&t, "arrive.bytes", *c).unwrap().as_u64().unwrap();
                    assert!(seen + bytes > BUFFER_BYTES, "drop with room at cycle {c}");
                    drops += 1;
                }
                other => panic!("unexpected verdict {other}"),
            }
        }
        assert!(marks >= 3, "{marks}");
        assert!(drops >= 3, "{drops}");
        assert!(t
            .series("queue_bytes")
            .iter()
            .all(|(_, v)| v.as_u64().unwrap() <= BUFFER_BYTES));
        // Marked packets leave with CE set.
        let ce = t
            .series("depart.ecn")
            .iter()
            .filter(|(_, v)| v.as_bool() == Some(true))
            .count();
        assert_eq!(ce, marks);
        // Back-to-back departures are ceil(bytes / W) cycles apart (at least one).
        let deps = t.series("depart.bytes");
        let mut checked = 0;
        for w in deps.windows(2) {
            let hold = w[0].1.as_u64().unwrap().div_ceil(W as u64).max(1);
            assert!(w[1].0 - w[0].0 >= hold);
            let queued_then = level(&t, "queued_pkts", w[0].0);
            if queued_then > 0 {
                assert_eq!(w[1].0 - w[0].0, hold, "departure at cycle {}", w[0].0);
                checked += 1;
            }
        }
        assert!(checked >= 8, "{checked}");
        // The odd sizes are all in the trace, in order.
        let ids: Vec<u64> = t
            .series("depart.id")
            .iter()
            .map(|(_, v)| v.as_u64().unwrap())
            .filter(|id| *id >= 100)
            .collect();
        assert_eq!(ids, [100, 101, 102, 103, 104]);
    }

    #[test]
    fn trimmed_headers_overtake_queued_data() {
        use trim_priority_params::*;
        let t = output_port_trim_priority();
        let trims: Vec<u64> = t
            .series("verdict")
            .iter()
            .filter(|(_, v)| v.as_str() == Some("trim"))
            .map(|(c, _)| at(&t, "arrive.id", *c).unwrap().as_u64().unwrap())
            .collect();
        assert!(trims.len() >= 2, "{trims:?}");
        assert!(!t
            .series("verdict")
            .iter()
            .any(|(_, v)| v.as_str() == Some("drop")));
        let deps: Vec<(u64, u64, bool, u64)> = t
            .series("depart.id")
            .iter()
            .map(|(c, v)| {
                (
                    *c,
                    v.as_u64().unwrap(),
                    at(&t, "depart.trimmed", *c).unwrap().as_bool().unwrap(),
                    at(&t, "depart.bytes", *c).unwrap().as_u64().unwrap(),
                )
            })
            .collect();
        // Every packet leaves exactly once; trimmed ones as 64-byte headers.
        assert_eq!(deps.len() as u32, BURST + 1);
        for (_, id, trimmed, bytes) in &deps {
            assert_eq!(
                *trimmed,
                trims.contains(id) || *id == UPSTREAM_HEADER_ID as u64
            );
            if *trimmed {
                assert_eq!(*bytes, HEADER_BYTES as u64);
            }
        }
        // The first trimmed header departs before a DATA packet with a lower id.
        let first_hdr = deps.iter().position(|d| d.2).unwrap();
        assert!(
            deps[first_hdr + 1..]
                .iter()
                .any(|d| !d.2 && d.1 < deps[first_hdr].1),
            "{deps:?}"
        );
        // All headers leave at consecutive packet boundaries, before the remaining DATA.
        let last_hdr = deps.iter().rposition(|d| d.2).unwrap();
        assert!(deps[first_hdr..=last_hdr].iter().all(|d| d.2), "{deps:?}");
        for w in deps[first_hdr..=last_hdr].windows(2) {
            assert_eq!(
                w[1].0 - w[0].0,
                1,
                "a 64-byte header holds the line one cycle"
            );
        }
    }

    #[test]
    fn phantom_marks_while_real_queue_is_empty() {
        use phantom_ecn_params::*;
        let t = output_port_phantom_ecn();
        let verdicts = t.series("verdict");
        assert_eq!(verdicts.len() as u32, PACKETS);
        let mut first_mark = None;
        for (i, (c, v)) in verdicts.iter().enumerate() {
            // Every packet finds the real queue empty (it left one cycle after arriving).
            if *c > 0 {
                assert_eq!(level(&t, "queue_bytes", c - 1), 0, "cycle {c}");
            }
            let ph = at(&t, "arrive.marker_level", *c).unwrap().as_u64().unwrap();
            let marked = v.as_str() == Some("mark");
            if ph < PHANTOM_CAP_BYTES / 4 {
                assert!(!marked, "packet {i} marked below K_min ({ph})");
            }
            if marked && first_mark.is_none() {
                first_mark = Some(i);
            }
        }
        let first = first_mark.expect("phantom marking starts");
        assert!(first >= 15, "{first}");
        assert!(verdicts[verdicts.len() - 8..]
            .iter()
            .all(|(_, v)| v.as_str() == Some("mark")));
    }
}
