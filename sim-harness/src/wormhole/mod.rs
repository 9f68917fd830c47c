//! Wormhole (`../shared/papers/wormhole.md`): the mechanism pieces of port-level
//! partitioning, steady-state fast-forwarding and memoization, as standalone modules the
//! engine calls (issue 12).
//!
//! * [`partition`]: Definition 1, Algorithms 1-2 (section 4.1, Appendix E).
//! * [`steady`]: the steady-state detector of Eq. 5-7 (section 5.1.2).
//! * [`guidance`]: the theta / l guidance of Eq. 11 and 13 (section 5.2).
//! * [`skip`]: the next interrupt and per-flow byte advance of a steady partition (section
//!   5.3), and the skip-back rule (section 6.3).
//! * [`memo`]: the flow conflict graph and the memo database (section 4).
//! * [`llm`]: Table 1's LLM-training workloads as a flow DAG (section 7 setup).
//! * [`rail`]: the rail-optimized fat-tree layout the workloads assume.

pub mod guidance;
pub mod llm;
pub mod memo;
pub mod partition;
pub mod rail;
pub mod skip;
pub mod steady;
