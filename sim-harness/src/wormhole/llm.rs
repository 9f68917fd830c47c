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

use crate::error::{Error, Result};

/// Largest `TP x DP x PP` accepted (keeps every size and count inside `u64` / `u32`).
pub const MAX_GPUS: u64 = 1 << 16;

/// A model shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// Name, e.g. "GPT-13B", "MoE-8x7B".
    pub name: &'static str,
    /// Transformer layers `L`.
    pub layers: u64,
    /// Hidden size `h`.
    pub hidden: u64,
    /// Experts per layer `E` (0: dense).
    pub experts: u64,
    /// Experts each token is routed to.
    pub top_k: u64,
}

/// A parallel layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    /// Tensor parallel degree (GPUs per server).
    pub tp: u32,
    /// Data parallel degree.
    pub dp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Expert parallel degree (1: dense).
    pub ep: u32,
}

/// Compute time of one stage for one micro-batch, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeTimes {
    /// Forward, ps.
    pub fwd_ps: u64,
    /// Backward, ps.
    pub bwd_ps: u64,
}

/// One training configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlmConfig {
    /// The model.
    pub model: ModelSpec,
    /// Its layout.
    pub par: Parallelism,
    /// Sequence length `s`.
    pub seq_len: u64,
    /// Bytes per element `b`.
    pub elem_bytes: u64,
    /// Compute per micro-batch and stage.
    pub compute: ComputeTimes,
}

/// GPT or MoE (Table 1's two columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// TP-DP-PP dense GPT.
    Gpt,
    /// TP-EP-DP-PP mixture of experts.
    Moe,
}

const fn shape(name: &'static str, layers: u64, hidden: u64, experts: u64) -> ModelSpec {
    ModelSpec {
        name,
        layers,
        hidden,
        experts,
        top_k: if experts > 0 { 2 } else { 0 },
    }
}

/// Table 1: the configuration for `gpus` (64, 128, 256, 1024) and `family`, with the given
/// compute times.
pub fn table1(gpus: u32, family: Family, compute: ComputeTimes) -> Result<LlmConfig> {
    let (gpt, moe, dp, pp) = match gpus {
        64 => (
            shape("GPT-7B", 32, 4096, 0),
            shape("MoE-8x7B", 32, 4096, 8),
            4,
            2,
        ),
        128 => (
            shape("GPT-13B", 40, 5120, 0),
            shape("MoE-8x13B", 40, 5120, 8),
            4,
            4,
        ),
        256 => (
            shape("GPT-22B", 48, 6144, 0),
            shape("MoE-8x22B", 48, 6144, 8),
            8,
            4,
        ),
        1024 => (
            shape("GPT-175B", 96, 12288, 0),
            shape("MoE-32x22B", 48, 6144, 32),
            16,
            8,
        ),
        _ => {
            return Err(Error::field(
                "workload.llm.gpus",
                format!("Table 1 has 64, 128, 256 or 1024 GPUs, got {gpus}"),
            ))
        }
    };
    let (model, ep) = match family {
        Family::Gpt => (gpt, 1),
        Family::Moe => (moe, 8),
    };
    let c = LlmConfig {
        model,
        par: Parallelism { tp: 8, dp, pp, ep },
        seq_len: 2048,
        elem_bytes: 2,
        compute,
    };
    c.validate()?;
    Ok(c)
}

impl LlmConfig {
    /// Hosts (GPUs): `TP DP PP`.
    pub fn hosts(&self) -> u32 {
        self.par.tp * self.par.dp * self.par.pp
    }

    /// Micro-batches per iteration, `m = PP`.
    pub fn micro_batches(&self) -> u32 {
        self.par.pp
    }

