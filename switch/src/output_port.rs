//! Baseline switch output port: output-queued, tail drop, RED/ECN marking, an optional
//! phantom queue driving the marks, and optional packet trimming.
//!
//! Paper setup: REPS section 4.1 (htsim baseline: output-queued 400 Gb/s ports, one-BDP
//! queues, `K_min` = 20 % and `K_max` = 80 % of the queue, RED/ECN marking as in section 2.1;
//! trimming as in section 2.1 and Appendix A: "packet trimming, which only triggers for
//! congestion drops": when the payload would be dropped, the header is forwarded at high
//! priority). Phantom queue: Uno section 4.1.3 (drain at 0.9 x line rate, Table 2), whose
//! occupancy replaces the real queue's as the input of the ECN marker.
//!
//! Split the way the hardware is split:
//!
//! * [`OutputPortCtl`]: the admission / marking control block (no packet storage). It
//!   keeps the data-queue occupancy (bytes, packets), the phantom queue and the drop / trim /
//!   mark counters, and decides per arriving packet. O(1), no allocation; the DES calls it
//!   per packet and keeps the packets itself.
//! * [`OutputPort`]: a complete cycle-accurate port for co-simulation: the control block,
//!   an `N`-entry data descriptor FIFO, an `N`-entry high-priority header FIFO (trimmed
//!   headers) and a line serializer of `W` bytes per cycle.
//!
//! ```text
//!                       +------------------- OutputPort<N> ---------------------------+
//!                       |  +--------------- OutputPortCtl ------------+               |
//!  arrive(desc) ------->|  | tail drop: occ + bytes > buffer_bytes ?  |--Drop         |
//!  (bytes, ecn,         |  |   trimming ? Trim : Drop                 |               |
//!   trimmed)            |  | ECN: RedMarker(level) where level =      |               |
//!                       |  |   phantom occupancy (synced to now) or   |               |
//!                       |  |   real occupancy, before this packet     |               |
//!                       |  | phantom.on_enqueue(bytes) on Enqueue     |               |
//!                       |  +------------------------------------------+               |
//!                       |     | Enqueue{ecn_mark}          | Trim (header_bytes)      |
//!                       |     v                            v                          |
//!                       |  [data FIFO, N desc]  [header FIFO, N desc, high prio]      |
//!                       |     |  lower priority            | strict priority          |
//!                       |     +-------------+--------------+ (non-preemptive)         |
//!                       |                   v                                         |
//!                       |        serializer: W bytes/cycle, holds the line            |
//!                       |        ceil(bytes / W) cycles per packet                    |
//!                       +-------------------|-----------------------------------------+
//!                                           v take_departure(): packet whose
//!                                             transmission started this cycle
//! ```
//!
//! Units: occupancies and thresholds in bytes (`u64`), packet sizes in bytes (`u32`), time
//! in cycles of the port clock ([`Cycles`]), phantom drain in bytes per cycle (Q32.32
//! [`Rate`](rtl_models::Rate)), line rate `W` in whole bytes per cycle.
//!
//! Semantics:
//!
//! * The ECN decision is taken on the occupancy seen by the arriving packet (before it is
//!   added), like htsim's ECN queue. Without a phantom queue it uses the real data-queue
//!   occupancy and [`PortConfig::ecn`]; with one, [`MarkOn`] chooses the physical queue, the
//!   phantom queue (its own thresholds, [`PhantomPortConfig::ecn`]; Uno's default) or both.
//! * The phantom queue grows by every packet offered to the port, in full: a dropped or
//!   trimmed packet counts its whole size (Uno 4.1.3). Its drain is computed on demand
//!   (synced to the arrival's cycle), never by a drain event.
//! * The data-queue occupancy includes every admitted packet until it *starts* transmission
//!   ([`OutputPortCtl::on_departure`] is called at dequeue).
//! * A trimmed header is not counted in the data queue; in [`OutputPort`] it waits in the
//!   header FIFO, served before any data packet at the next packet boundary.

use rtl_models::budget::StateBudget;
use rtl_models::field_bits;
use rtl_models::{
    Clocked, ConfigError, Cycles, Fifo, Lfsr32, PhantomQueue, RandomSource, RedMarker,
};

pub use rtl_models::{PhantomConfig, RedConfig};

