//! pHost in the fabric (`transport.cc = "phost"`): one of DCSIM's baselines (DCSIM section
//! 4.1 "Algorithms", section 5 "Scheduling"), as pHost (Gao et al., CoNEXT 2015, section 3)
//! designs it, on the `nic::phost` blocks.
//!
//! ```text
//!  source host (PhostSender)                     destination host (PhostReceiver)
//!  open: RTS(size) on the control lane  ------>  on_rts: to_grant = size - free
//!  first BDP at once on free tokens     --DATA-> got[psn]; all in: flow done, DONE back
//!  NIC free: next_packet(): a token              HostTimer at the block's next event:
//!    (SRPT over flows), else a free one <-TOKEN- one token per MTU time (line rate) to
//!  token expired at the source: dropped          the SRPT flow, naming its next missing
//!  all sent, nothing heard for                   PSN; tokens unanswered for
//!    rts_timeout: RTS again             ------>    downgrade_timeout: flow downgraded
//!  DONE: flow closed                    <-DONE-- RTS of a known flow, packets missing
//!                                                  and no entry: granted again
//! ```
//!
//! * **Switches** are plain: the baseline output port, control packets (RTS, tokens, DONE)
//!   on its priority lane, DATA in its FIFO (pHost's two priority levels).
//! * **Tokens** name a packet (its PSN); a token is valid until its expiry, stamped by the
//!   receiver at the fabric's one-way base delay (half the base RTT), plus one MTU time per
//!   link of the longest path (a token may wait behind a DATA being sent at each hop), plus
//!   `token_ttl_mtus` MTU times after it is sent. The sender spends tokens in SRPT order (fewest packets
//!   left) and drops them at their expiry.
//! * **Losses**: a token whose DATA is lost is never answered; the flow is downgraded and
//!   its unanswered tokens are granted again (naming the missing PSNs). A lost free packet
//!   (or RTS) is asked for again when the sender, having sent everything, hears nothing for
//!   `rts_timeout_rtts` and re-sends its RTS: the receiver grants the missing packets.
//!
//! Header fields (pHost's control packets are `PktKind::Ack` on the control lane, told
//! apart by `psn`): an RTS has `psn` [`RTS`] and its size in packets in `cum_ack`; a DONE
//! has `psn` [`DONE`]; a token has the PSN it names and its expiry in ns (32 bits, read
//! relative to the source's clock) in `cum_ack`. A DATA sent on a token has [`ON_TOKEN`]
//! set in its `psn`.
//!
//! Choices of ours (the pHost paper states them loosely): the token TTL after the one-way
//! delay (1.5 MTU times), the downgrade timeout (2 base RTTs of unanswered tokens) and
//! length (3 base RTTs), the RTS re-send timeout (4 base RTTs). The flow completes when its
//! last packet reaches the destination (DCSIM's CCT).
//!
//! Modules, by what they model:
//!
//! * `section` -- `[transport.phost]` ([`PhostSection`]) and its checks, [`check_supported`];
//! * `driver` -- [`PhostState`], its setup and summary counters, the control packets;
//! * `sender` -- the source side: open, tokens, DONE, the NIC's pull;
//! * `receiver` -- the destination side: the token scheduler, RTS and DATA;
//! * `dispatch` -- packets and timers routed to the sender or the receiver;
//! * `skip` -- Wormhole's fast-forward and shift of pHost flows and hosts;
//! * [`state`] -- the `nic::phost` blocks and per-flow bitmaps.

mod dispatch;
mod driver;
mod receiver;
mod section;
mod sender;
mod skip;
pub mod state;

pub(crate) use dispatch::{arrive, timer};
pub(crate) use driver::receiver;
pub use driver::{Counters, PhostState};
pub use section::{check_supported, PhostSection};
pub(crate) use sender::{open, pull};
pub(crate) use skip::ends;

/// `psn` of an RTS.
pub const RTS: u32 = u32::MAX;
/// `psn` of a DONE (the receiver has every packet).
pub const DONE: u32 = u32::MAX - 1;
/// Bit of a DATA's `psn`: sent on a token (not a free one).
pub const ON_TOKEN: u32 = 1 << 31;
