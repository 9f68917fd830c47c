//! The DES side of the DCSIM hosts (DCSIM 2.4): per host one `nic` host engine
//! ([`DcsimHost`]), per flow one receiver ([`DcsimReceiver`]), and the bookkeeping that maps
//! engine flow slots to the run's flows.
//!
//! ```text
//!  flow arrives --> pending --(free slot)--> DcsimHost::open_flow(collective id, DATAs)
//!  HostDriver:  eng (one of three fixed-size engines, chosen by the host's flow count)
//!               slot_flow[slot] -> run flow id          rx_timers: (deadline ps, flow)
//!               timer_at: the host's one pending HostTimer event
//!  FlowState:   slot (while open), DcsimReceiver (DATA-ACKs), DATA transmissions
//! ```
//!
//! **Engine sizes.** A `DcsimHost<F, C, S, N>` holds F flows of S outstanding SIMs and an N-DATA
//! window inline. One flow at line rate needs [`DcsimParams::sims_needed`] SIMs and a
//! [`DcsimParams::window_needed`]-DATA window (`RTT_max` and the line rate of the scenario: about
//! 231 and 322 at 800 Gb/s with 9 KB DATAs, within `nic::dcsim::BUDGET_*`), and any flow of a host
//! may be its last one running, so every flow gets that much: a host gets the smallest of [`Few`]
//! (8 flows), [`Wide32`] (32), [`Wide64`] (64), [`Wide128`] (128) and [`Wide`] (320), each 256 SIMs
//! x 512 DATAs per flow (about 17.5 KB of simulator memory per flow slot since session 14c, about
//! 34 KB before), that holds all its flows at once. The engine sizes are the simulator's memory
//! only: a flow's slot number, and so the scheduler's round robin and the timer order, do not
//! depend on how many slots the engine has, as long as all the host's flows fit (session 14:
//! `dcsim_a2av`'s 4,808 flows on 85 sending hosts took 391 MiB of flow slots with 8 / 64 / 320, 216
//! MiB with the two intermediate sizes). Only a scenario whose flows need no more than 64 SIMs and
//! 128 DATAs gets the lighter [`Some64`] / [`Many`] (64 x 128 per flow) for more than 8 flows. A
//! host with more flows than that opens them as slots free (`pending`), and more than 8 collectives
//! at once wait the same way. Should a scenario need more than 256 / 512, the limit binds and every
//! SIM it costs is counted (`HostStats::window_blocked`, `window_blocked` in the summary).
//!
//! Units: host cycles inside the engines (see [`super::config::DcsimParams::host_period_ps`]),
//! picoseconds outside.

use super::config::DcsimParams;
use crate::clock::ClockDomain;
use crate::error::{Error, Result};
use nic::dcsim::{DataAck, DcsimHost, DcsimReceiver, FlowSlot, HostRelease, HostStats, OpenError};
use nic::lb::Ev;
use rtl_models::{Cycles, Lfsr32};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Collective slots of every engine.
pub const COLLECTIVES: usize = 8;
/// Engine of a host with at most 8 flows.
pub type Few = DcsimHost<8, COLLECTIVES, 256, 512>;
/// Engine of a host with at most 64 flows of at most 64 SIMs / 128 DATAs each.
pub type Some64 = DcsimHost<64, COLLECTIVES, 64, 128>;
/// Engine of a host with more flows of at most 64 SIMs / 128 DATAs each.
pub type Many = DcsimHost<320, COLLECTIVES, 64, 128>;
/// Engine of a host with at most 32 flows, each with a line-rate window.
pub type Wide32 = DcsimHost<32, COLLECTIVES, 256, 512>;
/// Engine of a host with at most 64 flows, each with a line-rate window.
pub type Wide64 = DcsimHost<64, COLLECTIVES, 256, 512>;
/// Engine of a host with at most 128 flows, each with a line-rate window.
pub type Wide128 = DcsimHost<128, COLLECTIVES, 256, 512>;
/// Engine of a host with more flows, each with a line-rate window.
pub type Wide = DcsimHost<320, COLLECTIVES, 256, 512>;
/// Outstanding SIMs and DATA window per flow of the line-rate engines.
pub const WIDE_LIMITS: (u32, u32) = (256, 512);
/// Outstanding SIMs and DATA window per flow of [`Some64`] and [`Many`].
pub const NARROW_LIMITS: (u32, u32) = (64, 128);
/// Words of each receiver's selective map: it remembers as many DATAs above its cumulative
/// point as the widest sender window holds, so no DATA arrives beyond it
/// ([`Counters::rx_overflow`] stays 0; the DATA-ACK still carries the first 64).
pub const RX_WORDS: usize = 8;
/// A flow's receiver.
pub type Receiver = DcsimReceiver<RX_WORDS>;
const _: () = assert!(WIDE_LIMITS.1 <= Receiver::MAP_BITS && NARROW_LIMITS.1 <= WIDE_LIMITS.1);

