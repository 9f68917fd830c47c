//! The slotted region: every pod's blocks on the scheduler's cell clock, joined by the
//! buffered Cores (Zeropod §III, §IV; DESIGN.md "Slotted regions").
//!
//! ```text
//!  epoch e (N data slots, N + 1 control slots, guard band):
//!   start:  SCHDs due at e --> ZeropodNic::on_schd / CoreSwitch::on_schd
//!           RTS of every busy NIC and of every Core port --> its pod's scheduler
//!           scheduler round (I iterations) --> SCHDs for epoch e + d   (d = scheduling delay)
//!   slot g (two phases: every block reads its inputs, evaluates, then outputs move on):
//!     flows whose start has come --> host backlog --> NIC flow table (F entries)
//!     E2P cells whose propagation is over --> CoreSwitch::enqueue (per-host VOQs)
//!     NIC tick --> cell --> ToR in port            Core port tick --> C2E cell
//!     ToR / Agg tick (BufferlessSwitch: collisions decided here)
//!     ToR out: host port --> receiver (dedup by sequence number) | up --> Agg in port
//!     C2E cells --> Agg in port M + c / M (aligned with E2E cells of the same slot, the
//!                   Core's epoch offset of §IV-D)
//!     Agg out: down --> ToR in port M + a | up --> E2P cell to Core (c = (port - M) * M + a)
//! ```
//!
//! Units: time in ps (`slot_start`), cells of 512 B payload + 40 B header, data slots of the
//! pod clock. Cells carry an opaque tag: an index into a ring of [`CellInfo`] (a cell lives at
//! most 3 slots inside a pod; the ring holds 65536), and into a slab while queued at a Core.
//! A data slot is one data cell plus one control cell on the wire; the epoch adds one more
//! control slot and the guard band. Delivery time = send slot start + one cell time + hops x
//! link delay (cut-through bufferless switches): 4 hops host to host, 3 host to Core and
//! Core to host.
//!
//! Receiving NICs are modelled as per-flow bitmaps of received sequence numbers, not the
//! `nic::zeropod::Reassembly` block: its 64-cell window would drop (for good: the fabric has no
//! retransmission) cells of one flow reordered across Cores by more than 64 cells.
//!
//! Idle stretches (no flow, no cell anywhere, no Core occupancy) are skipped to the next flow
//! arrival's epoch; NICs advance lazily (`Clocked::advance`, O(1) when idle).

use std::collections::VecDeque;

use nic::zeropod::{NicConfig, ZeropodNic};
use rtl_models::zeropod_cell::{SchdRepr, PAYLOAD_LEN};
use rtl_models::Clocked;
use switch::zeropod::core_port::CorePortConfig;
use switch::zeropod::core_switch::CoreSwitch;
use switch::zeropod::{BufferlessConfig, BufferlessSwitch, Cell};

use super::links::Links;
use super::rates::{cell_payload, CellRates};
use super::sched::PodScheduler;
use super::trace::{TracedCell, ZeropodTrace};
use crate::topology::zeropod::PodShape;
use crate::workload::FlowSpec;

/// Flows a NIC holds at once (its flow table); more wait in the host's backlog.
pub const NIC_FLOWS: usize = 32;
/// Ports of the bufferless switch instance (2M <= 32).
pub const SW_PORTS: usize = 32;
/// Hosts per pod of the Core instance (only the k = 8 pods have Cores).
pub const CORE_HOSTS: usize = 16;
/// Pods a Core faces (k = 8).
pub const CORE_PODS: usize = 8;
/// Cells per per-host VOQ of a Core port (one host may hold the whole port buffer: 4 MB =
/// 7246 cells per port at 8 pods; 16 x 4096 cells of VOQ capacity, the port buffer caps it).
pub const CORE_VOQ: usize = 4096;
const RING: usize = 1 << 16;

/// A ToR or Agg.
pub type Sw = BufferlessSwitch<SW_PORTS, 4>;
/// A Core.
pub type Core = CoreSwitch<CORE_PODS, CORE_HOSTS, CORE_VOQ>;

/// What a cell's tag stands for.
#[derive(Debug, Clone, Copy, Default)]
pub struct CellInfo {
    /// Global flow index.
    pub flow: u32,
    /// Sequence number (cell index in the flow).
    pub seq: u32,
    /// Scheduled (false: optimistic).
    pub scheduled: bool,
    /// Data slot of the cell's last injection (NIC or Core).
    pub sent: u64,
    /// Hops from that injection to the receiver.
    pub hops: u8,
}

