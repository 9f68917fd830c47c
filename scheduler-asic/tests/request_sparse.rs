//! The Request phase walks the matrices' valid bits (sparse); this checks it against the dense
//! scan it replaced (every sender, every destination, in index order), kept here as the
//! reference: the same requests, in the same order, with the same keys and paths, and the
//! random source left in the same state, for random demands, mice tables, backpressure,
//! matched senders / receivers and occupied ports.

use arbitrary_int::{u3, u9};
use heapless::Vec as HVec;
use proptest::prelude::*;
use rtl_models::zeropod_cell::{MiceEntry, RtsArrival, RtsRepr, TrafficKind};
use rtl_models::{Lfsr32, RandomSource};
use scheduler_asic::alloc::request::{
    is_mice_key, keep_best, random_bit, request, urgency_key, MAX_REQUESTS_PER_SENDER,
};
use scheduler_asic::matrices::TrafficMatrices;
use scheduler_asic::ports::PortStates;
use scheduler_asic::scheduler::{Matched, SchedulerConfig};
use scheduler_asic::Grant;

const M: usize = 4;
const N: usize = 16;
const P: usize = 8;
const C: usize = 7;

/// The dense Request phase as it was before the valid bits (Algorithm 1 lines 7-13).
fn dense(
    cfg: &SchedulerConfig,
    mx: &TrafficMatrices<N, P, C>,
    ports: &PortStates<M>,
    matched: &Matched<N, C>,
    rng: &mut impl RandomSource,
    out: &mut Vec<Grant>,
) {
    let r = (cfg.requests_per_sender as usize).clamp(1, MAX_REQUESTS_PER_SENDER);
    let slots = cfg.epoch_slots;
    let pod = cfg.pod as usize;
    let cores = cfg.cores as usize;
    let mut best: HVec<(u64, Grant), MAX_REQUESTS_PER_SENDER> = HVec::new();
    for s in 0..N {
        if matched.host_sent(s) {
            continue;
        }
        best.clear();
        for d in 0..N {
            let v = mx.e2e()[s][d];
            if v == 0 || d == s || matched.host_recv(d) {
                continue;
            }
            let k = urgency_key(mx.mice_class(s, d), v);
            let g = Grant {
                traffic: TrafficKind::E2E,
                src: s as u16,
                dst: d as u16,
                volume: v.min(slots),
                ..Grant::default()
            };
            keep_best(&mut best, r, k, g);
        }
        for p in 0..(cfg.pods as usize).min(P) {
            let v = mx.e2p()[s][p];
            if v == 0 || p == pod {
                continue;
            }
            let k = urgency_key(mx.mice_class(s, N + p), v);
            let g = Grant {
                traffic: TrafficKind::E2P,
                src: s as u16,
                dst: p as u16,
                volume: v.min(slots),
                ..Grant::default()
            };
            keep_best(&mut best, r, k, g);
        }
        let ts = s / M;
        for &(k, mut g) in best.iter() {
            g.key = k | (rng.next_u32() & 0xffff) as u64;
            if g.traffic == TrafficKind::E2E {
                let td = g.dst as usize / M;
                let mut free = 0u64;
                for a in 0..M {
                    if ports.tor_up[ts] >> a & 1 == 0 && ports.agg_down[a] >> td & 1 == 0 {
                        free |= 1 << a;
                    }
                }
                if let Some(a) = random_bit(free, rng) {
                    g.agg = a as u8;
                    out.push(g);
                }
            } else {
                let mice = is_mice_key(k);
                let mut free = 0u64;
                for c in 0..cores.min(C) {
                    let a = c % M;
                    if mx.backpressure[c] >> g.dst & 1 == 0
                        && !matched.core_recv(c)
                        && ports.tor_up[ts] >> a & 1 == 0
                        && ports.agg_up[a] >> (c / M) & 1 == 0
                    {
                        free |= 1 << c;
                    }
                }
                let choice = match cfg.mice_core {
                    Some(mc) if mice && free >> mc & 1 == 1 => Some(mc as u32),
                    Some(mc) => random_bit(if mice { free } else { free & !(1u64 << mc) }, rng),
                    None => random_bit(free, rng),
                };
                if let Some(c) = choice {
                    g.core = c as u8;
                    g.agg = (c as usize % M) as u8;
                    out.push(g);
                }
            }
        }
    }
    for c in 0..cores.min(C) {
        if matched.core_sent(c) || ports.core_down >> c & 1 == 1 {
            continue;
        }
        best.clear();
        for d in 0..N {
            let v = mx.c2e()[c][d];
            if v == 0 || matched.host_recv(d) {
                continue;
            }
            let g = Grant {
                traffic: TrafficKind::C2E,
                src: c as u16,
                dst: d as u16,
                core: c as u8,
                agg: (c % M) as u8,
                volume: v.min(slots),
                key: 0,
            };
            keep_best(&mut best, r, urgency_key(None, v), g);
        }
        for &(k, mut g) in best.iter() {
            if ports.agg_down[g.agg as usize] >> (g.dst as usize / M) & 1 == 0 {
                g.key = k | (rng.next_u32() & 0xffff) as u64;
                out.push(g);
            }
        }
    }
}

