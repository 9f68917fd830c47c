//! dcPIM in the fabric (`transport.cc = "dcpim"`): Cai, Tahmasbi Arashloo, Agarwal,
//! "dcPIM: Near-optimal proactive datacenter transport", SIGCOMM 2022, a DCSIM baseline
//! (DCSIM section 4.1; 4.2: "Under 1 BDP, dcPIM does not activate its full algorithm for
//! small flows, and therefore simply sends the flows without any control packets").
//!
//! ```text
//!  flow opens --bytes < unscheduled_bdp x BDP--> host's unscheduled ring: sent at once
//!             --else--> host's scheduled flows: demand for the matching
//!  every host, on the shared epoch clock (matching.rs): rounds of
//!     RTS (sender -> each receiver it has data for, smallest remaining size, channels
//!          needed), GRANT (receiver -> RTSs in SRPT / random order while it has
//!          channels left), ACCEPT (sender -> GRANTs likewise)
//!  as real control packets (PimRts / PimGrant / PimAccept, the control lane of every
//!  port: their delay and loss are the fabric's); the matching made during epoch e is
//!  used in epoch e+1: a sender matched to a receiver on l of its k channels sends that
//!  receiver's scheduled flows (SRPT) at l / k of its rate, clocked by tokens: at most
//!  token_window x BDP x l / k of them unanswered (one more after
//!  token_window_timeout without a token).
//!  host NIC pull: unscheduled ring first, then the current matches' flows (the
//!  channel whose rate allows a DATA soonest).
//!  receiver: ACK per DATA (NACK per trimmed header); sender: selective resend on NACK
//!  or on its retransmission timeout (transport.rto_us + base RTT, one FlowTimer per flow)
//! ```
//!
//! The matching is the `nic::dcpim` block's algorithm (constant rounds of request / grant /
//! accept with dcPIM's `min_rts` / `min_grant`; after `srpt_rounds` rounds a random choice,
//! as PIM and the dcPIM simulator), run by each host on the packets it receives instead of
//! centrally ([`matching`]), with dcPIM's `k` channels per host (session 7; the `nic::dcpim`
//! block keeps one channel). dcPIM's per-packet tokens are modelled at the sender: the
//! receiver answers every DATA (an ACK here, a token there: the same packet on the same
//! path at the same time), so the sender's count of unanswered scheduled DATAs per
//! receiver is the receiver's `token_gap`. Choices of ours: the roles of the matching
//! are the other way round (in the dcPIM simulator receivers request and senders grant;
//! the rounds, channels and orders are the same), a channel's rate is a pacing of the
//! DATAs rather than of the tokens, and a token has no expiry (the sender holds none).
//! Not modelled: the first-BDP unscheduled burst of long flows.
//!
//! Header fields of the control packets: `cum_ack` is the epoch matched for (low 32 bits),
//! `psn` is `rem << 12 | links << 6 | round` (the remaining size capped at 2^20 - 1
//! packets, the channels asked for, granted, accepted or revoked), `flow` the sender's
//! smallest flow to that receiver; a GRANT with `ecn` set is a revoke. A DATA's `cum_ack`
//! is its send stamp (the engine's).

pub mod flow;
pub mod matching;
pub mod section;

pub use section::DcpimSection;

use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::event::{Kind, Time, NEVER};
use crate::packet::{Packet, PktKind};
use crate::results::RunResult;
use crate::scenario::{CcKind, LbKind, Scenario, TopologyKind, WorkloadKind};
use crate::transport::ctx::Cx;
use crate::transport::TransportDriver;
use flow::PimFlow;
use matching::{
    add_links, allot, links, links_to, sub_links, EpochClock, Offer, PeerTx, PimHost, Step,
};
use nic::lb::LoadBalancer;
use rtl_models::RandomSource;
use std::collections::BTreeMap;

/// Remaining sizes carried in a control packet are capped here (20 bits).
const REM_MAX: u32 = (1 << 20) - 1;

/// `psn` of a matching packet.
#[inline]
fn pack(rem: u32, links: u32, round: u32) -> u32 {
    rem.min(REM_MAX) << 12 | (links & 0x3f) << 6 | (round & 0x3f)
}

