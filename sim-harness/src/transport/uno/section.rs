//! `[transport.uno]`: the parameters of UnoCC (Uno 4.1, Algorithm 1; Table 2's defaults),
//! UnoRC (4.2, erasure-coded blocks) and UnoLB (4.2, Algorithm 2), and of the 5.1 baselines
//! (Gemini, MPRDMA+BBR), with their checks and the refusals of the Uno transports.

use super::subflows;
use crate::error::{Error, Result};
use crate::scenario::{CcKind, LbKind, Scenario};
use crate::units::num;
use serde::{Deserialize, Serialize};

/// `[transport.uno]`: UnoCC (Table 2), UnoRC and UnoLB parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnoSection {
    /// AI factor `alpha` as a fraction of the flow's BDP (Table 2: 0.001).
    pub alpha: f64,
    /// Quick Adapt ratio `beta` (Table 2: 0.5).
    pub beta: f64,
    /// Gentle reduction factor of `MD_scale` (Alg. 1 line 10: 0.3).
    pub gentle: f64,
    /// MD constant `K` as a fraction of the intra-DC BDP (Table 2: 1/7).
    pub k: f64,
    /// Pacing at cwnd / base RTT (UnoCC).
    pub pacing: bool,
    /// UnoRC erasure coding (Uno only; the baselines never code).
    pub ec: bool,
    /// Data packets per block, x (5.2.3: 8).
    pub ec_data: u32,
    /// Parity packets per block, y (5.2.3: 2).
    pub ec_parity: u32,
    /// Code intra-DC flows too (the paper codes inter-DC flows only).
    pub ec_intra: bool,
    /// The receiver's block timer, us ("the estimated maximum queuing and transmission
    /// delay").
    pub block_timeout_us: f64,
    /// UnoLB subflows per flow (1, 2, 4, 8, 10 or 16).
    pub subflows: u32,
    /// The EWMA gain of `E` is `2^-ewma_shift` (1..=15; default 4 = 1/16, DCTCP's `g`; the
    /// paper gives none, the authors' simulator runs 0.5, i.e. 1).
    #[serde(skip_serializing_if = "is_four")]
    pub ewma_shift: u32,
    /// The authors' simulator's epoch rule (`aimd_phantom`, spcl/Uno_SC25 `sim/lcp.cpp`): a
    /// marked epoch whose `E` fell is an additive increase, not an MD. Off: Algorithm 1.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trend_ai: bool,
    /// `MD_scale = gentle` on each phantom-only epoch (the authors' simulator, with 0.35)
    /// instead of Algorithm 1 line 10's compounding `MD_scale *= gentle`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub gentle_fixed: bool,
    /// "No physical queue" (Alg. 1 line 9) below this relative delay, as a fraction of the
    /// flow's base RTT (the authors' simulator: 0.055); unset, four MTU serialisation times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gentle_delay: Option<f64>,
    /// Largest window in BDPs of the flow (default 2; the authors' simulator caps at 1).
    /// The new fields are written out only when not their defaults.
    #[serde(skip_serializing_if = "is_two")]
    pub max_cwnd: f64,
    /// The baselines' window cap in BDPs of the flow (`cc` = `gemini` / `mprdma_bbr`):
    /// Gemini's and MPRDMA's `max_cwnd`, BBR's inflight. Unset: Gemini and MPRDMA at two
    /// BDPs, BBR at its `cwnd_gain x` estimated BDP only. The authors' simulator
    /// (spcl/Uno_SC25 `LcpSrc::updateParams`, `BBRSrc::updateParams`: `_maxcwnd = _bdp`,
    /// enforced by `check_limits_cwnd`) caps all three at 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_max_cwnd: Option<f64>,
    /// MPRDMA cuts its window (one packet per base RTT) on a sender timeout. The authors'
    /// MPRDMA+BBR runs pass `-noRto` (`LCP_RTO_REDUCE_CWND = false`: retransmit, no cut):
    /// `false`.
    #[serde(skip_serializing_if = "is_true")]
    pub baseline_timeout_cut: bool,
    /// Gemini and MPRDMA paced at cwnd / base RTT as the authors' `LcpSrc` with
    /// `-usePacing 1` (`update_pacing_delay`); off: window only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub baseline_pacing: bool,
    /// Every flow's sender timeout (Uno and its baselines) as the authors' `LcpSrc`
    /// computes it (spcl/Uno_SC25 `LcpSrc::updateParams`): the flow's base RTT plus 5 drain
    /// times of a `topology.buffer` port at the host rate, plus 3 of a
    /// `topology.two_dc.dc_buffer` port for an inter-DC flow, without `transport.rto_us` and,
    /// for flows without erasure coding, without the block timer. Off: base RTT +
    /// `transport.rto_us` + `block_timeout_us` for every flow.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub authors_rto: bool,
    /// Initial window of the intra-DC flows in BDPs of their (intra-DC) BDP, every Uno-family
    /// `cc`; unset: `transport.init_cwnd`, as the inter-DC flows. The authors' simulator
    /// starts every flow at one BDP of its own (spcl/Uno_SC25 `STARTING_CWND_BDP_RATIO = 1.0`),
    /// so a scenario that starts its inter-DC flows lower keeps the intra-DC ones at 1 here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_cwnd_intra: Option<f64>,
    /// UnoCC's hold after a Quick Adapt: `"rtt"` (default; 4.1.2: no QA or MD for one
    /// measured RTT, then a QA window of one RTT) or `"sent"` (the authors' simulator,
    /// spcl/Uno_SC25 `sim/lcp.cpp` `processQaMeasurementEnd`: no QA or MD until the ACK of a
    /// packet sent after the QA, the next window from that ACK; `nic::uno::UnoCcConfig::
    /// qa_hold_sent`).
    #[serde(skip_serializing_if = "is_rtt")]
    pub qa_hold: String,
    /// Gemini (`cc = "gemini"`) on a sender timeout, at most once per the flow's sender
    /// timeout: `ssthresh = cwnd / 2`, `cwnd` = one MTU, slow start (the ACKed bytes per
    /// unmarked ACK) back to `ssthresh`, then AI (TCP's rule; the authors' Gemini without
    /// `-noRto`, spcl/Uno_SC25 `GeminiSrc::retransmit_packet`). Off: a timeout only
    /// retransmits.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub gemini_timeout_slow_start: bool,
    /// Gemini's delay threshold: a round whose smallest RTT exceeds the base RTT by more
    /// than this many us is a delay decrease (the authors' `-geminiT 5`: `T_gemini` in ms,
    /// 5000 us). Unset: a tenth of the flow's base RTT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gemini_delay_us: Option<f64>,
    /// Gemini's delay decrease factor (the authors' `-geminiBeta 0.1`). Unset: 0.2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gemini_beta: Option<f64>,
    /// Gemini's additive increase per RTT as `H` x the inter-DC BDP, for every flow (the
    /// authors' `-geminiH 0.00024`, with `GeminiSrc::updateParams` scaling an intra-DC flow's
    /// `H` by inter / intra BDP: about 5.4 KB per RTT for both classes at Fig. 10). Unset:
    /// 0.001 x the flow's own BDP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gemini_h: Option<f64>,
    /// Gemini's EWMA gain of the marked fraction `E` is `2^-gemini_ewma_shift` per round
    /// (1..=15; the authors' `-ecnAlpha 0.5`: 1). Unset: 4 (1/16).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gemini_ewma_shift: Option<u32>,
    /// BBR (the inter-DC flows of `cc = "mprdma_bbr"`) restarts its window at one MTU on
    /// every timed-out packet and grows it back by the ACKed bytes (the authors' `BBRSrc`
    /// without trimming, spcl/Uno_SC25 `BBRSrc::apply_timeout_penalty`: `_cwnd = _mss`; BBR
    /// v1 itself ignores loss). Off: a timeout only retransmits.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bbr_timeout_reset: bool,
    /// BBR's pacing rate never falls during Startup (from the line rate until the pipe is
    /// filled): BBR v1 as its draft and Linux have it (`BBRSetPacingRateWithGain`: "if
    /// (BBR.filled_pipe || rate > pacing_rate)") and as the Uno authors' `BBRSrc` does
    /// (`UpdatePacingRate`, spcl/Uno_SC25 `sim/bbr.cpp`). Off: the pacer runs at 2.89 x the
    /// bandwidth estimate from the first ACK on, so a flow whose first ACK is one small
    /// packet after a loss paces at a few MB/s (docs/uno.md, "Session 11").
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bbr_startup_rate_hold: bool,
    /// UnoCC's fixed point for Alg. 1 line 14 (`cwnd *= 1 - MD_ECN * MD_scale`): `"q15"`
    /// (default) or `"q30"` (`nic::uno::UnoCcConfig::md_fine`: the gain, `MD_ECN` and the
    /// product in Q2.30, as the authors' `double`; Q1.15 floors an inter-DC flow's gentle
    /// reduction of about 7 LSB to 6, 14 % short).
    #[serde(skip_serializing_if = "is_q15")]
    pub md_precision: String,
    /// UnoCC's epoch period (4.1.1): `"intra_rtt"` (default: the intra-DC base RTT for
    /// every flow) or `"measured_rtt"` (the authors' simulator, `epoch_type = "short"`: the
    /// RTT the epoch-ending ACK measured, x 1 for an intra-DC flow and x BDP_intra / the
    /// flow's BDP for an inter-DC one; `nic::uno::UnoCcConfig::epoch_rtt_q30`).
    #[serde(skip_serializing_if = "is_intra_rtt")]
    pub epoch_period: String,
    /// A general EWMA gain of `E` in (0, 1], overriding `ewma_shift` (unset: `2^-ewma_shift`).
    /// Held in Q0.16 (`nic::uno::UnoCcConfig::ewma_gain_q16`, rounded): the authors'
    /// `-ecnAlpha 0.65` is 42 598 / 2^16 = 0.649994.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ewma_gain: Option<f64>,
    /// Which ACK decides Alg. 1 line 9's "delay == 0": `"any_marked"` (default: gentle
    /// unless an ECN-marked ACK of the epoch saw a relative delay above the threshold) or
    /// `"epoch_end"` (the authors' simulator, `processEpochEnd(rtt)`: the epoch-ending ACK
    /// alone, marked or not; `nic::uno::UnoCcConfig::gentle_epoch_end`).
    #[serde(skip_serializing_if = "is_any_marked")]
    pub gentle_test: String,
    /// A block sent again (after its NACK or a sender timeout) resends only its packets the
    /// receiver has not ACKed, each on the next subflow of the round robin (the authors'
    /// simulator, spcl/Uno_SC25 `sim/lcp.cpp`: `LcpSrc::processParityNack` and
    /// `LcpSrc::retransmit_packet` resend the packets of the block with `!acked`; the
    /// receiver keeps what it has). Off: the whole block again (4.2: the NACK "requesting
    /// retransmission of the missing block"), its packets on the same subflows as before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub resend_unacked: bool,
    /// UnoLB's reroute as the authors' simulator does it (spcl/Uno_SC25 `sim/lcp.cpp`,
    /// `LcpSrc::processParityNack` / `retransmit_packet` under `_subflow_reroute`): a NACK
    /// or sender timeout moves every subflow not rerouted within the last base RTT and
    /// without an ACK for half a base RTT to a fresh random path
    /// (`nic::uno::UnoLb::set_reroute_stale`). Off: Alg. 2 as printed (4.2: one subflow
    /// per base RTT, onto the path of a subflow "that has recently received ACKs").
    /// No effect unless `transport.lb = "unolb"` (so one sweep can grid over `lb`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reroute_stale: bool,
}

