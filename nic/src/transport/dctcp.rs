//! DCTCP-style window congestion control that tolerates out-of-order delivery: the
//! baseline transport of the REPS paper's simulations (section 4.1, "NIC congestion
//! control": the DCTCP variant of MPRDMA, with per-ACK window updates, out-of-order
//! acceptance, and a one-MTU window decrease per dropped packet), with the parameters of
//! section 4.1 (RTO 70 us; the harness sets `init_cwnd` to one BDP).
//!
//! ```text
//!                 +-------------------------------------------------------------+
//!  next_packet -->| retransmit lowest lost PSN, else new PSN snd_nxt if         |--> TxPacket
//!                 |   snd_nxt < snd_una + 64*WORDS  (else: window stall)        |   {psn, payload}
//!                 | only if inflight + payload <= cwnd (or nothing in flight)   |
//!                 |                                                             |
//!  on_ack ------->| mark psn and every PSN < cum_ack acked; slide snd_una       |
//!   {psn, cum,    | no CE: cwnd += mtu * acked / cwnd          (per-ACK AI)     |
//!    ecn}         | CE:    cwnd -= cwnd * alpha / 2, once per window            |
//!                 | window end (una >= epoch_end): alpha += g * (F - alpha)     |
//!                 |                                                             |
//!  on_nack ------>| psn lost: queue for retransmission, cwnd -= mtu             |
//!  tick/advance ->| RTO: every in-flight PSN sent >= rto ago is lost,           |
//!                 |      cwnd -= mtu per lost PSN; timer re-armed on the oldest |
//!                 +-------------------------------------------------------------+
//!   PSN ring (64*WORDS entries, index psn mod 64*WORDS):
//!     acked bit | lost bit | retx bit | sent_at (32-bit cycle stamp)
//! ```
//!
//! * The window cut is DCTCP's (Alizadeh et al., 2010): `cwnd <- cwnd * (1 - alpha/2)`,
//!   with `alpha <- (1-g) alpha + g F`, `F` the fraction of ECN-marked bytes ACKed in the
//!   last window and `g = 2^-g_shift` (1/16). The cut is taken on the first CE-echoing ACK
//!   of a window (so the sender reacts within one RTT) and at most once per window.
//!   `alpha` starts at `alpha_init` (0 in htsim's DCTCP, which the REPS evaluation uses: a
//!   new flow is not halved by its first mark).
//! * Additive increase is applied per ACK: `mtu * newly_acked_bytes / cwnd`, i.e. one MTU
//!   per window of unmarked ACKs.
//! * Loss: a NACK (trimmed packet) or an RTO expiry marks the PSN lost; each lost PSN costs
//!   one MTU of window (section 4.1). Retransmissions go before new data, lowest PSN first.
//! * The RTO covers every packet in flight, not only the oldest: the timer is armed at the
//!   oldest in-flight stamp plus `rto`; when it fires, every packet at least `rto` old is
//!   declared lost and the timer re-arms on the oldest survivor. (A sender whose timer only
//!   runs when nothing is in flight stalls forever when one packet of a full window is lost.)
//! * REPS Appendix A needs the recent maximum RTT at a timeout (`rtt_max` of the current and
//!   previous window); [`DctcpSender::take_timeout`] reports it with the number of packets
//!   declared lost so the caller can judge "failure" versus "congestion".
//!
//! Units: bytes are payload bytes; `now`, `rto`, `sent_at`, RTTs are NIC cycles; `alpha`
//! is Q0.16 (65536 = 1.0).

use super::{slot, Ack, ConfigError, Psn};
use rtl_models::{Clocked, Cycles, StateBudget};

/// One in Q0.16 (`alpha`).
pub const ALPHA_ONE: u32 = 1 << 16;

/// Configuration of a sender (per connection class; not per-connection state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DctcpConfig {
    /// Payload bytes per DATA packet (MTU).
    pub mtu: u32,
    /// Initial congestion window, bytes (REPS setup: one BDP).
    pub init_cwnd: u32,
    /// Smallest congestion window, bytes (at least one MTU).
    pub min_cwnd: u32,
    /// Largest congestion window, bytes (further limited by the PSN window).
    pub max_cwnd: u32,
    /// Retransmission timeout, cycles (REPS section 4.1: 70 us).
    pub rto: u32,
    /// DCTCP gain `g = 2^-g_shift` (DCTCP: g = 1/16, so 4).
    pub g_shift: u8,
    /// Initial alpha, Q0.16 (htsim's DCTCP, the REPS paper's simulator: 0; Linux: 1.0).
    pub alpha_init: u32,
    /// TCP slow start (RFC 5681 3.1, with DCTCP's infinite initial ssthresh): from
    /// `init_cwnd` the window grows by the bytes each ACK newly acknowledges (doubling per
    /// RTT) until the first ECN cut or the first loss, then by the additive rule. `false`
    /// (REPS section 4.1, whose senders start at one BDP) = additive increase from the start.
    pub slow_start: bool,
}

impl DctcpConfig {
    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.mtu == 0 {
            return Err(ConfigError::new("mtu", "must be at least 1 byte"));
        }
        if self.min_cwnd < self.mtu {
            return Err(ConfigError::new("min_cwnd", "must be at least one MTU"));
        }
        if self.max_cwnd < self.min_cwnd {
            return Err(ConfigError::new("max_cwnd", "must be at least min_cwnd"));
        }
        if self.init_cwnd < self.min_cwnd || self.init_cwnd > self.max_cwnd {
            return Err(ConfigError::new(
                "init_cwnd",
                "must lie between min_cwnd and max_cwnd",
            ));
        }
        if self.rto == 0 || self.rto >= 1 << 31 {
            return Err(ConfigError::new(
                "rto",
                "must be between 1 and 2^31 - 1 cycles",
            ));
        }
        if self.g_shift == 0 || self.g_shift > 15 {
            return Err(ConfigError::new("g_shift", "must be between 1 and 15"));
        }
        if self.alpha_init > ALPHA_ONE {
            return Err(ConfigError::new(
                "alpha_init",
                "must be at most 1.0 (65536)",
            ));
        }
        Ok(())
    }
}

/// The per-connection scalar registers (the hardware state besides the PSN ring).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct SenderRegs {
    /// Packets in the message.
    pub total: u32,
    /// Payload bytes of the last packet.
    pub last_bytes: u32,
    /// Lowest PSN not yet acknowledged.
    pub snd_una: Psn,
    /// Next new PSN to send.
    pub snd_nxt: Psn,
    /// Congestion window, bytes.
    pub cwnd: u32,
    /// Payload bytes in flight (sent, not ACKed, not declared lost).
    pub inflight: u32,
    /// DCTCP alpha, Q0.16.
    pub alpha: u32,
    /// Bytes ACKed in the current window (alpha epoch).
    pub wnd_acked: u32,
    /// The current window (DCTCP's observation window, one window of data) ends when
    /// `snd_una` reaches this PSN: the `snd_nxt` at the epoch's start, as in Linux's
    /// `dctcp_update_alpha`. Measured in sequence space, not bytes against the current
    /// cwnd, so a cut cannot end its own window and allow a second cut in the same RTT.
    pub epoch_end: Psn,
    /// ECN-marked bytes ACKed in the current window.
    pub wnd_marked: u32,
    /// PSNs declared lost and not yet retransmitted.
    pub n_lost: u32,
    /// No lost PSN lies below this one.
    pub lost_cursor: Psn,
    /// Largest RTT sample in the current window, cycles.
    pub rtt_max: u32,
    /// Largest RTT sample in the previous window, cycles.
    pub rtt_max_prev: u32,
    /// Bit 0: window cut allowed in this window; bit 1: RTO timer armed; bit 2: in slow
    /// start.
    pub flags: u32,
    /// RTO deadline, cycles (valid when armed).
    pub timer_at: u64,
}

