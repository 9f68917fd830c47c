//! Gemini-style congestion control: Uno's cross-DC baseline (Uno 5.1 and 7; Gemini, Zeng et
//! al. ICNP 2019: one window, ECN for intra-DC congestion, delay for inter-DC congestion,
//! reacting once per the flow's *own* RTT).
//!
//! ```text
//!   on_ack(now, acked, ecn, rtt):  round counters (acked, marked, min rtt)
//!     !ecn: cwnd += alpha * acked / cwnd                      (AI, as UnoCC: 0.001 BDP)
//!     T_pkt = now - rtt >= round_start -> end of round (one own RTT):
//!       E = EWMA(marked fraction);  ecn: MD = E * 4K / (K + BDP)     (intra-DC signal)
//!       min_rtt - base_rtt > delay_thresh: MD = max(MD, beta_delay)  (inter-DC signal)
//!       cwnd *= 1 - MD;  round_start = now
//! ```
//!
//! What the Uno paper and public descriptions fix is the shape: ECN-driven and
//! delay-driven decreases, AI and MD factors chosen like UnoCC's (Uno 4.1.1: "We select
//! UnoCC's AI and MD factors [...] similar to Gemini"), and reaction at the granularity of
//! the flow's own RTT (the cause of its slow convergence, Uno 2.1 / Fig. 3). The delay
//! decrease factor `beta_delay` (default 0.2) and threshold are parameters. Formats as in
//! [`super::cc`]: cwnd Q32.8 bytes, fractions Q1.15, 48-bit stamps.
//!
//! **Timeout** (off by default, [`GeminiConfig::timeout_slow_start`]): Gemini (Zeng et al.)
//! runs on TCP's window and loss recovery, and the Uno authors'
//! `GeminiSrc::retransmit_packet` (spcl/Uno_SC25 `sim/gemini.cpp`, without `-noRto`) on a
//! sender timeout, at most once per RTO, sets `ssthresh = cwnd / 2`, `cwnd = 1 MSS` and
//! slow-starts: every unmarked ACK adds its bytes until `cwnd >= ssthresh`, then AI again
//! (`GeminiSrc::adjust_window_aimd`).
//!
//! ```text
//!   on_timeout(now): now - last_timeout > timeout_hold (or the first) ->
//!     ssthresh = cwnd / 2;  cwnd = mtu;  slow start;  new round from now
//!   on_ack, slow start: cwnd >= ssthresh -> AI;  else !ecn: cwnd += acked
//! ```

use arbitrary_int::{u40, u48};
use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

use super::cc::Q15_ONE;

/// Largest 48-bit stamp.
const T48_MAX: u64 = (1 << 48) - 1;

/// Gemini-style parameters of one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GeminiConfig {
    /// MTU, bytes.
    pub mtu_bytes: u32,
    /// The flow's BDP, bytes.
    pub bdp_bytes: u64,
    /// AI factor, Q32.8 bytes per RTT (0.001 BDP).
    pub alpha_q8: u64,
    /// ECN MD gain `4K / (K + BDP)`, Q1.15 (K = intra-DC BDP / 7).
    pub md_gain_q15: u32,
    /// Delay-triggered decrease, Q1.15 (default 0.2).
    pub beta_delay_q15: u32,
    /// EWMA gain of E is `2^-ewma_shift` (1..=15).
    pub ewma_shift: u8,
    /// Base RTT, cycles.
    pub base_rtt: Cycles,
    /// Queueing delay (cycles) above which the path counts as congested.
    pub delay_thresh: Cycles,
    /// Largest window, bytes (< 2^32).
    pub max_cwnd_bytes: u64,
    /// A sender timeout restarts the window at one MTU in slow start up to half the old
    /// window (TCP's rule, the authors' `GeminiSrc::retransmit_packet`); off: a timeout
    /// leaves the window alone.
    pub timeout_slow_start: bool,
    /// At most one timeout reaction per this many cycles (the authors' `_rto`: a reaction
    /// needs `now - most_recent_rto_reduction > _rto`).
    pub timeout_hold: Cycles,
}

impl GeminiConfig {
    /// Defaults for a flow of BDP `bdp_bytes` and RTT `base_rtt` in a network of intra-DC
    /// BDP `bdp_intra_bytes`: AI 0.001 BDP, K = BDP_intra / 7 (gain 4K / (K + BDP + 1), the +1
    /// keeping a zero BDP from dividing by zero), beta_delay 0.2, E gain 1/16,
    /// delay threshold a tenth of the base RTT, window up to 2 BDP.
    pub const fn new(
        mtu_bytes: u32,
        bdp_bytes: u64,
        bdp_intra_bytes: u64,
        base_rtt: Cycles,
    ) -> Self {
        let k = bdp_intra_bytes / 7;
        GeminiConfig {
            mtu_bytes,
            bdp_bytes,
            alpha_q8: ((bdp_bytes as u128 * 256) / 1000) as u64,
            md_gain_q15: ((4 * k as u128 * Q15_ONE as u128) / (k + bdp_bytes + 1) as u128) as u32,
            beta_delay_q15: 6553,
            ewma_shift: 4,
            base_rtt,
            delay_thresh: base_rtt / 10,
            max_cwnd_bytes: bdp_bytes.saturating_mul(2),
            timeout_slow_start: false,
            timeout_hold: base_rtt,
        }
    }