/// Timing of the pod clock, ps.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Data slots per epoch N.
    pub n: u64,
    /// One data cell on the wire.
    pub cell_ps: u64,
    /// One control cell on the wire.
    pub ctrl_ps: u64,
    /// Epoch length.
    pub epoch_ps: u64,
    /// Link propagation per hop.
    pub hop_ps: u64,
    /// Scheduling delay in epochs (RTS in epoch e, grant executed in epoch e + d).
    pub delay_epochs: u64,
}

impl Timing {
    /// Start of data slot `g`.
    pub fn slot_start(&self, g: u64) -> u64 {
        (g / self.n) * self.epoch_ps + self.ctrl_ps + (g % self.n) * (self.cell_ps + self.ctrl_ps)
    }
    /// Arrival of a cell injected in slot `g` after `hops` hops.
    pub fn arrival(&self, g: u64, hops: u8) -> u64 {
        self.slot_start(g) + self.cell_ps + hops as u64 * self.hop_ps
    }
    /// The first slot starting at or after `t`.
    pub fn slot_at_or_after(&self, t: u64) -> u64 {
        let e = t / self.epoch_ps;
        for g in e * self.n..(e + 2) * self.n {
            if self.slot_start(g) >= t {
                return g;
            }
        }
        (e + 2) * self.n
    }
}

/// Per-flow run-time state.
#[derive(Debug, Clone, Default)]
pub struct FlowState {
    /// Cells.
    pub cells: u32,
    /// Distinct cells received.
    pub received: u32,
    /// Received bitmap (allocated at the first cell, freed at completion).
    pub bits: Vec<u64>,
    /// Latest arrival of a new cell, ps.
    pub last_ps: u64,
    /// Completion time, ps (0 = not yet).
    pub end_ps: u64,
    /// Cells sent (scheduled + optimistic).
    pub sent: u32,
    /// Optimistic cells sent.
    pub opt_sent: u32,
}

struct Host {
    nic: ZeropodNic<NIC_FLOWS>,
    ids: [u32; NIC_FLOWS],
    nflows: u32,
    backlog: VecDeque<u32>,
    schd_epoch: u64,
    /// Unsent scheduled cells in the NIC per scheduler matrix entry (`demand_key`).
    unsent: Vec<(u32, u32)>,
    /// The last RTS sent to the scheduler carried mice entries.
    reported_mice: bool,
}

/// Largest count a scheduler matrix entry holds (u16 cells).
pub const MATRIX_MAX: u32 = u16::MAX as u32;

struct Pod {
    sched: Box<dyn PodScheduler>,
    tors: Vec<Sw>,
    aggs: Vec<Sw>,
    outstanding: u64,
}

/// Counters of the region.
#[derive(Debug, Clone, Copy, Default)]
pub struct RegionStats {
    /// Epochs simulated (skipped idle epochs excluded).
    pub epochs: u64,
    /// Idle epochs skipped.
    pub epochs_skipped: u64,
    /// Cells that reached a receiver (any copy).
    pub cells_delivered: u64,
    /// Optimistic cells that reached a receiver.
    pub opt_delivered: u64,
    /// Optimistic cells that reached a receiver first (not a duplicate).
    pub opt_useful: u64,
    /// Duplicate cells at receivers.
    pub duplicates: u64,
    /// E2P cells a Core had to drop (buffer full).
    pub core_drops: u64,
    /// Peak cells at one Core port.
    pub core_peak_cells: u64,
    /// Payload bytes of distinct cells delivered.
    pub goodput_bytes: u64,
    /// Scheduler rounds skipped because no demand was outstanding.
    pub rounds_skipped: u64,
    /// Probe cells injected ([`Region::inject_optimistic`]).
    pub probes_sent: u64,
    /// Probe cells that reached their receiver intact.
    pub probes_delivered: u64,
}

/// The whole Zeropod fabric.
pub struct Region {
    /// Shape.
    pub shape: PodShape,
    /// Timing.
    pub t: Timing,
    hosts: Vec<Host>,
    pods: Vec<Pod>,
    cores: Vec<Box<Core>>,
    ring: Vec<CellInfo>,
    ring_next: usize,
    slab: Vec<CellInfo>,
    slab_free: Vec<u32>,
    to_core: VecDeque<(u64, u32, u32, CellInfo)>,
    schds: VecDeque<(u64, u32, SchdRepr)>,
    /// Flow specs (sorted by start).
    pub specs: Vec<FlowSpec>,
    /// Per-flow state.
    pub flows: Vec<FlowState>,
    next_arrival: usize,
    /// Flows completed.
    pub flows_done: usize,
    /// Current data slot.
    pub slot: u64,
    /// Counters.
    pub stats: RegionStats,
    top_k: u8,
    c2e: Vec<(u32, u32, Cell)>,
    refill: Vec<u32>,
    schd_buf: Vec<SchdRepr>,
    /// Core occupancy samples (time ps, core, pod, cells).
    pub core_samples: Vec<(u64, u32, u32, u32)>,
    sample_every_ps: u64,
    next_sample_ps: u64,
    /// Slot of the last new-cell delivery (stall detection).
    pub last_progress_slot: u64,
    /// `output.trace`: the cell trace ([`super::trace`]); it only reads the region.
    pub trace: Option<Box<ZeropodTrace>>,
    /// Cells sent and dropped per link (`links.csv`, [`super::links`]).
    pub links: Links,
    /// `output.rate_sample_us`: payload delivered per flow and interval
    /// ([`super::rates`]); it only reads the region.
    pub rates: Option<Box<CellRates>>,
    lost_buf: Vec<(u32, bool, u32, u32, u32)>,
}

