//! pFabric's per-flow ends (Alizadeh et al., SIGCOMM 2013, section 4.3): the sender
//! ([`PfTx`]: the `nic` crate's [`PfabricRate`] window / fixed RTO / probe mode around a
//! selective-repeat map of the flow's packets) and the receiver ([`PfRx`]: one ACK per
//! DATA, selective and cumulative).
//!
//! ```text
//!  PfTx: acked[] (SACKed), out[] (sent since the last timeout, not acked; inflight = |out|)
//!        una <= rtx <= rtx_end <= nxt <= pkts
//!  send:    window open (PfabricRate::can_send(inflight)): the next unacked packet in
//!           [rtx, rtx_end) (retransmission) else the new packet nxt; probe mode: a probe
//!  ACK(p, cum): p and every packet below cum acked; the window grows by one (to 1 BDP)
//!  timeout: every outstanding packet declared lost (out cleared, inflight 0), window 1,
//!           retransmission pass over [una, nxt); probe mode after `probe_after` in a row
//! ```
//!
//! The priority a packet carries (pFabric 4.1) is [`PfTx::remaining`]: the flow's bytes
//! not yet acknowledged when the packet is sent.

use nic::pfabric::{PfabricRate, PfabricRateConfig, SendMode};
use rtl_models::Clocked;

/// Counters of a pFabric sender.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxStats {
    /// DATA packets sent (first transmissions and retransmissions).
    pub sent: u64,
    /// Retransmitted DATA packets.
    pub retransmits: u64,
    /// Probes sent (probe mode).
    pub probes: u64,
    /// Timeouts (the fixed RTO expired).
    pub timeouts: u64,
    /// Times the flow entered probe mode.
    pub probe_modes: u64,
    /// Outstanding packets its timeouts declared lost (Wormhole's `SkipView::settled`).
    pub settled: u64,
}

/// What the sender sends next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// DATA `psn` (`retx`: a retransmission).
    Data { psn: u32, retx: bool },
    /// A probe (header only, probe mode).
    Probe,
}

fn bit(v: &[u64], i: u32) -> bool {
    v[(i / 64) as usize] >> (i % 64) & 1 == 1
}

/// The sender of one flow.
#[derive(Debug, Clone)]
pub struct PfTx {
    rate: PfabricRate,
    /// The cycle `rate` is brought to.
    at: u64,
    bytes: u64,
    mtu: u32,
    pkts: u32,
    acked: Vec<u64>,
    out: Vec<u64>,
    n_acked: u32,
    acked_bytes: u64,
    inflight: u32,
    una: u32,
    nxt: u32,
    rtx: u32,
    rtx_end: u32,
    /// Counters.
    pub stats: TxStats,
}

impl PfTx {
    /// A flow of `bytes` in packets of `mtu` payload bytes starting at cycle `now`.
    pub fn new(bytes: u64, mtu: u32, cfg: PfabricRateConfig, now: u64) -> PfTx {
        let pkts = bytes.div_ceil(u64::from(mtu.max(1))).max(1) as u32;
        let words = pkts.div_ceil(64) as usize;
        PfTx {
            rate: PfabricRate::new(cfg).expect("pFabric rate configuration checked at setup"),
            at: now,
            bytes,
            mtu,
            pkts,
            acked: vec![0; words],
            out: vec![0; words],
            n_acked: 0,
            acked_bytes: 0,
            inflight: 0,
            una: 0,
            nxt: 0,
            rtx: 0,
            rtx_end: 0,
            stats: TxStats::default(),
        }
    }

    /// Payload bytes of packet `psn`.
    pub fn payload(&self, psn: u32) -> u32 {
        if psn + 1 == self.pkts {
            (self.bytes - u64::from(psn) * u64::from(self.mtu)) as u32
        } else {
            self.mtu
        }
    }

    /// The flow's bytes not yet acknowledged: the pFabric priority of what it sends now.
    pub fn remaining(&self) -> u64 {
        self.bytes - self.acked_bytes
    }

    /// Payload bytes acknowledged.
    pub fn acked_bytes(&self) -> u64 {
        self.acked_bytes
    }

    /// Packets sent and not acknowledged since the last timeout.
    pub fn inflight(&self) -> u32 {
        self.inflight
    }

    /// The window, packets.
    pub fn cwnd(&self) -> u32 {
        self.rate.cwnd()
    }

    /// In probe mode.
    pub fn probing(&self) -> bool {
        self.rate.probing()
    }

    /// Every packet acknowledged.
    pub fn is_done(&self) -> bool {
        self.n_acked == self.pkts
    }

    /// Packets never sent, less the last one (a fast-forward leaves the flow a packet to
    /// send, so it ends on an acknowledgement of its own).
    pub fn skippable(&self) -> u32 {
        (self.pkts - self.nxt).saturating_sub(1)
    }

