//! Per-flow DCSIM sender state (DCSIM section 2.4, steps 1, 4, 5 and "Timeouts",
//! "DATA management").
//!
//! ```text
//!   push_data(n) --> n_data += n          new_sim(rng) (only if n_sim < n_data, Eq. 3)
//!                                             |  fresh EV, distinct from outstanding SIMs
//!                    SIM table (S entries)    v
//!                    Free -> Queued{ev} -on_sim_transmitted(t)-> Sent{ev, t_sim}
//!                         ^                                        |        |
//!                         +------ SIM timeout (t_sim + sim_timeout)+        | on_sim_ack(ev)
//!                                                                           v
//!   DATA window (N slots, seq % N, seq in [base, next_new)):   first waiting DATA (seq)
//!     (1) WaitingSim ----------------------------------------> (2) WaitingGreenLight{ev,
//!          ^   (timed-out DATAs; never-sent DATAs are the          release_at = t_SIM + RTT_max}
//!          |    counter total - next_new)                            | timer: release
//!          |                                                         v
//!          |  DATA timeout                                      (3) Queued{ev}  -> Release out
//!          +---------------- (4) SideBuffer{ev, timeout_at} <-on_data_transmitted(t)-+
//!                                    | on_data_ack(cum, sack)
//!                                    v
//!                                  Acked --(base slides)--> Empty
//! ```
//!
//! Invariants (checked by property tests): `n_sim <= n_data` (Eq. 3); the EVs of the
//! outstanding SIMs (Queued or Sent) are distinct; `n_data + in_flight + acked = total`
//! (conservation); a DATA is never released before `release_at` (Eq. 4).
//!
//! `n_data` counts DATAs in state (1): the timed-out DATAs in the window (`n_retx`, head of
//! the queue) and the never-sent ones (`total - next_new`). A SIM is created only if a DATA
//! will be there for its SIM-ACK: `n_sim < n_retx + min(total, base + N) - next_new`
//! (Eq. 3 plus the window), and `n_sim < S`.
//!
//! Units: times in host cycles, sequence numbers in DATAs, EVs as carried in the header.

use rtl_models::{Cycles, RandomSource};

use super::config::DcsimHostConfig;
use super::index::{EvIndex, SlotMask, MASK_SLOTS};
use super::receiver::DataAck;
use super::regs::{HeapRegs, RingRegs};
use crate::lb::Ev;

/// A DATA sequence number within its flow.
pub type Seq = u32;

/// One entry of the outstanding-SIM table. `T` is the time type: [`Cycles`] in the
/// public view, a 32-bit offset from the flow's epoch in the flow's own table (see
/// [`DcsimFlow`]: "Stored times").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SimEntry<T = Cycles> {
    /// Unused.
    #[default]
    Free,
    /// Created and waiting in the NIC's SIM queue (counts in `n_sim`).
    Queued {
        /// Its entropy value.
        ev: Ev,
    },
    /// On the wire since `t_sim`, waiting for its SIM-ACK or its timeout.
    Sent {
        /// Its entropy value.
        ev: Ev,
        /// Transmission cycle (Eq. 4's `t_SIM`).
        t_sim: T,
    },
}

impl<T: Copy> SimEntry<T> {
    /// The EV of an outstanding (Queued or Sent) SIM.
    pub const fn ev(&self) -> Option<Ev> {
        match *self {
            SimEntry::Free => None,
            SimEntry::Queued { ev } | SimEntry::Sent { ev, .. } => Some(ev),
        }
    }

    /// The same entry with its time mapped by `f`.
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> SimEntry<U> {
        match self {
            SimEntry::Free => SimEntry::Free,
            SimEntry::Queued { ev } => SimEntry::Queued { ev },
            SimEntry::Sent { ev, t_sim } => SimEntry::Sent {
                ev,
                t_sim: f(t_sim),
            },
        }
    }
}

/// The four states of a DATA at the source (section 2.4, "DATA management"). `T` is the
/// time type, as for [`SimEntry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataState<T = Cycles> {
    /// (1) Waiting for a SIM to be sent (here: a DATA put back at the head of the queue
    /// after a timeout; never-sent DATAs are counted, not stored).
    WaitingSim,
    /// (2) Associated with an acknowledged SIM, waiting for the green light at
    /// `release_at` (Eq. 4).
    WaitingGreenLight {
        /// EV of the SIM (the DATA takes the SIM's path).
        ev: Ev,
        /// `t_DATA`.
        release_at: T,
    },
    /// (3) Released into the NIC's DATA queue, ready to be transmitted.
    Queued {
        /// Its EV.
        ev: Ev,
    },
    /// (4) Transmitted; a copy stays in the side buffer until a DATA-ACK or `timeout_at`.
    SideBuffer {
        /// Its EV.
        ev: Ev,
        /// When it goes back to the head of the queue.
        timeout_at: T,
    },
}

