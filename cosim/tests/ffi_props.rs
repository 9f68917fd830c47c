//! Property tests of the C ABI, called through the `extern "C"` functions exactly as C
//! would: random call sequences over every block kind, including NULL, freed, forged and
//! wrong-kind handles, NULL output pointers, out-of-range arguments, bad configs and random
//! REPS words. Every status and output must be what the reference (the Rust block driven
//! directly) predicts, no call may panic, and at the end every handle is freed and the live
//! count is back where it started.
//!
//! One `#[test]` per file on purpose: the live-handle count is process-global.

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use dcfab_cosim::*;
use nic::reps::{AckOutcome, EvChoice, Reps, RepsConfig};
use proptest::prelude::*;
use rtl_models::{
    Clocked, Lfsr32, PhantomQueue, RandomSource, Rate, RedConfig, RedMarker, TokenBucket,
};
use switch::dcsim::{Class, DcsimArbiterConfig, DefaultDcsimArbiter, Enqueue};

fn last_error() -> String {
    unsafe { CStr::from_ptr(dcfab_last_error()) }
        .to_string_lossy()
        .into_owned()
}

struct Given(u32);
impl RandomSource for Given {
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

/// The reference of one handle ever issued (`None` once freed).
enum Model {
    Tb(TokenBucket),
    Pq(PhantomQueue),
    Red(RedMarker, Lfsr32),
    Dcsim(Box<DefaultDcsimArbiter>),
    Reps(Box<Reps>, Lfsr32, u64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Tb,
    Pq,
    Red,
    Dcsim,
    Reps,
}

const KINDS: [Kind; 5] = [Kind::Tb, Kind::Pq, Kind::Red, Kind::Dcsim, Kind::Reps];

struct Entry {
    kind: Kind,
    raw: usize,
    model: Option<Model>,
}

#[derive(Clone, Debug)]
enum Op {
    /// `a`, `b`, `c` parameterise the config; `bad` picks one field to break (0 = none).
    New {
        kind: usize,
        a: u64,
        b: u64,
        bad: u8,
        flat: bool,
    },
    Free(usize),
    Tick(usize),
    Advance(usize, u64),
    /// A per-cycle input of the block, parameters `x`, `y`.
    Input(usize, u32, u32),
    Read(usize, u32),
    NullOut(usize),
    /// Call kind `k`'s tick / reader with this handle.
    CrossKind(usize, usize),
    SetWord(usize, [u8; 25]),
    Forged(u64),
    NullHandle,
    NullConfig(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let i = any::<usize>();
    prop_oneof![
        3 => (0usize..5, any::<u64>(), any::<u64>(), prop_oneof![4 => Just(0u8), 1 => 1u8..4], any::<bool>())
            .prop_map(|(kind, a, b, bad, flat)| Op::New { kind, a, b, bad, flat }),
        2 => i.prop_map(Op::Free),
        4 => i.prop_map(Op::Tick),
        1 => (i, prop_oneof![0u64..300, Just(u64::MAX), Just(1u64 << 62)]).prop_map(|(i, n)| Op::Advance(i, n)),
        8 => (i, any::<u32>(), any::<u32>()).prop_map(|(i, x, y)| Op::Input(i, x, y)),
        3 => (i, 0u32..10).prop_map(|(i, n)| Op::Read(i, n)),
        1 => i.prop_map(Op::NullOut),
        2 => (i, 0usize..5).prop_map(|(i, k)| Op::CrossKind(i, k)),
        1 => (i, proptest::array::uniform25(prop_oneof![3 => Just(0u8), 1 => any::<u8>()]))
            .prop_map(|(i, w)| Op::SetWord(i, w)),
        1 => any::<u64>().prop_map(Op::Forged),
        1 => Just(Op::NullHandle),
        1 => (0usize..5).prop_map(Op::NullConfig),
    ]
}

// ---- configs built from (a, b, bad) ---------------------------------------------------

fn tb_cfg(a: u64, b: u64, bad: u8) -> (DcfabTokenBucketConfig, Option<&'static str>) {
    let mut c = DcfabTokenBucketConfig {
        rate_q32: a % (3 << 32),
        depth: 1 + (b % 6) as u32,
        start_full: (b >> 8) as u8 & 1,
    };
    match bad {
        1 => c.depth = 0,
        2 => c.start_full = 2 + (b >> 16) as u8 % 200,
        _ => {}
    }
    let field = match bad {
        1 => Some("depth"),
        2 => Some("start_full"),
        _ => None,
    };
    (c, field)
}

fn pq_cfg(a: u64, b: u64, bad: u8) -> (DcfabPhantomConfig, Option<&'static str>) {
    let mut c = DcfabPhantomConfig {
        drain_q32: 1 + a % (100 << 32),
        cap_bytes: 1 + b % 100_000,
    };
    let field = match bad {
        1 => {
            c.drain_q32 = 0;
            Some("drain_q32")
        }
        2 => {
            c.cap_bytes = 0;
            Some("cap_bytes")
        }
        3 => {
            c.cap_bytes = 1 << 32;
            Some("cap_bytes")
        }
        _ => None,
    };
    (c, field)
}

fn red_cfg(a: u64, b: u64, bad: u8) -> (DcfabRedConfig, Option<&'static str>) {
    let kmin = a % 10_000;
    let mut c = DcfabRedConfig {
        kmin_bytes: kmin,
        kmax_bytes: kmin + b % 10_000,
        pmax_q32: (b >> 20) % (1 << 32) + 1,
        seed: a as u32,
    };
    let field = match bad {
        1 if kmin > 0 => {
            c.kmax_bytes = kmin - 1;
            Some("kmax_bytes")
        }
        2 => {
            c.pmax_q32 = (1 << 32) + 1 + (b >> 40);
            Some("pmax_q32")
        }
        _ => None,
    };
    (c, field)
}

fn dcsim_cfg(a: u64, b: u64, bad: u8) -> (DcfabDcsimConfig, Option<&'static str>) {
    let mut c = DcfabDcsimConfig {
        bytes_per_cycle: 64,
        small_bytes: 64,
        data_bytes: 64 + (a % 2000) as u32,
        h_milli: 1000 + (b % 2000) as u32,
        bucket_depth: 1 + (b >> 16) as u32 % 3,
        small_queue_pkts: 1 + (b >> 24) as u32 % 12,
        period_ps: 640,
        port_buffer_bytes: 0,
    };
    c.port_buffer_bytes =
        3 * c.small_queue_pkts as u64 * 64 + c.data_bytes as u64 * (1 + (a >> 32) % 5);
    let field = match bad {
        1 => {
            c.bytes_per_cycle = 0;
            Some("bytes_per_cycle")
        }
        2 => {
            c.small_queue_pkts = 13 + (b as u32 % 100);
            Some("small_queue_pkts")
        }
        3 => {
            c.period_ps = 0;
            Some("period_ps")
        }
        _ => None,
    };
    (c, field)
}

fn reps_cfg(a: u64, b: u64, bad: u8) -> (DcfabRepsConfig, Option<&'static str>) {
    let mut c = DcfabRepsConfig {
        ev_bits: 1 + (a % 16) as u32,
        num_pkts_cwnd: (b % 256) as u32,
        freezing_timeout_cycles: (a >> 8) as u32 % 1000,
        reuse: 1 + (b >> 8) as u32 % 3,
        seed: (a >> 32) as u32,
        freezing: (b >> 16) as u8 & 1,
    };
    let field = match bad {
        1 => {
            c.ev_bits = if a & 1 == 0 {
                0
            } else {
                17 + (a >> 1) as u32 % 300
            };
            Some("ev_bits")
        }
        2 => {
            c.reuse = 0;
            Some("reuse")
        }
        3 => {
            c.freezing = 2 + (b >> 24) as u8 % 100;
            Some("freezing")
        }
        _ => None,
    };
    (c, field)
}

fn new_block(
    kind: Kind,
    a: u64,
    b: u64,
    bad: u8,
    flat: bool,
) -> (usize, Option<&'static str>, Option<Model>) {
    match kind {
        Kind::Tb => {
            let (c, f) = tb_cfg(a, b, bad);
            let p = if flat {
                dcfab_tb_new_flat(c.rate_q32, c.depth, c.start_full)
            } else {
                unsafe { dcfab_tb_new(&c) }
            };
            let m = if c.start_full == 1 {
                TokenBucket::new(Rate(c.rate_q32), c.depth)
            } else {
                TokenBucket::new_empty(Rate(c.rate_q32), c.depth)
            };
            (
                p as usize,
                f,
                m.filter(|_| c.start_full <= 1).map(Model::Tb),
            )
        }
        Kind::Pq => {
            let (c, f) = pq_cfg(a, b, bad);
            let p = if flat {
                dcfab_pq_new_flat(c.drain_q32, c.cap_bytes)
            } else {
                unsafe { dcfab_pq_new(&c) }
            };
            (
                p as usize,
                f,
                PhantomQueue::new(Rate(c.drain_q32), c.cap_bytes).map(Model::Pq),
            )
        }
        Kind::Red => {
            let (c, f) = red_cfg(a, b, bad);
            let p = if flat {
                dcfab_red_new_flat(c.kmin_bytes, c.kmax_bytes, c.pmax_q32, c.seed)
            } else {
                unsafe { dcfab_red_new(&c) }
            };
            let m = RedMarker::new(RedConfig {
                kmin_bytes: c.kmin_bytes,
                kmax_bytes: c.kmax_bytes,
                pmax_q32: c.pmax_q32,
            });
            (
                p as usize,
                f,
                m.ok().map(|m| Model::Red(m, Lfsr32::new(c.seed))),
            )
        }
        Kind::Dcsim => {
            let (c, f) = dcsim_cfg(a, b, bad);
            let p = if flat {
                dcfab_dcsim_new_flat(
                    c.bytes_per_cycle,
                    c.small_bytes,
                    c.data_bytes,
                    c.h_milli,
                    c.bucket_depth,
                    c.small_queue_pkts,
                    c.period_ps,
                    c.port_buffer_bytes,
                )
            } else {
                unsafe { dcfab_dcsim_new(&c) }
            };
            let m = DefaultDcsimArbiter::new(DcsimArbiterConfig {
                bytes_per_cycle: c.bytes_per_cycle,
                clock: rtl_models::Clock {
                    period_ps: c.period_ps,
                },
                small_bytes: c.small_bytes,
                data_bytes: c.data_bytes,
                h_milli: c.h_milli,
                bucket_depth: c.bucket_depth,
                small_queue_pkts: c.small_queue_pkts,
                port_buffer_bytes: c.port_buffer_bytes,
            });
            (p as usize, f, m.ok().map(|m| Model::Dcsim(Box::new(m))))
        }
        Kind::Reps => {
            let (c, f) = reps_cfg(a, b, bad);
            let p = if flat {
                dcfab_reps_new_flat(
                    c.ev_bits,
                    c.num_pkts_cwnd,
                    c.freezing_timeout_cycles,
                    c.reuse,
                    c.seed,
                    c.freezing,
                )
            } else {
                unsafe { dcfab_reps_new(&c) }
            };
            let m = (c.freezing <= 1 && c.ev_bits <= 255)
                .then(|| {
                    Reps::new(RepsConfig {
                        ev_bits: c.ev_bits as u8,
                        num_pkts_cwnd: c.num_pkts_cwnd,
                        freezing_timeout_cycles: c.freezing_timeout_cycles,
                        freezing: c.freezing == 1,
                        reuse: c.reuse,
                        timed_exit: false,
                    })
                    .ok()
                })
                .flatten();
            (
                p as usize,
                f,
                m.map(|m| Model::Reps(Box::new(m), Lfsr32::new(c.seed), 0)),
            )
        }
    }
}

// ---- calls on a handle of a given kind -------------------------------------------------

fn tick(kind: Kind, raw: usize) -> i32 {
    match kind {
        Kind::Tb => dcfab_tb_tick(raw as _),
        Kind::Pq => dcfab_pq_tick(raw as _),
        Kind::Red => dcfab_red_tick(raw as _),
        Kind::Dcsim => dcfab_dcsim_tick(raw as _),
        Kind::Reps => dcfab_reps_tick(raw as _),
    }
}

fn free(kind: Kind, raw: usize) -> i32 {
    match kind {
        Kind::Tb => dcfab_tb_free(raw as _),
        Kind::Pq => dcfab_pq_free(raw as _),
        Kind::Red => dcfab_red_free(raw as _),
        Kind::Dcsim => dcfab_dcsim_free(raw as _),
        Kind::Reps => dcfab_reps_free(raw as _),
    }
}

/// A reader of each kind, with a valid output pointer.
fn read_one(kind: Kind, raw: usize) -> i32 {
    let (mut a, mut b, mut c, mut d) = (0u64, 0u32, 0u8, 0u32);
    unsafe {
        match kind {
            Kind::Tb => dcfab_tb_tokens_q32(raw as _, &mut a),
            Kind::Pq => dcfab_pq_level_q32(raw as _, &mut a),
            Kind::Red => dcfab_red_lfsr_state(raw as _, &mut b),
            Kind::Dcsim => dcfab_dcsim_queue(raw as _, 0, &mut b, &mut a),
            Kind::Reps => dcfab_reps_slot(raw as _, 0, &mut b, &mut c, &mut d),
        }
    }
}

/// Every reader of the kind with NULL outputs.
/// A NULL output pointer of whatever type the call wants.
macro_rules! N {
    () => {
        null_mut()
    };
}

fn read_null(kind: Kind, raw: usize) -> Vec<i32> {
    unsafe {
        match kind {
            Kind::Tb => vec![
                dcfab_tb_try_take(raw as _, 0, N!()),
                dcfab_tb_tokens(raw as _, N!()),
                dcfab_tb_tokens_q32(raw as _, N!()),
                dcfab_tb_can_take(raw as _, 0, N!()),
                dcfab_tb_cycles_until(raw as _, 0, N!()),
            ],
            Kind::Pq => vec![
                dcfab_pq_occupancy(raw as _, N!()),
                dcfab_pq_level_q32(raw as _, N!()),
                dcfab_pq_cycles_until_empty(raw as _, N!()),
            ],
            Kind::Red => vec![
                dcfab_red_should_mark(raw as _, 0, N!()),
                dcfab_red_should_mark_with(raw as _, 0, 0, N!()),
                dcfab_red_probability_q32(raw as _, 0, N!()),
                dcfab_red_lfsr_state(raw as _, N!()),
            ],
            Kind::Dcsim => {
                let (mut v, mut x) = (0u8, 0u32);
                vec![
                    dcfab_dcsim_enqueue(raw as _, 0, 0, 64, N!()),
                    dcfab_dcsim_last_started(raw as _, &mut v, &mut x, N!(), N!(), N!()),
                    dcfab_dcsim_next_departure(raw as _, N!(), N!(), N!(), N!()),
                    dcfab_dcsim_regs(
                        raw as _,
                        N!(),
                        N!(),
                        N!(),
                        N!(),
                        N!(),
                        N!(),
                        N!(),
                        N!(),
                        N!(),
                    ),
                    dcfab_dcsim_queue(raw as _, 0, N!(), N!()),
                    dcfab_dcsim_counts(raw as _, 0, N!(), N!(), N!(), N!()),
                    dcfab_dcsim_status(raw as _, N!(), N!(), N!()),
                ]
            }
            Kind::Reps => vec![
                dcfab_reps_on_ack(raw as _, 1, 0, N!(), N!(), N!()),
                dcfab_reps_on_failure(raw as _, N!()),
                dcfab_reps_on_send(raw as _, N!(), N!(), N!()),
                dcfab_reps_on_send_with(raw as _, 0, N!(), N!(), N!()),
                dcfab_reps_get_word(raw as _, N!()),
                dcfab_reps_set_word(raw as _, null()),
                dcfab_reps_get_word193(raw as _, N!()),
                dcfab_reps_set_word193(raw as _, null()),
                dcfab_reps_fields(raw as _, N!(), N!(), N!(), N!(), N!(), N!()),
                dcfab_reps_slot(raw as _, 0, N!(), N!(), N!()),
                dcfab_reps_stats(
                    raw as _,
                    N!(),
                    N!(),
                    N!(),
                    N!(),
                    N!(),
                    N!(),
                    N!(),
                    N!(),
                    N!(),
                ),
                dcfab_reps_now(raw as _, N!()),
                dcfab_reps_lfsr_state(raw as _, N!()),
            ],
        }
    }
}

fn choice_code(c: EvChoice) -> u32 {
    match c {
        EvChoice::Explore => DCFAB_REPS_EXPLORE,
        EvChoice::Random => DCFAB_REPS_RANDOM,
        EvChoice::Recycle => DCFAB_REPS_RECYCLE,
        EvChoice::Frozen => DCFAB_REPS_FROZEN,
    }
}

/// A per-cycle input on a live block; compares outputs with the reference.
fn input(raw: usize, m: &mut Model, x: u32, y: u32) -> Result<(), TestCaseError> {
    match m {
        Model::Tb(b) => {
            let n = x % 5;
            let mut g = 9u8;
            prop_assert_eq!(unsafe { dcfab_tb_try_take(raw as _, n, &mut g) }, DCFAB_OK);
            prop_assert_eq!(g, b.try_take(n) as u8);
        }
        Model::Pq(q) => {
            prop_assert_eq!(dcfab_pq_on_enqueue(raw as _, x % 20_000), DCFAB_OK);
            q.on_enqueue(x % 20_000);
            if y & 7 == 0 {
                prop_assert_eq!(dcfab_pq_clear(raw as _), DCFAB_OK);
                q.clear();
            }
        }
        Model::Red(r, rng) => {
            let q = (x % 12_000) as u64;
            let mut mk = 9u8;
            if y & 1 == 0 {
                prop_assert_eq!(
                    unsafe { dcfab_red_should_mark(raw as _, q, &mut mk) },
                    DCFAB_OK
                );
                prop_assert_eq!(mk, r.should_mark(q, rng) as u8);
            } else {
                prop_assert_eq!(
                    unsafe { dcfab_red_should_mark_with(raw as _, q, y, &mut mk) },
                    DCFAB_OK
                );
                prop_assert_eq!(mk, r.should_mark(q, &mut Given(y)) as u8);
            }
        }
        Model::Dcsim(a) => {
            let class = x % 5; // 4 is out of range
            let bytes = if y & 15 == 0 { y } else { y % 3000 };
            let mut res = 9u32;
            let st = unsafe { dcfab_dcsim_enqueue(raw as _, class, x, bytes, &mut res) };
            if class == 4 {
                prop_assert_eq!(st, DCFAB_ERR_ARG);
                prop_assert!(last_error().contains("class"));
                prop_assert_eq!(res, 9);
            } else {
                prop_assert_eq!(st, DCFAB_OK);
                let want = match a.enqueue(Class::ALL[class as usize], x, bytes) {
                    Enqueue::Accepted => DCFAB_ENQ_ACCEPTED,
                    Enqueue::Dropped => DCFAB_ENQ_DROPPED,
                    Enqueue::Rejected => DCFAB_ENQ_REJECTED,
                };
                prop_assert_eq!(res, want);
            }
        }
        Model::Reps(r, rng, now) => match y % 4 {
            0 => {
                let ev = if y & 63 == 0 {
                    0x1_0000 + x
                } else {
                    x & 0xFFFF
                };
                let ecn = if y % 128 == 4 { 2 } else { (y >> 8) as u8 & 1 };
                let (mut c, mut s, mut e) = (9u8, 9u32, 9u8);
                let st = unsafe { dcfab_reps_on_ack(raw as _, ev, ecn, &mut c, &mut s, &mut e) };
                if ev > 0xFFFF || ecn > 1 {
                    prop_assert_eq!(st, DCFAB_ERR_ARG);
                } else {
                    prop_assert_eq!(st, DCFAB_OK);
                    let want = match r.observe_ack(*now, ev as u16, ecn == 1) {
                        AckOutcome::Marked => (0, DCFAB_REPS_NO_SLOT, 0),
                        AckOutcome::Cached {
                            slot,
                            exited_freezing,
                        } => (1, slot as u32, exited_freezing as u8),
                    };
                    prop_assert_eq!((c, s, e), want);
                }
            }
            1 => {
                let mut f = 9u8;
                prop_assert_eq!(unsafe { dcfab_reps_on_failure(raw as _, &mut f) }, DCFAB_OK);
                prop_assert_eq!(f, r.observe_failure(*now) as u8);
            }
            k => {
                let (mut ev, mut ch, mut sl) = (9u32, 9u32, 9u32);
                let d = if k == 2 {
                    prop_assert_eq!(
                        unsafe { dcfab_reps_on_send(raw as _, &mut ev, &mut ch, &mut sl) },
                        DCFAB_OK
                    );
                    r.choose_ev(rng)
                } else {
                    prop_assert_eq!(
                        unsafe { dcfab_reps_on_send_with(raw as _, x, &mut ev, &mut ch, &mut sl) },
                        DCFAB_OK
                    );
                    r.choose_ev(&mut Given(x))
                };
                prop_assert_eq!(
                    (ev, ch, sl),
                    (
                        d.ev as u32,
                        choice_code(d.choice),
                        d.slot.map_or(DCFAB_REPS_NO_SLOT, |s| s as u32)
                    )
                );
            }
        },
    }
    Ok(())
}

/// Read everything observable and compare with the reference.
fn read_all(raw: usize, m: &mut Model, n: u32) -> Result<(), TestCaseError> {
    unsafe {
        match m {
            Model::Tb(b) => {
                let (mut t, mut q, mut c, mut cyc) = (0u32, 0u64, 0u8, 0u64);
                prop_assert_eq!(
                    [
                        dcfab_tb_tokens(raw as _, &mut t),
                        dcfab_tb_tokens_q32(raw as _, &mut q),
                        dcfab_tb_can_take(raw as _, n, &mut c),
                        dcfab_tb_cycles_until(raw as _, n, &mut cyc)
                    ],
                    [DCFAB_OK; 4]
                );
                prop_assert_eq!(
                    (t, q, c, cyc),
                    (
                        b.tokens(),
                        b.tokens_q(),
                        b.can_take(n) as u8,
                        b.cycles_until(n).unwrap_or(u64::MAX)
                    )
                );
            }
            Model::Pq(p) => {
                let (mut o, mut l, mut c) = (0u64, 0u64, 0u64);
                prop_assert_eq!(
                    [
                        dcfab_pq_occupancy(raw as _, &mut o),
                        dcfab_pq_level_q32(raw as _, &mut l),
                        dcfab_pq_cycles_until_empty(raw as _, &mut c)
                    ],
                    [DCFAB_OK; 3]
                );
                prop_assert_eq!(
                    (o, l, c),
                    (p.occupancy(), p.level_q(), p.cycles_until_empty())
                );
            }
            Model::Red(r, rng) => {
                let (mut p, mut s) = (0u64, 0u32);
                let q = n as u64 * 1300;
                prop_assert_eq!(
                    [
                        dcfab_red_probability_q32(raw as _, q, &mut p),
                        dcfab_red_lfsr_state(raw as _, &mut s)
                    ],
                    [DCFAB_OK; 2]
                );
                prop_assert_eq!((p, s), (r.mark_probability_q32(q), rng.state()));
            }
            Model::Dcsim(a) => {
                let mut r = [0u32; 8];
                let mut tq = 0u64;
                let [r0, r1, r2, r3, r4, r5, r6, r7] = &mut r;
                prop_assert_eq!(
                    dcfab_dcsim_regs(raw as _, &mut tq, r0, r1, r2, r3, r4, r5, r6, r7),
                    DCFAB_OK
                );
                let g = a.regs();
                prop_assert_eq!(
                    (tq, r),
                    (
                        g.tokens_q,
                        [
                            g.busy_remaining as u32,
                            g.sim_len as u32,
                            g.sim_ack_len as u32,
                            g.data_ack_len as u32,
                            g.data_len as u32,
                            g.data_bytes,
                            g.sim_drops,
                            g.data_drops
                        ]
                    )
                );
                let (mut v, mut c, mut d, mut b, mut cy, mut st) =
                    (0u8, 0u32, 0u32, 0u32, 0u32, 0u64);
                prop_assert_eq!(
                    dcfab_dcsim_last_started(raw as _, &mut v, &mut c, &mut d, &mut b, &mut cy),
                    DCFAB_OK
                );
                let s = a.last_started();
                prop_assert_eq!(
                    (v, c, d, b, cy),
                    (
                        s.is_some() as u8,
                        s.map_or(0, |s| s.class.index() as u32),
                        s.map_or(0, |s| s.desc),
                        s.map_or(0, |s| s.bytes),
                        s.map_or(0, |s| s.cycles)
                    )
                );
                prop_assert_eq!(
                    dcfab_dcsim_next_departure(raw as _, &mut v, &mut c, &mut d, &mut st),
                    DCFAB_OK
                );
                let nd = a.next_departure();
                prop_assert_eq!(
                    (v, c, d, st),
                    (
                        nd.is_some() as u8,
                        nd.map_or(0, |s| s.class.index() as u32),
                        nd.map_or(0, |s| s.desc),
                        nd.map_or(0, |s| s.start)
                    )
                );
                let class = n % 5;
                let (mut len, mut by) = (0u32, 0u64);
                let qs = dcfab_dcsim_queue(raw as _, class, &mut len, &mut by);
                let (mut ac, mut dr, mut rj, mut dp) = (0u64, 0u64, 0u64, 0u64);
                let cs = dcfab_dcsim_counts(raw as _, class, &mut ac, &mut dr, &mut rj, &mut dp);
                if class == 4 {
                    prop_assert_eq!((qs, cs), (DCFAB_ERR_ARG, DCFAB_ERR_ARG));
                } else {
                    let k = Class::ALL[class as usize];
                    let s = a.stats();
                    prop_assert_eq!((qs, cs), (DCFAB_OK, DCFAB_OK));
                    prop_assert_eq!((len, by), (a.queue_len(k) as u32, a.queue_bytes(k)));
                    let i = k.index();
                    prop_assert_eq!(
                        (ac, dr, rj, dp),
                        (s.accepted[i], s.dropped[i], s.rejected[i], s.departed[i])
                    );
                }
                let (mut now, mut busy, mut rate) = (0u64, 0u8, 0u64);
                prop_assert_eq!(
                    dcfab_dcsim_status(raw as _, &mut now, &mut busy, &mut rate),
                    DCFAB_OK
                );
                prop_assert_eq!(
                    (now, busy, rate),
                    (a.now(), a.line_busy() as u8, a.bucket().rate().0)
                );
            }
            Model::Reps(r, rng, now) => {
                let mut w = [0u8; 25];
                let mut w7 = [0u32; 7];
                prop_assert_eq!(
                    [
                        dcfab_reps_get_word(raw as _, w.as_mut_ptr()),
                        dcfab_reps_get_word193(raw as _, w7.as_mut_ptr())
                    ],
                    [DCFAB_OK; 2]
                );
                prop_assert_eq!(w, r.word());
                for (i, byte) in w.iter().enumerate() {
                    prop_assert_eq!((w7[i / 4] >> (8 * (i % 4))) as u8, *byte);
                }
                let (mut ec, mut fz, mut efm, mut hd, mut nv, mut em) =
                    (0u32, 0u8, 0u32, 0u32, 0u32, 0u8);
                prop_assert_eq!(
                    dcfab_reps_fields(
                        raw as _, &mut ec, &mut fz, &mut efm, &mut hd, &mut nv, &mut em
                    ),
                    DCFAB_OK
                );
                prop_assert_eq!(
                    (ec, fz, efm, hd, nv, em),
                    (
                        r.explore_counter() as u32,
                        r.is_freezing() as u8,
                        r.exit_freezing_mode(),
                        r.head() as u32,
                        r.number_of_valid_evs() as u32,
                        r.is_empty() as u8
                    )
                );
                let (mut ev, mut v, mut u) = (0u32, 0u8, 0u32);
                let st = dcfab_reps_slot(raw as _, n, &mut ev, &mut v, &mut u);
                if n >= 8 {
                    prop_assert_eq!(st, DCFAB_ERR_ARG);
                } else {
                    prop_assert_eq!(st, DCFAB_OK);
                    let i = n as usize;
                    prop_assert_eq!(
                        (ev, v, u),
                        (
                            r.cached_ev(i) as u32,
                            r.is_valid(i) as u8,
                            r.uses_left(i) as u32
                        )
                    );
                }
                let mut s = [0u64; 9];
                let [s0, s1, s2, s3, s4, s5, s6, s7, s8] = &mut s;
                prop_assert_eq!(
                    dcfab_reps_stats(raw as _, s0, s1, s2, s3, s4, s5, s6, s7, s8),
                    DCFAB_OK
                );
                let t = r.stats();
                prop_assert_eq!(
                    s,
                    [
                        t.explored,
                        t.random,
                        t.recycled,
                        t.frozen,
                        t.acks_cached,
                        t.acks_marked,
                        t.freezes,
                        t.thaws,
                        t.failures_ignored
                    ]
                );
                let (mut nw, mut ls) = (0u64, 0u32);
                prop_assert_eq!(
                    [
                        dcfab_reps_now(raw as _, &mut nw),
                        dcfab_reps_lfsr_state(raw as _, &mut ls)
                    ],
                    [DCFAB_OK; 2]
                );
                prop_assert_eq!((nw, ls), (*now, rng.state()));
            }
        }
    }
    Ok(())
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let start_live = dcfab_live_handles();
    let mut w: Vec<Entry> = Vec::new();
    for op in ops {
        let n = w.len();
        let pick = |i: usize| if n == 0 { None } else { Some(i % n) };
        match *op {
            Op::New {
                kind,
                a,
                b,
                bad,
                flat,
            } => {
                let kind = KINDS[kind];
                let (raw, field, model) = new_block(kind, a, b, bad, flat);
                prop_assert_eq!(
                    raw != 0,
                    model.is_some(),
                    "{:?} {:?}: {}",
                    kind,
                    op,
                    last_error()
                );
                if let Some(f) = field.filter(|_| raw == 0) {
                    let e = last_error();
                    prop_assert!(e.contains(f), "error `{}` should name `{}`", e, f);
                }
                if raw != 0 {
                    w.push(Entry { kind, raw, model });
                }
            }
            Op::Free(i) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                let want = if e.model.is_some() {
                    DCFAB_OK
                } else {
                    DCFAB_ERR_BAD_HANDLE
                };
                prop_assert_eq!(free(e.kind, e.raw), want);
                e.model = None;
            }
            Op::Tick(i) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                let st = tick(e.kind, e.raw);
                let want = match &mut e.model {
                    None => DCFAB_ERR_BAD_HANDLE,
                    Some(Model::Tb(b)) => {
                        b.tick();
                        DCFAB_OK
                    }
                    Some(Model::Pq(q)) => {
                        q.tick();
                        DCFAB_OK
                    }
                    Some(Model::Red(r, _)) => {
                        r.tick();
                        DCFAB_OK
                    }
                    // The ABI stops a port at DCFAB_DCSIM_MAX_CYCLE.
                    Some(Model::Dcsim(a)) if a.now() >= DCFAB_DCSIM_MAX_CYCLE => DCFAB_ERR_ARG,
                    Some(Model::Dcsim(a)) => {
                        a.tick();
                        DCFAB_OK
                    }
                    Some(Model::Reps(_, _, now)) => match now.checked_add(1) {
                        Some(t) => {
                            *now = t;
                            DCFAB_OK
                        }
                        None => DCFAB_ERR_ARG,
                    },
                };
                prop_assert_eq!(st, want, "{}", last_error());
            }
            Op::Advance(i, c) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                let st = match e.kind {
                    Kind::Tb => dcfab_tb_advance(e.raw as _, c),
                    Kind::Pq => dcfab_pq_advance(e.raw as _, c),
                    Kind::Red => continue,
                    Kind::Dcsim => dcfab_dcsim_advance(e.raw as _, c),
                    Kind::Reps => dcfab_reps_advance(e.raw as _, c),
                };
                match &mut e.model {
                    None => prop_assert_eq!(st, DCFAB_ERR_BAD_HANDLE),
                    Some(Model::Tb(b)) => {
                        prop_assert_eq!(st, DCFAB_OK);
                        b.advance(c)
                    }
                    Some(Model::Pq(q)) => {
                        prop_assert_eq!(st, DCFAB_OK);
                        q.advance(c)
                    }
                    Some(Model::Dcsim(a)) => {
                        if c > DCFAB_DCSIM_MAX_CYCLE - a.now() {
                            prop_assert_eq!(st, DCFAB_ERR_ARG);
                        } else {
                            prop_assert_eq!(st, DCFAB_OK);
                            a.advance(c);
                        }
                    }
                    Some(Model::Reps(_, _, now)) => match now.checked_add(c) {
                        Some(t) => {
                            prop_assert_eq!(st, DCFAB_OK);
                            *now = t
                        }
                        None => prop_assert_eq!(st, DCFAB_ERR_ARG),
                    },
                    Some(Model::Red(..)) => unreachable!(),
                }
            }
            Op::Input(i, x, y) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                match &mut e.model {
                    Some(m) => input(e.raw, m, x, y)?,
                    None => prop_assert_eq!(read_null(e.kind, e.raw)[0], DCFAB_ERR_BAD_HANDLE),
                }
            }
            Op::Read(i, k) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                match &mut e.model {
                    Some(m) => read_all(e.raw, m, k)?,
                    None => prop_assert_eq!(read_one(e.kind, e.raw), DCFAB_ERR_BAD_HANDLE),
                }
            }
            Op::NullOut(i) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                let want = if e.model.is_some() {
                    DCFAB_ERR_NULL_POINTER
                } else {
                    DCFAB_ERR_BAD_HANDLE
                };
                let sts = read_null(e.kind, e.raw);
                prop_assert!(sts.iter().all(|&s| s == want), "{:?}: {:?}", e.kind, sts);
                // Nothing was consumed by the refused calls.
                if let Some(m) = &mut e.model {
                    read_all(e.raw, m, 1)?;
                }
            }
            Op::CrossKind(i, k) => {
                let Some(i) = pick(i) else { continue };
                let e = &w[i];
                let other = KINDS[k];
                let want = match (&e.model, other == e.kind) {
                    (None, _) => DCFAB_ERR_BAD_HANDLE,
                    (Some(_), false) => DCFAB_ERR_WRONG_KIND,
                    (Some(_), true) => continue,
                };
                prop_assert_eq!(read_one(other, e.raw), want);
                prop_assert_eq!(free(other, e.raw), want);
                if want == DCFAB_ERR_WRONG_KIND {
                    prop_assert!(last_error().contains("expected a"), "{}", last_error());
                }
            }
            Op::SetWord(i, word) => {
                let Some(i) = pick(i) else { continue };
                let e = &mut w[i];
                if e.kind != Kind::Reps {
                    continue;
                }
                let mut v7 = [0u32; 7];
                for (j, b) in word.iter().enumerate() {
                    v7[j / 4] |= (*b as u32) << (8 * (j % 4));
                }
                let (s25, s193) = unsafe {
                    (
                        dcfab_reps_set_word(e.raw as _, word.as_ptr()),
                        dcfab_reps_set_word193(e.raw as _, v7.as_ptr()),
                    )
                };
                match &mut e.model {
                    None => {
                        prop_assert_eq!((s25, s193), (DCFAB_ERR_BAD_HANDLE, DCFAB_ERR_BAD_HANDLE))
                    }
                    Some(Model::Reps(r, _, _)) => {
                        let want = r.set_word(word).map(|_| DCFAB_OK).unwrap_or(DCFAB_ERR_ARG);
                        prop_assert_eq!(s25, want, "{}", last_error());
                        // The 193-bit form drops the padding bits above bit 192.
                        let mut w193 = word;
                        w193[24] &= 1;
                        let want193 = r.set_word(w193).map(|_| DCFAB_OK).unwrap_or(DCFAB_ERR_ARG);
                        prop_assert_eq!(s193, want193, "{}", last_error());
                    }
                    Some(_) => unreachable!(),
                }
            }
            Op::Forged(v) => {
                if v == 0 || w.iter().any(|e| e.raw as u64 == v) {
                    continue;
                }
                for k in KINDS {
                    prop_assert_eq!(tick(k, v as usize), DCFAB_ERR_BAD_HANDLE);
                    prop_assert_eq!(free(k, v as usize), DCFAB_ERR_BAD_HANDLE);
                }
            }
            Op::NullHandle => {
                for k in KINDS {
                    prop_assert_eq!(tick(k, 0), DCFAB_ERR_NULL_HANDLE);
                    prop_assert_eq!(free(k, 0), DCFAB_ERR_NULL_HANDLE);
                    prop_assert_eq!(read_one(k, 0), DCFAB_ERR_NULL_HANDLE);
                }
            }
            Op::NullConfig(k) => {
                let p = unsafe {
                    match KINDS[k] {
                        Kind::Tb => dcfab_tb_new(null()) as usize,
                        Kind::Pq => dcfab_pq_new(null()) as usize,
                        Kind::Red => dcfab_red_new(null()) as usize,
                        Kind::Dcsim => dcfab_dcsim_new(null()) as usize,
                        Kind::Reps => dcfab_reps_new(null()) as usize,
                    }
                };
                prop_assert_eq!(p, 0);
                prop_assert!(last_error().contains("cfg"));
            }
        }
    }
    for e in &w {
        let want = if e.model.is_some() {
            DCFAB_OK
        } else {
            DCFAB_ERR_BAD_HANDLE
        };
        prop_assert_eq!(free(e.kind, e.raw), want);
        prop_assert_eq!(free(e.kind, e.raw), DCFAB_ERR_BAD_HANDLE);
    }
    prop_assert_eq!(dcfab_live_handles(), start_live);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn random_call_sequences_match_the_models(ops in prop::collection::vec(op(), 1..100)) {
        run(&ops)?;
    }
}
