//! Queue-occupancy sampling (`queues.csv`, and with phantom queues `phantom_queues.csv`):
//! output only, never a simulated result.

use super::*;
use crate::results::Table;

impl Sim {
    pub(super) fn on_sample(&mut self) {
        for (p, port) in self.ports.iter().enumerate() {
            let occupancy = port.kind.occupancy_bytes(p >= self.fabric.hosts as usize);
            if let Some(b) = occupancy {
                if b > 0 {
                    self.queues.push(QueueSample {
                        time_ps: self.now,
                        port: self.fabric.ports[p].name.clone(),
                        bytes: b,
                    });
                }
            }
            // Uno Fig. 4: the phantom level next to the physical one (read, not synced).
            if let Some(b) = port.kind.phantom_occupancy_bytes(self.now) {
                if b > 0 {
                    self.phantom_samples.push((self.now, p as u32, b));
                }
            }
        }
        self.q
            .push(self.now + self.sample_ps, Comp::new(Kind::Sample, 0));
    }

    /// `phantom_queues.csv` (runs with phantom queues and queue samples): the non-zero
    /// phantom-queue levels at each sample, like `queues.csv` for the physical queues.
    pub(super) fn phantom_results(&self, r: &mut RunResult) {
        if !self
            .ports
            .iter()
            .any(|p| p.kind.phantom_occupancy_bytes(0).is_some())
        {
            return;
        }
        let rows = self
            .phantom_samples
            .iter()
            .map(|&(t, p, b)| {
                vec![
                    t.to_string(),
                    self.fabric.ports[p as usize].name.clone(),
                    b.to_string(),
                ]
            })
            .collect();
        let header = ["time_ps", "port", "bytes"].map(String::from).to_vec();
        r.tables
            .insert("phantom_queues".into(), Table { header, rows });
    }
}
