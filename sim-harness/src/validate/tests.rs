//! End-to-end tests of [`validate`]: each problem names its field, whichever module finds it.

use super::*;
use crate::scenario::{Failure, TopologyKind, WorkloadKind};

fn field_of(s: &Scenario) -> String {
    match validate(s) {
        Err(Error::Field { field, .. }) => field,
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn default_is_valid_and_has_128_hosts() {
    let s = Scenario::default();
    validate(&s).unwrap();
    assert_eq!(host_count(&s.topology), 128);
}

#[test]
fn each_problem_names_its_field() {
    type Mutation = Box<dyn Fn(&mut Scenario)>;
    let cases: Vec<(&str, Mutation)> = vec![
        ("name", Box::new(|s| s.name = "a/b".into())),
        ("topology.radix", Box::new(|s| s.topology.radix = 7)),
        ("topology.radix", Box::new(|s| s.topology.radix = 0)),
        ("topology.tiers", Box::new(|s| s.topology.tiers = 4)),
        ("topology.hosts", Box::new(|s| s.topology.hosts = 129)),
        (
            "topology.link_gbps",
            Box::new(|s| s.topology.link_gbps = 0.0),
        ),
        (
            "topology.link_gbps",
            Box::new(|s| s.topology.link_gbps = f64::NAN),
        ),
        (
            "topology.link_delay_ns",
            Box::new(|s| s.topology.link_delay_ns = 0),
        ),
        (
            "topology.oversubscription",
            Box::new(|s| s.topology.oversubscription = 0.5),
        ),
        (
            "topology.buffer",
            Box::new(|s| s.topology.buffer = Size::Bytes(100)),
        ),
        ("transport.mtu", Box::new(|s| s.transport.mtu = 0)),
        ("transport.evs_bits", Box::new(|s| s.transport.evs_bits = 0)),
        ("transport.rto_us", Box::new(|s| s.transport.rto_us = 0.0)),
        (
            "transport.dcsim.fraction",
            Box::new(|s| s.transport.dcsim.fraction = 1.5),
        ),
        (
            "transport.dcsim.small_queue_pkts",
            Box::new(|s| s.transport.dcsim.small_queue_pkts = 16),
        ),
        (
            "transport.dcsim.ack_every",
            Box::new(|s| s.transport.dcsim.ack_every = 0),
        ),
        (
            "transport.dcsim.data_buffer_ratio",
            Box::new(|s| {
                s.transport.dcsim.data_buffer = Some(Size::Bytes(100_000));
                s.transport.dcsim.data_buffer_ratio = 2.0;
            }),
        ),
        (
            "topology.slow_core_fraction",
            Box::new(|s| s.topology.slow_core_fraction = 0.0),
        ),
        (
            "workload.collective_sizes",
            Box::new(|s| s.workload.collective_sizes = vec![8, 1]),
        ),
        (
            "output.selection_bucket_us",
            Box::new(|s| s.output.selection_bucket_us = -1.0),
        ),
        (
            "transport.header_bytes",
            Box::new(|s| s.transport.header_bytes = 0),
        ),
        ("topology.ecn_kmax", Box::new(|s| s.topology.ecn_kmax = 1.5)),
        (
            "topology.phantom_kmax",
            Box::new(|s| s.topology.phantom_kmax = Some(1.5)),
        ),
        (
            "topology.phantom_kmin",
            Box::new(|s| {
                s.topology.phantom_kmin = Some(0.8);
                s.topology.phantom_kmax = Some(0.5);
            }),
        ),
        (
            "transport.uno.ewma_shift",
            Box::new(|s| s.transport.uno.ewma_shift = 0),
        ),
        (
            "transport.uno.max_cwnd",
            Box::new(|s| s.transport.uno.max_cwnd = 0.0),
        ),
        (
            "transport.uno.gentle_delay",
            Box::new(|s| s.transport.uno.gentle_delay = Some(-1.0)),
        ),
        (
            "transport.uno.baseline_max_cwnd",
            Box::new(|s| s.transport.uno.baseline_max_cwnd = Some(0.0)),
        ),
        (
            "transport.uno.init_cwnd_intra",
            Box::new(|s| s.transport.uno.init_cwnd_intra = Some(f64::NAN)),
        ),
        (
            "transport.uno.qa_hold",
            Box::new(|s| s.transport.uno.qa_hold = "once".to_string()),
        ),
        (
            "transport.uno.md_precision",
            Box::new(|s| s.transport.uno.md_precision = "q16".to_string()),
        ),
        (
            "transport.uno.epoch_period",
            Box::new(|s| s.transport.uno.epoch_period = "own".to_string()),
        ),
        (
            "transport.uno.ewma_gain",
            Box::new(|s| s.transport.uno.ewma_gain = Some(1.5)),
        ),
        (
            "transport.uno.ewma_gain",
            Box::new(|s| s.transport.uno.ewma_gain = Some(f64::NAN)),
        ),
        (
            "transport.uno.gentle_test",
            Box::new(|s| s.transport.uno.gentle_test = "last".to_string()),
        ),
        (
            "output.fair_window_us",
            Box::new(|s| {
                s.output.rate_sample_us = 100.0;
                s.output.fair_window_us = 50.0;
            }),
        ),
        (
            "output.fair_window_us",
            Box::new(|s| s.output.fair_window_us = 20_000.0),
        ),
        (
            "output.fct_slowdown",
            Box::new(|s| s.output.fct_slowdown = true),
        ),
        (
            "topology.ecn_kmin",
            Box::new(|s| {
                s.topology.ecn_kmin = 0.9;
                s.topology.ecn_kmax = 0.5;
            }),
        ),
        ("workload.load", Box::new(|s| s.workload.load = 1.5)),
        (
            "workload.degree",
            Box::new(|s| {
                s.workload.kind = WorkloadKind::Incast;
                s.workload.degree = 128;
            }),
        ),
        (
            "workload.kind",
            Box::new(|s| {
                s.topology.radix = 64;
                s.workload.kind = WorkloadKind::AllToAll;
            }),
        ),
        (
            "failures[0].at_us",
            Box::new(|s| {
                s.failures.push(Failure {
                    link: "tor0.up0".into(),
                    at_us: -1.0,
                    for_us: None,
                    gbps: None,
                    ..Default::default()
                })
            }),
        ),
        (
            "workload.fixed_receiver",
            Box::new(|s| s.workload.fixed_receiver = true),
        ),
        (
            "transport.reps.per_connection",
            Box::new(|s| {
                s.transport.reps.per_connection = true;
                s.transport.cc = crate::scenario::CcKind::Uno;
            }),
        ),
        (
            "transport.per_connection_cwnd",
            Box::new(|s| {
                s.transport.per_connection_cwnd = true;
                s.transport.cc = crate::scenario::CcKind::Dcsim;
            }),
        ),
        ("skip.theta", Box::new(|s| s.skip.theta = 0.0)),
        ("skip.samples", Box::new(|s| s.skip.samples = 1)),
        (
            "skip.held_occupancy",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.held_occupancy = true;
            }),
        ),
        (
            "skip.foreign_ack_interrupts",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.foreign_ack_interrupts = true;
            }),
        ),
        (
            "skip.nic_bound_exact",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.nic_bound_exact = true;
            }),
        ),
        (
            "skip.nic_bound_inexact",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.nic_bound_samples = 2;
                s.skip.nic_bound_inexact = true;
            }),
        ),
        ("skip.sample_us", Box::new(|s| s.skip.sample_us = 0.0)),
        (
            "skip.reserve_bdps",
            Box::new(|s| s.skip.reserve_bdps = -0.5),
        ),
        (
            "skip.reserve_bdps",
            Box::new(|s| s.skip.reserve_bdps = 1000.5),
        ),
        (
            "skip.reserve_bdps",
            Box::new(|s| s.skip.reserve_bdps = f64::NAN),
        ),
        (
            "skip.rate_metric",
            Box::new(|s| {
                s.skip.rate_metric = crate::scenario::RateMetric::Cc;
                s.transport.cc = crate::scenario::CcKind::Uno;
            }),
        ),
        (
            "skip.memo_lockstep",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.memo_lockstep = true;
                s.transport.cc = crate::scenario::CcKind::Uno;
            }),
        ),
        (
            "skip.memo_interrupted",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.memo_interrupted = true;
                s.transport.cc = crate::scenario::CcKind::Mprdma;
            }),
        ),
        (
            "skip.lockstep_complete",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.lockstep_complete = true;
            }),
        ),
        (
            "skip.lockstep_stay",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.memo_lockstep = true;
                s.skip.lockstep_stay = true;
            }),
        ),
        (
            "skip.lockstep_shadow",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.memo_lockstep = true;
                s.skip.lockstep_shadow = true;
            }),
        ),
        (
            "skip.lockstep_fixed_leader",
            Box::new(|s| {
                s.skip.enabled = true;
                s.skip.lockstep_fixed_leader = true;
            }),
        ),
        (
            "workload.llm.bytes_scale",
            Box::new(|s| {
                s.workload.kind = WorkloadKind::Llm;
                s.workload.llm = Some(crate::scenario::LlmWorkload {
                    bytes_scale: 2.0,
                    ..Default::default()
                });
            }),
        ),
        (
            "workload.llm.gpus",
            Box::new(|s| {
                s.workload.kind = WorkloadKind::Llm;
                s.workload.llm = Some(crate::scenario::LlmWorkload {
                    gpus: 96,
                    ..Default::default()
                });
            }),
        ),
        ("stop.max_time_us", Box::new(|s| s.stop.max_time_us = -5.0)),
        (
            "output.queue_sample_us",
            Box::new(|s| s.output.queue_sample_us = -1.0),
        ),
        (
            "output.selection_bucket_us",
            Box::new(|s| s.output.selection_bucket_us = f64::NAN),
        ),
        (
            "transport.reps.freezing_timeout_us",
            Box::new(|s| s.transport.reps.freezing_timeout_us = -1.0),
        ),
        (
            "transport.reps.freezing_timeout_us",
            Box::new(|s| s.transport.reps.freezing_timeout_us = 3e6),
        ),
        (
            "transport.reps.failure_rtt_multiple",
            Box::new(|s| s.transport.reps.failure_rtt_multiple = 0.0),
        ),
        (
            "transport.reps.failure_window_us",
            Box::new(|s| s.transport.reps.failure_window_us = -1.0),
        ),
        ("workload.one_way", Box::new(|s| s.workload.one_way = true)),
        ("workload.parallel", Box::new(|s| s.workload.parallel = 4)),
        (
            "workload.background_ecmp",
            Box::new(|s| s.workload.background_ecmp = 1.5),
        ),
        (
            "output.trace_ports",
            Box::new(|s| s.output.trace_ports = vec!["host0".into()]),
        ),
        (
            "transport.header_bytes",
            Box::new(|s| s.transport.header_bytes = 4097),
        ),
        (
            "workload.message",
            Box::new(|s| s.workload.message = Size::Bytes(1 << 50)),
        ),
        (
            "topology.link_delay_ns",
            Box::new(|s| s.topology.link_delay_ns = 18_446_744_073_709_552),
        ),
        (
            "topology.switch_latency_ns",
            Box::new(|s| s.topology.switch_latency_ns = u64::MAX),
        ),
        (
            "topology.link_gbps",
            Box::new(|s| s.topology.link_gbps = 0.005),
        ),
        ("transport.rto_us", Box::new(|s| s.transport.rto_us = 3e6)),
        (
            "workload.message",
            Box::new(|s| s.workload.message = Size::Bytes(u64::MAX)),
        ),
        ("stop.max_time_us", Box::new(|s| s.stop.max_time_us = 1e10)),
        (
            "output.queue_sample_us",
            Box::new(|s| s.output.queue_sample_us = 1e-6),
        ),
    ];
    for (field, mutate) in cases {
        let mut s = Scenario::default();
        mutate(&mut s);
        assert_eq!(field_of(&s), field);
    }
}

