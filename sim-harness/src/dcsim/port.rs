//! The DES side of one DCSIM output port (DCSIM 2.3, Fig. 1): the `switch` crate's
//! [`DcsimArbiter`] holding the packets themselves, on its own clock.
//!
//! ```text
//!   enqueue(pk) --> [ DcsimArbiter<Packet, 15, 256> ] --take()--> Departure{pk, start, cycles}
//!                     SIM / SIM-ACK / DATA-ACK / DATA            line busy until ps_at(end)
//!   time: ps = origin_ps + cycle * period_ps   (period = 8 bytes at the link rate)
//! ```
//!
//! The engine keeps one wake-up (`TxDone`) per port at [`DcsimPort::next_start_ps`]: the end
//! of the packet on the line, or the arrival of a SIM token when only SIMs wait. Inputs are
//! made in the port's current cycle, `ceil((t - origin) / period)` for an arrival at `t`,
//! so an arrival never starts before it arrived. A rate change ([`DcsimPort::set_rate`])
//! restarts the arbiter on the new clock with the queued packets in their order (the token
//! bucket starts full).
//!
//! Units: picoseconds, port cycles, bytes.

use crate::clock::ClockDomain;
use crate::packet::{Packet, PktKind};
use rtl_models::{ConfigError, Cycles};
use switch::dcsim::{
    Class, DcsimArbiter, DcsimArbiterConfig, DcsimArbiterStats, Departure, Enqueue, Plan,
};

/// Capacity of each small queue (`B` may be set up to this, and the arbiter's 4-bit limit).
pub const SMALL_SLOTS: usize = 15;
/// DATA descriptor slots of a port.
pub const DATA_SLOTS: usize = 256;

/// The arbiter of a DES port: packets are their own descriptors.
pub type PortArbiter = DcsimArbiter<Packet, SMALL_SLOTS, DATA_SLOTS>;

/// The class of a packet kind (only DCSIM kinds reach a DCSIM port; any other control
/// packet would ride with the DATA-ACKs).
pub fn class_of(k: PktKind) -> Class {
    match k {
        PktKind::Sim => Class::Sim,
        PktKind::SimAck => Class::SimAck,
        PktKind::Data => Class::Data,
        _ => Class::DataAck,
    }
}

/// One DCSIM output port.
///
/// Layout (`repr(C)`): the clock and the kept plan, which every arrival and wake-up read,
/// next to the arbiter's registers (which come first in [`DcsimArbiter`]); the retired
/// statistics last.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct DcsimPort {
    /// The arbiter's clock: 8 bytes at the line rate, re-based at each rate change.
    clock: ClockDomain,
    /// Departures found overdue by [`DcsimPort::catch_up`] (0 when the engine is right).
    pub late: u64,
    /// The arbiter's answer to [`DcsimArbiter::next_plan`] and its start in ps, kept until
    /// a start or an input that may change it ([`DcsimArbiter::arrival_keeps_plan`])
    /// changes it (`None`: not known; an empty port is asked again, which is cheap). The
    /// answer does not depend on the arbiter's clock while it idles up to the planned
    /// start (the bucket's fill is additive in idle cycles), so idling keeps it.
    plan: Option<(Plan, u64)>,
    arb: PortArbiter,
    /// Statistics of arbiters replaced by rate changes.
    retired: DcsimArbiterStats,
}

impl DcsimPort {
    /// A port with configuration `cfg`, cycle 0 at t = 0.
    pub fn new(cfg: DcsimArbiterConfig) -> Result<Self, ConfigError> {
        Ok(DcsimPort {
            arb: PortArbiter::new(cfg)?,
            clock: ClockDomain::new(cfg.clock.period_ps, 0),
            retired: DcsimArbiterStats::default(),
            late: 0,
            plan: None,
        })
    }

    /// The arbiter.
    pub fn arbiter(&self) -> &PortArbiter {
        &self.arb
    }

    /// The first cycle starting at or after `ps`.
    pub fn cycle_at(&self, ps: u64) -> Cycles {
        self.clock.cycle_ceil(ps)
    }

    /// Start of cycle `c`, ps.
    pub fn ps_at(&self, c: Cycles) -> u64 {
        self.clock.start_of(c)
    }

