//! Adaptive RoCE in the fabric (`transport.lb = "adaptive_roce"`, REPS section 4.1's
//! "adaptive RoCE by NVIDIA"): every switch routes a packet bound up the tree to the
//! least-loaded of its equal-cost uplinks, judged from its local output-port occupancy, with
//! the `switch` crate's [`AdaptiveRouting`] engine (one per switch; ties broken by its
//! hardware RNG). Destinations below a switch go down their fixed port as with ECMP.
//!
//! Per packet the engine mirrors each candidate uplink's DATA-queue occupancy and up/down
//! state into the block (`set_occupancy`, `set_port_up`: the registers an AR ASIC reads
//! from its ports) and asks it to [`AdaptiveRouting::choose`]; a switch whose uplinks are
//! all down falls back to the ECMP hash (the packet is then dropped on the dead link, as
//! without adaptive routing). A down link is never chosen while another is up: the switch
//! sees its own port's state (unlike ECMP groups in this model, which keep a dead member).
//!
//! Cost: one pass over the switch's uplinks per routed packet (`n_up` <= 64), only in runs
//! that ask for it; ECMP / OPS / REPS runs keep [`Route::select`] alone.

use super::Route;
use rtl_models::Lfsr32;
use switch::adaptive_routing::{AdaptiveRouting, ArConfig, TieBreak};

/// Most uplinks a switch may have under adaptive routing (radix 128).
pub const MAX_UPLINKS: usize = 64;

/// Load unit of the mirrored occupancy: 2^6 = 64 bytes (16-bit registers hold 4 MiB).
pub const QUANTUM_LOG2: u32 = 6;

/// The adaptive-routing engines of every switch of a fabric.
#[derive(Debug, Clone)]
pub struct AdaptiveSwitches {
    engines: Vec<(AdaptiveRouting<MAX_UPLINKS>, Lfsr32)>,
}

impl AdaptiveSwitches {
    /// Engines for `switches` switches, their tie-break RNGs seeded from `seed`.
    pub fn new(switches: usize, seed: u32) -> AdaptiveSwitches {
        let cfg = ArConfig {
            quantum_log2: QUANTUM_LOG2,
            tie_break: TieBreak::Random,
        };
        let ar = AdaptiveRouting::<MAX_UPLINKS>::new(cfg).expect("constant configuration");
        AdaptiveSwitches {
            engines: (0..switches)
                .map(|i| {
                    let mut r = Lfsr32::new(seed ^ (i as u32).wrapping_mul(0x9e37_79b9));
                    let _ = rtl_models::RandomSource::next_u32(&mut r);
                    (ar, r)
                })
                .collect(),
        }
    }

    /// The output port of switch `s` (route `route`, ECMP seed `seed`) for a packet
    /// `src -> dst` of `bytes` with entropy value `ev`: the least-loaded up uplink when the
    /// destination is up the tree; `uplink(p)` gives port `p`'s (occupancy bytes, up).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn select(
        &mut self,
        s: u32,
        route: &Route,
        seed: u64,
        src: u32,
        dst: u32,
        ev: u16,
        bytes: u32,
        uplink: impl Fn(u32) -> (u64, bool),
    ) -> Option<u32> {
        let Some((first, n)) = route.up_ports(dst) else {
            return route.select(src, dst, ev, seed);
        };
        let n = n.min(MAX_UPLINKS as u32);
        let (ar, rng) = &mut self.engines[s as usize];
        for j in 0..n {
            let (occ, up) = uplink(first + j);
            ar.set_occupancy(j as usize, occ).expect("j < MAX_UPLINKS");
            ar.set_port_up(j as usize, up).expect("j < MAX_UPLINKS");
        }
        let candidates = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        match ar.choose(candidates, bytes, rng) {
            Some(j) => Some(first + j as u32),
            None => route.select(src, dst, ev, seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::topology::test_tor as tor;

    #[test]
    fn picks_the_least_loaded_up_uplink_and_routes_down_by_destination() {
        let mut a = AdaptiveSwitches::new(1, 7);
        let loads = [9000u64, 3000, 100, 5000];
        let pick = |a: &mut AdaptiveSwitches, down: Option<u32>| {
            a.select(0, &tor(), 1, 0, 9, 0, 4160, |p| {
                (loads[(p - 14) as usize], Some(p) != down)
            })
        };
        assert_eq!(pick(&mut a, None), Some(16));
        // Port 16 down: the next least loaded.
        assert_eq!(pick(&mut a, Some(16)), Some(15));
        // A local destination goes down its port whatever the loads.
        assert_eq!(
            a.select(0, &tor(), 1, 9, 2, 0, 4160, |_| (0, true)),
            Some(12)
        );
    }

    #[test]
    fn ties_spread_over_the_tied_uplinks() {
        let mut a = AdaptiveSwitches::new(1, 3);
        let mut seen = [0u32; 4];
        for _ in 0..400 {
            let p = a.select(0, &tor(), 1, 0, 9, 0, 64, |_| (0, true)).unwrap();
            seen[(p - 14) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 50), "{seen:?}");
    }
}
