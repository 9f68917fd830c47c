//! UnoRC's erasure-coded blocks: the sender's block cutter / retransmitter and the
//! receiver's per-block counter, timer and NACK (Uno section 4.2, "Erasure Coding").
//!
//! "each inter-DC message is divided into blocks of n packets, with x data and y parity
//! packets. A block can be reconstructed if at most y out of n packets are lost. Upon
//! receiving the first packet of a block, the receiver starts a timer set to the estimated
//! maximum queuing and transmission delay. If the timer expires before enough packets
//! arrive, a NACK is sent to the sender requesting retransmission of the missing block.
//! UnoRC applies erasure coding only to inter-DC traffic." Section 5.2.3: (8, 2).
//!
//! ```text
//!  RcSender: message (data packets) -> block k = data[k*x .. k*x+x) + y parity
//!            next_packet(): retransmit queue first (whole blocks), then new blocks
//!            on_nack(k) -> retransmit queue (B entries; full = counted stall)
//!  RcReceiver<S>: S block slots { block, received bitmap (<= 16 packets), deadline }
//!            on_packet(now, k, i): first packet arms deadline = now + timeout;
//!              x distinct packets -> Decodable (slot freed; the codec, ec.rs, decodes)
//!            poll_nack(now): a slot past its deadline with < x packets -> NACK(k)
//! ```
//!
//! The state machines are alloc-free; the Reed-Solomon codec that really reconstructs the
//! payloads lives in [`super::ec`] (feature `ec`). Units: cycles, packets.

use heapless::Deque;
use rtl_models::budget::bits_for;
use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

/// Largest block (data + parity) a receiver bitmap holds.
pub const MAX_BLOCK: u8 = 16;

/// UnoRC configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnoRcConfig {
    /// Data packets per block (x).
    pub data: u8,
    /// Parity packets per block (y) on an erasure-coded flow.
    pub parity: u8,
    /// Receiver's block timer: the estimated maximum queueing + transmission delay, cycles.
    pub timeout: Cycles,
    /// Erasure coding on inter-DC flows only (the paper); `false` codes every flow.
    pub inter_dc_only: bool,
    /// Erasure coding on at all; off means y = 0 for every flow (blocks, timer and NACK
    /// still work).
    pub enabled: bool,
}

impl UnoRcConfig {
    /// The paper's (8, 2) code on inter-DC flows, block timer `timeout`.
    pub const fn uno(timeout: Cycles) -> Self {
        UnoRcConfig {
            data: 8,
            parity: 2,
            timeout,
            inter_dc_only: true,
            enabled: true,
        }
    }

    /// Check; the error names the field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.data == 0 {
            return Err(ConfigError::new("data", "must be above zero"));
        }
        if self.data as u32 + self.parity as u32 > MAX_BLOCK as u32 {
            return Err(ConfigError::new(
                "parity",
                "data + parity must be at most 16",
            ));
        }
        if self.timeout == 0 {
            return Err(ConfigError::new("timeout", "must be above zero"));
        }
        Ok(())
    }

    /// Parity packets per block for a flow that is (or not) inter-DC.
    pub const fn parity_for(&self, inter_dc: bool) -> u8 {
        if !self.enabled || (self.inter_dc_only && !inter_dc) {
            0
        } else {
            self.parity
        }
    }
}

/// One packet of a block as the sender emits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RcPacket {
    /// Block number within the message.
    pub block: u32,
    /// Index within the block: `0..data_in_block` data, then parity.
    pub index: u8,
    /// Data packets of this block (x, or fewer for the message's last block).
    pub data_in_block: u8,
    /// A parity packet.
    pub parity: bool,
    /// For a data packet, its packet number in the message.
    pub psn: u32,
    /// A retransmission (of a NACKed block).
    pub retransmit: bool,
}

/// The sender side: cuts a message of `data_pkts` packets into blocks and retransmits
/// NACKed blocks; up to `R` NACKed blocks wait.
#[derive(Debug, Clone)]
pub struct RcSender<const R: usize> {
    x: u8,
    y: u8,
    data_pkts: u32,
    blocks: u32,
    next_block: u32,
    next_index: u8,
    retx: Deque<u32, R>,
    retx_block: Option<u32>,
    retx_index: u8,
    nack_overflows: u32,
}

impl<const R: usize> RcSender<R> {
    /// A sender for a message of `data_pkts` packets; y from `cfg.parity_for(inter_dc)`.
    pub fn new(cfg: UnoRcConfig, data_pkts: u32, inter_dc: bool) -> Result<Self, ConfigError> {
        cfg.validate()?;
        if data_pkts == 0 {
            return Err(ConfigError::new("data_pkts", "must be above zero"));
        }
        Ok(RcSender {
            x: cfg.data,
            y: cfg.parity_for(inter_dc),
            data_pkts,
            blocks: data_pkts.div_ceil(cfg.data as u32),
            next_block: 0,
            next_index: 0,
            retx: Deque::new(),
            retx_block: None,
            retx_index: 0,
            nack_overflows: 0,
        })
    }

