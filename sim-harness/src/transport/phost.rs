//! pHost in the fabric (`transport.cc = "phost"`): one of DCSIM's baselines (DCSIM section
//! 4.1 "Algorithms", section 5 "Scheduling"), as pHost (Gao et al., CoNEXT 2015, section 3)
//! designs it, on the `nic::phost` blocks.
//!
//! ```text
//!  source host (PhostSender)                     destination host (PhostReceiver)
//!  open: RTS(size) on the control lane  ------>  on_rts: to_grant = size - free
//!  first BDP at once on free tokens     --DATA-> got[psn]; all in: flow done, DONE back
//!  NIC free: next_packet(): a token              HostTimer at the block's next event:
//!    (SRPT over flows), else a free one <-TOKEN- one token per MTU time (line rate) to
//!  token expired at the source: dropped          the SRPT flow, naming its next missing
//!  all sent, nothing heard for                   PSN; tokens unanswered for
//!    rts_timeout: RTS again             ------>    downgrade_timeout: flow downgraded
//!  DONE: flow closed                    <-DONE-- RTS of a known flow, packets missing
//!                                                  and no entry: granted again
//! ```
//!
//! * **Switches** are plain: the baseline output port, control packets (RTS, tokens, DONE)
//!   on its priority lane, DATA in its FIFO (pHost's two priority levels).
//! * **Tokens** name a packet (its PSN); a token is valid until its expiry, stamped by the
//!   receiver at the fabric's one-way base delay (half the base RTT), plus one MTU time per
//!   link of the longest path (a token may wait behind a DATA being sent at each hop), plus
//!   `token_ttl_mtus` MTU times after it is sent. The sender spends tokens in SRPT order (fewest packets
//!   left) and drops them at their expiry.
//! * **Losses**: a token whose DATA is lost is never answered; the flow is downgraded and
//!   its unanswered tokens are granted again (naming the missing PSNs). A lost free packet
//!   (or RTS) is asked for again when the sender, having sent everything, hears nothing for
//!   `rts_timeout_rtts` and re-sends its RTS: the receiver grants the missing packets.
//!
//! Header fields (pHost's control packets are `PktKind::Ack` on the control lane, told
//! apart by `psn`): an RTS has `psn` [`RTS`] and its size in packets in `cum_ack`; a DONE
//! has `psn` [`DONE`]; a token has the PSN it names and its expiry in ns (32 bits, read
//! relative to the source's clock) in `cum_ack`. A DATA sent on a token has [`ON_TOKEN`]
//! set in its `psn`.
//!
//! Choices of ours (the pHost paper states them loosely): the token TTL after the one-way
//! delay (1.5 MTU times), the downgrade timeout (2 base RTTs of unanswered tokens) and
//! length (3 base RTTs), the RTS re-send timeout (4 base RTTs). The flow completes when its
//! last packet reaches the destination (DCSIM's CCT).

pub mod state;

use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::event::{Kind, Time, NEVER};
use crate::flow::{FlowRt, FlowRx};
use crate::packet::{Packet, PktKind};
use crate::results::RunResult;
use crate::scenario::{CcKind, LbKind, Scenario, TopologyKind, WorkloadKind};
use crate::transport::ctx::Cx;
use crate::transport::TransportDriver;
use nic::lb::LoadBalancer;
use nic::phost::{PhostReceiver, PhostReceiverConfig, Token};
use serde::{Deserialize, Serialize};
use state::{bits, get, set, FlowState, Held, HostState, RxWait, TxPhase, TOKENS};

/// `psn` of an RTS.
pub const RTS: u32 = u32::MAX;
/// `psn` of a DONE (the receiver has every packet).
pub const DONE: u32 = u32::MAX - 1;
/// Bit of a DATA's `psn`: sent on a token (not a free one).
pub const ON_TOKEN: u32 = 1 << 31;

