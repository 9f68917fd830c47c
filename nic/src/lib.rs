//! # nic — NIC datapath blocks
//!
//! `no_std`, no `alloc`; every block follows the `rtl-models` discipline (`Clocked`,
//! `StateBudget`, `RandomSource`). Blocks never know about the DES that drives them.
//!
//! * [`lb`]: entropy-value (EV) choosers behind one [`lb::LoadBalancer`] trait: ECMP, OPS,
//!   REPS (and later UnoLB).
//! * [`transport`]: the baseline DCTCP-style window CC sender (out-of-order tolerant, SACK,
//!   RTO, trimming NACKs) and its SACK receiver.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod dcsim;
pub mod lb;
pub mod reps;
pub mod transport;
pub mod zeropod;

/// State budgets of every NIC block, for `dcfab budget`.
pub fn budgets() -> &'static [rtl_models::BudgetRow] {
    const ROWS: &[rtl_models::BudgetRow] = &[
        reps::BUDGET_ROWS[0],
        reps::BUDGET_ROWS[1],
        reps::BUDGET_ROWS[2],
        reps::BUDGET_ROWS[3],
        reps::BUDGET_ROWS[4],
        rtl_models::BudgetRow::of::<lb::ecmp::Ecmp>("nic"),
        rtl_models::BudgetRow::of::<lb::ops::Ops>("nic"),
        rtl_models::BudgetRow::of::<transport::DctcpSender<{ transport::HARNESS_WORDS }>>("nic"),
        rtl_models::BudgetRow::of::<transport::SackReceiver<{ transport::HARNESS_WORDS }>>("nic"),
        dcsim::BUDGET_ROWS[0],
        dcsim::BUDGET_ROWS[1],
        dcsim::BUDGET_ROWS[2],
        dcsim::BUDGET_ROWS[3],
        dcsim::BUDGET_ROWS[4],
        zeropod::BUDGET_ROWS[0],
        zeropod::BUDGET_ROWS[1],
    ];
    ROWS
}
