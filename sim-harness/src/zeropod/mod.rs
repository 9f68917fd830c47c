//! # Zeropod in the DES (issue 11; Zeropod §III-V)
//!
//! `transport.cc = "zeropod"` on `topology.kind = "zeropod_pods"` or `"single_tor"`
//! ([`crate::topology::zeropod::PodShape`]) runs here instead of on the packet engine: the
//! pods are a **slotted region** ([`region`]) on the scheduler's cell clock, which meets the
//! buffered world only at the Core ports. Why a separate run path and not a
//! `TransportDriver`: a Zeropod pod has no packets, buffers or per-packet events to share with
//! the engine, and every block in it moves once per slot; one loop over slots is exact and far
//! cheaper than one event per cell. (All pods share one clock: the paper's perfect time sync;
//! a Core port's pod clock offset is zero and the C2E cells are injected in the slot that
//! aligns them with the E2E cells, which is what the Core's delayed epoch of §IV-D does.)
//!
//! ```text
//!  Scenario --validate--> PodShape + Timing ([transport.zeropod], transport/zeropod.rs)
//!     |  workload::generate (websearch / incast / permutation = ring / all_to_all), then
//!     |  intra_pod_fraction (websearch locality) and participants (one host per rack)
//!     v
//!  region::Region (ZeropodNic x hosts, IterativeScheduler + BufferlessSwitch ToRs/Aggs per
//!     |            pod, CoreSwitch x Cores) -- epoch by epoch until every flow is delivered
//!     v
//!  RunResult: flows.csv, summary.json (goodput, mice p99 FCT, finish time, collisions,
//!             optimistic cells, Core peak), queues.csv (Core port occupancy over time),
//!             the Ideal of §V-A on the same flows (ideal.rs) in summary.extra
//! ```
//!
//! * [`sched`]: the pod scheduler behind one interface (one `scheduler-asic` instance per
//!   radix: k = 4, 8, 16, 32; several pods only at k = 8, the paper's multi-pod setup).
//! * [`region`]: the slotted fabric.
//! * [`ideal`]: the Ideal baseline (fluid global SRPT with preemption).

pub mod ideal;
pub mod links;
pub mod rates;
pub mod region;
pub mod sched;
pub mod trace;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtl_models::zeropod_cell::{DATA_CELL_LEN, HEADER_LEN, PAYLOAD_LEN};

use crate::error::{Error, Result};
use crate::results::{FlowRecord, Progress, QueueSample, RunResult, Summary};
use crate::run::RunControl;
use crate::scenario::{Scenario, TopologyKind, WorkloadKind};
use crate::topology::zeropod::PodShape;
use crate::transport::zeropod::Participants;
use crate::workload::FlowSpec;
use region::{Region, RegionConfig, Timing};

/// Flows of at most this many bytes are mice (§V-A: "mice flows (<= 100KB)").
pub const MICE_BYTES: u64 = 100_000;
/// Slots without a newly delivered cell, while flows are unfinished, after which a run stops
/// as stalled.
pub const STALL_SLOTS: u64 = 4_000_000;

/// `check_supported` for `cc = "zeropod"`: what the Zeropod run path can run.
pub fn check_supported(s: &Scenario) -> Result<()> {
    if !matches!(
        s.topology.kind,
        TopologyKind::ZeropodPods | TopologyKind::SingleTor
    ) {
        return Err(Error::field(
            "transport.cc",
            "zeropod runs on topology.kind = \"zeropod_pods\" or \"single_tor\"",
        ));
    }
    PodShape::of(s)?;
    let no = |f: &str, what: &str| {
        Err(Error::field(
            f,
            format!("{what} is not supported in a Zeropod run yet"),
        ))
    };
    if !s.failures.is_empty() {
        return no("failures", "failure injection");
    }
    if s.skip.enabled {
        return no("skip.enabled", "Wormhole fast-forwarding");
    }
    if s.output.skip_flows {
        return no("output.skip_flows", "Wormhole's per-flow table");
    }
    if !s.loss.is_empty() {
        return no("loss", "random loss");
    }
    match s.workload.kind {
        WorkloadKind::Websearch
        | WorkloadKind::Incast
        | WorkloadKind::Permutation
        | WorkloadKind::Tornado
        | WorkloadKind::AllToAll
        | WorkloadKind::AllToAllV => {}
        _ => {
            return no(
                "workload.kind",
                "this workload kind (use websearch, incast, permutation, tornado, all_to_all \
                 or all_to_all_v)",
            )
        }
    }
    Ok(())
}

