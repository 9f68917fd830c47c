//! Fast-forward arithmetic for a steady partition (Wormhole sections 5.3, 6.2 and 6.3).
//!
//! When every flow of a partition is steady (each has an Eq. 7 rate estimate `R^`), the
//! partition jumps to its **next interrupt** (5.3): the earliest of
//!
//! * a flow's completion at its estimated rate: `now + ceil(skippable x 8 / R^)`, where
//!   `skippable = remaining - reserve` (the engine may keep a `reserve` of bytes, e.g. the
//!   bytes in flight, to finish at packet level), and
//! * a known future event touching the partition (flow arrival on one of its ports, failure,
//!   reroute: the "predetermined interrupt-type events" of 5.3),
//! * or, with neither, a `horizon` (6.3: "a relatively large time if there are no
//!   predetermined events").
//!
//! [`plan_skip`] returns the target time and the bytes every flow sends meanwhile,
//! `min(floor(R^ x dt / 8), skippable)` (the completing flow sends exactly its `skippable`
//! bytes). The engine then freezes the partition's queues at their occupancy (6.2), shifts the
//! partition's pending events by `until - from` (6.3), and advances each flow's byte counts,
//! sequence numbers and per-flow block state by the given bytes.
//!
//! **Skip-back** (6.3): an interrupt not known in advance may arrive at `t2` while the
//! partition has been skipped to `t1 > t2`. Since none of the partition's events between
//! `t2` and `t1` has run, its state at `t2` is the state at the skip start advanced by the
//! bytes of `t2 - from` at the same rates: [`skip_back`] gives those bytes, the bytes to take
//! back from the advance already applied, and the shift to undo (`t1 - t2`).
//!
//! Rates are bits per second, times ps, sizes bytes; all arithmetic is exact integer (`u128`
//! intermediates).

use super::partition::FlowId;

/// ps per second times bits per byte: bytes = rate_bps x dt_ps / BITS_PS.
const BITS_PS: u128 = 8 * 1_000_000_000_000;

/// One steady flow of the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SteadyFlow {
    /// The flow.
    pub flow: FlowId,
    /// Bytes not yet sent.
    pub remaining_bytes: u64,
    /// Eq. 7 rate estimate `R^`, bits per second (0: the flow does not complete by rate).
    pub rate_bps: u64,
    /// Bytes kept for packet-level simulation after the skip (at most `remaining_bytes`).
    pub reserve_bytes: u64,
}

impl SteadyFlow {
    /// Bytes the skip may send: `remaining - reserve` (0 if the reserve covers all).
    pub fn skippable(&self) -> u64 {
        self.remaining_bytes.saturating_sub(self.reserve_bytes)
    }
}

/// A known future event that touches the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownEvent {
    /// When, ps.
    pub at_ps: u64,
    /// The engine's id for it (flow arrival, failure, reroute).
    pub id: u64,
}

/// Why the skip stops where it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// This flow sends its last skippable byte.
    Completion(FlowId),
    /// This known event.
    Known(u64),
    /// Nothing earlier: the horizon.
    Horizon,
}

/// A fast-forward of one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipPlan {
    /// Skip start, ps.
    pub from_ps: u64,
    /// Skip target, ps (`> from_ps`).
    pub until_ps: u64,
    /// The interrupt at `until_ps`.
    pub cause: Interrupt,
    /// Bytes every flow sends during the skip, in the input order.
    pub advance: Vec<(FlowId, u64)>,
}

impl SkipPlan {
    /// The time shift the partition's pending events get: `until - from`.
    pub fn shift_ps(&self) -> u64 {
        self.until_ps - self.from_ps
    }
}

