//! PLB (Protective Load Balancing, Qureshi et al., SIGCOMM 2022) with the aggressive,
//! FlowBender-like parameters of the REPS evaluation.
//!
//! REPS section 4.1 ("Baseline load balancers"): "We configure PLB to have more aggressive
//! parameters similarly to FlowBender to improve its performance \[38\]." PLB keeps one entropy
//! value (the IPv6 flow label) per flow and *repaths* (draws a new random EV) after
//! `congested_rounds` consecutive congested rounds, a round being one RTT's worth of ACKs
//! and a round congested when its fraction of ECN-marked ACKs exceeds `ecn_threshold`.
//! PLB's published defaults are 3 rounds at a 50 % threshold; FlowBender (Kabbani et al.,
//! CoNEXT 2014) reroutes after `N = 1` round whose marked fraction exceeds `T = 5 %`, which
//! is what [`PlbConfig::flowbender`] sets. Both also repath at once on a retransmission
//! timeout (PLB section 3; FlowBender section 3.2), here [`LoadBalancer::on_failure_detection`].
//!
//! ```text
//!  on_ack(ecn) ─► acks += 1; marked += ecn
//!                 acks == round_acks?  (end of round: one RTT of ACKs)
//!                   marked * 256 > ecn_threshold_q8 * acks ? congested += 1 : congested = 0
//!                   congested == congested_rounds ? repath = 1, congested = 0
//!                   acks = marked = 0
//!  on_failure_detection ─► repath = 1
//!  on_send ─► repath ? ev = rand() & evs_mask, repath = 0 ;  return ev
//! ```
//!
//! The new EV is drawn on the next send (`on_ack` has no random source; the `repath` bit is
//! the flip-flop between the two pipelines). A round is counted in ACKs (`round_acks`, one
//! BDP of packets, as REPS's `NUM_PKTS_CWND`), not in sequence space, so a round ends even
//! when packets are lost.
//!
//! ## Packed word (45 bits, 6 bytes, LSB first)
//!
//! ```text
//!  bits  0..16  ev                 current entropy value
//!  bits 16..28  acks               ACKs in this round (< round_acks <= 4095)
//!  bits 28..40  marked             ECN-marked ACKs in this round (<= acks)
//!  bits 40..44  congested          consecutive congested rounds (< congested_rounds <= 15)
//!  bit  44      repath             draw a new EV at the next send
//!  bits 45..48  padding (0)
//! ```
//!
//! Units: `round_acks` in ACKs, `ecn_threshold_q8` a fraction in 1/256, EVs dimensionless.

use super::ecmp::evs_mask;
use super::pack::{BitCursor, WordError};
use super::{Ev, LoadBalancer};
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource, StateBudget};

/// Bits of the packed PLB word.
pub const PLB_BITS: u32 = 16 + 12 + 12 + 4 + 1;
/// Bytes of the packed PLB word.
pub const PLB_BYTES: usize = 6;
const _: () = assert!(PLB_BITS.div_ceil(8) as usize == PLB_BYTES);

/// PLB parameters (per NIC, not per connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlbConfig {
    /// EVS width in bits (1..=16).
    pub evs_bits: u32,
    /// ACKs per round (one RTT of ACKs: the BDP in packets), 1..=4095.
    pub round_acks: u16,
    /// A round is congested when `marked / acks > ecn_threshold_q8 / 256`.
    pub ecn_threshold_q8: u16,
    /// Consecutive congested rounds before a repath (PLB `M`, FlowBender `N`), 1..=15.
    pub congested_rounds: u8,
}

impl PlbConfig {
    /// FlowBender's aggressive setting used by the REPS evaluation: repath after one round
    /// with more than 5 % of ACKs marked (13/256 = 5.08 %).
    pub const fn flowbender(evs_bits: u32, round_acks: u16) -> Self {
        PlbConfig {
            evs_bits,
            round_acks,
            ecn_threshold_q8: 13,
            congested_rounds: 1,
        }
    }

    /// PLB's published defaults: three rounds with more than half of the ACKs marked.
    pub const fn plb_paper(evs_bits: u32, round_acks: u16) -> Self {
        PlbConfig {
            evs_bits,
            round_acks,
            ecn_threshold_q8: 128,
            congested_rounds: 3,
        }
    }

    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.evs_bits == 0 || self.evs_bits > 16 {
            return Err(ConfigError::new("evs_bits", "must be between 1 and 16"));
        }
        if self.round_acks == 0 || self.round_acks > 4095 {
            return Err(ConfigError::new("round_acks", "must be between 1 and 4095"));
        }
        if self.ecn_threshold_q8 > 255 {
            return Err(ConfigError::new(
                "ecn_threshold_q8",
                "must be below 256 (a fraction of 1)",
            ));
        }
        if self.congested_rounds == 0 || self.congested_rounds > 15 {
            return Err(ConfigError::new(
                "congested_rounds",
                "must be between 1 and 15",
            ));
        }
        Ok(())
    }
}

