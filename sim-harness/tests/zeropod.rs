//! Zeropod in the DES (issue 11; Zeropod §IV-V) on small instances of the shipped
//! `scenarios/zeropod_*.toml` (loaded with overrides, so the files are exercised too):
//!
//! * zero scheduled-cell collisions and every flow delivered, under every workload and under
//!   random demands (proptest), single pod and multi-pod (E2P through the Cores, C2E back);
//! * the optimistic delivery probability of Eq. 2-6 measured through the fabric's switches;
//! * a mouse preempts an elephant at a shared receiver (top-k priority, §IV-B1);
//! * incast finish time near the Ideal (§V-B, Fig. 3c);
//! * determinism (same seed, same results).

mod common;

use common::outputs_without_trace;
use sim_harness::overrides::{load, Source};
use sim_harness::workload::FlowSpec;
use sim_harness::{simulate, RunControl, RunResult, Scenario};
use std::path::PathBuf;

fn scenario(file: &str, sets: &[&str]) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(file);
    let all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load(Source::File(&path), &all).expect("scenario loads")
}

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

fn run_flows(s: &Scenario, flows: Vec<FlowSpec>) -> RunResult {
    sim_harness::zeropod::simulate_flows(s, flows, &RunControl::default()).expect("run")
}

fn x(r: &RunResult, k: &str) -> f64 {
    *r.summary
        .extra
        .get(k)
        .unwrap_or_else(|| panic!("summary.extra has no {k}"))
}

fn flow(src: u32, dst: u32, bytes: u64, start_us: u64) -> FlowSpec {
    FlowSpec {
        src,
        dst,
        bytes,
        start_ps: start_us * 1_000_000,
        collective: 0,
    }
}

/// The k = 8 single pod (16 hosts), 5 us scheduling delay.
fn pod8() -> Scenario {
    scenario(
        "zeropod_singlepod.toml",
        &["topology.radix=8", "topology.hosts=16"],
    )
}

#[test]
fn a_mouse_is_not_stuck_behind_an_elephant_to_its_receiver() {
    // §IV-B1: a 40 KB mouse arriving while a 10 MB elephant holds its receiver gets the
    // receiver's grants first: it finishes within 1 epoch (RTS) + the 5 us scheduling delay
    // + 5 epochs of cells + the 4-hop path, about 13 us.
    let s = pod8();
    let r = run_flows(&s, vec![flow(0, 1, 10_000_000, 0), flow(2, 1, 40_000, 50)]);
    assert_eq!(r.summary.flows_completed, 2);
    let mouse = r.flows.iter().find(|f| f.bytes == 40_000).unwrap();
    assert!(mouse.fct_ps < 16_000_000, "mouse FCT {} ps", mouse.fct_ps);
    assert_eq!(x(&r, "zeropod_scheduled_collisions"), 0.0);
}

fn assert_clean(r: &RunResult, what: &str) {
    assert_eq!(
        x(r, "zeropod_scheduled_collisions"),
        0.0,
        "{what}: scheduled collision"
    );
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "{what}: every flow delivered"
    );
    for k in [
        "zeropod_misrouted",
        "zeropod_switch_overflow",
        "zeropod_scheduler_overflow",
        "zeropod_core_drops",
        "zeropod_core_bad_schd",
        "stalled",
    ] {
        assert_eq!(x(r, k), 0.0, "{what}: {k}");
    }
}

