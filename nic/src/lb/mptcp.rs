//! MPTCP-like load balancing: each message split over 8 subflows, each subflow pinned to its
//! own entropy value (Raiciu et al., "Improving datacenter performance and robustness with
//! multipath TCP", SIGCOMM 2011), as a REPS baseline.
//!
//! REPS section 4.1 ("Baseline load balancers"): "For MPTCP, we divide each message into 8
//! subflows and route each one individually similarly to using multiple QPs (Queue Pairs)
//! \[25\]." Each subflow is an ECMP flow: its EV is drawn once at connection setup and never
//! changes. Packets are dealt to the subflows either round robin (one QP after another) or by
//! subflow window: the subflow with the fewest packets in flight gets the next one (MPTCP's
//! scheduler sends on the subflow with window space; with equal windows the least loaded
//! one has the most space), ties to the next subflow in round-robin order. An ACK (or a NACK)
//! whose EV matches a subflow with packets in flight takes one packet off that subflow.
//!
//! ```text
//!  setup:        ev[k] = rand() & evs_mask            k = 0..8
//!  on_send:      k = RoundRobin ? rr : argmin_{from rr} inflight[k]
//!                rr = k + 1 ;  inflight[k] += 1 (saturating, 12 bits) ;  return ev[k]
//!  on_ack/nack:  k = first subflow with ev[k] == ev && inflight[k] > 0 ;  inflight[k] -= 1
//! ```
//!
//! A packet lost to an RTO is never acknowledged and stays counted on its subflow, which
//! therefore looks loaded and is picked less (a dead path is avoided in window mode); the
//! counters saturate at 4095, never wrap.
//!
//! ## Packed word (227 bits, 29 bytes, LSB first)
//!
//! ```text
//!  bits   0..128  ev[k] at bits 16k..16k+16        8 x 16
//!  bits 128..224  inflight[k] at 128+12k            8 x 12 (packets)
//!  bits 224..227  rr     next subflow in round-robin order
//!  bits 227..232  padding (0)
//! ```

use super::ecmp::evs_mask;
use super::pack::{BitCursor, WordError};
use super::{Ev, LoadBalancer};
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource, StateBudget};

/// Subflows per message (REPS section 4.1).
pub const SUBFLOWS: usize = 8;
/// Largest in-flight count per subflow.
pub const INFLIGHT_MAX: u16 = (1 << 12) - 1;
/// Bits of the packed MPTCP word.
pub const MPTCP_BITS: u32 = (SUBFLOWS as u32) * (16 + 12) + 3;
/// Bytes of the packed MPTCP word.
pub const MPTCP_BYTES: usize = 29;
const _: () = assert!(MPTCP_BITS.div_ceil(8) as usize == MPTCP_BYTES);

/// How packets are dealt to subflows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubflowPick {
    /// One subflow after another.
    RoundRobin,
    /// The subflow with the fewest packets in flight (ties: round-robin order).
    LeastInflight,
}

/// MPTCP-like parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MptcpConfig {
    /// EVS width in bits (1..=16).
    pub evs_bits: u32,
    /// Scheduler.
    pub pick: SubflowPick,
}

impl MptcpConfig {
    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.evs_bits == 0 || self.evs_bits > 16 {
            return Err(ConfigError::new("evs_bits", "must be between 1 and 16"));
        }
        Ok(())
    }
}

/// The per-connection MPTCP-like registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mptcp {
    cfg: MptcpConfig,
    ev: [Ev; SUBFLOWS],
    inflight: [u16; SUBFLOWS],
    rr: u8,
}

