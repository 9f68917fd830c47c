//! The sender of one flow of the Uno transport: its congestion control ([`FlowCc`]: the
//! `nic` blocks UnoCC, Gemini, MPRDMA, BBR) and the reliability of Uno 4.2 over *units*.
//!
//! ```text
//!  unit = one packet (no erasure code)  |  one block of x data + y parity (UnoRC EC)
//!  next_wire(): the unit being sent, else a unit queued for retransmission, else a new one
//!  wire packet number (wpn) = unit * stride + index   (stride = x + y; 1 without EC)
//!  ACK {wpn | DONE, stamp echo, ecn, ev} -> CC on_ack(bytes, ecn, rtt); DONE: unit delivered
//!  NACK trimmed packet (no EC)  /  NACK block (EC, the receiver's block timer) -> retransmit
//!  timeout: a unit fully sent rto ago and not delivered -> retransmit (Uno 4.2: "a sender
//!           timeout occurs (possibly due to lost NACKs)")
//! ```
//!
//! Units are in send order in a FIFO of (time of their latest packet sent, unit), so the
//! oldest is the next to time out; a stale entry (the unit sent a packet since) is skipped. `inflight` counts the
//! payload bytes of wire packets sent and neither ACKed nor declared lost.

use nic::uno::bbr::{Bbr, BbrConfig};
use nic::uno::gemini::{GeminiCc, GeminiConfig};
use nic::uno::mprdma::MprdmaCc;
use nic::uno::{UnoCc, UnoCcConfig};
use rtl_models::{ConfigError, Cycles};
use std::collections::VecDeque;

/// Bit 31 of an ACK's `psn`: the unit of the acknowledged wire packet is delivered (its
/// packet received, or its block decoded). Of a NACK's `psn`: the NACK names a block.
pub const DONE: u32 = 1 << 31;

/// A growable bit set.
#[derive(Debug, Clone, Default)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// `n` bits, all clear.
    pub fn new(n: u32) -> Bits {
        Bits(vec![0; (n as usize).div_ceil(64)])
    }
    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    /// Set bit `i` to `v`.
    #[inline]
    pub fn put(&mut self, i: u32, v: bool) {
        if let Some(w) = self.0.get_mut(i as usize / 64) {
            if v {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }
}

/// The congestion control of one flow.
#[derive(Debug, Clone)]
pub enum FlowCc {
    /// UnoCC (Uno Algorithm 1), paced at cwnd / base RTT when pacing is on.
    Uno(UnoCc),
    /// Gemini-style window CC.
    Gemini(GeminiCc),
    /// MPRDMA-style per-ACK ECN window CC (intra-DC flows of MPRDMA+BBR).
    Mprdma(MprdmaCc),
    /// BBRv1 (inter-DC flows of MPRDMA+BBR) and its pacer's next send cycle.
    Bbr(Box<Bbr>, Cycles),
}

/// What an ACK made the congestion control do (Uno's events, for the counters).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CcEvents {
    /// Quick Adapt fired.
    pub qa: bool,
    /// A multiplicative decrease.
    pub md: bool,
    /// The decrease was gentle (phantom-only congestion).
    pub gentle: bool,
}

impl FlowCc {
    /// The window, bytes.
    pub fn cwnd(&self) -> u64 {
        match self {
            FlowCc::Uno(c) => c.cwnd(),
            FlowCc::Gemini(c) => c.cwnd(),
            FlowCc::Mprdma(c) => c.cwnd(),
            FlowCc::Bbr(b, _) => u64::from(b.cwnd()),
        }
    }

    /// The earliest cycle the pacer lets the next packet go (0: no pacer).
    fn pace_at(&self, pacing: bool) -> Cycles {
        match self {
            FlowCc::Uno(c) if pacing => c.next_send(),
            FlowCc::Bbr(_, next) => *next,
            _ => 0,
        }
    }

    /// A packet of `bytes` payload left at `now`.
    fn on_send(&mut self, now: Cycles, bytes: u32, pacing: bool) {
        match self {
            FlowCc::Uno(c) if pacing => c.on_send(now, bytes),
            FlowCc::Bbr(b, next) => {
                let rate = u64::from(b.pacing_rate_q16().max(1));
                let gap = (u64::from(bytes) << 16).div_ceil(rate);
                *next = now.max(*next) + gap;
            }
            _ => {}
        }
    }

    /// An ACK of `bytes` newly acknowledged payload at `now`, ECN mark `ecn`, RTT `rtt`
    /// cycles; `inflight` after it; `dlv_at_send`: BBR's delivered count when the packet left.
    fn on_ack(
        &mut self,
        now: Cycles,
        bytes: u32,
        ecn: bool,
        rtt: Cycles,
        inflight: u64,
        dlv_at_send: u64,
    ) -> CcEvents {
        match self {
            FlowCc::Uno(c) => {
                let o = c.on_ack(now, bytes, ecn, rtt);
                CcEvents {
                    qa: o.qa,
                    md: o.md,
                    gentle: o.gentle,
                }
            }
            FlowCc::Gemini(c) => {
                let r = c.on_ack(now, bytes, ecn, rtt);
                CcEvents {
                    md: r.is_some_and(|r| r.ecn || r.delay),
                    ..CcEvents::default()
                }
            }
            FlowCc::Mprdma(c) => {
                c.on_ack(bytes, ecn);
                CcEvents {
                    md: ecn,
                    ..CcEvents::default()
                }
            }
            FlowCc::Bbr(b, _) => {
                // Delivery-rate sample: bytes delivered while the packet was in flight over
                // its RTT (the BBR draft's sample, with the packet's send time as the
                // interval start).
                let delivered = b.delivered() + u64::from(bytes);
                let rate = ((delivered.saturating_sub(dlv_at_send)) << 16) / rtt.max(1);
                b.on_ack(
                    now,
                    bytes,
                    rtt.max(1),
                    dlv_at_send,
                    rate.min(u64::from(u32::MAX)) as u32,
                    inflight,
                );
                CcEvents::default()
            }
        }
    }

