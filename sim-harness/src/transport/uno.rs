//! The Uno transport (`transport.cc = "uno"`) and its baselines (`"gemini"`,
//! `"mprdma_bbr"`): Uno (Bonato et al.) sections 4.1-4.2 and 5.1 in the fabric.
//!
//! ```text
//!  per flow, at its source host                      per flow, at its destination host
//!  +---------------------------------------------+   +----------------------------------+
//!  | FlowCc: UnoCc (Alg. 1, paced cwnd/RTT)       |   | UnoRx (rx.rs): ACK every DATA    |
//!  |   | GeminiCc | MprdmaCc (intra) / Bbr (inter)|   |  EC: block bitmap, RS decode,    |
//!  | UnoTx (tx.rs): units (packets | EC blocks),  |   |  block timer -> NACK(block)      |
//!  |   retransmit queue, timeout FIFO            |   +----------------------------------+
//!  | flow.lb: UnoLB (Alg. 2) | ECMP | OPS | REPS  |
//!  +---------------------------------------------+
//!  host NIC: round robin over its flows that the window and the pacer let send
//!  one FlowTimer per flow: min(pacer, sender timeout, receiver block timers)
//! ```
//!
//! * **UnoCC** ([`nic::uno::UnoCc`]) per flow with the flow's own base RTT and BDP from
//!   [`crate::topology::Fabric::path`] and, for every flow, epochs of the intra-DC RTT
//!   (4.1.1); `alpha`, `beta`, the gentle factor and `K` from `[transport.uno]`.
//! * **UnoRC** (4.2): inter-DC flows (every flow with `ec_intra`) are cut into blocks of
//!   `ec_data` + `ec_parity` packets with a real Reed-Solomon code
//!   ([`nic::uno::ec::BlockCodec`]); the receiver decodes from any `ec_data` of them, NACKs
//!   a block its timer finds undecodable, and the sender retransmits the block. Other flows
//!   are reliable per packet (NACK of a trimmed packet, sender timeout).
//! * **UnoLB** (`transport.lb = "unolb"`, Alg. 2): [`Subflows`] in the flow's `lb`; NACKs and
//!   timeouts reroute a subflow (at most once per base RTT).
//! * **Baselines** (5.1): Gemini ([`nic::uno::gemini`]) for every flow; MPRDMA+BBR: MPRDMA's
//!   window CC ([`nic::uno::mprdma`]) intra-DC and BBRv1 ([`nic::uno::bbr`], paced at its
//!   rate) inter-DC. No erasure coding for the baselines.
//!
//! Header fields: a DATA's `psn` is its wire packet number (`block * (x + y) + index` with
//! EC, the PSN without), its `cum_ack` the send stamp ([`crate::metrics::stamp`]), which the
//! ACK echoes for the RTT; an ACK's `psn` is the wpn with [`DONE`] when its unit is
//! delivered; a NACK's `psn` the trimmed wpn, or `block | DONE` for a block NACK. No side
//! table is needed.
//!
//! Choices of ours (the paper leaves them open): the block timer (`block_timeout_us`,
//! default 200 us: two 1 MiB queues' drain at 100 Gb/s and a block's pacing); the sender
//! timeout = path base RTT + `transport.rto_us` + the block timer (for every flow: the
//! block timer is the estimate of the largest queueing delay; `transport.uno.authors_rto`:
//! the authors' queue-drain timeout instead); UnoCC's
//! "no physical queue" test is a relative delay of at most 4 MTU serialization times at
//! the host rate; a flow is inter-DC when its endpoints are in different datacenters.

pub mod rx;
pub mod subflows;
pub mod tx;

pub use subflows::Subflows;
pub use tx::DONE;