/// Configuration errors of a port name the field (`"buffer_bytes"`, `"ecn.kmax_bytes"`,
/// `"phantom.drain"`, ...).
pub type PortConfigError = ConfigError;

/// Which queue's occupancy drives a phantom-equipped port's ECN marks (Uno 4.1.3, 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MarkOn {
    /// The physical data queue, with [`PortConfig::ecn`] (the phantom queue is only
    /// observed).
    Physical,
    /// The phantom queue, with [`PhantomPortConfig::ecn`] (Uno's choice; the default).
    #[default]
    Phantom,
    /// Either: marked when the physical marker or the phantom marker says so (the physical
    /// decision is drawn first).
    Both,
}

/// When the physical-queue RED/ECN marker decides (REPS 4.1 runs on htsim, whose ECN queue
/// marks a packet when it leaves, on the occupancy it leaves behind; most switch ASICs mark
/// on dequeue too). A phantom queue's own marks are always taken when a packet is offered to
/// it (Uno 4.1.3: the phantom queue grows on ingress).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MarkAt {
    /// On the occupancy an arriving packet sees, before it is added
    /// ([`OutputPortCtl::on_arrival`]).
    #[default]
    Arrival,
    /// On the occupancy behind the packet when it starts transmission
    /// ([`OutputPortCtl::on_departure_marked`]).
    Departure,
}

/// A port's phantom queue (Uno 4.1.3): the counter, its own RED/ECN thresholds and the
/// marking choice.
///
/// Uno 5.1: "packets are never ECN marked as long as the [...] queue occupancy is less than
/// the minimum ECN threshold (*MinECNThresh*) and always marked when the occupancy is more
/// than the maximum ECN threshold (*MaxECNThresh*). Otherwise, the probability of marking
/// packets increases linearly. MinECNThresh and MaxECNThresh are set to 25% and 75% of
/// queue capacity [...] The phantom queues drain at 90% of the line rate."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PhantomPortConfig {
    /// The counter: drain rate (bytes per cycle) and cap (bytes).
    pub queue: PhantomConfig,
    /// RED thresholds on the phantom occupancy (MinECNThresh / MaxECNThresh).
    pub ecn: RedConfig,
    /// Which queue(s) drive the marks.
    pub mark_on: MarkOn,
}

impl PhantomPortConfig {
    /// Uno's defaults (Table 2, 5.1): drain at 0.9 x `line` (bytes per cycle), capped at
    /// `cap_bytes`, RED between 25 % and 75 % of `cap_bytes`, marks on the phantom queue.
    /// `None` when 0.9 x `line` does not fit Q32.32.
    pub const fn uno(line: rtl_models::Rate, cap_bytes: u64) -> Option<Self> {
        Self::with_drain_fraction(line, 9, 10, cap_bytes)
    }

    /// As [`PhantomPortConfig::uno`] with the drain at `num / den` of `line`.
    pub const fn with_drain_fraction(
        line: rtl_models::Rate,
        num: u64,
        den: u64,
        cap_bytes: u64,
    ) -> Option<Self> {
        match line.scale(num, den) {
            Some(drain) => Some(PhantomPortConfig {
                queue: PhantomConfig { drain, cap_bytes },
                ecn: RedConfig::percent_of(cap_bytes, 25, 75),
                mark_on: MarkOn::Phantom,
            }),
            None => None,
        }
    }
}

/// Configuration of one output port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PortConfig {
    /// Data buffer in bytes: an arrival that would take the queue above it is tail-dropped
    /// (or trimmed). REPS 4.1: one BDP.
    pub buffer_bytes: u64,
    /// RED/ECN thresholds on the *physical* data queue; `None` disables physical marking.
    pub ecn: Option<RedConfig>,
    /// Phantom queue with its own RED thresholds and the choice of which queue(s) drive the
    /// ECN marks ([`MarkOn`]); `None`: no phantom queue, marks on the physical queue.
    pub phantom: Option<PhantomPortConfig>,
    /// Trim instead of drop: forward only the header, at high priority.
    pub trimming: bool,
    /// Size of a trimmed packet (header only), bytes. Must be above zero when trimming.
    pub header_bytes: u32,
}

