//! The per-flow rate series (`rates.csv`, `output.rate_sample_us`) and its fairness metrics
//! (`fairness.csv`, `jain_index_final`, `converge_10pct_us`) on small runs of DCTCP, DCSIM
//! and MPRDMA's DCTCP variant: every byte of a completed flow is in its rows, intervals end
//! at multiples of the sample interval (the last at the run's end), and the rates are what
//! the bytes say.

use sim_harness::scenario::{CcKind, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, RunControl, RunResult};
use std::collections::BTreeMap;

/// 8 hosts (2-tier fat tree of radix 4), an incast of 4 senders of 256 KiB into one host
/// (they share its link: the fair share is a quarter of it each).
fn incast(cc: CcKind) -> Scenario {
    let mut s = Scenario {
        name: "rate_series".into(),
        ..Scenario::default()
    };
    s.topology.tiers = 2;
    s.topology.radix = 4;
    s.workload.kind = WorkloadKind::Incast;
    s.workload.degree = 4;
    s.workload.message = Size::Bytes(256 * 1024);
    s.transport.cc = cc;
    s.output.queue_sample_us = 0.0;
    s.output.selection_bucket_us = 0.0;
    s.output.rate_sample_us = 2.0;
    s
}

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

#[test]
fn every_acknowledged_byte_is_in_the_series() {
    for cc in [CcKind::Dctcp, CcKind::Dcsim, CcKind::Mprdma] {
        let s = incast(cc);
        let r = run(&s);
        let interval = 2_000_000u64;
        let end = r.summary.end_time_ps;
        assert!(r.summary.flows_completed > 0, "{cc:?}");
        assert!(!r.rates.is_empty(), "{cc:?}");
        let mut sum: BTreeMap<u32, u64> = BTreeMap::new();
        let mut last_time = 0;
        for row in &r.rates {
            assert!(row.time_ps >= last_time, "{cc:?}: rows in time order");
            last_time = row.time_ps;
            assert!(
                row.time_ps % interval == 0 || row.time_ps == end,
                "{cc:?}: {row:?} ends at a sample or at the end {end}"
            );
            let len = row.time_ps - (row.time_ps - 1) / interval * interval;
            let want = row.bytes as f64 * 8000.0 / len as f64;
            assert!((row.rate_gbps - want).abs() < 1e-9, "{cc:?}: {row:?}");
            *sum.entry(row.flow).or_default() += row.bytes;
        }
        for f in &r.flows {
            let got = sum.get(&f.id).copied().unwrap_or(0);
            if f.end_ps > 0 {
                assert_eq!(got, f.bytes, "{cc:?}: flow {} bytes in rates", f.id);
                // Acknowledged as it goes, not all at the completion (a flow of many
                // intervals): no one row holds the whole flow.
                let most = r
                    .rates
                    .iter()
                    .filter(|x| x.flow == f.id)
                    .map(|x| x.bytes)
                    .max();
                assert!(most < Some(f.bytes), "{cc:?}: flow {} rows {most:?}", f.id);
                // No row after the interval the flow completed in.
                let last = r.rates.iter().rfind(|x| x.flow == f.id).unwrap();
                assert!(last.time_ps < f.end_ps + interval, "{cc:?}: {last:?}");
            } else {
                assert!(got <= f.bytes, "{cc:?}");
            }
        }
        assert!(!r.fairness.is_empty(), "{cc:?}");
        for x in &r.fairness {
            let n = f64::from(x.flows);
            assert!(x.jain_index >= 1.0 / n - 1e-12 && x.jain_index <= 1.0 + 1e-12);
            assert!(x.fair_share_gbps > 0.0, "{cc:?}: {x:?}");
        }
        let j = r.summary.extra.get("jain_index_final").copied();
        assert!(j.is_some_and(|j| j > 0.25 && j <= 1.0), "{cc:?}: {j:?}");
    }
}

#[test]
fn an_interrupted_or_capped_run_ends_its_series_at_its_end_time() {
    let mut s = incast(CcKind::Dctcp);
    s.stop.max_time_us = 7.0;
    let r = run(&s);
    assert_eq!(r.summary.end_time_ps, 7_000_000);
    let tail: Vec<_> = r.rates.iter().filter(|x| x.time_ps == 7_000_000).collect();
    let running = r.flows.iter().filter(|f| f.start_ps < 7_000_000).count();
    assert!(running > 0);
    assert_eq!(
        tail.len(),
        running,
        "the 1 us after the last sample, every running flow"
    );
    assert!(tail.iter().any(|x| x.bytes > 0));
    let total: u64 = r.rates.iter().map(|x| x.bytes).sum();
    assert!(total > 0 && total < 4 * 256 * 1024);
}