/// The refusals of dcPIM (called by [`crate::validate`]).
pub fn check_supported(s: &Scenario) -> Result<()> {
    if s.transport.cc != CcKind::Dcpim {
        return Ok(());
    }
    if !matches!(s.transport.lb, LbKind::Ecmp | LbKind::Ops | LbKind::SprayRr) {
        return Err(Error::field(
            "transport.lb",
            "dcpim sends its DATAs with ecmp, ops or spray_rr (the load balancers of the DCSIM \
             comparison); the others need feedback dcpim does not give them",
        ));
    }
    if s.topology.kind == TopologyKind::TwoDc {
        return Err(Error::field(
            "transport.cc",
            "dcpim on a two_dc topology is not supported yet by the fabric simulator (its \
             epoch is set from one fabric-wide RTT; use a fat_tree)",
        ));
    }
    if s.workload.kind == WorkloadKind::Llm {
        return Err(Error::field(
            "workload.kind",
            "llm under dcpim is not supported yet by the fabric simulator (use dctcp)",
        ));
    }
    Ok(())
}

/// dcPIM's counters (summary.json `dcpim_*`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PimCounters {
    /// Epochs in which some host took part in the matching or sent scheduled data.
    pub epochs: u64,
    /// Rounds (of any epoch) in which at least one RTS was sent.
    pub rounds: u64,
    /// Sender-receiver pairs matched, summed over epochs (at the senders' epoch switch).
    pub matched_pairs: u64,
    /// Matches made in the first round (ACCEPTs of round 0).
    pub first_round_matches: u64,
    /// RTS, GRANT, ACCEPT, revoking GRANT packets sent.
    pub rts: u64,
    /// GRANTs sent.
    pub grants: u64,
    /// ACCEPTs sent.
    pub accepts: u64,
    /// Revoking GRANTs sent.
    pub revokes: u64,
    /// Matching packets dropped.
    pub ctrl_drops: u64,
    /// Epochs' receivers that had more than `k` channels matched to them (lost or late
    /// ACCEPT / revoke), summed over epochs.
    pub conflicts: u64,
    /// Channels matched, summed over epochs (at the senders' epoch switch).
    pub matched_links: u64,
    /// Pulls that found every current match's token window full (the sender waits).
    pub window_stalls: u64,
    /// Tokens released by the window timeout (`relax_token_gap`).
    pub window_relaxes: u64,
    /// DATA payload bytes sent unscheduled (flows under the threshold).
    pub unscheduled_bytes: u64,
    /// DATA payload bytes sent in matched epochs.
    pub scheduled_bytes: u64,
    /// Flows sent unscheduled.
    pub unscheduled_flows: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// DATA packets sent again (after a NACK or a timeout).
    pub retransmits: u64,
}

/// dcPIM's state: per host its matching registers and rings, per flow its sender and
/// receiver.
#[derive(Debug, Clone)]
pub struct DcpimState {
    clock: EpochClock,
    mtu: u32,
    hdr: u32,
    /// Flows of fewer bytes are unscheduled.
    unsched_bytes: u64,
    /// Serialization time of a full DATA at the host rate, ps.
    ser_ps: u64,
    rto_ps: u64,
    /// Rounds choosing the smallest remaining size (then random).
    srpt_rounds: u32,
    /// Channels per host (dcPIM's `k`).
    chans: u32,
    /// The token window of all `k` channels, DATAs (0: none).
    window_pkts: f64,
    /// The token window timeout, ps.
    window_timeout_ps: u64,
    /// DATAs one channel carries in an epoch (dcPIM's `pim_link_pkts`).
    link_pkts: u64,
    hosts: Vec<PimHost>,
    flows: Vec<PimFlow>,
    /// The last epoch counted in `k.epochs`, plus one (0: none).
    counted_epoch: u64,
    /// The last (epoch, round) counted in `k.rounds`, plus one in the epoch.
    counted_round: (u64, u32),
    /// The last epoch whose matching was checked for conflicts, plus one.
    checked_epoch: u64,
    /// Counters.
    pub k: PimCounters,
}

