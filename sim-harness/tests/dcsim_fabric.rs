//! DCSIM in the fabric (DCSIM paper, sections 4.2 and 4.4), on a small version of the
//! shipped scenarios: the 3-tier fat tree of k = 4 (16 hosts) instead of k = 8 (128), with
//! the paper's links, switches, buffers, DATA size and DCSIM parameters, and five
//! all-to-all-v collectives whose sizes {2, 4, 8, 16} are the paper's {8, ..., 64} scaled
//! to the smaller tree, 2-BDP flows. DCSIM and the baseline (DCTCP-style window CC with
//! OPS) run the same workload (same seed).
//!
//! * `dcsim_a2av.toml` (Fig. 7): DCSIM has zero DATA loss and a lower mean CCT.
//! * `dcsim_oversubscribed.toml` (Fig. 8): with the even spines at 1%, DCSIM keeps zero DATA
//!   loss while the baseline loses more than 10% of its DATAs, and DCSIM's CCT is far lower.
//! * `dcsim_buffer_ratio.toml` (Fig. 11): DATA loss falls with `B_data / B` to zero. The
//!   paper sees zero from 2 on; this model has a small loss left at 2 (below 0.1% of the
//!   DATAs) and zero at 3: the test checks the fall, the small loss at 2 and zero at 3.
//! * Invariants: Eq. 3 (`n_SIM <= n_DATA`) after every host-engine event, conservation of
//!   DATAs and control packets, every DATA delivered exactly once per completed flow.

mod fabric;

use fabric::{packets_conserved, run, small_dcsim, x};
use sim_harness::{RunResult, Scenario};

fn scenario(file: &str, sets: &[&str]) -> Scenario {
    small_dcsim(file, sets)
}

fn complete(r: &RunResult) {
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "every flow completes"
    );
    assert_eq!(x(r, "collectives"), 5.0);
    assert_eq!(x(r, "collectives_completed"), 5.0);
    let t = &r.tables["collectives"];
    assert_eq!(t.rows.len(), 5);
    assert!(t.rows.iter().all(|row| row[6].parse::<u64>().unwrap() > 0));
}

/// Conservation: DATAs sent by hosts = delivered + dropped + in flight; control packets
/// created = delivered + dropped + in flight; Eq. 3 held at every check.
fn invariants(r: &RunResult) {
    packets_conserved(r);
    // At least one check per SIM sent (its transmission), and SIMs were sent.
    assert!(x(r, "sims_sent") > 0.0);
    assert!(x(r, "dcsim_invariant_checks") >= x(r, "sims_sent"));
    assert_eq!(
        x(r, "dcsim_invariant_violations"),
        0.0,
        "n_SIM <= n_DATA (Eq. 3)"
    );
    assert_eq!(x(r, "late_departures"), 0.0, "no port missed a wake-up");
    // Issue 14: the per-flow limits cover a line-rate flow and the receiver map the
    // widest window, so neither binds.
    assert!(x(r, "sims_needed") <= 256.0 && x(r, "window_needed") <= 512.0);
    assert_eq!(x(r, "window_blocked"), 0.0, "a per-flow limit bound");
    assert_eq!(
        x(r, "rx_overflow"),
        0.0,
        "a DATA arrived beyond the receiver map"
    );
    assert_eq!(
        x(r, "sim_drops"),
        r.tables["dcsim_ports"]
            .rows
            .iter()
            .map(|row| row[2].parse::<f64>().unwrap())
            .sum::<f64>()
    );
}

#[test]
fn a2av_dcsim_is_lossless_and_beats_the_baseline() {
    let d = run(&scenario("dcsim_a2av.toml", &[]));
    let b = run(&scenario("dcsim_a2av.toml", &["transport.cc=dctcp"]));
    complete(&d);
    complete(&b);
    invariants(&d);
    assert_eq!(x(&d, "data_drops"), 0.0, "DCSIM: zero DATA loss");
    assert_eq!(x(&d, "data_loss_rate"), 0.0);
    assert!(
        x(&d, "sim_drops") > 0.0,
        "congestion shows up as SIM drops instead"
    );
    assert!(x(&b, "data_drops") > 0.0, "the baseline drops DATAs");
    let (cd, cb) = (x(&d, "mean_cct_ps"), x(&b, "mean_cct_ps"));
    assert!(cd < cb, "mean CCT: DCSIM {cd} ps, baseline {cb} ps");
    // Same workload for both: id, size, flows, bytes, start_ps of every collective.
    for (rd, rb) in d.tables["collectives"]
        .rows
        .iter()
        .zip(&b.tables["collectives"].rows)
    {
        assert_eq!(rd[..5], rb[..5]);
    }
    assert!(x(&d, "mean_queueing_delay_ps") < x(&b, "mean_queueing_delay_ps"));
}

