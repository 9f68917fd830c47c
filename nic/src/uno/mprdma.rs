//! MPRDMA-style ECN window congestion control: the intra-DC half of Uno's MPRDMA+BBR
//! baseline (Uno 5.1; MPRDMA, Lu et al. NSDI 2018, section 3.2: per-ACK "cwnd ← cwnd +
//! 1/cwnd" on an unmarked ACK and "cwnd ← cwnd − 1/2" on an ECN-marked one, windows in
//! packets).
//!
//! ```text
//!   on_ack(acked, ecn):  !ecn: cwnd += mtu * acked / cwnd      (+1/cwnd packets per packet)
//!                         ecn: cwnd -= mtu / 2                  (-1/2 packet per marked ACK)
//!   cwnd in [mtu, max_cwnd]; can_send(inflight): inflight + mtu <= cwnd
//! ```
//!
//! Units: bytes; `cwnd` is Q32.8 bytes (40 bits) so the per-ACK increase keeps its
//! fraction. No time-driven behaviour: `tick` / `advance` change nothing.

use arbitrary_int::u40;
use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

/// MPRDMA-style ECN window CC for one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MprdmaCc {
    mtu: u32,
    max_cwnd: u64,
    cwnd_q8: u40,
}

impl MprdmaCc {
    /// A flow with window `init_cwnd` bytes in `[mtu, max_cwnd]` (`max_cwnd` < 2^32).
    pub fn new(mtu: u32, init_cwnd: u64, max_cwnd: u64) -> Result<Self, ConfigError> {
        if mtu == 0 {
            return Err(ConfigError::new("mtu", "must be above zero"));
        }
        if max_cwnd < mtu as u64 || max_cwnd >= 1 << 32 {
            return Err(ConfigError::new("max_cwnd", "must be in mtu ..= 2^32 - 1"));
        }
        if init_cwnd < mtu as u64 || init_cwnd > max_cwnd {
            return Err(ConfigError::new("init_cwnd", "must be in mtu ..= max_cwnd"));
        }
        Ok(MprdmaCc {
            mtu,
            max_cwnd,
            cwnd_q8: u40::new(init_cwnd << 8),
        })
    }

    /// Window in whole bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd_q8.value() >> 8
    }

    /// The Q32.8 window register.
    pub fn cwnd_q8(&self) -> u64 {
        self.cwnd_q8.value()
    }

    fn set(&mut self, q8: u128) {
        let lo = (self.mtu as u128) << 8;
        let hi = (self.max_cwnd as u128) << 8;
        self.cwnd_q8 = u40::new(q8.clamp(lo, hi) as u64);
    }

    /// An ACK for `acked_bytes`, ECN-marked or not.
    pub fn on_ack(&mut self, acked_bytes: u32, ecn: bool) {
        let c = self.cwnd_q8.value() as u128;
        if ecn {
            self.set(c.saturating_sub((self.mtu as u128) << 7));
        } else {
            self.set(c + (self.mtu as u128 * acked_bytes as u128 * 256 * 256) / c);
        }
    }

    /// Whether one more MTU fits the window with `inflight_bytes` outstanding.
    pub fn can_send(&self, inflight_bytes: u64) -> bool {
        inflight_bytes + self.mtu as u64 <= self.cwnd()
    }
}

/// No time-driven state.
impl Clocked for MprdmaCc {
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for MprdmaCc {
    const NAME: &'static str = "MPRDMA-style ECN window CC (Uno baseline)";
    /// The Q32.8 window register.
    const BITS: u32 = 40;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(MprdmaCc::BITS == u40::BITS as u32);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plus_one_over_cwnd_minus_half() {
        let mut c = MprdmaCc::new(1000, 10_000, 1_000_000).unwrap();
        // 10 unmarked ACKs of one packet at cwnd = 10 packets: about +1 packet.
        for _ in 0..10 {
            c.on_ack(1000, false);
        }
        assert!((10_950..=11_000).contains(&c.cwnd()), "{}", c.cwnd());
        let w = c.cwnd_q8();
        c.on_ack(1000, true);
        assert_eq!(c.cwnd_q8(), w - (500 << 8));
        for _ in 0..100 {
            c.on_ack(1000, true);
        }
        assert_eq!(c.cwnd(), 1000);
        assert!(c.can_send(0) && !c.can_send(1));
        assert_eq!(MprdmaCc::new(0, 1, 1).unwrap_err().field, "mtu");
        assert_eq!(MprdmaCc::new(10, 5, 100).unwrap_err().field, "init_cwnd");
        assert_eq!(
            MprdmaCc::new(10, 10, 1 << 32).unwrap_err().field,
            "max_cwnd"
        );
    }

    proptest! {
        #[test]
        fn bounded_and_idle_invariant(acks in proptest::collection::vec((1u32..9000, any::<bool>()), 0..200), n in 0u64..1000) {
            let mut a = MprdmaCc::new(4096, 50_000, 500_000).unwrap();
            for (b, e) in acks { a.on_ack(b, e); }
            prop_assert!(a.cwnd() >= 4096 && a.cwnd() <= 500_000);
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
