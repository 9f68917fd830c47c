//! Golden scenarios for DCSIM's baselines (DCSIM paper section 4.1): pFabric (switch port
//! and host rate control) and pHost (receiver token scheduler and sender).
//!
//! * `pfabric_port_priority_drop`: a 4-packet pFabric port (`switch::pfabric`), W = 64
//!   B/cycle, 192 B packets (3 cycles each): three flows send two packets every three
//!   cycles, twice the line rate, then a huge flow 4 meets the full buffer;
//!   departures follow the smallest remaining size, a flow's packets stay in order, and on
//!   overflow the largest remaining size is dropped (an evicted packet or the arrival).
//! * `phost_token_exchange`: a pHost sender (`nic::phost::PhostSender`) and receiver
//!   (`PhostReceiver`) back to back with a 2-cycle delay each way: RTSs, free tokens for the
//!   first BDP (2 packets), tokens every 4 cycles in SRPT order, and a third flow whose
//!   sender never answers: it is downgraded after the timeout and served again later.
//! * `pfabric_rate_probe`: pFabric host rate control (`nic::pfabric::PfabricRate`), window
//!   8, RTO 10, probe after 5: a send with no ACK times out five times (window 1, then
//!   probe mode, one probe per RTO), an ACK resumes and the window grows back to the BDP.
//! * `dcpim_epoch_matching`: dcPIM over 4 hosts (`nic::dcpim::DcpimMatcher`), BDP 4
//!   packets, 2 rounds per 10-cycle epoch: a 3-packet flow goes out unscheduled, the others
//!   are matched epoch by epoch (SRPT grants and accepts); matched senders send one packet
//!   per cycle and the matching follows the shrinking demand.
//!
//! Signals (cycle = block clock cycle):
//!
//! ```text
//!  pfabric_port_priority_drop
//!   arrive.id, arrive.flow, arrive.prio  int     the packet offered this cycle (input)
//!   verdict                              string  "enqueue" | "evict" | "drop"
//!   evict.id                             int     the packet dropped to make room
//!   depart.id, depart.flow, depart.prio  int     the packet whose transmission started
//!   queued                               int     buffered packets, on change
//!  phost_token_exchange
//!   rts.flow, rts.size                   int     RTS sent by the sender (or the silent host)
//!   token.flow, token.expiry             int     token sent by the receiver
//!   data.flow                            int     DATA sent; data.free bool: on a free token
//!   rx.data.flow                         int     DATA on a token reaching the receiver
//!   downgrades                           int     receiver downgrades so far, on change
//!   tx.expired                           int     tokens expired at the sender, on change
//!  pfabric_rate_probe
//!   send                                 string  "data" | "probe" (input: what was sent)
//!   ack                                  bool    ACK in (input; true: all acknowledged)
//!   timeouts                             int     timeouts fired this cycle
//!   cwnd, probing                        int, bool  on change
//!  dcpim_epoch_matching
//!   flow                                 string  "src->dst size: scheduled|unscheduled"
//!   match                                string  "src->dst" pairs of the epoch, or "none"
//!   round_matches                        array   matches made in each round
//!   demand                               int     scheduled packets left in all, on change
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use nic::dcpim::{DcpimConfig, DcpimMatcher, FlowStart};
use nic::pfabric::{PfabricRate, PfabricRateConfig, SendMode};
use nic::phost::{PhostReceiver, PhostReceiverConfig, PhostSender, Token, TxPacket};
use rtl_models::Clocked;
use serde_json::json;
use switch::pfabric::{PfAdmit, PfPacket, PfabricPort};

const DESC_PFABRIC_PORT: &str = "PfabricPort<4>, W = 64 B/cycle, 192 B packets at twice the \
                                 line rate from three flows: departures by smallest remaining \
                                 size, in flow order; overflow drops the largest remaining size";
const DESC_PHOST: &str = "pHost sender and receiver back to back (2-cycle delay, token every \
                          4 cycles, TTL 12, downgrade after 20 silent cycles for 30): free \
                          tokens for the first BDP, SRPT tokens, a silent sender downgraded";
const DESC_PFABRIC_RATE: &str = "PfabricRate (window 8, RTO 10, probe after 5): a send with no \
                                 ACK times out five times into probe mode, an ACK resumes and \
                                 the window grows back to the BDP";

const DESC_DCPIM: &str = "DcpimMatcher<4> (BDP 4 packets, 2 rounds per 10-cycle epoch): a \
                          short flow goes unscheduled, the rest are matched by SRPT grants and \
                          accepts epoch by epoch while matched senders send a packet per cycle";