fn rts(src: u16, dst: u16, cells: u16, core: bool, bp: u32) -> RtsRepr {
    let mut r = RtsRepr {
        src,
        n_arrivals: 1,
        from_core: core,
        backpressure: bp,
        ..RtsRepr::default()
    };
    r.arrivals[0] = RtsArrival { dst, cells };
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sparse_request_equals_dense_scan(
        hosts in prop::collection::vec((0u16..16, 0u16..128, 1u16..200), 0..80),
        cores in prop::collection::vec((0u16..7, 0u16..16, 1u16..200, any::<u32>()), 0..14),
        debits in prop::collection::vec((0u8..3, 0usize..16, 0usize..16, 1u16..300), 0..40),
        mice in prop::collection::vec((0u16..16, 0u16..24, 0u8..8), 0..10),
        sent in any::<u16>(), recv in any::<u16>(), csent in 0u64..128, crecv in 0u64..128,
        tor_up in any::<[u8; 4]>(), agg_down in any::<[u8; 4]>(), agg_up in any::<[u8; 4]>(),
        core_down in 0u64..128, seed in 1u32..u32::MAX, r in 1u8..=6, mice_core in any::<bool>(),
    ) {
        let cfg = SchedulerConfig {
            pod: 2,
            pods: 8,
            cores: 7,
            mice_core: mice_core.then_some(6),
            requests_per_sender: r,
            epoch_slots: 32,
            ..SchedulerConfig::default()
        };
        let mut mx: TrafficMatrices<N, P, C> = TrafficMatrices::new();
        for &(s, d, cells) in &hosts {
            mx.on_rts(2, &rts(s, d, cells, false, 0));
        }
        for &(c, d, cells, bp) in &cores {
            mx.on_rts(2, &rts(c, 32 + d, cells, true, bp));
        }
        for &(s, d, k) in &mice {
            let mut x = rts(s, 32 + (d % 16), 1, false, 0);
            x.n_mice = 1;
            x.mice[0] = MiceEntry { dst: u9::new(d), size: u3::new(k) };
            mx.on_rts(2, &x);
        }
        // Grants subtract (some entries reach zero and must leave the valid bits).
        for &(kind, row, col, cells) in &debits {
            match kind {
                0 => mx.debit(TrafficKind::E2E, row, col, cells),
                1 => mx.debit(TrafficKind::E2P, row, col % 8, cells),
                _ => mx.debit(TrafficKind::C2E, row % 7, col, cells),
            }
        }
        let matched = Matched::<N, C> {
            host_sent: { let mut b = [0u64; 16]; b[0] = sent as u64; b },
            host_recv: { let mut b = [0u64; 16]; b[0] = recv as u64; b },
            core_sent: csent,
            core_recv: crecv,
        };
        let mut ports = PortStates::<M>::new();
        for i in 0..4 {
            ports.tor_up[i] = (tor_up[i] & 0xf) as u64;
            ports.agg_down[i] = (agg_down[i] & 0xf) as u64;
            ports.agg_up[i] = (agg_up[i] & 0x3) as u64;
        }
        ports.core_down = core_down;
        let (mut ra, mut rb) = (Lfsr32::new(seed), Lfsr32::new(seed));
        let mut a = Vec::new();
        request(&cfg, &mx, &ports, &matched, &mut ra, |g| a.push(g));
        let mut b = Vec::new();
        dense(&cfg, &mx, &ports, &matched, &mut rb, &mut b);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(ra.next_u32(), rb.next_u32());
        // The valid bits mirror the matrices.
        for s in 0..N {
            for d in 0..N {
                prop_assert_eq!(mx.e2e_bits(s)[d / 64] >> (d % 64) & 1 == 1, mx.e2e()[s][d] > 0);
            }
            for p in 0..P {
                prop_assert_eq!(mx.e2p_bits(s) >> p & 1 == 1, mx.e2p()[s][p] > 0);
            }
            let any = mx.e2e()[s].iter().any(|&v| v > 0) || mx.e2p()[s].iter().any(|&v| v > 0);
            prop_assert_eq!(mx.active()[0] >> s & 1 == 1, any);
        }
    }
}