#[test]
fn incast_degree_boundary() {
    let mut s = Scenario::default();
    s.workload.kind = WorkloadKind::Incast;
    s.workload.degree = 127;
    validate(&s).unwrap();
    s.workload.degree = 128;
    assert!(validate(&s).is_err());
}

/// Every "not supported yet" refusal and every check that needs the built network is made
/// by validation (so `--dry-run` refuses what `run` refuses), naming its field.
#[test]
fn unsupported_and_built_checks_are_validation() {
    use crate::scenario::{CcKind, LbKind};
    type Mutation = Box<dyn Fn(&mut Scenario)>;
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "transport.cc",
            Box::new(|s| s.transport.cc = CcKind::Zeropod),
        ),
        ("transport.lb", Box::new(|s| s.transport.lb = LbKind::Unolb)),
        (
            "transport.lb",
            Box::new(|s| {
                s.transport.lb = LbKind::SprayRr;
                s.skip.enabled = true;
            }),
        ),
        (
            "transport.lb",
            Box::new(|s| {
                s.transport.lb = LbKind::SprayRr;
                s.topology.kind = TopologyKind::TwoDc;
            }),
        ),
        (
            "transport.lb",
            Box::new(|s| {
                s.transport.lb = LbKind::SprayRr;
                s.transport.cc = CcKind::Zeropod;
                s.topology.kind = TopologyKind::ZeropodPods;
            }),
        ),
        (
            "transport.cc",
            Box::new(|s| {
                s.topology.kind = TopologyKind::TwoDc;
                s.transport.cc = CcKind::Dcsim;
            }),
        ),
        (
            "topology.two_dc.dc_buffer",
            Box::new(|s| {
                s.topology.kind = TopologyKind::TwoDc;
                s.topology.two_dc.dc_buffer = Some(crate::scenario::Size::Bytes(100));
            }),
        ),
        (
            "topology.phantom_size",
            Box::new(|s| {
                s.topology.phantom_queue = true;
                s.topology.phantom_size = Some(crate::scenario::Size::Bytes(100));
            }),
        ),
        (
            "topology.phantom_size",
            Box::new(|s| {
                s.topology.phantom_queue = true;
                s.topology.phantom_size = Some(crate::scenario::Size::Bytes(1 << 33));
            }),
        ),
        (
            "topology.kind",
            Box::new(|s| s.topology.kind = TopologyKind::SingleTor),
        ),
        (
            "topology.radix",
            Box::new(|s| {
                s.topology.kind = TopologyKind::ZeropodPods;
                s.transport.cc = CcKind::Zeropod;
                s.topology.radix = 6;
            }),
        ),
        (
            "workload.kind",
            Box::new(|s| {
                s.topology.kind = TopologyKind::ZeropodPods;
                s.transport.cc = CcKind::Zeropod;
                s.topology.radix = 32;
                s.topology.hosts = 256;
                s.workload.kind = WorkloadKind::Llm;
            }),
        ),
        (
            "output.skip_flows",
            Box::new(|s| {
                s.topology.kind = TopologyKind::ZeropodPods;
                s.transport.cc = CcKind::Zeropod;
                s.output.skip_flows = true;
            }),
        ),
        (
            "workload.collectives",
            Box::new(|s| {
                s.workload.kind = WorkloadKind::Tornado;
                s.workload.collectives = 2;
            }),
        ),
        (
            "transport.header_bytes",
            Box::new(|s| s.transport.header_bytes = MAX_HEADER_BYTES + 1),
        ),
        ("transport.rto_us", Box::new(|s| s.transport.rto_us = 3e6)),
        (
            "failures[0].link",
            Box::new(|s| {
                s.failures.push(Failure {
                    link: "tor99.up0".into(),
                    at_us: 1.0,
                    for_us: None,
                    gbps: None,
                    ..Default::default()
                })
            }),
        ),
        (
            "topology.buffer",
            Box::new(|s| s.topology.buffer = Size::Bdp(0.001)),
        ),
    ];
    for (field, mutate) in cases {
        let mut s = Scenario::default();
        mutate(&mut s);
        assert_eq!(field_of(&s), field);
    }
    let mut s = Scenario::default();
    s.transport.header_bytes = MAX_HEADER_BYTES;
    validate(&s).unwrap();
    s.failures.push(Failure {
        link: "tor0.up3".into(),
        at_us: 1.0,
        for_us: None,
        gbps: None,
        ..Default::default()
    });
    validate(&s).unwrap();
}

/// A refusal names `transport.cc` as a scenario spells it (`"mprdma_bbr"`, not the Rust
/// variant's `MprdmaBbr` or `mprdmabbr`), so the user can type it back.
#[test]
fn refusals_name_the_cc_as_a_scenario_spells_it() {
    use crate::scenario::CcKind;
    let kinds = [
        CcKind::Dctcp,
        CcKind::Uno,
        CcKind::Dcsim,
        CcKind::Zeropod,
        CcKind::Gemini,
        CcKind::MprdmaBbr,
        CcKind::Mprdma,
        CcKind::Pfabric,
        CcKind::Phost,
        CcKind::Dcpim,
    ];
    for k in kinds {
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            format!("\"{}\"", k.name()),
            "{k:?}"
        );
    }
    let mut s = Scenario::default();
    s.transport.cc = CcKind::MprdmaBbr;
    s.transport.slow_start = true;
    match validate(&s) {
        Err(Error::Field { field, problem }) => {
            assert_eq!(field, "transport.slow_start");
            assert!(problem.contains("cc = \"mprdma_bbr\""), "{problem}");
        }
        other => panic!("expected a field error, got {other:?}"),
    }
}
