//! Installing dcPIM for a run: the epoch clock from the fabric's RTT, the matching's
//! parameters from `[transport.dcpim]` (dcPIM's `k` channels, SRPT rounds, token window),
//! each host's own random source, and the `dcpim_*` counters of the summary.

use super::flow::PimFlow;
use super::matching::{EpochClock, PimHost};
use super::state::{DcpimState, PimCounters};
use crate::engine::Sim;
use crate::error::Result;
use crate::results::RunResult;
use crate::scenario::Scenario;
use crate::transport::TransportDriver;

impl Sim {
    /// Install dcPIM for scenario `s`.
    pub(crate) fn dcpim_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.transport;
        let sec = &t.dcpim;
        let rtt = self.base_rtt_ps.max(1) as f64;
        // An even round (its grant step at the half) of at least 2 ps.
        let round_ps = (((sec.round_rtts * rtt) / 2.0).round() as u64).max(1) * 2;
        let matching = u64::from(sec.rounds) * round_ps;
        let epoch_ps = ((sec.epoch_rtts * rtt).round() as u64).max(matching);
        // Epoch numbers travel as 32 bits; the run must not wrap them.
        let unsched_bytes = (sec.unscheduled_bdp * self.bdp_bytes as f64).round() as u64;
        let mtu = t.mtu.max(1);
        let flows = self
            .flows
            .iter()
            .map(|f| pim_flow(f.spec.bytes, mtu, unsched_bytes))
            .collect();
        for f in &mut self.flows {
            f.rx = crate::flow::FlowRx::InTransport;
        }
        let gbps = self.fabric.host_gbps;
        let ser_ps = (f64::from(mtu + t.header_bytes) * 8000.0 / gbps).ceil() as u64;
        let bdp_pkts = self.bdp_bytes as f64 / f64::from(mtu);
        self.transport = TransportDriver::Dcpim(Box::new(DcpimState {
            clock: EpochClock {
                epoch_ps,
                round_ps,
                rounds: sec.rounds,
            },
            mtu,
            hdr: t.header_bytes,
            unsched_bytes,
            ser_ps,
            rto_ps: (t.rto_us * 1e6).round() as u64 + self.base_rtt_ps,
            hosts: (0..self.fabric.hosts)
                .map(|h| PimHost::new(host_rng(s.seed, h)))
                .collect(),
            srpt_rounds: sec.srpt_rounds,
            chans: sec.channels,
            window_pkts: sec.token_window_bdp * bdp_pkts,
            window_timeout_ps: ((sec.token_window_timeout_rtts * rtt).round() as u64).max(1),
            link_pkts: (epoch_ps / ser_ps.max(1) / u64::from(sec.channels)).max(1),
            flows,
            counted_epoch: 0,
            counted_round: (0, 0),
            checked_epoch: 0,
            k: PimCounters::default(),
        }));
        Ok(())
    }

    /// dcPIM's state in a dcPIM run (tests: the matching at a point of the run).
    pub fn dcpim(&self) -> Option<&DcpimState> {
        match &self.transport {
            TransportDriver::Dcpim(d) => Some(d),
            _ => None,
        }
    }

    /// The dcPIM counters in `r`'s summary (`extra`).
    pub(crate) fn dcpim_results(&self, r: &mut RunResult) {
        let TransportDriver::Dcpim(st) = &self.transport else {
            return;
        };
        let k = &st.k;
        let x = &mut r.summary.extra;
        x.insert("sim_drops".into(), 0.0);
        x.insert("sim_loss_rate".into(), 0.0);
        for (name, v) in [
            ("dcpim_epochs", k.epochs),
            ("dcpim_matching_rounds", k.rounds),
            ("dcpim_matched_pairs", k.matched_pairs),
            ("dcpim_first_round_matches", k.first_round_matches),
            ("dcpim_rts", k.rts),
            ("dcpim_grants", k.grants),
            ("dcpim_accepts", k.accepts),
            ("dcpim_revokes", k.revokes),
            ("dcpim_ctrl_drops", k.ctrl_drops),
            ("dcpim_conflicts", k.conflicts),
            ("dcpim_unscheduled_bytes", k.unscheduled_bytes),
            ("dcpim_scheduled_bytes", k.scheduled_bytes),
            ("dcpim_unscheduled_flows", k.unscheduled_flows),
            ("dcpim_timeouts", k.timeouts),
            ("dcpim_retransmits", k.retransmits),
            ("dcpim_matched_links", k.matched_links),
            ("dcpim_window_stalls", k.window_stalls),
            ("dcpim_window_relaxes", k.window_relaxes),
        ] {
            x.insert(name.into(), v as f64);
        }
        x.insert(
            "dcpim_ctrl_bytes".into(),
            ((k.rts + k.grants + k.accepts + k.revokes) * u64::from(st.hdr)) as f64,
        );
        x.insert(
            "dcpim_matched_pairs_per_epoch".into(),
            k.matched_pairs as f64 / k.epochs.max(1) as f64,
        );
        x.insert(
            "dcpim_matched_links_per_epoch".into(),
            k.matched_links as f64 / k.epochs.max(1) as f64,
        );
        x.insert("dcpim_channels".into(), f64::from(st.chans));
        x.insert("dcpim_token_window_pkts".into(), st.window_pkts);
        x.insert(
            "dcpim_unscheduled_threshold_bytes".into(),
            st.unsched_bytes as f64,
        );
        // The share of the matched epochs' line rate their scheduled bytes used (a match
        // whose flows end early idles to the epoch's end).
        let line_bytes_per_ps = self.fabric.host_gbps / 8000.0;
        let capacity = k.matched_links as f64 * st.clock.epoch_ps as f64 * line_bytes_per_ps
            / f64::from(st.chans);
        x.insert(
            "dcpim_matched_utilization".into(),
            if capacity > 0.0 {
                k.scheduled_bytes as f64 / capacity
            } else {
                0.0
            },
        );
        x.insert("dcpim_epoch_us".into(), st.clock.epoch_ps as f64 / 1e6);
        x.insert("dcpim_round_us".into(), st.clock.round_ps as f64 / 1e6);
    }
}

/// Host `h`'s random source for the run of seed `seed` (a draw of its own: no other
/// random sequence of the run moves).
pub(super) fn host_rng(seed: u64, h: u32) -> rtl_models::Lfsr32 {
    let s = (seed ^ (seed >> 32)) as u32 ^ 0xd9c1_0000;
    rtl_models::Lfsr32::new(s.wrapping_add(h.wrapping_mul(0x9e37_79b9)))
}

/// dcPIM's record of a flow of `bytes` bytes: its packets of `mtu`, scheduled (matched)
/// when it has at least `unsched_bytes` (under one BDP it is sent without matching).
fn pim_flow(bytes: u64, mtu: u32, unsched_bytes: u64) -> PimFlow {
    let pkts = bytes.div_ceil(u64::from(mtu)).max(1);
    PimFlow::new(pkts as u32, bytes >= unsched_bytes)
}

impl DcpimState {
    /// Flow `f` (not started) now has `bytes` bytes (`Sim::set_flow`): its record follows.
    pub(crate) fn respec(&mut self, f: u32, bytes: u64) {
        self.flows[f as usize] = pim_flow(bytes, self.mtu, self.unsched_bytes);
    }
}
