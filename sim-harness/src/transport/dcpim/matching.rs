//! dcPIM's matching at one host (Cai et al., SIGCOMM 2022, section 3.1; the `nic::dcpim`
//! block's algorithm, distributed, with dcPIM's `k` channels): the epoch clock, shared by
//! every host (dcPIM assumes synchronized hosts), and a host's matching registers as a
//! sender and as a receiver.
//!
//! ```text
//!  epoch e (length E), data phase of the matching made in epoch e-1; meanwhile the
//!  matching of epoch e+1, `rounds` rounds of length R = round_rtts x base RTT:
//!    e*E + r*R          senders: ACCEPT the GRANTs of round r-1, then (channels left)
//!                       RTS to every receiver they have scheduled data for, asking for
//!                       the channels that data needs
//!    e*E + r*R + R/2    receivers (channels left): GRANT the RTSs of round r
//!    e*E + rounds*R     senders: ACCEPT the GRANTs of the last round
//!    (e+1)*E            every host: the matching of epoch e+1 becomes the current one
//! ```
//!
//! A round's offers are served in order, each given the channels it asks for while the
//! host has any of its `k` left (the dcPIM simulator's `handle_all_req` /
//! `handle_all_grants`): smallest remaining size first, ties to the lowest host index, in
//! the first `srpt_rounds` rounds (dcPIM's `min_rts` / `min_grant`); in a uniformly random
//! order in later rounds (PIM's random choice; the simulator's `pim_select_min_iters = 1`).
//! Packets of another epoch or of a past round are ignored (dcPIM's `if (p->iter <
//! this->iter) return`). A receiver whose ACCEPTs for an epoch would exceed `k` channels
//! (a GRANT of an earlier round accepted late) sends the sender a revoking GRANT for the
//! excess (dcPIM's `GrantsR`), which takes those channels back.

use crate::event::Time;
use rtl_models::{Lfsr32, RandomSource};
use std::collections::{BTreeMap, VecDeque};

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

/// A request or a grant: the sender's smallest remaining size towards the peer, and the
/// channels asked for (RTS) or offered (GRANT).
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
    /// Channels asked for or offered (dcPIM's `total_links`), at least 1.
    pub links: u32,
}

impl Offer {
    /// The offers of round `round` of epoch `epoch` in `q`, in the order they are served:
    /// smallest remaining size, then lowest host, when `srpt` (dcPIM's sort of `req_q` /
    /// `grants_q` in its first `pim_select_min_iters` rounds); else a uniformly random order
    /// (PIM's random choice, repeated while channels are left). Offers of other rounds are
    /// dropped (dcPIM: `if (iter != this->iter) erase`).
    pub fn order(
        q: &mut Vec<Offer>,
        epoch: u64,
        round: u32,
        srpt: bool,
        rng: &mut Lfsr32,
    ) -> Vec<Offer> {
        let mut v: Vec<Offer> = q
            .drain(..)
            .filter(|o| (o.epoch, o.round) == (epoch, round))
            .collect();
        if srpt {
            v.sort_by_key(|o| (o.rem, o.peer));
        } else {
            // Fisher-Yates from the end: position i takes one of 0 ..= i at random.
            for i in (1..v.len()).rev() {
                let j = rng.below(i as u32 + 1) as usize;
                v.swap(i, j);
            }
        }
        v
    }

    /// Queue `o` in `q`, dropping offers of an older round first.
    pub fn queue(q: &mut Vec<Offer>, o: Offer) {
        if q.first()
            .is_some_and(|b| (b.epoch, b.round) != (o.epoch, o.round))
        {
            q.clear();
        }
        q.push(o);
    }
}

/// A matched peer and the channels matched to it (dcPIM's `PIM_Vlink`, `total_links`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chan {
    /// The other host.
    pub peer: u32,
    /// Channels, each `1 / k` of the host's rate.
    pub links: u32,
}

/// The channels each offer gets, in serving order, while any of `avail` are left: each
/// offer takes what it asks for, the last one the rest (dcPIM's `handle_all_req` for
/// GRANTs, `handle_all_grants` for ACCEPTs).
pub(crate) fn allot(offers: impl IntoIterator<Item = Offer>, mut avail: u32) -> Vec<(Offer, u32)> {
    let mut out = Vec::new();
    for o in offers {
        if avail == 0 {
            break;
        }
        let l = o.links.min(avail);
        avail -= l;
        out.push((o, l));
    }
    out
}

/// Channels in `v`.
pub(crate) fn links(v: &[Chan]) -> u32 {
    v.iter().map(|c| c.links).sum()
}

/// Channels in `v` matched to `peer`.
pub(crate) fn links_to(v: &[Chan], peer: u32) -> u32 {
    v.iter().filter(|c| c.peer == peer).map(|c| c.links).sum()
}

/// `l` more channels to `peer` in `v`.
pub(crate) fn add_links(v: &mut Vec<Chan>, peer: u32, l: u32) {
    if l == 0 {
        return;
    }
    match v.iter_mut().find(|c| c.peer == peer) {
        Some(c) => c.links += l,
        None => v.push(Chan { peer, links: l }),
    }
}

