//! Flowlet switching (Sinha, Kandula and Katabi, "Harnessing TCP's burstiness with flowlet
//! switching", HotNets 2004; Vanini et al., LetFlow, NSDI 2017) at the sender NIC.
//!
//! REPS section 4.1 ("Baseline load balancers"): "For Flowlet Switching we set an aggressive
//! flowlet timeout at half of the RTT." A flowlet is a burst of a flow's packets separated
//! from the next burst by an idle gap longer than the flowlet timeout; each new flowlet takes
//! a new random entropy value (LetFlow's random choice), so the flow moves to another path
//! only when the gap guarantees the previous burst has drained (no reordering inside a
//! flowlet). It ignores ECN and failures (REPS section 6: "congestion oblivious").
//!
//! ```text
//!  on_send(now):  started && now - last_send > flowlet_timeout ?  ev = rand() & evs_mask
//!                 last_send = now, started = 1 ;  return ev
//!  on_ack / on_failure_detection: ignored
//! ```
//!
//! `last_send` holds the low 32 bits of the NIC cycle counter ([`crate::reps::nic_time`]);
//! the gap is `now32 - last_send` in wrapping arithmetic, exact for gaps below 2^32 cycles
//! (4.3 s at 1 GHz). The timeout is evaluated when the next packet is sent, so the block
//! has no timer to tick: a gap is measured, not counted down.
//!
//! ## Packed word (49 bits, 7 bytes, LSB first)
//!
//! ```text
//!  bits  0..16  ev          current flowlet's entropy value
//!  bits 16..48  last_send   NIC cycle (low 32 bits) of the last DATA sent
//!  bit  48      started     a packet has been sent (last_send is valid)
//!  bits 49..56  padding (0)
//! ```
//!
//! Units: `flowlet_timeout` and `last_send` in NIC cycles.

use super::ecmp::evs_mask;
use super::pack::{BitCursor, WordError};
use super::{Ev, LoadBalancer};
use crate::reps::nic_time;
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource, StateBudget};

/// Bits of the packed flowlet word.
pub const FLOWLET_BITS: u32 = 16 + 32 + 1;
/// Bytes of the packed flowlet word.
pub const FLOWLET_BYTES: usize = 7;
const _: () = assert!(FLOWLET_BITS.div_ceil(8) as usize == FLOWLET_BYTES);

/// Flowlet parameters (per NIC / per connection class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowletConfig {
    /// EVS width in bits (1..=16).
    pub evs_bits: u32,
    /// Idle gap, in cycles, after which the next packet starts a new flowlet (1..2^31).
    pub flowlet_timeout: u32,
}

impl FlowletConfig {
    /// The REPS evaluation's setting: the timeout at half the base RTT (`rtt_cycles / 2`,
    /// at least 1 cycle).
    pub const fn half_rtt(evs_bits: u32, rtt_cycles: u32) -> Self {
        let t = rtt_cycles / 2;
        FlowletConfig {
            evs_bits,
            flowlet_timeout: if t == 0 { 1 } else { t },
        }
    }

    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.evs_bits == 0 || self.evs_bits > 16 {
            return Err(ConfigError::new("evs_bits", "must be between 1 and 16"));
        }
        if self.flowlet_timeout == 0 || self.flowlet_timeout >= 1 << 31 {
            return Err(ConfigError::new(
                "flowlet_timeout",
                "must be between 1 and 2^31 - 1 cycles",
            ));
        }
        Ok(())
    }
}

/// The per-connection flowlet registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flowlet {
    cfg: FlowletConfig,
    ev: Ev,
    last_send: u32,
    started: bool,
}

