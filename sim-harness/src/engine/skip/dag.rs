//! The LLM DAG's dependency-driven flow starts (`workload.kind = "llm"`: the LLM training
//! workloads of `../shared/papers/wormhole.md` 2.1 and 7; the DAG is dcfab's workload
//! model): a task starts when its dependencies have finished; a compute task ends after its
//! duration, a communication task when its flow completes.

use super::*;

/// The LLM iteration being run.
#[derive(Debug, Clone)]
pub(super) struct DagRun {
    pub(super) dag: LlmDag,
    /// Flow index -> task, and task -> flow index (`u32::MAX`: a compute task).
    pub(super) flow_task: Vec<u32>,
    pub(super) task_flow: Vec<u32>,
    /// Dependencies not finished yet, per task.
    pub(super) waiting: Vec<u32>,
    pub(super) succ: Vec<Vec<u32>>,
    /// (start, finish) per task.
    pub(super) times: Vec<(Time, Time)>,
    /// The compute tasks started and not finished, in start order (what
    /// [`Sim::dag_next_start`] looks through, instead of every task).
    pub(super) running: Vec<u32>,
    pub(super) done: usize,
}

impl Sim {
    pub(super) fn dag_setup(&mut self, dag: LlmDag) -> DagRun {
        let n = dag.tasks.len();
        let mut task_flow = vec![u32::MAX; n];
        let mut flow_task = Vec::new();
        let mut succ = vec![Vec::new(); n];
        let mut waiting = vec![0u32; n];
        for (i, t) in dag.tasks.iter().enumerate() {
            if let TaskKind::Flow { .. } = t.kind {
                task_flow[i] = flow_task.len() as u32;
                flow_task.push(i as u32);
            }
            waiting[i] = t.deps.len() as u32;
            for &d in &t.deps {
                succ[d as usize].push(i as u32);
            }
        }
        debug_assert_eq!(flow_task.len(), self.flows.len());
        for (i, t) in dag.tasks.iter().enumerate() {
            if t.deps.is_empty() {
                self.q
                    .push(0, Comp::new(Kind::Wormhole, TASK0 + 2 * i as u32));
            }
        }
        DagRun {
            dag,
            flow_task,
            task_flow,
            waiting,
            succ,
            times: vec![(NEVER, NEVER); n],
            running: Vec::new(),
            done: 0,
        }
    }

    pub(super) fn task_start(&mut self, t: u32) {
        let now = self.now;
        let Some(d) = self.wh.as_mut().and_then(|w| w.dag.as_mut()) else {
            return;
        };
        d.times[t as usize].0 = now;
        match d.dag.tasks[t as usize].kind {
            TaskKind::Compute { duration_ps, .. } => {
                d.running.push(t);
                self.q.push(
                    now.saturating_add(duration_ps),
                    Comp::new(Kind::Wormhole, TASK0 + 2 * t + 1),
                );
            }
            TaskKind::Flow { .. } => {
                let f = d.task_flow[t as usize];
                self.flows[f as usize].spec.start_ps = now;
                self.wh_flow_start(f);
                self.transport_open(f);
                self.wh_flow_opened(f);
            }
        }
    }

    pub(super) fn task_end(&mut self, t: u32) {
        let now = self.now;
        let Some(d) = self.wh.as_mut().and_then(|w| w.dag.as_mut()) else {
            return;
        };
        d.times[t as usize].1 = now;
        d.done += 1;
        if let Some(i) = d.running.iter().position(|&x| x == t) {
            d.running.remove(i);
        }
        let mut ready = Vec::new();
        for &s in &d.succ[t as usize] {
            d.waiting[s as usize] -= 1;
            if d.waiting[s as usize] == 0 {
                ready.push(s);
            }
        }
        for s in ready {
            self.task_start(s);
        }
    }
}
