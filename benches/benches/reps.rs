//! REPS block throughput: operations (ONACK / ONSEND / ONFAILUREDETECTION) per second on
//! the Table 1 word, the compact word and the unpacked reference.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use nic::reps::{Reps, RepsCompact16, RepsConfig, RepsEngine, RepsState, RepsUnpacked};
use rtl_models::Lfsr32;

/// One unmarked ACK then one send (recycles the EV just cached): the steady state.
fn ack_send<S: RepsState<8>>(c: &mut Criterion, name: &str, mut r: RepsEngine<S, 8>) {
    let mut g = c.benchmark_group("reps");
    g.throughput(Throughput::Elements(2));
    let mut rng = Lfsr32::new(1);
    let mut now = 0u64;
    let mut ev = 0u16;
    g.bench_function(name, |b| {
        b.iter(|| {
            now += 1;
            ev = ev.wrapping_add(0x9e37);
            r.observe_ack(now, black_box(ev), false);
            black_box(r.choose_ev(&mut rng))
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let cfg = RepsConfig::DEFAULT;
    ack_send(c, "ack+send/table1_word", Reps::new(cfg).unwrap());
    ack_send(
        c,
        "ack+send/compact16_word",
        RepsCompact16::new(cfg).unwrap(),
    );
    ack_send(c, "ack+send/unpacked", RepsUnpacked::new(cfg).unwrap());

    let mut g = c.benchmark_group("reps");
    g.throughput(Throughput::Elements(1));
    // Warm-up path: empty buffer, every send draws a random EV (A2 L20).
    let mut r = Reps::new(cfg).unwrap();
    let mut rng = Lfsr32::new(2);
    g.bench_function("send_random/table1_word", |b| {
        b.iter(|| black_box(r.choose_ev(&mut rng)))
    });
    // Freezing mode: round robin over the buffer (A2 L7-9), no draw.
    let mut r = Reps::new(RepsConfig {
        freezing_timeout_cycles: (1 << 31) - 1,
        ..cfg
    })
    .unwrap();
    for k in 0..8 {
        r.observe_ack(0, k, false);
    }
    for _ in 0..8 {
        r.choose_ev(&mut rng);
    }
    r.observe_failure(1);
    g.bench_function("send_frozen/table1_word", |b| {
        b.iter(|| black_box(r.choose_ev(&mut rng)))
    });
    // Marked ACKs (A1 L6-7) and a word load/store, for the co-simulation path.
    let mut r = Reps::new(cfg).unwrap();
    g.bench_function("ack_marked/table1_word", |b| {
        b.iter(|| r.observe_ack(black_box(5), black_box(7), true))
    });
    let r = Reps::new(cfg).unwrap();
    let mut s = Reps::new(cfg).unwrap();
    g.bench_function("word+set_word/table1_word", |b| {
        b.iter(|| s.set_word(black_box(r.word())))
    });
    g.finish();
}

criterion_group!(reps, benches);
criterion_main!(reps);
