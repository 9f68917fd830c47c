//! # pHost (Gao et al., CoNEXT 2015): receiver-driven tokens, one of DCSIM's baselines
//!
//! The DCSIM paper compares against pHost (section 4.1 "Algorithms"; section 5
//! "Scheduling": "pHost shifts scheduling decisions to end hosts using Request-to-Send (RTS)
//! and token-based coordination ... a single stage of matching"). pHost's own design
//! (section 3): a new flow's sender sends an RTS carrying the flow size and may send its
//! first BDP at once on *free tokens*; each receiver hands out one token per MTU
//! transmission time (line rate) to one sender at a time, choosing the flow with the fewest
//! remaining packets (SRPT); a token is only valid until its expiry; a sender that does not
//! answer tokens (busy with another receiver) is *downgraded*: the receiver stops granting
//! to it for a while and serves the next flow.
//!
//! ```text
//!   sender (PhostSender)                          receiver (PhostReceiver)
//!   open(flow, size, bdp) --RTS(flow, size)-----> on_rts: to_grant = size - free
//!   next_packet(): token first,                   tick: every token_interval cycles,
//!     then free tokens (first BDP)  <--TOKEN----    SRPT over non-downgraded flows
//!   tick: drop tokens at expiry     --DATA------> on_data: pending -= 1, silent = 0
//!                                                 silent >= downgrade_timeout:
//!                                                   tokens back, downgraded for a while
//! ```
//!
//! * [`receiver`] holds [`PhostReceiver`] (the token scheduler).
//! * [`sender`] holds [`PhostSender`] (RTS, free tokens, token spending and expiry).
//!
//! Units: host cycles (`token_interval` = one MTU at line rate), packets (MTU-sized).

pub mod receiver;
pub mod sender;

pub use receiver::{PhostReceiver, PhostReceiverConfig};
pub use sender::{PhostSender, TxPacket};

/// A token: the receiver lets `flow` send one packet, valid while the sender's cycle count
/// is below `expiry` (pHost section 3: tokens expire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Token {
    /// The flow the token is for.
    pub flow: u32,
    /// First cycle at which the token is no longer valid.
    pub expiry: u64,
}

/// Flows per block of the budget rows (a host's concurrently active flows).
pub const BUDGET_FLOWS: usize = 32;
/// Tokens a sender can hold at once in the budget row.
pub const BUDGET_TOKENS: usize = 8;

/// Budget rows of the pHost blocks, for `nic::budgets()`.
pub const BUDGET_ROWS: [rtl_models::BudgetRow; 2] = [
    rtl_models::BudgetRow::of::<PhostReceiver<BUDGET_FLOWS>>("nic"),
    rtl_models::BudgetRow::of::<PhostSender<BUDGET_FLOWS, BUDGET_TOKENS>>("nic"),
];

#[cfg(test)]
mod tests;
