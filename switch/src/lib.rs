//! # switch — switch datapath blocks
//!
//! `no_std`, no `alloc`; every block follows the `rtl-models` discipline (`Clocked`,
//! `StateBudget`, `RandomSource`). Blocks never know about the DES that drives them.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// State budgets of every switch block, for `dcfab budget`.
pub fn budgets() -> &'static [rtl_models::BudgetRow] {
    &[]
}
