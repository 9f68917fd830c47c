//! Port drivers: what an output port does with the packets offered to it. One variant per
//! kind of port, statically dispatched (a `match`, no `dyn` per packet):
//!
//! * [`PortDriver::Host`]: a host NIC; it pulls DATA from its flows (the transport), so it
//!   admits nothing here.
//! * [`PortDriver::Switch`]: the baseline switch output port, the `switch` crate's
//!   [`OutputPortCtl`] (tail drop at the buffer, RED/ECN marking, trimming; a phantom queue
//!   if configured), with a strict-priority control lane beside its DATA FIFO.
//! * [`PortDriver::Dcsim`]: a DCSIM port (switch or host NIC), whose arbiter holds the
//!   packets ([`crate::dcsim::DcsimPort`]; engine glue in `port/dcsim.rs`). It schedules its
//!   own departures ([`PortDriver::self_scheduled`]): the engine serves it through
//!   `Sim::port_serve` / `port_arrive` / `port_rate_changed`, never by its variant.
//! * [`PortDriver::Pfabric`]: a pFabric switch port (`transport.cc = "pfabric"`): the
//!   `switch` crate's priority buffer holds its DATA ([`pfabric::PfabricPortRt`]; engine
//!   glue `Sim::pfabric_arrive` in `port/pfabric.rs`); the engine serializes.
//!
//! The engine keeps the queues (packets by value) and the link; the driver decides
//! admission ([`PortDriver::admit`]), accounts departures, reports occupancy and its
//! counters, and moves its absolute times on a shift ([`PortDriver::shift`]).

mod dcsim;
pub mod pfabric;

use crate::clock::{ClockDomain, NIC_PERIOD_PS};
use crate::dcsim::DcsimPort;
use crate::event::Time;
use crate::packet::{Packet, PktKind};
use rtl_models::{Lfsr32, PhantomConfig, Rate, RedConfig};
use switch::output_port::{Admit, MarkOn, OutputPortCtl, PhantomPortConfig};

/// The driver of one output port.
#[derive(Debug, Clone)]
pub enum PortDriver {
    /// A host NIC (pulls DATA from its flows); the host id.
    Host(u32),
    /// A baseline switch output port with its admission / marking block, and the port's
    /// clock (the 1 GHz NIC clock, its origin moved by [`PortDriver::shift`]): the block's
    /// phantom queue keeps the cycle it was synced to, so the port converts DES time to its
    /// own cycles.
    Switch(OutputPortCtl, ClockDomain),
    /// A DCSIM port, switch or host NIC (`transport.cc = "dcsim"`).
    Dcsim(Box<DcsimPort>),
    /// A pFabric switch port (`transport.cc = "pfabric"`): its DATA in a priority buffer.
    Pfabric(Box<pfabric::PfabricPortRt>),
}

/// Where an admitted packet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
    /// The DATA FIFO (ECN mark already applied to the packet).
    Data,
    /// The control lane: a control packet, or a DATA trimmed to its header.
    Control {
        /// Whether this was a DATA trimmed by the port.
        trimmed: bool,
    },
    /// Dropped: the buffer is full.
    Dropped,
}

impl PortDriver {
    /// Offer packet `pk` to a switch output port at DES time `now` (ps; the port converts it
    /// to a cycle of its own clock): control packets go to the control lane; a DATA is
    /// admitted by the port's block (tail drop, RED/ECN with `rng`, trimming), which may mark
    /// or trim `pk`.
    #[inline]
    pub fn admit(&mut self, now: Time, pk: &mut Packet, rng: &mut Lfsr32) -> Admitted {
        if pk.kind.is_control() {
            return Admitted::Control { trimmed: false };
        }
        let PortDriver::Switch(ctl, clock) = self else {
            unreachable!("switch routes lead to switch output ports")
        };
        match ctl.on_arrival(clock.cycle_at(now), pk.bytes, rng) {
            Admit::Enqueue { ecn_mark } => {
                pk.ecn |= ecn_mark;
                Admitted::Data
            }
            Admit::Trim => {
                pk.bytes = ctl.trimmed_size(pk.bytes);
                pk.kind = PktKind::Header;
                Admitted::Control { trimmed: true }
            }
            Admit::Drop => Admitted::Dropped,
        }
    }

