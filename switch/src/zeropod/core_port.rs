//! [`CorePort`]: one port of a buffered Zeropod Core switch (§III-C, §IV-A2, §IV-B2).
//!
//! ```text
//!  E2P cells from any pod --> enqueue(dst host) --> [ VOQ per endhost of pod p ] (cells)
//!                                                        |  occupancy > threshold -> backpressure
//!  every epoch: rts(core) --> pod p's scheduler: newly arrived cells per host + backpressure
//!  SCHD (C2E) from pod p --> on_schd --> sends `volume` cells of VOQ[dst] from the granted
//!                                        slot, one per slot of pod p's clock --> departure()
//! ```
//!
//! "In Core switches, each port maintains per-endhost VOQs for the pod it connects to, and
//! needs to track multiple clocks, one for each connected pod" (§III-C): the port keeps the
//! clock of the pod it faces (an offset from the Core's own time and the pod's epoch length),
//! so the Core holds one clock per pod across its ports. "When the queue length of an output
//! port exceeds a predefined threshold, backpressure signals are tagged in RTS" (§IV-A2):
//! [`CorePort::backpressure`] is the port's bit; the Core ORs its ports' bits into each RTS.
//!
//! Units: cells; time in cell slots of the faced pod's clock. `N` hosts per pod, `V` cells
//! per VOQ (a full VOQ or a full port buffer drops and counts).

use heapless::Deque;
use rtl_models::budget::bits_for;
use rtl_models::zeropod_cell::{Route, RtsArrival, RtsRepr, SchdRepr, TrafficKind, RTS_ARRIVALS};
use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

/// Configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorePortConfig {
    /// Core index (the `src` of its RTS).
    pub core: u8,
    /// The pod this port faces (its hosts are `pod * N ..`).
    pub pod: u8,
    /// Backpressure threshold in cells (§V-A: 320).
    pub backpressure_cells: u32,
    /// Port buffer in cells (§V-A: 32 MB per Core).
    pub buffer_cells: u32,
    /// Data slots per epoch of the faced pod.
    pub epoch_slots: u16,
    /// Slot offset of the faced pod's clock (its epoch 0 starts at this port time).
    pub clock_offset: u64,
}

impl Default for CorePortConfig {
    fn default() -> Self {
        CorePortConfig {
            core: 0,
            pod: 0,
            backpressure_cells: 320,
            buffer_cells: 4096,
            epoch_slots: 32,
            clock_offset: 0,
        }
    }
}

/// Counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CorePortStats {
    /// Cells enqueued.
    pub enqueued: u64,
    /// Cells sent down (C2E).
    pub sent: u64,
    /// Cells dropped at a full buffer or VOQ.
    pub dropped: u64,
    /// Granted slots with no cell to send.
    pub idle_grant_slots: u64,
    /// SCHD refused (wrong pod / host / kind).
    pub bad_schd: u64,
    /// Peak occupancy (cells).
    pub peak: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ActiveGrant {
    dst: u16,
    start: u64,
    left: u16,
    route: Route,
}

/// A cell leaving the port towards the pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreDeparture {
    /// Destination host (index in the pod).
    pub dst: u16,
    /// The cell's tag.
    pub tag: u32,
    /// The C2E route from the SCHD.
    pub route: Route,
}

/// One Core port: `N` per-host VOQs of `V` cells.
#[derive(Debug, Clone)]
pub struct CorePort<const N: usize, const V: usize> {
    cfg: CorePortConfig,
    now: u64,
    voq: [Deque<u32, V>; N],
    arrived: [u16; N],
    occupancy: u32,
    grant: Option<ActiveGrant>,
    out: Option<CoreDeparture>,
    stats: CorePortStats,
}

impl<const N: usize, const V: usize> CorePort<N, V> {
    /// A port; checks thresholds and capacities.
    pub fn new(cfg: CorePortConfig) -> Result<Self, ConfigError> {
        if cfg.buffer_cells == 0 || cfg.buffer_cells as u64 > (N * V) as u64 {
            return Err(ConfigError::new("buffer_cells", "must be 1..=N * V"));
        }
        if cfg.backpressure_cells == 0 || cfg.backpressure_cells > cfg.buffer_cells {
            return Err(ConfigError::new(
                "backpressure_cells",
                "must be 1..=buffer_cells",
            ));
        }
        if cfg.epoch_slots == 0 {
            return Err(ConfigError::new("epoch_slots", "must be at least 1"));
        }
        if cfg.pod >= 32 {
            return Err(ConfigError::new(
                "pod",
                "must be below 32 (RTS backpressure bits)",
            ));
        }
        Ok(CorePort {
            cfg,
            now: 0,
            voq: core::array::from_fn(|_| Deque::new()),
            arrived: [0; N],
            occupancy: 0,
            grant: None,
            out: None,
            stats: CorePortStats::default(),
        })
    }

