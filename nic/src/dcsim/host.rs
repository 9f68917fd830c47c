//! The DCSIM host engine: the flows of one sending host, the fair scheduler that picks
//! the flow of the next SIM, the timers and the release output (DCSIM section 2.4).
//!
//! ```text
//!            events in (current cycle)                      actions out
//!  open_flow / push_data ----+                       +--> next_sim(rng) -> (flow, EV)
//!  on_sim_transmitted -------+                       |      (pull, while the NIC's SIM
//!  on_sim_ack(flow, ev) -----+--> [ F x DcsimFlow ] -+       queue has room, Eq. 3)
//!  on_data_transmitted ------+    [ FlowScheduler ]  |
//!  on_data_ack(flow, ack) ---+    [ timers        ]  +--> pop_release() -> Release
//!  advance_to(t) / tick -----+    [ outbox (32)   ]  |      {flow, seq, EV, at = t_DATA}
//!                                                    +--> next_timer() -> next cycle with work
//! ```
//!
//! **Time.** The engine keeps its own cycle `now`. Events are inputs of the current cycle.
//! Timers fire at the start of their cycle: [`Clocked::tick`] moves to `now + 1` and runs
//! what is due; [`DcsimHost::advance_to`] jumps there in O(flows with timers), equal to
//! ticking (property test). A DES drives it as: `advance_to(t)`, apply the events of `t`,
//! drain [`DcsimHost::pop_release`] and [`DcsimHost::next_sim`], schedule a wake-up at
//! [`DcsimHost::next_timer`].
//!
//! **Releases** are DATAs in state (3), handed out through a 32-entry output FIFO. If it is
//! full, due releases wait in state (2) until it drains (counted in `late_releases` when
//! they come out); a release's `at` is always its `t_DATA`, so lateness is visible.
//!
//! Units: host cycles, DATAs, EVs.

use heapless::Deque;
use rtl_models::budget::bits_for;
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource, StateBudget};

use super::config::DcsimHostConfig;
use super::flow::{DcsimFlow, Release, Seq, SimAckOutcome};
use super::index::{SlotMask, MASK_SLOTS};
use super::packed::FlowCtx;
use super::receiver::DataAck;
use super::scheduler::FlowScheduler;
use crate::lb::Ev;

/// Index of a flow in its host's flow table.
pub type FlowSlot = u16;

/// Entries of the release output FIFO.
pub const OUTBOX_CAP: usize = 32;

/// A released DATA: enqueue it in the NIC's DATA queue with this EV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HostRelease {
    /// Its flow.
    pub flow: FlowSlot,
    /// Its sequence number.
    pub seq: Seq,
    /// The EV of its SIM (source port of the DATA).
    pub ev: Ev,
    /// `t_DATA`.
    pub at: Cycles,
}

/// Why a flow could not be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenError {
    /// All `F` flow slots are in use.
    NoFlowSlot,
    /// All `C` collective slots are in use by other collective IDs.
    NoCollectiveSlot,
}

/// Host counters (model side).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostStats {
    /// SIMs created.
    pub sims: u64,
    /// SIMs cancelled before they left.
    pub sims_cancelled: u64,
    /// SIM-ACKs that scheduled a DATA.
    pub sim_acks: u64,
    /// SIM-ACKs with no matching outstanding SIM.
    pub stale_sim_acks: u64,
    /// SIM timeouts.
    pub sim_timeouts: u64,
    /// DATAs released.
    pub released: u64,
    /// DATA timeouts (DATA back to the head of the queue).
    pub data_timeouts: u64,
    /// DATAs acknowledged.
    pub data_acked: u64,
    /// Releases handed out after their `t_DATA` because the output FIFO was full.
    pub late_releases: u64,
    /// [`DcsimHost::next_sim`] calls that found no flow able to send a SIM while some
    /// flow was held only by its DATA window or SIM table (Eq. 3 would allow it).
    pub window_blocked: u64,
}