/// Region parameters beyond the shape.
#[derive(Debug, Clone, Copy)]
pub struct RegionConfig {
    /// Timing.
    pub t: Timing,
    /// Scheduler iterations I.
    pub iterations: u8,
    /// Top-k mice entries per RTS.
    pub top_k: u8,
    /// Optimistic threshold in cells (0 = off).
    pub optimistic_max_cells: u32,
    /// Core port buffer in cells.
    pub core_port_cells: u32,
    /// Backpressure threshold in cells.
    pub backpressure_cells: u32,
    /// Seed.
    pub seed: u64,
    /// Core occupancy sampling interval, ps (0 = off).
    pub sample_every_ps: u64,
    /// Colliding optimistic cells keep occupying their downstream links until the receiver
    /// discards them (`BufferlessConfig::forward_garbled`, the collision model of Eq. 2-6);
    /// false: both are dropped at the switch where they meet.
    pub forward_garbled: bool,
}

/// Flow index of a probe cell ([`Region::inject_optimistic`]): counted, belongs to no flow.
pub const PROBE: u32 = u32::MAX;

fn cfg_err(e: rtl_models::ConfigError) -> crate::error::Error {
    crate::error::Error::field(
        "transport.zeropod",
        format!("block configuration refused: {e}"),
    )
}

impl Region {
    /// Build the fabric for `shape` and the flows `specs` (sorted by start).
    pub fn new(
        shape: PodShape,
        rc: RegionConfig,
        specs: Vec<FlowSpec>,
    ) -> crate::error::Result<Region> {
        let m = shape.m as usize;
        let n = rc.t.n as u16;
        let seed32 = (rc.seed ^ (rc.seed >> 32)) as u32;
        let mut hosts = Vec::with_capacity(shape.hosts as usize);
        for h in 0..shape.hosts {
            let nic = ZeropodNic::new(NicConfig {
                host: h as u16,
                m: m as u8,
                epoch_slots: n,
                optimistic_max_cells: rc.optimistic_max_cells,
                seed: (seed32 ^ h.wrapping_mul(0x9e37_79b9)) | 1,
                ..NicConfig::default()
            })
            .map_err(cfg_err)?;
            hosts.push(Host {
                nic,
                ids: [u32::MAX; NIC_FLOWS],
                nflows: 0,
                backlog: VecDeque::new(),
                schd_epoch: u64::MAX,
                unsent: Vec::new(),
                reported_mice: false,
            });
        }
        let sw_cfg = BufferlessConfig {
            forward_garbled: rc.forward_garbled,
            ..BufferlessConfig::default()
        };
        let mut pods = Vec::with_capacity(shape.pods as usize);
        for p in 0..shape.pods {
            let cfg = scheduler_asic::SchedulerConfig {
                pod: p as u8,
                pods: shape.pods as u8,
                cores: shape.cores as u8,
                mice_core: shape.mice_core.map(|c| c as u8),
                iterations: rc.iterations,
                epoch_slots: n,
                seed: (seed32 ^ (p + 1).wrapping_mul(0x85eb_ca6b)) | 1,
                ..scheduler_asic::SchedulerConfig::default()
            };
            let sched = super::sched::new_scheduler(shape.k, cfg)?;
            // Each switch lists its collision losers ([`Region::take_lost`]).
            let mk = || {
                Sw::new(sw_cfg).map_err(cfg_err).map(|mut w| {
                    w.tap_lost();
                    w
                })
            };
            pods.push(Pod {
                sched,
                tors: (0..m).map(|_| mk()).collect::<Result<_, _>>()?,
                aggs: (0..m).map(|_| mk()).collect::<Result<_, _>>()?,
                outstanding: 0,
            });
        }
        let mut cores = Vec::with_capacity(shape.cores as usize);
        for c in 0..shape.cores {
            let core = Core::new(c as u8, |_| CorePortConfig {
                core: c as u8,
                pod: 0,
                backpressure_cells: rc.backpressure_cells.min(rc.core_port_cells),
                buffer_cells: rc.core_port_cells,
                epoch_slots: n,
                clock_offset: 0,
            })
            .map_err(cfg_err)?;
            cores.push(Box::new(core));
        }
        let flows = specs
            .iter()
            .map(|f| FlowState {
                cells: f.bytes.div_ceil(PAYLOAD_LEN as u64).max(1) as u32,
                ..FlowState::default()
            })
            .collect();
        Ok(Region {
            shape,
            t: rc.t,
            hosts,
            pods,
            cores,
            ring: vec![CellInfo::default(); RING],
            ring_next: 0,
            slab: Vec::new(),
            slab_free: Vec::new(),
            to_core: VecDeque::new(),
            schds: VecDeque::new(),
            specs,
            flows,
            next_arrival: 0,
            flows_done: 0,
            slot: 0,
            stats: RegionStats::default(),
            top_k: rc.top_k,
            c2e: Vec::new(),
            refill: Vec::new(),
            schd_buf: Vec::new(),
            core_samples: Vec::new(),
            sample_every_ps: rc.sample_every_ps,
            next_sample_ps: 0,
            last_progress_slot: 0,
            trace: None,
            rates: None,
            links: Links::new(&shape),
            lost_buf: Vec::new(),
        })
    }

