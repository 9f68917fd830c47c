//! pFabric in the fabric (`transport.cc = "pfabric"`): Alizadeh et al., "pFabric: Minimal
//! Near-Optimal Datacenter Transport", SIGCOMM 2013, sections 4.1-4.3, as DCSIM's paper
//! uses it (DCSIM section 4.1 "Algorithms"; section 5 "Priorities").
//!
//! ```text
//!  source host                              switch ports              destination host
//!  +-------------------------------------+  +-----------------------+  +----------------+
//!  | per flow PfTx (pfabric/flow.rs):    |  | PortDriver::Pfabric:  |  | PfRx: ACK      |
//!  |  PfabricRate (nic): window 1 BDP,   |->| priority buffer of    |->|  every DATA    |
//!  |  fixed RTO, window 1 on timeout,    |  | `buffer` packets      |  |  (SACK psn +   |
//!  |  probe mode after `probe_after`     |  | (switch::pfabric):    |  |  cumulative)   |
//!  | NIC: the ready flow with the least  |  | least remaining first,|  +----------------+
//!  |  remaining bytes first (host SRPT)  |  | drop the most         |   ACKs: control
//!  +-------------------------------------+  +-----------------------+   lane (strict)
//! ```
//!
//! * **Priority** (4.1): every DATA and probe carries its flow's remaining size (bytes not
//!   yet acknowledged) when it was sent. The header field rides in a side table
//!   ([`SideTable`]): the packet's `psn` names a slot holding (PSN, priority), taken back
//!   when the packet reaches its host (the PSN restored) or is dropped.
//! * **Switches** (4.2): [`crate::port::pfabric`], the `switch` crate's `PfabricPort`:
//!   dequeue the earliest packet of the flow of the most urgent packet, drop the least
//!   urgent on overflow. Buffer: `[transport.pfabric] buffer` (default `topology.buffer`, the
//!   per-port buffer DCSIM's section 4.1 gives every algorithm; pFabric's own setting is
//!   about 2 BDP: `buffer = "2bdp"`).
//! * **Hosts** (4.3): the NIC sends from the ready flow with the least remaining bytes
//!   (the host's own priority queue; ties: the flow ready first); each flow starts at line
//!   rate with a window of `window_bdp` BDPs, has a fixed RTO of `rto_rtts` base RTTs, cuts
//!   its window to one packet on a timeout and grows it by one per ACK, and probes (a
//!   header-only packet of its priority, [`PktKind::Header`]) after `probe_after`
//!   consecutive timeouts. The receiver ACKs every DATA (selective, with the cumulative
//!   point); a timeout retransmits every unacknowledged packet sent before it.
//!
//! `transport.init_cwnd` and `transport.rto_us` do not apply (pFabric's own window and RTO
//! are above); trimming, phantom queues, two datacenters, UnoLB and the
//! REPS baseline balancers are refused by validation ([`check_supported`]).

pub mod flow;

use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::event::{Kind, NEVER};
use crate::packet::{Packet, PktKind};
use crate::port::pfabric::{PfabricPortRt, PF_SLOTS};
use crate::port::PortDriver;
use crate::results::RunResult;
use crate::scenario::{LbKind, Scenario, Size, TopologyKind};
use crate::transport::ctx::Cx;
use crate::transport::side::SideTable;
use crate::transport::TransportDriver;
use crate::units::num;
use flow::{Next, PfRx, PfTx, TxStats};
use nic::lb::LoadBalancer;
use nic::pfabric::PfabricRateConfig;
use serde::{Deserialize, Serialize};

/// The side-table PSN of a probe (and the `psn` of a probe's ACK).
pub const PROBE: u32 = u32::MAX;

/// `[transport.pfabric]`: pFabric's parameters (defaults from pFabric section 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PfabricSection {
    /// Buffer of every switch port (bytes, or a multiple of the BDP like "2bdp"), held as
    /// whole DATA packets (`mtu + header_bytes`); absent: `topology.buffer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Size>,
    /// Initial and largest window in BDPs (pFabric 4.3: 1, line rate).
    pub window_bdp: f64,
    /// The fixed retransmission timeout in base RTTs (pFabric 4.3: about 3).
    pub rto_rtts: f64,
    /// Consecutive timeouts before probe mode (pFabric 4.3: 5).
    pub probe_after: u32,
}