use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::event::{Kind, NEVER};
use crate::flow::Lb;
use crate::packet::{Packet, PktKind};
use crate::results::RunResult;
use crate::scenario::{CcKind, LbKind, Scenario};
use crate::transport::ctx::Cx;
use crate::transport::TransportDriver;
use nic::lb::LoadBalancer;
use nic::uno::ec::BlockCodec;
use nic::uno::UnoCcConfig;
use rtl_models::{Cycles, Rate};
use rx::UnoRx;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use tx::{TxParams, TxStats, UnoTx};

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
                    format!("must be a number in {lo} ..= {hi}, got {v}"),
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
                    format!("must be in (0, 1] and at least 2^-16, got {g}"),
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

/// Per-flow constants of the Uno transports, from the flow's path.
#[derive(Debug, Clone, Copy)]
struct FlowParams {
    inter_dc: bool,
    base_rtt_ps: u64,
    bdp_bytes: u64,
}

/// Counters of the Uno transports (summed over finished flows; the live ones are added at
/// the end).
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    tx: TxStats,
    rx: rx::RxStats,
}

/// The Uno transports' state: per flow its sender and receiver, per host its ready ring.
#[derive(Debug)]
pub struct UnoState {
    cc: CcKind,
    sec: UnoSection,
    mtu: u32,
    params: Vec<FlowParams>,
    intra_rtt: Cycles,
    intra_bdp: u64,
    /// The largest inter-DC flow BDP (the intra-DC BDP without inter-DC flows): Gemini's
    /// `gemini_h` unit.
    inter_bdp: u64,
    line_rate: Rate,
    delay_thresh: Cycles,
    init_cwnd: crate::scenario::Size,
    rto_ps: u64,
    /// `authors_rto`: what the intra- and the inter-DC flows add to their base RTT, ps.
    authors_rto_ps: Option<(u64, u64)>,
    codec: Option<BlockCodec>,
    tx: Vec<Option<Box<UnoTx>>>,
    rx: Vec<Option<Box<UnoRx>>>,
    ready: Vec<VecDeque<u32>>,
    totals: Totals,
}

impl Clone for UnoState {
    fn clone(&self) -> Self {
        UnoState {
            cc: self.cc,
            sec: self.sec.clone(),
            mtu: self.mtu,
            params: self.params.clone(),
            intra_rtt: self.intra_rtt,
            intra_bdp: self.intra_bdp,
            inter_bdp: self.inter_bdp,
            line_rate: self.line_rate,
            delay_thresh: self.delay_thresh,
            init_cwnd: self.init_cwnd,
            rto_ps: self.rto_ps,
            authors_rto_ps: self.authors_rto_ps,
            codec: self
                .codec
                .as_ref()
                .and_then(|c| BlockCodec::new(c.data() as u8, c.parity() as u8).ok()),
            tx: self.tx.clone(),
            rx: self.rx.clone(),
            ready: self.ready.clone(),
            totals: self.totals,
        }
    }
}

impl UnoState {
    /// The ready ring of host `h`.
    #[inline]
    pub(crate) fn ready(&mut self, h: u32) -> &mut VecDeque<u32> {
        &mut self.ready[h as usize]
    }

    /// Whether host `h` has a flow ready.
    #[inline]
    pub(crate) fn has_ready(&self, h: u32) -> bool {
        !self.ready[h as usize].is_empty()
    }

    /// Whether flow `f` is erasure-coded.
    fn ec_for(&self, f: usize) -> bool {
        self.cc == CcKind::Uno && self.sec.ec && (self.params[f].inter_dc || self.sec.ec_intra)
    }

    /// Payload bytes of flow `f` (of `bytes`) delivered as its sender knows it (units
    /// acknowledged as delivered, `mtu` each, capped at the size).
    pub(crate) fn acked_bytes(&self, f: u32, bytes: u64) -> u64 {
        let Some(tx) = self.tx[f as usize].as_deref() else {
            return 0;
        };
        (u64::from(tx.data_delivered()) * u64::from(self.mtu)).min(bytes)
    }