    /// Whether the port schedules its own departures (an arbiter with start times: DCSIM):
    /// the engine then serves it with [`crate::engine::Sim::port_serve`] and offers it
    /// arrivals with [`crate::engine::Sim::port_arrive`] instead of its FIFOs.
    #[inline]
    pub fn self_scheduled(&self) -> bool {
        matches!(self, PortDriver::Dcsim(_))
    }

    /// DATA `pk` left the port's DATA FIFO (starts transmission) at DES time `now`: a switch
    /// port's marker marks it here under `topology.ecn_mark = "departure"` (and its phantom
    /// marker under `topology.phantom_mark_at = "departure"`), drawing from `rng` only then.
    #[inline]
    pub fn on_data_departure(&mut self, pk: &mut Packet, now: Time, rng: &mut Lfsr32) {
        if let PortDriver::Switch(ctl, clock) = self {
            pk.ecn |= ctl.on_departure_marked_at(clock.cycle_at(now), pk.bytes, rng);
        }
    }

    /// The phantom queue's occupancy at DES time `now`, bytes, without changing the port (a
    /// copy of the queue is drained to `now`); `None` without a phantom queue.
    pub fn phantom_occupancy_bytes(&self, now: Time) -> Option<u64> {
        let PortDriver::Switch(ctl, clock) = self else {
            return None;
        };
        let mut q = *ctl.phantom()?;
        q.sync_to(clock.cycle_at(now).max(q.now()));
        Some(q.occupancy())
    }

    /// Bytes queued for the occupancy samples: a switch port's DATA buffer, a DCSIM switch
    /// port's queues (`switch_side`); `None` for host NICs.
    pub fn occupancy_bytes(&self, switch_side: bool) -> Option<u64> {
        match self {
            PortDriver::Switch(ctl, _) => Some(ctl.occupancy_bytes()),
            PortDriver::Dcsim(d) if switch_side => Some(d.queued_bytes()),
            PortDriver::Pfabric(pf) => Some(pf.queued_bytes()),
            _ => None,
        }
    }

    /// (ECN marks, trims) made by the port.
    pub fn marks_trims(&self) -> (u64, u64) {
        match self {
            PortDriver::Switch(ctl, _) => (ctl.marks(), ctl.trims()),
            PortDriver::Host(_) | PortDriver::Dcsim(_) | PortDriver::Pfabric(_) => (0, 0),
        }
    }

    /// Move the port's absolute times `delta` ps later (a shifted partition): a switch
    /// port's clock (its phantom queue's synced cycle is a cycle of that clock, so the
    /// queue drains nothing over the shift), a DCSIM port's clock. A host NIC holds none.
    pub fn shift(&mut self, delta: u64) {
        match self {
            PortDriver::Switch(_, clock) => clock.shift(delta),
            PortDriver::Dcsim(dp) => dp.shift(delta),
            PortDriver::Host(_) | PortDriver::Pfabric(_) => {}
        }
    }

    /// Apply `f` to every packet the driver itself queues (a DCSIM port's four queues, a
    /// pFabric port's priority buffer), in place: a Wormhole shift of the times their
    /// headers carry. The baseline ports' packets are in the port's own lanes.
    pub fn for_each_packet_mut(&mut self, mut f: impl FnMut(&mut Packet)) {
        match self {
            PortDriver::Dcsim(dp) => dp.for_each_packet_mut(f),
            PortDriver::Pfabric(pf) => pf.packets_mut().for_each(&mut f),
            PortDriver::Switch(..) | PortDriver::Host(_) => {}
        }
    }

    /// A held DATA lane (Wormhole `data_ports`, `engine/skip/held.rs`) serves again after
    /// `delta` ps: a switch port's phantom queue, a counter of the DATA lane's arrivals
    /// draining in the port's cycles, is frozen over them like the lane's physical
    /// occupancy (Wormhole 6.2: a skipped partition's queues are frozen): the port's clock
    /// moves `delta` later, as a paused port's does ([`PortDriver::shift`]). Nothing
    /// crossed the lane's admission meanwhile (its control lane bypasses the block), so the
    /// queue's synced cycle stays behind the clock. A port without a phantom queue keeps
    /// its clock (nothing of it counts time).
    pub fn hold_phantom(&mut self, delta: u64) {
        if let PortDriver::Switch(ctl, clock) = self {
            if ctl.phantom().is_some() {
                clock.shift(delta);
            }
        }
    }

