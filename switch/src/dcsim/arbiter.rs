//! The DCSIM output-port arbiter (DCSIM section 2.3, Fig. 1, Eq. 1-2, Theorems 1 and 3).
//!
//! ```text
//!                      +------------------+
//!  enqueue(class, d) ->| SIM      (<= B)  |--+ token bucket: take 1 token per SIM
//!  -> Accepted         | SIM-ACK  (<= B)  |  |      rate = 1 / (ceil(L/W) + h * ceil(l/W))
//!   | Dropped          | DATA-ACK (<= B)  |  |      depth = 2 (Theorem 3)
//!   | Rejected         | DATA (bytes)     |  |
//!                      +------------------+  v
//!                          ARBITRATE (only when the line is free, no preemption):
//!                            SIM if queued and >= 1 token, else SIM-ACK, else DATA-ACK,
//!                            else DATA, else idle
//!                          UPDATE: pop, take token, line busy ceil(size/W) cycles,
//!                            refill bucket by one cycle's rate
//!                                      |
//!                                      v  Departure { class, desc, start, cycles }
//! ```
//!
//! **Cycle model** (BookSim style, two phases). During cycle `now` the caller makes the
//! cycle's inputs ([`DcsimArbiter::enqueue`]); [`DcsimArbiter::step`] (or
//! [`Clocked::tick`]) then closes the cycle: *arbitrate* on the state seen in this cycle
//! (including this cycle's arrivals, so an idle port starts a packet in the cycle it
//! arrives), *update* (pop, consume a token, mark the line busy), and refill the bucket by
//! one cycle's worth. A packet of `s` bytes occupies the line for `max(1, ceil(s / W))`
//! cycles, `W` = [`DcsimArbiterConfig::bytes_per_cycle`].
//!
//! **Event model** (for the DES). [`DcsimArbiter::next_departure`] answers "the line is free
//! at cycle `t`: which packet goes next and when" without changing state; token
//! availability is computed arithmetically with [`TokenBucket::cycles_until`]. Then
//! [`DcsimArbiter::take_next`] jumps to that cycle and starts the packet. Both models give
//! the same departure sequence (a property test checks it), and
//! [`Clocked::advance`] jumps idle stretches in O(1). A caller that keeps the answer between
//! inputs asks [`DcsimArbiter::next_plan`] (class and start cycle, no descriptor copied) and
//! starts it with [`DcsimArbiter::take_plan`].
//!
//! **Token rate.** Eq. 2 gives the SIM rate `C / (alpha + 2.1)` in bits/s with
//! `alpha = L / l`, i.e. one SIM token per `(L + 2.1 l) / C` seconds. On a `W`-byte
//! datapath a packet of `s` bytes occupies `ceil(s / W)` cycles, so the model measures `L`
//! and `l` in line cycles: one token per `ceil(L/W) + h * ceil(l/W)` cycles (identical to
//! Eq. 2 when `L` and `l` are multiples of `W`). With `h = 1` (Eq. 1) SIMs and DATAs then
//! alternate exactly at line rate (Theorem 1). The Q32.32 rate is rounded **up**, so the
//! bucket never releases SIMs slower than the equation (error below 2^-32 token/cycle).
//!
//! **Buffers.** The SIM, SIM-ACK and DATA-ACK queues hold up to `B` packets each
//! ([`DcsimArbiterConfig::small_queue_pkts`] <= the const capacity `B`); the DATA buffer is
//! the rest of the port buffer, `port_buffer_bytes - 3 * B * l` bytes, with at most `ND`
//! descriptors. A packet that does not fit is dropped and counted per class. A packet's
//! bytes leave the buffer when its transmission starts.
//!
//! Units: bytes, cycles of the port clock, tokens (Q32.32 fill, Q32.32 tokens/cycle rate).

use rtl_models::{Clock, Clocked, ConfigError, Cycles, Fifo, Rate, StateBudget, TokenBucket};

use super::regs::{ArbiterRegs, ARBITER_REGS_BITS};

/// Default capacity `B` of each small queue (SIM, SIM-ACK, DATA-ACK), packets (paper: 12).
pub const DEFAULT_SMALL_SLOTS: usize = 12;
/// Default number of DATA descriptor slots (500 KB / 9 KB = 55 jumbo DATAs fit).
pub const DEFAULT_DATA_SLOTS: usize = 64;

/// Largest `B` the packed registers hold (4-bit occupancy counters).
pub const MAX_SMALL_QUEUE_PKTS: u32 = 15;
/// Largest DATA buffer the packed registers hold (24-bit byte counter), bytes.
pub const MAX_DATA_BUFFER_BYTES: u64 = (1 << 24) - 1;
/// Longest line occupancy of one packet the packed registers hold (16-bit busy counter).
pub const MAX_PACKET_CYCLES: u64 = u16::MAX as u64;

/// The four packet types of DCSIM, in priority order (section 2.3: "(i) SIMs, (ii) SIM-ACKs,
/// (iii) DATA-ACKs and (iv) DATAs"). The discriminant is the 2-bit ToS code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Class {
    /// Simulation probe (rate-limited by the token bucket).
    Sim = 0,
    /// Acknowledgment of a SIM.
    SimAck = 1,
    /// Acknowledgment of DATAs.
    DataAck = 2,
    /// Payload packet.
    Data = 3,
}

