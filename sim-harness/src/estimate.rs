//! What a run will cost, estimated from the scenario alone before anything is built: flows,
//! packets, simulated time, events, memory and output size.
//!
//! ```text
//!  scenario ──► hosts, ports, path links, BDP ──► flows, bytes, packets = bytes / mtu
//!                                             └─► simulated time ≈ bottleneck bytes / link rate
//!                                                 (Poisson: arrival span = flows / λ)
//!          ──► events ≈ packets × 4 × path links + samples × ports / 4
//!          ──► memory ≈ ports + flows + in-flight packets + queue samples + selection rows
//! ```
//!
//! [`check`] refuses what cannot fit in the machine's memory ([`available_memory`]: the
//! kernel's `MemAvailable`, 4 GiB where it cannot be read) or what would take more simulated
//! time than the time fields allow, each with an error naming the field to change; it
//! returns a warning (with the estimate) for runs that will likely take more than an hour
//! at a conservative [`EVENTS_PER_S`]. The figures are estimates (the simulated time is the
//! ideal one: congestion, failures and stalls make runs longer), not promises.

use crate::error::{Error, Result};
use crate::scenario::{Scenario, Size, TopologyKind, WorkloadKind};
use crate::units::{MAX_TIME_US, PS_PER_US};
use crate::validate::{flow_count, host_count};
use crate::workload::websearch_mean;

/// Events per second of wall time assumed for the one-hour warning (conservative: the
/// release build measures 5.5-11 million on one core, `benches/README.md`).
pub const EVENTS_PER_S: f64 = 2_000_000.0;
/// Wall time above which a run is warned about, s.
pub const WARN_WALL_S: f64 = 3600.0;
/// Memory assumed available when `/proc/meminfo` cannot be read, bytes.
pub const FALLBACK_MEMORY: u64 = 4 << 30;
/// Largest simulated time a run may be expected to need, ps (10⁶ s; u64 holds 1.8·10⁷ s).
pub const MAX_SIM_PS: f64 = 1e18;

/// Bytes of memory per port (the port's runtime state, its queues' first blocks, names).
const PORT_BYTES: f64 = 512.0;
/// Bytes per flow (its runtime state, NIC blocks, failure detector, result row).
const FLOW_BYTES: f64 = 1024.0;
/// Bytes per packet in flight (descriptor, event).
const PACKET_BYTES: f64 = 64.0;
/// Bytes per queue sample held in memory (time, port name, bytes).
const SAMPLE_BYTES: f64 = 64.0;
/// Bytes per uplink-selection cell (counts while running, a row of strings at the end).
const SELECTION_BYTES: f64 = 170.0;
/// Bytes per row of the CSV files.
const CSV_ROW_BYTES: f64 = 40.0;
/// Memory per `trace.jsonl` record (`output.trace`): about 90 bytes of text, held in a
/// string that grows by doubling (measured: 1.35 M records, 120 MB, 283 MB more RSS).
const TRACE_RECORD_BYTES: f64 = 200.0;
/// Memory per `rates.csv` row: the sampler's row and the result's (`output.rate_sample_us`).
const RATE_ROW_BYTES: f64 = 64.0;

/// The estimate of one run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    /// Hosts.
    pub hosts: u64,
    /// Output ports (every cable is two), approximate.
    pub ports: u64,
    /// Links of the longest host-to-host path.
    pub path_links: u64,
    /// Flows.
    pub flows: u64,
    /// Bytes of payload all flows carry.
    pub bytes: f64,
    /// DATA packets (bytes / mtu).
    pub packets: f64,
    /// Simulated time, ps (the ideal time, or `stop.max_time_us` when smaller).
    pub sim_ps: f64,
    /// Ideal time the workload needs without `stop.max_time_us`, ps.
    pub workload_ps: f64,
    /// Queue samples at most (sample times × switch ports).
    pub queue_samples: f64,
    /// Uplink-selection cells (buckets × ToR uplinks).
    pub selection_cells: f64,
    /// Events.
    pub events: f64,
    /// Peak memory, bytes.
    pub memory: f64,
    /// Memory of the largest part and the field that controls it.
    pub largest: (f64, &'static str, &'static str),
    /// The largest part grows with the number of flows (so the fields that set the flows,
    /// [`flow_source`], shrink it too).
    pub largest_per_flow: bool,
    /// Bytes written to the output directory.
    pub output: f64,
    /// Wall time at [`EVENTS_PER_S`], s.
    pub wall_s: f64,
}