const CUT_ARMED: u32 = 1;
const TIMER_ARMED: u32 = 2;
/// Bit 2 of `flags`: in slow start (`DctcpConfig::slow_start`, until the first cut or loss).
const SLOW_START: u32 = 4;

/// A packet the sender wants on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxPacket {
    /// Its PSN.
    pub psn: Psn,
    /// Payload bytes.
    pub payload: u32,
    /// A retransmission.
    pub retx: bool,
}

/// What an RTO expiry did (for REPS Appendix A failure judgement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeoutReport {
    /// Cycle of the expiry.
    pub at: Cycles,
    /// Packets declared lost.
    pub lost: u32,
    /// Largest RTT sampled in the current and previous window, cycles.
    pub recent_rtt_max: u32,
}

/// Sender counters (instrumentation, not hardware state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SenderStats {
    /// DATA packets sent (first transmissions and retransmissions).
    pub packets_sent: u64,
    /// Retransmissions.
    pub retransmits: u64,
    /// ACKs echoing a CE mark.
    pub ecn_acks: u64,
    /// NACKs received.
    pub nacks: u64,
    /// RTO expiries that declared at least one packet lost.
    pub timeouts: u64,
    /// Packets declared lost (NACK or RTO).
    pub losses: u64,
    /// `next_packet` calls refused because the PSN window was full.
    pub window_stalls: u64,
}

/// The sending end of one message, with a window of `64 * WORDS` PSNs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DctcpSender<const WORDS: usize> {
    cfg: DctcpConfig,
    now: Cycles,
    regs: SenderRegs,
    acked: [u64; WORDS],
    lost: [u64; WORDS],
    retx: [u64; WORDS],
    sent_at: [[u32; 64]; WORDS],
    timeout: Option<TimeoutReport>,
    /// Counters.
    pub stats: SenderStats,
}

impl<const WORDS: usize> DctcpSender<WORDS> {
    const POW2: () = assert!(WORDS.is_power_of_two(), "WORDS must be a power of two");

    /// Window size in PSNs.
    pub const WINDOW: u32 = 64 * WORDS as u32;

    /// A sender for a message of `message_bytes` (at least 1), starting at cycle `now`.
    pub fn new(cfg: DctcpConfig, message_bytes: u64, now: Cycles) -> Result<Self, ConfigError> {
        let (cfg, regs) = Self::initial(cfg, message_bytes)?;
        Ok(DctcpSender {
            cfg,
            now,
            regs,
            acked: [0; WORDS],
            lost: [0; WORDS],
            retx: [0; WORDS],
            sent_at: [[0; 64]; WORDS],
            timeout: None,
            stats: SenderStats::default(),
        })
    }

    /// Make this sender the one [`Self::new`] would build for these arguments, in place
    /// (a harness reusing a closed flow's sender allocation writes its registers, its
    /// `24 * WORDS` bytes of PSN bitmaps and the send stamps the last message wrote,
    /// instead of building the ~`280 * WORDS`-byte sender elsewhere and copying it in). On
    /// error the sender is left unchanged.
    pub fn reset(
        &mut self,
        cfg: DctcpConfig,
        message_bytes: u64,
        now: Cycles,
    ) -> Result<(), ConfigError> {
        let (cfg, regs) = Self::initial(cfg, message_bytes)?;
        // Only the stamps of PSNs this sender sent can be non-zero: a stamp is written when
        // its PSN goes out (`next_packet`), always below `snd_nxt`, which only grows. So
        // clearing the ring's first `snd_nxt` slots (all of them once it wrapped) leaves it
        // as `new` does, without writing the whole `256 * WORDS` bytes for a short message.
        let used = (self.regs.snd_nxt as usize).min(64 * WORDS);
        self.sent_at.as_flattened_mut()[..used].fill(0);
        self.cfg = cfg;
        self.now = now;
        self.regs = regs;
        self.acked = [0; WORDS];
        self.lost = [0; WORDS];
        self.retx = [0; WORDS];
        self.timeout = None;
        self.stats = SenderStats::default();
        Ok(())
    }

