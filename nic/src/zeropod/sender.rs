//! [`ZeropodNic`]: the sending side of a Zeropod smartNIC.
//!
//! * **VOQs and segmentation** (§III-B1): flows are held per destination and cut into cells
//!   of 512 B on the fly; cell `i` of a flow carries sequence number `i`.
//! * **RTS** (§III-A, §IV-B1): [`ZeropodNic::rts`], once per epoch, reports the newly arrived
//!   cells of up to two destinations (the ones with the most unreported cells; the rest waits
//!   for the next epoch) and the top-k (16) destinations with the smallest remaining flows and
//!   their size classes.
//! * **SCHD** (§III-B2): [`ZeropodNic::on_schd`] stores a grant; in each granted data slot
//!   `tick` emits one scheduled cell on the SCHD's route.
//! * **PIAS-like multi-level feedback queues** (§IV-B): inside a grant for destination `d`, the
//!   flow to `d` with the fewest cells sent (its MLFQ level by the `mlfq_cells` thresholds)
//!   goes first, oldest first within a level.
//! * **Optimistic sending** (§IV-B3): in a slot with no scheduled cell, a flow shorter than
//!   `optimistic_max_cells` (5) whose arrival was already announced in an RTS sends its next
//!   unsent cell unscheduled over a random Agg; it is sent again as scheduled once granted.
//!
//! Time is data slots of the pod clock (`epoch * epoch_slots + slot`). `F` flows at most.

use arbitrary_int::{u10, u3, u9};
use rtl_models::zeropod_cell::{
    DataHeaderRepr, MiceEntry, Route, RtsArrival, RtsRepr, SchdRepr, TrafficKind, PAYLOAD_LEN,
    RTS_ARRIVALS, TOP_K,
};
use rtl_models::{Clocked, ConfigError, Cycles, Lfsr32, RandomSource, StateBudget};

/// Configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicConfig {
    /// This host (global index `pod * hosts_per_pod + i`).
    pub host: u16,
    /// Half-radix `M` of the pod (hosts per ToR); `M * M` hosts per pod.
    pub m: u8,
    /// Data slots per epoch.
    pub epoch_slots: u16,
    /// MLFQ level thresholds in cells sent (PIAS demotion points), ascending.
    pub mlfq_cells: [u32; 3],
    /// Flows shorter than this many cells may send optimistically (§V-A: 5).
    pub optimistic_max_cells: u32,
    /// Mice threshold for the top-k report, in cells (100 KB ~ 200 cells).
    pub mice_cells: u32,
    /// LFSR seed (random Agg of optimistic cells).
    pub seed: u32,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            host: 0,
            m: 4,
            epoch_slots: 32,
            mlfq_cells: [4, 40, 400],
            optimistic_max_cells: 5,
            mice_cells: 200,
            seed: 1,
        }
    }
}

/// Counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NicStats {
    /// Scheduled cells sent.
    pub scheduled_sent: u64,
    /// Optimistic cells sent.
    pub optimistic_sent: u64,
    /// Granted slots with nothing to send for the destination.
    pub wasted_grant_slots: u64,
    /// Flows refused because the flow table was full.
    pub flows_refused: u64,
    /// SCHDs refused (no grant register free, or not for this host).
    pub schd_refused: u64,
    /// Flows whose last cell was sent scheduled.
    pub flows_done: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Flow {
    id: u16,
    dst: u16,
    cells: u32,
    sched_next: u32,
    opt_next: u32,
    unreported: u32,
    order: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// E2E: a host (global index).
    Host(u16),
    /// E2P: any flow to this pod.
    Pod(u16),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Grant {
    start: u64,
    target: Target,
    left: u16,
    route: Route,
}

/// Grant registers (SCHDs waiting for their slots).
pub const GRANTS: usize = 4;

/// The sending NIC, `F` flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZeropodNic<const F: usize, R: RandomSource = Lfsr32> {
    cfg: NicConfig,
    flows: [Option<Flow>; F],
    grants: [Option<Grant>; GRANTS],
    now: u64,
    order: u32,
    out: Option<DataHeaderRepr>,
    rng: R,
    stats: NicStats,
}

impl<const F: usize> ZeropodNic<F, Lfsr32> {
    /// A NIC with the LFSR seeded from the config.
    pub fn new(cfg: NicConfig) -> Result<Self, ConfigError> {
        Self::with_rng(cfg, Lfsr32::new(cfg.seed))
    }
}

impl<const F: usize, R: RandomSource> ZeropodNic<F, R> {
    /// A NIC drawing from `rng`.
    pub fn with_rng(cfg: NicConfig, rng: R) -> Result<Self, ConfigError> {
        if cfg.m == 0 || cfg.m > 32 {
            return Err(ConfigError::new("m", "half-radix must be 1..=32"));
        }
        if cfg.epoch_slots == 0 {
            return Err(ConfigError::new("epoch_slots", "must be at least 1"));
        }
        if !(cfg.mlfq_cells[0] <= cfg.mlfq_cells[1] && cfg.mlfq_cells[1] <= cfg.mlfq_cells[2]) {
            return Err(ConfigError::new("mlfq_cells", "thresholds must ascend"));
        }
        Ok(ZeropodNic {
            cfg,
            flows: [None; F],
            grants: [None; GRANTS],
            now: 0,
            order: 0,
            out: None,
            rng,
            stats: NicStats::default(),
        })
    }

