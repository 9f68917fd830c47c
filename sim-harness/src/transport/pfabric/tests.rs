//! The pFabric mechanism on hand-made flows (no workload generates them): a short flow
//! arriving while a long one fills the receiver's downlink overtakes it (pFabric 4.2: the
//! ports serve the smallest remaining size first), where the DCTCP-style FIFO fabric makes
//! it share; and the side table holds only the packets in flight.

use crate::engine::Sim;
use crate::run::RunControl;
use crate::scenario::{CcKind, Scenario, Size, WorkloadKind};
use crate::transport::TransportDriver;

const LONG: u64 = 12_000_000;
const SHORT: u64 = 2_000_000;
const SHORT_START_PS: u64 = 40_000_000;

/// Two senders to one receiver on the 8-host fat tree (2 tiers, k = 4): a 12 MB flow at 0,
/// a 2 MB flow 40 us later; returns (short FCT, long FCT, the short flow alone, ps).
fn overtake(cc: CcKind) -> (u64, u64, u64) {
    let mut s = Scenario::default();
    s.topology.tiers = 2;
    s.topology.radix = 4;
    s.workload.kind = WorkloadKind::Incast;
    s.workload.degree = 2;
    s.workload.message = Size::Bytes(64 * 1024);
    s.transport.cc = cc;
    crate::validate::validate(&s).expect("valid scenario");
    let mut sim = Sim::build(&s).expect("build");
    assert_eq!(sim.flows.len(), 2);
    sim.flows[0].spec.bytes = LONG;
    sim.flows[1].spec.bytes = SHORT;
    sim.flows[1].spec.start_ps = SHORT_START_PS;
    let gbps = sim.fabric.host_gbps;
    let rtt = sim.base_rtt_ps();
    sim.run(&RunControl::default());
    assert_eq!(sim.flows_done, 2, "{cc:?}: both flows complete");
    if let TransportDriver::Pfabric(st) = &sim.transport {
        assert_eq!(st.in_flight(), 0, "every side-table slot taken back");
    }
    let r = sim.results(&s);
    let fct = |i: usize| r.flows[i].fct_ps;
    let wire = SHORT.div_ceil(u64::from(s.transport.mtu)) * u64::from(s.transport.header_bytes);
    let alone = ((SHORT + wire) as f64 * 8.0 / gbps * 1000.0) as u64 + rtt;
    (fct(1), fct(0), alone)
}

#[test]
fn a_short_flow_overtakes_a_long_one() {
    let (short, long, alone) = overtake(CcKind::Pfabric);
    assert!(
        short < alone * 13 / 10,
        "pFabric: the short flow takes {short} ps, alone {alone} ps"
    );
    assert!(
        long > SHORT_START_PS + short,
        "the long flow ({long} ps) finishes after the short one"
    );
    // The FIFO fabric (DCTCP-style senders) makes the short flow share the downlink.
    let (fifo_short, _, _) = overtake(CcKind::Dctcp);
    assert!(
        fifo_short > short * 3 / 2,
        "DCTCP: the short flow takes {fifo_short} ps, pFabric {short} ps (alone {alone} ps)"
    );
}
