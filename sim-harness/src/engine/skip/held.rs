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
//!   interrupt of it ([`Sim::foreign_ack_interrupt`]), and a steady flow's estimate is
//!   capped at its DATA ports' capacity less the ACKs they carry
//!   ([`Sim::cap_at_data_ports`]).
//!   Measured (`benches/README.md`, session 6b): 85x fewer events on paper-size GPT-13B /
//!   128 but 1.35 % mean FCT error (the pipeline flows' timing moves), so not the default.

use super::*;

impl Sim {
    /// `skip.held_occupancy`: port `p`'s virtual DATA stream ([`Sim::held_wait`]) as
    /// `(tx, period)`: an MTU's serialization `tx` at the port's rate now and the time
    /// between the stream's packets, `tx` stretched from the line rate to the stream's
    /// `virt_bps`, at least `tx` (ps). Kept per port with the inputs it came from (the
    /// serialization rate, which phantom ACK loads and failures change, the stream's rate
    /// and the line rate) and recomputed when one differs: a control packet's wait is one
    /// division instead of three.
    pub(in crate::engine) fn virt_period(&mut self, p: u32) -> (u64, u64) {
        let port = &self.ports[p as usize];
        let key = (port.ser_q32, port.virt_bps, port.gbps.to_bits());
        if let Some(&Some((k, v))) = self.wh.as_ref().and_then(|w| w.virt_period.get(p as usize)) {
            if k == key {
                return v;
            }
        }
        let tx = ser_ps(self.wh_mtu(), port.ser_q32).max(1);
        let line_bps = (port.gbps * 1e9) as u64;
        // u64 arithmetic when `tx * line_bps` fits (always at the shipped rates: the same
        // floors as in u128, without its software division), else u128.
        let period = match tx.checked_mul(line_bps) {
            Some(x) => (x / port.virt_bps.max(1)).max(tx),
            None => {
                let period = (u128::from(tx) * u128::from(line_bps)
                    / u128::from(port.virt_bps.max(1)))
                .max(u128::from(tx));
                // (A period past u64::MAX leaves every `since` as its own phase.)
                u64::try_from(period).unwrap_or(u64::MAX)
            }
        };
        if let Some(w) = self.wh.as_mut() {
            if w.virt_period.len() <= p as usize {
                w.virt_period.resize(p as usize + 1, None);
            }
            w.virt_period[p as usize] = Some((key, (tx, period)));
        }
        (tx, period)
    }

    /// `skip.partition_by = "data_ports"` with `skip.foreign_ack_interrupts` (beyond
    /// `../shared/papers/wormhole.md` 5.1's Eq. 7): cap each steady flow's estimate at what
    /// its DATA ports deliver. Eq. 7's `R^` is the rate the sender *sends* at (packets over
    /// the window); under `all_ports` every port a flow crosses, ACK ports included, belongs
    /// to its partition, so a send rate above a port's capacity keeps a queue growing there.
    /// Under `data_ports` a port also carries the ACKs of other partitions' flows (one
    /// `hdr`-byte ACK per DATA packet: `rate x hdr / mtu` of its line rate, what
    /// [`Sim::add_phantom`] stands in for while they are skipped): a flow starting on a
    /// switch port that carries them still sends at its host's line rate for the first RTTs
    /// (its window does not bind yet) while the port delivers `hdr / mtu` (~1.5 %) less, the
    /// excess queueing there. Measured (`tests/wormhole.rs`,
    /// `acks_on_a_data_port_cap_the_rate_estimate`): such a flow was skipped at 98.46 Gb/s
    /// where the full run delivers 96.95 Gb/s (-1.04 % FCT error; the stand-in itself was
    /// exact: 96.95 Gb/s under it, 96.97 under the real ACKs). So each port `p` of the
    /// flows' DATA paths delivers at most `(line - acks) x mtu / (mtu + hdr)` of payload,
    /// `acks` the ACK bit rate of every active flow whose ACK path crosses `p` (at its
    /// estimate, its skipped rate, or its last sample); the flows crossing an overloaded
    /// port get its capacity in proportion to their send rates (a FIFO queue's share), and
    /// a flow keeps the smallest of its ports' shares. Only with
    /// `skip.foreign_ack_interrupts`: then a start or completion changing those ACK streams
    /// ends the skip, so the cap holds for its length; without it a skip capped by ACKs
    /// that end meanwhile runs on too slow (measured: W2 0.994 % -> 1.248 % at paper size).
    pub(super) fn cap_at_data_ports(&self, flows: &mut [SteadyFlow]) {
        let w = self.wh.as_ref().expect("wormhole on");
        if w.all_ports || !w.foreign_acks {
            return;
        }
        let mut load: BTreeMap<u32, u128> = BTreeMap::new();
        for f in flows.iter() {
            for &p in w.parts.path(f.flow).unwrap_or_default() {
                *load.entry(p).or_default() += u128::from(f.rate_bps);
            }
        }
        let mut acks: BTreeMap<u32, u128> = BTreeMap::new();
        for &g in &w.active.ids {
            let rate = match flows.iter().find(|f| f.flow == g) {
                Some(f) => f.rate_bps,
                None => w
                    .active
                    .get(&g)
                    .map_or(0, |s| s.hint.unwrap_or(s.last_rate)),
            };
            let bps = u128::from(rate) * u128::from(w.hdr) / u128::from(w.mtu);
            for p in w.parts.ack_path(g).unwrap_or_default() {
                if let Some(a) = load.contains_key(p).then(|| acks.entry(*p).or_default()) {
                    *a += bps;
                }
            }
        }
        for f in flows.iter_mut() {
            // `skip.nic_bound_samples`' model rate already is a delivered rate (its test
            // asks for empty queues past the host port and no overloaded port).
            if w.active.get(&f.flow).is_some_and(|s| s.model_only(w)) {
                continue;
            }
            let mut rate = u128::from(f.rate_bps);
            for &p in w.parts.path(f.flow).unwrap_or_default() {
                let line = (self.ports[p as usize].gbps * 1e9) as u128;
                let cap = line.saturating_sub(acks.get(&p).copied().unwrap_or(0))
                    * u128::from(w.mtu)
                    / u128::from(w.mtu + w.hdr);
                let l = load[&p];
                if l > cap {
                    rate = rate.min(u128::from(f.rate_bps) * cap / l);
                }
            }
            f.rate_bps = rate as u64;
        }
    }

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

    /// A held DATA lane of a resumed partition (flows `flows`), `delta` ps after it was
    /// held, serves again (6.2: its queues were frozen): its phantom queue, a DATA-lane
    /// counter, comes back as it was held ([`crate::port::PortDriver::hold_phantom`]), and
    /// the times its held DATA carry for their transport move by `delta`
    /// ([`crate::transport::TransportDriver::shift_packet`]: Uno's send stamps), as a paused
    /// port's do ([`Sim::shift_state`]). dcfab's extension of 6.2 (held lanes are).
    pub(super) fn release_held(&mut self, p: u32, flows: &[u32], delta: Time) {
        let port = &mut self.ports[p as usize];
        port.data_frozen = false;
        port.kind.hold_phantom(delta);
        if self.transport.shifts_packets() {
            for pk in port.data_q.iter_mut().filter(|pk| flows.contains(&pk.flow)) {
                self.transport.shift_packet(pk, delta);
            }
        }
        self.kick(p);
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
        if w.purged_any && w.purged.get(pk.flow as usize).is_some_and(|&p| p) {
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
