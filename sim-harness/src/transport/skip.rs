//! What Wormhole's fast-forward needs of a transport (`../shared/papers/wormhole.md` 5.1,
//! 5.3, 6.2), behind [`TransportDriver`] like every other transport call: the engine's
//! `engine/skip/` modules know flows, ports and partitions, never a sender.
//!
//! ```text
//!  setup          skip_refusal(scenario)      why this run's senders cannot be advanced
//!  sampling tick  skip_view(flows, f)         DATA packets sent, losses, ECN ACKs, newest
//!                                             send, packets the skip may take (5.1, Eq. 6/7)
//!  resume         fast_forward(flows, f, n)   n packets sent and delivered at the steady
//!                                             rate come off the message (5.3 / 6.2)
//!                 shift(hosts, flows, delta)  every absolute time the flows hold (mod.rs)
//!                 shift_packet(pk, delta)     times carried in the paused packets' headers
//! ```
//!
//! * **DCTCP-style** (`transport.cc = "dctcp"` and `"mprdma"`, the same driver): the flow's
//!   [`crate::flow::Cc`] sender; [`nic::transport::DctcpSender::fast_forward`] (MPRDMA's
//!   wrapper delegates: its per-ACK rule keeps no state beside the window). Its times are
//!   cycles of the flow's clock (shifted with the flow), so its send-stamp ring, RTT
//!   samples and `srtt8` leave out the skipped time by themselves; its packets carry no time
//!   it reads, but its DATAs carry the send stamp of the queueing-delay metric
//!   ([`crate::metrics`]), shifted with the paused packets ([`TransportDriver::shift_packet`]).
//! * **Uno** (`transport.cc = "uno"`, and its baseline `"mprdma_bbr"`): the flow's
//!   [`super::uno::tx::UnoTx`] and [`super::uno::rx::UnoRx`]; the unit is the wire packet
//!   (data and parity: what the sender's rate is measured in), advanced by whole units
//!   (packets, or erasure-coded blocks with their parity,
//!   [`super::uno::tx::UnoTx::fast_forward`]). UnoCC (epoch `T_epoch`, Quick Adapt period,
//!   pacer), MPRDMA's window, BBR's state machine and pacer, and UnoLB count cycles of the
//!   flow's clock; the sender's send times and timeout FIFO and the receiver's block timers
//!   are ps and move with the shift; the RTT sample rides in the packets (a DATA's send
//!   stamp, echoed by its ACK), so the paused packets' stamps move too
//!   ([`TransportDriver::shift_packet`]), or the first ACKs after a skip would carry the
//!   skipped time as queueing delay into UnoCC.
//! * **DCSIM** (`transport.cc = "dcsim"`, under `skip.partition_by = "all_ports"` only):
//!   the unit is the DATA; a skip takes never-sent DATAs off the end of the flow's message
//!   in its host engine ([`nic::dcsim::DcsimFlow::fast_forward`]: past the window and the
//!   DATAs its outstanding SIMs will take, so Eq. 3 holds and the SIM credit is unchanged;
//!   in whole DATA-ACK rounds of the receiver, [`dcsim_takes`]), and the run's copies of the
//!   flow's size follow ([`dcsim_fast_forward`]). A host's engine, receivers and NIC port
//!   serve every flow from and to the host, all in one `all_ports` partition, which the
//!   shift moves whole (the engine's clock, the receivers' deadlines, the host timer; the
//!   DCSIM ports' arbiter clocks and token buckets). DCSIM draws a fresh EV per SIM
//!   whatever `transport.lb` says, so its flows' partitions hold every up port of their
//!   routes ([`crate::engine::Sim::flow_ports`]).
//! * **pFabric** (`transport.cc = "pfabric"`, `all_ports` only): the unit is the DATA; a
//!   skip takes never-sent packets off the end of the message at both ends
//!   ([`super::pfabric::flow::PfTx::fast_forward`]: the last packet keeps its partial
//!   payload, and the bytes not yet acknowledged, pFabric's priority, are the full run's
//!   once those packets are acknowledged). A host's SRPT queue, its flows' receivers and
//!   every port's priority buffer belong to one `all_ports` partition; the rate control's
//!   window and RTO count cycles of the flow's clock (shifted with it).
//! * **pHost** (`transport.cc = "phost"`, `all_ports` only): the unit is the DATA; a skip
//!   takes the packets no token has named yet off the end of the message in both
//!   `nic::phost` blocks (`super::phost` `skip`: never the free packets nor the last one
//!   to grant). A host's token scheduler and sender share its NIC port (tokens out, DATA
//!   out), so both are in its `all_ports` partition, shifted whole: the blocks' clocks,
//!   held tokens and the token register; the tokens in flight carry their expiry (ns) and
//!   move with the paused packets ([`TransportDriver::shift_packet`]). A flow complete at
//!   its receiver whose sender still waits for the DONE ([`TransportDriver::lingers`])
//!   stays in its partition until the DONE arrives.
//! * **Refused** (the run says so and is simulated in full): DCSIM under `data_ports` (a
//!   host's receivers may belong to another partition than its senders), pFabric under
//!   `data_ports` (a port's priority buffer holds other partitions' ACKs), pHost under
//!   `data_ports` (a host's scheduler and sender share one clock and timer), dcPIM (its
//!   global epochs), Zeropod (a slotted region, not a driver), and Uno's baseline
//!   `"gemini"` ([`uno_refusal`]).