    /// A NACK (trimmed packet or unrecoverable block) at `now`.
    fn on_nack(&mut self, now: Cycles, mtu: u32) {
        match self {
            FlowCc::Uno(c) => c.on_nack(now),
            // MPRDMA: a loss takes half a packet off like a marked ACK.
            FlowCc::Mprdma(c) => c.on_ack(mtu, true),
            // Gemini reacts to ECN and delay only; BBR ignores loss.
            FlowCc::Gemini(_) | FlowCc::Bbr(..) => {}
        }
    }

    /// A sender timeout at `now`: UnoCC's Algorithm 1 has no timeout reaction (a loss
    /// shows as missing ACKs to Quick Adapt), and MPRDMA cuts one packet per loss.
    fn on_timeout(&mut self, _now: Cycles, mtu: u32) {
        if let FlowCc::Mprdma(c) = self {
            c.on_ack(mtu, true);
            c.on_ack(mtu, true);
        }
    }
}

/// How a flow's sender is built.
#[derive(Debug, Clone, Copy)]
pub struct TxParams {
    /// Message bytes.
    pub bytes: u64,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Data packets per unit (x; 1 without EC).
    pub x: u32,
    /// Parity packets per unit (y; 0 without EC).
    pub y: u32,
    /// Whether units are erasure-coded blocks (else single packets).
    pub ec: bool,
    /// A unit not delivered this long after it was fully sent is sent again, ps.
    pub rto_ps: u64,
    /// The flow's base RTT, cycles (one CC timeout reaction per base RTT at most).
    pub base_rtt: Cycles,
    /// Pacing on.
    pub pacing: bool,
    /// The window never counts above this many bytes (`transport.uno.baseline_max_cwnd`;
    /// `u64::MAX`: no cap beyond the CC's own).
    pub cwnd_cap: u64,
    /// A sender timeout cuts the window (MPRDMA; `transport.uno.baseline_timeout_cut`).
    pub timeout_cut: bool,
    /// Gemini and MPRDMA paced at cwnd / base RTT, one packet `(payload + 64 B) x base RTT /
    /// cwnd` after the last (`transport.uno.baseline_pacing`; the authors'
    /// `LcpSrc::update_pacing_delay` with `-usePacing 1`).
    pub window_pacing: bool,
    /// A sender timeout restarts BBR's window at one MTU (`transport.uno.bbr_timeout_reset`;
    /// the authors' `BBRSrc::apply_timeout_penalty`).
    pub bbr_timeout_reset: bool,
    /// A block sent again (NACK or sender timeout) resends only its packets not ACKed yet
    /// (`transport.uno.resend_unacked`; the authors' `LcpSrc::processParityNack` and
    /// `LcpSrc::retransmit_packet`), each on the next subflow of the round robin. Off: the
    /// whole block (paper 4.2: "retransmission of the missing block").
    pub resend_unacked: bool,
}

/// The sender's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxStats {
    /// Wire packets sent (data, parity, retransmissions).
    pub packets_sent: u64,
    /// Wire packets sent again (of a retransmitted unit).
    pub retransmits: u64,
    /// Parity packets sent.
    pub parity_sent: u64,
    /// ECN-marked ACKs.
    pub ecn_acks: u64,
    /// NACKs received (trimmed packets and blocks).
    pub nacks: u64,
    /// Units that timed out at the sender.
    pub timeouts: u64,
    /// Units queued for retransmission (blocks, with EC).
    pub units_retransmitted: u64,
    /// Quick Adapt events.
    pub qa: u64,
    /// Multiplicative decreases (all kinds).
    pub md: u64,
    /// Gentle decreases (UnoCC line 10).
    pub gentle: u64,
    /// Wire packets taken out of flight as lost (by a NACK, a timeout, or a timer finding
    /// them never acknowledged after their block was decoded): what Wormhole's steady test
    /// counts against the flow's dropped packets (`SkipView::settled`).
    pub settled: u64,
}

/// What an ACK did.
#[derive(Debug, Clone, Copy, Default)]
pub struct AckDone {
    /// Payload bytes newly acknowledged.
    pub newly: u32,
    /// Every unit is delivered.
    pub flow_done: bool,
}

/// The sender of one flow.
#[derive(Debug, Clone)]
pub struct UnoTx {
    /// Congestion control.
    pub cc: FlowCc,
    p: TxParams,
    data_pkts: u32,
    last_payload: u32,
    stride: u32,
    units: u32,
    done: Bits,
    queued: Bits,
    units_done: u32,
    data_done: u32,
    out: Bits,
    /// Wire packets ACKed (`resend_unacked` only; empty otherwise).
    acked: Bits,
    evs: Vec<u16>,
    dlv: Vec<u64>,
    retx: VecDeque<u32>,
    next_new: u32,
    cur: Option<(u32, u32, bool)>,
    last_sent: Vec<u64>,
    fifo: VecDeque<(u64, u32)>,
    inflight: u64,
    last_cc_timeout: Option<Cycles>,
    /// `window_pacing`: the earliest cycle of the next send.
    win_pace_at: Cycles,
    /// Data packets taken off the message by Wormhole fast-forwards ([`UnoTx::fast_forward`]):
    /// sent and delivered at the steady rate while the flow's partition was skipped.
    skipped_data: u32,
    /// Counters.
    pub stats: TxStats,
}

