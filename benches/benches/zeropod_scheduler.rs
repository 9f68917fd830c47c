//! Zeropod IterativeScheduler speed: scheduling rounds (I = 6 iterations each) per second on
//! the k = 8 and k = 32 pods under an all-to-all backlog; iterations/s = rounds/s x 6.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rtl_models::zeropod_cell::{RtsArrival, RtsRepr};
use scheduler_asic::scheduler::SchedulerConfig;
use scheduler_asic::{K32Scheduler, K8Scheduler};

fn rts(src: u16, dst: u16, cells: u16) -> RtsRepr {
    let mut r = RtsRepr {
        src,
        n_arrivals: 1,
        ..RtsRepr::default()
    };
    r.arrivals[0] = RtsArrival { dst, cells };
    r
}

fn scheduler(c: &mut Criterion) {
    let mut g = c.benchmark_group("zeropod_scheduler");
    g.throughput(Throughput::Elements(6)); // iterations per round
    g.bench_function("k8_round_6_iterations", |b| {
        let cfg = SchedulerConfig {
            epoch_slots: 32,
            ..SchedulerConfig::default()
        };
        let mut s = Box::new(K8Scheduler::new(cfg).unwrap());
        let mut e = 0u16;
        b.iter(|| {
            for h in 0..16u16 {
                s.on_rts(&rts(h, (h + 1 + e % 15) % 16, 64));
            }
            e = e.wrapping_add(1);
            black_box(s.run_round(e).unwrap().len())
        })
    });
    g.bench_function("k32_round_6_iterations", |b| {
        let cfg = SchedulerConfig {
            epoch_slots: 16,
            ..SchedulerConfig::default()
        };
        let mut s = Box::new(K32Scheduler::new(cfg).unwrap());
        let mut e = 0u16;
        b.iter(|| {
            for h in 0..256u16 {
                s.on_rts(&rts(h, (h + 1 + 37 * (e % 6)) % 256, 16));
            }
            e = e.wrapping_add(1);
            black_box(s.run_round(e).unwrap().len())
        })
    });
    g.finish();
}

criterion_group!(benches, scheduler);
criterion_main!(benches);