impl Default for PfabricSection {
    fn default() -> Self {
        PfabricSection {
            buffer: None,
            window_bdp: 1.0,
            rto_rtts: 3.0,
            probe_after: 5,
        }
    }
}

impl PfabricSection {
    /// The defaults (the section is then left out of a written `scenario.toml`).
    pub fn is_default(&self) -> bool {
        *self == PfabricSection::default()
    }

    /// Check the section (whatever `cc` is); errors name `transport.pfabric.<field>`.
    pub fn check(&self) -> Result<()> {
        let range = |name: &str, v: f64, lo: f64, hi: f64| -> Result<()> {
            if !v.is_finite() || v < lo || v > hi {
                return Err(Error::field(
                    format!("transport.pfabric.{name}"),
                    format!("must be a number in {lo} ..= {hi}, got {}", num(v)),
                ));
            }
            Ok(())
        };
        range("window_bdp", self.window_bdp, 0.001, 64.0)?;
        range("rto_rtts", self.rto_rtts, 0.1, 1e6)?;
        if !(1..=255).contains(&self.probe_after) {
            return Err(Error::field(
                "transport.pfabric.probe_after",
                format!("must be between 1 and 255, got {}", self.probe_after),
            ));
        }
        if let Some(b) = self.buffer {
            crate::units::check_size("transport.pfabric.buffer", b)?;
        }
        Ok(())
    }
}

/// The refusals of `cc = "pfabric"` (called by [`crate::validate`]).
pub fn check_supported(s: &Scenario) -> Result<()> {
    let no = |field: &str, what: &str| Err(Error::field(field, what.to_string()));
    if s.transport.trimming {
        return no(
            "transport.trimming",
            "pFabric drops by priority and does not trim: set it to false with cc = \"pfabric\"",
        );
    }
    if s.topology.phantom_queue {
        return no(
            "topology.phantom_queue",
            "pFabric ports have no phantom queue: set it to false with cc = \"pfabric\"",
        );
    }
    if !matches!(
        s.transport.lb,
        LbKind::Ecmp | LbKind::Ops | LbKind::Reps | LbKind::SprayRr
    ) {
        return no(
            "transport.lb",
            "cc = \"pfabric\" runs with ecmp, ops (pFabric's packet spraying), spray_rr or reps",
        );
    }
    if s.topology.kind == TopologyKind::TwoDc {
        return no(
            "transport.cc",
            "pfabric on a two_dc topology is not supported yet by the fabric simulator (one \
             fabric-wide RTO and window; use a fat_tree)",
        );
    }
    Ok(())
}

/// The per-port buffer of a pFabric run, packets, from its section, `topology.buffer`
/// resolved (`buffer_bytes`) and the BDP; the error names the field that sets it.
pub fn buffer_pkts(s: &Scenario, buffer_bytes: u64, bdp_bytes: u64) -> Result<usize> {
    let wire = u64::from(s.transport.mtu + s.transport.header_bytes).max(1);
    let (field, bytes) = match s.transport.pfabric.buffer {
        Some(b) => ("transport.pfabric.buffer", b.bytes(bdp_bytes)),
        None => ("topology.buffer", buffer_bytes),
    };
    let pkts = bytes / wire;
    if pkts == 0 || pkts > PF_SLOTS as u64 {
        return Err(Error::field(
            field,
            format!(
                "a pFabric port holds 1 to {PF_SLOTS} DATA packets of {wire} bytes; {bytes} bytes \
                 are {pkts}"
            ),
        ));
    }
    Ok(pkts as usize)
}

/// Counters of the pFabric transport beside the senders' own.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    tx: TxStats,
    probes_delivered: u64,
}

/// The pFabric transport's state: per flow its sender and receiver, per host its ready
/// flows, the priority side table.
#[derive(Debug, Clone)]
pub struct PfabricState {
    mtu: u32,
    rate: PfabricRateConfig,
    buffer_pkts: usize,
    tx: Vec<Option<Box<PfTx>>>,
    rx: Vec<Option<Box<PfRx>>>,
    /// Per host, its flows that may send (in the order they became ready).
    ready: Vec<Vec<u32>>,
    /// (PSN or [`PROBE`], priority) of every DATA and probe in flight, named by its `psn`.
    side: SideTable<(u32, u32)>,
    totals: Totals,
}

