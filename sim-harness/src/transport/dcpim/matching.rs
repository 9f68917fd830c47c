//! dcPIM's matching at one host (Cai et al., SIGCOMM 2022, section 3.1; the `nic::dcpim`
//! block's algorithm, distributed): the epoch clock, shared by every host (dcPIM assumes
//! synchronized hosts), and a host's matching registers as a sender and as a receiver.
//!
//! ```text
//!  epoch e (length E), data phase of the matching made in epoch e-1; meanwhile the
//!  matching of epoch e+1, `rounds` rounds of length R = round_rtts x base RTT:
//!    e*E + r*R          senders: ACCEPT the best GRANT of round r-1, then (unmatched)
//!                       RTS to every receiver they have scheduled data for
//!    e*E + r*R + R/2    receivers (unmatched): GRANT the best RTS of round r
//!    e*E + rounds*R     senders: ACCEPT the best GRANT of the last round
//!    (e+1)*E            every host: the matching of epoch e+1 becomes the current one
//! ```
//!
//! "Best" is dcPIM's `min_rts` / `min_grant`: the smallest remaining size, ties to the
//! lowest host index, in the first `srpt_rounds` rounds; in later rounds a uniformly random
//! one (PIM's random choice; the dcPIM simulator's `pim_select_min_iters = 1`). Packets of another epoch or of a past round are ignored (dcPIM's
//! `if (p->iter < this->iter) return`). A receiver that gets a second ACCEPT for an epoch
//! (its GRANT of an earlier round was accepted late) sends that sender a revoking GRANT
//! (dcPIM's `GrantsR`), which unmatches it.

use crate::event::Time;
use rtl_models::{Lfsr32, RandomSource};
use std::collections::VecDeque;

/// No host.
pub(crate) const NONE: u32 = u32::MAX;

/// The epoch clock (ps, from time 0).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EpochClock {
    /// Epoch length E.
    pub epoch_ps: u64,
    /// Round length R (even).
    pub round_ps: u64,
    /// Rounds per epoch.
    pub rounds: u32,
}

/// What a host does at a step of the epoch clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Epoch boundary (with the last round's accepts first when they fall on it).
    Boundary,
    /// Receivers grant round `r`.
    Grant(u32),
    /// Senders accept round `r` (and request round `r + 1` if there is one).
    Accept(u32),
}

impl EpochClock {
    fn half(&self) -> u64 {
        self.round_ps / 2
    }

    /// The epoch `t` is in.
    #[inline]
    pub fn epoch(&self, t: Time) -> u64 {
        t / self.epoch_ps
    }

    /// Whether the last round's accepts fall on the next epoch boundary.
    pub fn folded(&self) -> bool {
        u64::from(self.rounds) * self.round_ps >= self.epoch_ps
    }

    /// The step at `t`, if `t` is one.
    pub fn step_at(&self, t: Time) -> Option<Step> {
        let o = t % self.epoch_ps;
        if o == 0 {
            return Some(Step::Boundary);
        }
        if !o.is_multiple_of(self.half()) {
            return None;
        }
        let k = o / self.half();
        if k > 2 * u64::from(self.rounds) {
            return None;
        }
        Some(if !k.is_multiple_of(2) {
            Step::Grant(((k - 1) / 2) as u32)
        } else {
            Step::Accept((k / 2 - 1) as u32)
        })
    }

    /// The first step strictly after `t`.
    pub fn next_step(&self, t: Time) -> Time {
        let e = self.epoch(t);
        let o = t % self.epoch_ps;
        let k = o / self.half() + 1;
        if k <= 2 * u64::from(self.rounds) && k * self.half() < self.epoch_ps {
            e * self.epoch_ps + k * self.half()
        } else {
            (e + 1) * self.epoch_ps
        }
    }

    /// Whether an RTS of round `r` for the epoch after `t`'s may still be granted at `t`
    /// (before the round's grant step).
    pub fn rts_open(&self, t: Time, r: u32) -> bool {
        let start = self.epoch(t) * self.epoch_ps + u64::from(r) * self.round_ps;
        r < self.rounds && (start..start + self.half()).contains(&t)
    }

    /// Whether a GRANT of round `r` for the epoch after `t`'s may still be accepted at `t`
    /// (before the round's accept step).
    pub fn grant_open(&self, t: Time, r: u32) -> bool {
        let start = self.epoch(t) * self.epoch_ps + u64::from(r) * self.round_ps;
        r < self.rounds && (start..start + self.round_ps).contains(&t)
    }
}

/// A request or a grant: the sender's smallest remaining size towards the peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offer {
    /// Remaining packets (the SRPT key).
    pub rem: u32,
    /// The other host.
    pub peer: u32,
    /// The flow it is for.
    pub flow: u32,
    /// Round.
    pub round: u32,
    /// Epoch it matches for.
    pub epoch: u64,
}

impl Offer {
    /// Keep the better of `slot` and `o` (smaller remaining size, then lower host).
    pub fn keep_best(slot: &mut Option<Offer>, o: Offer) {
        match slot {
            Some(b)
                if (b.epoch, b.round) == (o.epoch, o.round)
                    && (b.rem, b.peer) <= (o.rem, o.peer) => {}
            _ => *slot = Some(o),
        }
    }

