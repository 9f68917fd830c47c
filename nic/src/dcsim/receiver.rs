//! DCSIM receiver side of one flow (DCSIM section 2.4 (3) and (5)).
//!
//! ```text
//!  SIM(ev) ----------------------------------------------> SIM-ACK(ev)   (immediately,
//!                                                                          stateless)
//!  DATA(seq) --> [ cum | sack (64 bits above cum) ]
//!                [ since_ack (DATAs since the last DATA-ACK) ]
//!                [ pending_since (arrival of the oldest unacked DATA) ]
//!                      |  since_ack == ack_every (16)            -> DATA-ACK(cum, sack)
//!                      |  or now >= pending_since + ack_interval -> DATA-ACK(cum, sack)
//!                      v
//!                 output register (one DATA-ACK; a newer one replaces it: cumulative)
//! ```
//!
//! The paper sends a DATA-ACK "every large number of DATAs (e.g., 16) ... with some minimum
//! frequency, e.g., once every 3 propagation RTTs": here a DATA waits at most
//! `ack_interval` cycles for its acknowledgment. The DATA-ACK carries the cumulative point
//! `cum` (every DATA below it received) and a 64-bit selective map of `cum + 1 ..= cum + 64`.
//! The receiver itself remembers `64 W` DATAs above `cum` (`W` words, default 1; the
//! DATA-ACK carries the first word): a DATA further ahead is not recorded (counted in
//! `overflow`); the sender times it out and resends it. A sender whose window is `N`
//! DATAs never sends a DATA more than `N - 1` beyond the receiver's `cum`, so `64 W >= N`
//! rules overflow out.
//!
//! Units: cycles of the receiving NIC, DATAs.

use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

use super::config::MAX_TIMER_CYCLES;
use super::flow::Seq;
use crate::lb::Ev;

/// A DATA-ACK: all DATAs below `cum` are received, and `cum + 1 + i` for each bit `i` of
/// `sack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DataAck {
    /// Cumulative point: the lowest DATA not yet received.
    pub cum: Seq,
    /// Selective map of `cum + 1 ..= cum + 64`.
    pub sack: u64,
}

/// The SIM-ACK for a SIM: the receiver echoes the SIM's EV (its source port) at once
/// (section 2.4 (3)).
pub const fn sim_ack_for(ev: Ev) -> Ev {
    ev
}

/// Receiver configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DcsimReceiverConfig {
    /// DATAs per DATA-ACK (paper: 16).
    pub ack_every: u16,
    /// Longest wait of a received DATA for its DATA-ACK, cycles (paper: 3 propagation RTTs).
    pub ack_interval: Cycles,
}

impl DcsimReceiverConfig {
    /// The paper's values: every 16 DATAs, at least every 3 `RTT_p`.
    pub const fn with_rtt_p(rtt_p: Cycles) -> Self {
        DcsimReceiverConfig {
            ack_every: 16,
            ack_interval: rtt_p.saturating_mul(3),
        }
    }

    /// Check every field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.ack_every == 0 {
            return Err(ConfigError::new("ack_every", "must be at least 1"));
        }
        if self.ack_interval == 0 || self.ack_interval > MAX_TIMER_CYCLES {
            return Err(ConfigError::new(
                "ack_interval",
                "must be 1..=2^31-1 cycles",
            ));
        }
        Ok(())
    }
}

/// What a received DATA was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataArrival {
    /// First copy.
    New,
    /// Already received (a resent copy).
    Duplicate,
    /// More than 64 beyond `cum`: not recorded.
    Overflow,
}

/// Per-flow receiver counters (model side).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReceiverStats {
    /// Distinct DATAs received.
    pub delivered: u64,
    /// Duplicate copies received.
    pub duplicates: u64,
    /// DATAs too far ahead to record.
    pub overflow: u64,
    /// DATA-ACKs produced.
    pub acks: u64,
}

/// The receiver of one flow, remembering `64 W` DATAs above its cumulative point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DcsimReceiver<const W: usize = 1> {
    cfg: DcsimReceiverConfig,
    now: Cycles,
    cum: Seq,
    /// Bit `i` of word `i / 64`: DATA `cum + 1 + i` received.
    sack: [u64; W],
    since_ack: u16,
    pending_since: Option<Cycles>,
    out: Option<DataAck>,
    stats: ReceiverStats,
}

impl<const W: usize> DcsimReceiver<W> {
    const CAPACITY_CHECK: () = assert!(W >= 1 && W <= 64, "DcsimReceiver: need 1 <= W <= 64");
    /// DATAs above `cum` the receiver remembers.
    pub const MAP_BITS: u32 = 64 * W as u32;