impl PortConfig {
    /// A tail-drop port with no marking, no phantom queue and no trimming (64-byte headers).
    pub const fn tail_drop(buffer_bytes: u64) -> Self {
        PortConfig {
            buffer_bytes,
            ecn: None,
            phantom: None,
            trimming: false,
            header_bytes: 64,
        }
    }

    /// The REPS 4.1 baseline: RED with `K_min` = 20 % and `K_max` = 80 % of `buffer_bytes`.
    pub const fn reps_baseline(buffer_bytes: u64) -> Self {
        PortConfig {
            ecn: Some(RedConfig::percent_of(buffer_bytes, 20, 80)),
            ..Self::tail_drop(buffer_bytes)
        }
    }

    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), PortConfigError> {
        if self.buffer_bytes == 0 {
            return Err(ConfigError::new("buffer_bytes", "must be above zero"));
        }
        if self.trimming && self.header_bytes == 0 {
            return Err(ConfigError::new(
                "header_bytes",
                "must be above zero when trimming is on",
            ));
        }
        if let Some(p) = &self.phantom {
            if let Err(e) = p.queue.validate() {
                return Err(ConfigError::new(prefix_phantom(e.field), e.problem));
            }
            if let Err(e) = p.ecn.validate() {
                return Err(ConfigError::new(prefix_phantom_ecn(e.field), e.problem));
            }
            if p.ecn.kmin_bytes > p.queue.cap_bytes {
                return Err(ConfigError::new(
                    "phantom.ecn.kmin_bytes",
                    "above phantom.queue.cap_bytes: the port could never mark",
                ));
            }
        }
        if let Some(red) = &self.ecn {
            if let Err(e) = red.validate() {
                return Err(ConfigError::new(prefix_ecn(e.field), e.problem));
            }
            if red.kmin_bytes > self.buffer_bytes {
                return Err(ConfigError::new(
                    "ecn.kmin_bytes",
                    "above buffer_bytes: the port could never mark",
                ));
            }
        }
        Ok(())
    }
}

const fn prefix_ecn(field: &'static str) -> &'static str {
    match field.as_bytes() {
        b"kmin_bytes" => "ecn.kmin_bytes",
        b"kmax_bytes" => "ecn.kmax_bytes",
        _ => "ecn.pmax_q32",
    }
}

const fn prefix_phantom(field: &'static str) -> &'static str {
    match field.as_bytes() {
        b"drain" => "phantom.queue.drain",
        _ => "phantom.queue.cap_bytes",
    }
}

const fn prefix_phantom_ecn(field: &'static str) -> &'static str {
    match field.as_bytes() {
        b"kmin_bytes" => "phantom.ecn.kmin_bytes",
        b"kmax_bytes" => "phantom.ecn.kmax_bytes",
        _ => "phantom.ecn.pmax_q32",
    }
}

/// The control block's decision for one arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Admit {
    /// Admitted to the data queue; `ecn_mark`: set CE on it.
    Enqueue {
        /// The marker decided to mark this packet.
        ecn_mark: bool,
    },
    /// No room, trimming on: forward only the header (`header_bytes`) at high priority.
    Trim,
    /// No room: tail drop.
    Drop,
}

/// The phantom queue of a port with its marker and marking choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PhantomEcn {
    queue: PhantomQueue,
    red: RedMarker,
    mark_on: MarkOn,
}

/// Admission and marking control of one output port (no packet storage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutputPortCtl {
    buffer_bytes: u64,
    red: Option<RedMarker>,
    phantom: Option<PhantomEcn>,
    trimming: bool,
    header_bytes: u32,
    mark_at: MarkAt,
    phantom_mark_at: MarkAt,
    occ_bytes: u64,
    occ_pkts: u32,
    drops: u64,
    trims: u64,
    marks: u64,
}

