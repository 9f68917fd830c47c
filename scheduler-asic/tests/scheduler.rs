//! IterativeScheduler (Algorithm 1): collision freedom under random demands, conservation of
//! cells, backpressure and mice-Core rules, top-k priority, tick/advance equivalence.

use arbitrary_int::{u3, u9};
use proptest::prelude::*;
use rtl_models::zeropod_cell::{MiceEntry, RtsArrival, RtsRepr, TrafficKind};
use rtl_models::Clocked;
use scheduler_asic::scheduler::{SchedulerConfig, StageLatency};
use scheduler_asic::{check_grants, Conflict, Grant, K32Scheduler, K8Scheduler};

fn k8_cfg(seed: u32) -> SchedulerConfig {
    SchedulerConfig {
        pod: 2,
        pods: 8,
        cores: 7,
        mice_core: Some(6),
        iterations: 6,
        epoch_slots: 32,
        requests_per_sender: 4,
        latency: StageLatency::default(),
        seed,
    }
}

fn host_rts(src: u16, dst: u16, cells: u16) -> RtsRepr {
    let mut r = RtsRepr {
        src,
        n_arrivals: 1,
        ..RtsRepr::default()
    };
    r.arrivals[0] = RtsArrival { dst, cells };
    r
}

fn core_rts(core: u16, dst: u16, cells: u16, bp: u32) -> RtsRepr {
    let mut r = host_rts(core, dst, cells);
    r.from_core = true;
    r.backpressure = bp;
    r
}

/// (src, dst global, cells) host demands and (core, dst, cells, bp) core demands.
type HostDemands = Vec<(u16, u16, u16)>;
type CoreDemands = Vec<(u16, u16, u16, u32)>;

fn demands() -> impl Strategy<Value = (HostDemands, CoreDemands)> {
    (
        prop::collection::vec((0u16..16, 0u16..128, 1u16..100), 0..60),
        prop::collection::vec((0u16..7, 0u16..16, 1u16..100, any::<u32>()), 0..12),
    )
}

fn total(s: &K8Scheduler) -> u64 {
    let m = &s.matrices;
    let a: u64 = m.e2e().iter().flatten().map(|&x| x as u64).sum();
    let b: u64 = m.e2p().iter().flatten().map(|&x| x as u64).sum();
    let c: u64 = m.c2e().iter().flatten().map(|&x| x as u64).sum();
    a + b + c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Zero scheduled-cell collisions: every round's grants pass the route-walking checker
    /// (no two grants on one ToR/Agg output port; each sender and receiver at most once),
    /// no backpressured Core is used for E2P, only mice use the mice Core, and granted cells
    /// plus what is left equal what the RTS brought.
    #[test]
    fn random_demands_never_collide((hosts, cores) in demands(), seed in 1u32..1000, mice_dst in 0u16..16) {
        let mut s = Box::new(K8Scheduler::new(k8_cfg(seed)).unwrap());
        let mut injected = 0u64;
        for &(src, dst, cells) in &hosts {
            if dst == 32 + src { continue; } // a host's own address
            let mut r = host_rts(src, dst, cells);
            if src % 3 == 0 {
                r.n_mice = 1;
                r.mice[0] = MiceEntry { dst: u9::new(mice_dst), size: u3::new(1) };
            }
            s.on_rts(&r);
            if dst / 16 != 2 || dst % 16 != src { injected += cells as u64; }
        }
        // E2E to self is never requested; remove it from the bookkeeping.
        for h in 0..16 { injected -= s.matrices.e2e()[h][h] as u64; }
        for &(c, d, cells, bp) in &cores {
            s.on_rts(&core_rts(c, 2 * 16 + d, cells, bp));
            injected += cells as u64;
        }
        let bps = s.matrices.backpressure;
        let mut granted = 0u64;
        for epoch in 0..4u16 {
            let grants: Vec<Grant> = s.run_round(epoch).unwrap().to_vec();
            prop_assert_eq!(check_grants(4, &grants), Ok(()));
            for g in &grants {
                prop_assert!(g.volume >= 1 && g.volume <= 32);
                granted += g.volume as u64;
                if g.traffic == TrafficKind::E2P {
                    prop_assert_eq!(bps[g.core as usize] >> g.dst & 1, 0, "backpressured core used");
                    if g.core == 6 {
                        prop_assert!(g.key >> 32 < 8, "elephant on the mice core");
                    }
                }
            }
        }
        prop_assert_eq!(s.overflow(), 0);
        let left: u64 = total(&s) - (0..16).map(|h| s.matrices.e2e()[h][h] as u64).sum::<u64>();
        prop_assert_eq!(granted + left, injected);
    }

    /// advance(n) equals n ticks, from any point of a round.
    #[test]
    fn advance_equals_ticks((hosts, _c) in demands(), pre in 0u64..40, n in 0u64..200) {
        let mut a = Box::new(K8Scheduler::new(k8_cfg(7)).unwrap());
        for &(src, dst, cells) in &hosts {
            a.on_rts(&host_rts(src, dst, cells));
        }
        a.start_round(9).unwrap();
        a.advance(pre);
        let mut b = a.clone();
        a.advance(n);
        for _ in 0..n { b.tick(); }
        prop_assert_eq!(a.grants(), b.grants());
        prop_assert_eq!(a.stage(), b.stage());
        prop_assert_eq!(a.stats(), b.stats());
        prop_assert_eq!(&a.matrices, &b.matrices);
    }
}