/// One sending host: up to `F` flows in up to `C` collectives, each flow with `S`
/// outstanding-SIM entries and an `N`-DATA window.
///
/// Large instances belong on the heap (`F * (S * 16 + N * 24)` bytes or so: 8-byte SIM
/// and window entries, timer queues and release heap).
#[derive(Debug, Clone)]
pub struct DcsimHost<const F: usize, const C: usize, const S: usize, const N: usize> {
    cfg: DcsimHostConfig,
    now: Cycles,
    flows: [Option<DcsimFlow<S, N>>; F],
    deadlines: [Cycles; F],
    // Model-side index (redundant with `deadlines`): the comparator tree hardware finds the
    // earliest deadline with, node `j` in `1..F` the minimum of nodes `2j` and `2j + 1`,
    // node `F + f` being `deadlines[f]` ([`DcsimHost::node`]).
    tree: [Cycles; F],
    collectives: [Option<(u32, u16)>; C],
    sched: FlowScheduler<F, C>,
    // Model-side indexes (redundant with the flows): the open flows that may send a SIM
    // (the scheduler's input, [`DcsimFlow::can_send_sim`]) and those held only by their
    // window or SIM table ([`DcsimFlow::window_blocked`]), kept by [`DcsimHost::touch`].
    can_sim: SlotMask,
    blocked: SlotMask,
    outbox: Deque<HostRelease, OUTBOX_CAP>,
    stats: HostStats,
    // Some flow's stored times overflowed their 32-bit offsets ([`DcsimFlow::time_overflow`]).
    time_overflow: bool,
}

impl<const F: usize, const C: usize, const S: usize, const N: usize> PartialEq
    for DcsimHost<F, C, S, N>
{
    fn eq(&self, o: &Self) -> bool {
        self.cfg == o.cfg
            && self.now == o.now
            && self.flows == o.flows
            && self.deadlines == o.deadlines
            && self.collectives == o.collectives
            && self.sched == o.sched
            && self.outbox.iter().eq(o.outbox.iter())
            && self.stats == o.stats
    }
}

const NO_DEADLINE: Cycles = Cycles::MAX;

impl<const F: usize, const C: usize, const S: usize, const N: usize> DcsimHost<F, C, S, N> {
    const CAPACITY_CHECK: () = assert!(
        F >= 1 && F <= MASK_SLOTS,
        "DcsimHost: need 1 <= F <= 512 flow slots"
    );

    /// An engine at cycle 0 with no flows.
    pub fn new(cfg: DcsimHostConfig) -> Result<Self, ConfigError> {
        Self::check(&cfg)?;
        Ok(Self::new_checked(cfg))
    }

