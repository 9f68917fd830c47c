//! Property tests of REPS: buffer invariants, reuse limits, no random draw in freezing
//! mode, equivalence of the Table 1, compact and unpacked layouts, word round trips and
//! `advance(n)` == `n` idle ticks.

use std::collections::HashMap;

use nic::reps::{
    AckOutcome, EvChoice, Reps, RepsCompact16, RepsCompact5, RepsCompact8, RepsConfig, RepsEngine,
    RepsRepr, RepsState, RepsUnpacked, RepsWord, SendDecision,
};
use proptest::prelude::*;
use rtl_models::{Clocked, Cycles, Lfsr32, RandomSource};

/// Counts the draws of the wrapped source.
#[derive(Clone)]
struct Counting<R> {
    inner: R,
    draws: u64,
}
impl<R: RandomSource> RandomSource for Counting<R> {
    fn next_u32(&mut self) -> u32 {
        self.draws += 1;
        self.inner.next_u32()
    }
}
fn counting(seed: u32) -> Counting<Lfsr32> {
    Counting {
        inner: Lfsr32::new(seed),
        draws: 0,
    }
}

#[derive(Debug, Clone)]
enum Op {
    Send,
    Ack(u16, bool),
    Fail,
    Wait(u32),
    Carry(Vec<(u16, bool)>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => Just(Op::Send),
        4 => (any::<u16>(), prop::bool::weighted(0.3)).prop_map(|(e, m)| Op::Ack(e, m)),
        1 => Just(Op::Fail),
        2 => (0u32..1_500).prop_map(Op::Wait),
        1 => prop::collection::vec((any::<u16>(), prop::bool::weighted(0.3)), 0..6)
            .prop_map(Op::Carry),
    ]
}

fn config(ev_bits: u8) -> impl Strategy<Value = RepsConfig> {
    (0u32..=40, 0u32..2_000, prop::bool::weighted(0.85), 1u32..=3).prop_map(
        move |(num_pkts_cwnd, freezing_timeout_cycles, freezing, reuse)| RepsConfig {
            ev_bits,
            num_pkts_cwnd,
            freezing_timeout_cycles,
            freezing,
            reuse,
            timed_exit: false,
        },
    )
}

/// Start times: at 0, just below the 32-bit wrap, or anywhere in a u64 range.
fn start() -> impl Strategy<Value = Cycles> {
    prop_oneof![
        Just(0u64),
        (0u64..4_000).prop_map(|d| (1u64 << 32) - d),
        0u64..(1 << 50)
    ]
}

/// Everything one step produced.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Out {
    Sent(SendDecision),
    Acked(AckOutcome),
    Failed(bool),
    Carried(usize),
    Waited,
}