    /// Blocks decoded so far (all flows).
    pub fn blocks_decoded(&self) -> u64 {
        self.totals.rx.decoded
            + self
                .rx
                .iter()
                .flatten()
                .map(|r| r.stats.decoded)
                .sum::<u64>()
    }
}

/// `transport.uno.authors_rto`: what an intra- and an inter-DC flow add to their base RTT,
/// ps: 5 drain times of an intra-DC port's `buffer` bytes at `gbps`, and for an inter-DC
/// flow 3 more of an inter-DC port's `dc_buffer` bytes (spcl/Uno_SC25
/// `LcpSrc::updateParams`: `_rto = _base_rtt + 5 * intra_queue_latency + 3 *
/// inter_queue_latency` for inter-DC flows, `+ 5 * intra_queue_latency` inside a DC).
fn authors_rto_extra_ps(buffer: u64, dc_buffer: u64, gbps: f64) -> (u64, u64) {
    let drain = |b: u64| (b as f64 * 8.0 * 1000.0 / gbps.max(1e-9)).round() as u64;
    let intra = 5 * drain(buffer);
    (intra, intra + 3 * drain(dc_buffer))
}

fn cfg_err(field: &str, e: rtl_models::ConfigError) -> Error {
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

impl Sim {
    /// Install the Uno transport (`cc` uno, gemini or mprdma_bbr) for scenario `s`.
    pub(crate) fn uno_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.transport;
        let sec = t.uno.clone();
        let (mtu, hdr) = (t.mtu, t.header_bytes);
        let fab = &self.fabric;
        // Each flow's own base RTT and BDP (`FlowBase`: its path's across datacenters, the
        // run's reference inside one); the intra-DC RTT and BDP are the reference's (the
        // longest path inside a datacenter).
        let params: Vec<FlowParams> = self
            .flows
            .iter()
            .map(|f| FlowParams {
                inter_dc: f.base.inter,
                base_rtt_ps: f.base.rtt_ps,
                bdp_bytes: f.base.bdp_bytes,
            })
            .collect();
        // Erasure coding adds y wire packets per x: every flow's wire packets (and PSNs)
        // must stay below 2^31 (bit 31 of an ACK's `psn` is the delivered flag).
        let coded = t.cc == CcKind::Uno && sec.ec;
        for (f, p) in self.flows.iter().zip(&params) {
            let data = f.spec.bytes.div_ceil(u64::from(mtu.max(1)));
            let wire = if coded && (p.inter_dc || sec.ec_intra) {
                data.div_ceil(u64::from(sec.ec_data)) * u64::from(sec.ec_data + sec.ec_parity)
            } else {
                data
            };
            if wire >= 1 << 31 {
                return Err(Error::field(
                    "workload.message",
                    format!("a flow of {data} packets needs {wire} wire packets with erasure coding, more than 2^31"),
                ));
            }
        }
        let clock = crate::clock::NIC_CLOCK;
        let ser_mtu_ps = crate::engine::ser_ps(mtu + hdr, ser_q32(fab.host_gbps));
        let line_rate = Rate((fab.host_gbps / 8.0 * 4_294_967_296.0) as u64);
        let codec = if t.cc == CcKind::Uno && sec.ec && sec.ec_parity > 0 {
            Some(
                BlockCodec::new(sec.ec_data as u8, sec.ec_parity as u8)
                    .map_err(|e| cfg_err("transport.uno.ec_parity", e))?,
            )
        } else {
            None
        };
        // UnoLB: the configured subflows, rerouting at most once per the flow's base RTT.
        if t.lb == LbKind::Unolb {
            for (f, p) in self.flows.iter_mut().zip(&params) {
                let rtt = clock.cycle_at(p.base_rtt_ps);
                let mut s = Subflows::new(sec.subflows, rtt, &mut f.rng);
                s.set_reroute_stale(sec.reroute_stale);
                f.lb = Lb::Uno(s);
            }
        }
        let inter_bdp = params
            .iter()
            .filter(|p| p.inter_dc)
            .map(|p| p.bdp_bytes)
            .max()
            .unwrap_or(self.bdp_bytes)
            .max(1);
        let n = self.flows.len();
        let hosts = self.fabric.hosts as usize;
        for f in &mut self.flows {
            f.rx = crate::flow::FlowRx::InTransport;
        }
        self.transport = TransportDriver::Uno(Box::new(UnoState {
            cc: t.cc,
            mtu,
            params,
            intra_rtt: clock.cycle_at(self.base_rtt_ps).max(1),
            intra_bdp: self.bdp_bytes.max(1),
            inter_bdp,
            line_rate,
            delay_thresh: clock.cycle_at(4 * ser_mtu_ps),
            init_cwnd: t.init_cwnd,
            rto_ps: (t.rto_us * 1e6).round() as u64,
            authors_rto_ps: sec.authors_rto.then(|| {
                authors_rto_extra_ps(self.buffer_bytes, self.dc_buffer_bytes, fab.host_gbps)
            }),
            codec,
            tx: vec![None; n],
            rx: vec![None; n],
            ready: vec![VecDeque::new(); hosts],
            totals: Totals::default(),
            sec,
        }));
        Ok(())
    }
}

