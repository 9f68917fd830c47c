//! Property tests of the DCSIM port arbiter: cycle model vs event model, `advance`
//! vs idle ticks, and Theorems 1 and 3 of the DCSIM paper.

use proptest::prelude::*;
use rtl_models::Clock;
use switch::dcsim::{Class, DcsimArbiter, DcsimArbiterConfig, Departure, Enqueue};

type Arb = DcsimArbiter<u32, 12, 64>;

fn cfg(w: u32, l: u32, big_l: u32, h_milli: u32, depth: u32) -> DcsimArbiterConfig {
    DcsimArbiterConfig {
        bytes_per_cycle: w,
        clock: Clock { period_ps: 1000 },
        small_bytes: l,
        data_bytes: big_l,
        h_milli,
        bucket_depth: depth,
        small_queue_pkts: 12,
        port_buffer_bytes: 3 * 12 * l as u64 + 40 * big_l as u64,
    }
}

fn class_of(k: u8) -> Class {
    Class::ALL[(k % 4) as usize]
}

/// An arrival: (cycle, class index, bytes).
type Arrival = (u64, u8, u32);

fn arrivals() -> impl Strategy<Value = Vec<Arrival>> {
    prop::collection::vec((0u64..400, 0u8..4, 1u32..2000), 0..60).prop_map(|mut v| {
        v.sort_by_key(|a| a.0);
        v
    })
}

fn arb_cfg() -> impl Strategy<Value = DcsimArbiterConfig> {
    (1u32..=128, 16u32..=256, 1u32..=8, 500u32..=3000, 1u32..=4)
        .prop_map(|(w, l, alpha, h, depth)| cfg(w, l, l * alpha * 4, h, depth))
}

/// Tick-by-tick: arrivals of cycle t are inputs of cycle t, then the cycle closes.
fn run_ticks(c: DcsimArbiterConfig, arr: &[Arrival], horizon: u64) -> (Vec<Departure<u32>>, Arb) {
    let mut a = Arb::new(c).unwrap();
    let mut out = Vec::new();
    let mut i = 0;
    for t in 0..horizon {
        while i < arr.len() && arr[i].0 == t {
            a.enqueue(class_of(arr[i].1), i as u32, arr[i].2);
            i += 1;
        }
        if let Some(d) = a.step() {
            assert_eq!(a.last_started(), Some(d));
            out.push(d);
        }
    }
    (out, a)
}