impl UnoTx {
    /// A sender for `p` with congestion control `cc`.
    pub fn new(p: TxParams, cc: FlowCc) -> Result<UnoTx, ConfigError> {
        if p.bytes == 0 || p.mtu == 0 || p.x == 0 {
            return Err(ConfigError::new("message_bytes", "must be above zero"));
        }
        let data = p.bytes.div_ceil(u64::from(p.mtu));
        let stride = if p.ec { p.x + p.y } else { 1 };
        let units = if p.ec {
            data.div_ceil(u64::from(p.x))
        } else {
            data
        };
        if units.saturating_mul(u64::from(stride)) >= 1 << 31 {
            return Err(ConfigError::new(
                "message_bytes",
                "more than 2^31 wire packets",
            ));
        }
        let (data, units) = (data as u32, units as u32);
        let wire = units * stride;
        Ok(UnoTx {
            dlv: if matches!(cc, FlowCc::Bbr(..)) {
                vec![0; wire as usize]
            } else {
                Vec::new()
            },
            cc,
            last_payload: (p.bytes - u64::from(data - 1) * u64::from(p.mtu)) as u32,
            data_pkts: data,
            stride,
            units,
            done: Bits::new(units),
            queued: Bits::new(units),
            units_done: 0,
            data_done: 0,
            out: Bits::new(wire),
            acked: Bits::new(if p.resend_unacked { wire } else { 0 }),
            evs: vec![0; wire as usize],
            retx: VecDeque::new(),
            next_new: 0,
            cur: None,
            last_sent: vec![u64::MAX; units as usize],
            fifo: VecDeque::new(),
            inflight: 0,
            last_cc_timeout: None,
            win_pace_at: 0,
            skipped_data: 0,
            stats: TxStats::default(),
            p,
        })
    }

    /// Units of the message.
    pub fn units(&self) -> u32 {
        self.units
    }

    /// Units delivered.
    pub fn units_done(&self) -> u32 {
        self.units_done
    }

    /// Data packets of the units delivered.
    pub fn data_delivered(&self) -> u32 {
        self.data_done
    }

    /// Data packets delivered, those a Wormhole fast-forward took off the message included.
    pub fn data_delivered_with_skipped(&self) -> u32 {
        self.data_done + self.skipped_data
    }

    /// Wire packets of the units never sent, the last unit excepted: what a Wormhole
    /// fast-forward may take ([`UnoTx::fast_forward`]).
    pub fn skippable_wire(&self) -> u64 {
        u64::from(self.units.saturating_sub(self.next_new).saturating_sub(1))
            * u64::from(self.stride)
    }

    /// Wire packets of a whole unit (`x + y` with erasure coding, Uno 4.2; 1 without).
    pub fn stride(&self) -> u32 {
        self.stride
    }

    /// Wormhole fast-forward (Wormhole paper 5.3 / 6.2; Uno 4.2's units): `wire` wire
    /// packets were sent and delivered at the steady rate while the flow's partition was
    /// skipped. Whole units come off the never-sent part of the message, the last unit
    /// (possibly a short block or packet) kept, as [`nic::transport::DctcpSender::fast_forward`]
    /// shrinks its PSN space: with erasure coding the whole blocks nearest to `wire / (x + y)`
    /// (`x` data packets each; a block's parity goes with it), without one packet per wire
    /// packet ([`UnoTx::units_for`]). Every
    /// unit sent so far keeps its number, wire packets, timers and bits; the kept last unit
    /// is renumbered `k` lower on both ends ([`super::rx::UnoRx::fast_forward`] takes the
    /// same `k` units), so block numbering, parity (a function of the flow and the block
    /// number) and the receiver's per-block state stay consistent. The congestion control
    /// (window, epoch, pacer) is the steady state's and stays. Returns the units taken.
    pub fn fast_forward(&mut self, wire: u64) -> u32 {
        let k = self.units_for(wire);
        let data = if self.p.ec { k * self.p.x } else { k };
        self.units -= k;
        self.data_pkts -= data;
        self.skipped_data += data;
        k
    }

    /// The whole units nearest to `wire` wire packets ([`crate::transport::skip::nearest_whole`];
    /// rounded down, each skip lost half a block of `x + y` on average, session 26), at most
    /// the never-sent ones but the last.
    fn units_for(&self, wire: u64) -> u32 {
        let avail = self.units.saturating_sub(self.next_new).saturating_sub(1);
        let stride = u64::from(self.stride.max(1));
        (crate::transport::skip::nearest_whole(wire, stride) / stride).min(u64::from(avail)) as u32
    }

    /// The data packets [`UnoTx::fast_forward`]`(wire)` would take now (whole units, the
    /// last one kept), without taking them.
    pub fn fast_forward_data(&self, wire: u64) -> u32 {
        let k = self.units_for(wire);
        if self.p.ec {
            k * self.p.x
        } else {
            k
        }
    }