impl Class {
    /// All classes, highest priority first.
    pub const ALL: [Class; 4] = [Class::Sim, Class::SimAck, Class::DataAck, Class::Data];

    /// Index 0..4 (= priority rank, = ToS code).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Short lower-case name (`"sim"`, `"sim_ack"`, `"data_ack"`, `"data"`), for traces.
    pub const fn name(self) -> &'static str {
        match self {
            Class::Sim => "sim",
            Class::SimAck => "sim_ack",
            Class::DataAck => "data_ack",
            Class::Data => "data",
        }
    }
}

/// What [`DcsimArbiter::enqueue`] did with a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Enqueue {
    /// Stored in its queue.
    Accepted,
    /// Its queue (or the DATA buffer) was full: dropped and counted.
    Dropped,
    /// Malformed: longer than 65535 line cycles; dropped and counted apart.
    Rejected,
}

/// A packet that started transmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Departure<D> {
    /// Its class.
    pub class: Class,
    /// The caller's descriptor.
    pub desc: D,
    /// Its size, bytes.
    pub bytes: u32,
    /// Cycle in which it starts on the line.
    pub start: Cycles,
    /// Line occupancy, cycles (`max(1, ceil(bytes / W))`).
    pub cycles: u32,
}

impl<D> Departure<D> {
    /// First cycle after the packet (the line is free again from this cycle).
    pub const fn end(&self) -> Cycles {
        self.start + self.cycles as Cycles
    }
}

/// When the next packet starts and of which class ([`DcsimArbiter::next_plan`]): a
/// [`Departure`] without its descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Plan {
    /// The winning class.
    pub class: Class,
    /// Cycle in which it starts on the line.
    pub start: Cycles,
}

/// Configuration of a [`DcsimArbiter`]. Validate with [`DcsimArbiterConfig::validate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DcsimArbiterConfig {
    /// Datapath width `W`, bytes per cycle. The line rate is `C = W / period`.
    pub bytes_per_cycle: u32,
    /// The port clock.
    pub clock: Clock,
    /// Small-packet size `l` (SIM, SIM-ACK, DATA-ACK), bytes; used for Eq. 2 and for the
    /// small buffers' share of the port buffer.
    pub small_bytes: u32,
    /// DATA size `L`, bytes; used for Eq. 2.
    pub data_bytes: u32,
    /// Token-rate factor `h` in thousandths: 2100 = Eq. 2's `alpha + 2.1`, 1000 = Eq. 1's
    /// `alpha + 1`. Configurable because the public artifact uses a different factor.
    pub h_milli: u32,
    /// Token-bucket depth, tokens (Theorem 3: 2 is necessary and sufficient).
    pub bucket_depth: u32,
    /// `B`: packets each small queue holds (paper: 12). At most the const capacity and 15.
    pub small_queue_pkts: u32,
    /// Total buffer of the port, bytes (paper: 500 KB). DATA gets
    /// `port_buffer_bytes - 3 * small_queue_pkts * small_bytes`.
    pub port_buffer_bytes: u64,
}

impl Default for DcsimArbiterConfig {
    /// The paper's setup (section 4.1): 800 Gb/s as a 64-byte datapath at 1.5625 GHz,
    /// `l = 64` B, `L = 9000` B (jumbo), `h = 2.1`, depth 2, `B = 12`, 500 KB per port.
    fn default() -> Self {
        DcsimArbiterConfig {
            bytes_per_cycle: 64,
            clock: Clock { period_ps: 640 },
            small_bytes: 64,
            data_bytes: 9000,
            h_milli: 2100,
            bucket_depth: 2,
            small_queue_pkts: 12,
            port_buffer_bytes: 500_000,
        }
    }
}

impl DcsimArbiterConfig {
    /// Line occupancy of a `bytes`-byte packet, cycles: `max(1, ceil(bytes / W))`.
    pub const fn cycles_of(&self, bytes: u32) -> u64 {
        let w = if self.bytes_per_cycle == 0 {
            1
        } else {
            self.bytes_per_cycle
        };
        let c = bytes.div_ceil(w) as u64;
        if c == 0 {
            1
        } else {
            c
        }
    }

    /// Bytes of the DATA buffer: the port buffer minus the three small buffers
    /// (saturating at 0).
    pub const fn data_buffer_bytes(&self) -> u64 {
        self.port_buffer_bytes
            .saturating_sub(3 * self.small_queue_pkts as u64 * self.small_bytes as u64)
    }

    /// Cycles between SIM tokens, times 1000: `1000 * ceil(L/W) + h_milli * ceil(l/W)`.
    pub const fn token_period_milli(&self) -> u64 {
        1000 * self.cycles_of(self.data_bytes)
            + self.h_milli as u64 * self.cycles_of(self.small_bytes)
    }