    /// Check the layout; errors name the field.
    pub fn validate(&self) -> Result<()> {
        let p = self.par;
        for (f, v) in [
            ("workload.llm.tp", p.tp),
            ("workload.llm.dp", p.dp),
            ("workload.llm.pp", p.pp),
            ("workload.llm.ep", p.ep),
        ] {
            if v == 0 {
                return Err(Error::field(f, "must be at least 1"));
            }
        }
        let gpus = p.tp as u64 * p.dp as u64 * p.pp as u64;
        if gpus > MAX_GPUS {
            return Err(Error::field(
                "workload.llm",
                format!("TP x DP x PP = {gpus} GPUs, more than the {MAX_GPUS} supported"),
            ));
        }
        let m = &self.model;
        for (f, v, max) in [
            ("workload.llm.layers", m.layers, 1 << 12),
            ("workload.llm.hidden", m.hidden, 1 << 17),
            ("workload.llm.experts", m.experts, 1 << 10),
            ("workload.llm.top_k", m.top_k, 1 << 10),
            ("workload.llm.seq_len", self.seq_len, 1 << 20),
            ("workload.llm.elem_bytes", self.elem_bytes, 8),
        ] {
            if v > max {
                return Err(Error::field(f, format!("{v} is above the supported {max}")));
            }
        }
        if m.layers == 0 || m.hidden == 0 || self.seq_len == 0 || self.elem_bytes == 0 {
            return Err(Error::field(
                "workload.llm.model",
                "layers, hidden size, sequence length and element size must be positive",
            ));
        }
        if !m.layers.is_multiple_of(p.pp as u64) {
            return Err(Error::field(
                "workload.llm.pp",
                format!("{} layers do not split into {} stages", m.layers, p.pp),
            ));
        }
        if !self.seq_len.is_multiple_of(p.tp as u64) {
            return Err(Error::field(
                "workload.llm.tp",
                format!("sequence {} does not split over TP {}", self.seq_len, p.tp),
            ));
        }
        if m.experts == 0 && p.ep != 1 {
            return Err(Error::field("workload.llm.ep", "a dense model has EP 1"));
        }
        if m.experts > 0 {
            if !(p.tp * p.dp).is_multiple_of(p.ep) {
                return Err(Error::field(
                    "workload.llm.ep",
                    format!("EP {} must divide TP x DP = {}", p.ep, p.tp * p.dp),
                ));
            }
            if !m.experts.is_multiple_of(p.ep as u64) {
                return Err(Error::field(
                    "workload.llm.ep",
                    format!("{} experts do not split over EP {}", m.experts, p.ep),
                ));
            }
            if m.top_k == 0 {
                return Err(Error::field("workload.llm.top_k", "must be at least 1"));
            }
        }
        Ok(())
    }

    /// Layers per stage `L / PP`.
    fn layers_per_stage(&self) -> u64 {
        self.model.layers / self.par.pp as u64
    }

    /// PP activation bytes per flow: `b s h / TP`.
    pub fn activation_bytes(&self) -> u64 {
        self.elem_bytes * self.seq_len * self.model.hidden / self.par.tp as u64
    }

    /// Gradient bytes one GPU allreduces over its DP group (`G`).
    pub fn gradient_bytes(&self) -> u64 {
        let h2 = self.model.hidden * self.model.hidden;
        let tp = self.par.tp as u64;
        let per_layer = if self.model.experts == 0 {
            12 * h2 / tp
        } else {
            4 * h2 / tp + (self.model.experts / self.par.ep as u64) * 8 * h2
        };
        self.elem_bytes * self.layers_per_stage() * per_layer
    }

    /// Ring allreduce chunk per flow: `ceil(G / DP)`.
    pub fn dp_chunk_bytes(&self) -> u64 {
        self.gradient_bytes().div_ceil(self.par.dp as u64)
    }

    /// EP all-to-all bytes per (sender, receiver) pair: `(L/PP) (s/TP) top_k h b / EP`.
    pub fn ep_bytes(&self) -> u64 {
        if self.model.experts == 0 {
            return 0;
        }
        self.layers_per_stage()
            * (self.seq_len / self.par.tp as u64)
            * self.model.top_k
            * self.model.hidden
            * self.elem_bytes
            / self.par.ep as u64
    }