    /// Move every absolute time (ps) the sender holds `delta` ps later (Wormhole 6.2, a
    /// skipped partition resumed): its units' send times and the timeout FIFO. Its
    /// congestion control and pacer count cycles of the flow's clock, shifted with it.
    pub fn shift(&mut self, delta: u64) {
        for t in &mut self.last_sent {
            if *t != u64::MAX {
                *t = t.saturating_add(delta);
            }
        }
        for (t, _) in &mut self.fifo {
            *t = t.saturating_add(delta);
        }
    }

    /// Payload bytes in flight.
    pub fn inflight(&self) -> u64 {
        self.inflight
    }

    /// Data packets of unit `u`.
    fn data_in(&self, u: u32) -> u32 {
        if self.p.ec {
            (self.data_pkts - u * self.p.x).min(self.p.x)
        } else {
            1
        }
    }

    /// Wire packets of unit `u`.
    fn len(&self, u: u32) -> u32 {
        if self.p.ec {
            self.data_in(u) + self.p.y
        } else {
            1
        }
    }

    fn payload_of_psn(&self, psn: u32) -> u32 {
        if psn + 1 == self.data_pkts {
            self.last_payload
        } else {
            self.p.mtu
        }
    }

    /// Payload bytes of packet `i` of unit `u` (parity packets: one MTU).
    fn payload(&self, u: u32, i: u32) -> u32 {
        if !self.p.ec {
            self.payload_of_psn(u)
        } else if i < self.data_in(u) {
            self.payload_of_psn(u * self.p.x + i)
        } else {
            self.p.mtu
        }
    }

    fn has_work(&self) -> bool {
        self.cur.is_some() || !self.retx.is_empty() || self.next_new < self.units
    }

    /// Window room for one more packet. A paced UnoCC flow may start a packet while its
    /// bytes in flight are below the window (the pacer at cwnd / base RTT sets the rate; a
    /// whole-MTU test would hold a window between one and two MTUs to one packet per RTT,
    /// which Quick Adapt then reads as a congested RTT and cuts to one MTU again); the
    /// other congestion controls need a whole MTU of room.
    fn window_ok(&self) -> bool {
        let cwnd = self.cc.cwnd().min(self.p.cwnd_cap);
        match self.cc {
            FlowCc::Uno(_) if self.p.pacing => self.inflight < cwnd,
            _ => self.inflight == 0 || self.inflight + u64::from(self.p.mtu) <= cwnd,
        }
    }

    /// Whether a packet may leave at cycle `now`.
    pub fn can_send(&self, now: Cycles) -> bool {
        self.has_work() && self.window_ok() && now >= self.pace_at()
    }

    /// The earliest cycle a pacer lets the next packet go.
    fn pace_at(&self) -> Cycles {
        self.cc.pace_at(self.p.pacing).max(self.win_pace_at)
    }

    /// The cycle the pacer next allows a send, when that is all that holds a packet back.
    pub fn pace_wait(&self, now: Cycles) -> Option<Cycles> {
        let at = self.pace_at();
        (self.has_work() && self.window_ok() && at > now).then_some(at)
    }

    /// Take the next wire packet: (wpn, payload bytes, index within its unit, its unit,
    /// a retransmission).
    fn next_wire(&mut self) -> Option<(u32, u32, u32, u32, bool)> {
        loop {
            if self.cur.is_none() {
                while let Some(u) = self.retx.pop_front() {
                    self.queued.put(u, false);
                    if !self.done.get(u) {
                        self.cur = Some((u, 0, true));
                        self.stats.units_retransmitted += 1;
                        break;
                    }
                }
            }
            if self.cur.is_none() && self.next_new < self.units {
                self.cur = Some((self.next_new, 0, false));
                self.next_new += 1;
            }
            let (u, i, retx) = self.cur?;
            self.cur = if i + 1 < self.len(u) {
                Some((u, i + 1, retx))
            } else {
                None
            };
            let w = u * self.stride + i;
            // `resend_unacked`: a packet of a block sent again that arrived (or of a block
            // delivered since) is skipped.
            if !(retx && self.p.resend_unacked && (self.acked.get(w) || self.done.get(u))) {
                return Some((w, self.payload(u, i), i, u, retx));
            }
        }
    }

    /// Send the next wire packet at cycle `now` (`now_ps`) on the EV `ev()` gives; returns
    /// (wpn, payload bytes, EV).
    pub fn send(
        &mut self,
        now: Cycles,
        now_ps: u64,
        ev: impl FnOnce() -> u16,
    ) -> Option<(u32, u32, u16)> {
        let (wpn, payload, i, u, retx) = self.next_wire()?;
        let ev = ev();
        self.out.put(wpn, true);
        self.evs[wpn as usize] = ev;
        if let FlowCc::Bbr(b, _) = &self.cc {
            self.dlv[wpn as usize] = b.delivered();
        }
        self.inflight += u64::from(payload);
        self.cc.on_send(now, payload, self.p.pacing);
        if self.p.window_pacing && matches!(self.cc, FlowCc::Gemini(_) | FlowCc::Mprdma(_)) {
            let cwnd = self.cc.cwnd().min(self.p.cwnd_cap).max(1);
            let gap = (u64::from(payload) + 64) * self.p.base_rtt / cwnd;
            self.win_pace_at = now.max(self.win_pace_at) + gap;
        }
        self.stats.packets_sent += 1;
        if retx {
            self.stats.retransmits += 1;
        }
        if self.p.ec && i >= self.data_in(u) {
            self.stats.parity_sent += 1;
        }
        // The unit's timeout runs from its latest packet's send (an older FIFO entry of the
        // unit is stale).
        self.last_sent[u as usize] = now_ps;
        self.fifo.push_back((now_ps, u));
        Some((wpn, payload, ev))
    }

