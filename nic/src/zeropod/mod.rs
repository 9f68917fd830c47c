//! # Zeropod NIC (Zeropod §III-B1, §III-B2, §IV-B, §IV-B3)
//!
//! ```text
//!  add_flow(dst, cells) --> [ per-destination VOQs of flows ] --rts()--> RTS (arrivals, top-k mice)
//!                                   |   PIAS levels: fewest cells sent first
//!  on_schd(SCHD) --> grant (epoch, slot, dst, volume, path)
//!  tick() (one data slot of the pod clock):
//!     granted slot  --> scheduled cell from VOQ[dst], most urgent flow first, SCHD's route
//!     otherwise     --> optimistic cell of a reported flow under 5 cells, random Agg
//!  receive side: Reassembly by (src, flow, sequence number), duplicates discarded
//! ```
//!
//! * [`sender`]: [`ZeropodNic`], the sending NIC (segmentation, VOQs, RTS, SCHD, optimism);
//! * [`reassembly`]: [`Reassembly`], the receiving NIC's per-flow sequence tracking.
//!
//! Units: cells of 512 B payload; time in data slots of the pod clock.

pub mod reassembly;
pub mod sender;

pub use reassembly::{Reassembly, RxOutcome};
pub use sender::{NicConfig, NicStats, ZeropodNic};

/// State budgets of the Zeropod NIC blocks.
pub const BUDGET_ROWS: [rtl_models::BudgetRow; 2] = [
    rtl_models::BudgetRow {
        block: "Zeropod NIC sender, 64 flows (VOQ flow table + grants)",
        ..rtl_models::BudgetRow::of::<ZeropodNic<64>>("nic")
    },
    rtl_models::BudgetRow {
        block: "Zeropod NIC reassembly, 64 flows (64-cell windows)",
        ..rtl_models::BudgetRow::of::<Reassembly<64>>("nic")
    },
];