    /// Blocks of the message.
    pub const fn blocks(&self) -> u32 {
        self.blocks
    }

    /// Parity packets per block.
    pub const fn parity(&self) -> u8 {
        self.y
    }

    /// Data packets of block `k`.
    pub fn data_in_block(&self, k: u32) -> u8 {
        let first = k * self.x as u32;
        (self.data_pkts - first).min(self.x as u32) as u8
    }

    /// Packets of block `k` (data + parity).
    pub fn block_len(&self, k: u32) -> u8 {
        self.data_in_block(k) + self.y
    }

    /// NACKs dropped because the retransmit queue was full.
    pub const fn nack_overflows(&self) -> u32 {
        self.nack_overflows
    }

    fn packet(&self, block: u32, index: u8, retransmit: bool) -> RcPacket {
        let d = self.data_in_block(block);
        RcPacket {
            block,
            index,
            data_in_block: d,
            parity: index >= d,
            psn: block * self.x as u32 + index.min(d.saturating_sub(1)) as u32,
            retransmit,
        }
    }

    /// The next packet to send: a NACKed block's packets first, then new blocks; `None`
    /// when everything has been sent once and nothing waits for retransmission.
    pub fn next_packet(&mut self) -> Option<RcPacket> {
        if self.retx_block.is_none() {
            if let Some(k) = self.retx.pop_front() {
                self.retx_block = Some(k);
                self.retx_index = 0;
            }
        }
        if let Some(k) = self.retx_block {
            let p = self.packet(k, self.retx_index, true);
            self.retx_index += 1;
            if self.retx_index >= self.block_len(k) {
                self.retx_block = None;
            }
            return Some(p);
        }
        if self.next_block >= self.blocks {
            return None;
        }
        let p = self.packet(self.next_block, self.next_index, false);
        self.next_index += 1;
        if self.next_index >= self.block_len(self.next_block) {
            self.next_index = 0;
            self.next_block += 1;
        }
        Some(p)
    }

    /// The receiver NACKed block `k`: queue its retransmission (whole block). A NACK for a
    /// block already queued, or beyond the message, is ignored; a full queue is counted.
    pub fn on_nack(&mut self, k: u32) {
        if k >= self.blocks || self.retx.iter().any(|&b| b == k) || self.retx_block == Some(k) {
            return;
        }
        if self.retx.push_back(k).is_err() {
            self.nack_overflows += 1;
        }
    }
}

/// What the receiver made of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RxVerdict {
    /// Counted; the block is not decodable yet.
    Pending,
    /// The block now has `x` distinct packets: decode it from `received` (bit i = packet
    /// i of the block arrived).
    Decodable {
        /// Block number.
        block: u32,
        /// Received-packet bitmap.
        received: u16,
    },
    /// A duplicate, or a packet of a block already decoded / of no free slot (counted).
    Ignored,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
struct Slot {
    block: u32,
    received: u16,
    need: u8,
    deadline: Cycles,
    live: bool,
}

/// The receiver side: `S` block slots (blocks in flight at once).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RcReceiver<const S: usize> {
    slots: [Slot; S],
    timeout: Cycles,
    /// Highest block decoded + 1 is not tracked: decoded blocks are remembered in a window
    /// bitmap of the 64 blocks after `floor` (older ones are all decoded).
    floor: u32,
    done: u64,
    decoded: u32,
    nacks: u32,
    ignored: u32,
    now: Cycles,
}

impl<const S: usize> RcReceiver<S> {
    /// A receiver with block timer `timeout` cycles.
    pub fn new(timeout: Cycles) -> Self {
        RcReceiver {
            slots: [Slot::default(); S],
            timeout,
            floor: 0,
            done: 0,
            decoded: 0,
            nacks: 0,
            ignored: 0,
            now: 0,
        }
    }

    /// Blocks decoded so far.
    pub const fn decoded(&self) -> u32 {
        self.decoded
    }

    /// NACKs sent so far.
    pub const fn nacks(&self) -> u32 {
        self.nacks
    }

    /// Packets ignored (duplicates, late, no slot).
    pub const fn ignored(&self) -> u32 {
        self.ignored
    }

    /// The current cycle.
    pub const fn now(&self) -> Cycles {
        self.now
    }

    fn is_done(&self, k: u32) -> bool {
        k < self.floor || (k - self.floor < 64 && self.done >> (k - self.floor) & 1 == 1)
    }