    /// The checked configuration (max/init cwnd clamped to the PSN window) and the initial
    /// registers of a sender for `message_bytes`.
    fn initial(
        cfg: DctcpConfig,
        message_bytes: u64,
    ) -> Result<(DctcpConfig, SenderRegs), ConfigError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::POW2;
        cfg.check()?;
        if message_bytes == 0 {
            return Err(ConfigError::new("message_bytes", "must be at least 1 byte"));
        }
        let total = message_bytes.div_ceil(cfg.mtu as u64);
        if total > u32::MAX as u64 / 2 {
            return Err(ConfigError::new("message_bytes", "more than 2^31 packets"));
        }
        let last_bytes = (message_bytes - (total - 1) * cfg.mtu as u64) as u32;
        let max_cwnd = cfg.max_cwnd.min(Self::WINDOW.saturating_mul(cfg.mtu));
        let cfg = DctcpConfig {
            max_cwnd: max_cwnd.max(cfg.min_cwnd),
            init_cwnd: cfg.init_cwnd.min(max_cwnd).max(cfg.min_cwnd),
            ..cfg
        };
        let regs = SenderRegs {
            total: total as u32,
            last_bytes,
            cwnd: cfg.init_cwnd,
            alpha: cfg.alpha_init,
            epoch_end: (cfg.init_cwnd as u64).div_ceil(cfg.mtu as u64).min(total) as Psn,
            flags: if cfg.slow_start {
                CUT_ARMED | SLOW_START
            } else {
                CUT_ARMED
            },
            ..SenderRegs::default()
        };
        Ok((cfg, regs))
    }

    /// The configuration in force (max/init cwnd clamped to the PSN window).
    pub const fn config(&self) -> &DctcpConfig {
        &self.cfg
    }

    /// The sender's cycle counter.
    pub const fn now(&self) -> Cycles {
        self.now
    }

    /// The scalar registers.
    pub const fn regs(&self) -> &SenderRegs {
        &self.regs
    }

    /// Congestion window, bytes.
    pub const fn cwnd(&self) -> u32 {
        self.regs.cwnd
    }

    /// DCTCP alpha, Q0.16.
    pub const fn alpha(&self) -> u32 {
        self.regs.alpha
    }

    /// Overwrite the congestion window (clamped to `min_cwnd..=max_cwnd`): the hook through
    /// which a variant rule ([`super::mprdma_cc`]) replaces the DCTCP window update. Unused
    /// by `DctcpSender` itself.
    pub(crate) fn set_cwnd(&mut self, cwnd: u32) {
        self.regs.cwnd = cwnd.clamp(self.cfg.min_cwnd, self.cfg.max_cwnd);
    }

    /// Payload bytes in flight.
    pub const fn inflight(&self) -> u32 {
        self.regs.inflight
    }

    /// New packets not yet sent (`total - snd_nxt`).
    pub const fn unsent(&self) -> u32 {
        self.regs.total.saturating_sub(self.regs.snd_nxt)
    }

    /// Wormhole fast-forward (section 5.3 / 6.2 of the Wormhole paper): `pkts` full-MTU
    /// packets of the message were sent and acknowledged at the steady rate while the
    /// partition was skipped. They are taken from the not-yet-sent part of the PSN space
    /// (the message shrinks by `pkts` packets; the last packet and its size stay), so
    /// `snd_una`, `snd_nxt`, the PSN ring, the in-flight packets and the receiver's
    /// expected PSN are all unchanged: equivalent to advancing every sequence number by
    /// `pkts` on both ends and relabelling the packets in flight, without rewriting any.
    /// The window state (cwnd, alpha, epoch) is the steady state's and stays. At most
    /// `unsent() - 1` packets go (the last one is always sent at packet level); returns
    /// how many did.
    pub fn fast_forward(&mut self, pkts: u32) -> u32 {
        let k = pkts.min(self.unsent().saturating_sub(1));
        self.regs.total -= k;
        k
    }

    /// Wormhole fast-forward of the window state (dcfab's extension of the Wormhole paper's
    /// 5.3 / 6.2, whose skipped flows keep their block state): the registers as `pkts` more
    /// unmarked ACKs, each newly acknowledging one full-MTU packet in order, leave them in a
    /// sender that is not window-limited (each ACK followed by one new packet, so the
    /// packets in flight at every ACK stay what they were at the last window end). Per ACK
    /// the additive increase (`cwnd += mtu * mtu / cwnd`, or slow start's `+ mtu`); at every
    /// window end (`snd_una` reaching `epoch_end`, counted in the PSNs the full run would
    /// have) alpha's update with the window's marked fraction, the cut re-armed, the epoch
    /// restarted one window of PSNs on. Call after [`Self::fast_forward`]`(pkts)`: the PSNs
    /// in flight stay, so the epoch end comes back `pkts` lower. Returns the window ends
    /// passed.
    ///
    /// `at_ack`: the PSNs in flight just after each ACK ([`Self::inflight_at_next_ack`]);
    /// `None`: as at the last window end (`snd_nxt` was `epoch_end` and `snd_una` was
    /// `wnd_acked / mtu` below today's), which holds once a window has ended in the steady
    /// state.
    pub fn fast_forward_acks(&mut self, pkts: u32, at_ack: Option<u32>) -> u32 {
        if pkts == 0 {
            return 0;
        }
        let mtu = self.cfg.mtu;
        let r = &mut self.regs;
        let una = u64::from(r.snd_una);
        let d = match at_ack {
            Some(d) => u64::from(d).max(1),
            None => {
                match (u64::from(r.epoch_end) + u64::from(r.wnd_acked / mtu)).saturating_sub(una) {
                    0 => u64::from(r.snd_nxt.saturating_sub(r.snd_una)).max(1),
                    d => d,
                }
            }
        };
        let n = u64::from(pkts);
        let max = u64::from(self.cfg.max_cwnd);
        // The window: `+ mtu` per ACK in slow start, else `+ mtu * mtu / cwnd`, taken in runs
        // of a constant increment (the next run starts where the increment drops).
        let mut cwnd = u64::from(r.cwnd);
        let mtu2 = u64::from(mtu) * u64::from(mtu);
        let mut left = n;
        while left > 0 && cwnd < max {
            if r.flags & SLOW_START != 0 {
                cwnd = cwnd.saturating_add(left.saturating_mul(u64::from(mtu)));
                break;
            }
            let inc = mtu2 / cwnd;
            if inc == 0 {
                break;
            }
            let steps = (mtu2 / inc + 1 - cwnd).div_ceil(inc).clamp(1, left);
            cwnd += steps * inc;
            left -= steps;
        }
        r.cwnd = cwnd.min(max) as u32;
        // The windows: the current one ends at the ACK taking `snd_una` to `epoch_end`, the
        // next ones every `d` ACKs (no mark in them: alpha decays by g each).
        let end = u64::from(r.epoch_end);
        let first = end.saturating_sub(una).max(1);
        let mut ends = 0;
        let mut end_v = end;
        let mut acked = u64::from(r.wnd_acked);
        if first <= n {
            acked += first * u64::from(mtu);
            let f = (u64::from(r.wnd_marked) << 16) / acked;
            let g = self.cfg.g_shift;
            r.alpha = r.alpha - (r.alpha >> g) + ((f as u32) >> g);
            let more = (n - first) / d;
            for _ in 0..more {
                if r.alpha >> g == 0 {
                    break;
                }
                r.alpha -= r.alpha >> g;
            }
            r.wnd_marked = 0;
            r.flags |= CUT_ARMED;
            r.rtt_max_prev = r.rtt_max;
            ends = 1 + more;
            acked = (n - first - more * d) * u64::from(mtu);
            end_v = una + first + more * d + d;
        } else {
            acked += n * u64::from(mtu);
        }
        r.wnd_acked = acked.min(u64::from(u32::MAX)) as u32;
        r.epoch_end = (end_v - n) as Psn;
        ends as u32
    }

    /// The PSNs in flight just after the ACK of the oldest one in flight arrives, for a
    /// sender that sends one new packet every `period_ps` (its host port's round, window not
    /// binding) and gets each ACK one RTT after the send (the RTT samples of this window,
    /// else of the last: `rtt_max`): the packets in flight now but that one, plus the sends
    /// due after the newest one up to that ACK. `None` without a packet in flight or an RTT
    /// sample. For [`Self::fast_forward_acks`]: a flow whose last window ended before its
    /// steady state (its first ones) has the steady count here, not at its epoch.
    pub fn inflight_at_next_ack(&self, period_ps: u64) -> Option<u32> {
        let r = &self.regs;
        if r.snd_nxt <= r.snd_una || period_ps == 0 {
            return None;
        }
        let rtt = if r.rtt_max > 0 {
            r.rtt_max
        } else {
            r.rtt_max_prev
        };
        if rtt == 0 {
            return None;
        }
        let stamp = |p: Psn| {
            let (w, b) = slot(p, WORDS);
            self.sent_at[w][b as usize]
        };
        let (first, last) = (stamp(r.snd_una), stamp(r.snd_nxt - 1));
        // Cycles (ns) from the newest send to the oldest one's ACK (32-bit stamps).
        let ahead = first.wrapping_add(rtt).wrapping_sub(last);
        if ahead >= 1 << 31 {
            return None;
        }
        let later = u64::from(ahead) * 1000 / period_ps;
        u32::try_from(u64::from(r.snd_nxt - 1 - r.snd_una) + later).ok()
    }

    /// The congestion-control state a Wormhole memo entry carries across a skipped transient
    /// (Wormhole paper 4.3, the "end state" of a stored unsteady period): (cwnd bytes, alpha
    /// Q0.16, in slow start).
    pub const fn cc_state(&self) -> (u32, u32, bool) {
        (
            self.regs.cwnd,
            self.regs.alpha,
            self.regs.flags & SLOW_START != 0,
        )
    }

    /// Set the state [`Self::cc_state`] reads (cwnd clamped to `min_cwnd..=max_cwnd`, alpha
    /// to 1.0): a skipped transient ends with the window, alpha and slow-start flag the
    /// stored one ended with. The PSN space, the window in flight, the epoch and the timer
    /// are left as they are.
    pub fn set_cc_state(&mut self, cwnd: u32, alpha: u32, slow_start: bool) {
        self.regs.cwnd = cwnd.clamp(self.cfg.min_cwnd, self.cfg.max_cwnd);
        self.regs.alpha = alpha.min(ALPHA_ONE);
        if slow_start {
            self.regs.flags |= SLOW_START;
        } else {
            self.regs.flags &= !SLOW_START;
        }
    }

    /// The newest PSN sent (`snd_nxt - 1`) and the cycle stamp (low 32 bits) of its last
    /// transmission; `None` before the first packet. Read-only instrumentation: Wormhole's
    /// steady-rate estimate times the new packets between two sampling instants exactly
    /// (Eq. 7's mean rate without the sample interval's packet quantization).
    pub fn newest_sent(&self) -> Option<(Psn, u32)> {
        let psn = self.regs.snd_nxt.checked_sub(1)?;
        let (w, b) = slot(psn, WORDS);
        Some((psn, self.sent_at[w][b as usize]))
    }

    /// Every packet acknowledged.
    pub const fn is_done(&self) -> bool {
        self.regs.snd_una >= self.regs.total
    }

    /// The RTO deadline, if the timer is armed.
    pub const fn timer_deadline(&self) -> Option<Cycles> {
        if self.regs.flags & TIMER_ARMED != 0 {
            Some(self.regs.timer_at)
        } else {
            None
        }
    }

    /// The report of the last RTO expiry that declared packets lost, once.
    pub fn take_timeout(&mut self) -> Option<TimeoutReport> {
        self.timeout.take()
    }

    #[inline]
    fn payload(&self, psn: Psn) -> u32 {
        if psn + 1 == self.regs.total {
            self.regs.last_bytes
        } else {
            self.cfg.mtu
        }
    }

    #[inline]
    fn bit(map: &[u64; WORDS], psn: Psn) -> bool {
        let (w, b) = slot(psn, WORDS);
        map[w] >> b & 1 == 1
    }

    #[inline]
    fn set(map: &mut [u64; WORDS], psn: Psn, v: bool) {
        let (w, b) = slot(psn, WORDS);
        if v {
            map[w] |= 1 << b;
        } else {
            map[w] &= !(1 << b);
        }
    }

    fn first_lost(&self) -> Option<Psn> {
        if self.regs.n_lost == 0 {
            return None;
        }
        let mut p = self.regs.lost_cursor.max(self.regs.snd_una);
        while p < self.regs.snd_nxt {
            if Self::bit(&self.lost, p) {
                return Some(p);
            }
            p += 1;
        }
        None
    }

    /// Whether [`DctcpSender::next_packet`] would return a packet now.
    pub fn can_send(&self) -> bool {
        if self.is_done() {
            return false;
        }
        let r = &self.regs;
        let payload = if r.n_lost > 0 {
            self.cfg.mtu
        } else if r.snd_nxt < r.total && r.snd_nxt - r.snd_una < Self::WINDOW {
            self.payload(r.snd_nxt)
        } else {
            return false;
        };
        r.inflight == 0 || r.inflight + payload <= r.cwnd
    }

    /// Take the next packet to transmit, if the window allows one: a retransmission of the
    /// lowest lost PSN first, else the next new PSN. `None` when cwnd-limited, when nothing
    /// is left to send, or when the PSN window is full (a stall, counted).
    pub fn next_packet(&mut self) -> Option<TxPacket> {
        if self.is_done() {
            return None;
        }
        let (psn, retx) = if let Some(p) = self.first_lost() {
            (p, true)
        } else {
            let r = &self.regs;
            if r.snd_nxt >= r.total {
                return None;
            }
            if r.snd_nxt - r.snd_una >= Self::WINDOW {
                self.stats.window_stalls += 1;
                return None;
            }
            (r.snd_nxt, false)
        };
        let payload = self.payload(psn);
        if self.regs.inflight != 0 && self.regs.inflight + payload > self.regs.cwnd {
            return None;
        }
        if retx {
            Self::set(&mut self.lost, psn, false);
            Self::set(&mut self.retx, psn, true);
            self.regs.n_lost -= 1;
            self.regs.lost_cursor = psn + 1;
            self.stats.retransmits += 1;
        } else {
            self.regs.snd_nxt += 1;
        }
        let (w, b) = slot(psn, WORDS);
        self.sent_at[w][b as usize] = self.now as u32;
        self.regs.inflight += payload;
        self.stats.packets_sent += 1;
        if self.regs.flags & TIMER_ARMED == 0 {
            self.regs.flags |= TIMER_ARMED;
            self.regs.timer_at = self.now + self.cfg.rto as u64;
        }
        Some(TxPacket { psn, payload, retx })
    }

    /// Mark `psn` (inside `[snd_una, snd_nxt)`) acknowledged; returns its payload bytes if
    /// it was not acknowledged before.
    fn ack_one(&mut self, psn: Psn) -> u32 {
        if Self::bit(&self.acked, psn) {
            return 0;
        }
        Self::set(&mut self.acked, psn, true);
        let bytes = self.payload(psn);
        if Self::bit(&self.lost, psn) {
            // Declared lost but delivered after all: no longer needs a retransmission.
            Self::set(&mut self.lost, psn, false);
            self.regs.n_lost -= 1;
        } else {
            self.regs.inflight -= bytes;
        }
        bytes
    }

    /// The RTT sample (cycles) an ACK of `ack.psn` gives now, without changing anything:
    /// `Some` only for the first acknowledgement of a PSN in flight that was never
    /// retransmitted (Karn's rule), the same sample [`DctcpSender::on_ack`] folds into
    /// `rtt_max`. A caller keeping its own RTT statistics (the REPS failure detector,
    /// Appendix A) reads it just before `on_ack`.
    pub fn rtt_sample(&self, ack: &Ack) -> Option<u32> {
        let psn = ack.psn;
        if psn < self.regs.snd_una
            || psn >= self.regs.snd_nxt
            || Self::bit(&self.acked, psn)
            || Self::bit(&self.retx, psn)
        {
            return None;
        }
        let (w, b) = slot(psn, WORDS);
        Some((self.now as u32).wrapping_sub(self.sent_at[w][b as usize]))
    }

    /// An ACK arrived. Returns the payload bytes it newly acknowledged.
    pub fn on_ack(&mut self, ack: &Ack) -> u32 {
        let mut newly = 0u32;
        let una = self.regs.snd_una;
        let nxt = self.regs.snd_nxt;
        if ack.psn >= una && ack.psn < nxt {
            let was = Self::bit(&self.acked, ack.psn);
            newly += self.ack_one(ack.psn);
            if !was && !Self::bit(&self.retx, ack.psn) {
                let (w, b) = slot(ack.psn, WORDS);
                let rtt = (self.now as u32).wrapping_sub(self.sent_at[w][b as usize]);
                self.regs.rtt_max = self.regs.rtt_max.max(rtt);
            }
        }
        let cum = ack.cum_ack.min(nxt);
        let mut p = una;
        while p < cum {
            newly += self.ack_one(p);
            p += 1;
        }
        // Slide snd_una over the acknowledged prefix, clearing the ring slots.
        while self.regs.snd_una < nxt && Self::bit(&self.acked, self.regs.snd_una) {
            let u = self.regs.snd_una;
            Self::set(&mut self.acked, u, false);
            Self::set(&mut self.retx, u, false);
            self.regs.snd_una += 1;
        }
        if ack.ecn {
            self.stats.ecn_acks += 1;
        }
        if newly > 0 {
            self.congestion_update(newly, ack.ecn);
        }
        if self.regs.inflight == 0 && self.regs.n_lost == 0 {
            self.regs.flags &= !TIMER_ARMED;
        }
        newly
    }

    fn congestion_update(&mut self, bytes: u32, ecn: bool) {
        let r = &mut self.regs;
        r.wnd_acked = r.wnd_acked.saturating_add(bytes);
        if ecn {
            r.wnd_marked = r.wnd_marked.saturating_add(bytes);
            if r.flags & CUT_ARMED != 0 {
                let cut = (r.cwnd as u64 * r.alpha as u64) >> 17;
                r.cwnd = (r.cwnd - cut as u32).max(self.cfg.min_cwnd);
                r.flags &= !(CUT_ARMED | SLOW_START);
            }
        } else if r.flags & SLOW_START != 0 {
            r.cwnd = (r.cwnd as u64 + bytes as u64).min(self.cfg.max_cwnd as u64) as u32;
        } else {
            let inc = (self.cfg.mtu as u64 * bytes as u64) / r.cwnd as u64;
            r.cwnd = (r.cwnd as u64 + inc).min(self.cfg.max_cwnd as u64) as u32;
        }
        if r.snd_una >= r.epoch_end && r.wnd_acked > 0 {
            // End of a window: alpha <- alpha + g (F - alpha).
            let f = ((r.wnd_marked as u64) << 16) / r.wnd_acked as u64;
            let g = self.cfg.g_shift;
            r.alpha = r.alpha - (r.alpha >> g) + ((f as u32) >> g);
            r.wnd_acked = 0;
            r.wnd_marked = 0;
            r.epoch_end = r.snd_nxt.max(r.snd_una + 1);
            r.flags |= CUT_ARMED;
            r.rtt_max_prev = r.rtt_max;
            r.rtt_max = 0;
        }
    }

    fn lose(&mut self, psn: Psn) {
        Self::set(&mut self.lost, psn, true);
        self.regs.n_lost += 1;
        self.regs.inflight -= self.payload(psn);
        self.regs.lost_cursor = self.regs.lost_cursor.min(psn);
        self.regs.flags &= !SLOW_START;
        self.regs.cwnd = self
            .regs
            .cwnd
            .saturating_sub(self.cfg.mtu)
            .max(self.cfg.min_cwnd);
        self.stats.losses += 1;
    }

    #[inline]
    fn in_flight(&self, psn: Psn) -> bool {
        !Self::bit(&self.acked, psn) && !Self::bit(&self.lost, psn)
    }

    /// A NACK (the DATA with this PSN was trimmed) arrived: retransmit it. Returns whether
    /// the PSN was in flight (and is now queued for retransmission).
    pub fn on_nack(&mut self, psn: Psn) -> bool {
        self.stats.nacks += 1;
        if psn < self.regs.snd_una || psn >= self.regs.snd_nxt || !self.in_flight(psn) {
            return false;
        }
        self.lose(psn);
        if self.regs.inflight == 0 && self.regs.n_lost == 0 {
            self.regs.flags &= !TIMER_ARMED;
        }
        true
    }

    /// The RTO timer expired at `self.now`: declare every packet `rto` old lost and re-arm
    /// on the oldest packet still in flight.
    fn fire(&mut self) {
        let now32 = self.now as u32;
        let rto = self.cfg.rto;
        let mut lost = 0u32;
        let mut youngest_left: Option<u32> = None; // smallest remaining time to expiry
        let mut p = self.regs.snd_una;
        while p < self.regs.snd_nxt {
            if self.in_flight(p) {
                let (w, b) = slot(p, WORDS);
                let age = now32.wrapping_sub(self.sent_at[w][b as usize]);
                if age >= rto {
                    self.lose(p);
                    lost += 1;
                } else {
                    let left = rto - age;
                    youngest_left = Some(youngest_left.map_or(left, |l| l.min(left)));
                }
            }
            p += 1;
        }
        if lost > 0 {
            self.stats.timeouts += 1;
            self.timeout = Some(TimeoutReport {
                at: self.now,
                lost,
                recent_rtt_max: self.regs.rtt_max.max(self.regs.rtt_max_prev),
            });
        }
        match youngest_left {
            Some(left) => self.regs.timer_at = self.now + left as u64,
            None if self.regs.n_lost > 0 => {
                // Everything outstanding awaits retransmission: re-arm a full RTO so a
                // retransmission that is lost again is caught.
                self.regs.timer_at = self.now + rto as u64;
            }
            None => self.regs.flags &= !TIMER_ARMED,
        }
    }
}