/// Event-driven, as a DES drives it: before each arrival time, take every departure that
/// starts earlier; then jump there and enqueue.
fn run_events(c: DcsimArbiterConfig, arr: &[Arrival], horizon: u64) -> (Vec<Departure<u32>>, Arb) {
    let mut a = Arb::new(c).unwrap();
    let mut out = Vec::new();
    let take_before = |a: &mut Arb, t: u64, out: &mut Vec<Departure<u32>>| {
        while let Some(d) = a.next_departure() {
            if d.start >= t {
                break;
            }
            let got = a.take_next().unwrap();
            assert_eq!(got, d, "take_next starts what next_departure announced");
            out.push(got);
        }
        a.advance_to(t);
    };
    for (i, &(t, k, bytes)) in arr.iter().enumerate() {
        take_before(&mut a, t, &mut out);
        a.enqueue(class_of(k), i as u32, bytes);
    }
    take_before(&mut a, horizon, &mut out);
    (out, a)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The event model (`next_departure` / `take_next` / `advance_to`) gives the same
    /// departure sequence and the same final state as ticking every cycle.
    #[test]
    fn event_model_equals_tick_model(c in arb_cfg(), arr in arrivals()) {
        let horizon = 400 + 60 * 2000;
        let (dt, at) = run_ticks(c, &arr, horizon);
        let (de, ae) = run_events(c, &arr, horizon);
        prop_assert_eq!(&dt, &de);
        prop_assert_eq!(&at, &ae);
        // Every accepted packet left (the horizon covers the worst backlog).
        let s = at.stats();
        prop_assert_eq!(s.accepted, s.departed);
    }

    /// `advance(n)` equals `n` idle ticks, from any reachable state.
    #[test]
    fn advance_equals_idle_ticks(c in arb_cfg(), arr in arrivals(), n in 0u64..5000) {
        let (_, a0) = run_ticks(c, &arr, 200); // stop mid-way: queues and line may be busy
        rtl_models::testing::assert_advance_eq_ticks(&a0, n);
    }

    /// Theorem 1 (Eq. 1, h = 1): with the SIM queue saturated from cycle 0 and the DATA
    /// queue saturated from a later cycle, the output converges to a perfect SIM / DATA
    /// alternation with no idle cycle (total rate = C), for any bucket depth.
    #[test]
    fn theorem1_alternation_at_line_rate(w in 1u32..=128, l in 16u32..=256, alpha in 4u32..=150,
                                         depth in 1u32..=4, data_from in 0u64..3000) {
        let c = cfg(w, l, l * alpha, 1000, depth);
        let mut a = Arb::new(c).unwrap();
        let mut seq = Vec::new();
        for i in 0..12 { a.enqueue(Class::Sim, i, l); }
        let mut next_id = 12;
        let mut data_on = false;
        while seq.len() < 400 {
            let d = a.next_departure().unwrap();
            if !data_on && d.start >= data_from {
                // The first DATAs arrive RTTmax after the SIMs (proof of Theorem 1).
                a.advance_to(data_from);
                for _ in 0..4 { a.enqueue(Class::Data, next_id, l * alpha); next_id += 1; }
                data_on = true;
                continue;
            }
            let d = a.take_next().unwrap();
            // Keep both queues saturated.
            let cls = d.class;
            let size = if cls == Class::Sim { l } else { l * alpha };
            prop_assert_eq!(a.enqueue(cls, next_id, size), Enqueue::Accepted);
            next_id += 1;
            if data_on { seq.push(d); }
        }
        // After the initial burst (at most `depth` SIMs) and one DATA: strict alternation,
        // back to back.
        let tail = &seq[depth as usize + 1..];
        for p in tail.windows(2) {
            prop_assert_ne!(p[0].class, p[1].class, "alternation broken at cycle {}", p[1].start);
            prop_assert_eq!(p[1].start, p[0].end(), "idle line at cycle {}", p[0].end());
        }
    }

    /// Theorem 3 (Eq. 2, h = 2.1), saturated SIM and DATA queues. Depth 1: every SIM waits
    /// for two DATAs, so SIMs leave every `2 ceil(L/W) + ceil(l/W)` cycles, about half the
    /// rate Eq. 2 asks for. Depth 2 or more: SIMs leave exactly at the token rate, never
    /// two in a row, and the line never idles.
    #[test]
    fn theorem3_bucket_depth(w in 1u32..=128, l in 16u32..=256, alpha in 8u32..=150,
                             depth in 2u32..=4) {
        let base = cfg(w, l, l * alpha, 2100, 1);
        let (sl, big) = (base.cycles_of(l), base.cycles_of(l * alpha));
        // Theorem 3's regime: a token gap longer than SIM + DATA, shorter than SIM + 2 DATAs.
        prop_assume!(big >= 2 * sl);
        let sat = |c: DcsimArbiterConfig, n: usize| -> Vec<Departure<u32>> {
            let mut a = Arb::new(c).unwrap();
            for i in 0..12 { a.enqueue(Class::Sim, i, l); }
            for i in 0..12 { a.enqueue(Class::Data, 100 + i, l * alpha); }
            (0..n).map(|_| {
                let d = a.take_next().unwrap();
                let size = if d.class == Class::Sim { l } else { l * alpha };
                a.enqueue(d.class, d.desc, size);
                d
            }).collect()
        };
        let sims = |v: &[Departure<u32>]| -> Vec<u64> {
            v.iter().filter(|d| d.class == Class::Sim).map(|d| d.start).collect()
        };

        // Depth 1: a SIM every 2 DATAs + 1 SIM exactly, once the initial token is used.
        let d1 = sat(base, 600);
        let s1 = sims(&d1);
        prop_assert!(s1.len() > 50);
        for p in s1[2..].windows(2) {
            prop_assert_eq!(p[1] - p[0], 2 * big + sl);
        }
        // That is about half of the Eq. 2 rate (one token per big + 2.1 sl cycles).
        let needed_milli = base.token_period_milli(); // cycles per token, x1000
        let got_milli = 1000 * (2 * big + sl);
        prop_assert!(got_milli > needed_milli);
        if big >= 20 * sl {
            prop_assert!(got_milli * 100 >= needed_milli * 180 && got_milli * 100 <= needed_milli * 200,
                         "depth 1 interval {} vs token period {}", got_milli, needed_milli);
        }

        // Depth >= 2: SIMs at the token rate, alternation (never SIM SIM), no idle.
        let c2 = DcsimArbiterConfig { bucket_depth: depth, ..base };
        let d2 = sat(c2, 3000);
        let s2 = sims(&d2);
        let warm = 2 * depth as usize;
        let span = s2[s2.len() - 1] - s2[warm];
        let intervals = (s2.len() - 1 - warm) as u64;
        // mean interval == token period (within one token over the window)
        prop_assert!((span * 1000).abs_diff(intervals * needed_milli) <= 2 * needed_milli + 1000,
                     "span {} over {} SIMs, token period {}/1000", span, intervals, needed_milli);
        let first = d2.iter().position(|d| d.start >= s2[warm]).unwrap();
        for p in d2[first..].windows(2) {
            prop_assert!(!(p[0].class == Class::Sim && p[1].class == Class::Sim));
            prop_assert_eq!(p[1].start, p[0].end());
        }
    }
}