    /// Check; the error names the field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.mtu_bytes == 0 {
            return Err(ConfigError::new("mtu_bytes", "must be above zero"));
        }
        if self.bdp_bytes < self.mtu_bytes as u64 || self.bdp_bytes >= 1 << 32 {
            return Err(ConfigError::new(
                "bdp_bytes",
                "must be in mtu_bytes ..= 2^32 - 1",
            ));
        }
        if self.alpha_q8 >= 1 << 40 {
            return Err(ConfigError::new("alpha_q8", "must be below 2^40"));
        }
        if self.md_gain_q15 > 4 * Q15_ONE || self.beta_delay_q15 > Q15_ONE {
            return Err(ConfigError::new("beta_delay_q15", "must be at most 1.0"));
        }
        if self.ewma_shift == 0 || self.ewma_shift > 15 {
            return Err(ConfigError::new("ewma_shift", "must be in 1..=15"));
        }
        if self.base_rtt == 0 || self.base_rtt >= 1 << 46 {
            return Err(ConfigError::new("base_rtt", "must be in 1 ..= 2^46 cycles"));
        }
        if self.max_cwnd_bytes < self.bdp_bytes || self.max_cwnd_bytes >= 1 << 32 {
            return Err(ConfigError::new(
                "max_cwnd_bytes",
                "must be in bdp_bytes ..= 2^32 - 1",
            ));
        }
        if self.timeout_hold >= 1 << 46 {
            return Err(ConfigError::new(
                "timeout_hold",
                "must be below 2^46 cycles",
            ));
        }
        Ok(())
    }
}

/// What the end of a round did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GeminiRound {
    /// ECN marks in the round (intra-DC congestion).
    pub ecn: bool,
    /// Queueing delay above the threshold (inter-DC congestion).
    pub delay: bool,
}

/// Gemini-style CC for one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GeminiCc {
    cfg: GeminiConfig,
    cwnd_q8: u40,
    ecn_ewma_q15: u16,
    round_acked: u16,
    round_marked: u16,
    round_min_rtt: u48,
    round_start: u48,
    started: bool,
    /// Slow-start threshold, bytes (`timeout_slow_start`).
    ssthresh: u32,
    /// In slow start after a timeout.
    slow_start: bool,
    /// Cycle of the last timeout reaction, when there was one.
    last_timeout: Option<u48>,
    now: Cycles,
}

impl GeminiCc {
    /// A flow starting at one BDP.
    pub fn new(cfg: GeminiConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(GeminiCc {
            cfg,
            cwnd_q8: u40::new(cfg.bdp_bytes << 8),
            ecn_ewma_q15: 0,
            round_acked: 0,
            round_marked: 0,
            round_min_rtt: u48::new(T48_MAX),
            round_start: u48::new(0),
            started: false,
            ssthresh: 0,
            slow_start: false,
            last_timeout: None,
            now: 0,
        })
    }

