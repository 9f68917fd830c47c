//! The **Ideal** baseline of Zeropod §V-A ("leverages global flow information, schedules flows
//! in non-decreasing order of remaining flow sizes, and allows shorter flows to preempt the
//! longer ones", the Ideal of pFabric \[45\]) as a flow-level fluid computation:
//!
//! * the fabric is one non-blocking switch: each host has one uplink and one downlink of the
//!   line rate (no core oversubscription, no headers: an upper bound);
//! * at every flow arrival or completion, the active flows are sorted by remaining bytes
//!   (ties: flow id) and served greedily: a flow gets the full line rate if its source's uplink
//!   and its destination's downlink are both still free, otherwise nothing (preempted);
//! * a flow's FCT is its fluid finish time minus its start, plus `base_ps` (the propagation
//!   and one-cell serialization latency of a Zeropod path, so Ideal and Zeropod FCTs compare).
//!
//! Deterministic: `f64` arithmetic in a fixed order.

use crate::workload::FlowSpec;

/// FCT of every flow in ps under the Ideal (0 for none: every flow finishes).
pub fn ideal_fcts(flows: &[FlowSpec], hosts: u32, gbps: f64, base_ps: u64) -> Vec<u64> {
    let rate = gbps / 8.0 / 1000.0; // bytes per ps
    let mut fct = vec![0u64; flows.len()];
    let mut order: Vec<usize> = (0..flows.len()).collect();
    order.sort_by_key(|&i| (flows[i].start_ps, i));
    let mut next = 0usize;
    let mut active: Vec<(f64, usize)> = Vec::new();
    let mut now = 0.0f64;
    let mut busy_src = vec![u64::MAX; hosts as usize];
    let mut busy_dst = vec![u64::MAX; hosts as usize];
    let mut served: Vec<usize> = Vec::new();
    let mut round = 0u64;
    while next < order.len() || !active.is_empty() {
        while next < order.len() && flows[order[next]].start_ps as f64 <= now {
            let i = order[next];
            active.push((flows[i].bytes as f64, i));
            next += 1;
        }
        if active.is_empty() {
            now = flows[order[next]].start_ps as f64;
            continue;
        }
        active.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        round += 1;
        served.clear();
        for (k, &(_, i)) in active.iter().enumerate() {
            let (s, d) = (flows[i].src as usize, flows[i].dst as usize);
            if busy_src[s] != round && busy_dst[d] != round {
                busy_src[s] = round;
                busy_dst[d] = round;
                served.push(k);
            }
        }
        let mut dt = served
            .iter()
            .map(|&k| active[k].0 / rate)
            .fold(f64::INFINITY, f64::min);
        if next < order.len() {
            dt = dt.min(flows[order[next]].start_ps as f64 - now);
        }
        let end = now + dt;
        for &k in &served {
            let r = &mut active[k];
            r.0 -= rate * dt;
            if r.0 <= 1e-6 {
                let i = r.1;
                fct[i] = (end - flows[i].start_ps as f64).round().max(0.0) as u64 + base_ps;
                r.0 = -1.0;
            }
        }
        active.retain(|a| a.0 >= 0.0);
        now = end;
    }
    fct
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(src: u32, dst: u32, bytes: u64, start_ps: u64) -> FlowSpec {
        FlowSpec {
            src,
            dst,
            bytes,
            start_ps,
            collective: 0,
        }
    }

    #[test]
    fn incast_is_served_shortest_first_back_to_back() {
        // 3 senders of 100 KB to host 0 at 100 Gb/s: 8 us each, finishing at 8, 16, 24 us.
        let flows = [
            f(1, 0, 100_000, 0),
            f(2, 0, 100_000, 0),
            f(3, 0, 100_000, 0),
        ];
        let fct = ideal_fcts(&flows, 4, 100.0, 0);
        assert_eq!(fct, vec![8_000_000, 16_000_000, 24_000_000]);
    }

    #[test]
    fn a_short_flow_preempts_a_long_one() {
        // A 1 MB flow from 1 to 0 starts at 0; a 10 KB flow from 2 to 0 arrives at 10 us and
        // goes first (0.8 us); the long one finishes 0.8 us later than alone (80 us).
        let flows = [f(1, 0, 1_000_000, 0), f(2, 0, 10_000, 10_000_000)];
        let fct = ideal_fcts(&flows, 3, 100.0, 1000);
        assert_eq!(fct[1], 800_000 + 1000);
        assert_eq!(fct[0], 80_800_000 + 1000);
    }

    #[test]
    fn disjoint_pairs_run_in_parallel() {
        let flows = [f(0, 1, 50_000, 0), f(2, 3, 50_000, 0)];
        assert_eq!(ideal_fcts(&flows, 4, 100.0, 0), vec![4_000_000, 4_000_000]);
    }
}
