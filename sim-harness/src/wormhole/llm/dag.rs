//! The iteration DAG: tasks, dependencies, and the generator (see the [`super`] module doc).

use super::config::LlmConfig;
use crate::error::{Error, Result};

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