    /// Window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd_q8.value() >> 8
    }

    /// The configuration.
    pub fn config(&self) -> &GeminiConfig {
        &self.cfg
    }

    fn set(&mut self, q8: u128) {
        let lo = (self.cfg.mtu_bytes as u128) << 8;
        let hi = (self.cfg.max_cwnd_bytes as u128) << 8;
        self.cwnd_q8 = u40::new(q8.clamp(lo, hi) as u64);
    }

    /// An ACK at `now` for `acked_bytes`, ECN-marked or not, RTT sample `rtt`. Returns the
    /// round's verdict when this ACK ended a round.
    pub fn on_ack(
        &mut self,
        now: Cycles,
        acked_bytes: u32,
        ecn: bool,
        rtt: Cycles,
    ) -> Option<GeminiRound> {
        self.now = self.now.max(now);
        let now = self.now;
        if !self.started {
            self.started = true;
            self.round_start = u48::new(now.min(T48_MAX));
        }
        self.round_acked = self.round_acked.saturating_add(1);
        self.round_marked = self.round_marked.saturating_add(ecn as u16);
        let r = u48::new(rtt.min(T48_MAX));
        if r < self.round_min_rtt {
            self.round_min_rtt = r;
        }
        if self.slow_start && self.cwnd() >= u64::from(self.ssthresh) {
            self.slow_start = false;
        }
        if !ecn {
            let c = self.cwnd_q8.value() as u128;
            if self.slow_start {
                // Slow start after a timeout: the ACKed bytes (`GeminiSrc::adjust_window_aimd`).
                self.set(c + ((acked_bytes as u128) << 8));
            } else {
                self.set(c + (self.cfg.alpha_q8 as u128 * acked_bytes as u128 * 256) / c);
            }
        }
        if now.saturating_sub(rtt) < self.round_start.value() {
            return None;
        }
        // End of a round: one own RTT of ACKs.
        let acked = self.round_acked.max(1) as u32;
        let frac = (self.round_marked as u32).min(acked) * Q15_ONE / acked;
        let e = self.ecn_ewma_q15 as i32;
        let e = e + ((frac as i32 - e) >> self.cfg.ewma_shift);
        self.ecn_ewma_q15 = e.clamp(0, Q15_ONE as i32) as u16;
        let verdict = GeminiRound {
            ecn: self.round_marked > 0,
            delay: self.round_min_rtt.value().saturating_sub(self.cfg.base_rtt)
                > self.cfg.delay_thresh,
        };
        let mut md = 0u64;
        if verdict.ecn {
            md = (self.ecn_ewma_q15 as u64 * self.cfg.md_gain_q15 as u64) >> 15;
        }
        if verdict.delay {
            md = md.max(self.cfg.beta_delay_q15 as u64);
        }
        let md = md.min(Q15_ONE as u64);
        if md > 0 {
            let c = self.cwnd_q8.value() as u128;
            self.set((c * (Q15_ONE as u64 - md) as u128) >> 15);
        }
        self.round_acked = 0;
        self.round_marked = 0;
        self.round_min_rtt = u48::new(T48_MAX);
        self.round_start = u48::new(now.min(T48_MAX));
        Some(verdict)
    }

    /// A sender timeout at `now`. With `timeout_slow_start` and no reaction within
    /// `timeout_hold`: `ssthresh = cwnd / 2`, `cwnd = mtu`, slow start, and a new round
    /// from `now` (the authors' `GeminiSrc::retransmit_packet`, which also restarts the ECN
    /// cycle, the RTT minimum and the MD hold). Returns whether it reacted.
    pub fn on_timeout(&mut self, now: Cycles) -> bool {
        if !self.cfg.timeout_slow_start {
            return false;
        }
        self.now = self.now.max(now);
        let now = self.now.min(T48_MAX);
        if let Some(t) = self.last_timeout {
            if now.saturating_sub(t.value()) <= self.cfg.timeout_hold {
                return false;
            }
        }
        self.last_timeout = Some(u48::new(now));
        self.ssthresh = (self.cwnd() / 2) as u32;
        self.slow_start = true;
        self.set((self.cfg.mtu_bytes as u128) << 8);
        self.started = true;
        self.round_acked = 0;
        self.round_marked = 0;
        self.round_min_rtt = u48::new(T48_MAX);
        self.round_start = u48::new(now);
        true
    }

    /// In slow start after a timeout.
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }

    /// Whether one more MTU fits the window.
    pub fn can_send(&self, inflight_bytes: u64) -> bool {
        inflight_bytes + self.cfg.mtu_bytes as u64 <= self.cwnd()
    }
}

/// Time only moves `now`; rounds end on ACKs.
impl Clocked for GeminiCc {
    fn tick(&mut self) {
        self.now += 1;
    }
    fn advance(&mut self, cycles: Cycles) {
        self.now += cycles;
    }
}

impl StateBudget for GeminiCc {
    const NAME: &'static str = "Gemini-style CC (Uno baseline)";
    /// cwnd (40) + E (16) + round acked / marked (2 x 16) + round min RTT (48) + round
    /// start (48) + started, and for `timeout_slow_start`: ssthresh (32) + slow start (1) +
    /// last timeout (48 + valid bit).
    const BITS: u32 = 40 + 16 + 32 + 48 + 48 + 1 + 32 + 1 + 48 + 1;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(GeminiCc::BITS == u40::BITS as u32 + 16 * 3 + 3 * u48::BITS as u32 + 32 + 3);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn intra() -> GeminiConfig {
        GeminiConfig::new(4096, 175_000, 175_000, 14_000)
    }