fn is_any_marked(v: &str) -> bool {
    v == "any_marked"
}

fn is_intra_rtt(v: &str) -> bool {
    v == "intra_rtt"
}

fn is_q15(v: &str) -> bool {
    v == "q15"
}

fn is_rtt(v: &str) -> bool {
    v == "rtt"
}

fn is_true(v: &bool) -> bool {
    *v
}

fn is_four(v: &u32) -> bool {
    *v == 4
}

fn is_two(v: &f64) -> bool {
    *v == 2.0
}

impl Default for UnoSection {
    fn default() -> Self {
        UnoSection {
            alpha: 0.001,
            beta: 0.5,
            gentle: 0.3,
            k: 1.0 / 7.0,
            pacing: true,
            ec: true,
            ec_data: 8,
            ec_parity: 2,
            ec_intra: false,
            block_timeout_us: 200.0,
            subflows: 8,
            ewma_shift: 4,
            trend_ai: false,
            gentle_fixed: false,
            gentle_delay: None,
            max_cwnd: 2.0,
            baseline_max_cwnd: None,
            baseline_timeout_cut: true,
            baseline_pacing: false,
            authors_rto: false,
            init_cwnd_intra: None,
            qa_hold: "rtt".to_string(),
            gemini_timeout_slow_start: false,
            gemini_delay_us: None,
            gemini_beta: None,
            gemini_h: None,
            gemini_ewma_shift: None,
            bbr_timeout_reset: false,
            bbr_startup_rate_hold: false,
            md_precision: "q15".to_string(),
            epoch_period: "intra_rtt".to_string(),
            ewma_gain: None,
            gentle_test: "any_marked".to_string(),
            resend_unacked: false,
            reroute_stale: false,
        }
    }
}