impl<const WORDS: usize> Clocked for DctcpSender<WORDS> {
    fn tick(&mut self) {
        self.now += 1;
        if self.regs.flags & TIMER_ARMED != 0 && self.now >= self.regs.timer_at {
            self.fire();
        }
    }

    fn advance(&mut self, cycles: Cycles) {
        let end = self.now + cycles;
        while self.regs.flags & TIMER_ARMED != 0 {
            let at = self.regs.timer_at.max(self.now + 1);
            if at > end {
                break;
            }
            self.now = at;
            self.fire();
        }
        self.now = end;
    }
}

impl<const WORDS: usize> StateBudget for DctcpSender<WORDS> {
    const NAME: &'static str = "DCTCP window CC sender (OOO, SACK, RTO)";
    /// Scalar registers plus, per PSN slot, 3 state bits and a 32-bit send stamp.
    const BITS: u32 =
        (core::mem::size_of::<SenderRegs>() * 8) as u32 + 64 * WORDS as u32 * (3 + 32);
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(
    core::mem::size_of::<SenderRegs>() * 8
        + 3 * core::mem::size_of::<[u64; 8]>() * 8
        + core::mem::size_of::<[[u32; 64]; 8]>() * 8
        == <DctcpSender<8> as StateBudget>::BITS as usize
);

#[cfg(test)]
pub(crate) mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;