    #[test]
    fn ecn_and_delay_decrease_once_per_own_rtt() {
        // Inter-DC flow: RTT 2 ms; ECN marks without delay, then delay without marks.
        let cfg = GeminiConfig::new(4096, 25_000_000, 175_000, 2_000_000);
        let mut g = GeminiCc::new(cfg).unwrap();
        let rtt = 2_000_000;
        let mut rounds = 0;
        // Marked ACKs every 1000 cycles for 4 ms of send time: rounds end once per 2 ms.
        for k in 0..=4000u64 {
            if let Some(r) = g.on_ack(k * 1000 + rtt, 4096, true, rtt) {
                assert!(r.ecn && !r.delay);
                rounds += 1;
            }
        }
        assert_eq!(rounds, 2); // vs. UnoCC's ~285 epochs on the 14 us intra-DC period
        let w = g.cwnd();
        assert!(w < 25_000_000);
        // Delay above threshold without marks: beta_delay = 0.2.
        let t0 = 4001 * 1000 + rtt;
        let mut r = None;
        for k in 0..3000u64 {
            r = g.on_ack(t0 + k * 1000, 4096, false, rtt + 300_000).or(r);
            if r.is_some() {
                break;
            }
        }
        assert_eq!(
            r,
            Some(GeminiRound {
                ecn: false,
                delay: true
            })
        );
        assert!(g.cwnd() < w);
    }

    #[test]
    fn ai_when_uncongested_and_errors_name_fields() {
        let mut g = GeminiCc::new(intra()).unwrap();
        for k in 0..100u64 {
            g.on_ack(14_000 + k * 300, 4096, false, 14_000);
        }
        assert!(g.cwnd() > 175_000);
        let f = |c: GeminiConfig| GeminiCc::new(c).unwrap_err().field;
        assert_eq!(
            f(GeminiConfig {
                mtu_bytes: 0,
                ..intra()
            }),
            "mtu_bytes"
        );
        assert_eq!(
            f(GeminiConfig {
                ewma_shift: 0,
                ..intra()
            }),
            "ewma_shift"
        );
        assert_eq!(
            f(GeminiConfig {
                base_rtt: 0,
                ..intra()
            }),
            "base_rtt"
        );
        assert_eq!(
            f(GeminiConfig {
                max_cwnd_bytes: 1,
                ..intra()
            }),
            "max_cwnd_bytes"
        );
    }

    /// `timeout_slow_start`: a timeout restarts at one MTU and slow-starts (+ the ACKed
    /// bytes per unmarked ACK) to half the old window, then AI; a second timeout within
    /// `timeout_hold` does nothing; off (the default) a timeout changes nothing.
    #[test]
    fn timeout_slow_start_to_half_the_window() {
        let cfg = GeminiConfig {
            timeout_slow_start: true,
            timeout_hold: 50_000,
            ..intra()
        };
        let mut g = GeminiCc::new(cfg).unwrap();
        assert_eq!(g.cwnd(), 175_000);
        assert!(g.on_timeout(1_000));
        assert!(g.in_slow_start() && g.cwnd() == 4096);
        assert!(!g.on_timeout(40_000), "held for timeout_hold");
        let mut t = 40_000;
        let mut last = g.cwnd();
        while g.in_slow_start() || g.cwnd() < 87_500 {
            t += 100;
            g.on_ack(t, 4096, false, 14_000);
            if g.in_slow_start() {
                assert_eq!(g.cwnd(), last + 4096, "slow start adds the ACKed bytes");
            }
            last = g.cwnd();
            assert!(t < 200_000, "slow start ends");
        }
        // Out of slow start at ssthresh = 87_500: the next unmarked ACK is an AI step.
        let w = g.cwnd();
        assert!((87_500..87_500 + 4096).contains(&w), "{w}");
        g.on_ack(t + 100, 4096, false, 14_000);
        assert!(!g.in_slow_start() && g.cwnd() - w < 100, "AI, {}", g.cwnd());
        // A marked ACK in slow start does not grow the window.
        assert!(g.on_timeout(t + 100_000));
        g.on_ack(t + 100_100, 4096, true, 14_000);
        assert_eq!(g.cwnd(), 4096);
        // Off: no reaction.
        let mut d = GeminiCc::new(intra()).unwrap();
        assert!(!d.on_timeout(1_000));
        assert_eq!(d.cwnd(), 175_000);
        let f = |c: GeminiConfig| GeminiCc::new(c).unwrap_err().field;
        assert_eq!(
            f(GeminiConfig {
                timeout_hold: 1 << 46,
                ..intra()
            }),
            "timeout_hold"
        );
    }

    proptest! {
        #[test]
        fn bounded_and_advance_equals_ticks(acks in proptest::collection::vec((0u64..2000, any::<bool>(), 0u64..20_000), 0..100), n in 0u64..3000) {
            let mut a = GeminiCc::new(intra()).unwrap();
            let mut t = 14_000;
            for (gap, e, d) in acks { t += gap; a.on_ack(t, 4096, e, 14_000 + d); }
            prop_assert!(a.cwnd() >= 4096 && a.cwnd() <= 350_000);
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