use super::TransportDriver;
use crate::dcsim::host::Phase;
use crate::flow::{Cc, FlowRt};
use crate::packet::{Packet, PktKind};
use crate::scenario::{CcKind, Scenario};

/// A flow's sender as the steady detector and the skip see it (Wormhole 5.1, 5.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SkipView {
    /// DATA packets sent (cumulative; first transmissions and retransmissions; with
    /// erasure coding the parity packets too): the sampled rate's unit.
    pub(crate) sent: u64,
    /// Packets declared lost (NACK or timeout), cumulative.
    pub(crate) losses: u64,
    /// Packets the sender has taken out of flight as lost, cumulative, in the unit of the
    /// network's DATA drops (DCTCP-style: every declared PSN; Uno: every wire packet a
    /// NACK or timer took out; pFabric: every packet its timeouts found outstanding; pHost
    /// and DCSIM 0). Where [`TransportDriver::holds_unsettled_losses`], a dropped DATA not
    /// yet settled is a retransmission still to come (`engine/skip/steady.rs`).
    pub(crate) settled: u64,
    /// ACKs echoing a CE mark, cumulative.
    pub(crate) ecn: u64,
    /// The newest PSN sent and its send's NIC cycle stamp (`skip.rate_estimate =
    /// "timed"`), when the sender keeps one.
    pub(crate) newest: Option<(u32, u32)>,
    /// Packets (of [`SkipView::sent`]'s unit) a fast-forward may take now.
    pub(crate) skippable: u64,
}

/// A UnoCC flow's window as Wormhole's steady test reads it
/// ([`TransportDriver::uno_window`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnoWindow {
    /// The congestion window, bytes.
    pub(crate) cwnd: u64,
    /// The flow's BDP, bytes.
    pub(crate) bdp: u64,
    /// The window is at its cap (it cannot grow).
    pub(crate) capped: bool,
    /// The most the window grows per base RTT, bytes (`alpha`, Uno Table 2: 0.001 x BDP;
    /// Algorithm 1's per-ACK `alpha * acked / cwnd` sums to at most `alpha` per window).
    pub(crate) alpha_bytes: u64,
    /// The flow's base RTT, ps.
    pub(crate) base_rtt_ps: u64,
    /// Bytes in flight.
    pub(crate) inflight: u64,
    /// The flow's MTU, bytes.
    pub(crate) mtu: u64,
}

impl UnoWindow {
    /// Below its BDP: the window sets the flow's rate, and grows too slowly for Eq. 6 to
    /// see ([`TransportDriver::slow_ramp`]); steady only when MDs balance the increase
    /// (`engine/skip/uno_drift.rs`).
    pub(crate) fn ramping(&self) -> bool {
        self.cwnd < self.bdp
    }
}

