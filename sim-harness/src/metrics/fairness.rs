//! Fairness of the per-flow rate series (`rates.csv`): Jain's fairness index per sample
//! interval (`fairness.csv`) and the summary keys `jain_index_final` and
//! `converge_10pct_us` (Uno section 5, Fig. 3 / 8: "time to converge within 10% of the fair
//! share").
//!
//! * A flow is **active in an interval** `(t0, t1]` when it ran during all of it: started at
//!   or before `t0`, not completed before `t1`. A flow that starts or completes inside an
//!   interval sent during part of it only, so its rate there says nothing about fairness.
//! * **Jain's index** of the active flows' rates `x_i`: `(sum x)^2 / (n sum x^2)`, from `1/n`
//!   (one flow takes everything) to 1 (equal rates). An interval whose active flows all
//!   sent nothing has no index (no row).
//! * The **fair share** of an interval is the mean of its active flows' rates.
//! * **Convergence window**: from the last flow start `T_s` to the first completion at or
//!   after it (or the end of the series): the intervals in which the set of flows is the
//!   final one. `jain_index_final` is the index of the last interval of that window that
//!   has one (some active flow sent); `jain_index_mean` the mean index over the window's
//!   intervals that have one (how fair the flows were while all of them ran: Uno Fig. 3's
//!   curves, one number);
//!   `converge_10pct_us` is the start of the first interval from which on every interval of
//!   the window has every active flow within 10% of the fair share, minus `T_s`, in µs
//!   (absent when the window's last interval is not within 10%, or the window is empty).
//! * With `output.fair_window_us` both rules run on groups of intervals
//!   ([`converge_windowed`]), and `fair_windows_within_10pct` is the share of those groups
//!   with every flow within 10% ([`within_share_windowed`]).

use crate::results::{FairnessSample, RateSample, RunResult};
use crate::scenario::Scenario;

/// How far from the fair share a converged flow may be: 10% (`converge_10pct_us`).
pub const CONVERGED_WITHIN: f64 = 0.10;

/// Start and completion of a flow, ps (`end_ps` 0: not completed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowSpan {
    /// Start time, ps.
    pub start_ps: u64,
    /// Completion time, ps; 0 if not completed.
    pub end_ps: u64,
}

/// What [`fairness`] derives from a rate series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fairness {
    /// `fairness.csv`, one row per interval with active flows that sent something.
    pub series: Vec<FairnessSample>,
    /// Jain's index of the last interval of the convergence window that has one.
    pub jain_index_final: Option<f64>,
    /// Mean of Jain's index over the intervals of the convergence window that have one.
    pub jain_index_mean: Option<f64>,
    /// Time from the last flow start until every active flow stays within 10% of the fair
    /// share, µs.
    pub converge_10pct_us: Option<f64>,
}

/// The convergence window `(T_s, end)`: the last flow start (at or before the series' end)
/// and the first completion at or after it (the series' end when none); `None` without a
/// start.
fn convergence_window(rows: &[RateSample], flows: &[FlowSpan]) -> Option<(u64, u64)> {
    let end_of_series = rows.last().map_or(0, |r| r.time_ps);
    let last_start = flows
        .iter()
        .map(|f| f.start_ps)
        .filter(|&s| s <= end_of_series)
        .max()?;
    let window_end = flows
        .iter()
        .filter(|f| f.end_ps > 0 && f.end_ps >= last_start)
        .map(|f| f.end_ps)
        .min()
        .unwrap_or(end_of_series);
    Some((last_start, window_end))
}

