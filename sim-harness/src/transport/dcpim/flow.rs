//! One dcPIM flow's sender and receiver state: which packets were sent, acknowledged and
//! received (bitmaps), for selective retransmission (dcPIM section 3.3: the receiver
//! re-requests lost data; here the sender learns of a loss by a NACK of a trimmed packet or
//! by its retransmission timeout, and resends it: unscheduled at once, scheduled in an epoch
//! it is matched to its receiver).

use crate::event::{Time, NEVER};

fn get(v: &[u64], i: u32) -> bool {
    v[(i / 64) as usize] >> (i % 64) & 1 == 1
}

fn set(v: &mut [u64], i: u32) {
    v[(i / 64) as usize] |= 1 << (i % 64);
}

fn clear(v: &mut [u64], i: u32) {
    v[(i / 64) as usize] &= !(1 << (i % 64));
}

/// A dcPIM flow (`pkts` DATA packets).
#[derive(Debug, Clone)]
pub(crate) struct PimFlow {
    /// DATA packets of the flow.
    pub pkts: u32,
    /// Sent through the matching (at least the unscheduled threshold) or at once.
    pub scheduled: bool,
    /// The sender is active (opened, not every packet acknowledged).
    pub open: bool,
    /// In its host's unscheduled ring.
    pub in_ring: bool,
    /// Packets sent and not (yet) judged lost, bit per PSN.
    sent: Vec<u64>,
    /// Packets acknowledged, bit per PSN.
    acked: Vec<u64>,
    /// No unsent packet below this PSN.
    next: u32,
    /// Bits set in `sent`.
    pub n_sent: u32,
    /// Bits set in `acked`.
    pub n_acked: u32,
    /// DATA packets put on the wire (first copies and retransmissions).
    pub tx: u64,
    /// Last acknowledgement progress (or the send that made packets outstanding), ps.
    pub progress_ps: Time,
    /// Packets received at the destination, bit per PSN.
    rx: Vec<u64>,
    /// Bits set in `rx`.
    pub n_rx: u32,
}

impl PimFlow {
    /// A flow of `pkts` packets, not open yet.
    pub fn new(pkts: u32, scheduled: bool) -> PimFlow {
        let words = pkts.div_ceil(64) as usize;
        PimFlow {
            pkts,
            scheduled,
            open: false,
            in_ring: false,
            sent: vec![0; words],
            acked: vec![0; words],
            next: 0,
            n_sent: 0,
            n_acked: 0,
            tx: 0,
            progress_ps: NEVER,
            rx: vec![0; words],
            n_rx: 0,
        }
    }

    /// Packets not sent (or sent and judged lost).
    #[inline]
    pub fn unsent(&self) -> u32 {
        self.pkts - self.n_sent
    }

    /// Packets sent and not acknowledged.
    #[inline]
    pub fn outstanding(&self) -> u32 {
        self.n_sent - self.n_acked
    }

    /// The lowest unsent PSN, marked sent.
    pub fn take_next(&mut self) -> Option<u32> {
        if self.unsent() == 0 {
            return None;
        }
        let mut w = (self.next / 64) as usize;
        let mut bits = self.sent[w] | ((1u64 << (self.next % 64)) - 1);
        while bits == u64::MAX {
            w += 1;
            bits = self.sent[w];
        }
        let psn = w as u32 * 64 + (!bits).trailing_zeros();
        debug_assert!(psn < self.pkts);
        set(&mut self.sent, psn);
        self.n_sent += 1;
        self.tx += 1;
        self.next = psn + 1;
        Some(psn)
    }

    /// An ACK of `psn` reached the sender; whether it was new.
    pub fn on_ack(&mut self, psn: u32) -> bool {
        if psn >= self.pkts || get(&self.acked, psn) {
            return false;
        }
        set(&mut self.acked, psn);
        self.n_acked += 1;
        if !get(&self.sent, psn) {
            // Judged lost by a timeout, yet delivered: not to be sent again.
            set(&mut self.sent, psn);
            self.n_sent += 1;
        }
        true
    }

    /// A NACK of `psn` (trimmed on the way): to be sent again; whether it was outstanding.
    pub fn on_nack(&mut self, psn: u32) -> bool {
        if psn >= self.pkts || !get(&self.sent, psn) || get(&self.acked, psn) {
            return false;
        }
        clear(&mut self.sent, psn);
        self.n_sent -= 1;
        self.next = self.next.min(psn);
        true
    }

    /// Retransmission timeout: every outstanding packet is to be sent again; how many.
    pub fn on_timeout(&mut self) -> u32 {
        let n = self.outstanding();
        self.sent.copy_from_slice(&self.acked);
        self.n_sent = self.n_acked;
        self.next = 0;
        n
    }

    /// Every packet acknowledged: the sender's bitmaps are released.
    pub fn close(&mut self) {
        self.open = false;
        self.sent = Vec::new();
        self.acked = Vec::new();
    }

    /// DATA `psn` reached the receiver; whether it was new.
    pub fn on_data(&mut self, psn: u32) -> bool {
        if psn >= self.pkts || get(&self.rx, psn) {
            return false;
        }
        set(&mut self.rx, psn);
        self.n_rx += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_are_sent_once_until_lost_and_resent_lowest_first() {
        let mut f = PimFlow::new(130, true);
        let first: Vec<u32> = (0..130).map_while(|_| f.take_next()).collect();
        assert_eq!(first, (0..130).collect::<Vec<_>>());
        assert_eq!((f.take_next(), f.unsent(), f.outstanding()), (None, 0, 130));
        assert!(f.on_ack(0) && !f.on_ack(0));
        assert!(f.on_ack(70));
        // A NACK resends that packet; an acknowledged one is never resent.
        assert!(f.on_nack(100) && !f.on_nack(70));
        assert_eq!(f.take_next(), Some(100));
        // A timeout resends every outstanding packet, lowest first, skipping 0 and 70.
        assert_eq!(f.on_timeout(), 128);
        assert_eq!(f.take_next(), Some(1));
        assert_eq!(f.take_next(), Some(2));
        let rest: Vec<u32> = std::iter::from_fn(|| f.take_next()).collect();
        assert_eq!(rest.len(), 126);
        assert!(!rest.contains(&70) && rest.contains(&129));
        // An ACK of a packet judged lost but delivered counts it sent.
        let mut g = PimFlow::new(3, false);
        g.take_next();
        g.on_timeout();
        assert!(g.on_ack(0));
        assert_eq!((g.unsent(), g.take_next()), (2, Some(1)));
        assert!(g.on_data(2) && !g.on_data(2) && !g.on_data(3));
        assert_eq!(g.n_rx, 1);
    }
}