    fn mark_done(&mut self, k: u32) {
        if k < self.floor {
            return;
        }
        if k - self.floor >= 64 {
            // Slide the window so k fits (older blocks are treated as decoded).
            let shift = k - self.floor - 63;
            self.done = if shift >= 64 { 0 } else { self.done >> shift };
            self.floor += shift;
        }
        self.done |= 1 << (k - self.floor);
        while self.done & 1 == 1 {
            self.done >>= 1;
            self.floor += 1;
        }
    }

    /// Packet `index` of block `block` (with `data_in_block` data packets: a block needs
    /// that many distinct packets) arrives at `now`.
    pub fn on_packet(
        &mut self,
        now: Cycles,
        block: u32,
        index: u8,
        data_in_block: u8,
    ) -> RxVerdict {
        self.sync(now);
        if index >= MAX_BLOCK || data_in_block == 0 || self.is_done(block) {
            self.ignored += 1;
            return RxVerdict::Ignored;
        }
        let pos = self.slots.iter().position(|s| s.live && s.block == block);
        let k = match pos {
            Some(k) => k,
            None => match self.slots.iter().position(|s| !s.live) {
                Some(k) => {
                    self.slots[k] = Slot {
                        block,
                        received: 0,
                        need: data_in_block,
                        deadline: self.now + self.timeout,
                        live: true,
                    };
                    k
                }
                None => {
                    self.ignored += 1;
                    return RxVerdict::Ignored;
                }
            },
        };
        let s = &mut self.slots[k];
        if s.received >> index & 1 == 1 {
            self.ignored += 1;
            return RxVerdict::Ignored;
        }
        s.received |= 1 << index;
        if s.received.count_ones() >= s.need as u32 {
            let received = s.received;
            s.live = false;
            self.decoded += 1;
            self.mark_done(block);
            RxVerdict::Decodable { block, received }
        } else {
            RxVerdict::Pending
        }
    }

    /// The next block whose timer expired at or before `now` with fewer than x packets: its
    /// slot is freed (a retransmission starts afresh) and the block is NACKed.
    pub fn poll_nack(&mut self, now: Cycles) -> Option<u32> {
        self.sync(now);
        let t = self.now;
        let s = self.slots.iter_mut().find(|s| s.live && s.deadline <= t)?;
        s.live = false;
        self.nacks += 1;
        Some(s.block)
    }

    /// Earliest pending deadline (for the DES to schedule a wake-up).
    pub fn next_deadline(&self) -> Option<Cycles> {
        self.slots
            .iter()
            .filter(|s| s.live)
            .map(|s| s.deadline)
            .min()
    }

    fn sync(&mut self, now: Cycles) {
        if now > self.now {
            self.now = now;
        }
    }
}

/// Time only moves `now`: deadlines are compared when polled.
impl<const S: usize> Clocked for RcReceiver<S> {
    fn tick(&mut self) {
        self.now += 1;
    }
    fn advance(&mut self, cycles: Cycles) {
        self.now += cycles;
    }
}

impl<const S: usize> StateBudget for RcReceiver<S> {
    const NAME: &'static str = "UnoRC receiver block table (Uno 4.2)";
    /// Per slot: block (32) + bitmap (16) + need (5) + deadline (48) + live; decoded
    /// window floor (32) + bitmap (64); three 32-bit counters.
    const BITS: u32 = S as u32 * (32 + 16 + bits_for(MAX_BLOCK as u64) + 48 + 1) + 32 + 64 + 3 * 32;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(<RcReceiver<8> as StateBudget>::BITS == 8 * 102 + 192);

impl<const R: usize> StateBudget for RcSender<R> {
    const NAME: &'static str = "UnoRC sender block cutter + NACK queue (Uno 4.2)";
    /// x, y (5 each), packets (32), blocks (32), next block (32), next index (5), R queued
    /// block numbers (32 each) + queue head/len (2 x 8), block being retransmitted (32 +
    /// valid) and its index (5), overflow counter (32).
    const BITS: u32 = 5 + 5 + 32 * 3 + 5 + R as u32 * 32 + 16 + 33 + 5 + 32;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(<RcSender<4> as StateBudget>::BITS == 10 + 96 + 5 + 128 + 16 + 33 + 5 + 32);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn blocks_of_eight_plus_two_inter_dc_only() {
        let cfg = UnoRcConfig::uno(1000);
        let mut s = RcSender::<4>::new(cfg, 20, true).unwrap();
        assert_eq!((s.blocks(), s.parity()), (3, 2));
        assert_eq!(s.block_len(2), 4 + 2);
        let mut n = 0;
        let mut parity = 0;
        while let Some(p) = s.next_packet() {
            n += 1;
            parity += p.parity as u32;
        }
        assert_eq!((n, parity), (20 + 6, 6));
        let intra = RcSender::<4>::new(cfg, 20, false).unwrap();
        assert_eq!(intra.parity(), 0);
        let all = UnoRcConfig {
            inter_dc_only: false,
            ..cfg
        };
        assert_eq!(all.parity_for(false), 2);
        assert_eq!(
            UnoRcConfig {
                enabled: false,
                ..cfg
            }
            .parity_for(true),
            0
        );
    }

