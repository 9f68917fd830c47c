//! Round-robin packet spraying in the switches (`transport.lb = "spray_rr"`): the routing
//! the dcPIM simulator gives every protocol it runs, which is where the DCSIM paper ran its
//! baselines (DCSIM 4.1, "We implement DCSIM in the dcPIM simulator ... We use the simulator
//! default settings").
//!
//! In that simulator (Terabit-Ethernet/dcPIM, `simulator/coresim/fatTreeTopology.cpp`,
//! `get_host_next_hop` / `get_edge_next_hop`, with `params.load_balancing == 0`, the value
//! of every configuration in `simulator/py/*/`), a packet bound up the tree takes uplink
//! `spray_counter++ % (k / 2)`, where `spray_counter` belongs to the queue (link) the packet
//! arrived on and starts at `std::rand()` (`coresim/queue.cpp`, `Queue::Queue`). So every
//! input link deals its packets, of whatever flow or kind, to the uplinks in turn.
//!
//! Here: one counter per port of the fabric, used when the port's link delivers into a
//! switch that must send the packet up; it starts at an uplink drawn from the scenario seed.
//! Destinations below the switch go down their fixed port, as with ECMP. The NIC keeps an
//! ECMP entropy value, which the switches ignore (prefetching's guess of the next hop, made
//! by the hash, may then be wrong: a cache hint only). Not with `cc = "dcsim"`, whose SIMs
//! and DATAs must share the path of their EV (the engine leaves this off there).

use super::Route;
use rtl_models::{Lfsr32, RandomSource};

/// The round-robin counters of every input link of a fabric.
#[derive(Debug, Clone)]
pub struct SpraySwitches {
    /// Per port (the upstream end of a link), the count of its packets sprayed so far, from
    /// a random start.
    next: Vec<u32>,
}

impl SpraySwitches {
    /// Counters for `ports` ports, each started at a value drawn from `seed`.
    pub fn new(ports: usize, seed: u32) -> SpraySwitches {
        let mut r = Lfsr32::new(seed | 1);
        SpraySwitches {
            next: (0..ports).map(|_| r.next_u32()).collect(),
        }
    }

    /// The output port of a switch with route `route` for a packet to `dst` that its link
    /// from port `from` delivered: the next uplink in turn when `dst` is up the tree (`None`
    /// when `dst` is below: route it as usual).
    #[inline]
    pub fn select(&mut self, route: &Route, from: u32, dst: u32) -> Option<u32> {
        let (first, n) = route.up_ports(dst)?;
        let c = &mut self.next[from as usize];
        let j = *c % n;
        *c = c.wrapping_add(1);
        Some(first + j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::topology::test_tor as tor;

    #[test]
    fn each_input_link_deals_its_packets_to_the_uplinks_in_turn() {
        let mut s = SpraySwitches::new(8, 7);
        let a: Vec<u32> = (0..8).map(|_| s.select(&tor(), 2, 9).unwrap()).collect();
        // Every uplink twice in 8 packets, in a fixed rotation.
        for p in 14..18 {
            assert_eq!(a.iter().filter(|&&x| x == p).count(), 2, "{a:?}");
        }
        for w in a.windows(2) {
            assert_eq!((w[1] - 14) % 4, (w[0] - 14 + 1) % 4, "{a:?}");
        }
        // Another input link keeps its own counter: link 2's rotation goes on undisturbed.
        let _ = s.select(&tor(), 3, 9);
        let next = s.select(&tor(), 2, 9).unwrap();
        assert_eq!((next - 14) % 4, (a[7] - 14 + 1) % 4);
        // Destinations below the switch are not sprayed.
        assert_eq!(s.select(&tor(), 2, 1), None);
    }

    #[test]
    fn the_start_is_drawn_from_the_seed() {
        let starts = |seed| {
            let mut s = SpraySwitches::new(16, seed);
            (0..16)
                .map(|p| s.select(&tor(), p, 9).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(starts(3), starts(3));
        assert_ne!(starts(3), starts(4));
        // Not every link starts at the same uplink.
        let a = starts(3);
        assert!(a.iter().any(|&p| p != a[0]), "{a:?}");
    }
}
