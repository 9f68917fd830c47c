//! # DCSIM in the fabric DES (DCSIM paper, sections 2.3-2.5 and 4.1-4.4)
//!
//! `transport.cc = "dcsim"` runs DCSIM on every host and every output port: each port
//! (switch output and host NIC alike, section 2.3) is a `switch::dcsim::DcsimArbiter`
//! (four strict-priority non-preemptive queues SIM / SIM-ACK / DATA-ACK / DATA, SIM token
//! bucket `C / (alpha + h)`), each host runs a `nic::dcsim::DcsimHost` (SIMs while
//! `n_SIM <= n_DATA`, DATA at `t_SIM + RTT_max`, timeouts) and a `DcsimReceiver` per flow.
//!
//! ```text
//!   source host S                     switches (ECMP on src, dst, EV)        destination D
//!  DcsimHost --next_sim--> NIC port  --SIM(ev)-->  [SIM q, token] ... -->  SIM-ACK(ev) at once
//!   (fresh random EV)      (arbiter)                                          |
//!  on_sim_ack <------------------------ SIM-ACK (own hash, any path) <--------+
//!   t_DATA = t_SIM + RTT_max (Eq. 4)
//!  pop_release --DATA(seq, same ev)--> same path as its SIM --> DcsimReceiver: DATA-ACK
//!  on_data_ack <-------------------- DATA-ACK every 16 DATAs / 3 RTT_p <------+
//! ```
//!
//! * [`config`]: [`DcsimParams`] from the scenario and the topology (B, l, L, h, buffers,
//!   `RTT_max` of Eq. 5 from the longest path).
//! * [`port`]: [`DcsimPort`], the arbiter on the port's clock, holding the DES packets.
//! * [`host`]: the host engines (three fixed sizes), the per-flow receivers, counters.
//! * [`section`]: `[transport.dcsim]`, the scenario section DCSIM owns, and its checks.
//!
//! Shared with every transport (outside this module): the collectives of section 4.1
//! ([`crate::workload::collectives`]) and the metrics of section 4.1 ([`crate::metrics`]).
//!
//! The transport driver (host events, timers, drops) is [`crate::transport::dcsim`], the
//! port glue (service, wake-ups, rate changes) `crate::port::dcsim`; the oversubscribed
//! fabric of section 4.2 is `crate::topology::cores`. Scenario fields: `[transport.dcsim]`
//! ([`section`]), `topology.core_links`, `topology.slow_core_fraction`, `workload.collectives`,
//! `workload.collective_sizes` (README "Scenario format").
//!
//! Units: picoseconds in the DES; port cycles in the arbiters; host cycles in the engines.

pub mod config;
pub mod host;
pub mod port;
pub mod section;

pub use config::DcsimParams;
pub use host::{Counters, DcsimState};
pub use port::DcsimPort;
