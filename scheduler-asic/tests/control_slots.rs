//! §IV-C: control cells never collide with each other or with data cells, for k = 8 and
//! k = 32, on any link of the pod (every host and Core sends an RTS and receives a SCHD in
//! every epoch, every data slot is busy).

use scheduler_asic::control_slots::EpochLayout;

/// Links that carry control cells: (kind, switch, port).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Link {
    HostUp(u16),
    HostDown(u16),
    TorToSched(u16),
    SchedToTor(u16),
    AggToSched(u16),
    SchedToAgg(u16),
    CoreUp(u16),
    CoreDown(u16),
}

fn occupancy(
    l: &EpochLayout,
    cores: u16,
    gap_of_host: impl Fn(u16) -> u16,
) -> Vec<(Link, u32, u32)> {
    let m = l.m;
    let mut v = Vec::new();
    for h in 0..m * m {
        let (rs, re) = l.rts_window(gap_of_host(h));
        let (ss, se) = l.schd_window(gap_of_host(h));
        v.push((Link::HostUp(h), rs, re));
        v.push((Link::TorToSched(h / m), rs, re));
        v.push((Link::SchedToTor(h / m), ss, se));
        v.push((Link::HostDown(h), ss, se));
    }
    for c in 0..cores {
        let (rs, re) = l.rts_window(l.core_gap(c));
        let (ss, se) = l.schd_window(l.core_gap(c));
        let a = c % m;
        v.push((Link::CoreUp(c), rs, re));
        v.push((Link::AggToSched(a), rs, re));
        v.push((Link::SchedToAgg(a), ss, se));
        v.push((Link::CoreDown(c), ss, se));
    }
    // Every data slot busy on every host and Core link.
    for s in 0..l.data_slots {
        let (ds, de) = (l.data_start(s), l.data_start(s) + 552);
        for h in 0..m * m {
            v.push((Link::HostUp(h), ds, de));
            v.push((Link::HostDown(h), ds, de));
        }
        for c in 0..cores {
            v.push((Link::CoreUp(c), ds, de));
            v.push((Link::CoreDown(c), ds, de));
        }
    }
    v
}

fn first_collision(mut v: Vec<(Link, u32, u32)>, epoch: u32) -> Option<(Link, u32)> {
    v.sort();
    for w in v.windows(2) {
        if w[0].0 == w[1].0 && w[1].1 < w[0].2 {
            return Some((w[0].0, w[1].1));
        }
    }
    v.iter().find(|x| x.2 > epoch).map(|x| (x.0, x.2))
}

#[test]
fn control_cells_never_collide_k8() {
    // k = 8: M = 4, 32-cell epochs (multi-pod), 7 Cores.
    let l = EpochLayout::new(32, 4).unwrap();
    assert_eq!(
        first_collision(occupancy(&l, 7, |h| l.host_gap(h)), l.epoch_bytes()),
        None
    );
    // The smallest legal epoch too: N + 1 = M.
    let l = EpochLayout::new(3, 4).unwrap();
    assert_eq!(
        first_collision(occupancy(&l, 7, |h| l.host_gap(h)), l.epoch_bytes()),
        None
    );
}

#[test]
fn control_cells_never_collide_k32() {
    // k = 32: M = 16, 16-cell epochs (single pod); N + 1 = 17 >= 16.
    let l = EpochLayout::new(16, 16).unwrap();
    assert_eq!(
        first_collision(occupancy(&l, 0, |h| l.host_gap(h)), l.epoch_bytes()),
        None
    );
    let l = EpochLayout::new(15, 16).unwrap();
    assert_eq!(
        first_collision(occupancy(&l, 16, |h| l.host_gap(h)), l.epoch_bytes()),
        None
    );
}

#[test]
fn the_check_catches_a_broken_rule() {
    // Everyone in gap 0: RTS of two hosts under one ToR meet on the ToR -> scheduler link.
    let l = EpochLayout::new(16, 16).unwrap();
    let c = first_collision(occupancy(&l, 0, |_| 0), l.epoch_bytes());
    assert!(matches!(c, Some((Link::TorToSched(0), 0))), "{c:?}");
    // Too few control slots is refused with the field named.
    assert_eq!(EpochLayout::new(14, 16).unwrap_err().field, "epoch_slots");
}
