//! [`BufferlessSwitch`]: a Zeropod ToR / Agg switch (§III-B1, §IV-B3): a crossbar with no
//! packet buffer and no forwarding table. Each cell names its output port for this hop in its
//! source route; the switch forwards it there after a fixed latency and advances the route
//! pointer.
//!
//! ```text
//!  offer(in, cell) --> route.current() = out --> [ output out: one cell per cell time ]
//!                                                    |  fixed latency L phases
//!                                                    v
//!                                               departures()[out]  (route pointer + 1)
//! ```
//!
//! Time is in **phases** of the switch clock; a cell occupies its output for
//! `phases_per_cell` phases (1 = a purely slotted switch). Two cells that overlap on one output
//! within one cell time collide:
//!
//! * scheduled vs optimistic: the optimistic cell loses, is dropped and counted (§IV-B3: "The
//!   unscheduled cells are less prioritized and will be dropped on collision with scheduled
//!   cells in the fabric");
//! * optimistic vs optimistic: both are lost (both were on the wire; this is the collision
//!   model of §IV-B3, Eq. 2-6);
//! * scheduled vs scheduled: a scheduler bug; the later cell is dropped and
//!   `scheduled_collisions` counts it (tests require 0).
//!
//! The fate of a cell is final one cell time after its head arrives, so the latency must be
//! at least one cell time (`latency >= phases_per_cell`): the pipeline registers hold it
//! that long. `D` bounds cells in flight per output (one per phase at most: `latency < D`).

use heapless::Deque;
use rtl_models::budget::bits_for;
use rtl_models::zeropod_cell::Route;
use rtl_models::{Clocked, ConfigError, Cycles, StateBudget};

/// A cell as the crossbar sees it: the route, the scheduled flag and an opaque tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cell {
    /// Source route (the switch uses `route.current()` and advances the pointer).
    pub route: Route,
    /// Scheduled (true) or optimistic (false).
    pub scheduled: bool,
    /// Opaque handle of the cell (flow / sequence / packet id).
    pub tag: u32,
    /// Already destroyed by an optimistic collision upstream and forwarded as garbage
    /// (only with [`BufferlessConfig::forward_garbled`]); the receiving NIC discards it.
    pub garbled: bool,
}

/// A cell leaving an output port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departure {
    /// Output port.
    pub port: u8,
    /// The cell, route pointer advanced.
    pub cell: Cell,
}

/// Configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferlessConfig {
    /// Phases a cell occupies an output (its serialization time).
    pub phases_per_cell: u16,
    /// Phases from a cell's head arriving to its head leaving.
    pub latency: u16,
    /// Cut-through behaviour of two colliding optimistic cells: `false` drops both at this
    /// switch; `true` lets their (garbled) bits continue on their routes, occupying the
    /// downstream links until the receiving NIC discards them. `true` is the collision model
    /// behind Eq. 2-6 (a cell's whole path is its vulnerable region).
    pub forward_garbled: bool,
}

impl Default for BufferlessConfig {
    fn default() -> Self {
        BufferlessConfig {
            phases_per_cell: 1,
            latency: 1,
            forward_garbled: false,
        }
    }
}

/// Counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BufferlessStats {
    /// Cells offered.
    pub offered: u64,
    /// Cells forwarded.
    pub forwarded: u64,
    /// Optimistic cells dropped on a collision.
    pub optimistic_dropped: u64,
    /// Scheduled cells that met another scheduled cell (a scheduler bug).
    pub scheduled_collisions: u64,
    /// Cells whose route named no port of this switch (or was used up).
    pub misrouted: u64,
    /// Cells dropped because the in-flight registers were full (never with a valid config).
    pub overflow: u64,
    /// Garbled cells sent on (with `forward_garbled`).
    pub garbled_out: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InFlight {
    cell: Cell,
    arrive: u64,
    lost: bool,
    /// Occupies the output (an optimistic cell dropped by a scheduled one never does).
    on_wire: bool,
}