#[test]
fn oversubscribed_dcsim_keeps_zero_loss_while_the_baseline_drops() {
    let d = run(&scenario("dcsim_oversubscribed.toml", &[]));
    let b = run(&scenario(
        "dcsim_oversubscribed.toml",
        &["transport.cc=dctcp"],
    ));
    complete(&d);
    complete(&b);
    invariants(&d);
    assert_eq!(x(&d, "data_drops"), 0.0, "DCSIM: zero DATA loss");
    assert!(
        x(&d, "sim_loss_rate") > 0.2,
        "SIMs die on the slow paths: {}",
        x(&d, "sim_loss_rate")
    );
    assert!(
        x(&b, "data_loss_rate") > 0.10,
        "baseline loss {} (paper: above 10%)",
        x(&b, "data_loss_rate")
    );
    let (cd, cb) = (x(&d, "mean_cct_ps"), x(&b, "mean_cct_ps"));
    assert!(
        cd < 0.5 * cb,
        "mean CCT: DCSIM {cd} ps, baseline {cb} ps (paper: 45%)"
    );
    // The slow cores really are slow: links.csv of an even spine vs an odd one.
    let util = |name: &str| d.links.iter().find(|l| l.link == name).unwrap().tx_bytes;
    assert!(util("spine0.down1") * 20 < util("spine1.down1"));
}

#[test]
fn buffer_ratio_sweep_loss_falls_to_zero() {
    let loss: Vec<f64> = [1.0f64, 2.0, 3.0]
        .iter()
        .map(|r| {
            let res = run(&scenario(
                "dcsim_buffer_ratio.toml",
                &[&format!("transport.dcsim.data_buffer_ratio={r}")],
            ));
            complete(&res);
            invariants(&res);
            assert_eq!(
                x(&res, "dcsim_data_buffer_bytes"),
                (r * 12.0).floor() * 9064.0
            );
            x(&res, "data_loss_rate")
        })
        .collect();
    assert!(
        loss[0] > 0.0,
        "B_data = B loses DATAs (section 3.1): {loss:?}"
    );
    assert!(
        loss[1] < loss[0] / 4.0,
        "loss falls with the ratio: {loss:?}"
    );
    assert!(loss[1] < 1e-3, "near zero at 2 (paper: zero): {loss:?}");
    assert_eq!(loss[2], 0.0, "zero at 3: {loss:?}");
}

#[test]
fn variants_run_lossless_and_release_earlier() {
    let sync = run(&scenario("dcsim_a2av.toml", &[]));
    for v in ["async", "fractional"] {
        let r = run(&scenario(
            "dcsim_a2av.toml",
            &[&format!("transport.dcsim.variant={v}")],
        ));
        complete(&r);
        invariants(&r);
        assert_eq!(x(&r, "data_drops"), 0.0, "{v}: zero loss (section 4.4)");
        // Releasing before t_SIM + RTT_max shortens the pipeline: the first DATA of the run
        // arrives earlier.
        let first = |r: &RunResult| {
            r.tables["intervals"]
                .rows
                .iter()
                .position(|row| row[1] != "0")
                .unwrap()
        };
        assert!(first(&r) <= first(&sync), "{v}");
        assert_ne!(
            r.summary.extra["mean_cct_ps"], sync.summary.extra["mean_cct_ps"],
            "{v} differs from sync"
        );
    }
}

#[test]
fn conservation_with_losses_and_a_cut_run() {
    // DATA losses (B_data = B) and a run stopped midway: packets in queues and on links.
    let s = scenario(
        "dcsim_buffer_ratio.toml",
        &["transport.dcsim.data_buffer_ratio=1", "stop.max_time_us=60"],
    );
    let r = run(&s);
    invariants(&r);
    assert!(r.summary.flows_completed < r.summary.flows);
    assert!(x(&r, "data_in_flight_end") > 0.0 && x(&r, "ctrl_in_flight_end") > 0.0);
    // A full run resends every lost DATA: each flow's DATAs all arrive once.
    let s = scenario(
        "dcsim_buffer_ratio.toml",
        &["transport.dcsim.data_buffer_ratio=1"],
    );
    let r = run(&s);
    complete(&r);
    invariants(&r);
    assert!(x(&r, "data_drops") > 0.0 && r.summary.retransmits >= x(&r, "data_drops") as u64);
    let bytes: u64 = r.flows.iter().map(|f| f.bytes).sum();
    assert_eq!(x(&r, "data_payload_received"), bytes as f64);
}