    /// All flows completed.
    pub fn done(&self) -> bool {
        self.flows_done == self.specs.len()
    }

    /// Flows admitted so far.
    pub fn admitted(&self) -> usize {
        self.next_arrival
    }

    /// Start time of the current slot, ps.
    pub fn now_ps(&self) -> u64 {
        self.t.slot_start(self.slot)
    }

    /// Scheduled-cell collisions, optimistic drops, misroutes, overflows over every switch.
    pub fn switch_stats(&self) -> switch::zeropod::bufferless::BufferlessStats {
        let mut s = switch::zeropod::bufferless::BufferlessStats::default();
        for p in &self.pods {
            for w in p.tors.iter().chain(p.aggs.iter()) {
                let x = w.stats();
                s.offered += x.offered;
                s.forwarded += x.forwarded;
                s.optimistic_dropped += x.optimistic_dropped;
                s.scheduled_collisions += x.scheduled_collisions;
                s.misrouted += x.misrouted;
                s.overflow += x.overflow;
                s.garbled_out += x.garbled_out;
            }
        }
        s
    }

    /// NIC counters summed.
    pub fn nic_stats(&self) -> nic::zeropod::NicStats {
        let mut s = nic::zeropod::NicStats::default();
        for h in &self.hosts {
            let x = h.nic.stats();
            s.scheduled_sent += x.scheduled_sent;
            s.optimistic_sent += x.optimistic_sent;
            s.wasted_grant_slots += x.wasted_grant_slots;
            s.flows_refused += x.flows_refused;
            s.schd_refused += x.schd_refused;
            s.flows_done += x.flows_done;
        }
        s
    }

    /// Scheduler counters summed: (rounds, grants, cells, list overflow).
    pub fn sched_stats(&self) -> (u64, u64, u64, u64) {
        self.pods.iter().fold((0, 0, 0, 0), |a, p| {
            let s = p.sched.stats();
            (
                a.0 + s.rounds,
                a.1 + s.grants,
                a.2 + s.cells,
                a.3 + p.sched.overflow() as u64,
            )
        })
    }

    /// Core port counters: (enqueued, sent, dropped, bad SCHDs).
    pub fn core_stats(&self) -> (u64, u64, u64, u64) {
        let mut a = (0, 0, 0, 0);
        for c in &self.cores {
            for p in 0..self.shape.pods as usize {
                if let Some(q) = c.port(p) {
                    let s = q.stats();
                    a.0 += s.enqueued;
                    a.1 += s.sent;
                    a.2 += s.dropped;
                    a.3 += s.bad_schd;
                }
            }
        }
        a
    }

    fn sync(nic: &mut ZeropodNic<NIC_FLOWS>, g: u64) {
        let now = nic.now();
        if now < g {
            nic.advance(g - now);
        }
    }

    fn ring_put(&mut self, info: CellInfo) -> u32 {
        let i = self.ring_next;
        self.ring[i] = info;
        self.ring_next = (i + 1) & (RING - 1);
        i as u32
    }