/// Bytes of the engine of a host with `flows` flows and line-rate windows (an upper bound
/// for the narrow ones), for [`crate::estimate`].
pub fn engine_bytes(flows: usize) -> usize {
    if flows <= 8 {
        std::mem::size_of::<Few>()
    } else if flows <= 32 {
        std::mem::size_of::<Wide32>()
    } else if flows <= 64 {
        std::mem::size_of::<Wide64>()
    } else if flows <= 128 {
        std::mem::size_of::<Wide128>()
    } else {
        std::mem::size_of::<Wide>()
    }
}

/// One host's engine, of the size its flow count calls for.
#[derive(Debug, Clone)]
pub enum HostEngine {
    /// Up to 8 flows.
    Few(Box<Few>),
    /// Up to 64 flows.
    Some64(Box<Some64>),
    /// Up to 320 flows.
    Many(Box<Many>),
    /// Up to 32 flows, line-rate windows.
    Wide32(Box<Wide32>),
    /// Up to 64 flows, line-rate windows.
    Wide64(Box<Wide64>),
    /// Up to 128 flows, line-rate windows.
    Wide128(Box<Wide128>),
    /// Up to 320 flows, line-rate windows.
    Wide(Box<Wide>),
}

macro_rules! each {
    ($s:expr, $e:ident => $body:expr) => {
        match $s {
            HostEngine::Few($e) => $body,
            HostEngine::Some64($e) => $body,
            HostEngine::Many($e) => $body,
            HostEngine::Wide32($e) => $body,
            HostEngine::Wide64($e) => $body,
            HostEngine::Wide128($e) => $body,
            HostEngine::Wide($e) => $body,
        }
    };
}

/// A new engine of one size, built in place on the heap ([`DcsimHost::new_checked`] written
/// straight into its box). One out-of-line instance per size: with the seven sizes built
/// inline in [`HostEngine::for_flows`] and then boxed, that function's stack frame held a
/// temporary of each (17 MB, `Wide` alone 5.6 MB), probed page by page on every call and
/// resident for the whole run (session 16).
#[inline(never)]
fn boxed<const F: usize, const S: usize, const N: usize>(
    p: &DcsimParams,
) -> std::result::Result<Box<DcsimHost<F, COLLECTIVES, S, N>>, rtl_models::ConfigError> {
    DcsimHost::<F, COLLECTIVES, S, N>::check(&p.host)?;
    Ok(Box::write(
        Box::new_uninit(),
        DcsimHost::new_checked(p.host),
    ))
}

impl HostEngine {
    /// The smallest engine for `flows` flows whose per-flow limits cover what a line-rate
    /// flow of the scenario needs (if any does), built on the heap.
    fn for_flows(
        flows: usize,
        p: &DcsimParams,
    ) -> std::result::Result<Self, rtl_models::ConfigError> {
        let narrow = p.sims_needed <= NARROW_LIMITS.0 && p.window_needed <= NARROW_LIMITS.1;
        Ok(if flows <= 8 {
            HostEngine::Few(boxed(p)?)
        } else if narrow && flows <= 64 {
            HostEngine::Some64(boxed(p)?)
        } else if narrow {
            HostEngine::Many(boxed(p)?)
        } else if flows <= 32 {
            HostEngine::Wide32(boxed(p)?)
        } else if flows <= 64 {
            HostEngine::Wide64(boxed(p)?)
        } else if flows <= 128 {
            HostEngine::Wide128(boxed(p)?)
        } else {
            HostEngine::Wide(boxed(p)?)
        })
    }

