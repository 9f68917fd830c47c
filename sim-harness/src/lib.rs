//! # sim-harness — the dcfab fabric discrete-event simulator
//!
//! Assembles the `nic` and `switch` blocks into whole networks. Time is `u64` picoseconds;
//! each block runs on its own clock and the harness converts. See `DESIGN.md`.
//!
//! ```text
//!  scenario/   (TOML: [topology] [transport] [transport.reps] [transport.dcsim] [workload] ...)
//!     |  transport/reps.rs, dcsim/section.rs: each transport's own section and its checks
//!     v
//!  validate/   -- every refusal, including "not supported yet" and the checks that need the
//!     |           built network (failure link names, BDP-relative sizes, DCSIM parameters)
//!     v
//!  run.rs::simulate --> engine/ (one file per concern; the engine's private state is Sim)
//!     build.rs     topology/ (Fabric, routes) + workload/ (flows; collectives.rs) -> Sim
//!     run.rs       event loop over event.rs (calendar queue); stops: done, max time,
//!                  stall deadline (simulated time), caller's stop flag
//!     prefetch.rs  cache hints a few events ahead (big fabrics only)
//!     failures.rs  link down (down-count) / rate change (latest in force)
//!     shift.rs     pause a partition (ports + flows) and move it delta later
//!     skip/        Wormhole in the loop: partitions, steady skips, skip-back, memo, LLM DAG
//!     sampling.rs  queues.csv and rates.csv samples (output only; fairness from
//!                  metrics/fairness.rs: fairness.csv, Jain's index, 10% convergence)
//!     metrics.rs   collective metrics for every transport (metrics/: CCT, delay, reorder)
//!     results.rs   RunResult (flows, links, summary, tables)
//!  transport/    transport drivers (enum TransportDriver, static dispatch): the engine calls
//!                transport_open / _arrive / _pull / _timer / _departing / _departed /
//!                on_drop / _results and knows no transport
//!     ctx.rs     Cx: the narrow context a driver's per-event functions get instead of Sim
//!                (now, flows, counters, own state; send_ctrl, kick, nic_sync / nic_serve,
//!                arm own timers, drop, metrics, progress, flow_done)
//!     dctcp.rs   DCTCP-style window transport: DctcpSender + RTO + REPS failure detector,
//!                SackReceiver (FlowRx::Sack), per-host ready rings (Dctcp)
//!     dcsim.rs   DCSIM hosts (dcsim/ holds the blocks' glue: params, host engines, receivers)
//!     dcpim.rs   dcPIM (cc dcpim, a DCSIM baseline) + [transport.dcpim]: dcpim/matching.rs
//!                epoch clock + RTS/GRANT/ACCEPT registers, dcpim/flow.rs per-flow bitmaps,
//!                dcpim/rounds.rs the rounds as packets, state.rs, setup.rs, arrive.rs, send.rs
//!     side.rs    SideTable: header extras a Packet cannot carry (DCSIM DATA-ACK SACK words)
//!     reps.rs    [transport.reps]
//!     uno.rs     Uno and its baselines (cc uno / gemini / mprdma_bbr): uno/section.rs
//!                [transport.uno], uno/state.rs + setup.rs per-run state, uno/open.rs,
//!                arrive.rs, send.rs, results.rs the driver's entry points, uno/tx.rs sender
//!                (FlowCc, units, timeouts), uno/rx.rs receiver (UnoRC blocks, RS decode,
//!                block timer), uno/subflows.rs UnoLB
//!     phost.rs   pHost (cc phost, a DCSIM baseline) + [transport.phost]: nic::phost token
//!                blocks per host (HostTimer), phost/state.rs host and flow state,
//!                phost/section.rs, driver.rs, sender.rs, receiver.rs, dispatch.rs
//!  port/         port drivers (enum): host NIC | baseline switch port (OutputPortCtl) | DCSIM
//!                (self-scheduled: port/dcsim.rs, port_serve / port_arrive / port_rate_changed)
//!  clock.rs      ClockDomain (period + origin, shift): every ps <-> cycles conversion
//!  event.rs      calendar queue, partitions (Kind::owner: which port / flow owns an event)
//!
//!  How a DATA packet flows (DCTCP-style transport: transport/dctcp.rs + engine/ports.rs, links.rs):
//!
//!   dctcp.rs: pull         ports.rs: start_next    links.rs: transmit        links.rs: on_deliver
//!   flow ready ring  ----> NIC port (ctrl lane  --> port.link FIFO    -- Deliver --> peer?
//!   Cc (DctcpSender)       first, then DATA)        (arrival time)      event     |
//!   + Lb (ECMP/OPS/REPS)                                                         |
//!        ^                                             +-------------------------+
//!        |                                             | switch                  | host
//!        |                                             v                         v
//!        |           ports.rs: switch_arrive: Route::select -> PortDriver::admit dctcp.rs: arrive
//!        |             (tail drop / RED-ECN / trim) -> data FIFO | ctrl lane    SackReceiver -> ACK
//!        +------ ACK (sender_ack: window, RTT -> FailureDetector, Lb) <------- into its NIC's ctrl lane
//!
//!  DCSIM (`transport.cc = "dcsim"`): dcsim/ (DcsimPort arbiter on every port, host engines,
//!  receivers, its section) behind TransportDriver::Dcsim (transport/dcsim.rs) and
//!  PortDriver::Dcsim (port/dcsim.rs).
//! ```
//!
//! `unsafe` appears in two small modules only: a cache prefetch hint ([`prefetch`]) and the
//! allocator option ([`memory`]). The `dcfab` binary sets mimalloc as its global allocator;
//! the library leaves that choice to its users.
#![deny(unsafe_code)]
// The module docs describe the engine to its developers and link its crate-private hooks
// (`Sim::transport_arrive`, `ctx::Cx`, ...); `cargo doc --document-private-items` resolves them.
#![allow(rustdoc::private_intra_doc_links)]

pub mod error;
pub mod estimate;
pub mod results;
pub mod scenario;

pub use error::{Error, Result};
pub use results::RunResult;
pub use scenario::Scenario;
pub mod clock;
pub mod dcsim;
pub mod engine;
pub mod event;
pub mod flow;
pub mod lb_stats;
pub mod memory;
pub mod metrics;
pub mod packet;
pub mod port;
pub mod prefetch;
pub mod run;
pub mod topology;
pub mod transport;
pub mod units;
pub mod validate;
pub mod workload;
pub mod wormhole;
pub mod zeropod;

pub use run::{simulate, RunControl};
pub mod output;
pub mod overrides;
pub mod plot;
