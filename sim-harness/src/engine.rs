//! The fabric engine: builds a run from a scenario, runs the event loop, collects results.
//!
//! ```text
//!  host NIC port (pull)          switch output port                    receiving host
//!  +-------------------+        +------------------------------+
//!  | ctrl lane (ACKs)  |  link  | OutputPortCtl: admit / ECN / |  link   SackReceiver
//!  | ready flows, RR:  |------->|   trim / drop                |------>  -> ACK / NACK
//!  |  Cc + Lb -> DATA  | Deliver|  data FIFO | ctrl FIFO (prio)| Deliver   into its NIC's
//!  +-------------------+        |  serializer (TxDone)         |           ctrl lane
//!                               +------------------------------+
//! ```
//!
//! * **Ports.** Every output port (host NIC or switch) serializes one packet at a time at
//!   its line rate. Control packets (ACK, NACK, trimmed headers) have a strict-priority lane
//!   that is not counted in the data buffer; DATA goes through the `switch` crate's
//!   [`OutputPortCtl`] (tail drop at `topology.buffer`, RED/ECN between `ecn_kmin` and
//!   `ecn_kmax` of the buffer, trimming when `transport.trimming`). A port whose queue is
//!   non-empty has one `TxDone` event at the end of the packet being serialized; an idle
//!   port has none.
//! * **Links.** A packet's arrival at the far end (propagation delay, plus the switch
//!   latency when the far end is a switch) is known when its serialization starts; each
//!   port's link is a FIFO of (arrival time, packet) with one `Deliver` event for its head.
//!   A packet reaching a switch is routed ([`crate::topology::Route`]) and offered to the
//!   output port at once, so an uncongested hop costs one event.
//! * **Hosts.** A host NIC pulls: when its port is free it sends queued control packets
//!   first, then one DATA packet from the next flow in its round-robin ring of flows whose
//!   window is open. Each flow has at most one `FlowTimer` event pending (its RTO).
//! * **Load balancing** ([`crate::flow::Lb`]: ECMP, OPS or REPS). Receivers echo the DATA's
//!   EV in its ACK; every ACK goes to the chooser, every RTT sample to the flow's REPS
//!   Appendix A failure detector, and an RTO it judges a failure freezes REPS. Each DATA
//!   packet a ToR routes up is counted per uplink and time bucket
//!   ([`crate::lb_stats::SelectionTable`], `uplink_selection.csv`).
//! * **Packets** are 28-byte `Copy` structs held by value in the ports' rings (control
//!   lane, data FIFO, link): no allocation per packet, one cache line per hop.
//! * **Clocks.** NIC and switch blocks run on 1 GHz clocks; the engine converts
//!   picoseconds to cycles (`ps / 1000`) and brings a block's clock forward with
//!   `Clocked::advance` before talking to it.
//! * **Stops.** The run ends when every flow has completed, when `stop.max_time_us` is
//!   reached, when the caller's stop flag is set, or when no flow has made progress (no new
//!   byte acknowledged, no flow started) for [`STALL_RTOS`] RTOs of simulated time (e.g. an
//!   ECMP flow pinned to a link that never comes back); flows not completed have
//!   `end_ps = 0`.

use crate::error::{Error, Result};
use crate::event::{Comp, EventQueue, Kind, Time, NEVER};
use crate::flow::{self, Cc, FlowRt, Lb, Receiver, Sender};
use crate::lb_stats::{SelectionTable, SELECTION_TABLE};
use crate::packet::{Packet, PktKind};
use crate::prefetch::{prefetch, prefetch_head, prefetch_lines, prefetch_next};
use crate::results::{FlowRecord, LinkRecord, Progress, QueueSample, RunResult, Summary};
use crate::run::RunControl;
use crate::scenario::Scenario;
use crate::topology::{self, Fabric, Node, Route};
use crate::workload::{self, FlowSpec};
use nic::lb::LoadBalancer;
use nic::reps::{FailureDetector, LossVerdict};
use nic::transport::{Ack, DctcpConfig, SenderStats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtl_models::{Cycles, Lfsr32, RedConfig};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use switch::output_port::{Admit, OutputPortCtl, PortConfig};

mod dcsim;

/// Picoseconds per cycle of the NIC and switch clocks (1 GHz).
pub const CYCLE_PS: u64 = 1000;

/// A run with no progress for this many RTOs of simulated time is stopped.
pub const STALL_RTOS: u64 = 2000;

/// How many events ahead [`Sim::prefetch_ahead`] looks.
const PREFETCH_AHEAD: usize = 8;

/// Fabrics with at least this many ports prefetch (with their rings and flows, beyond L2):
/// measured about +10% DATA packets/s at 1024 hosts (6144 ports) and +40% at 8192 (49152);
/// the 128-host default (768 ports) fits in cache, where the hints are only overhead.
const PREFETCH_MIN_PORTS: usize = 2048;

/// Events between two looks at the wall clock (progress callback, stop flag).
const CHECK_EVERY: u64 = 1 << 16;

/// Why a packet was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    /// Output buffer full (tail drop).
    BufferFull = 0,
    /// Sent into a link that is down.
    LinkDown = 1,
    /// Receiver discarded a DATA packet beyond its window.
    BeyondWindow = 2,
}

const CAUSE_NAMES: [&str; 3] = ["buffer_full", "link_down", "beyond_window"];

/// What kind of port.
#[derive(Debug, Clone)]
enum PortKind {
    /// A host NIC (pulls DATA from its flows).
    Host(u32),
    /// A switch output port with its admission / marking block.
    Switch(OutputPortCtl),
    /// A DCSIM port, switch or host NIC (`transport.cc = "dcsim"`): the arbiter holds the
    /// packets (see `engine::dcsim`).
    Dcsim(Box<crate::dcsim::DcsimPort>),
}