/// The convergence window's whole intervals grouped `k` at a time (`output.fair_window_us`),
/// from its first one (a last, partial group is left out): per group its start and whether
/// every flow active in all of its intervals has its bytes over the group within 10% of
/// their mean; with the last flow start `T_s`. `None` without a window (see
/// [`converge_windowed`]).
fn window_groups(
    rows: &[RateSample],
    interval_ps: u64,
    flows: &[FlowSpan],
    k: usize,
) -> Option<(u64, Vec<(u64, bool)>)> {
    if interval_ps == 0 || k == 0 {
        return None;
    }
    let (last_start, window_end) = convergence_window(rows, flows)?;
    // Per whole interval of the window: its start and each active flow's bytes.
    let mut intervals: Vec<(u64, Vec<(u32, u64)>)> = Vec::new();
    for (t0, t1, samples) in sample_intervals(rows, interval_ps, flows) {
        let active: Vec<(u32, u64)> = samples.map(|r| (r.flow, r.bytes)).collect();
        if t0 >= last_start && t1 <= window_end && t1 - t0 == interval_ps && !active.is_empty() {
            intervals.push((t0, active));
        }
    }
    // Per group of k intervals: (start, within 10%).
    let mut groups: Vec<(u64, bool)> = Vec::new();
    for g in intervals.chunks_exact(k) {
        let mut sums: Vec<(u32, u64, usize)> = Vec::new();
        for (_, active) in g {
            for &(f, b) in active {
                match sums.iter_mut().find(|s| s.0 == f) {
                    Some(s) => {
                        s.1 += b;
                        s.2 += 1;
                    }
                    None => sums.push((f, b, 1)),
                }
            }
        }
        let rates: Vec<f64> = sums
            .iter()
            .filter(|s| s.2 == k)
            .map(|s| s.1 as f64)
            .collect();
        let mean = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
        let within = mean > 0.0
            && rates
                .iter()
                .all(|x| (x - mean).abs() <= CONVERGED_WITHIN * mean);
        groups.push((g[0].0, within));
    }
    Some((last_start, groups))
}

/// `converge_10pct_us` on rates averaged over `k` consecutive sample intervals
/// (`output.fair_window_us`): the convergence window's whole intervals, from its first one,
/// are grouped `k` at a time (a last, partial group is left out); a flow's rate in a group
/// is its bytes over the group, and the group is within 10% when every flow active in all of
/// its intervals is within 10% of their mean. As [`fairness`]'s rule on those groups: the
/// start of the first group from which on every group is within 10%, minus `T_s`, in µs;
/// `None` when the last group is not (or there is none). Uno Fig. 3 / 8 plot sending rates
/// over tens of inter-DC RTTs, not per 100 µs sample, where a window-paced flow's ACK clock
/// alone moves a flow's rate by more than 10%.
pub fn converge_windowed(
    rows: &[RateSample],
    interval_ps: u64,
    flows: &[FlowSpan],
    k: usize,
) -> Option<f64> {
    let (last_start, groups) = window_groups(rows, interval_ps, flows, k)?;
    match groups.last() {
        Some(&(_, true)) => {
            let from = groups
                .iter()
                .rposition(|g| !g.1)
                .map_or(0, |last_bad| last_bad + 1);
            Some((groups[from].0 - last_start) as f64 / 1e6)
        }
        _ => None,
    }
}

/// `fair_windows_within_10pct` (`output.fair_window_us`): the share of the groups of
/// [`converge_windowed`] (the convergence window's whole `k`-interval groups) in which every
/// flow is within 10% of their mean, from 0 to 1; `None` without a group. Where
/// `converge_10pct_us` turns on the last group that strays (one noisy window late in the
/// run means "never"), this says how much of the time the flows were within 10%.
pub fn within_share_windowed(
    rows: &[RateSample],
    interval_ps: u64,
    flows: &[FlowSpan],
    k: usize,
) -> Option<f64> {
    let (_, groups) = window_groups(rows, interval_ps, flows, k)?;
    if groups.is_empty() {
        return None;
    }
    Some(groups.iter().filter(|g| g.1).count() as f64 / groups.len() as f64)
}

/// `rows` (in time order) cut at each sample time: per interval its start `t0`, its end `t1`
/// and the samples of the flows that ran over all of it (started by `t0`, not finished
/// before `t1`; a sample of a flow not in `flows` is left out).
fn sample_intervals<'a>(
    rows: &'a [RateSample],
    interval_ps: u64,
    flows: &'a [FlowSpan],
) -> impl Iterator<Item = (u64, u64, impl Iterator<Item = &'a RateSample>)> {
    rows.chunk_by(|a, b| a.time_ps == b.time_ps).map(move |g| {
        let t1 = g[0].time_ps;
        let t0 = interval_start(t1, interval_ps);
        let active = g.iter().filter(move |r| {
            flows
                .get(r.flow as usize)
                .is_some_and(|f| f.start_ps <= t0 && (f.end_ps == 0 || f.end_ps >= t1))
        });
        (t0, t1, active)
    })
}

/// Jain's fairness index of `rates` (`None` when empty or all zero).
pub fn jain_index(rates: &[f64]) -> Option<f64> {
    let n = rates.len() as f64;
    let sum: f64 = rates.iter().sum();
    let sq: f64 = rates.iter().map(|x| x * x).sum();
    (sq > 0.0).then(|| sum * sum / (n * sq))
}