    /// The checks [`DcsimHost::new`] makes on `cfg`.
    pub fn check(cfg: &DcsimHostConfig) -> Result<(), ConfigError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_CHECK;
        cfg.validate(S)
    }

    /// [`DcsimHost::new`] for a `cfg` that [`DcsimHost::check`] accepted. Infallible and
    /// inlined, so that a caller storing it straight into its place (a box) builds it
    /// there, without a temporary of the engine's size (simulator memory only; session 16).
    #[inline(always)]
    pub fn new_checked(cfg: DcsimHostConfig) -> Self {
        debug_assert!(Self::check(&cfg).is_ok());
        DcsimHost {
            cfg,
            now: 0,
            flows: core::array::from_fn(|_| None),
            deadlines: [NO_DEADLINE; F],
            tree: [NO_DEADLINE; F],
            collectives: [None; C],
            sched: FlowScheduler::new(),
            can_sim: SlotMask::new(),
            blocked: SlotMask::new(),
            outbox: Deque::new(),
            stats: HostStats::default(),
            time_overflow: false,
        }
    }

    /// The configuration.
    pub const fn config(&self) -> &DcsimHostConfig {
        &self.cfg
    }
    /// The current cycle.
    pub const fn now(&self) -> Cycles {
        self.now
    }
    /// Counters.
    pub const fn stats(&self) -> &HostStats {
        &self.stats
    }
    /// Flow `f`, if open.
    pub fn flow(&self, f: FlowSlot) -> Option<&DcsimFlow<S, N>> {
        self.flows.get(f as usize)?.as_ref()
    }
    /// Open flows.
    pub fn flows(&self) -> impl Iterator<Item = (FlowSlot, &DcsimFlow<S, N>)> {
        self.flows
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_ref().map(|f| (i as FlowSlot, f)))
    }
    /// Releases waiting in the output FIFO.
    pub fn releases_pending(&self) -> usize {
        self.outbox.len()
    }

    /// Open a flow of collective `collective_id` with `datas` DATAs. Flows of the same ID
    /// share a round-robin group (section 2.4 (1)).
    pub fn open_flow(&mut self, collective_id: u32, datas: u32) -> Result<FlowSlot, OpenError> {
        let slot = self
            .flows
            .iter()
            .position(|f| f.is_none())
            .ok_or(OpenError::NoFlowSlot)?;
        let coll = match self
            .collectives
            .iter()
            .position(|c| matches!(c, Some((id, _)) if *id == collective_id))
        {
            Some(c) => c,
            None => self
                .collectives
                .iter()
                .position(|c| c.is_none())
                .ok_or(OpenError::NoCollectiveSlot)?,
        };
        let refs = self.collectives[coll].map_or(0, |(_, r)| r);
        self.collectives[coll] = Some((collective_id, refs + 1));
        self.sched.insert(slot, coll as u8);
        self.flows[slot] = Some(DcsimFlow::new(coll as u8, datas));
        self.set_deadline(slot, NO_DEADLINE);
        self.touch(slot);
        Ok(slot as FlowSlot)
    }

    /// Close flow `f` (finished or abandoned); returns its final context. Its releases
    /// still in the output FIFO stay there.
    pub fn close_flow(&mut self, f: FlowSlot) -> Option<FlowCtx> {
        let fl = self.flows.get_mut(f as usize)?.take()?;
        let coll = fl.collective() as usize;
        if let Some((id, r)) = self.collectives[coll] {
            self.collectives[coll] = if r > 1 { Some((id, r - 1)) } else { None };
        }
        self.sched.remove(f as usize);
        self.set_deadline(f as usize, NO_DEADLINE);
        self.touch(f as usize);
        Some(fl.ctx())
    }

    #[inline]
    fn refresh(&mut self, f: usize) {
        let d = self.flows[f]
            .as_ref()
            .and_then(|fl| fl.next_deadline())
            .unwrap_or(NO_DEADLINE);
        self.set_deadline(f, d);
        self.touch(f);
    }

    /// Flow slot `f` changed: its bits in the scheduler's input sets.
    #[inline]
    fn touch(&mut self, f: usize) {
        let (can, blocked) = match &self.flows[f] {
            Some(fl) => (fl.can_send_sim(), fl.window_blocked()),
            None => (false, false),
        };
        self.can_sim.set(f, can);
        self.blocked.set(f, blocked);
    }

    /// Node `j` of the comparator tree (`1 <= j < 2F`).
    #[inline]
    fn node(&self, j: usize) -> Cycles {
        if j < F {
            self.tree[j]
        } else {
            self.deadlines[j - F]
        }
    }

    /// Set flow `f`'s deadline and the tree nodes above it (O(log F)).
    #[inline]
    fn set_deadline(&mut self, f: usize, d: Cycles) {
        if self.deadlines[f] == d {
            return;
        }
        self.deadlines[f] = d;
        let mut j = (f + F) / 2;
        while j >= 1 {
            let m = self.node(2 * j).min(self.node(2 * j + 1));
            if self.tree[j] == m {
                break;
            }
            self.tree[j] = m;
            j /= 2;
        }
    }

    /// More DATAs for flow `f` (`n_DATA += n`); returns how many were taken.
    pub fn push_data(&mut self, f: FlowSlot, n: u32) -> u32 {
        let n = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => fl.push_data(n),
            _ => return 0,
        };
        self.touch(f as usize);
        n
    }

    /// Never-sent DATAs a fast-forward may take off flow `f` ([`DcsimFlow::skippable`]; 0
    /// for a closed slot).
    pub fn skippable(&self, f: FlowSlot) -> u32 {
        self.flow(f).map_or(0, DcsimFlow::skippable)
    }

    /// Take up to `k` never-sent DATAs off flow `f` (a fast-forward of its partition,
    /// [`DcsimFlow::fast_forward`]); returns how many were taken.
    pub fn fast_forward(&mut self, f: FlowSlot, k: u32) -> u32 {
        let n = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => fl.fast_forward(k),
            _ => return 0,
        };
        self.touch(f as usize);
        n
    }

    /// Create the next SIM (section 2.4 (1)): the scheduler picks a flow with
    /// `n_SIM < n_DATA`; the SIM gets a fresh EV. Call while the NIC's SIM queue has room.
    pub fn next_sim<R: RandomSource>(&mut self, rng: &mut R) -> Option<(FlowSlot, Ev)> {
        #[cfg(debug_assertions)]
        let scan = {
            // The scan the sets replace: same pick, same window-blocked verdict.
            let mut sched = self.sched.clone();
            let flows = &self.flows;
            let mut blocked = false;
            let picked = sched.pick(|i| {
                flows[i].as_ref().is_some_and(|fl| {
                    blocked |= fl.window_blocked();
                    fl.can_send_sim()
                })
            });
            (picked, blocked)
        };
        let picked = self.sched.pick_masked(&self.can_sim);
        // With no pick, no open flow may send a SIM: count it if one is held by its
        // window (the scan asked every open flow).
        let Some(f) = picked else {
            let blocked = self.blocked.any();
            #[cfg(debug_assertions)]
            debug_assert_eq!((picked, blocked), scan);
            self.stats.window_blocked += u64::from(blocked);
            return None;
        };
        #[cfg(debug_assertions)]
        debug_assert_eq!(picked, scan.0);
        let mask = self.cfg.ev_mask();
        let ev = self.flows[f].as_mut()?.new_sim(rng, mask)?;
        self.touch(f);
        self.stats.sims += 1;
        Some((f as FlowSlot, ev))
    }

    /// SIM `ev` of flow `f` went on the wire in the current cycle.
    pub fn on_sim_transmitted(&mut self, f: FlowSlot, ev: Ev) -> bool {
        let (now, cfg) = (self.now, self.cfg);
        let ok = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => {
                let ok = fl.on_sim_transmitted(ev, now, &cfg);
                self.time_overflow |= fl.time_overflow();
                ok
            }
            _ => false,
        };
        if ok {
            self.refresh(f as usize);
        }
        ok
    }

    /// Forget SIM `ev` of flow `f` (dropped by the local NIC before it left).
    pub fn cancel_sim(&mut self, f: FlowSlot, ev: Ev) -> bool {
        let ok = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => fl.cancel_sim(ev),
            _ => false,
        };
        if ok {
            self.stats.sims_cancelled += 1;
            self.refresh(f as usize);
        }
        ok
    }

    /// SIM-ACK carrying `ev` for flow `f` arrived in the current cycle (section 2.4 (4)).
    /// A DATA due now (Async, or a late SIM-ACK) is released at once.
    pub fn on_sim_ack(&mut self, f: FlowSlot, ev: Ev) -> SimAckOutcome {
        let (now, cfg) = (self.now, self.cfg);
        let out = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => {
                let out = fl.on_sim_ack(ev, now, &cfg);
                self.time_overflow |= fl.time_overflow();
                out
            }
            _ => SimAckOutcome::Stale,
        };
        match out {
            SimAckOutcome::Scheduled { release_at, .. } => {
                self.stats.sim_acks += 1;
                if release_at <= now {
                    self.fire_flow(f as usize, now);
                } else {
                    self.refresh(f as usize);
                }
            }
            SimAckOutcome::Stale => self.stats.stale_sim_acks += 1,
        }
        out
    }

    /// DATA `seq` of flow `f` went on the wire in the current cycle (state (3) -> (4)).
    pub fn on_data_transmitted(&mut self, f: FlowSlot, seq: Seq) -> bool {
        let (now, cfg) = (self.now, self.cfg);
        let ok = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => {
                let ok = fl.on_data_transmitted(seq, now, &cfg);
                self.time_overflow |= fl.time_overflow();
                ok
            }
            _ => false,
        };
        if ok {
            self.refresh(f as usize);
        }
        ok
    }

    /// DATA `seq` of flow `f` could not be queued by the NIC: back to the head of the queue.
    pub fn on_data_dropped_locally(&mut self, f: FlowSlot, seq: Seq) -> bool {
        let ok = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => fl.on_data_dropped_locally(seq),
            _ => false,
        };
        if ok {
            self.touch(f as usize);
        }
        ok
    }

    /// DATA-ACK for flow `f` arrived in the current cycle; returns the DATAs newly acked.
    pub fn on_data_ack(&mut self, f: FlowSlot, ack: DataAck) -> u32 {
        let cfg = self.cfg;
        let n = match self.flows.get_mut(f as usize) {
            Some(Some(fl)) => fl.on_data_ack(ack, &cfg),
            _ => 0,
        };
        self.stats.data_acked += n as u64;
        self.refresh(f as usize);
        n
    }

    /// Whether some flow's stored times ever spanned more than 2^32 cycles (its timers
    /// are then wrong and the run must be refused; see [`DcsimFlow`], "Stored times").
    pub const fn time_overflow(&self) -> bool {
        self.time_overflow
    }

    /// The next released DATA, oldest first.
    pub fn pop_release(&mut self) -> Option<HostRelease> {
        self.outbox.pop_front()
    }

    /// The earliest cycle at which a timer of some flow is due (a stalled release may be
    /// due already: drain [`DcsimHost::pop_release`] and advance by one cycle).
    pub fn next_timer(&self) -> Option<Cycles> {
        let m = self.node(1);
        (m != NO_DEADLINE).then_some(m)
    }

    /// Run flow `f`'s timers due at `c` (releases only if the output FIFO has room).
    fn fire_flow(&mut self, f: usize, c: Cycles) {
        let cfg = self.cfg;
        let allow = !self.outbox.is_full();
        let outbox = &mut self.outbox;
        let mut late = 0u64;
        if let Some(fl) = self.flows[f].as_mut() {
            let counts = fl.fire(c, &cfg, allow, &mut |r: Release| {
                let ok = outbox
                    .push_back(HostRelease {
                        flow: f as FlowSlot,
                        seq: r.seq,
                        ev: r.ev,
                        at: r.at,
                    })
                    .is_ok();
                if ok && r.at < c {
                    late += 1;
                }
                ok
            });
            self.stats.sim_timeouts += counts.sim_timeouts as u64;
            self.stats.released += counts.released as u64;
            self.stats.data_timeouts += counts.data_timeouts as u64;
            self.stats.late_releases += late;
        }
        self.refresh(f);
    }

    /// Run every flow's timers due at `c`, in flow order (the due flows found by a
    /// descent of the comparator tree; firing a flow changes only its own deadline).
    fn fire_all(&mut self, c: Cycles) {
        let mut due: heapless::Vec<u16, F> = heapless::Vec::new();
        let mut stack: heapless::Vec<usize, 64> = heapless::Vec::new();
        if self.node(1) <= c {
            let _ = stack.push(1);
        }
        while let Some(j) = stack.pop() {
            if j >= F {
                // Cannot fail: each leaf is reached once, F of them.
                let _ = due.push((j - F) as u16);
                continue;
            }
            for k in [2 * j, 2 * j + 1] {
                if k >= F {
                    // A due leaf goes to `due` at once (not through the stack).
                    if self.deadlines[k - F] <= c {
                        let _ = due.push((k - F) as u16);
                    }
                } else if self.tree[k] <= c {
                    // Cannot fail: at most two nodes per level below the root wait.
                    let _ = stack.push(k);
                }
            }
        }
        due.sort_unstable();
        for &f in &due {
            if self.deadlines[f as usize] <= c {
                self.fire_flow(f as usize, c);
            }
        }
    }

    /// Next cycle with possible work for [`DcsimHost::advance_to`]: with a full output
    /// FIFO, releases cannot progress and only timeouts count.
    #[inline]
    fn next_work(&self) -> Option<Cycles> {
        if self.outbox.is_full() {
            self.flows
                .iter()
                .filter_map(|f| f.as_ref().and_then(|f| f.next_timeout()))
                .min()
        } else {
            self.next_timer()
        }
    }

    /// Move to cycle `t` (no-op if `t <= now`), running every timer due on the way in
    /// cycle order: equals `t - now` ticks.
    pub fn advance_to(&mut self, t: Cycles) {
        if t <= self.now {
            return;
        }
        while let Some(d) = self.next_work() {
            let c = d.max(self.now + 1);
            if c > t {
                break;
            }
            self.now = c;
            self.fire_all(c);
        }
        if t > self.now {
            self.now = t;
        }
    }
}

