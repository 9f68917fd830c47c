//! Measure the Wormhole bookkeeping on Table 1's LLM iterations (no DES involved):
//!
//! ```sh
//! cargo run -p sim-harness --example wormhole_costs            # 64, 128, 256 GPUs
//! cargo run -p sim-harness --example wormhole_costs -- 1024    # one size
//! ```
//!
//! For each configuration: DAG size and generation time; a contention-free schedule (flows
//! at 400 Gbit/s line rate, compute from 400 TFLOP/s); the flows' start and finish events
//! replayed in time order through the incremental [`Partitions`] on a two-tier
//! rail-optimized fat tree (8 GPUs per server, 16 servers per rail-ToR, ECMP spine choice),
//! with the time per start/finish, the largest partition count and size; and the flow
//! conflict graph of every partition formed at a flow start looked up in (and inserted into)
//! a [`MemoDb`], with its hits and misses.

use sim_harness::wormhole::llm::{generate, table1, ComputeTimes, Family, TaskKind};
use sim_harness::wormhole::memo::{FlowConflictGraph, MemoDb, MemoValue};
use sim_harness::wormhole::partition::{Change, Partitions, PortId};
use sim_harness::wormhole::rail::RailLayout;
use std::time::Instant;

/// Ports of a flow on a two-tier rail-optimized tree: host uplink, ToR uplink, spine down
/// port, ToR down port (only the first and last within one rail-ToR).
fn path(r: &RailLayout, src: u32, dst: u32) -> Vec<PortId> {
    let (ts, td) = (r.tor(src), r.tor(dst));
    let mut p = vec![src];
    if ts != td {
        let spine =
            (src.wrapping_mul(2_654_435_761) ^ dst.wrapping_mul(40_503)) % r.servers_per_tor;
        p.push((2 << 24) | (ts * 64 + spine));
        p.push((3 << 24) | (spine * 4096 + td));
    }
    p.push((1 << 24) | dst);
    p
}

fn main() {
    let sizes: Vec<u32> = match std::env::args().nth(1) {
        Some(a) => vec![a.parse().expect("GPU count")],
        None => vec![64, 128, 256],
    };
    let rail = RailLayout::new(8, 16).expect("layout");
    for gpus in sizes {
        for fam in [Family::Gpt, Family::Moe] {
            let c0 = table1(
                gpus,
                fam,
                ComputeTimes {
                    fwd_ps: 0,
                    bwd_ps: 0,
                },
            )
            .expect("config");
            let compute = c0.compute_from_tflops(400).expect("tflops");
            let c = table1(gpus, fam, compute).expect("config");
            let t = Instant::now();
            let dag = generate(&c).expect("dag");
            let gen = t.elapsed();
            let flows: Vec<_> = dag.flows().collect();
            let bytes: u64 = flows.iter().map(|f| f.3).sum();
            // 400 Gbit/s = 20 ps per byte.
            let fin = dag.finish_times(|b| b * 20);
            let iter_ps = fin.iter().copied().max().unwrap_or(0);
            // Start / finish events in time order (finish before start at equal times).
            let mut ev: Vec<(u64, u8, u32)> = Vec::new();
            for &(id, _, _, b) in &flows {
                let end = fin[id as usize];
                ev.push((end - b * 20, 1, id));
                ev.push((end, 0, id));
            }
            ev.sort_unstable();
            let paths: Vec<Vec<PortId>> = dag
                .tasks
                .iter()
                .map(|tk| match tk.kind {
                    TaskKind::Flow { src, dst, .. } => path(&rail, src, dst),
                    TaskKind::Compute { .. } => Vec::new(),
                })
                .collect();
            let mut parts = Partitions::new();
            let (mut max_parts, mut max_size) = (0usize, 0usize);
            let t = Instant::now();
            for &(_, kind, id) in &ev {
                if kind == 1 {
                    parts.start_flow(id, &paths[id as usize]).expect("start");
                } else {
                    parts.finish_flow(id).expect("finish");
                }
                max_parts = max_parts.max(parts.len());
                if kind == 1 {
                    let p = parts.partition_of_flow(id).expect("active");
                    max_size = max_size.max(parts.flows(p).map_or(0, |f| f.len()));
                }
            }
            let part_time = t.elapsed();
            // Memo: the FCG of the partition a flow start lands in, every start.
            let mut db = MemoDb::new();
            let mut parts = Partitions::new();
            let t = Instant::now();
            for &(_, kind, id) in &ev {
                if kind == 0 {
                    parts.finish_flow(id).expect("finish");
                    continue;
                }
                let ch = parts.start_flow(id, &paths[id as usize]).expect("start");
                let p = match ch {
                    Change::Created(p) | Change::Joined(p) => p,
                    Change::Merged { into, .. } => into,
                    _ => unreachable!(),
                };
                let members: Vec<u32> =
                    parts.flows(p).expect("partition").iter().copied().collect();
                let spec: Vec<(u32, &[PortId])> = members
                    .iter()
                    .map(|&f| (1, paths[f as usize].as_slice()))
                    .collect();
                let g = FlowConflictGraph::from_paths(&spec);
                if db.lookup(&g).is_none() {
                    let n = g.len();
                    let v = MemoValue {
                        end_rates: vec![0; n],
                        transient_bytes: vec![0; n],
                        convergence_ps: 0,
                    };
                    db.insert(g, v).expect("insert");
                }
            }
            let memo_time = t.elapsed();
            let s = db.stats();
            let ps = parts.stats();
            println!(
                "{gpus:5} {:10} tasks {:7} flows {:7} bytes {:.3e} gen {:7.1} ms | contention-free iteration {:9.3} ms | \
                 partitions: {} events {:.2} us/event, max {} partitions, max {} flows, {} merges {} splits | \
                 memo: {} lookups, {} hits {} misses {} capped, {} entries {} keys {} B, {:.2} us/lookup",
                c.model.name,
                dag.tasks.len(),
                flows.len(),
                bytes as f64,
                gen.as_secs_f64() * 1e3,
                iter_ps as f64 / 1e9,
                ev.len(),
                part_time.as_secs_f64() * 1e6 / ev.len() as f64,
                max_parts,
                max_size,
                ps.merges,
                ps.splits,
                s.hits + s.misses,
                s.hits,
                s.misses,
                s.capped,
                s.entries,
                s.keys,
                s.bytes,
                memo_time.as_secs_f64() * 1e6 / (s.hits + s.misses).max(1) as f64,
            );
        }
    }
}