/// `[transport.phost]`: pHost's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PhostSection {
    /// Free tokens of a new flow, in BDPs (pHost: the first BDP goes at once).
    pub free_bdp: f64,
    /// Free tokens only for a flow that fits in `free_bdp` whole (all its packets go at
    /// once); a larger flow gets none and waits for tokens after its RTS. The dcPIM
    /// simulator's pHost does this (Terabit-Ethernet/dcPIM `ext/capabilityflow.cpp`,
    /// `CapabilityFlow::init_capa_size`: `size_in_pkt <= capability_initial ? size_in_pkt :
    /// 0`), where the DCSIM paper ran it (4.1). false: every flow sends its first
    /// `free_bdp` at once (pHost's paper).
    pub free_small_flows_only: bool,
    /// The receiver's SRPT as the dcPIM simulator's pHost keeps it (Terabit-Ethernet/dcPIM
    /// `ext/capabilityhost.cpp`, `CapabilityFlowComparatorAtReceiver`, `send_capability`,
    /// over `ext/custompriorityqueue.h`), where the DCSIM paper ran it (4.1): the flow
    /// with the fewest packets not yet *received*, ties to the flow granted (tried) last.
    /// false: the fewest packets not yet *granted*, ties to the flow registered first.
    pub srpt_by_received: bool,
    /// Token validity after the one-way base delay, in MTU times (pHost: about 1.5).
    pub token_ttl_mtus: f64,
    /// Base RTTs a flow's tokens may go unanswered before it is downgraded.
    pub downgrade_timeout_rtts: f64,
    /// Base RTTs a downgraded flow gets no tokens.
    pub downgrade_rtts: f64,
    /// Base RTTs a sender that sent everything waits for DONE before re-sending its RTS.
    pub rts_timeout_rtts: f64,
    /// Tokens a flow may have unanswered at its receiver, in BDPs (session 7; the dcPIM
    /// simulator's pHost, `capability_window`: 19 packets of 1.5 KB in its 100 Gb/s
    /// settings, of the order of a BDP there; read here as one BDP), counted from the
    /// latest token a DATA answered (the simulator's `token_count -
    /// largest_token_seq_received - 1`: tokens that expired at the sender or whose DATA
    /// was lost are given up when a later one is answered). A token is answered by its
    /// DATA, so a sender whose DATAs queue in the fabric gets tokens more slowly (the DCSIM
    /// paper, 4.2: pHost "decreases its sending rate as it detects congestion in the
    /// network, based on received token packets"). 0: no window (tokens at line rate
    /// whatever comes back, pHost's paper).
    pub token_window_bdp: f64,
    /// Base RTTs a flow may stay at its token window before one unanswered token is given
    /// up (its DATA taken as lost; the simulator's `capability_window_timeout`, here as
    /// dcPIM's `token_window_timeout = 1.1` of the same simulator).
    pub token_window_timeout_rtts: f64,
}

impl Default for PhostSection {
    fn default() -> Self {
        PhostSection {
            free_bdp: 1.0,
            free_small_flows_only: false,
            srpt_by_received: false,
            token_ttl_mtus: 1.5,
            downgrade_timeout_rtts: 2.0,
            downgrade_rtts: 3.0,
            rts_timeout_rtts: 4.0,
            token_window_bdp: 1.0,
            token_window_timeout_rtts: 1.1,
        }
    }
}

impl PhostSection {
    /// The defaults (the section is then left out of a written `scenario.toml`).
    pub fn is_default(&self) -> bool {
        *self == PhostSection::default()
    }

    /// Check the section (whatever `cc` is); errors name `transport.phost.<field>`.
    pub fn check(&self) -> Result<()> {
        let range = |name: &str, v: f64, lo: f64, hi: f64| -> Result<()> {
            if !v.is_finite() || v < lo || v > hi {
                return Err(Error::field(
                    format!("transport.phost.{name}"),
                    format!("must be a number in {lo} ..= {hi}, got {v}"),
                ));
            }
            Ok(())
        };
        range("free_bdp", self.free_bdp, 0.0, 1000.0)?;
        range("token_ttl_mtus", self.token_ttl_mtus, 0.01, 1000.0)?;
        range(
            "downgrade_timeout_rtts",
            self.downgrade_timeout_rtts,
            0.01,
            1000.0,
        )?;
        range("downgrade_rtts", self.downgrade_rtts, 0.0, 1000.0)?;
        range("rts_timeout_rtts", self.rts_timeout_rtts, 0.1, 1000.0)?;
        range("token_window_bdp", self.token_window_bdp, 0.0, 100.0)?;
        range(
            "token_window_timeout_rtts",
            self.token_window_timeout_rtts,
            0.01,
            1000.0,
        )?;
        Ok(())
    }
}