impl<T: Copy> DataState<T> {
    /// The same state with its time mapped by `f`.
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> DataState<U> {
        match self {
            DataState::WaitingSim => DataState::WaitingSim,
            DataState::WaitingGreenLight { ev, release_at } => DataState::WaitingGreenLight {
                ev,
                release_at: f(release_at),
            },
            DataState::Queued { ev } => DataState::Queued { ev },
            DataState::SideBuffer { ev, timeout_at } => DataState::SideBuffer {
                ev,
                timeout_at: f(timeout_at),
            },
        }
    }
}

/// One slot of the DATA window (`T` as for [`SimEntry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DataSlot<T = Cycles> {
    /// Outside `[base, next_new)`.
    #[default]
    Empty,
    /// A DATA in one of the four states.
    Live(DataState<T>),
    /// Acknowledged, waiting for `base` to pass it.
    Acked,
}

impl<T: Copy> DataSlot<T> {
    /// The same slot with its time mapped by `f`.
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> DataSlot<U> {
        match self {
            DataSlot::Empty => DataSlot::Empty,
            DataSlot::Live(s) => DataSlot::Live(s.map(f)),
            DataSlot::Acked => DataSlot::Acked,
        }
    }
}

/// A value starting a 64-byte line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line<T>(T);

/// A stored time: an offset from the flow's epoch (see [`DcsimFlow`], "Stored times").
type Off = u32;

/// A DATA released for transmission (the "send DATA with EV at time t" action).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Release {
    /// Its sequence number.
    pub seq: Seq,
    /// The EV of its SIM.
    pub ev: Ev,
    /// `t_DATA`, the cycle it is due (it leaves the engine at or after this cycle).
    pub at: Cycles,
}

/// What a SIM-ACK did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimAckOutcome {
    /// The first waiting DATA (`seq`) takes the SIM's EV, released at `release_at`.
    Scheduled {
        /// The DATA.
        seq: Seq,
        /// Its `t_DATA`.
        release_at: Cycles,
    },
    /// No outstanding SIM has this EV (it timed out, or a duplicate): ignored.
    Stale,
}

/// Timer events of one [`DcsimFlow::fire`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FireCounts {
    /// SIMs that timed out.
    pub sim_timeouts: u32,
    /// DATAs released.
    pub released: u32,
    /// DATAs that timed out and went back to the head of the queue.
    pub data_timeouts: u32,
    /// Whether a due release was refused by the output (it stays due).
    pub stalled: bool,
}

/// The DCSIM sender state of one flow: at most `S` outstanding SIMs, a window of `N`
/// DATAs in states (1) (timed out) to (4).
///
/// Stored times: the SIM table, the DATA window, the release heap and the timer queues
/// keep 32-bit offsets from a per-flow `epoch` (as the hardware budget in
/// [`super::packed`] keeps 32-bit timestamps), halving the entries (8 bytes instead of
/// 16). Every stored time `t` satisfies `epoch <= t <= epoch + u32::MAX`, checked when a
/// time is stored: one that does not fit moves the epoch down to the earliest stored time
/// (every offset re-expressed, exact). Stored times are at most the DATA timeout (the host
/// clock keeps it below 2^30 cycles) ahead of the clock and live ones at most the timeouts
/// behind it, so this always fits in the shipped configurations; if the stored times ever
/// span more than 2^32 cycles the flow sets [`DcsimFlow::time_overflow`] (its times are
/// then wrong) and the caller must refuse the run.
///
/// Layout (simulator memory only, session 15b): the context, the epoch and the registers
/// of the timer queues and the release heap fill the first 64-byte line, the free-entry
/// mask the second, so that a flow visit reads one line of registers before the entries
/// it needs (they were spread over four lines of the flow's 17.5 KB).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct DcsimFlow<const S: usize, const N: usize> {
    epoch: Cycles,
    total: u32,
    next_new: Seq,
    base: Seq,
    acked: u32,
    // Deadline of the newest SIM timer (a copy of the SIM timer queue's last entry's,
    // while the queue holds one).
    sim_tail: Off,
    n_sim: u16,
    n_retx: u16,
    in_flight: u16,
    // Registers of the model-side timer indices below.
    sim_q: RingRegs,
    data_q: RingRegs,
    rel_q: HeapRegs,
    collective: u8,
    time_overflow: bool,
    // Model-side indexes of the SIM table (redundant with `sims`; hardware uses a priority
    // encoder over the free entries and a CAM on the EVs): see [`super::index`].
    // On a line of its own (the second).
    free_sims: Line<SlotMask>,
    sim_evs: EvIndex<S>,
    sims: [SimEntry<Off>; S],
    window: [DataSlot<Off>; N],
    // Model-side timer indices (redundant with the tables' timestamps; hardware finds the
    // earliest deadline with a comparator tree over the tables): the releases (a min-heap),
    // the SIM and DATA timeouts (FIFOs in deadline order).
    releases: [(Off, Seq); N],
    sim_timers: [(Off, u16); S],
    data_timers: [(Off, Seq); N],
}