/// Where a delivered packet goes next ([`Sim::next_hop`]): a port, or a flow (with
/// whether the packet is a DATA, and its PSN).
enum Hop {
    Port(u32, bool),
    Flow(u32, bool, u32),
}

/// Routed deliveries remembered between two prefetch stages ([`Sim::prefetch_ahead`]).
const HOPS: usize = 4;

/// Runtime state of one output port, laid out by cache line (`repr(C)`, 64-byte aligned)
/// so that an event touches few lines and [`Sim::prefetch_ahead`] can request them:
/// line 0 is what a delivery and a transmission need (the link), line 1 the control lane
/// and counters a transmission updates, line 2 the data FIFO, then the admission block.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
struct PortRt {
    // line 0
    deliver_at: Time,
    busy_until: Time,
    /// Serialization time in ps per byte, Q32.32.
    ser_q32: u64,
    peer: Node,
    /// Packets on the wire: (arrival time at the far end, packet).
    link: VecDeque<(Time, Packet)>,
    // line 1
    txdone_at: Time,
    /// Propagation delay plus, towards a switch, its latency.
    delay_ps: u64,
    tx_bytes: u64,
    tx_packets: u64,
    /// Control lane.
    ctrl_q: VecDeque<Packet>,
    // line 2
    /// Data FIFO.
    data_q: VecDeque<Packet>,
    drops: u64,
    gbps: f64,
    rng: Lfsr32,
    /// Slot in [`SelectionTable`] (`u32::MAX`: not a counted ToR uplink).
    sel_slot: u32,
    /// Failures holding the link down (up when 0).
    down: u16,
    // lines 3..
    kind: PortKind,
}

impl PortRt {
    /// Prefetch the lines an enqueue and a transmission touch: the link, the control lane,
    /// the data FIFO and the admission block's tag, and for a DATA the block's counters
    /// (lines 0-3, or 0-4). The rest (line 5) is configuration read rarely.
    #[inline]
    fn prefetch(&self, data: bool) {
        prefetch_head(self, if data { 5 * 64 } else { 4 * 64 });
    }
}

/// Serialization time of `bytes` at `ser_q32` ps per byte (Q32.32), rounded up; in u128 so
/// no rate validation allows overflows (a u64 product overflows below about 8 Mb/s).
#[inline]
fn ser_ps(bytes: u32, ser_q32: u64) -> u64 {
    let ps = (u128::from(bytes) * u128::from(ser_q32)).div_ceil(1 << 32);
    u64::try_from(ps).unwrap_or(u64::MAX)
}

fn ser_q32(gbps: f64) -> u64 {
    (8000.0 / gbps * 4_294_967_296.0).round() as u64
}

#[derive(Debug, Clone, Copy)]
struct FailureRt {
    ports: [u32; 2],
    /// Between its begin and end events.
    active: bool,
    gbps: Option<f64>,
    at: Time,
    until: Option<Time>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    events: u64,
    data_sent: u64,
    data_delivered: u64,
    data_dropped: u64,
    data_trimmed: u64,
    headers_delivered: u64,
    ctrl_created: u64,
    ctrl_delivered: u64,
    ctrl_dropped: u64,
    drops: [u64; 3],
    timeouts: u64,
    failure_detections: u64,
}

/// One fabric run.
pub struct Sim {
    q: EventQueue,
    now: Time,
    fabric: Fabric,
    ports: Vec<PortRt>,
    switches: Vec<(Route, u64)>,
    ready: Vec<VecDeque<u32>>,
    flows: Vec<FlowRt>,
    next_arrival: usize,
    failures: Vec<FailureRt>,
    cfg: DctcpConfig,
    hdr_bytes: u32,
    base_rtt_ps: u64,
    bdp_bytes: u64,
    buffer_bytes: u64,
    sample_ps: u64,
    max_time: Time,
    stall_ps: u64,
    last_progress: Time,
    flows_done: usize,
    stalled: bool,
    interrupted: bool,
    c: Counters,
    queues: Vec<QueueSample>,
    /// DATA packets per ToR uplink per time bucket (`uplink_selection.csv`).
    sel: SelectionTable,
    wall_s: f64,
    /// The DCSIM transport (`transport.cc = "dcsim"`).
    dcsim: Option<Box<crate::dcsim::DcsimState>>,
    /// Collective metrics (CCT, queueing delay, reordering, utilization), every transport.
    cm: Option<Box<crate::dcsim::CollMetrics>>,
    /// The last [`HOPS`] deliveries the prefetcher routed: (event, output port).
    hops: [(Comp, u32); HOPS],
    hop_i: usize,
    /// Run [`Sim::prefetch_ahead`]: only when the ports outgrow the caches
    /// ([`PREFETCH_MIN_PORTS`]); below that the hints cost more than the misses they hide.
    prefetch: bool,
}

/// What a run derives from its scenario and fabric before anything else: the longest path's
/// base RTT and BDP (the global values buffers, RED and BDP-relative sizes use), the switch
/// port buffer and the RTO in NIC cycles. One computation, used by the engine's build and
/// by [`crate::validate`] (which checks the values against their limits first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    /// Base RTT of the longest path, ps.
    pub base_rtt_ps: u64,
    /// One BDP of the longest path at the host link rate, bytes.
    pub bdp_bytes: u64,
    /// `topology.buffer` resolved, bytes per switch port.
    pub buffer_bytes: u64,
    /// `transport.rto_us` in NIC cycles (clamped to the 31 bits validation allows).
    pub rto_cycles: u32,
}

