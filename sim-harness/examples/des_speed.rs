//! Measure the fabric simulator's speed on a permutation (release build):
//!
//! ```sh
//! cargo run --release -p sim-harness --example des_speed -- [tiers] [radix] [hosts] [message] [lb]
//! cargo run --release -p sim-harness --example des_speed -- 2 64 1024 2MiB ops
//! ```
//!
//! Prints simulated DATA packets and events per wall-clock second, and the run's summary.

use sim_harness::scenario::{LbKind, Scenario, Size};
use sim_harness::{simulate, RunControl};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let mut s = Scenario {
        name: "des_speed".into(),
        ..Scenario::default()
    };
    s.topology.tiers = arg(0, "3").parse().expect("tiers");
    s.topology.radix = arg(1, "8").parse().expect("radix");
    s.topology.hosts = arg(2, "0").parse().expect("hosts");
    s.workload.message = Size::parse(&arg(3, "2MiB")).expect("message");
    s.transport.lb = match arg(4, "ops").as_str() {
        "ecmp" => LbKind::Ecmp,
        _ => LbKind::Ops,
    };
    s.output.queue_sample_us = arg(5, "0").parse().expect("queue_sample_us");
    let r = simulate(&s, &RunControl::default()).expect("run");
    let m = &r.summary;
    println!(
        "hosts={} tiers={} radix={} message={} lb={:?}",
        r.flows.len(),
        s.topology.tiers,
        s.topology.radix,
        arg(3, "2MiB"),
        s.transport.lb
    );
    println!(
        "flows {}/{} max_fct {:.1} us mean_fct {:.1} us p99 {:.1} us end {:.1} us",
        m.flows_completed,
        m.flows,
        m.max_fct_ps as f64 / 1e6,
        m.mean_fct_ps as f64 / 1e6,
        m.p99_fct_ps as f64 / 1e6,
        m.end_time_ps as f64 / 1e6
    );
    println!(
        "data_packets {} retransmits {} drops {:?} ecn_marks {} ooo {}",
        m.data_packets, m.retransmits, m.drops_by_cause, m.ecn_marks, m.out_of_order
    );
    println!(
        "events {} ({:.1}/data pkt)  wall {:.3} s  events/s {:.0}  DATA pkts/s {:.0}",
        m.events,
        m.events as f64 / m.data_packets.max(1) as f64,
        m.wall_s,
        m.events_per_s,
        m.data_packets_per_s
    );
    println!("extra {:?}", m.extra);
}
