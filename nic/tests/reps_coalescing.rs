//! ACK coalescing variants of REPS section 4.5.1 with a coalescing ratio n = 4:1.
//!
//! Every group of 4 DATA packets is acknowledged by one ACK; the receiver saw packet 1 of
//! each group ECN-marked. Three senders:
//!
//! * plain coalescing: the ACK echoes the EV and mark of the packet that triggered it (the
//!   last of the group) — standard REPS sees one EV per 4 packets;
//! * ACK+Carry EVs: the ACK returns every unmarked EV it covers ([`Reps::on_coalesced_ack`]);
//! * ACK+Reuse EVs: plain ACK, but each cached EV is reused n times (`RepsConfig::reuse`).

use nic::reps::{EvChoice, Reps, RepsConfig};
use rtl_models::Lfsr32;

const N: usize = 4;
const GROUPS: usize = 10;
const MARKED: usize = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Plain,
    Carry,
    Reuse,
}

struct Run {
    random: usize,
    recycled: usize,
    /// EVs handed out by recycling, in order.
    recycled_evs: Vec<u16>,
    /// (EV, choice) of every packet, per group.
    groups: Vec<[(u16, EvChoice); N]>,
}

fn run(v: Variant) -> Run {
    let cfg = RepsConfig {
        reuse: if v == Variant::Reuse { N as u32 } else { 1 },
        timed_exit: false,
        ..RepsConfig::DEFAULT
    };
    let mut r = Reps::new(cfg).unwrap();
    let mut rng = Lfsr32::new(42);
    let mut out = Run {
        random: 0,
        recycled: 0,
        recycled_evs: vec![],
        groups: vec![],
    };
    let mut now = 0u64;
    for g in 0..GROUPS {
        let mut group = [(0u16, false); N];
        let mut chosen = [(0u16, EvChoice::Random); N];
        for (i, slot) in group.iter_mut().enumerate() {
            let d = r.choose_ev(&mut rng);
            // The first group is warm-up (empty buffer); count the steady state only.
            if g > 0 {
                match d.choice {
                    EvChoice::Random => out.random += 1,
                    EvChoice::Recycle => {
                        out.recycled += 1;
                        out.recycled_evs.push(d.ev);
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
            *slot = (d.ev, i == MARKED);
            chosen[i] = (d.ev, d.choice);
        }
        out.groups.push(chosen);
        now += 1_000;
        match v {
            Variant::Plain | Variant::Reuse => {
                let (ev, ecn) = group[N - 1];
                r.observe_ack(now, ev, ecn);
            }
            Variant::Carry => {
                let cached = r.on_coalesced_ack(now, &group);
                assert_eq!(cached, N - 1, "one of the four was marked");
            }
        }
    }
    out
}

#[test]
fn carry_and_reuse_recycle_more_than_plain_coalescing() {
    let steady = (GROUPS - 1) * N;
    let plain = run(Variant::Plain);
    let carry = run(Variant::Carry);
    let reuse = run(Variant::Reuse);
    // Plain: one EV per ACK -> 1 recycled + 3 random per group.
    assert_eq!(
        (plain.recycled, plain.random),
        (GROUPS - 1, 3 * (GROUPS - 1))
    );
    // Carry: the 3 unmarked EVs per ACK -> 3 recycled + 1 random per group.
    assert_eq!(
        (carry.recycled, carry.random),
        (3 * (GROUPS - 1), GROUPS - 1)
    );
    // Reuse: one EV per ACK used n = 4 times -> no random EV at all.
    assert_eq!((reuse.recycled, reuse.random), (steady, 0));
    for r in [&plain, &carry, &reuse] {
        assert_eq!(r.recycled + r.random, steady);
    }
}

#[test]
fn carry_recycles_exactly_the_unmarked_evs_of_the_previous_ack() {
    let carry = run(Variant::Carry);
    // Group g >= 1 recycles, in order, the three unmarked EVs the ACK of group g - 1
    // carried (packets 0, 2, 3); packet 3 of group g draws at random.
    for g in 1..GROUPS {
        let prev = &carry.groups[g - 1];
        let want: Vec<u16> = prev
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != MARKED)
            .map(|(_, &(ev, _))| ev)
            .collect();
        let got: Vec<u16> = carry.groups[g][..N - 1].iter().map(|&(ev, _)| ev).collect();
        assert_eq!(got, want, "group {g}");
        assert!(carry.groups[g][..N - 1]
            .iter()
            .all(|&(_, c)| c == EvChoice::Recycle));
        assert_eq!(carry.groups[g][N - 1].1, EvChoice::Random);
    }
}

#[test]
fn reuse_hands_each_ev_out_n_times_in_a_row() {
    let reuse = run(Variant::Reuse);
    for chunk in reuse.recycled_evs.chunks(N) {
        assert!(chunk.iter().all(|&e| e == chunk[0]), "{chunk:?}");
    }
    assert_eq!(reuse.recycled_evs.len(), (GROUPS - 1) * N);
}

#[test]
fn carry_keeps_order_and_counts_only_unmarked() {
    let mut r = Reps::new(RepsConfig::DEFAULT).unwrap();
    let n = r.on_coalesced_ack(5, &[(10, false), (11, true), (12, false), (13, true)]);
    assert_eq!(n, 2);
    assert_eq!(r.number_of_valid_evs(), 2);
    assert_eq!((r.cached_ev(0), r.cached_ev(1)), (10, 12));
    let mut rng = Lfsr32::new(1);
    assert_eq!(r.choose_ev(&mut rng).ev, 10);
    assert_eq!(r.choose_ev(&mut rng).ev, 12);
    assert_eq!(r.choose_ev(&mut rng).choice, EvChoice::Random);
    // An empty carry list changes nothing.
    let w = r.word();
    assert_eq!(r.on_coalesced_ack(6, &[]), 0);
    assert_eq!(r.word(), w);
}

#[test]
fn reuse_lifetime_is_reset_when_the_slot_is_rewritten() {
    let mut r = Reps::new(RepsConfig {
        reuse: 3,
        timed_exit: false,
        ..RepsConfig::DEFAULT
    })
    .unwrap();
    let mut rng = Lfsr32::new(3);
    r.observe_ack(0, 0x55, false);
    assert_eq!(r.uses_left(0), 3);
    assert_eq!(r.choose_ev(&mut rng).ev, 0x55);
    assert_eq!(r.uses_left(0), 2);
    assert!(r.is_valid(0));
    assert_eq!(r.choose_ev(&mut rng).ev, 0x55);
    assert_eq!(r.choose_ev(&mut rng).ev, 0x55);
    assert!(!r.is_valid(0));
    assert_eq!(r.uses_left(0), 0);
    assert_eq!(r.choose_ev(&mut rng).choice, EvChoice::Random);
    // Side state of the Reuse variant: 8 x 2 bits beside the Table 1 word.
    assert_eq!(r.config().reuse_extra_bits(8), 16);
}