impl Derived {
    /// The values of scenario `s` (its fields checked) on `fabric`.
    pub fn new(s: &Scenario, fabric: &Fabric) -> Derived {
        let t = &s.topology;
        let hdr = s.transport.header_bytes;
        let prop_ps = t.link_delay_ns.saturating_mul(1000);
        let sw_ps = t.switch_latency_ns.saturating_mul(1000);
        let base_rtt_ps = fabric.base_rtt_ps(prop_ps, sw_ps, s.transport.mtu + hdr, hdr);
        let bdp_bytes = fabric.bdp_bytes(base_rtt_ps);
        let rto = (s.transport.rto_us * 1e6 / CYCLE_PS as f64).round();
        Derived {
            base_rtt_ps,
            bdp_bytes,
            buffer_bytes: t.buffer.bytes(bdp_bytes),
            rto_cycles: rto.clamp(1.0, (u32::MAX >> 1) as f64) as u32,
        }
    }
}

fn cfg_err(field: &str, e: rtl_models::ConfigError) -> Error {
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

impl Sim {
    /// Build the run for scenario `s` (already validated).
    pub fn build(s: &Scenario) -> Result<Sim> {
        crate::memory::use_large_pages();
        let fabric = topology::build(s)?;
        let t = &s.topology;
        let hdr = s.transport.header_bytes;
        let mtu = s.transport.mtu;
        let sw_ps = t.switch_latency_ns * 1000;
        let Derived {
            base_rtt_ps,
            bdp_bytes,
            buffer_bytes,
            rto_cycles,
        } = Derived::new(s, &fabric);
        debug_assert!(buffer_bytes >= u64::from(mtu + hdr), "checked by validate");
        let red = RedConfig::linear(
            (buffer_bytes as f64 * t.ecn_kmin) as u64,
            (buffer_bytes as f64 * t.ecn_kmax) as u64,
        );
        let port_cfg = PortConfig {
            buffer_bytes,
            ecn: Some(red),
            phantom: None,
            trimming: s.transport.trimming,
            header_bytes: hdr,
        };
        let ctl = OutputPortCtl::new(port_cfg).map_err(|e| cfg_err("topology.buffer", e))?;

        let init = s
            .transport
            .init_cwnd
            .bytes(bdp_bytes)
            .clamp(mtu as u64, u32::MAX as u64 / 2);
        let cfg = DctcpConfig {
            mtu,
            init_cwnd: init as u32,
            min_cwnd: mtu,
            max_cwnd: u32::MAX / 2,
            rto: rto_cycles,
            g_shift: 4,
            alpha_init: 0,
        };
        cfg.check().map_err(|e| {
            let field = match e.field {
                "rto" => "transport.rto_us",
                "init_cwnd" => "transport.init_cwnd",
                _ => "transport.mtu",
            };
            cfg_err(field, e)
        })?;

        let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
        let switches: Vec<(Route, u64)> = fabric
            .switches
            .iter()
            .map(|sw| (sw.route, rng.gen::<u64>()))
            .collect();
        let mut ports = Vec::with_capacity(fabric.ports.len());
        for (i, p) in fabric.ports.iter().enumerate() {
            let kind = match p.owner {
                Node::Host(h) => PortKind::Host(h),
                Node::Switch(_) => PortKind::Switch(ctl),
            };
            let delay_ps = p.prop_ps
                + match p.peer {
                    Node::Switch(_) => sw_ps,
                    Node::Host(_) => 0,
                };
            debug_assert!(i < fabric.hosts as usize || matches!(kind, PortKind::Switch(_)));
            ports.push(PortRt {
                busy_until: 0,
                txdone_at: NEVER,
                deliver_at: NEVER,
                ser_q32: ser_q32(p.gbps),
                delay_ps,
                peer: p.peer,
                down: 0,
                gbps: p.gbps,
                kind,
                ctrl_q: VecDeque::new(),
                data_q: VecDeque::new(),
                link: VecDeque::new(),
                rng: Lfsr32::new(rng.gen()),
                sel_slot: u32::MAX,
                tx_bytes: 0,
                tx_packets: 0,
                drops: 0,
            });
        }

        let mut specs = workload::generate(s, fabric.hosts, bdp_bytes, fabric.host_gbps, &mut rng)?;
        specs.sort_by_key(|f| f.start_ps);
        let max_pkts = specs
            .iter()
            .map(|f| f.bytes.div_ceil(mtu as u64))
            .max()
            .unwrap_or(0);
        if max_pkts >= 1 << 31 {
            return Err(Error::field(
                "workload.message",
                format!("{max_pkts} packets in one message, more than 2^31"),
            ));
        }
        let reps_cfg = flow::reps_config(s, bdp_bytes);
        let detector =
            FailureDetector::new(flow::detector_config(s, base_rtt_ps / CYCLE_PS, rto_cycles))
                .map_err(|e| cfg_err("transport.rto_us", e))?;
        let flows = specs
            .iter()
            .map(|f| {
                if f.src >= fabric.hosts || f.dst >= fabric.hosts {
                    return Err(Error::field(
                        "workload.kind",
                        format!(
                            "a flow {} -> {} names a host the topology lacks",
                            f.src, f.dst
                        ),
                    ));
                }
                let mut frng = Lfsr32::new(rng.gen());
                let lb = Lb::new(s.transport.lb, s.transport.evs_bits, &reps_cfg, &mut frng)
                    .map_err(|e| {
                        let field = match e.field {
                            "freezing_timeout_cycles" => "transport.reps.freezing_timeout_us",
                            "ev_bits" => "transport.evs_bits",
                            _ => "transport.lb",
                        };
                        cfg_err(field, e)
                    })?;
                Ok(FlowRt {
                    spec: *f,
                    cc: None,
                    rx: Receiver::new(),
                    lb,
                    rng: frng,
                    in_ready: false,
                    timer_at: NEVER,
                    end_ps: 0,
                    stats: SenderStats::default(),
                    failure_detections: 0,
                    detector,
                })
            })
            .collect::<Result<Vec<_>>>()?;

        let mut failures = Vec::with_capacity(s.failures.len());
        for (i, f) in s.failures.iter().enumerate() {
            let p = fabric
                .port_by_name(f.link.trim())
                .unwrap_or_else(|| panic!("failures[{i}].link checked by validate"));
            let at = (f.at_us * 1e6).round() as Time;
            failures.push(FailureRt {
                ports: [p, fabric.ports[p as usize].reverse],
                gbps: f.gbps,
                active: false,
                at,
                until: f.for_us.map(|d| at + (d * 1e6).round() as Time),
            });
        }

        let hosts = fabric.hosts as usize;
        let sel = SelectionTable::new(&fabric, (s.output.selection_bucket_us * 1e6).round() as u64);
        for (i, port) in ports.iter_mut().enumerate() {
            port.sel_slot = sel.slot(i as u32);
        }
        let mut sim = Sim {
            sel,
            q: EventQueue::new(),
            now: 0,
            ports,
            switches,
            ready: vec![VecDeque::new(); hosts],
            flows,
            next_arrival: 0,
            failures,
            cfg,
            hdr_bytes: hdr,
            base_rtt_ps,
            bdp_bytes,
            buffer_bytes,
            sample_ps: (s.output.queue_sample_us * 1e6).round() as u64,
            max_time: if s.stop.max_time_us > 0.0 {
                (s.stop.max_time_us * 1e6).round() as Time
            } else {
                NEVER
            },
            stall_ps: STALL_RTOS * u64::from(rto_cycles) * CYCLE_PS,
            last_progress: 0,
            flows_done: 0,
            stalled: false,
            interrupted: false,
            c: Counters::default(),
            queues: Vec::new(),
            wall_s: 0.0,
            dcsim: None,
            cm: None,
            prefetch: fabric.ports.len() >= PREFETCH_MIN_PORTS,
            hops: [(Comp::new(Kind::Sample, 0), 0); HOPS],
            hop_i: 0,
            fabric,
        };
        if let Some(f) = sim.flows.first() {
            sim.q.push(f.spec.start_ps, Comp::new(Kind::Arrivals, 0));
            sim.last_progress = f.spec.start_ps;
        }
        for (i, f) in sim.failures.iter().enumerate() {
            sim.q.push(f.at, Comp::new(Kind::Failure, 2 * i as u32));
            if let Some(u) = f.until {
                sim.q.push(u, Comp::new(Kind::Failure, 2 * i as u32 + 1));
            }
        }
        if sim.sample_ps > 0 {
            sim.q.push(sim.sample_ps, Comp::new(Kind::Sample, 0));
        }
        sim.dcsim_setup(s)?;
        Ok(sim)
    }

    /// Base RTT of the longest path, ps.
    pub fn base_rtt_ps(&self) -> u64 {
        self.base_rtt_ps
    }

    /// One BDP, bytes.
    pub fn bdp_bytes(&self) -> u64 {
        self.bdp_bytes
    }

    #[inline]
    fn cycle(&self) -> Cycles {
        self.now / CYCLE_PS
    }

    fn all_done(&self) -> bool {
        self.flows_done == self.flows.len()
    }

    /// Run the event loop to the end (see the module doc for the stop conditions).
    pub fn run(&mut self, ctl: &RunControl) {
        let wall = std::time::Instant::now();
        let mut last_report = wall;
        if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.interrupted = true;
        }
        while !self.interrupted && !self.all_done() {
            let Some(t) = self.q.peek_time() else { break };
            // The stall deadline is a simulated time, so when a run stalls does not depend on
            // how many events (e.g. output-only queue samples) happened before it.
            let stall_at = if self.next_arrival > self.flows_done {
                self.last_progress.saturating_add(self.stall_ps)
            } else {
                NEVER
            };
            if t > self.max_time.min(stall_at) {
                if stall_at < self.max_time {
                    self.now = stall_at;
                    self.stalled = true;
                } else {
                    self.now = self.max_time;
                }
                break;
            }
            let (t, c) = self.q.pop().expect("peeked");
            self.prefetch_ahead();
            self.now = t;
            self.c.events += 1;
            match c.kind() {
                Kind::Deliver => self.on_deliver(c.index()),
                Kind::TxDone => self.on_txdone(c.index()),
                Kind::FlowTimer => self.on_flow_timer(c.index()),
                Kind::Arrivals => self.on_arrivals(),
                Kind::Failure => self.on_failure(c.index()),
                Kind::Sample => self.on_sample(),
                Kind::DcsimTimer => self.dcsim_on_timer(c.index()),
            }
            if self.c.events & (CHECK_EVERY - 1) == 0 {
                if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    self.interrupted = true;
                    break;
                }
                if let Some(p) = ctl.progress {
                    let w = std::time::Instant::now();
                    if w.duration_since(last_report).as_secs_f64() >= 0.25 {
                        last_report = w;
                        p(self.progress());
                    }
                }
            }
        }
        self.wall_s = wall.elapsed().as_secs_f64();
        if let Some(p) = ctl.progress {
            p(self.progress());
        }
    }

    /// Prefetch the memory the events a few places ahead will need, so the cache misses
    /// overlap with the work of the events before them (the DES is bound by memory
    /// latency). A pipeline over the next events of the calendar's current bucket, each
    /// stage reading only what an earlier stage requested:
    ///
    /// | events ahead (D = [`PREFETCH_AHEAD`]) | `Deliver` on port p | `TxDone` on port p |
    /// |---|---|---|
    /// | 2D | p's lines | p's lines |
    /// | D | p's two link head entries | p's queue heads, link tail |
    /// | D/2 | the next port (routed as [`Sim::switch_arrive`] will) or the flow | |
    /// | D/4 | that port's data queue and link tails (the port remembered in `hops`) | |
    #[inline]
    fn prefetch_ahead(&mut self) {
        const D: usize = PREFETCH_AHEAD;
        if !self.prefetch {
            return;
        }
        if let Some(c) = self.q.ahead_comp(2 * D) {
            if let Some(port) = self.ports.get(c.index() as usize) {
                match c.kind() {
                    Kind::Deliver => prefetch(&port.link),
                    Kind::TxDone => port.prefetch(true),
                    _ => {}
                }
            }
        }
        if let Some(c) = self.q.ahead_comp(D) {
            if let Some(port) = self.ports.get(c.index() as usize) {
                match c.kind() {
                    Kind::Deliver => {
                        // The head, and the entry after it (whose time the delivery reads
                        // to schedule the next one).
                        if let Some(e) = port.link.front() {
                            prefetch_lines(e);
                            prefetch_next(e);
                        }
                    }
                    Kind::TxDone => {
                        if let Some(e) = port.data_q.front() {
                            prefetch_lines(e);
                        }
                        if let Some(e) = port.ctrl_q.front() {
                            prefetch_lines(e);
                        }
                        if let Some(e) = port.link.back() {
                            prefetch_next(e);
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(c) = self.q.ahead_comp(D / 2) {
            if c.kind() == Kind::Deliver {
                match self.next_hop(c.index()) {
                    Some(Hop::Port(out, data)) => {
                        if let Some(o) = self.ports.get(out as usize) {
                            o.prefetch(data);
                        }
                        // Remembered for the last stage, which would route again.
                        self.hops[self.hop_i % HOPS] = (c, out);
                        self.hop_i = self.hop_i.wrapping_add(1);
                    }
                    Some(Hop::Flow(f, data, psn)) => {
                        if let Some(f) = self.flows.get(f as usize) {
                            f.prefetch(data, psn);
                        }
                    }
                    None => {}
                }
            }
        }
        if let Some(c) = self.q.ahead_comp(D / 4) {
            if c.kind() == Kind::Deliver {
                let hop = self.hops.iter().find(|h| h.0 == c).map(|h| h.1);
                if let Some(o) = hop.and_then(|out| self.ports.get(out as usize)) {
                    if let Some(e) = o.data_q.back() {
                        prefetch_next(e);
                    }
                    if let Some(e) = o.link.back() {
                        prefetch_next(e);
                    }
                }
            }
        }
    }

    /// Where the head packet of port `p`'s link goes next: the switch output port it will
    /// be routed to, or its flow at the receiving host (for prefetching only).
    #[inline]
    fn next_hop(&self, p: u32) -> Option<Hop> {
        let port = self.ports.get(p as usize)?;
        let (_, pk) = port.link.front()?;
        match port.peer {
            Node::Switch(s) => {
                let &(route, seed) = self.switches.get(s as usize)?;
                let data = pk.kind == PktKind::Data;
                route
                    .select(pk.src, pk.dst, pk.ev, seed)
                    .map(|o| Hop::Port(o, data))
            }
            Node::Host(_) => Some(Hop::Flow(pk.flow, pk.kind == PktKind::Data, pk.psn)),
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            sim_time_ps: self.now,
            flows_done: self.flows_done as u64,
            flows_total: self.flows.len() as u64,
        }
    }

    // ---------------------------------------------------------------- ports and links

    /// Start the next packet on idle port `p` (at `self.now`), if it has one, and schedule
    /// its `TxDone` if more wait.
    fn start_next(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let host = match port.kind {
            PortKind::Host(h) => Some(h),
            PortKind::Switch(_) => None,
            PortKind::Dcsim(_) => return self.dcsim_service(p),
        };
        let pkt = if let Some(x) = port.ctrl_q.pop_front() {
            Some(x)
        } else if let Some(h) = host {
            self.host_pull(h)
        } else {
            let x = port.data_q.pop_front();
            if let (Some(pk), PortKind::Switch(ctl)) = (&x, &mut port.kind) {
                ctl.on_departure(pk.bytes);
            }
            x
        };
        let Some(pk) = pkt else { return };
        self.transmit(p, pk);
        let port = &mut self.ports[p as usize];
        let more = !port.ctrl_q.is_empty()
            || match port.kind {
                PortKind::Switch(_) => !port.data_q.is_empty(),
                PortKind::Host(h) => !self.ready[h as usize].is_empty(),
                PortKind::Dcsim(_) => false,
            };
        if more {
            port.txdone_at = port.busy_until;
            self.q.push(port.busy_until, Comp::new(Kind::TxDone, p));
        }
    }

    /// Put packet `i` on port `p`'s wire now.
    #[inline]
    fn transmit(&mut self, p: u32, mut pk: Packet) {
        if pk.kind == PktKind::Data && p < self.fabric.hosts {
            // Transmission time at the source, for the queueing delay (DATAs leave `cum_ack`
            // unused; see `crate::dcsim::metrics`).
            pk.cum_ack = crate::dcsim::metrics::stamp(self.now);
        }
        let bytes = pk.bytes;
        let port = &mut self.ports[p as usize];
        port.busy_until = self.now.saturating_add(ser_ps(bytes, port.ser_q32));
        if port.down != 0 {
            self.drop_pkt(p, &pk, Cause::LinkDown);
            return;
        }
        port.tx_bytes += bytes as u64;
        port.tx_packets += 1;
        let at = port.busy_until + port.delay_ps;
        port.link.push_back((at, pk));
        if port.deliver_at == NEVER {
            port.deliver_at = at;
            self.q.push(at, Comp::new(Kind::Deliver, p));
        }
    }

    /// Make port `p` serve its queues: start now if idle, else make sure a `TxDone` is due.
    #[inline]
    fn kick(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if let PortKind::Dcsim(_) = port.kind {
            return self.dcsim_service(p);
        }
        if port.txdone_at != NEVER {
            return;
        }
        if port.busy_until <= self.now {
            self.start_next(p);
        } else {
            port.txdone_at = port.busy_until;
            self.q.push(port.busy_until, Comp::new(Kind::TxDone, p));
        }
    }

    fn on_txdone(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.txdone_at != self.now {
            return;
        }
        port.txdone_at = NEVER;
        self.start_next(p);
    }

    fn on_deliver(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.deliver_at != self.now {
            return;
        }
        port.deliver_at = NEVER;
        loop {
            let port = &mut self.ports[p as usize];
            let Some(&(at, pk)) = port.link.front() else {
                break;
            };
            if at > self.now {
                port.deliver_at = at;
                self.q.push(at, Comp::new(Kind::Deliver, p));
                break;
            }
            port.link.pop_front();
            let peer = port.peer;
            match peer {
                Node::Switch(s) => self.switch_arrive(s, pk),
                Node::Host(h) => self.host_arrive(h, pk),
            }
        }
    }

    fn drop_pkt(&mut self, p: u32, pk: &Packet, cause: Cause) {
        if let Some(d) = self.dcsim.as_deref_mut() {
            d.on_drop(pk);
        }
        if pk.kind == PktKind::Data {
            self.c.data_dropped += 1;
        } else {
            self.c.ctrl_dropped += 1;
        }
        self.c.drops[cause as usize] += 1;
        self.ports[p as usize].drops += 1;
    }

    // ---------------------------------------------------------------- switches

    fn switch_arrive(&mut self, s: u32, mut pk: Packet) {
        let (route, seed) = self.switches[s as usize];
        let Some(out) = route.select(pk.src, pk.dst, pk.ev, seed) else {
            // Unreachable destination: cannot happen in a connected fabric.
            let first = self.fabric.switches[s as usize].first_port;
            self.drop_pkt(first, &pk, Cause::LinkDown);
            return;
        };
        let now_c = self.cycle();
        if pk.kind == PktKind::Data {
            let slot = self.ports[out as usize].sel_slot;
            self.sel.on_select_slot(self.now, slot, pk.bytes);
        }
        if let PortKind::Dcsim(_) = self.ports[out as usize].kind {
            return self.dcsim_switch_arrive(out, pk);
        }
        let port = &mut self.ports[out as usize];
        if pk.kind.is_control() {
            port.ctrl_q.push_back(pk);
        } else {
            let PortKind::Switch(ctl) = &mut port.kind else {
                unreachable!("switch routes lead to switch ports")
            };
            match ctl.on_arrival(now_c, pk.bytes, &mut port.rng) {
                Admit::Enqueue { ecn_mark } => {
                    pk.ecn |= ecn_mark;
                    port.data_q.push_back(pk);
                }
                Admit::Trim => {
                    let hb = ctl.trimmed_size(pk.bytes);
                    pk.kind = PktKind::Header;
                    pk.bytes = hb;
                    self.c.data_trimmed += 1;
                    self.c.ctrl_created += 1;
                    port.ctrl_q.push_back(pk);
                }
                Admit::Drop => {
                    self.drop_pkt(out, &pk, Cause::BufferFull);
                    return;
                }
            }
        }
        self.kick(out);
    }

    // ---------------------------------------------------------------- hosts

    /// A packet reached host `h`.
    fn host_arrive(&mut self, h: u32, pk: Packet) {
        if self.dcsim.is_some() {
            return self.dcsim_host_arrive(h, pk);
        }
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
                let reply = if pk.kind == PktKind::Data {
                    let dups = flow.rx.stats.duplicates;
                    let r = flow
                        .rx
                        .on_data(pk.psn, pk.ecn, pk.ev)
                        .map(|a| (PktKind::Ack, a.cum_ack, a.ecn));
                    if let Some((_, cum, _)) = r {
                        let new = flow.rx.stats.duplicates == dups;
                        self.metrics_data(&pk, new, cum);
                    }
                    r
                } else {
                    flow.rx.on_trimmed(pk.psn, pk.ev);
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
                        self.c.ctrl_created += 1;
                        self.ports[h as usize].ctrl_q.push_back(reply);
                        self.kick(h);
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
                let now_c = self.now / CYCLE_PS;
                if let Some(cc) = &mut flow.cc {
                    cc.sync(now_c);
                    cc.on_nack(pk.psn);
                    self.after_sender_change(f);
                }
            }
            // DCSIM packets exist only in DCSIM runs (handled above).
            PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
        }
    }

    fn sender_ack(&mut self, f: u32, a: Ack) {
        let now_c = self.cycle();
        let flow = &mut self.flows[f as usize];
        let Some(cc) = &mut flow.cc else { return };
        cc.sync(now_c);
        if let Some(rtt) = cc.rtt_sample(&a) {
            flow.detector.on_rtt_sample(now_c, rtt);
        }
        let newly = cc.on_ack(&a);
        flow.lb.on_ack(now_c, a.ev, a.ecn);
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
    fn after_sender_change(&mut self, f: u32) {
        let now_c = self.cycle();
        let flow = &mut self.flows[f as usize];
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
        let sendable = cc.can_send();
        if let Some(d) = cc.timer_deadline() {
            let t = d * CYCLE_PS;
            if t < flow.timer_at {
                flow.timer_at = t;
                self.q.push(t, Comp::new(Kind::FlowTimer, f));
            }
        }
        if sendable {
            if !flow.in_ready {
                flow.in_ready = true;
                self.ready[h as usize].push_back(f);
            }
            self.kick(h);
        }
    }

    /// The next DATA packet host `h` sends: round robin over its ready flows.
    fn host_pull(&mut self, h: u32) -> Option<Packet> {
        let now_c = self.cycle();
        loop {
            let f = self.ready[h as usize].pop_front()?;
            let flow = &mut self.flows[f as usize];
            let Some(cc) = &mut flow.cc else {
                flow.in_ready = false;
                continue;
            };
            cc.sync(now_c);
            let Some(tx) = cc.next_packet() else {
                flow.in_ready = false;
                self.after_sender_change(f);
                continue;
            };
            let ev = flow.lb.on_send(now_c, &mut flow.rng);
            if cc.can_send() {
                self.ready[h as usize].push_back(f);
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
                let t = d * CYCLE_PS;
                if t < flow.timer_at {
                    flow.timer_at = t;
                    self.q.push(t, Comp::new(Kind::FlowTimer, f));
                }
            }
            self.c.data_sent += 1;
            return Some(pk);
        }
    }

    fn on_flow_timer(&mut self, f: u32) {
        let now_c = self.cycle();
        let flow = &mut self.flows[f as usize];
        if flow.timer_at != self.now {
            return;
        }
        flow.timer_at = NEVER;
        if let Some(cc) = &mut flow.cc {
            cc.sync(now_c);
            self.after_sender_change(f);
        }
    }

    fn on_arrivals(&mut self) {
        let now_c = self.cycle();
        while let Some(flow) = self.flows.get_mut(self.next_arrival) {
            if flow.spec.start_ps > self.now {
                self.q
                    .push(flow.spec.start_ps, Comp::new(Kind::Arrivals, 0));
                break;
            }
            let f = self.next_arrival as u32;
            self.next_arrival += 1;
            if self.dcsim.is_some() {
                self.dcsim_open(f);
                continue;
            }
            let s = Sender::new(self.cfg, flow.spec.bytes, now_c)
                .expect("configuration and message size checked at build");
            flow.cc = Some(Cc::Dctcp(Box::new(s)));
            self.last_progress = self.now;
            self.after_sender_change(f);
        }
    }

    /// Failure `idx / 2` begins (`idx` even) or ends. Failures on one link compose: a link is
    /// up only while no failure holds it down (a down-count per port), and its rate is that
    /// of the latest-begun rate change still in force (else its base rate), so an inner
    /// failure's end never undoes an outer one.
    fn on_failure(&mut self, idx: u32) {
        let i = (idx / 2) as usize;
        let begin = idx & 1 == 0;
        self.failures[i].active = begin;
        let fl = self.failures[i];
        for p in fl.ports {
            match fl.gbps {
                Some(_) => {
                    let g = self.rate_in_force(p);
                    let port = &mut self.ports[p as usize];
                    port.gbps = g;
                    port.ser_q32 = ser_q32(port.gbps);
                    if let PortKind::Dcsim(_) = port.kind {
                        self.dcsim_rate_changed(p);
                    }
                }
                None => {
                    let port = &mut self.ports[p as usize];
                    if begin {
                        port.down += 1;
                        // What is on the wire is lost.
                        while let Some((_, pk)) = self.ports[p as usize].link.pop_front() {
                            self.drop_pkt(p, &pk, Cause::LinkDown);
                        }
                    } else {
                        port.down = port.down.checked_sub(1).expect("a failure ends once");
                    }
                }
            }
        }
    }

    /// Port `p`'s rate under the rate changes in force: the latest-begun one (by start
    /// time, then by index), else the fabric's rate.
    fn rate_in_force(&self, p: u32) -> f64 {
        self.failures
            .iter()
            .filter(|f| f.active && f.ports.contains(&p))
            .filter_map(|f| f.gbps.map(|g| (f.at, g)))
            .max_by_key(|&(at, _)| at) // the last of equals: the highest index
            .map_or(self.fabric.ports[p as usize].gbps, |(_, g)| g)
    }

    fn on_sample(&mut self) {
        for (p, port) in self.ports.iter().enumerate() {
            let occupancy = match &port.kind {
                PortKind::Switch(ctl) => Some(ctl.occupancy_bytes()),
                PortKind::Dcsim(d) if p >= self.fabric.hosts as usize => Some(d.queued_bytes()),
                _ => None,
            };
            if let Some(b) = occupancy {
                if b > 0 {
                    self.queues.push(QueueSample {
                        time_ps: self.now,
                        port: self.fabric.ports[p].name.clone(),
                        bytes: b,
                    });
                }
            }
        }
        self.q
            .push(self.now + self.sample_ps, Comp::new(Kind::Sample, 0));
    }

    // ---------------------------------------------------------------- results

    /// The results of the run so far.
    pub fn results(&self, s: &Scenario) -> RunResult {
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut fcts = Vec::new();
        let (mut retx, mut ooo, mut stalls) = (0u64, 0u64, 0u64);
        for (id, f) in self.flows.iter().enumerate() {
            let st = match &f.cc {
                Some(cc) => cc.stats(),
                None => f.stats,
            };
            retx += st.retransmits;
            stalls += st.window_stalls;
            ooo += f.rx.stats.out_of_order;
            let fct = if f.end_ps > 0 {
                f.end_ps - f.spec.start_ps
            } else {
                0
            };
            if f.end_ps > 0 {
                fcts.push(fct);
            }
            flows.push(FlowRecord {
                id: id as u32,
                src: f.spec.src,
                dst: f.spec.dst,
                bytes: f.spec.bytes,
                start_ps: f.spec.start_ps,
                end_ps: f.end_ps,
                fct_ps: fct,
                packets_sent: st.packets_sent,
                retransmits: st.retransmits,
                ecn_acks: st.ecn_acks,
                out_of_order: f.rx.stats.out_of_order,
            });
        }
        fcts.sort_unstable();
        let n = fcts.len();
        let (max_fct, mean_fct, p99) = if n == 0 {
            (0, 0, 0)
        } else {
            let sum: u128 = fcts.iter().map(|&x| x as u128).sum();
            let idx = ((n as f64 * 0.99).ceil() as usize).clamp(1, n) - 1;
            (fcts[n - 1], (sum / n as u128) as u64, fcts[idx])
        };

        let end_s = self.now as f64 * 1e-12;
        let (mut trims, mut marks) = (0u64, 0u64);
        let mut links = Vec::with_capacity(self.ports.len());
        let (mut data_inflight, mut ctrl_inflight) = (0u64, 0u64);
        for (p, port) in self.ports.iter().enumerate() {
            let (m, tr) = match &port.kind {
                PortKind::Switch(ctl) => (ctl.marks(), ctl.trims()),
                PortKind::Host(_) | PortKind::Dcsim(_) => (0, 0),
            };
            marks += m;
            trims += tr;
            for pk in port
                .ctrl_q
                .iter()
                .chain(port.data_q.iter())
                .chain(port.link.iter().map(|(_, pk)| pk))
            {
                if pk.kind == PktKind::Data {
                    data_inflight += 1;
                } else {
                    ctrl_inflight += 1;
                }
            }
            let base = self.fabric.ports[p].gbps;
            links.push(LinkRecord {
                link: self.fabric.ports[p].name.clone(),
                tx_bytes: port.tx_bytes,
                tx_packets: port.tx_packets,
                drops: port.drops,
                ecn_marks: m,
                utilization: if end_s > 0.0 {
                    port.tx_bytes as f64 * 8.0 / (base * 1e9 * end_s)
                } else {
                    0.0
                },
            });
        }
        let drops: u64 = self.c.drops.iter().sum();
        let drops_by_cause: BTreeMap<String, u64> = CAUSE_NAMES
            .iter()
            .zip(self.c.drops)
            .map(|(n, c)| (n.to_string(), c))
            .collect();
        let c = &self.c;
        let mut extra: BTreeMap<String, f64> = [
            ("base_rtt_ps", self.base_rtt_ps as f64),
            ("bdp_bytes", self.bdp_bytes as f64),
            ("buffer_bytes", self.buffer_bytes as f64),
            ("data_delivered", c.data_delivered as f64),
            ("data_dropped", c.data_dropped as f64),
            ("data_trimmed", c.data_trimmed as f64),
            ("data_in_flight_end", data_inflight as f64),
            ("ctrl_created", c.ctrl_created as f64),
            ("ctrl_delivered", c.ctrl_delivered as f64),
            ("ctrl_dropped", c.ctrl_dropped as f64),
            ("ctrl_in_flight_end", ctrl_inflight as f64),
            ("headers_delivered", c.headers_delivered as f64),
            ("timeouts", c.timeouts as f64),
            ("failure_detections", c.failure_detections as f64),
            ("window_stalls", stalls as f64),
            ("stalled", self.stalled as u8 as f64),
            ("interrupted", self.interrupted as u8 as f64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        extra.extend(crate::lb_stats::reps_extra(&self.flows));
        let wall = self.wall_s;
        let per_s = |x: u64| if wall > 0.0 { x as f64 / wall } else { 0.0 };
        let mut r = RunResult {
            summary: Summary {
                seed: s.seed,
                scenario: s.name.clone(),
                dcfab_version: env!("CARGO_PKG_VERSION").to_string(),
                flows: self.flows.len() as u64,
                flows_completed: n as u64,
                max_fct_ps: max_fct,
                mean_fct_ps: mean_fct,
                p99_fct_ps: p99,
                end_time_ps: self.now,
                drops,
                drops_by_cause,
                trims,
                ecn_marks: marks,
                data_packets: c.data_sent,
                retransmits: retx,
                out_of_order: ooo,
                events: c.events,
                wall_s: wall,
                events_per_s: per_s(c.events),
                data_packets_per_s: per_s(c.data_sent),
                extra,
            },
            flows,
            queues: self.queues.clone(),
            links,
            tables: self
                .sel
                .table(&self.fabric)
                .map(|t| (SELECTION_TABLE.to_string(), t))
                .into_iter()
                .collect(),
        };
        self.dcsim_results(&mut r);
        r
    }
}

/// Flow specs of a built run (for tests and tools).
impl Sim {
    /// The flows, in id order.
    pub fn flow_specs(&self) -> Vec<FlowSpec> {
        self.flows.iter().map(|f| f.spec).collect()
    }
}