/// The checks that need the built shape: timing and the IV-C control-slot rule.
pub fn check_built(s: &Scenario) -> Result<()> {
    let shape = PodShape::of(s)?;
    timing(s, &shape).map(|_| ())
}

/// The pod clock of scenario `s`.
pub fn timing(s: &Scenario, shape: &PodShape) -> Result<Timing> {
    let z = &s.transport.zeropod;
    let gbps = s.topology.link_gbps;
    let ps = |bytes: usize| ((bytes as f64 * 8.0 * 1000.0 / gbps).round() as u64).max(1);
    let n = z
        .epoch_cells
        .unwrap_or(if shape.pods > 1 { 32 } else { 16 }) as u64;
    if n + 1 < shape.m as u64 {
        return Err(Error::field(
            "transport.zeropod.epoch_cells",
            format!(
                "{n} data slots give {} control slots, fewer than the {} hosts under a ToR (§IV-C: N + 1 >= k/2)",
                n + 1,
                shape.m
            ),
        ));
    }
    let (cell_ps, ctrl_ps) = (ps(DATA_CELL_LEN), ps(HEADER_LEN));
    let guard = (z.guard_band_ns * 1000.0).round() as u64;
    let epoch_ps = n * (cell_ps + ctrl_ps) + ctrl_ps + guard;
    let delay_us = z
        .scheduling_delay_us
        .unwrap_or(if shape.n >= 256 { 15.0 } else { 5.0 });
    let delay_ps = (delay_us * 1e6).round() as u64;
    Ok(Timing {
        n,
        cell_ps,
        ctrl_ps,
        epoch_ps,
        hop_ps: s.topology.link_delay_ns * 1000,
        delay_epochs: delay_ps.div_ceil(epoch_ps).max(1),
    })
}

/// The flows of a Zeropod run: the shared generator, then websearch locality and the
/// participants mapping; sorted by start time.
pub fn flows(s: &Scenario, shape: &PodShape, t: &Timing) -> Result<Vec<FlowSpec>> {
    let z = &s.transport.zeropod;
    let gbps = s.topology.link_gbps;
    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
    if s.topology.kind == TopologyKind::ZeropodPods {
        // The buffered baseline (`cc = "dctcp"` on the same topology, engine/build.rs) draws
        // one u64 per switch and one u32 per port before the workload: draw the same, so
        // Zeropod and its baseline run the very same flows (tests/zeropod.rs checks it).
        let fab = crate::topology::zeropod::build(&s.topology)?;
        if fab.hosts == shape.hosts {
            for _ in &fab.switches {
                rng.gen::<u64>();
            }
            for _ in &fab.ports {
                rng.gen::<u32>();
            }
        }
    }
    let rtt_ps = 8 * t.hop_ps + 2 * t.cell_ps;
    let bdp = ((rtt_ps as f64) * gbps / 8000.0).round() as u64;
    let websearch = s.workload.kind == WorkloadKind::Websearch;
    let one_per_rack = z.participants == Participants::OnePerRack && !websearch;
    let gen_hosts = if one_per_rack {
        shape.hosts.min(shape.n).div_ceil(shape.m)
    } else {
        shape.hosts
    };
    // Validation counted hosts (`validate::workload::check_workload`); with one participant
    // per rack the workload spans `gen_hosts` racks instead, so it is checked against those.
    if gen_hosts < 2 {
        return Err(Error::field(
            "topology.hosts",
            "a workload needs at least 2 hosts",
        ));
    }
    let degree = s.workload.degree;
    if s.workload.kind == WorkloadKind::Incast && s.workload.collectives == 0 && degree >= gen_hosts
    {
        return Err(Error::field(
            "workload.degree",
            format!(
                "an incast of degree {degree} needs {} hosts, the topology has {gen_hosts}",
                degree as u64 + 1
            ),
        ));
    }
    let mut v = crate::workload::generate(s, gen_hosts, bdp, gbps, &mut rng)?;
    if one_per_rack {
        for f in v.iter_mut() {
            f.src *= shape.m;
            f.dst *= shape.m;
        }
    }
    if let (true, Some(x), true) = (websearch, z.intra_pod_fraction, shape.pods > 1) {
        let mut r2 = ChaCha8Rng::seed_from_u64(s.seed ^ 0x2e60_90d5_11c0_f00d);
        let n = shape.n;
        for f in v.iter_mut() {
            let p = f.src / n;
            let lo = p * n;
            let hi = (lo + n).min(shape.hosts);
            let others = shape.hosts - (hi - lo);
            let local = r2.gen::<f64>() < x;
            f.dst = if (local || others == 0) && hi - lo >= 2 {
                let d = r2.gen_range(lo..hi - 1);
                if d >= f.src {
                    d + 1
                } else {
                    d
                }
            } else if others > 0 {
                let d = r2.gen_range(0..others);
                if d >= lo {
                    d + (hi - lo)
                } else {
                    d
                }
            } else {
                f.dst
            };
        }
    }
    v.sort_by_key(|f| f.start_ps);
    Ok(v)
}