impl OutputPortCtl {
    /// A port control block for `cfg` (empty queue, phantom synced to cycle 0).
    pub const fn new(cfg: PortConfig) -> Result<Self, PortConfigError> {
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        let red = match cfg.ecn {
            Some(c) => match RedMarker::new(c) {
                Ok(m) => Some(m),
                Err(e) => return Err(e),
            },
            None => None,
        };
        let phantom = match cfg.phantom {
            Some(p) => match (PhantomQueue::from_config(p.queue), RedMarker::new(p.ecn)) {
                (Ok(queue), Ok(red)) => Some(PhantomEcn {
                    queue,
                    red,
                    mark_on: p.mark_on,
                }),
                (Err(e), _) | (_, Err(e)) => return Err(e),
            },
            None => None,
        };
        Ok(OutputPortCtl {
            buffer_bytes: cfg.buffer_bytes,
            red,
            phantom,
            trimming: cfg.trimming,
            header_bytes: cfg.header_bytes,
            mark_at: MarkAt::Arrival,
            phantom_mark_at: MarkAt::Arrival,
            occ_bytes: 0,
            occ_pkts: 0,
            drops: 0,
            trims: 0,
            marks: 0,
        })
    }

    /// The same block with its physical marker deciding at `at` (a configuration bit, like
    /// `trimming`; [`MarkAt::Arrival`] unless set).
    pub const fn with_mark_at(mut self, at: MarkAt) -> Self {
        self.mark_at = at;
        self
    }

    /// When the physical marker decides.
    pub const fn mark_at(&self) -> MarkAt {
        self.mark_at
    }

    /// The same block with its phantom marker deciding at `at`: [`MarkAt::Arrival`] (unless
    /// set) on the level a packet sees when it is offered, [`MarkAt::Departure`] on the level
    /// when it starts transmission ([`OutputPortCtl::on_departure_marked_at`]), as the Uno
    /// authors' htsim queue does (`CompositeQueue::completeService` calls `decide_ECN` on
    /// the packet it dequeues). The phantom queue grows on arrival either way.
    pub const fn with_phantom_mark_at(mut self, at: MarkAt) -> Self {
        self.phantom_mark_at = at;
        self
    }

    /// When the phantom marker decides.
    pub const fn phantom_mark_at(&self) -> MarkAt {
        self.phantom_mark_at
    }

    /// The configuration this block was built from.
    pub const fn config(&self) -> PortConfig {
        PortConfig {
            buffer_bytes: self.buffer_bytes,
            ecn: match &self.red {
                Some(m) => Some(m.config()),
                None => None,
            },
            phantom: match &self.phantom {
                Some(p) => Some(PhantomPortConfig {
                    queue: p.queue.config(),
                    ecn: p.red.config(),
                    mark_on: p.mark_on,
                }),
                None => None,
            },
            trimming: self.trimming,
            header_bytes: self.header_bytes,
        }
    }

    /// A packet of `bytes` arrives at cycle `now`: tail drop / trim when it does not fit
    /// `buffer_bytes`, else admit it. The phantom queue (if any, synced to `now`) grows by
    /// the full `bytes` whatever the verdict (Uno 4.1.3: every packet offered to the queue,
    /// a dropped or trimmed one included). The ECN decision is taken on the occupancy seen
    /// on arrival, before this packet: the physical queue's without a phantom queue, else as
    /// [`MarkOn`] chooses. Draws from `rng` only when an occupancy is in its RED ramp.
    #[inline]
    pub fn on_arrival<R: RandomSource>(&mut self, now: Cycles, bytes: u32, rng: &mut R) -> Admit {
        let after = self.occ_bytes.saturating_add(bytes as u64);
        if after > self.buffer_bytes {
            return self.reject_at(now, bytes);
        }
        let physical = self.occ_bytes;
        let arrival = matches!(self.mark_at, MarkAt::Arrival);
        let phys_mark = |red: &Option<RedMarker>, rng: &mut R| match red {
            Some(m) if arrival => m.should_mark(physical, rng),
            _ => false,
        };
        let ecn_mark = match &mut self.phantom {
            None => phys_mark(&self.red, rng),
            Some(p) => {
                p.queue.sync_to(now);
                let level = p.queue.occupancy();
                p.queue.on_enqueue(bytes);
                let ph_arrival = matches!(self.phantom_mark_at, MarkAt::Arrival);
                match p.mark_on {
                    MarkOn::Physical => phys_mark(&self.red, rng),
                    MarkOn::Phantom => ph_arrival && p.red.should_mark(level, rng),
                    MarkOn::Both => {
                        let a = phys_mark(&self.red, rng);
                        let b = ph_arrival && p.red.should_mark(level, rng);
                        a | b
                    }
                }
            }
        };
        self.marks += ecn_mark as u64;
        self.occ_bytes = after;
        self.occ_pkts = self.occ_pkts.saturating_add(1);
        Admit::Enqueue { ecn_mark }
    }

