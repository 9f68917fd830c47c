//! # rtl-models — the hardware vocabulary of dcfab
//!
//! `no_std`, no `alloc`. Every block in `nic`, `switch` and `scheduler-asic` is built from
//! these pieces, and every piece follows the same discipline (see `DESIGN.md`):
//!
//! * it is a synchronous state machine with per-cycle inputs and [`Clocked::tick`], plus an
//!   O(1) [`Clocked::advance`] that jumps over idle cycles (the DES uses `advance`,
//!   co-simulation uses `tick`: one model, two speeds);
//! * it states the bits it needs in hardware through [`StateBudget`] and proves the figure
//!   against its packed form at compile time;
//! * it uses integer / fixed-point arithmetic only ([`fixed::Rate`] is bytes or tokens per
//!   cycle in Q32.32);
//! * when it needs randomness it takes a [`RandomSource`], by default the Galois
//!   [`lfsr::Lfsr32`] an RTL design can reproduce bit for bit.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod budget;
pub mod clock;
pub mod clocked;
pub mod counter;
pub mod error;
pub mod fifo;
pub mod fixed;
pub mod lfsr;
pub mod phantom;
pub mod red;
pub mod round_robin;
#[doc(hidden)]
pub mod testing;
pub mod token_bucket;
pub mod zeropod_cell;

pub use budget::{BudgetRow, StateBudget};
pub use clock::{Clock, Cycles};
pub use clocked::Clocked;
pub use counter::SatCounter;
pub use error::ConfigError;
pub use fifo::{Fifo, Full, Ring};
pub use fixed::Rate;
pub use lfsr::{Lfsr32, RandomSource};
pub use phantom::{PhantomConfig, PhantomQueue};
pub use red::{RedConfig, RedMarker};
pub use round_robin::RoundRobinArbiter;
pub use token_bucket::TokenBucket;

/// State budgets of every rtl-models block, for `dcfab budget`.
pub fn budgets() -> &'static [BudgetRow] {
    const ROWS: &[BudgetRow] = &[
        BudgetRow::of::<Lfsr32>("rtl-models"),
        BudgetRow::of::<TokenBucket>("rtl-models"),
        BudgetRow::of::<PhantomQueue>("rtl-models"),
        BudgetRow::of::<RedMarker>("rtl-models"),
        BudgetRow::of::<RoundRobinArbiter<16>>("rtl-models"),
        zeropod_cell::BUDGET_ROWS[0],
        zeropod_cell::BUDGET_ROWS[1],
        zeropod_cell::BUDGET_ROWS[2],
        zeropod_cell::BUDGET_ROWS[3],
        zeropod_cell::BUDGET_ROWS[4],
        zeropod_cell::BUDGET_ROWS[5],
        zeropod_cell::BUDGET_ROWS[6],
        zeropod_cell::BUDGET_ROWS[7],
        zeropod_cell::BUDGET_ROWS[8],
    ];
    ROWS
}
