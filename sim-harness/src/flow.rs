//! Per-flow transport state the engine drives: the congestion control ([`Cc`]) and the
//! load balancer ([`Lb`]) are enums over the `nic` blocks, so adding DCSIM / Uno transports
//! or REPS / UnoLB choosers is one more variant and one more match arm, with no dynamic
//! dispatch per packet.
//!
//! REPS hooks: the engine calls `Lb::on_ack` ([`LoadBalancer`]) on every ACK with the
//! echoed EV and ECN bit, feeds every RTT sample to the flow's [`FailureDetector`] (the `nic`
//! block of REPS Appendix A, the one failure policy of the DES), and on an RTO asks it
//! ([`FlowRt::on_timeout`]) whether the loss was a failure, which calls
//! `Lb::on_failure_detection` (REPS Algorithm 1 `ONFAILUREDETECTION`: freezing mode).

use crate::scenario::{LbKind, Scenario};
use crate::workload::FlowSpec;
use nic::lb::{
    Bitmap, BitmapConfig, Ecmp, Ev, Flowlet, FlowletConfig, LoadBalancer, Mprdma, MprdmaConfig,
    Mptcp, MptcpConfig, Ops, Plb, PlbConfig, SubflowPick,
};
use nic::reps::{
    FailureDetector, FailureDetectorConfig, LossSignal, LossVerdict, Reps, RepsConfig, RepsStats,
};
use nic::transport::{
    Ack, DctcpSender, MprdmaDctcpSender, SackReceiver, SenderStats, TimeoutReport, TxPacket,
};
use rtl_models::{Clocked, ConfigError, Cycles, Lfsr32, RandomSource};

/// PSN window words of every flow ([`nic::transport::HARNESS_WORDS`] = 32 words of 64 bits:
/// 2048 packets in flight).
pub const WORDS: usize = nic::transport::HARNESS_WORDS;

/// The sender block the engine instantiates.
pub type Sender = DctcpSender<WORDS>;
/// The sender of `transport.cc = "mprdma"` (MPRDMA's per-ACK DCTCP variant).
pub type MprdmaSender = MprdmaDctcpSender<WORDS>;
/// The receiver block the engine instantiates.
pub type Receiver = SackReceiver<WORDS>;

/// An RTO is judged a path failure (REPS Appendix A, no trimming) when the largest RTT of
/// the last one to two RTOs is below this multiple of the base RTT, Q8.8 (512 = 2.0x): with
/// one-BDP queues a congestion loss comes with RTTs near twice the base RTT or more. The
/// [`FailureDetector`]'s `rtt_multiple_q8`.
pub const FAILURE_RTT_MULTIPLE_Q8: u32 = 512;

/// The REPS configuration of every REPS flow of scenario `s` (Algorithms 1-2 constants):
/// `NUM_PKTS_CWND` = packets per BDP of the run (`bdp_bytes / mtu`, rounded up, at most 255:
/// `exploreCounter` is 8 bits), `FREEZING_TIMEOUT` = `transport.reps.freezing_timeout_us`
/// in 1 GHz NIC cycles, freezing mode on or off by `transport.reps.freezing`, standard
/// REPS (one use per cached EV). `ev_bits` is set per flow from `transport.evs_bits`.
pub fn reps_config(s: &Scenario, bdp_bytes: u64) -> RepsConfig {
    let mtu = u64::from(s.transport.mtu.max(1));
    RepsConfig {
        ev_bits: s.transport.evs_bits.clamp(1, 16) as u8,
        num_pkts_cwnd: bdp_bytes
            .div_ceil(mtu)
            .min(u64::from(nic::reps::config::MAX_NUM_PKTS_CWND)) as u32,
        freezing_timeout_cycles: crate::clock::NIC_CLOCK
            .us_to_cycles(s.transport.reps.freezing_timeout_us)
            .clamp(0.0, u32::MAX as f64) as u32,
        freezing: s.transport.reps.freezing,
        timed_exit: s.transport.reps.freeze_exit == crate::transport::reps::FreezeExit::Timed,
        reuse: 1,
    }
}

