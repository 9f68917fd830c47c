//! What Wormhole did to each flow (`output.skip_flows`, `skip_flows.csv`): the DATA packets
//! simulated and fast-forwarded (5.3 / 6.3: a skipped flow's packets are credited at its
//! steady rate, [`crate::flow::FlowRt::skipped`]), how often the flow's partition was
//! paused (6.2) and when it first was, with the packets it had sent by then: how long its
//! first unsteady period (3.2) lasted in packets. Recording is write-only: the run is the
//! same with the table on or off.

use super::*;
use crate::results::Table;

/// One flow's pauses.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::engine) struct FlowPauses {
    /// Times its partition was paused (a skip, a memo hit or a lockstep follow).
    pub(super) count: u32,
    /// The first pause: its time (ps) and the DATA packets the flow had simulated by then.
    pub(super) first: Option<(Time, u64)>,
}

/// `skip_flows.csv`'s columns.
pub const SKIP_FLOWS_COLUMNS: [&str; 6] = [
    "id",
    "packets_simulated",
    "packets_skipped",
    "pauses",
    "first_pause_ps",
    "simulated_before_first_pause",
];

impl Sim {
    /// DATA packets flow `f` has simulated (`flows.csv` `packets_sent`): its live sender's
    /// count as the steady detector reads it (every fast-forwarded transport keeps its
    /// sender outside the flow record but DCTCP's), else the count kept at its completion.
    fn simulated_packets(&self, f: usize) -> u64 {
        self.transport
            .skip_view(&self.flows, f as u32)
            .map_or_else(|| self.flows[f].sender_stats().packets_sent, |v| v.sent)
    }

    /// Partition `id` is being paused now: count it for each of its flows.
    pub(super) fn note_pauses(&mut self, id: PartitionId) {
        let Some(w) = self.wh.as_ref() else { return };
        let sent: Vec<(u32, u64)> = w
            .parts
            .flows(id)
            .into_iter()
            .flatten()
            .map(|&f| (f, self.simulated_packets(f as usize)))
            .collect();
        let now = self.now;
        let w = self.wh.as_mut().expect("checked");
        for (f, sent) in sent {
            if let Some(p) = w.pauses.get_mut(f as usize) {
                p.count += 1;
                p.first.get_or_insert((now, sent));
            }
        }
    }

    /// `skip_flows.csv`: a row per flow (zeros for a run without Wormhole).
    pub(in crate::engine) fn skip_flows_table(&self) -> Table {
        let rows = (0..self.flows.len())
            .map(|f| {
                let p = self
                    .wh
                    .as_ref()
                    .and_then(|w| w.pauses.get(f).copied())
                    .unwrap_or_default();
                let (at, before) = p.first.map_or((String::new(), String::new()), |(t, n)| {
                    (t.to_string(), n.to_string())
                });
                vec![
                    f.to_string(),
                    self.simulated_packets(f).to_string(),
                    self.flows[f].skipped.to_string(),
                    p.count.to_string(),
                    at,
                    before,
                ]
            })
            .collect();
        Table {
            header: SKIP_FLOWS_COLUMNS.map(String::from).to_vec(),
            rows,
        }
    }
}