    /// Wormhole fast-forward (`../shared/papers/wormhole.md` 5.3 / 6.2): up to `k` packets
    /// never sent come off the end of the message (they were sent and acknowledged at the
    /// steady rate while the DES skipped the flow's partition); returns how many. The last
    /// packet keeps its partial payload, and the bytes not yet acknowledged (the priority
    /// pFabric 4.1 stamps on what the flow sends next) are what the full run has once those
    /// packets are acknowledged. The window, the RTO and what is in flight are untouched.
    pub fn fast_forward(&mut self, k: u32) -> u32 {
        let k = k.min(self.skippable());
        self.pkts -= k;
        self.bytes -= u64::from(k) * u64::from(self.mtu);
        k
    }

    /// Bring the rate control to cycle `now`; its timeouts (returned) declare every
    /// outstanding packet lost.
    pub fn sync(&mut self, now: u64) -> u64 {
        let was_probing = self.rate.probing();
        if now > self.at {
            self.rate.advance(now - self.at);
            self.at = now;
        }
        let k = u64::from(self.rate.take_timeouts());
        if k > 0 {
            if !was_probing && self.rate.probing() {
                self.stats.probe_modes += 1;
            }
            self.stats.timeouts += k;
            self.stats.settled += self
                .out
                .iter()
                .map(|w| u64::from(w.count_ones()))
                .sum::<u64>();
            self.out.iter_mut().for_each(|w| *w = 0);
            self.inflight = 0;
            self.rtx = self.una;
            self.rtx_end = self.nxt;
            self.skip_acked();
        }
        k
    }

    /// The timeout deadline, cycles (`None`: disarmed).
    pub fn deadline(&self) -> Option<u64> {
        let t = self.rate.timer();
        (t > 0).then(|| self.at + u64::from(t))
    }

    fn skip_acked(&mut self) {
        while self.rtx < self.rtx_end && bit(&self.acked, self.rtx) {
            self.rtx += 1;
        }
    }

    /// What the flow would send now (the rate control brought to now first).
    pub fn next(&self) -> Option<Next> {
        match self.rate.can_send(self.inflight) {
            SendMode::Data if self.rtx < self.rtx_end => Some(Next::Data {
                psn: self.rtx,
                retx: true,
            }),
            SendMode::Data if self.nxt < self.pkts => Some(Next::Data {
                psn: self.nxt,
                retx: false,
            }),
            SendMode::Probe => Some(Next::Probe),
            _ => None,
        }
    }

    /// `n` (from [`PfTx::next`]) left the host.
    pub fn on_sent(&mut self, n: Next) {
        self.rate.on_send();
        match n {
            Next::Data { psn, retx } => {
                let (w, b) = ((psn / 64) as usize, psn % 64);
                if self.out[w] >> b & 1 == 0 {
                    self.out[w] |= 1 << b;
                    self.inflight += 1;
                }
                self.stats.sent += 1;
                if retx {
                    self.stats.retransmits += 1;
                    self.rtx = psn + 1;
                    self.skip_acked();
                } else {
                    self.nxt = psn + 1;
                }
            }
            Next::Probe => self.stats.probes += 1,
        }
    }

    fn mark(&mut self, psn: u32) -> u64 {
        if psn >= self.pkts {
            return 0;
        }
        let (w, b) = ((psn / 64) as usize, psn % 64);
        if self.out[w] >> b & 1 == 1 {
            self.out[w] &= !(1 << b);
            self.inflight -= 1;
        }
        if self.acked[w] >> b & 1 == 1 {
            return 0;
        }
        self.acked[w] |= 1 << b;
        self.n_acked += 1;
        let p = u64::from(self.payload(psn));
        self.acked_bytes += p;
        p
    }

    /// An ACK of packet `psn` (`None`: of a probe) with the receiver's cumulative point
    /// `cum` (every packet below it received); returns the payload bytes newly acknowledged.
    pub fn on_ack(&mut self, psn: Option<u32>, cum: u32) -> u64 {
        let mut newly = 0;
        let cum = cum.min(self.pkts);
        for p in self.una..cum {
            newly += self.mark(p);
        }
        if let Some(p) = psn {
            newly += self.mark(p);
        }
        while self.una < self.pkts && bit(&self.acked, self.una) {
            self.una += 1;
        }
        self.rtx = self.rtx.max(self.una);
        self.skip_acked();
        self.rate.on_ack(self.inflight == 0);
        newly
    }
}

/// The receiver of one flow: which packets arrived.
#[derive(Debug, Clone)]
pub struct PfRx {
    got: Vec<u64>,
    pkts: u32,
    /// Every packet below it received.
    cum: u32,
}

