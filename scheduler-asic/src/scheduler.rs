//! [`IterativeScheduler`]: Zeropod's host-level pipelined centralized scheduler (§IV-A3,
//! Algorithm 1) as a clocked pipeline of four phases, each one allocator
//! (see [`crate::alloc`]):
//!
//! ```text
//!  RTS --> [ traffic matrices E2E / E2P / C2E, top-k mice, backpressure ]
//!                |                                      ^ subtract granted cells
//!  start_round   v                                      |
//!   (epoch) -> Request --> Grant-1 --> Grant-2 --> Accept --+--> grants (SCHD) of the epoch
//!              (paths)   (per Agg)   (per sender) (per rcvr) |
//!                 ^__________________ I iterations __________|
//! ```
//!
//! Each phase takes a configurable number of scheduler cycles (`latency`); a phase evaluates
//! on the last cycle of its latency (two-phase: the allocator arbitrates on a copy of the port
//! state, then `update_state` writes it). A round of `I` iterations (6 by default, §V-A) takes
//! `I * (request + grant1 + grant2 + accept)` cycles, after which the grants of the epoch are
//! readable and the matrices have been debited. RTS may arrive at any time; the Request phase
//! reads the matrices as they are in its evaluating cycle.
//!
//! Units: demands and volumes in cells, time in scheduler cycles.
//!
//! Const generics: `M` half-radix (ToRs = Aggs = hosts per ToR), `N = M * M` hosts per pod,
//! `P` pods, `C` Cores, `Q` capacity of each request / grant list (overflow is counted).

use rtl_models::zeropod_cell::{RtsRepr, SchdRepr, TrafficKind};
use rtl_models::{Clocked, ConfigError, Cycles, Lfsr32, RandomSource, StateBudget};

use crate::alloc::accept::AcceptAllocator;
use crate::alloc::grant1::Grant1Allocator;
use crate::alloc::grant2::Grant2Allocator;
use crate::alloc::request::{request, MAX_REQUESTS_PER_SENDER};
use crate::alloc::GrantList;
use crate::matrices::{HostBits, TrafficMatrices, HOST_WORDS};
use crate::pod::Grant;
use crate::ports::PortStates;

/// Cycles each phase takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageLatency {
    /// Request (path selection).
    pub request: u32,
    /// Grant-1 (per-Agg port allocation).
    pub grant1: u32,
    /// Grant-2 (one per sender).
    pub grant2: u32,
    /// Accept (one per receiver).
    pub accept: u32,
}

impl Default for StageLatency {
    fn default() -> Self {
        StageLatency {
            request: 2,
            grant1: 2,
            grant2: 1,
            accept: 1,
        }
    }
}

/// Scheduler configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedulerConfig {
    /// This scheduler's pod.
    pub pod: u8,
    /// Pods in the fabric (E2P destinations), `<= P`, `<= 32`.
    pub pods: u8,
    /// Cores attached to the pod, `<= C`, `<= M * M`, `<= 64`.
    pub cores: u8,
    /// The exclusive mice Core (§IV-B2), if any.
    pub mice_core: Option<u8>,
    /// Iterations per round `I` (§V-A: 6).
    pub iterations: u8,
    /// Data slots per epoch (the most cells one grant carries).
    pub epoch_slots: u16,
    /// Requests one sender may issue per iteration (1..=16).
    pub requests_per_sender: u8,
    /// Phase latencies.
    pub latency: StageLatency,
    /// LFSR seed.
    pub seed: u32,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            pod: 0,
            pods: 1,
            cores: 0,
            mice_core: None,
            iterations: 6,
            epoch_slots: 16,
            requests_per_sender: 4,
            latency: StageLatency::default(),
            seed: 1,
        }
    }
}

/// Which senders and receivers already hold a grant this round (bit per host / Core).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matched<const N: usize, const C: usize> {
    /// Bit h: host h has its grant as a sender.
    pub host_sent: HostBits,
    /// Bit h: host h has its grant as a receiver.
    pub host_recv: HostBits,
    /// Bit c: Core c has its C2E grant.
    pub core_sent: u64,
    /// Bit c: Core c's up port has its E2P grant.
    pub core_recv: u64,
}

fn bit(b: &HostBits, i: usize) -> bool {
    b[i / 64] >> (i % 64) & 1 == 1
}