/// Baseline golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "pfabric_port_priority_drop",
            description: DESC_PFABRIC_PORT,
            run: pfabric_port_priority_drop,
        },
        GoldenScenario {
            name: "phost_token_exchange",
            description: DESC_PHOST,
            run: phost_token_exchange,
        },
        GoldenScenario {
            name: "pfabric_rate_probe",
            description: DESC_PFABRIC_RATE,
            run: pfabric_rate_probe,
        },
        GoldenScenario {
            name: "dcpim_epoch_matching",
            description: DESC_DCPIM,
            run: dcpim_epoch_matching,
        },
    ]
}

/// Packet size of the pFabric port scenario: three cycles on the line.
const PKT_BYTES: u32 = 192;

fn pfabric_port_priority_drop() -> Trace {
    let mut rec = Recorder::new(
        "PfabricPort<4>",
        json!({"slots": 4, "line_bytes_per_cycle": 64, "packet_bytes": PKT_BYTES}),
        0,
        DESC_PFABRIC_PORT,
    );
    let mut port = PfabricPort::<4>::new(64).expect("W > 0");
    // (flow, remaining size in packets when sent): flow 1 is long, flow 2 short, flow 3
    // medium; each flow's remaining size shrinks packet by packet.
    // Flow 4 (a huge flow) arrives last, to a full buffer.
    let script: [(u32, u32); 14] = [
        (1, 40),
        (1, 39),
        (2, 3),
        (1, 38),
        (3, 10),
        (2, 2),
        (1, 37),
        (3, 9),
        (2, 1),
        (1, 36),
        (3, 8),
        (3, 7),
        (4, 100),
        (4, 99),
    ];
    let mut last_len = usize::MAX;
    for cycle in 0..48u64 {
        // Two arrivals every three cycles: twice the line (one packet per three cycles).
        let slot = cycle / 3 * 2 + u64::from(cycle % 3 == 1);
        let arrival = (cycle % 3 != 2)
            .then(|| script.get(slot as usize))
            .flatten();
        if let Some(&(flow, prio)) = arrival {
            let id = slot as u32;
            rec.record(cycle, "arrive.id", id);
            rec.record(cycle, "arrive.flow", flow);
            rec.record(cycle, "arrive.prio", prio);
            let verdict = match port.arrive(PfPacket {
                id,
                flow,
                prio,
                bytes: PKT_BYTES,
            }) {
                PfAdmit::Enqueue => "enqueue",
                PfAdmit::Evict(v) => {
                    rec.record(cycle, "evict.id", v.id);
                    "evict"
                }
                PfAdmit::Drop => "drop",
            };
            rec.record(cycle, "verdict", verdict);
        }
        if let Some(d) = port.take_departure() {
            rec.record(cycle, "depart.id", d.id);
            rec.record(cycle, "depart.flow", d.flow);
            rec.record(cycle, "depart.prio", d.prio);
        }
        if port.len() != last_len {
            last_len = port.len();
            rec.record(cycle, "queued", last_len as u64);
        }
        port.tick();
    }
    rec.finish()
}

const PHOST_CFG: PhostReceiverConfig = PhostReceiverConfig {
    token_interval: 4,
    token_ttl: 12,
    downgrade_timeout: 20,
    downgrade_cycles: 30,
    window: 0,
    window_timeout: 0,
    srpt_received: false,
};

fn phost_token_exchange() -> Trace {
    let (bdp, delay) = (2u32, 2u64);
    let mut rec = Recorder::new(
        "PhostSender<4,4> + PhostReceiver<4>",
        json!({"token_interval": PHOST_CFG.token_interval, "token_ttl": PHOST_CFG.token_ttl,
               "downgrade_timeout": PHOST_CFG.downgrade_timeout,
               "downgrade_cycles": PHOST_CFG.downgrade_cycles, "bdp_pkts": bdp,
               "delay_cycles": delay, "flows": {"1": 8, "2": 5, "9 (silent sender)": 3}}),
        0,
        DESC_PHOST,
    );
    let mut rx = PhostReceiver::<4>::new(PHOST_CFG).expect("valid pHost config");
    let mut tx = PhostSender::<4, 4>::new();
    tx.open(1, 8, bdp).expect("flow 1");
    tx.open(2, 5, bdp).expect("flow 2");
    let mut to_tx: Vec<(u64, Token)> = Vec::new();
    let mut to_rx: Vec<(u64, TxPacket)> = Vec::new();
    let mut rts: Vec<(u64, u32, u32)> = Vec::new();
    let (mut downgrades, mut expired) = (0u64, 0u64);
    for c in 0..100u64 {
        while let Some((f, s)) = tx.take_rts() {
            rec.record(c, "rts.flow", f);
            rec.record(c, "rts.size", s);
            rts.push((c + delay, f, s));
        }
        if c == 6 {
            // Another host's sender, busy elsewhere: it never answers its tokens.
            rec.record(c, "rts.flow", 9);
            rec.record(c, "rts.size", 3);
            rts.push((c + delay, 9, 3));
        }
        for &(_, f, s) in rts.iter().filter(|r| r.0 == c) {
            let free = if f == 9 { 0 } else { s.min(bdp) };
            rx.on_rts(f, s, free).expect("room for 3 flows");
        }
        for (_, t) in to_tx.iter().filter(|(at, _)| *at == c) {
            tx.on_token(*t);
        }
        for (_, p) in to_rx.iter().filter(|(at, _)| *at == c) {
            if !p.free {
                rec.record(c, "rx.data.flow", p.flow);
                rx.on_data(p.flow);
            }
        }
        if c % PHOST_CFG.token_interval as u64 == 0 {
            if let Some(p) = tx.next_packet() {
                rec.record(c, "data.flow", p.flow);
                rec.record(c, "data.free", p.free);
                to_rx.push((c + 1 + delay, p));
            }
        }
        rx.tick();
        tx.tick();
        if let Some(t) = rx.take_token() {
            rec.record(c, "token.flow", t.flow);
            rec.record(c, "token.expiry", t.expiry);
            if t.flow != 9 {
                to_tx.push((c + 1 + delay, t));
            }
        }
        if rx.downgrades() != downgrades {
            downgrades = rx.downgrades();
            rec.record(c, "downgrades", downgrades);
        }
        if tx.expired() != expired {
            expired = tx.expired();
            rec.record(c, "tx.expired", expired);
        }
    }
    rec.finish()
}