    /// Flow slots.
    pub fn capacity(&self) -> usize {
        match self {
            HostEngine::Few(_) => 8,
            HostEngine::Wide32(_) => 32,
            HostEngine::Some64(_) | HostEngine::Wide64(_) => 64,
            HostEngine::Wide128(_) => 128,
            HostEngine::Many(_) | HostEngine::Wide(_) => 320,
        }
    }

    /// Outstanding SIMs and DATA window of each flow.
    pub fn limits(&self) -> (u32, u32) {
        match self {
            HostEngine::Some64(_) | HostEngine::Many(_) => NARROW_LIMITS,
            _ => WIDE_LIMITS,
        }
    }

    /// Whether some open flow may send a SIM by Eq. 3 but its DATA window or SIM table
    /// does not let it (a limit binds).
    pub fn window_blocked(&self) -> bool {
        each!(self, e => e.flows().any(|(_, f)| f.window_blocked()))
    }

    /// See [`DcsimHost::advance_to`].
    #[inline]
    pub fn advance_to(&mut self, c: Cycles) {
        each!(self, e => e.advance_to(c))
    }
    /// See [`DcsimHost::now`].
    #[inline]
    pub fn now(&self) -> Cycles {
        each!(self, e => e.now())
    }
    /// See [`DcsimHost::open_flow`].
    pub fn open_flow(&mut self, coll: u32, datas: u32) -> std::result::Result<FlowSlot, OpenError> {
        each!(self, e => e.open_flow(coll, datas))
    }
    /// See [`DcsimHost::close_flow`].
    pub fn close_flow(&mut self, f: FlowSlot) {
        each!(self, e => { e.close_flow(f); })
    }
    /// See [`DcsimHost::next_sim`].
    #[inline]
    pub fn next_sim(&mut self, rng: &mut Lfsr32) -> Option<(FlowSlot, Ev)> {
        each!(self, e => e.next_sim(rng))
    }
    /// See [`DcsimHost::on_sim_transmitted`].
    #[inline]
    pub fn on_sim_transmitted(&mut self, f: FlowSlot, ev: Ev) -> bool {
        each!(self, e => e.on_sim_transmitted(f, ev))
    }
    /// See [`DcsimHost::on_sim_ack`]; true if it scheduled a DATA.
    #[inline]
    pub fn on_sim_ack(&mut self, f: FlowSlot, ev: Ev) -> bool {
        each!(self, e => matches!(e.on_sim_ack(f, ev), nic::dcsim::SimAckOutcome::Scheduled { .. }))
    }
    /// See [`DcsimHost::on_data_transmitted`].
    #[inline]
    pub fn on_data_transmitted(&mut self, f: FlowSlot, seq: u32) -> bool {
        each!(self, e => e.on_data_transmitted(f, seq))
    }
    /// See [`DcsimHost::on_data_dropped_locally`].
    pub fn on_data_dropped_locally(&mut self, f: FlowSlot, seq: u32) -> bool {
        each!(self, e => e.on_data_dropped_locally(f, seq))
    }
    /// See [`DcsimHost::on_data_ack`].
    pub fn on_data_ack(&mut self, f: FlowSlot, ack: DataAck) -> u32 {
        each!(self, e => e.on_data_ack(f, ack))
    }
    /// See [`DcsimHost::pop_release`].
    #[inline]
    pub fn pop_release(&mut self) -> Option<HostRelease> {
        each!(self, e => e.pop_release())
    }
    /// See [`DcsimHost::next_timer`].
    #[inline]
    pub fn next_timer(&self) -> Option<Cycles> {
        each!(self, e => e.next_timer())
    }
    /// See [`DcsimHost::time_overflow`].
    pub fn time_overflow(&self) -> bool {
        each!(self, e => e.time_overflow())
    }
    /// See [`DcsimHost::stats`].
    pub fn stats(&self) -> HostStats {
        each!(self, e => *e.stats())
    }
    /// `(n_SIM, n_DATA)` of flow slot `f`, if open (Eq. 3 says `n_SIM <= n_DATA`).
    #[inline]
    pub fn sim_data(&self, f: FlowSlot) -> Option<(u32, u32)> {
        each!(self, e => e.flow(f).map(|x| (x.n_sim(), x.n_data())))
    }
    /// Whether flow slot `f` has every DATA acknowledged.
    #[inline]
    pub fn is_done(&self, f: FlowSlot) -> bool {
        each!(self, e => e.flow(f).is_some_and(|x| x.is_done()))
    }
    /// The cumulative point of flow slot `f` (its lowest unacknowledged DATA), if open.
    pub fn cum_acked(&self, f: FlowSlot) -> Option<u32> {
        each!(self, e => e.flow(f).map(|x| x.base()))
    }
    /// See [`DcsimHost::skippable`].
    pub fn skippable(&self, f: FlowSlot) -> u32 {
        each!(self, e => e.skippable(f))
    }
    /// See [`DcsimHost::fast_forward`].
    pub fn fast_forward(&mut self, f: FlowSlot, k: u32) -> u32 {
        each!(self, e => e.fast_forward(f, k))
    }
}