#[test]
fn same_seed_same_results() {
    let s = scenario("dcsim_oversubscribed.toml", &["workload.collectives=2"]);
    let (a, b) = (run(&s), run(&s));
    let strip = |r: &RunResult| {
        let mut m = r.summary.clone();
        m.wall_s = 0.0;
        m.events_per_s = 0.0;
        m.data_packets_per_s = 0.0;
        (m, r.flows.clone(), r.tables.clone())
    };
    assert_eq!(strip(&a), strip(&b));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

    /// On random small workloads (kind, collectives, variant, DATA buffer, fabric), Eq. 3
    /// holds after every host-engine event, DATAs and control packets are conserved, and
    /// every flow completes with each of its DATAs delivered.
    #[test]
    fn eq3_and_conservation_hold(
        seed in 0u64..1000,
        kind in 0usize..3,
        collectives in 0u32..4,
        variant in 0usize..3,
        ratio in 0usize..3,
        tiers in 2u32..4,
        oversub in proptest::bool::ANY,
        message_tenths in 3u32..15,
    ) {
        let kind = ["all_to_all_v", "all_to_all", "permutation"][kind];
        let variant = ["sync", "async", "fractional"][variant];
        let sets = [
            format!("seed={seed}"),
            format!("workload.kind={kind}"),
            format!("workload.collectives={collectives}"),
            "workload.collective_sizes=[2, 3, 4]".to_string(),
            format!("workload.message={}bdp", f64::from(message_tenths) / 10.0),
            format!("transport.dcsim.variant={variant}"),
            format!("transport.dcsim.data_buffer_ratio={}", [0.0, 1.0, 2.0][ratio]),
            format!("topology.tiers={tiers}"),
            format!("topology.core_links={}", if oversub { "odd_only" } else { "all" }),
            "topology.hosts=8".to_string(),
        ];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let r = run(&scenario("dcsim_a2av.toml", &sets));
        invariants(&r);
        proptest::prop_assert_eq!(r.summary.flows_completed, r.summary.flows);
        let bytes: u64 = r.flows.iter().map(|f| f.bytes).sum();
        proptest::prop_assert_eq!(x(&r, "data_payload_received"), bytes as f64);
        proptest::prop_assert_eq!(x(&r, "collectives_completed"), x(&r, "collectives"));
    }
}

/// Session 12 (issue 14, speed): a DCSIM switch port starts its packet on a fast path
/// (`Sim::port_start_kept`: one borrow of the port) unless the run has `[[loss]]`, Wormhole
/// shadowing or a link down, where it takes the general path (`port_depart`, `transmit`).
/// A `[[loss]]` entry that never loses (Bernoulli, rate 0) sends every port through the
/// general path and changes nothing else: both runs must agree event for event (the
/// `events` count, every flow, every table), so a fast path that does anything different
/// (another event order, another arrival time or counter) fails here.
#[test]
fn switch_port_fast_start_equals_the_general_path() {
    use sim_harness::scenario::{Loss, LossModel};
    let fast = scenario("dcsim_oversubscribed.toml", &["workload.collectives=2"]);
    let mut general = fast.clone();
    general.loss.push(Loss {
        link: "agg0.up1".into(),
        model: LossModel::Bernoulli,
        rate: 0.0,
        ..Loss::default()
    });
    let (a, b) = (run(&fast), run(&general));
    assert!(a.summary.events > 0 && a.summary.flows_completed == a.summary.flows);
    let strip = |r: &RunResult| {
        let mut m = r.summary.clone();
        m.wall_s = 0.0;
        m.events_per_s = 0.0;
        m.data_packets_per_s = 0.0;
        // The loss block's own counters (all 0), absent without `[[loss]]`.
        m.drops_by_cause.retain(|_, v| *v != 0);
        m.extra.retain(|k, _| !k.starts_with("loss_"));
        (m, r.flows.clone(), r.tables.clone())
    };
    assert_eq!(strip(&a), strip(&b));
}
