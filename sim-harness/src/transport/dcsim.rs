//! The DCSIM transport driver ([`super::TransportDriver::Dcsim`]): the host side of DCSIM
//! in the DES (the DCSIM logic itself is in [`crate::dcsim`]; its ports' glue in
//! `crate::port::dcsim`). Reached only through the driver's dispatch in [`super`]; its
//! per-event functions run in the driver context [`Cx`].
//!
//! ```text
//!  Arrivals --> open: pending -> engine slot --> host_drain(h)
//!  host_drain(h):  engine to now (timers) -> releases into the NIC's DATA queue
//!                  -> SIMs while the NIC's SIM queue has room -> Cx::nic_serve(h)
//!                  -> host_timer(h) (one HostTimer event per host)
//!  port_serve(p) (port/dcsim.rs): line free and a packet due now? take it (port_depart:
//!                  departing, transmit, departed) : else one TxDone wake-up at the next start
//!  switch arrival --> port_arrive(out) -> port_enqueue (drop = tail drop of its class)
//!  host arrival  --> arrive: SIM: SIM-ACK at once | SIM-ACK: on_sim_ack | DATA: receiver,
//!                    metrics, DATA-ACK (SACK word in the side table) | DATA-ACK:
//!                    on_data_ack, flow completion
//! ```
//!
//! Every event that touches a flow in a host engine checks Eq. 3 (`n_SIM <= n_DATA`)
//! afterwards ([`crate::dcsim::Counters::invariant_checks`]).

use super::ctx::Cx;
use super::TransportDriver;
use crate::dcsim::host::{FlowInit, Phase, NO_FLOW};
use crate::dcsim::{DcsimParams, DcsimPort, DcsimState};
use crate::engine::metrics::arrival_of;
use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::event::{Kind, NEVER};
use crate::packet::{Packet, PktKind};
use crate::port::PortDriver;
use crate::results::RunResult;
use crate::scenario::{CcKind, Scenario};
use nic::dcsim::{sim_ack_for, DataAck, DataArrival};
use rtl_models::RandomSource;
use switch::dcsim::{Class, Enqueue};

impl DcsimState {
    /// A packet was dropped (any cause): count it by kind, free a DATA-ACK's side entry.
    pub(crate) fn on_drop(&mut self, pk: &Packet) {
        match pk.kind {
            PktKind::Sim => self.k.sim_drops += 1,
            PktKind::SimAck => self.k.sim_ack_drops += 1,
            PktKind::DataAck => {
                self.k.data_ack_drops += 1;
                self.acks.take(pk.psn);
            }
            PktKind::Data => self.k.data_drops += 1,
            _ => {}
        }
    }
}

impl Sim {
    /// For `cc = "dcsim"`: the DCSIM ports and hosts.
    pub(crate) fn dcsim_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.topology;
        let mtu = u64::from(s.transport.mtu.max(1));
        let specs: Vec<_> = self.flows.iter().map(|f| f.spec).collect();
        let datas: Vec<u32> = specs
            .iter()
            .map(|f| f.bytes.div_ceil(mtu).max(1) as u32)
            .collect();
        if s.transport.cc != CcKind::Dcsim {
            return Ok(());
        }
        let params = DcsimParams::new(
            s,
            self.fabric.longest.links,
            self.buffer_bytes,
            self.bdp_bytes,
        )?;
        // Every rate a port will run at must be modelled.
        for (i, f) in s.failures.iter().enumerate() {
            if let Some(g) = f.gbps {
                params.arbiter_config(g, &format!("failures[{i}].gbps"))?;
            }
        }
        if t.core_links != crate::scenario::CoreLinks::All {
            params.arbiter_config(
                t.link_gbps * t.slow_core_fraction,
                "topology.slow_core_fraction",
            )?;
        }
        let mut seeds = Vec::with_capacity(self.fabric.hosts as usize);
        for p in 0..self.ports.len() {
            let gbps = self.fabric.ports[p].gbps;
            let cfg = params.arbiter_config(gbps, "topology.link_gbps")?;
            let dp = DcsimPort::new(cfg).map_err(|e| {
                Error::field(
                    params.data_buffer_field,
                    format!("{} ({})", e.problem, e.field),
                )
            })?;
            let port = &mut self.ports[p];
            if p < self.fabric.hosts as usize {
                seeds.push(port.rng.next_u32());
            }
            port.kind = PortDriver::Dcsim(Box::new(dp));
        }
        let flows: Vec<FlowInit> = specs
            .iter()
            .zip(&datas)
            .map(|(f, &datas)| FlowInit {
                src: f.src,
                dst: f.dst,
                datas,
                bytes: f.bytes,
            })
            .collect();
        self.transport = TransportDriver::Dcsim(Box::new(DcsimState::new(
            params,
            self.fabric.hosts,
            &flows,
            seeds,
        )?));
        Ok(())
    }
}

