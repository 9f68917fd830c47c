//! When, and for how long, a UnoCC flow may be fast-forwarded (dcfab's extension of
//! `../shared/papers/wormhole.md` 5.1 / 5.3 for `../shared/papers/uno.md` 4.1.1; issue 12).
//!
//! Eq. 6 looks at a flow's rate. UnoCC's window moves under a flat rate: Algorithm 1 adds
//! `alpha` (0.001 BDP) per RTT on unmarked ACKs, under 2 % of the window per 100 us
//! detector window, yet it doubles a window within a few ms, and above the BDP the growth
//! queues at the flow's bottleneck until a mark and an epoch's MD cut it
//! (`wormhole_moe_64` under Uno: a DP ring flow at line rate for 1.4 ms, then halved and
//! ramping back for 6 ms; skipped at line rate throughout, the iteration ended 9 % early;
//! `benches/README.md`, Wormhole sessions 22-23). So a UnoCC flow Eq. 6 finds steady is
//! classed on its window and bytes in flight over the same `l` samples ([`uno_class`]):
//!
//! * [`UnoClass::Held`]: at its cap, or its window grew by under a quarter of the additive
//!   increase its ACKs would give unopposed (MDs balance it: AIMD's equilibrium). Skipped
//!   as Eq. 6 says; the window is left as it is.
//! * [`UnoClass::Slack`]: above its BDP with room in its window its pacer or NIC does not
//!   use (line rate), and its bytes in flight flat: the growth is slack, no queue grows.
//!   Skipped as Eq. 6 says; the window takes the skipped ACKs' additive increase.
//! * [`UnoClass::Drift`]: above its BDP and window-limited: its growth is in flight, so in
//!   queues. Skipped only until that growth could reach a marking threshold
//!   ([`Sim::uno_window_limit`]): the queue at a port of its DATA path is taken as its
//!   occupancy now plus, for every such flow crossing it, the window it gained in earlier
//!   skips and `alpha` per base RTT from now. A port marking on a phantom queue is not
//!   modelled: such a flow crossing one is not skipped. The window takes the additive
//!   increase, as for `Slack`.
//! * [`UnoClass::Climbing`]: anything else (below its BDP and growing, or its bytes in
//!   flight growing: a queue filling on its path): not steady.
//!
//! A memo hit (4.4) replays a transient recorded from another partition with the same key.
//! Here the key also holds each UnoCC flow's window against its BDP
//! ([`uno_window_class`]): the ramp ahead depends on it, not on the rate. A transient that
//! ends with a flow in `Drift` is not stored (`memoize.rs`): a hit's steady part runs to
//! the next interrupt, which a drift may not.

use super::*;
use crate::transport::skip::UnoWindow;
use switch::output_port::MarkOn;

/// A UnoCC flow Eq. 6 finds steady, classed on its window (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UnoClass {
    /// At its cap, or its window balanced by MDs.
    Held,
    /// Above its BDP, growing into room its pacer or NIC does not use.
    Slack,
    /// Above its BDP, window-limited: growing into queues.
    Drift,
    /// Not steady.
    Climbing,
}

impl UnoClass {
    /// Whether its window grows through a skip (additive increase at the resume).
    pub(super) fn grows(self) -> bool {
        matches!(self, UnoClass::Slack | UnoClass::Drift)
    }
}

/// Class UnoCC flow window `u` on the detector's last `l` samples of `s` (module doc);
/// `Climbing` with fewer samples.
pub(super) fn uno_class(u: UnoWindow, s: &Sampler, l: usize) -> UnoClass {
    if u.capped {
        return UnoClass::Held;
    }
    let (Some((a, b)), Some((m, _))) = (s.window(l), s.window(l / 2)) else {
        return UnoClass::Climbing;
    };
    // Held: over the window and over its second half, the window grew by under a quarter
    // of what its ACKs would add unopposed (alpha per window of bytes sent) and fell by
    // under theta: MDs balance the increase; not one cut at the window's start followed by
    // a ramp, nor a cut under way (`E` rising epoch by epoch).
    let theta_ppm = u128::from(s.det.theta_ppm());
    let balanced = |x: &HistPoint| {
        let unopposed = u128::from(u.alpha_bytes)
            * u128::from(b.sent.saturating_sub(x.sent) * u.mtu)
            / u128::from(b.cwnd.max(1));
        u128::from(b.cwnd.saturating_sub(x.cwnd)) * 4 <= unopposed
            && u128::from(x.cwnd.saturating_sub(b.cwnd)) * 1_000_000
                < theta_ppm * u128::from(x.cwnd)
    };
    if balanced(a) && balanced(m) {
        return UnoClass::Held;
    }
    if u.ramping() {
        return UnoClass::Climbing;
    }
    let room = u.cwnd.saturating_sub(s.uno_grown);
    if room >= u.inflight + 2 * u.mtu {
        if b.inflight >= a.inflight + 2 * u.mtu {
            UnoClass::Climbing
        } else {
            UnoClass::Slack
        }
    } else {
        UnoClass::Drift
    }
}

