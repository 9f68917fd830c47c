//! `topology.kind = "zeropod_pods"` and, for Zeropod, `"single_tor"` (Zeropod §III-A, Fig. 1,
//! §V-A).
//!
//! ```text
//!        Core 0 .. Core C-1   (buffered; Core c hangs off Agg c % M, up port M + c / M)
//!          |  one port per pod
//!   pod p: Agg 0 .. Agg M-1    (k-port, M = k/2 down to the ToRs, M up to the Cores)
//!          |
//!          ToR 0 .. ToR M-1    (k-port, M down to hosts, M up to the Aggs)
//!          |
//!          hosts p*N .. p*N + N - 1   (N = M^2 = k^2/4 per pod; host h: ToR (h % N) / M)
//! ```
//!
//! * [`PodShape`]: the shape the Zeropod region ([`crate::zeropod`]) is built from: `k`,
//!   pods, hosts, Cores. `zeropod_pods` fills pods in order with `topology.hosts` hosts (0 =
//!   k^3/4); `single_tor` is the smallest instance: one ToR of a k-port pod, k/2 hosts.
//! * [`build`]: the **buffered baseline** on the same pods (`cc = "dctcp"`): a 3-tier fat tree
//!   of radix k (pods of k/2 ToRs and k/2 Aggs, 1 link delay per hop). Its core layer is the
//!   fat tree's full (k/2)^2 spines, not Zeropod's 6 + 1 oversubscribed Cores: the baseline
//!   gets more inter-pod capacity than Zeropod, never less.

use super::{fat_tree, Fabric};
use crate::error::{Error, Result};
use crate::scenario::{Scenario, Topology, TopologyKind};

/// The pods of a Zeropod run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodShape {
    /// Switch radix k.
    pub k: u32,
    /// Half-radix M = k/2: ToRs and Aggs per pod, hosts per ToR.
    pub m: u32,
    /// Hosts per full pod N = M^2.
    pub n: u32,
    /// Pods.
    pub pods: u32,
    /// Hosts (filled in order: host h is in pod h / N).
    pub hosts: u32,
    /// Cores (data Cores + the mice Core); 0 with one pod.
    pub cores: u32,
    /// The mice Core (the last one), if any.
    pub mice_core: Option<u32>,
}

/// Radixes a scheduler instance exists for (scheduler-asic const generics).
pub const RADIXES: [u32; 4] = [4, 8, 16, 32];

impl PodShape {
    /// The shape of scenario `s` (`zeropod_pods` or `single_tor`), checked.
    pub fn of(s: &Scenario) -> Result<PodShape> {
        let t = &s.topology;
        let k = t.radix;
        if !RADIXES.contains(&k) {
            return Err(Error::field(
                "topology.radix",
                format!("Zeropod pods exist for k = 4, 8, 16 or 32 (a scheduler instance each), got {k}"),
            ));
        }
        let m = k / 2;
        let n = m * m;
        let hosts = match t.kind {
            TopologyKind::SingleTor => {
                if t.hosts > m {
                    return Err(Error::field(
                        "topology.hosts",
                        format!("single_tor has one ToR of k/2 = {m} hosts, got {}", t.hosts),
                    ));
                }
                if t.hosts == 0 {
                    m
                } else {
                    t.hosts
                }
            }
            TopologyKind::ZeropodPods => {
                // Pods beyond one need the k = 8 scheduler (8 pods, 7 Cores, §V-A).
                let max = if k == 8 { 8 * n } else { n };
                if t.hosts > max {
                    return Err(Error::field(
                        "topology.hosts",
                        format!(
                            "at most {max} hosts with radix {k} ({} pod{} of {n}; several pods need radix 8), got {}",
                            max / n,
                            if max / n == 1 { "" } else { "s" },
                            t.hosts
                        ),
                    ));
                }
                if t.hosts == 0 {
                    max
                } else {
                    t.hosts
                }
            }
            _ => {
                return Err(Error::field(
                    "topology.kind",
                    "transport.cc = \"zeropod\" runs on zeropod_pods or single_tor",
                ))
            }
        };
        if hosts < 2 {
            return Err(Error::field(
                "topology.hosts",
                "a workload needs at least 2 hosts",
            ));
        }
        let pods = hosts.div_ceil(n);
        let z = &s.transport.zeropod;
        let (cores, mice_core) = if pods > 1 {
            let c = z.cores + z.mice_cores;
            if z.cores == 0 {
                return Err(Error::field(
                    "transport.zeropod.cores",
                    "several pods need at least one Core for inter-pod traffic",
                ));
            }
            (c, (z.mice_cores == 1).then_some(c - 1))
        } else {
            (0, None)
        };
        Ok(PodShape {
            k,
            m,
            n,
            pods,
            hosts,
            cores,
            mice_core,
        })
    }

    /// Pod of host `h`.
    pub fn pod_of(&self, h: u32) -> u32 {
        h / self.n
    }
}

/// The buffered baseline fabric for `topology.kind = "zeropod_pods"` (see the module doc).
pub fn build(t: &Topology) -> Result<Fabric> {
    let ft = Topology {
        kind: TopologyKind::FatTree,
        tiers: 3,
        oversubscription: 1.0,
        ..t.clone()
    };
    fat_tree::build(&ft)
}