    /// A receiver at cycle 0 expecting DATA 0.
    pub fn new(cfg: DcsimReceiverConfig) -> Result<Self, ConfigError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_CHECK;
        cfg.validate()?;
        Ok(DcsimReceiver {
            cfg,
            now: 0,
            cum: 0,
            sack: [0; W],
            since_ack: 0,
            pending_since: None,
            out: None,
            stats: ReceiverStats::default(),
        })
    }

    /// Current cycle.
    pub const fn now(&self) -> Cycles {
        self.now
    }
    /// Cumulative point.
    pub const fn cum(&self) -> Seq {
        self.cum
    }
    /// Counters.
    pub const fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// Drop the lowest `k` bits of the map (`k <= 64 W`).
    fn shift_map(&mut self, k: u32) {
        let (words, bits) = ((k / 64) as usize, k % 64);
        for i in 0..W {
            let lo = self.sack.get(i + words).copied().unwrap_or(0);
            let hi = self.sack.get(i + words + 1).copied().unwrap_or(0);
            self.sack[i] = if bits == 0 {
                lo
            } else {
                (lo >> bits) | (hi << (64 - bits))
            };
        }
    }

    /// Consecutive received DATAs at the bottom of the map.
    fn low_ones(&self) -> u32 {
        let mut n = 0;
        for w in &self.sack {
            let t = w.trailing_ones();
            n += t;
            if t < 64 {
                break;
            }
        }
        n
    }

    fn emit(&mut self) {
        self.out = Some(DataAck {
            cum: self.cum,
            sack: self.sack[0],
        });
        self.since_ack = 0;
        self.pending_since = None;
        self.stats.acks += 1;
    }

    /// DATA `seq` arrives in the current cycle. Every arrival (duplicates too: their
    /// sender may wait for an acknowledgment) counts toward the next DATA-ACK.
    pub fn on_data(&mut self, seq: Seq) -> DataArrival {
        let kind = if seq < self.cum {
            DataArrival::Duplicate
        } else if seq == self.cum {
            let k = self.low_ones();
            self.cum += 1 + k;
            self.shift_map(k + 1);
            DataArrival::New
        } else if seq - self.cum <= Self::MAP_BITS {
            let i = (seq - self.cum - 1) as usize;
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            if self.sack[w] & bit != 0 {
                DataArrival::Duplicate
            } else {
                self.sack[w] |= bit;
                DataArrival::New
            }
        } else {
            DataArrival::Overflow
        };
        match kind {
            DataArrival::New => self.stats.delivered += 1,
            DataArrival::Duplicate => self.stats.duplicates += 1,
            DataArrival::Overflow => {
                self.stats.overflow += 1;
                return kind;
            }
        }
        self.since_ack = self.since_ack.saturating_add(1);
        if self.pending_since.is_none() {
            self.pending_since = Some(self.now);
        }
        if self.since_ack >= self.cfg.ack_every {
            self.emit();
        }
        kind
    }

    /// Take the DATA-ACK to send, if any.
    pub fn take_ack(&mut self) -> Option<DataAck> {
        self.out.take()
    }

    /// When the interval timer forces a DATA-ACK, if DATAs are waiting for one.
    pub fn next_timer(&self) -> Option<Cycles> {
        self.pending_since.map(|t| t + self.cfg.ack_interval)
    }

    /// Move to cycle `t` (no-op if `t <= now`), firing the interval timer on the way
    /// (equals `t - now` ticks).
    pub fn advance_to(&mut self, t: Cycles) {
        if t <= self.now {
            return;
        }
        if let Some(d) = self.next_timer() {
            if d <= t {
                self.emit();
            }
        }
        self.now = t;
    }

    /// The logical registers (see [`super::packed::ReceiverPacked`]; the words of the map
    /// beyond the first are not in them).
    pub fn regs(&self) -> super::packed::ReceiverRegs {
        super::packed::ReceiverRegs {
            cum: self.cum,
            sack: self.sack[0],
            since_ack: self.since_ack,
            pending: self.pending_since.is_some(),
            pending_since: self.pending_since.unwrap_or(0),
            ack_ready: self.out.is_some(),
        }
    }
}

impl<const W: usize> Clocked for DcsimReceiver<W> {
    /// Timers fire at the start of a cycle: `tick` moves to `now + 1` and sends the
    /// DATA-ACK if the interval expired.
    fn tick(&mut self) {
        self.advance_to(self.now + 1);
    }

    fn advance(&mut self, cycles: Cycles) {
        self.advance_to(self.now.saturating_add(cycles));
    }
}

