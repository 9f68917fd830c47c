//! LLM-training iteration workloads (Wormhole section 7 setup and Table 1) as a flow DAG.
//!
//! Table 1 (each GPU is a host; TP is inside a server, so TP/SP traffic is not simulated, as
//! in the paper):
//!
//! | GPUs | GPT              | MoE                      |
//! |------|------------------|--------------------------|
//! | 64   | 7B TP8-DP4-PP2   | 8x7B TP8-EP8-DP4-PP2     |
//! | 128  | 13B TP8-DP4-PP4  | 8x13B TP8-EP8-DP4-PP4    |
//! | 256  | 22B TP8-DP8-PP4  | 8x22B TP8-EP8-DP8-PP4    |
//! | 1024 | 175B TP8-DP16-PP8| 32x22B TP8-EP8-DP16-PP8  |
//!
//! Model shapes (GPT-3 family / Megatron, `12 L h^2` parameters): 7B `L = 32, h = 4096`; 13B
//! `L = 40, h = 5120`; 22B `L = 48, h = 6144`; 175B `L = 96, h = 12288`; sequence `s = 2048`,
//! bf16 (`b = 2` bytes). An MoE `E x M` model has `M`'s shape with `E` experts per layer, each
//! expert a `8 h^2` FFN, top-2 routing. Micro-batch 1, `m = PP` micro-batches per iteration
//! (global batch `DP x PP`), GPipe schedule (all forwards, then all backwards).
//!
//! **Ranks.** `rank = tp + TP (dp + DP pp)` and host = rank: a server (TP = 8 GPUs) is one TP
//! group, rail = `tp`. A DP group is `(tp, pp)` fixed, `dp = 0..DP` (one rail); a pipeline is
//! `(tp, dp)` fixed. **EP groups** (dcfab's choice; the paper does not say): within stage `pp`
//! number the GPUs `li = dp + DP tp` and cut them into groups of `EP` consecutive `li` (DP
//! first, so with `DP >= EP` a group is rail-local; with Table 1's DP 4 < EP 8 it spans two
//! rails of DP servers). Requires `EP | TP DP`.
//!
//! **Message sizes** (bytes, per flow):
//!
//! * PP activation (forward) and its gradient (backward), per micro-batch, each TP rank sends
//!   its slice to the same TP rank of the next (previous) stage: `A = b s h / TP`.
//! * DP gradients held by one GPU: GPT `G = b (L/PP) 12 h^2 / TP`; MoE
//!   `G = b (L/PP) (4 h^2 / TP + (E/EP) 8 h^2)` (attention sharded by TP, `E/EP` whole experts
//!   per GPU). Ring allreduce over the DP group of `D` GPUs: `D - 1` reduce-scatter steps then
//!   `D - 1` all-gather steps; in each step every member sends one chunk `ceil(G / D)` to its
//!   ring successor `dp + 1 mod D`: `2 (D - 1) D` flows per DP group.
//! * EP all-to-all, per micro-batch and stage (the stage's `L/PP` MoE layers aggregated into
//!   one all-to-all per direction): each GPU holds `s / TP` tokens (sequence parallel), routes
//!   each to `top_k` experts uniformly, so sends to each other group member
//!   `X = (L/PP) (s / TP) top_k h b / EP`. Forward: dispatch then combine; backward: the same
//!   two again. `EP (EP - 1)` flows per group per all-to-all.
//!
//! **Dependencies** (a task starts when all its `deps` finished): a stage's compute for
//! micro-batch `j` follows its compute for `j - 1` and the activation (gradient) flow from the
//! previous (next) stage; an MoE stage's dispatch flows follow its compute, its combine flows
//! follow every dispatch flow into the sender, and the PP flow out follows every combine flow
//! into the sender; the first backward follows the last forward; a DP ring step follows the
//! sender's previous step and the chunk it received in the previous step; step 0 follows
//! the sender's last backward compute (and its last backward combine flows, MoE). Compute
//! times per micro-batch and stage are [`ComputeTimes`] (from the scenario, or from FLOPs and a
//! GPU rate: forward `2 s (L/PP) 12 h^2 / TP` FLOPs for GPT, `2 (L/PP) (s 4 h^2 / TP +
//! (s/TP) top_k 8 h^2)` for MoE; backward twice forward).
//!
//! Tasks are stored in a topological order (every dependency has a smaller id). The engine
//! consumes [`LlmDag`] by starting every task whose dependencies are done: a flow at that
//! time (plus nothing else), a compute task as a timer of `duration_ps` on its host.

mod config;
mod dag;
#[cfg(test)]
mod tests;

pub use config::*;
pub use dag::*;
