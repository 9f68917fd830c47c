//! BBR (v1) congestion control: the inter-DC half of Uno's MPRDMA+BBR baseline (Uno 5.1;
//! Cardwell et al., "BBR: Congestion-Based Congestion Control", CACM 2017, and the v1 state
//! machine of its public description).
//!
//! ```text
//!   Startup (pacing gain 2.89, cwnd gain 2.89) -- bottleneck bw grew < 25 % for 3 rounds
//!     -> Drain (pacing gain 1/2.89) -- inflight <= BDP
//!     -> ProbeBW (pacing gain cycle 1.25, 0.75, 1 x 6, one min RTT each; cwnd gain 2)
//!   any mode -- min RTT not refreshed for min_rtt_window -> ProbeRTT: cwnd = 4 MTU for
//!     probe_rtt_time and one round, then back (ProbeBW if the pipe was filled, else Startup)
//!
//!   on_ack(now, acked, rtt, delivered_at_send, rate sample, inflight):
//!     delivered += acked; a round ends when the ACKed packet was sent after the last
//!     round's end (delivered_at_send >= next_round_delivered)
//!     btl_bw = max of the per-round maxima of the rate samples over the last 10 rounds
//!     min_rtt = min RTT over min_rtt_window; BDP = btl_bw x min_rtt
//!     cwnd = min(cwnd + acked, cwnd_gain x BDP) once the pipe is filled, else cwnd + acked
//!   pacing_rate() = pacing_gain x btl_bw
//!   with startup_rate_hold: pacing_rate = pacing_gain x btl_bw only once the pipe is filled
//!     or when that is above the current rate (from init_rate), so it never falls in Startup
//! ```
//!
//! Units: bytes, cycles; rates in bytes per cycle as Q16.16 (`u32`: up to 65535 B/cycle);
//! gains in Q8 (2.89 = 739/256). The driver stamps every packet with [`Bbr::delivered`] at
//! send time and computes the delivery-rate sample (bytes delivered between the send and
//! the ACK over the interval) as the BBR draft describes; the block keeps only the model.
//! The first ProbeBW phase is the cruise phase 2 (deterministic; v1 draws it at random).

use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

/// Startup pacing / cwnd gain 2/ln 2 = 2.885, Q8.
pub const HIGH_GAIN_Q8: u32 = 739;
/// Drain pacing gain ln 2 / 2 = 0.347, Q8.
pub const DRAIN_GAIN_Q8: u32 = 89;
/// ProbeBW pacing gain cycle, Q8.
pub const PACING_GAIN_CYCLE_Q8: [u32; 8] = [320, 192, 256, 256, 256, 256, 256, 256];
/// ProbeBW cwnd gain 2, Q8.
pub const CWND_GAIN_Q8: u32 = 512;
/// Rounds of the bottleneck-bandwidth max filter.
pub const BW_WINDOW_ROUNDS: usize = 10;

/// BBR's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BbrMode {
    /// Exponential search for the bottleneck bandwidth.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Gain cycling at the estimated bandwidth.
    ProbeBw,
    /// Window of 4 packets to re-measure the minimum RTT.
    ProbeRtt,
}

/// BBR parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BbrConfig {
    /// MTU, bytes.
    pub mtu_bytes: u32,
    /// Initial window, bytes.
    pub init_cwnd_bytes: u32,
    /// Pacing rate before the first bandwidth sample, bytes per cycle Q16.16.
    pub init_rate_q16: u32,
    /// Min-RTT filter window (BBR: 10 s), cycles.
    pub min_rtt_window: Cycles,
    /// Time in ProbeRTT (BBR: 200 ms), cycles.
    pub probe_rtt_time: Cycles,
    /// Hold the pacing rate in Startup: it only rises until the pipe is filled (the BBR
    /// draft's `BBRSetPacingRateWithGain`, "if (BBR.filled_pipe || rate > pacing_rate)";
    /// Linux `bbr_set_pacing_rate`; the Uno authors' `BBRSrc::UpdatePacingRate`, "if
    /// (m_isPipeFilled || bw > current_bw)", spcl/Uno_SC25 `sim/bbr.cpp`). Off: the rate is
    /// pacing_gain x btl_bw from the first sample on, however small that sample is.
    pub startup_rate_hold: bool,
}