impl DcpimState {
    /// Whether host `h` may have DATA to send (the NIC then pulls; a pull may find none).
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        let hd = &self.hosts[h as usize];
        !hd.unsched.is_empty() || !hd.cur_tx.is_empty()
    }

    /// A packet was dropped.
    pub(crate) fn on_drop(&mut self, pk: &Packet) {
        if matches!(
            pk.kind,
            PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept
        ) {
            self.k.ctrl_drops += 1;
        }
    }

    /// Payload bytes of flow `f` (of `bytes`) acknowledged at its sender.
    pub(crate) fn acked_bytes(&self, f: u32, bytes: u64) -> u64 {
        (u64::from(self.flows[f as usize].n_acked) * u64::from(self.mtu)).min(bytes)
    }

    /// The epoch length, ps.
    pub fn epoch_ps(&self) -> u64 {
        self.clock.epoch_ps
    }

    /// The senders matched to receivers in the current epoch, as the senders see it
    /// (`(sender, receiver, channels)`).
    pub fn current_matching(&self) -> Vec<(u32, u32, u32)> {
        let mut v = Vec::new();
        for (h, hd) in self.hosts.iter().enumerate() {
            v.extend(hd.cur_tx.iter().map(|c| (h as u32, c.peer, c.links)));
        }
        v
    }

    /// The senders matched to each receiver in the current epoch, as the receivers see
    /// it (`(receiver, sender, channels)`).
    pub fn current_receivers(&self) -> Vec<(u32, u32, u32)> {
        let mut v = Vec::new();
        for (h, hd) in self.hosts.iter().enumerate() {
            v.extend(hd.cur_rx.iter().map(|c| (h as u32, c.peer, c.links)));
        }
        v
    }

    /// Channels per host (dcPIM's `k`).
    pub fn channels(&self) -> u32 {
        self.chans
    }

    fn payload(&self, bytes: u64, psn: u32) -> u32 {
        let off = u64::from(psn) * u64::from(self.mtu);
        (bytes - off).min(u64::from(self.mtu)) as u32
    }
}

impl Sim {
    /// Install dcPIM for scenario `s`.
    pub(crate) fn dcpim_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.transport;
        let sec = &t.dcpim;
        let rtt = self.base_rtt_ps.max(1) as f64;
        // An even round (its grant step at the half) of at least 2 ps.
        let round_ps = (((sec.round_rtts * rtt) / 2.0).round() as u64).max(1) * 2;
        let matching = u64::from(sec.rounds) * round_ps;
        let epoch_ps = ((sec.epoch_rtts * rtt).round() as u64).max(matching);
        // Epoch numbers travel as 32 bits; the run must not wrap them.
        let unsched_bytes = (sec.unscheduled_bdp * self.bdp_bytes as f64).round() as u64;
        let mtu = t.mtu.max(1);
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let pkts = f.spec.bytes.div_ceil(u64::from(mtu)).max(1);
                PimFlow::new(pkts as u32, f.spec.bytes >= unsched_bytes)
            })
            .collect();
        for f in &mut self.flows {
            f.rx = crate::flow::FlowRx::InTransport;
        }
        let gbps = self.fabric.host_gbps;
        let ser_ps = (f64::from(mtu + t.header_bytes) * 8000.0 / gbps).ceil() as u64;
        let bdp_pkts = self.bdp_bytes as f64 / f64::from(mtu);
        self.transport = TransportDriver::Dcpim(Box::new(DcpimState {
            clock: EpochClock {
                epoch_ps,
                round_ps,
                rounds: sec.rounds,
            },
            mtu,
            hdr: t.header_bytes,
            unsched_bytes,
            ser_ps,
            rto_ps: (t.rto_us * 1e6).round() as u64 + self.base_rtt_ps,
            hosts: (0..self.fabric.hosts)
                .map(|h| PimHost::new(host_rng(s.seed, h)))
                .collect(),
            srpt_rounds: sec.srpt_rounds,
            chans: sec.channels,
            window_pkts: sec.token_window_bdp * bdp_pkts,
            window_timeout_ps: ((sec.token_window_timeout_rtts * rtt).round() as u64).max(1),
            link_pkts: (epoch_ps / ser_ps.max(1) / u64::from(sec.channels)).max(1),
            flows,
            counted_epoch: 0,
            counted_round: (0, 0),
            checked_epoch: 0,
            k: PimCounters::default(),
        }));
        Ok(())
    }

    /// dcPIM's state in a dcPIM run (tests: the matching at a point of the run).
    pub fn dcpim(&self) -> Option<&DcpimState> {
        match &self.transport {
            TransportDriver::Dcpim(d) => Some(d),
            _ => None,
        }
    }

    /// The dcPIM counters in `r`'s summary (`extra`).
    pub(crate) fn dcpim_results(&self, r: &mut RunResult) {
        let TransportDriver::Dcpim(st) = &self.transport else {
            return;
        };
        let k = &st.k;
        let x = &mut r.summary.extra;
        x.insert("sim_drops".into(), 0.0);
        x.insert("sim_loss_rate".into(), 0.0);
        for (name, v) in [
            ("dcpim_epochs", k.epochs),
            ("dcpim_matching_rounds", k.rounds),
            ("dcpim_matched_pairs", k.matched_pairs),
            ("dcpim_first_round_matches", k.first_round_matches),
            ("dcpim_rts", k.rts),
            ("dcpim_grants", k.grants),
            ("dcpim_accepts", k.accepts),
            ("dcpim_revokes", k.revokes),
            ("dcpim_ctrl_drops", k.ctrl_drops),
            ("dcpim_conflicts", k.conflicts),
            ("dcpim_unscheduled_bytes", k.unscheduled_bytes),
            ("dcpim_scheduled_bytes", k.scheduled_bytes),
            ("dcpim_unscheduled_flows", k.unscheduled_flows),
            ("dcpim_timeouts", k.timeouts),
            ("dcpim_retransmits", k.retransmits),
            ("dcpim_matched_links", k.matched_links),
            ("dcpim_window_stalls", k.window_stalls),
            ("dcpim_window_relaxes", k.window_relaxes),
        ] {
            x.insert(name.into(), v as f64);
        }
        x.insert(
            "dcpim_ctrl_bytes".into(),
            ((k.rts + k.grants + k.accepts + k.revokes) * u64::from(st.hdr)) as f64,
        );
        x.insert(
            "dcpim_matched_pairs_per_epoch".into(),
            k.matched_pairs as f64 / k.epochs.max(1) as f64,
        );
        x.insert(
            "dcpim_matched_links_per_epoch".into(),
            k.matched_links as f64 / k.epochs.max(1) as f64,
        );
        x.insert("dcpim_channels".into(), f64::from(st.chans));
        x.insert("dcpim_token_window_pkts".into(), st.window_pkts);
        x.insert(
            "dcpim_unscheduled_threshold_bytes".into(),
            st.unsched_bytes as f64,
        );
        // The share of the matched epochs' line rate their scheduled bytes used (a match
        // whose flows end early idles to the epoch's end).
        let line_bytes_per_ps = self.fabric.host_gbps / 8000.0;
        let capacity = k.matched_links as f64 * st.clock.epoch_ps as f64 * line_bytes_per_ps
            / f64::from(st.chans);
        x.insert(
            "dcpim_matched_utilization".into(),
            if capacity > 0.0 {
                k.scheduled_bytes as f64 / capacity
            } else {
                0.0
            },
        );
        x.insert("dcpim_epoch_us".into(), st.clock.epoch_ps as f64 / 1e6);
        x.insert("dcpim_round_us".into(), st.clock.round_ps as f64 / 1e6);
    }
}

