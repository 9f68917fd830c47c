//! # scheduler-asic — Zeropod's centralized pipelined iterative scheduler
//!
//! `no_std`, no `alloc`. Algorithm 1 of the Zeropod paper (§IV-A3) as a clocked pipeline:
//!
//! * [`pod`]: the pod's shape, a [`pod::Grant`], its source route and the route-walking
//!   conflict checker [`pod::check_grants`];
//! * [`ports`]: the port occupation state `S`;
//! * [`matrices`]: the E2E / E2P / C2E traffic matrices, top-k mice, backpressure;
//! * [`alloc`]: one allocator per phase (Request, Grant-1, Grant-2, Accept);
//! * [`scheduler`]: [`IterativeScheduler`], the pipeline;
//! * [`control_slots`]: the in-band control plane's slot rule (§IV-C).
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod alloc;
pub mod control_slots;
pub mod matrices;
pub mod pod;
pub mod ports;
pub mod scheduler;

pub use pod::{check_grants, Conflict, Grant};
pub use scheduler::{IterativeScheduler, K32Scheduler, K8Scheduler, SchedulerConfig, StageLatency};

/// State budgets of every scheduler block, for `dcfab budget`.
pub fn budgets() -> &'static [rtl_models::BudgetRow] {
    const ROWS: &[rtl_models::BudgetRow] = &[
        rtl_models::BudgetRow {
            block: "Zeropod scheduler, k = 8 pod (16 hosts, 8 pods, 7 Cores)",
            ..rtl_models::BudgetRow::of::<K8Scheduler>("scheduler-asic")
        },
        rtl_models::BudgetRow {
            block: "Zeropod scheduler, k = 32 pod (256 hosts)",
            ..rtl_models::BudgetRow::of::<K32Scheduler>("scheduler-asic")
        },
    ];
    ROWS
}