/// Why Uno's cc `cc` cannot be fast-forwarded (`None`: it can). UnoCC is, and so is the
/// MPRDMA+BBR baseline (Uno 5.1: MPRDMA's window intra-DC, BBRv1 inter-DC; the same
/// [`super::uno::tx::UnoTx`], BBR's state machine and pacer in cycles of the flow's clock;
/// measured within 0.03 % intra- and inter-DC). Gemini is not: its ECN estimate (an EWMA of
/// the marked fraction over RTTs) and its delay reaction keep moving while its sending
/// rate is flat, so Eq. 6 takes a flow for steady that is about to cut, and the skip
/// freezes the estimate (measured: an inter-DC flow at line rate for 1.8 ms while the 90 %
/// phantom queues' marks accumulate, then down to 76 Gb/s; skipped at line rate, 9.9 % FCT
/// error). A steady test on the CC's state, not only its rate, is what is missing.
fn uno_refusal(cc: CcKind) -> Option<String> {
    match cc {
        CcKind::Gemini => Some(
            "transport.cc = \"gemini\" (a Uno baseline) has no sound fast-forward: its ECN \
             estimate and delay reaction keep moving while its rate looks steady (no steady \
             test on its CC state), and a skip would freeze them"
                .into(),
        ),
        _ => None,
    }
}

impl TransportDriver {
    /// Why the transport of scenario `s` cannot be fast-forwarded soundly (`None`: it can):
    /// the reason the `skip.enabled` refusal warning gives. Goes beyond the Wormhole paper
    /// (which skips one CCA): what a skip of 6.2 would have to carry that this transport
    /// keeps outside its flows, or does not keep steady under a steady rate.
    pub(crate) fn skip_refusal(&self, s: &Scenario) -> Option<String> {
        let cc = s.transport.cc.name();
        match self {
            TransportDriver::Dctcp(_) => match s.transport.cc {
                CcKind::Dctcp | CcKind::Mprdma => None,
                CcKind::Zeropod => Some(
                    "transport.cc = \"zeropod\" runs its pods on the scheduler's slotted \
                     clock, not as flows of a transport driver"
                        .into(),
                ),
                _ => Some(format!("transport.cc = \"{cc}\" has no fast-forward")),
            },
            TransportDriver::Uno(_) => uno_refusal(s.transport.cc),
            // A host's engine, its receivers and its NIC port serve every flow from and to
            // the host: under `all_ports` those flows are all one partition (the host port
            // carries their DATA or their acknowledgements), which the skip advances and
            // shifts whole; under `data_ports` the host's receivers may belong to another.
            TransportDriver::Dcsim(_)
                if s.skip.partition_by != crate::scenario::PartitionBy::AllPorts =>
            {
                Some(
                    "transport.cc = \"dcsim\" with skip.partition_by = \"data_ports\": a \
                     DCSIM host's engine and receivers serve flows of several data_ports \
                     partitions at once (a skip would shift the others' SIM/DATA timers); \
                     use partition_by = \"all_ports\""
                        .into(),
                )
            }
            TransportDriver::Dcsim(_) => None,
            // pFabric under `all_ports`: a host's SRPT queue and its flows' receivers, and
            // every switch port's priority buffer, belong to one partition, shifted whole;
            // its rate control counts cycles of the flows' clocks.
            TransportDriver::Pfabric(_)
                if s.skip.partition_by == crate::scenario::PartitionBy::AllPorts =>
            {
                None
            }
            TransportDriver::Pfabric(_) => Some(
                "transport.cc = \"pfabric\" with skip.partition_by = \"data_ports\": a \
                 switch port's priority buffer holds the ACK-lane packets of other \
                 partitions, which a skip would freeze; use partition_by = \"all_ports\""
                    .into(),
            ),
            // pHost under `all_ports`: a host's token scheduler serves the flows into it and
            // its sender the flows out of it; the tokens of the first and the DATA of the
            // second share the host's NIC port, so both are one partition, shifted whole
            // (the blocks' clocks, held and in-flight tokens' expiries, the host timer).
            TransportDriver::Phost(_)
                if s.skip.partition_by == crate::scenario::PartitionBy::AllPorts =>
            {
                None
            }
            TransportDriver::Phost(_) => Some(
                "transport.cc = \"phost\" with skip.partition_by = \"data_ports\": a pHost \
                 host's token scheduler (flows into it) and sender (flows out of it) share \
                 one clock and timer, which data_ports may put in two partitions (a skip of \
                 one would shift the other's tokens); use partition_by = \"all_ports\""
                    .into(),
            ),
            TransportDriver::Dcpim(_) => Some(
                "transport.cc = \"dcpim\" matches senders and receivers in epochs of one \
                 fabric-wide clock, which a skipped partition cannot leave and rejoin"
                    .into(),
            ),
        }
    }