impl PfabricState {
    /// The priority packet `pk` carries (a DATA or probe in flight).
    #[inline]
    pub(crate) fn prio_of(&self, pk: &Packet) -> u32 {
        self.side.get(pk.psn).1
    }

    /// Whether host `h` has a flow ready.
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        !self.ready[h as usize].is_empty()
    }

    /// Packet `pk` was dropped: its side-table slot taken back.
    #[inline]
    pub(crate) fn on_drop(&mut self, pk: &Packet) {
        if matches!(pk.kind, PktKind::Data | PktKind::Header) {
            self.side.take(pk.psn);
        }
    }

    /// Payload bytes of flow `f` acknowledged at its sender.
    pub(crate) fn acked_bytes(&self, f: u32) -> u64 {
        self.tx[f as usize].as_deref().map_or(0, PfTx::acked_bytes)
    }

    /// Flow `f`'s sender as Wormhole's steady detector and skip see it
    /// ([`crate::transport::skip`]): DATA transmissions (probes are control), timeouts as
    /// losses, the packets a fast-forward may take; `None` before it starts or once done.
    pub(crate) fn skip_view(&self, f: u32) -> Option<crate::transport::skip::SkipView> {
        let tx = self.tx[f as usize].as_deref()?;
        Some(crate::transport::skip::SkipView {
            sent: tx.stats.sent,
            losses: tx.stats.timeouts,
            settled: tx.stats.settled,
            ecn: 0,
            newest: None,
            skippable: u64::from(tx.skippable()),
        })
    }

    /// The packets a fast-forward of flow `f` asked for `n` takes ([`PfTx::skippable`]).
    pub(crate) fn fast_forward_data(&self, f: u32, n: u32) -> u32 {
        self.tx[f as usize]
            .as_deref()
            .map_or(0, |tx| n.min(tx.skippable()))
    }

    /// Wormhole fast-forward of flow `f`: up to `n` never-sent packets off the end of its
    /// message at both ends ([`PfTx::fast_forward`], [`PfRx::fast_forward`]); returns how
    /// many.
    pub(crate) fn fast_forward(&mut self, f: u32, n: u32) -> u32 {
        let Some(tx) = self.tx[f as usize].as_deref_mut() else {
            return 0;
        };
        let k = tx.fast_forward(n);
        if let Some(rx) = self.rx[f as usize].as_deref_mut() {
            rx.fast_forward(k);
        }
        k
    }

    /// DATA and probes in flight (side-table slots in use).
    pub fn in_flight(&self) -> usize {
        self.side.live()
    }

    /// The per-port buffer, packets.
    pub fn buffer_pkts(&self) -> usize {
        self.buffer_pkts
    }

    /// The window of a flow at line rate, packets.
    pub fn window_pkts(&self) -> u32 {
        self.rate.init_window_pkts
    }

    /// The fixed RTO, NIC cycles.
    pub fn rto_cycles(&self) -> u32 {
        self.rate.rto_cycles
    }
}

impl Sim {
    /// Install pFabric for scenario `s`: its switch ports and its transport.
    pub(crate) fn pfabric_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.transport;
        let sec = &t.pfabric;
        let cap = buffer_pkts(s, self.buffer_bytes, self.bdp_bytes)?;
        let mtu = u64::from(t.mtu.max(1));
        let window = ((sec.window_bdp * self.bdp_bytes as f64) / mtu as f64).ceil();
        let rto = (sec.rto_rtts * self.base_rtt_ps as f64 / crate::engine::CYCLE_PS as f64).ceil();
        let rate = PfabricRateConfig {
            init_window_pkts: window.clamp(1.0, f64::from(u32::MAX >> 1)) as u32,
            rto_cycles: rto.clamp(1.0, f64::from(u32::MAX >> 1)) as u32,
            probe_after: sec.probe_after.clamp(1, 255) as u8,
        };
        rate.validate().map_err(|e| {
            Error::field(
                format!("transport.pfabric.{}", e.field),
                e.problem.to_string(),
            )
        })?;
        for p in self.fabric.hosts as usize..self.ports.len() {
            let pf =
                PfabricPortRt::new(cap).map_err(|e| Error::field("transport.pfabric.buffer", e))?;
            self.ports[p].kind = PortDriver::Pfabric(Box::new(pf));
        }
        let n = self.flows.len();
        for f in &mut self.flows {
            f.rx = crate::flow::FlowRx::InTransport;
        }
        self.transport = TransportDriver::Pfabric(Box::new(PfabricState {
            mtu: t.mtu,
            rate,
            buffer_pkts: cap,
            tx: vec![None; n],
            rx: vec![None; n],
            ready: vec![Vec::new(); self.fabric.hosts as usize],
            side: SideTable::default(),
            totals: Totals::default(),
        }));
        Ok(())
    }
}