    /// The caller has no room for a packet of `bytes` arriving at cycle `now` for its own
    /// reason (descriptor slots full): the phantom queue still counts it in full, then as
    /// [`OutputPortCtl::reject`].
    #[inline]
    pub fn reject_at(&mut self, now: Cycles, bytes: u32) -> Admit {
        if let Some(p) = &mut self.phantom {
            p.queue.sync_to(now);
            p.queue.on_enqueue(bytes);
        }
        self.reject()
    }

    /// The caller has no room for the packet for its own reason (descriptor slots full):
    /// counted and answered exactly like a tail drop ([`Admit::Trim`] with trimming on).
    /// Does not touch the phantom queue (see [`OutputPortCtl::reject_at`]).
    #[inline]
    pub fn reject(&mut self) -> Admit {
        if self.trimming {
            self.trims += 1;
            Admit::Trim
        } else {
            self.drops += 1;
            Admit::Drop
        }
    }

    /// An admitted packet of `bytes` left the data queue (started transmission).
    /// Saturates at zero (a departure that was never admitted is a caller bug, not a panic).
    #[inline]
    pub fn on_departure(&mut self, bytes: u32) {
        self.occ_bytes = self.occ_bytes.saturating_sub(bytes as u64);
        self.occ_pkts = self.occ_pkts.saturating_sub(1);
    }

    /// An admitted packet of `bytes` starts transmission (as [`OutputPortCtl::on_departure`])
    /// and, with [`MarkAt::Departure`], the physical marker decides on the occupancy it
    /// leaves behind (htsim's ECN queue): `true` = set CE on it. With a phantom queue
    /// marking only on the phantom level ([`MarkOn::Phantom`]) or with [`MarkAt::Arrival`]
    /// it never marks and draws nothing from `rng`.
    #[inline]
    pub fn on_departure_marked<R: RandomSource>(&mut self, bytes: u32, rng: &mut R) -> bool {
        self.on_departure(bytes);
        if matches!(self.mark_at, MarkAt::Arrival) {
            return false;
        }
        if matches!(&self.phantom, Some(p) if matches!(p.mark_on, MarkOn::Phantom)) {
            return false;
        }
        let mark = match &self.red {
            Some(m) => m.should_mark(self.occ_bytes, rng),
            None => false,
        };
        self.marks += mark as u64;
        mark
    }

    /// As [`OutputPortCtl::on_departure_marked`] at cycle `now`, and with the phantom marker
    /// deciding at departure ([`OutputPortCtl::with_phantom_mark_at`]) the phantom marker too,
    /// on the phantom level at `now` (synced first): `true` = set CE. The physical draw comes
    /// first. With the phantom marker at arrival this is exactly
    /// [`OutputPortCtl::on_departure_marked`].
    #[inline]
    pub fn on_departure_marked_at<R: RandomSource>(
        &mut self,
        now: Cycles,
        bytes: u32,
        rng: &mut R,
    ) -> bool {
        let ph_departure = matches!(self.phantom_mark_at, MarkAt::Departure)
            && matches!(&self.phantom, Some(p) if !matches!(p.mark_on, MarkOn::Physical));
        if !ph_departure {
            return self.on_departure_marked(bytes, rng);
        }
        self.on_departure(bytes);
        let phys = match (&self.phantom, &self.red) {
            (Some(p), Some(m))
                if matches!(self.mark_at, MarkAt::Departure)
                    && matches!(p.mark_on, MarkOn::Both) =>
            {
                m.should_mark(self.occ_bytes, rng)
            }
            _ => false,
        };
        let ph = match &mut self.phantom {
            Some(p) => {
                p.queue.sync_to(now);
                p.red.should_mark(p.queue.occupancy(), rng)
            }
            None => false,
        };
        let mark = phys | ph;
        self.marks += mark as u64;
        mark
    }

    /// Bytes in the data queue.
    #[inline]
    pub const fn occupancy_bytes(&self) -> u64 {
        self.occ_bytes
    }

    /// Packets in the data queue.
    #[inline]
    pub const fn occupancy_pkts(&self) -> u32 {
        self.occ_pkts
    }

