//! When to call `ONFAILUREDETECTION`: the failure-detection policy of REPS Appendix A, as a
//! small per-connection block the transport feeds.
//!
//! ```text
//!   RTT samples ──on_rtt_sample(now, rtt)──►┌──────────────────────┐
//!                                          │ recent max RTT        │
//!   loss signal ──on_loss(now, signal)────►│ (two windows of W)    ├──Failure──► lb.on_failure_detection(now)
//!   (Timeout / Trimmed / UntrimmedLoss)    │ trimming? threshold   │
//!                                          └──────────────────────┘
//! ```
//!
//! * **Without trimming** (the paper's default): on a retransmission timeout, look at the
//!   maximum RTT observed just before it. A high maximum means the packet was most likely
//!   a congestion drop; a low one (below `rtt_multiple_q8 / 256` x the base RTT) means a
//!   failure.
//! * **With trimming**: congestion drops are trimmed and reported (a `Trimmed` signal), so
//!   any loss detected without a trimmed header (`Timeout`, `UntrimmedLoss`) is a failure.
//!
//! "Recent" is the current and the previous window of `window_cycles` (so at least the
//! last `window_cycles`, at most twice that): two running maxima and a 32-bit window
//! number, 96 bits per connection.
//!
//! Units: every time and RTT is in NIC clock cycles; `rtt_multiple_q8` is unsigned Q8.8
//! (256 = 1.0).

use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

use crate::lb::LoadBalancer;

/// A loss the transport detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LossSignal {
    /// The retransmission timer fired.
    Timeout,
    /// A trimmed header (or the NACK it triggered) arrived: a congestion drop.
    Trimmed,
    /// A loss inferred without a trimmed header, other than by timeout (e.g. a SACK gap
    /// with no NACK). Only meaningful when the network trims.
    UntrimmedLoss,
}

/// What the detector made of a loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum LossVerdict {
    /// Likely a network failure: REPS should freeze.
    Failure,
    /// Likely congestion: nothing for REPS to do.
    Congestion,
}

/// Configuration of the failure detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FailureDetectorConfig {
    /// Whether the network trims congestion drops (Appendix A strategy 1). Default false.
    pub trimming: bool,
    /// Base (unloaded) RTT in NIC cycles. > 0. Default 7_000 (7 us at 1 GHz, the two-tier
    /// fat tree of section 4.1).
    pub base_rtt_cycles: u32,
    /// Failure threshold as a multiple of the base RTT, Q8.8 (256 = 1.0x). A timeout whose
    /// recent max RTT is below `base_rtt * multiple` is a failure. >= 256. Default 512
    /// (2x; the paper gives no figure).
    pub rtt_multiple_q8: u32,
    /// Window of the recent-max-RTT tracker in cycles. > 0. Default 70_000 (the 70 us RTO
    /// of section 4.1: "the period preceding the timeout").
    pub window_cycles: u32,
}

impl FailureDetectorConfig {
    /// The defaults documented on each field.
    pub const DEFAULT: FailureDetectorConfig = FailureDetectorConfig {
        trimming: false,
        base_rtt_cycles: 7_000,
        rtt_multiple_q8: 512,
        window_cycles: 70_000,
    };

    /// Check every field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.base_rtt_cycles == 0 {
            return Err(ConfigError::new("base_rtt_cycles", "must be > 0"));
        }
        if self.rtt_multiple_q8 < 256 {
            return Err(ConfigError::new(
                "rtt_multiple_q8",
                "must be >= 256 (1.0x the base RTT)",
            ));
        }
        if self.window_cycles == 0 {
            return Err(ConfigError::new("window_cycles", "must be > 0"));
        }
        Ok(())
    }

    /// The RTT threshold in cycles: `base_rtt * multiple / 256`, saturated to u32.
    pub const fn threshold_cycles(&self) -> u32 {
        let t = (self.base_rtt_cycles as u64 * self.rtt_multiple_q8 as u64) >> 8;
        if t > u32::MAX as u64 {
            u32::MAX
        } else {
            t as u32
        }
    }
}