    /// The SIM token rate of Eq. 2 in tokens per cycle (Q32.32, rounded up).
    pub const fn sim_token_rate(&self) -> Rate {
        let den = self.token_period_milli() as u128;
        let num = 1000u128 << rtl_models::fixed::FRAC_BITS;
        let q = num.div_ceil(if den == 0 { 1 } else { den });
        Rate(if q > u64::MAX as u128 {
            u64::MAX
        } else {
            q as u64
        })
    }

    /// Line rate in bits per second (`W * 8 * 10^12 / period_ps`), for reports.
    pub const fn line_rate_bps(&self) -> u64 {
        let p = if self.clock.period_ps == 0 {
            1
        } else {
            self.clock.period_ps
        };
        (self.bytes_per_cycle as u128 * 8 * 1_000_000_000_000 / p as u128) as u64
    }

    /// Check every field; `small_slots` is the const capacity `B` of the small queues.
    pub const fn validate(&self, small_slots: usize) -> Result<(), ConfigError> {
        if self.bytes_per_cycle == 0 {
            return Err(ConfigError::new("bytes_per_cycle", "must be at least 1"));
        }
        if self.clock.period_ps == 0 {
            return Err(ConfigError::new("clock.period_ps", "must be at least 1"));
        }
        if self.small_bytes == 0 {
            return Err(ConfigError::new("small_bytes", "must be at least 1"));
        }
        if self.data_bytes < self.small_bytes {
            return Err(ConfigError::new(
                "data_bytes",
                "must be at least small_bytes (alpha = L / l >= 1)",
            ));
        }
        if self.cycles_of(self.data_bytes) > MAX_PACKET_CYCLES {
            return Err(ConfigError::new(
                "data_bytes",
                "a DATA must occupy at most 65535 line cycles (16-bit busy counter)",
            ));
        }
        if self.h_milli > 1_000_000 {
            return Err(ConfigError::new(
                "h_milli",
                "must be at most 1000000 (h <= 1000)",
            ));
        }
        if self.bucket_depth == 0 || self.bucket_depth > 255 {
            return Err(ConfigError::new("bucket_depth", "must be 1..=255 tokens"));
        }
        if self.small_queue_pkts == 0 {
            return Err(ConfigError::new("small_queue_pkts", "must be at least 1"));
        }
        if self.small_queue_pkts as usize > small_slots {
            return Err(ConfigError::new(
                "small_queue_pkts",
                "exceeds the small-queue capacity B (const generic)",
            ));
        }
        if self.small_queue_pkts > MAX_SMALL_QUEUE_PKTS {
            return Err(ConfigError::new(
                "small_queue_pkts",
                "must be at most 15 (4-bit occupancy registers)",
            ));
        }
        let small = 3 * self.small_queue_pkts as u64 * self.small_bytes as u64;
        if self.port_buffer_bytes <= small {
            return Err(ConfigError::new(
                "port_buffer_bytes",
                "must exceed the three small buffers (3 * small_queue_pkts * small_bytes)",
            ));
        }
        if self.data_buffer_bytes() < self.data_bytes as u64 {
            return Err(ConfigError::new(
                "port_buffer_bytes",
                "leaves a DATA buffer smaller than one DATA (data_bytes)",
            ));
        }
        if self.data_buffer_bytes() > MAX_DATA_BUFFER_BYTES {
            return Err(ConfigError::new(
                "port_buffer_bytes",
                "leaves a DATA buffer above 16 MiB - 1 (24-bit byte register)",
            ));
        }
        Ok(())
    }
}

/// Per-class counters of a port (model-side statistics, 64-bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DcsimArbiterStats {
    /// Packets accepted, per [`Class::index`].
    pub accepted: [u64; 4],
    /// Packets dropped at a full queue / DATA buffer, per class.
    pub dropped: [u64; 4],
    /// Packets refused as malformed (too long), per class.
    pub rejected: [u64; 4],
    /// Packets that started transmission, per class.
    pub departed: [u64; 4],
    /// Bytes that started transmission, per class.
    pub departed_bytes: [u64; 4],
    /// Line cycles occupied by started packets (utilization numerator).
    pub busy_cycles: u64,
}

/// The DCSIM port: four queues, strict priority without preemption, SIM token bucket.
///
/// `D` is the caller's packet descriptor (an arena index in the DES, a tag in tests), `B`
/// the capacity of each small queue, `ND` the number of DATA descriptor slots.
///
/// Layout (simulator only, `repr(C)`): the registers and counters every arrival and start
/// touch come first, the queues (each with its registers before its slots) after them,
/// the large DATA queue last, so a port's working set is a few adjacent cache lines.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct DcsimArbiter<D: Copy, const B: usize, const ND: usize> {
    cfg: DcsimArbiterConfig,
    /// The SIM token bucket as of cycle `bucket_at` (`<= now`): the fill is additive in
    /// idle cycles and saturates at the depth, so it is brought to `now` only when a SIM
    /// is arbitrated or starts (the register itself refills every cycle, REFILL).
    bucket: TokenBucket,
    bucket_at: Cycles,
    now: Cycles,
    busy_until: Cycles,
    /// The queues' not-empty flags, bit [`Class::index`] (the four request lines into
    /// ARBITRATE; derived from the queues, kept so arbitration is one priority encoder).
    waiting: u8,
    started: Option<Departure<D>>,
    sim_drops: u32,
    data_drops: u32,
    stats: DcsimArbiterStats,
    queues_small: [Fifo<D, B>; 3],
    data: Fifo<D, ND>,
}