    /// Phantom-queue occupancy in whole bytes at cycle `now` (synced first); `None` when no
    /// phantom queue is configured.
    #[inline]
    pub fn phantom_bytes(&mut self, now: Cycles) -> Option<u64> {
        match &mut self.phantom {
            Some(p) => {
                p.queue.sync_to(now);
                Some(p.queue.occupancy())
            }
            None => None,
        }
    }

    /// The phantom queue, if configured (not synced: see [`PhantomQueue::now`]).
    pub const fn phantom(&self) -> Option<&PhantomQueue> {
        match &self.phantom {
            Some(p) => Some(&p.queue),
            None => None,
        }
    }

    /// The marking choice: [`MarkOn::Physical`] without a phantom queue.
    pub const fn mark_on(&self) -> MarkOn {
        match &self.phantom {
            Some(p) => p.mark_on,
            None => MarkOn::Physical,
        }
    }

    /// Bytes of the header a trimmed packet of `bytes` keeps: `min(header_bytes, bytes)`.
    #[inline]
    pub const fn trimmed_size(&self, bytes: u32) -> u32 {
        if bytes < self.header_bytes {
            bytes
        } else {
            self.header_bytes
        }
    }

    /// Configured buffer in bytes.
    pub const fn buffer_bytes(&self) -> u64 {
        self.buffer_bytes
    }

    /// Packets tail-dropped so far.
    pub const fn drops(&self) -> u64 {
        self.drops
    }

    /// Packets trimmed so far.
    pub const fn trims(&self) -> u64 {
        self.trims
    }

    /// Packets ECN-marked so far.
    pub const fn marks(&self) -> u64 {
        self.marks
    }
}

/// Clock edges drain the phantom queue (same as syncing it to the cycle count); the rest
/// of the block only changes on arrivals and departures.
impl Clocked for OutputPortCtl {
    #[inline]
    fn tick(&mut self) {
        if let Some(p) = &mut self.phantom {
            p.queue.tick();
        }
    }

    #[inline]
    fn advance(&mut self, cycles: Cycles) {
        if let Some(p) = &mut self.phantom {
            p.queue.advance(cycles);
        }
    }
}

impl StateBudget for OutputPortCtl {
    const NAME: &'static str = "Output port control (tail drop, RED/ECN, phantom, trim)";
    /// Occupancy bytes (64) + packets (32) + phantom level + drop/trim/mark counters (3 x 64).
    const BITS: u32 = 64 + 32 + PhantomQueue::BITS + 3 * 64 + RedMarker::BITS;
    const UNIT: &'static str = "per port";
}
// Packed form: the occupancy registers, the phantom level and the three counters, each as
// wide as the model's field (a wider field breaks the build).
const _: () = assert!(
    OutputPortCtl::BITS
        == field_bits!(OutputPortCtl, occ_bytes)
            + field_bits!(OutputPortCtl, occ_pkts)
            + PhantomQueue::BITS
            + field_bits!(OutputPortCtl, drops)
            + field_bits!(OutputPortCtl, trims)
            + field_bits!(OutputPortCtl, marks)
            + RedMarker::BITS
);
const _: () = assert!(OutputPortCtl::BITS == 352);

/// A packet descriptor as seen by [`OutputPort`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PacketDesc {
    /// Caller's packet identifier (opaque to the port).
    pub id: u32,
    /// Size on the wire, bytes (for a trimmed packet: the header size).
    pub bytes: u32,
    /// ECN CE bit (input: marked upstream; output: upstream OR this port's mark).
    pub ecn: bool,
    /// A trimmed header (travels in the high-priority queue).
    pub trimmed: bool,
}

impl PacketDesc {
    /// A full (untrimmed, unmarked) packet.
    pub const fn new(id: u32, bytes: u32) -> Self {
        PacketDesc {
            id,
            bytes,
            ecn: false,
            trimmed: false,
        }
    }
}

impl StateBudget for PacketDesc {
    const NAME: &'static str = "Packet descriptor";
    const BITS: u32 = 32 + 32 + 1 + 1;
    const UNIT: &'static str = "per descriptor";
}

/// A queued descriptor: the length lives in the FIFO entry, the trimmed flag in the choice
/// of FIFO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Slot {
    id: u32,
    ecn: bool,
}