    /// Compute times from FLOPs at `tflops` TFLOP/s per GPU (see module doc): ps = FLOPs /
    /// TFLOP/s.
    pub fn compute_from_tflops(&self, tflops: u64) -> Result<ComputeTimes> {
        if tflops == 0 {
            return Err(Error::field("workload.llm.gpu_tflops", "must be positive"));
        }
        let h2 = self.model.hidden * self.model.hidden;
        let (s, tp, lps) = (self.seq_len, self.par.tp as u64, self.layers_per_stage());
        let (h2, s, tp, lps) = (h2 as u128, s as u128, tp as u128, lps as u128);
        let fwd_flops = if self.model.experts == 0 {
            2 * s * lps * 12 * h2 / tp
        } else {
            2 * lps * (s * 4 * h2 / tp + (s / tp) * self.model.top_k as u128 * 8 * h2)
        };
        let fwd_ps = u64::try_from(fwd_flops / tflops as u128).unwrap_or(u64::MAX / 2);
        Ok(ComputeTimes {
            fwd_ps,
            bwd_ps: 2 * fwd_ps,
        })
    }

    /// Host of (tp, dp, pp).
    pub fn host(&self, tp: u32, dp: u32, pp: u32) -> u32 {
        tp + self.par.tp * (dp + self.par.dp * pp)
    }

    /// The DP groups: for each (tp, pp), the hosts in ring order.
    pub fn dp_groups(&self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for pp in 0..self.par.pp {
            for tp in 0..self.par.tp {
                out.push((0..self.par.dp).map(|dp| self.host(tp, dp, pp)).collect());
            }
        }
        out
    }

    /// The EP groups of stage `pp` (see module doc).
    pub fn ep_groups(&self, pp: u32) -> Vec<Vec<u32>> {
        let (tpn, dpn, ep) = (self.par.tp, self.par.dp, self.par.ep);
        let local: Vec<u32> = (0..tpn * dpn)
            .map(|li| self.host(li / dpn, li % dpn, pp))
            .collect();
        local.chunks(ep as usize).map(<[u32]>::to_vec).collect()
    }
}

/// The role of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Forward compute.
    Forward,
    /// Backward compute.
    Backward,
    /// PP activation, stage s -> s + 1.
    PpActivation,
    /// PP activation gradient, stage s + 1 -> s.
    PpGradient,
    /// EP dispatch all-to-all.
    EpDispatch,
    /// EP combine all-to-all.
    EpCombine,
    /// DP ring reduce-scatter step.
    DpReduceScatter,
    /// DP ring all-gather step.
    DpAllGather,
}

/// What a task does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// Compute on a host for a while.
    Compute {
        /// The GPU.
        host: u32,
        /// Duration, ps.
        duration_ps: u64,
    },
    /// A flow.
    Flow {
        /// Sender.
        src: u32,
        /// Receiver.
        dst: u32,
        /// Bytes.
        bytes: u64,
    },
}

/// One node of the iteration DAG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Compute or flow.
    pub kind: TaskKind,
    /// Its role.
    pub phase: Phase,
    /// Micro-batch (DP tasks: the last one, `m - 1`).
    pub micro_batch: u32,
    /// Tasks that must finish first (smaller ids).
    pub deps: Vec<u32>,
}

/// One training iteration: tasks in topological order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmDag {
    /// Hosts used (`0..hosts`).
    pub hosts: u32,
    /// The tasks; a task's id is its index.
    pub tasks: Vec<Task>,
}

