//! Load-balancing statistics of a fabric run: how often each ToR uplink was chosen, over
//! time, so the effect of a load balancer can be plotted (REPS Figures 2, 4, 7 and 22 plot
//! per-uplink selection or utilization at one ToR per time bucket).
//!
//! ```text
//!  DATA packet at a ToR ──route.select()──► output port p
//!                                              │ p is a ToR uplink (`tor<t>.up<j>`)?
//!                                              ▼
//!                     counts[bucket = now / bucket_ps][slot of p] += (1 packet, bytes)
//!                                              │ at the end of the run
//!                                              ▼
//!             uplink_selection.csv: time_us, port, data_packets, bytes
//! ```
//!
//! A packet is counted when the ToR's ECMP stage picks its uplink (the load balancer's
//! choice of entropy value made visible), whether or not the port then admits it: packets
//! sent towards a down uplink and dropped there are counted too. Retransmissions count.
//! Units: `time_us` is the start of the bucket in µs; `bytes` are wire bytes (payload plus
//! header).

use crate::flow::FlowRt;
use crate::results::Table;
use crate::topology::{Fabric, PortRole};
use nic::reps::RepsStats;

/// Name of the table in `RunResult.tables` (written as `uplink_selection.csv`).
pub const SELECTION_TABLE: &str = "uplink_selection";

/// Column names of [`SELECTION_TABLE`].
pub const SELECTION_COLUMNS: [&str; 4] = ["time_us", "port", "data_packets", "bytes"];

/// Per-bucket DATA selection counts of every ToR uplink.
#[derive(Debug, Clone)]
pub struct SelectionTable {
    /// Bucket width, ps (0 = off: nothing is counted).
    bucket_ps: u64,
    /// Per port id: its slot among the tracked uplinks, or `u32::MAX`.
    slot_of: Vec<u32>,
    /// Port id of each slot.
    ports: Vec<u32>,
    /// `[packets, bytes]` per (bucket, slot), bucket-major; grows with time.
    counts: Vec<[u64; 2]>,
}

impl SelectionTable {
    /// A table over the ToR uplinks of `fabric`, with buckets of `bucket_ps` (0 = off).
    pub fn new(fabric: &Fabric, bucket_ps: u64) -> SelectionTable {
        let mut slot_of = vec![u32::MAX; fabric.ports.len()];
        let mut ports = Vec::new();
        if bucket_ps > 0 {
            for (i, p) in fabric.ports.iter().enumerate() {
                if p.role == PortRole::TorUp {
                    slot_of[i] = ports.len() as u32;
                    ports.push(i as u32);
                }
            }
        }
        SelectionTable {
            bucket_ps,
            slot_of,
            ports,
            counts: Vec::new(),
        }
    }

    /// Whether anything is counted.
    pub fn enabled(&self) -> bool {
        self.bucket_ps > 0 && !self.ports.is_empty()
    }

    /// A DATA packet of `bytes` wire bytes was routed to output port `port` at `now_ps`.
    #[inline]
    pub fn on_select(&mut self, now_ps: u64, port: u32, bytes: u32) {
        self.on_select_slot(now_ps, self.slot(port), bytes);
    }

    /// The slot of port `port` for [`SelectionTable::on_select_slot`] (`u32::MAX` if the
    /// port is not counted). The engine keeps it with the port, next to the data it
    /// touches anyway, rather than looking it up per packet.
    pub fn slot(&self, port: u32) -> u32 {
        self.slot_of.get(port as usize).copied().unwrap_or(u32::MAX)
    }

    /// [`SelectionTable::on_select`] for the port whose slot is `slot`.
    #[inline]
    pub fn on_select_slot(&mut self, now_ps: u64, slot: u32, bytes: u32) {
        if slot == u32::MAX {
            return;
        }
        let n = self.ports.len();
        let i = (now_ps / self.bucket_ps) as usize * n + slot as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1 + n, [0, 0]);
        }
        let c = &mut self.counts[i];
        c[0] += 1;
        c[1] += bytes as u64;
    }

    /// Packets and bytes counted for port `port` in bucket `bucket` (0 if none).
    pub fn get(&self, bucket: usize, port: u32) -> [u64; 2] {
        let n = self.ports.len();
        match self.slot_of.get(port as usize) {
            Some(&s) if s != u32::MAX => self
                .counts
                .get(bucket * n + s as usize)
                .copied()
                .unwrap_or([0, 0]),
            _ => [0, 0],
        }
    }

    /// The table: every tracked uplink in every bucket from 0 to the last one with a
    /// count (zeros included, so a plot shows an uplink that stopped being chosen), in
    /// bucket order then port order. `None` when counting is off.
    pub fn table(&self, fabric: &Fabric) -> Option<Table> {
        if !self.enabled() {
            return None;
        }
        let n = self.ports.len();
        let buckets = self.counts.len().div_ceil(n);
        let last = (0..buckets).rev().find(|&b| {
            self.counts[b * n..((b + 1) * n).min(self.counts.len())]
                .iter()
                .any(|c| c[0] > 0)
        });
        let mut rows = Vec::new();
        if let Some(last) = last {
            rows.reserve((last + 1) * n);
            for b in 0..=last {
                let t_us = (b as u64 * self.bucket_ps) as f64 / 1e6;
                for (slot, &p) in self.ports.iter().enumerate() {
                    let c = self.counts.get(b * n + slot).copied().unwrap_or([0, 0]);
                    rows.push(vec![
                        format!("{t_us}"),
                        fabric.ports[p as usize].name.clone(),
                        c[0].to_string(),
                        c[1].to_string(),
                    ]);
                }
            }
        }
        Some(Table {
            header: SELECTION_COLUMNS.iter().map(|s| s.to_string()).collect(),
            rows,
        })
    }
}