impl<D: Copy, const B: usize, const ND: usize> DcsimArbiter<D, B, ND> {
    const CAPACITY_CHECK: () = assert!(
        B >= 1 && B <= MAX_SMALL_QUEUE_PKTS as usize && ND >= 1 && ND <= u16::MAX as usize,
        "DcsimArbiter: need 1 <= B <= 15 and 1 <= ND <= 65535"
    );

    /// A port at cycle 0, queues empty, bucket full (Fig. 14 starts with a full bucket).
    pub fn new(cfg: DcsimArbiterConfig) -> Result<Self, ConfigError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_CHECK;
        cfg.validate(B)?;
        let bucket = match TokenBucket::new(cfg.sim_token_rate(), cfg.bucket_depth) {
            Some(b) => b,
            None => return Err(ConfigError::new("bucket_depth", "must be at least 1")),
        };
        Ok(DcsimArbiter {
            cfg,
            queues_small: [Fifo::new(), Fifo::new(), Fifo::new()],
            data: Fifo::with_byte_limit(cfg.data_buffer_bytes()),
            bucket,
            bucket_at: 0,
            now: 0,
            busy_until: 0,
            waiting: 0,
            started: None,
            sim_drops: 0,
            data_drops: 0,
            stats: DcsimArbiterStats::default(),
        })
    }

    /// The configuration.
    pub const fn config(&self) -> &DcsimArbiterConfig {
        &self.cfg
    }

    /// The cycle in progress (inputs made now belong to it).
    pub const fn now(&self) -> Cycles {
        self.now
    }

    /// First cycle in which the line is free (<= `now` when it already is).
    pub const fn line_free_at(&self) -> Cycles {
        self.busy_until
    }

    /// Whether the line is transmitting during the current cycle.
    pub const fn line_busy(&self) -> bool {
        self.busy_until > self.now
    }

    /// The SIM token bucket in the current cycle.
    pub fn bucket(&self) -> TokenBucket {
        let mut b = self.bucket;
        b.advance(self.now - self.bucket_at);
        b
    }

    /// Bring the token bucket to the current cycle.
    #[inline]
    fn sync_bucket(&mut self) {
        if self.bucket_at < self.now {
            self.bucket.advance(self.now - self.bucket_at);
            self.bucket_at = self.now;
        }
    }

    /// Counters.
    pub const fn stats(&self) -> &DcsimArbiterStats {
        &self.stats
    }

    /// Packets queued in `class`'s queue.
    pub fn queue_len(&self, class: Class) -> usize {
        match class {
            Class::Data => self.data.len(),
            c => self.queues_small[c.index()].len(),
        }
    }

    /// Bytes queued in `class`'s queue.
    pub fn queue_bytes(&self, class: Class) -> u64 {
        match class {
            Class::Data => self.data.bytes(),
            c => self.queues_small[c.index()].bytes(),
        }
    }

    /// Free places in the SIM queue (the host engine adds SIMs only while this is > 0,
    /// section 2.4 (1)).
    pub fn sim_space(&self) -> usize {
        (self.cfg.small_queue_pkts as usize).saturating_sub(self.queues_small[0].len())
    }

    /// Apply `f` to every queued packet's descriptor in place (a simulator editing what
    /// it keeps in them, e.g. a Wormhole shift of the times a packet header carries); the
    /// queues' order, sizes and registers are unchanged.
    pub fn for_each_desc_mut(&mut self, mut f: impl FnMut(&mut D)) {
        for q in self.queues_small.iter_mut() {
            q.for_each_mut(&mut f);
        }
        self.data.for_each_mut(&mut f);
    }

    /// Whether every queue is empty.
    pub fn is_empty(&self) -> bool {
        debug_assert_eq!(
            self.waiting == 0,
            self.data.is_empty() && self.queues_small.iter().all(|q| q.is_empty())
        );
        self.waiting == 0
    }

    /// The packet that started transmission in the last closed cycle (BookSim's "read the
    /// assignment"), if any.
    pub const fn last_started(&self) -> Option<Departure<D>> {
        self.started
    }

    /// Input of the current cycle: a `bytes`-byte packet of `class` arrives.
    #[inline(always)]
    pub fn enqueue(&mut self, class: Class, desc: D, bytes: u32) -> Enqueue {
        let k = class.index();
        // `cycles_of(bytes) > MAX_PACKET_CYCLES`, i.e. `ceil(bytes / W) > 65535`, without
        // the division (`W >= 1`, validated).
        if bytes as u64 > MAX_PACKET_CYCLES * self.cfg.bytes_per_cycle as u64 {
            self.stats.rejected[k] += 1;
            return Enqueue::Rejected;
        }
        let ok = match class {
            Class::Data => self.data.push(desc, bytes).is_ok(),
            c => {
                let q = &mut self.queues_small[c.index()];
                q.len() < self.cfg.small_queue_pkts as usize && q.push(desc, bytes).is_ok()
            }
        };
        if ok {
            self.waiting |= 1 << k;
            self.stats.accepted[k] += 1;
            Enqueue::Accepted
        } else {
            self.stats.dropped[k] += 1;
            match class {
                Class::Sim => self.sim_drops = self.sim_drops.saturating_add(1),
                Class::Data => self.data_drops = self.data_drops.saturating_add(1),
                _ => {}
            }
            Enqueue::Dropped
        }
    }

    /// ARBITRATE: the class that wins if the line is free, given whether a token is there.
    fn arbitrate(&self, token: bool) -> Option<Class> {
        if token && self.sim_waiting() {
            Some(Class::Sim)
        } else {
            self.arbitrate_lower()
        }
    }

    /// ARBITRATE below the SIMs: the highest non-empty of SIM-ACK, DATA-ACK, DATA.
    #[inline]
    fn arbitrate_lower(&self) -> Option<Class> {
        self.check_waiting();
        // The lowest set flag above the SIM's is the highest priority (`Class::index`).
        match (self.waiting >> 1).trailing_zeros() {
            0 => Some(Class::SimAck),
            1 => Some(Class::DataAck),
            2 => Some(Class::Data),
            _ => None,
        }
    }

    /// Whether a SIM waits.
    #[inline]
    fn sim_waiting(&self) -> bool {
        self.check_waiting();
        self.waiting & 1 != 0
    }

    /// Debug check: the not-empty flags match the queues.
    #[inline]
    fn check_waiting(&self) {
        debug_assert_eq!(
            self.waiting,
            (0..3).fold(u8::from(!self.data.is_empty()) << 3, |m, k| m | u8::from(
                !self.queues_small[k].is_empty()
            ) << k),
            "not-empty flags out of step with the queues"
        );
    }

    /// The head of `class`'s queue.
    fn head(&self, class: Class) -> Option<(D, u32)> {
        match class {
            Class::Data => self.data.peek(),
            c => self.queues_small[c.index()].peek(),
        }
    }

    /// UPDATE: start the head of `class` in the current cycle.
    #[inline]
    fn start(&mut self, class: Class) -> Option<Departure<D>> {
        let k = class.index();
        let (desc, bytes, empty) = match class {
            Class::Data => {
                let (d, b) = self.data.pop()?;
                (d, b, self.data.is_empty())
            }
            c => {
                let q = &mut self.queues_small[c.index()];
                let (d, b) = q.pop()?;
                (d, b, q.is_empty())
            }
        };
        if empty {
            self.waiting &= !(1 << k);
        }
        if class == Class::Sim {
            self.sync_bucket();
            let granted = self.bucket.try_take(1);
            debug_assert!(granted, "a SIM starts only with a token");
        }
        let cycles = self.cfg.cycles_of(bytes) as u32;
        self.busy_until = self.now + cycles as Cycles;
        self.stats.departed[k] += 1;
        self.stats.departed_bytes[k] += bytes as u64;
        self.stats.busy_cycles += cycles as u64;
        Some(Departure {
            class,
            desc,
            bytes,
            start: self.now,
            cycles,
        })
    }

    /// Close the current cycle: arbitrate, update, refill; returns the packet that started
    /// in it (also kept in [`DcsimArbiter::last_started`]).
    pub fn step(&mut self) -> Option<Departure<D>> {
        self.sync_bucket();
        let dep = if self.busy_until <= self.now {
            match self.arbitrate(self.bucket.can_take(1)) {
                Some(c) => self.start(c),
                None => None,
            }
        } else {
            None
        };
        self.bucket.tick();
        self.now += 1;
        self.bucket_at = self.now;
        self.started = dep;
        dep
    }

    /// The packet that starts next and its start cycle (`>= now`), assuming no further
    /// arrivals; `None` when every queue is empty. No state changes.
    ///
    /// With the line free at `f = max(now, line_free_at)`: a SIM goes at `f` if a token is
    /// there at `f`; otherwise the highest non-empty lower class goes at `f` (no
    /// preemption); with only SIMs waiting, the first SIM goes when its token arrives,
    /// `f + bucket.cycles_until(1)`. ([`DcsimArbiter::next_plan`] with the head's
    /// descriptor.)
    pub fn next_departure(&self) -> Option<Departure<D>> {
        let Plan { class, start } = self.next_plan()?;
        let (desc, bytes) = self.head(class)?;
        Some(Departure {
            class,
            desc,
            bytes,
            start,
            cycles: self.cfg.cycles_of(bytes) as u32,
        })
    }

    /// [`DcsimArbiter::next_departure`]'s class and start cycle, without reading the head
    /// descriptor: what the event model needs to know between inputs (the DES keeps it and
    /// starts it with [`DcsimArbiter::take_plan`]). No state changes.
    ///
    /// The same ARBITRATE as [`DcsimArbiter::step`] at `f = max(now, line_free_at)`: the
    /// token bucket is only consulted when a SIM waits (section 2.3: the tokens gate SIMs
    /// alone).
    #[inline]
    pub fn next_plan(&self) -> Option<Plan> {
        let f = self.now.max(self.busy_until);
        if !self.sim_waiting() {
            return self.arbitrate_lower().map(|class| Plan { class, start: f });
        }
        let mut b = self.bucket;
        b.advance(f - self.bucket_at);
        if b.can_take(1) {
            return Some(Plan {
                class: Class::Sim,
                start: f,
            });
        }
        if let Some(class) = self.arbitrate_lower() {
            return Some(Plan { class, start: f });
        }
        // Only SIMs wait, without a token: the rate is never zero (rounded up).
        let wait = b.cycles_until(1)?;
        Some(Plan {
            class: Class::Sim,
            start: f + wait,
        })
    }

    /// Whether a `class` packet arriving now leaves `plan`, this arbiter's
    /// [`DcsimArbiter::next_plan`] answer in its current state, the answer after the
    /// arrival (ask before [`DcsimArbiter::enqueue`]; a refused packet changes nothing
    /// either way). ARBITRATE (section 2.3, strict priority, no preemption, FIFO heads) at
    /// the same free cycle `f = max(now, line_free_at)`:
    /// * a SIM planned at `f` has its token there and wins against any arrival;
    /// * a SIM planned later (only SIMs wait, no token at `f`) stays planned for another
    ///   SIM (same head, same bucket), not for any other class, which would go at `f`;
    /// * a lower class planned at `f` stays planned for an arrival of its own or a lower
    ///   class (same highest non-empty queue, same head), and for a SIM when a SIM waits
    ///   already (then the plan says no token at `f`).
    ///
    /// (Not an update of the plan for the other arrivals: tried, the larger inlined
    /// enqueue cost more than the plans it kept, benches/README.md session 13.)
    #[inline(always)]
    pub fn arrival_keeps_plan(&self, plan: Plan, class: Class) -> bool {
        match (plan.class, class) {
            (Class::Sim, Class::Sim) => true,
            (Class::Sim, _) => plan.start == self.now.max(self.busy_until),
            (_, Class::Sim) => self.waiting & 1 != 0,
            (l, x) => x.index() >= l.index(),
        }
    }

    /// Jump to the next departure's cycle and start it (equals ticking up to and through
    /// that cycle with no arrivals); `None` (and no change) when every queue is empty.
    pub fn take_next(&mut self) -> Option<Departure<D>> {
        let d = self.next_departure()?;
        self.idle_to(d.start);
        let got = self.step();
        debug_assert_eq!(got.map(|g| (g.class, g.start)), Some((d.class, d.start)));
        got
    }

    /// Start departure `d`, the answer of [`DcsimArbiter::next_departure`] with no input
    /// or state change since: equals [`DcsimArbiter::take_next`] without computing the
    /// answer again (the DES asks first, then takes when the start is due).
    pub fn take_planned(&mut self, d: &Departure<D>) -> Option<Departure<D>> {
        self.take_plan(Plan {
            class: d.class,
            start: d.start,
        })
    }

    /// Start `plan`, the answer of [`DcsimArbiter::next_plan`] with no input or state change
    /// since: jump to its cycle and close that cycle with its arbitration already known
    /// (equals [`DcsimArbiter::take_next`]).
    #[inline]
    pub fn take_plan(&mut self, plan: Plan) -> Option<Departure<D>> {
        debug_assert_eq!(self.next_plan(), Some(plan), "take_plan with a stale plan");
        self.idle_to(plan.start);
        // `step` with its arbitration already known (the line is free at `plan.start`).
        debug_assert!(self.busy_until <= self.now);
        debug_assert_eq!(self.arbitrate(self.bucket().can_take(1)), Some(plan.class));
        // The bucket is brought to this cycle only if a SIM starts (`start`); its refill
        // of this cycle is left to the next sync.
        let dep = self.start(plan.class);
        self.now += 1;
        self.started = dep;
        debug_assert_eq!(
            dep.map(|g| (g.class, g.start)),
            Some((plan.class, plan.start))
        );
        dep
    }

    /// Close cycles up to (not including) `t` when [`DcsimArbiter::next_departure`] said
    /// nothing starts before `t` (or nothing waits): equals [`DcsimArbiter::advance_to`]
    /// without asking again.
    pub fn idle_until(&mut self, t: Cycles) {
        debug_assert!(
            !matches!(self.next_departure(), Some(d) if d.start < t),
            "idle_until past a departure"
        );
        self.idle_to(t);
    }

    /// Close cycles up to (not including) `t` with no arrivals: equals `t - now` ticks.
    /// Departures on the way are taken in order (see [`DcsimArbiter::take_next`] to see
    /// them); does nothing if `t <= now`.
    pub fn advance_to(&mut self, t: Cycles) {
        while let Some(d) = self.next_departure() {
            if d.start >= t {
                break;
            }
            self.idle_to(d.start);
            self.step();
        }
        self.idle_to(t);
    }

    /// Jump to cycle `t` through cycles in which nothing starts.
    fn idle_to(&mut self, t: Cycles) {
        if t > self.now {
            // The bucket follows lazily (`bucket_at`).
            self.now = t;
            self.started = None;
        }
    }

    /// The logical control registers (the packed hardware state, see [`ArbiterRegs`]).
    pub fn regs(&self) -> ArbiterRegs {
        ArbiterRegs {
            tokens_q: self.bucket().tokens_q(),
            busy_remaining: self.busy_until.saturating_sub(self.now) as u16,
            sim_len: self.queues_small[0].len() as u8,
            sim_ack_len: self.queues_small[1].len() as u8,
            data_ack_len: self.queues_small[2].len() as u8,
            data_len: self.data.len() as u16,
            data_bytes: self.data.bytes() as u32,
            sim_drops: self.sim_drops,
            data_drops: self.data_drops,
        }
    }
}