    fn hosts_per_pod(&self) -> u16 {
        self.cfg.m as u16 * self.cfg.m as u16
    }

    /// Counters.
    pub fn stats(&self) -> NicStats {
        self.stats
    }

    /// The current data slot.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Flows held.
    pub fn flows(&self) -> usize {
        self.flows.iter().flatten().count()
    }

    /// A new flow of `cells` cells (id `id`) to host `dst` (global). Refused (false, counted)
    /// when the table is full or the flow is empty or to this host.
    pub fn add_flow(&mut self, id: u16, dst: u16, cells: u32) -> bool {
        let free = self.flows.iter().position(|f| f.is_none());
        match free {
            Some(i) if cells > 0 && dst != self.cfg.host => {
                self.flows[i] = Some(Flow {
                    id,
                    dst,
                    cells,
                    sched_next: 0,
                    opt_next: 0,
                    unreported: cells,
                    order: self.order,
                });
                self.order = self.order.wrapping_add(1);
                true
            }
            _ => {
                self.stats.flows_refused += 1;
                false
            }
        }
    }

    /// The scheduler's destination slot for `dst`: host index in this pod, or `N + pod`.
    fn dst_slot(&self, dst: u16) -> u16 {
        let n = self.hosts_per_pod();
        if dst / n == self.cfg.host / n {
            dst % n
        } else {
            n + dst / n
        }
    }