/// `l` fewer channels to `peer` in `v` (a revoke); the peer leaves at zero.
pub(crate) fn sub_links(v: &mut Vec<Chan>, peer: u32, l: u32) {
    if let Some(i) = v.iter().position(|c| c.peer == peer) {
        v[i].links = v[i].links.saturating_sub(l);
        if v[i].links == 0 {
            v.remove(i);
        }
    }
}

/// A sender's token clock towards one receiver (the dcPIM simulator's per-flow
/// `token_gap` / `latest_token_sent_time`, kept per matched pair: the receiver sends its
/// tokens to the sender's smallest flow).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PeerTx {
    /// Scheduled DATAs sent to the peer and not yet answered (ACK / NACK / timeout):
    /// the tokens outstanding.
    pub inflight: u32,
    /// When the last scheduled DATA went to the peer (the last token), ps.
    pub last_ps: Time,
    /// The earliest time of the next one at the matched channels' rate, ps.
    pub next_ps: Time,
}

/// One host's dcPIM state.
#[derive(Debug, Clone)]
pub(crate) struct PimHost {
    /// Its pending epoch-step `HostTimer`, ps (`NEVER`: none).
    pub timer_at: Time,
    /// Its pending NIC wake-up `HostTimer` (channel rate, token window), ps.
    pub wake_at: Time,
    /// The step last run (a step runs once).
    pub last_step: Time,
    /// Unscheduled flows with packets to send (round robin).
    pub unsched: VecDeque<u32>,
    /// Its open scheduled flows (as sender).
    pub sched: Vec<u32>,
    /// Receivers it sends to in this epoch, with their channels (at most `k` in all).
    pub cur_tx: Vec<Chan>,
    /// Receivers matched to it for the next epoch.
    pub next_tx: Vec<Chan>,
    /// Senders matched to it in this epoch (at most `k` channels in all).
    pub cur_rx: Vec<Chan>,
    /// Senders matched to it for the next epoch.
    pub next_rx: Vec<Chan>,
    /// The GRANTs of the current round (as sender).
    pub grant_q: Vec<Offer>,
    /// The RTSs of the current round (as receiver).
    pub rts_q: Vec<Offer>,
    /// Per receiver it has sent scheduled DATA to: its token clock.
    pub peers: BTreeMap<u32, PeerTx>,
    /// The host's random source (grant / accept order after the SRPT rounds).
    pub rng: Lfsr32,
}

impl PimHost {
    /// An idle host drawing from `rng`.
    pub fn new(rng: Lfsr32) -> PimHost {
        PimHost {
            timer_at: crate::event::NEVER,
            wake_at: crate::event::NEVER,
            last_step: crate::event::NEVER,
            unsched: VecDeque::new(),
            sched: Vec::new(),
            cur_tx: Vec::new(),
            next_tx: Vec::new(),
            cur_rx: Vec::new(),
            next_rx: Vec::new(),
            grant_q: Vec::new(),
            rts_q: Vec::new(),
            peers: BTreeMap::new(),
            rng,
        }
    }

    /// Whether the host takes part in the matching (its timer runs the epoch's steps).
    pub fn busy(&self) -> bool {
        !self.sched.is_empty()
            || !self.cur_tx.is_empty()
            || !self.next_tx.is_empty()
            || !self.cur_rx.is_empty()
            || !self.next_rx.is_empty()
            || !self.rts_q.is_empty()
            || !self.grant_q.is_empty()
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
    fn offers_are_served_smallest_first_or_in_a_uniform_random_order() {
        let o = |rem, peer, round| Offer {
            rem,
            peer,
            flow: 0,
            round,
            epoch: 1,
            links: 1,
        };
        let mut rng = Lfsr32::new(7);
        let mut q = Vec::new();
        Offer::queue(&mut q, o(50, 1, 0));
        // An offer of a newer round replaces the stale ones.
        for (rem, peer) in [(10, 5), (10, 3), (9, 7)] {
            Offer::queue(&mut q, o(rem, peer, 1));
        }
        let v = Offer::order(&mut q, 1, 1, true, &mut rng);
        assert!(q.is_empty());
        assert_eq!(v.iter().map(|o| o.peer).collect::<Vec<_>>(), [7, 3, 5]);
        // Offers of another round or epoch are dropped.
        let mut q = vec![o(1, 1, 2), o(1, 2, 3)];
        assert_eq!(Offer::order(&mut q, 1, 3, true, &mut rng).len(), 1);
        // Random rounds: every offer comes first about equally often.
        let mut wins = [0u32; 4];
        for _ in 0..4000 {
            let mut q: Vec<Offer> = (0..4).map(|p| o(10 + p, p, 2)).collect();
            let v = Offer::order(&mut q, 1, 2, false, &mut rng);
            assert_eq!(v.len(), 4);
            wins[v[0].peer as usize] += 1;
        }
        assert!(wins.iter().all(|&w| (800..1200).contains(&w)), "{wins:?}");
    }

    #[test]
    fn channels_add_and_revoke_per_peer() {
        let mut v = Vec::new();
        add_links(&mut v, 3, 2);
        add_links(&mut v, 5, 1);
        add_links(&mut v, 3, 1);
        assert_eq!((links(&v), links_to(&v, 3), links_to(&v, 5)), (4, 3, 1));
        sub_links(&mut v, 3, 2);
        sub_links(&mut v, 5, 9);
        assert_eq!(v, [Chan { peer: 3, links: 1 }]);
    }
}