/// Host `h`'s random source for the run of seed `seed` (a draw of its own: no other
/// random sequence of the run moves).
fn host_rng(seed: u64, h: u32) -> rtl_models::Lfsr32 {
    let s = (seed ^ (seed >> 32)) as u32 ^ 0xd9c1_0000;
    rtl_models::Lfsr32::new(s.wrapping_add(h.wrapping_mul(0x9e37_79b9)))
}

/// The dcPIM state of a dcPIM run.
#[inline]
fn pim(t: &mut TransportDriver) -> &mut DcpimState {
    match t {
        TransportDriver::Dcpim(d) => d,
        _ => unreachable!("dcPIM calls run only in dcPIM runs"),
    }
}

/// Flow `f` starts now.
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let h = p.flows[f as usize].spec.src;
    let st = pim(p.transport);
    let fl = &mut st.flows[f as usize];
    fl.open = true;
    if fl.scheduled {
        st.hosts[h as usize].sched.push(f);
        cx.progress();
        arm_host(cx, h, true);
    } else {
        fl.in_ring = true;
        st.k.unscheduled_flows += 1;
        st.hosts[h as usize].unsched.push_back(f);
        cx.progress();
        cx.kick(h);
    }
}

/// Arm host `h`'s timer at its next epoch step while it takes part in the matching
/// (`now_too`: the step at now counts, if it has not run).
fn arm_host(cx: &mut Cx, h: u32, now_too: bool) {
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

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    let hdr = cx.hdr_bytes();
    match pk.kind {
        PktKind::Data => {
            let p = cx.parts();
            p.c.data_delivered += 1;
            let st = pim(p.transport);
            let fl = &mut st.flows[f as usize];
            let new = fl.on_data(pk.psn);
            let got = fl.n_rx;
            let ack = Packet {
                flow: f,
                src: h,
                dst: pk.src,
                psn: pk.psn,
                cum_ack: pk.cum_ack,
                bytes: hdr,
                ev: pk.ev,
                kind: PktKind::Ack,
                ecn: pk.ecn,
            };
            cx.metrics_data(&pk, new, got);
            cx.send_ctrl(h, ack);
        }
        PktKind::Header => {
            let c = cx.counters();
            c.headers_delivered += 1;
            c.ctrl_delivered += 1;
            let nack = Packet {
                flow: f,
                src: h,
                dst: pk.src,
                psn: pk.psn,
                cum_ack: 0,
                bytes: hdr,
                ev: pk.ev,
                kind: PktKind::Nack,
                ecn: false,
            };
            cx.send_ctrl(h, nack);
        }
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            on_ack(cx, h, pk);
        }
        PktKind::Nack => {
            let p = cx.parts();
            p.c.ctrl_delivered += 1;
            let dst = p.flows[f as usize].spec.dst;
            let st = pim(p.transport);
            let fl = &mut st.flows[f as usize];
            if fl.open && fl.on_nack(pk.psn) {
                if fl.scheduled {
                    answered(st, h, dst, 1);
                }
                resend_ready(cx, h, f);
            }
        }
        PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept => {
            cx.counters().ctrl_delivered += 1;
            on_matching(cx, h, pk);
        }
        PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
    }
}