/// The refusals of pHost (called by [`crate::validate`]).
pub fn check_supported(s: &Scenario) -> Result<()> {
    if s.transport.cc != CcKind::Phost {
        return Ok(());
    }
    if !matches!(s.transport.lb, LbKind::Ecmp | LbKind::Ops | LbKind::SprayRr) {
        return Err(Error::field(
            "transport.lb",
            "phost sprays its packets (ops, or spray_rr in the switches) or hashes them per flow (ecmp); other load balancers need ACK feedback pHost does not send",
        ));
    }
    if s.transport.trimming {
        return Err(Error::field(
            "transport.trimming",
            "phost runs on plain switches (no trimming); set it to false",
        ));
    }
    if s.topology.kind == TopologyKind::TwoDc {
        return Err(Error::field(
            "transport.cc",
            "phost on a two_dc topology is not supported (its token timing uses one fabric-wide RTT); use a fat_tree",
        ));
    }
    if s.workload.kind == WorkloadKind::Llm {
        return Err(Error::field(
            "workload.kind",
            "llm under phost is not supported; use transport.cc = \"dctcp\"",
        ));
    }
    Ok(())
}

/// Run-wide constants.
#[derive(Debug, Clone, Copy)]
struct Params {
    mtu: u32,
    rts_timeout_ps: u64,
}

/// The token window of a pHost run, packets (0: none).
fn st_window(sim: &Sim) -> Option<u16> {
    match &sim.transport {
        TransportDriver::Phost(st) => st.hosts.first().map(|h| h.rx.config().window),
        _ => None,
    }
}

/// pHost's counters (summary `phost_*`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    /// RTSs sent (first ones).
    pub rts_sent: u64,
    /// RTSs sent again (nothing heard after sending everything).
    pub rts_resent: u64,
    /// Tokens sent by receivers.
    pub tokens_sent: u64,
    /// DATA sent on a token.
    pub token_data: u64,
    /// DATA sent on a free token.
    pub free_data: u64,
    /// Tokens that reached a sender after its flow was done.
    pub tokens_late: u64,
    /// Tokens a sender had no flow entry to spend on.
    pub tokens_no_entry: u64,
    /// Flows granted again after an RTS showed packets missing.
    pub regrants: u64,
    /// DATA received twice.
    pub duplicates: u64,
    /// Flows that waited for a sender entry.
    pub tx_deferred: u64,
    /// RTSs that waited for a receiver entry.
    pub rx_deferred: u64,
}

/// pHost's state: per host its blocks, per flow its bitmaps.
#[derive(Debug, Clone)]
pub struct PhostState {
    p: Params,
    hosts: Vec<HostState>,
    flows: Vec<FlowState>,
    k: Counters,
    scratch: Vec<Packet>,
}

impl PhostState {
    /// Whether host `h` would send a DATA now.
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        self.hosts[h as usize].tx.has_work()
    }

    /// Payload bytes of flow `f` (of `bytes`) at its receiver.
    pub(crate) fn acked_bytes(&self, f: u32, bytes: u64) -> u64 {
        let fs = &self.flows[f as usize];
        if fs.complete {
            return bytes;
        }
        (u64::from(fs.received) * u64::from(self.p.mtu)).min(bytes)
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.k
    }

    /// Downgrades by every receiver so far.
    pub fn downgrades(&self) -> u64 {
        self.hosts.iter().map(|h| h.rx.downgrades()).sum()
    }

    /// Tokens that expired at senders (held or dead on arrival).
    pub fn tokens_expired(&self) -> u64 {
        self.hosts.iter().map(|h| h.tx.expired()).sum()
    }

    /// Tokens senders had no room for.
    pub fn tokens_wasted(&self) -> u64 {
        self.hosts.iter().map(|h| h.tx.wasted()).sum()
    }
}