/// REPS counters summed over the REPS flows of a run, for `summary.json`'s `extra`
/// (empty when no flow uses REPS): `reps_explored` / `reps_random` / `reps_recycled` /
/// `reps_frozen` (EVs chosen by each branch of Algorithm 2), `reps_acks_cached`,
/// `reps_acks_marked` (Algorithm 1), `reps_freezes`, `reps_thaws` (freezing mode entries
/// and exits) and `reps_failures_ignored` (failure detections that did not freeze).
///
/// `conn_lbs` are the shared words of `transport.reps.per_connection` (counted once each; a
/// flow that uses one leaves its own `lb` untouched, all zeros).
pub fn reps_extra(flows: &[FlowRt], conn_lbs: &[crate::flow::Lb]) -> Vec<(String, f64)> {
    let mut sum = RepsStats::default();
    let mut any = false;
    let own = flows.iter().map(|f| &f.lb);
    for st in own.chain(conn_lbs).filter_map(|l| l.reps_stats()) {
        any = true;
        sum.explored += st.explored;
        sum.random += st.random;
        sum.recycled += st.recycled;
        sum.frozen += st.frozen;
        sum.acks_cached += st.acks_cached;
        sum.acks_marked += st.acks_marked;
        sum.freezes += st.freezes;
        sum.thaws += st.thaws;
        sum.failures_ignored += st.failures_ignored;
    }
    if !any {
        return Vec::new();
    }
    [
        ("reps_explored", sum.explored),
        ("reps_random", sum.random),
        ("reps_recycled", sum.recycled),
        ("reps_frozen", sum.frozen),
        ("reps_acks_cached", sum.acks_cached),
        ("reps_acks_marked", sum.acks_marked),
        ("reps_freezes", sum.freezes),
        ("reps_thaws", sum.thaws),
        ("reps_failures_ignored", sum.failures_ignored),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v as f64))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// Port roles agree with the names the fat tree gives (the names are for people; code
    /// asks the role): ToR uplinks are exactly the `tor<t>.up<j>` ports, in 2 and 3 tiers.
    #[test]
    fn port_roles_match_names() {
        use crate::topology::PortRole::*;
        for tiers in [2, 3] {
            let mut s = Scenario::default();
            s.topology.tiers = tiers;
            let f = crate::topology::build(&s).unwrap();
            for p in &f.ports {
                let (sw, dir) = p.name.split_once('.').unwrap_or((&p.name, ""));
                let tier = sw.trim_end_matches(|c: char| c.is_ascii_digit());
                let want = match (tier, dir.trim_end_matches(|c: char| c.is_ascii_digit())) {
                    ("host", "") => HostNic,
                    ("tor", "down") => TorDown,
                    ("tor", "up") => TorUp,
                    ("agg", "down") => AggDown,
                    ("agg", "up") => AggUp,
                    ("spine", "down") => SpineDown,
                    other => panic!("unexpected port name {other:?}"),
                };
                assert_eq!(p.role, want, "{}", p.name);
            }
        }
    }

    #[test]
    fn counts_land_in_buckets_and_rows_cover_every_uplink() {
        let mut s = Scenario::default();
        s.topology.tiers = 2;
        s.topology.radix = 4; // 4 ToRs of 2 hosts, 2 uplinks each
        let f = crate::topology::build(&s).unwrap();
        let mut t = SelectionTable::new(&f, 10_000_000);
        assert!(t.enabled());
        let up = f.port_by_name("tor1.up1").unwrap();
        let down = f.port_by_name("tor1.down0").unwrap();
        t.on_select(5_000_000, up, 100);
        t.on_select(25_000_000, up, 50);
        t.on_select(26_000_000, up, 50);
        t.on_select(27_000_000, down, 50); // not an uplink: ignored
        assert_eq!(t.get(0, up), [1, 100]);
        assert_eq!(t.get(1, up), [0, 0]);
        assert_eq!(t.get(2, up), [2, 100]);
        let tab = t.table(&f).unwrap();
        assert_eq!(tab.header, SELECTION_COLUMNS);
        // 3 buckets x 8 uplinks (4 ToRs x 2).
        assert_eq!(tab.rows.len(), 24);
        assert!(tab.rows.iter().all(|r| r[1].contains(".up")));
        let row = tab
            .rows
            .iter()
            .find(|r| r[0] == "20" && r[1] == "tor1.up1")
            .unwrap();
        assert_eq!((row[2].as_str(), row[3].as_str()), ("2", "100"));
        assert!(SelectionTable::new(&f, 0).table(&f).is_none());
    }
}
