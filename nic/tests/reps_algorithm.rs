//! Scripted tests of REPS Algorithms 1 and 2, one behaviour per test, on the Table 1 word.

use nic::lb::LoadBalancer;
use nic::reps::{
    AckOutcome, EvChoice, Reps, RepsCompact5, RepsCompact8, RepsConfig, RepsRepr, RepsWordError,
    SendDecision,
};
use rtl_models::{Clocked, Lfsr32, RandomSource};

/// Returns 0x1000_0000 + k on the k-th draw and counts draws.
#[derive(Default)]
struct SeqRng {
    draws: u32,
}
impl RandomSource for SeqRng {
    fn next_u32(&mut self) -> u32 {
        self.draws += 1;
        0xABC0_0000 + self.draws
    }
}

fn cfg() -> RepsConfig {
    RepsConfig {
        num_pkts_cwnd: 20,
        freezing_timeout_cycles: 1_000,
        ..RepsConfig::DEFAULT
    }
}

fn send(r: &mut Reps, rng: &mut SeqRng) -> SendDecision {
    r.choose_ev(rng)
}

#[test]
fn warm_up_explores_at_random_like_ops() {
    // A1 L1-3 / A2 L19-20: an empty buffer draws a random EV for every packet.
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    assert!(r.is_empty());
    for k in 1..=10u32 {
        let d = send(&mut r, &mut rng);
        assert_eq!(d.choice, EvChoice::Random);
        assert_eq!(d.ev, (0xABC0_0000u32 + k) as u16);
        assert_eq!(d.slot, None);
    }
    assert_eq!(rng.draws, 10);
    assert_eq!(r.word(), [0u8; 25], "sending alone changes no state");
}

#[test]
fn caches_unmarked_ignores_marked_and_reuses_oldest_first() {
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    // A1 L6-7: a marked ACK is ignored.
    assert_eq!(r.observe_ack(10, 0x1111, true), AckOutcome::Marked);
    assert!(r.is_empty());
    // A1 L9-14: unmarked ACKs are cached at head.
    for (i, ev) in [0x2222u16, 0x3333, 0x4444].into_iter().enumerate() {
        assert_eq!(
            r.observe_ack(20 + i as u64, ev, false),
            AckOutcome::Cached {
                slot: i as u8,
                exited_freezing: false
            }
        );
    }
    assert_eq!(r.observe_ack(30, 0x5555, true), AckOutcome::Marked);
    assert_eq!((r.head(), r.number_of_valid_evs()), (3, 3));
    // A2 L3-6: the oldest valid EV first, each once.
    let got: Vec<(u16, EvChoice, Option<u8>)> = (0..3)
        .map(|_| {
            let d = send(&mut r, &mut rng);
            (d.ev, d.choice, d.slot)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (0x2222, EvChoice::Recycle, Some(0)),
            (0x3333, EvChoice::Recycle, Some(1)),
            (0x4444, EvChoice::Recycle, Some(2)),
        ]
    );
    assert_eq!(rng.draws, 0);
    // A2 L19-20: no valid EV left and not freezing: random again.
    assert_eq!(send(&mut r, &mut rng).choice, EvChoice::Random);
    assert_eq!(rng.draws, 1);
    assert!((0..8).all(|i| !r.is_valid(i)));
}

#[test]
fn buffer_wraps_and_overwrites_the_oldest_entry() {
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    for k in 0..10u16 {
        r.observe_ack(k as u64, 0x100 + k, false);
    }
    // 10 ACKs into 8 slots: numberOfValidEVs saturates at 8 (A1 L9 only counts an
    // invalid slot), head wrapped to 2, slots 0 and 1 overwritten by EVs 8 and 9.
    assert_eq!(r.number_of_valid_evs(), 8);
    assert_eq!(r.head(), 2);
    assert_eq!(r.cached_ev(0), 0x108);
    assert_eq!(r.cached_ev(1), 0x109);
    // Oldest valid is at (head - 8) % 8 = slot 2 (EV 0x102).
    let evs: Vec<u16> = (0..8).map(|_| send(&mut r, &mut rng).ev).collect();
    assert_eq!(evs, (2..10).map(|k| 0x100 + k).collect::<Vec<u16>>());
    assert_eq!(rng.draws, 0);
}