/// Depth 2, 3 and 4 are indistinguishable after the initial burst (Theorem 3 (ii)): same
/// number of SIMs over a long window once the first `depth` tokens are spent.
#[test]
fn theorem3_depth_two_is_as_good_as_more() {
    let counts: Vec<usize> = (2..=4)
        .map(|depth| {
            let c = DcsimArbiterConfig {
                bucket_depth: depth,
                ..DcsimArbiterConfig::default()
            };
            let mut a = Arb::new(c).unwrap();
            for i in 0..12 {
                a.enqueue(Class::Sim, i, 64);
                a.enqueue(Class::Data, i, 9000);
            }
            let mut sims = 0;
            while a.now() < 1_000_000 {
                let d = a.take_next().unwrap();
                a.enqueue(d.class, d.desc, d.bytes);
                if d.class == Class::Sim {
                    sims += 1;
                }
            }
            sims - depth as usize
        })
        .collect();
    // 10^6 cycles / 143.1 cycles per token = 6988 tokens.
    for c in &counts {
        assert!((6986..=6990).contains(c), "{counts:?}");
    }
}

/// Tick-by-tick Theorem 1 check on the default datapath (W = 64 B, l = 64 B, L = 9000 B
/// padded to 141 cycles), h = 1, depth 2: after the initial 2-SIM burst, S D S D ...
#[test]
fn theorem1_tick_by_tick_default_datapath() {
    let c = DcsimArbiterConfig {
        h_milli: 1000,
        ..DcsimArbiterConfig::default()
    };
    let mut a = Arb::new(c).unwrap();
    let mut seq = Vec::new();
    for t in 0..200_000u64 {
        while a.queue_len(Class::Sim) < 12 {
            a.enqueue(Class::Sim, t as u32, 64);
        }
        while a.queue_len(Class::Data) < 4 {
            a.enqueue(Class::Data, t as u32, 9000);
        }
        if let Some(d) = a.step() {
            seq.push(d);
        }
    }
    assert_eq!(seq[0].class, Class::Sim);
    assert_eq!(seq[1].class, Class::Sim);
    for p in seq[2..].windows(2) {
        assert_ne!(p[0].class, p[1].class);
        assert_eq!(p[1].start, p[0].end());
    }
    // Full line rate: every cycle after the first packet is busy.
    assert!(a.stats().busy_cycles >= 200_000);
}
