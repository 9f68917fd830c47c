//! The metrics of the DCSIM evaluation (DCSIM section 4.1, "Metrics"), kept for every
//! transport so DCSIM and the baseline are measured the same way:
//!
//! 1. **CCT**: per collective, the time the last DATA of the collective reaches its
//!    destination (every flow's last distinct DATA received), minus the collective's start;
//!    averaged over the collectives (`mean_cct_ps`) and the largest (`max_cct_ps`).
//! 2. **Packet loss rate**: DATAs (and for DCSIM, SIMs) dropped over those sent by hosts.
//! 3. **Queueing delay** of DATAs: arrival at the destination minus transmission at the
//!    source host, minus the zero-load time of that DATA on its path (`links * (ser + prop) +
//!    switches * latency` at the nominal rate), averaged over every DATA arrival. The DATA
//!    carries its transmission time in its `cum_ack` field (unused by DATAs), in units of
//!    [`STAMP_PS`] modulo 2^32 (so up to 68 ms of delay).
//! 4. **Reordering size**: DATAs that arrive with a sequence number below the highest the
//!    flow's receiver has seen, per measurement interval (`intervals.csv`) and in total.
//! 5. **Utilization**: DATA payload received per interval over the hosts' total link
//!    capacity; over the run (`utilization`) from t = 0 to the last DATA arrival; for
//!    infinite flows also over a fixed window (`utilization_window`, [`CollMetrics::set_window`]).
//!
//! ```text
//!  transport_arrive(DATA) --on_data(Arrival{flow, psn, bytes, new, stamp}, now)--> per interval:
//!        queueing delay sums, reorder count, payload bytes           bytes, reorder
//!  receiver complete --on_flow_received(flow, now)--> collective end = max(flow ends)
//!  results() --> summary.extra (mean_cct_ps, ...), collectives.csv, intervals.csv
//! ```

pub mod fairness;

use crate::results::Table;
use crate::workload::FlowSpec;
use std::collections::{BTreeMap, BTreeSet};

/// Unit of the transmission stamp a DATA carries, ps.
pub const STAMP_PS: u64 = 16;

/// The stamp of time `now` (ps).
#[inline]
pub fn stamp(now: u64) -> u32 {
    (now / STAMP_PS) as u32
}

/// Time from stamp `s` to `now`, ps (exact to within [`STAMP_PS`], up to 2^32 stamps).
#[inline]
pub fn since(s: u32, now: u64) -> u64 {
    u64::from(stamp(now).wrapping_sub(s)) * STAMP_PS
}

/// One DATA arrival at its destination host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Its flow.
    pub flow: u32,
    /// Its sequence number.
    pub psn: u32,
    /// Its bytes on the wire.
    pub wire_bytes: u32,
    /// Its payload bytes.
    pub payload: u32,
    /// First copy received (not a duplicate).
    pub new: bool,
    /// Its transmission stamp ([`stamp`] of its departure from the source host).
    pub stamp: u32,
}

#[derive(Debug, Clone, Copy)]
struct FlowM {
    coll: u32,
    datas: u32,
    /// Highest sequence number seen + 1 (0: none).
    max_seen: u32,
    received: u32,
    done_ps: u64,
    links: u32,
    switches: u32,
    reorder: u64,
    /// Propagation of the flow's path beyond `links` links of the uniform delay (`two_dc`:
    /// the inter-DC link's), ps.
    extra_prop_ps: u64,
    /// DATAs a Wormhole fast-forward took off the flow's message ([`CollMetrics::on_skipped`]):
    /// delivered, though its receiver's cumulative point never counts them.
    skipped: u32,
    /// The flow's queueing delay, ps x 16: an EWMA (gain 1/16) over its DATA arrivals, what
    /// a DATA it sent while its partition was skipped is counted with.
    qdelay16: u64,
}