    /// The ACK of wire packet `wpn` (`done`: its unit is delivered) at cycle `now`, ECN mark
    /// `ecn`, RTT `rtt` cycles.
    pub fn on_ack(&mut self, now: Cycles, wpn: u32, done: bool, ecn: bool, rtt: Cycles) -> AckDone {
        let mut r = AckDone::default();
        let u = wpn / self.stride;
        if u >= self.units {
            return r;
        }
        if ecn {
            self.stats.ecn_acks += 1;
        }
        if self.p.resend_unacked {
            self.acked.put(wpn, true);
        }
        if self.out.get(wpn) {
            self.out.put(wpn, false);
            let bytes = self.payload(u, wpn % self.stride);
            self.inflight -= u64::from(bytes);
            r.newly = bytes;
            let dlv = self.dlv.get(wpn as usize).copied().unwrap_or(0);
            let e = self.cc.on_ack(now, bytes, ecn, rtt, self.inflight, dlv);
            self.stats.qa += u64::from(e.qa);
            self.stats.md += u64::from(e.md);
            self.stats.gentle += u64::from(e.gentle);
        }
        if done && !self.done.get(u) {
            self.done.put(u, true);
            self.units_done += 1;
            self.data_done += self.data_in(u);
            r.flow_done = self.units_done == self.units;
        }
        // Delivered units at the head of the timeout FIFO with nothing left in flight
        // need no timer.
        while let Some(&(t, h)) = self.fifo.front() {
            if self.last_sent[h as usize] != t || (self.done.get(h) && !self.any_out(h)) {
                self.fifo.pop_front();
            } else {
                break;
            }
        }
        r
    }

    fn any_out(&self, u: u32) -> bool {
        (0..self.len(u)).any(|i| self.out.get(u * self.stride + i))
    }

    /// Forget unit `u`'s packets in flight (lost) and queue it for retransmission unless it
    /// is delivered, queued or being sent; returns the EV of one of its packets that was in
    /// flight (the path to move away from).
    fn lose_unit(&mut self, u: u32) -> Option<u16> {
        let mut ev = None;
        for i in 0..self.len(u) {
            let w = u * self.stride + i;
            if self.out.get(w) {
                self.out.put(w, false);
                self.stats.settled += 1;
                self.inflight -= u64::from(self.payload(u, i));
                ev = ev.or(Some(self.evs[w as usize]));
            }
        }
        let sending = self.cur.is_some_and(|(c, _, _)| c == u);
        if !self.done.get(u) && !self.queued.get(u) && !sending {
            self.queued.put(u, true);
            self.retx.push_back(u);
        }
        ev
    }

    /// A NACK at `now`: of trimmed wire packet `wpn` (no EC), or of block `wpn & !DONE`
    /// (EC, `wpn & DONE` set). Returns the EV to reroute away from.
    ///
    /// A block NACK for a block sent (again) less than a base RTT ago is about an older copy
    /// (a NACK comes at least a base RTT plus the block timer after its block's first
    /// packet) and is ignored: the block is on its way again.
    pub fn on_nack(&mut self, now: Cycles, now_ps: u64, base_rtt_ps: u64, wpn: u32) -> Option<u16> {
        self.stats.nacks += 1;
        let (u, lost) = if wpn & DONE != 0 {
            let u = wpn & !DONE;
            let fresh = self
                .last_sent
                .get(u as usize)
                .is_some_and(|&t| t != u64::MAX && t.saturating_add(base_rtt_ps) > now_ps);
            (u, u < self.units && !self.done.get(u) && !fresh)
        } else {
            let u = wpn / self.stride;
            (u, u < self.units && self.out.get(wpn))
        };
        if !lost {
            return None;
        }
        self.cc.on_nack(now, self.p.mtu);
        let ev = self.lose_unit(u);
        ev.or_else(|| self.evs.get((u * self.stride) as usize).copied())
    }

    /// The next sender timeout, ps.
    pub fn deadline_ps(&self) -> Option<u64> {
        self.fifo
            .front()
            .map(|&(t, _)| t.saturating_add(self.p.rto_ps))
    }

    /// Sender timeouts due at `now_ps` (cycle `now`): units not delivered are lost and
    /// queued again; returns the EVs to reroute away from.
    pub fn on_timer(&mut self, now: Cycles, now_ps: u64) -> Vec<u16> {
        let mut evs = Vec::new();
        while let Some(&(t, u)) = self.fifo.front() {
            if t.saturating_add(self.p.rto_ps) > now_ps {
                break;
            }
            self.fifo.pop_front();
            if self.last_sent[u as usize] != t {
                continue; // sent again since
            }
            if self.done.get(u) {
                // Delivered; packets never ACKed were lost: out of flight.
                self.lose_unit(u);
                continue;
            }
            self.stats.timeouts += 1;
            if let Some(ev) = self.lose_unit(u) {
                evs.push(ev);
            }
            // Gemini's slow start after a timeout (`transport.uno.gemini_timeout_slow_start`;
            // off, a no-op) holds itself for one sender timeout.
            match &mut self.cc {
                FlowCc::Gemini(c) => {
                    c.on_timeout(now);
                }
                // BBR's window back to one MTU on every timed-out packet (the authors'
                // `BBRSrc::retransmit_packet` -> `apply_timeout_penalty`, no hold).
                FlowCc::Bbr(b, _) if self.p.bbr_timeout_reset => b.on_timeout(),
                _ => {}
            }
            let react = self
                .last_cc_timeout
                .is_none_or(|t| now >= t + self.p.base_rtt);
            if react {
                self.last_cc_timeout = Some(now);
                if self.p.timeout_cut {
                    self.cc.on_timeout(now, self.p.mtu);
                }
            }
        }
        evs
    }
}

