//! UnoLB in the fabric: the `nic` block [`UnoLb`] (Uno Algorithm 2) at one of the subflow
//! counts `transport.uno.subflows` allows (the block's subflow table is a const-generic
//! array: one variant per count, a `match` per packet).

use nic::lb::{Ev, LoadBalancer};
use nic::uno::UnoLb;
use rtl_models::{Cycles, Lfsr32, RandomSource};

/// Subflow counts `transport.uno.subflows` accepts.
pub const SUBFLOW_COUNTS: [u32; 6] = [1, 2, 4, 8, 10, 16];

/// UnoLB with 1, 2, 4, 8, 10 or 16 subflows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subflows {
    /// One subflow (one path per flow, rerouted on NACK / timeout).
    N1(UnoLb<1>),
    /// Two subflows.
    N2(UnoLb<2>),
    /// Four subflows.
    N4(UnoLb<4>),
    /// Eight subflows.
    N8(UnoLb<8>),
    /// Ten subflows: one packet of an (8, 2) block on each (the authors' simulator,
    /// `LcpSrc::_total_subflows = 10` in spcl/Uno_SC25 `sim/lcp.cpp`).
    N10(UnoLb<10>),
    /// Sixteen subflows.
    N16(UnoLb<16>),
}

macro_rules! each {
    ($s:expr, $l:ident => $e:expr) => {
        match $s {
            Subflows::N1($l) => $e,
            Subflows::N2($l) => $e,
            Subflows::N4($l) => $e,
            Subflows::N8($l) => $e,
            Subflows::N10($l) => $e,
            Subflows::N16($l) => $e,
        }
    };
}

impl Subflows {
    /// `n` subflows (10 as given, any other count rounded up to the next power of two, at
    /// most 16) with EVs from
    /// `rng`, rerouting at most once per `base_rtt` cycles.
    pub fn new(n: u32, base_rtt: Cycles, rng: &mut Lfsr32) -> Subflows {
        match n {
            0 | 1 => Subflows::N1(UnoLb::new(base_rtt, rng)),
            2 => Subflows::N2(UnoLb::new(base_rtt, rng)),
            3 | 4 => Subflows::N4(UnoLb::new(base_rtt, rng)),
            5..=8 => Subflows::N8(UnoLb::new(base_rtt, rng)),
            10 => Subflows::N10(UnoLb::new(base_rtt, rng)),
            _ => Subflows::N16(UnoLb::new(base_rtt, rng)),
        }
    }

    /// The subflows' EVs.
    pub fn evs(&self) -> &[Ev] {
        each!(self, l => &l.subflows()[..])
    }

    /// The authors' reroute rule on or off (`transport.uno.reroute_stale`,
    /// [`UnoLb::set_reroute_stale`]).
    pub fn set_reroute_stale(&mut self, on: bool) {
        each!(self, l => l.set_reroute_stale(on))
    }

    /// Reroutes so far.
    pub fn reroutes(&self) -> u32 {
        each!(self, l => l.reroutes())
    }

    /// Alg. 2 ONNACKORTIMEOUT for a packet sent on `ev`.
    pub fn on_nack_or_timeout<R: RandomSource>(
        &mut self,
        now: Cycles,
        ev: Ev,
        rng: &mut R,
    ) -> bool {
        each!(self, l => l.on_nack_or_timeout(now, ev, rng))
    }
}

impl LoadBalancer for Subflows {
    #[inline]
    fn on_send<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> Ev {
        each!(self, l => l.on_send(now, rng))
    }

    #[inline]
    fn on_ack(&mut self, now: Cycles, ev: Ev, ecn: bool) {
        each!(self, l => l.on_ack(now, ev, ecn))
    }

    fn on_failure_detection(&mut self, _now: Cycles) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_up_and_round_robin_covers_every_subflow() {
        let mut rng = Lfsr32::new(7);
        for (n, want) in [(1, 1), (2, 2), (3, 4), (8, 8), (9, 16), (10, 10), (16, 16)] {
            let mut s = Subflows::new(n, 1000, &mut rng);
            assert_eq!(s.evs().len(), want);
            let evs: Vec<Ev> = (0..want).map(|_| s.on_send(0, &mut rng)).collect();
            assert_eq!(&evs[..], s.evs(), "one packet per subflow, in order");
        }
    }

    #[test]
    fn nack_reroutes_at_most_once_per_base_rtt() {
        let mut rng = Lfsr32::new(3);
        let mut s = Subflows::new(4, 1000, &mut rng);
        let evs = s.evs().to_vec();
        s.on_ack(10, evs[1], false);
        assert!(s.on_nack_or_timeout(20, evs[0], &mut rng));
        assert_eq!(s.evs()[0], evs[1], "moved to the recently ACKed subflow");
        assert!(
            !s.on_nack_or_timeout(500, evs[2], &mut rng),
            "within one base RTT"
        );
        assert!(s.on_nack_or_timeout(2000, evs[2], &mut rng));
        assert_eq!(s.reroutes(), 2);
    }
}
