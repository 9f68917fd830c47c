//! The DCTCP variant of MPRDMA: per-ACK window decrease on every ECN-marked ACK, no EWMA
//! (Lu et al., "Multi-Path Transport for RDMA in Datacenters", NSDI 2018, section 3.2,
//! congestion control), the congestion control the REPS evaluation runs every baseline load
//! balancer on (REPS section 4.1, "NIC congestion control": "the same DCTCP variant used in
//! MPRDMA \[45\]. It applies per-ACK congestion window updates, allows the receiver to accept
//! and acknowledge out-of-order packets, and reduces the congestion window by one MTU in case
//! of packet drops").
//!
//! MP-RDMA keeps DCTCP's reaction in expectation but spreads it over the ACKs: instead of
//! one cut of `cwnd * alpha / 2` per window with `alpha` an EWMA of the marked fraction, every
//! marked ACK takes half a packet off the window (`cwnd <- cwnd - 1/2`, in packets), so a
//! window whose ACKs are all marked halves it, and the first marked ACK of a flow already
//! cuts (today's [`DctcpSender`] with `alpha_init = 0` cuts nothing on its first marked
//! window). Every unmarked ACK adds `1/cwnd` packet, as in [`DctcpSender`].
//!
//! ```text
//!  on_ack {psn, cum, ecn}: newly = bytes newly acknowledged (SACK + cumulative)
//!      newly > 0 && ecn:   cwnd -= (mtu / 2) * ceil(newly / mtu)      (per marked packet)
//!      newly > 0 && !ecn:  cwnd += mtu * newly / cwnd                 (per-ACK AI)
//!  on_nack / RTO:          cwnd -= mtu per lost packet
//!  cwnd clamped to min_cwnd..=max_cwnd; out-of-order receipt, SACK, retransmission and
//!  RTO exactly as DctcpSender (this type wraps one)
//! ```
//!
//! [`MprdmaDctcpSender`] wraps a [`DctcpSender`] and replaces only its reaction to marked
//! ACKs; everything else (window accounting, SACK, NACK, RTO, `advance`) is the wrapped
//! sender's, and a run without marks is identical to `DctcpSender`'s (a property test proves
//! it). `DctcpSender`'s own behaviour is unchanged. The `alpha`, `wnd_acked` and `wnd_marked`
//! registers are not needed by this rule, so its budget is the DCTCP sender's minus 96 bits.
//!
//! Units: bytes are payload bytes, times NIC cycles.

use core::ops::Deref;

use super::dctcp::{DctcpConfig, DctcpSender, TimeoutReport, TxPacket};
use super::{Ack, ConfigError, Psn};
use rtl_models::{Clocked, Cycles, StateBudget};

/// A sender with the MPRDMA per-ACK decrease rule (see the module doc). Read-only access
/// to the wrapped sender (`cwnd()`, `regs()`, `is_done()`, `stats`...) is through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MprdmaDctcpSender<const WORDS: usize> {
    inner: DctcpSender<WORDS>,
}

impl<const WORDS: usize> MprdmaDctcpSender<WORDS> {
    /// A sender for a message of `message_bytes` from cycle `now`. `cfg.g_shift` and
    /// `cfg.alpha_init` are checked but not used by this rule.
    pub fn new(cfg: DctcpConfig, message_bytes: u64, now: Cycles) -> Result<Self, ConfigError> {
        Ok(MprdmaDctcpSender {
            inner: DctcpSender::new(cfg, message_bytes, now)?,
        })
    }

    /// The next packet to send, if the window allows (as [`DctcpSender::next_packet`]).
    pub fn next_packet(&mut self) -> Option<TxPacket> {
        self.inner.next_packet()
    }

    /// An ACK arrived. Returns the payload bytes it newly acknowledged.
    pub fn on_ack(&mut self, ack: &Ack) -> u32 {
        let before = self.inner.cwnd();
        let newly = self.inner.on_ack(ack);
        if newly > 0 && ack.ecn {
            let mtu = self.inner.config().mtu;
            let packets = newly.div_ceil(mtu);
            let cut = (mtu / 2).saturating_mul(packets).max(1);
            self.inner.set_cwnd(before.saturating_sub(cut));
        }
        newly
    }

    /// A NACK arrived (as [`DctcpSender::on_nack`]: one MTU off the window).
    pub fn on_nack(&mut self, psn: Psn) -> bool {
        self.inner.on_nack(psn)
    }

    /// The report of the last RTO expiry (as [`DctcpSender::take_timeout`]).
    pub fn take_timeout(&mut self) -> Option<TimeoutReport> {
        self.inner.take_timeout()
    }

