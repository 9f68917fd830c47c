//! UnoCC: Uno's congestion control (Uno section 4.1, Algorithm 1, Table 2).
//!
//! ```text
//!  on_ack(now, acked, ecn, rtt) --+--> AI (Alg.1 l.2-3): !ecn: cwnd += alpha * acked / cwnd
//!                                 |
//!                                 +--> epoch count (acked pkts, marked pkts, marked-with-delay)
//!                                 |    T_pkt = now - rtt >= T_epoch ? -> ONEPOCH (l.7-16):
//!                                 |      E = EWMA(ecn_fraction); if marked:
//!                                 |        delay == 0 ? MD_scale *= 0.3 : MD_scale = 1
//!                                 |        cwnd *= 1 - MD_ECN * MD_scale,
//!                                 |        MD_ECN = E * 4K / (K + BDP)
//!                                 |      T_epoch += epoch_period (intra-DC RTT, every flow)
//!                                 |
//!                                 +--> QA window (once per RTT) -> ONQA (l.18-22):
//!                                        acked_in_qa < beta * cwnd ? cwnd = acked_in_qa,
//!                                        then one RTT with neither QA nor MD
//!  can_send(inflight) / on_send(bytes) / next_send(): pacing at cwnd / base_rtt (<= line)
//! ```
//!
//! Units: bytes, cycles of the NIC clock ([`Cycles`]). Fixed-point formats:
//!
//! * `cwnd`: Q32.8 bytes (40 bits, [`u40`]): the per-ACK AI step `alpha * acked / cwnd`
//!   is a few bytes for any BDP, so 8 fractional bits keep it accurate.
//! * `alpha`: Q32.8 bytes (config; Table 2: 0.001 x the flow's BDP).
//! * `E` (EWMA of the ECN-marked fraction), `MD_scale`, `beta`, the gentle factor 0.3 and
//!   the MD gain `4K / (K + BDP)`: Q1.15 (`1 << 15` = 1.0).
//! * Times in the word: 48-bit cycle stamps ([`u48`]; 2^48 cycles of a 1 GHz clock are
//!   78 hours).
//!
//! Choices the paper leaves open, named here: the EWMA gain of `E` is `2^-ewma_shift`
//! (default 1/16, DCTCP's `g`); "delay == 0" (line 9) is "no ECN-marked ACK of the epoch saw
//! a relative delay `rtt - base_rtt` above `delay_thresh`"; an epoch whose successor stamp
//! would still be behind the terminating packet's send time restarts one period after it
//! (no burst of back-to-back epochs after an idle gap); QA's RTT (window and hold) is the
//! RTT the ACK that opens the window measured, at least the base RTT (4.1.2: "once every
//! RTT"), and its first window starts at the first ACK, like the epochs; `cwnd` stays within
//! `[mtu, max_cwnd]`; a timeout halves `cwnd`, a NACK counts as a marked packet with delay.
//!
//! Two opt-in flags follow the authors' simulator instead of the printed algorithm
//! (`lcp_type = "aimd_phantom"` in `sim/lcp.cpp` of spcl/Uno_SC25, which every Uno run of its
//! artifact scripts selects): [`UnoCcConfig::trend_ai`] (a marked epoch whose `E` fell is an
//! AI of `alpha * epoch_bytes / cwnd`, not an MD) and [`UnoCcConfig::gentle_fixed`]
//! (`MD_scale = gentle` per phantom-only epoch, not compounding). Both off by default.

// modular-bitfield 0.11 expands the word's fields into parenthesised types.
#![allow(unused_parens)]

use arbitrary_int::{u40, u48};
use modular_bitfield::prelude::*;
use rtl_models::{Clocked, ConfigError, Cycles, Rate, StateBudget};

/// 1.0 in Q1.15.
pub const Q15_ONE: u32 = 1 << 15;
/// Largest 48-bit time stamp.
const T_MAX: u64 = (1 << 48) - 1;
/// `trend_ai`: above this `E` (0.9 in Q1.15) a marked epoch is an MD even if `E` fell.
const E_TREND_MAX: i32 = 29491;
/// Largest Q32.8 window.
const CWND_Q8_MAX: u64 = (1 << 40) - 1;