impl StateBudget for Slot {
    const NAME: &'static str = "Output port queue slot";
    const BITS: u32 = 32 + 1;
}

/// A complete cycle-accurate output port with `N`-descriptor data and header FIFOs
/// (`N >= 1`; `N = 0` is a compile-time error of the FIFO).
///
/// Per cycle: any number of [`OutputPort::arrive`] calls, then [`OutputPort::take_departure`]
/// (the packet that started transmission in this cycle), then [`Clocked::tick`]. A packet
/// arriving in cycle `t` at an idle port starts transmission in cycle `t + 1`; a packet of
/// `b` bytes holds the line `max(1, ceil(b / W))` cycles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPort<const N: usize> {
    ctl: OutputPortCtl,
    data: Fifo<Slot, N>,
    headers: Fifo<Slot, N>,
    rng: Lfsr32,
    line_bytes_per_cycle: u32,
    /// Cycles the line stays busy, counting the current one (0 = idle).
    busy: u32,
    departure: Option<PacketDesc>,
    header_drops: u64,
    now: Cycles,
}

impl<const N: usize> OutputPort<N> {
    /// A port for `cfg` transmitting `line_bytes_per_cycle` bytes per cycle (W), its RED
    /// LFSR seeded with `seed`.
    pub fn new(
        cfg: PortConfig,
        line_bytes_per_cycle: u32,
        seed: u32,
    ) -> Result<Self, PortConfigError> {
        if line_bytes_per_cycle == 0 {
            return Err(ConfigError::new(
                "line_bytes_per_cycle",
                "must be above zero",
            ));
        }
        Ok(OutputPort {
            ctl: OutputPortCtl::new(cfg)?,
            data: Fifo::new(),
            headers: Fifo::new(),
            rng: Lfsr32::new(seed),
            line_bytes_per_cycle,
            busy: 0,
            departure: None,
            header_drops: 0,
            now: 0,
        })
    }

    /// A packet arrives this cycle. A trimmed header (`desc.trimmed`) goes straight to the
    /// header FIFO. Otherwise the control block decides; a full data FIFO counts as no room.
    /// A trim whose header finds the header FIFO full is lost: returns [`Admit::Drop`] and
    /// counts in [`OutputPort::header_drops`] (the control block has counted it as a trim).
    pub fn arrive(&mut self, desc: PacketDesc) -> Admit {
        if desc.trimmed {
            return self.push_header(
                desc.id,
                desc.ecn,
                desc.bytes,
                Admit::Enqueue { ecn_mark: false },
            );
        }
        let admit = if self.data.is_full() {
            self.ctl.reject_at(self.now, desc.bytes)
        } else {
            self.ctl.on_arrival(self.now, desc.bytes, &mut self.rng)
        };
        match admit {
            Admit::Enqueue { ecn_mark } => {
                // Cannot fail: a slot was free and the data FIFO has no byte limit.
                let _ = self.data.push(
                    Slot {
                        id: desc.id,
                        ecn: desc.ecn | ecn_mark,
                    },
                    desc.bytes,
                );
                admit
            }
            Admit::Trim => {
                let hb = self.ctl.trimmed_size(desc.bytes);
                self.push_header(desc.id, desc.ecn, hb, Admit::Trim)
            }
            Admit::Drop => Admit::Drop,
        }
    }

    fn push_header(&mut self, id: u32, ecn: bool, bytes: u32, ok: Admit) -> Admit {
        match self.headers.push(Slot { id, ecn }, bytes) {
            Ok(()) => ok,
            Err(_) => {
                self.header_drops += 1;
                Admit::Drop
            }
        }
    }

    /// The packet whose transmission started this cycle (taken: a second call gives `None`).
    #[inline]
    pub fn take_departure(&mut self) -> Option<PacketDesc> {
        self.departure.take()
    }

    /// The packet whose transmission started this cycle, if not taken yet.
    #[inline]
    pub const fn departure(&self) -> Option<PacketDesc> {
        self.departure
    }

    /// The control block (occupancy, counters, phantom queue).
    pub const fn ctl(&self) -> &OutputPortCtl {
        &self.ctl
    }

    /// Phantom-queue occupancy now (whole bytes), if configured.
    pub fn phantom_bytes(&mut self) -> Option<u64> {
        self.ctl.phantom_bytes(self.now)
    }

