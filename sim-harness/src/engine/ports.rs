//! Output ports: serving the queues (control lane first, then DATA: the host's ready flows
//! or the switch's FIFO), admission at a switch port (`switch::output_port`: tail drop,
//! RED/ECN, trimming), drops.

use super::*;

impl Sim {
    /// Start the next packet on idle port `p` (at `self.now`), if it has one, and schedule
    /// its `TxDone` if more wait.
    pub(super) fn start_next(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let host = match port.kind {
            PortDriver::Host(h) => Some(h),
            _ if port.kind.self_scheduled() => return self.port_serve(p),
            // pFabric: the port's priority buffer holds the DATA (port/pfabric.rs).
            PortDriver::Pfabric(_) => return self.pfabric_start_next(p),
            _ => None,
        };
        if port.virt_bps != 0 && port.data_frozen && !port.ctrl_q.is_empty() && self.held_wait(p) {
            return;
        }
        let port = &mut self.ports[p as usize];
        let pkt = if let Some(x) = port.ctrl_q.pop_front() {
            Some(x)
        } else if port.data_frozen {
            // The DATA lane of a skipped partition is held; a lockstep follower's
            // placeholders of its leader's DATA take it (`skip.lockstep_shadow`).
            return self.held_start_next(p);
        } else if let Some(h) = host {
            self.transport_pull(h)
        } else {
            let mut x = port.data_q.pop_front();
            if let Some(pk) = &mut x {
                port.kind.on_data_departure(pk, self.now, &mut port.rng);
            }
            x
        };
        let Some(pk) = pkt else { return };
        self.transmit(p, pk);
        // A port whose DATA lane is held has more to send only on its control lane (or a
        // lockstep follower's placeholders): a control packet arriving later schedules its
        // own `TxDone` at the same time ([`Sim::kick`]).
        let held = self.ports[p as usize].data_frozen;
        let shadow = held && self.wh_shadowing && self.wh_shadow_pending(p);
        let port = &mut self.ports[p as usize];
        let more = !port.ctrl_q.is_empty()
            || if held {
                shadow
            } else {
                match port.kind {
                    PortDriver::Host(h) => self.transport.has_ready(h),
                    _ => !port.data_q.is_empty(),
                }
            };
        if more {
            port.txdone_at = port.busy_until;
            self.q.push(port.busy_until, Comp::new(Kind::TxDone, p));
        }
    }

    /// [`Sim::start_next`] on a port whose DATA lane is held and control lane empty: the
    /// next DATA placeholder of a lockstep follower (`skip.lockstep_shadow`), if any.
    #[cold]
    #[inline(never)]
    fn held_start_next(&mut self, p: u32) {
        let Some(pk) = self.wh_shadow_pop(p) else {
            return;
        };
        self.transmit(p, pk);
        let more = !self.ports[p as usize].ctrl_q.is_empty() || self.wh_shadow_pending(p);
        if more {
            let port = &mut self.ports[p as usize];
            port.txdone_at = port.busy_until;
            self.q.push(port.busy_until, Comp::new(Kind::TxDone, p));
        }
    }

    /// `skip.held_occupancy` (beyond Wormhole 6.2): a control packet on port `p`, whose
    /// DATA lane a skipped partition holds, waits for the end of the virtual DATA packet on
    /// the wire now (MTU-sized packets every period from `virt_t0`, the period kept by
    /// [`Sim::virt_period`]; the control lane goes first at a packet boundary, as behind
    /// real DATA). Whether it waits (a `TxDone` is then due at that end).
    #[cold]
    #[inline(never)]
    fn held_wait(&mut self, p: u32) -> bool {
        let (tx, period) = self.virt_period(p);
        let port = &mut self.ports[p as usize];
        let phase = self.now.saturating_sub(port.virt_t0) % period;
        if phase == 0 || phase >= tx {
            return false;
        }
        let until = self.now + (tx - phase);
        port.busy_until = until;
        port.txdone_at = until;
        self.q.push(until, Comp::new(Kind::TxDone, p));
        true
    }