    /// Build this epoch's RTS (§III-A, §IV-B1).
    pub fn rts(&mut self) -> RtsRepr {
        let n = self.hosts_per_pod();
        let mut r = RtsRepr {
            src: self.cfg.host % n,
            ..RtsRepr::default()
        };
        // Arrivals: the destinations with the most unreported cells.
        for i in 0..RTS_ARRIVALS {
            let mut best: Option<(u32, u16)> = None;
            for f in self.flows.iter().flatten() {
                if f.unreported == 0 {
                    continue;
                }
                let tot: u32 = self
                    .flows
                    .iter()
                    .flatten()
                    .filter(|g| g.dst == f.dst)
                    .map(|g| g.unreported)
                    .sum();
                if best.is_none_or(|(b, d)| tot > b || (tot == b && f.dst < d)) {
                    best = Some((tot, f.dst));
                }
            }
            let Some((_, dst)) = best else { break };
            let mut cells = 0u32;
            for f in self.flows.iter_mut().flatten().filter(|f| f.dst == dst) {
                let take = f.unreported.min(u16::MAX as u32 - cells);
                f.unreported -= take;
                cells += take;
            }
            r.arrivals[i] = RtsArrival {
                dst,
                cells: cells as u16,
            };
            r.n_arrivals = i as u8 + 1;
        }
        // Top-k mice: the smallest remaining flows under the mice threshold, one per dst.
        let mut k = 0usize;
        while k < TOP_K {
            let mut best: Option<(u32, u32, u16)> = None; // (remaining, order, dst)
            for f in self.flows.iter().flatten() {
                let rem = f.cells - f.sched_next;
                let key = (rem, f.order, f.dst);
                let already = r.mice[..k]
                    .iter()
                    .any(|m| m.dst.value() == self.dst_slot(f.dst) & 0x1ff);
                if rem == 0 || rem > self.cfg.mice_cells || already {
                    continue;
                }
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
            let Some((rem, _, dst)) = best else { break };
            r.mice[k] = MiceEntry {
                dst: u9::new(self.dst_slot(dst) & 0x1ff),
                size: size_class(rem),
            };
            k += 1;
        }
        r.n_mice = k as u8;
        r
    }

    /// Take a SCHD addressed to this host (§III-B2).
    pub fn on_schd(&mut self, s: &SchdRepr) -> bool {
        let n = self.hosts_per_pod();
        let free = self.grants.iter().position(|g| g.is_none());
        let (Some(i), false) = (free, s.to_core || s.to != self.cfg.host % n) else {
            self.stats.schd_refused += 1;
            return false;
        };
        let target = match s.traffic {
            TrafficKind::E2P => Target::Pod(s.dst),
            _ => Target::Host((self.cfg.host / n) * n + s.dst),
        };
        self.grants[i] = Some(Grant {
            start: s.epoch as u64 * self.cfg.epoch_slots as u64 + s.slot as u64,
            target,
            left: s.volume,
            route: s.route,
        });
        true
    }

    /// The cell sent in the last closed slot.
    pub fn output(&self) -> Option<DataHeaderRepr> {
        self.out
    }

    fn level(&self, sent: u32) -> u8 {
        self.cfg.mlfq_cells.iter().filter(|&&t| sent >= t).count() as u8
    }

    fn matches(&self, g: &Grant, f: &Flow) -> bool {
        let n = self.hosts_per_pod();
        match g.target {
            Target::Pod(p) => f.dst / n == p && p != self.cfg.host / n,
            Target::Host(d) => f.dst == d,
        }
    }

    /// The most urgent flow a grant may serve: lowest MLFQ level, then oldest.
    fn pick(&self, g: &Grant) -> Option<usize> {
        let mut best: Option<(u8, u32, usize)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            let Some(f) = f else { continue };
            if !self.matches(g, f) || f.sched_next >= f.cells || f.unreported == f.cells {
                continue;
            }
            let key = (
                self.level(f.sched_next),
                f.order.wrapping_sub(self.order),
                i,
            );
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map(|b| b.2)
    }

    fn cell(&self, f: &Flow, seq: u32, scheduled: bool, route: Route) -> DataHeaderRepr {
        DataHeaderRepr {
            scheduled,
            priority: u3::new(self.level(seq)),
            route,
            src: self.cfg.host,
            dst: f.dst,
            flow: f.id,
            seq,
            len: u10::new(PAYLOAD_LEN as u16),
        }
    }

    fn step(&mut self) {
        self.out = None;
        let now = self.now;
        // A granted slot?
        let gi = self
            .grants
            .iter()
            .position(|g| matches!(g, Some(g) if g.start <= now && g.left > 0));
        if let Some(gi) = gi {
            let Some(mut g) = self.grants[gi] else { return };
            g.left -= 1;
            match self.pick(&g) {
                Some(fi) => {
                    if let Some(f) = self.flows[fi] {
                        self.out = Some(self.cell(&f, f.sched_next, true, g.route));
                        self.stats.scheduled_sent += 1;
                        let mut f = f;
                        f.sched_next += 1;
                        f.opt_next = f.opt_next.max(f.sched_next);
                        if f.sched_next == f.cells {
                            self.flows[fi] = None;
                            self.stats.flows_done += 1;
                        } else {
                            self.flows[fi] = Some(f);
                        }
                    }
                }
                None => self.stats.wasted_grant_slots += 1,
            }
            self.grants[gi] = if g.left == 0 { None } else { Some(g) };
        } else {
            self.optimistic();
        }
        self.now += 1;
    }

    /// §IV-B3: an announced, short intra-pod flow sends its next cell over a random Agg.
    fn optimistic(&mut self) {
        let n = self.hosts_per_pod();
        let m = self.cfg.m as u16;
        let mut best: Option<(u32, usize)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            let Some(f) = f else { continue };
            let announced = f.unreported < f.cells;
            let local = f.dst / n == self.cfg.host / n;
            if announced
                && local
                && f.cells < self.cfg.optimistic_max_cells
                && f.opt_next < f.cells
                && best.is_none_or(|b| f.order.wrapping_sub(self.order) < b.0)
            {
                best = Some((f.order.wrapping_sub(self.order), i));
            }
        }
        let Some((_, fi)) = best else { return };
        let Some(mut f) = self.flows[fi] else { return };
        let a = self.rng.below(m as u32) as u16;
        let d = f.dst % n;
        let route = Route::new(&[(m + a) as u8, (d / m) as u8, (d % m) as u8]).unwrap_or_default();
        self.out = Some(self.cell(&f, f.opt_next, false, route));
        self.stats.optimistic_sent += 1;
        f.opt_next += 1;
        self.flows[fi] = Some(f);
    }
}

/// PIAS-style size class `ceil(log2(cells))`, capped at 7.
fn size_class(cells: u32) -> u3 {
    let c = if cells <= 1 {
        0
    } else {
        32 - (cells - 1).leading_zeros()
    };
    u3::new(c.min(7) as u8)
}

impl<const F: usize, R: RandomSource> Clocked for ZeropodNic<F, R> {
    /// One data slot.
    fn tick(&mut self) {
        self.step();
    }

    /// O(1) with no flows and no grants; otherwise slot by slot (the NIC sends every slot).
    fn advance(&mut self, cycles: Cycles) {
        for i in 0..cycles {
            if self.flows.iter().all(|f| f.is_none()) && self.grants.iter().all(|g| g.is_none()) {
                self.out = None;
                self.now += cycles - i;
                return;
            }
            self.step();
        }
    }
}

/// Per flow: valid 1, id 16, dst 16, cells 32, sched_next 32, opt_next 32, unreported 32,
/// order 32; per grant register: valid 1, start 32, dst 16, left 16, route 36; slot clock 64,
/// order counter 32, LFSR 32.
impl<const F: usize, R: RandomSource> StateBudget for ZeropodNic<F, R> {
    const NAME: &'static str = "Zeropod NIC sender";
    const UNIT: &'static str = "per NIC";
    const BITS: u32 =
        F as u32 * (1 + 16 + 16 + 5 * 32 + 32) + GRANTS as u32 * (1 + 32 + 16 + 16 + 36) + 128;
}
const _: () = assert!(<ZeropodNic<64> as StateBudget>::BITS == 64 * 225 + 4 * 101 + 128);