    /// Wormhole fast-forward (Wormhole paper 5.3 / 6.2), as [`DctcpSender::fast_forward`]:
    /// `pkts` full-MTU packets sent and acknowledged at the steady rate while the partition
    /// was skipped come off the unsent part of the message (the last packet stays). The
    /// per-ACK rule keeps no state beside the window, which a steady state keeps, so the
    /// wrapped sender's advance is the whole of it. Returns the packets taken.
    pub fn fast_forward(&mut self, pkts: u32) -> u32 {
        self.inner.fast_forward(pkts)
    }

    /// The wrapped sender.
    pub const fn inner(&self) -> &DctcpSender<WORDS> {
        &self.inner
    }
}

impl<const WORDS: usize> Deref for MprdmaDctcpSender<WORDS> {
    type Target = DctcpSender<WORDS>;
    fn deref(&self) -> &DctcpSender<WORDS> {
        &self.inner
    }
}

impl<const WORDS: usize> Clocked for MprdmaDctcpSender<WORDS> {
    fn tick(&mut self) {
        self.inner.tick();
    }
    fn advance(&mut self, cycles: Cycles) {
        self.inner.advance(cycles);
    }
}

/// Bits of the DCTCP registers this rule does not use (`alpha`, `wnd_acked`, `wnd_marked`).
pub const UNUSED_DCTCP_BITS: u32 = 3 * 32;

impl<const WORDS: usize> StateBudget for MprdmaDctcpSender<WORDS> {
    const NAME: &'static str = "MPRDMA-DCTCP window CC sender (per-ACK cut, OOO, SACK, RTO)";
    const BITS: u32 = <DctcpSender<WORDS> as StateBudget>::BITS - UNUSED_DCTCP_BITS;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(
    <MprdmaDctcpSender<8> as StateBudget>::BITS + UNUSED_DCTCP_BITS
        == <DctcpSender<8> as StateBudget>::BITS
        && core::mem::size_of::<[u32; 3]>() * 8 == UNUSED_DCTCP_BITS as usize
);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::dctcp::tests::{ack, MTU};
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// DCTCP's test configuration with an 8-MTU initial window.
    fn cfg() -> DctcpConfig {
        DctcpConfig {
            init_cwnd: 8 * MTU,
            ..super::super::dctcp::tests::cfg()
        }
    }

    #[test]
    fn every_marked_ack_cuts_half_a_packet_from_the_first() {
        let mut m = MprdmaDctcpSender::<1>::new(cfg(), 100 * MTU as u64, 0).unwrap();
        let mut d = DctcpSender::<1>::new(cfg(), 100 * MTU as u64, 0).unwrap();
        for _ in 0..8 {
            m.next_packet().unwrap();
            d.next_packet().unwrap();
        }
        for psn in 0..4 {
            m.on_ack(&ack(psn, psn + 1, true));
            d.on_ack(&ack(psn, psn + 1, true));
        }
        // Four marked ACKs: 8 MTU - 4 x MTU/2 = 6 MTU. DCTCP with alpha 0 has not cut.
        assert_eq!(m.cwnd(), 6 * MTU);
        assert_eq!(d.cwnd(), 8 * MTU);
        // An unmarked ACK: + MTU * MTU / cwnd.
        m.on_ack(&ack(4, 5, false));
        assert_eq!(m.cwnd(), 6 * MTU + MTU / 6);
        // A duplicate marked ACK acknowledges nothing: no cut.
        m.on_ack(&ack(4, 5, true));
        assert_eq!(m.cwnd(), 6 * MTU + MTU / 6);
        // A NACK: one MTU.
        assert!(m.on_nack(6));
        assert_eq!(m.cwnd(), 5 * MTU + MTU / 6);
    }

    #[test]
    fn a_marked_cumulative_ack_cuts_per_packet_and_stops_at_min_cwnd() {
        let mut m = MprdmaDctcpSender::<1>::new(cfg(), 100 * MTU as u64, 0).unwrap();
        for _ in 0..8 {
            m.next_packet().unwrap();
        }
        m.on_ack(&ack(2, 3, true)); // three packets
        assert_eq!(m.cwnd(), 8 * MTU - 3 * MTU / 2);
        m.on_ack(&ack(7, 8, true)); // five more: -2.5 MTU
        assert_eq!(m.cwnd(), 4 * MTU);
        let mut m = MprdmaDctcpSender::<1>::new(
            DctcpConfig {
                init_cwnd: 2 * MTU,
                ..cfg()
            },
            10 * MTU as u64,
            0,
        )
        .unwrap();
        m.next_packet().unwrap();
        m.next_packet().unwrap();
        m.on_ack(&ack(0, 1, true));
        m.on_ack(&ack(1, 2, true));
        assert_eq!(m.cwnd(), MTU);
    }

    #[test]
    fn bad_config_names_the_field() {
        let e = MprdmaDctcpSender::<1>::new(DctcpConfig { mtu: 0, ..cfg() }, 10, 0).unwrap_err();
        assert_eq!(e.field, "mtu");
        let e = MprdmaDctcpSender::<1>::new(cfg(), 0, 0).unwrap_err();
        assert_eq!(e.field, "message_bytes");
    }

