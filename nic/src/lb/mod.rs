//! Entropy-value choosers (load balancers at the sender NIC).
//!
//! A packet's entropy value (EV) is hashed by every switch's ECMP stage together with the
//! source and destination, so choosing the EV chooses the path. A chooser sees the EV each
//! ACK echoes (REPS section 3.1: the receiver copies the DATA's EV into its ACK) and loss
//! signals from the transport.

pub mod bitmap;
pub mod ecmp;
pub mod flowlet;
pub mod mprdma;
pub mod mptcp;
pub mod ops;
pub mod pack;
pub mod plb;

pub use bitmap::{Bitmap, BitmapConfig};
pub use ecmp::Ecmp;
pub use flowlet::{Flowlet, FlowletConfig};
pub use mprdma::{Mprdma, MprdmaConfig};
pub use mptcp::{Mptcp, MptcpConfig, SubflowPick};
pub use ops::Ops;
pub use pack::WordError;
pub use plb::{Plb, PlbConfig};

use rtl_models::{Cycles, RandomSource};

/// Budget rows of the REPS-baseline choosers (PLB, flowlet, MPRDMA, MPTCP-like, BitMap),
/// for [`crate::budgets`].
pub const BUDGET_ROWS: [rtl_models::BudgetRow; 5] = [
    rtl_models::BudgetRow::of::<Plb>("nic"),
    rtl_models::BudgetRow::of::<Flowlet>("nic"),
    rtl_models::BudgetRow::of::<Mprdma>("nic"),
    rtl_models::BudgetRow::of::<Mptcp>("nic"),
    rtl_models::BudgetRow::of::<Bitmap>("nic"),
];

/// An entropy value as carried in the packet header (16 bits by default; narrower EV spaces
/// use the low bits).
pub type Ev = u16;

/// The interface every sender-side load balancer implements (REPS Algorithms 1 and 2 give
/// its shape: `ONSEND`, `ONACK`, `ONFAILUREDETECTION`).
pub trait LoadBalancer {
    /// The EV for the DATA packet being sent now (REPS Alg. 2 `ONSEND`).
    fn on_send<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> Ev;
    /// An ACK arrived carrying `ev`, ECN-marked or not (REPS Alg. 1 `ONACK`).
    fn on_ack(&mut self, now: Cycles, ev: Ev, ecn: bool);
    /// The transport suspects a failure on the path (REPS Alg. 1 `ONFAILUREDETECTION`;
    /// Appendix A says when the transport calls it). Choosers without failure handling
    /// ignore it.
    fn on_failure_detection(&mut self, now: Cycles) {
        let _ = now;
    }
    /// An ACK that also names the PSN it acknowledges (selectively). Choosers that track
    /// delivery order (MPRDMA's out-of-order aware path selection) override it; the
    /// default forgets the PSN and calls [`LoadBalancer::on_ack`].
    fn on_ack_psn(&mut self, now: Cycles, ev: Ev, ecn: bool, psn: u32) {
        let _ = psn;
        self.on_ack(now, ev, ecn);
    }
    /// A NACK arrived: the DATA packet that carried `ev` was trimmed (a congestion loss on
    /// that path). Default: ignored.
    fn on_nack(&mut self, now: Cycles, ev: Ev) {
        let _ = (now, ev);
    }
    /// The most packets the chooser lets the sender have beyond its oldest unacknowledged
    /// one (`snd_nxt - snd_una`), e.g. MPRDMA's out-of-order window `L`; `None` when the
    /// chooser sets no limit (the default).
    fn max_ooo_packets(&self) -> Option<u32> {
        None
    }
}
