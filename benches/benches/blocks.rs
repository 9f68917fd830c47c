use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rtl_models::{Clocked, Lfsr32, RandomSource, Rate, TokenBucket};

fn token_bucket(c: &mut Criterion) {
    c.bench_function("token_bucket/tick+take", |b| {
        let mut tb = TokenBucket::new(Rate::from_ratio(1, 3).unwrap(), 2).unwrap();
        b.iter(|| {
            tb.tick();
            black_box(tb.try_take(1))
        })
    });
    c.bench_function("lfsr32/next_u32", |b| {
        let mut l = Lfsr32::new(1);
        b.iter(|| black_box(l.next_u32()))
    });
}

criterion_group!(benches, token_bucket);
criterion_main!(benches);