/// The crossbar: `P` ports, `D` in-flight registers per output.
#[derive(Debug, Clone)]
pub struct BufferlessSwitch<const P: usize, const D: usize> {
    cfg: BufferlessConfig,
    now: u64,
    offers: Deque<(u8, Cell), P>,
    flight: [Deque<InFlight, D>; P],
    out: [Option<Departure>; P],
    /// The cells that lost a collision in the last closed phase, each with the output it was
    /// headed for and its route as it arrived: a tap for traces, not switch state (the
    /// hardware drops them, [`BufferlessStats::optimistic_dropped`] counts them, or with
    /// `forward_garbled` sends their bits on). Kept only after [`BufferlessSwitch::tap_lost`].
    lost: heapless::Vec<Departure, LOST_TAP>,
    tap: bool,
    stats: BufferlessStats,
}

/// Room in [`BufferlessSwitch::lost`] per phase; more losses in one phase are counted
/// (`optimistic_dropped`) but not listed.
pub const LOST_TAP: usize = 128;

impl<const P: usize, const D: usize> BufferlessSwitch<P, D> {
    /// A switch; checks `phases_per_cell >= 1`, `latency >= phases_per_cell`, `latency < D`.
    pub fn new(cfg: BufferlessConfig) -> Result<Self, ConfigError> {
        if P == 0 || P > 64 {
            return Err(ConfigError::new("P", "1..=64 ports (u6 route fields)"));
        }
        if cfg.phases_per_cell == 0 {
            return Err(ConfigError::new("phases_per_cell", "must be at least 1"));
        }
        if cfg.latency < cfg.phases_per_cell {
            return Err(ConfigError::new(
                "latency",
                "must be at least one cell time (phases_per_cell)",
            ));
        }
        if cfg.latency as usize >= D {
            return Err(ConfigError::new(
                "latency",
                "must be below the in-flight capacity D",
            ));
        }
        Ok(BufferlessSwitch {
            cfg,
            now: 0,
            offers: Deque::new(),
            flight: core::array::from_fn(|_| Deque::new()),
            out: [None; P],
            lost: heapless::Vec::new(),
            tap: false,
            stats: BufferlessStats::default(),
        })
    }

    /// Counters.
    pub fn stats(&self) -> BufferlessStats {
        self.stats
    }

    /// The current phase.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Per-cycle input: a cell's head arrives on `in_port` this phase (at most one per input
    /// per phase; extra offers in one phase are counted as overflow).
    pub fn offer(&mut self, in_port: u8, cell: Cell) {
        self.stats.offered += 1;
        if self.offers.push_back((in_port, cell)).is_err() {
            self.stats.overflow += 1;
        }
    }

    /// Cells whose head left each output in the last closed phase.
    pub fn departures(&self) -> &[Option<Departure>; P] {
        &self.out
    }

    /// From now on keep each phase's collision losers for [`Self::lost`] (a trace tap; off by
    /// default, and then nothing is kept).
    pub fn tap_lost(&mut self) {
        self.tap = true;
    }

    /// With [`Self::tap_lost`]: the cells that lost a collision in the last closed phase (an
    /// optimistic cell meeting a scheduled one or another optimistic cell, counted in
    /// [`BufferlessStats::optimistic_dropped`]), with the output each was headed for.
    pub fn lost(&self) -> &[Departure] {
        &self.lost
    }

