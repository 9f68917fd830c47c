//! The pFabric switch port of the fabric ([`PortDriver::Pfabric`], `transport.cc =
//! "pfabric"`): pFabric (Alizadeh et al., SIGCOMM 2013) section 4.2, the `switch` crate's
//! [`PfabricPort`] priority buffer holding the port's DATA (and pFabric's probes).
//!
//! ```text
//!  DATA / probe --> PfabricPort<PF_SLOTS> (capacity = [transport.pfabric] buffer):
//!   (prio from      full: evict the largest remaining size, or drop the arrival
//!    the packet)    dequeue: earliest packet of the flow of the smallest prio  --> line
//!  ACK ----------> the engine's control lane (strict priority, as every port)
//! ```
//!
//! The block holds slot ids; the packets themselves wait in this driver's slab (`pkts`,
//! named by the block's `id`). The engine serializes at the link rate and asks for the next
//! packet when the line is free ([`PfabricPort::dequeue`]; the block's own serializer is
//! not used). The priority (the flow's remaining size when the packet was sent) comes from
//! the transport's side table ([`crate::transport::pfabric`]), the header field pFabric
//! adds. ACKs keep the control lane, so they are never dropped by a full buffer (pFabric
//! gives ACKs the highest priority; our lane is that, uncounted in the buffer).

use super::PortDriver;
use crate::engine::{Cause, Sim};
use crate::event::{Comp, Kind};
use crate::packet::{Packet, PktKind};
use crate::transport::TransportDriver;
use switch::pfabric::{PfAdmit, PfPacket, PfabricPort};

/// Packet slots of a fabric pFabric port: the largest buffer, in packets, a scenario may
/// give it (`[transport.pfabric] buffer`, checked by validation).
pub const PF_SLOTS: usize = switch::pfabric::FABRIC_SLOTS;

/// A pFabric switch port: the priority buffer block and the packets it names.
#[derive(Debug, Clone)]
pub struct PfabricPortRt {
    q: PfabricPort<PF_SLOTS>,
    /// The buffered packets, by the block's slot id.
    pkts: Vec<Packet>,
    free: Vec<u32>,
    /// Bytes buffered.
    bytes: u64,
    /// Arriving packets dropped (the buffer full of more urgent ones).
    pub(crate) drops: u64,
    /// Buffered packets dropped for a more urgent arrival.
    pub(crate) evictions: u64,
}

impl PfabricPortRt {
    /// An empty port holding at most `cap` packets (`1..=PF_SLOTS`); the error is the
    /// problem.
    pub fn new(cap: usize) -> Result<Self, String> {
        // The engine serializes; the block's line width is never used (`dequeue`).
        let q = PfabricPort::with_capacity(u32::MAX, cap)
            .map_err(|e| format!("{} ({})", e.problem, e.field))?;
        Ok(PfabricPortRt {
            q,
            pkts: Vec::new(),
            free: Vec::new(),
            bytes: 0,
            drops: 0,
            evictions: 0,
        })
    }

    /// Whether no packet is buffered.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Bytes buffered.
    pub fn queued_bytes(&self) -> u64 {
        self.bytes
    }

    /// The buffered packets (arrival order).
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.q.queued().iter().map(|s| &self.pkts[s.id as usize])
    }

    /// Every packet slot, buffered or free, in place (a Wormhole shift moving the times
    /// the buffered packets' headers carry; a free slot is overwritten before it is read).
    pub fn packets_mut(&mut self) -> impl Iterator<Item = &mut Packet> {
        self.pkts.iter_mut()
    }

    /// The buffered (flow, priority) pairs in arrival order (tests).
    pub fn priorities(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.q.queued().iter().map(|s| (s.flow, s.prio))
    }

    fn put(&mut self, pk: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.pkts[i as usize] = pk;
                i
            }
            None => {
                self.pkts.push(pk);
                (self.pkts.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, id: u32) -> Packet {
        self.free.push(id);
        let pk = self.pkts[id as usize];
        self.bytes -= u64::from(pk.bytes);
        pk
    }

    /// Offer `pk` with priority `prio` (pFabric 4.2): buffered, possibly for a less urgent
    /// packet, which is returned to be dropped; `Err(pk)`: `pk` itself is dropped.
    pub fn arrive(&mut self, pk: Packet, prio: u32) -> Result<Option<Packet>, Packet> {
        let id = self.put(pk);
        self.bytes += u64::from(pk.bytes);
        let slot = PfPacket {
            id,
            flow: pk.flow,
            prio,
            bytes: pk.bytes,
        };
        match self.q.arrive(slot) {
            PfAdmit::Enqueue => Ok(None),
            PfAdmit::Evict(v) => {
                self.evictions += 1;
                Ok(Some(self.take(v.id)))
            }
            PfAdmit::Drop => {
                self.drops += 1;
                Err(self.take(id))
            }
        }
    }

    /// The next packet to send (the block's pick), out of the buffer.
    #[inline]
    pub fn dequeue(&mut self) -> Option<Packet> {
        let s = self.q.dequeue()?;
        Some(self.take(s.id))
    }
}

