//! [`Cx`]: the narrow context a transport driver runs in (issue 8's "now, send, enqueue
//! control, arm timer, drop, metrics").
//!
//! A driver's per-event functions (`open`, `arrive`, `pull`, `timer`, and DCSIM's
//! `departing` / `departed`) take a `&mut Cx`, never the engine: the engine is a private
//! field of `Cx`, so a driver module sees only what this module exports:
//!
//! * **state** through [`Cx::parts`]: `now`, the flows, the counters, the transport's own
//!   state ([`TransportDriver`]), the collective metrics; [`Cx::nic_parts`] adds host
//!   `h`'s NIC port driver for a transport whose NIC queues are its own (DCSIM's SIM and
//!   DATA queues). These are disjoint borrows, held only between two engine calls;
//! * **engine calls**, which may re-enter the driver (a free port pulls the next DATA):
//!   [`Cx::send_ctrl`], [`Cx::kick`], [`Cx::nic_sync`], [`Cx::nic_serve`], [`Cx::arm`]
//!   (its own timer kinds only), [`Cx::drop_pkt`], [`Cx::metrics_data`],
//!   [`Cx::progress`], [`Cx::flow_done`].
//!
//! Each call is the same engine call the drivers made before this type existed, in the
//! same order, so runs are bit-identical; a re-entrant call works because no driver
//! borrow is alive across it (the borrow checker sees to that: `parts` borrows `Cx`).
//! Building a run (`setup`) and collecting results see the whole engine; those are not
//! per-event paths.

use super::TransportDriver;
use crate::engine::{Cause, Counters, PortRt, Sim};
use crate::event::{Comp, Kind, Time};
use crate::flow::FlowRt;
use crate::metrics::CollMetrics;
use crate::packet::{Packet, PktKind};
use crate::port::PortDriver;
use nic::transport::DctcpConfig;

/// The context of one driver call (see the module doc).
pub(crate) struct Cx<'a> {
    sim: &'a mut Sim,
}

/// Disjoint borrows of the engine state a driver may read and write directly.
pub(crate) struct Parts<'a> {
    /// Simulated time, ps.
    pub now: Time,
    /// Every flow of the run, by id.
    pub flows: &'a mut [FlowRt],
    /// The run's packet counters.
    pub c: &'a mut Counters,
    /// The transport's own state.
    pub transport: &'a mut TransportDriver,
    /// Collective metrics, when the run keeps them.
    pub cm: Option<&'a mut CollMetrics>,
    /// Header bytes of a packet (`transport.header_bytes`).
    pub hdr_bytes: u32,
    /// Per-connection state (`transport.reps.per_connection`,
    /// `transport.per_connection_cwnd`; empty without).
    pub conns: &'a mut crate::flow::Conns,
}

impl<'a> Cx<'a> {
    /// The context of a driver call made by `sim`.
    #[inline]
    pub(crate) fn new(sim: &'a mut Sim) -> Cx<'a> {
        Cx { sim }
    }

    /// Simulated time, ps.
    #[inline]
    pub(crate) fn now(&self) -> Time {
        self.sim.now
    }

    /// Header bytes of a packet.
    #[inline]
    pub(crate) fn hdr_bytes(&self) -> u32 {
        self.sim.hdr_bytes
    }

    /// The DCTCP sender configuration of the run.
    #[inline]
    pub(crate) fn cfg(&self) -> DctcpConfig {
        self.sim.cfg
    }

    /// Flow `f`.
    #[inline]
    pub(crate) fn flow(&mut self, f: u32) -> &mut FlowRt {
        &mut self.sim.flows[f as usize]
    }

    /// The run's counters.
    #[inline]
    pub(crate) fn counters(&mut self) -> &mut Counters {
        &mut self.sim.c
    }

    /// The state a driver reads and writes directly, as disjoint borrows.
    #[inline]
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        self.parts_and_ports().0
    }

    /// [`Cx::parts`] and host `h`'s NIC port driver (a transport that fills its NIC's
    /// queues itself; the port was brought to now by [`Cx::nic_sync`]).
    #[inline]
    pub(crate) fn nic_parts(&mut self, h: u32) -> (Parts<'_>, &mut PortDriver) {
        let (p, ports) = self.parts_and_ports();
        (p, &mut ports[h as usize].kind)
    }