/// UnoCC parameters of one flow (Table 2 and section 5.1 give the defaults of
/// [`UnoCcConfig::uno`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnoCcConfig {
    /// MTU in bytes: the smallest window and the unit of `can_send`.
    pub mtu_bytes: u32,
    /// This flow's path BDP in bytes (the `BDP` of `MD_ECN`).
    pub bdp_bytes: u64,
    /// AI factor `alpha`, Q32.8 bytes (Table 2: 0.001 x BDP).
    pub alpha_q8: u64,
    /// QA ratio `beta`, Q1.15 (Table 2: 0.5).
    pub beta_q15: u32,
    /// MD constant `K` in bytes (Table 2: intra-DC BDP / 7).
    pub k_bytes: u64,
    /// Gentle-reduction factor applied to `MD_scale`, Q1.15 (Alg. 1 line 10: 0.3).
    pub gentle_q15: u32,
    /// EWMA gain of `E` is `2^-ewma_shift` (1..=15; default 4 = 1/16).
    pub ewma_shift: u8,
    /// This flow's base RTT in cycles (relative delay and the QA period).
    pub base_rtt: Cycles,
    /// Epoch period in cycles: the intra-DC RTT for every flow (4.1.1).
    pub epoch_period: Cycles,
    /// Relative delay (cycles) at or below which a marked packet saw "no physical queue".
    pub delay_thresh: Cycles,
    /// Initial window, bytes.
    pub init_cwnd_bytes: u64,
    /// Largest window, bytes (below 2^32).
    pub max_cwnd_bytes: u64,
    /// Line rate in bytes per cycle: the pacing ceiling.
    pub line_rate: Rate,
    /// The authors' simulator's epoch rule (`aimd_phantom` in `sim/lcp.cpp` of
    /// spcl/Uno_SC25, the code behind the paper's figures): a marked epoch whose `E` fell
    /// below the previous epoch's (previous `E` above zero, new `E` at most 0.9) is an
    /// additive increase by `alpha * epoch_bytes / cwnd` instead of an MD ("phantom queue
    /// draining"; `epoch_bytes` = the epoch's ACKs x MTU). Off: Algorithm 1 as printed
    /// (every marked epoch is an MD).
    pub trend_ai: bool,
    /// `MD_scale = gentle` on every phantom-only epoch (the authors' simulator: a fixed
    /// 0.35) instead of Algorithm 1 line 10's `MD_scale *= gentle` (compounding).
    pub gentle_fixed: bool,
    /// The authors' simulator's hold after a Quick Adapt (spcl/Uno_SC25 `sim/lcp.cpp`,
    /// `processQaMeasurementEnd` / `adjust_window_aimd_phantom`: QA and epochs stay off until
    /// the ACK of a packet *sent* at or after the QA; the next QA window starts at that ACK).
    /// Off: 4.1.2's "skips one RTT" from the QA (a hold of one measured RTT, then a window).
    /// With a backlog in flight (a one-BDP start into a full buffer) the sender may send
    /// nothing for most of that RTT, and the fixed window then measures the gap.
    pub qa_hold_sent: bool,
    /// Alg. 1 line 14's `cwnd *= 1 - MD_ECN * MD_scale` with the gain `4K / (K + BDP)`,
    /// `MD_ECN` and the product in Q2.30 instead of Q1.15. Off (default): Q1.15, which
    /// floors an inter-DC flow's reduction to a few LSBs (gain 0.0045 = 146 / 2^15; at
    /// `E` = 0.14 and `MD_scale` = 0.35 the product is 6.96 LSB, floored to 6: each MD
    /// 14 % short of the printed one). The authors' simulator computes it in `double`
    /// (spcl/Uno_SC25 `sim/lcp.cpp`, `processEpochEnd`).
    pub md_fine: bool,
    /// 4.1.1's epoch period from the RTT the epoch-ending ACK measured, scaled by this
    /// Q2.30 ratio (0: off, every epoch lasts [`UnoCcConfig::epoch_period`]). The authors'
    /// simulator (spcl/Uno_SC25 `sim/lcp.cpp`, `processEpochEnd` with `epoch_type =
    /// "short"`): the next epoch ends `rtt x constant_timestamp_epoch_ratio` after this one,
    /// the ratio 1.0 for an intra-DC flow and `BDP_intra / BDP_inter` for an inter-DC one,
    /// so an intra-DC flow's epoch is its own measured RTT (a sender in the receiver's pod
    /// has shorter epochs than one across the spine) and an inter-DC flow's about one
    /// intra-DC RTT.
    pub epoch_rtt_q30: u32,
    /// A general EWMA gain of `E`, Q0.16 (1 ..= 65536 = 1.0; 0: off, the gain is
    /// `2^-ewma_shift`). `E += (frac - E) x gain`, floored like the shift (a gain of
    /// `2^(16-n)` gives exactly `ewma_shift = n`). The authors' simulator (spcl/Uno_SC25
    /// `LcpSrc::computeEwma`, `-ecnAlpha 0.65` in every Uno artifact script) weighs the new
    /// epoch's fraction by 0.65: 42 598 / 2^16 = 0.649994, within 1e-5.
    pub ewma_gain_q16: u32,
    /// Alg. 1 line 9's "delay == 0" from the epoch-ending ACK alone: the MD is gentle
    /// unless *that* ACK (marked or not) measured `rtt - base_rtt > delay_thresh`. The
    /// authors' simulator (spcl/Uno_SC25 `sim/lcp.cpp`, `processEpochEnd(rtt)`: `rtt >
    /// _base_rtt * 1.055`). Off (default): gentle unless *any ECN-marked* ACK of the epoch
    /// (the ending one included) measured a relative delay above `delay_thresh`.
    pub gentle_epoch_end: bool,
}

