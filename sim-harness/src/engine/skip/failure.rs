//! A link failure is an interrupt (`../shared/papers/wormhole.md` 5.3: "rerouting of
//! existing flows (due to link failures ...)"; "the timing of link failures can also be
//! predetermined"): a failure's start and end bound every skip as known events
//! ([`Sim::known_events`]), and they also end the steady state of the partitions they touch.
//! A failure is a link down, a rate change or a lossy window (a `drop_prob` failure, a
//! `[[loss]]` entry); one in force for the whole run is the fabric itself, not an event.
//!
//! * **Detectors restart.** Every partition with a DATA port on the failed link (or, under
//!   `data_ports`, an ACK port there) begins a new unsteady period: its flows' Eq. 6 windows
//!   are emptied, like an arrival's or a completion's. Without that, a window filled before
//!   the failure still read as steady after it, and the partition was skipped at its old
//!   rate through the failure (measured on a DCSIM ring allreduce whose ToR uplink went down
//!   for 268 us: skipped from 3 us after the failure to its end, four flows 11-14 % early,
//!   6.9 % mean FCT error against a chaos floor of 1.3 %; `tests/wormhole.rs`
//!   `a_failure_restarts_the_steady_detectors`).
//! * **Lossy windows are known events.** Before session 25 only links down and rate changes
//!   were, so a skip planned before a lossy window ran through it with nothing lost
//!   ([`Sim::list_lossy_windows`]).
//! * **The memo sees healthy links only.** Its key, the flow conflict graph, says which
//!   ports flows share, not their rates or whether they are up or lossy, so a transient
//!   simulated on a failed link must not be replayed on healthy ones, nor the reverse: a
//!   partition with such a port neither looks up nor stores ([`Sim::partition_degraded`]),
//!   and a miss or lookup pending at a failure's start or end is dropped.
//!
//! dcfab's reading of 5.3 (the paper's failures reroute flows; here they also drop packets
//! and change rates, and the memo's key does not hold the links' state).

use super::*;

impl Sim {
    /// Skipping runs: each lossy window (a `drop_prob` failure, a `[[loss]]` entry) on each
    /// of its ports is listed with the failures, so its start and end bound skips as known
    /// events and are interrupts like a link's failure (before session 25 a skip planned
    /// before a window ran through it: a DCTCP tornado with a ToR uplink losing 20 % for
    /// 600 us lost nothing in the skip run, 348 packets in the full one, 17.2 % mean FCT
    /// error against a chaos floor of 2.5 %; `tests/wormhole.rs`
    /// `a_lossy_window_bounds_skips_and_restarts_the_detectors`). A window in force for the
    /// whole run is the fabric itself (not listed). The times are `loss`'s own
    /// ([`crate::engine::loss::LossState::new`]).
    /// `resolved`: the build's resolution of `s.failures` (each entry's cables).
    pub(super) fn list_lossy_windows(&mut self, s: &Scenario, resolved: &[Vec<u32>]) {
        let window = |at_us: f64, for_us: Option<f64>| {
            let at = (at_us * 1e6).round() as Time;
            let until = for_us.map(|d| ((at_us + d) * 1e6).round() as Time);
            (at, until)
        };
        let mut add: Vec<(u32, Time, Option<Time>)> = Vec::new();
        for (f, cables) in s.failures.iter().zip(resolved) {
            if f.drop_prob.is_none() {
                continue;
            }
            let (at, until) = window(f.at_us, f.for_us);
            for &c in cables {
                for p in [c, self.fabric.ports[c as usize].reverse] {
                    add.push((p, at, until));
                }
            }
        }
        for l in &s.loss {
            let (at, until) = window(l.at_us, l.for_us);
            for p in crate::engine::loss::loss_ports(&self.fabric, l).unwrap_or_default() {
                add.push((p, at, until));
            }
        }
        for (p, at, until) in add {
            let f = FailureRt {
                ports: [p, p],
                active: false,
                gbps: None,
                lossy: true,
                at,
                until,
            };
            if f.permanent() {
                continue;
            }
            let i = self.failures.len() as u32;
            self.failures.push(f);
            self.q.push(at, Comp::new(Kind::Failure, 2 * i));
            if let Some(u) = until {
                self.q.push(u, Comp::new(Kind::Failure, 2 * i + 1));
            }
        }
    }

    /// Failure ports `ports` go down, come up or change rate now (called before the change).
    /// Each partition touching them is resumed if skipped (a skip-back; a skip ends at a
    /// known failure already, so this only guards an equal-time ordering) or has its
    /// detectors reset, and its pending memo miss or lookup is dropped. No new lookup: the
    /// period after a failure's start or end begins from a state no flow start has
    /// (windows cut by losses, retransmission timers pending), which no stored transient
    /// holds (measured, with a lookup queued: on three of 500 sweep cases a memo hit just
    /// after the failure's end, up to 6.3 % mean FCT error against 0.02 % without).
    pub(in crate::engine) fn wh_failure_interrupt(&mut self, ports: &[u32]) {
        let Some(w) = self.wh.as_ref().filter(|w| w.skip) else {
            return;
        };
        let mut ids = w.parts.partitions_of_ports(ports);
        if !w.all_ports {
            ids.extend(
                w.parts
                    .ids()
                    .filter(|&id| w.parts.ack_only_ports(id).iter().any(|p| ports.contains(p))),
            );
        }
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            self.interrupt_partition(id);
            let w = self.wh.as_mut().expect("wormhole on");
            w.misses.remove(&id);
            w.lookups.remove(&id);
            w.st.failure_interrupts += 1;
        }
    }

    /// Whether a port of partition `id` (DATA or, under `data_ports`, ACK) is down or runs
    /// at another rate than the fabric's: its transients are not the memo key's.
    pub(super) fn partition_degraded(&self, id: PartitionId) -> bool {
        let Some(w) = self.wh.as_ref() else {
            return false;
        };
        if !self.failures.iter().any(|f| f.active && !f.permanent()) {
            return false;
        }
        // A failure in force from the start for the whole run (`topology.slow_core_fraction`'s
        // slowed cores) is the fabric itself, the same for every transient.
        let degraded = |p: u32| {
            self.failures
                .iter()
                .any(|f| f.active && f.ports.contains(&p) && !f.permanent())
        };
        w.parts
            .ports(id)
            .is_some_and(|ps| ps.into_iter().any(degraded))
            || (!w.all_ports && w.parts.ack_only_ports(id).into_iter().any(degraded))
    }
}