    /// Packets waiting (data + headers), not counting the one on the line.
    pub fn queued_pkts(&self) -> usize {
        self.data.len() + self.headers.len()
    }

    /// Bytes waiting (data + headers), not counting the one on the line.
    pub fn queued_bytes(&self) -> u64 {
        self.data.bytes() + self.headers.bytes()
    }

    /// Trimmed headers lost because the header FIFO was full.
    pub const fn header_drops(&self) -> u64 {
        self.header_drops
    }

    /// The current cycle (ticks since construction).
    pub const fn now(&self) -> Cycles {
        self.now
    }

    /// Whether a packet is on the line this cycle.
    pub const fn line_busy(&self) -> bool {
        self.busy > 0
    }

    /// Line rate W in bytes per cycle.
    pub const fn line_bytes_per_cycle(&self) -> u32 {
        self.line_bytes_per_cycle
    }

    fn start_next(&mut self) {
        let desc = if let Some((s, b)) = self.headers.pop() {
            PacketDesc {
                id: s.id,
                bytes: b,
                ecn: s.ecn,
                trimmed: true,
            }
        } else if let Some((s, b)) = self.data.pop() {
            self.ctl.on_departure(b);
            PacketDesc {
                id: s.id,
                bytes: b,
                ecn: s.ecn,
                trimmed: false,
            }
        } else {
            return;
        };
        self.busy = desc.bytes.div_ceil(self.line_bytes_per_cycle).max(1);
        self.departure = Some(desc);
    }
}

/// `tick`: the departure register clears, the line counts down, and when it is free the
/// next packet (headers first) starts and appears in the departure register for the next
/// cycle. `advance(n)` jumps over the remaining cycles of each transmission in O(1) and over
/// an empty port in O(1): O(packets started) overall; departures it starts (except one
/// starting in the last cycle) are not reported, exactly as `n` ticks without reads.
impl<const N: usize> Clocked for OutputPort<N> {
    fn tick(&mut self) {
        self.departure = None;
        self.busy = self.busy.saturating_sub(1);
        if self.busy == 0 {
            self.start_next();
        }
        self.now += 1;
    }

    fn advance(&mut self, cycles: Cycles) {
        let mut n = cycles;
        while n > 0 {
            if self.busy > 1 {
                let k = n.min(self.busy as u64 - 1);
                self.busy -= k as u32;
                self.now += k;
                self.departure = None;
                n -= k;
            } else if self.data.is_empty() && self.headers.is_empty() {
                self.busy = 0;
                self.departure = None;
                self.now += n;
                return;
            } else {
                self.tick();
                n -= 1;
            }
        }
    }
}

impl<const N: usize> StateBudget for OutputPort<N> {
    const NAME: &'static str = "Output port (ctl + data/header FIFOs + serializer)";
    /// Control block + two N-slot FIFOs of (id, ecn, length) + busy counter (32) +
    /// departure register (descriptor + valid) + RED LFSR (32) + header-drop counter (64).
    const BITS: u32 = OutputPortCtl::BITS
        + 2 * <Fifo<Slot, N> as StateBudget>::BITS
        + 32
        + PacketDesc::BITS
        + 1
        + 32
        + 64;
    const UNIT: &'static str = "per port";
}
// Packed form of a 256-descriptor port: each FIFO is 256 x (33 + 32) + 8 + 9 + 64 + 32 bits;
// the busy counter, the LFSR and the header-drop counter are as wide as the model's fields.
const _: () = assert!(
    OutputPort::<256>::BITS == 352 + 2 * (256 * 65 + 8 + 9 + 64 + 32) + 32 + 66 + 1 + 32 + 64
);
const _: () = assert!(
    OutputPort::<256>::BITS
        == OutputPortCtl::BITS
            + 2 * <Fifo<Slot, 256> as StateBudget>::BITS
            + field_bits!(OutputPort<256>, busy)
            + PacketDesc::BITS
            + 1
            + field_bits!(OutputPort<256>, rng)
            + field_bits!(OutputPort<256>, header_drops)
        && PacketDesc::BITS == field_bits!(PacketDesc, id) + field_bits!(PacketDesc, bytes) + 1 + 1
);

#[cfg(test)]
mod tests;