fn step<S: RepsState<8>, R: RandomSource>(
    e: &mut RepsEngine<S, 8>,
    op: &Op,
    now: &mut Cycles,
    rng: &mut R,
) -> Out {
    *now += 1;
    match op {
        Op::Send => Out::Sent(e.choose_ev(rng)),
        Op::Ack(ev, ecn) => Out::Acked(e.observe_ack(*now, *ev, *ecn)),
        Op::Fail => Out::Failed(e.observe_failure(*now)),
        Op::Wait(d) => {
            *now += *d as u64;
            Out::Waited
        }
        Op::Carry(c) => Out::Carried(e.on_coalesced_ack(*now, c)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// numberOfValidEVs never exceeds the buffer size, and every state reached is one
    /// `RepsRepr::check` accepts (valid EVs contiguous before head, EVs in range, ...).
    #[test]
    fn buffer_invariants_hold(cfg in config(16), t0 in start(), seed in any::<u32>(),
                              ops in prop::collection::vec(op(), 0..300)) {
        let mut r = Reps::new(cfg).unwrap();
        let mut rng = Lfsr32::new(seed);
        let mut now = t0;
        for o in &ops {
            step(&mut r, o, &mut now, &mut rng);
            prop_assert!(r.number_of_valid_evs() <= 8);
            prop_assert!(r.head() < 8);
            let w = r.word();
            prop_assert!(w[18] <= 8, "numberOfValidEVs byte {}", w[18]);
            prop_assert_eq!(r.repr().check(cfg.ev_bits), Ok(()));
        }
    }

    /// Outside freezing mode a cached EV is handed out at most `reuse` times (once for
    /// standard REPS); `Frozen` choices happen only in freezing mode.
    #[test]
    fn valid_evs_reused_at_most_reuse_times_outside_freezing(
        cfg in config(16), t0 in start(), seed in any::<u32>(),
        ops in prop::collection::vec(op(), 0..300)) {
        let mut r = Reps::new(cfg).unwrap();
        let mut rng = Lfsr32::new(seed);
        let mut now = t0;
        // Which cached instance each slot holds, and how often each was recycled.
        let mut slot_instance: [Option<u64>; 8] = [None; 8];
        let mut uses: HashMap<u64, u32> = HashMap::new();
        let mut next_id = 0u64;
        for o in &ops {
            let frozen_before = r.is_freezing();
            let acks: Vec<(u16, bool)> = match o {
                Op::Ack(e, m) => vec![(*e, *m)],
                Op::Carry(c) => c.clone(),
                _ => vec![],
            };
            if !acks.is_empty() {
                // Replay the ACKs one by one to see which slots they land in.
                for (e, m) in acks {
                    now += 1;
                    if let AckOutcome::Cached { slot, .. } = r.observe_ack(now, e, m) {
                        slot_instance[slot as usize] = Some(next_id);
                        next_id += 1;
                    }
                }
                continue;
            }
            if let Out::Sent(d) = step(&mut r, o, &mut now, &mut rng) {
                match d.choice {
                    EvChoice::Recycle => {
                        let id = slot_instance[d.slot.unwrap() as usize]
                            .expect("recycled a slot never written");
                        let n = uses.entry(id).or_default();
                        *n += 1;
                        prop_assert!(*n <= cfg.reuse, "instance {} used {} times", id, n);
                    }
                    EvChoice::Frozen => prop_assert!(frozen_before),
                    _ => {}
                }
            }
        }
    }

    /// In freezing mode (with a non-empty buffer) no random EV is ever drawn; in general a
    /// send draws exactly one random number iff its choice is random.
    #[test]
    fn no_random_draw_in_freezing_mode(cfg in config(16), t0 in start(), seed in any::<u32>(),
                                       ops in prop::collection::vec(op(), 0..300)) {
        let mut r = Reps::new(cfg).unwrap();
        let mut rng = counting(seed);
        let mut now = t0;
        for o in &ops {
            let frozen = r.is_freezing() && !r.is_empty();
            let before = rng.draws;
            let out = step(&mut r, o, &mut now, &mut rng);
            let drawn = rng.draws - before;
            match out {
                Out::Sent(d) => {
                    prop_assert_eq!(drawn, d.choice.is_random() as u64);
                    if frozen {
                        prop_assert_eq!(drawn, 0);
                        prop_assert!(matches!(d.choice, EvChoice::Recycle | EvChoice::Frozen));
                    }
                }
                _ => prop_assert_eq!(drawn, 0),
            }
        }
    }

    /// Section 3.2's timed exit (`timed_exit`): after any send or failure detection through
    /// the `LoadBalancer` hooks the connection is never still frozen past
    /// `exitFreezingMode`; without it those hooks are exactly Algorithm 2 / `ONFAILUREDETECTION`
    /// (same outputs and state as the direct calls).
    #[test]
    fn timed_exit_never_sends_frozen_past_the_exit_time(
        cfg in config(16), t0 in start(), seed in any::<u32>(),
        ops in prop::collection::vec(op(), 0..300)) {
        use nic::lb::LoadBalancer;
        use nic::reps::{cycles_after, nic_time};
        let mut timed = Reps::new(RepsConfig { timed_exit: true, ..cfg }).unwrap();
        let mut plain = Reps::new(cfg).unwrap();
        let mut direct = Reps::new(cfg).unwrap();
        let (mut r1, mut r2, mut r3) = (counting(seed), counting(seed), counting(seed));
        let mut now = t0;
        for o in &ops {
            now += 1;
            match o {
                Op::Send => {
                    timed.on_send(now, &mut r1);
                    prop_assert_eq!(plain.on_send(now, &mut r2), direct.choose_ev(&mut r3).ev);
                }
                Op::Fail => {
                    timed.on_failure_detection(now);
                    plain.on_failure_detection(now);
                    direct.observe_failure(now);
                }
                Op::Ack(ev, ecn) => {
                    timed.on_ack(now, *ev, *ecn);
                    plain.on_ack(now, *ev, *ecn);
                    direct.observe_ack(now, *ev, *ecn);
                }
                Op::Wait(d) => now += *d as u64,
                Op::Carry(c) => {
                    timed.on_coalesced_ack(now, c);
                    plain.on_coalesced_ack(now, c);
                    direct.on_coalesced_ack(now, c);
                }
            }
            if matches!(o, Op::Send | Op::Fail) {
                prop_assert!(
                    !(timed.is_freezing()
                        && cycles_after(nic_time(now), timed.exit_freezing_mode())),
                    "frozen past exitFreezingMode after {:?}", o
                );
            }
            prop_assert_eq!(plain.word(), direct.word());
        }
    }

    /// The Table 1 word, the compact word and the unpacked repr behave identically: same
    /// inputs, same RNG, every output and the logical state compared after every step.
    #[test]
    fn compact_and_unpacked_match_table_1(cfg in config(16), t0 in start(), seed in any::<u32>(),
                                          ops in prop::collection::vec(op(), 0..300)) {
        let mut a = Reps::new(cfg).unwrap();
        let mut b = RepsCompact16::new(cfg).unwrap();
        let mut c = RepsUnpacked::new(cfg).unwrap();
        let (mut ra, mut rb, mut rc) = (counting(seed), counting(seed), counting(seed));
        let (mut ta, mut tb, mut tc) = (t0, t0, t0);
        for o in &ops {
            let oa = step(&mut a, o, &mut ta, &mut ra);
            let ob = step(&mut b, o, &mut tb, &mut rb);
            let oc = step(&mut c, o, &mut tc, &mut rc);
            prop_assert_eq!(&oa, &ob);
            prop_assert_eq!(&oa, &oc);
            prop_assert_eq!(a.repr(), b.repr());
            prop_assert_eq!(a.repr(), c.repr());
            prop_assert_eq!(ra.draws, rb.draws);
            prop_assert_eq!(a.stats(), b.stats());
        }
    }

    /// Same with 8-bit and 5-bit EVs against the matching compact words.
    #[test]
    fn narrow_compact_words_match_table_1(cfg8 in config(8), seed in any::<u32>(),
                                          ops in prop::collection::vec(op(), 0..200)) {
        let cfg5 = RepsConfig { ev_bits: 5, ..cfg8 };
        let mut a8 = Reps::new(cfg8).unwrap();
        let mut b8 = RepsCompact8::new(cfg8).unwrap();
        let mut a5 = Reps::new(cfg5).unwrap();
        let mut b5 = RepsCompact5::new(cfg5).unwrap();
        let mut rngs = [Lfsr32::new(seed); 4];
        let mut ts = [0u64; 4];
        for o in &ops {
            let [r0, r1, r2, r3] = &mut rngs;
            let [t0, t1, t2, t3] = &mut ts;
            let o8 = step(&mut a8, o, t0, r0);
            prop_assert_eq!(&o8, &step(&mut b8, o, t1, r1));
            let o5 = step(&mut a5, o, t2, r2);
            prop_assert_eq!(&o5, &step(&mut b5, o, t3, r3));
            if let Out::Sent(d) = o5 {
                prop_assert!(d.ev < 32);
            }
            prop_assert_eq!(a8.repr(), b8.repr());
            prop_assert_eq!(a5.repr(), b5.repr());
        }
    }

    /// `set_word(word())` is the identity on every reachable state, for both layouts.
    #[test]
    fn word_round_trips_on_reachable_states(cfg in config(16), seed in any::<u32>(),
                                            ops in prop::collection::vec(op(), 0..120)) {
        let mut r = Reps::new(cfg).unwrap();
        let mut k = RepsCompact16::new(cfg).unwrap();
        let mut rng = Lfsr32::new(seed);
        let mut now = 0;
        for o in &ops {
            step(&mut r, o, &mut now, &mut rng);
            let mut s = Reps::new(cfg).unwrap();
            prop_assert_eq!(s.set_word(r.word()), Ok(()));
            prop_assert_eq!(s.word(), r.word());
            prop_assert_eq!(k.set_repr(&r.repr()), Ok(()));
            let mut k2 = RepsCompact16::new(cfg).unwrap();
            prop_assert_eq!(k2.set_word(k.word()), Ok(()));
            prop_assert_eq!(k2.repr(), r.repr());
        }
    }

    /// `advance(n)` equals `n` idle `tick()`s, and both leave behaviour unchanged.
    #[test]
    fn advance_equals_idle_ticks(cfg in config(16), seed in any::<u32>(), n in 0u64..300,
                                 pre in prop::collection::vec(op(), 0..60),
                                 post in prop::collection::vec(op(), 0..60)) {
        let mut a = Reps::new(cfg).unwrap();
        let mut rng = Lfsr32::new(seed);
        let mut now = 0;
        for o in &pre {
            step(&mut a, o, &mut now, &mut rng);
        }
        let mut b = rtl_models::testing::assert_advance_eq_ticks(&a, n);
        a.advance(n);
        let (mut ra, mut rb) = (rng, rng);
        let (mut ta, mut tb) = (now + n, now + n);
        for o in &post {
            prop_assert_eq!(step(&mut a, o, &mut ta, &mut ra), step(&mut b, o, &mut tb, &mut rb));
        }
        prop_assert_eq!(a.word(), b.word());
    }

    /// `RepsRepr::parse` / `emit` round-trip on every well-encoded word ...
    #[test]
    fn parse_emit_round_trip_bytes(mut bytes in prop::array::uniform25(any::<u8>()),
                                   n in 0u8..=8) {
        bytes[17] &= 0x87; // reserved head bits clear
        bytes[18] = n;
        bytes[24] &= 0x01; // padding clear
        let r = RepsRepr::parse(&RepsWord::new_unchecked(bytes)).unwrap();
        prop_assert_eq!(r.to_word(), bytes);
    }

    /// ... and on every encodable repr.
    #[test]
    fn emit_parse_round_trip_repr(ev in prop::array::uniform8(any::<u16>()),
                                  valid in prop::array::uniform8(any::<bool>()),
                                  head in 0u8..8, n in 0u8..=8, exit in any::<u32>(),
                                  frozen in any::<bool>(), explore in any::<u8>(),
                                  empty in any::<bool>()) {
        let r = RepsRepr::<8> {
            cached_ev: ev,
            is_valid: valid,
            head,
            number_of_valid_evs: n,
            exit_freezing_mode: exit,
            is_freezing_mode: frozen,
            explore_counter: explore,
            is_empty: empty,
        };
        let w = r.to_word();
        prop_assert_eq!(RepsRepr::parse(&RepsWord::new_unchecked(w)), Ok(r));
    }
}
