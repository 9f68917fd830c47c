//! dcPIM's matching in the fabric (Cai et al., SIGCOMM 2022, section 3; DCSIM 4.1's
//! baseline): each host, on the shared epoch clock, runs the rounds of RTS (sender), GRANT
//! (receiver) and ACCEPT (sender) for the next epoch as real control packets, SRPT order for
//! the first `srpt_rounds` rounds then random, over `k` channels per host; the matching made
//! during epoch e is used in epoch e+1.

use super::matching::{add_links, allot, links, links_to, sub_links, Offer, Step};
use super::state::pim;
use crate::event::{Kind, NEVER};
use crate::packet::{Packet, PktKind};
use crate::transport::ctx::Cx;
use rtl_models::RandomSource;
use std::collections::BTreeMap;

/// Remaining sizes carried in a control packet are capped here (20 bits).
const REM_MAX: u32 = (1 << 20) - 1;

/// `psn` of a matching packet.
#[inline]
fn pack(rem: u32, links: u32, round: u32) -> u32 {
    rem.min(REM_MAX) << 12 | (links & 0x3f) << 6 | (round & 0x3f)
}

/// Arm host `h`'s timer at its next epoch step while it takes part in the matching
/// (`now_too`: the step at now counts, if it has not run).
pub(super) fn arm_host(cx: &mut Cx, h: u32, now_too: bool) {
    let p = cx.parts();
    let now = p.now;
    let st = pim(p.transport);
    let hd = &mut st.hosts[h as usize];
    if !hd.busy() {
        return;
    }
    let at = if now_too && hd.last_step != now && st.clock.step_at(now).is_some() {
        now
    } else {
        st.clock.next_step(now)
    };
    if at < hd.timer_at || hd.timer_at < now {
        hd.timer_at = at;
        cx.arm(at, Kind::HostTimer, h);
    }
}

/// A matching packet from host `h` to `dst`.
#[allow(clippy::too_many_arguments)]
fn ctrl(
    cx: &mut Cx,
    kind: PktKind,
    h: u32,
    dst: u32,
    flow: u32,
    epoch: u64,
    psn: u32,
    revoke: bool,
) {
    let p = cx.parts();
    let ev = p.flows[flow as usize].rng.next_u32() as u16;
    let pk = Packet {
        flow,
        src: h,
        dst,
        psn,
        cum_ack: epoch as u32,
        bytes: p.hdr_bytes,
        ev,
        kind,
        ecn: revoke,
    };
    cx.send_ctrl(h, pk);
}

/// Host `h`'s `HostTimer`: the epoch step now, and / or a NIC wake-up (a channel's rate
/// or its token window lets a DATA go).
pub(crate) fn host_timer(cx: &mut Cx, h: u32) {
    let p = cx.parts();
    let now = p.now;
    let st = pim(p.transport);
    let hd = &mut st.hosts[h as usize];
    let wake = hd.wake_at == now;
    if wake {
        hd.wake_at = NEVER;
    }
    let step_due = hd.timer_at == now;
    if wake {
        cx.kick(h);
    }
    if !step_due {
        return;
    }
    let st = pim(cx.parts().transport);
    let hd = &mut st.hosts[h as usize];
    hd.timer_at = NEVER;
    if hd.last_step == now {
        return;
    }
    hd.last_step = now;
    let e = st.clock.epoch(now);
    let (step, folded, rounds) = (st.clock.step_at(now), st.clock.folded(), st.clock.rounds);
    match step {
        Some(Step::Boundary) => {
            if folded && e > 0 {
                accept(cx, h, e, rounds - 1);
            }
            boundary(cx, h, e);
            request(cx, h, e + 1, 0);
        }
        Some(Step::Grant(r)) => {
            if r == 0 {
                check_conflicts(cx, e);
            }
            grant(cx, h, e + 1, r);
        }
        Some(Step::Accept(r)) => {
            accept(cx, h, e + 1, r);
            if r + 1 < rounds {
                request(cx, h, e + 1, r + 1);
            }
        }
        None => {}
    }
    arm_host(cx, h, false);
}