impl PfRx {
    /// The receiver of a flow of `pkts` packets.
    pub fn new(pkts: u32) -> PfRx {
        PfRx {
            got: vec![0; pkts.div_ceil(64).max(1) as usize],
            pkts,
            cum: 0,
        }
    }

    /// The cumulative point.
    pub fn cum(&self) -> u32 {
        self.cum
    }

    /// The sender's fast-forward took `k` packets off the end of the message
    /// ([`PfTx::fast_forward`]): the flow is received `k` packets sooner.
    pub fn fast_forward(&mut self, k: u32) {
        self.pkts -= k;
    }

    /// DATA `psn` arrived: whether it is its first copy, and the cumulative point after it.
    pub fn on_data(&mut self, psn: u32) -> (bool, u32) {
        if psn >= self.pkts {
            return (false, self.cum);
        }
        let (w, b) = ((psn / 64) as usize, psn % 64);
        let new = self.got[w] >> b & 1 == 0;
        self.got[w] |= 1 << b;
        while self.cum < self.pkts && bit(&self.got, self.cum) {
            self.cum += 1;
        }
        (new, self.cum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: PfabricRateConfig = PfabricRateConfig {
        init_window_pkts: 4,
        rto_cycles: 100,
        probe_after: 2,
    };

    fn send_all(tx: &mut PfTx) -> Vec<Next> {
        let mut v = Vec::new();
        while let Some(n) = tx.next() {
            tx.on_sent(n);
            v.push(n);
        }
        v
    }

    fn data(psn: u32, retx: bool) -> Next {
        Next::Data { psn, retx }
    }

    #[test]
    fn window_selective_acks_timeout_retransmission_and_probe() {
        // 10 packets of 1000 B, the last one 500 B.
        let mut tx = PfTx::new(9_500, 1000, CFG, 0);
        assert_eq!(tx.payload(9), 500);
        let first: Vec<Next> = (0..4).map(|p| data(p, false)).collect();
        assert_eq!(send_all(&mut tx), first, "a window of one BDP at line rate");
        assert_eq!(tx.inflight(), 4);
        // Packet 1 is acknowledged selectively: the window grows back, 4 and 5 go out.
        assert_eq!(tx.on_ack(Some(1), 0), 1000);
        assert_eq!(
            tx.remaining(),
            8_500,
            "the priority: bytes not yet acknowledged"
        );
        assert_eq!(send_all(&mut tx), vec![data(4, false)]);
        // The fixed RTO: 0, 2, 3, 4 are declared lost, the window is 1, and the
        // retransmission pass skips the acknowledged 1.
        assert_eq!(tx.deadline(), Some(100));
        assert_eq!(tx.sync(100), 1);
        assert_eq!((tx.cwnd(), tx.inflight()), (1, 0));
        assert_eq!(send_all(&mut tx), vec![data(0, true)]);
        // The cumulative point covers 0..3: 2 is acknowledged without its own ACK.
        assert_eq!(tx.on_ack(Some(0), 3), 2000);
        assert_eq!(send_all(&mut tx), vec![data(3, true), data(4, true)]);
        assert_eq!(tx.stats.retransmits, 3);
        // Two timeouts in a row: probe mode, one probe per timeout.
        assert_eq!(tx.sync(200), 1);
        assert_eq!(send_all(&mut tx), vec![data(3, true)]);
        assert_eq!(tx.sync(400), 2);
        assert!(tx.probing());
        assert_eq!(tx.stats.probe_modes, 1);
        assert_eq!(send_all(&mut tx), vec![Next::Probe]);
        // The probe's ACK ends probe mode; the flow resumes and completes.
        tx.on_ack(None, 3);
        assert!(!tx.probing());
        let mut psn_acked = 0;
        while !tx.is_done() {
            for n in send_all(&mut tx) {
                if let Next::Data { psn, .. } = n {
                    tx.on_ack(Some(psn), 0);
                    psn_acked += 1;
                }
            }
        }
        assert_eq!(tx.remaining(), 0);
        assert_eq!(tx.acked_bytes(), 9_500);
        assert!(psn_acked >= 7, "3, 4 and 5..9 sent and acknowledged");
        assert_eq!(tx.deadline(), None, "nothing outstanding: the timer is off");
    }

    #[test]
    fn receiver_counts_first_copies_and_the_cumulative_point() {
        let mut rx = PfRx::new(3);
        assert_eq!(rx.on_data(1), (true, 0));
        assert_eq!(rx.on_data(1), (false, 0));
        assert_eq!(rx.on_data(0), (true, 2));
        assert_eq!(rx.on_data(2), (true, 3));
        assert_eq!(rx.on_data(7), (false, 3), "beyond the flow: ignored");
        assert_eq!(rx.cum(), 3);
    }
}