/// Equal when the state is: the token bucket compared in the current cycle (however far
/// each copy has brought it).
impl<D: Copy + PartialEq, const B: usize, const ND: usize> PartialEq for DcsimArbiter<D, B, ND> {
    fn eq(&self, o: &Self) -> bool {
        self.cfg == o.cfg
            && self.queues_small == o.queues_small
            && self.data == o.data
            && self.bucket() == o.bucket()
            && self.now == o.now
            && self.busy_until == o.busy_until
            && self.waiting == o.waiting
            && self.started == o.started
            && self.sim_drops == o.sim_drops
            && self.data_drops == o.data_drops
            && self.stats == o.stats
    }
}

impl<D: Copy + Eq, const B: usize, const ND: usize> Eq for DcsimArbiter<D, B, ND> {}

impl<D: Copy, const B: usize, const ND: usize> Clocked for DcsimArbiter<D, B, ND> {
    fn tick(&mut self) {
        self.step();
    }

    fn advance(&mut self, cycles: Cycles) {
        let t = self.now.saturating_add(cycles);
        self.advance_to(t);
    }
}

/// Budget: the port's control registers (token fill, busy counter, queue occupancies,
/// DATA byte count, drop counters). The descriptors themselves live in the port buffer
/// the paper sizes (3 x B small packets plus the DATA bytes) and are not counted here.
impl<D: Copy, const B: usize, const ND: usize> StateBudget for DcsimArbiter<D, B, ND> {
    const NAME: &'static str = "DCSIM port arbiter (control registers)";
    const BITS: u32 = ARBITER_REGS_BITS;
    const UNIT: &'static str = "per port";
    const PAPER_REF: &'static str = "DCSIM 2.3, Fig. 1 (no figure given)";
}