    /// Whether this run's congestion control can ramp too slowly for Eq. 6 to see
    /// (Wormhole 5.1 takes a rate for converged once its window's samples lie within
    /// theta): UnoCC, whose additive increase of 0.001 BDP per RTT (Uno 4.1.1) moves a
    /// window-limited flow's rate by well under any theta per detector window while it
    /// doubles it within a few ms after a cut. Its flows' windows are read
    /// ([`Self::uno_window`]); the detector then keeps each flow's window, bytes in flight,
    /// ECN and loss counts per sample (`engine/skip/uno_drift.rs`). MPRDMA (1 MSS per RTT)
    /// and BBR (its probing cycle) ramp where Eq. 6 sees them.
    pub(crate) fn slow_ramp(&self, s: &Scenario) -> bool {
        matches!(self, TransportDriver::Uno(_)) && s.transport.cc == CcKind::Uno
    }

    /// Whether a flow with a dropped DATA its sender has not settled is held unsteady.
    /// DCTCP-style senders and Uno's (RTO and NACK) and pFabric's (RTO) settle each one,
    /// so a dropped DATA not yet settled is a retransmission still to come, which a skip
    /// would shift past the skipped time. pHost settles none (its [`SkipView::settled`] is
    /// 0): a lost DATA keeps a token of its flow's window pending until the receiver gives
    /// it up after `window_timeout` cycles at the window, so its rate climbs back a token
    /// at a time, which a skip would freeze; a pHost flow that lost a DATA is not skipped
    /// again. DCSIM resends a DATA after a timeout of its host engine and reports none.
    pub(crate) fn holds_unsettled_losses(&self) -> bool {
        matches!(
            self,
            TransportDriver::Dctcp(_)
                | TransportDriver::Uno(_)
                | TransportDriver::Pfabric(_)
                | TransportDriver::Phost(_)
        )
    }

    /// Flow `f`'s UnoCC window; `None` for any other sender.
    pub(crate) fn uno_window(&self, f: u32) -> Option<UnoWindow> {
        match self {
            TransportDriver::Uno(st) => st.uno_window(f),
            _ => None,
        }
    }

    /// Flow `f`'s UnoCC window as `wire` unmarked ACKs over `skipped_ps` leave it
    /// ([`super::uno::UnoState::fast_forward_unmarked`]); nothing for another transport.
    pub(crate) fn uno_fast_forward_unmarked(&mut self, f: u32, wire: u64, skipped_ps: u64) {
        if let TransportDriver::Uno(st) = self {
            st.fast_forward_unmarked(f, wire, skipped_ps);
        }
    }