/// A number of bytes in a human unit ("1.2 TB").
pub fn fmt_bytes(b: f64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = b.max(0.0);
    let mut i = 0;
    while v >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// A duration in seconds in a human unit ("3.2 h").
pub fn fmt_secs(s: f64) -> String {
    if s >= 86_400.0 * 365.0 {
        format!("{:.1e} years", s / (86_400.0 * 365.0))
    } else if s >= 86_400.0 {
        format!("{:.1} days", s / 86_400.0)
    } else if s >= 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s >= 60.0 {
        format!("{:.1} min", s / 60.0)
    } else if s >= 1.0 {
        format!("{s:.1} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

/// Memory of the DCSIM host engines (`cc = "dcsim"`): each host's engine sized for the mean
/// flows per host, with line-rate windows ([`crate::dcsim::host::engine_bytes`]).
fn dcsim_engines(s: &Scenario, hosts: u64, flows: u64) -> f64 {
    if s.transport.cc != crate::scenario::CcKind::Dcsim || hosts == 0 {
        return 0.0;
    }
    let per_host = flows.div_ceil(hosts) as usize;
    hosts as f64 * crate::dcsim::host::engine_bytes(per_host) as f64
}

/// The fields that set the number of flows of `s` on `hosts` hosts, with their values
/// (`None` where the workload decides it while running, `llm`): what to shrink when the
/// per-flow state does not fit.
pub fn flow_source(s: &Scenario, hosts: u64) -> Option<String> {
    let w = &s.workload;
    let x = &w.two_dc;
    let host_field = if s.topology.hosts == 0 {
        "topology.radix and topology.tiers"
    } else {
        "topology.hosts"
    };
    Some(match w.kind {
        WorkloadKind::Permutation | WorkloadKind::AllToAll | WorkloadKind::AllToAllV
            if w.collectives > 0 =>
        {
            format!(
                "workload.collectives = {} (of up to {} hosts each, workload.collective_sizes)",
                w.collectives,
                w.collective_sizes.iter().max().copied().unwrap_or(0)
            )
        }
        WorkloadKind::Incast => format!("workload.degree = {}", w.degree),
        WorkloadKind::Websearch | WorkloadKind::UnoMix => {
            format!("workload.flows = {}", w.flows)
        }
        WorkloadKind::MixedIncast => format!(
            "workload.two_dc.intra_senders = {}, inter_senders = {} and rpc_flows = {}",
            x.intra_senders, x.inter_senders, x.rpc_flows
        ),
        WorkloadKind::DcAllreduce => format!(
            "workload.two_dc.groups = {} x iterations = {} x {} flows per group",
            x.groups,
            x.iterations,
            x.flows_per_group()
        ),
        WorkloadKind::Llm => return None,
        WorkloadKind::AllToAll | WorkloadKind::AllToAllV => {
            format!("{hosts} hosts sending to each other ({host_field})")
        }
        _ => format!("{hosts} hosts ({host_field})"),
    })
}

/// Estimate the cost of scenario `s` (validated by [`crate::validate::validate`]), its
/// packet trace (`output.trace`) held in memory.
pub fn estimate(s: &Scenario) -> Estimate {
    estimate_with(s, TraceIn::Memory)
}

/// Where a run's packet trace goes while it runs (what its memory estimate counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceIn {
    /// Held in memory until the run ends (a library run without
    /// [`crate::run::RunControl::trace_dir`]).
    Memory,
    /// Written to `trace.jsonl` as the run goes (`dcfab run`, `dcfab sweep`): on disk, so
    /// only its output counts.
    File,
}

/// [`estimate`] with the trace kept as `trace` says.
pub fn estimate_with(s: &Scenario, trace: TraceIn) -> Estimate {
    let t = &s.topology;
    let hosts = host_count(t);
    let k = u64::from(t.radix);
    let tiers = u64::from(t.tiers.clamp(2, 3));
    let (path_links, switches_on_path) = match t.kind {
        TopologyKind::FatTree => (2 * tiers, 2 * tiers - 1),
        TopologyKind::TwoDc => (4 * tiers + 2, 4 * tiers + 1),
        TopologyKind::ZeropodPods => (6, 5),
        TopologyKind::SingleTor => (3, 2),
    };
    let ports = hosts * 2 * tiers.max(2) + k * k;
    let gbps = t.link_gbps.max(1e-9);
    let ser = |bytes: f64| bytes * 8000.0 / gbps;
    let mtu = f64::from(s.transport.mtu.max(1));
    let hdr = f64::from(s.transport.header_bytes);
    let rtt = 2.0
        * (path_links as f64 * t.link_delay_ns as f64 * 1e3
            + switches_on_path as f64 * t.switch_latency_ns as f64 * 1e3)
        + path_links as f64 * (ser(mtu + hdr) + ser(hdr));
    let bdp = (gbps * 1e9 * rtt / 8e12).round().max(1.0);
    let bytes_of = |sz: Size| match sz {
        Size::Bytes(b) => b as f64,
        Size::Bdp(m) => (m * bdp).round().max(1.0),
    };
    let w = &s.workload;
    let msg = bytes_of(w.message);
    let flows = flow_count(s, hosts).unwrap_or(0);
    let websearch = w.kind == WorkloadKind::Websearch;
    let mean = if websearch {
        websearch_mean()
    } else {
        crate::workload::uno::mean_bytes(s, msg)
    };
    let bytes = flows as f64 * mean;
    let packets = flows as f64 * (mean / mtu).ceil().max(1.0);
    // Bytes the busiest host link must carry (the ideal time of the workload).
    let bottleneck = match w.kind {
        _ if w.collectives > 0 => (bytes / hosts as f64).max(msg),
        WorkloadKind::Permutation | WorkloadKind::Tornado => msg,
        WorkloadKind::Incast => f64::from(w.degree) * msg,
        WorkloadKind::AllToAll | WorkloadKind::AllToAllV => (hosts.saturating_sub(1)) as f64 * msg,
        WorkloadKind::Websearch | WorkloadKind::Llm => mean,
        WorkloadKind::MixedIncast => {
            f64::from(w.two_dc.intra_senders + w.two_dc.inter_senders) * msg
        }
        WorkloadKind::UnoMix => mean,
        WorkloadKind::DcAllreduce => bytes / (2.0 * f64::from(w.two_dc.groups.max(1))),
        // 2 (n-1) / n of the buffer to the ring successor; M (1 + 1/2 + ...) < 2M for the
        // butterfly.
        WorkloadKind::RingAllreduce | WorkloadKind::ButterflyAllreduce => 2.0 * msg,
    };
    let arrivals = if websearch || w.kind == WorkloadKind::UnoMix {
        // lambda = load * hosts * rate / (8 * mean) flows per second.
        let lambda = w.load * hosts as f64 * gbps * 1e9 / (8.0 * mean);
        flows as f64 / lambda * 1e12
    } else {
        0.0
    };
    let workload_ps = arrivals + ser(bottleneck) + rtt;
    let sim_ps = if s.stop.max_time_us > 0.0 {
        workload_ps.min(s.stop.max_time_us * PS_PER_US as f64)
    } else {
        workload_ps
    };
    let switch_ports = ports.saturating_sub(hosts) as f64;
    let per = |us: f64| {
        if us > 0.0 {
            (sim_ps / (us * PS_PER_US as f64)).floor() + 1.0
        } else {
            0.0
        }
    };
    let sample_times = per(s.output.queue_sample_us);
    let queue_samples = sample_times * switch_ports;
    // Every ToR has `radix - host ports` uplinks; at most `ceil(hosts / (k/2))` ToRs.
    let tors = (hosts as f64 / (k as f64 / 2.0).max(1.0)).ceil();
    let selection_cells = per(s.output.selection_bucket_us) * tors * (k as f64 / 2.0);
    // A row per running flow per interval: every flow runs at once except in Poisson
    // workloads (about one per host at a time), plus each flow's last interval.
    let concurrent = match s.workload.kind {
        crate::scenario::WorkloadKind::Websearch => (flows as f64).min(hosts as f64),
        _ => flows as f64,
    };
    let rate_rows = if s.output.rate_sample_us > 0.0 {
        per(s.output.rate_sample_us) * concurrent + flows as f64
    } else {
        0.0
    };
    // The fraction of packets that `stop.max_time_us` lets happen.
    let done = if workload_ps > 0.0 {
        (sim_ps / workload_ps).min(1.0)
    } else {
        1.0
    };
    let events = packets * done * 4.0 * path_links as f64 + queue_samples / 4.0;
    // `output.trace`: about a record per event (a transmission and a queue change per hop,
    // a reception per packet), at most `output.trace_max_records`.
    let trace_records = if s.output.trace {
        events.min(s.output.trace_max_records as f64)
    } else {
        0.0
    };
    let init_pkts = (bytes_of(s.transport.init_cwnd) / mtu).ceil().max(1.0);
    let in_flight = flows as f64 * init_pkts.min((mean / mtu).ceil().max(1.0)) * 2.0;
    // (bytes, field, what, grows with the flows)
    let parts = [
        (
            flows as f64 * FLOW_BYTES,
            "workload.kind",
            "flows (choose fewer hosts or a smaller workload)",
            true,
        ),
        (
            in_flight * PACKET_BYTES,
            "transport.init_cwnd",
            "packets in flight",
            true,
        ),
        (
            queue_samples * SAMPLE_BYTES,
            "output.queue_sample_us",
            "queue samples (raise output.queue_sample_us, 0 = off, or set stop.max_time_us)",
            false,
        ),
        (
            dcsim_engines(s, hosts, flows),
            "workload.kind",
            "DCSIM host engines (fewer flows per host)",
            true,
        ),
        (
            selection_cells * SELECTION_BYTES,
            "output.selection_bucket_us",
            "uplink-selection buckets (raise output.selection_bucket_us, 0 = off, or set \
             stop.max_time_us)",
            false,
        ),
        (
            rate_rows * RATE_ROW_BYTES,
            "output.rate_sample_us",
            "per-flow rate samples (raise output.rate_sample_us, 0 = off, or set \
             stop.max_time_us)",
            true,
        ),
        (
            if trace == TraceIn::Memory {
                trace_records * TRACE_RECORD_BYTES
            } else {
                0.0
            },
            "output.trace_max_records",
            "the packet trace (narrow it with output.trace_from_us / _until_us / _flows / \
             _ports, or lower output.trace_max_records)",
            false,
        ),
    ];
    let (a, b, c, largest_per_flow) =
        parts
            .iter()
            .copied()
            .fold((0.0, "workload.kind", "flows", true), |a, b| {
                if b.0 > a.0 {
                    b
                } else {
                    a
                }
            });
    let largest = (a, b, c);
    let memory = ports as f64 * PORT_BYTES + parts.iter().map(|p| p.0).sum::<f64>();
    let output = (flows as f64 + queue_samples + selection_cells + rate_rows + ports as f64)
        * CSV_ROW_BYTES
        + trace_records * TRACE_RECORD_BYTES / 2.0
        + 4096.0;
    Estimate {
        hosts,
        ports,
        path_links,
        flows,
        bytes,
        packets,
        sim_ps,
        workload_ps,
        queue_samples,
        selection_cells,
        events,
        memory,
        largest,
        largest_per_flow,
        output,
        wall_s: events / EVENTS_PER_S,
    }
}

/// Memory the kernel says is available (`MemAvailable` of `/proc/meminfo`), or
/// [`FALLBACK_MEMORY`] where it cannot be read.
pub fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| parse_meminfo(&text))
        .unwrap_or(FALLBACK_MEMORY)
}

/// `MemAvailable` (else `MemFree`) of a `/proc/meminfo` text, bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.trim();
            let kib: u64 = rest.trim_end_matches("kB").trim().parse().ok()?;
            kib.checked_mul(1024)
        })
    };
    field("MemAvailable:").or_else(|| field("MemFree:"))
}

