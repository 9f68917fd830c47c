//! # REPS — Recycled Entropy Packet Spraying (sender-side load balancer)
//!
//! Algorithms 1 and 2 of the REPS paper (section 3), with the state of REPS Table 1 packed
//! in the 25-byte per-connection word a NIC SRAM row holds, freezing mode (section 3.2)
//! driven by the Appendix A failure-detection policy, and the ACK-coalescing variants of
//! section 4.5.1.
//!
//! ```text
//!                     ┌──────────────────────────── REPS (one connection) ───────────────────┐
//!  ACK (ev, ecn) ────►│ A1 ONACK: ecn? drop : cache ev at head ──► circular buffer (8 slots) │
//!  now (cycles)  ────►│           freezing && now > exitFreezingMode ? thaw, explore = BDP   │
//!                     │                                                  │ cachedEV,isValid  │
//!  failure ─────────► │ A1 ONFAILUREDETECTION: freeze until now + FREEZING_TIMEOUT          │
//!  (FailureDetector)  │                                                  ▼                   │
//!  send request ─────►│ A2 ONSEND: explore? 1-in-8 random : empty|no valid? random :        │──► EV of the
//!  RandomSource ─────►│            GETNEXTEV (oldest valid, or frozen: slot at head)        │    DATA packet
//!                     │ state: 193-bit word [`RepsWord`] (Table 1) or compact [`CompactWord`]│
//!                     └──────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! ## Units
//!
//! * EVs: `ev_bits`-bit unsigned integers carried in [`crate::lb::Ev`] (`u16`);
//!   `EVS_SIZE = 2^ev_bits` (16 by default; 8 and 5 are supported, section 4.5.2).
//! * `now`: cycles of the NIC clock ([`rtl_models::Cycles`], u64), the same clock every call
//!   takes. `exitFreezingMode` stores the **low 32 bits** of it ([`nic_time`]) and
//!   A1 L15's `now() > exitFreezingMode` is a serial-number compare ([`cycles_after`]:
//!   `(now32 - exit) as i32 > 0`), exact as long as the ACK that ends freezing arrives
//!   less than 2^31 cycles (2.1 s at 1 GHz) after `exitFreezingMode`; that is why
//!   `FREEZING_TIMEOUT < 2^31`. A connection frozen and silent for longer may see its exit
//!   delayed by up to another 2^31 cycles (it leaves at the first ACK once the distance is
//!   back in the forward half).
//! * `FREEZING_TIMEOUT` in cycles, `NUM_PKTS_CWND` in packets, `exploreCounter` in packets.
//!
//! ## Interpretations of the pseudocode
//!
//! 1. A2 lines 15-18 assign no EV when the decremented `exploreCounter` is not a multiple
//!    of `REPS_BUFFER_SIZE`. Here such a packet falls through to lines 19-22 (reuse a
//!    cached EV or draw at random as usual), so after freezing one packet in eight is
//!    forced to explore (section 3.2: "we occasionally use random EVs").
//! 2. `repsBuffer.isEmpty()` (A2 L19) is true until the first ACK EV is cached. Table 1
//!    has no field for it; the Table 1 word stores it in the spare MSB of the 8-bit `head`
//!    field (see [`word`]), so the word stays 193 bits and an all-zero word is the reset
//!    state of A1 L1-3.
//!
//! ## Variants
//!
//! * [`Reps`]: Table 1 word (193 bits / 25 bytes). [`RepsCompact16`], [`RepsCompact8`],
//!   [`RepsCompact5`]: compact words (177 / 113 / 89 bits) whose widths derive from the
//!   buffer size and EV width, validity bits derived (see [`compact`]).
//!   [`RepsUnpacked`]: the same algorithm on the unpacked [`RepsRepr`] (reference).
//! * ACK+Carry EVs: [`RepsEngine::on_coalesced_ack`]. ACK+Reuse EVs: `RepsConfig::reuse`.
//! * Freezing mode off (Appendix C.4): `RepsConfig::freezing = false`.

pub mod compact;
pub mod config;
pub mod engine;
pub mod failure;
pub mod state;
pub mod word;

pub use compact::{
    compact_bits, compact_bytes, CompactWord, CompactWord8x16, CompactWord8x5, CompactWord8x8,
};
pub use config::{packets_per_bdp, RepsConfig, RepsConfigError};
pub use engine::{
    cycles_after, nic_time, AckOutcome, EvChoice, RepsEngine, RepsStats, SendDecision,
};
pub use failure::{FailureDetector, FailureDetectorConfig, LossSignal, LossVerdict};
pub use state::{RepsRepr, RepsState, RepsWordError};
pub use word::{RepsWord, BUFFER_SIZE, WORD_BITS, WORD_LEN};

/// REPS on the Table 1 word: 8 entries, 16-bit EV fields, 193 bits in 25 bytes.
pub type Reps = RepsEngine<RepsWord<[u8; WORD_LEN]>, BUFFER_SIZE>;
/// REPS on the compact word for 16-bit EVs (177 bits, 23 bytes).
pub type RepsCompact16 = RepsEngine<CompactWord8x16, BUFFER_SIZE>;
/// REPS on the compact word for 8-bit EVs (113 bits, 15 bytes).
pub type RepsCompact8 = RepsEngine<CompactWord8x8, BUFFER_SIZE>;
/// REPS on the compact word for 5-bit EVs (89 bits, 12 bytes).
pub type RepsCompact5 = RepsEngine<CompactWord8x5, BUFFER_SIZE>;
/// REPS on the unpacked logical state (debugging reference).
pub type RepsUnpacked = RepsEngine<RepsRepr<BUFFER_SIZE>, BUFFER_SIZE>;

/// Budget rows of the REPS blocks (the Table 1 word, the compact words beside it, and the
/// failure detector), for [`crate::budgets`].
pub const BUDGET_ROWS: [rtl_models::BudgetRow; 5] = [
    rtl_models::BudgetRow::of::<Reps>("nic"),
    rtl_models::BudgetRow::of::<RepsCompact16>("nic"),
    rtl_models::BudgetRow::of::<RepsCompact8>("nic"),
    rtl_models::BudgetRow::of::<RepsCompact5>("nic"),
    rtl_models::BudgetRow::of::<FailureDetector>("nic"),
];
