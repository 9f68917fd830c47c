//! # sim-harness — the dcfab fabric discrete-event simulator
//!
//! Assembles the `nic` and `switch` blocks into whole networks. Time is `u64` picoseconds;
//! each block runs on its own clock and the harness converts. See `DESIGN.md`.
//! `unsafe` appears in two small modules only: a cache prefetch hint ([`prefetch`]) and the
//! allocator setup ([`memory`]).
#![deny(unsafe_code)]

pub mod error;
pub mod results;
pub mod scenario;

pub use error::{Error, Result};
pub use results::RunResult;
pub use scenario::Scenario;
pub mod dcsim;
pub mod engine;
pub mod event;
pub mod flow;
pub mod lb_stats;
pub mod memory;
pub mod packet;
pub mod prefetch;
pub mod run;
pub mod topology;
pub mod transport;
pub mod validate;
pub mod workload;

pub use run::{simulate, RunControl};
pub mod output;
pub mod overrides;
