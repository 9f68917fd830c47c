//! What a run produces. The DES fills these; the CLI writes them out
//! (`summary.json`, `flows.csv`, `queues.csv`, ...). Every field is documented in README.

use serde::Serialize;
use std::collections::BTreeMap;

/// `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Seed of the run.
    pub seed: u64,
    /// Scenario name.
    pub scenario: String,
    /// dcfab version (crate version).
    pub dcfab_version: String,
    /// Flows in the workload.
    pub flows: u64,
    /// Flows that completed.
    pub flows_completed: u64,
    /// Largest flow completion time, ps.
    pub max_fct_ps: u64,
    /// Mean flow completion time, ps.
    pub mean_fct_ps: u64,
    /// 99th-percentile flow completion time, ps.
    pub p99_fct_ps: u64,
    /// Simulated time at the end of the run, ps.
    pub end_time_ps: u64,
    /// Packets dropped, all causes.
    pub drops: u64,
    /// Drops by cause (`buffer_full`, `link_down`, ...).
    pub drops_by_cause: BTreeMap<String, u64>,
    /// Packets trimmed.
    pub trims: u64,
    /// Packets ECN-marked.
    pub ecn_marks: u64,
    /// DATA packets sent by hosts (first transmissions and retransmissions).
    pub data_packets: u64,
    /// Retransmitted DATA packets.
    pub retransmits: u64,
    /// DATA packets that arrived out of order.
    pub out_of_order: u64,
    /// Events the DES processed.
    pub events: u64,
    /// Wall-clock seconds of the simulation loop.
    pub wall_s: f64,
    /// events / wall_s.
    pub events_per_s: f64,
    /// data_packets / wall_s.
    pub data_packets_per_s: f64,
    /// Transport- or paper-specific extra metrics (DCSIM: `data_drops`, `sim_drops`,
    /// `mean_cct_ps`, `max_cct_ps`, `reorder`, `mean_queueing_delay_ps`, ...).
    pub extra: BTreeMap<String, f64>,
}

/// One row of `flows.csv`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FlowRecord {
    /// Flow id.
    pub id: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Message size, bytes.
    pub bytes: u64,
    /// Start time, ps.
    pub start_ps: u64,
    /// Completion time (last byte acknowledged at the sender), ps; 0 if not completed.
    pub end_ps: u64,
    /// end_ps - start_ps; 0 if not completed.
    pub fct_ps: u64,
    /// DATA packets sent, including retransmissions.
    pub packets_sent: u64,
    /// Retransmissions.
    pub retransmits: u64,
    /// ECN-marked ACKs received.
    pub ecn_acks: u64,
    /// DATA packets that arrived out of order at the receiver.
    pub out_of_order: u64,
}

/// One row of `queues.csv`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueSample {
    /// Sample time, ps.
    pub time_ps: u64,
    /// Port name, e.g. `tor0.up3`.
    pub port: String,
    /// Bytes queued.
    pub bytes: u64,
}

/// One row of `rates.csv`: the bytes flow `flow` had acknowledged at its sender during the
/// sample interval ending at `time_ps` (`output.rate_sample_us`; the last interval of a run
/// ends at its end time), and that over the interval's length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RateSample {
    /// Flow id.
    pub flow: u32,
    /// End of the interval, ps.
    pub time_ps: u64,
    /// Payload bytes cumulatively acknowledged at the sender during the interval.
    pub bytes: u64,
    /// `bytes` over the interval's length, Gb/s.
    pub rate_gbps: f64,
}

/// One row of `fairness.csv`: Jain's fairness index over the flows active during the whole
/// rate-sample interval ending at `time_ps` ([`crate::metrics::fairness`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct FairnessSample {
    /// End of the interval, ps.
    pub time_ps: u64,
    /// Flows active during the whole interval.
    pub flows: u32,
    /// Jain's index `(sum x)^2 / (n sum x^2)` of their rates, 1/n to 1.
    pub jain_index: f64,
    /// The fair share: the mean of their rates, Gb/s.
    pub fair_share_gbps: f64,
}

/// One row of `links.csv`: per-link counters over the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LinkRecord {
    /// Link (output port) name.
    pub link: String,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Packets transmitted.
    pub tx_packets: u64,
    /// Packets dropped at this port.
    pub drops: u64,
    /// Packets ECN-marked at this port.
    pub ecn_marks: u64,
    /// tx_bytes / (rate * end_time).
    pub utilization: f64,
}

/// Everything a run produces.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunResult {
    /// `summary.json`.
    pub summary: Summary,
    /// `flows.csv`.
    pub flows: Vec<FlowRecord>,
    /// `queues.csv`.
    pub queues: Vec<QueueSample>,
    /// `links.csv`.
    pub links: Vec<LinkRecord>,
    /// `rates.csv` (with `fairness.csv`, written when `output.rate_sample_us > 0`).
    pub rates: Vec<RateSample>,
    /// `fairness.csv`.
    pub fairness: Vec<FairnessSample>,
    /// Extra CSV tables a transport or load balancer adds (file name -> header + rows),
    /// e.g. REPS per-uplink selection counts over time, DCSIM `collectives.csv`.
    pub tables: BTreeMap<String, Table>,
}

/// A CSV table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, already formatted.
    pub rows: Vec<Vec<String>>,
}

/// Progress report the DES gives while it runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    /// Simulated time now, ps.
    pub sim_time_ps: u64,
    /// Flows completed.
    pub flows_done: u64,
    /// Flows in the workload.
    pub flows_total: u64,
}