fn cfg_err(field: &str, e: rtl_models::ConfigError) -> Error {
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

/// `x` ps as a 32-bit cycle count of the 1 ps block clock; the error names `field`.
fn cycles32(field: &str, x: f64) -> Result<u32> {
    if !(1.0..=u32::MAX as f64).contains(&x) {
        return Err(Error::field(
            field,
            format!(
                "gives {x:.0} ps on this fabric; the pHost blocks hold 1 ..= {} ps",
                u32::MAX
            ),
        ));
    }
    Ok(x.round() as u32)
}

/// The receiver block's configuration for scenario `s` on `fabric` (base RTT `base_rtt_ps`,
/// BDP `bdp_bytes`): each time in ps of the 1 ps block clock. The run's build and
/// validation ([`crate::validate`], so `--dry-run` refuses what the run would) both call it;
/// errors name the field whose value gives a time outside `1 ..= u32::MAX` ps.
pub(crate) fn receiver_config(
    s: &Scenario,
    fabric: &crate::topology::Fabric,
    base_rtt_ps: u64,
    bdp_bytes: u64,
) -> Result<PhostReceiverConfig> {
    let sec = &s.transport.phost;
    let (mtu, hdr) = (s.transport.mtu.max(1), s.transport.header_bytes);
    let ser_q32 = (8000.0 / fabric.host_gbps * 4_294_967_296.0).round() as u64;
    let pkt_ps = crate::engine::ser_ps(mtu + hdr, ser_q32) as f64;
    let rtt = base_rtt_ps as f64;
    // A token's way: the one-way base delay, plus up to one DATA serialization per link
    // (its priority lane does not preempt a DATA being sent).
    let links = f64::from(fabric.longest.links);
    // One token per MTU time on the wire of the sender, which also carries the token its
    // host sends for each DATA it receives (else senders fall behind and tokens die).
    let token_ps = pkt_ps + crate::engine::ser_ps(hdr, ser_q32) as f64;
    let cfg = PhostReceiverConfig {
        token_interval: cycles32("transport.mtu", token_ps)?,
        token_ttl: cycles32(
            "transport.phost.token_ttl_mtus",
            rtt / 2.0 + (links + sec.token_ttl_mtus) * pkt_ps,
        )?,
        downgrade_timeout: cycles32(
            "transport.phost.downgrade_timeout_rtts",
            sec.downgrade_timeout_rtts * rtt,
        )?,
        downgrade_cycles: if sec.downgrade_rtts == 0.0 {
            0
        } else {
            cycles32("transport.phost.downgrade_rtts", sec.downgrade_rtts * rtt)?
        },
        window: if sec.token_window_bdp == 0.0 {
            0
        } else {
            let w = (sec.token_window_bdp * bdp_bytes as f64 / f64::from(mtu)).ceil();
            if w > f64::from(u16::MAX) {
                return Err(Error::field(
                    "transport.phost.token_window_bdp",
                    format!("{w} packets: at most {} tokens per flow", u16::MAX),
                ));
            }
            (w as u16).max(1)
        },
        window_timeout: cycles32(
            "transport.phost.token_window_timeout_rtts",
            sec.token_window_timeout_rtts * rtt,
        )?,
        srpt_received: sec.srpt_by_received,
    };
    cfg.validate().map_err(|e| cfg_err("transport.phost", e))?;
    Ok(cfg)
}

impl Sim {
    /// Install pHost for scenario `s`.
    pub(crate) fn phost_setup(&mut self, s: &Scenario) -> Result<()> {
        let sec = &s.transport.phost;
        let mtu = s.transport.mtu.max(1);
        let rtt = self.base_rtt_ps as f64;
        let cfg = receiver_config(s, &self.fabric, self.base_rtt_ps, self.bdp_bytes)?;
        let rx: PhostReceiver<{ state::FLOWS }> =
            PhostReceiver::new(cfg).map_err(|e| cfg_err("transport.phost", e))?;
        let free_pkts = ((sec.free_bdp * self.bdp_bytes as f64) / f64::from(mtu)).ceil();
        let free_pkts = free_pkts.min(f64::from(u32::MAX)) as u32;
        let mut flows = Vec::with_capacity(self.flows.len());
        for f in &mut self.flows {
            let pkts = f.spec.bytes.div_ceil(u64::from(mtu)).max(1);
            if pkts >= u64::from(ON_TOKEN) {
                return Err(Error::field(
                    "workload.message",
                    format!("a flow of {pkts} packets: pHost numbers packets below 2^31"),
                ));
            }
            let pkts = pkts as u32;
            let free = if sec.free_small_flows_only && pkts > free_pkts {
                0
            } else {
                pkts.min(free_pkts)
            };
            flows.push(FlowState::new(pkts, free));
            f.rx = FlowRx::InTransport;
        }
        let hosts = (0..self.fabric.hosts)
            .map(|_| HostState::new(rx.clone()))
            .collect();
        self.transport = TransportDriver::Phost(Box::new(PhostState {
            p: Params {
                mtu,
                rts_timeout_ps: (sec.rts_timeout_rtts * rtt).round().max(1.0) as u64,
            },
            hosts,
            flows,
            k: Counters::default(),
            scratch: Vec::new(),
        }));
        Ok(())
    }

    /// pHost's counters in `r`'s summary (`extra`).
    pub(crate) fn phost_results(&self, r: &mut RunResult) {
        let TransportDriver::Phost(st) = &self.transport else {
            return;
        };
        let k = st.k;
        let x = &mut r.summary.extra;
        x.insert("sim_drops".into(), 0.0);
        x.insert("sim_loss_rate".into(), 0.0);
        if let Some(hs) = st_window(self) {
            x.insert("phost_token_window_pkts".into(), f64::from(hs));
        }
        for (name, v) in [
            ("phost_rts_sent", k.rts_sent),
            ("phost_rts_resent", k.rts_resent),
            ("phost_tokens_sent", k.tokens_sent),
            ("phost_token_data", k.token_data),
            ("phost_free_data", k.free_data),
            ("phost_tokens_expired", st.tokens_expired()),
            (
                "phost_tokens_wasted",
                st.tokens_wasted() + k.tokens_no_entry,
            ),
            ("phost_tokens_late", k.tokens_late),
            ("phost_downgrades", st.downgrades()),
            ("phost_regrants", k.regrants),
            ("phost_duplicates", k.duplicates),
            ("phost_tx_deferred", k.tx_deferred),
            ("phost_rx_deferred", k.rx_deferred),
        ] {
            x.insert(name.into(), v as f64);
        }
    }
}

/// The pHost state of a pHost run.
#[inline]
fn ph(t: &mut TransportDriver) -> &mut PhostState {
    match t {
        TransportDriver::Phost(p) => p,
        _ => unreachable!("pHost calls run only in pHost runs"),
    }
}

/// A fresh entropy value for a control packet of `flow` (sprayed like its DATA).
fn ctrl_ev(flow: &mut FlowRt) -> u16 {
    flow.rng.step();
    flow.rng.state() as u16
}

/// A control packet of flow `f` from `src` to `dst`.
fn ctrl(flow: &mut FlowRt, f: u32, src: u32, dst: u32, psn: u32, cum_ack: u32, hdr: u32) -> Packet {
    Packet {
        flow: f,
        src,
        dst,
        psn,
        cum_ack,
        bytes: hdr,
        ev: ctrl_ev(flow),
        kind: PktKind::Ack,
        ecn: false,
    }
}

/// Flow `f` starts now: its sender opens (or waits for an entry).
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let h = p.flows[f as usize].spec.src;
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    fs.sent = bits(fs.pkts);
    fs.last_news = p.now;
    fs.tx = TxPhase::Waiting;
    st.hosts[h as usize].tx_wait.push(f);
    cx.progress();
    tx_admit(cx, h);
    let st = ph(cx.parts().transport);
    if st.flows[f as usize].tx == TxPhase::Waiting {
        st.k.tx_deferred += 1;
    }
}