    /// A fast-forwarded sender finishes exactly as a sender of the shorter message would,
    /// keeps its window, and never drops the last (possibly short) packet.
    #[test]
    fn fast_forward_shrinks_the_unsent_part_only() {
        let cfg = DctcpConfig {
            mtu: 1000,
            init_cwnd: 4000,
            min_cwnd: 1000,
            max_cwnd: 1 << 20,
            rto: 10_000,
            g_shift: 4,
            alpha_init: 0,
            slow_start: false,
        };
        let mut s = DctcpSender::<8>::new(cfg, 10_500, 0).unwrap();
        assert_eq!(s.unsent(), 11);
        let sent: Vec<_> = (0..4).map(|_| s.next_packet().unwrap()).collect();
        assert_eq!(s.unsent(), 7);
        let cwnd = s.cwnd();
        assert_eq!(s.fast_forward(5), 5);
        assert_eq!(s.unsent(), 2);
        assert_eq!(s.cwnd(), cwnd);
        // At most unsent - 1: the last packet stays.
        assert_eq!(s.fast_forward(9), 1);
        assert_eq!(s.unsent(), 1);
        for p in &sent {
            s.on_ack(&Ack {
                psn: p.psn,
                cum_ack: p.psn + 1,
                ecn: false,
                ev: 0,
            });
        }
        assert!(!s.is_done());
        let last = s.next_packet().unwrap();
        assert_eq!(
            (last.psn, last.payload),
            (4, 500),
            "the short last packet is kept"
        );
        s.on_ack(&Ack {
            psn: 4,
            cum_ack: 5,
            ecn: false,
            ev: 0,
        });
        assert!(s.is_done());
    }
    /// A 64-packet initial window that never caps (`max_cwnd` half the range), no slow
    /// start: the sender of the `fast_forward_acks` tests.
    fn unlimited_cfg() -> DctcpConfig {
        DctcpConfig {
            mtu: MTU,
            init_cwnd: 64 * MTU,
            min_cwnd: MTU,
            max_cwnd: u32::MAX / 2,
            rto: 1_000_000,
            g_shift: 4,
            alpha_init: 0,
            slow_start: false,
        }
    }