    #[test]
    fn nacked_block_is_resent_whole_first() {
        let mut s = RcSender::<2>::new(UnoRcConfig::uno(1000), 24, true).unwrap();
        for _ in 0..5 {
            s.next_packet();
        }
        s.on_nack(0);
        s.on_nack(0); // duplicate: ignored
        s.on_nack(9); // beyond the message: ignored
        let resent: heapless::Vec<RcPacket, 16> =
            (0..10).map(|_| s.next_packet().unwrap()).collect();
        assert!(resent.iter().all(|p| p.block == 0 && p.retransmit));
        assert_eq!(resent.iter().filter(|p| p.parity).count(), 2);
        let p = s.next_packet().unwrap();
        assert_eq!((p.block, p.index, p.retransmit), (0, 5, false));
        s.on_nack(1);
        s.on_nack(2);
        s.on_nack(0);
        assert_eq!(s.nack_overflows(), 1);
    }

    #[test]
    fn receiver_decodes_with_y_lost_and_nacks_with_y_plus_one() {
        let mut r = RcReceiver::<4>::new(500);
        // Block 0: packets 0..10, lose 3 and 7 -> decodable at the 8th arrival.
        let mut verdicts = heapless::Vec::<RxVerdict, 10>::new();
        for i in (0..10u8).filter(|i| *i != 3 && *i != 7) {
            verdicts.push(r.on_packet(10 + i as u64, 0, i, 8)).unwrap();
        }
        assert!(verdicts[..7].iter().all(|v| *v == RxVerdict::Pending));
        assert_eq!(
            verdicts[7],
            RxVerdict::Decodable {
                block: 0,
                received: 0b11_0111_0111
            }
        );
        // Block 1: lose 3 packets -> only 7 arrive; NACK when the timer (first + 500) expires.
        for i in 0..7u8 {
            assert_eq!(r.on_packet(100 + i as u64, 1, i, 8), RxVerdict::Pending);
        }
        assert_eq!(r.next_deadline(), Some(600));
        assert_eq!(r.poll_nack(599), None);
        assert_eq!(r.poll_nack(600), Some(1));
        assert_eq!(r.poll_nack(601), None);
        assert_eq!((r.decoded(), r.nacks()), (1, 1));
        // A late packet of decoded block 0 is ignored.
        assert_eq!(r.on_packet(700, 0, 3, 8), RxVerdict::Ignored);
    }

    proptest! {
        #[test]
        fn any_x_of_x_plus_y_decodes_fewer_nacks(lost in proptest::collection::btree_set(0u8..10, 0..=4),
                                                 order_seed: u32, timeout in 1u64..5000) {
            let mut r = RcReceiver::<2>::new(timeout);
            let mut idx: heapless::Vec<u8, 10> = (0..10).filter(|i| !lost.contains(i)).collect();
            // A deterministic shuffle of arrival order.
            let mut s = order_seed | 1;
            for i in (1..idx.len()).rev() {
                s ^= s << 13; s ^= s >> 17; s ^= s << 5;
                idx.swap(i, s as usize % (i + 1));
            }
            let mut decodable = false;
            for (t, i) in idx.iter().enumerate() {
                if let RxVerdict::Decodable { received, .. } = r.on_packet(t as u64, 5, *i, 8) {
                    decodable = true;
                    prop_assert_eq!(received.count_ones(), 8);
                }
            }
            prop_assert_eq!(decodable, lost.len() <= 2);
            let nack = r.poll_nack(timeout + 20);
            prop_assert_eq!(nack.is_some(), lost.len() > 2);
        }

        #[test]
        fn advance_equals_idle_ticks(n in 0u64..3000, pkts in proptest::collection::vec((0u32..3, 0u8..10, 0u64..200), 0..20)) {
            let mut a = RcReceiver::<4>::new(700);
            let mut t = 0;
            for (b, i, gap) in pkts { t += gap; a.on_packet(t, b, i, 8); }
            let mut b = a.clone();
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(&a, &b);
            let now = a.now();
            prop_assert_eq!(a.poll_nack(now), b.poll_nack(now));
        }
    }
}
