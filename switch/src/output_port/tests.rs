extern crate std;
use std::vec::Vec;

use super::*;
use proptest::prelude::*;
use rtl_models::Rate;

/// 400 Gb/s at 1 GHz.
const LINE: u32 = 50;

fn ecn_ctl(buffer: u64, kmin: u64, kmax: u64) -> OutputPortCtl {
    OutputPortCtl::new(PortConfig {
        ecn: Some(RedConfig::linear(kmin, kmax)),
        ..PortConfig::tail_drop(buffer)
    })
    .unwrap()
}

#[test]
fn tail_drop_and_counters() {
    let mut rng = Lfsr32::new(1);
    let mut c = OutputPortCtl::new(PortConfig::tail_drop(10_000)).unwrap();
    for _ in 0..2 {
        assert_eq!(
            c.on_arrival(0, 4096, &mut rng),
            Admit::Enqueue { ecn_mark: false }
        );
    }
    assert_eq!(c.on_arrival(0, 4096, &mut rng), Admit::Drop);
    assert_eq!(
        c.on_arrival(0, 1808, &mut rng),
        Admit::Enqueue { ecn_mark: false }
    );
    assert_eq!((c.occupancy_bytes(), c.occupancy_pkts()), (10_000, 3));
    assert_eq!(c.on_arrival(0, 1, &mut rng), Admit::Drop);
    c.on_departure(4096);
    assert_eq!(
        (c.occupancy_bytes(), c.occupancy_pkts()),
        (10_000 - 4096, 2)
    );
    assert_eq!((c.drops(), c.trims(), c.marks()), (2, 0, 0));
    assert_eq!(c.phantom_bytes(5), None);
}

#[test]
fn trimming_replaces_drops() {
    let mut rng = Lfsr32::new(1);
    let cfg = PortConfig {
        trimming: true,
        header_bytes: 64,
        ..PortConfig::tail_drop(5000)
    };
    let mut c = OutputPortCtl::new(cfg).unwrap();
    assert_eq!(
        c.on_arrival(0, 4096, &mut rng),
        Admit::Enqueue { ecn_mark: false }
    );
    assert_eq!(c.on_arrival(0, 4096, &mut rng), Admit::Trim);
    assert_eq!((c.drops(), c.trims()), (0, 1));
    assert_eq!(c.trimmed_size(4096), 64);
    assert_eq!(c.trimmed_size(40), 40);
    assert_eq!(c.config(), cfg);
}