fn pfabric_rate_probe() -> Trace {
    let cfg = PfabricRateConfig {
        init_window_pkts: 8,
        rto_cycles: 10,
        probe_after: 5,
    };
    let mut rec = Recorder::new(
        "PfabricRate",
        json!({"init_window_pkts": cfg.init_window_pkts, "rto_cycles": cfg.rto_cycles,
               "probe_after": cfg.probe_after}),
        0,
        DESC_PFABRIC_RATE,
    );
    let mut r = PfabricRate::new(cfg).expect("valid pFabric config");
    let mut last = (u32::MAX, None::<bool>);
    let mut inflight = 0u32;
    for c in 0..100u64 {
        // The path is dead until cycle 70: nothing is acknowledged; afterwards every packet
        // is acknowledged 3 cycles after it leaves.
        if c >= 73 && inflight > 0 && c % 3 == 0 {
            inflight -= 1;
            rec.record(c, "ack", inflight == 0);
            r.on_ack(inflight == 0);
        }
        let sent = match r.can_send(inflight) {
            SendMode::Data if c == 0 || c >= 70 => Some("data"),
            SendMode::Probe => Some("probe"),
            _ => None,
        };
        if let Some(kind) = sent {
            rec.record(c, "send", kind);
            r.on_send();
            if c >= 70 {
                inflight += 1;
            } else {
                inflight = 1;
            }
        }
        r.tick();
        let t = r.take_timeouts();
        if t > 0 {
            rec.record(c, "timeouts", t);
        }
        if (r.cwnd(), Some(r.probing())) != last {
            last = (r.cwnd(), Some(r.probing()));
            rec.record(c, "cwnd", r.cwnd());
            rec.record(c, "probing", r.probing());
        }
    }
    rec.finish()
}