    /// The scheduler matrix entry a flow's cells are counted in (E2E: the destination host;
    /// E2P: the destination pod), as a key.
    fn demand_key(&self, f: u32) -> u32 {
        let (src, dst) = (self.specs[f as usize].src, self.specs[f as usize].dst);
        let n = self.shape.n;
        if src / n == dst / n {
            dst
        } else {
            u32::MAX - dst / n
        }
    }

    /// Move backlogged flows of host `h` into its NIC's free flow entries, oldest first. A
    /// flow waits while the NIC's unsent cells for its matrix entry plus its own would pass
    /// [`MATRIX_MAX`]: the scheduler's u16 matrix entries saturate, and cells lost to
    /// saturation are never granted (the flow would hang).
    fn fill(&mut self, h: usize) {
        let g = self.slot;
        let mut i = 0;
        while (self.hosts[h].nflows as usize) < NIC_FLOWS && i < self.hosts[h].backlog.len() {
            let f = self.hosts[h].backlog[i];
            let key = self.demand_key(f);
            let cells = self.flows[f as usize].cells;
            let host = &mut self.hosts[h];
            let have = host.unsent.iter().find(|u| u.0 == key).map_or(0, |u| u.1);
            if have + cells > MATRIX_MAX {
                i += 1;
                continue;
            }
            let Some(id) = host.ids.iter().position(|&x| x == u32::MAX) else {
                break;
            };
            Self::sync(&mut host.nic, g);
            let dst = self.specs[f as usize].dst;
            if !host.nic.add_flow(id as u16, dst as u16, cells) {
                break;
            }
            host.backlog.remove(i);
            host.ids[id] = f;
            host.nflows += 1;
            match host.unsent.iter_mut().find(|u| u.0 == key) {
                Some(u) => u.1 += cells,
                None => host.unsent.push((key, cells)),
            }
        }
    }

    /// Nothing in flight anywhere and no flow waiting to be sent.
    fn idle(&self) -> bool {
        self.hosts
            .iter()
            .all(|h| h.nflows == 0 && h.backlog.is_empty())
            && self.to_core.is_empty()
            && self.schds.is_empty()
            && self.cores.iter().all(|c| {
                (0..self.shape.pods as usize).all(|p| c.port(p).is_none_or(|q| q.occupancy() == 0))
            })
    }

    /// Run one epoch (or skip idle epochs up to the next arrival). `limit_ps`: do not start
    /// an epoch at or beyond it.
    pub fn epoch(&mut self) {
        let n = self.t.n;
        let e = self.slot / n;
        // Idle: jump to the epoch of the next arrival (the last epoch's cells have left the
        // switches: every in-pod cell lives at most 3 slots and the epoch has N >= 1 slots;
        // a 1-slot epoch is never skipped).
        if n >= 3 && self.idle() {
            if let Some(f) = self.specs.get(self.next_arrival) {
                let target = f.start_ps / self.t.epoch_ps;
                if target > e + 1 {
                    let skip = target - e - 1;
                    self.skip_epochs(skip);
                    return;
                }
            }
        }
        self.stats.epochs += 1;
        // SCHDs due now.
        while let Some(&(due, p, s)) = self.schds.front() {
            if due > e {
                break;
            }
            self.schds.pop_front();
            if s.to_core {
                if let Some(c) = self.cores.get_mut(s.to as usize) {
                    c.on_schd(p as usize, &s);
                }
            } else {
                let h = (p * self.shape.n + s.to as u32) as usize;
                if let Some(host) = self.hosts.get_mut(h) {
                    Self::sync(&mut host.nic, self.slot);
                    host.nic.on_schd(&s);
                    host.schd_epoch = e;
                }
            }
        }
        // RTS of busy NICs and of every Core port; one round per pod.
        for h in 0..self.hosts.len() {
            let host = &mut self.hosts[h];
            // Every host sends an RTS every epoch (§IV-E: dummy ones when idle). An idle NIC's
            // RTS is empty, so it is skipped, except the first one after the last mice entry
            // went away: the scheduler keeps each host's last top-k list until the next RTS,
            // and a stale entry would keep that host's elephant first in line.
            if host.nflows == 0 && !host.reported_mice {
                continue;
            }
            Self::sync(&mut host.nic, self.slot);
            let mut r = host.nic.rts();
            r.n_mice = r.n_mice.min(self.top_k);
            let had_mice = host.reported_mice;
            host.reported_mice = r.n_mice > 0;
            let p = h / self.shape.n as usize;
            let pod = &mut self.pods[p];
            let arrived: u64 = r.arrivals[..r.n_arrivals as usize]
                .iter()
                .map(|a| a.cells as u64)
                .sum();
            pod.outstanding += arrived;
            if arrived > 0 || r.n_mice > 0 || had_mice {
                pod.sched.on_rts(&r);
            }
        }
        for c in self.cores.iter_mut() {
            for (p, pod) in self.pods.iter_mut().enumerate() {
                if let Some(r) = c.rts(p) {
                    pod.outstanding += r.arrivals[..r.n_arrivals as usize]
                        .iter()
                        .map(|a| a.cells as u64)
                        .sum::<u64>();
                    pod.sched.on_rts(&r);
                }
            }
        }
        let due = e + self.t.delay_epochs;
        for (p, pod) in self.pods.iter_mut().enumerate() {
            if pod.outstanding == 0 {
                self.stats.rounds_skipped += 1;
                continue;
            }
            self.schd_buf.clear();
            pod.sched.round(due as u16, &mut self.schd_buf);
            for s in &self.schd_buf {
                pod.outstanding = pod.outstanding.saturating_sub(s.volume as u64);
                self.schds.push_back((due, p as u32, *s));
            }
        }
        for _ in 0..n {
            self.step_slot();
        }
    }