impl<const N: usize, const C: usize> Matched<N, C> {
    const fn new() -> Self {
        Matched {
            host_sent: [0; HOST_WORDS],
            host_recv: [0; HOST_WORDS],
            core_sent: 0,
            core_recv: 0,
        }
    }
    /// Host `h` holds its sender grant.
    pub fn host_sent(&self, h: usize) -> bool {
        bit(&self.host_sent, h)
    }
    /// Host `h` holds its receiver grant.
    pub fn host_recv(&self, h: usize) -> bool {
        bit(&self.host_recv, h)
    }
    /// Core `c` holds its C2E grant.
    pub fn core_sent(&self, c: usize) -> bool {
        c < 64 && self.core_sent >> c & 1 == 1
    }
    /// Core `c`'s up port holds its E2P grant.
    pub fn core_recv(&self, c: usize) -> bool {
        c < 64 && self.core_recv >> c & 1 == 1
    }
    fn mark(&mut self, g: &Grant) {
        let set = |b: &mut HostBits, i: usize| b[i / 64] |= 1 << (i % 64);
        match g.traffic {
            TrafficKind::E2E => {
                set(&mut self.host_sent, g.src as usize);
                set(&mut self.host_recv, g.dst as usize);
            }
            TrafficKind::E2P => {
                set(&mut self.host_sent, g.src as usize);
                self.core_recv |= 1 << (g.core % 64);
            }
            TrafficKind::C2E => {
                self.core_sent |= 1 << (g.core % 64);
                set(&mut self.host_recv, g.dst as usize);
            }
        }
    }
}

/// The pipeline phase a round is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Path selection.
    Request,
    /// Per-Agg port allocation.
    Grant1,
    /// Per-sender choice.
    Grant2,
    /// Per-receiver choice.
    Accept,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    Busy { iter: u8, stage: Stage, left: u32 },
}

/// Counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SchedulerStats {
    /// Rounds completed.
    pub rounds: u64,
    /// Grants issued.
    pub grants: u64,
    /// Cells granted.
    pub cells: u64,
    /// Round starts refused because a round was in flight.
    pub busy_refusals: u64,
}

/// A round could not start: one is in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

/// The Zeropod iterative scheduler of one pod.
#[derive(Debug, Clone)]
pub struct IterativeScheduler<
    const M: usize,
    const N: usize,
    const P: usize,
    const C: usize,
    const Q: usize,
    R: RandomSource = Lfsr32,
> {
    cfg: SchedulerConfig,
    /// Traffic matrices, mice tables, backpressure (§IV-A1).
    pub matrices: TrafficMatrices<N, P, C>,
    failed: PortStates<M>,
    ports: PortStates<M>,
    matched: Matched<N, C>,
    g1: Grant1Allocator<Q>,
    g2: Grant2Allocator<Q>,
    acc: AcceptAllocator<Q>,
    sched: GrantList<Q>,
    done: GrantList<Q>,
    done_epoch: u16,
    epoch: u16,
    phase: Phase,
    rng: R,
    stats: SchedulerStats,
}

/// The k = 8 multi-pod scheduler of §V-A: 16 hosts, 8 pods, 7 Cores.
pub type K8Scheduler = IterativeScheduler<4, 16, 8, 7, 128>;
/// The k = 32 single-pod scheduler of §V-A: 256 hosts.
pub type K32Scheduler = IterativeScheduler<16, 256, 1, 1, 1024>;

impl<const M: usize, const N: usize, const P: usize, const C: usize, const Q: usize>
    IterativeScheduler<M, N, P, C, Q, Lfsr32>
{
    /// A scheduler with the LFSR seeded from `cfg.seed`.
    pub fn new(cfg: SchedulerConfig) -> Result<Self, ConfigError> {
        Self::with_rng(cfg, Lfsr32::new(cfg.seed))
    }
}

impl<const M: usize, const N: usize, const P: usize, const C: usize, const Q: usize, R>
    IterativeScheduler<M, N, P, C, Q, R>