    /// Evaluate one arriving cell against the cells overlapping it on its output.
    fn arrive(&mut self, cell: Cell) {
        let Some(port) = cell.route.current().map(|p| p.value() as usize) else {
            self.stats.misrouted += 1;
            return;
        };
        if port >= P {
            self.stats.misrouted += 1;
            return;
        }
        let f = self.cfg.phases_per_cell as u64;
        let now = self.now;
        let mut me = InFlight {
            cell,
            arrive: now,
            lost: cell.garbled,
            on_wire: true,
        };
        let mut sched_hit = false;
        let mut opt_lost = 0u64;
        for other in self.flight[port].iter_mut() {
            if !other.on_wire || now - other.arrive >= f {
                continue;
            }
            match (other.cell.scheduled, cell.scheduled) {
                (true, true) => sched_hit = true,
                (true, false) => {
                    if !me.lost {
                        self.stats.optimistic_dropped += 1;
                        if self.tap {
                            let _ = self.lost.push(Departure {
                                port: port as u8,
                                cell,
                            });
                        }
                    }
                    me.lost = true;
                    me.on_wire = false;
                }
                (false, true) => {
                    if !other.lost {
                        other.lost = true;
                        opt_lost += 1;
                        if self.tap {
                            let _ = self.lost.push(Departure {
                                port: port as u8,
                                cell: other.cell,
                            });
                        }
                    }
                }
                (false, false) => {
                    if !other.lost {
                        other.lost = true;
                        opt_lost += 1;
                        if self.tap {
                            let _ = self.lost.push(Departure {
                                port: port as u8,
                                cell: other.cell,
                            });
                        }
                    }
                    if !me.lost {
                        me.lost = true;
                        opt_lost += 1;
                        if self.tap {
                            let _ = self.lost.push(Departure {
                                port: port as u8,
                                cell,
                            });
                        }
                    }
                }
            }
        }
        self.stats.optimistic_dropped += opt_lost;
        if sched_hit {
            self.stats.scheduled_collisions += 1;
            return;
        }
        if self.flight[port].push_back(me).is_err() {
            self.stats.overflow += 1;
        }
    }

    /// Retire cells whose head leaves at or before `now`; the last phase's departures are
    /// kept in `out`.
    fn retire(&mut self) {
        let lat = self.cfg.latency as u64;
        for (p, q) in self.flight.iter_mut().enumerate() {
            self.out[p] = None;
            while let Some(f) = q.front() {
                let depart = f.arrive + lat;
                if depart > self.now {
                    break;
                }
                let f = *f;
                q.pop_front();
                let garbage = f.lost && f.on_wire && self.cfg.forward_garbled;
                if !f.lost || garbage {
                    if garbage {
                        self.stats.garbled_out += 1;
                    } else {
                        self.stats.forwarded += 1;
                    }
                    if depart == self.now {
                        self.out[p] = Some(Departure {
                            port: p as u8,
                            cell: Cell {
                                route: f.cell.route.advanced(),
                                garbled: f.lost,
                                ..f.cell
                            },
                        });
                    }
                }
            }
        }
    }
}

impl<const P: usize, const D: usize> Clocked for BufferlessSwitch<P, D> {
    /// Close the phase: evaluate this phase's offers in input order, then move to the next
    /// phase and emit the cells whose head leaves in it.
    fn tick(&mut self) {
        if self.tap {
            self.lost.clear();
        }
        while let Some((_, c)) = self.offers.pop_front() {
            self.arrive(c);
        }
        self.now += 1;
        self.retire();
    }

    /// O(cells in flight).
    fn advance(&mut self, cycles: Cycles) {
        if cycles == 0 {
            return;
        }
        if self.tap {
            self.lost.clear();
        }
        while let Some((_, c)) = self.offers.pop_front() {
            self.arrive(c);
        }
        self.now += cycles;
        self.retire();
    }
}

/// State per switch: per output a busy counter (`bits_for(latency)` <= 16), the occupant's
/// scheduled and lost bits; four 32-bit counters. The payload path is pipeline wiring, not
/// buffer.
impl<const P: usize, const D: usize> StateBudget for BufferlessSwitch<P, D> {
    const NAME: &'static str = "Zeropod bufferless crossbar (per-output occupancy + counters)";
    const UNIT: &'static str = "per switch";
    const BITS: u32 = P as u32 * (bits_for(D as u64) + 2) + 4 * 32;
}

/// The k = 32 ToR / Agg of §V-A.
pub type K32Switch = BufferlessSwitch<32, 32>;
const _: () = assert!(<K32Switch as StateBudget>::BITS == 32 * (6 + 2) + 128);

#[cfg(test)]
mod tests {
    use super::*;
    use rtl_models::Clocked;

    fn cell(ports: &[u8], scheduled: bool, tag: u32) -> Cell {
        Cell {
            route: Route::new(ports).unwrap(),
            scheduled,
            tag,
            garbled: false,
        }
    }

