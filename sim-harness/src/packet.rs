//! Packets: small `Copy` structs (28 bytes) held by value in the per-port ring buffers
//! (control lane, data FIFO, link), which together are the packet arena: they grow to the
//! run's peak and are reused, so nothing is allocated per packet, and an event never
//! carries a packet (it names the port whose ring holds it). Holding packets by value rather
//! than by index into one shared slab saves a cache miss per hop: the DES is bound by memory
//! latency, and a link's ring is read in order.

/// What a packet is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PktKind {
    /// Payload-carrying DATA packet.
    Data = 0,
    /// Per-packet acknowledgement (selective + cumulative, ECN and EV echo).
    Ack = 1,
    /// Negative acknowledgement of a trimmed DATA packet.
    Nack = 2,
    /// A DATA packet trimmed to its header by a switch (forwarded at high priority).
    Header = 3,
    /// DCSIM simulation probe (section 2.4 (1)).
    Sim = 4,
    /// DCSIM acknowledgement of a SIM (echoes its EV).
    SimAck = 5,
    /// DCSIM acknowledgement of DATAs (`cum_ack` = cumulative point; `psn` = index of its
    /// 64-bit selective map in the DCSIM side table).
    DataAck = 6,
    /// dcPIM request (RTS) of a matching round ([`crate::transport::dcpim`]).
    PimRts = 7,
    /// dcPIM grant of a matching round (or, with `ecn` set, a receiver's revoke).
    PimGrant = 8,
    /// dcPIM accept of a matching round.
    PimAccept = 9,
}

impl PktKind {
    /// Control packets (everything but DATA) use the high-priority lane of every port and
    /// are not counted in the data buffer.
    #[inline]
    pub const fn is_control(self) -> bool {
        !matches!(self, PktKind::Data)
    }
}

/// A packet header as the simulator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// Flow (message) id.
    pub flow: u32,
    /// Sending host of this packet (for an ACK: the DATA's receiver).
    pub src: u32,
    /// Destination host.
    pub dst: u32,
    /// PSN carried (DATA: its PSN; ACK/NACK: the PSN acknowledged).
    pub psn: u32,
    /// ACK and DATA-ACK: the cumulative acknowledgement. DATA: its transmission time at the
    /// source host ([`crate::metrics::stamp`], for the queueing delay metric).
    pub cum_ack: u32,
    /// Bytes on the wire.
    pub bytes: u32,
    /// Entropy value (ACKs echo the DATA's).
    pub ev: u16,
    /// Kind.
    pub kind: PktKind,
    /// DATA: CE mark; ACK: the echoed mark.
    pub ecn: bool,
}

impl Packet {
    /// A DATA packet of flow `flow` leaving host `src` for `dst`: PSN `psn`, `bytes` on the
    /// wire (payload + header), entropy value `ev`; not CE-marked, and `cum_ack` 0 until the
    /// host's link stamps its transmission time into it (`Sim::transmit_inline`). What the
    /// send paths of DCTCP, Uno, dcPIM and pHost differ in (PSN or wire sequence number,
    /// payload, entropy source) is what they pass.
    #[inline]
    pub fn data(flow: u32, src: u32, dst: u32, psn: u32, bytes: u32, ev: u16) -> Packet {
        Packet {
            flow,
            src,
            dst,
            psn,
            cum_ack: 0,
            bytes,
            ev,
            kind: PktKind::Data,
            ecn: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_are_small_and_kinds_classify() {
        assert!(std::mem::size_of::<Packet>() <= 28);
        assert!(!PktKind::Data.is_control());
        assert!(PktKind::Ack.is_control() && PktKind::Nack.is_control());
        assert!(PktKind::Header.is_control());
    }
}
