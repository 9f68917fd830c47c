//! Queue-occupancy sampling (`queues.csv`): output only, never a simulated result.

use super::*;

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
        }
        self.q
            .push(self.now + self.sample_ps, Comp::new(Kind::Sample, 0));
    }
}