/// A call the engine should not make.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkipError {
    /// A known event earlier than the skip start.
    #[error("known event {id}: at {at_ps} ps, before the skip start {now_ps} ps")]
    PastEvent {
        /// The event.
        id: u64,
        /// Its time.
        at_ps: u64,
        /// The skip start.
        now_ps: u64,
    },
    /// An unforeseen interrupt earlier than the skip start.
    #[error("interrupt at {at_ps} ps: before the skip start {from_ps} ps")]
    BeforeSkip {
        /// The interrupt time.
        at_ps: u64,
        /// The skip start.
        from_ps: u64,
    },
    /// `skip_back` given flows that are not the plan's.
    #[error("flow {0}: not in the skip plan")]
    UnknownFlow(FlowId),
    /// `skip_back` given a flow whose rate or bytes differ from the plan's (it would send
    /// more by the interrupt than the plan gave it by the skip target).
    #[error("flow {0}: its rate or bytes differ from the skip plan's")]
    Mismatch(FlowId),
}

/// Bytes sent at `rate_bps` in `dt_ps`, rounded down (saturating at `u64::MAX`).
pub fn bytes_in(rate_bps: u64, dt_ps: u64) -> u64 {
    (rate_bps as u128 * dt_ps as u128 / BITS_PS).min(u64::MAX as u128) as u64
}

/// Time to send `bytes` at `rate_bps`, ps, rounded up; `None` at rate 0 (or beyond `u64`).
pub fn time_for(bytes: u64, rate_bps: u64) -> Option<u64> {
    if rate_bps == 0 {
        return if bytes == 0 { Some(0) } else { None };
    }
    u64::try_from((bytes as u128 * BITS_PS).div_ceil(rate_bps as u128)).ok()
}

/// The next interrupt of a steady partition at `now_ps` and the bytes each flow sends until
/// then. `None` when there is nothing to skip (a flow has no skippable byte, or the earliest
/// interrupt is `now_ps`, or no interrupt and no horizon). Ties go to completions (smallest
/// flow id first), then known events (smallest id), then the horizon.
pub fn plan_skip(
    now_ps: u64,
    flows: &[SteadyFlow],
    known: &[KnownEvent],
    horizon_ps: Option<u64>,
) -> Result<Option<SkipPlan>, SkipError> {
    if let Some(e) = known.iter().find(|e| e.at_ps < now_ps) {
        return Err(SkipError::PastEvent {
            id: e.id,
            at_ps: e.at_ps,
            now_ps,
        });
    }
    // (time, rank, id): rank 0 completion, 1 known, 2 horizon.
    let mut best: Option<(u64, u8, u64)> = None;
    let mut consider = |c: (u64, u8, u64)| {
        if best.is_none_or(|b| c < b) {
            best = Some(c);
        }
    };
    for f in flows {
        if let Some(dt) = time_for(f.skippable(), f.rate_bps) {
            consider((now_ps.saturating_add(dt), 0, f.flow as u64));
        }
    }
    for e in known {
        consider((e.at_ps, 1, e.id));
    }
    if let Some(h) = horizon_ps {
        consider((h, 2, 0));
    }
    let Some((until_ps, rank, id)) = best else {
        return Ok(None);
    };
    if until_ps <= now_ps {
        return Ok(None);
    }
    let cause = match rank {
        0 => Interrupt::Completion(id as FlowId),
        1 => Interrupt::Known(id),
        _ => Interrupt::Horizon,
    };
    let advance = advance_over(flows, until_ps - now_ps);
    Ok(Some(SkipPlan {
        from_ps: now_ps,
        until_ps,
        cause,
        advance,
    }))
}

fn advance_over(flows: &[SteadyFlow], dt_ps: u64) -> Vec<(FlowId, u64)> {
    flows
        .iter()
        .map(|f| (f.flow, bytes_in(f.rate_bps, dt_ps).min(f.skippable())))
        .collect()
}

/// What to do about an unforeseen interrupt during a skip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipBack {
    /// The interrupt is at or after the skip target: nothing to undo.
    NotNeeded,
    /// Roll the partition back to `to_ps`.
    Rollback {
        /// The interrupt time: the partition's new clock.
        to_ps: u64,
        /// Shift to subtract from the partition's pending events: `until - to`.
        unshift_ps: u64,
        /// Bytes each flow sends from the skip start to `to_ps` (replaces the plan's advance).
        advance: Vec<(FlowId, u64)>,
        /// Bytes to take back from each flow's already-applied advance (plan - new).
        undo: Vec<(FlowId, u64)>,
    },
}

