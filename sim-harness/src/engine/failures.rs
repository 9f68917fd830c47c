//! Failures: a link down for a while (a down-count per port, so overlapping failures
//! compose) or a rate change (the latest-begun one in force).

use super::*;

impl Sim {
    /// Failure `idx / 2` begins (`idx` even) or ends. Failures on one link compose: a link is
    /// up only while no failure holds it down (a down-count per port), and its rate is that
    /// of the latest-begun rate change still in force (else its base rate), so an inner
    /// failure's end never undoes an outer one.
    pub(super) fn on_failure(&mut self, idx: u32) {
        let i = (idx / 2) as usize;
        let begin = idx & 1 == 0;
        let fl = self.failures[i];
        if !fl.permanent() {
            // Wormhole 5.3: the partitions on the link begin a new unsteady period.
            self.wh_failure_interrupt(&fl.ports);
        }
        self.failures[i].active = begin;
        let fl = self.failures[i];
        if fl.lossy {
            // `loss` draws its drops; the port itself is unchanged.
            return;
        }
        // A one-direction failure names its port twice: act on it once.
        let n = if fl.ports[0] == fl.ports[1] { 1 } else { 2 };
        for &p in &fl.ports[..n] {
            match fl.gbps {
                Some(_) => {
                    let g = self.rate_in_force(p);
                    let port = &mut self.ports[p as usize];
                    port.gbps = g;
                    port.ser_q32 = ser_q32(port.gbps);
                    if port.kind.self_scheduled() {
                        self.port_rate_changed(p);
                    }
                }
                None => {
                    let port = &mut self.ports[p as usize];
                    if begin {
                        port.down += 1;
                        // What is on the wire is lost.
                        while let Some((_, pk)) = self.ports[p as usize].link.pop_front() {
                            self.drop_pkt(p, &pk, Cause::LinkDown);
                        }
                    } else {
                        port.down = port.down.checked_sub(1).expect("a failure ends once");
                    }
                }
            }
        }
    }

    /// Port `p`'s rate under the rate changes in force: the latest-begun one (by start
    /// time, then by index), else the fabric's rate.
    pub(super) fn rate_in_force(&self, p: u32) -> f64 {
        self.failures
            .iter()
            .filter(|f| f.active && f.ports.contains(&p))
            .filter_map(|f| f.gbps.map(|g| (f.at, g)))
            .max_by_key(|&(at, _)| at) // the last of equals: the highest index
            .map_or(self.fabric.ports[p as usize].gbps, |(_, g)| g)
    }
}