#[test]
fn permutation_is_fully_matched_and_latency_is_the_pipeline() {
    let mut s = Box::new(K8Scheduler::new(k8_cfg(3)).unwrap());
    for h in 0..16u16 {
        s.on_rts(&host_rts(h, 32 + (h + 5) % 16, 40));
    }
    s.start_round(0).unwrap();
    // I * (2 + 2 + 1 + 1) = 36 cycles: nothing before, everything at.
    assert_eq!(s.round_cycles(), 36);
    s.advance(35);
    assert!(s.busy() && s.grants().is_empty());
    s.tick();
    assert!(!s.busy());
    // Random path choice may strand a pair or two of a permutation after 6 iterations.
    let first = s.grants().len();
    assert!((13..=16).contains(&first), "{:?}", s.grants());
    assert!(s.grants().iter().all(|g| g.volume == 32));
    assert_eq!(check_grants(4, s.grants()), Ok(()));
    // Later rounds drain the rest: 16 x 40 cells in all, and then nothing.
    let mut cells: u64 = s.grants().iter().map(|g| g.volume as u64).sum();
    for e in 1..6 {
        let g = s.run_round(e).unwrap();
        assert_eq!(check_grants(4, g), Ok(()));
        cells += g.iter().map(|g| g.volume as u64).sum::<u64>();
    }
    assert_eq!(cells, 16 * 40);
    assert_eq!(s.run_round(7).unwrap().len(), 0);
}

/// §IV-B1: pairs are ranked on one scale, the mice flow size when the RTS gives one, else
/// the aggregated size. At the sender, host 0's 2-cell mouse beats its 30-cell elephant; at
/// receiver 9, host 1's single cell (no mice entry) beats host 0's 2-cell mouse, which in
/// turn beats host 2's 8 cells (no entry) in the next round.
#[test]
fn top_k_mice_go_first_at_sender_and_receiver() {
    let mut s = Box::new(K8Scheduler::new(k8_cfg(5)).unwrap());
    s.on_rts(&host_rts(0, 32 + 5, 30));
    let mut r = host_rts(0, 32 + 9, 2);
    r.n_mice = 1;
    r.mice[0] = MiceEntry {
        dst: u9::new(9),
        size: u3::new(1),
    };
    s.on_rts(&r);
    s.on_rts(&host_rts(1, 32 + 9, 1));
    s.on_rts(&host_rts(2, 32 + 9, 8));
    let s1 = s.run_round(0).unwrap().to_vec();
    let to9: Vec<_> = s1.iter().filter(|g| g.dst == 9).collect();
    assert_eq!(to9.len(), 1);
    assert_eq!(
        to9[0].src, 1,
        "the 1-cell pair is smallest on one scale: {s1:?}"
    );
    let s2 = s.run_round(1).unwrap().to_vec();
    let to9: Vec<_> = s2.iter().filter(|g| g.dst == 9).collect();
    assert_eq!(to9.len(), 1);
    assert_eq!(
        to9[0].src, 0,
        "host 0's 2-cell mouse before host 2's 8 cells: {s2:?}"
    );
    assert!(!s2.iter().any(|g| g.src == 0 && g.dst == 5));

    // Sender side alone: the mouse wins host 0's single grant.
    let mut s = Box::new(K8Scheduler::new(k8_cfg(5)).unwrap());
    s.on_rts(&host_rts(0, 32 + 5, 30));
    s.on_rts(&r);
    let s1 = s.run_round(0).unwrap().to_vec();
    let from0: Vec<_> = s1.iter().filter(|g| g.src == 0).collect();
    assert_eq!(from0.len(), 1);
    assert_eq!(from0[0].dst, 9);
}

