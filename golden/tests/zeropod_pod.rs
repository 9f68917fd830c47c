//! The Zeropod blocks together, one k = 8 pod at cell level: 16 `ZeropodNic`s send RTS to
//! an `IterativeScheduler`, execute its SCHDs one epoch later (the scheduling delay), and
//! their scheduled and optimistic cells cross 4 ToR and 4 Agg `BufferlessSwitch`es to the
//! receivers' `Reassembly`. Proves, for random flow sets (proptest): no scheduled cell ever
//! collides in the fabric, and every flow is delivered completely, in sequence, with the
//! optimistic copies of mice counted as duplicates or dropped, never lost.

#![allow(clippy::needless_range_loop)]

use nic::zeropod::{NicConfig, Reassembly, RxOutcome, ZeropodNic};
use proptest::prelude::*;
use rtl_models::Clocked;
use scheduler_asic::scheduler::SchedulerConfig;
use scheduler_asic::K8Scheduler;
use switch::zeropod::{BufferlessConfig, BufferlessSwitch, Cell};

const M: usize = 4;
const N: usize = 16;
const SLOTS: u16 = 16;

type Sw = BufferlessSwitch<8, 4>;

struct Outcome {
    scheduled_collisions: u64,
    optimistic_sent: u64,
    optimistic_dropped: u64,
    delivered: Vec<u32>,
    epochs: u32,
}

fn run_pod(flows: &[(u16, u16, u32)], seed: u32) -> Outcome {
    let mut nics: Vec<ZeropodNic<16>> = (0..N as u16)
        .map(|h| {
            ZeropodNic::new(NicConfig {
                host: h,
                m: M as u8,
                epoch_slots: SLOTS,
                seed: seed ^ (h as u32 * 7919),
                ..NicConfig::default()
            })
            .unwrap()
        })
        .collect();
    let cfg = SchedulerConfig {
        epoch_slots: SLOTS,
        seed,
        ..SchedulerConfig::default()
    };
    let mut sched = Box::new(K8Scheduler::new(cfg).unwrap());
    let sw_cfg = BufferlessConfig::default(); // one phase per cell, latency one cell
    let mut tors: Vec<Sw> = (0..M).map(|_| Sw::new(sw_cfg).unwrap()).collect();
    let mut aggs: Vec<Sw> = (0..M).map(|_| Sw::new(sw_cfg).unwrap()).collect();
    let mut rx: Vec<Reassembly<16>> = (0..N).map(|_| Reassembly::new()).collect();
    // Flow ids are their index; sizes as given.
    let mut tag_of = Vec::new();
    for (i, &(s, d, c)) in flows.iter().enumerate() {
        assert!(nics[s as usize].add_flow(i as u16, d, c));
        tag_of.push((s, d));
    }
    let mut delivered = vec![0u32; flows.len()];
    let mut epochs = 0;
    for e in 0..400u16 {
        epochs = e as u32;
        let all_in = flows.iter().enumerate().all(|(i, f)| delivered[i] == f.2);
        if all_in {
            break;
        }
        // Control plane: RTS now, grants for the next epoch.
        for n in nics.iter_mut() {
            let r = n.rts();
            sched.on_rts(&r);
        }
        let grants = sched.run_round(e + 1).unwrap().to_vec();
        for g in &grants {
            let s = sched.schd(g);
            assert!(nics[g.src as usize].on_schd(&s));
        }
        // Data plane: the epoch's slots.
        for _slot in 0..SLOTS {
            for (h, n) in nics.iter_mut().enumerate() {
                n.tick();
                if let Some(c) = n.output() {
                    let tag = ((c.flow as u32) << 16) | c.seq;
                    tors[h / M].offer(
                        (h % M) as u8,
                        Cell {
                            route: c.route,
                            scheduled: c.scheduled,
                            tag,
                            garbled: false,
                        },
                    );
                }
            }
            for s in tors.iter_mut().chain(aggs.iter_mut()) {
                s.tick();
            }
            for t in 0..M {
                let deps: Vec<_> = tors[t].departures().iter().flatten().copied().collect();
                for d in deps {
                    let p = d.port as usize;
                    if p >= M {
                        aggs[p - M].offer(t as u8, d.cell);
                    } else {
                        let flow = (d.cell.tag >> 16) as usize;
                        let seq = d.cell.tag & 0xffff;
                        let (src, dst) = tag_of[flow];
                        assert_eq!(dst as usize, t * M + p, "delivered to the wrong host");
                        let h = rtl_models::zeropod_cell::DataHeaderRepr {
                            src,
                            dst,
                            flow: flow as u16,
                            seq,
                            ..Default::default()
                        };
                        if let RxOutcome::New { in_order } = rx[dst as usize].receive(&h) {
                            delivered[flow] = delivered[flow].max(in_order);
                        }
                    }
                }
            }
            for a in 0..M {
                let deps: Vec<_> = aggs[a].departures().iter().flatten().copied().collect();
                for d in deps {
                    tors[d.port as usize].offer((M + a) as u8, d.cell);
                }
            }
        }
    }
    let sum = |f: fn(&Sw) -> u64| tors.iter().chain(aggs.iter()).map(f).sum::<u64>();
    Outcome {
        scheduled_collisions: sum(|s| s.stats().scheduled_collisions),
        optimistic_dropped: sum(|s| s.stats().optimistic_dropped),
        optimistic_sent: nics.iter().map(|n| n.stats().optimistic_sent).sum(),
        delivered,
        epochs,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn scheduled_cells_never_collide_and_every_flow_arrives(
        raw in prop::collection::vec((0u16..16, 1u16..16, 1u32..40), 1..24),
        seed in 1u32..1000,
    ) {
        // Destination = source + offset (never the source itself).
        let flows: Vec<(u16, u16, u32)> = raw
            .iter()
            .map(|&(s, off, c)| (s, (s + off) % 16, c))
            .collect();
        // At most 16 flows per NIC (its table).
        let mut per = [0; 16];
        let flows: Vec<_> = flows
            .into_iter()
            .filter(|f| { per[f.0 as usize] += 1; per[f.0 as usize] <= 16 })
            .collect();
        let o = run_pod(&flows, seed);
        prop_assert_eq!(o.scheduled_collisions, 0);
        for (i, f) in flows.iter().enumerate() {
            prop_assert_eq!(o.delivered[i], f.2, "flow {} {:?} after {} epochs", i, f, o.epochs);
        }
        prop_assert!(o.optimistic_dropped <= o.optimistic_sent * 2);
    }
}

#[test]
fn mice_go_optimistic_and_some_arrive_before_their_grant() {
    // Four 2-cell mice to distinct hosts and one elephant: the mice are sent optimistically
    // in the epoch after their RTS (nothing scheduled yet), before any grant takes effect.
    let flows = [
        (0u16, 5u16, 2u32),
        (1, 9, 2),
        (6, 14, 2),
        (11, 3, 2),
        (2, 7, 60),
    ];
    let o = run_pod(&flows, 3);
    assert_eq!(o.scheduled_collisions, 0);
    assert!(o.optimistic_sent >= 8, "{}", o.optimistic_sent);
    for (i, f) in flows.iter().enumerate() {
        assert_eq!(o.delivered[i], f.2);
    }
}