#[test]
fn freezing_reuses_invalid_entries_round_robin_without_drawing() {
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    for ev in [0xA, 0xB, 0xC] {
        r.observe_ack(0, ev, false);
    }
    for _ in 0..3 {
        send(&mut r, &mut rng); // consume all three valid EVs
    }
    // A1 L22-24: enter freezing mode at cycle 500 until 1500.
    assert!(r.observe_failure(500));
    assert!(r.is_freezing());
    assert_eq!(r.exit_freezing_mode(), 1_500);
    // A1 L22: a second detection while frozen changes nothing.
    assert!(!r.observe_failure(600));
    assert_eq!(r.exit_freezing_mode(), 1_500);
    // A2 L7-9: offset = head, head++ — cycling over all 8 slots, valid or not; the slots
    // never written since reset hold EV 0.
    let got: Vec<(u16, Option<u8>)> = (0..10)
        .map(|_| {
            let d = send(&mut r, &mut rng);
            assert_eq!(d.choice, EvChoice::Frozen);
            (d.ev, d.slot)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (0, Some(3)),
            (0, Some(4)),
            (0, Some(5)),
            (0, Some(6)),
            (0, Some(7)),
            (0xA, Some(0)),
            (0xB, Some(1)),
            (0xC, Some(2)),
            (0, Some(3)),
            (0, Some(4)),
        ]
    );
    assert_eq!(rng.draws, 0, "no random EV in freezing mode");
    // A fresh ACK while frozen is valid and is used before the round robin (A2 L3).
    assert_eq!(
        r.observe_ack(1_000, 0xD, false),
        AckOutcome::Cached {
            slot: 5,
            exited_freezing: false
        }
    );
    let d = send(&mut r, &mut rng);
    assert_eq!((d.ev, d.choice, d.slot), (0xD, EvChoice::Recycle, Some(5)));
    assert_eq!(rng.draws, 0);
}

#[test]
fn exit_after_timeout_then_explore_one_in_eight() {
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    r.observe_ack(0, 0x77, false);
    assert!(r.observe_failure(100)); // exit at 1100
                                     // A1 L15: strictly after exitFreezingMode.
    assert_eq!(
        r.observe_ack(1_100, 0x78, false),
        AckOutcome::Cached {
            slot: 1,
            exited_freezing: false
        }
    );
    assert!(r.is_freezing());
    // A marked ACK never ends freezing (A1 L6-7 return first).
    assert_eq!(r.observe_ack(5_000, 0x79, true), AckOutcome::Marked);
    assert!(r.is_freezing());
    assert_eq!(
        r.observe_ack(1_101, 0x7A, false),
        AckOutcome::Cached {
            slot: 2,
            exited_freezing: true
        }
    );
    // A1 L16-17.
    assert!(!r.is_freezing());
    assert_eq!(r.explore_counter(), 20);
    // A1 L22: no freezing while exploring.
    assert!(!r.observe_failure(1_200));
    // A2 L15-17: counter 20 -> 19 ... the packets that leave it at 16, 8 and 0 explore.
    let mut explore_at = vec![];
    for i in 0..20 {
        // One fresh ACK per packet keeps a valid EV available for the non-explore packets.
        r.observe_ack(2_000 + i, 0x200 + i as u16, false);
        let d = send(&mut r, &mut rng);
        if d.choice == EvChoice::Explore {
            explore_at.push(r.explore_counter());
        } else {
            assert_eq!(d.choice, EvChoice::Recycle);
        }
    }
    assert_eq!(explore_at, vec![16, 8, 0]);
    assert_eq!(rng.draws, 3);
    assert_eq!(r.explore_counter(), 0);
    // Exploration over: failure detection works again.
    assert!(r.observe_failure(3_000));
}

