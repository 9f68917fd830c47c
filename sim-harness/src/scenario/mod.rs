//! Scenario files: one TOML file describes one experiment (DESIGN.md, "Scenario files").
//!
//! Every field has a default; unknown fields are rejected. Units are in the field name
//! (`_ns`, `_us`, `_gbps`) or in the value (`"8MiB"`, `"1bdp"`).
//!
//! One module per section of the file, each with the types of its fields, their defaults and
//! the helpers that leave default values out of a written `scenario.toml`:
//!
//! * `topology` -- `[topology]`: the network, its buffers, RED/ECN and phantom queues;
//! * `transport` -- `[transport]`: congestion control and load balancing, and the
//!   per-transport sections (owned by each transport's module, re-exported here);
//! * `transport_aliases` -- `[transport]` as read from a file, with the deprecated flat
//!   aliases of the per-transport sections;
//! * `workload` -- `[workload]` and `[workload.llm]`: the traffic;
//! * `failures` -- `[[failures]]` and `[[loss]]`: links going down, changing rate or losing
//!   packets;
//! * `output` -- `[output]`: what to record;
//! * `skip` -- `[skip]`: Wormhole fast-forwarding;
//! * `size` -- [`Size`]: bytes or BDP multiples, as the fields that take a size read them.
//!
//! The top [`Scenario`], `[stop]` and the shared `skip_serializing_if` helpers are here.

mod failures;
mod output;
mod size;
mod skip;
mod topology;
mod transport;
mod transport_aliases;
mod workload;

pub use failures::{Failure, Loss, LossModel, LossPlace};
pub use output::{Output, DEFAULT_TRACE_MAX_RECORDS};
pub use size::Size;
pub use skip::{
    PartitionBy, RateEstimate, RateMetric, Skip, DEFAULT_RESERVE_BDPS, DEFAULT_SAMPLE_US,
    MAX_RESERVE_BDPS,
};
pub use topology::{
    CoreLinks, EcnMark, PhantomMarkOn, PortRole, Topology, TopologyKind, TwoDcSection,
};
pub use transport::{
    CcKind, DcpimSection, DcsimSection, DcsimVariantKind, FreezeExit, LbKind, PhostSection,
    RepsSection, Transport, UnoSection, ZeropodSection,
};
pub use workload::{A2aOrder, LlmFamily, LlmWorkload, TwoDcWorkload, Workload, WorkloadKind};

use serde::{Deserialize, Serialize};

/// One experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Name of the experiment (goes into every output file).
    pub name: String,
    /// Seed of every random draw in the run.
    pub seed: u64,
    /// The network.
    pub topology: Topology,
    /// Congestion control and load balancing.
    pub transport: Transport,
    /// The traffic.
    pub workload: Workload,
    /// Failure injection: links going down or changing rate.
    pub failures: Vec<Failure>,
    /// Random loss on links (`[[loss]]`, Uno 2.4 / Table 1); not written out when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loss: Vec<Loss>,
    /// What to record.
    pub output: Output,
    /// Wormhole fast-forwarding.
    pub skip: Skip,
    /// When to stop.
    pub stop: Stop,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            name: "default".into(),
            seed: 1,
            topology: Topology::default(),
            transport: Transport::default(),
            workload: Workload::default(),
            failures: Vec::new(),
            loss: Vec::new(),
            output: Output::default(),
            skip: Skip::default(),
            stop: Stop::default(),
        }
    }
}
fn is_false(v: &bool) -> bool {
    !*v
}
fn is_off(v: &f64) -> bool {
    *v == 0.0
}
/// When to stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Stop {
    /// Simulated-time limit in us (0 = until every flow completes).
    pub max_time_us: f64,
}

impl Default for Stop {
    fn default() -> Self {
        Stop { max_time_us: 0.0 }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_round_trips_through_toml() {
        let s = Scenario::default();
        let text = toml::to_string(&s).unwrap();
        let back: Scenario = toml::from_str(&text).unwrap();
        assert_eq!(s, back);
    }
}
