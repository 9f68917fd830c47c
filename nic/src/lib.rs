//! # nic — NIC datapath blocks
//!
//! `no_std`, no `alloc`; every block follows the `rtl-models` discipline (`Clocked`,
//! `StateBudget`, `RandomSource`). Blocks never know about the DES that drives them.
//!
//! * [`lb`]: entropy-value (EV) choosers behind one [`lb::LoadBalancer`] trait: ECMP, OPS,
//!   REPS (and later UnoLB).
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod lb;

/// State budgets of every NIC block, for `dcfab budget`.
pub fn budgets() -> &'static [rtl_models::BudgetRow] {
    &[]
}