impl<const S: usize, const N: usize> PartialEq for DcsimFlow<S, N> {
    fn eq(&self, o: &Self) -> bool {
        self.collective == o.collective
            && self.total == o.total
            && self.next_new == o.next_new
            && self.base == o.base
            && self.n_sim == o.n_sim
            && self.n_retx == o.n_retx
            && self.in_flight == o.in_flight
            && self.acked == o.acked
            && self.time_overflow == o.time_overflow
            && self.sims() == o.sims()
            && self.window() == o.window()
            && self
                .rel_q
                .iter(&self.releases)
                .map(|e| (self.t(e.0), e.1))
                .eq(o.rel_q.iter(&o.releases).map(|e| (o.t(e.0), e.1)))
            && self
                .sim_q
                .iter(&self.sim_timers)
                .map(|e| (self.t(e.0), e.1))
                .eq(o.sim_q.iter(&o.sim_timers).map(|e| (o.t(e.0), e.1)))
            && self
                .data_q
                .iter(&self.data_timers)
                .map(|e| (self.t(e.0), e.1))
                .eq(o.data_q.iter(&o.data_timers).map(|e| (o.t(e.0), e.1)))
    }
}
impl<const S: usize, const N: usize> Eq for DcsimFlow<S, N> {}

impl<const S: usize, const N: usize> DcsimFlow<S, N> {
    const CAPACITY_CHECK: () = assert!(
        S >= 1 && S <= MASK_SLOTS && N >= 1 && N < u16::MAX as usize,
        "DcsimFlow: need 1 <= S <= 512 and 1 <= N < 65535"
    );

