//! Entropy-value choosers (load balancers at the sender NIC).
//!
//! A packet's entropy value (EV) is hashed by every switch's ECMP stage together with the
//! source and destination, so choosing the EV chooses the path. A chooser sees the EV each
//! ACK echoes (REPS section 3.1: the receiver copies the DATA's EV into its ACK) and loss
//! signals from the transport.

pub mod ecmp;
pub mod ops;

pub use ecmp::Ecmp;
pub use ops::Ops;

use rtl_models::{Cycles, RandomSource};

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
}
