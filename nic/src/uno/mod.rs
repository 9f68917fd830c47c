//! Uno (Bonato et al., "Uno: A One-Stop Solution for Inter- and Intra-Datacenter Congestion
//! Control and Reliable Connectivity"): the NIC blocks.
//!
//! ```text
//!            +---------------------------- sender NIC ------------------------------+
//!  ACK/NACK  |  UnoCc (cc.rs)  Alg. 1: AI per ACK, MD per epoch, gentle MD,          |
//!  --------->|                 Quick Adapt per RTT, pacing -> cwnd, next_send        |
//!            |  UnoLb (lb.rs)  Alg. 2: n subflows (EVs), round robin, reroute on     |
//!            |                 NACK / timeout at most once per base RTT              |
//!            |  UnoRc sender (rc.rs): blocks of x data + y parity (EC, ec.rs),       |
//!            |                 retransmit a NACKed block                             |
//!            +-----------------------------------------------------------------------+
//!            +---------------------------- receiver NIC ----------------------------+
//!  DATA ---->|  UnoRc receiver (rc.rs): per-block count + timer, decode from any x   |
//!            |                 of x + y (ec.rs), NACK an unrecoverable block         |
//!            +-----------------------------------------------------------------------+
//! ```
//!
//! Baselines of Uno's evaluation (5.1), block level: [`mprdma::MprdmaCc`] (MPRDMA-style ECN
//! window CC, the intra-DC half of MPRDMA+BBR), [`bbr::Bbr`] (BBRv1, its inter-DC half) and
//! [`gemini::GeminiCc`].
//!
//! The phantom queue that produces UnoCC's ECN marks is a switch block
//! (`switch::output_port::PhantomPortConfig`).

pub mod bbr;
pub mod cc;
#[cfg(feature = "ec")]
pub mod ec;
pub mod gemini;
pub mod lb;
pub mod mprdma;
pub mod rc;

pub use cc::{UnoCc, UnoCcConfig, UnoCcState, UnoCcWord};
pub use lb::UnoLb;
pub use rc::{RcReceiver, RcSender, UnoRcConfig};
