//! A Zeropod run's per-flow rate series (`output.rate_sample_us`: `rates.csv`, `fairness.csv`
//! and the fairness keys, README "rates.csv"), the packet engine's series for the slotted
//! region.
//!
//! The cell model has no acknowledgements: a flow's `bytes` in an interval are the payload
//! of the distinct cells its receiver got in it (a data cell carries [`PAYLOAD_LEN`] bytes,
//! the flow's last one the rest), counted at the arrival time `flows.csv` counts, so a
//! flow's rows sum to its bytes once it completes. Duplicates (an optimistic cell that
//! arrived again as a scheduled one, §IV-B3) and cells after completion count nothing.
//!
//! The intervals are the packet engine's: they end at the multiples of the sample interval
//! and, for the last one, at the end of the run; a flow has a row (zero bytes included) for
//! each interval in which it ran (started before the interval's end, not completed before
//! its start), in time order then flow order. Arrivals are booked as the region computes
//! them, per flow and interval, so a cell whose arrival lands in a later interval than the
//! slot that sent it is counted where it arrived.

use rtl_models::zeropod_cell::PAYLOAD_LEN;

use super::region::FlowState;
use crate::metrics::fairness::{self, FlowSpan};
use crate::results::{RateSample, RunResult};
use crate::workload::FlowSpec;

/// Payload delivered per flow per sample interval.
#[derive(Debug, Clone)]
pub struct CellRates {
    interval_ps: u64,
    window_intervals: usize,
    /// Per flow: (interval index, payload bytes) in increasing interval order; interval `k`
    /// is `(k * interval_ps, (k + 1) * interval_ps]`.
    per_flow: Vec<Vec<(u64, u64)>>,
}

impl CellRates {
    /// The series of `flows` flows sampled every `interval_ps` (> 0), fairness windows of
    /// `window_intervals` intervals ([`fairness::window_intervals`]).
    pub fn new(interval_ps: u64, window_intervals: usize, flows: usize) -> CellRates {
        CellRates {
            interval_ps,
            window_intervals,
            per_flow: vec![Vec::new(); flows],
        }
    }

    /// Flow `f`'s receiver got a new cell with `bytes` of its payload at `at_ps`.
    pub fn add(&mut self, f: usize, at_ps: u64, bytes: u64) {
        let k = at_ps.saturating_sub(1) / self.interval_ps;
        let v = &mut self.per_flow[f];
        match v.last_mut() {
            Some(last) if last.0 == k => last.1 += bytes,
            Some(last) if last.0 > k => {
                // An arrival earlier than the flow's last booked one (a shorter path).
                match v.binary_search_by_key(&k, |e| e.0) {
                    Ok(i) => v[i].1 += bytes,
                    Err(i) => v.insert(i, (k, bytes)),
                }
            }
            _ => v.push((k, bytes)),
        }
    }

    /// `rates.csv` of a run that ended at `end_ps`, flows `specs` in state `flows`.
    fn rows(&self, specs: &[FlowSpec], flows: &[FlowState], end_ps: u64) -> Vec<RateSample> {
        let i = self.interval_ps;
        let mut out = Vec::new();
        if end_ps == 0 {
            return out;
        }
        let last_k = (end_ps - 1) / i;
        for (f, (spec, st)) in specs.iter().zip(flows).enumerate() {
            if spec.start_ps >= end_ps {
                continue;
            }
            let first = spec.start_ps / i;
            let last = if st.end_ps > 0 {
                ((st.end_ps - 1) / i).min(last_k)
            } else {
                last_k
            };
            let mut booked = self.per_flow[f].iter().peekable();
            for k in first..=last {
                while booked.next_if(|e| e.0 < k).is_some() {}
                let bytes = booked.next_if(|e| e.0 == k).map_or(0, |e| e.1);
                let t1 = ((k + 1) * i).min(end_ps);
                let len = t1 - fairness::interval_start(t1, i);
                out.push(RateSample {
                    flow: f as u32,
                    time_ps: t1,
                    bytes,
                    rate_gbps: bytes as f64 * 8000.0 / len as f64,
                });
            }
        }
        out.sort_by_key(|r| (r.time_ps, r.flow));
        out
    }

    /// Put the series and its fairness in `r` (a run that ended at `end_ps`).
    pub fn finish(&self, r: &mut RunResult, specs: &[FlowSpec], flows: &[FlowState], end_ps: u64) {
        let spans: Vec<FlowSpan> = specs
            .iter()
            .zip(flows)
            .map(|(s, st)| FlowSpan {
                start_ps: s.start_ps,
                end_ps: st.end_ps,
            })
            .collect();
        fairness::put_rate_results(
            r,
            self.rows(specs, flows, end_ps),
            self.interval_ps,
            self.window_intervals,
            &spans,
        );
    }
}

/// Payload bytes of cell `seq` of a flow of `bytes` bytes.
pub fn cell_payload(bytes: u64, seq: u32) -> u64 {
    (bytes - u64::from(seq) * PAYLOAD_LEN as u64).min(PAYLOAD_LEN as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(start_ps: u64, bytes: u64) -> FlowSpec {
        FlowSpec {
            src: 0,
            dst: 1,
            bytes,
            start_ps,
            collective: 0,
        }
    }

    /// Rows per interval the flow ran in, zeros included, the last interval cut at the run's
    /// end; arrivals out of order are booked where they arrived; sums equal the bytes.
    #[test]
    fn rows_cover_the_intervals_each_flow_ran_in() {
        let mut c = CellRates::new(100, 0, 3);
        // Flow 0: 150..., cells at 160, 390 and (late, out of order) 250; done at 390.
        c.add(0, 160, 512);
        c.add(0, 390, 100);
        c.add(0, 250, 512);
        // Flow 1 starts at 200, one cell at 300 (exactly an interval's end), never done.
        c.add(1, 300, 512);
        let specs = [spec(150, 1124), spec(200, 4096), spec(600, 512)];
        let mut st = vec![FlowState::default(); 3];
        st[0].end_ps = 390;
        let rows = c.rows(&specs, &st, 450);
        let got: Vec<(u32, u64, u64)> = rows.iter().map(|r| (r.flow, r.time_ps, r.bytes)).collect();
        assert_eq!(
            got,
            vec![
                (0, 200, 512),
                (0, 300, 512),
                (1, 300, 512),
                (0, 400, 100),
                (1, 400, 0),
                (1, 450, 0),
            ]
        );
        let sum0: u64 = rows.iter().filter(|r| r.flow == 0).map(|r| r.bytes).sum();
        assert_eq!(sum0, specs[0].bytes);
        assert_eq!(rows[5].rate_gbps, 0.0);
        assert!((rows[0].rate_gbps - 512.0 * 8000.0 / 100.0).abs() < 1e-9);
        assert_eq!(cell_payload(1124, 2), 100);
        assert_eq!(cell_payload(1124, 1), 512);
    }
}
