//! # golden — golden traces for every dcfab block
//!
//! Trace schema, recorder, VCD export and the block-level golden scenarios that
//! `dcfab golden verify` re-runs.
//!
//! ```text
//!  scenarios::{rtl,reps,dcsim}  ──run()──► Recorder ──► Trace ──┬─► traces/<name>.jsonl (checked in)
//!        (registry::all)                                        └─► vcd::write_vcd (GTKWave / Surfer)
//! ```
#![forbid(unsafe_code)]

pub mod recorder;
pub mod registry;
pub mod scenarios;
pub mod schema;
pub mod vcd;
pub mod verify;

pub use recorder::Recorder;
pub use registry::GoldenScenario;
pub use schema::{Record, Trace, TraceHeader, SCHEMA_VERSION};
pub use verify::{
    bless_all, first_difference, orphans, trace_path, traces_dir, verify_all, verify_one,
    VerifyOutcome,
};
