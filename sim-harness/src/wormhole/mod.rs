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
//!
//! # Engine integration (what to call, and when)
//!
//! Implemented in `engine/skip/` (see its module docs for the choices: a skipped partition
//! is paused until its interrupt and resumed shifted, so skip-back is an earlier resume; memo
//! lookups once per sampling tick). [`checks`] validates the `[skip]` and `[workload.llm]`
//! fields. The plan as written before the wiring:
//!
//! * Run start: `guidance::Guidance::new(&GuidanceInput { link_gbps, rtt_ps, flows, mtu_bytes,
//!   sample_interval_ps, header_bytes, packets_metric })?` checks the inputs; at the run's
//!   end, with `flows` the most flows seen on one host port at a time, its values
//!   (`extra.wormhole_guidance_*`) and its `warnings(skip.theta, skip.samples)` go into the
//!   summary / stderr.
//! * Flow injection: `Partitions::start_flow(flow, &path_ports)`. `Created(p)` / `Joined(p)`:
//!   the flow's events belong to `p`; `Merged { into, absorbed }`: move the absorbed
//!   partitions' event queues into `into` (each first ends its skip: the arrival is its
//!   interrupt). Reset the `SteadyDetector` of every flow of the partition (section 5.3), build
//!   `FlowConflictGraph::from_paths` of the partition (rate classes from `memo::rate_class`)
//!   and `MemoDb::lookup` it: a hit gives per-flow transient bytes, end rates and `T_conv`
//!   (advance the flows, shift the partition by `T_conv`, enter steady state with those
//!   rates); a miss is remembered (graph, bytes sent so far, time) for the insert below.
//! * Every rate-sample tick of an active flow: `SteadyDetector::push(rate_bps)`. When every
//!   flow of a partition `is_steady()`: first `MemoDb::insert` a remembered miss (end rates =
//!   `estimate()`s, transient bytes, convergence time), then `skip::plan_skip(now, flows,
//!   known_events_touching_partition, horizon)`; apply the plan: freeze the partition's port
//!   queues (6.2), shift its pending events by `plan.shift_ps()` (6.3), advance each flow's
//!   bytes / sequence numbers / block state by `plan.advance`.
//! * An interrupt nobody knew in advance (a DAG flow of `llm`, whose start depends on
//!   completions; an unscheduled failure) reaching a skipped partition at `t < until`:
//!   `skip::skip_back(&plan, &flows, t)` -> take back `undo` bytes, unshift events by
//!   `unshift_ps`.
//! * Flow completion: `Partitions::finish_flow(flow)`. `Split { kept, new }`: hand the events
//!   of `kept` to their new partitions with `partition_of_port` / `partition_of_flow`.
//! * `llm` workload: `llm::table1(gpus, family, compute)` (or an `LlmConfig` from scenario
//!   fields) -> `llm::generate` -> `LlmDag`: start every task whose `deps` are done (a flow at
//!   once, a compute task as a timer on its host); hosts map onto dcfab's fat tree with
//!   `rail::RailLayout::fat_tree_host` (ToR host ports = `servers_per_tor`).

pub mod checks;
pub mod guidance;
pub mod llm;
pub mod memo;
pub mod partition;
pub mod rail;
pub mod skip;
pub mod steady;