impl Sim {
    /// Flow `f`'s class now ([`uno_class`]); `None` in a run whose transport does not ramp
    /// slowly, or for a flow that is not a UnoCC sender.
    pub(super) fn uno_class_of(&self, f: u32) -> Option<UnoClass> {
        let w = self.wh.as_ref().filter(|w| w.slow_ramp)?;
        let u = self.transport.uno_window(f)?;
        let s = w.active.get(&f)?;
        Some(uno_class(u, s, w.samples))
    }

    /// In a run whose transport ramps slowly, `flows`' ECN-marked ACKs and losses so far,
    /// summed (0 otherwise).
    pub(super) fn uno_signals(&self, flows: &[u32]) -> u64 {
        if !self.wh.as_ref().is_some_and(|w| w.slow_ramp) {
            return 0;
        }
        flows
            .iter()
            .filter_map(|&f| self.transport.skip_view(&self.flows, f))
            .map(|v| v.ecn + v.losses)
            .sum()
    }

    /// The latest time a skip of `flows` (steady by Eq. 6) may run to before a
    /// [`UnoClass::Drift`] window's growth could draw a mark (module doc): `NEVER` when none
    /// drifts, `self.now` when one may be marked at once or crosses a phantom-marking port.
    pub(super) fn uno_window_limit(&self, flows: &[SteadyFlow]) -> u64 {
        let Some(w) = self.wh.as_ref().filter(|w| w.slow_ramp) else {
            return NEVER;
        };
        // Per port of a drifting flow's DATA path: the window it gained in earlier skips
        // (bytes, taken for queue) and its growth from now (bytes per ps).
        let mut per_port: BTreeMap<u32, (u64, f64)> = BTreeMap::new();
        for f in flows {
            let (Some(u), Some(s)) = (self.transport.uno_window(f.flow), w.active.get(&f.flow))
            else {
                continue;
            };
            if uno_class(u, s, w.samples) != UnoClass::Drift {
                continue;
            }
            let queued = s.uno_grown;
            let growth = u.alpha_bytes as f64 / u.base_rtt_ps.max(1) as f64;
            for &p in w.parts.path(f.flow).unwrap_or_default().iter() {
                let e = per_port.entry(p).or_default();
                e.0 += queued;
                e.1 += growth;
            }
        }
        let mut limit = NEVER;
        for (p, (queued, growth)) in per_port {
            let PortDriver::Switch(ctl, _) = &self.ports[p as usize].kind else {
                continue;
            };
            let cfg = ctl.config();
            if cfg.phantom.is_some_and(|ph| ph.mark_on != MarkOn::Physical) {
                return self.now;
            }
            let Some(red) = cfg.ecn else { continue };
            let Some(room) = red
                .kmin_bytes
                .checked_sub(ctl.occupancy_bytes().saturating_add(queued))
                .filter(|&r| r > 0)
            else {
                return self.now;
            };
            let t = (room as f64 / growth.max(f64::MIN_POSITIVE)).min(HORIZON_PS as f64) as u64;
            limit = limit.min(self.now.saturating_add(t));
        }
        limit
    }
}