/// The DCSIM state of a DCSIM run.
#[inline]
fn st(t: &mut TransportDriver) -> &mut DcsimState {
    t.dcsim_mut().expect("a DCSIM run")
}

/// Packet `pk` starts leaving host `p`'s NIC now (before its transmission): the host
/// engine to now, SIM / DATA transmitted.
pub(crate) fn departing(cx: &mut Cx, p: u32, pk: &Packet) {
    let parts = cx.parts();
    let now = parts.now;
    let st = st(parts.transport);
    let hd = &mut st.hosts[p as usize];
    let c = hd.cycle(now);
    hd.eng.advance_to(c);
    let phase = st.send[pk.flow as usize].phase;
    match pk.kind {
        PktKind::Sim => {
            st.k.sims_sent += 1;
            if let Phase::Open(slot) = phase {
                st.hosts[p as usize].eng.on_sim_transmitted(slot, pk.ev);
                st.check_invariant(p, slot);
            }
        }
        PktKind::Data => {
            st.send[pk.flow as usize].tx += 1;
            if let Phase::Open(slot) = phase {
                st.hosts[p as usize].eng.on_data_transmitted(slot, pk.psn);
                st.check_invariant(p, slot);
            }
            parts.c.data_sent += 1;
        }
        _ => {}
    }
}

/// Packet `pk` left host `p`'s NIC: SIMs refilled after a SIM, the host's timer.
pub(crate) fn departed(cx: &mut Cx, p: u32, pk: &Packet) {
    if pk.kind == PktKind::Sim {
        refill_sims(cx, p);
    }
    host_timer(cx, p);
}

/// Host `h` adds SIMs to its NIC's SIM queue while it has room and a flow may send one
/// (section 2.4 (1)); the port is at now.
#[inline(always)]
fn refill_sims(cx: &mut Cx, h: u32) {
    let (p, nic) = cx.nic_parts(h);
    let Some(st) = p.transport.dcsim_mut() else {
        return;
    };
    let PortDriver::Dcsim(dp) = nic else {
        return;
    };
    let l = st.p.small_bytes;
    // At most one SIM per free place of the SIM queue; each flow checked (Eq. 3) as it
    // sends (the check reads the engine only, so before or after the enqueue is the same).
    let mut n = 0;
    while dp.arbiter().sim_space() > 0 && n < crate::dcsim::port::SMALL_SLOTS {
        let hd = &mut st.hosts[h as usize];
        let Some((slot, ev)) = hd.eng.next_sim(&mut hd.rng) else {
            break;
        };
        let f = hd.slot_flow[slot as usize];
        st.check_invariant(h, slot);
        let pk = Packet {
            flow: f,
            src: h,
            dst: st.send[f as usize].dst,
            psn: 0,
            cum_ack: 0,
            bytes: l,
            ev,
            kind: PktKind::Sim,
            ecn: false,
        };
        let r = dp.enqueue(pk);
        debug_assert_eq!(r, Enqueue::Accepted, "the SIM queue had room");
        n += 1;
    }
    p.c.ctrl_created += n as u64;
}

/// Host `h`: engine to now, releases into the NIC's DATA queue, SIMs, port service,
/// next timer.
fn host_drain(cx: &mut Cx, h: u32) {
    {
        let p = cx.parts();
        let hd = &mut st(p.transport).hosts[h as usize];
        let c = hd.cycle(p.now);
        hd.eng.advance_to(c);
    }
    cx.nic_sync(h);
    let (p, nic) = cx.nic_parts(h);
    if let (Some(st), PortDriver::Dcsim(dp)) = (p.transport.dcsim_mut(), nic) {
        let hd = &mut st.hosts[h as usize];
        while let Some(r) = hd.eng.pop_release() {
            let f = hd.slot_flow[r.flow as usize];
            let fs = &st.send[f as usize];
            let pk = Packet {
                flow: f,
                src: h,
                dst: fs.dst,
                psn: r.seq,
                cum_ack: 0,
                bytes: st.p.payload(fs.bytes, r.seq) + st.p.header_bytes,
                ev: r.ev,
                kind: PktKind::Data,
                ecn: false,
            };
            if dp.enqueue(pk) != Enqueue::Accepted {
                hd.eng.on_data_dropped_locally(r.flow, r.seq);
                st.k.data_local_drops += 1;
            }
        }
    }
    refill_sims(cx, h);
    cx.nic_serve(h);
    host_timer(cx, h);
}

