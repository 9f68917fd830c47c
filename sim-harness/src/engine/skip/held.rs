//! Held DATA lanes of `skip.partition_by = "data_ports"` (beyond
//! `../shared/papers/wormhole.md` 6.2): the ports a skipped partition shares with others,
//! their phantom ACK load, `skip.held_occupancy`, and the packets held before their host.
//!
//! * **ACK ports shared with other partitions** (`data_ports` only): when a partition is
//!   skipped, its ports that carry another partition's ACKs are *not* paused: they keep
//!   serving their control lane in real time with their DATA lane held
//!   ([`PortRt::data_frozen`]; its occupancy stays, 6.2), and its own ACK-only ports run
//!   on. With `skip.held_occupancy` (beyond 6.2, whose paused ports carry nothing of the
//!   skipped flows) a held DATA lane keeps the skipped flows' rate as occupancy: a control
//!   packet waits for the end of a virtual DATA packet of a stream at that rate
//!   ([`Sim::held_wait`]). A packet of a skipped flow that reaches its host across such a port at `t` is held
//!   and delivered at `t + delta` when the partition resumes (as if its whole path had been
//!   shifted), so no skipped sender or receiver changes during the skip. The approximation:
//!   while skipped, the partition's ACKs are missing from the ports it shares with others;
//!   each such port serializes at its line rate less that ACK load (one header per DATA
//!   packet at the flows' estimated rates, [`Sim::add_phantom`]) instead. A flow that
//!   starts with its ACKs on a paused port of a skipped partition resumes it (skip-back);
//!   with `skip.foreign_ack_interrupts` (opt-in) one whose ACKs cross any DATA port of
//!   another partition, skipped (a held lane too) or not, starting or completing, is an
//!   interrupt of it ([`Sim::foreign_ack_interrupt`]).
//!   Measured (`benches/README.md`, session 6b): 85x fewer events on paper-size GPT-13B /
//!   128 but 1.35 % mean FCT error (the pipeline flows' timing moves), so not the default.

use super::*;

impl Sim {
    /// Add (or take back) a skipped partition's ACK load on ports of other partitions: each
    /// port serializes at its line rate less the ACK load it stands in for.
    pub(super) fn add_phantom(&mut self, load: &[(u32, u64)], add: bool) {
        let w = self.wh.as_mut().expect("wormhole on");
        for &(p, bps) in load {
            let total = w.phantom.entry(p).or_default();
            if add {
                *total += bps;
            } else {
                *total -= bps;
            }
            let total = *total;
            if total == 0 {
                w.phantom.remove(&p);
            }
            let port = &mut self.ports[p as usize];
            let gbps = (port.gbps - total as f64 / 1e9).max(port.gbps / 2.0);
            port.ser_q32 = ser_q32(if total == 0 { port.gbps } else { gbps });
        }
    }

    /// Packet `pk` reaches host `h` while some partition is skipped: held if its flow's
    /// is, delivered otherwise.
    #[cold]
    #[inline(never)]
    pub(in crate::engine) fn arrive_or_hold(&mut self, h: u32, pk: Packet) {
        if !self.wh_hold(h, &pk) {
            self.transport_arrive(h, pk);
        }
    }

    /// Packet `pk` of an active flow reaches its host now: if the flow's partition is
    /// skipped, hold it (delivered when the partition resumes, [`Sim::thaw`]) and say so.
    pub(super) fn wh_hold(&mut self, h: u32, pk: &Packet) -> bool {
        let now = self.now;
        let Some(w) = self.wh.as_mut() else {
            return false;
        };
        if w.purged.get(pk.flow as usize).is_some_and(|&p| p) {
            // A stale packet of a flow completed with its lockstep leader: never delivered.
            w.st.lock_stale_drops += 1;
            return true;
        }
        if !w.active.is_frozen(pk.flow) {
            return false;
        }
        let Some(fr) = w
            .parts
            .partition_of_flow(pk.flow)
            .and_then(|id| w.frozen.get_mut(&id))
        else {
            return false;
        };
        fr.held.push((now, h, *pk));
        true
    }

    /// The delivery of held packet `slot` (its partition resumed): to its host, or held
    /// again if the partition is skipped once more.
    pub(super) fn redeliver(&mut self, slot: u32) {
        let w = self.wh.as_mut().expect("wormhole on");
        let Some((h, pk)) = w.redeliver[slot as usize].take() else {
            return;
        };
        w.free_slots.push(slot);
        if self.wh_holding && self.wh_hold(h, &pk) {
            return;
        }
        self.transport_arrive(h, pk);
    }
}
