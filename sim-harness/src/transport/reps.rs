//! `[transport.reps]`: the knobs of the REPS load balancer (REPS section 3.2, Algorithm 1),
//! used when `transport.lb = "reps"`; [`crate::flow::reps_config`] turns them into the
//! `nic` block's [`nic::reps::RepsConfig`].

use crate::error::{Error, Result};
use crate::units::num;
use serde::{Deserialize, Serialize};

/// Bound (exclusive) of `transport.reps.freezing_timeout_us`: REPS keeps `exitFreezingMode`
/// as a 32-bit wrap-around stamp of the 1 GHz NIC clock, so the timeout is below 2^31 cycles.
pub const MAX_FREEZING_TIMEOUT_US: f64 = 2_147_483.648;

/// `failure_rtt_multiple` in the detector's Q8.8 (at least 1 = 1/256).
pub fn rtt_multiple_q8(m: f64) -> u32 {
    ((m * 256.0).round() as u32).clamp(1, 65535)
}

/// `transport.reps.freeze_exit`: when a REPS connection leaves freezing mode (section 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreezeExit {
    /// Algorithm 1 as printed: the exit time is checked only when an unmarked ACK arrives
    /// (L15), so a connection whose cached EVs all map to dead paths never leaves (with 50 %
    /// of the switch cables down, 1 to 6 of 128 flows never finish; docs/reps_matrix.md).
    OnAck,
    /// Section 3.2's text, "we simply exit freezing mode after a fixed amount of time": the
    /// same check also runs before each DATA send and on each failure detection
    /// (`nic::reps::RepsConfig::timed_exit`). The default since session 6: every flow of
    /// the 50 % case completes, and the other REPS failure scenarios move only within their
    /// seed-to-seed spread (docs/reps_matrix.md, "Leaving freezing mode").
    #[default]
    Timed,
}

fn is_default_exit(v: &FreezeExit) -> bool {
    *v == FreezeExit::default()
}

fn is_false(v: &bool) -> bool {
    !*v
}

/// `[transport.reps]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepsSection {
    /// Freezing mode (section 3.2) on or off (Appendix C.4 runs REPS without it).
    pub freezing: bool,
    /// `FREEZING_TIMEOUT` (Algorithm 1 line 24) in us: how long a connection stays in
    /// freezing mode after a failure detection. Not given by the paper: 100 us is about
    /// 1.4 RTOs (70 us), long enough that a connection that froze does not probe the dead
    /// path again before its next timeout could confirm it, short enough that a transient
    /// failure (Figure 7's 100 us) costs little spread afterwards.
    pub freezing_timeout_us: f64,
    /// The Appendix A failure detector's threshold (no trimming): an RTO is judged a path
    /// failure when the largest RTT of the recent window is below this multiple of the base
    /// RTT (the paper says "low", no number). 2.0: with one-BDP buffers a congestion loss
    /// comes after a queue of about one BDP somewhere, an RTT near 2x the base RTT or more,
    /// so below 2x the loss was not congestion. Held in Q8.8 (0 < x < 256).
    pub failure_rtt_multiple: f64,
    /// The detector's RTT history window in us ("the period preceding the timeout"); 0 (the
    /// default) = one RTO, the interval in which the lost packet's own RTT samples would
    /// have arrived.
    pub failure_window_us: f64,
    /// When freezing mode ends ([`FreezeExit`]): `"timed"` (section 3.2's text, the
    /// default) or `"on_ack"` (Algorithm 1 line 15 as printed). Written out only when not the
    /// default.
    #[serde(skip_serializing_if = "is_default_exit")]
    pub freeze_exit: FreezeExit,
    /// One REPS word per connection instead of per flow: the flows (messages) of one
    /// (src, dst) pair share one REPS state, its cached EVs included, as the REPS artifact's
    /// `-connections_mapping` does (`UecSrc::startFlow` takes the pair's
    /// `CONNECTION_INFO_MAP` buffer, a pointer every later flow of the pair shares). Needs a
    /// DCTCP-family transport (`cc = "dctcp"` or `"mprdma"`); flows of other load balancers
    /// are not affected. Written out only when on.
    #[serde(skip_serializing_if = "is_false")]
    pub per_connection: bool,
}

impl Default for RepsSection {
    fn default() -> Self {
        RepsSection {
            freezing: true,
            freezing_timeout_us: 100.0,
            failure_rtt_multiple: 2.0,
            failure_window_us: 0.0,
            freeze_exit: FreezeExit::Timed,
            per_connection: false,
        }
    }
}

impl RepsSection {
    /// Check the section (whatever `lb` is, like every field); errors name
    /// `transport.reps.<field>`.
    pub fn check(&self) -> Result<()> {
        let v = self.freezing_timeout_us;
        const F: &str = "transport.reps.freezing_timeout_us";
        if !v.is_finite() {
            return Err(Error::field(
                F,
                format!("must be a finite number, got {}", num(v)),
            ));
        }
        if v < 0.0 {
            return Err(Error::field(
                F,
                format!("must not be negative, got {}", num(v)),
            ));
        }
        // FREEZING_TIMEOUT is compared as a 32-bit wrap-around cycle stamp (1 GHz NIC clock).
        if v >= MAX_FREEZING_TIMEOUT_US {
            return Err(Error::field(
                F,
                format!(
                    "must be below {MAX_FREEZING_TIMEOUT_US} us (2^31 NIC cycles), got {}",
                    num(v)
                ),
            ));
        }
        let m = self.failure_rtt_multiple;
        const M: &str = "transport.reps.failure_rtt_multiple";
        // The NIC's FailureDetector (nic::reps::failure) needs a multiple of at least 1: a
        // delay threshold below the base RTT would call every loss a failure.
        if !m.is_finite() || !(1.0..256.0).contains(&m) {
            return Err(Error::field(
                M,
                format!(
                    "must be a multiple of the base RTT of at least 1 and below 256 (Q8.8), \
                     got {}",
                    num(m)
                ),
            ));
        }
        let w = self.failure_window_us;
        const W: &str = "transport.reps.failure_window_us";
        if !w.is_finite() || !(0.0..MAX_FREEZING_TIMEOUT_US).contains(&w) {
            return Err(Error::field(
                W,
                format!(
                    "must be 0 (one RTO) or a time below {MAX_FREEZING_TIMEOUT_US} us, got {}",
                    num(w)
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    /// The detector knobs reach the `nic` block's configuration: the defaults are the
    /// constants of session 3 (2.0x in Q8.8, one RTO), and each field moves its register.
    #[test]
    fn detector_fields_reach_the_failure_detector() {
        let mut s = Scenario::default();
        let d = crate::flow::detector_config(&s, 10_000, 70_000);
        assert_eq!(d.rtt_multiple_q8, crate::flow::FAILURE_RTT_MULTIPLE_Q8);
        assert_eq!(d.window_cycles, 70_000);
        s.transport.reps.failure_rtt_multiple = 1.25;
        s.transport.reps.failure_window_us = 20.0;
        let d = crate::flow::detector_config(&s, 10_000, 70_000);
        assert_eq!((d.rtt_multiple_q8, d.window_cycles), (320, 20_000));
        assert!(s.transport.reps.check().is_ok());
        s.transport.reps.failure_rtt_multiple = 256.0;
        let e = s.transport.reps.check().unwrap_err().to_string();
        assert!(e.contains("transport.reps.failure_rtt_multiple"), "{e}");
    }
}