fn dcpim_epoch_matching() -> Trace {
    const H: usize = 4;
    let cfg = DcpimConfig {
        bdp_pkts: 4,
        rounds: 2,
        epoch_cycles: 10,
    };
    let mut rec = Recorder::new(
        "DcpimMatcher<4>",
        json!({"hosts": H, "bdp_pkts": cfg.bdp_pkts, "rounds": cfg.rounds,
               "epoch_cycles": cfg.epoch_cycles}),
        0,
        DESC_DCPIM,
    );
    let mut m = DcpimMatcher::<H>::new(cfg).expect("valid dcPIM config");
    // (cycle, src, dst, size in packets)
    let flows = [
        (0u64, 0usize, 1usize, 3u32),
        (0, 0, 1, 12),
        (0, 2, 1, 6),
        (0, 2, 3, 25),
        (0, 1, 3, 9),
        (5, 3, 0, 15),
        (5, 1, 0, 4),
        (23, 0, 2, 8),
    ];
    let total = |m: &DcpimMatcher<H>| -> u64 {
        (0..H)
            .flat_map(|s| (0..H).map(move |d| (s, d)))
            .map(|(s, d)| m.demand(s, d) as u64)
            .sum()
    };
    let mut last_demand = u64::MAX;
    let mut last_epoch = 0;
    for c in 0..80u64 {
        for &(_, s, d, n) in flows.iter().filter(|f| f.0 == c) {
            let how = match m.on_flow(s, d, n).expect("valid flow") {
                FlowStart::Unscheduled => "unscheduled",
                FlowStart::Scheduled => "scheduled",
            };
            rec.record(c, "flow", format!("{s}->{d} {n}: {how}"));
        }
        // Matched senders send one scheduled packet per cycle to their receiver.
        for s in 0..H {
            if let Some(d) = m.matched_dst(s) {
                m.on_sent(s, d, 1).expect("matched pair in range");
            }
        }
        let dem = total(&m);
        if dem != last_demand {
            last_demand = dem;
            rec.record(c, "demand", dem);
        }
        m.tick();
        if m.epoch() != last_epoch {
            last_epoch = m.epoch();
            let pairs: Vec<String> = (0..H)
                .filter_map(|s| m.matched_dst(s).map(|d| format!("{s}->{d}")))
                .collect();
            let text = if pairs.is_empty() {
                "none".to_string()
            } else {
                pairs.join(" ")
            };
            rec.record(c, "match", text);
            let rounds: Vec<u16> = (0..cfg.rounds as usize)
                .map(|r| m.round_matches(r))
                .collect();
            rec.record(c, "round_matches", json!(rounds));
        }
    }
    rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pfabric_port_orders_by_priority_and_drops_the_lowest() {
        let t = pfabric_port_priority_drop();
        let prio: Vec<u64> = t
            .values("depart.prio")
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        // Flow 1's first packet leaves at once (alone in the buffer); then flow 2 (3, 2, 1
        // packets left) leaves before flow 1's buffered packets, and flow 3 in order.
        assert_eq!(prio[0], 40);
        let first_long = prio.iter().skip(1).position(|&p| p >= 36).unwrap() + 1;
        let last_short = prio.iter().rposition(|&p| p <= 3).unwrap();
        assert!(last_short < first_long, "{prio:?}");
        let flow3: Vec<u64> = prio
            .iter()
            .copied()
            .filter(|p| (7..=10).contains(p))
            .collect();
        assert!(flow3.windows(2).all(|w| w[0] > w[1]), "{prio:?}");
        let verdicts = t.values("verdict");
        assert!(
            verdicts.iter().any(|v| v.as_str() == Some("evict")),
            "{verdicts:?}"
        );
        assert!(
            verdicts.iter().any(|v| v.as_str() == Some("drop")),
            "{verdicts:?}"
        );
    }

    #[test]
    fn phost_serves_srpt_and_downgrades_the_silent_sender() {
        let t = phost_token_exchange();
        let tokens: Vec<u64> = t
            .values("token.flow")
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert!(t.values("downgrades").last().and_then(|v| v.as_u64()) >= Some(1));
        // Flow 9 (3 packets) is SRPT-first once its RTS is in, and gets tokens again after
        // its downgrade; flows 1 and 2 complete.
        assert!(tokens.iter().filter(|&&f| f == 9).count() > 3, "{tokens:?}");
        let data: Vec<u64> = t
            .values("data.flow")
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(data.iter().filter(|&&f| f == 1).count(), 8);
        assert_eq!(data.iter().filter(|&&f| f == 2).count(), 5);
        let free = t
            .values("data.free")
            .iter()
            .filter(|v| v.as_bool() == Some(true))
            .count();
        assert_eq!(free, 4);
    }

    #[test]
    fn dcpim_matches_are_matchings_and_demand_drains() {
        let t = dcpim_epoch_matching();
        let flows = t.values("flow");
        assert_eq!(flows[0].as_str(), Some("0->1 3: unscheduled"));
        for m in t.values("match") {
            let m = m.as_str().unwrap();
            if m == "none" {
                continue;
            }
            let pairs: Vec<(&str, &str)> =
                m.split(' ').map(|p| p.split_once("->").unwrap()).collect();
            let mut srcs: Vec<_> = pairs.iter().map(|p| p.0).collect();
            let mut dsts: Vec<_> = pairs.iter().map(|p| p.1).collect();
            srcs.sort();
            srcs.dedup();
            dsts.sort();
            dsts.dedup();
            assert_eq!((srcs.len(), dsts.len()), (pairs.len(), pairs.len()), "{m}");
        }
        assert_eq!(t.values("demand").last().and_then(|v| v.as_u64()), Some(0));
    }

    #[test]
    fn pfabric_rate_probes_then_resumes() {
        let t = pfabric_rate_probe();
        let sends: Vec<&str> = t
            .values("send")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(
            sends.iter().filter(|&&s| s == "probe").count() >= 2,
            "{sends:?}"
        );
        assert_eq!(
            t.values("probing").first().and_then(|v| v.as_bool()),
            Some(false)
        );
        assert!(t
            .values("probing")
            .iter()
            .any(|v| v.as_bool() == Some(true)));
        assert_eq!(t.values("cwnd").last().and_then(|v| v.as_u64()), Some(8));
    }
}
