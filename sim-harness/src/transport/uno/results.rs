//! The Uno transports' counters in a run's summary (`uno_*` in `extra`): UnoRC's blocks
//! decoded, recovered and NACKed (Uno 4.2), UnoCC's Quick Adapt / MD / gentle MD events
//! (Algorithm 1), UnoLB's reroutes (Algorithm 2).

use super::tx::TxStats;
use crate::engine::Sim;
use crate::flow::Lb;
use crate::results::RunResult;
use crate::transport::TransportDriver;

impl Sim {
    /// The Uno counters in `r`'s summary (`extra`).
    pub(crate) fn uno_results(&self, r: &mut RunResult) {
        let TransportDriver::Uno(st) = &self.transport else {
            return;
        };
        let mut t = st.totals;
        for tx in st.tx.iter().flatten() {
            add_tx(&mut t.tx, &tx.stats);
        }
        for rx in st.rx.iter().flatten() {
            let s = &rx.stats;
            t.rx.decoded += s.decoded;
            t.rx.recovered += s.recovered;
            t.rx.nacks += s.nacks;
            t.rx.decode_failures += s.decode_failures;
        }
        let reroutes: u64 = self
            .flows
            .iter()
            .map(|f| match &f.lb {
                Lb::Uno(s) => u64::from(s.reroutes()),
                _ => 0,
            })
            .sum();
        let x = &mut r.summary.extra;
        x.insert("sim_drops".into(), 0.0);
        x.insert("sim_loss_rate".into(), 0.0);
        for (k, v) in [
            ("uno_blocks_decoded", t.rx.decoded),
            ("uno_blocks_recovered", t.rx.recovered),
            ("uno_blocks_nacked", t.rx.nacks),
            ("uno_decode_failures", t.rx.decode_failures),
            ("uno_units_retransmitted", t.tx.units_retransmitted),
            ("uno_parity_sent", t.tx.parity_sent),
            ("uno_sender_timeouts", t.tx.timeouts),
            ("uno_qa_events", t.tx.qa),
            ("uno_md_events", t.tx.md),
            ("uno_gentle_md_events", t.tx.gentle),
            ("uno_reroutes", reroutes),
        ] {
            x.insert(k.into(), v as f64);
        }
    }
}

pub(super) fn add_tx(a: &mut TxStats, b: &TxStats) {
    a.packets_sent += b.packets_sent;
    a.retransmits += b.retransmits;
    a.parity_sent += b.parity_sent;
    a.ecn_acks += b.ecn_acks;
    a.nacks += b.nacks;
    a.timeouts += b.timeouts;
    a.units_retransmitted += b.units_retransmitted;
    a.qa += b.qa;
    a.md += b.md;
    a.gentle += b.gentle;
}