    proptest! {
        /// Without marks the rule is DctcpSender's, step for step (losses included).
        #[test]
        fn unmarked_runs_equal_dctcp(ops in proptest::collection::vec((0u8..4, 0u32..64), 0..200)) {
            let mut m = MprdmaDctcpSender::<1>::new(cfg(), 60 * MTU as u64, 0).unwrap();
            let mut d = DctcpSender::<1>::new(cfg(), 60 * MTU as u64, 0).unwrap();
            for (op, x) in ops {
                match op {
                    0 => prop_assert_eq!(m.next_packet(), d.next_packet()),
                    1 => prop_assert_eq!(m.on_ack(&ack(x, x / 2, false)), d.on_ack(&ack(x, x / 2, false))),
                    2 => prop_assert_eq!(m.on_nack(x), d.on_nack(x)),
                    _ => { m.advance(x as u64); d.advance(x as u64); }
                }
                prop_assert_eq!(m.inner(), &d);
            }
        }

        /// Each marked ACK that acknowledges k new packets lowers cwnd by k * MTU / 2
        /// (down to min_cwnd); cwnd stays within its bounds.
        #[test]
        fn marked_acks_cut_by_half_a_packet_each(ops in proptest::collection::vec((any::<bool>(), 0u32..40), 0..200)) {
            let mut m = MprdmaDctcpSender::<1>::new(cfg(), 40 * MTU as u64, 0).unwrap();
            for (ecn, psn) in ops {
                while m.next_packet().is_some() {}
                let before = m.cwnd();
                let newly = m.on_ack(&ack(psn, 0, ecn));
                if ecn && newly > 0 {
                    let want = before.saturating_sub(newly.div_ceil(MTU) * (MTU / 2)).max(MTU);
                    prop_assert_eq!(m.cwnd(), want);
                }
                prop_assert!(m.cwnd() >= MTU);
            }
        }

        /// A sender fast-forwarded by `k` packets after `sends` equals the sender of a
        /// message `k` packets shorter that sent (and got ACKs for) the same packets:
        /// window, PSN space and in-flight state included, and it completes the same way.
        #[test]
        fn fast_forward_equals_a_shorter_message(
            sends in 0u32..12, k in 0u32..40, marks in proptest::collection::vec(any::<bool>(), 12),
        ) {
            let n = 40 * MTU as u64 + 123;
            let mut a = MprdmaDctcpSender::<1>::new(cfg(), n, 0).unwrap();
            let mut sent = Vec::new();
            for _ in 0..sends {
                if let Some(p) = a.next_packet() { sent.push(p.psn); }
            }
            for (i, &psn) in sent.iter().enumerate().take(sent.len() / 2) {
                a.on_ack(&ack(psn, psn + 1, marks[i]));
            }
            let taken = a.fast_forward(k);
            prop_assert_eq!(taken, k.min(a.unsent() + taken - 1));
            let mut b = MprdmaDctcpSender::<1>::new(cfg(), n - u64::from(taken) * u64::from(MTU), 0).unwrap();
            for _ in 0..sent.len() { b.next_packet(); }
            for (i, &psn) in sent.iter().enumerate().take(sent.len() / 2) {
                b.on_ack(&ack(psn, psn + 1, marks[i]));
            }
            // The window and the PSN space; DCTCP's alpha-window registers (`epoch_end`,
            // starting at the initial window capped by the message, and what its end resets),
            // unused by this rule, may differ.
            let same = |a: &MprdmaDctcpSender<1>, b: &MprdmaDctcpSender<1>| {
                let (x, y) = (a.regs(), b.regs());
                (x.total, x.last_bytes, x.snd_una, x.snd_nxt, x.cwnd, x.inflight, x.n_lost)
                    == (y.total, y.last_bytes, y.snd_una, y.snd_nxt, y.cwnd, y.inflight, y.n_lost)
                    && a.stats == b.stats
            };
            prop_assert!(same(&a, &b));
            // Both finish the shorter message identically.
            let mut psn = 0;
            while !a.is_done() && psn < 200 {
                let (x, y) = (a.next_packet(), b.next_packet());
                prop_assert_eq!(x, y);
                a.on_ack(&ack(psn, psn + 1, false));
                b.on_ack(&ack(psn, psn + 1, false));
                psn += 1;
                prop_assert!(same(&a, &b));
            }
            prop_assert!(a.is_done());
        }

        #[test]
        fn advance_equals_idle_ticks(n in 0u64..400, sends in 0usize..8) {
            let mut a = MprdmaDctcpSender::<1>::new(cfg(), 20 * MTU as u64, 0).unwrap();
            for _ in 0..sends { a.next_packet(); }
            let mut b = a.clone();
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
