//! The REPS baselines in a closed loop with one persistently congested path (a toy fabric:
//! 8 paths, path = EV mod 8, every packet on path 3 comes back ECN-marked, one ACK per
//! packet after a fixed window of 16 packets). The ECN-driven choosers (REPS, MPRDMA, BitMap,
//! PLB) move their traffic off the congested path; the oblivious ones (OPS, MPTCP-like,
//! flowlet) keep sending 1/8 of it there, or whatever their fixed EVs dictate (REPS section
//! 4.3.2: congestion-aware versus oblivious load balancers under asymmetry).

use nic::lb::{
    Bitmap, BitmapConfig, Flowlet, FlowletConfig, LoadBalancer, Mprdma, MprdmaConfig, Mptcp,
    MptcpConfig, Ops, Plb, PlbConfig, SubflowPick,
};
use nic::reps::{Reps, RepsConfig};
use rtl_models::Lfsr32;
use std::collections::VecDeque;

const PATHS: u16 = 8;
const BAD: u16 = 3;
const WINDOW: usize = 16;
const PACKETS: u64 = 4_000;

/// Fractions of packets on the congested path in the first and second halves of the run.
/// `gap` cycles separate bursts of `WINDOW` packets (0: back to back).
fn run<L: LoadBalancer>(mut lb: L, rng: &mut Lfsr32, gap: u64) -> (f64, f64) {
    let mut inflight: VecDeque<(u16, u32)> = VecDeque::new();
    let mut bad = [0u64; 2];
    let mut now = 0u64;
    for psn in 0..PACKETS {
        now += 1;
        if gap > 0 && psn % WINDOW as u64 == 0 {
            now += gap;
        }
        let ev = lb.on_send(now, rng);
        if ev % PATHS == BAD {
            bad[(psn >= PACKETS / 2) as usize] += 1;
        }
        inflight.push_back((ev, psn as u32));
        if inflight.len() > WINDOW {
            let (ev, p) = inflight.pop_front().unwrap();
            lb.on_ack_psn(now, ev, ev % PATHS == BAD, p);
        }
    }
    let half = (PACKETS / 2) as f64;
    (bad[0] as f64 / half, bad[1] as f64 / half)
}

#[test]
fn ecn_driven_choosers_leave_the_congested_path() {
    let mut rng = Lfsr32::new(0x5EED);
    let reps = run(Reps::new(RepsConfig::default()).unwrap(), &mut rng, 0);
    let mprdma = run(Mprdma::new(MprdmaConfig::paper(16)).unwrap(), &mut rng, 0);
    let bitmap_cfg = BitmapConfig {
        paths_log2: 3,
        clear_period: 2_000,
    };
    let bitmap = run(Bitmap::new(bitmap_cfg, 0, &mut rng).unwrap(), &mut rng, 0);
    let ops = run(Ops::new(16), &mut rng, 0);
    for (name, (early, late)) in [
        ("reps", reps),
        ("mprdma", mprdma),
        ("bitmap", bitmap),
        ("ops", ops),
    ] {
        eprintln!("{name}: on the congested path {early:.4} (first half), {late:.4} (second)");
    }
    for (name, (_, late)) in [("reps", reps), ("mprdma", mprdma), ("bitmap", bitmap)] {
        assert!(
            late < 0.04,
            "{name}: {late:.3} of packets still on the congested path"
        );
        assert!(late < ops.1 / 3.0, "{name} {late:.3} vs ops {:.3}", ops.1);
    }
    assert!((0.09..0.16).contains(&ops.1), "ops {:.3}", ops.1);
}

#[test]
fn plb_repaths_off_the_congested_path_and_stays() {
    // Several flows: every one that starts on the congested path leaves it within a few
    // rounds; none returns unless its new path is congested too.
    let mut rng = Lfsr32::new(0x91B);
    let mut started_bad = 0;
    for _ in 0..32 {
        let plb = Plb::new(PlbConfig::flowbender(16, WINDOW as u16), &mut rng).unwrap();
        if plb.ev() % PATHS == BAD {
            started_bad += 1;
        }
        let (_, late) = run(plb, &mut rng, 0);
        assert_eq!(late, 0.0);
    }
    assert!(
        started_bad > 0,
        "the seed gives no flow starting on the congested path"
    );
}

#[test]
fn oblivious_choosers_ignore_the_marks() {
    let mut rng = Lfsr32::new(0x0B1);
    // MPTCP-like: fixed subflows; the share on the congested path is the share of its
    // subflows there, the same in both halves.
    for _ in 0..8 {
        let m = Mptcp::new(
            MptcpConfig {
                evs_bits: 16,
                pick: SubflowPick::RoundRobin,
            },
            &mut rng,
        )
        .unwrap();
        let share = m.evs().iter().filter(|&&e| e % PATHS == BAD).count() as f64 / 8.0;
        let (early, late) = run(m, &mut rng, 0);
        assert_eq!((early, late), (share, share));
    }
    // Flowlet: bursts separated by more than the timeout each draw a random EV, marks or
    // not: about 1/8 of the bursts land on the congested path.
    let f = Flowlet::new(FlowletConfig::half_rtt(16, 100), &mut rng).unwrap();
    let (early, late) = run(f, &mut rng, 200);
    assert!(
        (0.05..0.2).contains(&early) && (0.05..0.2).contains(&late),
        "{early} {late}"
    );
    // Back to back, one flowlet forever: all or nothing.
    let f = Flowlet::new(FlowletConfig::half_rtt(16, 100), &mut rng).unwrap();
    let (early, late) = run(f, &mut rng, 0);
    assert!(early == late && (early == 0.0 || early == 1.0));
}
