//! Engine glue of the DCSIM port ([`PortDriver::Dcsim`], DCSIM section 2.3): a port whose
//! arbiter decides when each packet starts ([`PortDriver::self_scheduled`]). The engine
//! serves it through [`Sim::port_serve`] (a start or a wake-up at the next start),
//! offers it switch arrivals through [`Sim::port_arrive`] and tells it of rate changes
//! through [`Sim::port_rate_changed`]; a host NIC's departures call the transport's hooks
//! ([`Sim::transport_departing`], [`Sim::transport_departed`]).
//!
//! Wake-ups: when a packet starts, the port's one `TxDone` is armed at the next planned start
//! (the arbiter's kept answer: the line's end, or the next SIM token when only SIMs wait), so
//! it is scheduled at that start and orders, among events of the same picosecond, by that
//! sequence number. The arbiter's choice does not depend on that order (a SIM with its token
//! wins its cycle against a same-cycle arrival either way, DCSIM 2.3, no preemption); only the
//! order of simultaneous transmissions on different ports does (benches/README.md, session 7).

use super::PortDriver;
use crate::engine::{ser_ps, Cause, PortRt, Sim};
use crate::event::EventQueue;
use crate::event::{Comp, Kind, NEVER};
use crate::packet::Packet;
use switch::dcsim::Enqueue;

impl Sim {
    /// Bring port `p`'s arbiter to now; transmit any departure found overdue.
    #[inline]
    pub(crate) fn port_sync(&mut self, p: u32) {
        let now = self.now;
        if let PortDriver::Dcsim(dp) = &mut self.ports[p as usize].kind {
            if !dp.catch_up_idle(now) {
                self.port_sync_late(p);
            }
        }
    }

    /// [`Sim::port_sync`] when a departure may be overdue.
    #[inline(never)]
    fn port_sync_late(&mut self, p: u32) {
        // `catch_up_idle` just said `false` (and changed nothing): go straight to the
        // slow case the first time round.
        let mut first = true;
        loop {
            let now = self.now;
            let PortDriver::Dcsim(dp) = &mut self.ports[p as usize].kind else {
                return;
            };
            let next = if first {
                dp.catch_up_after_idle(now)
            } else {
                dp.catch_up(now)
            };
            first = false;
            let Some(d) = next else {
                return;
            };
            let end = now + (dp.end_ps(&d) - dp.ps_at(d.start));
            self.transport.on_late_departure();
            self.port_depart(p, d.desc, end);
        }
    }

    /// Offer `pk` to DCSIM port `p` now; a refused packet is a tail drop of its class.
    pub(crate) fn port_enqueue(&mut self, p: u32, pk: Packet) -> bool {
        self.port_enqueue_inline(p, pk)
    }

    /// [`Sim::port_enqueue`], inlined into the switch arrival ([`Sim::port_arrive`]) only:
    /// the host's own control packets (`send_ctrl`, shared with every transport) keep the
    /// call.
    #[inline(always)]
    fn port_enqueue_inline(&mut self, p: u32, pk: Packet) -> bool {
        // While the line is busy nothing can be due before its end, so the arbiter takes
        // the input without coming to now: its next choice is made at the line's end from
        // the queues as they are then (the bucket's fill is additive in idle cycles), and
        // the next sync brings its clock forward.
        if self.ports[p as usize].busy_until <= self.now {
            self.port_sync(p);
        }
        let PortDriver::Dcsim(dp) = &mut self.ports[p as usize].kind else {
            return false;
        };
        match dp.enqueue(pk) {
            Enqueue::Accepted => true,
            Enqueue::Dropped | Enqueue::Rejected => {
                self.drop_pkt(p, &pk, Cause::BufferFull);
                false
            }
        }
    }

    /// A packet reached a switch whose output `out` is a DCSIM port. Out of line: the
    /// engine's delivery loop (shared with every transport) stays as small as without it.
    #[inline(never)]
    pub(crate) fn port_arrive(&mut self, out: u32, pk: Packet) {
        if self.port_enqueue_inline(out, pk) {
            // A busy line (about half the arrivals): `port_serve_synced` would only make
            // sure of a wake-up by the line's end (`port_wake`, and ask the plan for it),
            // so nothing to do when one is due by then already (the same test, without
            // the call).
            let port = &self.ports[out as usize];
            if port.busy_until > self.now
                && port.txdone_at != NEVER
                && port.txdone_at <= port.busy_until
            {
                return;
            }
            // `port_enqueue` brought the port to now.
            self.port_serve_synced(out);
        }
    }

    /// Make sure port `p` wakes up at `t` (or earlier). Inlined into its callers (a start
    /// arms a wake-up almost every time): no call per wake-up.
    #[inline(always)]
    fn port_wake(&mut self, p: u32, t: u64) {
        let port = &mut self.ports[p as usize];
        if port.txdone_at == NEVER || t < port.txdone_at {
            port.txdone_at = t;
            self.q.push(t, Comp::new(Kind::TxDone, p));
        }
    }

    /// Serve DCSIM port `p` now: start its next packet if one is due, else arrange the
    /// wake-up at the next start. The usual wake-up's test is inlined into the caller (the
    /// run loop's `TxDone`), so a due start costs one call ([`Sim::port_start_kept`]).
    #[inline(always)]
    pub(crate) fn port_serve(&mut self, p: u32) {
        let now = self.now;
        let port = &self.ports[p as usize];
        if let PortDriver::Dcsim(dp) = &port.kind {
            // The usual wake-up: the kept plan starts now on a free line. Bringing the
            // arbiter to now would idle it to exactly that start (nothing departs before
            // the plan's start), which starting the plan does itself.
            if dp.kept_start_ps() == Some(now) && port.busy_until <= now {
                return self.port_start_kept(p);
            }
        }
        self.port_serve_sync(p);
    }

