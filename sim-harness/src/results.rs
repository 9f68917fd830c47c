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
    /// `trace.jsonl` (`output.trace`): the fabric's packet trace as JSON Lines, when held
    /// in memory (a run without [`crate::run::RunControl::trace_dir`]).
    #[serde(skip)]
    pub trace: Option<String>,
    /// `trace.jsonl` written as the run went ([`crate::run::RunControl::trace_dir`]): the
    /// file (`trace` is then `None`).
    #[serde(skip)]
    pub trace_file: Option<std::path::PathBuf>,
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
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    /// Simulated time now, ps.
    pub sim_time_ps: u64,
    /// Flows completed.
    pub flows_done: u64,
    /// Flows in the workload.
    pub flows_total: u64,
    /// Payload bytes acknowledged so far, every flow (a collective's flows included).
    pub bytes_done: u64,
    /// Payload bytes of every flow of the workload.
    pub bytes_total: u64,
    /// `stop.max_time_us` in ps (0: none).
    pub max_time_ps: u64,
}

/// What a progress bar counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressBasis {
    /// Payload bytes acknowledged of the workload's bytes.
    Bytes,
    /// Simulated time of `stop.max_time_us` (open-ended workloads).
    SimTime,
}

impl ProgressBasis {
    /// Bytes, except for an open-ended workload (Poisson arrivals: `websearch`; infinite
    /// flows, `workload.infinite`) with a
    /// time limit, whose bytes to deliver depend on when it stops: simulated time then.
    pub fn of(s: &crate::scenario::Scenario) -> ProgressBasis {
        let open_ended =
            s.workload.kind == crate::scenario::WorkloadKind::Websearch || s.workload.infinite;
        if open_ended && s.stop.max_time_us > 0.0 {
            ProgressBasis::SimTime
        } else {
            ProgressBasis::Bytes
        }
    }
}

/// The numbers a progress bar shows: `done` of `total` (bytes, or ps of simulated time),
/// the rate (per wall-clock second, since the start) and the time left at that rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProgressView {
    /// What `done` and `total` count.
    pub basis: ProgressBasis,
    /// Done so far.
    pub done: u64,
    /// To do in all (at least `done`).
    pub total: u64,
    /// `done` per wall-clock second.
    pub per_s: f64,
    /// Wall-clock seconds left at `per_s` (`None` before any progress); counting bytes in a
    /// run with `stop.max_time_us`, the sooner of the bytes' and the time limit's.
    pub eta_s: Option<f64>,
    /// Fraction of `stop.max_time_us` simulated (0 without a limit).
    pub time_fraction: f64,
    /// Flows completed, of `flows_total`.
    pub flows_done: u64,
    /// Flows in the workload.
    pub flows_total: u64,
}

impl ProgressView {
    /// The view of report `p` counted by `basis`, `wall_s` wall-clock seconds after the
    /// run started.
    pub fn new(p: &Progress, basis: ProgressBasis, wall_s: f64) -> ProgressView {
        let (done, total) = match basis {
            ProgressBasis::SimTime if p.max_time_ps > 0 => {
                (p.sim_time_ps.min(p.max_time_ps), p.max_time_ps)
            }
            _ => (p.bytes_done, p.bytes_total.max(p.bytes_done)),
        };
        let basis = if p.max_time_ps > 0 {
            basis
        } else {
            ProgressBasis::Bytes
        };
        let per_s = if wall_s > 0.0 {
            done as f64 / wall_s
        } else {
            0.0
        };
        let time_fraction = if p.max_time_ps > 0 {
            (p.sim_time_ps as f64 / p.max_time_ps as f64).min(1.0)
        } else {
            0.0
        };
        let mut eta_s = (per_s > 0.0).then(|| (total - done) as f64 / per_s);
        if time_fraction > 0.0 && wall_s > 0.0 {
            // The run also ends at the time limit: at the simulated-time rate so far.
            let by_time = wall_s * (1.0 - time_fraction) / time_fraction;
            eta_s = Some(eta_s.map_or(by_time, |e| e.min(by_time)));
        }
        ProgressView {
            basis,
            done,
            total,
            per_s,
            eta_s,
            time_fraction,
            flows_done: p.flows_done,
            flows_total: p.flows_total,
        }
    }