    #[test]
    fn forwards_on_the_route_at_fixed_latency() {
        let mut s = BufferlessSwitch::<8, 8>::new(BufferlessConfig {
            phases_per_cell: 1,
            latency: 3,
            forward_garbled: false,
        })
        .unwrap();
        s.offer(0, cell(&[5, 2], true, 1));
        s.tick();
        s.tick();
        assert!(s.departures().iter().all(|d| d.is_none()));
        s.tick();
        let d = s.departures()[5].unwrap();
        assert_eq!(d.cell.tag, 1);
        assert_eq!(d.cell.route.current().unwrap().value(), 2);
        assert_eq!(s.stats().forwarded, 1);
    }

    #[test]
    fn collision_rule() {
        let mut s = BufferlessSwitch::<8, 8>::new(BufferlessConfig::default()).unwrap();
        s.tap_lost();
        // scheduled vs optimistic on port 3: the optimistic one goes.
        s.offer(0, cell(&[3], false, 1));
        s.offer(1, cell(&[3], true, 2));
        // two optimistic on port 4: both go.
        s.offer(2, cell(&[4], false, 3));
        s.offer(3, cell(&[4], false, 4));
        // alone on port 5: delivered.
        s.offer(4, cell(&[5], false, 5));
        s.tick();
        let st = s.stats();
        assert_eq!(st.optimistic_dropped, 3);
        assert_eq!(st.scheduled_collisions, 0);
        assert_eq!(s.departures()[3].unwrap().cell.tag, 2);
        assert!(s.departures()[4].is_none());
        assert_eq!(s.departures()[5].unwrap().cell.tag, 5);
        // The trace tap lists the three losers with the output each was on.
        let mut lost = [(0u8, 0u32); 3];
        assert_eq!(s.lost().len(), 3);
        for (l, d) in lost.iter_mut().zip(s.lost()) {
            *l = (d.port, d.cell.tag);
        }
        lost.sort_unstable();
        assert_eq!(lost, [(3, 1), (4, 3), (4, 4)]);
        // two scheduled: counted as a scheduler bug, the first is kept.
        s.offer(0, cell(&[6], true, 6));
        s.offer(1, cell(&[6], true, 7));
        s.tick();
        assert_eq!(s.stats().scheduled_collisions, 1);
        assert_eq!(s.departures()[6].unwrap().cell.tag, 6);
        assert!(
            s.lost().is_empty(),
            "the tap holds the last phase's losers only"
        );
    }

    #[test]
    fn unslotted_overlap_within_one_cell_time() {
        let mut s = BufferlessSwitch::<4, 16>::new(BufferlessConfig {
            phases_per_cell: 4,
            latency: 4,
            forward_garbled: false,
        })
        .unwrap();
        s.offer(0, cell(&[1], false, 1));
        s.advance(3);
        s.offer(1, cell(&[1], false, 2)); // 3 phases later: overlaps
        s.advance(1);
        s.offer(2, cell(&[1], false, 3)); // 4 phases after #2's head? no: 1 phase after #2
        s.advance(8);
        assert_eq!(s.stats().optimistic_dropped, 3);
        s.offer(0, cell(&[2], false, 4));
        s.advance(4);
        s.offer(1, cell(&[2], false, 5)); // exactly one cell time later: no overlap
        s.advance(8);
        assert_eq!(s.stats().optimistic_dropped, 3);
        assert_eq!(s.stats().forwarded, 2);
    }

    #[test]
    fn bad_config_and_bad_route() {
        let e = BufferlessSwitch::<4, 4>::new(BufferlessConfig {
            phases_per_cell: 2,
            latency: 1,
            forward_garbled: false,
        })
        .unwrap_err();
        assert_eq!(e.field, "latency");
        let mut s = BufferlessSwitch::<4, 4>::new(BufferlessConfig::default()).unwrap();
        s.offer(0, cell(&[9], true, 1));
        s.offer(0, cell(&[], true, 2));
        s.tick();
        assert_eq!(s.stats().misrouted, 2);
    }
}
