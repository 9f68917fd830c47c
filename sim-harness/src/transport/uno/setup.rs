//! Installing the Uno transports for a run (`cc` uno, gemini or mprdma_bbr): each flow's base
//! RTT and BDP from its path (Uno 4.1.1), the Reed-Solomon block codec of UnoRC (4.2), UnoLB's
//! subflows (4.2, Algorithm 2), and the sender timeout (ours, or the authors' queue-drain
//! timeout, `transport.uno.authors_rto`).

use super::state::{FlowParams, Totals, UnoState};
use super::subflows::Subflows;
use crate::engine::Sim;
use crate::error::{Error, Result};
use crate::flow::Lb;
use crate::scenario::{CcKind, LbKind, Scenario};
use crate::transport::TransportDriver;
use nic::uno::ec::BlockCodec;
use rtl_models::Rate;
use std::collections::VecDeque;

/// `transport.uno.authors_rto`: what an intra- and an inter-DC flow add to their base RTT,
/// ps: 5 drain times of an intra-DC port's `buffer` bytes at `gbps`, and for an inter-DC
/// flow 3 more of an inter-DC port's `dc_buffer` bytes (spcl/Uno_SC25
/// `LcpSrc::updateParams`: `_rto = _base_rtt + 5 * intra_queue_latency + 3 *
/// inter_queue_latency` for inter-DC flows, `+ 5 * intra_queue_latency` inside a DC).
fn authors_rto_extra_ps(buffer: u64, dc_buffer: u64, gbps: f64) -> (u64, u64) {
    let drain = |b: u64| (b as f64 * 8.0 * 1000.0 / gbps.max(1e-9)).round() as u64;
    let intra = 5 * drain(buffer);
    (intra, intra + 3 * drain(dc_buffer))
}

fn cfg_err(field: &str, e: rtl_models::ConfigError) -> Error {
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

impl Sim {
    /// Install the Uno transport (`cc` uno, gemini or mprdma_bbr) for scenario `s`.
    pub(crate) fn uno_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.transport;
        let sec = t.uno.clone();
        let (mtu, hdr) = (t.mtu, t.header_bytes);
        let fab = &self.fabric;
        // Each flow's own base RTT and BDP (`FlowBase`: its path's across datacenters, the
        // run's reference inside one); the intra-DC RTT and BDP are the reference's (the
        // longest path inside a datacenter).
        let params: Vec<FlowParams> = self
            .flows
            .iter()
            .map(|f| FlowParams {
                inter_dc: f.base.inter,
                base_rtt_ps: f.base.rtt_ps,
                bdp_bytes: f.base.bdp_bytes,
            })
            .collect();
        // Erasure coding adds y wire packets per x: every flow's wire packets (and PSNs)
        // must stay below 2^31 (bit 31 of an ACK's `psn` is the delivered flag).
        let coded = t.cc == CcKind::Uno && sec.ec;
        for (f, p) in self.flows.iter().zip(&params) {
            let data = f.spec.bytes.div_ceil(u64::from(mtu.max(1)));
            let wire = if coded && (p.inter_dc || sec.ec_intra) {
                data.div_ceil(u64::from(sec.ec_data)) * u64::from(sec.ec_data + sec.ec_parity)
            } else {
                data
            };
            if wire >= 1 << 31 {
                return Err(Error::field(
                    "workload.message",
                    format!("a flow of {data} packets needs {wire} wire packets with erasure coding, more than 2^31"),
                ));
            }
        }
        let clock = crate::clock::NIC_CLOCK;
        let ser_mtu_ps = crate::engine::ser_ps(mtu + hdr, ser_q32(fab.host_gbps));
        let line_rate = Rate((fab.host_gbps / 8.0 * 4_294_967_296.0) as u64);
        let codec = if t.cc == CcKind::Uno && sec.ec && sec.ec_parity > 0 {
            Some(
                BlockCodec::new(sec.ec_data as u8, sec.ec_parity as u8)
                    .map_err(|e| cfg_err("transport.uno.ec_parity", e))?,
            )
        } else {
            None
        };
        // UnoLB: the configured subflows, rerouting at most once per the flow's base RTT.
        if t.lb == LbKind::Unolb {
            for (f, p) in self.flows.iter_mut().zip(&params) {
                let rtt = clock.cycle_at(p.base_rtt_ps);
                let mut s = Subflows::new(sec.subflows, rtt, &mut f.rng);
                s.set_reroute_stale(sec.reroute_stale);
                f.lb = Lb::Uno(s);
            }
        }
        let inter_bdp = params
            .iter()
            .filter(|p| p.inter_dc)
            .map(|p| p.bdp_bytes)
            .max()
            .unwrap_or(self.bdp_bytes)
            .max(1);
        let n = self.flows.len();
        let hosts = self.fabric.hosts as usize;
        for f in &mut self.flows {
            f.rx = crate::flow::FlowRx::InTransport;
        }
        self.transport = TransportDriver::Uno(Box::new(UnoState {
            cc: t.cc,
            mtu,
            params,
            intra_rtt: clock.cycle_at(self.base_rtt_ps).max(1),
            intra_bdp: self.bdp_bytes.max(1),
            inter_bdp,
            line_rate,
            delay_thresh: clock.cycle_at(4 * ser_mtu_ps),
            init_cwnd: t.init_cwnd,
            rto_ps: (t.rto_us * 1e6).round() as u64,
            authors_rto_ps: sec.authors_rto.then(|| {
                authors_rto_extra_ps(self.buffer_bytes, self.dc_buffer_bytes, fab.host_gbps)
            }),
            codec,
            tx: vec![None; n],
            rx: vec![None; n],
            ready: vec![VecDeque::new(); hosts],
            totals: Totals::default(),
            sec,
        }));
        Ok(())
    }
}

fn ser_q32(gbps: f64) -> u64 {
    (8000.0 / gbps * 4_294_967_296.0).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::uno::UnoSection;

    /// The authors' Fig. 10 buffers (1 MB everywhere, 100 Gb/s): 80 us per drain, so an
    /// intra-DC flow adds 400 us to its base RTT and an inter-DC flow 640 us; Fig. 12's
    /// (175 KB inside, 2.24 MB at the border): 70 us and 70 + 537.6 us.
    #[test]
    fn authors_rto_adds_the_queue_drain_times() {
        assert_eq!(
            authors_rto_extra_ps(1_000_000, 1_000_000, 100.0),
            (400_000_000, 640_000_000)
        );
        assert_eq!(
            authors_rto_extra_ps(175_000, 2_240_000, 100.0),
            (70_000_000, 70_000_000 + 537_600_000)
        );
        assert!(!UnoSection::default().authors_rto, "off by default");
    }
}