    /// `fast_forward` + `fast_forward_acks` of `n` packets leave the window registers (cwnd,
    /// alpha, the epoch's bytes, end and cut flag, rtt_max_prev) exactly as `n` more rounds of
    /// "one in-order unmarked ACK, one new packet" do in a sender that is not window-limited,
    /// after a marked start (alpha > 0, decaying per window) and at every phase of the
    /// epoch; the epoch end comes back `n` PSNs lower (the PSNs in flight are not moved).
    #[test]
    fn fast_forward_acks_equals_the_acks() {
        let cfg = unlimited_cfg();
        for (inflight, warm, n, slow) in [
            (8u32, 100u32, 1u32, false),
            (8, 101, 7, false),
            (8, 105, 40, false),
            (7, 130, 9_000, false),
            (5, 120, 123, false),
            (6, 110, 200, true),
        ] {
            // Slow start (no mark, so it never ends): `+ mtu` per ACK.
            let cfg = DctcpConfig {
                slow_start: slow,
                ..cfg
            };
            let mut s = DctcpSender::<8>::new(cfg, 10_000_000, 0).unwrap();
            for _ in 0..inflight {
                s.next_packet().unwrap();
            }
            // One round: the oldest PSN acknowledged (marked while `marked`), one new sent.
            let round = |s: &mut DctcpSender<8>, marked: bool| {
                let u = s.regs().snd_una;
                s.on_ack(&ack(u, u + 1, marked));
                assert!(s.next_packet().is_some(), "not window-limited");
            };
            for i in 0..warm {
                round(&mut s, !slow && i < 80 && i % 3 == 0);
            }
            let mut ff = s.clone();
            for _ in 0..n {
                round(&mut s, false);
            }
            assert_eq!(ff.fast_forward(n), n);
            ff.fast_forward_acks(n, None);
            let (a, b) = (s.regs(), ff.regs());
            assert!(
                slow || a.alpha > 0,
                "a marked start decays slowly: alpha {}",
                a.alpha
            );
            assert_eq!(
                (
                    a.cwnd,
                    a.alpha,
                    a.wnd_acked,
                    a.wnd_marked,
                    a.flags,
                    a.rtt_max_prev
                ),
                (
                    b.cwnd,
                    b.alpha,
                    b.wnd_acked,
                    b.wnd_marked,
                    b.flags,
                    b.rtt_max_prev
                ),
                "inflight {inflight} warm {warm} n {n}"
            );
            assert_eq!(a.epoch_end - n, b.epoch_end, "inflight {inflight} n {n}");
        }
    }

    /// A young sender (its first windows, from the initial one, not steady) sending one new
    /// packet every `P` cycles with ACKs one RTT later: `inflight_at_next_ack` is the count
    /// the next ACK leaves, and with it `fast_forward_acks` matches `n` more rounds where the
    /// epoch-based count does not.
    #[test]
    fn inflight_at_next_ack_is_what_the_next_ack_leaves() {
        const P: u64 = 3;
        const RTT: u64 = 20;
        let cfg = unlimited_cfg();
        // Cycle by cycle: the ACK of the packet sent RTT ago (marked early on), then a send
        // every P cycles. Returns the in-flight count after each ACK.
        let step = |s: &mut DctcpSender<8>, t: u64, sends: &mut Vec<(u64, Psn)>| {
            s.advance(t - s.now);
            let mut after = None;
            if let Some(&(at, psn)) = sends.first() {
                if at + RTT == t {
                    sends.remove(0);
                    s.on_ack(&ack(psn, psn + 1, t < 60 && psn % 4 == 0));
                    after = Some(s.regs().snd_nxt - s.regs().snd_una);
                }
            }
            if t.is_multiple_of(P) {
                let p = s.next_packet().expect("not window-limited");
                sends.push((t, p.psn));
            }
            after
        };
        let mut checked = 0;
        for pause in [61u64, 62, 70, 75, 90, 131] {
            let mut s = DctcpSender::<8>::new(cfg, 10_000_000, 0).unwrap();
            let mut sends = Vec::new();
            for t in 1..=pause {
                step(&mut s, t, &mut sends);
            }
            let d = s.inflight_at_next_ack(P * 1000).expect("an RTT sample");
            let mut ff = s.clone();
            // 50 more periods: 50 sends and 50 ACKs, the same phase as at the pause.
            let (mut acks, mut first) = (0u32, None);
            for t in pause + 1..=pause + 50 * P {
                if let Some(x) = step(&mut s, t, &mut sends) {
                    first.get_or_insert(x);
                    acks += 1;
                }
            }
            assert_eq!(first, Some(d), "pause {pause}");
            let sent = s.regs().snd_nxt - ff.regs().snd_nxt;
            assert_eq!((sent, acks), (50, 50), "pause {pause}");
            assert_eq!(ff.fast_forward(50), 50);
            ff.fast_forward_acks(50, Some(d));
            let (a, b) = (s.regs(), ff.regs());
            assert_eq!(
                (a.cwnd, a.alpha, a.wnd_acked, a.flags, a.epoch_end - 50),
                (b.cwnd, b.alpha, b.wnd_acked, b.flags, b.epoch_end),
                "pause {pause}"
            );
            checked += 1;
        }
        assert_eq!(checked, 6);
    }

    use std::vec::Vec;

    pub(crate) const MTU: u32 = 1000;

    /// `reset` leaves a used sender equal to a new one (every field: `PartialEq`), and an
    /// invalid message leaves it unchanged.
    #[test]
    fn reset_equals_new() {
        let cfg = cfg();
        let mut s = DctcpSender::<8>::new(cfg, 50_000, 3).unwrap();
        for _ in 0..6 {
            let p = s.next_packet().unwrap();
            s.on_ack(&ack(p.psn, p.psn + 1, p.psn.is_multiple_of(2)));
        }
        let p = s.next_packet().unwrap();
        s.next_packet().unwrap();
        assert!(s.on_nack(p.psn));
        let used = s.clone();
        assert_ne!(used, DctcpSender::<8>::new(cfg, 7_300, 77).unwrap());
        assert!(s.reset(cfg, 0, 77).is_err());
        assert_eq!(s, used, "a refused reset changes nothing");
        s.reset(cfg, 7_300, 77).unwrap();
        assert_eq!(s, DctcpSender::<8>::new(cfg, 7_300, 77).unwrap());
    }