/// The per-connection PLB registers (see the module doc for the packed layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plb {
    cfg: PlbConfig,
    ev: Ev,
    acks: u16,
    marked: u16,
    congested: u8,
    repath: bool,
}

impl Plb {
    /// A connection with its first EV drawn from `rng` (as ECMP at setup).
    pub fn new<R: RandomSource>(cfg: PlbConfig, rng: &mut R) -> Result<Self, ConfigError> {
        cfg.check()?;
        Ok(Plb {
            cfg,
            ev: (rng.next_u32() & evs_mask(cfg.evs_bits)) as Ev,
            acks: 0,
            marked: 0,
            congested: 0,
            repath: false,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> PlbConfig {
        self.cfg
    }
    /// The current EV.
    pub const fn ev(&self) -> Ev {
        self.ev
    }
    /// ACKs counted in the current round.
    pub const fn acks(&self) -> u16 {
        self.acks
    }
    /// Marked ACKs counted in the current round.
    pub const fn marked(&self) -> u16 {
        self.marked
    }
    /// Consecutive congested rounds so far.
    pub const fn congested(&self) -> u8 {
        self.congested
    }
    /// A repath is pending (the next send draws a new EV).
    pub const fn repath_pending(&self) -> bool {
        self.repath
    }

    /// The packed word.
    pub fn pack(&self) -> [u8; PLB_BYTES] {
        let mut b = [0u8; PLB_BYTES];
        let mut c = BitCursor::new();
        c.put(&mut b, 16, self.ev as u32);
        c.put(&mut b, 12, self.acks as u32);
        c.put(&mut b, 12, self.marked as u32);
        c.put(&mut b, 4, self.congested as u32);
        c.put(&mut b, 1, self.repath as u32);
        b
    }

    /// Inverse of [`Plb::pack`] under `cfg`; rejects words no run can reach, naming the field.
    pub fn unpack(b: [u8; PLB_BYTES], cfg: PlbConfig) -> Result<Self, WordError> {
        cfg.check()
            .map_err(|e| WordError::new(e.field, e.problem))?;
        let mut c = BitCursor::new();
        let ev = c.get(&b, 16) as Ev;
        let acks = c.get(&b, 12) as u16;
        let marked = c.get(&b, 12) as u16;
        let congested = c.get(&b, 4) as u8;
        let repath = c.get(&b, 1) != 0;
        if c.get(&b, 3) != 0 {
            return Err(WordError::new("padding", "bits 45..48 must be zero"));
        }
        if ev as u32 & !evs_mask(cfg.evs_bits) != 0 {
            return Err(WordError::new("ev", "wider than evs_bits"));
        }
        if acks >= cfg.round_acks {
            return Err(WordError::new("acks", "must be below round_acks"));
        }
        if marked > acks {
            return Err(WordError::new("marked", "exceeds acks"));
        }
        if congested >= cfg.congested_rounds {
            return Err(WordError::new(
                "congested",
                "must be below congested_rounds",
            ));
        }
        Ok(Plb {
            cfg,
            ev,
            acks,
            marked,
            congested,
            repath,
        })
    }
}

impl LoadBalancer for Plb {
    fn on_send<R: RandomSource>(&mut self, _now: Cycles, rng: &mut R) -> Ev {
        if self.repath {
            self.ev = (rng.next_u32() & evs_mask(self.cfg.evs_bits)) as Ev;
            self.repath = false;
        }
        self.ev
    }

    fn on_ack(&mut self, _now: Cycles, _ev: Ev, ecn: bool) {
        self.acks += 1;
        self.marked += ecn as u16;
        if self.acks >= self.cfg.round_acks {
            let congested = (self.marked as u32) * 256
                > (self.cfg.ecn_threshold_q8 as u32) * (self.acks as u32);
            if congested {
                self.congested += 1;
                if self.congested >= self.cfg.congested_rounds {
                    self.repath = true;
                    self.congested = 0;
                }
            } else {
                self.congested = 0;
            }
            self.acks = 0;
            self.marked = 0;
        }
    }

    fn on_failure_detection(&mut self, _now: Cycles) {
        self.repath = true;
    }
}

impl Clocked for Plb {
    /// PLB's rounds are counted in ACKs: no time-dependent state.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Plb {
    const NAME: &'static str = "PLB (FlowBender-like) repath state";
    const BITS: u32 = PLB_BITS;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(Plb::BITS == 45 && Plb::BYTES as usize == PLB_BYTES);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    fn cfg() -> PlbConfig {
        PlbConfig::flowbender(16, 8)
    }

    #[test]
    fn one_congested_round_repaths_flowbender() {
        let mut rng = Lfsr32::new(4);
        let mut p = Plb::new(cfg(), &mut rng).unwrap();
        let ev0 = p.on_send(0, &mut rng);
        // A clean round: no repath.
        for t in 0..8 {
            p.on_ack(t, ev0, false);
        }
        assert_eq!(p.on_send(8, &mut rng), ev0);
        // One marked ACK in 8 (12.5 % > 5 %): congested, repath at the next send.
        for t in 0..8 {
            p.on_ack(t, ev0, t == 3);
        }
        assert!(p.repath_pending());
        let ev1 = p.on_send(20, &mut rng);
        assert_ne!(ev1, ev0);
        assert_eq!(p.on_send(21, &mut rng), ev1);
    }

    #[test]
    fn plb_needs_consecutive_rounds() {
        let mut rng = Lfsr32::new(4);
        let mut p = Plb::new(PlbConfig::plb_paper(16, 4), &mut rng).unwrap();
        let ev0 = p.ev();
        let round = |p: &mut Plb, marked: u16| {
            for k in 0..4 {
                p.on_ack(0, 0, k < marked);
            }
        };
        round(&mut p, 3); // 75 % > 50 %
        round(&mut p, 3);
        round(&mut p, 2); // 50 % is not above the threshold: resets
        round(&mut p, 4);
        round(&mut p, 4);
        assert!(!p.repath_pending());
        assert_eq!(p.congested(), 2);
        round(&mut p, 4);
        assert!(p.repath_pending());
        assert_ne!(p.on_send(0, &mut rng), ev0);
    }

    #[test]
    fn failure_repaths() {
        let mut rng = Lfsr32::new(9);
        let mut p = Plb::new(cfg(), &mut rng).unwrap();
        let ev0 = p.ev();
        p.on_failure_detection(5);
        assert_ne!(p.on_send(6, &mut rng), ev0);
    }

    #[test]
    fn bad_config_names_the_field() {
        let mut rng = Lfsr32::new(1);
        let mut c = cfg();
        c.round_acks = 0;
        assert_eq!(Plb::new(c, &mut rng).unwrap_err().field, "round_acks");
        let mut c = cfg();
        c.congested_rounds = 16;
        assert_eq!(Plb::new(c, &mut rng).unwrap_err().field, "congested_rounds");
        let mut c = cfg();
        c.ecn_threshold_q8 = 256;
        assert_eq!(Plb::new(c, &mut rng).unwrap_err().field, "ecn_threshold_q8");
    }

    #[test]
    fn golden_word_and_bad_words() {
        let mut rng = Lfsr32::new(1);
        let mut p = Plb::new(PlbConfig::plb_paper(16, 100), &mut rng).unwrap();
        p.ev = 0xbeef;
        p.acks = 0x05a;
        p.marked = 0x012;
        p.congested = 2;
        p.repath = true;
        // ev | acks << 16 | marked << 28 | congested << 40 | repath << 44
        assert_eq!(p.pack(), [0xef, 0xbe, 0x5a, 0x20, 0x01, 0x12]);
        assert_eq!(Plb::unpack(p.pack(), p.config()), Ok(p));
        let bad = |b: [u8; 6]| Plb::unpack(b, p.config()).unwrap_err().field;
        assert_eq!(bad([0, 0, 0, 0, 0, 0x20]), "padding");
        assert_eq!(bad([0, 0, 0x64, 0, 0, 0]), "acks");
        assert_eq!(bad([0, 0, 0x01, 0x20, 0, 0]), "marked");
        assert_eq!(bad([0, 0, 0, 0, 0, 0x03]), "congested");
    }

    proptest! {
        #[test]
        fn invariants_hold_and_word_round_trips(
            seed in 1u32..,
            evs_bits in 1u32..=16,
            round_acks in 1u16..64,
            thr in 0u16..256,
            rounds in 1u8..=15,
            ops in proptest::collection::vec(0u8..4, 0..400),
        ) {
            let c = PlbConfig { evs_bits, round_acks, ecn_threshold_q8: thr, congested_rounds: rounds };
            let mut rng = Lfsr32::new(seed);
            let mut p = Plb::new(c, &mut rng).unwrap();
            for (t, op) in ops.into_iter().enumerate() {
                let before = p.ev();
                match op {
                    0 | 1 => p.on_ack(t as u64, before, op == 1),
                    2 => {
                        let pending = p.repath_pending();
                        let ev = p.on_send(t as u64, &mut rng);
                        prop_assert!(ev as u32 <= evs_mask(evs_bits));
                        if !pending { prop_assert_eq!(ev, before); }
                    }
                    _ => p.on_failure_detection(t as u64),
                }
                prop_assert!(p.acks() < round_acks);
                prop_assert!(p.marked() <= p.acks());
                prop_assert!(p.congested() < rounds);
                prop_assert_eq!(Plb::unpack(p.pack(), c), Ok(p));
            }
        }

        #[test]
        fn advance_equals_idle_ticks(seed in 1u32.., n in 0u64..2000) {
            let mut rng = Lfsr32::new(seed);
            let mut a = Plb::new(cfg(), &mut rng).unwrap();
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }

        #[test]
        fn clean_rounds_never_repath(seed in 1u32.., n in 0usize..300) {
            let mut rng = Lfsr32::new(seed);
            let mut p = Plb::new(cfg(), &mut rng).unwrap();
            let ev0 = p.ev();
            for t in 0..n {
                p.on_ack(t as u64, ev0, false);
                prop_assert_eq!(p.on_send(t as u64, &mut rng), ev0);
            }
        }
    }
}
