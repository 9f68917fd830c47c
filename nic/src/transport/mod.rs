//! Reliable transport blocks: the baseline DCTCP-style window congestion control of the REPS
//! paper's evaluation (section 4.1, "NIC congestion control") and its out-of-order SACK
//! receiver.
//!
//! ```text
//!   sender NIC                                               receiver NIC
//!  +--------------------------+    DATA {psn, ev, ce}      +---------------------+
//!  | DctcpSender<WORDS>       |--------------------------->| SackReceiver<WORDS> |
//!  |  cwnd, alpha, PSN ring,  |    (switches may CE-mark,  |  cum_ack, bitmap    |
//!  |  RTO timer               |     trim or drop it)       |                     |
//!  |                          |<---------------------------|                     |
//!  +--------------------------+  ACK {psn, cum_ack, ecn,   +---------------------+
//!                                      ev echo}  or
//!                                NACK {psn, ev} (trimmed DATA)
//! ```
//!
//! * one ACK per DATA packet (no coalescing, REPS section 4.5.1 default), carrying the
//!   acknowledged PSN (selective), the cumulative ACK, the CE mark echo and the DATA's
//!   entropy value (REPS section 3.1: the ACK echoes the EV);
//! * a trimmed DATA packet (header only, REPS Appendix A) is answered by a NACK so the
//!   sender retransmits at once instead of waiting for its RTO;
//! * both ends are fixed-size: a const-generic window of `64 * WORDS` PSNs, bitmaps and a
//!   timestamp ring indexed by `psn mod (64 * WORDS)`. A sender whose window is full
//!   stalls (counted), it never panics.
//!
//! Units: PSNs count packets, byte quantities are payload bytes, times are cycles of the
//! NIC clock (the harness converts from picoseconds).

pub mod dctcp;
pub mod mprdma_cc;
pub mod receiver;

pub use dctcp::{DctcpConfig, DctcpSender, SenderRegs, SenderStats, TimeoutReport, TxPacket};
pub use mprdma_cc::MprdmaDctcpSender;
pub use receiver::{ReceiverStats, SackReceiver};

use crate::lb::Ev;

/// Window words of the instance the fabric simulator uses: `64 * 32 = 2048` PSNs, 8 MiB in
/// flight at a 4 KiB MTU, about 170 us of sending at 400 Gb/s. The window must outlast the
/// retransmission timeout (70 us in the REPS paper, section 4.1): with a smaller window
/// (512 PSNs = 43 us) one lost packet stalls the flow until its RTO fires, which no
/// SACK-based NIC of the paper's kind does, and the REPS failure result (section 4.3.3)
/// shrinks from 33% to about 20% faster than OPS. `dcfab budget` reports this instance.
pub const HARNESS_WORDS: usize = 32;

/// Packet sequence number (counts packets of one message, from 0).
pub type Psn = u32;

/// What a receiver returns for a DATA packet (the ACK header's logical fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    /// The PSN this ACK acknowledges (selective acknowledgement).
    pub psn: Psn,
    /// Every PSN below this one has been received (cumulative acknowledgement).
    pub cum_ack: Psn,
    /// Echo of the DATA packet's CE mark.
    pub ecn: bool,
    /// Echo of the DATA packet's entropy value (REPS section 3.1).
    pub ev: Ev,
}

/// What a receiver returns for a trimmed DATA packet (header only): a negative
/// acknowledgement asking for that PSN again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nack {
    /// The trimmed PSN.
    pub psn: Psn,
    /// Echo of the trimmed packet's entropy value.
    pub ev: Ev,
}

pub use rtl_models::ConfigError;

/// Word and bit of `psn` in a ring of `64 * words` entries (`words` a power of two).
#[inline]
pub(crate) const fn slot(psn: Psn, words: usize) -> (usize, u32) {
    let i = psn as usize & (words * 64 - 1);
    (i >> 6, (i & 63) as u32)
}