impl UnoCcConfig {
    /// Uno's defaults for a flow with path BDP `bdp_bytes` and base RTT `base_rtt` in a
    /// network whose intra-DC BDP is `bdp_intra_bytes` and intra-DC RTT `intra_rtt`:
    /// alpha = 0.001 BDP, beta = 0.5, K = BDP_intra / 7, MD_scale factor 0.3, E gain 1/16,
    /// epoch period = intra-DC RTT, initial window = one BDP, largest = 2 BDP.
    pub const fn uno(
        mtu_bytes: u32,
        bdp_bytes: u64,
        bdp_intra_bytes: u64,
        base_rtt: Cycles,
        intra_rtt: Cycles,
        line_rate: Rate,
    ) -> Self {
        UnoCcConfig {
            mtu_bytes,
            bdp_bytes,
            alpha_q8: ((bdp_bytes as u128 * 256) / 1000) as u64,
            beta_q15: Q15_ONE / 2,
            k_bytes: bdp_intra_bytes / 7,
            gentle_q15: 9830, // 0.3 x 2^15, rounded down
            ewma_shift: 4,
            base_rtt,
            epoch_period: intra_rtt,
            delay_thresh: 0,
            init_cwnd_bytes: bdp_bytes,
            max_cwnd_bytes: bdp_bytes.saturating_mul(2),
            line_rate,
            trend_ai: false,
            gentle_fixed: false,
            qa_hold_sent: false,
            md_fine: false,
            epoch_rtt_q30: 0,
            ewma_gain_q16: 0,
            gentle_epoch_end: false,
        }
    }

    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.mtu_bytes == 0 {
            return Err(ConfigError::new("mtu_bytes", "must be above zero"));
        }
        if self.bdp_bytes == 0 || self.bdp_bytes >= 1 << 32 {
            return Err(ConfigError::new("bdp_bytes", "must be in 1 ..= 2^32 - 1"));
        }
        if self.alpha_q8 >= 1 << 40 {
            return Err(ConfigError::new("alpha_q8", "must be below 2^40 (Q32.8)"));
        }
        if self.beta_q15 > Q15_ONE {
            return Err(ConfigError::new("beta_q15", "must be at most 1.0 (2^15)"));
        }
        if self.gentle_q15 > Q15_ONE {
            return Err(ConfigError::new("gentle_q15", "must be at most 1.0 (2^15)"));
        }
        if self.k_bytes == 0 || self.k_bytes >= 1 << 32 {
            return Err(ConfigError::new("k_bytes", "must be in 1 ..= 2^32 - 1"));
        }
        if self.ewma_shift == 0 || self.ewma_shift > 15 {
            return Err(ConfigError::new("ewma_shift", "must be in 1..=15"));
        }
        if self.base_rtt == 0 || self.base_rtt > T_MAX / 4 {
            return Err(ConfigError::new("base_rtt", "must be in 1 ..= 2^46 cycles"));
        }
        if self.epoch_period == 0 || self.epoch_period > T_MAX / 4 {
            return Err(ConfigError::new(
                "epoch_period",
                "must be in 1 ..= 2^46 cycles",
            ));
        }
        if self.max_cwnd_bytes < self.mtu_bytes as u64 || self.max_cwnd_bytes >= 1 << 32 {
            return Err(ConfigError::new(
                "max_cwnd_bytes",
                "must be in mtu_bytes ..= 2^32 - 1",
            ));
        }
        if self.init_cwnd_bytes < self.mtu_bytes as u64
            || self.init_cwnd_bytes > self.max_cwnd_bytes
        {
            return Err(ConfigError::new(
                "init_cwnd_bytes",
                "must be in mtu_bytes ..= max_cwnd_bytes",
            ));
        }
        if self.line_rate.0 == 0 {
            return Err(ConfigError::new("line_rate", "must be above zero"));
        }
        if self.epoch_rtt_q30 > 1 << 30 {
            return Err(ConfigError::new(
                "epoch_rtt_q30",
                "must be at most 1.0 (2^30)",
            ));
        }
        if self.ewma_gain_q16 > 1 << 16 {
            return Err(ConfigError::new(
                "ewma_gain_q16",
                "must be at most 1.0 (2^16; 0 = use ewma_shift)",
            ));
        }
        Ok(())
    }

    /// `4K / (K + BDP)` in Q1.15 (the MD gain that `E` scales).
    pub const fn md_gain_q15(&self) -> u32 {
        ((4 * self.k_bytes as u128 * Q15_ONE as u128) / (self.k_bytes + self.bdp_bytes) as u128)
            as u32
    }

    /// `4K / (K + BDP)` in Q2.30 ([`UnoCcConfig::md_fine`]; at most 4.0, so 33 bits).
    pub const fn md_gain_q30(&self) -> u64 {
        ((4 * self.k_bytes as u128) << 30) as u64 / (self.k_bytes + self.bdp_bytes)
    }
}