impl Flowlet {
    /// A connection whose first flowlet's EV is drawn from `rng` at setup.
    pub fn new<R: RandomSource>(cfg: FlowletConfig, rng: &mut R) -> Result<Self, ConfigError> {
        cfg.check()?;
        Ok(Flowlet {
            cfg,
            ev: (rng.next_u32() & evs_mask(cfg.evs_bits)) as Ev,
            last_send: 0,
            started: false,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> FlowletConfig {
        self.cfg
    }
    /// The current flowlet's EV.
    pub const fn ev(&self) -> Ev {
        self.ev
    }
    /// Low 32 bits of the cycle of the last send.
    pub const fn last_send(&self) -> u32 {
        self.last_send
    }
    /// Whether a packet has been sent yet.
    pub const fn started(&self) -> bool {
        self.started
    }
    /// Whether a packet sent at `now` would start a new flowlet.
    pub const fn gap_expired(&self, now: Cycles) -> bool {
        self.started && nic_time(now).wrapping_sub(self.last_send) > self.cfg.flowlet_timeout
    }

    /// The packed word.
    pub fn pack(&self) -> [u8; FLOWLET_BYTES] {
        let mut b = [0u8; FLOWLET_BYTES];
        let mut c = BitCursor::new();
        c.put(&mut b, 16, self.ev as u32);
        c.put(&mut b, 32, self.last_send);
        c.put(&mut b, 1, self.started as u32);
        b
    }

    /// Inverse of [`Flowlet::pack`] under `cfg`, naming the field of a malformed word.
    pub fn unpack(b: [u8; FLOWLET_BYTES], cfg: FlowletConfig) -> Result<Self, WordError> {
        cfg.check()
            .map_err(|e| WordError::new(e.field, e.problem))?;
        let mut c = BitCursor::new();
        let ev = c.get(&b, 16) as Ev;
        let last_send = c.get(&b, 32);
        let started = c.get(&b, 1) != 0;
        if c.get(&b, 7) != 0 {
            return Err(WordError::new("padding", "bits 49..56 must be zero"));
        }
        if ev as u32 & !evs_mask(cfg.evs_bits) != 0 {
            return Err(WordError::new("ev", "wider than evs_bits"));
        }
        if !started && last_send != 0 {
            return Err(WordError::new(
                "last_send",
                "must be zero before the first send",
            ));
        }
        Ok(Flowlet {
            cfg,
            ev,
            last_send,
            started,
        })
    }
}

impl LoadBalancer for Flowlet {
    fn on_send<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> Ev {
        if self.gap_expired(now) {
            self.ev = (rng.next_u32() & evs_mask(self.cfg.evs_bits)) as Ev;
        }
        self.last_send = nic_time(now);
        self.started = true;
        self.ev
    }

    fn on_ack(&mut self, _now: Cycles, _ev: Ev, _ecn: bool) {}
}

impl Clocked for Flowlet {
    /// The gap is measured at the next send from `last_send`: nothing counts down.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Flowlet {
    const NAME: &'static str = "Flowlet switching (timeout RTT/2)";
    const BITS: u32 = FLOWLET_BITS;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(Flowlet::BITS == 49 && Flowlet::BYTES as usize == FLOWLET_BYTES);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    #[test]
    fn gap_above_half_rtt_starts_a_new_flowlet() {
        let mut rng = Lfsr32::new(2);
        let mut f = Flowlet::new(FlowletConfig::half_rtt(16, 200), &mut rng).unwrap();
        let ev0 = f.on_send(1_000, &mut rng);
        assert_eq!(f.on_send(1_050, &mut rng), ev0);
        assert_eq!(
            f.on_send(1_150, &mut rng),
            ev0,
            "gap of exactly 100 = timeout"
        );
        let ev1 = f.on_send(1_251, &mut rng);
        assert_ne!(ev1, ev0, "gap of 101 > 100");
        f.on_ack(1_300, ev1, true);
        f.on_failure_detection(1_300);
        assert_eq!(f.on_send(1_320, &mut rng), ev1);
    }

    #[test]
    fn golden_word_and_bad_words() {
        let mut rng = Lfsr32::new(2);
        let mut f = Flowlet::new(FlowletConfig::half_rtt(16, 200), &mut rng).unwrap();
        f.ev = 0x1234;
        f.last_send = 0xdead_beef;
        f.started = true;
        assert_eq!(f.pack(), [0x34, 0x12, 0xef, 0xbe, 0xad, 0xde, 0x01]);
        assert_eq!(Flowlet::unpack(f.pack(), f.config()), Ok(f));
        let c = f.config();
        assert_eq!(
            Flowlet::unpack([0, 0, 0, 0, 0, 0, 0x02], c)
                .unwrap_err()
                .field,
            "padding"
        );
        assert_eq!(
            Flowlet::unpack([0, 0, 1, 0, 0, 0, 0], c).unwrap_err().field,
            "last_send"
        );
        let mut c5 = c;
        c5.evs_bits = 5;
        assert_eq!(
            Flowlet::unpack([0x20, 0, 0, 0, 0, 0, 0], c5)
                .unwrap_err()
                .field,
            "ev"
        );
        assert_eq!(
            Flowlet::new(FlowletConfig::half_rtt(16, 0), &mut rng)
                .map(|f| f.config().flowlet_timeout),
            Ok(1)
        );
        let bad = FlowletConfig {
            evs_bits: 16,
            flowlet_timeout: 0,
        };
        assert_eq!(
            Flowlet::new(bad, &mut rng).unwrap_err().field,
            "flowlet_timeout"
        );
    }

    proptest! {
        /// The EV changes exactly when the gap since the previous send exceeds the timeout.
        #[test]
        fn ev_changes_only_across_gaps(
            seed in 1u32..,
            timeout in 1u32..500,
            gaps in proptest::collection::vec(0u64..1000, 1..200),
        ) {
            let cfg = FlowletConfig { evs_bits: 16, flowlet_timeout: timeout };
            let mut rng = Lfsr32::new(seed);
            let mut f = Flowlet::new(cfg, &mut rng).unwrap();
            let mut now = 0u64;
            let mut prev = f.on_send(now, &mut rng);
            for g in gaps {
                now += g;
                let probe = rng;
                let ev = f.on_send(now, &mut rng);
                if g > timeout as u64 {
                    // A fresh draw: the next LFSR word, masked.
                    let mut p = probe;
                    prop_assert_eq!(ev, p.next_u32() as u16);
                } else {
                    prop_assert_eq!(ev, prev);
                    prop_assert_eq!(rng, probe, "no draw inside a flowlet");
                }
                prop_assert_eq!(f.last_send(), now as u32);
                prop_assert_eq!(Flowlet::unpack(f.pack(), cfg), Ok(f));
                prev = ev;
            }
        }

        #[test]
        fn advance_equals_idle_ticks(seed in 1u32.., n in 0u64..2000, t in 0u64..1_000_000) {
            let mut rng = Lfsr32::new(seed);
            let mut a = Flowlet::new(FlowletConfig::half_rtt(8, 300), &mut rng).unwrap();
            a.on_send(t, &mut rng);
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
            // And both see the same gap at the next send.
            let (mut ra, mut rb) = (rng, rng);
            prop_assert_eq!(a.on_send(t + n, &mut ra), b.on_send(t + n, &mut rb));
        }
    }
}