#[test]
fn every_workload_runs_without_scheduled_collisions() {
    let k8 = ["topology.radix=8", "topology.hosts=16"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "zeropod_singlepod.toml",
            vec!["workload.flows=60", "workload.load=0.8"],
        ),
        ("zeropod_incast.toml", vec!["workload.degree=12"]),
        ("zeropod_collective.toml", vec!["workload.message=60KB"]),
        (
            "zeropod_collective.toml",
            vec![
                "workload.kind=all_to_all",
                "workload.message=20KB",
                "transport.zeropod.participants=one_per_rack",
            ],
        ),
        ("zeropod_optimistic.toml", vec!["workload.flows=60"]),
    ];
    for (file, sets) in cases {
        let mut all: Vec<&str> = k8.to_vec();
        all.extend(sets.iter().copied());
        let r = run(&scenario(file, &all));
        assert_clean(&r, file);
    }
    // Multi-pod: 3 k = 8 pods, 6 + 1 Cores, web search with 50% inter-pod flows.
    let r = run(&scenario(
        "zeropod_multipod.toml",
        &[
            "topology.hosts=48",
            "workload.flows=80",
            "transport.zeropod.intra_pod_fraction=0.5",
        ],
    ));
    assert_clean(&r, "multipod");
    assert!(
        x(&r, "zeropod_core_sent") > 0.0,
        "inter-pod cells crossed the Cores"
    );
    assert_eq!(x(&r, "zeropod_core_enqueued"), x(&r, "zeropod_core_sent"));
}