    /// `reset` clears only the send stamps of the PSNs sent; after a life that wrapped the
    /// 512-PSN ring, and after one that used part of it (stamps at a clock far from 0), the
    /// sender still equals a new one, and sends as one does.
    #[test]
    fn reset_after_a_wrapped_ring_equals_new() {
        let cfg = cfg();
        let ring = DctcpSender::<8>::WINDOW;
        for sent in [ring / 2 + 3, 2 * ring + 5] {
            let mut s = DctcpSender::<8>::new(cfg, u64::from(4 * ring) * 1000, 1_000).unwrap();
            let mut steps = 0;
            while s.regs().snd_nxt < sent {
                steps += 1;
                assert!(steps < 100 * sent, "no progress at {:?}", s.regs());
                s.advance(10);
                match s.next_packet() {
                    // Every fourth one acknowledged on its own, cumulatively.
                    Some(p) if p.psn % 4 == 3 => {
                        s.on_ack(&ack(p.psn, p.psn + 1, p.psn % 8 == 3));
                    }
                    Some(_) => {}
                    // Window-bound: everything in flight acknowledged.
                    None => {
                        let nxt = s.regs().snd_nxt;
                        s.on_ack(&ack(nxt - 1, nxt, false));
                    }
                }
            }
            assert_eq!(s.regs().snd_nxt, sent);
            assert_ne!(s, DctcpSender::<8>::new(cfg, 9_000, 5).unwrap());
            s.reset(cfg, 9_000, 5).unwrap();
            assert_eq!(
                s,
                DctcpSender::<8>::new(cfg, 9_000, 5).unwrap(),
                "{sent} sent"
            );
            let mut fresh = DctcpSender::<8>::new(cfg, 9_000, 5).unwrap();
            for _ in 0..4 {
                assert_eq!(s.next_packet(), fresh.next_packet());
            }
        }
    }

    /// The test configuration (shared with `mprdma_cc`'s tests): a 4-MTU initial window.
    pub(crate) fn cfg() -> DctcpConfig {
        DctcpConfig {
            mtu: MTU,
            init_cwnd: 4 * MTU,
            min_cwnd: MTU,
            max_cwnd: 1 << 30,
            rto: 100,
            g_shift: 4,
            alpha_init: 0,
            slow_start: false,
        }
    }

    /// An ACK of `psn` with cumulative point `cum` and ECN echo `ecn` (EV 0).
    pub(crate) fn ack(psn: Psn, cum: Psn, ecn: bool) -> Ack {
        Ack {
            psn,
            cum_ack: cum,
            ecn,
            ev: 0,
        }
    }

    /// Slow start (RFC 5681 3.1): each unmarked ACK grows the window by the bytes it
    /// acknowledges, so one window of ACKs doubles it; the first ECN cut ends slow start and
    /// the additive rule (one MTU per window) takes over. Off, the same ACKs add one MTU.
    #[test]
    fn slow_start_doubles_per_window_until_the_first_cut() {
        for on in [false, true] {
            let c = DctcpConfig {
                slow_start: on,
                alpha_init: ALPHA_ONE,
                ..cfg()
            };
            let mut s = DctcpSender::<1>::new(c, 64 * MTU as u64, 0).unwrap();
            let first: Vec<_> = core::iter::from_fn(|| s.next_packet()).collect();
            assert_eq!(first.len(), 4);
            for p in &first {
                s.on_ack(&ack(p.psn, p.psn + 1, false));
            }
            let want = if on { 8 * MTU } else { 5 * MTU };
            assert!(
                s.cwnd().abs_diff(want) < MTU,
                "slow_start {on}: cwnd {}",
                s.cwnd()
            );
            // A marked ACK: the DCTCP cut (alpha = 1 halves), then additive increase only.
            let p = s.next_packet().unwrap();
            s.on_ack(&ack(p.psn, p.psn + 1, true));
            let cut = s.cwnd();
            assert!(cut < want, "slow_start {on}: no cut ({cut})");
            let p = s.next_packet().unwrap();
            s.on_ack(&ack(p.psn, p.psn + 1, false));
            assert!(s.cwnd() - cut <= MTU / 2, "slow_start {on}: after the cut");
        }
    }

    #[test]
    fn window_limits_and_out_of_order_acks() {
        let mut s = DctcpSender::<1>::new(cfg(), 10 * MTU as u64, 0).unwrap();
        let sent: Vec<_> = core::iter::from_fn(|| s.next_packet()).collect();
        assert_eq!(sent.len(), 4, "cwnd of 4 MTU");
        // ACK psn 2 out of order: one more packet fits.
        s.on_ack(&ack(2, 0, false));
        assert_eq!(s.inflight(), 3 * MTU);
        assert!(s.can_send());
        assert_eq!(s.next_packet().unwrap().psn, 4);
        assert_eq!(s.regs().snd_una, 0);
        s.on_ack(&ack(0, 1, false));
        s.on_ack(&ack(1, 3, false));
        assert_eq!(s.regs().snd_una, 3);
        assert!(!s.is_done());
    }

    #[test]
    fn last_packet_is_short_and_completion() {
        let mut s = DctcpSender::<1>::new(cfg(), 2500, 0).unwrap();
        let p: Vec<_> = core::iter::from_fn(|| s.next_packet()).collect();
        assert_eq!(
            p.iter().map(|p| p.payload).collect::<Vec<_>>(),
            [1000, 1000, 500]
        );
        s.on_ack(&ack(2, 0, false));
        s.on_ack(&ack(0, 3, false));
        assert!(s.is_done());
        assert_eq!(s.inflight(), 0);
        assert_eq!(s.timer_deadline(), None);
    }

    #[test]
    fn a_cut_does_not_end_its_own_window() {
        // 12 packets in flight; the first ACKs acknowledge more bytes than the cwnd left
        // after a halving, which must not open a new window (and a second cut) before
        // the window sent at the epoch's start has been acknowledged.
        let mut s = DctcpSender::<1>::new(
            DctcpConfig {
                init_cwnd: 12 * MTU,
                alpha_init: ALPHA_ONE,
                slow_start: false,
                ..cfg()
            },
            100 * MTU as u64,
            0,
        )
        .unwrap();
        for _ in 0..12 {
            s.next_packet().unwrap();
        }
        for psn in 0..7 {
            s.on_ack(&ack(psn, psn + 1, false));
        }
        let grown = s.cwnd();
        s.on_ack(&ack(7, 8, true));
        let cut = s.cwnd();
        assert!(cut < grown * 3 / 5, "alpha = 1 halves: {grown} -> {cut}");
        s.on_ack(&ack(8, 9, true));
        assert_eq!(
            s.cwnd(),
            cut,
            "a second mark in the same window does not cut again"
        );
    }

    #[test]
    fn ecn_cuts_once_per_window_by_alpha_half() {
        let mut s = DctcpSender::<1>::new(
            DctcpConfig {
                init_cwnd: 20 * MTU,
                alpha_init: ALPHA_ONE,
                slow_start: false,
                ..cfg()
            },
            100 * MTU as u64,
            0,
        )
        .unwrap();
        for _ in 0..3 {
            s.next_packet().unwrap();
        }
        s.on_ack(&ack(0, 1, true));
        assert_eq!(s.cwnd(), 10 * MTU, "alpha = 1: halve");
        s.on_ack(&ack(1, 2, true));
        assert_eq!(s.cwnd(), 10 * MTU, "one cut per window");
        let before = s.cwnd();
        s.on_ack(&ack(2, 3, false));
        assert!(s.cwnd() > before, "additive increase on unmarked ACK");
    }

