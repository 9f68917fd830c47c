//! # golden — golden traces for every dcfab block
//!
//! Trace schema, recorder, VCD export and the block-level golden scenarios that
//! `dcfab golden verify` re-runs.
//!
//! ```text
//!  scenarios::{rtl,reps,dcsim,  ──run()──► Recorder ──► Trace ──┬─► traces/<name>.jsonl (checked in)
//!    switch,transport}                                          └─► vcd::write_vcd (GTKWave / Surfer)
//!   (registry::all)
//! ```
//!
//! * [`schema`]: the JSON Lines format (header line, then one record per observation).
//! * [`recorder::Recorder`]: what a test bench or the DES feeds (`record(cycle, signal, value)`).
//! * [`vcd`]: export for waveform viewers (`dcfab trace <name> --vcd out.vcd`); [`stream`]:
//!   the same from a trace file read record by record (traces larger than memory).
//! * [`registry`]: every golden scenario, one file per block family under [`scenarios`].
//! * [`verify`]: re-run and compare ([`verify_all`]), or rewrite on purpose ([`bless_all`]).
//!
//! Adding a golden scenario: write a deterministic `fn() -> Trace` in
//! `scenarios/<family>.rs`, list it in that file's `scenarios()`, then
//! `dcfab golden bless` (writes `traces/<name>.jsonl`; unchanged traces are not touched) and
//! `INSTA_UPDATE=always cargo test -p golden --test golden` (writes the snapshot); review and
//! commit both. `tests/golden.rs` holds every scenario to both from then on.
#![forbid(unsafe_code)]

pub mod recorder;
pub mod registry;
pub mod scenarios;
pub mod schema;
pub mod stream;
pub mod vcd;
pub mod verify;

pub use recorder::Recorder;
pub use registry::GoldenScenario;
pub use schema::{Record, Trace, TraceHeader, SCHEMA_VERSION};
pub use verify::{
    bless_all, first_difference, orphans, trace_path, traces_dir, verify_all, verify_one,
    VerifyOutcome,
};
