//! # switch — switch datapath blocks
//!
//! `no_std`, no `alloc`; every block follows the `rtl-models` discipline (`Clocked`,
//! `StateBudget`, `RandomSource`). Blocks never know about the DES that drives them.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adaptive_routing;
pub mod dcsim;
pub mod output_port;
pub mod pfabric;
pub mod zeropod;

/// State budgets of every switch block, for `dcfab budget`.
pub fn budgets() -> &'static [rtl_models::BudgetRow] {
    const ROWS: &[rtl_models::BudgetRow] = &[
        rtl_models::BudgetRow::of::<dcsim::DefaultDcsimArbiter>("switch"),
        rtl_models::BudgetRow::of::<output_port::OutputPortCtl>("switch"),
        rtl_models::BudgetRow {
            block: "Adaptive RoCE uplink selector, 8 uplinks (16-bit load each)",
            ..rtl_models::BudgetRow::of::<adaptive_routing::AdaptiveRouting8>("switch")
        },
        rtl_models::BudgetRow {
            block: "pFabric port, 24 packets (priority buffer + serializer)",
            ..rtl_models::BudgetRow::of::<pfabric::PfabricPort<24>>("switch")
        },
        rtl_models::BudgetRow {
            block: "pFabric port of the fabric, 512 packets (cc = pfabric; runtime capacity)",
            ..rtl_models::BudgetRow::of::<pfabric::PfabricPort<{ pfabric::FABRIC_SLOTS }>>("switch")
        },
        rtl_models::BudgetRow {
            block: "Output port, 256 descriptors (ctl + data/header FIFOs + serializer)",
            ..rtl_models::BudgetRow::of::<output_port::OutputPort<256>>("switch")
        },
        rtl_models::BudgetRow {
            block: "Zeropod bufferless crossbar, k = 32 (32 ports)",
            ..rtl_models::BudgetRow::of::<zeropod::bufferless::K32Switch>("switch")
        },
        rtl_models::BudgetRow {
            block: "Zeropod Core port, k = 8 pod (16 VOQs x 512 cells)",
            ..rtl_models::BudgetRow::of::<zeropod::core_port::K8CorePort>("switch")
        },
        rtl_models::BudgetRow {
            block: "Zeropod Core switch, k = 8 fabric (8 pods x 16 VOQs x 512 cells)",
            ..rtl_models::BudgetRow::of::<zeropod::CoreSwitch<8, 16, 512>>("switch")
        },
    ];
    ROWS
}