/// The pFabric state of a pFabric run.
#[inline]
fn pf(t: &mut TransportDriver) -> &mut PfabricState {
    match t {
        TransportDriver::Pfabric(p) => p,
        _ => unreachable!("pFabric transport calls run only in pFabric runs"),
    }
}

/// Flow `f` starts now: its sender and receiver.
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let flow = &p.flows[f as usize];
    let now_c = flow.clock.cycle_at(p.now);
    let bytes = flow.spec.bytes;
    let st = pf(p.transport);
    let tx = PfTx::new(bytes, st.mtu, st.rate, now_c);
    let pkts = bytes.div_ceil(u64::from(st.mtu.max(1))).max(1) as u32;
    st.rx[f as usize] = Some(Box::new(PfRx::new(pkts)));
    st.tx[f as usize] = Some(Box::new(tx));
    cx.progress();
    after_change(cx, f);
}

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, mut pk: Packet) {
    let f = pk.flow;
    match pk.kind {
        PktKind::Data | PktKind::Header => {
            let p = cx.parts();
            let st = pf(p.transport);
            let (psn, _) = st.side.take(pk.psn);
            let probe = pk.kind == PktKind::Header;
            if probe {
                p.c.ctrl_delivered += 1;
                st.totals.probes_delivered += 1;
            } else {
                p.c.data_delivered += 1;
            }
            let Some(rx) = st.rx[f as usize].as_deref_mut() else {
                return;
            };
            let (new, cum) = if probe {
                (false, rx.cum())
            } else {
                rx.on_data(psn)
            };
            pk.psn = psn;
            if !probe {
                cx.metrics_data(&pk, new, cum);
            }
            cx.reply(h, &pk, PktKind::Ack, psn, cum, false);
        }
        PktKind::Ack => {
            let p = cx.parts();
            p.c.ctrl_delivered += 1;
            let flow = &mut p.flows[f as usize];
            let now_c = flow.clock.cycle_at(p.now);
            let st = pf(p.transport);
            let Some(tx) = st.tx[f as usize].as_deref_mut() else {
                return;
            };
            p.c.timeouts += tx.sync(now_c);
            let psn = (pk.psn != PROBE).then_some(pk.psn);
            let newly = tx.on_ack(psn, pk.cum_ack);
            flow.lb.on_ack(now_c, pk.ev, pk.ecn);
            let done = tx.is_done();
            if done {
                let tx = st.tx[f as usize].take().expect("sender present");
                add(&mut st.totals.tx, &tx.stats);
                flow.stats = nic::transport::SenderStats {
                    packets_sent: tx.stats.sent,
                    retransmits: tx.stats.retransmits,
                    timeouts: tx.stats.timeouts,
                    ..Default::default()
                };
            }
            if newly > 0 {
                cx.progress();
            }
            if done {
                cx.flow_done(f);
                return;
            }
            after_change(cx, f);
        }
        _ => {}
    }
}

/// After anything changed flow `f`'s sender: into its host's ready flows if it may send,
/// its timer armed at the RTO deadline.
fn after_change(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let flow = &mut p.flows[f as usize];
    let h = flow.spec.src;
    let st = pf(p.transport);
    let Some(tx) = st.tx[f as usize].as_deref() else {
        return;
    };
    let sendable = tx.next().is_some();
    let deadline = tx.deadline();
    let arm = deadline.and_then(|d| flow.earlier_timer(flow.clock.start_of(d).max(p.now)));
    if sendable && !flow.in_ready {
        flow.in_ready = true;
        st.ready[h as usize].push(f);
    }
    if let Some(t) = arm {
        cx.arm(t, Kind::FlowTimer, f);
    }
    if sendable {
        cx.kick(h);
    }
}