/// Open waiting flows of host `h` while its sender has entries, fewest packets first:
/// each sends its RTS, its free packets start.
fn tx_admit(cx: &mut Cx, h: u32) {
    loop {
        let p = cx.parts();
        let now = p.now;
        let st = ph(p.transport);
        let hs = &mut st.hosts[h as usize];
        let Some(i) = (0..hs.tx_wait.len()).min_by_key(|&i| {
            let f = hs.tx_wait[i];
            (st.flows[f as usize].pkts, f)
        }) else {
            break;
        };
        let f = hs.tx_wait[i];
        let fs = &mut st.flows[f as usize];
        hs.tx_sync(now);
        if hs.tx.open(f, fs.pkts, fs.free).is_err() {
            // No free entry: the flows wait for one.
            break;
        }
        hs.tx_wait.swap_remove(i);
        let _ = hs.tx.take_rts();
        fs.tx = TxPhase::Open;
        fs.last_news = now;
        st.k.rts_sent += 1;
        let hdr = p.hdr_bytes;
        let flow = &mut p.flows[f as usize];
        let rts = ctrl(flow, f, h, flow.spec.dst, RTS, fs.pkts, hdr);
        let at = now + st.p.rts_timeout_ps;
        cx.send_ctrl(h, rts);
        arm_flow(cx, f, at);
        cx.kick(h);
    }
}