impl<const F: usize, const C: usize, const S: usize, const N: usize> Clocked
    for DcsimHost<F, C, S, N>
{
    /// Start the next cycle and run the timers due in it.
    fn tick(&mut self) {
        self.now += 1;
        self.fire_all(self.now);
    }

    fn advance(&mut self, cycles: Cycles) {
        self.advance_to(self.now.saturating_add(cycles));
    }
}

/// Budget of the whole host: `F` flows, the scheduler, the collective table (32-bit ID and
/// a reference count per slot) and the release FIFO (flow, seq, EV, 32-bit `t_DATA` per
/// entry).
impl<const F: usize, const C: usize, const S: usize, const N: usize> StateBudget
    for DcsimHost<F, C, S, N>
{
    const NAME: &'static str = "DCSIM host engine (flows + scheduler + release FIFO)";
    const BITS: u32 = F as u32 * <DcsimFlow<S, N> as StateBudget>::BITS
        + <FlowScheduler<F, C> as StateBudget>::BITS
        + C as u32 * (32 + bits_for(F as u64))
        + OUTBOX_CAP as u32 * (bits_for(F as u64 - 1) + 32 + 16 + 32);
    const UNIT: &'static str = "per host";
    const PAPER_REF: &'static str = "DCSIM 2.4 (no figure given)";
}
// The host's packed form is its components' packed forms side by side.
const _: () = assert!(
    <DcsimHost<128, 8, 64, 128> as StateBudget>::BITS
        == 128
            * (super::packed::FLOW_CTX_BITS
                + 64 * super::packed::SIM_ENTRY_BITS
                + 128 * super::packed::DATA_SLOT_BITS)
            + <FlowScheduler<128, 8> as StateBudget>::BITS
            + 8 * (32 + 8)
            + 32 * (7 + 32 + 16 + 32)
);
