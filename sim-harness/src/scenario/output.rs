//! `[output]`: what a run records besides `flows.csv` and the summary (queue samples,
//! traces, uplink selection, per-flow rates and fairness, Uno Fig. 11 slowdowns, what
//! Wormhole fast-forwarded of each flow).

use serde::{Deserialize, Serialize};

use super::{is_false, is_off};

/// Default `output.trace_max_records`: about 1 GB of JSON Lines.
pub const DEFAULT_TRACE_MAX_RECORDS: u64 = 10_000_000;

fn is_default_trace_max(v: &u64) -> bool {
    *v == DEFAULT_TRACE_MAX_RECORDS
}

/// What to record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Queue-occupancy sampling interval in us (0 = off).
    pub queue_sample_us: f64,
    /// Record the fabric's packet trace, `trace.jsonl` (`engine/trace.rs`).
    pub trace: bool,
    /// Trace records from this simulated time, us (0: from the start). Left out of the
    /// resolved `scenario.toml` when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub trace_from_us: f64,
    /// Trace records before this simulated time, us (0: to the end of the run). Left out of
    /// the resolved `scenario.toml` when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub trace_until_us: f64,
    /// Trace only the packets of these flows (ids as in `flows.csv`; empty: every flow).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trace_flows: Vec<u32>,
    /// Trace only these ports (names as in `links.csv`, e.g. `"tor0.up1"`, `"host3"`; a
    /// host's name also selects what it receives; empty: every port).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trace_ports: Vec<String>,
    /// Most trace records written; the trace stops there and the summary says so
    /// (`extra.trace_truncated`). Left out of the resolved `scenario.toml` at its default.
    #[serde(skip_serializing_if = "is_default_trace_max")]
    pub trace_max_records: u64,
    /// Width of the time buckets of `uplink_selection.csv` (DATA packets and bytes each ToR
    /// uplink was chosen for, per bucket), in us; 0 = no table.
    pub selection_bucket_us: f64,
    /// Per-flow rate sampling interval in us (`rates.csv`, `fairness.csv` and the fairness
    /// summary keys); 0 = off. Left out of the resolved `scenario.toml` when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub rate_sample_us: f64,
    /// `converge_10pct_us` on rates averaged over windows of this many us (rounded to whole
    /// `rate_sample_us` intervals), and `fair_windows_within_10pct` (the share of those windows
    /// within 10%); 0 = per sample interval, no share. Left out of the resolved
    /// `scenario.toml` when 0.
    #[serde(skip_serializing_if = "is_off")]
    pub fair_window_us: f64,
    /// Two datacenters only: add each class's FCT *slowdown* (FCT over the ideal FCT, the flow's
    /// base RTT plus its bytes at the host link rate, at least 1; Uno Fig. 11) to the summary:
    /// `slowdown_{all,intra,inter}_{mean,p99}`. Left out of the resolved `scenario.toml` when
    /// off, so that runs without it are unchanged.
    #[serde(skip_serializing_if = "is_false")]
    pub fct_slowdown: bool,
    /// Write `skip_flows.csv`: per flow, the DATA packets simulated and fast-forwarded, how
    /// often its partition was paused, and when it first was (Wormhole runs; zeros
    /// otherwise). Output only. Left out of the resolved `scenario.toml` when off.
    #[serde(skip_serializing_if = "is_false")]
    pub skip_flows: bool,
}
impl Default for Output {
    fn default() -> Self {
        Output {
            queue_sample_us: 1.0,
            trace: false,
            trace_from_us: 0.0,
            trace_until_us: 0.0,
            trace_flows: Vec::new(),
            trace_ports: Vec::new(),
            trace_max_records: DEFAULT_TRACE_MAX_RECORDS,
            selection_bucket_us: 10.0,
            rate_sample_us: 0.0,
            fair_window_us: 0.0,
            fct_slowdown: false,
            skip_flows: false,
        }
    }
}