/// Schedule host `h`'s `HostTimer` at its earliest engine or receiver deadline.
#[inline(always)]
fn host_timer(cx: &mut Cx, h: u32) {
    let p = cx.parts();
    let now = p.now;
    let st = st(p.transport);
    let hd = &st.hosts[h as usize];
    let mut next = NEVER;
    if let Some(c) = hd.eng.next_timer() {
        next = hd.ps(c.max(hd.eng.now() + 1));
    }
    if let Some(std::cmp::Reverse((t, _))) = hd.rx_timers.peek() {
        next = next.min((*t).max(now + 1));
    }
    let hd = &mut st.hosts[h as usize];
    if next < hd.timer_at {
        hd.timer_at = next;
        cx.arm(next, Kind::HostTimer, h);
    }
}

/// (Re)arm flow `f`'s receiver interval timer in host `h`'s heap.
#[inline]
fn rx_arm(cx: &mut Cx, h: u32, f: u32) {
    let p = cx.parts();
    let now = p.now;
    let st = st(p.transport);
    let fs = &mut st.flows[f as usize];
    match fs.rx.next_timer() {
        Some(c) => {
            let t = st.hosts[h as usize].ps(c).max(now + 1);
            if t != fs.rx_timer_at {
                fs.rx_timer_at = t;
                st.hosts[h as usize]
                    .rx_timers
                    .push(std::cmp::Reverse((t, f)));
            }
        }
        None => fs.rx_timer_at = NEVER,
    }
}

/// Host `h`'s `HostTimer` event.
pub(crate) fn timer(cx: &mut Cx, h: u32) {
    let mut acks;
    {
        let p = cx.parts();
        let now = p.now;
        let st = st(p.transport);
        let hd = &mut st.hosts[h as usize];
        if hd.timer_at != now {
            return;
        }
        hd.timer_at = NEVER;
        let c = hd.cycle(now);
        acks = std::mem::take(&mut st.ack_scratch);
        let hd = &mut st.hosts[h as usize];
        while let Some(&std::cmp::Reverse((t, f))) = hd.rx_timers.peek() {
            if t > now {
                break;
            }
            hd.rx_timers.pop();
            let fs = &mut st.flows[f as usize];
            if fs.rx_timer_at != t {
                continue;
            }
            fs.rx_timer_at = NEVER;
            fs.rx.advance_to(c);
            if let Some(a) = fs.rx.take_ack() {
                acks.push((f, a));
            }
        }
    }
    for &(f, a) in &acks {
        send_data_ack(cx, h, f, a);
        rx_arm(cx, h, f);
    }
    acks.clear();
    st(cx.parts().transport).ack_scratch = acks;
    host_drain(cx, h);
}

/// Receiver host `h` sends DATA-ACK `a` of flow `f`.
fn send_data_ack(cx: &mut Cx, h: u32, f: u32, a: DataAck) {
    let p = cx.parts();
    let dst = p.flows[f as usize].spec.src;
    let st = st(p.transport);
    let idx = st.acks.put(a.sack);
    let ev = st.hosts[h as usize].rng.next_u32() as u16;
    st.k.data_acks_sent += 1;
    let pk = Packet {
        flow: f,
        src: h,
        dst,
        psn: idx,
        cum_ack: a.cum,
        bytes: st.p.small_bytes,
        ev,
        kind: PktKind::DataAck,
        ecn: false,
    };
    cx.send_ctrl(h, pk);
}

/// Flow `f` starts (DCSIM run): it waits for an engine slot at its source.
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let h = p.flows[f as usize].spec.src;
    let now = p.now;
    let flows = &*p.flows;
    let Some(st) = p.transport.dcsim_mut() else {
        return;
    };
    let c = st.hosts[h as usize].cycle(now);
    st.hosts[h as usize].eng.advance_to(c);
    st.hosts[h as usize].pending.push_back(f);
    st.admit(h, |g| flows[g as usize].spec.collective);
    cx.progress();
    host_drain(cx, h);
}