#[cfg(test)]
mod tests {
    use super::*;

    type Arb = DcsimArbiter<u32, 12, 64>;

    #[test]
    fn default_config_is_valid_and_matches_eq2() {
        let c = DcsimArbiterConfig::default();
        assert_eq!(c.validate(12), Ok(()));
        assert_eq!(c.line_rate_bps(), 800_000_000_000);
        // ceil(9000/64) = 141 cycles per DATA, 1 per SIM: one token per 143.1 cycles.
        assert_eq!(c.token_period_milli(), 143_100);
        let r = c.sim_token_rate();
        assert!(r.over(143_100) >= (1000u128 << 32));
        assert!(r.over(143_099) < (1000u128 << 32));
        assert_eq!(c.data_buffer_bytes(), 500_000 - 3 * 12 * 64);
    }

    #[test]
    fn bad_fields_are_named() {
        let ok = DcsimArbiterConfig::default();
        let cases: [(DcsimArbiterConfig, &str); 6] = [
            (
                DcsimArbiterConfig {
                    bytes_per_cycle: 0,
                    ..ok
                },
                "bytes_per_cycle",
            ),
            (
                DcsimArbiterConfig {
                    bucket_depth: 0,
                    ..ok
                },
                "bucket_depth",
            ),
            (
                DcsimArbiterConfig {
                    small_queue_pkts: 13,
                    ..ok
                },
                "small_queue_pkts",
            ),
            (
                DcsimArbiterConfig {
                    port_buffer_bytes: 2000,
                    ..ok
                },
                "port_buffer_bytes",
            ),
            (
                DcsimArbiterConfig {
                    data_bytes: 10,
                    ..ok
                },
                "data_bytes",
            ),
            (
                DcsimArbiterConfig {
                    clock: Clock { period_ps: 0 },
                    ..ok
                },
                "clock.period_ps",
            ),
        ];
        for (c, field) in cases {
            assert_eq!(Arb::new(c).unwrap_err().field, field);
        }
    }