impl BbrConfig {
    /// Check; the error names the field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.mtu_bytes == 0 {
            return Err(ConfigError::new("mtu_bytes", "must be above zero"));
        }
        if self.init_cwnd_bytes < self.mtu_bytes {
            return Err(ConfigError::new(
                "init_cwnd_bytes",
                "must be at least one MTU",
            ));
        }
        if self.init_rate_q16 == 0 {
            return Err(ConfigError::new("init_rate_q16", "must be above zero"));
        }
        if self.min_rtt_window == 0 || self.probe_rtt_time == 0 {
            return Err(ConfigError::new(
                "min_rtt_window",
                "windows must be above zero",
            ));
        }
        Ok(())
    }
}

/// BBR v1 for one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bbr {
    cfg: BbrConfig,
    mode: BbrMode,
    bw_rounds: [u32; BW_WINDOW_ROUNDS],
    btl_bw_q16: u32,
    round_count: u32,
    next_round_delivered: u64,
    delivered: u64,
    min_rtt: Cycles,
    min_rtt_stamp: Cycles,
    full_bw_q16: u32,
    full_bw_count: u8,
    filled_pipe: bool,
    cycle_index: u8,
    cycle_stamp: Cycles,
    probe_rtt_done: Cycles,
    probe_rtt_round_done: bool,
    prior_cwnd: u32,
    cwnd: u32,
    /// The held pacing rate, bytes per cycle Q16.16 (`startup_rate_hold` only).
    pacing_q16: u32,
    now: Cycles,
}

