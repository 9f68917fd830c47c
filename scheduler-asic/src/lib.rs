//! # scheduler-asic — Zeropod's centralized pipelined iterative scheduler
//!
//! `no_std`, no `alloc`. Request, Grant-1, Grant-2 and Accept as pipeline stages
//! (Zeropod paper); filled in by the Zeropod work.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// State budgets of every scheduler block, for `dcfab budget`.
pub fn budgets() -> &'static [rtl_models::BudgetRow] {
    &[]
}