where
    R: RandomSource,
{
    /// A scheduler drawing from `rng`; checks the configuration and the const generics.
    pub fn with_rng(cfg: SchedulerConfig, rng: R) -> Result<Self, ConfigError> {
        if M == 0 || M > 32 || N != M * M {
            return Err(ConfigError::new(
                "M",
                "half-radix must be 1..=32 with N = M * M hosts",
            ));
        }
        if cfg.pods == 0 || cfg.pods as usize > P || cfg.pods > 32 {
            return Err(ConfigError::new("pods", "must be 1..=P and <= 32"));
        }
        if cfg.pod >= cfg.pods {
            return Err(ConfigError::new("pod", "must be below pods"));
        }
        if cfg.cores as usize > C || cfg.cores as usize > M * M || cfg.cores > 64 {
            return Err(ConfigError::new(
                "cores",
                "must be <= C, <= M * M and <= 64",
            ));
        }
        if matches!(cfg.mice_core, Some(c) if c >= cfg.cores) {
            return Err(ConfigError::new("mice_core", "must name one of the cores"));
        }
        if cfg.iterations == 0 {
            return Err(ConfigError::new("iterations", "must be at least 1"));
        }
        if cfg.epoch_slots == 0 {
            return Err(ConfigError::new("epoch_slots", "must be at least 1"));
        }
        if cfg.requests_per_sender == 0
            || cfg.requests_per_sender as usize > MAX_REQUESTS_PER_SENDER
        {
            return Err(ConfigError::new("requests_per_sender", "must be 1..=16"));
        }
        let l = cfg.latency;
        if l.request == 0 || l.grant1 == 0 || l.grant2 == 0 || l.accept == 0 {
            return Err(ConfigError::new(
                "latency",
                "every phase takes at least 1 cycle",
            ));
        }
        Ok(IterativeScheduler {
            cfg,
            matrices: TrafficMatrices::new(),
            failed: PortStates::new(),
            ports: PortStates::new(),
            matched: Matched::new(),
            g1: Grant1Allocator::new(),
            g2: Grant2Allocator::new(),
            acc: AcceptAllocator::new(),
            sched: GrantList::new(),
            done: GrantList::new(),
            done_epoch: 0,
            epoch: 0,
            phase: Phase::Idle,
            rng,
            stats: SchedulerStats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SchedulerConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> SchedulerStats {
        self.stats
    }

    /// Request / grant entries refused for lack of list capacity (should stay 0).
    pub fn overflow(&self) -> u32 {
        self.g1.overflow() + self.sched.overflow + self.done.overflow
    }

    /// Apply an RTS from a host or a Core (§IV-A1, §IV-A2).
    pub fn on_rts(&mut self, rts: &RtsRepr) {
        self.matrices.on_rts(self.cfg.pod as usize, rts);
    }

    /// Port states input `S`: mark links unusable (a failure) or usable again. `links` uses
    /// the same bit layout as [`PortStates`].
    pub fn set_failed_links(&mut self, failed: PortStates<M>) {
        self.failed = failed;
    }

    /// The failed-link mask set by [`IterativeScheduler::set_failed_links`].
    pub fn failed_links(&self) -> PortStates<M> {
        self.failed
    }

    /// True while a round is in flight.
    pub fn busy(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// The phase in flight and its iteration, if any.
    pub fn stage(&self) -> Option<(u8, Stage)> {
        match self.phase {
            Phase::Idle => None,
            Phase::Busy { iter, stage, .. } => Some((iter, stage)),
        }
    }

    /// Cycles one round takes.
    pub fn round_cycles(&self) -> u64 {
        let l = self.cfg.latency;
        self.cfg.iterations as u64 * (l.request + l.grant1 + l.grant2 + l.accept) as u64
    }

    /// Start scheduling `epoch` (a per-cycle input; the first phase runs from the next tick).
    pub fn start_round(&mut self, epoch: u16) -> Result<(), Busy> {
        if self.busy() {
            self.stats.busy_refusals += 1;
            return Err(Busy);
        }
        self.epoch = epoch;
        self.ports = self.failed;
        self.matched = Matched::new();
        self.sched.clear();
        self.phase = Phase::Busy {
            iter: 0,
            stage: Stage::Request,
            left: self.cfg.latency.request,
        };
        Ok(())
    }

    /// Start a round and clock it to completion; returns the grants.
    pub fn run_round(&mut self, epoch: u16) -> Result<&[Grant], Busy> {
        self.start_round(epoch)?;
        let n = self.round_cycles();
        self.advance(n);
        Ok(self.grants())
    }

    /// Sizes of the phase lists as they stand: `[Req, G1, G2, Accept]` of the iteration in
    /// flight (or the last one), for traces and test benches.
    pub fn phase_counts(&self) -> [usize; 4] {
        [
            self.g1.requests().len(),
            self.g1.grants().len(),
            self.g2.grants().len(),
            self.acc.grants().len(),
        ]
    }

    /// Grants of the last completed round.
    pub fn grants(&self) -> &[Grant] {
        self.done.as_slice()
    }

    /// Epoch of the last completed round.
    pub fn grants_epoch(&self) -> u16 {
        self.done_epoch
    }

    /// The SCHD control cell for `g` (§IV-A: "allocated transmission time, destination, data
    /// volume, and a non-conflicting transmission path").
    pub fn schd(&self, g: &Grant) -> SchdRepr {
        SchdRepr {
            to_core: g.traffic == TrafficKind::C2E,
            traffic: g.traffic,
            to: g.src,
            epoch: self.done_epoch,
            dst: g.dst,
            volume: g.volume,
            core: g.core,
            route: g.route(M),
            slot: 0,
        }
    }

    fn latency_of(&self, s: Stage) -> u32 {
        let l = self.cfg.latency;
        match s {
            Stage::Request => l.request,
            Stage::Grant1 => l.grant1,
            Stage::Grant2 => l.grant2,
            Stage::Accept => l.accept,
        }
    }

    /// Evaluate `stage` (its last cycle) and return the next phase.
    fn evaluate(&mut self, iter: u8, stage: Stage) -> Phase {
        let next = match stage {
            Stage::Request => {
                self.g1.clear();
                let g1 = &mut self.g1;
                request(
                    &self.cfg,
                    &self.matrices,
                    &self.ports,
                    &self.matched,
                    &mut self.rng,
                    |g| g1.add_request(g),
                );
                Some((iter, Stage::Grant1))
            }
            Stage::Grant1 => {
                self.g1.allocate(&self.ports);
                self.g1.update_state(&mut self.ports);
                self.g2.clear();
                for g in self.g1.grants() {
                    self.g2.add_request(*g);
                }
                Some((iter, Stage::Grant2))
            }
            Stage::Grant2 => {
                self.g2.allocate(N);
                self.g2.update_state(&mut self.ports);
                self.acc.clear();
                for g in self.g2.grants() {
                    self.acc.add_request(*g);
                }
                Some((iter, Stage::Accept))
            }
            Stage::Accept => {
                self.acc.allocate(N);
                self.acc.update_state(&mut self.ports);
                for g in self.acc.grants() {
                    self.matched.mark(g);
                    self.sched.push(*g);
                }
                (iter + 1 < self.cfg.iterations).then_some((iter + 1, Stage::Request))
            }
        };
        match next {
            Some((iter, stage)) => Phase::Busy {
                iter,
                stage,
                left: self.latency_of(stage),
            },
            None => {
                self.finish();
                Phase::Idle
            }
        }
    }

    /// End of round: debit the matrices by the granted cells and publish the grants.
    fn finish(&mut self) {
        self.done.clear();
        for g in self.sched.as_slice() {
            let row = match g.traffic {
                TrafficKind::C2E => g.core as usize,
                _ => g.src as usize,
            };
            self.matrices
                .debit(g.traffic, row, g.dst as usize, g.volume);
            self.stats.grants += 1;
            self.stats.cells += g.volume as u64;
            self.done.push(*g);
        }
        self.done_epoch = self.epoch;
        self.stats.rounds += 1;
    }
}

impl<const M: usize, const N: usize, const P: usize, const C: usize, const Q: usize, R> Clocked
    for IterativeScheduler<M, N, P, C, Q, R>
where
    R: RandomSource,
{
    fn tick(&mut self) {
        self.advance(1);
    }

    /// O(phases): jumps phase boundary to phase boundary; idle is O(1).
    fn advance(&mut self, cycles: Cycles) {
        let mut n = cycles;
        while n > 0 {
            let Phase::Busy { iter, stage, left } = self.phase else {
                return;
            };
            let step = n.min(left as u64);
            n -= step;
            let left = left - step as u32;
            self.phase = if left == 0 {
                self.evaluate(iter, stage)
            } else {
                Phase::Busy { iter, stage, left }
            };
        }
    }
}

/// Bits of one request / grant register: traffic u2, src u16, dst u16, agg u8, core u8,
/// volume u16, key (cells u16 + mice bit + random u16, `alloc::request::urgency_key`).
pub const GRANT_BITS: u32 = 2 + 16 + 16 + 8 + 8 + 16 + 33;

impl<const M: usize, const N: usize, const P: usize, const C: usize, const Q: usize, R> StateBudget
    for IterativeScheduler<M, N, P, C, Q, R>
where
    R: RandomSource,
{
    const NAME: &'static str = "Zeropod iterative scheduler (matrices + port state + grant lists)";
    const UNIT: &'static str = "per pod";
    const BITS: u32 = TrafficMatrices::<N, P, C>::BITS
        + 2 * PortStates::<M>::BITS
        + 2 * (N + C) as u32
        + 5 * Q as u32 * GRANT_BITS
        + 32;
}

// The packed matrices are exactly the u16 arrays the model holds.
const _: () = assert!(
    core::mem::size_of::<[[u16; 256]; 256]>() * 8 == 16 * 256 * 256
        && <K32Scheduler as StateBudget>::BITS > 16 * 256 * 256
);
