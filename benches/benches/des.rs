//! DES throughput: simulated DATA packets and events per wall-second on small fat trees.
//!
//! The large runs (1024 and 8192 hosts) are measured with the `dcfab` CLI's own timing
//! (`summary.json`: `events_per_s`, `data_packets_per_s`); see `benches/README.md`.

/// The `dcfab` binary's allocator (the library leaves the choice to its user).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sim_harness::scenario::{LbKind, Scenario, Size, WorkloadKind};
use sim_harness::{simulate, RunControl};

fn scenario(radix: u32, tiers: u32, lb: LbKind, message: u64) -> Scenario {
    let mut s = Scenario {
        name: format!("bench_k{radix}_t{tiers}"),
        ..Scenario::default()
    };
    s.topology.radix = radix;
    s.topology.tiers = tiers;
    s.transport.lb = lb;
    s.workload.kind = WorkloadKind::Permutation;
    s.workload.message = Size::Bytes(message);
    s.output.queue_sample_us = 0.0;
    s
}

fn des(c: &mut Criterion) {
    let mut g = c.benchmark_group("des_permutation");
    g.sample_size(10);
    for (name, sc) in [
        ("k4_3tier_ops_1MiB", scenario(4, 3, LbKind::Ops, 1 << 20)),
        (
            "k8_3tier_ops_256KiB",
            scenario(8, 3, LbKind::Ops, 256 << 10),
        ),
        (
            "k8_3tier_ecmp_256KiB",
            scenario(8, 3, LbKind::Ecmp, 256 << 10),
        ),
    ] {
        let first = simulate(&sc, &RunControl::default()).expect("bench scenario runs");
        g.throughput(Throughput::Elements(first.summary.data_packets));
        g.bench_with_input(BenchmarkId::from_parameter(name), &sc, |b, sc| {
            b.iter(|| simulate(sc, &RunControl::default()).expect("bench scenario runs"))
        });
    }
    g.finish();
}

criterion_group!(benches, des);
criterion_main!(benches);