/// Arm flow `f`'s timer (its sender's RTS re-send check) at `at`.
fn arm_flow(cx: &mut Cx, f: u32, at: Time) {
    let flow = cx.flow(f);
    if at < flow.timer_at {
        flow.timer_at = at;
        cx.arm(at, Kind::FlowTimer, f);
    }
}

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    match pk.kind {
        PktKind::Data => rx_data(cx, h, pk),
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            match pk.psn {
                RTS => rx_rts(cx, h, pk.flow),
                DONE => tx_done(cx, h, pk.flow),
                _ => tx_token(cx, h, pk),
            }
        }
        // No trimming under pHost (refused); nothing else is sent.
        PktKind::Header => {
            let c = cx.counters();
            c.headers_delivered += 1;
            c.ctrl_delivered += 1;
        }
        PktKind::Nack
        | PktKind::Sim
        | PktKind::SimAck
        | PktKind::DataAck
        | PktKind::PimRts
        | PktKind::PimGrant
        | PktKind::PimAccept => {}
    }
}

/// Bring host `h`'s token scheduler to now, event by event, sending each token it hands
/// out (naming the flow's next missing PSN).
fn rx_sync(cx: &mut Cx, h: u32) {
    let mut out = {
        let p = cx.parts();
        let target = p.now + 1;
        let hdr = p.hdr_bytes;
        let st = ph(p.transport);
        let mut out = std::mem::take(&mut st.scratch);
        let rx = &mut st.hosts[h as usize].rx;
        let windowed = rx.config().window > 0;
        while rx.now() < target {
            let step = rx.quiet_cycles().saturating_add(1).min(target - rx.now());
            rtl_models::Clocked::advance(&mut **rx, step);
            let Some(t) = rx.take_token() else { continue };
            let fs = &mut st.flows[t.flow as usize];
            let Some(psn) = fs.next_token_psn() else {
                continue;
            };
            if windowed {
                fs.tok_issued += 1;
                if fs.tok_of.is_empty() {
                    fs.tok_of = vec![0; fs.pkts as usize];
                }
                fs.tok_of[psn as usize] = fs.tok_issued;
            }
            st.k.tokens_sent += 1;
            let flow = &mut p.flows[t.flow as usize];
            let ns = (t.expiry / 1000) as u32;
            out.push(ctrl(flow, t.flow, h, flow.spec.src, psn, ns, hdr));
        }
        out
    };
    for pk in out.drain(..) {
        cx.send_ctrl(h, pk);
    }
    ph(cx.parts().transport).scratch = out;
}

/// Arm host `h`'s timer at its token scheduler's next event.
fn rx_arm(cx: &mut Cx, h: u32) {
    let p = cx.parts();
    let hs = &mut ph(p.transport).hosts[h as usize];
    let q = hs.rx.quiet_cycles();
    if q == u64::MAX {
        return;
    }
    let at = hs.rx.now().saturating_add(q).max(p.now);
    if at < hs.timer_at {
        hs.timer_at = at;
        cx.arm(at, Kind::HostTimer, h);
    }
}

/// Register a flow with host `h`'s token scheduler, or queue it if the table is full.
fn rx_register(st: &mut PhostState, h: u32, w: RxWait) {
    let (f, size, free) = w;
    let hs = &mut st.hosts[h as usize];
    if hs.rx.on_rts(f, size, free).is_err() {
        hs.rx_wait.push(w);
        st.flows[f as usize].rx_waiting = true;
        st.k.rx_deferred += 1;
    }
}

/// Register waiting flows while host `h`'s token scheduler has entries, fewest packets
/// to grant first.
fn rx_admit(st: &mut PhostState, h: u32) {
    let hs = &mut st.hosts[h as usize];
    while let Some(i) = (0..hs.rx_wait.len()).min_by_key(|&i| {
        let (f, size, free) = hs.rx_wait[i];
        (size - free.min(size), f)
    }) {
        let (f, size, free) = hs.rx_wait[i];
        if hs.rx.on_rts(f, size, free).is_err() {
            break;
        }
        hs.rx_wait.swap_remove(i);
        st.flows[f as usize].rx_waiting = false;
    }
}

/// An RTS of flow `f` reached its destination `h`.
fn rx_rts(cx: &mut Cx, h: u32, f: u32) {
    rx_sync(cx, h);
    let p = cx.parts();
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    if fs.complete {
        // The DONE was lost (or crossed the RTS): again.
        let hdr = p.hdr_bytes;
        let flow = &mut p.flows[f as usize];
        let done = ctrl(flow, f, h, flow.spec.src, DONE, 0, hdr);
        cx.send_ctrl(h, done);
    } else if !fs.rts_seen {
        fs.rts_seen = true;
        if fs.got.is_empty() {
            fs.got = bits(fs.pkts);
        }
        fs.cursor = fs.free;
        let w = (f, fs.pkts, fs.free);
        rx_register(st, h, w);
    } else if !fs.rx_waiting && st.hosts[h as usize].rx.flow(f).is_none() {
        // Everything was granted, yet packets are missing: grant them again.
        let missing = fs.pkts - fs.received;
        fs.cursor = 0;
        st.k.regrants += 1;
        rx_register(st, h, (f, missing, 0));
    }
    rx_arm(cx, h);
}