impl UnoSection {
    /// The defaults (the section is then left out of a written `scenario.toml`).
    pub fn is_default(&self) -> bool {
        *self == UnoSection::default()
    }

    /// Check the section (whatever `cc` is); errors name `transport.uno.<field>`.
    pub fn check(&self) -> Result<()> {
        let frac = |name: &str, v: f64, lo: f64, hi: f64| -> Result<()> {
            if !v.is_finite() || v < lo || v > hi {
                return Err(Error::field(
                    format!("transport.uno.{name}"),
                    format!("must be a number in {lo} ..= {hi}, got {}", num(v)),
                ));
            }
            Ok(())
        };
        let one_of = |name: &str, v: &str, [a, b]: [&str; 2]| -> Result<()> {
            if v != a && v != b {
                return Err(Error::field(
                    format!("transport.uno.{name}"),
                    format!("must be {a:?} or {b:?}, got {v:?}"),
                ));
            }
            Ok(())
        };
        frac("alpha", self.alpha, 0.0, 1.0)?;
        frac("beta", self.beta, 0.0, 1.0)?;
        frac("gentle", self.gentle, 0.0, 1.0)?;
        frac("k", self.k, 1e-6, 1000.0)?;
        frac("block_timeout_us", self.block_timeout_us, 0.001, 1e6)?;
        frac("max_cwnd", self.max_cwnd, 0.01, 1000.0)?;
        for (name, v, lo, hi) in [
            ("baseline_max_cwnd", self.baseline_max_cwnd, 0.01, 1000.0),
            ("gentle_delay", self.gentle_delay, 0.0, 100.0),
            ("init_cwnd_intra", self.init_cwnd_intra, 0.001, 1000.0),
            ("gemini_delay_us", self.gemini_delay_us, 0.0, 1e6),
            ("gemini_beta", self.gemini_beta, 0.0, 1.0),
            ("gemini_h", self.gemini_h, 0.0, 1.0),
        ] {
            if let Some(v) = v {
                frac(name, v, lo, hi)?;
            }
        }
        if let Some(e) = self.gemini_ewma_shift {
            if !(1..=15).contains(&e) {
                return Err(Error::field(
                    "transport.uno.gemini_ewma_shift",
                    format!("must be in 1..=15, got {e}"),
                ));
            }
        }
        one_of("qa_hold", &self.qa_hold, ["rtt", "sent"])?;
        one_of("md_precision", &self.md_precision, ["q15", "q30"])?;
        one_of(
            "epoch_period",
            &self.epoch_period,
            ["intra_rtt", "measured_rtt"],
        )?;
        if let Some(g) = self.ewma_gain {
            // Q0.16 after rounding: at least one LSB, at most 1.0.
            if !(g.is_finite() && g > 0.0 && g <= 1.0 && (g * 65536.0).round() >= 1.0) {
                return Err(Error::field(
                    "transport.uno.ewma_gain",
                    format!("must be in (0, 1] and at least 2^-16, got {}", num(g)),
                ));
            }
        }
        one_of(
            "gentle_test",
            &self.gentle_test,
            ["any_marked", "epoch_end"],
        )?;
        if !(1..=15).contains(&self.ewma_shift) {
            return Err(Error::field(
                "transport.uno.ewma_shift",
                format!("must be in 1..=15, got {}", self.ewma_shift),
            ));
        }
        if self.ec_data == 0 || self.ec_data + self.ec_parity > 16 {
            return Err(Error::field(
                "transport.uno.ec_data",
                format!(
                    "ec_data must be at least 1 and ec_data + ec_parity at most 16, got {} + {}",
                    self.ec_data, self.ec_parity
                ),
            ));
        }
        if !subflows::SUBFLOW_COUNTS.contains(&self.subflows) {
            return Err(Error::field(
                "transport.uno.subflows",
                format!("must be 1, 2, 4, 8, 10 or 16, got {}", self.subflows),
            ));
        }
        Ok(())
    }
}