#[test]
fn exploring_with_an_empty_window_still_draws_at_random() {
    // Fall-through of A2 L15-18 into L19-20: no valid EV and not freezing -> random.
    let mut r = Reps::new(RepsConfig {
        num_pkts_cwnd: 3,
        ..cfg()
    })
    .unwrap();
    let mut rng = SeqRng::default();
    r.observe_ack(0, 1, false);
    send(&mut r, &mut rng);
    assert!(r.observe_failure(0));
    r.observe_ack(2_000, 2, false); // exits, exploreCounter = 3
    let choices: Vec<EvChoice> = (0..4).map(|_| send(&mut r, &mut rng).choice).collect();
    // 3->2: recycles EV 2; 2->1: nothing valid -> random; 1->0: explore; then random.
    assert_eq!(
        choices,
        vec![
            EvChoice::Recycle,
            EvChoice::Random,
            EvChoice::Explore,
            EvChoice::Random
        ]
    );
}

#[test]
fn freezing_with_an_empty_buffer_draws_at_random() {
    // A2 L19: repsBuffer.isEmpty() wins even in freezing mode.
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    assert!(r.observe_failure(0));
    assert_eq!(send(&mut r, &mut rng).choice, EvChoice::Random);
    assert_eq!(rng.draws, 1);
}

#[test]
fn exit_freezing_mode_wraps_around_32_bits() {
    let mut r = Reps::new(cfg()).unwrap();
    r.observe_ack(0, 5, false);
    let enter: u64 = (1 << 32) - 300; // 2^32 - 300 cycles
    assert!(r.observe_failure(enter));
    assert_eq!(r.exit_freezing_mode(), 700); // (2^32 - 300 + 1000) mod 2^32
                                             // Before the deadline, on both sides of the 2^32 wrap: still frozen.
    r.observe_ack(enter + 200, 6, false);
    assert!(r.is_freezing());
    r.observe_ack((1 << 32) + 700, 7, false);
    assert!(r.is_freezing());
    // One cycle after: thawed (a plain `now32 > exit` would have thawed at enter + 200).
    r.observe_ack((1 << 32) + 701, 8, false);
    assert!(!r.is_freezing());
    // Far past 2^32 (u64 cycle counts) works the same.
    let mut r = Reps::new(cfg()).unwrap();
    r.observe_ack(0, 5, false);
    let t = 7u64 << 40;
    assert!(r.observe_failure(t));
    r.observe_ack(t + 1_000, 6, false);
    assert!(r.is_freezing());
    r.observe_ack(t + 1_001, 6, false);
    assert!(!r.is_freezing());
}

#[test]
fn freezing_can_be_disabled() {
    // Appendix C.4: REPS without freezing mode.
    let mut r = Reps::new(RepsConfig {
        freezing: false,
        ..cfg()
    })
    .unwrap();
    assert!(!r.observe_failure(0));
    assert!(!r.is_freezing());
    assert_eq!(r.stats().failures_ignored, 1);
}

#[test]
fn narrow_evs_use_the_low_bits() {
    for bits in [8u8, 5] {
        let mut r = Reps::new(RepsConfig {
            ev_bits: bits,
            ..cfg()
        })
        .unwrap();
        let mut rng = SeqRng::default();
        let mask = (1u16 << bits) - 1;
        let d = send(&mut r, &mut rng);
        assert_eq!(d.ev, ((0xABC0_0000u32 + 1) as u16) & mask);
        // An ACK EV wider than the EV field is truncated to it.
        r.observe_ack(0, 0xFFFF, false);
        assert_eq!(r.cached_ev(0), mask);
        assert_eq!(send(&mut r, &mut rng).ev, mask);
    }
    // The compact layouts with the matching widths accept them ...
    assert!(RepsCompact8::new(RepsConfig {
        ev_bits: 8,
        ..cfg()
    })
    .is_ok());
    assert!(RepsCompact5::new(RepsConfig {
        ev_bits: 5,
        ..cfg()
    })
    .is_ok());
    // ... and reject a wider configuration by field name.
    assert_eq!(
        RepsCompact5::new(RepsConfig {
            ev_bits: 8,
            ..cfg()
        })
        .unwrap_err()
        .field,
        "ev_bits"
    );
}

