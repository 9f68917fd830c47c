//! # DCSIM host engine (DCSIM paper, section 2.4 and 2.5; section 4.4 variants)
//!
//! The sender and receiver sides of DCSIM at a host NIC. The NIC's output port is the same
//! four-queue arbiter as a switch port (`switch::dcsim::DcsimArbiter`); the harness wires
//! the two together (a block never knows the DES).
//!
//! ```text
//!   application --push_data--> +--------------------------- DcsimHost ----------------+
//!                              | FlowScheduler: RR collectives, then flows            |
//!                              | DcsimFlow x F:  n_sim <= n_data (Eq. 3)              |
//!   SIM-ACK(ev) -------------> |   SIM table (S): EV, t_SIM, timeout                  |
//!   DATA-ACK(cum, sack) -----> |   DATA window (N): 4 states, t_DATA = t_SIM + RTTmax |
//!   advance_to(t) -----------> |   timers: SIM timeout, release, DATA timeout         |
//!                              +--next_sim()--> (flow, EV) ---> NIC SIM queue         |
//!                              +--pop_release()--> (flow, seq, EV, t_DATA) --> DATA q |
//!
//!   SIM(ev) ----> sim_ack_for(ev) ----> SIM-ACK(ev)              (receiver, stateless)
//!   DATA(seq) --> DcsimReceiver: cum + 64-bit SACK --> DATA-ACK every 16 DATAs or
//!                                                      ack_interval (3 RTT_p)
//! ```
//!
//! * [`config`] holds [`DcsimHostConfig`], [`DcsimVariant`] (Sync / Async / Fractional)
//!   and [`rtt_max_ps`] (Theorem 2, Eq. 5).
//! * [`flow`] holds [`DcsimFlow`], the per-flow state machine, and its [`DataState`]s.
//! * [`scheduler`] holds the [`FlowScheduler`].
//! * [`host`] holds [`DcsimHost`]: events in, actions out, `Clocked`.
//! * [`receiver`] holds [`DcsimReceiver`] and [`DataAck`].
//! * [`packed`] holds the packed hardware forms and budgets.
//! * [`index`] holds the model-side indexes (flow and SIM-entry bit sets, the EV index)
//!   that spare the model scans of its tables.
//!
//! Units: host cycles (convert RTTs with [`rtt_max_cycles`]), DATAs, EVs.

pub mod config;
pub mod flow;
pub mod host;
pub mod index;
pub mod packed;
pub mod receiver;
mod regs;
pub mod scheduler;

pub use config::{
    rtt_max_cycles, rtt_max_ps, DcsimHostConfig, DcsimVariant, RttMaxInputs, MAX_TIMER_CYCLES,
};
pub use flow::{DataSlot, DataState, DcsimFlow, FireCounts, Release, Seq, SimAckOutcome, SimEntry};
pub use host::{DcsimHost, FlowSlot, HostRelease, HostStats, OpenError, OUTBOX_CAP};
pub use packed::FlowCtx;
pub use receiver::{
    sim_ack_for, DataAck, DataArrival, DcsimReceiver, DcsimReceiverConfig, ReceiverStats,
};
pub use scheduler::FlowScheduler;

/// SIM entries per flow of the budget row: one 800 Gb/s flow with 9 KB DATAs keeps about
/// `RTT_max * C / (L + 2.1 l)` = 22 us * 10.9 SIMs/us = 240 SIMs outstanding.
pub const BUDGET_S: usize = 256;
/// DATA-window slots per flow of the budget row: SIMs outstanding plus DATAs waiting for
/// `t_DATA`, in flight and waiting for their DATA-ACK (about 350 at line rate).
pub const BUDGET_N: usize = 512;

/// Budget rows of the DCSIM host blocks, for `nic::budgets()`.
pub const BUDGET_ROWS: [rtl_models::BudgetRow; 5] = [
    rtl_models::BudgetRow::of::<DcsimFlow<BUDGET_S, BUDGET_N>>("nic"),
    rtl_models::BudgetRow::of::<SimEntry>("nic"),
    rtl_models::BudgetRow::of::<DataSlot>("nic"),
    rtl_models::BudgetRow::of::<FlowScheduler<128, 8>>("nic"),
    rtl_models::BudgetRow::of::<DcsimReceiver>("nic"),
];