/// UnoCC's per-flow state (logical view; odd widths are in the types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnoCcState {
    /// Congestion window, Q32.8 bytes.
    pub cwnd_q8: u40,
    /// `MD_scale`, Q1.15 (Alg. 1 lines 10, 12).
    pub md_scale_q15: u16,
    /// `E`: EWMA of the ECN-marked fraction, Q1.15.
    pub ecn_ewma_q15: u16,
    /// Packets acknowledged in the current epoch (saturating).
    pub epoch_acked: u16,
    /// ECN-marked packets in the current epoch (saturating).
    pub epoch_marked: u16,
    /// The first ACK arrived: epochs and QA windows run.
    pub started: bool,
    /// A marked packet of this epoch saw a relative delay above the threshold.
    pub epoch_delay: bool,
    /// `T_epoch` (4.1.1).
    pub t_epoch: u48,
    /// End of the current QA window.
    pub qa_end: u48,
    /// Bytes acknowledged in the current QA window (saturating).
    pub qa_acked: u32,
    /// No QA or MD before this cycle (the RTT skipped after a QA).
    pub hold_until: u48,
    /// Pacing: earliest cycle of the next send.
    pub next_send: u48,
}

/// Bits of the UnoCC word: 40 + 4 x 16 + 2 + 4 x 48 + 32.
pub const UNO_CC_BITS: u32 = 40 + 16 * 4 + 1 + 1 + 48 * 4 + 32;
const _: () = assert!(UNO_CC_BITS == 330);

/// The packed UnoCC word (42 bytes, 6 bits padding).
#[bitfield]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnoCcWord {
    cwnd_q8: B40,
    md_scale_q15: B16,
    ecn_ewma_q15: B16,
    epoch_acked: B16,
    epoch_marked: B16,
    started: bool,
    epoch_delay: bool,
    t_epoch: B48,
    qa_end: B48,
    qa_acked: B32,
    hold_until: B48,
    next_send: B48,
    #[skip]
    __: B6,
}

impl Default for UnoCcWord {
    fn default() -> Self {
        Self::new()
    }
}

impl UnoCcState {
    /// The reset state with window `cwnd_bytes`.
    pub fn reset(cwnd_bytes: u64) -> Self {
        UnoCcState {
            cwnd_q8: u40::new((cwnd_bytes << 8).min(CWND_Q8_MAX)),
            md_scale_q15: Q15_ONE as u16,
            ecn_ewma_q15: 0,
            epoch_acked: 0,
            epoch_marked: 0,
            started: false,
            epoch_delay: false,
            t_epoch: u48::new(0),
            qa_end: u48::new(0),
            qa_acked: 0,
            hold_until: u48::new(0),
            next_send: u48::new(0),
        }
    }

