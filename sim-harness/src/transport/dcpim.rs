//! dcPIM in the fabric (`transport.cc = "dcpim"`): Cai, Tahmasbi Arashloo, Agarwal,
//! "dcPIM: Near-optimal proactive datacenter transport", SIGCOMM 2022, a DCSIM baseline
//! (DCSIM section 4.1; 4.2: "Under 1 BDP, dcPIM does not activate its full algorithm for
//! small flows, and therefore simply sends the flows without any control packets").
//!
//! ```text
//!  flow opens --bytes < unscheduled_bdp x BDP--> host's unscheduled ring: sent at once
//!             --else--> host's scheduled flows: demand for the matching
//!  every host, on the shared epoch clock (matching.rs): rounds of
//!     RTS (sender -> each receiver it has data for, smallest remaining size, channels
//!          needed), GRANT (receiver -> RTSs in SRPT / random order while it has
//!          channels left), ACCEPT (sender -> GRANTs likewise)
//!  as real control packets (PimRts / PimGrant / PimAccept, the control lane of every
//!  port: their delay and loss are the fabric's); the matching made during epoch e is
//!  used in epoch e+1: a sender matched to a receiver on l of its k channels sends that
//!  receiver's scheduled flows (SRPT) at l / k of its rate, clocked by tokens: at most
//!  token_window x BDP x l / k of them unanswered (one more after
//!  token_window_timeout without a token).
//!  host NIC pull: unscheduled ring first, then the current matches' flows (the
//!  channel whose rate allows a DATA soonest).
//!  receiver: ACK per DATA (NACK per trimmed header); sender: selective resend on NACK
//!  or on its retransmission timeout (transport.rto_us + base RTT, one FlowTimer per flow)
//! ```
//!
//! The matching is the `nic::dcpim` block's algorithm (constant rounds of request / grant /
//! accept with dcPIM's `min_rts` / `min_grant`; after `srpt_rounds` rounds a random choice,
//! as PIM and the dcPIM simulator), run by each host on the packets it receives instead of
//! centrally ([`matching`]), with dcPIM's `k` channels per host (session 7; the `nic::dcpim`
//! block keeps one channel). dcPIM's per-packet tokens are modelled at the sender: the
//! receiver answers every DATA (an ACK here, a token there: the same packet on the same
//! path at the same time), so the sender's count of unanswered scheduled DATAs per
//! receiver is the receiver's `token_gap`. Choices of ours: the roles of the matching
//! are the other way round (in the dcPIM simulator receivers request and senders grant;
//! the rounds, channels and orders are the same), a channel's rate is a pacing of the
//! DATAs rather than of the tokens, and a token has no expiry (the sender holds none).
//! Not modelled: the first-BDP unscheduled burst of long flows.
//!
//! Header fields of the control packets: `cum_ack` is the epoch matched for (low 32 bits),
//! `psn` is `rem << 12 | links << 6 | round` (the remaining size capped at 2^20 - 1
//! packets, the channels asked for, granted, accepted or revoked), `flow` the sender's
//! smallest flow to that receiver; a GRANT with `ecn` set is a revoke. A DATA's `cum_ack`
//! is its send stamp (the engine's).

//!
//! Modules, by what they model:
//!
//! * [`section`] -- `[transport.dcpim]` and its checks, [`check_supported`];
//! * `state` -- [`DcpimState`]: per host its matching registers, per flow its state;
//! * `setup` -- installing dcPIM for a run, and its summary counters;
//! * `rounds` -- the matching's RTS / GRANT / ACCEPT rounds as control packets;
//! * `arrive` -- DATA -> ACK (the token), trimmed DATA -> NACK, ACK and NACK at the sender;
//! * `send` -- a flow opens, the host NIC's pull, the retransmission timer;
//! * [`matching`], [`flow`] -- the epoch clock and registers, the per-flow bitmaps.

mod arrive;
pub mod flow;
pub mod matching;
mod rounds;
pub mod section;
mod send;
mod setup;
mod state;

pub(crate) use arrive::arrive;
pub(crate) use rounds::host_timer;
pub use section::{check_supported, DcpimSection};
pub(crate) use send::{flow_timer, open, pull};
pub use state::{DcpimState, PimCounters};