    /// Flow `f`'s sender as the steady detector and the skip see it; `None` before it
    /// opens, after it completed, or for a transport never fast-forwarded.
    pub(crate) fn skip_view(&self, flows: &[FlowRt], f: u32) -> Option<SkipView> {
        match self {
            TransportDriver::Dctcp(_) => {
                let cc = flows[f as usize].cc.as_ref()?;
                let st = cc.stats();
                let (newest, unsent) = match cc {
                    Cc::Dctcp(s) => (s.newest_sent(), s.unsent()),
                    Cc::Mprdma(s) => (s.newest_sent(), s.unsent()),
                };
                Some(SkipView {
                    sent: st.packets_sent,
                    losses: st.losses,
                    // Declared per PSN (a timeout declares each packet it finds old).
                    settled: st.losses,
                    ecn: st.ecn_acks,
                    newest,
                    skippable: u64::from(unsent),
                })
            }
            TransportDriver::Uno(st) => st.skip_view(f),
            TransportDriver::Pfabric(st) => st.skip_view(f),
            TransportDriver::Phost(st) => st.skip_view(flows, f),
            TransportDriver::Dcsim(st) => {
                let fs = st.send.get(f as usize)?;
                let Phase::Open(slot) = fs.phase else {
                    return None;
                };
                let h = flows[f as usize].spec.src as usize;
                Some(SkipView {
                    // DATA transmissions (SIMs and the acknowledgements are control).
                    sent: fs.tx,
                    // DCSIM has no ECN; a lost DATA is resent after its timeout, within
                    // the rate samples.
                    losses: 0,
                    settled: 0,
                    ecn: 0,
                    newest: None,
                    skippable: u64::from(st.hosts[h].eng.skippable(slot)),
                })
            }
            _ => None,
        }
    }

    /// Wormhole fast-forward of flow `f` (5.3 / 6.2): `pkts` packets (of
    /// [`SkipView::sent`]'s unit) were sent and delivered at the estimated rate while its
    /// partition was skipped; they come off the unsent part of its message, and the data
    /// packets among them are added to the flow's [`FlowRt::skipped`] (what the outputs
    /// count as delivered: "skipped data counts as delivered"). Returns the packets not
    /// simulated (of [`SkipView::sent`]'s unit: Uno's wire packets, parity included).
    pub(crate) fn fast_forward(&mut self, flows: &mut [FlowRt], f: u32, pkts: u64) -> u64 {
        let n = u32::try_from(pkts).unwrap_or(u32::MAX);
        let flow = &mut flows[f as usize];
        let (wire, data) = match self {
            TransportDriver::Dctcp(_) => {
                let k = match &mut flow.cc {
                    Some(Cc::Dctcp(s)) => s.fast_forward(n),
                    Some(Cc::Mprdma(s)) => s.fast_forward(n),
                    None => 0,
                };
                (u64::from(k), k)
            }
            TransportDriver::Uno(st) => st.fast_forward(f, pkts),
            TransportDriver::Dcsim(st) => {
                let k = dcsim_fast_forward(st, flow.spec.src, f, n);
                (u64::from(k), k)
            }
            TransportDriver::Pfabric(st) => {
                let k = st.fast_forward(f, n);
                (u64::from(k), k)
            }
            TransportDriver::Phost(st) => {
                let k = st.fast_forward((flow.spec.src, flow.spec.dst), f, n);
                (u64::from(k), k)
            }
            _ => (0, 0),
        };
        flow.skipped += data;
        wire
    }

    /// The data packets [`TransportDriver::fast_forward`]`(flows, f, pkts)` would take off
    /// flow `f`'s message now, without taking them (what an output reads as sent while the
    /// flow's partition is still skipped, [`crate::engine::Sim::wh_in_skip_bytes`]).
    pub(crate) fn fast_forward_data(&self, flows: &[FlowRt], f: u32, pkts: u64) -> u32 {
        let n = u32::try_from(pkts).unwrap_or(u32::MAX);
        match self {
            TransportDriver::Dctcp(_) => match &flows[f as usize].cc {
                Some(Cc::Dctcp(s)) => n.min(s.unsent().saturating_sub(1)),
                Some(Cc::Mprdma(s)) => n.min(s.unsent().saturating_sub(1)),
                None => 0,
            },
            TransportDriver::Uno(st) => st.fast_forward_data(f, pkts),
            TransportDriver::Dcsim(st) => dcsim_takes(st, flows[f as usize].spec.src, f, n),
            TransportDriver::Pfabric(st) => st.fast_forward_data(f, n),
            TransportDriver::Phost(st) => st.fast_forward_data(super::phost::ends(flows, f), f, n),
            _ => 0,
        }
    }

