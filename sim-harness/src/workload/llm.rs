//! The `llm` workload (Wormhole section 7 setup, Table 1): one training iteration of the
//! `[workload.llm]` configuration as a DAG ([`crate::wormhole::llm`]), its GPUs placed on a
//! rail-optimized fat tree ([`crate::wormhole::rail`]).
//!
//! * The configuration is [`llm::table1`] for `gpus` and `family`, with compute times per
//!   micro-batch and stage from `fwd_us` / `bwd_us`, or from the model's FLOPs at
//!   `gpu_tflops` ([`llm::LlmConfig::compute_from_tflops`]).
//! * Placement: a server is one TP group (`TP = 8` GPUs, one per rail); the fabric is
//!   dcfab's fat tree with `d` = its ToR host ports, read as `d` servers per rail-ToR, and
//!   GPU rank `r` is fat-tree host [`RailLayout::fat_tree_host`]`(r)`.
//! * Flows: one per DAG flow task, in task order (flow `i` is the `i`-th flow task), each
//!   of `max(1, round(bytes x bytes_scale))` bytes. Their start times are not known before
//!   the run: the engine starts a flow when its dependencies finish
//!   (`engine/skip/dag.rs`), so a spec's `start_ps` is [`NEVER`] until then.

use super::FlowSpec;
use crate::error::{Error, Result};
use crate::event::NEVER;
use crate::scenario::{LlmFamily, LlmWorkload, Scenario};
use crate::units;
use crate::units::num;
use crate::wormhole::llm::{self, ComputeTimes, Family, LlmConfig, LlmDag, TaskKind};
use crate::wormhole::rail::RailLayout;

/// The `[workload.llm]` section of `s` (its defaults when absent).
pub fn section(s: &Scenario) -> LlmWorkload {
    s.workload.llm.clone().unwrap_or_default()
}

/// The Table 1 configuration of section `l`.
pub fn config(l: &LlmWorkload) -> Result<LlmConfig> {
    let family = match l.family {
        LlmFamily::Gpt => Family::Gpt,
        LlmFamily::Moe => Family::Moe,
    };
    let us = |field: &str, v: f64| -> Result<u64> {
        if !v.is_finite() || v < 0.0 {
            return Err(Error::field(
                field,
                format!("must be a non-negative number of us, got {}", num(v)),
            ));
        }
        units::us_to_ps(field, v)
    };
    let compute = ComputeTimes {
        fwd_ps: us("workload.llm.fwd_us", l.fwd_us)?,
        bwd_ps: us("workload.llm.bwd_us", l.bwd_us)?,
    };
    let mut c = llm::table1(l.gpus, family, compute)?;
    if l.gpu_tflops > 0 {
        c.compute = c.compute_from_tflops(l.gpu_tflops)?;
    }
    if !(l.bytes_scale > 0.0 && l.bytes_scale <= 1.0) {
        return Err(Error::field(
            "workload.llm.bytes_scale",
            format!("must be in (0, 1], got {}", num(l.bytes_scale)),
        ));
    }
    Ok(c)
}

/// The DAG of scenario `s` and the placement of its GPUs on a fat tree of `tor_hosts`
/// host ports per ToR and `hosts` hosts.
pub fn dag(s: &Scenario, tor_hosts: u32, hosts: u32) -> Result<(LlmDag, RailLayout)> {
    let (c, rail) = placement(s, tor_hosts, hosts)?;
    Ok((llm::generate(&c)?, rail))
}

/// The configuration of scenario `s`'s `[workload.llm]`, validated, and the placement of its
/// GPUs on a fat tree of `tor_hosts` host ports per ToR and `hosts` hosts, checked: every
/// error [`dag`] can return, without generating the DAG (for validation: at 1024 GPUs the
/// DAG is ~20 % of a run's setup).
pub fn placement(s: &Scenario, tor_hosts: u32, hosts: u32) -> Result<(LlmConfig, RailLayout)> {
    let l = section(s);
    let c = config(&l)?;
    let rail = RailLayout::new(c.par.tp, tor_hosts)?;
    c.validate()?;
    let gpus = c.hosts();
    if let Some(r) = (0..gpus).find(|&r| rail.fat_tree_host(r) >= hosts) {
        return Err(Error::field(
            "topology.hosts",
            format!(
                "GPU {r} of {gpus} sits on fat-tree host {} (rail-optimized, {tor_hosts} \
                 servers per rail-ToR), beyond the topology's {hosts} hosts",
                rail.fat_tree_host(r)
            ),
        ));
    }
    Ok((c, rail))
}

/// Scaled size of a DAG flow of `bytes`.
pub fn scaled(bytes: u64, scale: f64) -> u64 {
    ((bytes as f64 * scale).round() as u64).max(1)
}

/// The flows of scenario `s` on `hosts` hosts with `tor_hosts` per ToR (see the module doc).
pub fn flows(s: &Scenario, tor_hosts: u32, hosts: u32) -> Result<Vec<FlowSpec>> {
    let (d, rail) = dag(s, tor_hosts, hosts)?;
    Ok(flows_of(s, &d, &rail))
}

/// The flows of DAG `d` of scenario `s`, its GPUs placed by `rail` ([`dag`]'s pair).
pub fn flows_of(s: &Scenario, d: &LlmDag, rail: &RailLayout) -> Vec<FlowSpec> {
    let scale = section(s).bytes_scale;
    d.tasks
        .iter()
        .filter_map(|t| match t.kind {
            TaskKind::Flow { src, dst, bytes } => Some(FlowSpec {
                src: rail.fat_tree_host(src),
                dst: rail.fat_tree_host(dst),
                bytes: scaled(bytes, scale),
                start_ps: NEVER,
                collective: 0,
            }),
            TaskKind::Compute { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::WorkloadKind;

    /// Validation checks the placement without generating the DAG: it refuses a fabric
    /// too small for the GPUs with the error the DAG's generation gives, and accepts one
    /// that fits.
    #[test]
    fn placement_refuses_gpus_beyond_the_topology_as_dag_does() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Llm;
        let e = placement(&s, 8, 32).unwrap_err().to_string();
        assert!(
            e.contains("topology.hosts") && e.contains("beyond the topology's 32 hosts"),
            "{e}"
        );
        assert_eq!(dag(&s, 8, 32).unwrap_err().to_string(), e);
        let (c, _) = placement(&s, 8, 64).unwrap();
        assert_eq!(c.hosts(), dag(&s, 8, 64).unwrap().0.hosts);
    }

    #[test]
    fn gpt64_places_each_dp_ring_under_one_rail_tor() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Llm;
        let (d, rail) = dag(&s, 8, 64).unwrap();
        let f = flows(&s, 8, 64).unwrap();
        assert_eq!(f.len(), d.flows().count());
        // Every flow of GPT (TP-DP-PP, 8 servers) stays on its rail, so under one ToR of 8.
        assert!(f.iter().all(|x| x.src / 8 == x.dst / 8 && x.src != x.dst));
        assert!(f.iter().all(|x| x.start_ps == NEVER));
        assert_eq!(rail.fat_tree_host(9), 8 + 1);
        // Too few hosts: refused on topology.hosts.
        let e = dag(&s, 8, 32).unwrap_err().to_string();
        assert!(e.contains("topology.hosts"), "{e}");
    }
}