    #[test]
    fn priority_without_preemption() {
        let cfg = DcsimArbiterConfig {
            bytes_per_cycle: 64,
            small_bytes: 64,
            data_bytes: 640,
            ..Default::default()
        };
        let mut a = Arb::new(cfg).unwrap();
        assert_eq!(a.enqueue(Class::Data, 1, 640), Enqueue::Accepted);
        let d = a.step().unwrap();
        assert_eq!((d.class, d.start, d.cycles), (Class::Data, 0, 10));
        // A SIM arriving while the DATA is on the line waits for it (no preemption).
        a.enqueue(Class::Sim, 2, 64);
        a.enqueue(Class::DataAck, 3, 64);
        a.enqueue(Class::SimAck, 4, 64);
        for _ in 1..10 {
            assert_eq!(a.step(), None);
        }
        let order: [(Class, u32); 3] = core::array::from_fn(|_| {
            let d = a.step().unwrap();
            (d.class, d.desc)
        });
        assert_eq!(
            order,
            [(Class::Sim, 2), (Class::SimAck, 4), (Class::DataAck, 3)]
        );
    }

    /// The DES's way of driving a port (ask [`DcsimArbiter::next_departure`], then
    /// `take_planned` or `idle_until`) equals `take_next` / `advance_to`, departure for
    /// departure and state for state, under random arrivals.
    #[test]
    fn planned_takes_equal_take_next() {
        let mut a = Arb::new(DcsimArbiterConfig::default()).unwrap();
        let mut b = a.clone();
        let mut x: u32 = 0x1234_5678;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut departures = 0;
        for i in 0..20_000u32 {
            let r = rnd();
            match r % 4 {
                0 | 1 => {
                    let class = Class::ALL[(r >> 4) as usize % 4];
                    let bytes = if class == Class::Data { 9064 } else { 64 };
                    assert_eq!(a.enqueue(class, i, bytes), b.enqueue(class, i, bytes));
                }
                2 => {
                    let t = a.now() + u64::from(r >> 20) % 400;
                    // The DES: a departure due before `t` is taken, else the port idles.
                    loop {
                        match a.next_departure() {
                            Some(d) if d.start < t => {
                                let got = a.take_planned(&d);
                                assert_eq!(got, b.take_next());
                                departures += 1;
                            }
                            _ => {
                                a.idle_until(t);
                                break;
                            }
                        }
                    }
                    b.advance_to(t);
                }
                _ => {
                    if let Some(d) = a.next_departure() {
                        assert_eq!(a.take_planned(&d), b.take_next());
                        departures += 1;
                    }
                }
            }
            assert_eq!(a, b);
        }
        assert!(departures > 1000, "{departures}");
    }