/// No flow in this slot.
pub const NO_FLOW: u32 = u32::MAX;

/// One host.
#[derive(Debug, Clone)]
pub struct HostDriver {
    /// Its engine.
    pub eng: HostEngine,
    /// Run flow id of each engine slot ([`NO_FLOW`] if free).
    pub slot_flow: Vec<u32>,
    /// Flows waiting for a slot, in arrival order.
    pub pending: VecDeque<u32>,
    /// Receivers' DATA-ACK interval deadlines at this host: (ps, flow).
    pub rx_timers: BinaryHeap<Reverse<(u64, u32)>>,
    /// Time of the host's pending `HostTimer` event (`NEVER` if none).
    pub timer_at: u64,
    /// The NIC's random source (SIM EVs, DATA-ACK EVs).
    pub rng: Lfsr32,
    /// The host's clock (`host_period_ps` from t = 0, its origin moved by
    /// [`HostDriver::shift`]): the engine's cycles and those of the receivers at this host.
    pub clock: ClockDomain,
}

impl HostDriver {
    /// The host clock's cycle at DES time `t` (ps).
    #[inline]
    pub fn cycle(&self, t: u64) -> Cycles {
        self.clock.cycle_at(t)
    }

    /// Start of host cycle `c`, ps.
    #[inline]
    pub fn ps(&self, c: Cycles) -> u64 {
        self.clock.start_of(c)
    }

    /// Move the host `delta` ps later (a shifted partition): its clock (so the engine's and
    /// its receivers' cycle counters keep their values), its receivers' deadlines and its
    /// pending timer. The receivers' own copies of their deadlines
    /// ([`FlowState::rx_timer_at`]) move with their flows ([`DcsimState::shift`]).
    pub fn shift(&mut self, delta: u64) {
        self.clock.shift(delta);
        let later = |t: u64| {
            if t == u64::MAX {
                t
            } else {
                t.saturating_add(delta)
            }
        };
        self.timer_at = later(self.timer_at);
        let timers = std::mem::take(&mut self.rx_timers);
        self.rx_timers = timers
            .into_iter()
            .map(|Reverse((t, f))| Reverse((later(t), f)))
            .collect();
    }
}

/// Where a flow is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not started, or waiting for an engine slot.
    Waiting,
    /// In an engine slot.
    Open(FlowSlot),
    /// Every DATA acknowledged.
    Done,
}