    fn skip_epochs(&mut self, k: u64) {
        let slots = k * self.t.n;
        for p in self.pods.iter_mut() {
            for w in p.tors.iter_mut().chain(p.aggs.iter_mut()) {
                w.advance(slots);
            }
        }
        for c in self.cores.iter_mut() {
            for p in 0..self.shape.pods as usize {
                for _ in 0..slots {
                    c.tick_pod(p);
                }
            }
        }
        self.slot += slots;
        self.stats.epochs_skipped += k;
    }

    /// `info`'s cell as the trace shows it (`None` for a probe, which belongs to no flow).
    fn traced(&self, info: &CellInfo) -> Option<TracedCell> {
        let f = self.specs.get(info.flow as usize)?;
        Some(TracedCell {
            flow: info.flow,
            seq: info.seq,
            src: f.src,
            dst: f.dst,
            opt: !info.scheduled,
        })
    }

    /// `output.trace`: hand `info`'s cell to the trace as `rec` records it (nothing without a
    /// trace, or for a probe).
    #[inline]
    fn trace_cell(&mut self, info: &CellInfo, rec: impl FnOnce(&mut ZeropodTrace, TracedCell)) {
        if self.trace.is_none() {
            return;
        }
        if let (Some(cell), Some(z)) = (self.traced(info), self.trace.as_deref_mut()) {
            rec(z, cell);
        }
    }

    fn deliver(&mut self, info: CellInfo) {
        if info.flow == PROBE {
            self.stats.probes_delivered += 1;
            return;
        }
        let f = info.flow as usize;
        let at = self.t.arrival(info.sent, info.hops);
        if self.trace.is_some() {
            let st = &self.flows[f];
            let dup = st.end_ps > 0
                || info.seq >= st.cells
                || st
                    .bits
                    .get(info.seq as usize / 64)
                    .is_some_and(|w| w >> (info.seq % 64) & 1 == 1);
            self.trace_cell(&info, |z, c| z.host_rx(at, c, dup));
        }
        self.stats.cells_delivered += 1;
        if !info.scheduled {
            self.stats.opt_delivered += 1;
        }
        let st = &mut self.flows[f];
        if st.end_ps > 0 || info.seq >= st.cells {
            self.stats.duplicates += 1;
            return;
        }
        if st.bits.is_empty() {
            st.bits = vec![0u64; (st.cells as usize).div_ceil(64)];
        }
        let (w, b) = (info.seq as usize / 64, info.seq % 64);
        if st.bits[w] >> b & 1 == 1 {
            self.stats.duplicates += 1;
            return;
        }
        st.bits[w] |= 1 << b;
        st.received += 1;
        st.last_ps = st.last_ps.max(at);
        if !info.scheduled {
            self.stats.opt_useful += 1;
        }
        let payload = cell_payload(self.specs[f].bytes, info.seq);
        self.stats.goodput_bytes += payload;
        if let Some(r) = self.rates.as_deref_mut() {
            r.add(f, at, payload);
        }
        self.last_progress_slot = self.slot;
        if st.received == st.cells {
            st.end_ps = st.last_ps.max(self.specs[f].start_ps + 1);
            st.bits = Vec::new();
            self.flows_done += 1;
        }
    }

