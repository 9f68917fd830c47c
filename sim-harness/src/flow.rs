//! Per-flow transport state the engine drives: the congestion control ([`Cc`]) and the
//! load balancer ([`Lb`]) are enums over the `nic` blocks, so adding DCSIM / Uno transports
//! or REPS / UnoLB choosers is one more variant and one more match arm, with no dynamic
//! dispatch per packet.
//!
//! REPS hooks (next issue): the engine calls [`Lb::on_ack`] on every ACK with the echoed EV
//! and ECN bit, and [`Lb::on_failure_detection`] when an RTO is judged a failure (REPS
//! Appendix A without trimming: the largest RTT of the last two windows before the timeout
//! is below [`FAILURE_RTT_FACTOR`] x the base RTT).

use crate::workload::FlowSpec;
use nic::lb::{Ecmp, Ev, LoadBalancer, Ops};
use nic::transport::{Ack, DctcpSender, SackReceiver, SenderStats, TimeoutReport, TxPacket};
use rtl_models::{Clocked, Cycles, Lfsr32};

/// PSN window words of every flow (64 * 8 = 512 packets).
pub const WORDS: usize = nic::transport::HARNESS_WORDS;

/// The sender block the engine instantiates.
pub type Sender = DctcpSender<WORDS>;
/// The receiver block the engine instantiates.
pub type Receiver = SackReceiver<WORDS>;

/// An RTO is judged a path failure (REPS Appendix A) when the recent maximum RTT is below
/// this multiple of the base RTT: with one-BDP queues a congestion loss comes with RTTs near
/// twice the base RTT or more.
pub const FAILURE_RTT_FACTOR: u64 = 2;

/// Congestion control of one flow (a variant per transport).
#[derive(Debug, Clone)]
pub enum Cc {
    /// The baseline DCTCP-style window CC (boxed: its PSN ring is about 2 KiB).
    Dctcp(Box<Sender>),
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
        }
    }

    /// Next packet to send, if the window allows.
    #[inline]
    pub fn next_packet(&mut self) -> Option<TxPacket> {
        match self {
            Cc::Dctcp(s) => s.next_packet(),
        }
    }

    /// Whether a packet could be sent now.
    #[inline]
    pub fn can_send(&self) -> bool {
        match self {
            Cc::Dctcp(s) => s.can_send(),
        }
    }

    /// An ACK arrived; returns newly acknowledged payload bytes.
    #[inline]
    pub fn on_ack(&mut self, a: &Ack) -> u32 {
        match self {
            Cc::Dctcp(s) => s.on_ack(a),
        }
    }

    /// A NACK arrived.
    #[inline]
    pub fn on_nack(&mut self, psn: u32) -> bool {
        match self {
            Cc::Dctcp(s) => s.on_nack(psn),
        }
    }

    /// RTO deadline (cycles), if armed.
    #[inline]
    pub fn timer_deadline(&self) -> Option<Cycles> {
        match self {
            Cc::Dctcp(s) => s.timer_deadline(),
        }
    }

    /// The last RTO expiry, once.
    #[inline]
    pub fn take_timeout(&mut self) -> Option<TimeoutReport> {
        match self {
            Cc::Dctcp(s) => s.take_timeout(),
        }
    }

    /// Whole message acknowledged.
    #[inline]
    pub fn is_done(&self) -> bool {
        match self {
            Cc::Dctcp(s) => s.is_done(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> SenderStats {
        match self {
            Cc::Dctcp(s) => s.stats,
        }
    }
}

/// Load balancer (entropy chooser) of one flow.
#[derive(Debug, Clone, Copy)]
pub enum Lb {
    /// One EV per flow.
    Ecmp(Ecmp),
    /// A random EV per packet.
    Ops(Ops),
}

impl Lb {
    /// EV of the next DATA packet.
    #[inline]
    pub fn on_send(&mut self, now: Cycles, rng: &mut Lfsr32) -> Ev {
        match self {
            Lb::Ecmp(l) => l.on_send(now, rng),
            Lb::Ops(l) => l.on_send(now, rng),
        }
    }

    /// An ACK echoed `ev` with (or without) ECN.
    #[inline]
    pub fn on_ack(&mut self, now: Cycles, ev: Ev, ecn: bool) {
        match self {
            Lb::Ecmp(l) => l.on_ack(now, ev, ecn),
            Lb::Ops(l) => l.on_ack(now, ev, ecn),
        }
    }

    /// The transport judged a timeout to be a path failure.
    #[inline]
    pub fn on_failure_detection(&mut self, now: Cycles) {
        match self {
            Lb::Ecmp(l) => l.on_failure_detection(now),
            Lb::Ops(l) => l.on_failure_detection(now),
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
    /// Receiver state.
    pub rx: Receiver,
    /// Entropy chooser.
    pub lb: Lb,
    /// The flow's NIC random source.
    pub rng: Lfsr32,
    /// In its host's ready ring.
    pub in_ready: bool,
    /// Time of its pending timer event (`NEVER` if none).
    pub timer_at: u64,
    /// Completion time, ps (0 = not completed).
    pub end_ps: u64,
    /// Sender counters, kept when the sender state is released.
    pub stats: SenderStats,
    /// RTOs judged failures (REPS Appendix A).
    pub failure_detections: u32,
}