/// `output.fair_window_us` in sample intervals (at least one; 0 without a window).
pub fn window_intervals(s: &Scenario) -> usize {
    if s.output.fair_window_us > 0.0 {
        ((s.output.fair_window_us / s.output.rate_sample_us).round() as usize).max(1)
    } else {
        0
    }
}

/// Put the rate series `rows` (sampled every `interval_ps`, fairness windows of
/// `window_intervals` intervals, 0: per interval) of flows `spans` in `r`: `rates.csv`,
/// `fairness.csv` and the keys `jain_index_final`, `jain_index_mean`, `converge_10pct_us`,
/// `fair_windows_within_10pct` (the packet engine's and the Zeropod region's series alike).
pub(crate) fn put_rate_results(
    r: &mut RunResult,
    rows: Vec<RateSample>,
    interval_ps: u64,
    window_intervals: usize,
    spans: &[FlowSpan],
) {
    r.rates = rows;
    let f = fairness(&r.rates, interval_ps, spans);
    r.fairness = f.series;
    let x = &mut r.summary.extra;
    if let Some(j) = f.jain_index_final {
        x.insert("jain_index_final".into(), j);
    }
    if let Some(j) = f.jain_index_mean {
        x.insert("jain_index_mean".into(), j);
    }
    let converge = match window_intervals {
        0 => f.converge_10pct_us,
        k => converge_windowed(&r.rates, interval_ps, spans, k),
    };
    if let Some(c) = converge {
        x.insert("converge_10pct_us".into(), c);
    }
    if window_intervals > 0 {
        if let Some(w) = within_share_windowed(&r.rates, interval_ps, spans, window_intervals) {
            x.insert("fair_windows_within_10pct".into(), w);
        }
    }
}

/// Start of the sample interval ending at `time_ps` with sample interval `interval_ps`
/// (samples at multiples of it; the last interval of a run may end between two).
pub fn interval_start(time_ps: u64, interval_ps: u64) -> u64 {
    (time_ps.saturating_sub(1) / interval_ps) * interval_ps
}