/// The one-line summary of an estimate (for warnings and `--dry-run`).
pub fn describe(e: &Estimate) -> String {
    format!(
        "{} flows, {:.3e} packets, {} of simulated time, {:.3e} events (~{} at {:.0}M events/s), \
         ~{} of memory, ~{} of output",
        e.flows,
        e.packets,
        fmt_secs(e.sim_ps / 1e12),
        e.events,
        fmt_secs(e.wall_s),
        EVENTS_PER_S / 1e6,
        fmt_bytes(e.memory),
        fmt_bytes(e.output)
    )
}

/// Refuse a run that cannot fit in `available` bytes of memory, or whose workload needs more
/// simulated time than the simulator's clock allows; `Ok(Some(warning))` for a run that
/// will likely take more than an hour of wall time.
pub fn check(s: &Scenario, available: u64) -> Result<Option<String>> {
    check_with(s, available, TraceIn::Memory)
}

/// [`check`] with the trace kept as `trace` says.
pub fn check_with(s: &Scenario, available: u64, trace: TraceIn) -> Result<Option<String>> {
    let e = estimate_with(s, trace);
    let w = &s.workload;
    if w.kind == WorkloadKind::Websearch {
        let limit = MAX_TIME_US * PS_PER_US as f64;
        if e.workload_ps.is_nan() || e.workload_ps > limit {
            return Err(Error::field(
                "workload.load",
                format!(
                    "at load {} the {} web-search flows arrive over about {} of simulated \
                     time, more than the limit of 1000 s: raise workload.load or lower \
                     workload.flows",
                    crate::units::num(w.load),
                    w.flows,
                    fmt_secs(e.workload_ps / 1e12)
                ),
            ));
        }
    }
    if e.sim_ps.is_nan() || e.sim_ps > MAX_SIM_PS {
        return Err(Error::field(
            "workload.message",
            format!(
                "the workload needs about {} of simulated time at {} Gb/s, more than the \
                 limit of {}: use smaller messages or set stop.max_time_us",
                fmt_secs(e.sim_ps / 1e12),
                s.topology.link_gbps,
                fmt_secs(MAX_SIM_PS / 1e12)
            ),
        ));
    }
    if e.memory.is_nan() || e.memory > available as f64 {
        let (bytes, field, what) = e.largest;
        // What to shrink: the part's own field, and for a part that grows with the flows
        // the fields that set how many there are.
        let source = match flow_source(s, e.hosts) {
            Some(src) if e.largest_per_flow => {
                format!("; its {} flows come from {src}: shrink that", e.flows)
            }
            _ => String::new(),
        };
        return Err(Error::field(
            field,
            format!(
                "this run needs about {} of memory, {} of it for {what}, but {} is \
                 available{source} (estimate: {})",
                fmt_bytes(e.memory),
                fmt_bytes(bytes),
                fmt_bytes(available as f64),
                describe(&e)
            ),
        ));
    }
    if e.wall_s > WARN_WALL_S {
        return Ok(Some(format!(
            "this run will likely take more than an hour: {} (set stop.max_time_us or use \
             smaller messages to shorten it)",
            describe(&e)
        )));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(r: Result<Option<String>>) -> String {
        match r {
            Err(Error::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn default_is_small_and_fits() {
        let s = Scenario::default();
        let e = estimate(&s);
        assert_eq!(e.flows, 128);
        assert_eq!(e.packets, 128.0 * 512.0);
        // 2 MiB at 400 Gb/s: about 42 us plus the RTT.
        assert!(e.sim_ps > 40e6 && e.sim_ps < 60e6, "{}", e.sim_ps);
        assert!(e.memory < 100e6, "{}", e.memory);
        assert_eq!(check(&s, 1 << 30).unwrap(), None);
    }

    /// DCSIM host engines count: an all-to-all of 128 hosts (127 flows each) needs a
    /// 320-flow engine per host.
    #[test]
    fn dcsim_engines_are_counted() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::AllToAll;
        let window = estimate(&s).memory;
        s.transport.cc = crate::scenario::CcKind::Dcsim;
        let dcsim = estimate(&s).memory;
        let engines = 128.0 * crate::dcsim::host::engine_bytes(127) as f64;
        assert!(engines > 128.0 * 1e6, "{engines}");
        assert_eq!(dcsim - window, engines);
    }

    #[test]
    fn tiny_sampling_intervals_are_refused_on_their_field() {
        let mut s = Scenario::default();
        s.output.queue_sample_us = 0.001;
        s.workload.message = Size::Bytes(8 << 30);
        assert_eq!(field_of(check(&s, 8 << 30)), "output.queue_sample_us");
        let mut s = Scenario::default();
        s.output.selection_bucket_us = 0.001;
        s.workload.message = Size::Bytes(8 << 30);
        assert_eq!(field_of(check(&s, 8 << 30)), "output.selection_bucket_us");
        let mut s = Scenario::default();
        s.output.queue_sample_us = 0.0;
        s.output.rate_sample_us = 0.001;
        s.workload.message = Size::Bytes(8 << 30);
        assert_eq!(field_of(check(&s, 8 << 30)), "output.rate_sample_us");
        s.output.rate_sample_us = 10.0;
        assert!(check(&s, 8 << 30).is_ok(), "10 us samples of 128 flows fit");
        s.output.rate_sample_us = 0.001;
        // The same with a time limit fits.
        s.stop.max_time_us = 10.0;
        assert!(check(&s, 8 << 30).is_ok());
    }

    #[test]
    fn a_trace_larger_than_memory_is_refused_on_its_cap() {
        let mut s = Scenario::default();
        s.output.queue_sample_us = 0.0;
        s.output.selection_bucket_us = 0.0;
        s.workload.message = Size::Bytes(8 << 30);
        assert!(check(&s, 2 << 30).is_ok(), "no trace: fits in 2 GiB");
        s.output.trace = true;
        s.output.trace_max_records = 100_000_000;
        assert_eq!(field_of(check(&s, 2 << 30)), "output.trace_max_records");
        s.output.trace_max_records = 1_000_000;
        assert!(check(&s, 2 << 30).is_ok(), "a million records fit");
        // Written as the run goes (the CLI), the trace takes no memory to speak of.
        s.output.trace_max_records = 100_000_000;
        assert!(check_with(&s, 2 << 30, TraceIn::File).is_ok());
        let (mem, file) = (estimate(&s), estimate_with(&s, TraceIn::File));
        assert!(file.memory < mem.memory && file.output == mem.output);
    }

    #[test]
    fn tiny_websearch_load_is_refused() {
        let mut s = Scenario::default();
        s.workload.kind = WorkloadKind::Websearch;
        for load in [1e-14, 1e-13, 1e-12] {
            s.workload.load = load;
            assert_eq!(field_of(check(&s, 1 << 40)), "workload.load");
        }
        s.workload.load = 0.5;
        assert!(check(&s, 1 << 40).is_ok());
    }

    #[test]
    fn huge_messages_warn() {
        let mut s = Scenario::default();
        s.workload.message = Size::Bytes(8_000_000_000_000);
        // With the default 1 us samples of every port, 160 s of queue samples do not fit.
        assert_eq!(field_of(check(&s, 1 << 40)), "output.queue_sample_us");
        s.output.queue_sample_us = 0.0;
        s.output.selection_bucket_us = 0.0;
        let warning = check(&s, 1 << 40).unwrap().expect("a warning");
        assert!(warning.contains("more than an hour"), "{warning}");
        // A time limit makes it short.
        s.stop.max_time_us = 100.0;
        assert_eq!(check(&s, 1 << 40).unwrap(), None);
    }

    #[test]
    fn flows_that_do_not_fit_name_the_workload() {
        let mut s = Scenario::default();
        s.topology.radix = 16;
        s.workload.kind = WorkloadKind::AllToAll; // ~1M flows
        s.workload.message = Size::Bytes(1000);
        assert_eq!(field_of(check(&s, 100 << 20)), "workload.kind");
        assert!(check(&s, 64 << 30).is_ok());
    }

    /// A verdict on per-flow state also names the fields that set the flows (what to
    /// shrink), not only the largest consumer.
    #[test]
    fn memory_verdicts_name_what_sets_the_flows() {
        let message = |r: Result<Option<String>>| match r {
            Err(Error::Field { field, problem }) => format!("{field}: {problem}"),
            other => panic!("expected a field error, got {other:?}"),
        };
        let mut s = Scenario::default();
        s.workload.collectives = 65536;
        let m = message(check(&s, 1 << 30));
        assert!(m.starts_with("transport.init_cwnd: "), "{m}");
        assert!(
            m.contains("flows come from workload.collectives = 65536"),
            "{m}"
        );
        let mut s = Scenario::default();
        s.topology.radix = 16;
        s.workload.kind = WorkloadKind::AllToAll;
        s.workload.message = Size::Bytes(1000);
        let m = message(check(&s, 100 << 20));
        assert!(
            m.contains("1024 hosts sending to each other (topology.radix and topology.tiers)"),
            "{m}"
        );
        // Queue samples do not grow with the flows: no flow source.
        let mut s = Scenario::default();
        s.output.queue_sample_us = 0.001;
        s.workload.message = Size::Bytes(8 << 30);
        let m = message(check(&s, 8 << 30));
        assert!(
            m.starts_with("output.queue_sample_us: ") && !m.contains("come from"),
            "{m}"
        );
    }

    #[test]
    fn meminfo_parses() {
        let text = "MemTotal:  16000000 kB\nMemFree:  1000 kB\nMemAvailable:   8000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(8_000_000 * 1024));
        assert_eq!(parse_meminfo("MemFree: 10 kB\n"), Some(10 * 1024));
        assert_eq!(parse_meminfo("garbage"), None);
        assert!(available_memory() > 0);
    }
}
