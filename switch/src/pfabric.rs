//! pFabric switch port: a tiny buffer that dequeues by priority and drops by priority.
//!
//! pFabric (Alizadeh et al., SIGCOMM 2013, section 4.2 "Switch Design"), one of the
//! baselines of the DCSIM paper (section 4.1, "Algorithms"; section 5, "Priorities": pFabric
//! "prioritizes packets from flows with the smallest remaining size"). Every packet carries
//! its flow's remaining size as its priority (smaller = more urgent). The port keeps a small
//! buffer of `N` packets (about two BDPs) and:
//!
//! * **dequeue**: finds the highest-priority packet (smallest remaining size; ties to the
//!   earliest arrival), then sends the *earliest-arrived* packet of that packet's flow, so a
//!   flow's packets leave in order (section 4.2: "to avoid starvation ... we dequeue the
//!   earliest packet from the flow with the highest priority");
//! * **drop**: when a packet arrives to a full buffer, the lowest-priority packet (largest
//!   remaining size; ties to the latest arrival) is dropped, which is the arriving one if
//!   its priority is not better than every buffered packet's.
//!
//! ```text
//!               +---------------------------------------------+
//!  arrive(p) -->| N slots in arrival order: (id, flow, prio,  |--> departure (one per
//!  Enqueue /    |  bytes). full: evict max prio (or drop p)   |    packet boundary)
//!  Evict(v) /   +---------------------------------------------+
//!  Drop         dequeue: f = flow(argmin prio); first slot of flow f
//!               serializer: busy max(1, ceil(bytes / W)) cycles
//! ```
//!
//! Timing matches [`crate::output_port::OutputPort`]: the clock edge ([`Clocked::tick`])
//! moves the line one cycle and, when it is free, starts the next packet, which is visible
//! through [`PfabricPort::take_departure`] during the following cycle.
//!
//! Units: `prio` in bytes of remaining flow size (any monotone unit works), `bytes` on the
//! wire, `W` in bytes per cycle. The comparisons are a min / max tree over `N` slots.

use rtl_models::budget::{bits_for, StateBudget};
use rtl_models::field_bits;
use rtl_models::{Clocked, ConfigError, Cycles};

/// A packet as the pFabric port sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PfPacket {
    /// Caller's packet identifier (opaque to the port).
    pub id: u32,
    /// Flow identifier (which packets must leave in arrival order).
    pub flow: u32,
    /// pFabric priority: the flow's remaining size when the packet was sent (smaller wins).
    pub prio: u32,
    /// Size on the wire, bytes.
    pub bytes: u32,
}

impl StateBudget for PfPacket {
    const NAME: &'static str = "pFabric packet slot";
    const BITS: u32 = 4 * 32;
    const UNIT: &'static str = "per slot";
}
const _: () = assert!(
    PfPacket::BITS
        == field_bits!(PfPacket, id)
            + field_bits!(PfPacket, flow)
            + field_bits!(PfPacket, prio)
            + field_bits!(PfPacket, bytes)
        && PfPacket::BITS as usize == 8 * core::mem::size_of::<PfPacket>()
);

/// What the port did with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PfAdmit {
    /// Buffered; nothing dropped.
    Enqueue,
    /// Buffered; the buffer was full and this lower-priority packet was dropped for it.
    Evict(PfPacket),
    /// The buffer was full of packets at least as urgent: the arriving packet is dropped.
    Drop,
}

/// Slots of the pFabric port the fabric simulator instantiates (`transport.cc = "pfabric"`):
/// the largest buffer, in packets, a scenario may give it.
pub const FABRIC_SLOTS: usize = 512;

/// A pFabric output port with an `N`-packet buffer (`1 <= N <= 65535`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PfabricPort<const N: usize> {
    /// Buffered packets, `slots[..len]` in arrival order.
    slots: [PfPacket; N],
    len: u16,
    /// Capacity, packets (`1..=N`): a buffer smaller than the slots provisioned (the fabric
    /// sizes one port type for every buffer a scenario asks for).
    cap: u16,
    line_bytes_per_cycle: u32,
    /// Cycles the line stays busy, counting the current one (0 = idle).
    busy: u32,
    departure: Option<PfPacket>,
    /// Packets dropped (arriving or evicted).
    drops: u64,
}