#[test]
fn word_set_word_round_trip_and_rejections() {
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = Lfsr32::new(9);
    for k in 0..5u16 {
        r.observe_ack(k as u64, 0x4000 + k, k == 3);
        r.choose_ev(&mut rng);
    }
    r.observe_ack(9, 0x4100, false);
    r.observe_ack(9, 0x4101, false);
    r.observe_failure(10);
    let w = r.word();
    let mut s = Reps::new(cfg()).unwrap();
    s.set_word(w).unwrap();
    assert_eq!(s.repr(), r.repr());
    assert_eq!(s.word(), w);

    // numberOfValidEVs > 8 is rejected and leaves the state unchanged.
    let mut bad = w;
    bad[18] = 9;
    assert_eq!(
        s.set_word(bad),
        Err(RepsWordError::Field {
            field: "numberOfValidEVs",
            problem: "exceeds REPS_BUFFER_SIZE (8)"
        })
    );
    assert_eq!(s.word(), w);
    // A valid bit outside the window before head.
    let mut bad = w;
    bad[16] ^= 1 << ((r.head() + 2) % 8);
    assert!(matches!(
        s.set_word(bad),
        Err(RepsWordError::Field {
            field: "isValid",
            ..
        })
    ));
    // A 16-bit EV in a 5-bit configuration.
    let mut narrow = Reps::new(RepsConfig {
        ev_bits: 5,
        ..cfg()
    })
    .unwrap();
    assert!(matches!(
        narrow.set_word(w),
        Err(RepsWordError::Field {
            field: "cachedEV",
            ..
        })
    ));
    // Frozen while exploring is unreachable (A1 L22).
    let mut rep = RepsRepr::<8>::new();
    rep.is_freezing_mode = true;
    rep.explore_counter = 1;
    assert!(matches!(
        s.set_repr(&rep),
        Err(RepsWordError::Field {
            field: "exploreCounter",
            ..
        })
    ));
}

#[test]
fn config_errors_name_the_field() {
    let e = Reps::new(RepsConfig {
        num_pkts_cwnd: 1_000,
        ..cfg()
    })
    .unwrap_err();
    assert_eq!(e.field, "num_pkts_cwnd");
    let e = Reps::new(RepsConfig {
        ev_bits: 0,
        ..cfg()
    })
    .unwrap_err();
    assert_eq!(e.field, "ev_bits");
}

/// The fabric drives REPS through the `LoadBalancer` trait, beside ECMP and OPS.
fn drive<L: LoadBalancer, R: RandomSource>(lb: &mut L, rng: &mut R) -> Vec<u16> {
    let mut evs = vec![];
    for t in 0..6u64 {
        let ev = lb.on_send(t, rng);
        lb.on_ack(t, ev, t % 3 == 2);
        evs.push(ev);
    }
    lb.on_failure_detection(10);
    evs.push(lb.on_send(11, rng));
    evs
}

#[test]
fn works_through_the_load_balancer_trait() {
    let mut r = Reps::new(cfg()).unwrap();
    let mut rng = SeqRng::default();
    let evs = drive(&mut r, &mut rng);
    // t0: empty -> random r1, cached in slot 0; t1: recycles r1, re-cached in slot 1;
    // t2: recycles r1 (slot 1), its ACK is marked; t3: nothing valid -> random r2, cached;
    // t4: recycles r2, re-cached; t5: recycles r2, marked. Failure at 10 freezes; t11:
    // frozen with no valid EV -> slot head = 4, never written since reset: EV 0.
    let (r1, r2) = ((0xABC0_0000u32 + 1) as u16, (0xABC0_0000u32 + 2) as u16);
    assert_eq!(evs, vec![r1, r1, r1, r2, r2, r2, 0]);
    assert!(r.is_freezing());
    assert_eq!(rng.draws, 2);
    assert_eq!(r.stats().acks_marked, 2);
}