#[derive(Debug, Clone, Default)]
struct CollM {
    hosts: BTreeSet<u32>,
    flows: u64,
    bytes: u64,
    start_ps: u64,
    end_ps: u64,
    done_flows: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct IntervalM {
    bytes: u64,
    reorder: u64,
}

impl CollM {
    /// One more of its flows completed at `now`.
    fn done(&mut self, now: u64) {
        self.done_flows += 1;
        self.end_ps = self.end_ps.max(now);
    }
}

/// The collectives of `specs` (by [`FlowSpec::collective`]): hosts, flows, bytes, start.
fn colls_of(specs: &[FlowSpec]) -> Vec<CollM> {
    let n_coll = specs.iter().map(|f| f.collective + 1).max().unwrap_or(0) as usize;
    let mut colls = vec![
        CollM {
            start_ps: u64::MAX,
            ..CollM::default()
        };
        n_coll
    ];
    for f in specs {
        let c = &mut colls[f.collective as usize];
        c.hosts.insert(f.src);
        c.hosts.insert(f.dst);
        c.flows += 1;
        c.bytes += f.bytes;
        c.start_ps = c.start_ps.min(f.start_ps);
    }
    colls
}

/// The `collectives` table and the keys `collectives`, `collectives_completed`,
/// `mean_cct_ps`, `max_cct_ps` of `colls`.
fn put_collectives(
    colls: &[CollM],
    extra: &mut BTreeMap<String, f64>,
    tables: &mut BTreeMap<String, Table>,
) {
    let mut ccts = Vec::new();
    let mut rows = Vec::new();
    for (id, c) in colls.iter().enumerate() {
        if c.flows == 0 {
            continue;
        }
        let done = c.done_flows == c.flows;
        let cct = if done { c.end_ps - c.start_ps } else { 0 };
        if done {
            ccts.push(cct);
        }
        rows.push(vec![
            id.to_string(),
            c.hosts.len().to_string(),
            c.flows.to_string(),
            c.bytes.to_string(),
            c.start_ps.to_string(),
            if done {
                c.end_ps.to_string()
            } else {
                "0".into()
            },
            cct.to_string(),
        ]);
    }
    tables.insert(
        "collectives".into(),
        Table {
            header: [
                "id", "size", "flows", "bytes", "start_ps", "end_ps", "cct_ps",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        },
    );
    let n = ccts.len();
    let mean_cct = if n > 0 {
        ccts.iter().map(|&x| x as f64).sum::<f64>() / n as f64
    } else {
        0.0
    };
    for (k, v) in [
        (
            "collectives",
            colls.iter().filter(|c| c.flows > 0).count() as f64,
        ),
        ("collectives_completed", n as f64),
        ("mean_cct_ps", mean_cct.round()),
        ("max_cct_ps", ccts.iter().copied().max().unwrap_or(0) as f64),
    ] {
        extra.insert(k.to_string(), v);
    }
}

/// CCT alone (metric 1), for a run that measures no packets (the Zeropod region): the
/// collectives of `specs` whose flows completed at `ends` (0: not completed), as
/// [`CollMetrics::results`] writes them (`collectives.csv`, `mean_cct_ps`, ...).
pub fn collective_times(
    specs: &[FlowSpec],
    ends: &[u64],
    extra: &mut BTreeMap<String, f64>,
    tables: &mut BTreeMap<String, Table>,
) {
    let mut colls = colls_of(specs);
    for (f, &end) in specs.iter().zip(ends) {
        if end > 0 {
            colls[f.collective as usize].done(end);
        }
    }
    put_collectives(&colls, extra, tables);
}

/// Collective metrics of one run.
#[derive(Debug, Clone)]
pub struct CollMetrics {
    flows: Vec<FlowM>,
    colls: Vec<CollM>,
    interval_ps: u64,
    intervals: Vec<IntervalM>,
    gbps: f64,
    prop_ps: u64,
    switch_ps: u64,
    qdelay_sum: u128,
    qdelay_max: u64,
    arrivals: u64,
    reorder: u64,
    payload: u64,
    last_arrival_ps: u64,
    /// Measurement window `[from, to]` of `utilization_window`, ps (infinite flows).
    window: Option<(u64, u64)>,
    /// Payload first received inside `window`.
    window_payload: u64,
}

impl CollMetrics {
    /// Metrics for `specs` (flow i = `specs[i]`) of `datas[i]` DATAs each, whose paths have
    /// `path[i] = (links, switches)`; links of `gbps` with `prop_ps` delay, switches of
    /// `switch_ps` latency; intervals of `interval_ps`.
    pub fn new(
        specs: &[FlowSpec],
        datas: &[u32],
        path: &[(u32, u32)],
        gbps: f64,
        prop_ps: u64,
        switch_ps: u64,
        interval_ps: u64,
    ) -> Self {
        let colls = colls_of(specs);
        let mut flows = Vec::with_capacity(specs.len());
        for (i, f) in specs.iter().enumerate() {
            flows.push(FlowM {
                coll: f.collective,
                datas: datas[i],
                max_seen: 0,
                received: 0,
                done_ps: 0,
                links: path[i].0,
                switches: path[i].1,
                reorder: 0,
                extra_prop_ps: 0,
                skipped: 0,
                qdelay16: 0,
            });
        }
        CollMetrics {
            flows,
            colls,
            interval_ps: interval_ps.max(1),
            intervals: Vec::new(),
            gbps,
            prop_ps,
            switch_ps,
            qdelay_sum: 0,
            qdelay_max: 0,
            arrivals: 0,
            reorder: 0,
            payload: 0,
            last_arrival_ps: 0,
            window: None,
            window_payload: 0,
        }
    }

    /// Also measure utilization over `[from_ps, to_ps]` (`utilization_window`; the steady
    /// state of infinite flows, DCSIM Fig. 4(a)). `to_ps > from_ps`.
    pub fn set_window(&mut self, from_ps: u64, to_ps: u64) {
        self.window = Some((from_ps, to_ps.max(from_ps + 1)));
    }

    fn interval(&mut self, now: u64) -> &mut IntervalM {
        let i = (now / self.interval_ps) as usize;
        if self.intervals.len() <= i {
            self.intervals.resize(i + 1, IntervalM::default());
        }
        &mut self.intervals[i]
    }

    /// Zero-load time of a `wire_bytes` DATA of flow `f`, ps.
    pub fn zero_load_ps(&self, f: u32, wire_bytes: u32) -> u64 {
        let m = &self.flows[f as usize];
        let ser = crate::topology::ser_ps(wire_bytes, self.gbps);
        u64::from(m.links) * (ser + self.prop_ps)
            + u64::from(m.switches) * self.switch_ps
            + m.extra_prop_ps
    }

    /// Flow `f`'s path has `ps` more propagation than its links at the uniform delay (an
    /// inter-DC link).
    pub fn set_extra_prop(&mut self, f: u32, ps: u64) {
        self.flows[f as usize].extra_prop_ps = ps;
    }

    /// DATA arrival `a` at `now`.
    pub fn on_data(&mut self, a: Arrival, now: u64) {
        let Arrival {
            flow: f,
            psn,
            wire_bytes,
            payload,
            new,
            stamp,
        } = a;
        let total = since(stamp, now);
        let q = total.saturating_sub(self.zero_load_ps(f, wire_bytes));
        self.qdelay_sum += u128::from(q);
        self.qdelay_max = self.qdelay_max.max(q);
        self.arrivals += 1;
        self.last_arrival_ps = self.last_arrival_ps.max(now);
        let m = &mut self.flows[f as usize];
        m.qdelay16 = if m.max_seen == 0 {
            q << 4
        } else {
            m.qdelay16 - (m.qdelay16 >> 4) + q
        };
        let reordered = psn.saturating_add(1) < m.max_seen;
        m.max_seen = m.max_seen.max(psn.saturating_add(1));
        if reordered {
            m.reorder += 1;
            self.reorder += 1;
        }
        if new {
            m.received += 1;
            self.payload += u64::from(payload);
            if let Some((a, b)) = self.window {
                if now >= a && now <= b {
                    self.window_payload += u64::from(payload);
                }
            }
        }
        let iv = self.interval(now);
        if reordered {
            iv.reorder += 1;
        }
        if new {
            iv.bytes += u64::from(payload);
        }
    }

    /// Wormhole (`../shared/papers/wormhole.md` 5.3 / 6.2): flow `f` sent `wire` DATAs
    /// (`data` of its message, the rest erasure-code parity) of `payload` bytes each at its
    /// steady rate from `from_ps` to `to_ps` while its partition was skipped, and they were
    /// delivered: counted as the full run counts them, "skipped data counts as delivered".
    /// Its received DATAs and its completion point ([`CollMetrics::skipped`]), the payload
    /// received (`data_payload_received`, `utilization`, the window's), spread evenly over
    /// the skip's intervals (`intervals.csv`), and as arrivals with the flow's recent
    /// queueing delay (its EWMA: 6.2 freezes the queues, so they wait in the same queue) in
    /// `mean_queueing_delay_ps`. Not reordered, and no new maximum delay.
    pub fn on_skipped(
        &mut self,
        f: u32,
        data: u32,
        wire: u64,
        payload: u64,
        from_ps: u64,
        to_ps: u64,
    ) {
        if wire == 0 {
            return;
        }
        let m = &mut self.flows[f as usize];
        m.skipped += data;
        m.received += data;
        self.qdelay_sum += u128::from(m.qdelay16 >> 4) * u128::from(wire);
        self.arrivals += wire;
        let bytes = wire * payload;
        self.payload += bytes;
        self.last_arrival_ps = self.last_arrival_ps.max(to_ps);
        let from = from_ps.min(to_ps);
        let span = to_ps - from;
        if span == 0 {
            if self.window.is_some_and(|(a, b)| to_ps >= a && to_ps <= b) {
                self.window_payload += bytes;
            }
            self.interval(to_ps).bytes += bytes;
            return;
        }
        // Bytes delivered by time `t` of the skip, at its even pace.
        let by = |t: u64| -> u64 {
            let d = t.clamp(from, to_ps) - from;
            (u128::from(bytes) * u128::from(d) / u128::from(span)) as u64
        };
        if let Some((a, b)) = self.window {
            self.window_payload += by(b.saturating_add(1)) - by(a);
        }
        let iv = self.interval_ps;
        let (first, last) = (from / iv, (to_ps - 1) / iv);
        for i in first..=last {
            let b = by((i + 1) * iv) - by(i * iv);
            self.interval(i * iv).bytes += b;
        }
    }

    /// DATAs of flow `f` a Wormhole fast-forward took off its message
    /// ([`CollMetrics::on_skipped`]): its receiver's cumulative point plus these reaching
    /// [`CollMetrics::datas`] is its completion.
    pub fn skipped(&self, f: u32) -> u32 {
        self.flows[f as usize].skipped
    }

    /// Every DATA of flow `f` has reached its destination (at `now`).
    pub fn on_flow_received(&mut self, f: u32, now: u64) {
        let m = &mut self.flows[f as usize];
        if m.done_ps != 0 {
            return;
        }
        m.done_ps = now.max(1);
        self.colls[m.coll as usize].done(now);
    }

    /// Distinct DATAs of flow `f` received so far.
    pub fn received(&self, f: u32) -> u32 {
        self.flows[f as usize].received
    }

    /// DATAs of flow `f`.
    pub fn datas(&self, f: u32) -> u32 {
        self.flows[f as usize].datas
    }

    /// Reordered arrivals of flow `f`.
    pub fn flow_reorder(&self, f: u32) -> u64 {
        self.flows[f as usize].reorder
    }

    /// Reordered arrivals, whole run.
    pub fn reorder(&self) -> u64 {
        self.reorder
    }

    /// Summary metrics (added to `extra`) and the `collectives` and `intervals` tables, for
    /// `hosts` hosts of `host_gbps`.
    pub fn results(
        &self,
        hosts: u32,
        host_gbps: f64,
        extra: &mut BTreeMap<String, f64>,
        tables: &mut BTreeMap<String, Table>,
    ) {
        put_collectives(&self.colls, extra, tables);
        let cap_bytes_per_ps = f64::from(hosts) * host_gbps / 8000.0;
        tables.insert(
            "intervals".into(),
            Table {
                header: ["start_ps", "data_bytes", "utilization", "reorder"]
                    .map(String::from)
                    .to_vec(),
                rows: self
                    .intervals
                    .iter()
                    .enumerate()
                    .map(|(i, iv)| {
                        vec![
                            (i as u64 * self.interval_ps).to_string(),
                            iv.bytes.to_string(),
                            format!(
                                "{:.6}",
                                iv.bytes as f64 / (cap_bytes_per_ps * self.interval_ps as f64)
                            ),
                            iv.reorder.to_string(),
                        ]
                    })
                    .collect(),
            },
        );
        let span = self.last_arrival_ps as f64;
        let util = if span > 0.0 {
            self.payload as f64 / (cap_bytes_per_ps * span)
        } else {
            0.0
        };
        let ivs = self.intervals.len().max(1) as f64;
        for (k, v) in [
            ("reorder", self.reorder as f64),
            ("reorder_per_interval", self.reorder as f64 / ivs),
            ("metrics_interval_ps", self.interval_ps as f64),
            (
                "mean_queueing_delay_ps",
                if self.arrivals > 0 {
                    (self.qdelay_sum as f64 / self.arrivals as f64).round()
                } else {
                    0.0
                },
            ),
            ("max_queueing_delay_ps", self.qdelay_max as f64),
            ("utilization", util),
            ("data_payload_received", self.payload as f64),
        ] {
            extra.insert(k.to_string(), v);
        }
        if let Some((a, b)) = self.window {
            let util = self.window_payload as f64 / (cap_bytes_per_ps * (b - a) as f64);
            for (k, v) in [
                ("utilization_window", util),
                ("window_start_ps", a as f64),
                ("window_end_ps", b as f64),
                ("window_payload_received", self.window_payload as f64),
            ] {
                extra.insert(k.to_string(), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(src: u32, dst: u32, coll: u32) -> FlowSpec {
        FlowSpec {
            src,
            dst,
            bytes: 2000,
            start_ps: 0,
            collective: coll,
        }
    }

    #[test]
    fn cct_queueing_reorder_and_utilization() {
        let specs = [spec(0, 1, 0), spec(1, 0, 0), spec(2, 3, 1)];
        let mut m = CollMetrics::new(&specs, &[2, 2, 2], &[(2, 1); 3], 8.0, 100, 50, 1000);
        // Zero load of a 1000-byte DATA: 2 * (1000 ns + 100 ps) + 50 ps.
        assert_eq!(m.zero_load_ps(0, 1000), 2 * (1_000_000 + 100) + 50);
        let t0 = 160;
        let zl = m.zero_load_ps(0, 1000);
        let a = |psn| Arrival {
            flow: 0,
            psn,
            wire_bytes: 1000,
            payload: 1000,
            new: true,
            stamp: stamp(t0),
        };
        m.on_data(a(1), t0 + zl + 3200);
        m.on_data(a(0), t0 + zl + 3200);
        assert_eq!(m.reorder(), 1, "0 arrived after 1");
        m.on_flow_received(0, 5000);
        m.on_flow_received(1, 9000);
        m.on_flow_received(1, 9999); // once
        let (mut extra, mut tables) = (BTreeMap::new(), BTreeMap::new());
        m.results(4, 8.0, &mut extra, &mut tables);
        // Exact to within one stamp unit.
        assert!((extra["mean_queueing_delay_ps"] - 3200.0).abs() < STAMP_PS as f64);
        assert_eq!(extra["collectives"], 2.0);
        assert_eq!(
            extra["collectives_completed"], 1.0,
            "collective 1 unfinished"
        );
        assert_eq!(extra["mean_cct_ps"], 9000.0);
        let span = (t0 + zl + 3200) as f64;
        let want = 2000.0 / (4.0 * 8.0 / 8000.0 * span);
        assert!((extra["utilization"] - want).abs() < 1e-12);
        let c = &tables["collectives"];
        assert_eq!(c.rows[0], ["0", "2", "2", "4000", "0", "9000", "9000"]);
        assert_eq!(c.rows[1][6], "0");
        assert_eq!(
            tables["intervals"].rows.len() as u64,
            (t0 + zl + 3200) / 1000 + 1
        );
    }

    /// Wormhole's skipped DATAs (5.3 / 6.2): delivered evenly over the skip's intervals, the
    /// window's share in the window, counted towards the completion point, and as arrivals
    /// at the flow's recent queueing delay (no new maximum).
    #[test]
    fn skipped_data_count_as_delivered_over_the_skip() {
        let specs = [spec(0, 1, 0)];
        let mut m = CollMetrics::new(&specs, &[10], &[(2, 1)], 8.0, 100, 50, 1000);
        m.set_window(1500, 2499);
        let zl = m.zero_load_ps(0, 1000);
        let a = |psn, q| {
            (
                Arrival {
                    flow: 0,
                    psn,
                    wire_bytes: 1000,
                    payload: 1000,
                    new: true,
                    stamp: stamp(0),
                },
                zl + q,
            )
        };
        let (x, t) = a(0, 3200);
        m.on_data(x, t);
        // 8 DATAs of 1000 bytes from 500 to 2500 ps (8000 B over 2000 ps): 2000 B in
        // [500, 1000), 4000 B in [1000, 2000), 2000 B in [2000, 2500); the window
        // [1500, 2499] gets the half of it.
        m.on_skipped(0, 8, 8, 1000, 500, 2500);
        assert_eq!(m.skipped(0), 8);
        assert_eq!(m.received(0), 9);
        let (mut extra, mut tables) = (BTreeMap::new(), BTreeMap::new());
        m.results(2, 8.0, &mut extra, &mut tables);
        let iv: Vec<u64> = tables["intervals"]
            .rows
            .iter()
            .map(|r| r[1].parse().unwrap())
            .collect();
        // (The simulated DATA arrives 2 us later, in its own interval.)
        assert_eq!(iv[..3], [2000, 4000, 2000]);
        assert_eq!(iv.iter().sum::<u64>(), 9000);
        assert_eq!(extra["data_payload_received"], 9000.0);
        assert_eq!(extra["window_payload_received"], 4000.0);
        // Nine arrivals at 3200 ps of queueing (the first one's, its EWMA).
        assert!((extra["mean_queueing_delay_ps"] - 3200.0).abs() <= STAMP_PS as f64);
        assert!((extra["max_queueing_delay_ps"] - 3200.0).abs() <= STAMP_PS as f64);
        // The receiver's cumulative point (in the shrunk message, 2 DATAs) plus the 8
        // skipped reach the flow's 10: what `Sim::metrics_data` completes it on.
        assert!(2 + m.skipped(0) >= m.datas(0));
    }

    #[test]
    fn stamps_wrap() {
        let t = (1u64 << 32) * STAMP_PS - 32;
        assert!(since(stamp(t), t + 1000).abs_diff(1000) < STAMP_PS);
    }
}
