//! pHost's state in a run ([`PhostState`]: per host its `nic::phost` blocks, per flow its
//! bitmaps; the run's `phost_*` counters), installing it (`Sim::phost_setup`: the blocks'
//! clocks, token TTL, downgrade and RTS timeouts from `[transport.phost]` and the fabric's
//! base RTT), the summary counters, and pHost's control packets (RTS, token, DONE).

use super::state::{self, FlowState, HostState};
use super::ON_TOKEN;
use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::flow::{FlowRt, FlowRx};
use crate::packet::{Packet, PktKind};
use crate::results::RunResult;
use crate::scenario::Scenario;
use crate::transport::TransportDriver;
use nic::phost::{PhostReceiver, PhostReceiverConfig};

/// Run-wide constants.
#[derive(Debug, Clone, Copy)]
pub(super) struct Params {
    pub(super) mtu: u32,
    pub(super) rts_timeout_ps: u64,
    /// Packets a flow may send on free tokens (the first BDP).
    pub(super) free_pkts: u32,
    /// `free_small_flows_only`: only flows of at most `free_pkts` packets get them.
    pub(super) free_small_only: bool,
}

impl Params {
    /// A flow of `bytes` bytes: its packets, free packets and last payload; the error
    /// names `workload.message` for a flow of 2^31 packets or more (bit 31 of a DATA's
    /// PSN is the on-token flag).
    pub(super) fn flow(&self, bytes: u64) -> Result<FlowState> {
        let mtu = self.mtu.max(1);
        let pkts = bytes.div_ceil(u64::from(mtu)).max(1);
        if pkts >= u64::from(ON_TOKEN) {
            return Err(Error::field(
                "workload.message",
                format!("a flow of {pkts} packets: pHost numbers packets below 2^31"),
            ));
        }
        let pkts = pkts as u32;
        let free = if self.free_small_only && pkts > self.free_pkts {
            0
        } else {
            pkts.min(self.free_pkts)
        };
        let tail = bytes.saturating_sub(u64::from(pkts - 1) * u64::from(mtu));
        Ok(FlowState::new(pkts, free, tail.min(u64::from(mtu)) as u32))
    }
}

impl PhostState {
    /// Flow `f` (not started) now has `bytes` bytes (`Sim::set_flow`): its packet counts
    /// follow; the error names `workload.message` as [`Params::flow`] does.
    pub(crate) fn respec(&mut self, f: u32, bytes: u64) -> Result<()> {
        self.flows[f as usize] = self.p.flow(bytes)?;
        Ok(())
    }
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
    pub(super) p: Params,
    pub(super) hosts: Vec<HostState>,
    pub(super) flows: Vec<FlowState>,
    pub(super) k: Counters,
    pub(super) scratch: Vec<Packet>,
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

/// The receiver block for scenario `s` on `fabric` (base RTT `base_rtt_ps`, BDP
/// `bdp_bytes`), idle: each time of its configuration in ps of the 1 ps block clock. The run's
/// build and validation ([`crate::validate`], so `--dry-run` refuses what the run would) both
/// call it; errors name the field whose value gives a time outside `1 ..= u32::MAX` ps, or
/// that the block refuses (`PhostReceiver::new` validates the configuration, once).
pub(crate) fn receiver(
    s: &Scenario,
    fabric: &crate::topology::Fabric,
    base_rtt_ps: u64,
    bdp_bytes: u64,
) -> Result<PhostReceiver<{ state::FLOWS }>> {
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
    PhostReceiver::new(cfg).map_err(|e| cfg_err("transport.phost", e))
}

impl Sim {
    /// Install pHost for scenario `s`.
    pub(crate) fn phost_setup(&mut self, s: &Scenario) -> Result<()> {
        let sec = &s.transport.phost;
        let mtu = s.transport.mtu.max(1);
        let rtt = self.base_rtt_ps as f64;
        let rx = receiver(s, &self.fabric, self.base_rtt_ps, self.bdp_bytes)?;
        let free_pkts = ((sec.free_bdp * self.bdp_bytes as f64) / f64::from(mtu)).ceil();
        let free_pkts = free_pkts.min(f64::from(u32::MAX)) as u32;
        let p = Params {
            mtu,
            rts_timeout_ps: (sec.rts_timeout_rtts * rtt).round().max(1.0) as u64,
            free_pkts,
            free_small_only: sec.free_small_flows_only,
        };
        let mut flows = Vec::with_capacity(self.flows.len());
        for f in &mut self.flows {
            flows.push(p.flow(f.spec.bytes)?);
            f.rx = FlowRx::InTransport;
        }
        let hosts = (0..self.fabric.hosts)
            .map(|_| HostState::new(rx.clone()))
            .collect();
        self.transport = TransportDriver::Phost(Box::new(PhostState {
            p,
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
pub(super) fn ph(t: &mut TransportDriver) -> &mut PhostState {
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
pub(super) fn ctrl(
    flow: &mut FlowRt,
    f: u32,
    src: u32,
    dst: u32,
    psn: u32,
    cum_ack: u32,
    hdr: u32,
) -> Packet {
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
