//! Transports: what a host runs per flow (sender, receiver, timers, the packet kinds it
//! owns) behind one driver, [`TransportDriver`], statically dispatched (an enum, a `match`
//! per call, no `dyn` per packet). The engine knows no transport: it calls
//!
//! * [`Sim::transport_open`] when a flow arrives,
//! * [`Sim::transport_arrive`] when a packet reaches a host,
//! * [`Sim::transport_pull`] when a host NIC that pulls DATA from its flows is free,
//! * [`Sim::transport_timer`] for the timer kinds it owns ([`Kind::FlowTimer`] for
//!   [`dctcp`], [`Kind::HostTimer`] for [`dcsim`]),
//! * [`TransportDriver::on_drop`] for every packet dropped anywhere,
//! * [`Sim::transport_results`] at the end.
//!
//! The implementations:
//!
//! * [`dctcp`]: the DCTCP-style window transport (`transport.cc = "dctcp"`): the `nic`
//!   crate's `DctcpSender` per flow with its RTO timer, the REPS failure detector, the
//!   `SackReceiver` (ACK / NACK) in [`crate::flow::FlowRx::Sack`], and the host's
//!   round-robin ring of ready flows ([`Dctcp`]).
//! * [`dcsim`]: DCSIM (`transport.cc = "dcsim"`): host engines, receivers and counters in
//!   [`crate::dcsim::DcsimState`], its ports behind [`crate::port::PortDriver::Dcsim`].
//! * [`dcpim`]: dcPIM (`transport.cc = "dcpim"`, a DCSIM baseline): epoch matching by
//!   RTS / GRANT / ACCEPT control packets, per-host rings and per-flow bitmaps in
//!   [`dcpim::DcpimState`]; its epoch steps are [`Kind::HostTimer`], its retransmission
//!   timer per flow [`Kind::FlowTimer`].
//! * [`uno`]: Uno (`transport.cc = "uno"`: UnoCC, UnoRC erasure-coded blocks, UnoLB) and its
//!   baselines (`"gemini"`, `"mprdma_bbr"`): senders, receivers and ready rings in
//!   [`uno::UnoState`]; its one timer per flow is [`Kind::FlowTimer`].
//! * [`pfabric`]: pFabric (`transport.cc = "pfabric"`, a DCSIM baseline): senders,
//!   receivers, ready flows and the priority side table in [`pfabric::PfabricState`], its
//!   switch ports behind [`crate::port::PortDriver::Pfabric`]; one [`Kind::FlowTimer`] per
//!   flow (the fixed RTO).
//! * [`phost`]: pHost (`transport.cc = "phost"`, a DCSIM baseline): per host the `nic::phost`
//!   token scheduler and sender in [`phost::PhostState`], the receiver's token pacing on
//!   [`Kind::HostTimer`], the sender's RTS re-send check on [`Kind::FlowTimer`].
//!
//! What a driver may touch of the engine is a type, [`ctx::Cx`]: its per-event functions
//! (`open`, `arrive`, `pull`, `timer`, DCSIM's `departing` / `departed`) are free
//! functions of their module taking a `&mut Cx` (now, the flows, the counters, their own
//! state, send a control packet, kick or serve the host's NIC, arm their own timer kinds,
//! drop, metrics, progress, completion), never `Sim`. Setting up a run and collecting its
//! results ([`Sim::transport_setup`], [`Sim::transport_results`]) see the whole engine.
//! All three implementations (DCTCP-style, DCSIM, Uno) are written this way. Zeropod is not
//! a driver: its pods are a slotted region with their own run path ([`crate::zeropod`]).
//! Header extras a [`crate::packet::Packet`] cannot carry go to a [`side::SideTable`]
//! (DCSIM's DATA-ACK SACK words today).
//!
//! Each transport's parameters are one `[transport.<name>]` section whose struct and checks
//! live next to its code: [`reps`] (`[transport.reps]`, the REPS load balancer's knobs),
//! [`crate::dcsim::section`] (`[transport.dcsim]`), [`uno`] (`[transport.uno]`) and
//! [`zeropod`] (`[transport.zeropod]`).