/// The run's last progress report counts the bytes the rate series counts: all of them when
/// every flow completed, and a part (the same sum as `rates.csv`) in a capped run, where no
/// flow completed yet.
#[test]
fn progress_counts_acknowledged_bytes() {
    use sim_harness::results::Progress;
    use std::sync::Mutex;
    for (cc, cap_us) in [
        (CcKind::Dctcp, 0.0),
        (CcKind::Dctcp, 7.0),
        (CcKind::Dcsim, 0.0),
        (CcKind::Dcsim, 30.0),
    ] {
        let mut s = incast(cc);
        s.stop.max_time_us = cap_us;
        let last = Mutex::new(None);
        let report = |p: Progress| *last.lock().unwrap() = Some(p);
        let ctl = RunControl {
            progress: Some(&report),
            stop: None,
            trace_dir: None,
        };
        let r = simulate(&s, &ctl).expect("run");
        let p = last.into_inner().unwrap().expect("a final report");
        let total: u64 = r.flows.iter().map(|f| f.bytes).sum();
        let series: u64 = r.rates.iter().map(|x| x.bytes).sum();
        assert_eq!(p.bytes_total, total, "{cc:?} {cap_us}");
        assert_eq!(p.bytes_done, series, "{cc:?} {cap_us}");
        assert_eq!(p.flows_done, r.summary.flows_completed);
        assert_eq!(p.sim_time_ps, r.summary.end_time_ps);
        if cap_us == 0.0 {
            assert_eq!((p.bytes_done, p.max_time_ps), (total, 0), "{cc:?}");
        } else {
            assert_eq!(p.max_time_ps, (cap_us * 1e6) as u64);
            assert_eq!(
                p.flows_done, 0,
                "{cc:?}: no flow completes before {cap_us} us"
            );
            assert!(p.bytes_done > 0 && p.bytes_done < total, "{cc:?}: {p:?}");
        }
    }
}

/// `output.fair_window_us`: `converge_10pct_us` over windows of 10 intervals is
/// `fairness::converge_windowed` of the run's own series, here converged where the
/// per-interval rule never is (output only: the flows and the series are the same as without
/// it); a window of one interval is the per-interval rule.
#[test]
fn fair_window_groups_the_series_for_convergence() {
    use sim_harness::metrics::fairness::{converge_windowed, FlowSpan};
    let mut s = incast(CcKind::Dcsim);
    let plain = run(&s);
    s.output.fair_window_us = 20.0;
    let r = run(&s);
    assert_eq!(r.rates, plain.rates);
    assert_eq!(r.summary.max_fct_ps, plain.summary.max_fct_ps);
    let spans: Vec<FlowSpan> = r
        .flows
        .iter()
        .map(|f| FlowSpan {
            start_ps: f.start_ps,
            end_ps: f.end_ps,
        })
        .collect();
    let want = converge_windowed(&r.rates, 2_000_000, &spans, 10);
    assert!(want.is_some());
    assert_eq!(plain.summary.extra.get("converge_10pct_us"), None);
    assert_eq!(r.summary.extra.get("converge_10pct_us").copied(), want);
    s.output.fair_window_us = 2.0;
    let one = run(&s);
    assert_eq!(
        one.summary.extra.get("converge_10pct_us"),
        plain.summary.extra.get("converge_10pct_us")
    );
}

/// Flows opened by something other than their start time are sampled too: the self-clocked
/// all-to-all (a host opens its next flow when one completes) and an `llm` iteration (the
/// DAG opens a flow when its predecessors end). Before session 22 the series followed only
/// flows opened by their start time, so `rates.csv` held only the flows each host opened at
/// the start here, and no flow at all of an `llm` run (measured: `wormhole_gpt_64` with
/// `output.rate_sample_us = 100` wrote a header only; now all 512 flows, each with its
/// bytes).
#[test]
fn flows_opened_by_the_chain_or_the_dag_are_in_the_series() {
    let mut chain = incast(CcKind::Dctcp);
    chain.workload.kind = WorkloadKind::AllToAll;
    chain.workload.parallel = 2;
    chain.workload.self_clocked = true;
    chain.workload.message = Size::Bytes(64 * 1024);
    let path = format!(
        "{}/../scenarios/wormhole_gpt_64.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut llm: Scenario = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    llm.skip.enabled = false;
    if let Some(l) = llm.workload.llm.as_mut() {
        l.bytes_scale = 0.01;
    }
    llm.output.rate_sample_us = 20.0;
    for (s, what) in [(chain, "self-clocked"), (llm, "llm")] {
        let r = run(&s);
        assert_eq!(r.summary.flows_completed as usize, r.flows.len(), "{what}");
        let mut sum: BTreeMap<u32, u64> = BTreeMap::new();
        for row in &r.rates {
            *sum.entry(row.flow).or_default() += row.bytes;
        }
        for f in &r.flows {
            assert_eq!(
                sum.get(&f.id).copied(),
                Some(f.bytes),
                "{what}: flow {}",
                f.id
            );
        }
    }
}
