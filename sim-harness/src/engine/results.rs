//! The results of a run: flows, links, summary, extra metrics and tables.

use super::*;

impl Sim {
    /// The results of the run so far.
    pub fn results(&self, s: &Scenario) -> RunResult {
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut fcts = Vec::new();
        let (mut retx, mut ooo, mut stalls) = (0u64, 0u64, 0u64);
        for (id, f) in self.flows.iter().enumerate() {
            let st = f.sender_stats();
            retx += st.retransmits;
            stalls += st.window_stalls;
            ooo += f.rx.out_of_order();
            let fct = if f.end_ps > 0 {
                f.end_ps - f.spec.start_ps
            } else {
                0
            };
            if f.end_ps > 0 {
                fcts.push(fct);
            }
            flows.push(FlowRecord {
                id: id as u32,
                src: f.spec.src,
                dst: f.spec.dst,
                bytes: f.spec.bytes,
                start_ps: f.spec.start_ps,
                end_ps: f.end_ps,
                fct_ps: fct,
                // The DATAs simulated (a skip run's per-flow measure of what Wormhole saved;
                // the fast-forwarded ones are in `wormhole_skipped_packets`).
                packets_sent: st.packets_sent,
                retransmits: st.retransmits,
                ecn_acks: st.ecn_acks,
                out_of_order: f.rx.out_of_order(),
            });
        }
        fcts.sort_unstable();
        let n = fcts.len();
        let (max_fct, mean_fct, p99) = if n == 0 {
            (0, 0, 0)
        } else {
            let sum: u128 = fcts.iter().map(|&x| x as u128).sum();
            let idx = ((n as f64 * 0.99).ceil() as usize).clamp(1, n) - 1;
            (fcts[n - 1], (sum / n as u128) as u64, fcts[idx])
        };

        let end_s = self.now as f64 * 1e-12;
        let (mut trims, mut marks) = (0u64, 0u64);
        let mut links = Vec::with_capacity(self.ports.len());
        let (mut data_inflight, mut ctrl_inflight) = (0u64, 0u64);
        for (p, port) in self.ports.iter().enumerate() {
            let (m, tr) = port.kind.marks_trims();
            marks += m;
            trims += tr;
            for pk in port
                .ctrl_q
                .iter()
                .chain(port.data_q.iter())
                .chain(port.kind.pfabric().into_iter().flat_map(|pf| pf.packets()))
                .chain(port.link.iter().map(|(_, pk)| pk))
            {
                if pk.kind == PktKind::Data {
                    data_inflight += 1;
                } else {
                    ctrl_inflight += 1;
                }
            }
            let base = self.fabric.ports[p].gbps;
            let (tx_packets, tx_bytes) = self.link_tx(p);
            links.push(LinkRecord {
                link: self.fabric.ports[p].name.clone(),
                tx_bytes,
                tx_packets,
                drops: port.drops,
                ecn_marks: m,
                utilization: if end_s > 0.0 {
                    tx_bytes as f64 * 8.0 / (base * 1e9 * end_s)
                } else {
                    0.0
                },
            });
        }
        let drops: u64 = self.c.drops.iter().sum();
        let drops_by_cause: BTreeMap<String, u64> = CAUSE_NAMES
            .iter()
            .zip(self.c.drops)
            .map(|(n, c)| (n.to_string(), c))
            .collect();
        let c = &self.c;
        let mut extra: BTreeMap<String, f64> = [
            ("base_rtt_ps", self.base_rtt_ps as f64),
            ("bdp_bytes", self.bdp_bytes as f64),
            ("buffer_bytes", self.buffer_bytes as f64),
            ("data_delivered", c.data_delivered as f64),
            ("data_dropped", c.data_dropped as f64),
            ("data_trimmed", c.data_trimmed as f64),
            ("data_in_flight_end", data_inflight as f64),
            ("ctrl_created", c.ctrl_created as f64),
            ("ctrl_delivered", c.ctrl_delivered as f64),
            ("ctrl_dropped", c.ctrl_dropped as f64),
            ("ctrl_in_flight_end", ctrl_inflight as f64),
            ("headers_delivered", c.headers_delivered as f64),
            ("timeouts", c.timeouts as f64),
            ("failure_detections", c.failure_detections as f64),
            ("window_stalls", stalls as f64),
            ("stalled", self.stalled as u8 as f64),
            ("interrupted", self.interrupted as u8 as f64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        extra.extend(crate::lb_stats::reps_extra(&self.flows, &self.conns.lb));
        let wall = self.wall_s;
        let per_s = |x: u64| if wall > 0.0 { x as f64 / wall } else { 0.0 };
        let mut r = RunResult {
            summary: Summary {
                seed: s.seed,
                scenario: s.name.clone(),
                dcfab_version: env!("CARGO_PKG_VERSION").to_string(),
                flows: self.flows.len() as u64,
                flows_completed: n as u64,
                max_fct_ps: max_fct,
                mean_fct_ps: mean_fct,
                p99_fct_ps: p99,
                end_time_ps: self.now,
                drops,
                drops_by_cause,
                trims,
                ecn_marks: marks,
                data_packets: c.data_sent,
                retransmits: retx,
                out_of_order: ooo,
                events: c.simulated_events(),
                wall_s: wall,
                events_per_s: per_s(c.simulated_events()),
                data_packets_per_s: per_s(c.data_sent),
                extra,
            },
            flows,
            queues: self.queues.clone(),
            links,
            rates: Vec::new(),
            fairness: Vec::new(),
            tables: self
                .sel
                .table(&self.fabric)
                .map(|t| (SELECTION_TABLE.to_string(), t))
                .into_iter()
                .collect(),
            trace: None,
            trace_file: None,
        };
        self.metrics_results(&mut r);
        self.rate_results(&mut r);
        self.transport_results(&mut r);
        self.wh_results(&mut r);
        self.two_dc_results(&mut r, s.output.fct_slowdown);
        if s.output.skip_flows {
            r.tables
                .insert("skip_flows".into(), self.skip_flows_table());
        }
        self.loss_results(&mut r);
        self.failure_results(s, &mut r);
        self.phantom_results(&mut r);
        self.trace_results(&mut r);
        r
    }
}
