//! Links: a packet on the wire is a (arrival time, packet) entry of its port's link FIFO,
//! with one `Deliver` event for the head.

use super::*;

impl Sim {
    /// Put packet `i` on port `p`'s wire now.
    #[inline]
    pub(crate) fn transmit(&mut self, p: u32, pk: Packet) {
        self.transmit_inline(p, pk)
    }

    /// [`Sim::transmit`], inlined into the DCSIM port's start (`port_depart`, one call
    /// fewer per transmission there); every other caller keeps the call.
    #[inline(always)]
    pub(crate) fn transmit_inline(&mut self, p: u32, mut pk: Packet) {
        if self.tx_hooks && self.tx_hooked(p, &pk) {
            return;
        }
        if pk.kind == PktKind::Data && p < self.fabric.hosts {
            // Transmission time at the source, for the queueing delay (DATAs leave `cum_ack`
            // unused; see `crate::metrics`).
            pk.cum_ack = crate::metrics::stamp(self.now);
        }
        let bytes = pk.bytes;
        let port = &mut self.ports[p as usize];
        port.busy_until = self.now.saturating_add(ser_ps(bytes, port.ser_q32));
        if port.down != 0 {
            self.drop_pkt(p, &pk, Cause::LinkDown);
            return;
        }
        port.tx_bytes += bytes as u64;
        port.tx_packets += 1;
        // `[[loss]]`: lost on the wire.
        if let Some(l) = self.loss.as_deref_mut() {
            if l.lose(p, self.now) {
                self.drop_lost(p, &pk);
                return;
            }
        }
        let port = &mut self.ports[p as usize];
        let at = port.busy_until + port.delay_ps;
        port.enter_link(&mut self.q, p, at, pk);
    }

    /// A transmission's hooks ([`Sim::tx_hooks`]): Wormhole's shadow placeholders (true:
    /// the packet goes no further) and the packet trace (`trace.rs`; a packet into a link
    /// that is down is traced as its drop).
    #[cold]
    #[inline(never)]
    fn tx_hooked(&mut self, p: u32, pk: &Packet) -> bool {
        if self.wh_shadowing && self.shadow_transmit(p, pk) {
            return true;
        }
        if self.trace.is_some() && self.ports[p as usize].down == 0 {
            self.trace_tx(p, pk);
        }
        false
    }

    /// `skip.lockstep_shadow` is in use (`engine/skip/shadow.rs`): a lockstep follower's
    /// placeholder takes port `p`'s line for its serialization time and goes no further
    /// (true); a leader flow's packet starting on a port of its path is mirrored to its
    /// paused followers' ports at that hop ([`Sim::wh_mirror`]) and goes on (false).
    #[cold]
    #[inline(never)]
    fn shadow_transmit(&mut self, p: u32, pk: &Packet) -> bool {
        let shadow = pk.flow == skip::SHADOW_FLOW;
        if !shadow {
            self.wh_mirror(p, pk);
        }
        let held = self.ports[p as usize].data_frozen;
        if !shadow && !held {
            return false;
        }
        let pending = held && self.wh_shadow_pending(p);
        let now = self.now;
        let port = &mut self.ports[p as usize];
        let end = now.saturating_add(ser_ps(pk.bytes, port.ser_q32));
        if shadow {
            port.busy_until = end;
        }
        // A held DATA lane with placeholders waiting is served again when this packet is
        // through (`Sim::start_next` looks only at its own queues).
        if pending {
            port.txdone_at = end;
            self.q.push(end, Comp::new(Kind::TxDone, p));
        }
        shadow
    }

    pub(super) fn on_deliver(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.deliver_at != self.now {
            return;
        }
        port.deliver_at = NEVER;
        loop {
            let port = &mut self.ports[p as usize];
            let Some(&(at, pk)) = port.link.front() else {
                break;
            };
            if at > self.now {
                port.deliver_at = at;
                self.q.push(at, Comp::new(Kind::Deliver, p));
                break;
            }
            port.link.pop_front();
            let peer = port.peer;
            match peer {
                Node::Switch(s) => self.switch_arrive(s, p, pk),
                Node::Host(h) if self.deliver_hooks => self.host_hooked(h, pk),
                Node::Host(h) => self.transport_arrive(h, pk),
            }
        }
    }

    /// Packet `pk` reaches host `h` with a delivery hook on: traced (`trace.rs`), and while a
    /// Wormhole partition is skipped, held if its flow's is, until it resumes
    /// (`engine/skip/held.rs`, `skip.partition_by = "data_ports"`).
    #[cold]
    #[inline(never)]
    fn host_hooked(&mut self, h: u32, pk: Packet) {
        if self.trace.is_some() {
            self.trace_rx(h, &pk);
        }
        if self.wh_holding {
            self.arrive_or_hold(h, pk)
        } else {
            self.transport_arrive(h, pk)
        }
    }

    /// Set [`Sim::wh_holding`] (Wormhole holds deliveries to hosts) and the delivery hooks
    /// with it.
    pub(crate) fn set_wh_holding(&mut self, on: bool) {
        self.wh_holding = on;
        self.deliver_hooks = on || self.trace.is_some();
    }
}