    /// The pFabric port, for a port of that kind.
    #[inline]
    pub fn pfabric(&self) -> Option<&pfabric::PfabricPortRt> {
        match self {
            PortDriver::Pfabric(pf) => Some(pf),
            _ => None,
        }
    }
}

/// The phantom queue of a baseline switch port of `gbps` on the 1 GHz port clock
/// (`topology.phantom_queue`): draining `drain` (a fraction, (0, 1]) of the line rate and
/// holding at most `cap_bytes` (the port's buffer), marking as `mark_on` says (on the phantom
/// occupancy with the port's own RED thresholds `red`). The error is a problem for `topology.phantom_drain`.
pub fn phantom_config(
    gbps: f64,
    drain: f64,
    cap_bytes: u64,
    red: RedConfig,
    mark_on: crate::scenario::PhantomMarkOn,
) -> Result<PhantomPortConfig, String> {
    let line = Rate::from_link((gbps * 1e9).round() as u64, NIC_PERIOD_PS)
        .ok_or_else(|| format!("{gbps} Gb/s is not a rate a port clock can hold"))?;
    let permille = (drain * 1000.0).round() as u64;
    let rate = line
        .scale(permille, 1000)
        .filter(|r| r.0 > 0)
        .ok_or_else(|| format!("{drain} of {gbps} Gb/s drains nothing per port cycle"))?;
    let cfg = PhantomConfig {
        drain: rate,
        cap_bytes,
    };
    cfg.validate()
        .map_err(|e| format!("{} ({})", e.problem, e.field))?;
    Ok(PhantomPortConfig {
        queue: cfg,
        ecn: red,
        mark_on: match mark_on {
            crate::scenario::PhantomMarkOn::Phantom => MarkOn::Phantom,
            crate::scenario::PhantomMarkOn::Physical => MarkOn::Physical,
            crate::scenario::PhantomMarkOn::Both => MarkOn::Both,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::NIC_CLOCK;
    use crate::scenario::PhantomMarkOn;
    use switch::output_port::PortConfig;

    /// A 100 Gb/s switch port with a phantom queue draining at 90 %, 40 KB of DATA in it.
    fn port(phantom: bool) -> PortDriver {
        let red = RedConfig::linear(10_000, 80_000);
        let ph = phantom_config(100.0, 0.9, 1 << 20, red, PhantomMarkOn::Phantom).unwrap();
        let ctl = OutputPortCtl::new(PortConfig {
            phantom: phantom.then_some(ph),
            ..PortConfig::tail_drop(1 << 20)
        })
        .unwrap();
        let mut d = PortDriver::Switch(ctl, NIC_CLOCK);
        let mut rng = Lfsr32::new(1);
        for _ in 0..10 {
            let mut pk = Packet::data(0, 0, 1, 0, 4000, 0);
            assert_eq!(d.admit(1_000_000, &mut pk, &mut rng), Admitted::Data);
        }
        d
    }

    /// A held DATA lane (Wormhole `data_ports`) keeps its phantom level across the skip as
    /// its physical occupancy (6.2): after `hold_phantom(delta)` the queue at `t + delta`
    /// holds what it held at `t`, and drains on from there; without the hold it drained
    /// over the skip. A port without a phantom queue is left as it was.
    #[test]
    fn a_held_lane_keeps_its_phantom_level() {
        let (t, delta) = (2_000_000, 50_000_000);
        let mut d = port(true);
        let at_t = d.phantom_occupancy_bytes(t).unwrap();
        assert!(at_t > 0);
        assert!(
            d.phantom_occupancy_bytes(t + delta).unwrap() < at_t,
            "drains unheld"
        );
        d.hold_phantom(delta);
        assert_eq!(d.phantom_occupancy_bytes(t + delta), Some(at_t));
        assert!(d.phantom_occupancy_bytes(t + delta + 1_000_000).unwrap() < at_t);
        let mut plain = port(false);
        plain.hold_phantom(delta);
        let PortDriver::Switch(_, clock) = plain else {
            unreachable!()
        };
        assert_eq!(clock, NIC_CLOCK, "no phantom queue: the clock stays");
    }
}