    /// The cells that lost a collision in the pods' switches in this slot: counted as their
    /// output's drops (`links.csv`) and traced (`output.trace`).
    fn take_lost(&mut self, start: u64) {
        let mut lost = std::mem::take(&mut self.lost_buf);
        lost.clear();
        for (p, pod) in self.pods.iter().enumerate() {
            for (agg, sws) in [(false, &pod.tors), (true, &pod.aggs)] {
                for (i, w) in sws.iter().enumerate() {
                    for d in w.lost() {
                        let (p, i, port) = (p as u32, i as u32, u32::from(d.port));
                        self.links.drops[self.links.ix.switch_port(p, agg, i, port) as usize] += 1;
                        if self.trace.is_some() {
                            lost.push((p, agg, i, port, d.cell.tag));
                        }
                    }
                }
            }
        }
        for &(p, agg, i, port, tag) in &lost {
            let info = self.ring[tag as usize];
            self.trace_cell(&info, |z, cell| z.switch_lost(start, p, agg, i, port, cell));
        }
        self.lost_buf = lost;
    }

    /// Offer one optimistic probe cell from host `h` to host `dst` of the same pod over Agg
    /// `agg` in the current slot (the setup of Eq. 2-6: unscheduled intra-pod cells on random
    /// paths). Probes belong to no flow; [`RegionStats::probes_delivered`] counts arrivals.
    pub fn inject_optimistic(&mut self, h: u32, dst: u32, agg: u32) {
        let (m, n) = (self.shape.m, self.shape.n);
        let d = dst % n;
        let Ok(route) =
            rtl_models::zeropod_cell::Route::new(&[(m + agg) as u8, (d / m) as u8, (d % m) as u8])
        else {
            return;
        };
        let tag = self.ring_put(CellInfo {
            flow: PROBE,
            seq: 0,
            scheduled: false,
            sent: self.slot,
            hops: 4,
        });
        self.stats.probes_sent += 1;
        let (p, i) = ((h / n) as usize, h % n);
        self.pods[p].tors[(i / m) as usize].offer(
            (i % m) as u8,
            Cell {
                route,
                scheduled: false,
                tag,
                garbled: false,
            },
        );
    }