/// A DATA reached its destination `h`.
fn rx_data(cx: &mut Cx, h: u32, pk: Packet) {
    rx_sync(cx, h);
    let f = pk.flow;
    let psn = pk.psn & !ON_TOKEN;
    let p = cx.parts();
    p.c.data_delivered += 1;
    let st = ph(p.transport);
    let hs = &mut st.hosts[h as usize];
    let fs = &mut st.flows[f as usize];
    if pk.psn & ON_TOKEN != 0 {
        hs.rx.on_data(f);
        if let Some(&n) = fs.tok_of.get(psn as usize) {
            // The window counts from the latest token answered (forgiving earlier ones).
            fs.tok_answered = fs.tok_answered.max(n);
            hs.rx.forgive(f, fs.tok_issued - fs.tok_answered);
        }
    }
    let (new, done) = if fs.complete {
        (false, false)
    } else {
        if fs.got.is_empty() {
            fs.got = bits(fs.pkts);
        }
        let new = set(&mut fs.got, psn);
        fs.received += u32::from(new);
        if new {
            hs.rx.on_received(f);
        }
        let done = fs.received == fs.pkts;
        if done {
            fs.complete = true;
            fs.got = Vec::new();
            hs.rx.remove(f);
        }
        (new, done)
    };
    if !new {
        st.k.duplicates += 1;
    }
    let received = fs.received;
    let (sent, resent) = (fs.data_sent, fs.resent);
    rx_admit(st, h);
    let mut clean = pk;
    clean.psn = psn;
    cx.metrics_data(&clean, new, received);
    if new {
        cx.progress();
    }
    if done {
        cx.flow_done(f);
        let hdr = cx.hdr_bytes();
        let flow = cx.flow(f);
        // The sender's numbers as they stand (it has sent every packet).
        flow.stats.packets_sent = sent;
        flow.stats.retransmits = resent;
        let dst = flow.spec.src;
        let done = ctrl(flow, f, h, dst, DONE, 0, hdr);
        cx.send_ctrl(h, done);
    }
    rx_arm(cx, h);
}

/// A token reached flow `pk.flow`'s source `h`.
fn tx_token(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    let p = cx.parts();
    let now = p.now;
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    if fs.tx != TxPhase::Open {
        st.k.tokens_late += 1;
        return;
    }
    fs.last_news = now;
    let hs = &mut st.hosts[h as usize];
    hs.tx_sync(now);
    // The expiry in ns, 32 bits: read relative to now (within +-2^31 ns).
    let now_ns = now / 1000;
    let d = i64::from(pk.cum_ack.wrapping_sub(now_ns as u32) as i32);
    let expiry = (now_ns as i64 + d).max(0) as u64 * 1000;
    let token = Token { flow: f, expiry };
    // Dead on arrival or no room: the block counts it.
    if expiry <= now || hs.held.len() >= TOKENS {
        hs.tx.on_token(token);
        return;
    }
    // A PSN sent before (lost, or its flow entry gone): one more packet to send.
    if (get(&fs.sent, pk.psn) || hs.tx.flow(f).is_none()) && hs.tx.add(f, 1).is_err() {
        st.k.tokens_no_entry += 1;
        return;
    }
    hs.tx.on_token(token);
    hs.held.push(Held {
        flow: f,
        expiry,
        psn: pk.psn,
    });
    cx.kick(h);
}

/// The DONE of flow `f` reached its source `h`: the flow is closed there.
fn tx_done(cx: &mut Cx, h: u32, f: u32) {
    let p = cx.parts();
    let st = ph(p.transport);
    let fs = &mut st.flows[f as usize];
    if fs.tx == TxPhase::Done {
        return;
    }
    fs.tx = TxPhase::Done;
    fs.sent = Vec::new();
    let flow = &mut p.flows[f as usize];
    flow.stats.packets_sent = fs.data_sent;
    flow.stats.retransmits = fs.resent;
    st.hosts[h as usize].tx.close(f);
    tx_admit(cx, h);
}