impl Sim {
    /// Start the next packet on idle pFabric port `p` (at `self.now`): the control lane
    /// first, then the buffer's pick; schedule its `TxDone` if more wait.
    pub(crate) fn pfabric_start_next(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let pkt = match port.ctrl_q.pop_front() {
            Some(x) => Some(x),
            None => match &mut port.kind {
                PortDriver::Pfabric(pf) => pf.dequeue(),
                _ => None,
            },
        };
        let Some(pk) = pkt else { return };
        self.transmit(p, pk);
        let port = &mut self.ports[p as usize];
        let more = !port.ctrl_q.is_empty() || port.kind.pfabric().is_some_and(|pf| !pf.is_empty());
        if more {
            port.txdone_at = port.busy_until;
            self.q.push(port.busy_until, Comp::new(Kind::TxDone, p));
        }
    }

    /// A packet reached a switch whose output `out` is a pFabric port: ACKs to the control
    /// lane, DATA and probes into the priority buffer (the loser of a full buffer dropped).
    pub(crate) fn pfabric_arrive(&mut self, out: u32, pk: Packet) {
        if !matches!(pk.kind, PktKind::Data | PktKind::Header) {
            self.ports[out as usize].ctrl_q.push_back(pk);
            return self.kick(out);
        }
        let prio = match &self.transport {
            TransportDriver::Pfabric(st) => st.prio_of(&pk),
            _ => u32::MAX,
        };
        let PortDriver::Pfabric(pf) = &mut self.ports[out as usize].kind else {
            unreachable!("pfabric_arrive is called for pFabric ports")
        };
        match pf.arrive(pk, prio) {
            Ok(None) => {}
            Ok(Some(victim)) => self.drop_pkt(out, &victim, Cause::BufferFull),
            Err(pk) => {
                self.drop_pkt(out, &pk, Cause::BufferFull);
                return;
            }
        }
        self.kick(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1000-byte DATA packet of `flow` from host 0 to host 1.
    fn data(flow: u32, psn: u32) -> Packet {
        Packet::data(flow, 0, 1, psn, 1000, 0)
    }

    #[test]
    fn holds_packets_by_priority_and_returns_the_loser() {
        let mut p = PfabricPortRt::new(2).unwrap();
        assert_eq!(p.arrive(data(1, 0), 900), Ok(None));
        assert_eq!(p.arrive(data(2, 0), 100), Ok(None));
        assert_eq!(p.queued_bytes(), 2000);
        // Full: a less urgent arrival is dropped, a more urgent one evicts flow 1's packet.
        assert_eq!(p.arrive(data(3, 0), 950), Err(data(3, 0)));
        assert_eq!(p.arrive(data(4, 7), 50), Ok(Some(data(1, 0))));
        assert_eq!((p.drops, p.evictions), (1, 1));
        assert_eq!(p.packets().count(), 2);
        assert_eq!(p.dequeue(), Some(data(4, 7)));
        assert_eq!(p.dequeue(), Some(data(2, 0)));
        assert_eq!(p.dequeue(), None);
        assert!(p.is_empty());
        assert_eq!(p.queued_bytes(), 0);
        assert!(PfabricPortRt::new(0).is_err());
        assert!(PfabricPortRt::new(PF_SLOTS + 1).is_err());
    }
}