/// The congestion control of a flow under `transport.cc = kind` (uno: UnoCC with `uno`;
/// gemini: Gemini with the same BDP, RTT and K; mprdma_bbr: BBR for an `inter_dc` flow,
/// MPRDMA otherwise), starting at window `init_cwnd` at cycle `now`.
pub fn flow_cc(
    kind: crate::scenario::CcKind,
    inter_dc: bool,
    uno: UnoCcConfig,
    init_cwnd: u64,
    now: Cycles,
) -> Result<FlowCc, ConfigError> {
    use crate::scenario::CcKind;
    let c = &uno;
    Ok(match kind {
        CcKind::Gemini => {
            let mut g = GeminiConfig::new(
                c.mtu_bytes,
                c.bdp_bytes.max(u64::from(c.mtu_bytes)),
                c.k_bytes * 7,
                c.base_rtt,
            );
            g.max_cwnd_bytes = c.max_cwnd_bytes.max(g.bdp_bytes);
            FlowCc::Gemini(GeminiCc::new(g)?)
        }
        CcKind::MprdmaBbr if inter_dc => {
            let line_q16 = (u128::from(c.line_rate.0) >> 16).min(u128::from(u32::MAX)) as u32;
            let bbr = Bbr::new(BbrConfig {
                mtu_bytes: c.mtu_bytes,
                init_cwnd_bytes: init_cwnd.clamp(u64::from(c.mtu_bytes), u64::from(u32::MAX))
                    as u32,
                init_rate_q16: line_q16.max(1),
                min_rtt_window: 10_000_000_000,
                probe_rtt_time: 200_000_000,
                startup_rate_hold: false,
            })?;
            FlowCc::Bbr(Box::new(bbr), now)
        }
        CcKind::MprdmaBbr => {
            FlowCc::Mprdma(MprdmaCc::new(c.mtu_bytes, init_cwnd, c.max_cwnd_bytes)?)
        }
        _ => FlowCc::Uno(UnoCc::new(
            UnoCcConfig {
                init_cwnd_bytes: init_cwnd,
                ..uno
            },
            now,
        )?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(cwnd_cap: u64, timeout_cut: bool) -> TxParams {
        TxParams {
            bytes: 64 * 1000,
            mtu: 1000,
            x: 1,
            y: 0,
            ec: false,
            rto_ps: 1_000,
            base_rtt: 10,
            pacing: false,
            cwnd_cap,
            timeout_cut,
            window_pacing: false,
            bbr_timeout_reset: false,
            resend_unacked: false,
        }
    }

    fn mprdma(p: TxParams) -> UnoTx {
        UnoTx::new(
            p,
            FlowCc::Mprdma(MprdmaCc::new(1000, 8000, 16_000).unwrap()),
        )
        .unwrap()
    }

    /// `transport.uno.resend_unacked` (the authors' `LcpSrc::processParityNack`): a NACKed
    /// (8, 2) block with 7 of its 10 packets ACKed sends the other 3 again, on the next 3
    /// subflows; off, all 10 packets on the same subflows as the first time.
    #[test]
    fn resend_unacked_sends_only_the_packets_not_acked() {
        for unacked in [false, true] {
            let p = TxParams {
                bytes: 16 * 1000,
                x: 8,
                y: 2,
                ec: true,
                resend_unacked: unacked,
                ..params(u64::MAX, false)
            };
            let mut t = UnoTx::new(
                p,
                FlowCc::Mprdma(MprdmaCc::new(1000, 40_000, 40_000).unwrap()),
            )
            .unwrap();
            // Block 0 (wire 0..10), one packet per subflow EV 0..10.
            let mut ev = 0u16;
            for w in 0..10 {
                let (wpn, _, e) = t
                    .send(0, 0, || {
                        ev += 1;
                        ev - 1
                    })
                    .unwrap();
                assert_eq!((wpn, e), (w, w as u16));
            }
            // Packets 1, 4 and 9 lost: 7 of 10 arrive, block 0 is not decodable.
            for w in [0, 2, 3, 5, 6, 7, 8] {
                t.on_ack(10, w, false, false, 10);
            }
            assert!(t.on_nack(20, 1_000_000, 1000, DONE).is_some());
            let mut again = Vec::new();
            while let Some((wpn, _, e)) = t.send(30, 1_000_000, || {
                ev += 1;
                ev - 1
            }) {
                if wpn >= 10 {
                    break; // block 1
                }
                again.push((wpn, e % 10));
            }
            if unacked {
                assert_eq!(
                    again,
                    vec![(1, 0), (4, 1), (9, 2)],
                    "the 3 missing, next subflows"
                );
            } else {
                let all: Vec<(u32, u16)> = (0..10).map(|w| (w, w as u16)).collect();
                assert_eq!(again, all, "the whole block, same subflows");
            }
            assert_eq!(t.stats.units_retransmitted, 1);
        }
    }

    /// `transport.uno.baseline_timeout_cut = false` (the authors' `-noRto`): a sender
    /// timeout retransmits without cutting MPRDMA's window; the default cuts one packet.
    #[test]
    fn mprdma_timeout_cut_only_when_asked() {
        for cut in [true, false] {
            let mut t = mprdma(params(u64::MAX, cut));
            assert!(t.send(0, 0, || 0).is_some());
            let evs = t.on_timer(100, 10_000);
            assert_eq!(evs.len(), 1);
            assert_eq!(t.stats.timeouts, 1);
            assert_eq!(t.cc.cwnd(), if cut { 7000 } else { 8000 }, "cut = {cut}");
        }
    }

    /// BBR with 1000 B packets, an 8-packet first window and one byte per cycle to start.
    fn test_bbr(startup_rate_hold: bool) -> Bbr {
        Bbr::new(BbrConfig {
            mtu_bytes: 1000,
            init_cwnd_bytes: 8000,
            init_rate_q16: 1 << 16,
            min_rtt_window: 1 << 30,
            probe_rtt_time: 1 << 20,
            startup_rate_hold,
        })
        .unwrap()
    }

    /// `transport.uno.bbr_timeout_reset`: a sender timeout puts BBR's window back to one MTU
    /// (the authors' `BBRSrc::apply_timeout_penalty`); off (the default) it stays.
    #[test]
    fn bbr_timeout_reset_only_when_asked() {
        for reset in [false, true] {
            let bbr = test_bbr(false);
            let p = TxParams {
                bbr_timeout_reset: reset,
                ..params(u64::MAX, true)
            };
            let mut t = UnoTx::new(p, FlowCc::Bbr(Box::new(bbr), 0)).unwrap();
            assert!(t.send(0, 0, || 0).is_some());
            assert_eq!(t.on_timer(100, 10_000).len(), 1);
            assert_eq!(
                t.cc.cwnd(),
                if reset { 1000 } else { 8000 },
                "reset = {reset}"
            );
        }
    }

    /// `transport.uno.bbr_startup_rate_hold`: the tail flow of docs/uno.md, "Session 11"
    /// (ratio 8): all but the last packet lost, the first ACK is that one packet after a long
    /// RTT, the rest time out. Without the hold BBR's pacer drops to 2.89 x that sample and
    /// spaces the retransmissions by tens of RTTs; with it Startup keeps its (line) rate.
    #[test]
    fn bbr_startup_rate_hold_keeps_retransmissions_at_the_startup_rate() {
        for hold in [false, true] {
            let bbr = test_bbr(hold);
            let p = TxParams {
                bytes: 3000,
                bbr_timeout_reset: true,
                ..params(u64::MAX, true)
            };
            let mut t = UnoTx::new(p, FlowCc::Bbr(Box::new(bbr), 0)).unwrap();
            let mut now = 0;
            for _ in 0..3 {
                now = t.pace_wait(now).unwrap_or(now);
                assert!(t.can_send(now));
                t.send(now, now, || 0).unwrap();
            }
            // Line rate, 1 B / cycle: 1000 cycles apart.
            assert_eq!(now, 2000);
            // The last packet's ACK, 100 000 cycles after it left: 1000 B / 100 000 cycles.
            now = 102_000;
            t.on_ack(now, 2, true, false, 100_000);
            assert_eq!(t.on_timer(now, 1_000_000).len(), 2);
            assert!(t.can_send(now));
            t.send(now, 1_000_000, || 0).unwrap();
            let gap = t.pace_at() - now;
            if hold {
                assert_eq!(gap, 1000, "held at the line rate");
            } else {
                // 1000 B at 2.89 x 0.01 B / cycle.
                assert!(gap > 30_000, "gap {gap}");
            }
        }
    }

    /// `transport.uno.baseline_max_cwnd`: the window the sender fills never exceeds the cap
    /// (BBR's own window may be larger).
    #[test]
    fn baseline_cap_bounds_the_bytes_in_flight() {
        for (cap, want) in [(u64::MAX, 8), (3000, 3)] {
            let mut t = mprdma(params(cap, true));
            let mut n = 0;
            while t.can_send(0) {
                t.send(0, 0, || 0).unwrap();
                n += 1;
            }
            assert_eq!(n, want, "cap {cap}");
        }
    }

    /// A sender and receiver of `data` data packets (the last `short` bytes short) in units
    /// of `(x, y)` (`ec`), with a window that never binds.
    fn pair(data: u32, short: u32, ec: bool, x: u32, y: u32) -> (UnoTx, super::super::rx::UnoRx) {
        let bytes = u64::from(data) * 1000 - u64::from(short);
        let p = TxParams {
            bytes,
            x: if ec { x } else { 1 },
            y: if ec { y } else { 0 },
            ec,
            ..params(u64::MAX, false)
        };
        let cc = FlowCc::Mprdma(MprdmaCc::new(1000, 1 << 30, 1 << 30).unwrap());
        let rx = super::super::rx::UnoRx::new(bytes, 1000, ec, p.x, p.y, 1 << 40);
        (UnoTx::new(p, cc).unwrap(), rx)
    }

    /// Send everything the sender may (at cycle `now`); the wire packets, in order.
    fn send_all(t: &mut UnoTx, now: u64) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        while t.can_send(now) {
            let (w, b, _) = t.send(now, now, || 0).unwrap();
            v.push((w, b));
        }
        v
    }

    /// Deliver wire packets `wire` (skipping the first data packet of each block when
    /// `lose_first`: a loss the block's parity recovers) and ACK them at the sender.
    fn deliver(
        t: &mut UnoTx,
        r: &mut super::super::rx::UnoRx,
        wire: &[(u32, u32)],
        codec: Option<&nic::uno::ec::BlockCodec>,
        lose_first: bool,
    ) -> bool {
        let mut done = false;
        for &(w, _) in wire {
            if lose_first && w % t.stride() == 0 {
                continue;
            }
            let o = r.on_data(0, 7, w, codec);
            done |= t
                .on_ack(1, o.ack_psn & !DONE, o.ack_psn & DONE != 0, false, 1)
                .flow_done;
        }
        done
    }

    proptest::proptest! {
        /// UnoRC's blocks across a Wormhole fast-forward (Uno 4.2, Wormhole 6.2): a sender
        /// that sent `sends` wire packets (half of them delivered) and then took `skip` wire
        /// packets off its message, with its receiver taking the same units, sends from
        /// there exactly what the sender of a message shorter by those units' data sends
        /// (wire numbers and payloads: block numbering and the short last block unchanged),
        /// and the pair completes with every block decoded, the ones missing a data packet
        /// from their parity, no decode failure, sender and receiver done together, and the
        /// skipped data counted as delivered on both ends.
        #[test]
        fn fast_forward_keeps_blocks_consistent(
            data in 2u32..60, short in 0u32..999, ec in proptest::bool::ANY,
            (x, y) in proptest::sample::select(vec![(1u32, 1u32), (4, 2), (8, 2), (3, 1)]),
            sends in 0usize..40, skip in 0u64..200,
        ) {
            let codec = nic::uno::ec::BlockCodec::new(x as u8, y as u8).unwrap();
            let codec = ec.then_some(&codec);
            let (mut a, mut ra) = pair(data, short, ec, x, y);
            let mut first = Vec::new();
            while first.len() < sends && a.can_send(0) {
                let (w, b, _) = a.send(0, 0, || 0).unwrap();
                first.push((w, b));
            }
            let half = first.len() / 2;
            let early = deliver(&mut a, &mut ra, &first[..half], codec, false);
            let before = a.skippable_wire();
            let k = a.fast_forward(skip);
            ra.fast_forward(k);
            let stride = u64::from(a.stride());
            // The whole units nearest to `skip` (half up), at most those skippable.
            proptest::prop_assert_eq!(
                u64::from(k),
                ((skip + stride / 2) / stride).min(before / stride)
            );
            let taken = if ec { k * x } else { k };
            proptest::prop_assert_eq!(a.data_delivered_with_skipped(), a.data_delivered() + taken);
            // The sender of the shorter message, with the same history.
            let (mut b, mut rb) = pair(data - taken, short, ec, x, y);
            for _ in 0..first.len() {
                b.send(0, 0, || 0).unwrap();
            }
            deliver(&mut b, &mut rb, &first[..half], codec, false);
            let (ta, tb) = (send_all(&mut a, 2), send_all(&mut b, 2));
            proptest::prop_assert_eq!(&ta, &tb);
            // The rest of the first packets, then the tail with a data packet of each
            // block lost (EC): recovered from parity.
            let mut done = early | deliver(&mut a, &mut ra, &first[half..], codec, false);
            done |= deliver(&mut a, &mut ra, &ta, codec, ec);
            proptest::prop_assert!(done, "sender done");
            proptest::prop_assert!(ra.complete(), "receiver done");
            proptest::prop_assert_eq!(ra.stats.decode_failures, 0);
            proptest::prop_assert_eq!(ra.delivered_with_skipped(), data);
            proptest::prop_assert_eq!(a.data_delivered_with_skipped(), data);
        }
    }

    /// A fast-forward shifts nothing it should not: the send times and the timeout FIFO
    /// move by the skipped time (a unit due `rto` after its send still is, later), and a
    /// unit never sent keeps no time.
    #[test]
    fn shift_moves_the_timeouts_with_the_skip() {
        let (mut t, _) = pair(10, 0, false, 1, 0);
        t.send(0, 500, || 0).unwrap();
        assert_eq!(t.deadline_ps(), Some(1500));
        t.shift(10_000);
        assert_eq!(t.deadline_ps(), Some(11_500));
        assert!(t.on_timer(0, 11_499).is_empty());
        assert_eq!(t.on_timer(0, 11_500).len(), 1);
        assert_eq!(t.last_sent[1], u64::MAX, "never sent, no time");
    }

    /// `transport.uno.baseline_pacing`: MPRDMA's packets leave (payload + 64 B) x base RTT
    /// / cwnd apart; without it the window alone holds them.
    #[test]
    fn mprdma_paced_at_cwnd_over_base_rtt() {
        let mut p = params(u64::MAX, true);
        p.base_rtt = 8000;
        let mut t = mprdma(p);
        assert!(t.send(0, 0, || 0).is_some());
        assert!(t.can_send(0));
        p.window_pacing = true;
        let mut t = mprdma(p);
        assert!(t.send(0, 0, || 0).is_some());
        // 1064 B x 8000 cycles / 8000 B = 1064 cycles.
        assert!(!t.can_send(1063));
        assert_eq!(t.pace_wait(5), Some(1064));
        assert!(t.can_send(1064));
    }
}