impl Bbr {
    /// A flow in Startup at cycle 0.
    pub fn new(cfg: BbrConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(Bbr {
            cfg,
            mode: BbrMode::Startup,
            bw_rounds: [0; BW_WINDOW_ROUNDS],
            btl_bw_q16: 0,
            round_count: 0,
            next_round_delivered: 0,
            delivered: 0,
            min_rtt: Cycles::MAX,
            min_rtt_stamp: 0,
            full_bw_q16: 0,
            full_bw_count: 0,
            filled_pipe: false,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_rtt_done: 0,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            cwnd: cfg.init_cwnd_bytes,
            pacing_q16: cfg.init_rate_q16,
            now: 0,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> &BbrConfig {
        &self.cfg
    }
    /// The mode.
    pub const fn mode(&self) -> BbrMode {
        self.mode
    }
    /// Window, bytes.
    pub const fn cwnd(&self) -> u32 {
        self.cwnd
    }
    /// A sender timeout: the window restarts at one MTU and grows back by the ACKed bytes
    /// (toward `cwnd_gain x BDP` once the pipe is filled; [`Bbr::on_ack`]). Not BBR v1's
    /// rule (BBR ignores loss): the Uno authors' `BBRSrc::apply_timeout_penalty`
    /// (spcl/Uno_SC25 `sim/bbr.cpp`, without trimming: `_cwnd = _mss` on every timed-out
    /// packet). The model (bandwidth, min RTT, mode) is kept.
    pub fn on_timeout(&mut self) {
        self.cwnd = self.cfg.mtu_bytes;
    }
    /// Bottleneck bandwidth estimate, bytes per cycle Q16.16.
    pub const fn btl_bw_q16(&self) -> u32 {
        self.btl_bw_q16
    }
    /// Minimum RTT estimate, cycles (`u64::MAX` before the first sample).
    pub const fn min_rtt(&self) -> Cycles {
        self.min_rtt
    }
    /// Bytes delivered so far: the driver stamps each packet with it at send time.
    pub const fn delivered(&self) -> u64 {
        self.delivered
    }
    /// Whether Startup found the pipe full.
    pub const fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }

    fn pacing_gain_q8(&self) -> u32 {
        match self.mode {
            BbrMode::Startup => HIGH_GAIN_Q8,
            BbrMode::Drain => DRAIN_GAIN_Q8,
            BbrMode::ProbeBw => PACING_GAIN_CYCLE_Q8[self.cycle_index as usize],
            BbrMode::ProbeRtt => 256,
        }
    }

    /// Pacing rate, bytes per cycle Q16.16: gain x bottleneck bandwidth (the initial rate
    /// before any sample); with `startup_rate_hold`, the rate held since the last ACK.
    pub fn pacing_rate_q16(&self) -> u32 {
        if self.cfg.startup_rate_hold {
            return self.pacing_q16;
        }
        self.gain_rate_q16()
    }

    /// gain x bottleneck bandwidth (the initial rate before any sample).
    fn gain_rate_q16(&self) -> u32 {
        if self.btl_bw_q16 == 0 {
            return self.cfg.init_rate_q16;
        }
        ((self.btl_bw_q16 as u64 * self.pacing_gain_q8() as u64) >> 8).min(u32::MAX as u64) as u32
    }

    /// BDP estimate in bytes: btl_bw x min_rtt (0 before samples).
    pub fn bdp(&self) -> u64 {
        if self.min_rtt == Cycles::MAX {
            return 0;
        }
        ((self.btl_bw_q16 as u128 * self.min_rtt as u128) >> 16).min(u32::MAX as u128) as u64
    }

    fn target_cwnd(&self, gain_q8: u32) -> u32 {
        let t = (self.bdp() * gain_q8 as u64) >> 8;
        t.clamp(4 * self.cfg.mtu_bytes as u64, u32::MAX as u64) as u32
    }

    /// An ACK at `now` for `acked` bytes of a packet sent when [`Bbr::delivered`] was
    /// `delivered_at_send`, with RTT sample `rtt`, delivery-rate sample `rate_q16` (bytes
    /// per cycle Q16.16) and `inflight` bytes still outstanding.
    pub fn on_ack(
        &mut self,
        now: Cycles,
        acked: u32,
        rtt: Cycles,
        delivered_at_send: u64,
        rate_q16: u32,
        inflight: u64,
    ) {
        self.now = self.now.max(now);
        let now = self.now;
        self.delivered += acked as u64;
        let round_start = delivered_at_send >= self.next_round_delivered;
        if round_start {
            self.next_round_delivered = self.delivered;
            self.round_count = self.round_count.wrapping_add(1);
            self.bw_rounds[self.round_count as usize % BW_WINDOW_ROUNDS] = 0;
        }
        let slot = &mut self.bw_rounds[self.round_count as usize % BW_WINDOW_ROUNDS];
        *slot = (*slot).max(rate_q16);
        self.btl_bw_q16 = self.bw_rounds.iter().copied().max().unwrap_or(0);
        // Min RTT filter; an expired estimate triggers ProbeRTT.
        let expired = now > self.min_rtt_stamp.saturating_add(self.cfg.min_rtt_window);
        if rtt < self.min_rtt || expired {
            self.min_rtt = rtt;
            self.min_rtt_stamp = now;
        }
        // Startup: full pipe when the bandwidth stops growing by 25 % for 3 rounds.
        if round_start && !self.filled_pipe {
            if self.btl_bw_q16 as u64 * 4 >= self.full_bw_q16 as u64 * 5 {
                self.full_bw_q16 = self.btl_bw_q16;
                self.full_bw_count = 0;
            } else {
                self.full_bw_count += 1;
                if self.full_bw_count >= 3 {
                    self.filled_pipe = true;
                }
            }
        }
        match self.mode {
            BbrMode::Startup if self.filled_pipe => self.mode = BbrMode::Drain,
            BbrMode::Drain if inflight <= self.bdp() => self.enter_probe_bw(now),
            BbrMode::ProbeBw => {
                let gain = PACING_GAIN_CYCLE_Q8[self.cycle_index as usize];
                let elapsed = now.saturating_sub(self.cycle_stamp) > self.min_rtt;
                let bdp = self.bdp();
                let next = if gain > 256 {
                    elapsed && inflight * 256 >= bdp * gain as u64
                } else if gain < 256 {
                    elapsed || inflight <= bdp
                } else {
                    elapsed
                };
                if next {
                    self.cycle_index = (self.cycle_index + 1) % 8;
                    self.cycle_stamp = now;
                }
            }
            _ => {}
        }
        if expired && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.prior_cwnd = self.cwnd;
            self.probe_rtt_done = 0;
            self.probe_rtt_round_done = false;
        }
        if self.mode == BbrMode::ProbeRtt {
            let four = 4 * self.cfg.mtu_bytes;
            self.cwnd = four;
            if self.probe_rtt_done == 0 && inflight <= four as u64 {
                self.probe_rtt_done = now + self.cfg.probe_rtt_time;
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            } else if self.probe_rtt_done != 0 {
                if round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > self.probe_rtt_done {
                    self.min_rtt_stamp = now;
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(now);
                    } else {
                        self.mode = BbrMode::Startup;
                    }
                }
            }
        } else {
            let gain = match self.mode {
                BbrMode::ProbeBw => CWND_GAIN_Q8,
                _ => HIGH_GAIN_Q8,
            };
            let grown = self.cwnd.saturating_add(acked);
            self.cwnd = if self.filled_pipe {
                grown.min(self.target_cwnd(gain))
            } else {
                grown
            }
            .max(4 * self.cfg.mtu_bytes);
        }
        // BBRSetPacingRateWithGain: in Startup the rate only rises.
        if self.cfg.startup_rate_hold {
            let rate = self.gain_rate_q16();
            if self.filled_pipe || rate > self.pacing_q16 {
                self.pacing_q16 = rate;
            }
        }
    }