/// The Uno state of a Uno run.
#[inline]
fn uno(t: &mut TransportDriver) -> &mut UnoState {
    match t {
        TransportDriver::Uno(u) => u,
        _ => unreachable!("Uno transport calls run only in Uno runs"),
    }
}

/// Flow `f` starts now: its sender and receiver.
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let now = p.now;
    let flow = &p.flows[f as usize];
    let now_c = flow.clock.cycle_at(now);
    let bytes = flow.spec.bytes;
    let clock = crate::clock::NIC_CLOCK;
    let st = uno(p.transport);
    let fi = f as usize;
    let fp = st.params[fi];
    let ec = st.ec_for(fi);
    let sec = &st.sec;
    let (x, y) = if ec {
        (sec.ec_data, sec.ec_parity)
    } else {
        (1, 0)
    };
    let base_rtt = clock.cycle_at(fp.base_rtt_ps).max(1);
    let bdp = fp.bdp_bytes.clamp(u64::from(st.mtu), (1 << 31) - 1);
    let block_ps = (sec.block_timeout_us * 1e6).round() as u64;
    let mut cfg = UnoCcConfig::uno(
        st.mtu,
        bdp,
        st.intra_bdp,
        base_rtt,
        st.intra_rtt,
        st.line_rate,
    );
    cfg.alpha_q8 = ((bdp as f64 * sec.alpha * 256.0) as u64).min((1 << 40) - 1);
    cfg.beta_q15 = (sec.beta * 32768.0).round() as u32;
    cfg.gentle_q15 = (sec.gentle * 32768.0).round() as u32;
    cfg.k_bytes = ((st.intra_bdp as f64 * sec.k) as u64).clamp(1, (1 << 32) - 1);
    cfg.delay_thresh = match sec.gentle_delay {
        Some(d) => (base_rtt as f64 * d) as u64,
        None => st.delay_thresh,
    };
    cfg.ewma_shift = sec.ewma_shift as u8;
    cfg.trend_ai = sec.trend_ai;
    cfg.gentle_fixed = sec.gentle_fixed;
    cfg.qa_hold_sent = sec.qa_hold == "sent";
    cfg.md_fine = sec.md_precision == "q30";
    cfg.ewma_gain_q16 = sec.ewma_gain.map_or(0, |g| (g * 65536.0).round() as u32);
    cfg.gentle_epoch_end = sec.gentle_test == "epoch_end";
    if sec.epoch_period == "measured_rtt" {
        // x 1 intra-DC, x BDP_intra / BDP inter-DC (Q2.30, at most 1.0).
        cfg.epoch_rtt_q30 = if fp.inter_dc {
            ((u128::from(st.intra_bdp) << 30) / u128::from(bdp.max(1))).min(1 << 30) as u32
        } else {
            1 << 30
        };
    }
    if st.cc == CcKind::Uno {
        // `transport.uno.max_cwnd`: UnoCC's cap only (the baselines keep two BDPs).
        cfg.max_cwnd_bytes =
            ((bdp as f64 * sec.max_cwnd) as u64).clamp(u64::from(st.mtu), (1 << 32) - 1);
    }
    // `transport.uno.baseline_max_cwnd`: Gemini's and MPRDMA's cap, and BBR's (below).
    let baseline_cap = match sec.baseline_max_cwnd {
        Some(m) if st.cc != CcKind::Uno => {
            let cap = ((bdp as f64 * m) as u64).clamp(u64::from(st.mtu), (1 << 32) - 1);
            cfg.max_cwnd_bytes = cap;
            cap
        }
        _ => u64::MAX,
    };
    // `transport.uno.init_cwnd_intra`: the intra-DC flows' own start (BDPs of their BDP).
    let init = match sec.init_cwnd_intra {
        Some(w) if !fp.inter_dc => (bdp as f64 * w) as u64,
        _ => st.init_cwnd.bytes(bdp),
    }
    .clamp(u64::from(st.mtu), cfg.max_cwnd_bytes);
    let rto_ps = match st.authors_rto_ps {
        Some((intra, inter)) => {
            fp.base_rtt_ps + if fp.inter_dc { inter } else { intra } + if ec { block_ps } else { 0 }
        }
        None => fp.base_rtt_ps + st.rto_ps + block_ps,
    };
    let mut cc = tx::flow_cc(st.cc, fp.inter_dc, cfg, init, now_c)
        .expect("UnoCC configuration from checked fields");
    if let tx::FlowCc::Bbr(b, _) = &mut cc {
        // `transport.uno.bbr_startup_rate_hold`: BBR's Startup pacing never falls.
        if sec.bbr_startup_rate_hold {
            let mut bc = *b.config();
            bc.startup_rate_hold = true;
            **b = nic::uno::bbr::Bbr::new(bc).expect("BBR configuration from checked fields");
        }
    }
    if let tx::FlowCc::Gemini(g) = &mut cc {
        // `transport.uno.gemini_*`: the authors' Gemini rules (spcl/Uno_SC25 `GeminiSrc`).
        let mut gc = *g.config();
        gc.timeout_slow_start = sec.gemini_timeout_slow_start;
        gc.timeout_hold = clock.cycle_at(rto_ps);
        if let Some(d) = sec.gemini_delay_us {
            gc.delay_thresh = clock.cycle_at((d * 1e6).round() as u64);
        }
        if let Some(b) = sec.gemini_beta {
            gc.beta_delay_q15 = (b * 32768.0).round() as u32;
        }
        if let Some(h) = sec.gemini_h {
            gc.alpha_q8 = ((st.inter_bdp as f64 * h * 256.0) as u64).min((1 << 40) - 1);
        }
        if let Some(e) = sec.gemini_ewma_shift {
            gc.ewma_shift = e as u8;
        }
        if gc != *g.config() {
            *g = nic::uno::gemini::GeminiCc::new(gc)
                .expect("Gemini configuration from checked fields");
        }
    }
    let params = TxParams {
        bytes,
        mtu: st.mtu,
        x,
        y,
        ec,
        // The block timer is the estimate of the largest queueing delay: a unit is
        // declared lost only after it too (a 1 MiB queue at 100 Gb/s alone is 84 us).
        rto_ps,
        base_rtt,
        pacing: sec.pacing,
        cwnd_cap: baseline_cap,
        timeout_cut: sec.baseline_timeout_cut,
        window_pacing: sec.baseline_pacing,
        bbr_timeout_reset: sec.bbr_timeout_reset,
        resend_unacked: sec.resend_unacked,
    };
    let sender = UnoTx::new(params, cc).expect("message size checked at build");
    st.rx[fi] = Some(Box::new(UnoRx::new(bytes, st.mtu, ec, x, y, block_ps)));
    st.tx[fi] = Some(Box::new(sender));
    cx.progress();
    after_change(cx, f);
}