    /// [`Cx::parts`] and the ports, as disjoint borrows.
    #[inline]
    fn parts_and_ports(&mut self) -> (Parts<'_>, &mut [PortRt]) {
        let Sim {
            now,
            flows,
            c,
            transport,
            cm,
            hdr_bytes,
            ports,
            conns,
            ..
        } = &mut *self.sim;
        (
            Parts {
                now: *now,
                flows,
                c,
                transport,
                cm: cm.as_deref_mut(),
                hdr_bytes: *hdr_bytes,
                conns,
            },
            ports,
        )
    }

    /// Send control packet `pk`, created by the transport, from host `h`'s NIC: counted as
    /// created, queued on the NIC (its control lane; a self-scheduled port's own queues,
    /// where a refused packet is a tail drop) and the port served.
    #[inline]
    pub(crate) fn send_ctrl(&mut self, h: u32, pk: Packet) {
        self.sim.send_ctrl(h, pk)
    }

    /// Host `h` answers packet `pk` with a header-sized control packet of `kind` (an ACK or a
    /// NACK): same flow, back to `pk`'s source, echoing `pk`'s entropy ([`Cx::send_ctrl`]).
    #[inline]
    pub(crate) fn reply(
        &mut self,
        h: u32,
        pk: &Packet,
        kind: PktKind,
        psn: u32,
        cum_ack: u32,
        ecn: bool,
    ) {
        let reply = Packet {
            flow: pk.flow,
            src: h,
            dst: pk.src,
            psn,
            cum_ack,
            bytes: self.sim.hdr_bytes,
            ev: pk.ev,
            kind,
            ecn,
        };
        self.sim.send_ctrl(h, reply)
    }

    /// Host `h` has DATA to send: start its NIC if it is idle (may pull at once).
    #[inline]
    pub(crate) fn kick(&mut self, h: u32) {
        self.sim.kick(h)
    }

    /// Bring host `h`'s self-scheduled NIC port to now (overdue departures transmitted).
    #[inline]
    pub(crate) fn nic_sync(&mut self, h: u32) {
        self.sim.port_sync(h)
    }

    /// Serve host `h`'s self-scheduled NIC port (a start now, or a wake-up).
    #[inline]
    pub(crate) fn nic_serve(&mut self, h: u32) {
        self.sim.port_serve(h)
    }

    /// Schedule a timer event of a kind the transport owns at `t`.
    #[inline]
    pub(crate) fn arm(&mut self, t: Time, kind: Kind, i: u32) {
        debug_assert!(
            matches!(kind, Kind::FlowTimer | Kind::HostTimer),
            "a transport arms only its own timer kinds, not {kind:?}"
        );
        self.sim.q.push(t, Comp::new(kind, i));
    }

    /// Drop packet `pk` at port `p` for `cause` (counted; the transport told).
    #[inline]
    pub(crate) fn drop_pkt(&mut self, p: u32, pk: &Packet, cause: Cause) {
        self.sim.drop_pkt(p, pk, cause)
    }

    /// A DATA reached its receiver: collective metrics (`new`: first copy; `cum`: the
    /// receiver's cumulative point after it).
    #[inline]
    pub(crate) fn metrics_data(&mut self, pk: &Packet, new: bool, cum: u32) {
        self.sim.metrics_data(pk, new, cum)
    }

    /// Some flow made progress now (a new byte acknowledged, a flow started): the stall
    /// check's clock.
    #[inline]
    pub(crate) fn progress(&mut self) {
        self.sim.last_progress = self.sim.now;
    }

    /// Flow `f` completed now.
    #[inline]
    pub(crate) fn flow_done(&mut self, f: u32) {
        self.sim.flows[f as usize].end_ps = self.sim.now;
        self.sim.flows_done += 1;
        // `workload.self_clocked`: the host opens its next flow ([`crate::engine::chain`]).
        if let Some(c) = self.sim.chain.as_deref_mut() {
            c.done.push(f);
            let now = self.sim.now;
            self.sim.q.push(
                now,
                Comp::new(Kind::Arrivals, crate::engine::chain::CHAIN_ARRIVALS),
            );
        }
    }
}