impl LlmDag {
    /// The flows: (task id, src, dst, bytes).
    pub fn flows(&self) -> impl Iterator<Item = (u32, u32, u32, u64)> + '_ {
        self.tasks
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match t.kind {
                TaskKind::Flow { src, dst, bytes } => Some((i as u32, src, dst, bytes)),
                TaskKind::Compute { .. } => None,
            })
    }

    /// (flow count, bytes) of one phase.
    pub fn totals(&self, phase: Phase) -> (u64, u64) {
        self.tasks
            .iter()
            .filter(|t| t.phase == phase)
            .fold((0, 0), |(n, b), t| match t.kind {
                TaskKind::Flow { bytes, .. } => (n + 1, b + bytes),
                TaskKind::Compute { .. } => (n, b),
            })
    }

    /// Finish time of every task with no contention: compute takes its duration, a flow
    /// takes `flow_ps(bytes)`, each task starts when its last dependency finishes. The
    /// maximum is the contention-free iteration time (a lower bound for the DES).
    pub fn finish_times(&self, flow_ps: impl Fn(u64) -> u64) -> Vec<u64> {
        let mut fin = Vec::with_capacity(self.tasks.len());
        for t in &self.tasks {
            let start = t.deps.iter().map(|&d| fin[d as usize]).max().unwrap_or(0);
            let dur = match t.kind {
                TaskKind::Compute { duration_ps, .. } => duration_ps,
                TaskKind::Flow { bytes, .. } => flow_ps(bytes),
            };
            fin.push(start + dur);
        }
        fin
    }

    /// The iteration's results from the (start, finish) time of every task, as the DES
    /// measured them: per phase, the span from its first start to its last finish and its
    /// flows' mean and largest completion time; and the iteration time (last finish).
    pub fn iteration_times(&self, times: &[(u64, u64)]) -> Result<IterationTimes> {
        if times.len() != self.tasks.len() {
            return Err(Error::field(
                "times",
                format!(
                    "{} (start, finish) pairs for {} tasks",
                    times.len(),
                    self.tasks.len()
                ),
            ));
        }
        let mut phases: Vec<PhaseTimes> = Vec::new();
        let mut sums: Vec<u128> = Vec::new();
        for (i, (t, &(start, finish))) in self.tasks.iter().zip(times).enumerate() {
            if finish < start {
                return Err(Error::field(
                    "times",
                    format!("task {i}: finish {finish} ps before start {start} ps"),
                ));
            }
            let k = match phases.iter().position(|p| p.phase == t.phase) {
                Some(k) => k,
                None => {
                    sums.push(0);
                    phases.push(PhaseTimes {
                        phase: t.phase,
                        first_start_ps: start,
                        last_finish_ps: finish,
                        tasks: 0,
                        mean_fct_ps: 0,
                        max_fct_ps: 0,
                    });
                    phases.len() - 1
                }
            };
            let p = &mut phases[k];
            sums[k] += (finish - start) as u128;
            p.first_start_ps = p.first_start_ps.min(start);
            p.last_finish_ps = p.last_finish_ps.max(finish);
            p.tasks += 1;
            p.max_fct_ps = p.max_fct_ps.max(finish - start);
        }
        for (p, sum) in phases.iter_mut().zip(sums) {
            p.mean_fct_ps = (sum / p.tasks as u128) as u64;
        }
        phases.sort_by_key(|p| p.phase);
        Ok(IterationTimes {
            iteration_ps: times.iter().map(|t| t.1).max().unwrap_or(0),
            phases,
        })
    }
}

/// One phase of an iteration ([`LlmDag::iteration_times`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseTimes {
    /// The phase.
    pub phase: Phase,
    /// Its first task's start, ps.
    pub first_start_ps: u64,
    /// Its last task's finish, ps.
    pub last_finish_ps: u64,
    /// Its task count.
    pub tasks: u64,
    /// Mean task duration (flow completion time for flows), ps.
    pub mean_fct_ps: u64,
    /// Largest task duration, ps.
    pub max_fct_ps: u64,
}

/// Per-phase and per-iteration times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IterationTimes {
    /// The last finish, ps.
    pub iteration_ps: u64,
    /// The phases present, in [`Phase`] order.
    pub phases: Vec<PhaseTimes>,
}

struct Builder {
    tasks: Vec<Task>,
}

impl Builder {
    fn push(&mut self, kind: TaskKind, phase: Phase, micro_batch: u32, mut deps: Vec<u32>) -> u32 {
        deps.sort_unstable();
        deps.dedup();
        self.tasks.push(Task {
            kind,
            phase,
            micro_batch,
            deps,
        });
        (self.tasks.len() - 1) as u32
    }

    fn flow(
        &mut self,
        src: u32,
        dst: u32,
        bytes: u64,
        phase: Phase,
        j: u32,
        deps: Vec<u32>,
    ) -> u32 {
        self.push(TaskKind::Flow { src, dst, bytes }, phase, j, deps)
    }
}

