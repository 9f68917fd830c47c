//! Prefetching the memory of the events a few places ahead (see [`Sim::prefetch_ahead`]).

use super::*;

impl Sim {
    /// Prefetch the memory the events a few places ahead will need, so the cache misses
    /// overlap with the work of the events before them (the DES is bound by memory
    /// latency). A pipeline over the next events of the calendar's current bucket, each
    /// stage reading only what an earlier stage requested:
    ///
    /// | events ahead (D = [`PREFETCH_AHEAD`]) | `Deliver` on port p | `TxDone` on port p |
    /// |---|---|---|
    /// | 2D | p's lines | p's lines |
    /// | D | p's two link head entries | p's queue heads, link tail |
    /// | D/2 | the next port (routed as [`Sim::switch_arrive`] will) or the flow | |
    /// | D/4 | that port's data queue and link tails (the port remembered in `hops`) | |
    ///
    /// The on/off test is inlined into the run loop: with prefetching off (a fabric under
    /// `PREFETCH_MIN_PORTS` ports) an event pays one flag test, not a call and its register
    /// saves (17 instructions per event on the 128-GPU LLM fabric).
    #[inline(always)]
    pub(super) fn prefetch_ahead(&mut self) {
        if self.prefetch {
            self.prefetch_pipeline();
        }
    }

    /// Turn the pipeline off for a fabric of DCSIM ports (called when the run starts: the
    /// transport's setup installs them after [`Sim::build`]). The pipeline requests a FIFO
    /// port's `data_q` / `ctrl_q` / link lines; a DCSIM port keeps its queues in its boxed
    /// arbiter, so the requests miss what the port touches and cost their own work: at 1024
    /// hosts (`dcsim_a2av` with `topology.radix = 16`, 6144 ports, 300 us) 1.58-1.62 s with
    /// the pipeline against 1.43-1.53 s without, and a pipeline for the DCSIM port's own
    /// lines cost more than it hid (benches/README.md, DCSIM session 15a).
    pub(super) fn prefetch_for_ports(&mut self) {
        if self.prefetch && self.ports.iter().any(|p| p.kind.self_scheduled()) {
            self.prefetch = false;
        }
    }

    /// The pipeline of [`Sim::prefetch_ahead`].
    #[inline(never)]
    fn prefetch_pipeline(&mut self) {
        const D: usize = PREFETCH_AHEAD;
        if let Some(c) = self.q.ahead_comp(2 * D) {
            if let Some(port) = self.ports.get(c.index() as usize) {
                match c.kind() {
                    Kind::Deliver => prefetch(&port.link),
                    Kind::TxDone => port.prefetch(true),
                    _ => {}
                }
            }
        }
        if let Some(c) = self.q.ahead_comp(D) {
            if let Some(port) = self.ports.get(c.index() as usize) {
                match c.kind() {
                    Kind::Deliver => {
                        // The head, and the entry after it (whose time the delivery reads
                        // to schedule the next one).
                        if let Some(e) = port.link.front() {
                            prefetch_lines(e);
                            prefetch_next(e);
                        }
                    }
                    Kind::TxDone => {
                        if let Some(e) = port.data_q.front() {
                            prefetch_lines(e);
                        }
                        if let Some(e) = port.ctrl_q.front() {
                            prefetch_lines(e);
                        }
                        if let Some(e) = port.link.back() {
                            prefetch_next(e);
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(c) = self.q.ahead_comp(D / 2) {
            if c.kind() == Kind::Deliver {
                match self.next_hop(c.index()) {
                    Some(Hop::Port(out, data)) => {
                        if let Some(o) = self.ports.get(out as usize) {
                            o.prefetch(data);
                        }
                        // Remembered for the last stage, which would route again.
                        self.hops[self.hop_i % HOPS] = (c, out);
                        self.hop_i = self.hop_i.wrapping_add(1);
                    }
                    Some(Hop::Flow(f, data, psn)) => {
                        if let Some(f) = self.flows.get(f as usize) {
                            f.prefetch(data, psn);
                        }
                    }
                    None => {}
                }
            }
        }
        if let Some(c) = self.q.ahead_comp(D / 4) {
            if c.kind() == Kind::Deliver {
                let hop = self.hops.iter().find(|h| h.0 == c).map(|h| h.1);
                if let Some(o) = hop.and_then(|out| self.ports.get(out as usize)) {
                    if let Some(e) = o.data_q.back() {
                        prefetch_next(e);
                    }
                    if let Some(e) = o.link.back() {
                        prefetch_next(e);
                    }
                }
            }
        }
    }

    /// Where the head packet of port `p`'s link goes next: the switch output port it will
    /// be routed to, or its flow at the receiving host (for prefetching only).
    #[inline]
    pub(super) fn next_hop(&self, p: u32) -> Option<Hop> {
        let port = self.ports.get(p as usize)?;
        let (_, pk) = port.link.front()?;
        match port.peer {
            Node::Switch(s) => {
                let &(route, seed) = self.switches.get(s as usize)?;
                let data = pk.kind == PktKind::Data;
                route
                    .select(pk.src, pk.dst, pk.ev, seed)
                    .map(|o| Hop::Port(o, data))
            }
            Node::Host(_) => Some(Hop::Flow(pk.flow, pk.kind == PktKind::Data, pk.psn)),
        }
    }
}