/// One flow's receiver-side DCSIM state (at its destination host).
#[derive(Debug, Clone)]
pub struct FlowState {
    /// DATAs.
    pub datas: u32,
    /// Its receiver.
    pub rx: Receiver,
    /// Deadline (ps) of its receiver's interval timer in the host's heap (`NEVER` if none).
    pub rx_timer_at: u64,
}

/// One flow's sender-side DCSIM state outside the engine (at its source host), 32 bytes
/// kept apart from its receiver ([`FlowState`], 192 bytes) and from the run's flow record:
/// every host departure, SIM-ACK, release and SIM reads it (session 15b: these reads were
/// the host hooks' largest stalls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowSend {
    /// Where it is.
    pub phase: Phase,
    /// DATAs.
    pub datas: u32,
    /// Its destination host (a copy of the flow spec's).
    pub dst: u32,
    /// DATA transmissions (first sends and resends).
    pub tx: u64,
    /// Its bytes (a copy of the flow spec's: each DATA's payload).
    pub bytes: u64,
}

/// A flow as [`DcsimState::new`] takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowInit {
    /// Source host.
    pub src: u32,
    /// Destination host.
    pub dst: u32,
    /// DATAs.
    pub datas: u32,
    /// Bytes.
    pub bytes: u64,
}

/// The SACK words of the DATA-ACKs in flight (DCSIM section 2.4 (4)), a DATA-ACK carrying
/// its slot in `psn`: the transport's [`crate::transport::side::SideTable`].
pub type AckSlab = crate::transport::side::SideTable<u64>;

/// Counters of the DCSIM transport (whole run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// SIMs that left a host NIC.
    pub sims_sent: u64,
    /// SIMs dropped in the network.
    pub sim_drops: u64,
    /// SIM-ACKs created by receivers.
    pub sim_acks_sent: u64,
    /// SIM-ACKs dropped (at a NIC or in the network).
    pub sim_ack_drops: u64,
    /// DATA-ACKs created.
    pub data_acks_sent: u64,
    /// DATA-ACKs dropped.
    pub data_ack_drops: u64,
    /// DATAs dropped in the network.
    pub data_drops: u64,
    /// Released DATAs the host NIC's DATA buffer refused (back to waiting; not a loss).
    pub data_local_drops: u64,
    /// DATA arrivals beyond the receiver's selective map (resent later; 0 by construction
    /// with [`RX_WORDS`], reported as the check).
    pub rx_overflow: u64,
    /// Checks of Eq. 3 (`n_SIM <= n_DATA`) after an engine event.
    pub invariant_checks: u64,
    /// Checks that failed.
    pub invariant_violations: u64,
    /// Departures a port found overdue (0 unless the engine misses a wake-up).
    pub late_departures: u64,
}

/// The DCSIM transport of a run.
#[derive(Debug, Clone)]
pub struct DcsimState {
    /// Parameters.
    pub p: DcsimParams,
    /// Hosts.
    pub hosts: Vec<HostDriver>,
    /// Flows' receivers (by run flow id).
    pub flows: Vec<FlowState>,
    /// Flows' senders (by run flow id).
    pub send: Vec<FlowSend>,
    /// DATA-ACK side data.
    pub acks: AckSlab,
    /// Counters.
    pub k: Counters,
    /// The DATA-ACKs a host timer sends (reused, empty between events).
    pub ack_scratch: Vec<(u32, DataAck)>,
}

/// The checks [`DcsimState::new`] makes on `p` (host engine of every size, receiver), without
/// building anything (for [`crate::validate`]).
pub fn check_config(p: &DcsimParams) -> Result<()> {
    for sims in [256, 64] {
        p.host.validate(sims).map_err(host_cfg_err)?;
    }
    Receiver::new(p.rx).map_err(|e| {
        Error::field(
            "transport.dcsim.ack_every",
            format!("{} ({})", e.problem, e.field),
        )
    })?;
    Ok(())
}