/// Budget: the packed registers plus the map's words beyond the first.
impl<const W: usize> StateBudget for DcsimReceiver<W> {
    const NAME: &'static str = "DCSIM receiver (per flow)";
    const BITS: u32 = super::packed::RECEIVER_BITS + 64 * (W as u32 - 1);
    const UNIT: &'static str = "per flow";
    const PAPER_REF: &'static str = "DCSIM 2.4 (5) (no figure given)";
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx() -> DcsimReceiver {
        DcsimReceiver::new(DcsimReceiverConfig {
            ack_every: 16,
            ack_interval: 100,
        })
        .unwrap()
    }

    #[test]
    fn acks_every_16_datas_cumulatively() {
        let mut r = rx();
        for s in 0..15 {
            assert_eq!(r.on_data(s), DataArrival::New);
            assert_eq!(r.take_ack(), None);
        }
        r.on_data(15);
        assert_eq!(r.take_ack(), Some(DataAck { cum: 16, sack: 0 }));
    }

    #[test]
    fn selective_map_and_duplicates() {
        let mut r = rx();
        r.on_data(0);
        r.on_data(2);
        r.on_data(3);
        assert_eq!(r.cum(), 1);
        assert_eq!(r.on_data(2), DataArrival::Duplicate);
        assert_eq!(r.on_data(100), DataArrival::Overflow);
        r.on_data(1);
        assert_eq!(r.cum(), 4);
        assert_eq!(r.on_data(0), DataArrival::Duplicate);
        assert_eq!(r.stats().delivered, 4);
    }

    #[test]
    fn interval_forces_an_ack() {
        let mut r = rx();
        r.advance_to(10);
        r.on_data(0);
        assert_eq!(r.next_timer(), Some(110));
        r.advance_to(109);
        assert_eq!(r.take_ack(), None);
        r.tick(); // cycle 110: the interval expired
        assert_eq!(r.take_ack(), Some(DataAck { cum: 1, sack: 0 }));
        assert_eq!(r.next_timer(), None);
    }

    /// A 4-word receiver records DATAs up to 256 ahead and releases them in one step.
    #[test]
    fn wide_map_records_far_ahead() {
        let mut r: DcsimReceiver<4> = DcsimReceiver::new(DcsimReceiverConfig {
            ack_every: 1000,
            ack_interval: 100,
        })
        .unwrap();
        for s in (1..=256).rev() {
            assert_eq!(r.on_data(s), DataArrival::New, "seq {s}");
        }
        assert_eq!(r.on_data(257), DataArrival::Overflow);
        assert_eq!(r.on_data(70), DataArrival::Duplicate);
        assert_eq!(r.cum(), 0);
        assert_eq!(r.on_data(0), DataArrival::New);
        assert_eq!(r.cum(), 257);
        assert_eq!(r.stats().delivered, 257);
        assert_eq!(
            <DcsimReceiver<4> as StateBudget>::BITS,
            super::super::packed::RECEIVER_BITS + 192
        );
    }

    proptest::proptest! {
        /// A W-word receiver agrees with a reference set of received DATAs: `cum` is the
        /// lowest missing DATA, and a DATA is new exactly once (overflow aside).
        #[test]
        fn wide_map_matches_a_set(seqs in proptest::collection::vec(0u32..300, 0..400)) {
            let mut r: DcsimReceiver<3> = DcsimReceiver::new(DcsimReceiverConfig {
                ack_every: 7, ack_interval: 50 }).unwrap();
            let mut got = [false; 301];
            for s in seqs {
                let cum = r.cum();
                let a = r.on_data(s);
                let want = if got[s as usize] { DataArrival::Duplicate }
                    else if s > cum + 192 { DataArrival::Overflow } else { DataArrival::New };
                proptest::prop_assert_eq!(a, want);
                if a == DataArrival::New { got[s as usize] = true; }
                let lowest_missing = (0..301).find(|&x| !got[x]).unwrap() as u32;
                proptest::prop_assert_eq!(r.cum(), lowest_missing);
            }
        }

        /// `advance(n)` equals `n` ticks from any reachable state.
        #[test]
        fn advance_equals_ticks(ops in proptest::collection::vec((0u32..80, 0u64..40), 0..60),
                                every in 1u16..20, interval in 1u64..100, n in 0u64..300) {
            let mut r = DcsimReceiver::<1>::new(DcsimReceiverConfig { ack_every: every, ack_interval: interval }).unwrap();
            for (seq, gap) in ops {
                r.on_data(seq);
                r.advance(gap);
                if gap.is_multiple_of(3) {
                    r.take_ack();
                }
            }
            rtl_models::testing::assert_advance_eq_ticks(&r, n);
        }
    }

    #[test]
    fn bad_config_names_field() {
        let e = DcsimReceiver::<1>::new(DcsimReceiverConfig {
            ack_every: 0,
            ack_interval: 1,
        });
        assert_eq!(e.unwrap_err().field, "ack_every");
    }
}