    /// Bring the arbiter to the cycle of `now` without skipping a departure: returns a
    /// departure that was due before `now` (the caller transmits it; call again until
    /// `None`), else moves the arbiter's clock and returns `None`.
    pub fn catch_up(&mut self, now: u64) -> Option<Departure<Packet>> {
        if self.catch_up_idle(now) {
            return None;
        }
        self.catch_up_slow(self.cycle_at(now))
    }

    /// The cheap cases of [`DcsimPort::catch_up`]: `true` when the arbiter is at `now`
    /// with no departure due before (nothing to transmit), `false` when it must ask which
    /// packet goes next ([`DcsimPort::catch_up`] then does).
    #[inline]
    pub fn catch_up_idle(&mut self, now: u64) -> bool {
        // Already there (a second call at the same time): nothing can start before the
        // arbiter's own cycle.
        if now <= self.ps_at(self.arb.now()) {
            return true;
        }
        let c = self.cycle_at(now);
        // Nothing waits, or the line is busy up to `c` or later: no departure before `c`
        // (the usual cases), so no need to ask which packet goes next.
        if self.arb.line_free_at() >= c || self.arb.is_empty() {
            self.arb.idle_until(c);
            return true;
        }
        false
    }

    /// [`DcsimPort::catch_up`] right after [`DcsimPort::catch_up_idle`] answered `false`
    /// for the same `now` (which then changed nothing): skips asking the cheap cases again.
    #[inline]
    pub fn catch_up_after_idle(&mut self, now: u64) -> Option<Departure<Packet>> {
        self.catch_up_slow(self.cycle_at(now))
    }

    /// [`DcsimPort::catch_up`] to cycle `c` when packets wait and the line is free before.
    #[inline(never)]
    fn catch_up_slow(&mut self, c: Cycles) -> Option<Departure<Packet>> {
        match self.next_plan() {
            Some((d, _)) if d.start < c => {
                self.late += 1;
                self.take_kept_plan()
            }
            _ => {
                self.arb.idle_until(c);
                None
            }
        }
    }

    /// A packet arrives in the current cycle (after [`DcsimPort::catch_up`]).
    #[inline(always)]
    pub fn enqueue(&mut self, pk: Packet) -> Enqueue {
        let class = class_of(pk.kind);
        // The kept plan survives an arrival that cannot change it (a lower class than the
        // planned one, a SIM behind a SIM, ...: [`DcsimArbiter::arrival_keeps_plan`]).
        if let Some((plan, _)) = self.plan {
            if !self.arb.arrival_keeps_plan(plan, class) {
                self.plan = None;
            }
        }
        self.arb.enqueue(class, pk, pk.bytes)
    }

    /// Move the port `delta` ps later in DES time (a paused Wormhole partition resumed
    /// `delta` later): its clock's origin moves; the arbiter's state, kept in cycles, is
    /// untouched, so every pending departure happens `delta` later.
    pub fn shift(&mut self, delta: u64) {
        self.clock.shift(delta);
    }

    /// Apply `f` to every packet waiting in the port's queues, in place (a Wormhole shift
    /// moving the times their headers carry); the arbiter's state is unchanged.
    pub fn for_each_packet_mut(&mut self, f: impl FnMut(&mut Packet)) {
        self.arb.for_each_desc_mut(f);
    }

    /// When the next packet starts (no further arrivals), ps.
    pub fn next_start_ps(&self) -> Option<u64> {
        self.arb.next_plan().map(|d| self.ps_at(d.start))
    }

    /// Start the next packet (at [`DcsimPort::next_start_ps`]).
    pub fn take(&mut self) -> Option<Departure<Packet>> {
        self.plan = None;
        self.arb.take_next()
    }

    /// The next departure (no further arrivals), as [`DcsimArbiter::next_departure`].
    pub fn next_departure(&mut self) -> Option<Departure<Packet>> {
        self.next_plan()?;
        self.arb.next_departure()
    }

    /// The next departure's class and start cycle (no further arrivals), as
    /// [`DcsimArbiter::next_plan`], and its start in ps; the answer is kept until the next
    /// input or start.
    #[inline]
    pub fn next_plan(&mut self) -> Option<(Plan, u64)> {
        if self.plan.is_none() {
            self.plan = self.arb.next_plan().map(|d| (d, self.ps_at(d.start)));
        }
        debug_assert_eq!(
            self.plan.map(|(d, _)| d),
            self.arb.next_plan(),
            "stale plan"
        );
        self.plan
    }

