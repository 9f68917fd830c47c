//! # nic — NIC datapath blocks
//!
//! `no_std`, no `alloc`; every block follows the `rtl-models` discipline (`Clocked`,
//! `StateBudget`, `RandomSource`). Blocks never know about the DES that drives them.
//!
//! * [`lb`]: entropy-value (EV) choosers behind one [`lb::LoadBalancer`] trait: ECMP, OPS,
//!   REPS (and later UnoLB), and the REPS evaluation's baselines (section 4.1): PLB,
//!   flowlet switching, MPRDMA, MPTCP-like, BitMap.
//! * [`transport`]: the baseline DCTCP-style window CC sender (out-of-order tolerant, SACK,
//!   RTO, trimming NACKs) and its SACK receiver.
//! * DCSIM's baselines (DCSIM section 4.1): [`pfabric`] (host rate control), [`phost`]
//!   (receiver token scheduler and sender), [`dcpim`] (matching in constant rounds per epoch).
//! * [`uno`]: Uno's UnoCC, UnoLB and UnoRC blocks (the Reed-Solomon codec behind the `ec`
//!   feature, which needs `alloc`).
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod dcpim;
pub mod dcsim;
pub mod lb;
pub mod pfabric;
pub mod phost;
pub mod reps;
pub mod transport;
pub mod uno;
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
        lb::BUDGET_ROWS[0],
        lb::BUDGET_ROWS[1],
        lb::BUDGET_ROWS[2],
        lb::BUDGET_ROWS[3],
        lb::BUDGET_ROWS[4],
        rtl_models::BudgetRow::of::<transport::DctcpSender<{ transport::HARNESS_WORDS }>>("nic"),
        rtl_models::BudgetRow::of::<transport::SackReceiver<{ transport::HARNESS_WORDS }>>("nic"),
        rtl_models::BudgetRow::of::<transport::MprdmaDctcpSender<{ transport::HARNESS_WORDS }>>(
            "nic",
        ),
        dcsim::BUDGET_ROWS[0],
        dcsim::BUDGET_ROWS[1],
        dcsim::BUDGET_ROWS[2],
        dcsim::BUDGET_ROWS[3],
        dcsim::BUDGET_ROWS[4],
        phost::BUDGET_ROWS[0],
        phost::BUDGET_ROWS[1],
        rtl_models::BudgetRow::of::<pfabric::PfabricRate>("nic"),
        rtl_models::BudgetRow {
            block: "dcPIM matching engine, 128 hosts",
            ..rtl_models::BudgetRow::of::<dcpim::DcpimMatcher<128>>("nic")
        },
        rtl_models::BudgetRow::of::<uno::UnoCc>("nic"),
        rtl_models::BudgetRow {
            block: "UnoLB, 8 subflows (Uno Alg. 2)",
            ..rtl_models::BudgetRow::of::<uno::UnoLb<8>>("nic")
        },
        rtl_models::BudgetRow {
            block: "UnoRC sender, 4 queued NACKs (Uno 4.2)",
            ..rtl_models::BudgetRow::of::<uno::RcSender<4>>("nic")
        },
        rtl_models::BudgetRow {
            block: "UnoRC receiver, 8 blocks in flight (Uno 4.2)",
            ..rtl_models::BudgetRow::of::<uno::RcReceiver<8>>("nic")
        },
        rtl_models::BudgetRow::of::<uno::mprdma::MprdmaCc>("nic"),
        rtl_models::BudgetRow::of::<uno::gemini::GeminiCc>("nic"),
        rtl_models::BudgetRow::of::<uno::bbr::Bbr>("nic"),
        zeropod::BUDGET_ROWS[0],
        zeropod::BUDGET_ROWS[1],
    ];
    ROWS
}