/// The refusals of the Uno transports (called by [`crate::validate`]): UnoLB needs one of
/// them.
pub fn check_supported(s: &Scenario) -> Result<()> {
    let uno_family = matches!(
        s.transport.cc,
        CcKind::Uno | CcKind::Gemini | CcKind::MprdmaBbr
    );
    if s.transport.lb == LbKind::Unolb && !uno_family {
        return Err(Error::field(
            "transport.lb",
            "unolb needs transport.cc = \"uno\", \"gemini\" or \"mprdma_bbr\" (use ecmp, ops or reps)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `transport.uno.gemini_*`: off / unset by default; a bad value is refused naming
    /// the field.
    #[test]
    fn gemini_options_default_off_and_checked() {
        let d = UnoSection::default();
        assert!(!d.gemini_timeout_slow_start);
        assert!(d.gemini_delay_us.is_none() && d.gemini_beta.is_none());
        assert!(d.gemini_h.is_none() && d.gemini_ewma_shift.is_none());
        assert!(!d.bbr_timeout_reset);
        assert!(!d.bbr_startup_rate_hold);
        let err = |s: UnoSection| s.check().unwrap_err().to_string();
        let bad = [
            (
                UnoSection {
                    gemini_delay_us: Some(-1.0),
                    ..UnoSection::default()
                },
                "transport.uno.gemini_delay_us",
            ),
            (
                UnoSection {
                    gemini_beta: Some(1.5),
                    ..UnoSection::default()
                },
                "transport.uno.gemini_beta",
            ),
            (
                UnoSection {
                    gemini_h: Some(f64::NAN),
                    ..UnoSection::default()
                },
                "transport.uno.gemini_h",
            ),
            (
                UnoSection {
                    gemini_ewma_shift: Some(0),
                    ..UnoSection::default()
                },
                "transport.uno.gemini_ewma_shift",
            ),
        ];
        for (s, field) in bad {
            let e = err(s);
            assert!(e.contains(field), "{e}");
        }
        let ok = UnoSection {
            gemini_timeout_slow_start: true,
            gemini_delay_us: Some(5000.0),
            gemini_beta: Some(0.1),
            gemini_h: Some(0.00024),
            gemini_ewma_shift: Some(1),
            ..UnoSection::default()
        };
        assert!(ok.check().is_ok());
    }
}