/// The next DATA host `h` sends: a token's packet (SRPT over its flows), else a free one.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    let p = cx.parts();
    let now = p.now;
    let st = ph(p.transport);
    let hs = &mut st.hosts[h as usize];
    hs.tx_sync(now);
    let mut admit = false;
    let (f, psn, free) = loop {
        let Some(tp) = hs.tx.next_packet() else {
            break (0, None, false);
        };
        let fs = &mut st.flows[tp.flow as usize];
        // pHost: no token outlives its expiry (the block dropped those at tx_sync).
        debug_assert!(
            tp.token_expiry.is_none_or(|e| e > now),
            "spent an expired token"
        );
        let psn = match tp.token_expiry {
            Some(e) => match hs
                .held
                .iter()
                .position(|t| t.flow == tp.flow && t.expiry == e)
            {
                Some(i) => Some(hs.held.swap_remove(i).psn),
                None => fs.next_free_psn(),
            },
            None => fs.next_free_psn(),
        };
        // An entry freed: a waiting flow opens from the host timer (not inside the pull).
        admit |= hs.tx.flow(tp.flow).is_none() && !hs.tx_wait.is_empty();
        if psn.is_some() {
            break (tp.flow, psn, tp.free);
        }
    };
    if admit && now < hs.timer_at {
        hs.timer_at = now;
    } else {
        admit = false;
    }
    let pk = psn.map(|psn| {
        let fs = &mut st.flows[f as usize];
        if set(&mut fs.sent, psn) {
            fs.sent_n += 1;
        } else {
            fs.resent += 1;
        }
        fs.data_sent += 1;
        fs.last_news = now;
        if free {
            st.k.free_data += 1;
        } else {
            st.k.token_data += 1;
        }
        let mtu = u64::from(st.p.mtu);
        let flow = &mut p.flows[f as usize];
        let payload = if psn + 1 == fs.pkts {
            flow.spec
                .bytes
                .saturating_sub(u64::from(psn) * mtu)
                .min(mtu)
        } else {
            mtu
        } as u32;
        let now_c = flow.clock.cycle_at(now);
        let ev = flow.lb.on_send(now_c, &mut flow.rng);
        p.c.data_sent += 1;
        Packet {
            flow: f,
            src: h,
            dst: flow.spec.dst,
            psn: psn | if free { 0 } else { ON_TOKEN },
            cum_ack: 0,
            bytes: payload + p.hdr_bytes,
            ev,
            kind: PktKind::Data,
            ecn: false,
        }
    });
    if admit {
        cx.arm(now, Kind::HostTimer, h);
    }
    pk
}

/// A timer of pHost: `HostTimer` (host `i`'s token scheduler, waiting flows) or
/// `FlowTimer` (flow `i`'s RTS re-send check).
pub(crate) fn timer(cx: &mut Cx, kind: Kind, i: u32) {
    let now = cx.now();
    match kind {
        Kind::HostTimer => {
            let hs = &mut ph(cx.parts().transport).hosts[i as usize];
            if hs.timer_at != now {
                return;
            }
            hs.timer_at = NEVER;
            rx_sync(cx, i);
            tx_admit(cx, i);
            rx_arm(cx, i);
        }
        Kind::FlowTimer => {
            let p = cx.parts();
            let flow = &mut p.flows[i as usize];
            if flow.timer_at != now {
                return;
            }
            flow.timer_at = NEVER;
            let (h, dst) = (flow.spec.src, flow.spec.dst);
            let st = ph(p.transport);
            let fs = &mut st.flows[i as usize];
            if fs.tx != TxPhase::Open {
                return;
            }
            let hs = &mut st.hosts[h as usize];
            // Nothing more to send on its own: every packet sent, or no free token left.
            let idle = fs.sent_n == fs.pkts || hs.tx.flow(i).is_none_or(|e| e.free == 0);
            if idle && now >= fs.last_news + st.p.rts_timeout_ps {
                fs.last_news = now;
                st.k.rts_resent += 1;
                let rts = ctrl(flow, i, h, dst, RTS, fs.pkts, p.hdr_bytes);
                let at = now + st.p.rts_timeout_ps;
                cx.send_ctrl(h, rts);
                arm_flow(cx, i, at);
            } else {
                // Still sending on its own: look again a timeout later.
                let at = if idle {
                    (fs.last_news + st.p.rts_timeout_ps).max(now + 1)
                } else {
                    now + st.p.rts_timeout_ps
                };
                arm_flow(cx, i, at);
            }
        }
        _ => {}
    }
}