/// With one participant per rack an incast is checked against the racks (16 in the shipped
/// 256-host file), not against the hosts validation counted: an error naming the field.
#[test]
fn one_per_rack_incast_larger_than_the_racks_is_refused() {
    let s = scenario(
        "zeropod_incast.toml",
        &[
            "transport.zeropod.participants=one_per_rack",
            "workload.degree=20",
        ],
    );
    let Err(e) = simulate(&s, &RunControl::default()) else {
        panic!("an incast of degree 20 over 16 racks ran");
    };
    let e = e.to_string();
    assert!(
        e.contains("workload.degree")
            && e.contains("an incast of degree 20 needs 21 hosts, the topology has 16"),
        "{e}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6))]

    /// Random demands (sources, destinations, sizes, start times) on two k = 8 pods: no
    /// scheduled cell ever collides, and every cell of every flow arrives.
    #[test]
    fn random_demands_never_collide(
        raw in proptest::collection::vec((0u32..32, 1u32..32, 1u64..60_000, 0u64..30), 1..40),
        seed in 1u64..1000,
    ) {
        let seed_set = format!("seed={seed}");
        let s = scenario(
            "zeropod_multipod.toml",
            &["topology.hosts=32", seed_set.as_str(), "stop.max_time_us=20000"],
        );
        let flows: Vec<FlowSpec> = raw
            .iter()
            .map(|&(src, off, bytes, t)| flow(src, (src + off) % 32, bytes, t))
            .collect();
        let r = run_flows(&s, flows);
        assert_clean(&r, "random demands");
    }
}

#[test]
fn optimistic_delivery_probability_through_the_fabric_matches_eq6() {
    // Eq. 2-6 through the region's own ToRs and Aggs (k = 32 pod, m = 16): every host sends
    // an unscheduled cell in a slot with probability G = 0.1 to a uniform other host over a
    // uniform Agg, and colliding cells keep occupying their downstream links
    // (`forward_garbled`, the model behind Eq. 2-6). The region is slotted (cells start on
    // slot boundaries), so a cell's vulnerable window is one cell time, not the 2t of the
    // unslotted derivation: P = exp(G (H - 1) ...) with the exponent halved, i.e.
    // P = exp(G (2/m - 3)) = 0.750 (unslotted Eq. 6: 0.563, checked at block level in
    // `switch/tests/zeropod_blocks.rs`).
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            use rand::{Rng, SeedableRng};
            use sim_harness::zeropod::region::{Region, RegionConfig};
            let s = scenario("zeropod_optimistic.toml", &[]);
            let shape = sim_harness::topology::zeropod::PodShape::of(&s).unwrap();
            let t = sim_harness::zeropod::timing(&s, &shape).unwrap();
            let rc = RegionConfig {
                t,
                iterations: 6,
                top_k: 16,
                optimistic_max_cells: 5,
                core_port_cells: 1,
                backpressure_cells: 1,
                seed: 1,
                sample_every_ps: 0,
                forward_garbled: true,
            };
            let mut r = Region::new(shape, rc, Vec::new()).unwrap();
            let (m, n, g) = (16u32, 256u32, 0.1f64);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            for _ in 0..3000 {
                for h in 0..n {
                    if rng.gen::<f64>() < g {
                        let d = (h + rng.gen_range(1..n)) % n;
                        r.inject_optimistic(h, d, rng.gen_range(0..m));
                    }
                }
                r.step_slot();
            }
            for _ in 0..4 {
                r.step_slot();
            }
            let p = r.stats.probes_delivered as f64 / r.stats.probes_sent as f64;
            let slotted = (g * (2.0 / m as f64 - 3.0)).exp();
            eprintln!(
                "probes {} delivered {} P = {p:.4}, slotted Eq. 6 {slotted:.4}",
                r.stats.probes_sent, r.stats.probes_delivered
            );
            assert!(r.stats.probes_sent > 70_000);
            assert_eq!(r.switch_stats().scheduled_collisions, 0);
            assert!(
                (p - slotted).abs() / slotted < 0.03,
                "P = {p}, Eq. 6 slotted {slotted}"
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn incast_finishes_near_the_ideal() {
    // §V-B, Fig. 3c: 15 senders x 100 KB to one receiver of a k = 8 pod. The Ideal on the
    // same bytes as cells on the wire (512 B payload + 40 B header) is the bound Zeropod can
    // approach; the control slots (N + 1 per epoch), the partial last grant of each sender
    // and the scheduling delay make up the rest.
    let r = run(&scenario(
        "zeropod_incast.toml",
        &[
            "topology.radix=8",
            "topology.hosts=16",
            "workload.degree=15",
        ],
    ));
    assert_clean(&r, "incast");
    let (fin, ideal, ideal_cells) = (
        x(&r, "finish_time_ps"),
        x(&r, "ideal_finish_time_ps"),
        x(&r, "ideal_cells_finish_time_ps"),
    );
    eprintln!("incast finish {fin} ps, Ideal {ideal} ps, Ideal (cells) {ideal_cells} ps");
    assert!(fin >= ideal_cells, "faster than the Ideal on cells?");
    assert!(
        fin <= 1.25 * ideal_cells,
        "finish {fin} vs Ideal (cells) {ideal_cells}"
    );
}

#[test]
fn incast_runs_one_full_grant_per_epoch() {
    // Where the incast's distance to the Ideal comes from (README, issue 11): not from the
    // scheduler. The receiver takes one grant per epoch (§III-A: an epoch serves one set of
    // source-destination pairs) of at most N cells; each sender's last grant is partial. So
    // the design's floor is G = sum over senders of ceil(cells / N) epochs of grants after
    // the first RTS and the scheduling delay, and the run must sit on it (no idle epoch at
    // the receiver): the rest of the gap is the N + 1 control slots and the cell header.
    let s = scenario(
        "zeropod_incast.toml",
        &[
            "topology.radix=8",
            "topology.hosts=16",
            "workload.degree=15",
        ],
    );
    let r = run(&s);
    assert_clean(&r, "incast");
    let n = x(&r, "zeropod_epoch_cells") as u64;
    let epoch = x(&r, "zeropod_epoch_ps");
    let delay = x(&r, "zeropod_scheduling_delay_epochs");
    let g: u64 = r
        .flows
        .iter()
        .map(|f| f.bytes.div_ceil(512).div_ceil(n))
        .sum();
    assert!(
        r.flows.iter().all(|f| f.start_ps == 0),
        "incast starts at 0"
    );
    let fin = x(&r, "finish_time_ps");
    // The flows arrive in epoch 0 and are reported in epoch 1; grants run in epochs
    // 1 + delay .. delay + g; the last cell then crosses 4 hops.
    let hops = 4.0 * s.topology.link_delay_ns as f64 * 1000.0;
    let floor = (delay + g as f64) * epoch + hops;
    eprintln!("incast finish {fin} ps, floor {floor} ps ({g} grant epochs + {delay} delay)");
    assert!(
        fin >= floor,
        "finish {fin} below the one-grant-per-epoch floor {floor}"
    );
    assert!(
        fin <= floor + epoch,
        "finish {fin}: idle epochs at the receiver beyond the floor {floor}"
    );
}

#[test]
fn same_seed_same_results() {
    let s = scenario(
        "zeropod_multipod.toml",
        &["topology.hosts=32", "workload.flows=40"],
    );
    let (a, b) = (run(&s), run(&s));
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.queues, b.queues);
    let strip = |r: &RunResult| {
        let mut e = r.summary.extra.clone();
        e.retain(|k, _| !k.ends_with("_per_s"));
        e
    };
    assert_eq!(strip(&a), strip(&b));
}

/// The last flow's end, ps (every flow must finish).
fn finish(r: &RunResult) -> u64 {
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "unfinished flows"
    );
    r.flows.iter().map(|f| f.end_ps).max().unwrap_or(0)
}

/// Zeropod and its buffered baseline (`--set transport.cc=dctcp`, with the scenario's DCTCP
/// settings: ECN at 1/7 BDP, 1460 + 40 B packets, IW10 with slow start, 1 ms RTO) on the
/// same shipped scenario, k = 16 pod (64 hosts).
fn both(file: &str, extra: &[&str]) -> (RunResult, RunResult) {
    let mut sets = vec!["topology.radix=16", "topology.hosts=64"];
    sets.extend_from_slice(extra);
    let z = run(&scenario(file, &sets));
    sets.push("transport.cc=dctcp");
    let b = run(&scenario(file, &sets));
    (z, b)
}

#[test]
fn incast_finishes_well_below_the_buffered_baseline() {
    // §V-B, Fig. 3c: "the incast finish time of Zeropod is close to that of Ideal, and is
    // much lower than the traditional DCN". 63 senders x 100 KB into one receiver: the
    // DCN's 512 KB port overflows and the losses wait for the RTO; Zeropod loses nothing.
    let (z, b) = both("zeropod_incast.toml", &["workload.degree=63"]);
    assert_clean(&z, "incast");
    let (zf, bf) = (finish(&z), finish(&b));
    eprintln!(
        "incast: Zeropod {zf} ps, DCN {bf} ps ({} drops)",
        b.summary.drops
    );
    assert!(b.summary.drops > 0, "the baseline's incast lost nothing");
    assert!(
        (zf as f64) < 0.8 * bf as f64,
        "Zeropod {zf} ps vs DCN {bf} ps"
    );
}

#[test]
fn ring_step_no_slower_than_the_buffered_baseline() {
    // §V-B, Fig. 3d: a ring-allreduce step (every host sends 1 MB to its successor in a
    // random ring); "Zeropod performs equally or better than the traditional DCN".
    let (z, b) = both("zeropod_collective.toml", &[]);
    assert_clean(&z, "ring");
    let (zf, bf) = (finish(&z), finish(&b));
    eprintln!("ring step: Zeropod {zf} ps, DCN {bf} ps");
    assert!(zf <= bf, "Zeropod {zf} ps vs DCN {bf} ps");
}

fn mice_p99(r: &RunResult) -> u64 {
    let mut v: Vec<u64> = r
        .flows
        .iter()
        .filter(|f| f.bytes <= 100_000 && f.end_ps > 0)
        .map(|f| f.fct_ps)
        .collect();
    v.sort_unstable();
    let i = ((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

#[test]
fn mice_p99_fct_below_the_buffered_baseline_at_high_load() {
    // §V-B, Fig. 4b on a k = 16 pod (64 hosts; 5 us scheduling delay): web search at 80%
    // load. The baseline is the same pod as a buffered fat tree (512 KB per port, ECN at
    // ~1/7 BDP, DCTCP-style CC) running the very same flows.
    let sets = [
        "topology.radix=16",
        "topology.hosts=64",
        "workload.load=0.8",
        "workload.flows=400",
    ];
    let z = run(&scenario("zeropod_singlepod.toml", &sets));
    let mut bs: Vec<&str> = sets.to_vec();
    bs.push("transport.cc=dctcp");
    let b = run(&scenario("zeropod_singlepod.toml", &bs));
    assert_clean(&z, "websearch 80%");
    assert_eq!(b.summary.flows_completed, b.summary.flows);
    let key = |r: &RunResult| {
        r.flows
            .iter()
            .map(|f| (f.src, f.dst, f.bytes, f.start_ps))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        key(&z),
        key(&b),
        "Zeropod and its baseline run the same flows"
    );
    let (zm, bm) = (mice_p99(&z), mice_p99(&b));
    eprintln!("mice p99: Zeropod {zm} ps, buffered baseline {bm} ps");
    assert!(zm < bm, "Zeropod mice p99 {zm} ps, baseline {bm} ps");
}

#[test]
fn single_tor_is_one_tor_of_a_pod() {
    // `single_tor` with cc = zeropod: k/2 = 4 hosts under one ToR of a k = 8 pod; every cell
    // still goes up to an Agg and back down (§IV-A1: E2E traffic is routed up to the Agg).
    let r = run(&scenario(
        "zeropod_incast.toml",
        &[
            "topology.kind=single_tor",
            "topology.radix=8",
            "topology.hosts=0",
            "workload.degree=3",
        ],
    ));
    assert_eq!(x(&r, "zeropod_hosts"), 4.0);
    assert_eq!(r.summary.flows, 3);
    assert_clean(&r, "single_tor");
    // A refused shape names its field (validation, so `--dry-run` refuses it too).
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/zeropod_incast.toml");
    let sets: Vec<String> = [
        "topology.kind=single_tor",
        "topology.radix=8",
        "topology.hosts=5",
        "workload.degree=3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    match load(Source::File(&path), &sets) {
        Err(sim_harness::Error::Field { field, .. }) => assert_eq!(field, "topology.hosts"),
        other => panic!("{:?}", other.map(|s| s.topology)),
    }
}

/// `output.trace` on a Zeropod run (`zeropod/trace.rs`): a multi-pod web search with
/// optimistic cells (seed 2: cells through the Cores and collisions). Every cell a NIC
/// sends is a `host<i>.tx` record and ends as a `.rx` at its receiver or a collision `.drop`
/// at a switch output; every Core send is a `core<c>.pod<p>.tx`; the records are in time
/// order; the run's other outputs are those of the run without a trace; the scope and cap
/// fields apply as on the packet engine.
#[test]
fn zeropod_trace_records_every_cell_in_time_order() {
    let sets = [
        "topology.hosts=48",
        "workload.flows=20",
        "transport.zeropod.intra_pod_fraction=0.5",
        "transport.zeropod.optimistic_max_cells=64",
    ];
    let mut s = scenario("zeropod_multipod.toml", &sets);
    s.seed = 2;
    let plain = run(&s);
    assert!(plain.trace.is_none());
    s.output.trace = true;
    let r = run(&s);
    assert_eq!(
        outputs_without_trace(&r),
        outputs_without_trace(&plain),
        "the trace only reads the region"
    );
    let text = r.trace.as_deref().expect("a trace");
    // Written as the run goes (`RunControl::trace_dir`, the CLI's way): the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let ctl = sim_harness::RunControl {
        trace_dir: Some(dir.path()),
        ..sim_harness::RunControl::default()
    };
    let spooled = sim_harness::simulate(&s, &ctl).unwrap();
    assert!(text.len() > 1 << 20 && spooled.trace.is_none());
    let file = spooled.trace_file.as_deref().expect("the trace's file");
    assert!(
        std::fs::read_to_string(file).unwrap() == text,
        "spooled: the same bytes"
    );
    let t = golden::schema::Trace::from_jsonl(text).unwrap();
    assert_eq!(t.records.len() as f64, x(&r, "trace_records"));
    assert_eq!(x(&r, "trace_truncated"), 0.0);
    assert!(
        t.records.windows(2).all(|w| w[0].cycle <= w[1].cycle),
        "records in time order"
    );
    let mut n = std::collections::BTreeMap::<&str, f64>::new();
    for rec in &t.records {
        let (port, sig) = rec.signal.rsplit_once('.').unwrap();
        let v = rec.value.as_str().unwrap_or("");
        let key = match (port.split('.').next().unwrap(), sig) {
            (h, "tx") if h.starts_with("host") => "host_tx",
            (h, "rx") if h.starts_with("host") => {
                if v.ends_with(" dup") {
                    "rx_dup"
                } else {
                    "rx"
                }
            }
            (c, "tx") if c.starts_with("core") => "core_tx",
            (_, "queue_bytes") => "queue",
            (p, "drop") if p.starts_with("pod") => {
                assert!(v.ends_with(" opt cause=collision"), "{v}");
                "lost"
            }
            other => panic!("unexpected record {other:?}: {}", rec.signal),
        };
        *n.entry(key).or_default() += 1.0;
    }
    let get = |k: &str| n.get(k).copied().unwrap_or(0.0);
    let sent = x(&r, "zeropod_scheduled_cells_sent") + x(&r, "zeropod_optimistic_sent");
    assert_eq!(get("host_tx"), sent);
    assert_eq!(get("core_tx"), x(&r, "zeropod_core_sent"));
    assert!(get("core_tx") > 0.0 && get("queue") > 0.0, "{n:?}");
    assert_eq!(get("lost"), x(&r, "zeropod_optimistic_dropped"));
    assert!(get("lost") > 0.0, "seed 2 has collisions: {n:?}");
    assert_eq!(get("rx_dup"), x(&r, "zeropod_duplicates"));
    // Every flow completed: each cell sent reached its receiver or was lost.
    assert_eq!(r.summary.flows_completed, r.summary.flows);
    assert_eq!(get("host_tx"), get("rx") + get("rx_dup") + get("lost"));
    let cells: u64 = r.flows.iter().map(|f| f.bytes.div_ceil(512)).sum();
    assert_eq!(
        get("rx"),
        cells as f64,
        "each cell of each flow received once"
    );

    // links.csv (`zeropod/links.rs`): one row per output, named as the trace's ports; a
    // host's or Core port's sends and every link's drops are its records in the trace.
    let mut tx = std::collections::BTreeMap::<&str, u64>::new();
    let mut drops = std::collections::BTreeMap::<&str, u64>::new();
    for rec in &t.records {
        let (port, sig) = rec.signal.rsplit_once('.').unwrap();
        match sig {
            "tx" => *tx.entry(port).or_default() += 1,
            "drop" => *drops.entry(port).or_default() += 1,
            _ => {}
        }
    }
    let names: std::collections::BTreeSet<&str> = r.links.iter().map(|l| l.link.as_str()).collect();
    assert_eq!(names.len(), r.links.len(), "link names are unique");
    assert!(names.contains("host47") && names.contains("core6.pod2"));
    assert!(names.contains("pod2.tor3.down3") && names.contains("pod2.agg3.up1"));
    let sum = |pre: &str| -> u64 {
        r.links
            .iter()
            .filter(|l| l.link.starts_with(pre))
            .map(|l| l.tx_packets)
            .sum()
    };
    assert_eq!(sum("host") as f64, sent);
    assert_eq!(sum("core") as f64, x(&r, "zeropod_core_sent"));
    assert!(
        sum("pod") as f64 > sent,
        "each cell crosses at least two switch outputs"
    );
    let dropped: u64 = r.links.iter().map(|l| l.drops).sum();
    assert_eq!(
        dropped as f64,
        x(&r, "zeropod_optimistic_dropped") + x(&r, "zeropod_core_drops")
    );
    for l in &r.links {
        if !l.link.starts_with("pod") {
            assert_eq!(
                l.tx_packets,
                tx.get(l.link.as_str()).copied().unwrap_or(0),
                "{}",
                l.link
            );
        }
        assert_eq!(
            l.drops,
            drops.get(l.link.as_str()).copied().unwrap_or(0),
            "{}",
            l.link
        );
        assert_eq!(l.tx_bytes, l.tx_packets * 552);
        assert!((0.0..=1.0).contains(&l.utilization), "{}", l.link);
    }

    // Scope: one flow, one Core port; then the cap.
    let f = r
        .flows
        .iter()
        .find(|f| f.src / 16 != f.dst / 16)
        .expect("an inter-pod flow")
        .id;
    let mut one = s.clone();
    one.output.trace_flows = vec![f];
    one.output.trace_ports = vec!["core0.pod1".into(), "host0".into()];
    let t1 = golden::schema::Trace::from_jsonl(run(&one).trace.as_deref().unwrap()).unwrap();
    assert!(!t1.records.is_empty());
    for rec in &t1.records {
        assert!(
            rec.signal.starts_with("core0.pod1.") || rec.signal.starts_with("host0."),
            "{}",
            rec.signal
        );
        if let Some(v) = rec.value.as_str() {
            assert!(v.contains(&format!(" f={f} ")), "{v}");
        }
    }
    let mut capped = s.clone();
    capped.output.trace_max_records = 100;
    let rc = run(&capped);
    assert_eq!(x(&rc, "trace_records"), 100.0);
    assert_eq!(x(&rc, "trace_truncated"), 1.0);
    let mut bad = s.clone();
    bad.output.trace_ports = vec!["tor0.up1".into()];
    let e = simulate(&bad, &RunControl::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("output.trace_ports: no port is named \"tor0.up1\"")
            && e.contains("pod<p>.tor<i>"),
        "{e}"
    );
}

/// `output.rate_sample_us` on a Zeropod run (`zeropod/rates.rs`): `rates.csv` books each
/// new cell's payload at its arrival, so a completed flow's rows sum to its bytes; every
/// flow has a row per interval from its start to its completion; the series only reads the
/// region (every other output the same); and while the incast lasts the flows' rates add
/// up to what the receiver's downlink carries of payload: the scheduler keeps it busy.
#[test]
fn zeropod_rate_series_adds_up_to_the_receivers_downlink() {
    let mut s = pod8();
    s.workload.kind = sim_harness::scenario::WorkloadKind::Incast;
    s.workload.degree = 8;
    s.workload.message = sim_harness::scenario::Size::Bytes(200_000);
    let plain = run(&s);
    s.output.rate_sample_us = 2.0;
    let r = run(&s);
    let strip = |r: &RunResult| {
        let mut r = r.clone();
        r.rates.clear();
        r.fairness.clear();
        for k in ["jain_index_final", "jain_index_mean", "converge_10pct_us"] {
            r.summary.extra.remove(k);
        }
        outputs_without_trace(&r)
    };
    assert_eq!(strip(&plain), strip(&r), "the series only reads the region");
    // The run ends at its last completion (not at the slot that sent the last cell), and
    // so does the series.
    let last_end = r.flows.iter().map(|f| f.end_ps).max().unwrap();
    assert_eq!(r.summary.end_time_ps, last_end);
    assert_eq!(r.rates.last().map(|x| x.time_ps), Some(last_end));
    assert!(r
        .rates
        .windows(2)
        .all(|w| (w[0].time_ps, w[0].flow) < (w[1].time_ps, w[1].flow)));
    let interval = 2_000_000u64;
    let mut per_time = std::collections::BTreeMap::<u64, f64>::new();
    for (i, f) in r.flows.iter().enumerate() {
        assert!(f.end_ps > 0, "flow {i} completes");
        let rows: Vec<_> = r.rates.iter().filter(|x| x.flow == i as u32).collect();
        assert_eq!(
            rows.iter().map(|x| x.bytes).sum::<u64>(),
            f.bytes,
            "flow {i}"
        );
        let first = f.start_ps / interval;
        let last = (f.end_ps - 1) / interval;
        assert_eq!(
            rows.len() as u64,
            last - first + 1,
            "flow {i}: one row per interval"
        );
        for x in rows {
            *per_time.entry(x.time_ps).or_default() += x.rate_gbps;
        }
    }
    // Nothing arrives for the first ~10 us (the scheduling delay, the first epoch's
    // requests), then the whole intervals while every flow runs, up to the first completion.
    let first = *per_time.iter().find(|(_, &g)| g > 0.0).unwrap().0;
    assert!(
        first > 2 * interval,
        "cells wait for the scheduler ({first} ps)"
    );
    let done = r.flows.iter().map(|f| f.end_ps).min().unwrap();
    let full: Vec<f64> = per_time
        .range(first + interval..done - interval)
        .map(|(_, &g)| g)
        .collect();
    assert!(full.len() >= 5, "{} full intervals", full.len());
    // An epoch is 16 data slots of 552 B, each followed by a 40 B control slot, and one
    // more control slot (no guard band): at most 16 x 512 B of payload per epoch.
    let (cell_ns, ctrl_ns) = (552.0 * 8.0 / 100.0, 40.0 * 8.0 / 100.0);
    let epoch_ns = 16.0 * (cell_ns + ctrl_ns) + ctrl_ns;
    let payload = 16.0 * 512.0 * 8.0 / epoch_ns;
    for g in &full {
        assert!(
            *g <= payload * 1.001,
            "{g} Gb/s at most the epoch's payload {payload}"
        );
    }
    let mean = full.iter().sum::<f64>() / full.len() as f64;
    println!(
        "incast payload rate {mean:.2} of {payload:.2} Gb/s over {} intervals",
        full.len()
    );
    assert!(
        mean >= 0.98 * payload,
        "{mean} Gb/s: the downlink kept busy"
    );
    assert!(r.summary.extra.contains_key("jain_index_mean"));
}

/// DCSIM's collectives on Zeropod pods (`workload.collectives`, `all_to_all_v`; refused
/// until session 31): a Zeropod run reports DCSIM 4.1's CCT as every packet-engine run does
/// (`collectives.csv`, `mean_cct_ps`, `max_cct_ps`), each collective's time from its start
/// to its last flow's completion, so Zeropod, DCTCP and DCSIM compare on the same
/// collectives.
#[test]
fn zeropod_reports_the_cct_of_dcsim_collectives() {
    let mut s = pod8();
    s.workload.kind = sim_harness::scenario::WorkloadKind::AllToAllV;
    s.workload.collectives = 3;
    s.workload.message = sim_harness::scenario::Size::Bytes(20_000);
    let r = run(&s);
    // The run's flows, generated as the run generates them (ids = indices).
    let shape = sim_harness::topology::zeropod::PodShape::of(&s).unwrap();
    let timing = sim_harness::zeropod::timing(&s, &shape).unwrap();
    let flows = sim_harness::zeropod::flows(&s, &shape, &timing).unwrap();
    assert_eq!(flows.len(), r.flows.len());
    let t = &r.tables["collectives"];
    assert_eq!(t.rows.len(), 3, "one row per collective");
    assert_eq!(x(&r, "collectives_completed"), 3.0);
    let mut ccts = Vec::new();
    for row in &t.rows {
        let id: u32 = row[0].parse().unwrap();
        let (start, end, cct): (u64, u64, u64) = (
            row[4].parse().unwrap(),
            row[5].parse().unwrap(),
            row[6].parse().unwrap(),
        );
        let mine: Vec<usize> = (0..flows.len())
            .filter(|&i| flows[i].collective == id)
            .collect();
        assert!(!mine.is_empty());
        assert_eq!(row[2], mine.len().to_string());
        let first = mine.iter().map(|&i| r.flows[i].start_ps).min().unwrap();
        let last = mine.iter().map(|&i| r.flows[i].end_ps).max().unwrap();
        assert_eq!(
            (start, end, cct),
            (first, last, last - first),
            "collective {id}"
        );
        ccts.push(cct);
    }
    let mean = ccts.iter().sum::<u64>() as f64 / 3.0;
    assert_eq!(x(&r, "mean_cct_ps"), mean.round());
    assert_eq!(x(&r, "max_cct_ps"), *ccts.iter().max().unwrap() as f64);
}