impl<const N: usize> PfabricPort<N> {
    const VALID_N: () = assert!(N >= 1 && N < 1 << 16, "N must be in 1..=65535");

    /// An empty port transmitting `line_bytes_per_cycle` bytes per cycle (W); the error
    /// names `line_bytes_per_cycle` if it is zero.
    pub const fn new(line_bytes_per_cycle: u32) -> Result<Self, ConfigError> {
        Self::with_capacity(line_bytes_per_cycle, N)
    }

    /// [`PfabricPort::new`] holding at most `cap` packets (`1..=N`; the error names `cap`).
    pub const fn with_capacity(line_bytes_per_cycle: u32, cap: usize) -> Result<Self, ConfigError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_N;
        if cap == 0 || cap > N {
            return Err(ConfigError::new("cap", "must be between 1 and the slots N"));
        }
        if line_bytes_per_cycle == 0 {
            return Err(ConfigError::new(
                "line_bytes_per_cycle",
                "must be above zero",
            ));
        }
        Ok(PfabricPort {
            slots: [PfPacket {
                id: 0,
                flow: 0,
                prio: 0,
                bytes: 0,
            }; N],
            len: 0,
            cap: cap as u16,
            line_bytes_per_cycle,
            busy: 0,
            departure: None,
            drops: 0,
        })
    }

    /// Buffered packets in arrival order (not counting the one on the line).
    pub fn queued(&self) -> &[PfPacket] {
        &self.slots[..self.len as usize]
    }

    /// Capacity, packets.
    pub const fn capacity(&self) -> usize {
        self.cap as usize
    }

    /// Number of buffered packets.
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the buffer is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packets dropped so far (arriving or evicted).
    pub const fn drops(&self) -> u64 {
        self.drops
    }

    /// Whether the line is transmitting.
    pub const fn line_busy(&self) -> bool {
        self.busy > 0
    }

    /// A packet arrives this cycle (section 4.2 dropping rule when the buffer is full).
    pub fn arrive(&mut self, p: PfPacket) -> PfAdmit {
        let n = self.len as usize;
        if n < self.cap as usize {
            self.slots[n] = p;
            self.len += 1;
            return PfAdmit::Enqueue;
        }
        self.drops += 1;
        // Lowest priority = largest prio; ties to the latest arrival.
        let mut worst = 0;
        for i in 1..n {
            if self.slots[i].prio >= self.slots[worst].prio {
                worst = i;
            }
        }
        if p.prio >= self.slots[worst].prio {
            return PfAdmit::Drop;
        }
        let victim = self.remove(worst);
        self.slots[n - 1] = p;
        self.len += 1;
        PfAdmit::Evict(victim)
    }

    /// The packet whose transmission started this cycle (taken: a second call gives `None`).
    pub fn take_departure(&mut self) -> Option<PfPacket> {
        self.departure.take()
    }

    /// The packet the scheduler would send next: the earliest packet of the flow of the
    /// highest-priority packet (ties between flows to the earliest arrival).
    pub fn next_index(&self) -> Option<usize> {
        let q = self.queued();
        let mut best = 0;
        for i in 1..q.len() {
            if q[i].prio < q.get(best)?.prio {
                best = i;
            }
        }
        let flow = q.get(best)?.flow;
        q.iter().position(|s| s.flow == flow)
    }

    /// Take the packet the scheduler picks ([`PfabricPort::next_index`]) out of the buffer,
    /// for a caller that models the line itself (the fabric DES serializes at its link rate
    /// and asks for the next packet when the line is free); the serializer is not used.
    pub fn dequeue(&mut self) -> Option<PfPacket> {
        let i = self.next_index()?;
        Some(self.remove(i))
    }

    fn remove(&mut self, i: usize) -> PfPacket {
        let n = self.len as usize;
        let p = self.slots[i];
        self.slots.copy_within(i + 1..n, i);
        self.len -= 1;
        p
    }

    fn start_next(&mut self) {
        if let Some(p) = self.dequeue() {
            self.busy = p.bytes.div_ceil(self.line_bytes_per_cycle).max(1);
            self.departure = Some(p);
        }
    }
}

