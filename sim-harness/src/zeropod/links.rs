//! The Zeropod region's links: one per output that puts cells on a wire (Zeropod §III: a
//! pod's bufferless ToRs and Aggs, its NICs, the buffered Core ports), named and counted for
//! `links.csv` and named alike for the cell trace (`output.trace_ports`, [`super::trace`]):
//!
//! * `host<i>`: NIC `i`'s uplink to its ToR;
//! * `core<c>.pod<p>`: Core `c`'s port down to pod `p` (as in `queues.csv`);
//! * `pod<p>.tor<i>.down<j>` (to host `j` of ToR `i`), `pod<p>.tor<i>.up<j>` (to Agg `j`),
//!   `pod<p>.agg<i>.down<j>` (to ToR `j`), `pod<p>.agg<i>.up<j>` (to Core `j x M + i`).
//!
//! A row counts the data cells the output sent (`tx_packets`; `tx_bytes` at the 552-byte wire
//! size of a data cell) and dropped (`drops`: a Core port's full buffer, a switch output's
//! collision losers, §IV-B3); `utilization` is the data cells' share of the line over the run.

use rtl_models::zeropod_cell::DATA_CELL_LEN;

use crate::results::LinkRecord;
use crate::topology::zeropod::PodShape;

/// Where each link sits in [`Links`]' order: the hosts, then each Core's pod ports, then each
/// pod's ToR outputs and Agg outputs.
#[derive(Debug, Clone, Copy)]
pub struct LinkIndex {
    hosts: u32,
    pods: u32,
    cores: u32,
    m: u32,
}

impl LinkIndex {
    /// The links of `shape`.
    pub fn new(shape: &PodShape) -> LinkIndex {
        LinkIndex {
            hosts: shape.hosts,
            pods: shape.pods,
            cores: shape.cores,
            m: shape.m,
        }
    }

    /// Links in all.
    pub fn len(&self) -> usize {
        (self.hosts + self.cores * self.pods + self.pods * 2 * self.m * 2 * self.m) as usize
    }

    /// No link (never: a pod has hosts).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// NIC `h`'s uplink.
    pub fn host(&self, h: u32) -> u32 {
        h
    }

    /// Core `c`'s port to pod `p`.
    pub fn core_port(&self, c: u32, p: u32) -> u32 {
        self.hosts + c * self.pods + p
    }

    /// Output `port` of pod `p`'s ToR `i` (`agg`: its Agg `i`).
    pub fn switch_port(&self, p: u32, agg: bool, i: u32, port: u32) -> u32 {
        let k = 2 * self.m;
        self.hosts
            + self.cores * self.pods
            + p * 2 * self.m * k
            + (u32::from(agg) * self.m + i) * k
            + port
    }

    /// Every link's name, in index order.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = (0..self.hosts).map(|h| format!("host{h}")).collect();
        for c in 0..self.cores {
            for p in 0..self.pods {
                names.push(format!("core{c}.pod{p}"));
            }
        }
        let m = self.m;
        for p in 0..self.pods {
            for sw in ["tor", "agg"] {
                for i in 0..m {
                    for port in 0..2 * m {
                        let (dir, j) = if port < m {
                            ("down", port)
                        } else {
                            ("up", port - m)
                        };
                        names.push(format!("pod{p}.{sw}{i}.{dir}{j}"));
                    }
                }
            }
        }
        debug_assert_eq!(names.len(), self.len());
        names
    }
}

/// Cells sent and dropped per link.
#[derive(Debug, Clone)]
pub struct Links {
    /// The links' order.
    pub ix: LinkIndex,
    /// Data cells sent, per link.
    pub tx: Vec<u64>,
    /// Data cells dropped, per link.
    pub drops: Vec<u64>,
}

impl Links {
    /// The links of `shape`, nothing counted.
    pub fn new(shape: &PodShape) -> Links {
        let ix = LinkIndex::new(shape);
        Links {
            ix,
            tx: vec![0; ix.len()],
            drops: vec![0; ix.len()],
        }
    }

    /// `links.csv`'s rows at `gbps` per link over `end_ps`.
    pub fn records(&self, gbps: f64, end_ps: u64) -> Vec<LinkRecord> {
        let line_bytes = gbps * 1e9 / 8.0 * end_ps as f64 * 1e-12;
        self.ix
            .names()
            .into_iter()
            .enumerate()
            .map(|(i, link)| {
                let tx_bytes = self.tx[i] * DATA_CELL_LEN as u64;
                LinkRecord {
                    link,
                    tx_bytes,
                    tx_packets: self.tx[i],
                    drops: self.drops[i],
                    ecn_marks: 0,
                    utilization: if line_bytes > 0.0 {
                        tx_bytes as f64 / line_bytes
                    } else {
                        0.0
                    },
                }
            })
            .collect()
    }
}
