//! Metrics every transport shares, and the fabric setup every transport shares: the
//! collective metrics ([`crate::metrics::CollMetrics`]: CCT, queueing delay, reordering,
//! utilization, loss) and the slowed cores of `topology.core_links` (DCSIM 4.2).

use super::*;
use crate::metrics::{Arrival, CollMetrics};
use crate::topology::cores;

/// Default metrics interval when queue sampling is off, ps.
const DEFAULT_INTERVAL_PS: u64 = 10_000_000;

/// The metrics' view of DATA `pk` arriving (`hdr` header bytes; `new` if a first copy).
pub(crate) fn arrival_of(pk: &Packet, hdr: u32, new: bool) -> Arrival {
    Arrival {
        flow: pk.flow,
        psn: pk.psn,
        wire_bytes: pk.bytes,
        payload: pk.bytes.saturating_sub(hdr),
        new,
        stamp: pk.cum_ack,
    }
}

impl Sim {
    /// Set up the collective metrics (every transport) and the slowed cores
    /// (`topology.core_links`, DCSIM 4.2: rate changes at t = 0).
    pub(super) fn metrics_setup(&mut self, s: &Scenario) -> Result<()> {
        let t = &s.topology;
        let mtu = u64::from(s.transport.mtu.max(1));
        let specs: Vec<_> = self.flows.iter().map(|f| f.spec).collect();
        let datas: Vec<u32> = specs
            .iter()
            .map(|f| f.bytes.div_ceil(mtu).max(1) as u32)
            .collect();
        let prop_ps = t.link_delay_ns * 1000;
        let mut extra_prop = Vec::new();
        let paths: Vec<(u32, u32)> = specs
            .iter()
            .enumerate()
            .map(|(i, f)| {
                // Every flow knows its own path (Fabric::path); the metrics need its shape,
                // and (two_dc) the propagation beyond its links at the uniform delay.
                let p = self.fabric.path(f.src, f.dst, 0, 0, 0);
                let extra = (p.base_rtt_ps / 2).saturating_sub(u64::from(p.shape.links) * prop_ps);
                if extra > 0 {
                    extra_prop.push((i as u32, extra));
                }
                (p.shape.links, p.shape.switches)
            })
            .collect();
        let interval = if self.sample_ps > 0 {
            self.sample_ps
        } else {
            DEFAULT_INTERVAL_PS
        };
        self.cm = Some(Box::new(CollMetrics::new(
            &specs,
            &datas,
            &paths,
            t.link_gbps,
            t.link_delay_ns * 1000,
            t.switch_latency_ns * 1000,
            interval,
        )));
        if let Some(cm) = self.cm.as_deref_mut() {
            for (f, ps) in extra_prop {
                cm.set_extra_prop(f, ps);
            }
            if let Some((a, b)) = crate::workload::infinite::window_ps(s) {
                cm.set_window(a, b);
            }
        }

        // DCSIM 4.2: the even spines' cables slowed at t = 0, like a [[failures]] rate change.
        let slow = cores::slowed_core_ports(&self.fabric, t);
        for p in slow {
            let i = self.failures.len() as u32;
            let g = self.fabric.ports[p as usize].gbps * t.slow_core_fraction;
            self.failures.push(FailureRt {
                ports: [p, self.fabric.ports[p as usize].reverse],
                gbps: Some(g),
                lossy: false,
                active: false,
                at: 0,
                until: None,
            });
            self.q.push(0, Comp::new(Kind::Failure, 2 * i));
        }

        Ok(())
    }

    /// Baseline (non-DCSIM) DATA arrival at its receiver: collective metrics. `new` if it
    /// was the first copy; `cum` the receiver's cumulative point after it.
    pub(crate) fn metrics_data(&mut self, pk: &Packet, new: bool, cum: u32) {
        let now = self.now;
        let hdr = self.hdr_bytes;
        if let Some(cm) = self.cm.as_deref_mut() {
            let f = pk.flow;
            cm.on_data(arrival_of(pk, hdr, new), now);
            // Its DATAs a Wormhole fast-forward took off the message were delivered too.
            if cum.saturating_add(cm.skipped(f)) >= cm.datas(f) {
                cm.on_flow_received(f, now);
            }
        }
    }

    /// Wormhole fast-forward of flow `f` (`../shared/papers/wormhole.md` 5.3 / 6.2): `pkts`
    /// packets sent at its steady rate since its partition was paused at `from_ps` come off
    /// its message ([`crate::transport::TransportDriver::fast_forward`]), and the collective
    /// metrics count the data among them as delivered over the skip
    /// ([`CollMetrics::on_skipped`]), and `links.csv` the traffic
    /// ([`Sim::credit_skipped_links`]). Returns the packets not simulated.
    pub(crate) fn fast_forward_flow(&mut self, f: u32, pkts: u64, from_ps: Time) -> u64 {
        let before = self.flows[f as usize].skipped;
        let wire = self.transport.fast_forward(&mut self.flows, f, pkts);
        let data = self.flows[f as usize].skipped - before;
        let (mtu, now) = (u64::from(self.cfg.mtu), self.now);
        if let Some(cm) = self.cm.as_deref_mut() {
            cm.on_skipped(f, data, wire, mtu, from_ps, now);
        }
        self.credit_skipped_links(f, wire, mtu);
        wire
    }

    /// Add the loss counters and the collective metrics to `r`.
    pub(super) fn metrics_results(&self, r: &mut RunResult) {
        let x = &mut r.summary.extra;
        // The loss rate is over every DATA sent, those a Wormhole fast-forward sent at the
        // steady rate included (`data_sent` itself counts the DATAs simulated).
        let skipped: u64 = self.flows.iter().map(|f| u64::from(f.skipped)).sum();
        let data_sent = (self.c.data_sent + skipped).max(1) as f64;
        let data_drops = self.c.data_dropped;
        x.insert("data_drops".into(), data_drops as f64);
        x.insert("data_loss_rate".into(), data_drops as f64 / data_sent);
        x.insert("data_sent".into(), self.c.data_sent as f64);
        if let Some(cm) = &self.cm {
            cm.results(self.fabric.hosts, self.fabric.host_gbps, x, &mut r.tables);
        }
    }
}
