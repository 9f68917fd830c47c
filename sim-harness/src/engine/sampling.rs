//! Output-only sampling, never a simulated result: queue occupancy (`queues.csv`, and with
//! phantom queues `phantom_queues.csv`,
//! `Kind::Sample` index [`QUEUE_SAMPLE`]) and the per-flow rate series (`rates.csv`, index
//! [`RATE_SAMPLE`], `output.rate_sample_us`) with its fairness metrics (`fairness.csv`,
//! `jain_index_final`, `converge_10pct_us`: [`crate::metrics::fairness`]).
//!
//! Rate sampling reads each running flow's cumulatively acknowledged bytes
//! ([`Sim::transport_acked_bytes`]) every interval: O(flows running) per sample and nothing
//! per packet, and the sample events only read state, so a run's results are the same with
//! and without it.

use super::*;
use crate::metrics::fairness::{self, FlowSpan};
use crate::results::{RateSample, Table};

/// `Kind::Sample` index of a queue-occupancy sample.
pub(crate) const QUEUE_SAMPLE: u32 = 0;
/// `Kind::Sample` index of a rate sample.
pub(crate) const RATE_SAMPLE: u32 = 1;

/// The rate series being recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct RateSampler {
    /// Sample interval, ps (samples at its multiples).
    interval_ps: u64,
    /// Flows opened since the last sample, in the order they opened (by their start time,
    /// the self-clocked chain or the `llm` DAG: [`Sim::transport_open`] records them).
    opened: Vec<u32>,
    /// Flows running at the last sample: (flow, bytes acknowledged then).
    running: Vec<(u32, u64)>,
    /// Time of the last sample, ps.
    last_ps: u64,
    /// Rows so far: (flow, end of interval, bytes).
    rows: Vec<(u32, u64, u64)>,
    /// `converge_10pct_us` over groups of this many intervals (`output.fair_window_us`);
    /// 0: per interval.
    pub(crate) window_intervals: usize,
}

impl RateSampler {
    /// A sampler every `interval_ps` (> 0).
    pub(crate) fn new(interval_ps: u64) -> RateSampler {
        RateSampler {
            interval_ps,
            ..RateSampler::default()
        }
    }

    /// The first sample time.
    pub(crate) fn first_at(&self) -> Time {
        self.interval_ps
    }

    /// Flow `f` opens now: sampled from the next sample on.
    pub(crate) fn open(&mut self, f: u32) {
        self.opened.push(f);
    }
}

impl Sim {
    /// A `Kind::Sample` event: queue occupancy or rates.
    pub(super) fn on_sample(&mut self, which: u32) {
        self.c.sample_ticks += 1;
        if which == RATE_SAMPLE {
            self.on_rate_sample();
        } else {
            self.on_queue_sample();
        }
    }

    fn on_queue_sample(&mut self) {
        for (p, port) in self.ports.iter().enumerate() {
            let occupancy = port.kind.occupancy_bytes(p >= self.fabric.hosts as usize);
            if let Some(b) = occupancy {
                if b > 0 {
                    self.queues.push(QueueSample {
                        time_ps: self.now,
                        port: self.fabric.ports[p].name.clone(),
                        bytes: b,
                    });
                }
            }
            // Uno Fig. 4: the phantom level next to the physical one (read, not synced).
            if let Some(b) = port.kind.phantom_occupancy_bytes(self.now) {
                if b > 0 {
                    self.phantom_samples.push((self.now, p as u32, b));
                }
            }
        }
        self.q.push(
            self.now + self.sample_ps,
            Comp::new(Kind::Sample, QUEUE_SAMPLE),
        );
    }

    fn on_rate_sample(&mut self) {
        let Some(mut r) = self.rates.take() else {
            return;
        };
        let now = self.now;
        let opened = std::mem::take(&mut r.opened);
        r.running.extend(opened.into_iter().map(|f| (f, 0)));
        let RateSampler { running, rows, .. } = &mut *r;
        let skipping = self.wh_in_skip_bytes();
        running.retain_mut(|(f, last)| {
            let acked = self.acked_or_skipping(*f, &skipping);
            rows.push((*f, now, acked.saturating_sub(*last)));
            *last = acked;
            self.flows[*f as usize].end_ps == 0
        });
        r.last_ps = now;
        self.q
            .push(now + r.interval_ps, Comp::new(Kind::Sample, RATE_SAMPLE));
        self.rates = Some(r);
    }

    /// Flow `f`'s acknowledged bytes ([`Sim::transport_acked_bytes`]) and, while its
    /// partition is skipped, those it has sent since at the skip's pace (`skipping`, from
    /// [`Sim::wh_in_skip_bytes`]), capped at its size: its rate series as the full run's.
    pub(crate) fn acked_or_skipping(&self, f: u32, skipping: &BTreeMap<u32, u64>) -> u64 {
        let acked = self.transport_acked_bytes(f);
        match skipping.get(&f) {
            Some(&b) => (acked + b).min(self.flows[f as usize].spec.bytes),
            None => acked,
        }
    }

    /// `rates.csv` up to now: the samples, then the interval since the last one (the run's
    /// last, shorter interval), without changing the sampler.
    fn rate_rows(&self, r: &RateSampler) -> Vec<RateSample> {
        let sample = |(flow, time_ps, bytes): (u32, u64, u64)| {
            let len = time_ps - fairness::interval_start(time_ps, r.interval_ps);
            RateSample {
                flow,
                time_ps,
                bytes,
                rate_gbps: bytes as f64 * 8000.0 / len as f64,
            }
        };
        let mut out: Vec<RateSample> = r.rows.iter().map(|&row| sample(row)).collect();
        if self.now > r.last_ps {
            let skipping = self.wh_in_skip_bytes();
            let tail = r
                .running
                .iter()
                .copied()
                .chain(r.opened.iter().map(|&f| (f, 0)))
                .map(|(f, last)| {
                    let acked = self.acked_or_skipping(f, &skipping);
                    sample((f, self.now, acked.saturating_sub(last)))
                });
            out.extend(tail);
        }
        out
    }

    /// `rates.csv`, `fairness.csv` and the fairness keys, when rates are sampled.
    pub(super) fn rate_results(&self, r: &mut RunResult) {
        let Some(s) = self.rates.as_deref() else {
            return;
        };
        let spans: Vec<FlowSpan> = self
            .flows
            .iter()
            .map(|f| FlowSpan {
                start_ps: f.spec.start_ps,
                end_ps: f.end_ps,
            })
            .collect();
        fairness::put_rate_results(
            r,
            self.rate_rows(s),
            s.interval_ps,
            s.window_intervals,
            &spans,
        );
    }

    /// `phantom_queues.csv` (runs with phantom queues and queue samples): the non-zero
    /// phantom-queue levels at each sample, like `queues.csv` for the physical queues.
    pub(super) fn phantom_results(&self, r: &mut RunResult) {
        if !self
            .ports
            .iter()
            .any(|p| p.kind.phantom_occupancy_bytes(0).is_some())
        {
            return;
        }
        let rows = self
            .phantom_samples
            .iter()
            .map(|&(t, p, b)| {
                vec![
                    t.to_string(),
                    self.fabric.ports[p as usize].name.clone(),
                    b.to_string(),
                ]
            })
            .collect();
        let header = ["time_ps", "port", "bytes"].map(String::from).to_vec();
        r.tables
            .insert("phantom_queues".into(), Table { header, rows });
    }
}