    /// [`Sim::port_serve`] without a kept plan due now: bring the port to now, then serve.
    #[inline(never)]
    fn port_serve_sync(&mut self, p: u32) {
        self.port_sync(p);
        self.port_serve_synced(p);
    }

    /// [`Sim::port_serve`] for a port already brought to now ([`Sim::port_sync`]); inlined
    /// into its two callers (an arrival, a wake-up without a kept plan due).
    #[inline(always)]
    fn port_serve_synced(&mut self, p: u32) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        if port.busy_until > now {
            let t = port.busy_until;
            // Plan now, so that the wake-up at the line's end finds the plan kept (the plan
            // is the arbiter's answer for its state, whatever its clock up to the start).
            if let PortDriver::Dcsim(dp) = &mut port.kind {
                let _ = dp.next_plan();
            }
            self.port_wake(p, t);
            return;
        }
        let PortDriver::Dcsim(dp) = &mut port.kind else {
            return;
        };
        let Some(t) = dp.planned_start_ps() else {
            return;
        };
        if t > now {
            self.port_wake(p, t);
            return;
        }
        self.port_start_kept(p);
    }

    /// Start DCSIM port `p`'s kept plan, due now on a free line, and arm the wake-up at the
    /// next planned start.
    #[inline(never)]
    fn port_start_kept(&mut self, p: u32) {
        if p >= self.fabric.hosts && !self.tx_hooks && self.loss.is_none() {
            let now = self.now;
            let Sim { ports, q, .. } = self;
            let port = &mut ports[p as usize];
            if port.down == 0 {
                return Self::switch_port_start_kept(port, q, p, now);
            }
        }
        let PortDriver::Dcsim(dp) = &mut self.ports[p as usize].kind else {
            return;
        };
        let Some(d) = dp.take_kept_plan() else {
            return;
        };
        let end = dp.end_ps(&d);
        self.port_depart(p, d.desc, end);
        // Wake up when the next packet starts if nothing arrives: the end of this one, or
        // the next SIM token's arrival when only SIMs wait (no wake-up at the end that
        // would only re-arm for the token). An arrival before then serves the port itself.
        if let PortDriver::Dcsim(dp) = &mut self.ports[p as usize].kind {
            if let Some(t) = dp.planned_start_ps() {
                self.port_wake(p, t);
            }
        }
    }

    /// [`Sim::port_start_kept`] on a switch port with its link up, no `[[loss]]` and no
    /// transmission hooks ([`Sim::tx_hooks`]: Wormhole shadowing, the packet trace; every
    /// DCSIM switch port of the shipped scenarios): the same
    /// steps (`take_kept_plan`, [`Sim::transmit`]'s link entry and `Deliver`, the line busy
    /// to the arbiter's end, the wake-up at the next planned start, events pushed in that
    /// order) on one borrow of the port, without the host hooks' tests and the repeated
    /// port lookups. The next plan is asked before the link entry is made: the arbiter
    /// does not see the link.
    #[inline(always)]
    fn switch_port_start_kept(port: &mut PortRt, q: &mut EventQueue, p: u32, now: u64) {
        let PortDriver::Dcsim(dp) = &mut port.kind else {
            return;
        };
        let Some(d) = dp.take_kept_plan() else {
            return;
        };
        let end = dp.end_ps(&d);
        let next = dp.planned_start_ps();
        let pk = d.desc;
        let bytes = pk.bytes;
        let line_end = now.saturating_add(ser_ps(bytes, port.ser_q32));
        port.tx_bytes += bytes as u64;
        port.tx_packets += 1;
        port.enter_link(q, p, line_end + port.delay_ps, pk);
        port.busy_until = end;
        if let Some(t) = next {
            if port.txdone_at == NEVER || t < port.txdone_at {
                port.txdone_at = t;
                q.push(t, Comp::new(Kind::TxDone, p));
            }
        }
    }

    /// Packet `pk` leaves port `p` now; the line is busy until `end`.
    #[inline(always)]
    pub(crate) fn port_depart(&mut self, p: u32, pk: Packet, end: u64) {
        let host = p < self.fabric.hosts;
        if host {
            self.transport_departing(p, &pk);
        }
        self.transmit_inline(p, pk);
        self.ports[p as usize].busy_until = end;
        if host {
            self.transport_departed(p, &pk);
        }
    }

    /// The link rate of port `p` changed (failure machinery): a DCSIM port's arbiter takes
    /// the new rate (any other port reads its rate at each transmission).
    pub(crate) fn port_rate_changed(&mut self, p: u32) {
        let now = self.now;
        let Sim {
            transport, ports, ..
        } = self;
        // The arbiter configurations are the transport's (DCSIM parameters).
        let Some(st) = transport.dcsim() else {
            return;
        };
        let port = &mut ports[p as usize];
        let free = port.busy_until;
        let gbps = port.gbps;
        if let PortDriver::Dcsim(dp) = &mut port.kind {
            // Checked at setup for every rate of the scenario.
            if let Ok(cfg) = st.p.arbiter_config(gbps, "failures") {
                let _ = dp.set_rate(cfg, now, free);
            }
        }
        self.port_serve(p);
    }
}