    /// A flow of local collective `collective` with `datas` DATAs to send.
    pub fn new(collective: u8, datas: u32) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_CHECK;
        DcsimFlow {
            collective,
            total: datas,
            next_new: 0,
            base: 0,
            n_sim: 0,
            n_retx: 0,
            in_flight: 0,
            acked: 0,
            time_overflow: false,
            epoch: 0,
            sims: [SimEntry::Free; S],
            window: [DataSlot::Empty; N],
            sim_tail: 0,
            sim_q: RingRegs::new(),
            data_q: RingRegs::new(),
            rel_q: HeapRegs::new(),
            releases: [(0, 0); N],
            sim_timers: [(0, 0); S],
            data_timers: [(0, 0); N],
            free_sims: Line(SlotMask::first_n(S)),
            sim_evs: EvIndex::new(),
        }
    }

    /// The time stored as offset `o`.
    #[inline]
    const fn t(&self, o: Off) -> Cycles {
        self.epoch + o as Cycles
    }

    /// The offset of time `t`, which [`DcsimFlow::fit`] made fit.
    #[inline]
    const fn off(&self, t: Cycles) -> Off {
        t.wrapping_sub(self.epoch) as Off
    }

    /// Make times `lo <= hi` storable as offsets (moving the epoch if needed).
    #[inline]
    fn fit(&mut self, lo: Cycles, hi: Cycles) {
        debug_assert!(lo <= hi);
        if lo < self.epoch || hi - self.epoch > Off::MAX as Cycles {
            self.rebase(lo, hi);
        }
    }

    /// Move the epoch to the earliest stored time (or `lo`) and re-express every stored
    /// offset; flags [`DcsimFlow::time_overflow`] if the stored times and `hi` do not fit
    /// in 32 bits from there.
    #[cold]
    #[inline(never)]
    fn rebase(&mut self, lo: Cycles, hi: Cycles) {
        let old = self.epoch;
        let (mut min_off, mut max_off) = (Off::MAX, 0);
        let mut any = false;
        let mut see = |o: Off| {
            any = true;
            min_off = min_off.min(o);
            max_off = max_off.max(o);
        };
        for e in &self.sims {
            if let SimEntry::Sent { t_sim, .. } = *e {
                see(t_sim);
            }
        }
        for w in &self.window {
            match *w {
                DataSlot::Live(DataState::WaitingGreenLight { release_at: t, .. })
                | DataSlot::Live(DataState::SideBuffer { timeout_at: t, .. }) => see(t),
                _ => {}
            }
        }
        for e in self.rel_q.iter(&self.releases) {
            see(e.0);
        }
        for e in self.sim_q.iter(&self.sim_timers) {
            see(e.0);
        }
        for e in self.data_q.iter(&self.data_timers) {
            see(e.0);
        }
        let (new, top) = if any {
            (
                lo.min(old + min_off as Cycles),
                hi.max(old + max_off as Cycles),
            )
        } else {
            (lo, hi)
        };
        if top - new > Off::MAX as Cycles {
            // Cannot happen in a configuration whose timers fit the host clock (see the
            // type's doc); the caller refuses the run.
            self.time_overflow = true;
        }
        let re = |o: Off| -> Off { (old + o as Cycles).wrapping_sub(new) as Off };
        for e in self.sims.iter_mut() {
            *e = e.map(re);
        }
        for w in self.window.iter_mut() {
            *w = w.map(re);
        }
        // Every offset moves by the same amount (no wrap: all fit from `new`), so the
        // heap keeps its order.
        self.rel_q
            .for_each_mut(&mut self.releases, |e| e.0 = re(e.0));
        self.sim_q
            .for_each_mut(&mut self.sim_timers, |e| e.0 = re(e.0));
        self.sim_tail = re(self.sim_tail);
        self.data_q
            .for_each_mut(&mut self.data_timers, |e| e.0 = re(e.0));
        self.epoch = new;
    }

    /// Whether the stored times ever spanned more than 2^32 cycles (the flow's times are
    /// then wrong: the run must be refused; see the type's doc).
    pub const fn time_overflow(&self) -> bool {
        self.time_overflow
    }

    /// The SIM-table entry of the outstanding (Queued or Sent) SIM with `ev`.
    #[inline]
    fn sim_slot(&self, ev: Ev) -> Option<usize> {
        let sims = &self.sims;
        let i = self.sim_evs.find(ev, |j| sims[j].ev());
        debug_assert_eq!(i, self.sims.iter().position(|e| e.ev() == Some(ev)));
        i
    }

    /// Free SIM-table entry `i` (outstanding with `ev`).
    #[inline]
    fn free_sim(&mut self, i: usize, ev: Ev) {
        self.sims[i] = SimEntry::Free;
        self.sim_evs.remove(i, ev);
        self.free_sims.0.set(i, true);
    }

    /// Local collective index (scheduler group).
    pub const fn collective(&self) -> u8 {
        self.collective
    }
    /// `n_SIM`: outstanding SIMs (queued in the NIC or on the wire).
    pub const fn n_sim(&self) -> u32 {
        self.n_sim as u32
    }
    /// `n_DATA`: DATAs waiting for a SIM (timed-out ones plus never-sent ones).
    pub const fn n_data(&self) -> u32 {
        self.n_retx as u32 + (self.total - self.next_new)
    }
    /// DATAs in states (2) to (4).
    pub const fn in_flight(&self) -> u32 {
        self.in_flight as u32
    }
    /// DATAs acknowledged.
    pub const fn acked(&self) -> u32 {
        self.acked
    }
    /// DATAs handed to the flow so far.
    pub const fn total(&self) -> u32 {
        self.total
    }
    /// Lowest unacknowledged sequence number (window start).
    pub const fn base(&self) -> Seq {
        self.base
    }
    /// Next never-associated sequence number.
    pub const fn next_new(&self) -> Seq {
        self.next_new
    }
    /// Whether every DATA handed to the flow is acknowledged.
    pub const fn is_done(&self) -> bool {
        self.acked == self.total
    }
    /// The outstanding-SIM table (times widened from the stored offsets).
    pub fn sims(&self) -> [SimEntry; S] {
        self.sims.map(|e| e.map(|o| self.t(o)))
    }

    /// The state of DATA `seq`: `None` when acknowledged or never associated (the
    /// never-sent DATAs `next_new..total` are in state (1) too: see [`DcsimFlow::n_data`]).
    pub fn data_state(&self, seq: Seq) -> Option<DataState> {
        self.cell(seq).map(|s| s.map(|o| self.t(o)))
    }

    /// [`DcsimFlow::data_state`] with the stored offset.
    #[inline]
    fn cell(&self, seq: Seq) -> Option<DataState<Off>> {
        if seq < self.base || seq >= self.next_new {
            return None;
        }
        match self.window[seq as usize % N] {
            DataSlot::Live(s) => Some(s),
            _ => None,
        }
    }

    /// DATAs a SIM-ACK could still take without exceeding the window: timed-out ones plus
    /// never-sent ones below `base + N`.
    const fn sim_credit(&self) -> u32 {
        let limit = {
            let w = self.base as u64 + N as u64;
            if (self.total as u64) < w {
                self.total as u64
            } else {
                w
            }
        };
        self.n_retx as u32 + (limit - self.next_new as u64) as u32
    }

    /// Whether a new SIM may be created (Eq. 3, window and SIM table permitting).
    pub const fn can_send_sim(&self) -> bool {
        (self.n_sim as usize) < S && (self.n_sim as u32) < self.sim_credit()
    }

    /// Whether Eq. 3 allows a SIM but the DATA window or the SIM table does not.
    pub const fn window_blocked(&self) -> bool {
        self.n_sim() < self.n_data() && !self.can_send_sim()
    }

    /// More DATAs from the application (`n_DATA += n`); returns how many were taken
    /// (the 32-bit sequence space saturates).
    pub fn push_data(&mut self, n: u32) -> u32 {
        let room = u32::MAX - self.total;
        let k = n.min(room);
        self.total += k;
        k
    }

    /// Never-sent DATAs a fast-forward may take off the end of the message (Wormhole 5.3 /
    /// 6.2, `../shared/papers/wormhole.md`; the DES's skip of a steady partition): those past
    /// both the window (`base + N`) and the DATAs the outstanding SIMs will take
    /// (`next_new + n_SIM`). Taking them keeps Eq. 3 (`n_SIM <= n_DATA`) and leaves what a
    /// SIM may still ask for ([`DcsimFlow::can_send_sim`]'s credit) as it was.
    pub const fn skippable(&self) -> u32 {
        let window = self.base as u64 + N as u64;
        let sims = self.next_new as u64 + self.n_sim as u64;
        let keep = if window > sims { window } else { sims };
        (self.total as u64).saturating_sub(keep) as u32
    }

    /// Take up to `k` never-sent DATAs off the end of the message (they were sent and
    /// delivered at the flow's steady rate while the DES skipped its partition); returns how
    /// many were taken, at most [`DcsimFlow::skippable`]. The inverse of
    /// [`DcsimFlow::push_data`] on the never-sent part: sequence numbers, the window, the
    /// SIM table and the timers are untouched. A simulator's operation, not a hardware
    /// input: it changes only `total`, a register software writes in any case.
    pub fn fast_forward(&mut self, k: u32) -> u32 {
        let k = k.min(self.skippable());
        self.total -= k;
        k
    }

    /// Create a SIM (section 2.4 (1)) with a fresh random EV distinct from the EVs of the
    /// outstanding SIMs: one draw, then a linear probe (`ev + 1`) past collisions, at most
    /// `S` steps. `None` if [`DcsimFlow::can_send_sim`] is false.
    pub fn new_sim<R: RandomSource>(&mut self, rng: &mut R, ev_mask: u16) -> Option<Ev> {
        if !self.can_send_sim() {
            return None;
        }
        // The lowest free entry.
        let slot = self.free_sims.0.first_at_or_after(0)?;
        debug_assert_eq!(
            Some(slot),
            self.sims.iter().position(|e| *e == SimEntry::Free)
        );
        let mut ev = (rng.next_u32() as u16) & ev_mask;
        // Terminates: fewer than S outstanding EVs and 2^ev_bits > S (config check).
        while self.sim_slot(ev).is_some() {
            ev = ev.wrapping_add(1) & ev_mask;
        }
        self.sims[slot] = SimEntry::Queued { ev };
        self.free_sims.0.set(slot, false);
        self.sim_evs.insert(slot, ev);
        self.n_sim += 1;
        Some(ev)
    }

    /// The SIM with `ev` went on the wire at `now`: record `t_SIM`, start its timer.
    /// `false` if no queued SIM has this EV.
    pub fn on_sim_transmitted(&mut self, ev: Ev, now: Cycles, cfg: &DcsimHostConfig) -> bool {
        let Some(i) = self
            .sim_slot(ev)
            .filter(|&i| self.sims[i] == SimEntry::Queued { ev })
        else {
            return false;
        };
        let deadline_t = now + cfg.sim_timeout;
        self.fit(now, deadline_t);
        self.sims[i] = SimEntry::Sent {
            ev,
            t_sim: self.off(now),
        };
        let deadline = self.off(deadline_t);
        // A slot freed and refilled in the same cycle leaves a stale timer identical to
        // the new one; that entry already serves it (and a duplicate would look live to
        // the compaction below, which could then not make room). The queue is in deadline
        // order (`now` never decreases), so such an entry is among the last ones, and
        // there is none unless the last one's deadline (`sim_tail`, kept in the flow's
        // first line) is this one: the queue's last line is read only then.
        debug_assert_eq!(
            self.sim_q.iter(&self.sim_timers).next_back().map(|e| e.0),
            (self.sim_q.len() > 0).then_some(self.sim_tail)
        );
        let dup = self.sim_q.len() > 0
            && self.sim_tail == deadline
            && self
                .sim_q
                .iter(&self.sim_timers)
                .rev()
                .take_while(|e| e.0 == deadline)
                .any(|e| e == (deadline, i as u16));
        debug_assert_eq!(
            dup,
            self.sim_q
                .iter(&self.sim_timers)
                .any(|e| e == (deadline, i as u16))
        );
        if dup {
            return true;
        }
        if self.sim_q.is_full(&self.sim_timers) {
            self.compact_sim_timers(cfg);
        }
        // Cannot fail: entries are distinct, at most S - 1 other SIMs are Sent, so
        // compaction left room.
        let _ = self
            .sim_q
            .push_back(&mut self.sim_timers, (deadline, i as u16));
        self.sim_tail = deadline;
        true
    }

    /// Forget an outstanding SIM (for example dropped by the local NIC before it left).
    pub fn cancel_sim(&mut self, ev: Ev) -> bool {
        let Some(i) = self.sim_slot(ev) else {
            return false;
        };
        self.free_sim(i, ev);
        self.n_sim -= 1;
        true
    }

    /// The lowest timed-out DATA in the window (head of the waiting queue).
    fn lowest_retx(&self) -> Option<Seq> {
        (self.base..self.next_new)
            .find(|&s| self.window[s as usize % N] == DataSlot::Live(DataState::WaitingSim))
    }

    /// SIM-ACK for `ev` at `now` (section 2.4 (4)): free the SIM (`n_sim -= 1`), give its
    /// EV to the first waiting DATA (`n_data -= 1`) and schedule that DATA at
    /// `t_DATA = t_SIM + RTT_max` (or the variant's time). The caller then runs
    /// [`DcsimFlow::fire`] at `now` in case `t_DATA <= now`.
    pub fn on_sim_ack(&mut self, ev: Ev, now: Cycles, cfg: &DcsimHostConfig) -> SimAckOutcome {
        let found = self
            .sim_slot(ev)
            .filter(|&i| matches!(self.sims[i], SimEntry::Sent { .. }));
        let Some(i) = found else {
            return SimAckOutcome::Stale;
        };
        let SimEntry::Sent { t_sim, .. } = self.sims[i] else {
            return SimAckOutcome::Stale;
        };
        // By the creation rule a DATA is always available (sim_credit >= n_sim >= 1).
        let seq = if self.n_retx > 0 {
            match self.lowest_retx() {
                Some(s) => {
                    self.n_retx -= 1;
                    s
                }
                None => return SimAckOutcome::Stale,
            }
        } else if self.next_new < self.total && (self.next_new as u64) < self.base as u64 + N as u64
        {
            self.next_new += 1;
            self.next_new - 1
        } else {
            return SimAckOutcome::Stale;
        };
        self.free_sim(i, ev);
        self.n_sim -= 1;
        let release_at = cfg.release_at(self.t(t_sim), now);
        self.fit(now, release_at);
        let r = self.off(release_at);
        self.window[seq as usize % N] =
            DataSlot::Live(DataState::WaitingGreenLight { ev, release_at: r });
        self.in_flight += 1;
        // Cannot fail: one entry per DATA in state (2), at most N.
        let _ = self.rel_q.push(&mut self.releases, (r, seq));
        self.tidy(cfg);
        SimAckOutcome::Scheduled { seq, release_at }
    }

    /// DATA `seq` went on the wire at `now`: state (3) -> (4), start its timer. `false`
    /// if it was not in state (3).
    pub fn on_data_transmitted(&mut self, seq: Seq, now: Cycles, cfg: &DcsimHostConfig) -> bool {
        let Some(DataState::Queued { ev }) = self.cell(seq) else {
            return false;
        };
        let t = now + cfg.data_timeout;
        self.fit(now, t);
        let timeout_at = self.off(t);
        self.window[seq as usize % N] = DataSlot::Live(DataState::SideBuffer { ev, timeout_at });
        if self.data_q.is_full(&self.data_timers) {
            self.compact_data_timers();
        }
        // Cannot fail: at most N - 1 other DATAs are in the side buffer.
        let _ = self
            .data_q
            .push_back(&mut self.data_timers, (timeout_at, seq));
        true
    }

    /// DATA `seq` in state (3) could not be queued by the NIC: back to the head of the
    /// waiting queue (as after a timeout). `false` if it was not in state (3).
    pub fn on_data_dropped_locally(&mut self, seq: Seq) -> bool {
        let Some(DataState::Queued { .. }) = self.cell(seq) else {
            return false;
        };
        self.window[seq as usize % N] = DataSlot::Live(DataState::WaitingSim);
        self.in_flight -= 1;
        self.n_retx += 1;
        true
    }

    fn ack_one(&mut self, seq: Seq) -> u32 {
        if seq < self.base || seq >= self.next_new {
            return 0;
        }
        let slot = &mut self.window[seq as usize % N];
        if let DataSlot::Live(DataState::SideBuffer { .. }) = slot {
            *slot = DataSlot::Acked;
            self.in_flight -= 1;
            self.acked += 1;
            1
        } else {
            0
        }
    }

    /// A DATA-ACK (section 2.4 (5)): every DATA below `ack.cum` and each DATA
    /// `ack.cum + 1 + i` with bit `i` of `ack.sack` set is received. DATAs in the side
    /// buffer among them are deleted; others (a copy still to be resent) are left alone
    /// and acknowledged when their copy is. Returns how many DATAs were newly acked.
    pub fn on_data_ack(&mut self, ack: DataAck, cfg: &DcsimHostConfig) -> u32 {
        let mut newly = 0;
        let hi = ack.cum.min(self.next_new);
        for s in self.base..hi {
            newly += self.ack_one(s);
        }
        let mut bits = ack.sack;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            if let Some(s) = ack.cum.checked_add(1 + i) {
                newly += self.ack_one(s);
            }
        }
        while self.base < self.next_new && self.window[self.base as usize % N] == DataSlot::Acked {
            self.window[self.base as usize % N] = DataSlot::Empty;
            self.base += 1;
        }
        self.tidy(cfg);
        newly
    }

    /// Run the timers due at `now`: SIM timeouts (`n_sim -= 1`), releases of DATAs whose
    /// `t_DATA <= now` if `allow_release` (state (2) -> (3), handed to `out`; if `out`
    /// refuses, the release stays due), DATA timeouts (state (4) -> (1), head of the queue).
    pub fn fire(
        &mut self,
        now: Cycles,
        cfg: &DcsimHostConfig,
        allow_release: bool,
        out: &mut impl FnMut(Release) -> bool,
    ) -> FireCounts {
        let mut c = FireCounts::default();
        // Each queue's front key is in the registers: its slots are read only when due.
        while let Some(d) = self.sim_q.front_key() {
            let d = self.t(d);
            if d > now {
                break;
            }
            let Some((_, slot)) = self.sim_q.pop_front(&self.sim_timers) else {
                break;
            };
            if let SimEntry::Sent { t_sim, ev } = self.sims[slot as usize] {
                if self.t(t_sim) + cfg.sim_timeout == d {
                    self.free_sim(slot as usize, ev);
                    self.n_sim -= 1;
                    c.sim_timeouts += 1;
                }
            }
        }
        while let Some(at) = self.rel_q.peek_key() {
            let at = self.t(at);
            if at > now || !allow_release {
                break;
            }
            let Some((_, seq)) = self.rel_q.peek(&self.releases) else {
                break;
            };
            let Some(DataState::WaitingGreenLight { ev, release_at }) = self.cell(seq) else {
                self.rel_q.pop(&mut self.releases); // cannot happen: entries leave state (2) only here
                continue;
            };
            debug_assert_eq!(self.t(release_at), at);
            if !out(Release { seq, ev, at }) {
                c.stalled = true;
                break;
            }
            self.rel_q.pop(&mut self.releases);
            self.window[seq as usize % N] = DataSlot::Live(DataState::Queued { ev });
            c.released += 1;
        }
        while let Some(d) = self.data_q.front_key() {
            if self.t(d) > now {
                break;
            }
            let Some((_, seq)) = self.data_q.pop_front(&self.data_timers) else {
                break;
            };
            if let Some(DataState::SideBuffer { timeout_at, .. }) = self.cell(seq) {
                if timeout_at == d {
                    self.window[seq as usize % N] = DataSlot::Live(DataState::WaitingSim);
                    self.in_flight -= 1;
                    self.n_retx += 1;
                    c.data_timeouts += 1;
                }
            }
        }
        self.tidy(cfg);
        c
    }

    /// Earliest pending SIM or DATA timeout.
    pub fn next_timeout(&self) -> Option<Cycles> {
        self.check_keys();
        // From the registers' copies of the front keys: no slot read.
        let a = self.sim_q.front_key().map(|o| self.t(o));
        let b = self.data_q.front_key().map(|o| self.t(o));
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        }
    }

    /// Earliest pending release (`t_DATA` of a DATA in state (2)).
    pub fn next_release(&self) -> Option<Cycles> {
        self.check_keys();
        self.rel_q.peek_key().map(|o| self.t(o))
    }

    /// Debug builds: the registers' key copies equal the front entries' keys.
    #[inline]
    fn check_keys(&self) {
        debug_assert_eq!(
            self.sim_q.front_key(),
            self.sim_q.front(&self.sim_timers).map(|e| e.0)
        );
        debug_assert_eq!(
            self.data_q.front_key(),
            self.data_q.front(&self.data_timers).map(|e| e.0)
        );
        debug_assert_eq!(
            self.rel_q.peek_key(),
            self.rel_q.peek(&self.releases).map(|e| e.0)
        );
    }

    /// Earliest timer of any kind.
    pub fn next_deadline(&self) -> Option<Cycles> {
        match (self.next_timeout(), self.next_release()) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        }
    }

    fn sim_timer_live(&self, e: (Off, u16), cfg: &DcsimHostConfig) -> bool {
        matches!(self.sims[e.1 as usize], SimEntry::Sent { t_sim, .. } if self.t(t_sim) + cfg.sim_timeout == self.t(e.0))
    }

    fn data_timer_live(&self, e: (Off, Seq)) -> bool {
        matches!(self.cell(e.1), Some(DataState::SideBuffer { timeout_at, .. }) if timeout_at == e.0)
    }

    /// Drop stale entries (acked / timed-out targets) from the front of the timer queues,
    /// so that the next deadline is a live one.
    fn tidy(&mut self, cfg: &DcsimHostConfig) {
        while let Some(e) = self.sim_q.front(&self.sim_timers) {
            if self.sim_timer_live(e, cfg) {
                break;
            }
            self.sim_q.pop_front(&self.sim_timers);
        }
        while let Some(e) = self.data_q.front(&self.data_timers) {
            if self.data_timer_live(e) {
                break;
            }
            self.data_q.pop_front(&self.data_timers);
        }
    }

    fn compact_sim_timers(&mut self, cfg: &DcsimHostConfig) {
        for _ in 0..self.sim_q.len() {
            if let Some(e) = self.sim_q.pop_front(&self.sim_timers) {
                if self.sim_timer_live(e, cfg) {
                    let _ = self.sim_q.push_back(&mut self.sim_timers, e);
                    self.sim_tail = e.0;
                }
            }
        }
    }

    fn compact_data_timers(&mut self) {
        for _ in 0..self.data_q.len() {
            if let Some(e) = self.data_q.pop_front(&self.data_timers) {
                if self.data_timer_live(e) {
                    let _ = self.data_q.push_back(&mut self.data_timers, e);
                }
            }
        }
    }

    /// The logical per-flow context word (see [`super::packed::FlowCtx`]).
    pub fn ctx(&self) -> super::packed::FlowCtx {
        super::packed::FlowCtx {
            collective: self.collective,
            total: self.total,
            next_new: self.next_new,
            base: self.base,
            n_sim: self.n_sim,
            n_retx: self.n_retx,
            in_flight: self.in_flight,
            acked: self.acked,
        }
    }

    /// The DATA window, slot `seq % N` (times widened from the stored offsets).
    pub fn window(&self) -> [DataSlot; N] {
        self.window.map(|w| w.map(|o| self.t(o)))
    }
}