    /// Pack into the word.
    pub fn pack(&self) -> UnoCcWord {
        UnoCcWord::new()
            .with_cwnd_q8(self.cwnd_q8.value())
            .with_md_scale_q15(self.md_scale_q15)
            .with_ecn_ewma_q15(self.ecn_ewma_q15)
            .with_epoch_acked(self.epoch_acked)
            .with_epoch_marked(self.epoch_marked)
            .with_started(self.started)
            .with_epoch_delay(self.epoch_delay)
            .with_t_epoch(self.t_epoch.value())
            .with_qa_end(self.qa_end.value())
            .with_qa_acked(self.qa_acked)
            .with_hold_until(self.hold_until.value())
            .with_next_send(self.next_send.value())
    }

    /// Unpack from the word (every bit pattern is a state).
    pub fn unpack(w: UnoCcWord) -> Self {
        UnoCcState {
            cwnd_q8: u40::new(w.cwnd_q8()),
            md_scale_q15: w.md_scale_q15(),
            ecn_ewma_q15: w.ecn_ewma_q15(),
            epoch_acked: w.epoch_acked(),
            epoch_marked: w.epoch_marked(),
            started: w.started(),
            epoch_delay: w.epoch_delay(),
            t_epoch: u48::new(w.t_epoch()),
            qa_end: u48::new(w.qa_end()),
            qa_acked: w.qa_acked(),
            hold_until: u48::new(w.hold_until()),
            next_send: u48::new(w.next_send()),
        }
    }
}

impl StateBudget for UnoCcState {
    const NAME: &'static str = "UnoCC flow word (Uno Alg. 1)";
    const BITS: u32 = UNO_CC_BITS;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(
    UnoCcState::BITS.div_ceil(8) as usize == core::mem::size_of::<UnoCcWord>()
        && UnoCcState::BITS + 6 == 8 * core::mem::size_of::<UnoCcWord>() as u32
);

/// What an ACK made UnoCC do (for traces and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AckOutcome {
    /// Additive increase applied (Alg. 1 line 3).
    pub ai: bool,
    /// An epoch ended (ONEPOCH ran).
    pub epoch_end: bool,
    /// Multiplicative decrease applied (line 14).
    pub md: bool,
    /// The MD was gentle (line 10).
    pub gentle: bool,
    /// Quick Adapt fired (line 20).
    pub qa: bool,
}

/// UnoCC for one flow: configuration, the state word and the cycle it has been brought to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnoCc {
    cfg: UnoCcConfig,
    md_gain_q15: u32,
    md_gain_q30: u64,
    st: UnoCcState,
    now: Cycles,
}