#[test]
fn idle_cycles_change_nothing() {
    let mut r = Reps::new(cfg()).unwrap();
    r.observe_ack(0, 3, false);
    let before = r.clone();
    r.tick();
    r.advance(1 << 40);
    assert_eq!(r, before);
}

/// Section 3.2's timed exit (`RepsConfig::timed_exit`): a connection frozen with every
/// cached EV on a dead path receives no ACK, so Algorithm 1's exit (L15, in `ONACK` only)
/// never runs and it keeps reusing the dead EVs; with the timed exit the first send after
/// `exitFreezingMode` thaws it (L16-17 without an ACK) and it explores again.
#[test]
fn timed_exit_thaws_on_send_without_an_ack() {
    for timed in [false, true] {
        let mut r = Reps::new(RepsConfig {
            timed_exit: timed,
            ..cfg()
        })
        .unwrap();
        let mut rng = SeqRng::default();
        // Eight EVs cached (all on paths that die next), used up, then a failure.
        let dead = |e: u16| (0x0D00..0x0D08).contains(&e);
        for k in 0..8u16 {
            r.observe_ack(10 + u64::from(k), 0x0D00 + k, false);
        }
        for _ in 0..8 {
            send(&mut r, &mut rng);
        }
        r.on_failure_detection(100);
        assert!(r.is_freezing());
        // Before exitFreezingMode (100 + 1000) nothing changes either way: frozen reuse.
        let ev = r.on_send(1_100, &mut rng);
        assert!(dead(ev), "frozen reuse, got {ev:#x}");
        assert!(r.is_freezing());
        // After it, with no ACK in between.
        let draws = rng.draws;
        let evs: Vec<u16> = (0..16).map(|k| r.on_send(1_101 + k, &mut rng)).collect();
        if timed {
            assert!(!r.is_freezing(), "timed exit thaws on send");
            assert_eq!(r.stats().thaws, 1);
            // Thawed with exploreCounter = NUM_PKTS_CWND and no valid EV: every packet is
            // a random draw (A2 L17 or L20), none of them a dead cached EV.
            assert_eq!(rng.draws - draws, 16);
            assert!(evs.iter().all(|&e| !dead(e)), "{evs:x?}");
        } else {
            assert!(
                r.is_freezing(),
                "Algorithm 1 as printed: stuck until an ACK"
            );
            assert_eq!(r.stats().thaws, 0);
            assert_eq!(rng.draws, draws, "no draw while frozen");
            assert!(evs.iter().all(|&e| dead(e)), "{evs:x?}");
        }
    }
}

/// The timed exit is also checked on a failure detection: a detection after
/// `exitFreezingMode` first thaws (exploreCounter = NUM_PKTS_CWND), so A1 L22 does not
/// re-freeze until that exploration has been spent ("re-enter the mode shortly afterward").
#[test]
fn timed_exit_is_checked_on_failure_detection() {
    let mut r = Reps::new(RepsConfig {
        timed_exit: true,
        ..cfg()
    })
    .unwrap();
    let mut rng = SeqRng::default();
    r.observe_ack(10, 0x0D01, false);
    r.on_failure_detection(100);
    assert!(r.is_freezing());
    // A detection before the exit time changes nothing (already freezing).
    r.on_failure_detection(500);
    assert!(r.is_freezing());
    assert_eq!(r.exit_freezing_mode(), 1_100);
    // After it: thawed, explore counter loaded, the detection ignored (A1 L22 false).
    r.on_failure_detection(1_200);
    assert!(!r.is_freezing());
    assert_eq!(r.explore_counter(), 20);
    assert_eq!(r.stats().freezes, 1);
    // Once the 20 exploring packets are out, the next detection freezes again.
    for k in 0..20 {
        r.on_send(1_300 + k, &mut rng);
    }
    assert_eq!(r.explore_counter(), 0);
    r.on_failure_detection(1_400);
    assert!(r.is_freezing());
    assert_eq!(r.stats().freezes, 2);
    assert_eq!(r.exit_freezing_mode(), 2_400);
}