    /// Offer `o` of a round: the smallest one kept when `srpt`, else one of the round's
    /// offers uniformly at random (reservoir sampling; `seen` counts the round's offers).
    pub fn keep(slot: &mut Option<Offer>, seen: &mut u32, o: Offer, srpt: bool, rng: &mut Lfsr32) {
        let same = matches!(slot, Some(b) if (b.epoch, b.round) == (o.epoch, o.round));
        if !same {
            *slot = Some(o);
            *seen = 1;
            return;
        }
        *seen += 1;
        if srpt {
            Offer::keep_best(slot, o);
        } else if rng.below(*seen) == 0 {
            *slot = Some(o);
        }
    }
}

/// One host's dcPIM state.
#[derive(Debug, Clone)]
pub(crate) struct PimHost {
    /// Its pending `HostTimer`, ps (`NEVER`: none).
    pub timer_at: Time,
    /// The step last run (a step runs once).
    pub last_step: Time,
    /// Unscheduled flows with packets to send (round robin).
    pub unsched: VecDeque<u32>,
    /// Its open scheduled flows (as sender).
    pub sched: Vec<u32>,
    /// Receiver it sends to in this epoch.
    pub cur_dst: u32,
    /// Receiver it is matched to for the next epoch.
    pub next_dst: u32,
    /// Sender matched to it in this epoch.
    pub cur_src: u32,
    /// Sender matched to it for the next epoch.
    pub next_src: u32,
    /// The best GRANT of the current round (as sender).
    pub best_grant: Option<Offer>,
    /// The best RTS of the current round (as receiver).
    pub best_rts: Option<Offer>,
    /// GRANTs of the current round seen (for the random choice).
    pub grants_seen: u32,
    /// RTSs of the current round seen.
    pub rts_seen: u32,
    /// The host's random source (grant / accept choice after the SRPT rounds).
    pub rng: Lfsr32,
}

impl PimHost {
    /// An idle host drawing from `rng`.
    pub fn new(rng: Lfsr32) -> PimHost {
        PimHost {
            timer_at: crate::event::NEVER,
            last_step: crate::event::NEVER,
            unsched: VecDeque::new(),
            sched: Vec::new(),
            cur_dst: NONE,
            next_dst: NONE,
            cur_src: NONE,
            next_src: NONE,
            best_grant: None,
            best_rts: None,
            grants_seen: 0,
            rts_seen: 0,
            rng,
        }
    }

    /// Whether the host takes part in the matching (its timer runs the epoch's steps).
    pub fn busy(&self) -> bool {
        !self.sched.is_empty()
            || self.cur_dst != NONE
            || self.next_dst != NONE
            || self.cur_src != NONE
            || self.next_src != NONE
            || self.best_rts.is_some()
            || self.best_grant.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_the_rounds_and_fold_onto_the_boundary() {
        // R = 10, 4 rounds, E = 40: the last accepts fall on the boundary.
        let c = EpochClock {
            epoch_ps: 40,
            round_ps: 10,
            rounds: 4,
        };
        assert!(c.folded());
        let mut t = 0;
        let mut steps = vec![c.step_at(0).unwrap()];
        while t < 40 {
            t = c.next_step(t);
            steps.push(c.step_at(t).unwrap());
        }
        use Step::*;
        assert_eq!(
            steps,
            [
                Boundary,
                Grant(0),
                Accept(0),
                Grant(1),
                Accept(1),
                Grant(2),
                Accept(2),
                Grant(3),
                Boundary
            ]
        );
        assert_eq!(c.step_at(7), None);
        assert!(c.rts_open(40 + 14, 1) && !c.rts_open(40 + 15, 1) && !c.rts_open(40 + 9, 1));
        assert!(c.grant_open(40 + 39, 3) && !c.grant_open(40 + 39, 2));
        // E = 60: the last accepts have their own step, then idle to the boundary.
        let c = EpochClock { epoch_ps: 60, ..c };
        assert!(!c.folded());
        assert_eq!(c.step_at(40), Some(Accept(3)));
        assert_eq!(c.next_step(40), 60);
        assert_eq!(c.next_step(45), 60);
    }

    #[test]
    fn the_best_offer_is_the_smallest_then_lowest_host_of_its_round() {
        let o = |rem, peer, round| Offer {
            rem,
            peer,
            flow: 0,
            round,
            epoch: 1,
        };
        let mut slot = None;
        Offer::keep_best(&mut slot, o(10, 3, 0));
        Offer::keep_best(&mut slot, o(10, 5, 0));
        assert_eq!(slot.unwrap().peer, 3);
        Offer::keep_best(&mut slot, o(9, 7, 0));
        assert_eq!(slot.unwrap().peer, 7);
        // An offer of a newer round replaces a stale one.
        Offer::keep_best(&mut slot, o(50, 1, 1));
        assert_eq!((slot.unwrap().peer, slot.unwrap().round), (1, 1));
        // Random rounds: every offer of the round is chosen about equally often.
        let mut rng = Lfsr32::new(7);
        let mut wins = [0u32; 4];
        for _ in 0..4000 {
            let (mut slot, mut seen) = (None, 0);
            for peer in 0..4 {
                Offer::keep(&mut slot, &mut seen, o(10 + peer, peer, 2), false, &mut rng);
            }
            assert_eq!(seen, 4);
            wins[slot.unwrap().peer as usize] += 1;
        }
        assert!(wins.iter().all(|&w| (800..1200).contains(&w)), "{wins:?}");
        // SRPT rounds keep the smallest.
        let (mut slot, mut seen) = (None, 0);
        for peer in [3, 1, 2] {
            Offer::keep(&mut slot, &mut seen, o(10 + peer, peer, 0), true, &mut rng);
        }
        assert_eq!(slot.unwrap().peer, 1);
    }
}