    /// The delay of a flow's feedback loop, for a flow of base RTT `base_rtt_ps`: the base
    /// RTT, and under DCSIM also `RTTmax` (dcsim.md 3.1: a DATA leaves `RTTmax` after its
    /// SIM, so the DATA rate answers what the SIMs met that long before). A Wormhole
    /// detector window shorter than that is never taken for steady ([`crate::engine::Sim`]'s
    /// `steady_flows`): measured on sweep case 21127 (a DCSIM tornado under OPS, `RTTmax`
    /// 42.7 us, base RTT 8.4 us, windows of 10 x 5 us), the flows were skipped at 95 us,
    /// 50 us into their first DATAs, at equal rates they then did not keep (the full run's
    /// FCTs 411-431 us): 4.30 % mean FCT error against a chaos floor of 1.91 %.
    pub(crate) fn feedback_ps(&self, base_rtt_ps: u64) -> u64 {
        match self {
            TransportDriver::Dcsim(st) => base_rtt_ps.saturating_add(st.p.rtt_max_ps),
            _ => base_rtt_ps,
        }
    }

    /// Whether flow `f`'s sender still waits for its first DATA to leave (DCSIM: its first
    /// SIMs probe the paths and each DATA follows its SIM `RTTmax` later, dcsim.md 3.1, so
    /// for about `RTTmax` a new flow sends SIMs only). A Wormhole memo lookup waits until
    /// no flow of the partition is in that start-up (`engine/skip/memoize.rs`): a memo hit
    /// keeps the flows' state at the lookup and shifts it past the stored transient, so a
    /// transient stored from inside the start-up was replayed with the start-up after it
    /// again. Every other transport sends at its open.
    pub(crate) fn in_startup(&self, f: u32) -> bool {
        match self {
            TransportDriver::Dcsim(st) => st
                .send
                .get(f as usize)
                .is_some_and(|fs| matches!(fs.phase, Phase::Open(_)) && fs.tx == 0),
            _ => false,
        }
    }

    /// Whether completed flow `f` still acts (pHost's flows complete at the receiver, and
    /// the sender keeps its RTS re-send timer until the DONE reaches it): it then stays in
    /// its Wormhole partition (`Sim::wh_lingering`).
    pub(crate) fn lingers(&self, f: u32) -> bool {
        match self {
            TransportDriver::Phost(st) => st.sender_open(f),
            _ => false,
        }
    }

    /// Whether packets of this transport carry absolute times read back (every DATA's send
    /// stamp, which the queueing-delay metric reads at the receiver, [`crate::metrics`];
    /// Uno's echo of it for the RTT; a pHost token's expiry): then a paused partition's
    /// packets are shifted too ([`TransportDriver::shift_packet`]; Wormhole 6.2's shift of
    /// a skipped partition). Every transport that can be skipped (dcPIM never is).
    #[inline]
    pub(crate) fn shifts_packets(&self) -> bool {
        !matches!(self, TransportDriver::Dcpim(_))
    }