/// Flow `f` (at host `h`) has packets to send again: an unscheduled flow back in its ring,
/// a scheduled one waits for a match (its host requests it).
fn resend_ready(cx: &mut Cx, h: u32, f: u32) {
    let st = pim(cx.parts().transport);
    let fl = &mut st.flows[f as usize];
    let scheduled = fl.scheduled;
    if !scheduled && !fl.in_ring {
        fl.in_ring = true;
        st.hosts[h as usize].unsched.push_back(f);
    }
    let matched = !st.hosts[h as usize].cur_tx.is_empty();
    if scheduled {
        arm_host(cx, h, true);
    }
    if !scheduled || matched {
        cx.kick(h);
    }
}

/// An ACK reached flow `pk.flow`'s sender `h`.
fn on_ack(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    let st = pim(p.transport);
    let fl = &mut st.flows[f as usize];
    if !fl.open || !fl.on_ack(pk.psn) {
        return;
    }
    fl.progress_ps = now;
    // A token back: the receiver got a scheduled DATA (the window opens).
    let wake = fl.scheduled && {
        let dst = flow.spec.dst;
        answered(st, h, dst, 1);
        links_to(&st.hosts[h as usize].cur_tx, dst) > 0
    };
    let fl = &mut st.flows[f as usize];
    flow.lb.on_ack(flow.clock.cycle_at(now), pk.ev, pk.ecn);
    let done = fl.n_acked == fl.pkts;
    if done {
        fl.close();
        flow.stats.packets_sent = fl.tx;
        flow.stats.retransmits = fl.tx.saturating_sub(u64::from(fl.pkts));
        let hd = &mut st.hosts[h as usize];
        if let Some(i) = hd.sched.iter().position(|&g| g == f) {
            hd.sched.swap_remove(i);
        }
    }
    cx.progress();
    if wake {
        cx.kick(h);
    }
    if done {
        cx.flow_done(f);
    }
}