pub(crate) mod ctx;
pub mod dcpim;
pub mod dcsim;
pub mod dctcp;
pub mod pfabric;
pub mod phost;
pub mod reps;
pub mod side;
pub(crate) mod skip;
pub mod uno;
pub mod zeropod;

use crate::dcsim::DcsimState;
use crate::engine::Sim;
use crate::error::Result;
use crate::event::Kind;
use crate::flow::{FlowRx, Receiver};
use crate::packet::Packet;
use crate::results::RunResult;
use crate::scenario::{CcKind, Scenario};
use ctx::Cx;
use std::collections::VecDeque;

/// The DCTCP-style transport's own state beside its per-flow blocks ([`crate::flow::FlowRt`]):
/// per host, the round-robin ring of flows whose window is open.
#[derive(Debug, Clone, Default)]
pub struct Dctcp {
    ready: Vec<VecDeque<u32>>,
    /// `transport.cc = "mprdma"`: senders with MPRDMA's per-ACK cut
    /// ([`crate::flow::Cc::Mprdma`]) instead of DCTCP's.
    mprdma: bool,
    /// Senders of completed flows, kept for the next flows to open ([`dctcp::open`] resets
    /// one in place with [`nic::transport::DctcpSender::reset`]; a `Box::new` of a new
    /// sender builds its ~9 KB elsewhere and copies it in). Allocation reuse only: a reset
    /// sender equals a new one, so results do not depend on it.
    spare: Vec<Box<crate::flow::Sender>>,
}

impl Dctcp {
    /// Keep flow sender `cc`'s allocation for a later [`dctcp::open`] (a closed flow's).
    #[inline]
    pub(crate) fn recycle(&mut self, cc: Option<crate::flow::Cc>) {
        if let Some(crate::flow::Cc::Dctcp(s)) = cc {
            self.spare.push(s);
        }
    }

    /// The state of a fabric of `hosts` hosts.
    pub fn new(hosts: usize) -> Dctcp {
        Dctcp {
            ready: vec![VecDeque::new(); hosts],
            mprdma: false,
            spare: Vec::new(),
        }
    }
}

/// The transport of a run: one variant per implementation.
#[derive(Debug, Clone)]
pub enum TransportDriver {
    /// The DCTCP-style window transport ([`dctcp`]).
    Dctcp(Dctcp),
    /// DCSIM ([`dcsim`]; boxed: its host engines).
    Dcsim(Box<DcsimState>),
    /// Uno and its baselines ([`uno`]; boxed: per-flow senders and receivers).
    Uno(Box<uno::UnoState>),
    /// pFabric ([`pfabric`]; boxed: per-flow senders and receivers).
    Pfabric(Box<pfabric::PfabricState>),
    /// pHost ([`phost`]; boxed: per-host token blocks, per-flow bitmaps).
    Phost(Box<phost::PhostState>),
    /// dcPIM ([`dcpim`]; boxed: per-host matching registers, per-flow bitmaps).
    Dcpim(Box<dcpim::DcpimState>),
}

impl TransportDriver {
    /// The receiver side of a new flow under transport `cc`: the DCTCP SACK receiver in
    /// the flow, or nothing there for DCSIM (its receivers are in its own table).
    pub(crate) fn flow_rx(cc: CcKind) -> FlowRx {
        match cc {
            CcKind::Dcsim
            | CcKind::Uno
            | CcKind::Gemini
            | CcKind::MprdmaBbr
            | CcKind::Pfabric
            | CcKind::Phost
            | CcKind::Dcpim => FlowRx::InTransport,
            _ => FlowRx::Sack(Receiver::new()),
        }
    }