/// A packet reached host `h`.
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    let hdr = cx.hdr_bytes();
    match pk.kind {
        PktKind::Data => {
            let p = cx.parts();
            p.c.data_delivered += 1;
            let st = uno(p.transport);
            let Some(rx) = st.rx[f as usize].as_deref_mut() else {
                return;
            };
            let o = rx.on_data(p.now, f, pk.psn, st.codec.as_ref());
            let delivered = rx.data_done;
            let ack = Packet {
                flow: f,
                src: h,
                dst: pk.src,
                psn: o.ack_psn,
                cum_ack: pk.cum_ack,
                bytes: hdr,
                ev: pk.ev,
                kind: PktKind::Ack,
                ecn: pk.ecn,
            };
            cx.metrics_data(&pk, o.new, delivered);
            cx.send_ctrl(h, ack);
            arm(cx, f);
        }
        PktKind::Header => {
            // A trimmed DATA: NACK it (the sender retransmits a packet unit; a block
            // unit waits for its block timer).
            let c = cx.counters();
            c.headers_delivered += 1;
            c.ctrl_delivered += 1;
            let nack = Packet {
                flow: f,
                src: h,
                dst: pk.src,
                psn: pk.psn & !DONE,
                cum_ack: 0,
                bytes: hdr,
                ev: pk.ev,
                kind: PktKind::Nack,
                ecn: false,
            };
            cx.send_ctrl(h, nack);
        }
        PktKind::Ack => {
            cx.counters().ctrl_delivered += 1;
            ack(cx, f, pk);
        }
        PktKind::Nack => {
            let p = cx.parts();
            p.c.ctrl_delivered += 1;
            let flow = &mut p.flows[f as usize];
            let now_c = flow.clock.cycle_at(p.now);
            let TransportDriver::Uno(st) = p.transport else {
                return;
            };
            // A trimmed packet of a coded block is left to the block timer.
            if pk.psn & DONE == 0 && st.ec_for(f as usize) {
                return;
            }
            let Some(tx) = st.tx[f as usize].as_deref_mut() else {
                return;
            };
            let rtt_ps = st.params[f as usize].base_rtt_ps;
            if let Some(ev) = tx.on_nack(now_c, p.now, rtt_ps, pk.psn) {
                flow.lb.on_nack_or_timeout(now_c, ev, &mut flow.rng);
            }
            after_change(cx, f);
        }
        PktKind::Sim | PktKind::SimAck | PktKind::DataAck => {}
        PktKind::PimRts | PktKind::PimGrant | PktKind::PimAccept => {}
    }
}

