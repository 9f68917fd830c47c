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
//!
//! Modules, by what they model:
//!
//! * `section` -- `[transport.uno]` ([`UnoSection`]) and its checks, [`check_supported`];
//! * `state` -- [`UnoState`]: per-flow path constants, senders, receivers, ready rings;
//! * `setup` -- installing the transport for a run (`Sim::uno_setup`);
//! * `open` -- a flow opens: its UnoCC or baseline CC, sender timeout, sender and receiver;
//! * `arrive` -- DATA -> ACK, trimmed DATA -> NACK, ACK and NACK at the sender;
//! * `send` -- the hosts' round robin over ready flows, the pacer and the flow timers;
//! * `results` -- the `uno_*` counters of the summary;
//! * [`tx`], [`rx`], [`subflows`] -- a flow's sender, receiver and UnoLB subflows.

mod arrive;
mod open;
mod results;
pub mod rx;
mod section;
mod send;
mod setup;
mod state;
pub mod subflows;
pub mod tx;

pub(crate) use arrive::arrive;
pub(crate) use open::open;
pub use section::{check_supported, UnoSection};
pub(crate) use send::{pull, timer};
pub use state::UnoState;
pub use subflows::Subflows;
pub use tx::DONE;