    /// An unchecked port (only for a container that reports the config error itself).
    pub(crate) fn placeholder(cfg: CorePortConfig) -> Self {
        CorePort {
            cfg,
            now: 0,
            voq: core::array::from_fn(|_| Deque::new()),
            arrived: [0; N],
            occupancy: 0,
            grant: None,
            out: None,
            stats: CorePortStats::default(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> CorePortStats {
        self.stats
    }

    /// Cells queued.
    pub fn occupancy(&self) -> u32 {
        self.occupancy
    }

    /// Cells queued for host `h`.
    pub fn voq_len(&self, h: usize) -> usize {
        self.voq.get(h).map_or(0, |q| q.len())
    }

    /// The faced pod's (epoch, slot) at the current port time (`None` before its epoch 0).
    pub fn pod_clock(&self) -> Option<(u64, u16)> {
        let t = self.now.checked_sub(self.cfg.clock_offset)?;
        let e = self.cfg.epoch_slots as u64;
        Some((t / e, (t % e) as u16))
    }

    /// True when the port's queue exceeds the threshold (§IV-A2).
    pub fn backpressure(&self) -> bool {
        self.occupancy > self.cfg.backpressure_cells
    }

    /// Per-cycle input: an E2P cell for host `dst` (index in the faced pod) arrives.
    pub fn enqueue(&mut self, dst: u16, tag: u32) -> bool {
        let d = dst as usize;
        if d >= N || self.occupancy >= self.cfg.buffer_cells || self.voq[d].push_back(tag).is_err()
        {
            self.stats.dropped += 1;
            return false;
        }
        self.occupancy += 1;
        self.arrived[d] = self.arrived[d].saturating_add(1);
        self.stats.enqueued += 1;
        self.stats.peak = self.stats.peak.max(self.occupancy);
        true
    }

    /// The RTS of this epoch to the faced pod's scheduler: the (up to 2) hosts with the most
    /// newly arrived cells (reported counts are cleared; the rest waits for the next RTS) and
    /// `backpressure_mask`, the Core's bit per pod (the caller ORs its ports' bits).
    pub fn rts(&mut self, backpressure_mask: u32) -> RtsRepr {
        let mut r = RtsRepr {
            from_core: true,
            src: self.cfg.core as u16,
            backpressure: backpressure_mask,
            ..RtsRepr::default()
        };
        for i in 0..RTS_ARRIVALS {
            let best = (0..N)
                .filter(|&h| self.arrived[h] > 0)
                .max_by_key(|&h| (self.arrived[h], core::cmp::Reverse(h)));
            let Some(h) = best else { break };
            r.arrivals[i] = RtsArrival {
                dst: (self.cfg.pod as usize * N + h) as u16,
                cells: self.arrived[h],
            };
            self.arrived[h] = 0;
            r.n_arrivals += 1;
        }
        r
    }

    /// A C2E SCHD from the faced pod's scheduler: send `volume` cells of `VOQ[dst]` from data
    /// slot `slot` of epoch `epoch` of the pod clock. Refused (counted) if malformed.
    pub fn on_schd(&mut self, s: &SchdRepr) -> bool {
        let d = s.dst as usize;
        if s.traffic != TrafficKind::C2E || s.to as u8 != self.cfg.core || d >= N {
            self.stats.bad_schd += 1;
            return false;
        }
        let e = self.cfg.epoch_slots as u64;
        self.grant = Some(ActiveGrant {
            dst: s.dst,
            start: self.cfg.clock_offset + s.epoch as u64 * e + s.slot as u64,
            left: s.volume,
            route: s.route,
        });
        true
    }

    /// The cell sent in the last closed slot.
    pub fn departure(&self) -> Option<CoreDeparture> {
        self.out
    }

    fn step(&mut self) {
        self.out = None;
        if let Some(g) = &mut self.grant {
            if self.now >= g.start && g.left > 0 {
                g.left -= 1;
                match self.voq[g.dst as usize].pop_front() {
                    Some(tag) => {
                        self.occupancy -= 1;
                        self.stats.sent += 1;
                        self.out = Some(CoreDeparture {
                            dst: g.dst,
                            tag,
                            route: g.route,
                        });
                    }
                    None => self.stats.idle_grant_slots += 1,
                }
                if g.left == 0 {
                    self.grant = None;
                }
            }
        }
        self.now += 1;
    }
}

impl<const N: usize, const V: usize> Clocked for CorePort<N, V> {
    /// One slot of the faced pod's clock: sends one granted cell if the grant is running.
    fn tick(&mut self) {
        self.step();
    }

    /// O(1) when no grant is running; O(n) while one is (it sends every slot).
    fn advance(&mut self, cycles: Cycles) {
        let mut n = cycles;
        while n > 0 {
            match self.grant {
                None => {
                    self.out = None;
                    self.now += n;
                    return;
                }
                Some(g) if g.start > self.now + 1 => {
                    let skip = (g.start - self.now - 1).min(n);
                    self.out = None;
                    self.now += skip;
                    n -= skip;
                }
                _ => {
                    self.step();
                    n -= 1;
                }
            }
        }
    }
}

/// State per port: per VOQ head and tail pointers (`bits_for(V)` each) and a u16 arrival
/// counter; the occupancy counter; the running grant (dst u16, start u32, left u16, route 36).
impl<const N: usize, const V: usize> StateBudget for CorePort<N, V> {
    const NAME: &'static str = "Zeropod Core port (per-host VOQ pointers, arrivals, grant)";
    const UNIT: &'static str = "per Core port";
    const BITS: u32 =
        N as u32 * (2 * bits_for(V as u64) + 16) + bits_for((N * V) as u64) + 16 + 32 + 16 + 36;
}

/// The k = 8 Core port of §V-A (16 hosts per pod, 32 MB / 8 ports of 552 B cells ~ 7600
/// cells; 512 per VOQ here).
pub type K8CorePort = CorePort<16, 512>;
const _: () = assert!(<K8CorePort as StateBudget>::BITS == 16 * (2 * 10 + 16) + 14 + 100);

#[cfg(test)]
mod tests {
    use super::*;

    fn port() -> CorePort<4, 8> {
        CorePort::new(CorePortConfig {
            core: 3,
            pod: 1,
            backpressure_cells: 5,
            buffer_cells: 20,
            epoch_slots: 4,
            clock_offset: 2,
        })
        .unwrap()
    }

    #[test]
    fn core_switch_routes_by_pod_and_broadcasts_backpressure() {
        use crate::zeropod::core_switch::CoreSwitch;
        let mut c = CoreSwitch::<3, 4, 8>::new(5, |p| CorePortConfig {
            backpressure_cells: 2,
            buffer_cells: 16,
            epoch_slots: 4,
            clock_offset: p as u64, // one clock per pod
            ..CorePortConfig::default()
        })
        .unwrap();
        for t in 0..3 {
            assert!(c.enqueue(2 * 4 + 1, t)); // pod 2, host 1
        }
        assert!(c.enqueue(4, 9)); // pod 1, host 0
        assert!(!c.enqueue(12, 0), "no pod 3");
        assert_eq!(c.backpressure_mask(), 1 << 2);
        let r = c.rts(1).unwrap();
        assert_eq!((r.src, r.backpressure, r.arrivals[0].dst), (5, 4, 4));
        assert_eq!(
            c.port(2).unwrap().pod_clock(),
            None,
            "pod 2's epoch 0 starts at 2"
        );
        let e = CoreSwitch::<3, 4, 8>::new(0, |p| CorePortConfig {
            backpressure_cells: 4,
            buffer_cells: if p == 1 { 0 } else { 16 },
            ..CorePortConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.field, "buffer_cells");
    }

    #[test]
    fn voqs_rts_backpressure_and_grant() {
        let mut p = port();
        for i in 0..4 {
            assert!(p.enqueue(2, i));
        }
        assert!(p.enqueue(0, 100));
        assert!(!p.backpressure());
        assert!(p.enqueue(0, 101));
        assert!(p.backpressure(), "6 cells > threshold 5");
        let r = p.rts(1 << 1);
        assert!(r.from_core && r.src == 3 && r.backpressure == 2);
        assert_eq!(r.n_arrivals, 2);
        assert_eq!(
            r.arrivals[0],
            RtsArrival {
                dst: 4 + 2,
                cells: 4
            }
        );
        assert_eq!(r.arrivals[1], RtsArrival { dst: 4, cells: 2 });
        assert_eq!(p.rts(0).n_arrivals, 0, "reported arrivals are cleared");
        // Grant 3 cells of host 2 from epoch 1 slot 1: port time 2 + 4 + 1 = 7.
        let s = SchdRepr {
            to_core: true,
            traffic: TrafficKind::C2E,
            to: 3,
            epoch: 1,
            dst: 2,
            volume: 3,
            route: Route::new(&[1, 2]).unwrap(),
            slot: 1,
            ..SchdRepr::default()
        };
        assert!(p.on_schd(&s));
        p.advance(7);
        assert_eq!(p.pod_clock(), Some((1, 1)));
        assert!(p.departure().is_none());
        let mut tags = [u32::MAX; 4];
        for t in tags.iter_mut() {
            p.tick();
            if let Some(d) = p.departure() {
                *t = d.tag;
            }
        }
        assert_eq!(tags, [0, 1, 2, u32::MAX]);
        assert_eq!(p.occupancy(), 3);
        assert!(!p.backpressure());
    }

    #[test]
    fn full_buffer_drops_and_bad_input_is_refused() {
        let mut p = port();
        for i in 0..8 {
            assert!(p.enqueue(1, i));
        }
        assert!(!p.enqueue(1, 9), "VOQ full");
        assert!(!p.enqueue(7, 9), "no such host");
        assert_eq!(p.stats().dropped, 2);
        let s = SchdRepr {
            traffic: TrafficKind::E2E,
            to: 3,
            ..SchdRepr::default()
        };
        assert!(!p.on_schd(&s));
        let e = CorePort::<4, 8>::new(CorePortConfig {
            buffer_cells: 33,
            ..CorePortConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.field, "buffer_cells");
    }
}