    /// Run one data slot (public for probes; [`Region::epoch`] runs the control plane too).
    pub fn step_slot(&mut self) {
        let g = self.slot;
        let start = self.t.slot_start(g);
        let m = self.shape.m as usize;
        let n = self.shape.n as usize;
        let e = g / self.t.n;
        if let Some(z) = self.trace.as_deref_mut() {
            z.flush_before(start);
        }
        // Arrivals.
        while let Some(f) = self.specs.get(self.next_arrival) {
            if f.start_ps > start {
                break;
            }
            let (src, i) = (f.src as usize, self.next_arrival as u32);
            self.next_arrival += 1;
            self.hosts[src].backlog.push_back(i);
            self.fill(src);
        }
        // E2P cells reaching their Core.
        while let Some(&(due, c, dst, info)) = self.to_core.front() {
            if due > g {
                break;
            }
            self.to_core.pop_front();
            let tag = match self.slab_free.pop() {
                Some(i) => {
                    self.slab[i as usize] = info;
                    i
                }
                None => {
                    self.slab.push(info);
                    (self.slab.len() - 1) as u32
                }
            };
            let core = &mut self.cores[c as usize];
            let taken = core.enqueue(dst as u16, tag);
            let p = dst as usize / CORE_HOSTS;
            let cells = core.port(p).map_or(0, |q| q.occupancy());
            if !taken {
                self.stats.core_drops += 1;
                self.slab_free.push(tag);
                self.links.drops[self.links.ix.core_port(c, p as u32) as usize] += 1;
            } else {
                self.stats.core_peak_cells = self.stats.core_peak_cells.max(cells as u64);
            }
            let sent = (!taken).then_some(false);
            self.trace_cell(&info, |z, cell| {
                z.core(start, c, p as u32, cell, sent, cells)
            });
        }
        // Core occupancy samples.
        if self.sample_every_ps > 0 && !self.cores.is_empty() && start >= self.next_sample_ps {
            for (c, core) in self.cores.iter().enumerate() {
                for p in 0..self.shape.pods as usize {
                    if let Some(q) = core.port(p) {
                        self.core_samples
                            .push((start, c as u32, p as u32, q.occupancy()));
                    }
                }
            }
            self.next_sample_ps = start + self.sample_every_ps;
        }
        // NICs: one cell each.
        self.refill.clear();
        for h in 0..self.hosts.len() {
            let host = &mut self.hosts[h];
            if host.nflows == 0 && host.schd_epoch != e {
                continue;
            }
            Self::sync(&mut host.nic, g);
            host.nic.tick();
            let Some(c) = host.nic.output() else {
                continue;
            };
            let f = host.ids[c.flow as usize % NIC_FLOWS];
            if f == u32::MAX {
                continue;
            }
            if c.scheduled {
                let key = self.demand_key(f);
                let host = &mut self.hosts[h];
                if let Some(k) = host.unsent.iter().position(|u| u.0 == key) {
                    host.unsent[k].1 -= 1;
                    if host.unsent[k].1 == 0 {
                        host.unsent.swap_remove(k);
                    }
                }
                if c.seq + 1 == self.flows[f as usize].cells {
                    host.ids[c.flow as usize % NIC_FLOWS] = u32::MAX;
                    host.nflows -= 1;
                    self.refill.push(h as u32);
                }
            }
            let st = &mut self.flows[f as usize];
            st.sent += 1;
            if !c.scheduled {
                st.opt_sent += 1;
            }
            self.links.tx[self.links.ix.host(h as u32) as usize] += 1;
            if let Some(z) = self.trace.as_deref_mut() {
                let cell = TracedCell {
                    flow: f,
                    seq: c.seq,
                    src: h as u32,
                    dst: self.specs[f as usize].dst,
                    opt: !c.scheduled,
                };
                z.host_tx(start, h as u32, cell);
            }
            let local = self.specs[f as usize].dst as usize / n == h / n;
            let tag = self.ring_put(CellInfo {
                flow: f,
                seq: c.seq,
                scheduled: c.scheduled,
                sent: g,
                hops: if local { 4 } else { 3 },
            });
            let (p, i) = (h / n, h % n);
            self.pods[p].tors[i / m].offer(
                (i % m) as u8,
                Cell {
                    route: c.route,
                    scheduled: c.scheduled,
                    tag,
                    garbled: false,
                },
            );
        }
        for i in 0..self.refill.len() {
            let h = self.refill[i] as usize;
            self.fill(h);
        }
        // Core ports: C2E cells of this slot.
        self.c2e.clear();
        for c in 0..self.cores.len() {
            for p in 0..self.shape.pods as usize {
                if let Some(d) = self.cores[c].tick_pod(p) {
                    let mut info = self.slab[d.tag as usize];
                    self.slab_free.push(d.tag);
                    info.sent = g;
                    info.hops = 3;
                    self.links.tx[self.links.ix.core_port(c as u32, p as u32) as usize] += 1;
                    if self.trace.is_some() {
                        let cells = self.cores[c].port(p).map_or(0, |q| q.occupancy());
                        self.trace_cell(&info, |z, cell| {
                            z.core(start, c as u32, p as u32, cell, Some(true), cells)
                        });
                    }
                    let tag = self.ring_put(info);
                    self.c2e.push((
                        c as u32,
                        p as u32,
                        Cell {
                            route: d.route,
                            scheduled: true,
                            tag,
                            garbled: false,
                        },
                    ));
                }
            }
        }
        // Switches evaluate.
        for pod in self.pods.iter_mut() {
            for w in pod.tors.iter_mut().chain(pod.aggs.iter_mut()) {
                w.tick();
            }
        }
        self.take_lost(start);
        // ToR outputs.
        for p in 0..self.pods.len() {
            for t in 0..m {
                let deps = *self.pods[p].tors[t].departures();
                for d in deps.iter().flatten() {
                    let port = d.port as usize;
                    let l = self
                        .links
                        .ix
                        .switch_port(p as u32, false, t as u32, port as u32);
                    self.links.tx[l as usize] += 1;
                    if port < m {
                        if !d.cell.garbled {
                            let info = self.ring[d.cell.tag as usize];
                            self.deliver(info);
                        }
                    } else {
                        self.pods[p].aggs[port - m].offer(t as u8, d.cell);
                    }
                }
            }
        }
        for i in 0..self.c2e.len() {
            let (c, p, cell) = self.c2e[i];
            let c = c as usize;
            self.pods[p as usize].aggs[c % m].offer((m + c / m) as u8, cell);
        }
        // Agg outputs.
        for p in 0..self.pods.len() {
            for a in 0..m {
                let deps = *self.pods[p].aggs[a].departures();
                for d in deps.iter().flatten() {
                    let port = d.port as usize;
                    let l = self
                        .links
                        .ix
                        .switch_port(p as u32, true, a as u32, port as u32);
                    self.links.tx[l as usize] += 1;
                    if port < m {
                        self.pods[p].tors[port].offer((m + a) as u8, d.cell);
                    } else if !d.cell.garbled {
                        let c = (port - m) * m + a;
                        let info = self.ring[d.cell.tag as usize];
                        let dst = self.specs[info.flow as usize].dst;
                        let due = self.t.slot_at_or_after(self.t.arrival(info.sent, 3));
                        if c < self.cores.len() {
                            self.to_core
                                .push_back((due.max(g + 1), c as u32, dst, info));
                        } else {
                            self.stats.core_drops += 1;
                        }
                    }
                }
            }
        }
        self.slot += 1;
    }
}