    /// The ready ring of host `h` (DCTCP; DCSIM hosts have none: an empty ring).
    #[inline]
    pub(crate) fn ready(&mut self, h: u32) -> &mut VecDeque<u32> {
        match self {
            TransportDriver::Dctcp(d) => &mut d.ready[h as usize],
            TransportDriver::Uno(u) => u.ready(h),
            TransportDriver::Dcsim(_) => unreachable!("DCSIM hosts have no ready ring"),
            TransportDriver::Pfabric(_) => unreachable!("pFabric keeps its own ready flows"),
            TransportDriver::Phost(_) => unreachable!("pHost hosts have no ready ring"),
            TransportDriver::Dcpim(_) => unreachable!("dcPIM hosts keep their own rings"),
        }
    }

    /// Whether host `h` has a flow ready to send.
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        match self {
            TransportDriver::Dctcp(d) => !d.ready[h as usize].is_empty(),
            TransportDriver::Uno(u) => u.has_ready(h),
            TransportDriver::Pfabric(p) => p.has_ready(h),
            TransportDriver::Dcsim(_) => false,
            TransportDriver::Phost(p) => p.has_ready(h),
            TransportDriver::Dcpim(d) => d.has_ready(h),
        }
    }

    /// The DCSIM state, in a DCSIM run.
    #[inline]
    pub fn dcsim(&self) -> Option<&DcsimState> {
        match self {
            TransportDriver::Dcsim(d) => Some(d),
            _ => None,
        }
    }

    /// The DCSIM state, in a DCSIM run.
    #[inline]
    pub fn dcsim_mut(&mut self) -> Option<&mut DcsimState> {
        match self {
            TransportDriver::Dcsim(d) => Some(d),
            _ => None,
        }
    }

    /// Packet `pk` was dropped (any cause, anywhere): the transport's own accounting.
    #[inline]
    pub(crate) fn on_drop(&mut self, pk: &Packet) {
        match self {
            TransportDriver::Dctcp(_) | TransportDriver::Uno(_) | TransportDriver::Phost(_) => {}
            TransportDriver::Dcsim(d) => d.on_drop(pk),
            TransportDriver::Pfabric(p) => p.on_drop(pk),
            TransportDriver::Dcpim(d) => d.on_drop(pk),
        }
    }

    /// Move the transport state of hosts `hosts` and flows `flows` (a partition; every flow
    /// of a host shares its NIC port, so a host is in exactly one) `delta` ps later: every
    /// absolute time it holds. DCTCP keeps none beside the flows' own clocks and timers
    /// (shifted with the flows by [`Sim::shift_partition`]); DCSIM moves its hosts' clocks,
    /// receiver deadlines and timers ([`DcsimState::shift`]); Uno its senders' send times
    /// and timeout FIFOs and its receivers' block timers ([`uno::UnoState::shift_flows`]);
    /// pHost its hosts' block clocks, held tokens and timers and its flows' RTS re-send
    /// clocks (`phost::PhostState::shift`).
    pub fn shift(&mut self, hosts: &[u32], flows: &[u32], delta: u64) {
        match self {
            // pFabric: its timers are the flows' and its rate blocks count cycles of the
            // flows' clocks (shifted with them).
            // dcPIM: its epoch clock is global (partition shift is not supported with it).
            TransportDriver::Dctcp(_) | TransportDriver::Pfabric(_) | TransportDriver::Dcpim(_) => {
            }
            TransportDriver::Phost(st) => st.shift(hosts, flows, delta),
            TransportDriver::Uno(u) => u.shift_flows(flows, delta),
            TransportDriver::Dcsim(d) => d.shift(hosts, flows, delta),
        }
    }

    /// Flow `f` (not started) now has `bytes` bytes ([`Sim::set_flow`]): the transports that
    /// size a flow's record at setup (pHost's packet counts and bitmaps, dcPIM's packets
    /// and whether it is matched) size it again; the others read the size when the flow
    /// opens. The error names the field, as the setup's would.
    pub(crate) fn respec(&mut self, f: u32, bytes: u64) -> Result<()> {
        match self {
            TransportDriver::Phost(st) => st.respec(f, bytes),
            TransportDriver::Dcpim(st) => {
                st.respec(f, bytes);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A port found a departure overdue when brought to now (DCSIM's counter).
    #[inline]
    pub(crate) fn on_late_departure(&mut self) {
        if let TransportDriver::Dcsim(d) = self {
            d.k.late_departures += 1;
        }
    }
}

/// The engine side of [`ctx::Cx::send_ctrl`].
impl Sim {
    /// Send control packet `pk`, created by the transport, from host `h`'s NIC: counted as
    /// created, queued on the NIC (its control lane; a self-scheduled port's own queues,
    /// where a refused packet is a tail drop) and the port served.
    #[inline]
    pub(crate) fn send_ctrl(&mut self, h: u32, pk: Packet) {
        self.c.ctrl_created += 1;
        if self.ports[h as usize].kind.self_scheduled() {
            if self.port_enqueue(h, pk) {
                self.port_serve(h);
            }
        } else {
            self.ports[h as usize].ctrl_q.push_back(pk);
            self.kick(h);
        }
    }
}

impl Sim {
    /// Install the transport of scenario `s` (the engine built with the DCTCP driver, its
    /// flows and ports): DCSIM replaces the ports' drivers and the transport.
    pub(crate) fn transport_setup(&mut self, s: &Scenario) -> Result<()> {
        match s.transport.cc {
            CcKind::Dcsim => self.dcsim_setup(s),
            CcKind::Uno | CcKind::Gemini | CcKind::MprdmaBbr => self.uno_setup(s),
            CcKind::Pfabric => self.pfabric_setup(s),
            CcKind::Phost => self.phost_setup(s),
            CcKind::Dcpim => self.dcpim_setup(s),
            CcKind::Mprdma => {
                if let TransportDriver::Dctcp(d) = &mut self.transport {
                    d.mprdma = true;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Flow `f` starts now.
    #[inline]
    pub(crate) fn transport_open(&mut self, f: u32) {
        // `rates.csv` samples every flow from its opening, whatever opened it (its start
        // time, the self-clocked chain, the `llm` DAG).
        if let Some(r) = self.rates.as_mut() {
            r.open(f);
        }
        match self.transport {
            TransportDriver::Dctcp(ref d) => {
                let mprdma = d.mprdma;
                dctcp::open(&mut Cx::new(self), f, mprdma)
            }
            TransportDriver::Dcsim(_) => dcsim::open(&mut Cx::new(self), f),
            TransportDriver::Uno(_) => uno::open(&mut Cx::new(self), f),
            TransportDriver::Pfabric(_) => pfabric::open(&mut Cx::new(self), f),
            TransportDriver::Phost(_) => phost::open(&mut Cx::new(self), f),
            TransportDriver::Dcpim(_) => dcpim::open(&mut Cx::new(self), f),
        }
    }

    /// Packet `pk` reached host `h`.
    #[inline]
    pub(crate) fn transport_arrive(&mut self, h: u32, pk: Packet) {
        match self.transport {
            TransportDriver::Dctcp(_) => dctcp::arrive(&mut Cx::new(self), h, pk),
            TransportDriver::Dcsim(_) => dcsim::arrive(&mut Cx::new(self), h, pk),
            TransportDriver::Uno(_) => uno::arrive(&mut Cx::new(self), h, pk),
            TransportDriver::Pfabric(_) => pfabric::arrive(&mut Cx::new(self), h, pk),
            TransportDriver::Phost(_) => phost::arrive(&mut Cx::new(self), h, pk),
            TransportDriver::Dcpim(_) => dcpim::arrive(&mut Cx::new(self), h, pk),
        }
    }

    /// The next DATA packet host `h`'s NIC sends, for a NIC that pulls from its flows.
    #[inline]
    pub(crate) fn transport_pull(&mut self, h: u32) -> Option<Packet> {
        match self.transport {
            TransportDriver::Dctcp(_) => dctcp::pull(&mut Cx::new(self), h),
            TransportDriver::Uno(_) => uno::pull(&mut Cx::new(self), h),
            TransportDriver::Pfabric(_) => pfabric::pull(&mut Cx::new(self), h),
            TransportDriver::Phost(_) => phost::pull(&mut Cx::new(self), h),
            TransportDriver::Dcpim(_) => dcpim::pull(&mut Cx::new(self), h),
            TransportDriver::Dcsim(_) => None,
        }
    }

    /// Packet `pk` starts leaving host `h`'s NIC now, for a NIC whose port schedules its own
    /// departures ([`crate::port::PortDriver::self_scheduled`]).
    #[inline]
    pub(crate) fn transport_departing(&mut self, h: u32, pk: &Packet) {
        match self.transport {
            TransportDriver::Dctcp(_)
            | TransportDriver::Uno(_)
            | TransportDriver::Pfabric(_)
            | TransportDriver::Phost(_)
            | TransportDriver::Dcpim(_) => {}
            TransportDriver::Dcsim(_) => dcsim::departing(&mut Cx::new(self), h, pk),
        }
    }

    /// Packet `pk` left host `h`'s NIC (after [`Sim::transport_departing`] and its
    /// transmission).
    #[inline]
    pub(crate) fn transport_departed(&mut self, h: u32, pk: &Packet) {
        match self.transport {
            TransportDriver::Dctcp(_)
            | TransportDriver::Uno(_)
            | TransportDriver::Pfabric(_)
            | TransportDriver::Phost(_)
            | TransportDriver::Dcpim(_) => {}
            TransportDriver::Dcsim(_) => dcsim::departed(&mut Cx::new(self), h, pk),
        }
    }

    /// A timer event of a kind a transport owns (`i`: the flow or host it names).
    #[inline]
    pub(crate) fn transport_timer(&mut self, kind: Kind, i: u32) {
        match kind {
            Kind::FlowTimer if matches!(self.transport, TransportDriver::Uno(_)) => {
                uno::timer(&mut Cx::new(self), i)
            }
            Kind::FlowTimer if matches!(self.transport, TransportDriver::Pfabric(_)) => {
                pfabric::timer(&mut Cx::new(self), i)
            }
            Kind::FlowTimer | Kind::HostTimer
                if matches!(self.transport, TransportDriver::Phost(_)) =>
            {
                phost::timer(&mut Cx::new(self), kind, i)
            }
            Kind::FlowTimer if matches!(self.transport, TransportDriver::Dcpim(_)) => {
                dcpim::flow_timer(&mut Cx::new(self), i)
            }
            Kind::HostTimer if matches!(self.transport, TransportDriver::Dcpim(_)) => {
                dcpim::host_timer(&mut Cx::new(self), i)
            }
            Kind::FlowTimer => dctcp::timer(&mut Cx::new(self), i),
            Kind::HostTimer => dcsim::timer(&mut Cx::new(self), i),
            _ => {}
        }
    }

    /// Payload bytes of flow `f` cumulatively acknowledged at its sender so far (every
    /// byte once it completed; 0 before it starts): what `rates.csv` samples
    /// ([`crate::engine`] rate sampling). A transport reads it from its sender's
    /// cumulative point (packets below it, `mtu` payload bytes each, capped at the size),
    /// the packets Wormhole fast-forwards took off its message included ([`crate::flow::FlowRt::skipped`]:
    /// sent and acknowledged at the steady rate while its partition was skipped).
    pub(crate) fn transport_acked_bytes(&self, f: u32) -> u64 {
        let flow = &self.flows[f as usize];
        if flow.end_ps > 0 {
            return flow.spec.bytes;
        }
        let (packets, mtu) = match &self.transport {
            TransportDriver::Dctcp(_) => match &flow.cc {
                Some(crate::flow::Cc::Dctcp(s)) => (s.regs().snd_una + flow.skipped, self.cfg.mtu),
                Some(crate::flow::Cc::Mprdma(s)) => (s.regs().snd_una + flow.skipped, self.cfg.mtu),
                None => (0, 0),
            },
            TransportDriver::Dcsim(st) => match st.send[f as usize].phase {
                crate::dcsim::host::Phase::Open(slot) => st.hosts[flow.spec.src as usize]
                    .eng
                    .cum_acked(slot)
                    .map_or((0, 0), |c| (c + flow.skipped, st.p.mtu)),
                _ => (0, 0),
            },
            TransportDriver::Uno(st) => return st.acked_bytes(f, flow.spec.bytes),
            TransportDriver::Pfabric(st) => {
                // The packets a Wormhole fast-forward took off its message were acknowledged.
                let skipped = u64::from(flow.skipped) * u64::from(self.cfg.mtu);
                return (st.acked_bytes(f) + skipped).min(flow.spec.bytes);
            }
            TransportDriver::Phost(st) => {
                let skipped = u64::from(flow.skipped) * u64::from(self.cfg.mtu);
                return (st.acked_bytes(f, flow.spec.bytes) + skipped).min(flow.spec.bytes);
            }
            TransportDriver::Dcpim(st) => return st.acked_bytes(f, flow.spec.bytes),
        };
        (u64::from(packets) * u64::from(mtu)).min(flow.spec.bytes)
    }

    /// The transport's counters and per-flow numbers in `r`.
    pub(crate) fn transport_results(&self, r: &mut RunResult) {
        match self.transport {
            TransportDriver::Dctcp(_) => {
                // The DCSIM loss keys are in every summary (0 without DCSIM).
                let x = &mut r.summary.extra;
                x.insert("sim_drops".into(), 0.0);
                x.insert("sim_loss_rate".into(), 0.0);
            }
            TransportDriver::Dcsim(_) => self.dcsim_results(r),
            TransportDriver::Uno(_) => self.uno_results(r),
            TransportDriver::Pfabric(_) => self.pfabric_results(r),
            TransportDriver::Phost(_) => self.phost_results(r),
            TransportDriver::Dcpim(_) => self.dcpim_results(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunControl;
    use crate::scenario::{Size, WorkloadKind};

    /// 8 hosts (2-tier fat tree of radix 4), a permutation of 64 KiB messages under `cc`.
    fn tiny(cc: CcKind) -> Scenario {
        let mut s = Scenario::default();
        s.topology.tiers = 2;
        s.topology.radix = 4;
        s.workload.kind = WorkloadKind::Permutation;
        s.workload.message = Size::Bytes(64 * 1024);
        s.transport.cc = cc;
        s
    }

    #[test]
    fn each_transport_owns_its_receivers_and_completes_its_flows() {
        for cc in [CcKind::Dctcp, CcKind::Dcsim] {
            let s = tiny(cc);
            crate::validate::validate(&s).expect("valid scenario");
            let mut sim = Sim::build(&s).expect("build");
            let dcsim = cc == CcKind::Dcsim;
            assert_eq!(matches!(sim.transport, TransportDriver::Dcsim(_)), dcsim);
            assert_eq!(sim.transport.dcsim().is_some(), dcsim);
            assert!(!sim.flows.is_empty());
            for f in &sim.flows {
                // DCTCP keeps its SACK receiver in the flow; DCSIM in its own table.
                assert_eq!(matches!(f.rx, FlowRx::Sack(_)), !dcsim, "{cc:?}");
            }
            sim.run(&RunControl::default());
            assert_eq!(
                sim.flows_done,
                sim.flows.len(),
                "{cc:?}: every flow completes"
            );
            let r = sim.results(&s);
            assert!(r.flows.iter().all(|f| f.end_ps > 0), "{cc:?}");
            if let Some(st) = sim.transport.dcsim() {
                // Every DATA-ACK's side-table slot was taken back (arrived or dropped).
                assert!(st.acks.is_empty(), "{} DATA-ACK slots live", st.acks.live());
                assert!(st.k.data_acks_sent > 0);
            }
        }
    }
}