fn host_cfg_err(e: rtl_models::ConfigError) -> Error {
    let field = match e.field {
        "ev_bits" => "transport.evs_bits",
        "variant.permille" => "transport.dcsim.fraction",
        _ => "transport.dcsim.ack_interval_rtts",
    };
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

impl DcsimState {
    /// The state for `hosts` hosts and flows `flows`, host NIC random sources seeded
    /// from `seeds` (one per host). The engines are built on a helper thread with a large
    /// stack (a `Many` engine is a few MiB).
    pub fn new(p: DcsimParams, hosts: u32, flows: &[FlowInit], seeds: Vec<u32>) -> Result<Self> {
        let mut per_host = vec![0usize; hosts as usize];
        for f in flows {
            per_host[f.src as usize] += 1;
        }
        let engines = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                per_host
                    .iter()
                    .map(|&n| HostEngine::for_flows(n, &p))
                    .collect::<std::result::Result<Vec<_>, _>>()
            })
            .map_err(|e| {
                Error::field("transport.cc", format!("cannot build the DCSIM hosts: {e}"))
            })?
            .join()
            .map_err(|_| Error::field("transport.cc", "building the DCSIM hosts failed"))?
            .map_err(host_cfg_err)?;
        let hosts = engines
            .into_iter()
            .zip(seeds)
            .map(|(eng, seed)| HostDriver {
                slot_flow: vec![NO_FLOW; eng.capacity()],
                eng,
                pending: VecDeque::new(),
                rx_timers: BinaryHeap::new(),
                timer_at: u64::MAX,
                rng: Lfsr32::new(seed),
                clock: p.host_clock(),
            })
            .collect();
        let rx = Receiver::new(p.rx).map_err(|e| {
            Error::field(
                "transport.dcsim.ack_every",
                format!("{} ({})", e.problem, e.field),
            )
        })?;
        let send = flows
            .iter()
            .map(|f| FlowSend {
                phase: Phase::Waiting,
                datas: f.datas,
                dst: f.dst,
                tx: 0,
                bytes: f.bytes,
            })
            .collect();
        let flows = flows
            .iter()
            .map(|f| FlowState {
                datas: f.datas,
                rx: rx.clone(),
                rx_timer_at: u64::MAX,
            })
            .collect();
        Ok(DcsimState {
            p,
            hosts,
            flows,
            send,
            acks: AckSlab::default(),
            k: Counters::default(),
            ack_scratch: Vec::new(),
        })
    }

    /// Move hosts `hosts` and the receivers of flows `flows` (a partition: the flows whose
    /// receivers are at those hosts, with every flow they send) `delta` ps later: the
    /// hosts' clocks, deadlines and timers ([`HostDriver::shift`]) and the flows' receiver
    /// deadlines. Engine and receiver state is in cycles and stays as it is.
    pub fn shift(&mut self, hosts: &[u32], flows: &[u32], delta: u64) {
        for &h in hosts {
            self.hosts[h as usize].shift(delta);
        }
        for &f in flows {
            let fs = &mut self.flows[f as usize];
            if fs.rx_timer_at != u64::MAX {
                fs.rx_timer_at = fs.rx_timer_at.saturating_add(delta);
            }
        }
    }

    /// Check Eq. 3 for flow slot `slot` of host `h` (counted; a debug build asserts).
    #[inline]
    pub fn check_invariant(&mut self, h: u32, slot: FlowSlot) {
        if let Some((n_sim, n_data)) = self.hosts[h as usize].eng.sim_data(slot) {
            self.k.invariant_checks += 1;
            if n_sim > n_data {
                self.k.invariant_violations += 1;
                debug_assert!(
                    false,
                    "Eq. 3 violated at host {h} slot {slot}: n_sim {n_sim} > n_data {n_data}"
                );
            }
        }
    }

    /// Open the pending flows of host `h` that fit (engine at the current cycle); returns
    /// the flows opened.
    pub fn admit(&mut self, h: u32, collective_of: impl Fn(u32) -> u32) -> usize {
        let hd = &mut self.hosts[h as usize];
        let mut n = 0;
        while let Some(&f) = hd.pending.front() {
            let datas = self.send[f as usize].datas;
            match hd.eng.open_flow(collective_of(f), datas) {
                Ok(slot) => {
                    hd.pending.pop_front();
                    hd.slot_flow[slot as usize] = f;
                    self.send[f as usize].phase = Phase::Open(slot);
                    n += 1;
                }
                Err(_) => break,
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// Flows `(src, datas)` of 1,000-byte DATAs to host 0.
    fn init(flows: &[(u32, u32)]) -> Vec<FlowInit> {
        flows
            .iter()
            .map(|&(src, datas)| FlowInit {
                src,
                dst: 0,
                datas,
                bytes: u64::from(datas) * 1000,
            })
            .collect()
    }

    fn params() -> DcsimParams {
        let mut s = Scenario::default();
        s.topology.link_gbps = 800.0;
        s.transport.mtu = 9000;
        DcsimParams::new(&s, 6, 500_000, 1).unwrap()
    }

    #[test]
    fn engines_fit_the_flow_counts_and_slots_fill_in_order() {
        let p = params();
        let flows: Vec<(u32, u32)> = (0..70)
            .map(|i| (if i < 3 { 0 } else { 1 + (i % 2) }, 5))
            .collect();
        let mut st = DcsimState::new(p, 3, &init(&flows), vec![1, 2, 3]).unwrap();
        assert_eq!(st.hosts[0].eng.capacity(), 8);
        assert_eq!(st.hosts[1].eng.capacity(), 64, "34 flows");
        assert_eq!(st.hosts[2].eng.capacity(), 64, "33 flows");
        for f in 0..3 {
            st.hosts[0].pending.push_back(f);
        }
        assert_eq!(st.admit(0, |_| 7), 3);
        assert_eq!(st.send[2].phase, Phase::Open(2));
        assert_eq!(st.hosts[0].slot_flow[..3], [0, 1, 2]);
        // Nine collectives cannot be open at once with 8 collective slots.
        let flows: Vec<(u32, u32)> = (0..9).map(|_| (0, 1)).collect();
        let mut st = DcsimState::new(p, 1, &init(&flows), vec![1]).unwrap();
        for f in 0..9 {
            st.hosts[0].pending.push_back(f);
        }
        assert_eq!(st.admit(0, |f| f), 8);
        assert_eq!(st.hosts[0].pending.len(), 1);
        st.check_invariant(0, 0);
        assert_eq!((st.k.invariant_checks, st.k.invariant_violations), (1, 0));
    }

    /// Issue 14: a host with more than 8 flows used to give each 64 SIMs and 128 DATAs. A
    /// lone flow on a 9-flow host now gets the SIMs and window a line-rate flow needs; a
    /// scenario needing less gets the narrow engines.
    #[test]
    fn a_lone_flow_on_a_busy_host_gets_a_line_rate_window() {
        // The shipped DCSIM scenarios' fabric (section 4.1).
        let mut s = Scenario::default();
        s.topology.link_gbps = 800.0;
        s.topology.link_delay_ns = 200;
        s.topology.switch_latency_ns = 450;
        s.transport.mtu = 9000;
        s.transport.header_bytes = 64;
        let p = DcsimParams::new(&s, 6, 500_000, 1).unwrap();
        assert_eq!((p.sims_needed, p.window_needed), (231, 322));
        let flows: Vec<(u32, u32)> = (0..9).map(|i| (0, if i == 0 { 2000 } else { 1 })).collect();
        let mut st = DcsimState::new(p, 1, &init(&flows), vec![1]).unwrap();
        assert_eq!(st.hosts[0].eng.limits(), WIDE_LIMITS);
        st.hosts[0].pending.push_back(0);
        assert_eq!(st.admit(0, |_| 0), 1);
        let hd = &mut st.hosts[0];
        // Outstanding SIMs: as many as the SIM table holds, at least sims_needed.
        let mut sims = Vec::new();
        while let Some(x) = hd.eng.next_sim(&mut hd.rng) {
            sims.push(x);
        }
        assert!(
            hd.eng.window_blocked(),
            "the SIM table binds at {}",
            sims.len()
        );
        assert!(sims.len() as u32 >= p.sims_needed, "{} SIMs", sims.len());
        // Window: every SIM-ACKed DATA stays unacknowledged; the flow keeps scheduling
        // DATAs up to at least window_needed.
        let mut scheduled = 0u32;
        while let Some((f, ev)) = sims.pop().or_else(|| hd.eng.next_sim(&mut hd.rng)) {
            assert!(hd.eng.on_sim_transmitted(f, ev));
            scheduled += u32::from(hd.eng.on_sim_ack(f, ev));
        }
        assert!(
            scheduled >= p.window_needed,
            "{scheduled} DATAs in the window"
        );
        assert_eq!(scheduled, WIDE_LIMITS.1);
        assert!(hd.eng.window_blocked());
        // One switch (2 links) and small queues (B = 2): RTT_max is a few SIM tokens.
        s.transport.dcsim.small_queue_pkts = 2;
        let p = DcsimParams::new(&s, 2, 500_000, 1).unwrap();
        assert!(
            p.sims_needed <= NARROW_LIMITS.0 && p.window_needed <= NARROW_LIMITS.1,
            "{} {}",
            p.sims_needed,
            p.window_needed
        );
        let st = DcsimState::new(p, 1, &init(&flows), vec![1]).unwrap();
        assert_eq!(st.hosts[0].eng.limits(), NARROW_LIMITS);
    }

    /// A shifted host reads at `t + delta` the cycle it read at `t`, and its deadlines and
    /// its receivers' copies of them stay equal (else the timer would be skipped as stale).
    #[test]
    fn shift_moves_host_clock_deadlines_and_receiver_copies() {
        let p = params();
        let mut st = DcsimState::new(p, 2, &init(&[(0, 5), (1, 5)]), vec![1, 2]).unwrap();
        let (t, delta) = (1_234_567, 7_654_321);
        for h in 0..2u32 {
            let hd = &mut st.hosts[h as usize];
            hd.rx_timers.push(Reverse((t, h)));
            hd.timer_at = t;
            st.flows[h as usize].rx_timer_at = t;
        }
        let before = st.hosts[0].cycle(t);
        st.shift(&[0], &[0], delta);
        let hd = &st.hosts[0];
        assert_eq!(hd.cycle(t + delta), before);
        assert_eq!(hd.ps(before), st.hosts[1].ps(before) + delta);
        assert_eq!(hd.timer_at, t + delta);
        assert_eq!(hd.rx_timers.peek(), Some(&Reverse((t + delta, 0))));
        assert_eq!(st.flows[0].rx_timer_at, t + delta);
        // Host 1 and its flow are in no partition shifted.
        assert_eq!(st.hosts[1].timer_at, t);
        assert_eq!(st.hosts[1].rx_timers.peek(), Some(&Reverse((t, 1))));
        assert_eq!(st.flows[1].rx_timer_at, t);
        // An unarmed timer stays unarmed.
        st.hosts[1].timer_at = u64::MAX;
        st.shift(&[1], &[], delta);
        assert_eq!(st.hosts[1].timer_at, u64::MAX);
    }

    #[test]
    fn narrow_evs_name_their_field() {
        let mut s = Scenario::default();
        s.topology.link_gbps = 800.0;
        s.transport.evs_bits = 6; // 64 values: not enough for 256 outstanding SIMs
        let p = DcsimParams::new(&s, 6, 500_000, 1).unwrap();
        match DcsimState::new(p, 1, &init(&[(0, 4)]), vec![1]) {
            Err(Error::Field { field, .. }) => assert_eq!(field, "transport.evs_bits"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ack_slab_reuses_entries() {
        let mut s = AckSlab::default();
        let a = s.put(5);
        let b = s.put(6);
        assert_eq!(s.take(a), 5);
        assert_eq!(s.put(7), a);
        assert_eq!((s.take(b), s.live()), (6, 1));
    }
}