/// Epoch `e` begins at host `h`: the matching made for it becomes the current one.
fn boundary(cx: &mut Cx, h: u32, e: u64) {
    let p = cx.parts();
    let st = pim(p.transport);
    if st.counted_epoch < e + 1 {
        st.counted_epoch = e + 1;
        st.k.epochs += 1;
    }
    let hd = &mut st.hosts[h as usize];
    hd.cur_tx = std::mem::take(&mut hd.next_tx);
    hd.cur_rx = std::mem::take(&mut hd.next_rx);
    hd.grant_q.clear();
    hd.rts_q.clear();
    st.k.matched_pairs += hd.cur_tx.len() as u64;
    st.k.matched_links += u64::from(links(&hd.cur_tx));
    if !hd.cur_tx.is_empty() {
        cx.kick(h);
    }
}

/// Once per epoch, after every host switched: receivers with more than `k` channels.
fn check_conflicts(cx: &mut Cx, e: u64) {
    let st = pim(cx.parts().transport);
    if st.checked_epoch > e {
        return;
    }
    st.checked_epoch = e + 1;
    let mut per_dst: BTreeMap<u32, u32> = BTreeMap::new();
    for hd in &st.hosts {
        for c in &hd.cur_tx {
            *per_dst.entry(c.peer).or_default() += c.links;
        }
    }
    let k = st.chans;
    st.k.conflicts += per_dst.values().filter(|&&n| n > k).count() as u64;
}

/// Sender `h`, round `r` of the matching for epoch `target`: an RTS to every receiver it
/// has scheduled data for beyond what its channels to it will carry, asking for the
/// channels that data needs (dcPIM's `send_all_req`: `ceil(remaining / pim_link_pkts)`
/// less the channels it has, at most the free ones).
fn request(cx: &mut Cx, h: u32, target: u64, r: u32) {
    let p = cx.parts();
    let now = p.now;
    let st = pim(p.transport);
    let hd = &st.hosts[h as usize];
    let avail = st.chans.saturating_sub(links(&hd.next_tx));
    if avail == 0 || hd.sched.is_empty() {
        return;
    }
    // Per receiver: (smallest remaining flow, its flow, total remaining).
    let mut by_dst: BTreeMap<u32, (u32, u32, u64)> = BTreeMap::new();
    for &f in &hd.sched {
        let fl = &st.flows[f as usize];
        let rem = fl.unsent();
        if rem == 0 {
            continue;
        }
        let d = p.flows[f as usize].spec.dst;
        let e = by_dst.entry(d).or_insert((u32::MAX, f, 0));
        if (rem, f) < (e.0, e.1) {
            (e.0, e.1) = (rem, f);
        }
        e.2 += u64::from(rem);
    }
    // What one current channel still carries before the epoch ends.
    let left =
        (target * st.clock.epoch_ps).saturating_sub(now) / st.ser_ps.max(1) / u64::from(st.chans);
    let lp = st.link_pkts;
    let mut reqs: Vec<(u32, u32, u32, u32)> = Vec::new();
    for (d, (rem, f, tot)) in by_dst {
        let covered =
            u64::from(links_to(&hd.cur_tx, d)) * left + u64::from(links_to(&hd.next_tx, d)) * lp;
        if tot <= covered {
            continue;
        }
        let need = (tot - covered).div_ceil(lp).clamp(1, u64::from(avail)) as u32;
        reqs.push((d, rem, f, need));
    }
    let mut sent = 0;
    for (d, rem, f, need) in reqs {
        ctrl(
            cx,
            PktKind::PimRts,
            h,
            d,
            f,
            target,
            pack(rem, need, r),
            false,
        );
        sent += 1;
    }
    let st = pim(cx.parts().transport);
    st.k.rts += sent;
    if sent > 0 && st.counted_round < (target, r + 1) {
        st.counted_round = (target, r + 1);
        st.k.rounds += 1;
    }
}