/// Build one iteration's DAG for `c` (validated).
pub fn generate(c: &LlmConfig) -> Result<LlmDag> {
    c.validate()?;
    let (tpn, dpn, ppn) = (c.par.tp, c.par.dp, c.par.pp);
    let hosts = c.hosts();
    let m = c.micro_batches();
    let moe = c.model.experts > 0 && c.par.ep > 1;
    let mut b = Builder { tasks: Vec::new() };
    // Per host: last compute task, incoming PP flow of the current micro-batch, and the
    // incoming combine flows of the current stage pass.
    let mut last_compute: Vec<Option<u32>> = vec![None; hosts as usize];
    let mut pp_in: Vec<Option<u32>> = vec![None; hosts as usize];
    let mut combine_in: Vec<Vec<u32>> = vec![Vec::new(); hosts as usize];

    for backward in [false, true] {
        let (phase, dur, pp_phase) = if backward {
            (Phase::Backward, c.compute.bwd_ps, Phase::PpGradient)
        } else {
            (Phase::Forward, c.compute.fwd_ps, Phase::PpActivation)
        };
        for j in 0..m {
            let stages: Vec<u32> = if backward {
                (0..ppn).rev().collect()
            } else {
                (0..ppn).collect()
            };
            for &s in &stages {
                let stage_hosts: Vec<u32> = (0..dpn)
                    .flat_map(|dp| (0..tpn).map(move |tp| (tp, dp)))
                    .map(|(tp, dp)| c.host(tp, dp, s))
                    .collect();
                for &h in &stage_hosts {
                    let deps: Vec<u32> = last_compute[h as usize]
                        .into_iter()
                        .chain(pp_in[h as usize].take())
                        .collect();
                    let kind = TaskKind::Compute {
                        host: h,
                        duration_ps: dur,
                    };
                    last_compute[h as usize] = Some(b.push(kind, phase, j, deps));
                }
                let mut ready: Vec<Vec<u32>> = stage_hosts
                    .iter()
                    .map(|&h| vec![last_compute[h as usize].expect("computed")])
                    .collect();
                if moe {
                    let groups = c.ep_groups(s);
                    let mut dispatch_in: Vec<Vec<u32>> = vec![Vec::new(); hosts as usize];
                    for g in &groups {
                        for &src in g {
                            for &dst in g.iter().filter(|&&d| d != src) {
                                let dep = vec![last_compute[src as usize].expect("computed")];
                                let f = b.flow(src, dst, c.ep_bytes(), Phase::EpDispatch, j, dep);
                                dispatch_in[dst as usize].push(f);
                            }
                        }
                    }
                    let mut new_combine: Vec<Vec<u32>> = vec![Vec::new(); hosts as usize];
                    for g in &groups {
                        for &src in g {
                            for &dst in g.iter().filter(|&&d| d != src) {
                                let dep = dispatch_in[src as usize].clone();
                                let f = b.flow(src, dst, c.ep_bytes(), Phase::EpCombine, j, dep);
                                new_combine[dst as usize].push(f);
                            }
                        }
                    }
                    for (i, &h) in stage_hosts.iter().enumerate() {
                        combine_in[h as usize] = std::mem::take(&mut new_combine[h as usize]);
                        ready[i] = combine_in[h as usize].clone();
                    }
                }
                let next = if backward {
                    s.checked_sub(1)
                } else {
                    Some(s + 1).filter(|&n| n < ppn)
                };
                if let Some(ns) = next {
                    for (i, &h) in stage_hosts.iter().enumerate() {
                        let (tp, dp) = (h % tpn, (h / tpn) % dpn);
                        let dst = c.host(tp, dp, ns);
                        let f = b.flow(h, dst, c.activation_bytes(), pp_phase, j, ready[i].clone());
                        pp_in[dst as usize] = Some(f);
                    }
                }
            }
        }
    }

    // DP ring allreduce per (tp, pp) group.
    if dpn > 1 {
        let chunk = c.dp_chunk_bytes();
        for group in c.dp_groups() {
            let d = group.len();
            // prev_send[i]: member i's flow of the previous step.
            let mut prev_send: Vec<Option<u32>> = vec![None; d];
            for step in 0..2 * (d - 1) {
                let phase = if step < d - 1 {
                    Phase::DpReduceScatter
                } else {
                    Phase::DpAllGather
                };
                let mut sent = vec![0u32; d];
                for i in 0..d {
                    let h = group[i];
                    let deps: Vec<u32> = match prev_send[i] {
                        None => {
                            let mut v = vec![last_compute[h as usize].expect("backward done")];
                            v.extend(&combine_in[h as usize]);
                            v
                        }
                        Some(own) => {
                            let from = (i + d - 1) % d;
                            vec![own, prev_send[from].expect("ring step")]
                        }
                    };
                    sent[i] = b.flow(h, group[(i + 1) % d], chunk, phase, m - 1, deps);
                }
                prev_send = sent.into_iter().map(Some).collect();
            }
        }
    }
    Ok(LlmDag {
        hosts,
        tasks: b.tasks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    const CT: ComputeTimes = ComputeTimes {
        fwd_ps: 1_000_000,
        bwd_ps: 2_000_000,
    };

    fn acyclic(d: &LlmDag) -> bool {
        // Kahn's algorithm, independent of the id order.
        let n = d.tasks.len();
        let mut indeg = vec![0usize; n];
        let mut out = vec![Vec::new(); n];
        for (i, t) in d.tasks.iter().enumerate() {
            for &p in &t.deps {
                indeg[i] += 1;
                out[p as usize].push(i);
            }
        }
        let mut q: VecDeque<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
        let mut seen = 0;
        while let Some(i) = q.pop_front() {
            seen += 1;
            for &j in &out[i] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    q.push_back(j);
                }
            }
        }
        seen == n
    }

    #[test]
    fn gpt_7b_64_gpus_by_hand() {
        let c = table1(64, Family::Gpt, CT).unwrap();
        assert_eq!(c.hosts(), 64);
        // G = 2 x 16 x 12 x 4096^2 / 8 = 805 306 368 B; chunk G / 4 = 192 MiB.
        assert_eq!(c.gradient_bytes(), 805_306_368);
        assert_eq!(c.dp_chunk_bytes(), 201_326_592);
        // A = 2 x 2048 x 4096 / 8 = 2 MiB.
        assert_eq!(c.activation_bytes(), 2_097_152);
        let d = generate(&c).unwrap();
        // DP: 16 groups x 2 x 3 x 4 = 384 flows; PP: 32 pipelines x 1 boundary x 2 mb x 1.
        assert_eq!(d.totals(Phase::DpReduceScatter), (192, 192 * 201_326_592));
        assert_eq!(d.totals(Phase::DpAllGather), (192, 192 * 201_326_592));
        assert_eq!(d.totals(Phase::PpActivation), (64, 64 * 2_097_152));
        assert_eq!(d.totals(Phase::PpGradient), (64, 64 * 2_097_152));
        assert_eq!(d.totals(Phase::EpDispatch), (0, 0));
        let bytes: u64 = d.flows().map(|f| f.3).sum();
        assert_eq!(d.flows().count(), 512);
        assert_eq!(bytes, 77_577_846_784);
        // 64 GPUs x 2 micro-batches x (fwd + bwd) compute tasks.
        assert_eq!(d.tasks.len(), 512 + 256);
        assert!(acyclic(&d));
        // No contention, zero-time flows: GPipe takes (m + PP - 1)(F + B) = 3 x 3 ms.
        let fin = d.finish_times(|_| 0);
        assert_eq!(*fin.iter().max().unwrap(), 3 * (CT.fwd_ps + CT.bwd_ps));
        // Flows of 1 ps per MiB: the DP ring adds 6 steps of 192 ps, the pipeline 4 x 2 ps
        // hops... at least the compute path plus the ring.
        let fin = d.finish_times(|b| b >> 20);
        assert!(*fin.iter().max().unwrap() >= 3 * (CT.fwd_ps + CT.bwd_ps) + 6 * 192);
    }

    #[test]
    fn iteration_times_by_hand() {
        let c = table1(64, Family::Gpt, CT).unwrap();
        let d = generate(&c).unwrap();
        // Contention-free schedule, 1 ps per MiB.
        let fin = d.finish_times(|b| b >> 20);
        let times: Vec<(u64, u64)> = d
            .tasks
            .iter()
            .zip(&fin)
            .map(|(t, &f)| {
                let dur = match t.kind {
                    TaskKind::Compute { duration_ps, .. } => duration_ps,
                    TaskKind::Flow { bytes, .. } => bytes >> 20,
                };
                (f - dur, f)
            })
            .collect();
        let it = d.iteration_times(&times).unwrap();
        assert_eq!(it.iteration_ps, *fin.iter().max().unwrap());
        let phase = |p| *it.phases.iter().find(|x| x.phase == p).unwrap();
        let fwd = phase(Phase::Forward);
        assert_eq!((fwd.first_start_ps, fwd.tasks), (0, 128));
        assert_eq!((fwd.mean_fct_ps, fwd.max_fct_ps), (CT.fwd_ps, CT.fwd_ps));
        let rs = phase(Phase::DpReduceScatter);
        assert_eq!((rs.tasks, rs.mean_fct_ps, rs.max_fct_ps), (192, 192, 192));
        let ag = phase(Phase::DpAllGather);
        assert_eq!(ag.last_finish_ps, it.iteration_ps);
        assert_eq!(phase(Phase::PpActivation).mean_fct_ps, 2);
        assert!(it.phases.iter().all(|p| p.phase != Phase::EpDispatch));
        // Bad input names the field.
        assert!(d
            .iteration_times(&times[1..])
            .unwrap_err()
            .to_string()
            .starts_with("times"));
        let mut bad = times.clone();
        bad[5] = (10, 5);
        assert!(d
            .iteration_times(&bad)
            .unwrap_err()
            .to_string()
            .contains("task 5"));
    }

    #[test]
    fn moe_8x7b_64_gpus_by_hand() {
        let c = table1(64, Family::Moe, CT).unwrap();
        // X = 16 x (2048 / 8) x 2 x 4096 x 2 / 8 = 8 MiB.
        assert_eq!(c.ep_bytes(), 8_388_608);
        // G = 2 x 16 x (4 x 4096^2 / 8 + 1 x 8 x 4096^2) = 4 563 402 752 B.
        assert_eq!(c.gradient_bytes(), 4_563_402_752);
        let d = generate(&c).unwrap();
        // Per all-to-all kind: 2 fwd/bwd x 2 mb x 2 stages x 4 groups x 56 flows = 1792.
        assert_eq!(d.totals(Phase::EpDispatch), (1792, 1792 * 8_388_608));
        assert_eq!(d.totals(Phase::EpCombine), (1792, 1792 * 8_388_608));
        assert_eq!(d.totals(Phase::DpReduceScatter).0, 192);
        assert!(acyclic(&d));
        // EP group 0 of stage 0: dp 0..4 of tp 0 and tp 1 (hosts 0, 8, 16, 24, 1, 9, 17, 25).
        assert_eq!(c.ep_groups(0)[0], vec![0, 8, 16, 24, 1, 9, 17, 25]);
        // Zero-time flows: the all-to-alls add no time, the schedule is GPipe's.
        let fin = d.finish_times(|_| 0);
        assert_eq!(*fin.iter().max().unwrap(), 3 * (CT.fwd_ps + CT.bwd_ps));
    }

    #[test]
    fn every_config_is_acyclic_and_covers_its_dp_groups() {
        for gpus in [64, 128, 256] {
            for fam in [Family::Gpt, Family::Moe] {
                let c = table1(gpus, fam, CT).unwrap();
                let d = generate(&c).unwrap();
                assert!(acyclic(&d), "{gpus} {fam:?}");
                assert!(d
                    .tasks
                    .iter()
                    .enumerate()
                    .all(|(i, t)| t.deps.iter().all(|&p| (p as usize) < i)));
                let dp = c.par.dp as u32;
                let mut sends = vec![0u32; c.hosts() as usize];
                let mut recvs = vec![0u32; c.hosts() as usize];
                for (id, src, dst, _) in d.flows() {
                    if matches!(
                        d.tasks[id as usize].phase,
                        Phase::DpReduceScatter | Phase::DpAllGather
                    ) {
                        sends[src as usize] += 1;
                        recvs[dst as usize] += 1;
                    }
                }
                let groups = c.dp_groups();
                assert_eq!(groups.len() as u32, c.par.tp * c.par.pp);
                let mut members: Vec<u32> = groups.iter().flatten().copied().collect();
                members.sort_unstable();
                members.dedup();
                assert_eq!(
                    members.len() as u32,
                    c.hosts(),
                    "DP groups cover every host"
                );
                for g in &groups {
                    assert_eq!(g.len() as u32, dp);
                    for &h in g {
                        let want = 2 * (dp - 1);
                        assert_eq!(
                            (sends[h as usize], recvs[h as usize]),
                            (want, want),
                            "host {h}"
                        );
                    }
                }
                assert!(d
                    .flows()
                    .all(|(_, s, t, b)| s != t && s < c.hosts() && t < c.hosts() && b > 0));
            }
        }
    }

    #[test]
    fn flow_counts_follow_the_formulas_for_all_of_table1() {
        for gpus in [64, 128, 256, 1024] {
            for fam in [Family::Gpt, Family::Moe] {
                let c = table1(gpus, fam, CT).unwrap();
                let d = generate(&c).unwrap();
                let (tp, dp, pp, ep) = (
                    c.par.tp as u64,
                    c.par.dp as u64,
                    c.par.pp as u64,
                    c.par.ep as u64,
                );
                let m = pp;
                // DP: TP PP groups x 2 (DP - 1) DP; PP: TP DP pipelines x (PP - 1) x m per
                // direction; EP: 2 directions x m x PP x TP DP / EP groups x EP (EP - 1).
                let rs = tp * pp * (dp - 1) * dp;
                assert_eq!(
                    d.totals(Phase::DpReduceScatter),
                    (rs, rs * c.dp_chunk_bytes())
                );
                assert_eq!(d.totals(Phase::DpAllGather).0, rs);
                let ppf = tp * dp * (pp - 1) * m;
                assert_eq!(
                    d.totals(Phase::PpActivation),
                    (ppf, ppf * c.activation_bytes())
                );
                assert_eq!(d.totals(Phase::PpGradient).0, ppf);
                let a2a = 2 * m * pp * tp * dp * (ep - 1);
                assert_eq!(d.totals(Phase::EpDispatch), (a2a, a2a * c.ep_bytes()));
                assert_eq!(d.totals(Phase::EpCombine).0, a2a);
                let computes = d
                    .tasks
                    .iter()
                    .filter(|t| matches!(t.kind, TaskKind::Compute { .. }))
                    .count() as u64;
                assert_eq!(computes, 2 * m * gpus as u64);
            }
        }
    }

    #[test]
    fn table1_sizes_and_errors() {
        let c = table1(1024, Family::Gpt, CT).unwrap();
        assert_eq!((c.hosts(), c.model.name), (1024, "GPT-175B"));
        let c = table1(1024, Family::Moe, CT).unwrap();
        assert_eq!((c.hosts(), c.model.experts), (1024, 32));
        let e = table1(100, Family::Gpt, CT).unwrap_err();
        assert!(e.to_string().starts_with("workload.llm.gpus"), "{e}");
        let mut bad = table1(64, Family::Moe, CT).unwrap();
        bad.par.ep = 3;
        assert!(generate(&bad)
            .unwrap_err()
            .to_string()
            .starts_with("workload.llm.ep"));
        let mut bad = table1(64, Family::Gpt, CT).unwrap();
        bad.par.pp = 3;
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("workload.llm.pp"));
        let mut bad = table1(64, Family::Gpt, CT).unwrap();
        bad.par.dp = u32::MAX;
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("GPUs, more than"));
        let mut bad = table1(64, Family::Gpt, CT).unwrap();
        bad.model.hidden = u64::MAX;
        assert!(generate(&bad)
            .unwrap_err()
            .to_string()
            .starts_with("workload.llm.hidden"));
        // GPT-7B, 64 GPUs at 400 TFLOP/s: 2 x 2048 x 16 x 12 x 4096^2 / 8 = 1.649e12 FLOPs
        // -> 4.123 ms forward.
        let t = table1(64, Family::Gpt, CT)
            .unwrap()
            .compute_from_tflops(400)
            .unwrap();
        assert_eq!(t.fwd_ps, 1_649_267_441_664 / 400);
        assert_eq!(t.bwd_ps, 2 * t.fwd_ps);
    }
}
