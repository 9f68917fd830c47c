//! Zeropod NIC: segmentation, RTS contents, SCHD execution at the granted slot and path,
//! PIAS ordering inside a grant, optimistic sending and its duplicate on reassembly,
//! tick/advance equivalence.

use nic::zeropod::{NicConfig, Reassembly, RxOutcome, ZeropodNic};
use proptest::prelude::*;
use rtl_models::zeropod_cell::{DataHeaderRepr, Route, SchdRepr, TrafficKind};
use rtl_models::Clocked;

fn nic() -> ZeropodNic<16> {
    ZeropodNic::new(NicConfig {
        host: 0,
        m: 4,
        epoch_slots: 32,
        ..NicConfig::default()
    })
    .unwrap()
}

fn schd(dst: u16, volume: u16, epoch: u16, slot: u8, route: &[u8]) -> SchdRepr {
    SchdRepr {
        traffic: TrafficKind::E2E,
        to: 0,
        epoch,
        dst,
        volume,
        slot,
        route: Route::new(route).unwrap(),
        ..SchdRepr::default()
    }
}

fn run(n: &mut ZeropodNic<16>, slots: u64) -> Vec<DataHeaderRepr> {
    let mut v = vec![];
    for _ in 0..slots {
        n.tick();
        v.extend(n.output());
    }
    v
}

#[test]
fn rts_then_optimistic_then_scheduled_and_reassembly() {
    let mut n = nic();
    assert!(n.add_flow(7, 5, 3)); // a mouse
    assert!(n.add_flow(8, 9, 50)); // an elephant
                                   // Nothing is sent before the RTS announced it.
    assert!(run(&mut n, 2).is_empty());
    let r = n.rts();
    assert_eq!(r.n_arrivals, 2);
    assert_eq!((r.arrivals[0].dst, r.arrivals[0].cells), (9, 50));
    assert_eq!((r.arrivals[1].dst, r.arrivals[1].cells), (5, 3));
    assert_eq!(r.n_mice, 2);
    assert_eq!((r.mice[0].dst.value(), r.mice[0].size.value()), (5, 2));
    assert_eq!((r.mice[1].dst.value(), r.mice[1].size.value()), (9, 6));
    assert_eq!(n.rts().n_arrivals, 0, "reported once");
    // Optimistic: the 3-cell flow goes out unscheduled over random Aggs, once.
    let opt = run(&mut n, 5);
    assert_eq!(opt.len(), 3);
    for (i, c) in opt.iter().enumerate() {
        assert!(!c.scheduled);
        assert_eq!((c.dst, c.flow, c.seq), (5, 7, i as u32));
        let p = c.route.ports.map(|p| p.value());
        assert!((4..8).contains(&p[0]) && p[1] == 1 && p[2] == 1, "{p:?}");
    }
    // SCHD for host 5, 3 cells from epoch 1 slot 2 = data slot 34; now is 7.
    assert!(n.on_schd(&schd(5, 3, 1, 2, &[6, 1, 1])));
    let mut sent = vec![];
    for t in 7..40u64 {
        n.tick();
        if let Some(c) = n.output() {
            sent.push((t, c));
        }
    }
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![34, 35, 36]
    );
    assert!(sent
        .iter()
        .all(|(_, c)| c.scheduled && c.route == Route::new(&[6, 1, 1]).unwrap()));
    // Receiver: optimistic copies then scheduled duplicates.
    let mut rx = Reassembly::<8>::new();
    for c in &opt {
        assert!(matches!(rx.receive(c), RxOutcome::New { .. }));
    }
    for (_, c) in &sent {
        assert_eq!(rx.receive(c), RxOutcome::Duplicate);
    }
    assert_eq!(rx.in_order(0, 7), 3);
    assert_eq!(rx.duplicates, 3);
    assert_eq!(n.stats().flows_done, 1);
}

#[test]
fn pias_puts_the_new_mouse_first_inside_a_grant() {
    let mut n = nic();
    n.add_flow(1, 5, 100);
    n.rts();
    n.on_schd(&schd(5, 10, 0, 0, &[4, 1, 1]));
    let a = run(&mut n, 10);
    assert!(a.iter().all(|c| c.flow == 1));
    assert_eq!(
        a.last().unwrap().priority.value(),
        1,
        "demoted after 4 cells"
    );
    n.add_flow(2, 5, 6); // 6 cells: not optimistic
    n.rts();
    n.on_schd(&schd(5, 8, 1, 0, &[4, 1, 1]));
    let b = run(&mut n, 40);
    let flows: Vec<u16> = b.iter().map(|c| c.flow).collect();
    // Once both are at level 1, the older flow goes first (FIFO within a level).
    assert_eq!(
        flows,
        vec![2, 2, 2, 2, 1, 1, 1, 1],
        "mouse first until it is demoted"
    );
}

#[test]
fn reassembly_reorders_within_its_window() {
    let mut rx = Reassembly::<2>::new();
    let c = |src, flow, seq| DataHeaderRepr {
        src,
        flow,
        seq,
        ..DataHeaderRepr::default()
    };
    assert_eq!(rx.receive(&c(1, 1, 1)), RxOutcome::New { in_order: 0 });
    assert_eq!(rx.receive(&c(1, 1, 0)), RxOutcome::New { in_order: 2 });
    assert_eq!(rx.receive(&c(1, 1, 70)), RxOutcome::OutOfWindow);
    assert_eq!(rx.receive(&c(2, 1, 0)), RxOutcome::New { in_order: 1 });
    assert_eq!(rx.receive(&c(3, 1, 0)), RxOutcome::TableFull);
    rx.release(2, 1);
    assert_eq!(rx.receive(&c(3, 1, 0)), RxOutcome::New { in_order: 1 });
}

#[test]
fn bad_config_names_the_field() {
    let e = ZeropodNic::<4>::new(NicConfig {
        m: 0,
        ..NicConfig::default()
    })
    .unwrap_err();
    assert_eq!(e.field, "m");
    let e = ZeropodNic::<4>::new(NicConfig {
        mlfq_cells: [5, 4, 6],
        ..NicConfig::default()
    })
    .unwrap_err();
    assert_eq!(e.field, "mlfq_cells");
    let mut n = nic();
    assert!(!n.add_flow(1, 0, 5), "to itself");
    assert!(
        !n.on_schd(&SchdRepr {
            to: 3,
            ..SchdRepr::default()
        }),
        "not for this host"
    );
}

proptest! {
    #[test]
    fn advance_equals_ticks(
        flows in prop::collection::vec((1u16..16, 1u32..20), 0..6),
        grants in prop::collection::vec((1u16..16, 1u16..8, 0u8..32), 0..3),
        announce in any::<bool>(), n in 0u64..120,
    ) {
        let mut a = nic();
        for (i, &(d, c)) in flows.iter().enumerate() { a.add_flow(i as u16, d, c); }
        if announce { a.rts(); }
        for &(d, v, s) in &grants { a.on_schd(&schd(d, v, 0, s, &[4, (d / 4) as u8, (d % 4) as u8])); }
        let mut b = a.clone();
        a.advance(n);
        for _ in 0..n { b.tick(); }
        prop_assert_eq!(a.stats(), b.stats());
        prop_assert_eq!(a.output(), b.output());
        prop_assert_eq!(a, b);
    }
}