/// ACK `pk` reached flow `f`'s sender.
fn ack(cx: &mut Cx, f: u32, pk: Packet) {
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(now);
    let TransportDriver::Uno(st) = p.transport else {
        return;
    };
    let Some(tx) = st.tx[f as usize].as_deref_mut() else {
        return;
    };
    let rtt_c = crate::metrics::since(pk.cum_ack, now) / crate::clock::NIC_PERIOD_PS;
    let r = tx.on_ack(now_c, pk.psn & !DONE, pk.psn & DONE != 0, pk.ecn, rtt_c);
    flow.lb.on_ack(now_c, pk.ev, pk.ecn);
    if r.flow_done {
        let tx = st.tx[f as usize].take().expect("sender present");
        add_tx(&mut st.totals.tx, &tx.stats);
        flow.stats = nic::transport::SenderStats {
            packets_sent: tx.stats.packets_sent,
            retransmits: tx.stats.retransmits,
            ecn_acks: tx.stats.ecn_acks,
            nacks: tx.stats.nacks,
            timeouts: tx.stats.timeouts,
            ..Default::default()
        };
        flow.in_ready = false;
    }
    if r.newly > 0 {
        cx.progress();
    }
    if r.flow_done {
        cx.flow_done(f);
        return;
    }
    after_change(cx, f);
}