impl Default for FailureDetectorConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The Appendix A failure detector of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FailureDetector {
    cfg: FailureDetectorConfig,
    threshold: u32,
    /// Window number of `cur_max` (`now / window_cycles`, low 32 bits).
    window: u32,
    /// Max RTT sample in window `window`.
    cur_max: u32,
    /// Max RTT sample in window `window - 1`.
    prev_max: u32,
}

impl FailureDetector {
    /// A detector with no RTT history. Errors name the bad field.
    pub const fn new(cfg: FailureDetectorConfig) -> Result<Self, ConfigError> {
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        Ok(FailureDetector {
            cfg,
            threshold: cfg.threshold_cycles(),
            window: 0,
            cur_max: 0,
            prev_max: 0,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> &FailureDetectorConfig {
        &self.cfg
    }

    fn window_of(&self, now: Cycles) -> u32 {
        (now / self.cfg.window_cycles as u64) as u32
    }

    /// An RTT sample (cycles) measured at `now`.
    pub fn on_rtt_sample(&mut self, now: Cycles, rtt_cycles: u32) {
        let w = self.window_of(now);
        match w.wrapping_sub(self.window) {
            0 => self.cur_max = self.cur_max.max(rtt_cycles),
            1 => {
                self.prev_max = self.cur_max;
                self.cur_max = rtt_cycles;
                self.window = w;
            }
            _ => {
                self.prev_max = 0;
                self.cur_max = rtt_cycles;
                self.window = w;
            }
        }
    }

    /// The largest RTT sampled in the current and previous window as seen at `now`
    /// (0 if none).
    pub fn recent_max_rtt(&self, now: Cycles) -> u32 {
        match self.window_of(now).wrapping_sub(self.window) {
            0 => self.cur_max.max(self.prev_max),
            1 => self.cur_max,
            _ => 0,
        }
    }

    /// Classify a loss detected at `now` (Appendix A).
    pub fn classify(&self, now: Cycles, signal: LossSignal) -> LossVerdict {
        match (signal, self.cfg.trimming) {
            (LossSignal::Trimmed, _) => LossVerdict::Congestion,
            // Strategy 1: with trimming, a loss without a trimmed header is a failure.
            (LossSignal::Timeout | LossSignal::UntrimmedLoss, true) => LossVerdict::Failure,
            // Strategy 2: without trimming, a low recent max RTT means failure.
            (LossSignal::Timeout | LossSignal::UntrimmedLoss, false) => {
                if self.recent_max_rtt(now) < self.threshold {
                    LossVerdict::Failure
                } else {
                    LossVerdict::Congestion
                }
            }
        }
    }

    /// Classify a loss and, on `Failure`, call `lb.on_failure_detection(now)` (A1
    /// `ONFAILUREDETECTION`).
    pub fn on_loss<L: LoadBalancer>(
        &mut self,
        now: Cycles,
        signal: LossSignal,
        lb: &mut L,
    ) -> LossVerdict {
        let v = self.classify(now, signal);
        if v == LossVerdict::Failure {
            lb.on_failure_detection(now);
        }
        v
    }
}

/// Windows are computed from `now` on each call, so idle cycles change nothing.
impl Clocked for FailureDetector {
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for FailureDetector {
    const NAME: &'static str = "REPS failure detector (Appendix A)";
    /// Two 32-bit maxima and a 32-bit window number.
    const BITS: u32 = 32 + 32 + 32;
    const UNIT: &'static str = "per connection";
}

const _: () = assert!(<FailureDetector as StateBudget>::BITS == 96);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::{vec, vec::Vec};

    #[derive(Default)]
    struct Probe {
        calls: Vec<Cycles>,
    }
    impl LoadBalancer for Probe {
        fn on_send<R: rtl_models::RandomSource>(&mut self, _: Cycles, _: &mut R) -> u16 {
            0
        }
        fn on_ack(&mut self, _: Cycles, _: u16, _: bool) {}
        fn on_failure_detection(&mut self, now: Cycles) {
            self.calls.push(now);
        }
    }

    fn cfg(trimming: bool) -> FailureDetectorConfig {
        FailureDetectorConfig {
            trimming,
            base_rtt_cycles: 1_000,
            rtt_multiple_q8: 384, // 1.5x -> 1500 cycles
            window_cycles: 10_000,
        }
    }

    #[test]
    fn timeout_after_low_rtts_is_a_failure_and_freezes() {
        let mut d = FailureDetector::new(cfg(false)).unwrap();
        assert_eq!(d.config().threshold_cycles(), 1_500);
        d.on_rtt_sample(1_000, 1_100);
        d.on_rtt_sample(5_000, 1_499);
        let mut lb = Probe::default();
        assert_eq!(
            d.on_loss(8_000, LossSignal::Timeout, &mut lb),
            LossVerdict::Failure
        );
        assert_eq!(lb.calls, vec![8_000]);
    }

    #[test]
    fn timeout_after_high_rtt_is_congestion_until_it_ages_out() {
        let mut d = FailureDetector::new(cfg(false)).unwrap();
        d.on_rtt_sample(9_000, 4_000); // window 0
        d.on_rtt_sample(12_000, 1_000); // window 1: prev = 4000
        let mut lb = Probe::default();
        assert_eq!(d.recent_max_rtt(15_000), 4_000);
        assert_eq!(
            d.on_loss(15_000, LossSignal::Timeout, &mut lb),
            LossVerdict::Congestion
        );
        // In window 2 only window 1's max (1000) is recent.
        assert_eq!(d.recent_max_rtt(21_000), 1_000);
        assert_eq!(
            d.on_loss(21_000, LossSignal::Timeout, &mut lb),
            LossVerdict::Failure
        );
        // Window 3 and later: no recent samples -> max 0 -> failure.
        assert_eq!(d.recent_max_rtt(35_000), 0);
        assert_eq!(lb.calls, vec![21_000]);
    }

    #[test]
    fn trimming_separates_congestion_from_failure() {
        let mut d = FailureDetector::new(cfg(true)).unwrap();
        d.on_rtt_sample(0, 900); // low RTTs do not matter with trimming
        let mut lb = Probe::default();
        assert_eq!(
            d.on_loss(100, LossSignal::Trimmed, &mut lb),
            LossVerdict::Congestion
        );
        d.on_rtt_sample(200, 50_000); // nor do high ones
        assert_eq!(
            d.on_loss(300, LossSignal::UntrimmedLoss, &mut lb),
            LossVerdict::Failure
        );
        assert_eq!(
            d.on_loss(400, LossSignal::Timeout, &mut lb),
            LossVerdict::Failure
        );
        assert_eq!(lb.calls, vec![300, 400]);
        // Without trimming a Trimmed signal is still congestion.
        let d = FailureDetector::new(cfg(false)).unwrap();
        assert_eq!(d.classify(0, LossSignal::Trimmed), LossVerdict::Congestion);
    }

    #[test]
    fn config_errors_name_the_field() {
        let d = FailureDetectorConfig::DEFAULT;
        for (c, f) in [
            (
                FailureDetectorConfig {
                    base_rtt_cycles: 0,
                    ..d
                },
                "base_rtt_cycles",
            ),
            (
                FailureDetectorConfig {
                    rtt_multiple_q8: 255,
                    ..d
                },
                "rtt_multiple_q8",
            ),
            (
                FailureDetectorConfig {
                    window_cycles: 0,
                    ..d
                },
                "window_cycles",
            ),
        ] {
            assert_eq!(FailureDetector::new(c).unwrap_err().field, f);
        }
        assert_eq!(
            FailureDetectorConfig {
                base_rtt_cycles: u32::MAX,
                rtt_multiple_q8: 1024,
                ..d
            }
            .threshold_cycles(),
            u32::MAX
        );
    }
}