    /// The kept plan's start, ps, if a plan is kept (no input or start since it was made):
    /// asks nothing.
    #[inline]
    pub fn kept_start_ps(&self) -> Option<u64> {
        self.plan.map(|(_, t)| t)
    }

    /// When the next packet starts (no further arrivals), ps: [`DcsimPort::next_plan`]'s
    /// start.
    #[inline]
    pub fn planned_start_ps(&mut self) -> Option<u64> {
        self.next_plan().map(|(_, t)| t)
    }

    /// Start the kept plan ([`DcsimPort::next_plan`] with no input since, at its start):
    /// [`DcsimPort::take`] without asking the arbiter again. `None` without a kept plan.
    #[inline(always)]
    pub fn take_kept_plan(&mut self) -> Option<Departure<Packet>> {
        let (d, _) = self.plan.take()?;
        self.arb.take_plan(d)
    }

    /// End of a departure (line free again), ps.
    pub fn end_ps(&self, d: &Departure<Packet>) -> u64 {
        self.ps_at(d.end())
    }

    /// Whether no packet waits.
    pub fn is_empty(&self) -> bool {
        self.arb.is_empty()
    }

    /// Bytes queued, all classes.
    pub fn queued_bytes(&self) -> u64 {
        Class::ALL.iter().map(|&c| self.arb.queue_bytes(c)).sum()
    }

    /// Counters over the port's life (across rate changes).
    pub fn stats(&self) -> DcsimArbiterStats {
        let mut s = self.retired;
        let a = self.arb.stats();
        for k in 0..4 {
            s.accepted[k] += a.accepted[k];
            s.dropped[k] += a.dropped[k];
            s.rejected[k] += a.rejected[k];
            s.departed[k] += a.departed[k];
            s.departed_bytes[k] += a.departed_bytes[k];
        }
        s.busy_cycles += a.busy_cycles;
        s
    }

    /// The packets waiting, in departure order of a drain (for end-of-run accounting).
    pub fn queued(&self) -> Vec<Packet> {
        let mut a = self.arb.clone();
        std::iter::from_fn(|| a.take_next().map(|d| d.desc)).collect()
    }