    /// Fraction done, 0 to 1 (with a time limit, at least the fraction of it simulated).
    pub fn fraction(&self) -> f64 {
        let counted = if self.total == 0 {
            0.0
        } else {
            self.done as f64 / self.total as f64
        };
        counted.max(self.time_fraction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(sim_us: u64, bytes_done: u64) -> Progress {
        Progress {
            sim_time_ps: sim_us * 1_000_000,
            flows_done: 0,
            flows_total: 1024,
            bytes_done,
            bytes_total: 1024 << 23,
            max_time_ps: 0,
        }
    }

    /// A permutation where every flow ends at the same moment: the flow count stays 0 of
    /// 1024, the bytes move, and rate and ETA follow from them.
    #[test]
    fn bytes_progress_moves_while_no_flow_completes() {
        let p = at(100, 1 << 31);
        let v = ProgressView::new(&p, ProgressBasis::Bytes, 4.0);
        assert_eq!((v.done, v.total), (1 << 31, 1 << 33));
        assert_eq!((v.flows_done, v.flows_total), (0, 1024));
        assert_eq!(v.fraction(), 0.25);
        assert_eq!(v.per_s, (1u64 << 29) as f64);
        assert_eq!(v.eta_s, Some(12.0));
        let v0 = ProgressView::new(&at(0, 0), ProgressBasis::Bytes, 0.5);
        assert_eq!((v0.per_s, v0.eta_s, v0.fraction()), (0.0, None, 0.0));
        // Capped at 125 us of simulated time: the run ends there, before its bytes do.
        let mut capped = p;
        capped.max_time_ps = 125_000_000;
        let v = ProgressView::new(&capped, ProgressBasis::Bytes, 4.0);
        assert_eq!((v.done, v.total), (1 << 31, 1 << 33), "still counts bytes");
        assert_eq!(v.fraction(), 0.8);
        assert!((v.eta_s.unwrap() - 1.0).abs() < 1e-12, "{:?}", v.eta_s);
    }

    /// An open-ended workload counts simulated time of `stop.max_time_us`; without a time
    /// limit it falls back to bytes.
    #[test]
    fn open_ended_progress_counts_simulated_time() {
        let mut p = at(250, 5);
        p.max_time_ps = 1_000_000_000;
        let v = ProgressView::new(&p, ProgressBasis::SimTime, 2.0);
        assert_eq!(v.basis, ProgressBasis::SimTime);
        assert_eq!((v.done, v.total), (250_000_000, 1_000_000_000));
        assert_eq!(v.eta_s, Some(6.0));
        p.sim_time_ps = 2_000_000_000; // the last report may be past the limit
        assert_eq!(
            ProgressView::new(&p, ProgressBasis::SimTime, 2.0).fraction(),
            1.0
        );
        p.max_time_ps = 0;
        let v = ProgressView::new(&p, ProgressBasis::SimTime, 2.0);
        assert_eq!((v.basis, v.done), (ProgressBasis::Bytes, 5));

        let mut s = crate::scenario::Scenario::default();
        assert_eq!(ProgressBasis::of(&s), ProgressBasis::Bytes);
        s.workload.kind = crate::scenario::WorkloadKind::Websearch;
        assert_eq!(ProgressBasis::of(&s), ProgressBasis::Bytes);
        s.stop.max_time_us = 100.0;
        assert_eq!(ProgressBasis::of(&s), ProgressBasis::SimTime);
        // Infinite flows (DCSIM Fig. 4) never deliver their bytes: simulated time too.
        s.workload.kind = crate::scenario::WorkloadKind::AllToAll;
        assert_eq!(ProgressBasis::of(&s), ProgressBasis::Bytes);
        s.workload.infinite = true;
        assert_eq!(ProgressBasis::of(&s), ProgressBasis::SimTime);
    }
}