impl UnoCc {
    /// A flow starting at cycle `now` with `cfg`; the error names the bad field.
    pub fn new(cfg: UnoCcConfig, now: Cycles) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(UnoCc {
            cfg,
            md_gain_q15: cfg.md_gain_q15(),
            md_gain_q30: cfg.md_gain_q30(),
            st: UnoCcState::reset(cfg.init_cwnd_bytes),
            now,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> &UnoCcConfig {
        &self.cfg
    }

    /// The state word (logical view).
    pub const fn state(&self) -> &UnoCcState {
        &self.st
    }

    /// Replace the state (e.g. after unpacking a word from SRAM).
    pub fn set_state(&mut self, st: UnoCcState) {
        self.st = st;
    }

    /// The current cycle.
    pub const fn now(&self) -> Cycles {
        self.now
    }

    /// Congestion window in whole bytes.
    pub fn cwnd(&self) -> u64 {
        self.st.cwnd_q8.value() >> 8
    }

    /// `MD_ECN = E * 4K / (K + BDP)` now, Q1.15.
    pub fn md_ecn_q15(&self) -> u32 {
        ((self.st.ecn_ewma_q15 as u64 * self.md_gain_q15 as u64) >> 15) as u32
    }

    fn sync(&mut self, now: Cycles) {
        if now > self.now {
            self.now = now;
        }
    }

    fn set_cwnd_q8(&mut self, q8: u128) {
        let lo = (self.cfg.mtu_bytes as u128) << 8;
        let hi = (self.cfg.max_cwnd_bytes as u128) << 8;
        self.st.cwnd_q8 = u40::new(q8.clamp(lo, hi) as u64);
    }

    fn stamp(t: Cycles) -> u48 {
        u48::new(t.min(T_MAX))
    }

    /// An ACK for `acked_bytes` arrives at cycle `now`, ECN-marked or not, with the RTT
    /// sample `rtt` (cycles; the packet was sent at `now - rtt`, its `T_pkt`).
    pub fn on_ack(&mut self, now: Cycles, acked_bytes: u32, ecn: bool, rtt: Cycles) -> AckOutcome {
        self.sync(now);
        let now = self.now;
        let mut out = AckOutcome::default();
        if !self.st.started {
            // 4.1.1: "upon receiving the first ACK of the flow, UnoCC stores an epoch
            // activation time (T_epoch) [...] initialized to the time of the ACK arrival".
            self.st.started = true;
            self.st.t_epoch = Self::stamp(now);
            self.st.qa_end = Self::stamp(now + self.qa_rtt(rtt));
        }
        // Epoch counters.
        self.st.epoch_acked = self.st.epoch_acked.saturating_add(1);
        if ecn {
            self.st.epoch_marked = self.st.epoch_marked.saturating_add(1);
            if rtt.saturating_sub(self.cfg.base_rtt) > self.cfg.delay_thresh {
                self.st.epoch_delay = true;
            }
        } else {
            // Alg. 1 lines 2-3: cwnd += alpha * bytes_acked / cwnd.
            let cwnd_q8 = self.st.cwnd_q8.value() as u128;
            let inc_q8 = (self.cfg.alpha_q8 as u128 * acked_bytes as u128 * 256) / cwnd_q8;
            self.set_cwnd_q8(cwnd_q8 + inc_q8);
            out.ai = true;
        }
        // Epoch end: an ACK for a packet with T_pkt >= T_epoch.
        let t_pkt = now.saturating_sub(rtt);
        // `qa_hold_sent`: after a QA, `hold_until` is `T_MAX` and `qa_end` the QA's time
        // until the ACK of a packet sent since; that ACK ends the hold and opens the window.
        let pending = self.st.hold_until.value() == T_MAX;
        if pending && t_pkt >= self.st.qa_end.value() {
            self.st.hold_until = Self::stamp(now);
            self.st.qa_end = Self::stamp(now + self.qa_rtt(rtt));
        }
        if now >= self.st.hold_until.value() {
            self.st.qa_acked = self.st.qa_acked.saturating_add(acked_bytes);
        }
        if t_pkt >= self.st.t_epoch.value() {
            out.epoch_end = true;
            let (md, gentle) = self.on_epoch(t_pkt, rtt);
            out.md = md;
            out.gentle = gentle;
        }
        if now >= self.st.qa_end.value() && self.st.hold_until.value() != T_MAX {
            out.qa = self.on_qa(rtt);
        }
        out
    }

    /// The length of a QA window and of the hold after a QA: "once every RTT" (4.1.2), the
    /// RTT this ACK measured, at least the base RTT. A window-limited flow acks about one
    /// cwnd per measured RTT however long its queues are; over a base RTT it would ack only
    /// `cwnd * base_rtt / rtt` and QA would fire on any queue longer than the base RTT.
    fn qa_rtt(&self, rtt: Cycles) -> Cycles {
        rtt.max(self.cfg.base_rtt)
    }

    /// Alg. 1 ONEPOCH (lines 7-16). Returns (MD applied, gentle).
    fn on_epoch(&mut self, t_pkt: Cycles, rtt: Cycles) -> (bool, bool) {
        let acked = self.st.epoch_acked.max(1) as u32;
        let marked = self.st.epoch_marked as u32;
        let frac_q15 = (marked.min(acked) * Q15_ONE / acked) as i32;
        let e_old = self.st.ecn_ewma_q15 as i32;
        let step = if self.cfg.ewma_gain_q16 == 0 {
            (frac_q15 - e_old) >> self.cfg.ewma_shift
        } else {
            // `ewma_gain_q16`: |frac - E| < 2^16, gain <= 2^16: the product fits in i64.
            ((i64::from(frac_q15 - e_old) * i64::from(self.cfg.ewma_gain_q16)) >> 16) as i32
        };
        let e = (e_old + step).clamp(0, Q15_ONE as i32);
        self.st.ecn_ewma_q15 = e as u16;
        let mut md = false;
        let mut gentle = false;
        // `trend_ai` (the authors' `aimd_phantom`): E falling (and neither zero before nor
        // above 0.9 now) means the phantom queue drains: increase, no MD.
        let draining = self.cfg.trend_ai && e_old > 0 && e < e_old && e <= E_TREND_MAX;
        if marked > 0 && self.now >= self.st.hold_until.value() && draining {
            let bytes = acked as u128 * self.cfg.mtu_bytes as u128;
            let cwnd_q8 = self.st.cwnd_q8.value() as u128;
            let inc_q8 = (self.cfg.alpha_q8 as u128 * bytes * 256) / cwnd_q8;
            self.set_cwnd_q8(cwnd_q8 + inc_q8);
        } else if marked > 0 && self.now >= self.st.hold_until.value() {
            let delayed = if self.cfg.gentle_epoch_end {
                rtt.saturating_sub(self.cfg.base_rtt) > self.cfg.delay_thresh
            } else {
                self.st.epoch_delay
            };
            if !delayed {
                // Line 10: congestion only in phantom queues: gentle reduction.
                self.st.md_scale_q15 = if self.cfg.gentle_fixed {
                    self.cfg.gentle_q15 as u16
                } else {
                    ((self.st.md_scale_q15 as u32 * self.cfg.gentle_q15) >> 15) as u16
                };
                gentle = true;
            } else {
                // Line 12.
                self.st.md_scale_q15 = Q15_ONE as u16;
            }
            // Line 14: cwnd *= 1 - MD_ECN * MD_scale.
            let cwnd_q8 = self.st.cwnd_q8.value() as u128;
            if self.cfg.md_fine {
                // `md_fine`: MD_ECN = E * gain and the product in Q2.30 (gain < 2^33,
                // E and MD_scale < 2^16: every product below 2^49).
                let md_ecn_q30 = (self.st.ecn_ewma_q15 as u64 * self.md_gain_q30) >> 15;
                let red = ((md_ecn_q30 * self.st.md_scale_q15 as u64) >> 15).min(1 << 30);
                self.set_cwnd_q8((cwnd_q8 * ((1u64 << 30) - red) as u128) >> 30);
            } else {
                let red = ((self.md_ecn_q15() as u64 * self.st.md_scale_q15 as u64) >> 15)
                    .min(Q15_ONE as u64);
                self.set_cwnd_q8((cwnd_q8 * (Q15_ONE as u64 - red) as u128) >> 15);
            }
            md = true;
        }
        self.st.epoch_acked = 0;
        self.st.epoch_marked = 0;
        self.st.epoch_delay = false;
        // 4.1.1: T_epoch += epoch_period (`epoch_rtt_q30`: the measured RTT x the ratio,
        // at least one cycle, at most 2^46 cycles).
        let period = if self.cfg.epoch_rtt_q30 == 0 {
            self.cfg.epoch_period
        } else {
            ((rtt.min(T_MAX / 4) as u128 * self.cfg.epoch_rtt_q30 as u128) >> 30).max(1) as u64
        };
        let mut next = self.st.t_epoch.value() + period;
        if next <= t_pkt {
            next = t_pkt + period;
        }
        self.st.t_epoch = Self::stamp(next);
        (md, gentle)
    }

    /// Wormhole fast-forward (`../shared/papers/wormhole.md` 6.2; dcfab's
    /// `sim-harness/src/engine/skip/uno_drift.rs`): the state `acked_bytes` of unmarked ACKs
    /// over `epochs` epochs leave. Alg. 1 lines 2-3 summed over the ACKs: each adds
    /// `alpha * acked / cwnd`, so `cwnd^2` grows by `2 alpha acked_bytes` (the closed form,
    /// in Q8; per-ACK floors make the ACK-by-ACK window at most a few bytes smaller). Line
    /// 8 once per epoch with no marked ACK: `E` decays toward 0. MD_scale, QA and the
    /// epoch and QA clocks are untouched (the simulator shifts the clocks). The window
    /// stays within `[mtu, max_cwnd]`.
    pub fn fast_forward_unmarked(&mut self, acked_bytes: u64, epochs: u64) {
        let c = self.st.cwnd_q8.value() as u128;
        // c < 2^40 (u40), alpha_q8 < 2^40 (checked), acked < 2^64: the terms fit u128
        // once acked is capped at 2^40 bytes (a TiB; a skip never takes that much).
        let add = 512 * self.cfg.alpha_q8 as u128 * u128::from(acked_bytes.min(1 << 40));
        self.set_cwnd_q8((c * c + add).isqrt());
        for _ in 0..epochs {
            let e_old = self.st.ecn_ewma_q15 as i32;
            if e_old == 0 {
                break;
            }
            let step = if self.cfg.ewma_gain_q16 == 0 {
                (-e_old) >> self.cfg.ewma_shift
            } else {
                ((i64::from(-e_old) * i64::from(self.cfg.ewma_gain_q16)) >> 16) as i32
            };
            self.st.ecn_ewma_q15 = (e_old + step).clamp(0, Q15_ONE as i32) as u16;
        }
    }

    /// Alg. 1 ONQA (lines 18-22), at the end of a QA window. Returns whether QA fired.
    fn on_qa(&mut self, rtt: Cycles) -> bool {
        let acked = self.st.qa_acked as u64;
        let cwnd = self.cwnd();
        let fired = (acked << 15) < cwnd * self.cfg.beta_q15 as u64;
        let rtt = self.qa_rtt(rtt);
        if fired {
            self.set_cwnd_q8((acked as u128) << 8);
            if self.cfg.qa_hold_sent {
                // The authors' hold: until the ACK of a packet sent from now on.
                self.st.hold_until = u48::new(T_MAX);
                self.st.qa_end = Self::stamp(self.now);
            } else {
                // 4.1.2: "after triggering QA, UnoCC skips one RTT without triggering any
                // QAs or MDs".
                self.st.hold_until = Self::stamp(self.now + rtt);
                self.st.qa_end = Self::stamp(self.now + 2 * rtt);
            }
        } else {
            self.st.qa_end = Self::stamp(self.now + rtt);
        }
        self.st.qa_acked = 0;
        fired
    }

    /// A NACK (trimmed packet, or an unrecoverable EC block) at `now`: counted as a marked
    /// packet that saw a physical queue (full MD at the epoch's end); no AI.
    pub fn on_nack(&mut self, now: Cycles) {
        self.sync(now);
        self.st.epoch_acked = self.st.epoch_acked.saturating_add(1);
        self.st.epoch_marked = self.st.epoch_marked.saturating_add(1);
        self.st.epoch_delay = true;
    }

    /// A retransmission timeout at `now`: the window halves (at least one MTU).
    pub fn on_timeout(&mut self, now: Cycles) {
        self.sync(now);
        let q8 = self.st.cwnd_q8.value() as u128;
        self.set_cwnd_q8(q8 / 2);
    }

    /// Pacing rate in bytes per cycle (Q32.32): `cwnd / base_rtt`, at most the line rate.
    pub fn pacing_rate(&self) -> Rate {
        let r = ((self.st.cwnd_q8.value() as u128) << 24) / self.cfg.base_rtt as u128;
        Rate(r.min(self.cfg.line_rate.0 as u128) as u64)
    }

    /// Earliest cycle the pacer allows the next send.
    pub fn next_send(&self) -> Cycles {
        self.st.next_send.value()
    }

    /// Whether a packet may leave now with `inflight_bytes` unacknowledged: window room for
    /// one MTU and the pacer's time reached. Saturating: any `inflight_bytes` (the C ABI
    /// passes the caller's value through) is an answer, not an overflow.
    pub fn can_send(&self, inflight_bytes: u64) -> bool {
        inflight_bytes.saturating_add(self.cfg.mtu_bytes as u64) <= self.cwnd()
            && self.now >= self.st.next_send.value()
    }

    /// A packet of `bytes` leaves at `now`: the pacer's next slot moves
    /// `ceil(bytes / pacing_rate)` cycles on.
    pub fn on_send(&mut self, now: Cycles, bytes: u32) {
        self.sync(now);
        let rate = self.pacing_rate();
        let gap = rate.cycles_to((bytes as u128) << 32).unwrap_or(0);
        let start = self.now.max(self.st.next_send.value());
        self.st.next_send = Self::stamp(start.saturating_add(gap));
    }
}

/// The clock only moves `now`: every decision is taken on ACK / send / NACK / timeout
/// events, the pacer and the epoch / QA windows are time stamps compared lazily.
impl Clocked for UnoCc {
    fn tick(&mut self) {
        self.now += 1;
    }
    fn advance(&mut self, cycles: Cycles) {
        self.now += cycles;
    }
}

impl StateBudget for UnoCc {
    const NAME: &'static str = UnoCcState::NAME;
    const BITS: u32 = UnoCcState::BITS;
    const UNIT: &'static str = UnoCcState::UNIT;
}

#[cfg(test)]
mod tests;