    /// Move the absolute time packet `pk` of a paused partition carries `delta` ps later
    /// (Wormhole 6.2: a resumed partition behaves as if started `delta` later), in
    /// [`crate::metrics::stamp`] units, rounded to the nearest: a DATA's send stamp, so the
    /// queueing-delay metric (`mean_queueing_delay_ps`, `max_queueing_delay_ps`) and Uno's
    /// RTT sample (Uno 4.1's `T_pkt`, the delay test) leave out the skipped time; Uno's ACK
    /// echoes that stamp (its `cum_ack`) and moves too. A DCTCP-style ACK's `cum_ack` is the
    /// receiver's cumulative PSN, not a time: it stays. Every other transport's DATA
    /// carries the same send stamp (stamped by the source's link for the metric; before
    /// session 21 only DCTCP's and Uno's moved, so a DCSIM or pFabric skip run reported the
    /// skipped time as the queueing delay of the DATAs paused in flight: 1.40 ms against
    /// 51 ns on the 4-host tornado). A pHost token carries its expiry in ns of the
    /// receiver's clock (`cum_ack`), which moves with the partition by whole ns, rounded to
    /// the nearest. Other packets: none.
    pub(crate) fn shift_packet(&self, pk: &mut Packet, delta: u64) {
        if let TransportDriver::Phost(_) = self {
            if pk.kind == PktKind::Ack
                && pk.psn != super::phost::RTS
                && pk.psn != super::phost::DONE
            {
                let ns = delta.saturating_add(500) / 1000;
                pk.cum_ack = pk.cum_ack.wrapping_add(ns as u32);
                return;
            }
        }
        let stamped = match self {
            TransportDriver::Uno(_) => matches!(pk.kind, PktKind::Data | PktKind::Ack),
            _ => pk.kind == PktKind::Data,
        };
        if stamped {
            let units =
                delta.saturating_add(crate::metrics::STAMP_PS / 2) / crate::metrics::STAMP_PS;
            pk.cum_ack = pk.cum_ack.wrapping_add(units as u32);
        }
    }
}

/// The DATAs DCSIM's fast-forward takes of flow `f` (source host `h`) when asked for `n`:
/// the whole DATA-ACK rounds of its receiver (`ack_every` DATAs) nearest to `n`
/// ([`nearest_whole`]), at most its host engine's [`nic::dcsim::DcsimFlow::skippable`], so
/// the receiver's count towards its next DATA-ACK is where the full run has it (measured: a
/// skip of 3,203 DATAs, 3 past a round, left the last DATAs of 20 MB flows at 400 Gb/s
/// acknowledged at once instead of by the receiver's interval timer, 14.7 us and 3.3 %
/// early).
fn dcsim_takes(st: &crate::dcsim::host::DcsimState, h: u32, f: u32, n: u32) -> u32 {
    let Phase::Open(slot) = st.send[f as usize].phase else {
        return 0;
    };
    let round = u32::from(st.p.rx.ack_every.max(1));
    let room = st.hosts[h as usize].eng.skippable(slot);
    let k = nearest_whole(u64::from(n), u64::from(round));
    u32::try_from(k)
        .unwrap_or(u32::MAX)
        .min(room - room % round)
}

/// `n` rounded to the nearest multiple of `unit` (half up). A skip's credit rounded down to
/// whole units lost half a unit per skip on average, every time: DCSIM rings of 4 MB on
/// `wormhole_gpt_64` (2 % sizes, 0.5 us links) ended 5.2-5.9 us late each after their
/// skips at 16-DATA rounds, 1.05-1.08 % mean FCT error against a chaos floor of 0.06 %
/// (session 26, sweep cases 3071 and 3076). Uno's erasure-coded blocks take it too
/// ([`super::uno::tx::UnoTx::fast_forward`]).
pub(crate) fn nearest_whole(n: u64, unit: u64) -> u64 {
    let unit = unit.max(1);
    n.saturating_add(unit / 2) / unit * unit
}

/// DCSIM's fast-forward of flow `f` (source host `h`): about `n` never-sent DATAs
/// ([`dcsim_takes`]) come off the end of its message in the host engine
/// ([`nic::dcsim::DcsimFlow::fast_forward`]), and the run's copies of its size follow (the
/// sender's DATA count and bytes, so each DATA still sent carries the payload it would
/// have, the last one its partial payload; the receiver's DATA count, so it reports the
/// flow received at its last DATA). Returns the DATAs taken.
fn dcsim_fast_forward(st: &mut crate::dcsim::host::DcsimState, h: u32, f: u32, n: u32) -> u32 {
    let Phase::Open(slot) = st.send[f as usize].phase else {
        return 0;
    };
    let want = dcsim_takes(st, h, f, n);
    let k = st.hosts[h as usize].eng.fast_forward(slot, want);
    let mtu = u64::from(st.p.mtu);
    let fs = &mut st.send[f as usize];
    fs.datas -= k;
    fs.bytes -= u64::from(k) * mtu;
    st.flows[f as usize].datas -= k;
    k
}