/// The REPS Appendix A failure-detector configuration of every flow: trimming as in
/// `transport.trimming`, base RTT `base_rtt_cycles` (the longest path's), failure below
/// `transport.reps.failure_rtt_multiple` x base RTT (default 2.0,
/// [`FAILURE_RTT_MULTIPLE_Q8`]), RTT history windows of `transport.reps.failure_window_us`
/// or, when 0 (the default), one RTO (`rto_cycles`: "the period preceding the timeout").
pub fn detector_config(
    s: &Scenario,
    base_rtt_cycles: u64,
    rto_cycles: u32,
) -> FailureDetectorConfig {
    FailureDetectorConfig {
        trimming: s.transport.trimming,
        base_rtt_cycles: base_rtt_cycles.clamp(1, u64::from(u32::MAX)) as u32,
        rtt_multiple_q8: crate::transport::reps::rtt_multiple_q8(
            s.transport.reps.failure_rtt_multiple,
        ),
        window_cycles: if s.transport.reps.failure_window_us > 0.0 {
            crate::clock::NIC_CLOCK
                .us_to_cycles(s.transport.reps.failure_window_us)
                .clamp(1.0, u32::MAX as f64) as u32
        } else {
            rto_cycles.max(1)
        },
    }
}

/// Congestion control of one flow (a variant per transport).
#[derive(Debug, Clone)]
pub enum Cc {
    /// The baseline DCTCP-style window CC (boxed: its 2,048-PSN window of send stamps and bit maps is about 9 KiB).
    Dctcp(Box<Sender>),
    /// MPRDMA's DCTCP variant (`transport.cc = "mprdma"`): the same sender with a per-ACK
    /// cut on every marked ACK instead of DCTCP's once-per-window EWMA cut.
    Mprdma(Box<MprdmaSender>),
}

impl Cc {
    /// Bring the block's clock to cycle `now` (fires its RTO if due).
    #[inline]
    pub fn sync(&mut self, now: Cycles) {
        match self {
            Cc::Dctcp(s) => {
                let n = s.now();
                if now > n {
                    s.advance(now - n);
                }
            }
            Cc::Mprdma(s) => {
                let n = s.now();
                if now > n {
                    s.advance(now - n);
                }
            }
        }
    }

    /// Next packet to send, if the window allows.
    #[inline]
    pub fn next_packet(&mut self) -> Option<TxPacket> {
        match self {
            Cc::Dctcp(s) => s.next_packet(),
            Cc::Mprdma(s) => s.next_packet(),
        }
    }

    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u32 {
        match self {
            Cc::Dctcp(s) => s.cwnd(),
            Cc::Mprdma(s) => s.inner().cwnd(),
        }
    }

    /// Whether a packet could be sent now.
    #[inline]
    pub fn can_send(&self) -> bool {
        match self {
            Cc::Dctcp(s) => s.can_send(),
            Cc::Mprdma(s) => s.can_send(),
        }
    }

    /// An ACK arrived; returns newly acknowledged payload bytes.
    #[inline]
    pub fn on_ack(&mut self, a: &Ack) -> u32 {
        match self {
            Cc::Dctcp(s) => s.on_ack(a),
            Cc::Mprdma(s) => s.on_ack(a),
        }
    }

    /// A NACK arrived.
    #[inline]
    pub fn on_nack(&mut self, psn: u32) -> bool {
        match self {
            Cc::Dctcp(s) => s.on_nack(psn),
            Cc::Mprdma(s) => s.on_nack(psn),
        }
    }

    /// RTO deadline (cycles), if armed.
    #[inline]
    pub fn timer_deadline(&self) -> Option<Cycles> {
        match self {
            Cc::Dctcp(s) => s.timer_deadline(),
            Cc::Mprdma(s) => s.timer_deadline(),
        }
    }

    /// The last RTO expiry, once.
    #[inline]
    pub fn take_timeout(&mut self) -> Option<TimeoutReport> {
        match self {
            Cc::Dctcp(s) => s.take_timeout(),
            Cc::Mprdma(s) => s.take_timeout(),
        }
    }

    /// The RTT sample (cycles) ACK `a` gives now (Karn's rule), before [`Cc::on_ack`].
    #[inline]
    pub fn rtt_sample(&self, a: &Ack) -> Option<u32> {
        match self {
            Cc::Dctcp(s) => s.rtt_sample(a),
            Cc::Mprdma(s) => s.rtt_sample(a),
        }
    }