fn p99(mut v: Vec<u64>) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    let idx = ((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1;
    v[idx]
}

/// `output.trace_flows` and `output.trace_ports` of Zeropod scenario `s` (validated)
/// checked against its flows and the region's port names ([`trace`]); nothing runs.
pub fn check_trace(s: &Scenario) -> Result<()> {
    let shape = PodShape::of(s)?;
    let t = timing(s, &shape)?;
    let n = flows(s, &shape, &t)?.len();
    trace::ZeropodTrace::new(s, links::LinkIndex::new(&shape), n).map(|_| ())
}

/// Run a Zeropod scenario (validated) to completion, `stop.max_time_us`, a stall, or the
/// caller's stop flag.
pub fn simulate(s: &Scenario, ctl: &RunControl) -> Result<RunResult> {
    let shape = PodShape::of(s)?;
    let t = timing(s, &shape)?;
    let specs = flows(s, &shape, &t)?;
    simulate_flows(s, specs, ctl)
}

/// Run scenario `s`'s fabric on the given flows instead of its workload (tests, tools).
/// Flows must name hosts of the fabric, different source and destination, at least 1 byte.
pub fn simulate_flows(
    s: &Scenario,
    mut specs: Vec<FlowSpec>,
    ctl: &RunControl,
) -> Result<RunResult> {
    let shape = PodShape::of(s)?;
    let t = timing(s, &shape)?;
    for (i, f) in specs.iter().enumerate() {
        if f.src >= shape.hosts || f.dst >= shape.hosts || f.src == f.dst || f.bytes == 0 {
            return Err(Error::field(
                format!("flows[{i}]"),
                format!("{f:?} does not fit {} hosts", shape.hosts),
            ));
        }
    }
    specs.sort_by_key(|f| f.start_ps);
    // The k = 32 scheduler's matrices are built on the stack: run on a thread with room.
    let ctl = *ctl;
    std::thread::scope(|sc| {
        std::thread::Builder::new()
            .name("zeropod".into())
            .stack_size(256 << 20)
            .spawn_scoped(sc, move || run(s, shape, t, specs, &ctl))
            .map_err(|e| Error::field("transport.zeropod", format!("cannot start: {e}")))?
            .join()
            .unwrap_or_else(|_| {
                Err(Error::field(
                    "transport.zeropod",
                    "the Zeropod region panicked (a bug; please report the scenario)",
                ))
            })
    })
}

fn run(
    s: &Scenario,
    shape: PodShape,
    t: Timing,
    specs: Vec<FlowSpec>,
    ctl: &RunControl,
) -> Result<RunResult> {
    let z = &s.transport.zeropod;
    let gbps = s.topology.link_gbps;
    let core_bytes = match z.core_buffer {
        crate::scenario::Size::Bytes(b) => b,
        crate::scenario::Size::Bdp(_) => 32_000_000,
    };
    let max_port = (region::CORE_HOSTS * region::CORE_VOQ) as u64;
    let core_port_cells =
        (core_bytes / shape.pods.max(1) as u64 / DATA_CELL_LEN as u64).clamp(1, max_port) as u32;
    let rc = RegionConfig {
        t,
        iterations: z.iterations as u8,
        top_k: z.top_k as u8,
        optimistic_max_cells: z.optimistic_max_cells,
        core_port_cells,
        backpressure_cells: z.backpressure_cells,
        seed: s.seed,
        sample_every_ps: (s.output.queue_sample_us * 1e6).round() as u64,
        forward_garbled: false,
    };
    let base = t.cell_ps + 4 * t.hop_ps;
    // The Ideal on payload bytes, and on the wire bytes of cells (512 B payload + 40 B
    // header per cell: "the ideal upper bound considering the header overhead", §V-B).
    let ideal = z.ideal.then(|| {
        (
            ideal::ideal_fcts(&specs, shape.hosts, gbps, base),
            ideal::ideal_fcts(
                &specs,
                shape.hosts,
                gbps * PAYLOAD_LEN as f64 / DATA_CELL_LEN as f64,
                base,
            ),
        )
    });
    let window_ps = specs.last().map_or(0, |f| f.start_ps);
    let mut r = Region::new(shape, rc, specs)?;
    if s.output.trace {
        let mut z = trace::ZeropodTrace::new(s, r.links.ix, r.specs.len())?;
        if let Some(path) = ctl.trace_path(s) {
            z.spool_to(&path)?;
        }
        r.trace = Some(Box::new(z));
    }
    let rate_ps = (s.output.rate_sample_us * 1e6).round() as u64;
    if rate_ps > 0 {
        let k = crate::metrics::fairness::window_intervals(s);
        r.rates = Some(Box::new(rates::CellRates::new(rate_ps, k, r.specs.len())));
    }
    let limit = if s.stop.max_time_us > 0.0 {
        (s.stop.max_time_us * 1e6).round() as u64
    } else {
        u64::MAX
    };
    let max_time_ps = if limit == u64::MAX { 0 } else { limit };
    let wall = std::time::Instant::now();
    let mut last_report = wall;
    let (mut interrupted, mut stalled) = (false, false);
    while !r.done() {
        if r.now_ps() >= limit {
            break;
        }
        if ctl.stop.is_some_and(|x| x.load(Ordering::Relaxed)) {
            interrupted = true;
            break;
        }
        r.epoch();
        let unfinished = r.admitted() > r.flows_done;
        if unfinished && r.slot.saturating_sub(r.last_progress_slot) > STALL_SLOTS {
            stalled = true;
            break;
        }
        if let Some(p) = ctl.progress {
            if r.stats.epochs % 64 == 0 {
                let w = std::time::Instant::now();
                if w.duration_since(last_report).as_secs_f64() >= 0.25 {
                    last_report = w;
                    p(progress(&r, r.now_ps(), max_time_ps));
                }
            }
        }
    }
    let wall_s = wall.elapsed().as_secs_f64();
    // A finished run ends at its last completion: the region stops at the slot that sent
    // the last cell, which arrives a few hops later.
    let last_done = r.flows.iter().map(|f| f.end_ps).max().unwrap_or(0);
    let end_ps = if r.done() {
        r.now_ps().max(last_done)
    } else {
        r.now_ps().min(limit)
    };
    if let Some(p) = ctl.progress {
        p(progress(&r, end_ps, max_time_ps));
    }
    let tr = r.trace.take();
    let mut res = results(
        s,
        &r,
        ideal,
        end_ps,
        window_ps,
        wall_s,
        interrupted,
        stalled,
    );
    if let Some(z) = tr {
        z.finish(&mut res)?;
    }
    if let Some(c) = &r.rates {
        c.finish(&mut res, &r.specs, &r.flows, end_ps);
    }
    Ok(res)
}

/// A progress report of region `r` at `now_ps`: payload bytes delivered (distinct cells) of
/// the workload's bytes, and the completed flows.
fn progress(r: &Region, now_ps: u64, max_time_ps: u64) -> Progress {
    Progress {
        sim_time_ps: now_ps,
        flows_done: r.flows_done as u64,
        flows_total: r.specs.len() as u64,
        bytes_done: r.stats.goodput_bytes,
        bytes_total: r.specs.iter().map(|f| f.bytes).sum(),
        max_time_ps,
    }
}

#[allow(clippy::too_many_arguments)]
fn results(
    s: &Scenario,
    r: &Region,
    ideal: Option<(Vec<u64>, Vec<u64>)>,
    end_ps: u64,
    window_ps: u64,
    wall_s: f64,
    interrupted: bool,
    stalled: bool,
) -> RunResult {
    let gbps = s.topology.link_gbps;
    let mut flows = Vec::with_capacity(r.specs.len());
    let (mut fcts, mut mice) = (Vec::new(), Vec::new());
    let (mut first, mut last_end) = (u64::MAX, 0u64);
    for (i, (f, st)) in r.specs.iter().zip(&r.flows).enumerate() {
        let fct = if st.end_ps > 0 {
            st.end_ps - f.start_ps
        } else {
            0
        };
        first = first.min(f.start_ps);
        if st.end_ps > 0 {
            fcts.push(fct);
            last_end = last_end.max(st.end_ps);
            if f.bytes <= MICE_BYTES {
                mice.push(fct);
            }
        }
        flows.push(FlowRecord {
            id: i as u32,
            src: f.src,
            dst: f.dst,
            bytes: f.bytes,
            start_ps: f.start_ps,
            end_ps: st.end_ps,
            fct_ps: fct,
            packets_sent: st.sent as u64,
            retransmits: st.opt_sent as u64,
            ecn_acks: 0,
            out_of_order: 0,
        });
    }
    let n = fcts.len();
    let sum: u128 = fcts.iter().map(|&x| x as u128).sum();
    let mean = if n > 0 { (sum / n as u128) as u64 } else { 0 };
    let max = fcts.iter().copied().max().unwrap_or(0);
    let p99_all = p99(fcts);
    let sw = r.switch_stats();
    let nic = r.nic_stats();
    let (rounds, grants, granted_cells, sched_overflow) = r.sched_stats();
    let (core_enq, core_sent, core_dropped, core_bad) = r.core_stats();
    if sw.scheduled_collisions > 0 {
        eprintln!(
            "ZEROPOD SCHEDULER BUG: {} scheduled cells collided in the bufferless fabric (must be 0)",
            sw.scheduled_collisions
        );
    }
    let hosts = r.shape.hosts as f64;
    let rate_bps = gbps * 1e9 / 8.0;
    let win = if window_ps > 0 { window_ps } else { last_end };
    let goodput = if win > 0 {
        r.stats.goodput_bytes as f64 / (hosts * rate_bps * win as f64 * 1e-12)
    } else {
        0.0
    };
    let finish = if last_end > 0 && first != u64::MAX {
        last_end - first
    } else {
        0
    };
    let cells_sent = nic.scheduled_sent + nic.optimistic_sent + core_sent;
    let slots = r.stats.epochs * r.t.n;
    let per_s = |x: u64| if wall_s > 0.0 { x as f64 / wall_s } else { 0.0 };
    let mut extra: BTreeMap<String, f64> = BTreeMap::new();
    let mut put = |k: &str, v: f64| {
        extra.insert(k.to_string(), v);
    };
    put("zeropod_pods", r.shape.pods as f64);
    put("zeropod_hosts", hosts);
    put("zeropod_cores", r.shape.cores as f64);
    put("zeropod_epoch_cells", r.t.n as f64);
    put("zeropod_epoch_ps", r.t.epoch_ps as f64);
    put("zeropod_scheduling_delay_epochs", r.t.delay_epochs as f64);
    put("zeropod_epochs", r.stats.epochs as f64);
    put("zeropod_epochs_skipped", r.stats.epochs_skipped as f64);
    put(
        "zeropod_scheduled_collisions",
        sw.scheduled_collisions as f64,
    );
    put("zeropod_scheduled_cells_sent", nic.scheduled_sent as f64);
    put("zeropod_optimistic_sent", nic.optimistic_sent as f64);
    put("zeropod_optimistic_delivered", r.stats.opt_delivered as f64);
    put("zeropod_optimistic_useful", r.stats.opt_useful as f64);
    put("zeropod_optimistic_dropped", sw.optimistic_dropped as f64);
    put("zeropod_duplicates", r.stats.duplicates as f64);
    put("zeropod_wasted_grant_slots", nic.wasted_grant_slots as f64);
    put("zeropod_misrouted", sw.misrouted as f64);
    put("zeropod_switch_overflow", sw.overflow as f64);
    put("zeropod_rounds", rounds as f64);
    put("zeropod_rounds_skipped", r.stats.rounds_skipped as f64);
    put("zeropod_grants", grants as f64);
    put("zeropod_granted_cells", granted_cells as f64);
    put("zeropod_scheduler_overflow", sched_overflow as f64);
    put("zeropod_core_enqueued", core_enq as f64);
    put("zeropod_core_sent", core_sent as f64);
    put(
        "zeropod_core_drops",
        (core_dropped + r.stats.core_drops.saturating_sub(core_dropped)) as f64,
    );
    put("zeropod_core_bad_schd", core_bad as f64);
    put("zeropod_core_peak_cells", r.stats.core_peak_cells as f64);
    put(
        "zeropod_core_peak_bytes",
        (r.stats.core_peak_cells * DATA_CELL_LEN as u64) as f64,
    );
    put("zeropod_slots", slots as f64);
    put("goodput_fraction", goodput);
    put("goodput_gbps_per_host", goodput * gbps);
    put("mice_flows_completed", mice.len() as f64);
    put("mice_p99_fct_ps", p99(mice) as f64);
    put("finish_time_ps", finish as f64);
    put("stalled", stalled as u8 as f64);
    put("interrupted", interrupted as u8 as f64);
    if let Some((fi, fc)) = &ideal {
        let first = if first == u64::MAX { 0 } else { first };
        for (name, f) in [("ideal", fi), ("ideal_cells", fc)] {
            let mice_i: Vec<u64> = r
                .specs
                .iter()
                .zip(f)
                .filter(|(x, _)| x.bytes <= MICE_BYTES)
                .map(|(_, &x)| x)
                .collect();
            let fin = r
                .specs
                .iter()
                .zip(f)
                .map(|(x, &y)| x.start_ps + y)
                .max()
                .unwrap_or(0)
                .saturating_sub(first);
            let mean_i = if f.is_empty() {
                0
            } else {
                (f.iter().map(|&x| x as u128).sum::<u128>() / f.len() as u128) as u64
            };
            put(&format!("{name}_mice_p99_fct_ps"), p99(mice_i) as f64);
            put(&format!("{name}_p99_fct_ps"), p99(f.clone()) as f64);
            put(&format!("{name}_mean_fct_ps"), mean_i as f64);
            put(&format!("{name}_finish_time_ps"), fin as f64);
        }
    }
    // DCSIM 4.1's CCT, as every packet-engine run reports it (`collectives.csv`): one
    // collective of every host, or `workload.collectives` of them.
    let mut tables = BTreeMap::new();
    let ends: Vec<u64> = r.flows.iter().map(|f| f.end_ps).collect();
    crate::metrics::collective_times(&r.specs, &ends, &mut extra, &mut tables);
    let drops_by_cause: BTreeMap<String, u64> = [
        ("optimistic_collision", sw.optimistic_dropped),
        ("scheduled_collision", sw.scheduled_collisions),
        ("core_buffer_full", r.stats.core_drops),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let queues = r
        .core_samples
        .iter()
        .map(|&(tp, c, p, cells)| QueueSample {
            time_ps: tp,
            port: format!("core{c}.pod{p}"),
            bytes: cells as u64 * DATA_CELL_LEN as u64,
        })
        .collect();
    RunResult {
        rates: Vec::new(),
        fairness: Vec::new(),
        trace: None,
        trace_file: None,
        summary: Summary {
            seed: s.seed,
            scenario: s.name.clone(),
            dcfab_version: env!("CARGO_PKG_VERSION").to_string(),
            flows: r.specs.len() as u64,
            flows_completed: n as u64,
            max_fct_ps: max,
            mean_fct_ps: mean,
            p99_fct_ps: p99_all,
            end_time_ps: end_ps,
            drops: drops_by_cause.values().sum(),
            drops_by_cause,
            trims: 0,
            ecn_marks: 0,
            data_packets: cells_sent,
            retransmits: nic.optimistic_sent,
            out_of_order: 0,
            events: slots,
            wall_s,
            events_per_s: per_s(slots),
            data_packets_per_s: per_s(cells_sent),
            extra,
        },
        flows,
        queues,
        links: r.links.records(gbps, end_ps),
        tables,
    }
}