#[cfg(test)]
mod layout {
    use super::*;
    use core::mem::offset_of;

    /// Session 15b: what every flow visit reads (context, epoch, queue registers) is the
    /// first 64-byte line; the free-entry mask the second.
    #[test]
    fn registers_share_the_first_line() {
        type F = DcsimFlow<256, 512>;
        assert_eq!(core::mem::align_of::<F>(), 64);
        for end in [
            offset_of!(F, epoch) + 8,
            offset_of!(F, total) + 4,
            offset_of!(F, next_new) + 4,
            offset_of!(F, base) + 4,
            offset_of!(F, acked) + 4,
            offset_of!(F, sim_tail) + 4,
            offset_of!(F, n_sim) + 2,
            offset_of!(F, n_retx) + 2,
            offset_of!(F, in_flight) + 2,
            offset_of!(F, sim_q) + 8,
            offset_of!(F, data_q) + 8,
            offset_of!(F, rel_q) + 8,
            offset_of!(F, collective) + 1,
            offset_of!(F, time_overflow) + 1,
        ] {
            assert!(end <= 64, "a register ends at byte {end}");
        }
        assert_eq!(offset_of!(F, free_sims), 64);
        // `Option` keeps no tag of its own (the flag's niche): no extra line per slot.
        assert_eq!(core::mem::size_of::<Option<F>>(), core::mem::size_of::<F>());
    }
}