/// Receiver `h`, round `r` for epoch `target`: GRANT the round's RTSs, smallest first
/// (random order after the SRPT rounds), each the channels it asks for while any are left
/// (dcPIM's `handle_all_req`).
fn grant(cx: &mut Cx, h: u32, target: u64, r: u32) {
    let st = pim(cx.parts().transport);
    let srpt = r < st.srpt_rounds;
    let hd = &mut st.hosts[h as usize];
    let avail = st.chans.saturating_sub(links(&hd.next_rx));
    let offers = Offer::order(&mut hd.rts_q, target, r, srpt, &mut hd.rng);
    let grants = allot(offers, avail);
    st.k.grants += grants.len() as u64;
    for (o, l) in grants {
        ctrl(
            cx,
            PktKind::PimGrant,
            h,
            o.peer,
            o.flow,
            target,
            pack(o.rem, l, r),
            false,
        );
    }
}

/// Sender `h`, round `r` for epoch `target`: ACCEPT the round's GRANTs, smallest first
/// (random order after the SRPT rounds), each the channels it offers while any are left
/// (dcPIM's `handle_all_grants`).
fn accept(cx: &mut Cx, h: u32, target: u64, r: u32) {
    let st = pim(cx.parts().transport);
    let srpt = r < st.srpt_rounds;
    let hd = &mut st.hosts[h as usize];
    let avail = st.chans.saturating_sub(links(&hd.next_tx));
    let offers = Offer::order(&mut hd.grant_q, target, r, srpt, &mut hd.rng);
    let accepts = allot(offers, avail);
    for (o, l) in &accepts {
        add_links(&mut hd.next_tx, o.peer, *l);
    }
    st.k.accepts += accepts.len() as u64;
    if r == 0 {
        st.k.first_round_matches += accepts.len() as u64;
    }
    for (o, l) in accepts {
        ctrl(
            cx,
            PktKind::PimAccept,
            h,
            o.peer,
            o.flow,
            target,
            pack(0, l, r),
            false,
        );
    }
}

/// A matching packet reached host `h`.
pub(super) fn on_matching(cx: &mut Cx, h: u32, pk: Packet) {
    let p = cx.parts();
    let now = p.now;
    let st = pim(p.transport);
    let e = st.clock.epoch(now);
    let next = (e + 1) as u32 == pk.cum_ack;
    let cur = e as u32 == pk.cum_ack;
    let r = pk.psn & 0x3f;
    let l = (pk.psn >> 6) & 0x3f;
    let o = Offer {
        rem: pk.psn >> 12,
        peer: pk.src,
        flow: pk.flow,
        round: r,
        epoch: e + 1,
        links: l.max(1),
    };
    let k = st.chans;
    let hd = &mut st.hosts[h as usize];
    // After the borrow: arm the host's timer, or revoke channels.
    let (mut arm, mut revoke) = (false, 0);
    match pk.kind {
        PktKind::PimRts if next && links(&hd.next_rx) < k && st.clock.rts_open(now, r) => {
            Offer::queue(&mut hd.rts_q, o);
            arm = true;
        }
        PktKind::PimGrant if pk.ecn => {
            // A revoke: the receiver has no channels left for these.
            if next {
                sub_links(&mut hd.next_tx, pk.src, l);
            } else if cur {
                sub_links(&mut hd.cur_tx, pk.src, l);
            }
        }
        PktKind::PimGrant if next && links(&hd.next_tx) < k && st.clock.grant_open(now, r) => {
            Offer::queue(&mut hd.grant_q, o);
            arm = true;
        }
        PktKind::PimAccept => {
            let slot = if next {
                &mut hd.next_rx
            } else if cur {
                &mut hd.cur_rx
            } else {
                return;
            };
            // dcPIM's `receive_accept_pkt`: channels beyond k go back (`send_grantsr`).
            let have = links(slot);
            let take = l.min(k.saturating_sub(have));
            revoke = l - take;
            if take > 0 {
                add_links(slot, pk.src, take);
                arm = true;
            }
        }
        _ => {}
    }
    if revoke > 0 {
        st.k.revokes += 1;
    }
    if arm {
        arm_host(cx, h, true);
    }
    if revoke > 0 {
        let epoch = u64::from(pk.cum_ack);
        ctrl(
            cx,
            PktKind::PimGrant,
            h,
            pk.src,
            pk.flow,
            epoch,
            pack(0, revoke, r),
            true,
        );
    }
}