    fn enter_probe_bw(&mut self, now: Cycles) {
        self.mode = BbrMode::ProbeBw;
        self.cycle_index = 2;
        self.cycle_stamp = now;
    }

    /// Whether one more MTU fits the window.
    pub fn can_send(&self, inflight: u64) -> bool {
        inflight + self.cfg.mtu_bytes as u64 <= self.cwnd as u64
    }
}

/// Time only moves `now`; the filters compare stamps on ACKs.
impl Clocked for Bbr {
    fn tick(&mut self) {
        self.now += 1;
    }
    fn advance(&mut self, cycles: Cycles) {
        self.now += cycles;
    }
}

impl StateBudget for Bbr {
    const NAME: &'static str = "BBRv1 CC (Uno baseline, inter-DC)";
    /// mode (2) + 10 per-round bw maxima (32 each) + btl_bw (32) + round count (32) + next
    /// round / delivered (2 x 64) + min RTT and its stamp (2 x 48) + full_bw (32) + its
    /// count (2) + filled (1) + cycle index (3) + cycle stamp (48) + ProbeRTT done stamp
    /// (48) + round done (1) + prior cwnd (32) + cwnd (32) + held pacing rate (32).
    const BITS: u32 =
        2 + 10 * 32 + 32 + 32 + 128 + 96 + 32 + 2 + 1 + 3 + 48 + 48 + 1 + 32 + 32 + 32;
    const UNIT: &'static str = "per flow";
}
// Registers: bw maxima, btl_bw / round count / full_bw / prior cwnd / cwnd / pacing (u32), next
// round / delivered (u64), four 48-bit stamps (min RTT, its stamp, cycle, ProbeRTT done),
// mode (2), full_bw count (2), filled (1), cycle index (3), round done (1).
const _: () = assert!(
    Bbr::BITS
        == BW_WINDOW_ROUNDS as u32 * u32::BITS
            + 6 * u32::BITS
            + 2 * u64::BITS
            + 4 * 48
            + 2
            + 2
            + 1
            + 3
            + 1
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cfg() -> BbrConfig {
        BbrConfig {
            mtu_bytes: 4096,
            init_cwnd_bytes: 10 * 4096,
            init_rate_q16: 1 << 16,
            min_rtt_window: 10_000_000,
            probe_rtt_time: 200_000,
            startup_rate_hold: false,
        }
    }

    /// A fluid bottleneck of `bw` bytes/cycle (Q16.16) and base RTT `rtt`: one ACK per MTU,
    /// each carrying the bottleneck rate as its sample.
    fn drive(b: &mut Bbr, acks: u64, bw_q16: u32, rtt: u64, t0: u64) -> u64 {
        let gap = ((4096u64 << 16) / bw_q16 as u64).max(1);
        let mut t = t0;
        for _ in 0..acks {
            t += gap;
            // The pipe holds at most one BDP (175 000 B) plus a little queue, which Drain's
            // slow pacing empties.
            let inflight = match b.mode() {
                BbrMode::Drain => 170_000,
                _ => (b.cwnd() as u64).min(200_000),
            };
            let d = b.delivered().saturating_sub(inflight);
            b.on_ack(t, 4096, rtt, d, bw_q16, inflight);
        }
        t
    }

    #[test]
    fn startup_drain_probe_bw_probe_rtt() {
        let mut b = Bbr::new(cfg()).unwrap();
        assert_eq!(b.mode(), BbrMode::Startup);
        assert_eq!(b.pacing_rate_q16(), 1 << 16);
        // 12.5 B/cycle bottleneck, RTT 14 000 cycles: BDP 175 000 B.
        let bw = 25 << 15;
        let t = drive(&mut b, 2000, bw, 14_000, 0);
        assert!(b.filled_pipe());
        assert_eq!(b.btl_bw_q16(), bw);
        assert_eq!(b.min_rtt(), 14_000);
        assert_eq!(b.bdp(), 175_000);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert!(b.cwnd() <= 2 * 175_000 && b.cwnd() >= 4 * 4096);
        let r = b.pacing_rate_q16();
        assert!([bw * 5 / 4, bw * 3 / 4, bw].contains(&r), "{r}");
        // No lower RTT for 10 M cycles: ProbeRTT at 4 packets, then back to ProbeBW.
        let gap = (4096u64 << 16) / bw as u64;
        let acks = 10_000_000 / gap + 10;
        let mut saw_probe_rtt = false;
        let mut tt = t;
        for _ in 0..acks + 200 {
            tt = drive(&mut b, 1, bw, 14_000, tt);
            if b.mode() == BbrMode::ProbeRtt {
                saw_probe_rtt = true;
                assert_eq!(b.cwnd(), 4 * 4096);
            }
        }
        assert!(saw_probe_rtt);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
    }

    /// `startup_rate_hold`: a tiny first sample (one 101 B packet ACKed after 193 us, the
    /// tail flow of docs/uno.md, "Session 11") does not slow Startup's pacer; off, it paces
    /// at 2.89 x that sample. Once the pipe is filled the rate follows the estimate again.
    #[test]
    fn startup_rate_hold_keeps_startup_pacing() {
        let tiny = 34; // 101 B / 193 465 cycles, Q16.16
        for hold in [false, true] {
            let mut b = Bbr::new(BbrConfig {
                startup_rate_hold: hold,
                ..cfg()
            })
            .unwrap();
            b.on_ack(193_465, 101, 193_465, 0, tiny, 24_576);
            assert_eq!(b.mode(), BbrMode::Startup);
            let r = b.pacing_rate_q16();
            if hold {
                assert_eq!(r, 1 << 16, "held at the initial rate");
            } else {
                assert_eq!(r, (tiny * HIGH_GAIN_Q8) >> 8);
            }
        }
        // A real bottleneck: the held rate rises to 2.89 x btl_bw in Startup, then follows
        // the ProbeBW gains.
        let mut b = Bbr::new(BbrConfig {
            startup_rate_hold: true,
            init_rate_q16: 1,
            ..cfg()
        })
        .unwrap();
        let bw = 25 << 15;
        drive(&mut b, 2000, bw, 14_000, 0);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        let r = b.pacing_rate_q16();
        assert!([bw * 5 / 4, bw * 3 / 4, bw].contains(&r), "{r}");
    }

    #[test]
    fn errors_name_fields() {
        let f = |c: BbrConfig| Bbr::new(c).unwrap_err().field;
        assert_eq!(
            f(BbrConfig {
                mtu_bytes: 0,
                ..cfg()
            }),
            "mtu_bytes"
        );
        assert_eq!(
            f(BbrConfig {
                init_cwnd_bytes: 1,
                ..cfg()
            }),
            "init_cwnd_bytes"
        );
        assert_eq!(
            f(BbrConfig {
                init_rate_q16: 0,
                ..cfg()
            }),
            "init_rate_q16"
        );
        assert_eq!(
            f(BbrConfig {
                probe_rtt_time: 0,
                ..cfg()
            }),
            "min_rtt_window"
        );
    }

    proptest! {
        #[test]
        fn advance_equals_ticks(acks in proptest::collection::vec((1u64..5000, 1u32..9000, 1000u64..50_000, 1u32..(1 << 22), 0u64..400_000), 0..80), n in 0u64..5000) {
            let mut a = Bbr::new(cfg()).unwrap();
            let mut t = 0;
            for (gap, bytes, rtt, rate, infl) in acks {
                t += gap;
                let d = a.delivered().saturating_sub(infl);
                a.on_ack(t, bytes, rtt, d, rate, infl);
                prop_assert!(a.cwnd() >= 4 * 4096 || a.mode() == BbrMode::Startup && a.cwnd() >= 10 * 4096);
            }
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