#[test]
fn red_marks_on_real_queue() {
    let mut rng = Lfsr32::new(9);
    let mut c = ecn_ctl(100_000, 20_000, 20_000); // DCTCP step at 20 KB
    let mut marks = 0;
    for i in 0..10u64 {
        let before = c.occupancy_bytes();
        match c.on_arrival(i, 4000, &mut rng) {
            Admit::Enqueue { ecn_mark } => {
                assert_eq!(ecn_mark, before >= 20_000, "occupancy {before}");
                marks += ecn_mark as u64;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(marks, 5);
    assert_eq!(c.marks(), 5);
}

#[test]
fn phantom_queue_drives_marks_while_real_queue_is_empty() {
    // A flow at exactly line rate (1000 B every 20 cycles at 50 B/cycle): the real queue
    // never builds, the phantom queue (45 B/cycle) grows by 100 B per packet.
    let phantom = PhantomPortConfig {
        queue: PhantomConfig {
            drain: Rate::from_int(LINE).scale(9, 10).unwrap(),
            cap_bytes: 1 << 20,
        },
        ecn: RedConfig::step(10_000),
        mark_on: MarkOn::Phantom,
    };
    let cfg = PortConfig {
        ecn: Some(RedConfig::step(10_000)),
        phantom: Some(phantom),
        ..PortConfig::tail_drop(50_000)
    };
    let mut with = OutputPortCtl::new(cfg).unwrap();
    let mut without = OutputPortCtl::new(PortConfig {
        phantom: None,
        ..cfg
    })
    .unwrap();
    let mut rng = Lfsr32::new(5);
    let mut first_mark = None;
    for i in 0..200u64 {
        let now = i * 20;
        if let Admit::Enqueue { ecn_mark: true } = with.on_arrival(now, 1000, &mut rng) {
            first_mark.get_or_insert(i);
        }
        assert_eq!(
            without.on_arrival(now, 1000, &mut rng),
            Admit::Enqueue { ecn_mark: false }
        );
        with.on_departure(1000);
        without.on_departure(1000);
    }
    // Phantom before packet i (i >= 1) is 1000 * i - 900 * i = 100 i: first >= 10_000 at i = 100.
    assert_eq!(first_mark, Some(100));
    assert_eq!(with.marks(), 100);
    assert_eq!(without.marks(), 0);
    assert_eq!(with.occupancy_bytes(), 0);
    // 200 packets in, last at cycle 3980: level 200_000 - 3980 * 45 = 20_900.
    assert_eq!(with.phantom_bytes(3980), Some(20_900));
    // 464 more cycles drain 20_880 B; the 465th empties it (saturating at zero).
    assert_eq!(with.phantom_bytes(3980 + 464), Some(20));
    assert_eq!(with.phantom_bytes(3980 + 465), Some(0));
    assert_eq!(with.phantom_bytes(3980 + 1000), Some(0));
}

#[test]
fn config_errors_name_fields() {
    let base = PortConfig::reps_baseline(100_000);
    assert_eq!(base.ecn, Some(RedConfig::linear(20_000, 80_000)));
    let field = |c: PortConfig| OutputPortCtl::new(c).unwrap_err().field;
    assert_eq!(
        field(PortConfig {
            buffer_bytes: 0,
            ..base
        }),
        "buffer_bytes"
    );
    assert_eq!(
        field(PortConfig {
            trimming: true,
            header_bytes: 0,
            ..base
        }),
        "header_bytes"
    );
    assert_eq!(
        field(PortConfig {
            ecn: Some(RedConfig::linear(5, 4)),
            ..base
        }),
        "ecn.kmax_bytes"
    );
    let pm = RedConfig {
        pmax_q32: u64::MAX,
        ..RedConfig::step(1)
    };
    assert_eq!(
        field(PortConfig {
            ecn: Some(pm),
            ..base
        }),
        "ecn.pmax_q32"
    );
    assert_eq!(
        field(PortConfig {
            ecn: Some(RedConfig::step(100_001)),
            ..base
        }),
        "ecn.kmin_bytes"
    );
    let ph = |drain: Rate, cap_bytes: u64, ecn: RedConfig| PhantomPortConfig {
        queue: PhantomConfig { drain, cap_bytes },
        ecn,
        mark_on: MarkOn::Phantom,
    };
    let step = RedConfig::step(5);
    assert_eq!(
        field(PortConfig {
            phantom: Some(ph(Rate::ZERO, 10, step)),
            ..base
        }),
        "phantom.queue.drain"
    );
    assert_eq!(
        field(PortConfig {
            phantom: Some(ph(Rate::from_int(1), 0, step)),
            ..base
        }),
        "phantom.queue.cap_bytes"
    );
    assert_eq!(
        field(PortConfig {
            phantom: Some(ph(Rate::from_int(1), 10, RedConfig::step(11))),
            ..base
        }),
        "phantom.ecn.kmin_bytes"
    );
    assert_eq!(
        field(PortConfig {
            phantom: Some(ph(Rate::from_int(1), 10, RedConfig::linear(5, 4))),
            ..base
        }),
        "phantom.ecn.kmax_bytes"
    );
    // With a big phantom queue, phantom thresholds above the physical buffer are fine.
    let big = PortConfig {
        phantom: Some(ph(
            Rate::from_int(1),
            10_000_000,
            RedConfig::linear(200_000, 900_000),
        )),
        ..base
    };
    assert!(OutputPortCtl::new(big).is_ok());
    assert_eq!(OutputPortCtl::new(big).unwrap().config(), big);
    assert_eq!(
        OutputPort::<4>::new(base, 0, 1).unwrap_err().field,
        "line_bytes_per_cycle"
    );
}

#[test]
fn serializer_timing_and_header_priority() {
    let cfg = PortConfig {
        trimming: true,
        header_bytes: 64,
        ..PortConfig::tail_drop(4096 + 100)
    };
    let mut p: OutputPort<8> = OutputPort::new(cfg, LINE, 1).unwrap();
    // Cycle 0: two packets; the second does not fit and is trimmed.
    assert_eq!(
        p.arrive(PacketDesc::new(1, 4096)),
        Admit::Enqueue { ecn_mark: false }
    );
    assert_eq!(p.arrive(PacketDesc::new(2, 4096)), Admit::Trim);
    assert_eq!(p.take_departure(), None);
    p.tick();
    // Cycle 1: the header (high priority) starts first; 64 B at 50 B/cycle = 2 cycles.
    let d = p.take_departure().unwrap();
    assert_eq!((d.id, d.bytes, d.trimmed), (2, 64, true));
    assert_eq!(p.take_departure(), None);
    p.tick();
    assert!(p.departure().is_none());
    p.tick();
    // Cycle 3: the data packet, ceil(4096 / 50) = 82 cycles.
    let d = p.take_departure().unwrap();
    assert_eq!((d.id, d.bytes, d.trimmed, d.ecn), (1, 4096, false, false));
    assert_eq!(p.ctl().occupancy_bytes(), 0);
    p.arrive(PacketDesc {
        ecn: true,
        ..PacketDesc::new(3, 10)
    });
    for _ in 0..81 {
        p.tick();
        assert!(p.departure().is_none());
    }
    p.tick(); // cycle 85
    let d = p.take_departure().unwrap();
    assert_eq!((d.id, d.ecn, p.now()), (3, true, 85));
    p.tick();
    assert!(!p.line_busy());
}

#[test]
fn back_to_back_packets_hold_the_line_exactly() {
    // Sizes on and off multiples of W: 100 B = 2 cycles, 101 B = 3, 0 B = 1, 50 B = 1.
    let mut p: OutputPort<8> = OutputPort::new(PortConfig::tail_drop(1 << 20), LINE, 1).unwrap();
    for (i, b) in [100u32, 101, 0, 50, 1].into_iter().enumerate() {
        p.arrive(PacketDesc::new(i as u32, b));
    }
    let mut starts = Vec::new();
    for _ in 0..12 {
        p.tick();
        if let Some(d) = p.take_departure() {
            starts.push((p.now(), d.id));
        }
    }
    assert_eq!(starts, [(1, 0), (3, 1), (6, 2), (7, 3), (8, 4)]);
    assert!(!p.line_busy());
}

#[derive(Debug, Clone)]
struct Cycle {
    arrivals: Vec<(u32, bool)>,
    idle_after: u64,
}

fn cycle() -> impl Strategy<Value = Cycle> {
    (
        proptest::collection::vec((0u32..3000, proptest::bool::weighted(0.1)), 0..4),
        prop_oneof![3 => Just(0u64), 1 => 0u64..200],
    )
        .prop_map(|(arrivals, idle_after)| Cycle {
            arrivals,
            idle_after,
        })
}

fn port_cfg(trimming: bool, phantom: bool) -> PortConfig {
    PortConfig {
        buffer_bytes: 12_000,
        ecn: Some(RedConfig::linear(2_000, 8_000)),
        phantom: phantom.then(|| PhantomPortConfig {
            queue: PhantomConfig {
                drain: Rate::from_int(LINE).scale(9, 10).unwrap(),
                cap_bytes: 100_000,
            },
            ecn: RedConfig::linear(2_000, 8_000),
            mark_on: MarkOn::Phantom,
        }),
        trimming,
        header_bytes: 64,
    }
}

proptest! {
    #[test]
    fn conservation_of_packets_and_bytes(trimming: bool, phantom: bool, seed: u32,
                                          cycles in proptest::collection::vec(cycle(), 1..120)) {
        let mut p: OutputPort<6> = OutputPort::new(port_cfg(trimming, phantom), LINE, seed).unwrap();
        let (mut arrived, mut arrived_b) = (0u64, 0u64);
        let (mut departed, mut departed_b) = (0u64, 0u64);
        let (mut dropped, mut dropped_b, mut trimmed_off_b) = (0u64, 0u64, 0u64);
        let mut last_start: Option<(u64, u32)> = None;
        let mut id = 0;
        for c in cycles {
            for (bytes, is_header) in c.arrivals {
                let d = PacketDesc { trimmed: is_header, ..PacketDesc::new(id, bytes) };
                id += 1;
                arrived += 1;
                arrived_b += bytes as u64;
                match p.arrive(d) {
                    Admit::Enqueue { .. } => {}
                    Admit::Trim => trimmed_off_b += (bytes - bytes.min(64)) as u64,
                    Admit::Drop => { dropped += 1; dropped_b += bytes as u64; }
                }
            }
            if let Some(d) = p.take_departure() {
                // Serializer: never starts before the previous packet's ceil(b / W) cycles.
                if let Some((t, b)) = last_start {
                    prop_assert!(p.now() >= t + b.div_ceil(LINE).max(1) as u64);
                }
                last_start = Some((p.now(), d.bytes));
                departed += 1;
                departed_b += d.bytes as u64;
            }
            p.tick();
            if c.idle_after > 0 && !p.line_busy() && p.queued_pkts() == 0 {
                p.advance(c.idle_after);
            }
            prop_assert_eq!(arrived, departed + dropped + p.queued_pkts() as u64 + p.departure().is_some() as u64);
            let pending_b = p.departure().map_or(0, |d| d.bytes as u64);
            prop_assert_eq!(arrived_b, departed_b + dropped_b + trimmed_off_b + p.queued_bytes() + pending_b);
            prop_assert!(p.ctl().occupancy_bytes() <= 12_000);
            // Work conservation: a non-empty port is transmitting.
            prop_assert!(p.queued_pkts() == 0 || p.line_busy());
        }
        prop_assert_eq!(p.ctl().drops() + p.header_drops(), dropped);
        if !trimming { prop_assert_eq!(p.ctl().trims(), 0); }
    }

    #[test]
    fn port_advance_equals_idle_ticks(trimming: bool, phantom: bool, seed: u32,
                                      sizes in proptest::collection::vec(0u32..5000, 0..8),
                                      pre in 0u64..50, n in 0u64..600) {
        let mut a: OutputPort<4> = OutputPort::new(port_cfg(trimming, phantom), LINE, seed).unwrap();
        for (i, s) in sizes.iter().enumerate() {
            a.arrive(PacketDesc::new(i as u32, *s));
            if i % 3 == 2 { a.tick(); }
        }
        a.advance(pre);
        let mut b = rtl_models::testing::assert_advance_eq_ticks(&a, n);
        a.advance(n);
        // Same future too.
        prop_assert_eq!(a.arrive(PacketDesc::new(99, 3000)), b.arrive(PacketDesc::new(99, 3000)));
        prop_assert_eq!(a.phantom_bytes(), b.phantom_bytes());
    }

    #[test]
    fn ctl_advance_equals_idle_ticks(phantom: bool, seed: u32, sizes in proptest::collection::vec(0u32..5000, 0..8),
                                     n in 0u64..600) {
        let mut rng = Lfsr32::new(seed);
        let mut a = OutputPortCtl::new(port_cfg(false, phantom)).unwrap();
        for s in sizes { a.on_arrival(0, s, &mut rng); }
        let mut c = a;
        let mut a = rtl_models::testing::assert_advance_eq_ticks(&a, n);
        // Lazy syncing gives the same phantom level as clocking.
        prop_assert_eq!(a.phantom_bytes(n), c.phantom_bytes(n));
    }
}

/// Uno 4.1.3 / 5.1 port: phantom capped at 100 kB draining 0.9 x 50 B/cycle, RED at
/// 25 % / 75 % of the cap; physical RED at a 10 kB step on a 20 kB buffer.
fn uno_cfg(mark_on: MarkOn, trimming: bool) -> PortConfig {
    let mut ph = PhantomPortConfig::uno(Rate::from_int(LINE), 100_000).unwrap();
    ph.mark_on = mark_on;
    PortConfig {
        ecn: Some(RedConfig::step(10_000)),
        phantom: Some(ph),
        trimming,
        ..PortConfig::tail_drop(20_000)
    }
}

#[test]
fn uno_defaults_are_the_papers() {
    let ph = PhantomPortConfig::uno(Rate::from_int(LINE), 100_000).unwrap();
    assert_eq!(ph.queue.drain, Rate::from_int(45)); // 0.9 x 50 B/cycle
    assert_eq!((ph.ecn.kmin_bytes, ph.ecn.kmax_bytes), (25_000, 75_000));
    assert_eq!(ph.mark_on, MarkOn::Phantom);
    assert_eq!(MarkOn::default(), MarkOn::Phantom);
    let c = OutputPortCtl::new(uno_cfg(MarkOn::Both, false)).unwrap();
    assert_eq!(c.mark_on(), MarkOn::Both);
    let plain = OutputPortCtl::new(PortConfig::reps_baseline(1000)).unwrap();
    assert_eq!(plain.mark_on(), MarkOn::Physical);
}

#[test]
fn dropped_and_trimmed_packets_count_in_full_in_the_phantom() {
    for trimming in [false, true] {
        let mut rng = Lfsr32::new(3);
        let mut c = OutputPortCtl::new(uno_cfg(MarkOn::Phantom, trimming)).unwrap();
        // Five 4 kB packets in one cycle: 4 fit the 20 kB buffer... 20_480 > 20_000: 4 fit.
        let mut rejected = 0;
        for _ in 0..5 {
            if !matches!(c.on_arrival(7, 4096, &mut rng), Admit::Enqueue { .. }) {
                rejected += 1;
            }
        }
        assert_eq!(rejected, 1);
        assert_eq!(c.occupancy_bytes(), 4 * 4096);
        assert_eq!(c.phantom_bytes(7), Some(5 * 4096), "trimming {trimming}");
        assert_eq!(c.drops() + c.trims(), 1);
        // reject_at (descriptor slots full) counts too; plain reject does not.
        c.reject_at(7, 1000);
        assert_eq!(c.phantom_bytes(7), Some(5 * 4096 + 1000));
        c.reject();
        assert_eq!(c.phantom_bytes(7), Some(5 * 4096 + 1000));
    }
}

#[test]
fn phantom_is_capped_and_drains_on_demand() {
    let mut rng = Lfsr32::new(3);
    let mut c = OutputPortCtl::new(uno_cfg(MarkOn::Phantom, false)).unwrap();
    for _ in 0..40 {
        c.on_arrival(0, 4096, &mut rng);
        c.on_departure(4096);
    }
    assert_eq!(c.phantom_bytes(0), Some(100_000)); // capped, 163_840 offered
    assert_eq!(c.phantom_bytes(1000), Some(100_000 - 45_000));
    assert_eq!(c.phantom_bytes(10_000), Some(0));
}

/// Marks of `mark_on` for a scripted arrival pattern: a burst that builds the physical
/// queue past its step (10 kB) while the phantom is still low, then line-rate arrivals that
/// leave the physical queue empty while the phantom climbs past 75 % of its cap.
fn marks_with(mark_on: MarkOn) -> (u64, u64) {
    let mut rng = Lfsr32::new(99);
    let mut c = OutputPortCtl::new(uno_cfg(mark_on, false)).unwrap();
    let mut burst_marks = 0;
    for _ in 0..4 {
        if let Admit::Enqueue { ecn_mark: true } = c.on_arrival(0, 4000, &mut rng) {
            burst_marks += 1;
        }
    }
    for _ in 0..4 {
        c.on_departure(4000);
    }
    let mut steady_marks = 0;
    for i in 1..2000u64 {
        // 4000 B every 80 cycles = line rate; the phantom gains 400 B per packet.
        if let Admit::Enqueue { ecn_mark: true } = c.on_arrival(i * 80, 4000, &mut rng) {
            steady_marks += 1;
        }
        c.on_departure(4000);
    }
    (burst_marks, steady_marks)
}

#[test]
fn mark_on_physical_phantom_or_both() {
    let (pb, ps) = marks_with(MarkOn::Physical);
    let (hb, hs) = marks_with(MarkOn::Phantom);
    let (bb, bs) = marks_with(MarkOn::Both);
    // The burst: the physical queue is at 12 kB >= 10 kB for the 4th packet only.
    assert_eq!((pb, hb, bb), (1, 0, 1));
    // Line rate: physical never marks; the phantom (capped 100 kB, 400 B per packet) is at
    // or above 75 kB from packet ~187 on, and in the ramp from ~62.
    assert_eq!(ps, 0);
    assert!(hs > 1999 - 187 && hs < 1999 - 62, "{hs}");
    assert_eq!(bs, hs);
}

#[test]
fn default_port_without_phantom_marks_on_physical_queue_as_before() {
    // The same arrivals as `red_marks_on_real_queue`, through reps_baseline-style config:
    // no phantom means exactly today's physical marking.
    let mut rng = Lfsr32::new(9);
    let mut c = OutputPortCtl::new(PortConfig {
        ecn: Some(RedConfig::step(20_000)),
        phantom: None,
        ..PortConfig::tail_drop(100_000)
    })
    .unwrap();
    let v: Vec<bool> = (0..10u64)
        .map(|i| {
            matches!(
                c.on_arrival(i, 4000, &mut rng),
                Admit::Enqueue { ecn_mark: true }
            )
        })
        .collect();
    assert_eq!(
        v,
        [false, false, false, false, false, true, true, true, true, true]
    );
}

proptest! {
    #[test]
    fn phantom_ctl_advance_equals_idle_ticks(mark_on in prop_oneof![Just(MarkOn::Physical), Just(MarkOn::Phantom), Just(MarkOn::Both)],
                                     arrivals in proptest::collection::vec((1u32..9000, 0u64..300), 0..20),
                                     n in 0u64..3000, seed: u32) {
        let mut a = OutputPortCtl::new(uno_cfg(mark_on, true)).unwrap();
        let mut rng = Lfsr32::new(seed);
        let mut now = 0;
        for (bytes, gap) in arrivals {
            now += gap;
            a.advance(gap);
            a.on_arrival(now, bytes, &mut rng);
        }
        let mut b = a;
        a.advance(n);
        for _ in 0..n { b.tick(); }
        prop_assert_eq!(a, b);
        prop_assert!(a.phantom().unwrap().occupancy() <= 100_000);
    }
}

/// `MarkAt::Departure` (htsim's ECN queue): no mark on arrival whatever the queue; a packet
/// is marked when the queue it leaves behind is at or above the (step) threshold.
/// `MarkAt::Arrival` marks on the queue an arrival sees and never at departure.
#[test]
fn departure_marking_decides_on_the_queue_left_behind() {
    let mut rng = Lfsr32::new(7);
    let mut dep = ecn_ctl(100_000, 20_000, 20_000).with_mark_at(MarkAt::Departure);
    assert_eq!(dep.mark_at(), MarkAt::Departure);
    for _ in 0..10 {
        assert_eq!(
            dep.on_arrival(0, 4000, &mut rng),
            Admit::Enqueue { ecn_mark: false }
        );
    }
    assert_eq!(dep.marks(), 0);
    // Departures leave 36 000, 32 000, ..., 0 bytes behind: the first five are marked.
    let marked: Vec<bool> = (0..10)
        .map(|_| dep.on_departure_marked(4000, &mut rng))
        .collect();
    assert_eq!(
        marked,
        [true, true, true, true, true, false, false, false, false, false]
    );
    assert_eq!((dep.marks(), dep.occupancy_bytes()), (5, 0));

    let mut arr = ecn_ctl(100_000, 20_000, 20_000);
    assert_eq!(arr.mark_at(), MarkAt::Arrival);
    let marked = (0..10)
        .filter(|_| arr.on_arrival(0, 4000, &mut rng) == Admit::Enqueue { ecn_mark: true })
        .count();
    assert_eq!(marked, 5, "arrivals seeing 20 000 .. 36 000 bytes");
    for _ in 0..10 {
        assert!(!arr.on_departure_marked(4000, &mut rng));
    }
    assert_eq!(arr.marks(), 5);
}

/// `with_phantom_mark_at(MarkAt::Departure)` (the Uno authors' htsim queue marks the packet
/// it dequeues): the phantom marker decides on the phantom level when a packet leaves, not
/// when it arrives; the phantom still grows on arrival. With the default (arrival) the
/// departure call never marks on the phantom.
#[test]
fn phantom_marks_at_departure_on_the_level_then() {
    let cfg = |at: MarkAt| {
        let mut p = uno_cfg(MarkOn::Phantom, false);
        p.phantom.as_mut().unwrap().ecn = RedConfig::step(16_000);
        OutputPortCtl::new(p).unwrap().with_phantom_mark_at(at)
    };
    let mut rng = Lfsr32::new(5);
    let mut dep = cfg(MarkAt::Departure);
    assert_eq!(dep.phantom_mark_at(), MarkAt::Departure);
    // Arrivals see 0, 4096, 8192, 12 288 bytes of phantom: below 16 000 either way.
    for _ in 0..4 {
        assert_eq!(
            dep.on_arrival(0, 4096, &mut rng),
            Admit::Enqueue { ecn_mark: false }
        );
    }
    assert_eq!(dep.phantom_bytes(0), Some(16_384));
    // Two leave at cycle 0 (phantom 16 384: marked), two at cycle 1000 (drained to 0).
    let marked: Vec<bool> = [0, 0, 1000, 1000]
        .iter()
        .map(|&t| dep.on_departure_marked_at(t, 4096, &mut rng))
        .collect();
    assert_eq!(marked, [true, true, false, false]);
    assert_eq!((dep.marks(), dep.occupancy_bytes()), (2, 0));

    let mut arr = cfg(MarkAt::Arrival);
    assert_eq!(arr.phantom_mark_at(), MarkAt::Arrival);
    for _ in 0..4 {
        arr.on_arrival(0, 4096, &mut rng);
    }
    for _ in 0..4 {
        assert!(!arr.on_departure_marked_at(0, 4096, &mut rng));
    }
    assert_eq!(arr.marks(), 0);
}