    #[test]
    fn alpha_decays_without_marks() {
        let c = DctcpConfig {
            alpha_init: ALPHA_ONE,
            slow_start: false,
            ..cfg()
        };
        let mut s = DctcpSender::<4>::new(c, 1000 * MTU as u64, 0).unwrap();
        let mut cum = 0;
        for _ in 0..400 {
            while let Some(p) = s.next_packet() {
                let _ = p;
            }
            let nxt = s.regs().snd_nxt;
            while cum < nxt {
                s.on_ack(&ack(cum, cum + 1, false));
                cum += 1;
            }
            if s.is_done() {
                break;
            }
        }
        assert!(s.alpha() < ALPHA_ONE / 2, "alpha {}", s.alpha());
    }

    #[test]
    fn alpha_grows_towards_the_marked_fraction() {
        let mut s = DctcpSender::<4>::new(cfg(), 1000 * MTU as u64, 0).unwrap();
        assert_eq!(s.alpha(), 0);
        let mut cum = 0;
        while !s.is_done() {
            while s.next_packet().is_some() {}
            let nxt = s.regs().snd_nxt;
            while cum < nxt {
                // Every other ACK echoes CE: F = 1/2.
                s.on_ack(&ack(cum, cum + 1, cum % 2 == 0));
                cum += 1;
            }
        }
        let a = s.alpha();
        assert!(a > ALPHA_ONE / 4 && a <= ALPHA_ONE / 2 + 64, "alpha {a}");
    }

    #[test]
    fn rto_retransmits_a_lost_packet_while_others_are_in_flight() {
        let mut s = DctcpSender::<1>::new(cfg(), 8 * MTU as u64, 0).unwrap();
        for _ in 0..4 {
            s.next_packet().unwrap();
        }
        // PSN 0 is lost; 1..3 are acknowledged selectively; more data flows.
        s.advance(10);
        for p in 1..4 {
            s.on_ack(&ack(p, 0, false));
        }
        while s.next_packet().is_some() {}
        assert_eq!(s.timer_deadline(), Some(100));
        s.advance(90);
        assert_eq!(s.now(), 100);
        let t = s.take_timeout().expect("PSN 0 timed out");
        assert_eq!(t.lost, 1);
        // The window shrank by one MTU: the retransmission waits for the next ACK.
        assert!(!s.can_send());
        s.on_ack(&ack(4, 0, false));
        let p = s.next_packet().unwrap();
        assert_eq!((p.psn, p.retx), (0, true));
        // Timer now follows the packets sent at cycle 10.
        assert_eq!(s.timer_deadline(), Some(110));
    }

    #[test]
    fn rtt_sample_is_what_on_ack_records() {
        let mut s = DctcpSender::<1>::new(cfg(), 10 * MTU as u64, 0).unwrap();
        s.next_packet().unwrap();
        s.advance(7);
        s.next_packet().unwrap();
        s.advance(30);
        assert_eq!(s.rtt_sample(&ack(1, 0, false)), Some(30));
        assert_eq!(s.rtt_sample(&ack(0, 0, false)), Some(37));
        assert_eq!(s.rtt_sample(&ack(5, 0, false)), None, "never sent");
        s.on_ack(&ack(1, 0, false));
        assert_eq!(s.regs().rtt_max, 30);
        assert_eq!(
            s.rtt_sample(&ack(1, 0, false)),
            None,
            "already acknowledged"
        );
        // A retransmitted packet gives no sample (Karn).
        s.advance(200);
        assert!(s.take_timeout().is_some());
        assert!(s.next_packet().unwrap().retx);
        assert_eq!(s.rtt_sample(&ack(0, 0, false)), None);
    }

    #[test]
    fn nack_triggers_immediate_retransmission() {
        let mut s = DctcpSender::<1>::new(cfg(), 8 * MTU as u64, 0).unwrap();
        for _ in 0..4 {
            s.next_packet().unwrap();
        }
        assert!(s.on_nack(1));
        assert!(!s.on_nack(1), "already queued");
        assert_eq!(s.cwnd(), 3 * MTU);
        assert!(!s.can_send(), "3 MTU in flight, cwnd 3 MTU");
        s.on_ack(&ack(0, 1, false));
        let p = s.next_packet().unwrap();
        assert_eq!((p.psn, p.retx), (1, true));
    }

    #[test]
    fn full_window_is_a_stall_not_a_panic() {
        let mut s = DctcpSender::<1>::new(
            DctcpConfig {
                init_cwnd: 1000 * MTU,
                max_cwnd: 1000 * MTU,
                ..cfg()
            },
            1000 * MTU as u64,
            0,
        )
        .unwrap();
        let n = core::iter::from_fn(|| s.next_packet()).count();
        assert_eq!(n, 64);
        assert_eq!(s.stats.window_stalls, 1);
        assert!(!s.can_send());
        s.on_ack(&ack(0, 1, false));
        assert_eq!(s.next_packet().unwrap().psn, 64);
    }

    #[test]
    fn bad_config_names_the_field() {
        let e = DctcpSender::<1>::new(DctcpConfig { rto: 0, ..cfg() }, 10, 0).unwrap_err();
        assert_eq!(e.field, "rto");
        let e = DctcpSender::<1>::new(cfg(), 0, 0).unwrap_err();
        assert_eq!(e.field, "message_bytes");
    }

    /// Drive a sender through a lossy, reordering channel: every message completes and
    /// `inflight` equals the payload of the packets in flight.
    fn lossy_run(seed: u32, drop_pct: u32) -> (bool, u64) {
        use rtl_models::{Lfsr32, RandomSource};
        let mut rng = Lfsr32::new(seed);
        let mut s = DctcpSender::<2>::new(cfg(), 300 * MTU as u64 + 7, 0).unwrap();
        let mut r = super::super::SackReceiver::<2>::new();
        let mut wire: Vec<(u64, Psn)> = Vec::new();
        for _ in 0..200_000u32 {
            while let Some(p) = s.next_packet() {
                if rng.below(100) >= drop_pct {
                    wire.push((s.now() + 5 + rng.below(20) as u64, p.psn));
                }
            }
            s.tick();
            let now = s.now();
            let mut i = 0;
            while i < wire.len() {
                if wire[i].0 <= now {
                    let (_, psn) = wire.swap_remove(i);
                    if let Some(a) = r.on_data(psn, rng.below(10) == 0, 0) {
                        s.on_ack(&a);
                    }
                } else {
                    i += 1;
                }
            }
            if s.is_done() {
                return (true, s.now());
            }
        }
        (false, s.now())
    }

    #[test]
    fn completes_through_loss_and_reordering() {
        let (done, _) = lossy_run(3, 5);
        assert!(done);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        #[test]
        fn always_completes(seed in 1u32..1000, drop_pct in 0u32..30) {
            prop_assert!(lossy_run(seed, drop_pct).0);
        }

        #[test]
        fn advance_equals_idle_ticks(n_send in 0usize..6, acks in 0u32..3, n in 0u64..400) {
            let mut a = DctcpSender::<1>::new(cfg(), 20 * MTU as u64, 3).unwrap();
            for _ in 0..n_send { a.next_packet(); a.tick(); }
            for p in 0..acks { a.on_ack(&ack(p, 0, p == 1)); }
            rtl_models::testing::assert_advance_eq_ticks(&a, n);
        }
    }
}
