//! # DCSIM switch queueing (DCSIM paper, section 2.3, Fig. 1; Theorems 1 and 3)
//!
//! One output port of a DCSIM switch (and of a DCSIM host NIC: the paper puts the same
//! mechanism "at each switch output and at hosts"). Four queues, one per packet type, are
//! served by a strict-priority, **non-preemptive** arbiter; SIMs (highest priority) are
//! released through a token bucket of rate `C / (alpha + h)` (Eq. 2, `h = 2.1`; `h = 1` is
//! Eq. 1) and depth 2 (Theorem 3).
//!
//! ```text
//!   enqueue(Sim, d)     --> [ SIM      <= B pkts ]--(token?)--+
//!   enqueue(SimAck, d)  --> [ SIM-ACK  <= B pkts ]------------+  strict priority,   line: W bytes/cycle
//!   enqueue(DataAck, d) --> [ DATA-ACK <= B pkts ]------------+--non-preemptive --> ceil(size/W) cycles
//!   enqueue(Data, d)    --> [ DATA <= port buffer - 3*B*l ]---+  (decides only        per packet
//!                              (bytes)                      ^     when line free)
//!                     token bucket: rate 1/(ceil(L/W) + h*ceil(l/W)) tokens/cycle, depth 2
//! ```
//!
//! * [`arbiter`] holds [`DcsimArbiter`], its configuration, the per-cycle (`tick`) and
//!   the event-driven (`next_departure` / `take_next`) interfaces.
//! * [`regs`] holds the packed control-register form that states the hardware budget.
//!
//! Units: sizes in bytes, time in cycles of the port clock, token rate in tokens/cycle
//! (Q32.32), token fill in Q32.32 tokens.

pub mod arbiter;
pub mod regs;

pub use arbiter::{
    Class, DcsimArbiter, DcsimArbiterConfig, DcsimArbiterStats, Departure, Enqueue, Plan,
    DEFAULT_DATA_SLOTS, DEFAULT_SMALL_SLOTS,
};
pub use regs::{ArbiterRegs, ArbiterRegsPacked};

/// The default port: 12-deep small queues, 64 DATA descriptor slots, `u32` packet handles.
pub type DefaultDcsimArbiter = DcsimArbiter<u32, DEFAULT_SMALL_SLOTS, DEFAULT_DATA_SLOTS>;