/// After anything changed flow `f`'s sender: into its host's ready ring if it may send
/// now, and its timer armed.
fn after_change(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(p.now);
    let h = flow.spec.src;
    let TransportDriver::Uno(st) = p.transport else {
        return;
    };
    let Some(tx) = st.tx[f as usize].as_deref() else {
        return;
    };
    if tx.can_send(now_c) {
        if !flow.in_ready {
            flow.in_ready = true;
            st.ready[h as usize].push_back(f);
        }
        cx.kick(h);
    }
    arm(cx, f);
}

/// Arm flow `f`'s timer at its earliest deadline: the pacer (when only it holds a
/// packet back), the sender timeout, the receiver's block timers.
fn arm(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    let now_c = flow.clock.cycle_at(now);
    let TransportDriver::Uno(st) = p.transport else {
        return;
    };
    let mut at = NEVER;
    if let Some(tx) = st.tx[f as usize].as_deref() {
        if let Some(c) = tx.pace_wait(now_c) {
            at = at.min(flow.clock.start_of(c));
        }
        if let Some(t) = tx.deadline_ps() {
            at = at.min(t);
        }
    }
    if let Some(t) = st.rx[f as usize].as_deref().and_then(|r| r.deadline_ps()) {
        at = at.min(t);
    }
    let at = at.max(now);
    if at != NEVER && at < flow.timer_at {
        flow.timer_at = at;
        cx.arm(at, Kind::FlowTimer, f);
    }
}

/// Flow `f`'s timer: block timers (NACKs), sender timeouts, the pacer.
pub(crate) fn timer(cx: &mut Cx, f: u32) {
    let hdr = cx.hdr_bytes();
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    if flow.timer_at != now {
        return;
    }
    flow.timer_at = NEVER;
    let now_c = flow.clock.cycle_at(now);
    let (dst, src) = (flow.spec.dst, flow.spec.src);
    let TransportDriver::Uno(st) = p.transport else {
        return;
    };
    let nacks = st.rx[f as usize]
        .as_deref_mut()
        .map(|r| r.on_timer(now))
        .unwrap_or_default();
    let mut timeouts = 0;
    if let Some(tx) = st.tx[f as usize].as_deref_mut() {
        let before = tx.stats.timeouts;
        for ev in tx.on_timer(now_c, now) {
            flow.lb.on_nack_or_timeout(now_c, ev, &mut flow.rng);
        }
        timeouts = tx.stats.timeouts - before;
        // A sender timeout is the failure signal of the other choosers: PLB repaths at once
        // on a timeout (PLB section 3, FlowBender 3.2), REPS enters freezing mode; ECMP and
        // OPS ignore it, UnoLB took it above.
        if timeouts > 0 && !matches!(flow.lb, Lb::Uno(_)) {
            flow.lb.on_failure_detection(now_c);
        }
    }
    p.c.timeouts += timeouts;
    for k in nacks {
        let nack = Packet {
            flow: f,
            src: dst,
            dst: src,
            psn: k,
            cum_ack: 0,
            bytes: hdr,
            ev: 0,
            kind: PktKind::Nack,
            ecn: false,
        };
        cx.send_ctrl(dst, nack);
    }
    after_change(cx, f);
}