    /// Whole message acknowledged.
    #[inline]
    pub fn is_done(&self) -> bool {
        match self {
            Cc::Dctcp(s) => s.is_done(),
            Cc::Mprdma(s) => s.is_done(),
        }
    }

    /// Whether the sender may send now under a chooser's out-of-order limit `max_ooo`
    /// (MPRDMA's `L`: a new PSN only while `snd_nxt - snd_una < L`; a retransmission is
    /// always allowed) as well as its window ([`Cc::can_send`]).
    #[inline]
    pub fn can_send_within(&self, max_ooo: Option<u32>) -> bool {
        let regs = match self {
            Cc::Dctcp(s) => s.regs(),
            Cc::Mprdma(s) => s.regs(),
        };
        match max_ooo {
            Some(l) if regs.n_lost == 0 && regs.snd_nxt - regs.snd_una >= l => false,
            _ => self.can_send(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> SenderStats {
        match self {
            Cc::Dctcp(s) => s.stats,
            Cc::Mprdma(s) => s.stats,
        }
    }
}

/// What a flow's chooser is built from beside its kind: the run's EV width, REPS
/// configuration, path BDP in packets and base RTT in NIC cycles ([`LbParams::new`]).
#[derive(Debug, Clone, Copy)]
pub struct LbParams {
    /// `transport.evs_bits`.
    pub evs_bits: u32,
    /// REPS (Algorithms 1-2 constants, [`reps_config`]).
    pub reps: RepsConfig,
    /// Packets per BDP of the run (PLB's round: one RTT of ACKs), at least 1.
    pub bdp_pkts: u32,
    /// Base RTT of the run, NIC cycles (the flowlet timeout is half of it).
    pub base_rtt_cycles: u32,
}

/// Subflows of `transport.lb = "mptcp"` are dealt packets by the fewest in flight (MPTCP's
/// scheduler sends on the subflow with window space).
pub const MPTCP_PICK: SubflowPick = SubflowPick::LeastInflight;

/// `transport.lb = "bitmap"` sprays over `2^BITMAP_PATHS_LOG2` EVs per connection (the
/// block's largest set, 64: 8x the 8 uplinks of the paper's ToRs) ...
pub const BITMAP_PATHS_LOG2: u32 = 6;
/// ... and clears its bad bits every `BITMAP_CLEAR_RTTS` base RTTs: a path marked a while
/// ago is tried again after about one congestion-control reaction (our choice; STrack's
/// per-path state ages on a similar RTT scale).
pub const BITMAP_CLEAR_RTTS: u32 = 2;

impl LbParams {
    /// The parameters of scenario `s` on a run whose longest path has BDP `bdp_bytes` and
    /// base RTT `base_rtt_cycles`.
    pub fn new(s: &Scenario, bdp_bytes: u64, base_rtt_cycles: u64) -> LbParams {
        let mtu = u64::from(s.transport.mtu.max(1));
        LbParams {
            evs_bits: s.transport.evs_bits,
            reps: reps_config(s, bdp_bytes),
            bdp_pkts: bdp_bytes.div_ceil(mtu).clamp(1, u64::from(u32::MAX)) as u32,
            base_rtt_cycles: base_rtt_cycles.clamp(2, (1 << 30) - 1) as u32,
        }
    }
}

/// The uniform [0, 1) draw deciding whether flow `i` of a run seeded `seed` is background
/// ECMP traffic (`workload.background_ecmp`): a splitmix64 hash of both, so the choice is
/// fixed by the seed and takes nothing from the run's generator.
pub fn background_draw(seed: u64, i: u64) -> f64 {
    let mut x = seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xb4c8_9e0d;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// Load balancer (entropy chooser) of one flow.
#[derive(Debug, Clone)]
pub enum Lb {
    /// One EV per flow (also the NIC side of `adaptive_roce`, whose switches ignore it).
    Ecmp(Ecmp),
    /// A random EV per packet.
    Ops(Ops),
    /// Recycled Entropy Packet Spraying (the 25-byte Table 1 word, 8-entry buffer).
    Reps(Reps),
    /// UnoLB (Uno Algorithm 2): round robin over n subflows, rerouted on NACK / timeout.
    Uno(crate::transport::uno::Subflows),
    /// PLB, FlowBender-like parameters.
    Plb(Plb),
    /// Flowlet switching, timeout half the base RTT.
    Flowlet(Flowlet),
    /// MPRDMA path selection (returned-VP pool, out-of-order window).
    Mprdma(Mprdma),
    /// MPTCP-like, 8 subflows.
    Mptcp(Mptcp),
    /// BitMap, STrack-like.
    Bitmap(Bitmap),
}

impl Lb {
    /// The path of a flow whose load balancer keeps one path at a time and may move it
    /// while the flow runs (PLB's repath, a new flowlet's EV): the current EV and whether a
    /// move is already decided (PLB's `repath` bit); `None` for a fixed path (ECMP, MPTCP's
    /// subflows) or a per-packet choice (spraying, REPS, MPRDMA, BitMap, UnoLB), whose
    /// partitions already hold every up port. Wormhole's steady test reads it: a reroute is
    /// an interrupt (wormhole.md 5.3), so a flow whose path moved within the detector window
    /// is not steady.
    pub(crate) fn moving_path(&self) -> Option<(Ev, bool)> {
        match self {
            Lb::Plb(p) => Some((p.ev(), p.repath_pending())),
            Lb::Flowlet(f) => Some((f.ev(), false)),
            _ => None,
        }
    }

    /// The chooser of kind `kind` for a new flow with parameters `p`: EVs of `p.evs_bits`
    /// bits; REPS configured by `p.reps` (its `ev_bits` overridden by `evs_bits`); PLB with
    /// FlowBender's aggressive setting (REPS 4.1) over rounds of one BDP of ACKs; flowlet
    /// timeout half the base RTT (REPS 4.1); MPRDMA with `L = 64`, `delta = L / 2`; MPTCP
    /// with 8 subflows ([`MPTCP_PICK`]); BitMap over [`BITMAP_PATHS_LOG2`] EV bits cleared
    /// every [`BITMAP_CLEAR_RTTS`] base RTTs. ECMP (and `adaptive_roce`, `spray_rr`: ECMP NICs), PLB,
    /// flowlet, MPTCP and BitMap draw their first EVs from `rng`. `Unolb` is not a per-flow
    /// entropy chooser of this transport: an error.
    pub fn new(kind: LbKind, p: &LbParams, rng: &mut Lfsr32) -> Result<Lb, ConfigError> {
        let evs_bits = p.evs_bits;
        Ok(match kind {
            LbKind::Ecmp | LbKind::AdaptiveRoce | LbKind::SprayRr => {
                Lb::Ecmp(Ecmp::new(evs_bits, rng))
            }
            LbKind::Ops => Lb::Ops(Ops::new(evs_bits)),
            LbKind::Reps => Lb::Reps(Reps::new(RepsConfig {
                ev_bits: evs_bits.min(16) as u8,
                ..p.reps
            })?),
            // Replaced per flow by the Uno transport's setup (its subflow count and the
            // flow's own base RTT).
            LbKind::Unolb => Lb::Uno(crate::transport::uno::Subflows::new(8, 0, rng)),
            LbKind::Plb => Lb::Plb(Plb::new(
                PlbConfig::flowbender(evs_bits, p.bdp_pkts.clamp(1, 4095) as u16),
                rng,
            )?),
            LbKind::Flowlet => Lb::Flowlet(Flowlet::new(
                FlowletConfig::half_rtt(evs_bits, p.base_rtt_cycles),
                rng,
            )?),
            LbKind::Mprdma => Lb::Mprdma(Mprdma::new(MprdmaConfig::paper(evs_bits))?),
            LbKind::Mptcp => Lb::Mptcp(Mptcp::new(
                MptcpConfig {
                    evs_bits,
                    pick: MPTCP_PICK,
                },
                rng,
            )?),
            LbKind::Bitmap => Lb::Bitmap(Bitmap::new(
                BitmapConfig {
                    paths_log2: BITMAP_PATHS_LOG2.min(evs_bits),
                    clear_period: p
                        .base_rtt_cycles
                        .saturating_mul(BITMAP_CLEAR_RTTS)
                        .min((1 << 31) - 1),
                },
                0,
                rng,
            )?),
        })
    }

    /// UnoLB Algorithm 2 ONNACKORTIMEOUT for a packet sent on `ev` (other choosers: nothing).
    /// Returns whether a subflow was rerouted.
    #[inline]
    pub fn on_nack_or_timeout(&mut self, now: Cycles, ev: Ev, rng: &mut Lfsr32) -> bool {
        match self {
            Lb::Uno(l) => l.on_nack_or_timeout(now, ev, rng),
            _ => false,
        }
    }

    /// REPS event counters (explore / recycle / freeze ...), for REPS flows.
    pub fn reps_stats(&self) -> Option<&RepsStats> {
        match self {
            Lb::Reps(r) => Some(r.stats()),
            _ => None,
        }
    }
}

/// Dispatch one call to the chooser of every variant (a `match`, no `dyn`).
macro_rules! each_lb {
    ($self:expr, $l:ident => $e:expr) => {
        match $self {
            Lb::Ecmp($l) => $e,
            Lb::Ops($l) => $e,
            Lb::Reps($l) => $e,
            Lb::Plb($l) => $e,
            Lb::Flowlet($l) => $e,
            Lb::Mprdma($l) => $e,
            Lb::Mptcp($l) => $e,
            Lb::Bitmap($l) => $e,
            Lb::Uno($l) => $e,
        }
    };
}

/// Static dispatch over the variants (a match, no `dyn`).
impl LoadBalancer for Lb {
    #[inline]
    fn on_send<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> Ev {
        each_lb!(self, l => l.on_send(now, rng))
    }

    #[inline]
    fn on_ack(&mut self, now: Cycles, ev: Ev, ecn: bool) {
        each_lb!(self, l => l.on_ack(now, ev, ecn))
    }

    #[inline]
    fn on_failure_detection(&mut self, now: Cycles) {
        each_lb!(self, l => l.on_failure_detection(now))
    }

    #[inline]
    fn on_ack_psn(&mut self, now: Cycles, ev: Ev, ecn: bool, psn: u32) {
        each_lb!(self, l => l.on_ack_psn(now, ev, ecn, psn))
    }

    #[inline]
    fn on_nack(&mut self, now: Cycles, ev: Ev) {
        each_lb!(self, l => l.on_nack(now, ev))
    }

    #[inline]
    fn max_ooo_packets(&self) -> Option<u32> {
        each_lb!(self, l => l.max_ooo_packets())
    }
}

/// The receiver side of a flow, owned by its transport: the DCTCP-style transport's SACK
/// receiver in place (the hot path of a DATA arrival), or [`FlowRx::InTransport`] when the
/// transport keeps its receivers in its own per-flow table (DCSIM's `DcsimReceiver`s in
/// [`crate::dcsim::DcsimState`]; an erasure-code decoder or a cell reassembler next).
// The SACK receiver stays in place (not boxed): a DATA arrival reaches it with no
// indirection, and the prefetcher fetches its lines with the flow's.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum FlowRx {
    /// The SACK receiver of [`crate::transport::dctcp`] (ACK / NACK).
    Sack(Receiver),
    /// Kept by the transport driver itself.
    InTransport,
}

impl FlowRx {
    /// DATA packets received out of order (0 for a receiver the transport keeps).
    pub fn out_of_order(&self) -> u64 {
        match self {
            FlowRx::Sack(rx) => rx.stats.out_of_order,
            FlowRx::InTransport => 0,
        }
    }
}

/// No connection: the flow keeps its own state (`FlowRt::conn`, `FlowRt::conn_lb`).
pub const NO_CONN: u32 = u32::MAX;

/// Per-connection state shared by the flows (messages) of one (src, dst) pair, as the REPS
/// artifact's `-connections_mapping` keeps it (`CONNECTION_INFO_MAP`):
/// `transport.reps.per_connection` (one REPS word per pair) and
/// `transport.per_connection_cwnd` (the window a pair's next flow opens with). Empty in a run
/// without them.
#[derive(Debug, Clone, Default)]
pub struct Conns {
    /// The shared load balancer (REPS) of each connection, by [`FlowRt::conn_lb`].
    pub lb: Vec<Lb>,
    /// The congestion window, bytes, the last completed flow of each connection ended
    /// with (0 = none completed yet), by [`FlowRt::conn`].
    pub cwnd: Vec<u32>,
}

impl Conns {
    /// The load balancer flow state `own` / `shared` (its [`FlowRt::conn_lb`]) uses: its own,
    /// or its connection's.
    #[inline]
    pub fn lb<'a>(lbs: &'a mut [Lb], own: &'a mut Lb, shared: u32) -> &'a mut Lb {
        if shared == NO_CONN {
            own
        } else {
            &mut lbs[shared as usize]
        }
    }
}

/// A flow as the engine keeps it.
#[derive(Debug, Clone)]
pub struct FlowRt {
    /// What the workload asked for.
    pub spec: FlowSpec,
    /// Sender state while the flow is active (`None` before start and after completion).
    pub cc: Option<Cc>,
    /// Receiver state: the transport's ([`FlowRx`]).
    pub rx: FlowRx,
    /// Entropy chooser.
    pub lb: Lb,
    /// The flow's NIC random source.
    pub rng: Lfsr32,
    /// In its host's ready ring.
    pub in_ready: bool,
    /// Time of its pending timer event (`NEVER` if none).
    pub timer_at: u64,
    /// The clock of the flow's NIC blocks (sender, load balancer, failure detector): 1 GHz,
    /// its origin moved by [`crate::engine::Sim::shift_partition`].
    pub clock: crate::clock::ClockDomain,
    /// Completion time, ps (0 = not completed).
    pub end_ps: u64,
    /// Sender counters, kept when the sender state is released.
    pub stats: SenderStats,
    /// RTOs judged failures (REPS Appendix A).
    pub failure_detections: u32,
    /// REPS Appendix A failure detector (recent max RTT; trimming-aware).
    pub detector: FailureDetector,
    /// The flow's base RTT and BDP ([`FlowRt::base`]).
    pub base: FlowBase,
    /// Its connection (the (src, dst) pair) in [`Conns::cwnd`] under
    /// `transport.per_connection_cwnd`, else [`NO_CONN`].
    pub conn: u32,
    /// Its connection's shared REPS word in [`Conns::lb`] under
    /// `transport.reps.per_connection` (REPS flows only), else [`NO_CONN`]: `lb` is then
    /// unused.
    pub conn_lb: u32,
    /// Smoothed RTT of the DCTCP-family sender, times 8, in NIC cycles (RFC 6298's EWMA,
    /// gain 1/8, of the RTT samples its ACKs give; 0 before the first): the denominator of
    /// the `cwnd / srtt` rate Wormhole's `skip.rate_metric = "cc"` samples. Read by nothing
    /// else.
    pub srtt8: u32,
    /// Data packets Wormhole fast-forwards took off the message (`mtu` payload each; sent
    /// and delivered at the steady rate while the flow's partition was skipped, Wormhole 5.3
    /// / 6.2): they count as delivered wherever a full run counts them (acknowledged bytes,
    /// the receiver's completion, the loss rate's DATAs sent), not in the counts of DATAs
    /// simulated (`flows.csv` `packets_sent`, `data_sent`).
    pub skipped: u32,
}

/// RFC 6298 2.2-2.3 in fixed point (`srtt8` = 8 x SRTT): the first sample sets SRTT, each
/// later one moves it by 1/8 of the difference.
#[inline]
pub fn srtt8_update(srtt8: u32, rtt: u32) -> u32 {
    if srtt8 == 0 {
        rtt.saturating_mul(8).max(1)
    } else {
        (srtt8 - (srtt8 >> 3)).saturating_add(rtt)
    }
}

/// A flow's own base RTT and BDP, what its transport sizes itself by (initial window, RTO,
/// failure detector, REPS `NUM_PKTS_CWND`): for a flow inside a datacenter the run's
/// reference values (the longest intra-DC path, [`crate::engine::Derived`]; so every fat-tree
/// flow has the values it always had), for an inter-DC flow (`two_dc`) those of its own
/// path ([`crate::topology::Fabric::path`]), three orders of magnitude larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowBase {
    /// Whether the flow crosses datacenters (`class = inter`).
    pub inter: bool,
    /// Base RTT, ps.
    pub rtt_ps: u64,
    /// BDP at the host link rate over `rtt_ps`, bytes.
    pub bdp_bytes: u64,
    /// The flow's RTO in NIC cycles: `transport.rto_us` plus the amount its base RTT exceeds
    /// the run's reference base RTT (`transport.rto_us` itself inside a datacenter).
    pub rto_cycles: u32,
    /// Initial congestion window, bytes: `transport.init_cwnd` of `bdp_bytes`, at least one
    /// MTU.
    pub init_cwnd: u32,
}

impl FlowRt {
    /// The sender's counters: the live sender's while it is active, else the ones kept at
    /// its release ([`FlowRt::stats`]).
    pub fn sender_stats(&self) -> SenderStats {
        match &self.cc {
            Some(cc) => cc.stats(),
            None => self.stats,
        }
    }

    /// Bring the flow's pending timer event forward to `t` if `t` is earlier
    /// ([`FlowRt::timer_at`]): `Some(t)`, the event the caller arms, or `None` (the pending
    /// one comes first).
    #[inline]
    pub fn earlier_timer(&mut self, t: u64) -> Option<u64> {
        (t < self.timer_at).then(|| {
            self.timer_at = t;
            t
        })
    }

    /// Take the flow's timer event firing at `now`: `true` (and no timer pending any more)
    /// if it is the pending one, `false` for a stale event superseded by
    /// [`FlowRt::earlier_timer`] (its handler does nothing).
    #[inline]
    pub fn take_timer(&mut self, now: u64) -> bool {
        if self.timer_at != now {
            return false;
        }
        self.timer_at = crate::event::NEVER;
        true
    }

    /// Prefetch what a packet arriving for this flow touches: for a DATA the receiver's
    /// cumulative point, its SACK word for `psn` and its counters; for an ACK the sender
    /// pointer, timer, load balancer and failure detector (not the receiver).
    #[inline]
    pub fn prefetch(&self, data: bool, psn: u32) {
        use crate::prefetch::{prefetch, prefetch_lines};
        if data {
            if let FlowRx::Sack(rx) = &self.rx {
                prefetch(rx);
                prefetch(rx.sack_word(psn));
                prefetch_lines(&rx.stats);
            }
        } else {
            prefetch_lines(&self.lb);
            prefetch(&self.spec);
            prefetch(&self.cc);
            prefetch_lines(&self.detector);
            prefetch(&self.in_ready);
        }
    }

    /// An RTO declared packets lost at `now`: the Appendix A verdict of the flow's
    /// detector, with `ONFAILUREDETECTION` called on the load balancer for a failure. The
    /// loss signal is `Timeout`, or `UntrimmedLoss` when the network trims (a loss that
    /// produced no trimmed header).
    /// `lbs` are the run's shared connection words ([`Conns::lb`]; the flow's own `lb`
    /// unless it has one).
    pub fn on_timeout(&mut self, now: Cycles, lbs: &mut [Lb]) -> LossVerdict {
        let signal = if self.detector.config().trimming {
            LossSignal::UntrimmedLoss
        } else {
            LossSignal::Timeout
        };
        let lb = Conns::lb(lbs, &mut self.lb, self.conn_lb);
        let v = self.detector.on_loss(now, signal, lb);
        if v == LossVerdict::Failure {
            self.failure_detections += 1;
        }
        v
    }
}

#[cfg(test)]
mod srtt_tests {
    #[test]
    fn srtt8_is_rfc6298_ewma_in_eighths() {
        let mut s = super::srtt8_update(0, 3000);
        assert_eq!(s, 24_000, "the first sample sets SRTT");
        s = super::srtt8_update(s, 11_000);
        // 7/8 x 3000 + 1/8 x 11000 = 4000.
        assert_eq!(s, 32_000);
        for _ in 0..200 {
            s = super::srtt8_update(s, 5000);
        }
        assert!((39_990..=40_000).contains(&s), "converges to 8 x 5000: {s}");
    }
}