impl Mptcp {
    /// A connection whose 8 subflow EVs are drawn from `rng` (subflow 0 first).
    pub fn new<R: RandomSource>(cfg: MptcpConfig, rng: &mut R) -> Result<Self, ConfigError> {
        cfg.check()?;
        let mask = evs_mask(cfg.evs_bits);
        let mut ev = [0; SUBFLOWS];
        for e in ev.iter_mut() {
            *e = (rng.next_u32() & mask) as Ev;
        }
        Ok(Mptcp {
            cfg,
            ev,
            inflight: [0; SUBFLOWS],
            rr: 0,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> MptcpConfig {
        self.cfg
    }
    /// The subflows' EVs.
    pub const fn evs(&self) -> [Ev; SUBFLOWS] {
        self.ev
    }
    /// Packets in flight per subflow.
    pub const fn inflight(&self) -> [u16; SUBFLOWS] {
        self.inflight
    }
    /// Next subflow in round-robin order.
    pub const fn rr(&self) -> u8 {
        self.rr
    }

    /// The subflow the next packet goes to, and its EV.
    pub fn pick(&mut self) -> (usize, Ev) {
        let start = self.rr as usize;
        let k = match self.cfg.pick {
            SubflowPick::RoundRobin => start,
            SubflowPick::LeastInflight => {
                let mut best = start;
                for i in 1..SUBFLOWS {
                    let k = (start + i) % SUBFLOWS;
                    if self.inflight[k] < self.inflight[best] {
                        best = k;
                    }
                }
                best
            }
        };
        self.rr = ((k + 1) % SUBFLOWS) as u8;
        self.inflight[k] = (self.inflight[k] + 1).min(INFLIGHT_MAX);
        (k, self.ev[k])
    }

    /// One packet carrying `ev` left the network (ACKed or NACKed): the subflow it was
    /// counted on, if any.
    pub fn settle(&mut self, ev: Ev) -> Option<usize> {
        let k = (0..SUBFLOWS).find(|&k| self.ev[k] == ev && self.inflight[k] > 0)?;
        self.inflight[k] -= 1;
        Some(k)
    }

    /// The packed word.
    pub fn pack(&self) -> [u8; MPTCP_BYTES] {
        let mut b = [0u8; MPTCP_BYTES];
        let mut c = BitCursor::new();
        for e in self.ev {
            c.put(&mut b, 16, e as u32);
        }
        for f in self.inflight {
            c.put(&mut b, 12, f as u32);
        }
        c.put(&mut b, 3, self.rr as u32);
        b
    }

    /// Inverse of [`Mptcp::pack`] under `cfg`, naming the field of a malformed word.
    pub fn unpack(b: [u8; MPTCP_BYTES], cfg: MptcpConfig) -> Result<Self, WordError> {
        cfg.check()
            .map_err(|e| WordError::new(e.field, e.problem))?;
        let mut c = BitCursor::new();
        let mut m = Mptcp {
            cfg,
            ev: [0; SUBFLOWS],
            inflight: [0; SUBFLOWS],
            rr: 0,
        };
        for k in 0..SUBFLOWS {
            m.ev[k] = c.get(&b, 16) as Ev;
            if m.ev[k] as u32 & !evs_mask(cfg.evs_bits) != 0 {
                return Err(WordError::new("ev", "a subflow EV is wider than evs_bits"));
            }
        }
        for k in 0..SUBFLOWS {
            m.inflight[k] = c.get(&b, 12) as u16;
        }
        m.rr = c.get(&b, 3) as u8;
        if c.get(&b, 5) != 0 {
            return Err(WordError::new("padding", "bits 227..232 must be zero"));
        }
        Ok(m)
    }
}

impl LoadBalancer for Mptcp {
    fn on_send<R: RandomSource>(&mut self, _now: Cycles, _rng: &mut R) -> Ev {
        self.pick().1
    }

    fn on_ack(&mut self, _now: Cycles, ev: Ev, _ecn: bool) {
        self.settle(ev);
    }

    fn on_nack(&mut self, _now: Cycles, ev: Ev) {
        self.settle(ev);
    }
}

impl Clocked for Mptcp {
    /// No time-dependent state.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Mptcp {
    const NAME: &'static str = "MPTCP-like, 8 subflows (EV + in-flight)";
    const BITS: u32 = MPTCP_BITS;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(Mptcp::BITS == 227 && Mptcp::BYTES as usize == MPTCP_BYTES);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    fn cfg(pick: SubflowPick) -> MptcpConfig {
        MptcpConfig { evs_bits: 16, pick }
    }

    #[test]
    fn round_robin_cycles_the_eight_subflows() {
        let mut rng = Lfsr32::new(8);
        let mut m = Mptcp::new(cfg(SubflowPick::RoundRobin), &mut rng).unwrap();
        let evs = m.evs();
        for i in 0..24 {
            assert_eq!(m.on_send(i, &mut rng), evs[i as usize % SUBFLOWS]);
        }
        assert_eq!(m.inflight(), [3; SUBFLOWS]);
        m.on_ack(0, evs[2], true);
        m.on_nack(0, evs[5]);
        m.on_ack(0, 0x7777 ^ evs[0], false); // unknown EV (unless it collides)
        assert_eq!(m.inflight()[2], 2);
        assert_eq!(m.inflight()[5], 2);
    }

    #[test]
    fn window_mode_fills_the_emptiest_subflow() {
        let mut rng = Lfsr32::new(8);
        let mut m = Mptcp::new(cfg(SubflowPick::LeastInflight), &mut rng).unwrap();
        let evs = m.evs();
        for i in 0..16 {
            m.on_send(i, &mut rng);
        }
        // Subflow 6 drains two packets: the next two packets go to it.
        m.on_ack(0, evs[6], false);
        m.on_ack(0, evs[6], false);
        assert_eq!(m.pick().0, 6);
        assert_eq!(m.pick().0, 6);
        assert_eq!(m.pick().0, 7, "then round robin among the equal ones");
    }

    #[test]
    fn golden_word_and_bad_words() {
        let mut rng = Lfsr32::new(8);
        let mut m = Mptcp::new(cfg(SubflowPick::RoundRobin), &mut rng).unwrap();
        m.ev = [0x0102, 0, 0, 0, 0, 0, 0, 0xa0b0];
        m.inflight = [0xabc, 0, 0, 0, 0, 0, 0, 0x001];
        m.rr = 5;
        let w = m.pack();
        assert_eq!(&w[..2], &[0x02, 0x01]);
        assert_eq!(&w[14..16], &[0xb0, 0xa0]);
        assert_eq!(&w[16..18], &[0xbc, 0x0a]);
        // inflight[7] at bit 212 = byte 26 bit 4; rr at bit 224 = byte 28.
        assert_eq!(w[26], 0x10);
        assert_eq!(w[28], 0x05);
        assert_eq!(Mptcp::unpack(w, m.config()), Ok(m));
        let mut bad = w;
        bad[28] |= 0x08;
        assert_eq!(Mptcp::unpack(bad, m.config()).unwrap_err().field, "padding");
        let c5 = MptcpConfig {
            evs_bits: 5,
            pick: SubflowPick::RoundRobin,
        };
        assert_eq!(Mptcp::unpack(w, c5).unwrap_err().field, "ev");
        assert_eq!(
            Mptcp::new(
                MptcpConfig {
                    evs_bits: 0,
                    pick: SubflowPick::RoundRobin
                },
                &mut rng
            )
            .unwrap_err()
            .field,
            "evs_bits"
        );
    }

    proptest! {
        /// Packets are conserved: sends minus settled ACKs equals the in-flight sum; only
        /// the 8 setup EVs are ever used; the word round-trips.
        #[test]
        fn conservation_and_fixed_evs(
            seed in 1u32..,
            window in any::<bool>(),
            ops in proptest::collection::vec((any::<bool>(), 0usize..8), 0..400),
        ) {
            let c = cfg(if window { SubflowPick::LeastInflight } else { SubflowPick::RoundRobin });
            let mut rng = Lfsr32::new(seed);
            let mut m = Mptcp::new(c, &mut rng).unwrap();
            let evs = m.evs();
            let mut outstanding = [0u32; SUBFLOWS];
            for (send, k) in ops {
                if send {
                    let before = m.inflight();
                    let (i, ev) = m.pick();
                    prop_assert_eq!(ev, evs[i]);
                    if window {
                        prop_assert!(before.iter().all(|&f| f >= before[i]));
                    }
                    outstanding[i] += 1;
                } else if let Some(i) = m.settle(evs[k]) {
                    prop_assert_eq!(evs[i], evs[k]);
                    prop_assert!(outstanding[i] > 0);
                    outstanding[i] -= 1;
                }
                let total: u32 = m.inflight().iter().map(|&f| f as u32).sum();
                prop_assert_eq!(total, outstanding.iter().sum::<u32>());
                prop_assert_eq!(Mptcp::unpack(m.pack(), c), Ok(m));
            }
        }

        #[test]
        fn advance_equals_idle_ticks(seed in 1u32.., n in 0u64..2000) {
            let mut rng = Lfsr32::new(seed);
            let mut a = Mptcp::new(cfg(SubflowPick::RoundRobin), &mut rng).unwrap();
            a.pick();
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
