//! DCSIM blocks: the switch arbiter in cycles per second (tick by tick and event driven)
//! and the host engine in DATAs per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use nic::dcsim::{DataAck, DcsimHost, DcsimHostConfig};
use rtl_models::Lfsr32;
use switch::dcsim::{Class, DcsimArbiterConfig, DefaultDcsimArbiter};

/// A default port (800 Gb/s, 9 KB DATAs, h = 2.1, depth 2) with SIM and DATA queues kept
/// saturated: the Theorem 1 / 3 workload.
fn saturated_port() -> DefaultDcsimArbiter {
    let mut a = DefaultDcsimArbiter::new(DcsimArbiterConfig::default()).unwrap();
    for i in 0..12 {
        a.enqueue(Class::Sim, i, 64);
        a.enqueue(Class::Data, i, 9000);
    }
    a
}

fn arbiter(c: &mut Criterion) {
    const CYCLES: u64 = 100_000;
    let mut g = c.benchmark_group("dcsim_arbiter");
    g.throughput(Throughput::Elements(CYCLES));
    g.bench_function("tick_saturated_cycles", |b| {
        let mut a = saturated_port();
        b.iter(|| {
            for _ in 0..CYCLES {
                if let Some(d) = a.step() {
                    a.enqueue(d.class, d.desc, d.bytes);
                }
            }
            black_box(a.now())
        })
    });
    g.bench_function("event_saturated_cycles", |b| {
        let mut a = saturated_port();
        b.iter(|| {
            let end = a.now() + CYCLES;
            while a.now() < end {
                let d = a.take_next().unwrap();
                a.enqueue(d.class, d.desc, d.bytes);
            }
            black_box(a.now())
        })
    });
    g.bench_function("advance_idle_cycles", |b| {
        let mut a = DefaultDcsimArbiter::new(DcsimArbiterConfig::default()).unwrap();
        b.iter(|| {
            rtl_models::Clocked::advance(&mut a, CYCLES);
            black_box(a.now())
        })
    });
    g.finish();
}

/// One flow, lossless: SIM out, SIM-ACK 20 cycles later, DATA at t_SIM + RTT_max, a DATA-ACK
/// per DATA. Throughput in DATAs.
fn host(c: &mut Criterion) {
    const DATAS: u32 = 1000;
    let mut g = c.benchmark_group("dcsim_host");
    g.throughput(Throughput::Elements(DATAS as u64));
    g.bench_function("sim_ack_release_ack_datas", |b| {
        b.iter(|| {
            let mut h: DcsimHost<1, 1, 64, 128> =
                DcsimHost::new(DcsimHostConfig::with_rtt(100, 40)).unwrap();
            let mut rng = Lfsr32::new(1);
            let f = h.open_flow(0, DATAS).unwrap();
            let mut acks: std::collections::VecDeque<(u64, u16)> = Default::default();
            let mut t = 0u64;
            while !h.flow(f).unwrap().is_done() {
                h.advance_to(t);
                while acks.front().is_some_and(|a| a.0 <= t) {
                    let (_, ev) = acks.pop_front().unwrap();
                    h.on_sim_ack(f, ev);
                }
                if let Some(r) = h.pop_release() {
                    h.on_data_transmitted(f, r.seq);
                    h.on_data_ack(
                        f,
                        DataAck {
                            cum: r.seq + 1,
                            sack: 0,
                        },
                    );
                } else if let Some((_, ev)) = h.next_sim(&mut rng) {
                    h.on_sim_transmitted(f, ev);
                    acks.push_back((t + 20, ev));
                }
                t += 1;
            }
            black_box(t)
        })
    });
    g.finish();
}

criterion_group!(benches, arbiter, host);
criterion_main!(benches);
