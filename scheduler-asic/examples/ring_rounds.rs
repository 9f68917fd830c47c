//! How many pairs of a permutation one k = 32 scheduler round grants, and how the §IV-B1
//! "fewer aggregated data first" order spreads the finish times of equal flows: a random
//! ring over 256 hosts, 1954 cells (1 MB) per pair, one round per epoch until every pair is
//! served. Prints the grants of the first rounds and the first / median / last finishing
//! round (a flow needs 123 grants of 16 cells).
//!
//! ```sh
//! cargo run --release -p scheduler-asic --example ring_rounds [ITERATIONS]   # default 6
//! ```

use rtl_models::zeropod_cell::{RtsArrival, RtsRepr};
use scheduler_asic::scheduler::SchedulerConfig;
use scheduler_asic::K32Scheduler;

fn main() {
    let iterations: u8 = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 6,
        Some(Ok(i)) if i > 0 => i,
        Some(_) => {
            eprintln!("ITERATIONS must be an integer 1..=255");
            std::process::exit(2);
        }
    };
    // A random permutation (fixed LCG, so every run prints the same).
    let mut perm: Vec<u16> = (0..256).collect();
    let mut x: u64 = 12345;
    for i in (1..256).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (x >> 33) as usize % (i + 1);
        perm.swap(i, j);
    }
    let cfg = SchedulerConfig {
        epoch_slots: 16,
        iterations,
        ..SchedulerConfig::default()
    };
    let mut s = Box::new(K32Scheduler::new(cfg).expect("valid configuration"));
    let mut pairs = 0;
    for h in 0..256u16 {
        if perm[h as usize] == h {
            continue;
        }
        pairs += 1;
        let mut r = RtsRepr {
            src: h,
            n_arrivals: 1,
            ..RtsRepr::default()
        };
        r.arrivals[0] = RtsArrival {
            dst: perm[h as usize],
            cells: 1954,
        };
        s.on_rts(&r);
    }
    let mut done = vec![0u32; 256];
    let mut counts = vec![];
    for e in 1..1000u16 {
        let Ok(g) = s.run_round(e) else { break };
        let g = g.len();
        counts.push(g);
        for (h, &d) in perm.iter().enumerate() {
            let d = d as usize;
            if d != h && done[h] == 0 && s.matrices.e2e()[h][d] == 0 {
                done[h] = e as u32;
            }
        }
        if g == 0 {
            break;
        }
    }
    println!(
        "{pairs} pairs, I = {iterations}: grants of the first rounds {:?}",
        &counts[..counts.len().min(20)]
    );
    let mut d: Vec<u32> = done.iter().copied().filter(|&x| x > 0).collect();
    d.sort_unstable();
    if let (Some(first), Some(last)) = (d.first(), d.last()) {
        println!(
            "finishing round: first {first}, median {}, last {last}",
            d[d.len() / 2]
        );
    }
}