/// A matching packet reached host `h`.
fn on_matching(cx: &mut Cx, h: u32, pk: Packet) {
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

/// Scheduled DATAs of host `h` to `dst` answered (`n` tokens back): the window opens.
fn answered(st: &mut DcpimState, h: u32, dst: u32, n: u32) {
    if let Some(pt) = st.hosts[h as usize].peers.get_mut(&dst) {
        pt.inflight = pt.inflight.saturating_sub(n);
    }
}

/// The next DATA packet host `h` sends: its unscheduled flows first (round robin), then
/// the scheduled flows (smallest remaining first) of the current match whose channels'
/// rate and token window let a DATA go soonest; none ready: a wake-up at the earliest
/// time one will be.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    let p = cx.parts();
    let now = p.now;
    let st = pim(p.transport);
    let (k, win, win_to, ser) = (st.chans, st.window_pkts, st.window_timeout_ps, st.ser_ps);
    let hd = &mut st.hosts[h as usize];
    let mut pick = None;
    while let Some(f) = hd.unsched.pop_front() {
        let fl = &mut st.flows[f as usize];
        if !fl.open || fl.unsent() == 0 {
            fl.in_ring = false;
            continue;
        }
        pick = Some(f);
        break;
    }
    let mut wake = NEVER;
    let mut chan_pick: Option<(Time, u32, u32)> = None;
    if pick.is_none() {
        let (mut stalled, mut open) = (0u32, 0u32);
        for c in &hd.cur_tx {
            let Some(f) = hd
                .sched
                .iter()
                .copied()
                .filter(|&f| p.flows[f as usize].spec.dst == c.peer)
                .map(|f| (st.flows[f as usize].unsent(), f))
                .filter(|&(u, _)| u > 0)
                .min()
                .map(|(_, f)| f)
            else {
                continue;
            };
            open += 1;
            let pt = hd.peers.entry(c.peer).or_insert(PeerTx {
                inflight: 0,
                last_ps: 0,
                next_ps: 0,
            });
            if win > 0.0 {
                let limit = ((win * f64::from(c.links) / f64::from(k)).floor() as u32).max(1);
                if pt.inflight >= limit {
                    let due = pt.last_ps.saturating_add(win_to);
                    if now < due {
                        stalled += 1;
                        wake = wake.min(due);
                        continue;
                    }
                    // dcPIM's `relax_token_gap`: the window's tokens are given up.
                    pt.inflight = limit - 1;
                    st.k.window_relaxes += 1;
                }
            }
            let at = if c.links < k {
                pt.next_ps.max(now)
            } else {
                now
            };
            if at > now {
                wake = wake.min(at);
                continue;
            }
            if chan_pick.is_none_or(|(t, _, _)| pt.next_ps < t) {
                chan_pick = Some((pt.next_ps, f, c.links));
            }
        }
        if open > 0 && stalled == open {
            st.k.window_stalls += 1;
        }
        if let Some((_, f, l)) = chan_pick {
            pick = Some(f);
            let dst = p.flows[f as usize].spec.dst;
            let pt = hd.peers.get_mut(&dst).expect("a matched peer's clock");
            pt.inflight += 1;
            pt.last_ps = now;
            pt.next_ps = pt.next_ps.max(now) + ser * u64::from(k) / u64::from(l);
        }
    }
    let Some(f) = pick else {
        if wake != NEVER && (wake < hd.wake_at || hd.wake_at < now) {
            hd.wake_at = wake;
            cx.arm(wake, Kind::HostTimer, h);
        }
        return None;
    };
    let flow = &mut p.flows[f as usize];
    let fl = &mut st.flows[f as usize];
    let was_idle = fl.outstanding() == 0;
    let resend = fl.tx >= u64::from(fl.pkts);
    let psn = fl.take_next().expect("a flow with unsent packets");
    if !fl.scheduled {
        if fl.unsent() > 0 {
            st.hosts[h as usize].unsched.push_back(f);
        } else {
            fl.in_ring = false;
        }
    }
    if was_idle {
        fl.progress_ps = now;
    }
    let (scheduled, bytes) = (fl.scheduled, flow.spec.bytes);
    let payload = st.payload(bytes, psn);
    if scheduled {
        st.k.scheduled_bytes += u64::from(payload);
    } else {
        st.k.unscheduled_bytes += u64::from(payload);
    }
    if resend {
        st.k.retransmits += 1;
    }
    let now_c = flow.clock.cycle_at(now);
    let ev = flow.lb.on_send(now_c, &mut flow.rng);
    let pk = Packet {
        flow: f,
        src: h,
        dst: flow.spec.dst,
        psn,
        cum_ack: 0,
        bytes: payload + p.hdr_bytes,
        ev,
        kind: PktKind::Data,
        ecn: false,
    };
    let at = now + st.rto_ps;
    if flow.timer_at == NEVER {
        flow.timer_at = at;
        cx.arm(at, Kind::FlowTimer, f);
    }
    cx.counters().data_sent += 1;
    Some(pk)
}

/// Flow `f`'s retransmission timer.
pub(crate) fn flow_timer(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    if flow.timer_at != now {
        return;
    }
    flow.timer_at = NEVER;
    let h = flow.spec.src;
    let st = pim(p.transport);
    let rto = st.rto_ps;
    let fl = &mut st.flows[f as usize];
    if !fl.open || fl.outstanding() == 0 {
        return;
    }
    let due = fl.progress_ps.saturating_add(rto);
    if now < due {
        flow.timer_at = due;
        cx.arm(due, Kind::FlowTimer, f);
        return;
    }
    let n = fl.on_timeout();
    if fl.scheduled {
        let dst = flow.spec.dst;
        answered(st, h, dst, n);
    }
    st.k.timeouts += 1;
    p.c.timeouts += 1;
    resend_ready(cx, h, f);
}