/// Fairness of the rate series `rows` (in time order, as `rates.csv`: every flow that ran
/// during an interval has a row for it, zero bytes included) sampled every `interval_ps`,
/// for flows `flows` (indexed by flow id).
pub fn fairness(rows: &[RateSample], interval_ps: u64, flows: &[FlowSpan]) -> Fairness {
    let mut out = Fairness::default();
    if interval_ps == 0 {
        return out;
    }
    let Some((last_start, window_end)) = convergence_window(rows, flows) else {
        return out;
    };
    // Per interval of the window: (start, within 10%, Jain's index).
    let mut window: Vec<(u64, bool, f64)> = Vec::new();
    let mut rates = Vec::new();
    for (t0, t1, samples) in sample_intervals(rows, interval_ps, flows) {
        rates.clear();
        rates.extend(samples.map(|r| r.rate_gbps));
        let Some(jain) = jain_index(&rates) else {
            if t0 >= last_start && t1 <= window_end && !rates.is_empty() {
                window.push((t0, false, 0.0));
            }
            continue;
        };
        let mean = rates.iter().sum::<f64>() / rates.len() as f64;
        out.series.push(FairnessSample {
            time_ps: t1,
            flows: rates.len() as u32,
            jain_index: jain,
            fair_share_gbps: mean,
        });
        if t0 >= last_start && t1 <= window_end {
            let within = rates
                .iter()
                .all(|x| (x - mean).abs() <= CONVERGED_WITHIN * mean);
            window.push((t0, within, jain));
        }
    }
    out.jain_index_final = window.iter().rev().map(|w| w.2).find(|&j| j > 0.0);
    let (sum, n) = window
        .iter()
        .filter(|w| w.2 > 0.0)
        .fold((0.0, 0u32), |(s, n), w| (s + w.2, n + 1));
    out.jain_index_mean = (n > 0).then(|| sum / f64::from(n));
    if let Some(&(_, within, _)) = window.last() {
        if within {
            let from = window
                .iter()
                .rposition(|w| !w.1)
                .map_or(0, |last_bad| last_bad + 1);
            out.converge_10pct_us = Some((window[from].0 - last_start) as f64 / 1e6);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    /// A row of flow `flow` for the interval ending at `t_us` µs, at `gbps` (10 µs intervals).
    fn row(flow: u32, t_us: u64, gbps: f64) -> RateSample {
        RateSample {
            flow,
            time_ps: t_us * US,
            bytes: (gbps * 10e3 / 8.0) as u64,
            rate_gbps: gbps,
        }
    }

    fn span(start_us: u64, end_us: u64) -> FlowSpan {
        FlowSpan {
            start_ps: start_us * US,
            end_ps: end_us * US,
        }
    }

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        let j = jain_index(&[1.0, 3.0]).unwrap();
        assert!((j - 16.0 / 20.0).abs() < 1e-12, "{j}");
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        assert_eq!(jain_index(&[]), None);
    }

    #[test]
    fn interval_starts() {
        assert_eq!(interval_start(10 * US, 10 * US), 0);
        assert_eq!(interval_start(20 * US, 10 * US), 10 * US);
        // The last, partial interval of a run ending at 27 µs starts at 20 µs.
        assert_eq!(interval_start(27 * US, 10 * US), 20 * US);
    }

    /// Two flows from t = 0, a third joins at 20 µs and takes everything at first, then the
    /// three share: converged from the interval starting at 50 µs, 30 µs after the start.
    #[test]
    fn convergence_after_the_last_start() {
        let flows = [span(0, 0), span(0, 0), span(20, 0)];
        let mut rows = Vec::new();
        let third = [0.0, 0.0, 10.0, 70.0, 40.0, 33.0, 34.0, 33.5];
        let others = [50.0, 50.0, 45.0, 15.0, 30.0, 33.0, 33.0, 33.0];
        for (k, (&a, &c)) in others.iter().zip(&third).enumerate() {
            let t = (k as u64 + 1) * 10;
            rows.push(row(0, t, a));
            rows.push(row(1, t, a));
            if t > 20 {
                rows.push(row(2, t, c));
            }
        }
        let f = fairness(&rows, 10 * US, &flows);
        assert_eq!(f.series.len(), 8);
        // Before 20 µs two equal flows; the third started at 20 µs, the start of the
        // interval (20, 30], so it counts from that interval on.
        assert_eq!(f.series[0].flows, 2);
        assert_eq!(f.series[0].jain_index, 1.0);
        assert_eq!(f.series[2].flows, 3);
        assert!(f.series[3].jain_index < 0.7, "{:?}", f.series[3]);
        assert_eq!(f.converge_10pct_us, Some(30.0));
        let last = f.jain_index_final.unwrap();
        assert!(last > 0.999 && last <= 1.0, "{last}");
        assert!((f.series[7].fair_share_gbps - (33.0 + 33.0 + 33.5) / 3.0).abs() < 1e-9);
    }

    /// A flow outside 10% in the last interval: never converged; a dip in the middle resets
    /// the convergence point.
    #[test]
    fn convergence_must_last_to_the_end_of_the_window() {
        let flows = [span(0, 0), span(0, 0)];
        let rates = [(50.0, 50.0), (50.0, 30.0), (50.0, 50.0), (50.0, 49.0)];
        let mut rows = Vec::new();
        for (k, &(a, b)) in rates.iter().enumerate() {
            let t = (k as u64 + 1) * 10;
            rows.push(row(0, t, a));
            rows.push(row(1, t, b));
        }
        let f = fairness(&rows, 10 * US, &flows);
        assert_eq!(
            f.converge_10pct_us,
            Some(20.0),
            "from the interval after the dip"
        );
        rows.push(row(0, 50, 60.0));
        rows.push(row(1, 50, 40.0));
        let f = fairness(&rows, 10 * US, &flows);
        assert_eq!(f.converge_10pct_us, None);
        assert_eq!(f.jain_index_final, jain_index(&[60.0, 40.0]));
    }

    /// The window ends at the first completion after the last start: the unfair tail of
    /// the run after it does not count, and the flow that completed mid-interval is not
    /// active in that interval.
    #[test]
    fn the_window_ends_at_the_first_completion() {
        let flows = [span(0, 25), span(0, 0)];
        let rows = vec![
            row(0, 10, 40.0),
            row(1, 10, 40.0),
            row(0, 20, 41.0),
            row(1, 20, 40.0),
            row(0, 30, 20.0), // completes at 25 µs: not active in (20, 30]
            row(1, 30, 70.0),
            row(1, 40, 99.0),
        ];
        let f = fairness(&rows, 10 * US, &flows);
        assert_eq!(f.converge_10pct_us, Some(0.0));
        assert_eq!(f.jain_index_final, jain_index(&[41.0, 40.0]));
        let mean = (1.0 + jain_index(&[41.0, 40.0]).unwrap()) / 2.0;
        assert_eq!(
            f.jain_index_mean,
            Some(mean),
            "over (0, 10] and (10, 20] only"
        );
        assert_eq!(f.series[2].flows, 1);
        assert_eq!(f.series.len(), 4);
    }

    /// Starved flows count (rate 0); an interval where no active flow sent has no row, and a
    /// window ending in one is not converged.
    #[test]
    fn starvation_and_silence() {
        let flows = [span(0, 0), span(0, 0)];
        let rows = vec![
            row(0, 10, 80.0),
            row(1, 10, 0.0),
            row(0, 20, 0.0),
            row(1, 20, 0.0),
        ];
        let f = fairness(&rows, 10 * US, &flows);
        assert_eq!(f.series.len(), 1);
        assert_eq!(f.series[0].jain_index, 0.5);
        assert_eq!(f.converge_10pct_us, None);
        assert_eq!(
            f.jain_index_final,
            Some(0.5),
            "the last interval that has an index"
        );
        assert_eq!(fairness(&[], 10 * US, &flows), Fairness::default());
    }

    /// `output.fair_window_us`: two flows that alternate 8 / 12 Gb/s from one interval to the
    /// next are 20 % apart in every interval (never converged per interval) but equal over
    /// two; after an unfair start (30 / 10) they converge from the group starting at 40 µs.
    /// A partial last group is left out; an unequal last group means never.
    #[test]
    fn convergence_over_windows_of_intervals() {
        let flows = [span(0, 0), span(0, 0)];
        let mut rows = Vec::new();
        for k in 0..9u64 {
            let t = (k + 1) * 10;
            let (a, b) = match k {
                0..=3 => (30.0, 10.0),
                _ if k % 2 == 0 => (8.0, 12.0),
                _ => (12.0, 8.0),
            };
            rows.push(row(0, t, a));
            rows.push(row(1, t, b));
        }
        assert_eq!(fairness(&rows, 10 * US, &flows).converge_10pct_us, None);
        assert_eq!(
            converge_windowed(&rows, 10 * US, &flows, 2),
            Some(40.0),
            "groups (0, 20], (20, 40] unfair; (40, 60], (60, 80] equal; (80, 90] left out"
        );
        assert_eq!(
            converge_windowed(&rows, 10 * US, &flows, 1),
            fairness(&rows, 10 * US, &flows).converge_10pct_us,
            "one interval per group: the per-interval rule"
        );
        // Groups of 4: (0, 40] unfair, (40, 80] equal.
        assert_eq!(converge_windowed(&rows, 10 * US, &flows, 4), Some(40.0));
        // Groups of 3: (30, 60] is 50 / 30 (25 % off 40); (60, 90] is 28 / 32, within 10 % of 30.
        assert_eq!(converge_windowed(&rows, 10 * US, &flows, 3), Some(60.0));
        rows.truncate(16);
        rows.push(row(0, 90, 30.0));
        rows.push(row(1, 90, 0.0));
        rows.push(row(0, 100, 30.0));
        rows.push(row(1, 100, 0.0));
        assert_eq!(converge_windowed(&rows, 10 * US, &flows, 2), None);
        assert_eq!(converge_windowed(&[], 10 * US, &flows, 2), None);
    }

    /// `fair_windows_within_10pct`: the share of the `k`-interval groups within 10%, which
    /// a last stray group does not zero (where `converge_10pct_us` says never).
    #[test]
    fn share_of_windows_within_10pct() {
        let flows = [span(0, 0), span(0, 0)];
        let mut rows = Vec::new();
        for k in 0..10u64 {
            let t = (k + 1) * 10;
            // Unfair (30 / 10) in intervals 0, 1 and 9; equal otherwise.
            let (a, b) = if k < 2 || k == 9 {
                (30.0, 10.0)
            } else {
                (20.0, 20.0)
            };
            rows.push(row(0, t, a));
            rows.push(row(1, t, b));
        }
        assert_eq!(converge_windowed(&rows, 10 * US, &flows, 1), None);
        assert_eq!(within_share_windowed(&rows, 10 * US, &flows, 1), Some(0.7));
        // Groups of 2: (0, 20] unfair, three equal, (80, 100] is 50 / 30 (25 % off 40).
        assert_eq!(within_share_windowed(&rows, 10 * US, &flows, 2), Some(0.6));
        // Groups of 4: (0, 40] is 100 / 60 (25 % off), (40, 80] equal, (80, 100] left out.
        assert_eq!(within_share_windowed(&rows, 10 * US, &flows, 4), Some(0.5));
        assert_eq!(within_share_windowed(&rows, 10 * US, &flows, 11), None);
        assert_eq!(within_share_windowed(&[], 10 * US, &flows, 2), None);
        assert_eq!(within_share_windowed(&rows, 10 * US, &flows, 0), None);
    }
}