#[cfg(test)]
mod tests {
    use super::nearest_whole;
    use crate::engine::Sim;
    use crate::run::RunControl;
    use crate::scenario::{CcKind, LbKind, Scenario, Size, WorkloadKind};

    /// A skip's credit in whole units is the nearest whole number of them, half up: never
    /// biased down by half a unit per skip.
    #[test]
    fn a_credit_is_rounded_to_the_nearest_whole_unit() {
        assert_eq!(nearest_whole(7, 16), 0);
        assert_eq!(nearest_whole(8, 16), 16);
        assert_eq!(nearest_whole(23, 16), 16);
        assert_eq!(nearest_whole(24, 16), 32);
        assert_eq!(nearest_whole(u64::MAX, 16), u64::MAX / 16 * 16);
        for n in 0..40 {
            assert_eq!(nearest_whole(n, 1), n);
            assert_eq!(nearest_whole(n, 0), n);
        }
        // Over many skips the rounding error averages out instead of piling up.
        let lost: i64 = (0..1600u64)
            .map(|n| n as i64 - nearest_whole(n, 16) as i64)
            .sum();
        assert!(lost.abs() <= 800, "{lost}");
    }

    /// A 4-host tornado of 20 MB flows on one ToR under `cc` (two steady pairs skipped for
    /// about 1.5 ms each), run with skipping `skip`: each flow's smoothed RTT at the end.
    fn srtts(cc: CcKind, skip: bool) -> Vec<u32> {
        let mut s = Scenario::default();
        s.topology.tiers = 2;
        s.topology.radix = 12;
        s.topology.hosts = 4;
        s.topology.link_gbps = 100.0;
        s.transport.lb = LbKind::Ecmp;
        s.transport.cc = cc;
        s.workload.kind = WorkloadKind::Tornado;
        s.workload.message = Size::Bytes(20_000_000);
        s.output.queue_sample_us = 0.0;
        s.output.selection_bucket_us = 0.0;
        s.skip.enabled = skip;
        s.skip.theta = 0.1;
        s.skip.samples = 20;
        s.skip.sample_us = 5.0;
        crate::validate::validate(&s).unwrap();
        let mut sim = Sim::build(&s).unwrap();
        sim.run(&RunControl::default());
        assert_eq!(sim.flows_done, 4);
        let r = sim.results(&s);
        let skipped = r
            .summary
            .extra
            .get("wormhole_skipped_ps")
            .copied()
            .unwrap_or(0.0);
        assert!(!skip || skipped > 1e9, "{skipped} ps skipped");
        sim.flows.iter().map(|f| f.srtt8).collect()
    }

    /// The DCTCP-style sender's send stamps (its PSN ring's `sent_at`) are cycles of the
    /// flow's clock, whose origin moves with the skipped partition (Wormhole 6.2): the RTT
    /// samples of the ACKs after a skip, and so `srtt8` (the `cc` rate metric's
    /// denominator) and the REPS failure detector's RTTs, leave out the skipped time. One
    /// skipped millisecond in a sample would leave the 1/8-gain EWMA hundreds of times the
    /// fabric's RTT after the tail reserve's few dozen ACKs.
    #[test]
    fn rtt_samples_leave_out_the_skipped_time() {
        for cc in [CcKind::Dctcp, CcKind::Mprdma] {
            let (a, b) = (srtts(cc, true), srtts(cc, false));
            for (x, y) in a.iter().zip(&b) {
                assert!(*y > 0);
                let (x, y) = (f64::from(*x), f64::from(*y));
                assert!(
                    (x - y).abs() <= 0.1 * y,
                    "{cc:?}: srtt x 8 {x} against {y} cycles"
                );
            }
        }
    }
}