/// A packet reached host `h` (DCSIM run).
pub(crate) fn arrive(cx: &mut Cx, h: u32, pk: Packet) {
    let f = pk.flow;
    match pk.kind {
        PktKind::Sim => {
            // Section 2.4 (3): the SIM-ACK goes back at once, echoing the SIM's EV.
            let p = cx.parts();
            p.c.ctrl_delivered += 1;
            let st = st(p.transport);
            st.k.sim_acks_sent += 1;
            let reply = Packet {
                flow: f,
                src: h,
                dst: pk.src,
                psn: 0,
                cum_ack: 0,
                bytes: st.p.small_bytes,
                ev: sim_ack_for(pk.ev),
                kind: PktKind::SimAck,
                ecn: false,
            };
            cx.send_ctrl(h, reply);
        }
        PktKind::SimAck => {
            let p = cx.parts();
            let now = p.now;
            p.c.ctrl_delivered += 1;
            let st = st(p.transport);
            if let Phase::Open(slot) = st.send[f as usize].phase {
                let c = st.hosts[h as usize].cycle(now);
                st.hosts[h as usize].eng.advance_to(c);
                st.hosts[h as usize].eng.on_sim_ack(slot, pk.ev);
                st.check_invariant(h, slot);
                host_drain(cx, h);
            }
        }
        PktKind::Data => {
            let p = cx.parts();
            let now = p.now;
            p.c.data_delivered += 1;
            let hdr = p.hdr_bytes;
            let Some(st) = p.transport.dcsim_mut() else {
                return;
            };
            // The receiver runs on its host's clock.
            let c = st.hosts[h as usize].cycle(now);
            let fs = &mut st.flows[f as usize];
            fs.rx.advance_to(c);
            let arrival = fs.rx.on_data(pk.psn);
            if arrival == DataArrival::Overflow {
                st.k.rx_overflow += 1;
            }
            let new = arrival == DataArrival::New;
            // The collective metrics are off in some runs (an LLM iteration reports its
            // own); the receiver and its DATA-ACKs never depend on them.
            if let Some(cm) = p.cm {
                cm.on_data(arrival_of(&pk, hdr, new), now);
                if new && fs.rx.stats().delivered == u64::from(fs.datas) {
                    cm.on_flow_received(f, now);
                }
            }
            let ack = fs.rx.take_ack();
            if let Some(a) = ack {
                send_data_ack(cx, h, f, a);
            }
            rx_arm(cx, h, f);
            host_timer(cx, h);
        }
        PktKind::DataAck => {
            let p = cx.parts();
            let now = p.now;
            p.c.ctrl_delivered += 1;
            let flows = p.flows;
            let Some(st) = p.transport.dcsim_mut() else {
                return;
            };
            let sack = st.acks.take(pk.psn);
            let Phase::Open(slot) = st.send[f as usize].phase else {
                return;
            };
            let hd = &mut st.hosts[h as usize];
            let c = hd.cycle(now);
            hd.eng.advance_to(c);
            let n = hd.eng.on_data_ack(
                slot,
                DataAck {
                    cum: pk.cum_ack,
                    sack,
                },
            );
            let done = hd.eng.is_done(slot);
            st.check_invariant(h, slot);
            if done {
                let hd = &mut st.hosts[h as usize];
                hd.eng.close_flow(slot);
                hd.slot_flow[slot as usize] = NO_FLOW;
                let fs = &mut st.send[f as usize];
                fs.phase = Phase::Done;
                let fl = &mut flows[f as usize];
                fl.stats.packets_sent = fs.tx;
                fl.stats.retransmits = fs.tx.saturating_sub(u64::from(fs.datas));
                st.admit(h, |g| flows[g as usize].spec.collective);
                cx.flow_done(f);
            }
            if n > 0 || done {
                cx.progress();
            }
            host_drain(cx, h);
        }
        _ => {}
    }
}

impl Sim {
    /// For DCSIM: refuse the run if a host engine's flow held stored times more than
    /// 2^32 host cycles apart (their 32-bit offsets, `nic::dcsim::DcsimFlow`'s "Stored
    /// times", would then be wrong). Cannot happen while the timers fit the host clock,
    /// which `DcsimParams` sizes from the DATA timeout; checked rather than assumed.
    pub(crate) fn dcsim_time_check(&self) -> Result<()> {
        let Some(st) = self.transport.dcsim() else {
            return Ok(());
        };
        if st.hosts.iter().any(|hd| hd.eng.time_overflow()) {
            return Err(Error::field(
                "transport.dcsim.ack_interval_rtts",
                "a DCSIM flow kept timers more than 2^32 host cycles apart, beyond its \
                 32-bit time offsets; the run is refused (a longer DATA-ACK interval \
                 coarsens the host clock, whose period follows the DATA timeout)",
            ));
        }
        Ok(())
    }