/// Flow `f`'s timer: the RTO.
pub(crate) fn timer(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let flow = &mut p.flows[f as usize];
    if flow.timer_at != p.now {
        return;
    }
    flow.timer_at = NEVER;
    let now_c = flow.clock.cycle_at(p.now);
    if let Some(tx) = pf(p.transport).tx[f as usize].as_deref_mut() {
        p.c.timeouts += tx.sync(now_c);
        after_change(cx, f);
    }
}

/// The next packet host `h` sends: from its ready flow with the least remaining bytes.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    loop {
        let p = cx.parts();
        let now = p.now;
        let st = pf(p.transport);
        let ready = &mut st.ready[h as usize];
        let mut best: Option<(u64, usize)> = None;
        for (i, &f) in ready.iter().enumerate() {
            let r = st.tx[f as usize].as_deref().map_or(0, PfTx::remaining);
            if best.is_none_or(|(b, _)| r < b) {
                best = Some((r, i));
            }
        }
        let (_, i) = best?;
        let f = ready[i];
        let flow = &mut p.flows[f as usize];
        let now_c = flow.clock.cycle_at(now);
        let Some(tx) = st.tx[f as usize].as_deref_mut() else {
            ready.remove(i);
            flow.in_ready = false;
            continue;
        };
        p.c.timeouts += tx.sync(now_c);
        let Some(n) = tx.next() else {
            ready.remove(i);
            flow.in_ready = false;
            after_change(cx, f);
            continue;
        };
        let prio = tx.remaining().min(u64::from(u32::MAX)) as u32;
        let ev = flow.lb.on_send(now_c, &mut flow.rng);
        tx.on_sent(n);
        if tx.next().is_none() {
            ready.remove(i);
            flow.in_ready = false;
        }
        let (psn, bytes, kind) = match n {
            Next::Data { psn, .. } => (psn, tx.payload(psn) + p.hdr_bytes, PktKind::Data),
            Next::Probe => (PROBE, p.hdr_bytes, PktKind::Header),
        };
        let slot = st.side.put((psn, prio));
        let pk = Packet {
            flow: f,
            src: h,
            dst: flow.spec.dst,
            psn: slot,
            cum_ack: 0,
            bytes,
            ev,
            kind,
            ecn: false,
        };
        if kind == PktKind::Data {
            p.c.data_sent += 1;
        } else {
            p.c.ctrl_created += 1;
        }
        let deadline = tx.deadline();
        let arm = deadline.and_then(|d| flow.earlier_timer(flow.clock.start_of(d).max(now)));
        if let Some(t) = arm {
            cx.arm(t, Kind::FlowTimer, f);
        }
        return Some(pk);
    }
}

fn add(a: &mut TxStats, b: &TxStats) {
    a.sent += b.sent;
    a.retransmits += b.retransmits;
    a.probes += b.probes;
    a.timeouts += b.timeouts;
    a.probe_modes += b.probe_modes;
}

impl Sim {
    /// The pFabric counters in `r`'s summary (`extra`).
    pub(crate) fn pfabric_results(&self, r: &mut RunResult) {
        let TransportDriver::Pfabric(st) = &self.transport else {
            return;
        };
        let mut t = st.totals.tx;
        for tx in st.tx.iter().flatten() {
            add(&mut t, &tx.stats);
        }
        let (mut drops, mut evictions) = (0u64, 0u64);
        for port in &self.ports {
            if let Some(pf) = port.kind.pfabric() {
                drops += pf.drops;
                evictions += pf.evictions;
            }
        }
        let x = &mut r.summary.extra;
        x.insert("sim_drops".into(), 0.0);
        x.insert("sim_loss_rate".into(), 0.0);
        for (k, v) in [
            ("pfabric_port_drops", drops),
            ("pfabric_evictions", evictions),
            ("pfabric_timeouts", t.timeouts),
            ("pfabric_retransmits", t.retransmits),
            ("pfabric_probes", t.probes),
            ("pfabric_probes_delivered", st.totals.probes_delivered),
            ("pfabric_probe_modes", t.probe_modes),
            ("pfabric_buffer_pkts", st.buffer_pkts as u64),
            ("pfabric_window_pkts", u64::from(st.rate.init_window_pkts)),
        ] {
            x.insert(k.into(), v as f64);
        }
    }
}

#[cfg(test)]
mod tests;