    /// Make port `p` serve its queues: start now if idle, else make sure a `TxDone` is due.
    #[inline]
    pub(crate) fn kick(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.kind.self_scheduled() {
            return self.port_serve(p);
        }
        if port.txdone_at != NEVER {
            return;
        }
        if port.busy_until <= self.now {
            self.start_next(p);
        } else {
            port.txdone_at = port.busy_until;
            self.q.push(port.busy_until, Comp::new(Kind::TxDone, p));
        }
    }

    pub(super) fn on_txdone(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.txdone_at != self.now {
            return;
        }
        port.txdone_at = NEVER;
        // A DCSIM port's wake-up goes straight to its arbiter (`start_next` would only
        // pass it on).
        if port.kind.self_scheduled() {
            return self.port_serve(p);
        }
        self.start_next(p);
    }

    pub(crate) fn drop_pkt(&mut self, p: u32, pk: &Packet, cause: Cause) {
        self.transport.on_drop(pk);
        self.wh_data_dropped(pk);
        if pk.kind == PktKind::Data {
            self.c.data_dropped += 1;
        } else {
            self.c.ctrl_dropped += 1;
        }
        self.c.drops[cause as usize] += 1;
        self.ports[p as usize].drops += 1;
        if self.trace.is_some() {
            self.trace_drop(p, pk, CAUSE_NAMES[cause as usize]);
        }
    }

    /// Packet `pk` delivered into switch `s` by the link of port `from` (the packet trace
    /// records the output port's buffer after it, `trace.rs`).
    pub(super) fn switch_arrive(&mut self, s: u32, from: u32, mut pk: Packet) {
        let (route, seed) = self.switches[s as usize];
        let out = match self.routing.as_deref_mut() {
            None => route.select(pk.src, pk.dst, pk.ev, seed),
            Some(topology::SwitchRouting::Spray(sp)) => sp
                .select(&route, from, pk.dst)
                .or_else(|| route.select(pk.src, pk.dst, pk.ev, seed)),
            Some(topology::SwitchRouting::Adaptive(ar)) => {
                let ports = &self.ports;
                ar.select(s, &route, seed, pk.src, pk.dst, pk.ev, pk.bytes, |p| {
                    let port = &ports[p as usize];
                    (port.kind.occupancy_bytes(true).unwrap_or(0), port.down == 0)
                })
            }
        };
        let Some(out) = out else {
            // Unreachable destination: cannot happen in a connected fabric.
            let first = self.fabric.switches[s as usize].first_port;
            self.drop_pkt(first, &pk, Cause::LinkDown);
            return;
        };
        if pk.kind == PktKind::Data {
            let slot = self.ports[out as usize].sel_slot;
            self.sel.on_select_slot(self.now, slot, pk.bytes);
        }
        // `loss[].place = "arrival"`: lost before the buffer.
        if let Some(l) = self.loss.as_deref_mut() {
            if l.lose_on_arrival(out, self.now) {
                self.drop_lost(out, &pk);
                return;
            }
        }
        if self.ports[out as usize].kind.self_scheduled() {
            self.port_arrive(out, pk);
            if self.trace.is_some() {
                self.trace_queue(out);
            }
            return;
        }
        if let PortDriver::Pfabric(_) = self.ports[out as usize].kind {
            self.pfabric_arrive(out, pk);
            if self.trace.is_some() {
                self.trace_queue(out);
            }
            return;
        }
        let port = &mut self.ports[out as usize];
        match port.kind.admit(self.now, &mut pk, &mut port.rng) {
            Admitted::Data => port.data_q.push_back(pk),
            Admitted::Control { trimmed } => {
                if trimmed {
                    self.c.data_trimmed += 1;
                    self.c.ctrl_created += 1;
                }
                port.ctrl_q.push_back(pk);
            }
            Admitted::Dropped => {
                self.drop_pkt(out, &pk, Cause::BufferFull);
                return;
            }
        }
        self.kick(out);
        if self.trace.is_some() {
            self.trace_queue(out);
        }
    }
}