    /// [`DcsimArbiter::arrival_keeps_plan`] says "kept" only when the plan after the
    /// arrival is the plan before it, under random arrivals, idling and starts; every
    /// planned class meets arrivals that keep it and arrivals that change it.
    #[test]
    fn arrival_keeps_plan_only_when_the_plan_stays() {
        // One SIM token per DATA time: SIMs often wait for one, with and without others.
        let mut a = Arb::new(DcsimArbiterConfig::default()).unwrap();
        let mut x: u32 = 0x8765_4321;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        // [planned class][arriving class]: (kept, changed)
        let mut seen = [[(0u32, 0u32); 4]; 4];
        for i in 0..40_000u32 {
            let r = rnd();
            match r % 5 {
                0 | 1 => {
                    // Every other stretch mostly SIMs, so that SIMs wait alone for a token.
                    let class = if (i / 1000) % 2 == 1 && (r >> 8) % 8 != 0 {
                        Class::Sim
                    } else {
                        Class::ALL[(r >> 4) as usize % 4]
                    };
                    let bytes = if class == Class::Data { 9064 } else { 64 };
                    let before = a.next_plan();
                    let keeps = before.map(|p| a.arrival_keeps_plan(p, class));
                    a.enqueue(class, i, bytes);
                    if let (Some(p), Some(k)) = (before, keeps) {
                        let after = a.next_plan();
                        if k {
                            assert_eq!(after, Some(p), "arrival {i} of {class:?}");
                        }
                        let e = &mut seen[p.class.index()][class.index()];
                        if after == Some(p) {
                            e.0 += 1;
                        } else {
                            e.1 += 1;
                        }
                    }
                }
                _ => {
                    if let Some(d) = a.next_departure() {
                        if r & 0x100 != 0 {
                            a.take_planned(&d);
                        } else {
                            a.idle_until(a.now().max(d.start.saturating_sub(1)));
                        }
                    }
                }
            }
        }
        // Every planned class met arrivals that kept it and arrivals that changed it (a
        // planned SIM-ACK only by a SIM with its token, the rarest).
        for (k, row) in seen.iter().enumerate() {
            let kept: u32 = row.iter().map(|e| e.0).sum();
            let changed: u32 = row.iter().map(|e| e.1).sum();
            let need = if k == Class::SimAck.index() { 1 } else { 20 };
            assert!(kept > 20 && changed >= need, "planned {k}: {row:?}");
        }
    }

    #[test]
    fn full_queues_drop_and_count() {
        let cfg = DcsimArbiterConfig {
            small_queue_pkts: 2,
            port_buffer_bytes: 3 * 2 * 64 + 2 * 9000,
            ..Default::default()
        };
        let mut a = Arb::new(cfg).unwrap();
        for i in 0..3 {
            let r = a.enqueue(Class::Sim, i, 64);
            assert_eq!(
                r,
                if i < 2 {
                    Enqueue::Accepted
                } else {
                    Enqueue::Dropped
                }
            );
        }
        for i in 0..3 {
            let r = a.enqueue(Class::Data, i, 9000);
            assert_eq!(
                r,
                if i < 2 {
                    Enqueue::Accepted
                } else {
                    Enqueue::Dropped
                }
            );
        }
        assert_eq!(a.stats().dropped, [1, 0, 0, 1]);
        assert_eq!((a.regs().sim_drops, a.regs().data_drops), (1, 1));
        assert_eq!(a.enqueue(Class::Data, 9, u32::MAX), Enqueue::Rejected);
    }
}
