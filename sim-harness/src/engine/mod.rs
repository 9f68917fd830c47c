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

use crate::clock::NIC_CLOCK;
use crate::error::{Error, Result};
use crate::event::{Comp, EventQueue, Kind, Time, NEVER};
use crate::flow::{self, Cc, FlowRt, Lb};
use crate::lb_stats::{SelectionTable, SELECTION_TABLE};
use crate::packet::{Packet, PktKind};
use crate::port::{Admitted, PortDriver};
use crate::prefetch::{prefetch, prefetch_head, prefetch_lines, prefetch_next};
use crate::results::{FlowRecord, LinkRecord, Progress, QueueSample, RunResult, Summary};
use crate::run::RunControl;
use crate::scenario::Scenario;
use crate::topology::{self, Fabric, Node, Route};
use crate::transport::{Dctcp, TransportDriver};
use crate::workload::{self, FlowSpec};

use nic::reps::FailureDetector;
use nic::transport::{DctcpConfig, SenderStats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtl_models::{Lfsr32, RedConfig};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use switch::output_port::{OutputPortCtl, PortConfig};

mod build;
pub(crate) mod chain;
pub mod failure_sets;
mod failures;
mod links;
pub mod loss;
pub(crate) mod metrics;
mod ports;
mod prefetch;
mod results;
mod run;
mod sampling;
mod shift;
mod skip;
pub(crate) mod trace;
mod two_dc;

pub use skip::SKIP_FLOWS_COLUMNS;

/// Picoseconds per cycle of the NIC and switch clocks (1 GHz): [`crate::clock::NIC_CLOCK`].
pub const CYCLE_PS: u64 = crate::clock::NIC_PERIOD_PS;

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
pub(crate) enum Cause {
    /// Output buffer full (tail drop).
    BufferFull = 0,
    /// Sent into a link that is down.
    LinkDown = 1,
    /// Receiver discarded a DATA packet beyond its window.
    BeyondWindow = 2,
}

const CAUSE_NAMES: [&str; 3] = ["buffer_full", "link_down", "beyond_window"];

/// Where a delivered packet goes next ([`Sim::next_hop`]): a port, or a flow (with
/// whether the packet is a DATA, and its PSN).
pub(crate) enum Hop {
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
pub(crate) struct PortRt {
    // line 0
    pub(crate) deliver_at: Time,
    pub(crate) busy_until: Time,
    /// Serialization time in ps per byte, Q32.32.
    pub(crate) ser_q32: u64,
    pub(crate) peer: Node,
    /// Packets on the wire: (arrival time at the far end, packet).
    pub(crate) link: VecDeque<(Time, Packet)>,
    // line 1
    pub(crate) txdone_at: Time,
    /// Propagation delay plus, towards a switch, its latency.
    pub(crate) delay_ps: u64,
    pub(crate) tx_bytes: u64,
    pub(crate) tx_packets: u64,
    /// Control lane.
    pub(crate) ctrl_q: VecDeque<Packet>,
    // line 2
    /// Data FIFO.
    pub(crate) data_q: VecDeque<Packet>,
    pub(crate) drops: u64,
    pub(crate) gbps: f64,
    pub(crate) rng: Lfsr32,
    /// Slot in [`SelectionTable`] (`u32::MAX`: not a counted ToR uplink).
    pub(crate) sel_slot: u32,
    /// Failures holding the link down (up when 0).
    pub(crate) down: u16,
    /// The DATA lane is held (a port of a skipped Wormhole partition that keeps serving
    /// other partitions' control packets, `engine/skip/held.rs`).
    pub(crate) data_frozen: bool,
    /// `skip.held_occupancy`: the summed estimated rate (bit/s) of the skipped flows whose
    /// DATA lane this port holds (0: none), and the start of their virtual DATA stream.
    pub(crate) virt_bps: u64,
    pub(crate) virt_t0: Time,
    // lines 3..
    /// The port driver ([`crate::port`]).
    pub(crate) kind: PortDriver,
}

impl PortRt {
    /// Prefetch the lines an enqueue and a transmission touch: the link, the control lane,
    /// the data FIFO and the admission block's tag, and for a DATA the block's counters
    /// (lines 0-3, or 0-4). The rest (line 5) is configuration read rarely.
    #[inline]
    fn prefetch(&self, data: bool) {
        prefetch_head(self, if data { 5 * 64 } else { 4 * 64 });
    }

    /// Packet `pk` enters port `p`'s wire, arriving at the far end at `at`; the head of the
    /// wire has one `Deliver` event ([`Sim::transmit`] and the DCSIM switch ports' start).
    #[inline(always)]
    pub(crate) fn enter_link(&mut self, q: &mut EventQueue, p: u32, at: Time, pk: Packet) {
        self.link.push_back((at, pk));
        if self.deliver_at == NEVER {
            self.deliver_at = at;
            q.push(at, Comp::new(Kind::Deliver, p));
        }
    }
}

/// Serialization time of `bytes` at `ser_q32` ps per byte (Q32.32), rounded up; in u128 so
/// no rate validation allows overflows (a u64 product overflows below about 8 Mb/s).
#[inline]
pub(crate) fn ser_ps(bytes: u32, ser_q32: u64) -> u64 {
    let ps = (u128::from(bytes) * u128::from(ser_q32)).div_ceil(1 << 32);
    u64::try_from(ps).unwrap_or(u64::MAX)
}

fn ser_q32(gbps: f64) -> u64 {
    (8000.0 / gbps * 4_294_967_296.0).round() as u64
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct FailureRt {
    ports: [u32; 2],
    /// Between its begin and end events.
    active: bool,
    gbps: Option<f64>,
    /// A lossy window (a `drop_prob` failure or a `[[loss]]` entry on this port, which
    /// `loss` draws): neither down nor slowed, only an interrupt for Wormhole
    /// (`skip/failure.rs`; listed in skipping runs only).
    lossy: bool,
    at: Time,
    until: Option<Time>,
}

impl FailureRt {
    /// In force from the start to the end of the run: part of the fabric rather than an
    /// event in it (a slowed core of `topology.slow_core_fraction`, a link down throughout).
    fn permanent(&self) -> bool {
        self.at == 0 && self.until.is_none()
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counters {
    /// Events the run loop processed (not Wormhole's own); the output samplers' ticks are
    /// among them, see [`Counters::simulated_events`].
    pub(crate) events: u64,
    /// Ticks of the output samplers (`output.queue_sample_us`, `output.rate_sample_us`):
    /// they observe the run, so the summary's `events` leaves them out.
    pub(crate) sample_ticks: u64,
    pub(crate) data_sent: u64,
    pub(crate) data_delivered: u64,
    pub(crate) data_dropped: u64,
    pub(crate) data_trimmed: u64,
    pub(crate) headers_delivered: u64,
    pub(crate) ctrl_created: u64,
    pub(crate) ctrl_delivered: u64,
    pub(crate) ctrl_dropped: u64,
    pub(crate) drops: [u64; 3],
    pub(crate) timeouts: u64,
    pub(crate) failure_detections: u64,
}

impl Counters {
    /// The simulated events: [`Counters::events`] without the output samplers' ticks, so the
    /// count is the same whatever the output settings. Counted apart in the sampler (rare)
    /// rather than tested in the run loop (every event).
    pub(crate) fn simulated_events(&self) -> u64 {
        self.events - self.sample_ticks
    }
}

/// One fabric run.
pub struct Sim {
    pub(crate) q: EventQueue,
    pub(crate) now: Time,
    pub(crate) fabric: Fabric,
    pub(crate) ports: Vec<PortRt>,
    pub(crate) switches: Vec<(Route, u64)>,
    /// `transport.lb = "adaptive_roce"`: the switches' adaptive-routing engines
    /// ([`topology::adaptive`]); `"spray_rr"` (not under `cc = "dcsim"`): the round-robin
    /// counters of every input link ([`topology::spray_rr`]); `None` routes by the ECMP hash
    /// alone.
    pub(crate) routing: Option<Box<topology::SwitchRouting>>,
    pub(crate) flows: Vec<FlowRt>,
    pub(crate) next_arrival: usize,
    pub(crate) failures: Vec<FailureRt>,
    pub(crate) cfg: DctcpConfig,
    pub(crate) hdr_bytes: u32,
    pub(crate) base_rtt_ps: u64,
    pub(crate) bdp_bytes: u64,
    pub(crate) buffer_bytes: u64,
    /// Random loss on links (`[[loss]]`; `None` without).
    pub(crate) loss: Option<Box<loss::LossState>>,
    /// Buffer of the ports only inter-DC traffic crosses (`two_dc`; else `buffer_bytes`).
    pub(crate) dc_buffer_bytes: u64,
    pub(crate) sample_ps: u64,
    pub(crate) max_time: Time,
    pub(crate) stall_ps: u64,
    pub(crate) last_progress: Time,
    pub(crate) flows_done: usize,
    pub(crate) stalled: bool,
    pub(crate) interrupted: bool,
    pub(crate) c: Counters,
    pub(crate) queues: Vec<QueueSample>,
    /// Phantom-queue samples (time, port, bytes) of `phantom_queues.csv`.
    pub(crate) phantom_samples: Vec<(Time, u32, u64)>,
    /// DATA packets per ToR uplink per time bucket (`uplink_selection.csv`).
    pub(crate) sel: SelectionTable,
    pub(crate) wall_s: f64,
    /// The transport of every host ([`crate::transport`]).
    pub(crate) transport: TransportDriver,
    /// Collective metrics (CCT, queueing delay, reordering, utilization), every transport.
    pub(crate) cm: Option<Box<crate::metrics::CollMetrics>>,
    /// The last [`HOPS`] deliveries the prefetcher routed: (event, output port).
    pub(crate) hops: [(Comp, u32); HOPS],
    pub(crate) hop_i: usize,
    /// Run [`Sim::prefetch_ahead`]: only when the ports outgrow the caches
    /// ([`PREFETCH_MIN_PORTS`]); below that the hints cost more than the misses they hide.
    /// Never for DCSIM ports ([`Sim::prefetch_for_ports`]).
    pub(crate) prefetch: bool,
    /// The per-flow rate series (`output.rate_sample_us > 0`; [`sampling`]).
    pub(crate) rates: Option<Box<sampling::RateSampler>>,
    /// Wormhole (`skip.enabled`, `llm` workloads): partitions, skipping, the LLM DAG.
    pub(crate) wh: Option<Box<skip::Wormhole>>,
    /// Some Wormhole partition is skipped: packets reaching a host may be held
    /// ([`Sim::wh_hold`]).
    pub(crate) wh_holding: bool,
    /// Some lockstep follower was paused with `skip.lockstep_shadow`: transmissions are
    /// checked for placeholders and mirrored ([`Sim::wh_mirror`]). Never reset (placeholders
    /// may still wait in a control lane).
    pub(crate) wh_shadowing: bool,
    /// A transmission takes its cold hooks ([`Sim::transmit`]): `wh_shadowing` or the packet
    /// trace; one test on the hot path for both.
    pub(crate) tx_hooks: bool,
    /// A delivery to a host takes its cold hooks ([`Sim::on_deliver`]): `wh_holding` or the
    /// packet trace ([`Sim::set_wh_holding`] keeps it).
    pub(crate) deliver_hooks: bool,
    /// Self-clocked flow starts (`workload.self_clocked`; [`chain`]); `None` without.
    pub(crate) chain: Option<Box<chain::Chain>>,
    /// `output.trace`: the packet trace being recorded (`trace.rs`).
    pub(crate) trace: Option<Box<trace::Tracer>>,
    /// Per-connection state (`transport.reps.per_connection`,
    /// `transport.per_connection_cwnd`); empty without.
    pub(crate) conns: crate::flow::Conns,
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
    /// `topology.two_dc.dc_buffer` resolved (`buffer_bytes` when absent), bytes per port only
    /// inter-DC traffic crosses ([`crate::topology::PortRole::inter_dc`]).
    pub dc_buffer_bytes: u64,
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
        let rto = NIC_CLOCK.us_to_cycles(s.transport.rto_us);
        Derived {
            base_rtt_ps,
            bdp_bytes,
            buffer_bytes: t.buffer.bytes(bdp_bytes),
            dc_buffer_bytes: t.two_dc.dc_buffer.unwrap_or(t.buffer).bytes(bdp_bytes),
            rto_cycles: rto.clamp(1.0, (u32::MAX >> 1) as f64) as u32,
        }
    }
}

fn cfg_err(field: &str, e: rtl_models::ConfigError) -> Error {
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

impl Sim {
    /// Base RTT of the longest path, ps.
    pub fn base_rtt_ps(&self) -> u64 {
        self.base_rtt_ps
    }

    /// One BDP, bytes.
    pub fn bdp_bytes(&self) -> u64 {
        self.bdp_bytes
    }

    fn all_done(&self) -> bool {
        self.flows_done == self.flows.len()
    }

    /// The progress report now (bytes: O(flows), a few times per wall-clock second).
    pub fn progress(&self) -> Progress {
        let skipping = self.wh_in_skip_bytes();
        let bytes_done = (0..self.next_arrival as u32)
            .map(|f| self.acked_or_skipping(f, &skipping))
            .sum();
        Progress {
            sim_time_ps: self.now,
            flows_done: self.flows_done as u64,
            flows_total: self.flows.len() as u64,
            bytes_done,
            bytes_total: self.flows.iter().map(|f| f.spec.bytes).sum(),
            max_time_ps: if self.max_time == NEVER {
                0
            } else {
                self.max_time
            },
        }
    }
}

/// Flow specs of a built run (for tests and tools).
impl Sim {
    /// Number of output ports (ids `0..port_count`).
    pub fn port_count(&self) -> u32 {
        self.ports.len() as u32
    }

    /// The flows, in id order.
    pub fn flow_specs(&self) -> Vec<FlowSpec> {
        self.flows.iter().map(|f| f.spec).collect()
    }
}