/// A UnoCC window's memo-key class: 0 at its cap, else 1 + its window in sixteenths of its
/// BDP (up to 2 BDP).
pub(super) fn uno_window_class(u: UnoWindow) -> u32 {
    if u.capped {
        0
    } else {
        1 + (u.cwnd.saturating_mul(16) / u.bdp.max(1)).min(32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 4096;
    const BDP: u64 = 154_396;
    const L: usize = 20;

    /// A UnoCC window now (`wormhole_moe_64`'s: BDP 154 KB, alpha 155 B, RTT 12.35 us).
    fn window(cwnd: u64, inflight: u64) -> UnoWindow {
        UnoWindow {
            cwnd,
            bdp: BDP,
            capped: false,
            alpha_bytes: 155,
            base_rtt_ps: 12_351_000,
            inflight,
            mtu: MTU,
        }
    }

    /// A sampler with `L + 1` samples at 97 Gb/s (15 packets per 5 us sample), sample `k`
    /// holding window `cwnd(k)` and bytes in flight `inflight(k)`.
    fn sampler(cwnd: impl Fn(u64) -> u64, inflight: impl Fn(u64) -> u64) -> Sampler {
        Sampler {
            hist: (0..=L as u64)
                .map(|k| HistPoint {
                    sent: 15 * k,
                    newest: None,
                    losses: 0,
                    ecn: 0,
                    port_tx: (0, 0),
                    inflight: inflight(k),
                    cwnd: cwnd(k),
                })
                .collect(),
            ..Sampler::new(SteadyDetector::new(0.1, L).unwrap())
        }
    }

    fn class(s: &Sampler) -> UnoClass {
        let b = s.hist.back().unwrap();
        uno_class(window(b.cwnd, b.inflight), s, L)
    }

    /// AIMD's equilibrium (MDs balance the increase) and a window at its cap are held; a
    /// window below its BDP climbing by its additive increase (about 60 B per sample at
    /// 97 Gb/s) is not steady, nor is one cut at the window's start and climbing since (a
    /// window's net change alone took it for balanced), nor one being cut (`E` rising).
    #[test]
    fn held_only_when_mds_balance_the_increase() {
        let zigzag = sampler(|k| 120_000 + (k % 2) * 2_000, |_| 110_000);
        assert_eq!(class(&zigzag), UnoClass::Held);
        let mut capped = sampler(|k| 120_000 + 60 * k, |_| 110_000);
        assert_eq!(class(&capped), UnoClass::Climbing);
        let b = capped.hist.back().unwrap();
        let mut u = window(b.cwnd, b.inflight);
        u.capped = true;
        assert_eq!(uno_class(u, &capped, L), UnoClass::Held);
        let cut_then_ramp = sampler(
            |k| if k == 0 { 150_000 } else { 80_000 + 60 * k },
            |_| 70_000,
        );
        assert_eq!(class(&cut_then_ramp), UnoClass::Climbing);
        let cutting = sampler(|k| 160_000 - 1_200 * k, |_| 130_000);
        assert_eq!(class(&cutting), UnoClass::Climbing);
        // Too few samples: not steady.
        capped.hist.pop_front();
        assert_eq!(class(&zigzag), UnoClass::Held);
        assert_eq!(class(&capped), UnoClass::Climbing);
    }

    /// Above its BDP: growing into room its NIC does not use, bytes in flight flat, is
    /// `Slack`; with its bytes in flight growing (a queue filling on its path, the
    /// `wormhole_moe_64` cut) it is not steady; window-limited, its growth is in queues:
    /// `Drift`. A window grown in skips (not in flight: the queues were frozen) is not
    /// taken for room.
    #[test]
    fn above_the_bdp_slack_drift_or_a_queue_filling() {
        let slack = sampler(|k| 170_000 + 60 * k, |_| 73_728);
        assert_eq!(class(&slack), UnoClass::Slack);
        let filling = sampler(|k| 170_000 + 60 * k, |k| 73_728 + 1_000 * k);
        assert_eq!(class(&filling), UnoClass::Climbing);
        let drift = sampler(|k| 160_000 + 60 * k, |k| 159_000 + 60 * k);
        assert_eq!(class(&drift), UnoClass::Drift);
        let mut grown = sampler(|k| 180_000 + 60 * k, |_| 160_000);
        assert_eq!(class(&grown), UnoClass::Slack);
        grown.uno_grown = 20_000;
        assert_eq!(class(&grown), UnoClass::Drift);
        assert!(UnoClass::Slack.grows() && UnoClass::Drift.grows());
        assert!(!UnoClass::Held.grows() && !UnoClass::Climbing.grows());
    }

    /// The memo key's window class: the cap apart, sixteenths of the BDP up to two BDPs.
    #[test]
    fn window_classes() {
        let mut u = window(BDP, 0);
        assert_eq!(uno_window_class(u), 17);
        u.cwnd = BDP / 2;
        assert_eq!(uno_window_class(u), 9);
        u.cwnd = 10 * BDP;
        assert_eq!(uno_window_class(u), 33);
        u.capped = true;
        assert_eq!(uno_window_class(u), 0);
    }
}