/// The next DATA packet host `h` sends: round robin over its ready flows.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    loop {
        let p = cx.parts();
        let now = p.now;
        let TransportDriver::Uno(st) = p.transport else {
            return None;
        };
        let f = st.ready[h as usize].pop_front()?;
        let flow = &mut p.flows[f as usize];
        let now_c = flow.clock.cycle_at(now);
        let Some(tx) = st.tx[f as usize].as_deref_mut() else {
            flow.in_ready = false;
            continue;
        };
        if !tx.can_send(now_c) {
            flow.in_ready = false;
            arm(cx, f);
            continue;
        }
        let (lb, rng) = (&mut flow.lb, &mut flow.rng);
        let Some((wpn, payload, ev)) = tx.send(now_c, now, || lb.on_send(now_c, rng)) else {
            flow.in_ready = false;
            continue;
        };
        if tx.can_send(now_c) {
            st.ready[h as usize].push_back(f);
        } else {
            flow.in_ready = false;
        }
        let pk = Packet {
            flow: f,
            src: h,
            dst: flow.spec.dst,
            psn: wpn,
            cum_ack: 0,
            bytes: payload + p.hdr_bytes,
            ev,
            kind: PktKind::Data,
            ecn: false,
        };
        arm(cx, f);
        cx.counters().data_sent += 1;
        return Some(pk);
    }
}

impl Sim {
    /// The Uno counters in `r`'s summary (`extra`).
    pub(crate) fn uno_results(&self, r: &mut RunResult) {
        let TransportDriver::Uno(st) = &self.transport else {
            return;
        };
        let mut t = st.totals;
        for tx in st.tx.iter().flatten() {
            add_tx(&mut t.tx, &tx.stats);
        }
        for rx in st.rx.iter().flatten() {
            let s = &rx.stats;
            t.rx.decoded += s.decoded;
            t.rx.recovered += s.recovered;
            t.rx.nacks += s.nacks;
            t.rx.decode_failures += s.decode_failures;
        }
        let reroutes: u64 = self
            .flows
            .iter()
            .map(|f| match &f.lb {
                Lb::Uno(s) => u64::from(s.reroutes()),
                _ => 0,
            })
            .sum();
        let x = &mut r.summary.extra;
        x.insert("sim_drops".into(), 0.0);
        x.insert("sim_loss_rate".into(), 0.0);
        for (k, v) in [
            ("uno_blocks_decoded", t.rx.decoded),
            ("uno_blocks_recovered", t.rx.recovered),
            ("uno_blocks_nacked", t.rx.nacks),
            ("uno_decode_failures", t.rx.decode_failures),
            ("uno_units_retransmitted", t.tx.units_retransmitted),
            ("uno_parity_sent", t.tx.parity_sent),
            ("uno_sender_timeouts", t.tx.timeouts),
            ("uno_qa_events", t.tx.qa),
            ("uno_md_events", t.tx.md),
            ("uno_gentle_md_events", t.tx.gentle),
            ("uno_reroutes", reroutes),
        ] {
            x.insert(k.into(), v as f64);
        }
    }
}

fn add_tx(a: &mut TxStats, b: &TxStats) {
    a.packets_sent += b.packets_sent;
    a.retransmits += b.retransmits;
    a.parity_sent += b.parity_sent;
    a.ecn_acks += b.ecn_acks;
    a.nacks += b.nacks;
    a.timeouts += b.timeouts;
    a.units_retransmitted += b.units_retransmitted;
    a.qa += b.qa;
    a.md += b.md;
    a.gentle += b.gentle;
}

fn ser_q32(gbps: f64) -> u64 {
    (8000.0 / gbps * 4_294_967_296.0).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The authors' Fig. 10 buffers (1 MB everywhere, 100 Gb/s): 80 us per drain, so an
    /// intra-DC flow adds 400 us to its base RTT and an inter-DC flow 640 us; Fig. 12's
    /// (175 KB inside, 2.24 MB at the border): 70 us and 70 + 537.6 us.
    #[test]
    fn authors_rto_adds_the_queue_drain_times() {
        assert_eq!(
            authors_rto_extra_ps(1_000_000, 1_000_000, 100.0),
            (400_000_000, 640_000_000)
        );
        assert_eq!(
            authors_rto_extra_ps(175_000, 2_240_000, 100.0),
            (70_000_000, 70_000_000 + 537_600_000)
        );
        assert!(!UnoSection::default().authors_rto, "off by default");
    }

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