#[test]
fn e2p_avoids_backpressure_and_c2e_uses_the_cores_agg() {
    let mut s = Box::new(K8Scheduler::new(k8_cfg(11)).unwrap());
    // Every core but core 3 refuses pod 5; host 4 sends to pod 5.
    for c in 0..7u16 {
        let bp = if c == 3 { 0 } else { 1 << 5 };
        s.on_rts(&core_rts(c, 2 * 16 + 1, 0, bp));
    }
    s.on_rts(&host_rts(4, 5 * 16 + 3, 10));
    s.on_rts(&core_rts(2, 2 * 16 + 7, 5, 1 << 5));
    let g = s.run_round(0).unwrap().to_vec();
    let e2p = g.iter().find(|g| g.traffic == TrafficKind::E2P).unwrap();
    assert_eq!((e2p.core, e2p.agg, e2p.dst, e2p.volume), (3, 3, 5, 10));
    let c2e = g.iter().find(|g| g.traffic == TrafficKind::C2E).unwrap();
    assert_eq!((c2e.core, c2e.agg, c2e.dst, c2e.volume), (2, 2, 7, 5));
    assert_eq!(check_grants(4, &g), Ok(()));
    // SCHD carries the path.
    let schd = s.schd(e2p);
    assert_eq!(schd.route.hops.value(), 3);
    assert_eq!(schd.route.ports.map(|p| p.value()), [4 + 3, 4, 5, 0, 0]);
}

#[test]
fn k32_pod_all_to_all_is_collision_free() {
    let cfg = SchedulerConfig {
        epoch_slots: 16,
        requests_per_sender: 4,
        seed: 99,
        ..SchedulerConfig::default()
    };
    let mut s = Box::new(K32Scheduler::new(cfg).unwrap());
    for h in 0..256u16 {
        for k in 1..4u16 {
            s.on_rts(&host_rts(h, (h + 17 * k) % 256, 20));
        }
    }
    let mut matched = 0;
    for e in 0..3 {
        let g = s.run_round(e).unwrap();
        assert_eq!(check_grants(16, g), Ok(()));
        matched += g.len();
    }
    // A 256-port matching after 6 iterations grants most hosts each round.
    assert!(matched > 3 * 200, "{matched}");
    assert_eq!(s.overflow(), 0);
}

#[test]
fn the_checker_catches_conflicts() {
    let a = Grant {
        traffic: TrafficKind::E2E,
        src: 0,
        dst: 5,
        agg: 1,
        volume: 1,
        ..Grant::default()
    };
    // Same ToR 0 uplink to Agg 1 from host 1.
    let b = Grant {
        src: 1,
        dst: 9,
        ..a
    };
    assert_eq!(
        check_grants(4, &[a, b]),
        Err(Conflict::Port {
            layer: 0,
            switch: 0,
            port: 5
        })
    );
    // Same receiver.
    let c = Grant {
        src: 4,
        agg: 2,
        ..a
    };
    assert_eq!(check_grants(4, &[a, c]), Err(Conflict::Receiver(5)));
    // Agg 1 down to ToR 1 twice (hosts 5 and 6) from different ToRs on Agg 1.
    let d = Grant {
        src: 8,
        dst: 6,
        ..a
    };
    assert_eq!(
        check_grants(4, &[a, d]),
        Err(Conflict::Port {
            layer: 1,
            switch: 1,
            port: 1
        })
    );
}

#[test]
fn bad_config_names_the_field() {
    let bad = |f: fn(&mut SchedulerConfig)| {
        let mut c = k8_cfg(1);
        f(&mut c);
        K8Scheduler::new(c).unwrap_err().field
    };
    assert_eq!(bad(|c| c.iterations = 0), "iterations");
    assert_eq!(bad(|c| c.cores = 9), "cores");
    assert_eq!(bad(|c| c.mice_core = Some(7)), "mice_core");
    assert_eq!(bad(|c| c.pod = 8), "pod");
    assert_eq!(bad(|c| c.latency.grant2 = 0), "latency");
    assert_eq!(bad(|c| c.requests_per_sender = 17), "requests_per_sender");
}