/// The edge moves the line one cycle; a free line starts the next packet.
impl<const N: usize> Clocked for PfabricPort<N> {
    fn tick(&mut self) {
        self.departure = None;
        self.busy = self.busy.saturating_sub(1);
        if self.busy == 0 {
            self.start_next();
        }
    }

    fn advance(&mut self, cycles: Cycles) {
        let mut n = cycles;
        while n > 0 {
            if self.busy > 1 {
                let k = n.min(self.busy as u64 - 1);
                self.busy -= k as u32;
                self.departure = None;
                n -= k;
            } else if self.len == 0 {
                self.busy = 0;
                self.departure = None;
                return;
            } else {
                self.tick();
                n -= 1;
            }
        }
    }
}

impl<const N: usize> StateBudget for PfabricPort<N> {
    const NAME: &'static str = "pFabric port (priority buffer + serializer)";
    /// `N` packet slots + occupancy count + capacity register + busy counter + departure
    /// register (packet + valid) + drop counter. W is configuration.
    const BITS: u32 =
        N as u32 * PfPacket::BITS + 2 * bits_for(N as u64) + 32 + PfPacket::BITS + 1 + 64;
    const UNIT: &'static str = "per port";
}
// Packed form: each register as wide as the model's field (a 24-slot port, about two BDPs
// of 1500 B packets at 10 Gb/s as in pFabric section 5).
const _: () = assert!(
    PfabricPort::<24>::BITS
        == 24 * PfPacket::BITS
            + 2 * bits_for(24)
            + field_bits!(PfabricPort<24>, busy)
            + PfPacket::BITS
            + 1
            + field_bits!(PfabricPort<24>, drops)
        && bits_for(24) <= field_bits!(PfabricPort<24>, len)
        && bits_for(24) <= field_bits!(PfabricPort<24>, cap)
);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use rtl_models::testing::assert_advance_eq_ticks;
    use std::{vec, vec::Vec};

    fn pk(id: u32, flow: u32, prio: u32) -> PfPacket {
        PfPacket {
            id,
            flow,
            prio,
            bytes: 64,
        }
    }

    #[test]
    fn dequeues_by_priority_in_flow_order_and_drops_the_lowest() {
        let mut p = PfabricPort::<3>::new(64).unwrap();
        assert_eq!(p.arrive(pk(1, 7, 900)), PfAdmit::Enqueue);
        assert_eq!(p.arrive(pk(2, 8, 500)), PfAdmit::Enqueue);
        assert_eq!(p.arrive(pk(3, 7, 100)), PfAdmit::Enqueue);
        // Full: a worse arrival is dropped, a better one evicts the worst (flow 7's first).
        assert_eq!(p.arrive(pk(4, 9, 900)), PfAdmit::Drop);
        assert_eq!(p.arrive(pk(5, 9, 300)), PfAdmit::Evict(pk(1, 7, 900)));
        assert_eq!(p.drops(), 2);
        let mut order = Vec::new();
        for _ in 0..5 {
            p.tick();
            if let Some(d) = p.take_departure() {
                order.push(d.id);
            }
        }
        assert_eq!(order, vec![3, 5, 2]);
        // Flow order beats the later packet's better priority.
        let mut p = PfabricPort::<4>::new(64).unwrap();
        p.arrive(pk(1, 7, 900));
        p.arrive(pk(2, 7, 10));
        p.tick();
        assert_eq!(p.take_departure().map(|d| d.id), Some(1));
        assert_eq!(
            PfabricPort::<4>::new(0).unwrap_err().field,
            "line_bytes_per_cycle"
        );
    }

    #[test]
    fn a_smaller_capacity_drops_earlier_and_dequeue_takes_the_pick() {
        let mut p = PfabricPort::<8>::with_capacity(64, 2).unwrap();
        assert_eq!(p.capacity(), 2);
        assert_eq!(p.arrive(pk(1, 7, 900)), PfAdmit::Enqueue);
        assert_eq!(p.arrive(pk(2, 8, 500)), PfAdmit::Enqueue);
        assert_eq!(p.arrive(pk(3, 9, 600)), PfAdmit::Evict(pk(1, 7, 900)));
        assert_eq!(p.arrive(pk(4, 9, 700)), PfAdmit::Drop);
        assert_eq!(p.dequeue().map(|d| d.id), Some(2));
        assert_eq!(p.dequeue().map(|d| d.id), Some(3));
        assert_eq!(p.dequeue(), None);
        assert!(!p.line_busy(), "dequeue leaves the serializer alone");
        for cap in [0, 9] {
            assert_eq!(
                PfabricPort::<8>::with_capacity(64, cap).unwrap_err().field,
                "cap"
            );
        }
    }

    #[test]
    fn serializer_holds_the_line() {
        let mut p = PfabricPort::<4>::new(64).unwrap();
        p.arrive(PfPacket {
            id: 1,
            flow: 1,
            prio: 1,
            bytes: 130,
        });
        p.arrive(PfPacket {
            id: 2,
            flow: 1,
            prio: 1,
            bytes: 1,
        });
        let mut starts = Vec::new();
        for c in 0..6 {
            p.tick();
            if p.take_departure().is_some() {
                starts.push(c);
            }
        }
        assert_eq!(starts, vec![0, 3]);
    }

    fn packets() -> impl Strategy<Value = Vec<(u32, u32, u32, u64)>> {
        proptest::collection::vec((0u32..4, 1u32..50, 1u32..200, 0u64..4), 0..40)
    }

    proptest! {
        /// Every departure is the earliest packet of the highest-priority packet's flow; on
        /// overflow the dropped packet is no more urgent than anything kept; packets are
        /// conserved.
        #[test]
        fn priorities_ordered_and_packets_conserved(arr in packets()) {
            let mut p = PfabricPort::<5>::new(32).unwrap();
            let (mut arrived, mut departed, mut dropped) = (0u64, 0u64, 0u64);
            for (i, &(flow, prio, bytes, gap)) in arr.iter().enumerate() {
                let pkt = PfPacket { id: i as u32, flow, prio, bytes };
                arrived += 1;
                match p.arrive(pkt) {
                    PfAdmit::Enqueue => {}
                    PfAdmit::Evict(v) => {
                        dropped += 1;
                        prop_assert!(p.queued().iter().all(|q| q.prio <= v.prio));
                        prop_assert!(pkt.prio < v.prio);
                    }
                    PfAdmit::Drop => {
                        dropped += 1;
                        prop_assert!(p.queued().iter().all(|q| q.prio <= pkt.prio));
                    }
                }
                for _ in 0..=gap {
                    let before: Vec<PfPacket> = p.queued().to_vec();
                    p.tick();
                    if let Some(d) = p.take_departure() {
                        departed += 1;
                        let best = before.iter().map(|q| q.prio).min().unwrap();
                        let best_flow = before.iter().find(|q| q.prio == best).unwrap().flow;
                        prop_assert_eq!(d.flow, best_flow);
                        prop_assert_eq!(before.iter().find(|q| q.flow == d.flow), Some(&d));
                    }
                }
            }
            for _ in 0..40 * 5 {
                p.tick();
                departed += u64::from(p.take_departure().is_some());
            }
            prop_assert!(p.is_empty());
            prop_assert_eq!(p.drops(), dropped);
            prop_assert_eq!(arrived, departed + dropped + p.len() as u64);
        }

        /// `advance(n)` equals `n` idle ticks from any reachable state.
        #[test]
        fn advance_equals_idle_ticks(arr in packets(), stop in 0usize..40, n in 0u64..300) {
            let mut p = PfabricPort::<5>::new(32).unwrap();
            for (i, &(flow, prio, bytes, gap)) in arr.iter().take(stop).enumerate() {
                p.arrive(PfPacket { id: i as u32, flow, prio, bytes: bytes * 40 });
                p.advance(gap);
            }
            assert_advance_eq_ticks(&p, n);
        }
    }
}