    /// The link rate changed at `now`; the line is busy until `free_ps`: restart on
    /// `cfg`'s clock with the queued packets (same order per class).
    pub fn set_rate(
        &mut self,
        cfg: DcsimArbiterConfig,
        now: u64,
        free_ps: u64,
    ) -> Result<(), ConfigError> {
        let mut fresh = PortArbiter::new(cfg)?;
        let before = self.arb.stats();
        let mut old = self.arb.clone();
        while let Some(d) = old.take_next() {
            // Same limits, same order: every packet fits again.
            let r = fresh.enqueue(d.class, d.desc, d.bytes);
            debug_assert_eq!(r, Enqueue::Accepted);
        }
        // Keep the counters of what the old arbiter did (not the requeueing).
        for k in 0..4 {
            self.retired.accepted[k] += before.accepted[k];
            self.retired.dropped[k] += before.dropped[k];
            self.retired.rejected[k] += before.rejected[k];
            self.retired.departed[k] += before.departed[k];
            self.retired.departed_bytes[k] += before.departed_bytes[k];
        }
        self.retired.busy_cycles += before.busy_cycles;
        let fresh_stats = *fresh.stats();
        for k in 0..4 {
            self.retired.accepted[k] -= fresh_stats.accepted[k];
        }
        self.arb = fresh;
        self.plan = None;
        self.clock = ClockDomain::new(cfg.clock.period_ps, now.max(free_ps));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtl_models::Clock;

    fn pk(kind: PktKind, bytes: u32, psn: u32) -> Packet {
        Packet {
            flow: 0,
            src: 0,
            dst: 1,
            psn,
            cum_ack: 0,
            bytes,
            ev: 0,
            kind,
            ecn: false,
        }
    }

    fn cfg() -> DcsimArbiterConfig {
        DcsimArbiterConfig {
            bytes_per_cycle: 8,
            clock: Clock { period_ps: 80 },
            data_bytes: 9064,
            ..DcsimArbiterConfig::default()
        }
    }

    #[test]
    fn times_map_to_cycles_and_priority_holds() {
        let mut p = DcsimPort::new(cfg()).unwrap();
        assert_eq!(p.catch_up(100), None);
        assert_eq!(p.arbiter().now(), 2, "ceil(100 / 80)");
        assert_eq!(p.enqueue(pk(PktKind::Data, 9064, 1)), Enqueue::Accepted);
        assert_eq!(p.enqueue(pk(PktKind::SimAck, 64, 2)), Enqueue::Accepted);
        assert_eq!(p.next_start_ps(), Some(160));
        let d = p.take().unwrap();
        assert_eq!((d.class, d.desc.psn), (Class::SimAck, 2));
        assert_eq!(p.end_ps(&d), 160 + 8 * 80);
        let d = p.take().unwrap();
        assert_eq!((d.class, p.end_ps(&d)), (Class::Data, 800 + 1133 * 80));
        assert!(p.is_empty());
        assert_eq!(p.late, 0);
    }

    #[test]
    fn catch_up_hands_out_overdue_departures() {
        let mut p = DcsimPort::new(cfg()).unwrap();
        p.enqueue(pk(PktKind::Sim, 64, 1));
        let d = p.catch_up(1000).unwrap();
        assert_eq!(d.desc.psn, 1);
        assert_eq!(p.late, 1);
        assert_eq!(p.catch_up(1000), None);
    }

    /// A shifted port does at `t + delta` what an unshifted copy does at `t`.
    #[test]
    fn shift_moves_every_departure() {
        let mut a = DcsimPort::new(cfg()).unwrap();
        for i in 0..3 {
            a.enqueue(pk(PktKind::Data, 9064, i));
        }
        a.enqueue(pk(PktKind::Sim, 64, 9));
        let mut b = a.clone();
        let delta = 123_456_789;
        b.shift(delta);
        assert_eq!(b.next_start_ps(), a.next_start_ps().map(|t| t + delta));
        while let Some(da) = a.take() {
            let db = b.take().unwrap();
            assert_eq!(db.desc.psn, da.desc.psn);
            assert_eq!(b.end_ps(&db), a.end_ps(&da) + delta);
            assert_eq!(b.cycle_at(a.end_ps(&da) + delta), a.cycle_at(a.end_ps(&da)));
        }
        assert!(b.take().is_none());
    }

    /// The kept plan equals the arbiter's fresh answer across inputs, catch-ups and starts
    /// (also the `debug_assert` in `next_departure`; asserted here for release runs).
    #[test]
    fn kept_plan_follows_every_input() {
        let kinds = [
            PktKind::Sim,
            PktKind::SimAck,
            PktKind::DataAck,
            PktKind::Data,
        ];
        let mut p = DcsimPort::new(cfg()).unwrap();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut now = 0;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = kinds[(x % 4) as usize];
            let bytes = if k == PktKind::Data { 9064 } else { 64 };
            // Ask first so that the input meets a kept plan.
            let _ = p.next_plan();
            p.enqueue(pk(k, bytes, i));
            let fresh = p.arbiter().next_plan();
            assert_eq!(p.next_plan().map(|(d, _)| d), fresh, "input {i}");
            assert_eq!(
                p.planned_start_ps(),
                fresh.map(|d| p.ps_at(d.start)),
                "input {i}"
            );
            if (x >> 8).is_multiple_of(3) {
                now += (x >> 16) % 2000;
                while let Some(d) = p.catch_up(now) {
                    let _ = d;
                }
                if let Some((_, t)) = p.next_plan() {
                    if t <= now {
                        let mut twin = p.arbiter().clone();
                        let got = p.take_kept_plan();
                        assert_eq!(got, twin.take_next(), "start {i}");
                        assert_eq!(p.arbiter(), &twin, "start {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn rate_change_keeps_the_queue() {
        let mut p = DcsimPort::new(cfg()).unwrap();
        for i in 0..3 {
            p.enqueue(pk(PktKind::Data, 9064, i));
        }
        p.enqueue(pk(PktKind::Sim, 64, 9));
        let slow = DcsimArbiterConfig {
            clock: Clock { period_ps: 8000 },
            ..cfg()
        };
        p.set_rate(slow, 500, 700).unwrap();
        assert_eq!(p.next_start_ps(), Some(700));
        let order: Vec<u32> = p.queued().iter().map(|x| x.psn).collect();
        assert_eq!(order, [9, 0, 1, 2]);
        let d = p.take().unwrap();
        let d2 = p.take().unwrap();
        assert_eq!(p.end_ps(&d2) - p.ps_at(d2.start), 1133 * 8000);
        assert_eq!((d.desc.psn, d2.desc.psn), (9, 0));
        assert_eq!(p.stats().accepted, [1, 0, 0, 3]);
    }
}