    /// For DCSIM: its counters and per-flow numbers in `r`.
    pub(crate) fn dcsim_results(&self, r: &mut RunResult) {
        let x = &mut r.summary.extra;
        let Some(st) = self.transport.dcsim() else {
            x.insert("sim_drops".into(), 0.0);
            x.insert("sim_loss_rate".into(), 0.0);
            return;
        };
        let k = &st.k;
        let mut late_releases = 0;
        let (mut sim_timeouts, mut data_timeouts, mut stale) = (0, 0, 0);
        let mut window_blocked = 0;
        for hd in &st.hosts {
            let s = hd.eng.stats();
            window_blocked += s.window_blocked;
            late_releases += s.late_releases;
            sim_timeouts += s.sim_timeouts;
            data_timeouts += s.data_timeouts;
            stale += s.stale_sim_acks;
        }
        // Packets held by arbiters are in flight too: DATAs at switches (a DATA in a host
        // NIC's queue is not sent yet), control packets anywhere (created when queued).
        let (mut queued_data, mut queued_ctrl) = (0u64, 0u64);
        let mut late_ports = 0u64;
        for (p, port) in self.ports.iter().enumerate() {
            if let PortDriver::Dcsim(dp) = &port.kind {
                late_ports += dp.late;
                let a = dp.arbiter();
                if p >= self.fabric.hosts as usize {
                    queued_data += a.queue_len(Class::Data) as u64;
                }
                queued_ctrl += [Class::Sim, Class::SimAck, Class::DataAck]
                    .iter()
                    .map(|&c| a.queue_len(c) as u64)
                    .sum::<u64>();
            }
        }
        if let Some(v) = x.get_mut("data_in_flight_end") {
            *v += queued_data as f64;
        }
        if let Some(v) = x.get_mut("ctrl_in_flight_end") {
            *v += queued_ctrl as f64;
        }
        // Per-port class counters (`dcsim_ports.csv`), ports that saw traffic.
        let mut rows = Vec::new();
        for (p, port) in self.ports.iter().enumerate() {
            if let PortDriver::Dcsim(dp) = &port.kind {
                let a = dp.stats();
                if a.accepted.iter().sum::<u64>() == 0 && a.dropped.iter().sum::<u64>() == 0 {
                    continue;
                }
                let mut row = vec![self.fabric.ports[p].name.clone()];
                for c in Class::ALL {
                    row.push(a.accepted[c.index()].to_string());
                    row.push(a.dropped[c.index()].to_string());
                }
                rows.push(row);
            }
        }
        let mut header = vec!["port".to_string()];
        for c in Class::ALL {
            header.push(format!("{}_accepted", c.name()));
            header.push(format!("{}_dropped", c.name()));
        }
        r.tables
            .insert("dcsim_ports".into(), crate::results::Table { header, rows });
        let sims = k.sims_sent.max(1) as f64;
        for (name, v) in [
            ("sim_drops", k.sim_drops as f64),
            ("sim_loss_rate", k.sim_drops as f64 / sims),
            ("sims_sent", k.sims_sent as f64),
            ("sim_acks_sent", k.sim_acks_sent as f64),
            ("sim_ack_drops", k.sim_ack_drops as f64),
            ("data_acks_sent", k.data_acks_sent as f64),
            ("data_ack_drops", k.data_ack_drops as f64),
            ("data_local_drops", k.data_local_drops as f64),
            ("rx_overflow", k.rx_overflow as f64),
            ("window_blocked", window_blocked as f64),
            ("sims_needed", f64::from(st.p.sims_needed)),
            ("window_needed", f64::from(st.p.window_needed)),
            ("sim_timeouts", sim_timeouts as f64),
            ("data_timeouts", data_timeouts as f64),
            ("stale_sim_acks", stale as f64),
            ("late_releases", late_releases as f64),
            ("late_departures", (k.late_departures + late_ports) as f64),
            ("dcsim_invariant_checks", k.invariant_checks as f64),
            ("dcsim_invariant_violations", k.invariant_violations as f64),
            ("rtt_max_ps", st.p.rtt_max_ps as f64),
            ("rtt_p_ps", st.p.rtt_p_ps as f64),
            ("dcsim_data_buffer_bytes", st.p.data_buffer_bytes as f64),
        ] {
            x.insert(name.into(), v);
        }
        let mut retx = 0;
        for (i, row) in r.flows.iter_mut().enumerate() {
            let fs = &st.send[i];
            row.packets_sent = fs.tx;
            row.retransmits = fs.tx.saturating_sub(u64::from(fs.datas));
            retx += row.retransmits;
            if let Some(cm) = &self.cm {
                row.out_of_order = cm.flow_reorder(i as u32);
            }
        }
        r.summary.retransmits = retx;
        if let Some(cm) = &self.cm {
            r.summary.out_of_order = cm.reorder();
        }
    }
}