/// Skip-back (6.3): the partition was skipped by `plan` with these `flows` (as they were at
/// the skip start) and an interrupt not known in advance arrives at `at_ps`.
pub fn skip_back(plan: &SkipPlan, flows: &[SteadyFlow], at_ps: u64) -> Result<SkipBack, SkipError> {
    if at_ps < plan.from_ps {
        return Err(SkipError::BeforeSkip {
            at_ps,
            from_ps: plan.from_ps,
        });
    }
    if at_ps >= plan.until_ps {
        return Ok(SkipBack::NotNeeded);
    }
    let advance = advance_over(flows, at_ps - plan.from_ps);
    let mut undo = Vec::with_capacity(advance.len());
    for &(flow, bytes) in &advance {
        let planned = plan
            .advance
            .iter()
            .find(|(f, _)| *f == flow)
            .ok_or(SkipError::UnknownFlow(flow))?
            .1;
        let back = planned
            .checked_sub(bytes)
            .ok_or(SkipError::Mismatch(flow))?;
        undo.push((flow, back));
    }
    Ok(SkipBack::Rollback {
        to_ps: at_ps,
        unshift_ps: plan.until_ps - at_ps,
        advance,
        undo,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn f(flow: FlowId, remaining: u64, gbps: u64) -> SteadyFlow {
        SteadyFlow {
            flow,
            remaining_bytes: remaining,
            rate_bps: gbps * 1_000_000_000,
            reserve_bytes: 0,
        }
    }

    #[test]
    fn earliest_completion_by_hand() {
        // 100 Gbit/s = 12.5 B/ns: 1 MB takes 80 us; 50 Gbit/s: 2 MB takes 320 us.
        let flows = [f(1, 1_000_000, 100), f(2, 2_000_000, 50)];
        let p = plan_skip(1_000, &flows, &[], None).unwrap().unwrap();
        assert_eq!(p.until_ps, 1_000 + 80_000_000);
        assert_eq!(p.cause, Interrupt::Completion(1));
        // Flow 2 sends 80 us x 6.25 B/ns = 500 000 B.
        assert_eq!(p.advance, vec![(1, 1_000_000), (2, 500_000)]);
        assert_eq!(p.shift_ps(), 80_000_000);
    }

    #[test]
    fn known_event_horizon_and_reserve() {
        let flows = [f(1, 1_000_000, 100), f(2, 2_000_000, 50)];
        let ev = [KnownEvent {
            at_ps: 40_000_000,
            id: 7,
        }];
        let p = plan_skip(0, &flows, &ev, Some(1 << 40)).unwrap().unwrap();
        assert_eq!((p.until_ps, p.cause), (40_000_000, Interrupt::Known(7)));
        assert_eq!(p.advance, vec![(1, 500_000), (2, 250_000)]);
        // Horizon when no flow completes by rate and no event is known.
        let p = plan_skip(0, &[f(3, 10, 0)], &[], Some(5_000))
            .unwrap()
            .unwrap();
        assert_eq!((p.until_ps, p.cause), (5_000, Interrupt::Horizon));
        assert_eq!(p.advance, vec![(3, 0)]);
        assert_eq!(plan_skip(0, &[f(3, 10, 0)], &[], None), Ok(None));
        // A reserve of 200 000 B: flow 1 skips 800 000 B in 64 us.
        let mut r = f(1, 1_000_000, 100);
        r.reserve_bytes = 200_000;
        let p = plan_skip(0, &[r], &[], None).unwrap().unwrap();
        assert_eq!((p.until_ps, p.advance[0].1), (64_000_000, 800_000));
        // Nothing skippable: no plan.
        r.reserve_bytes = 2_000_000;
        assert_eq!(plan_skip(0, &[r], &[], Some(99)), Ok(None));
        // An event in the past is a caller error naming it.
        let e = plan_skip(10, &flows, &[KnownEvent { at_ps: 5, id: 3 }], None).unwrap_err();
        assert!(e.to_string().starts_with("known event 3"));
    }

    #[test]
    fn skip_back_by_hand() {
        let flows = [f(1, 1_000_000, 100), f(2, 2_000_000, 50)];
        let p = plan_skip(1_000, &flows, &[], None).unwrap().unwrap();
        // Unforeseen failure at 1 000 + 20 us: 250 000 B and 125 000 B sent by then.
        let b = skip_back(&p, &flows, 1_000 + 20_000_000).unwrap();
        assert_eq!(
            b,
            SkipBack::Rollback {
                to_ps: 20_001_000,
                unshift_ps: 60_000_000,
                advance: vec![(1, 250_000), (2, 125_000)],
                undo: vec![(1, 750_000), (2, 375_000)],
            }
        );
        assert_eq!(skip_back(&p, &flows, p.until_ps), Ok(SkipBack::NotNeeded));
        assert!(skip_back(&p, &flows, 999).is_err());
        assert_eq!(
            skip_back(&p, &[f(9, 1, 1)], 2_000),
            Err(SkipError::UnknownFlow(9))
        );
        let faster = [f(1, 1_000_000, 100), f(2, 2_000_000, 400)];
        assert_eq!(
            skip_back(&p, &faster, 1_000 + 79_000_000),
            Err(SkipError::Mismatch(2))
        );
    }

    proptest! {
        /// The plan never sends more than a flow's skippable bytes, the completing flow sends
        /// exactly them, and no flow could have completed earlier; a skip-back to t then a
        /// skip over [t, until) adds up to no more than the original advance.
        #[test]
        fn plan_invariants(
            now in 0u64..1_000_000,
            spec in prop::collection::vec((1u64..50_000_000, 0u64..800, 0u64..1_000), 1..8),
            known in prop::collection::vec(0u64..10_000_000_000, 0..3),
            back in 0u64..=1000,
        ) {
            let flows: Vec<SteadyFlow> = spec.iter().enumerate().map(|(i, &(rem, gbps, res))| SteadyFlow {
                flow: i as FlowId, remaining_bytes: rem, rate_bps: gbps * 1_000_000_000, reserve_bytes: res,
            }).collect();
            let known: Vec<KnownEvent> = known.iter().enumerate()
                .map(|(i, &t)| KnownEvent { at_ps: now + t, id: i as u64 }).collect();
            let Some(p) = plan_skip(now, &flows, &known, Some(now + (1 << 42))).unwrap() else {
                prop_assert!(flows.iter().any(|f| f.skippable() == 0)
                    || known.iter().any(|e| e.at_ps == now));
                return Ok(());
            };
            prop_assert!(p.until_ps > now);
            for (fl, (id, bytes)) in flows.iter().zip(&p.advance) {
                prop_assert_eq!(fl.flow, *id);
                prop_assert!(*bytes <= fl.skippable());
                if let Some(dt) = time_for(fl.skippable(), fl.rate_bps) {
                    prop_assert!(now + dt >= p.until_ps);
                }
            }
            if let Interrupt::Completion(c) = p.cause {
                prop_assert_eq!(p.advance[c as usize].1, flows[c as usize].skippable());
            }
            for e in &known {
                prop_assert!(e.at_ps >= p.until_ps);
            }
            let t = p.from_ps + (p.until_ps - p.from_ps) * back / 1000;
            match skip_back(&p, &flows, t).unwrap() {
                SkipBack::NotNeeded => prop_assert_eq!(t, p.until_ps),
                SkipBack::Rollback { to_ps, unshift_ps, advance, undo } => {
                    prop_assert_eq!(to_ps + unshift_ps, p.until_ps);
                    for ((a, u), (_, planned)) in advance.iter().zip(&undo).zip(&p.advance) {
                        prop_assert_eq!(a.1 + u.1, *planned);
                    }
                }
            }
        }
    }
}
