//! REPS 4.3.3 / Figure 8-9 failure modes (`engine::failure_sets`): x % of a set of cables
//! failing at random from the seed (`failures[].random_fraction`), and random packet drops
//! on a cable (`failures[].drop_prob`): what they choose, what they count, and the errors.

use sim_harness::scenario::{Failure, Loss, LossModel, Scenario, Size, TopologyKind};
use sim_harness::{simulate, RunControl, RunResult};

/// 32 hosts on a 2-tier fat tree of radix 8 (8 ToRs x 4 uplinks = 32 ToR uplinks), 64 KiB
/// permutation.
fn small() -> Scenario {
    let mut s = Scenario {
        name: "failure_sets_test".into(),
        ..Scenario::default()
    };
    s.topology.tiers = 2;
    s.topology.radix = 8;
    s.workload.message = Size::Bytes(64 << 10);
    s.output.queue_sample_us = 0.0;
    s.output.selection_bucket_us = 0.0;
    s
}

fn random(set: &str, fraction: f64) -> Failure {
    Failure {
        link: set.into(),
        at_us: 0.0,
        random_fraction: Some(fraction),
        ..Default::default()
    }
}

fn run(s: &Scenario) -> RunResult {
    simulate(s, &RunControl::default()).expect("run")
}

/// The `link` column of `failures.csv`.
fn listed(r: &RunResult) -> Vec<String> {
    let t = &r.tables["failures"];
    let col = t.header.iter().position(|h| h == "link").unwrap();
    t.rows.iter().map(|row| row[col].clone()).collect()
}

fn err(s: &Scenario) -> String {
    sim_harness::validate::validate(s)
        .expect_err("invalid")
        .to_string()
}

/// A quarter of the 32 ToR uplinks: 8 distinct ToR uplinks, listed in `failures.csv` and
/// counted in the summary; the same seed draws the same cables, another seed others.
#[test]
fn random_fraction_draws_cables_from_the_seed_and_lists_them() {
    let mut s = small();
    s.failures.push(random("tor_uplinks", 0.25));
    let a = run(&s);
    let cables = listed(&a);
    assert_eq!(cables.len(), 8, "{cables:?}");
    assert!(cables
        .iter()
        .all(|c| c.starts_with("tor") && c.contains(".up")));
    let mut dedup = cables.clone();
    dedup.dedup();
    assert_eq!(dedup.len(), 8);
    assert_eq!(a.summary.extra["failed_cables"], 8.0);
    assert_eq!(a.summary.extra["random_failed_cables"], 8.0);
    // The dead cables carried nothing after t = 0.
    for c in &cables {
        let l = a.links.iter().find(|l| &l.link == c).unwrap();
        assert_eq!(l.tx_packets, 0, "{c}");
    }
    assert_eq!(listed(&run(&s)), cables, "same seed, same cables");
    s.seed = 2;
    assert_ne!(listed(&run(&s)), cables, "another seed, other cables");
    // Every flow still completes: no two ToRs were cut apart.
    assert_eq!(a.summary.flows_completed, a.summary.flows);
}

/// Failing every ToR uplink would cut the ToRs apart: refused, naming the field; 1 % of 32
/// rounds to 0 and fails one cable.
#[test]
fn random_fraction_keeps_the_tors_connected() {
    let mut s = small();
    s.failures.push(random("tor_uplinks", 1.0));
    let e = err(&s);
    assert!(
        e.contains("failures[0].random_fraction") && e.contains("cutting two ToRs apart"),
        "{e}"
    );
    let mut s = small();
    s.failures.push(random("switch_cables", 0.01));
    assert_eq!(listed(&run(&s)).len(), 1);
}

/// Random drops on one cable: about `drop_prob` of its packets are lost (both
/// directions), counted as `random_loss` drops, in `loss_drops` and in `links.csv`; the
/// run is deterministic and still completes.
#[test]
fn drop_prob_loses_that_share_of_a_cables_packets() {
    let mut s = small();
    s.workload.message = Size::Bytes(1 << 20);
    s.failures.push(Failure {
        link: "tor0.up0".into(),
        at_us: 0.0,
        drop_prob: Some(0.05),
        ..Default::default()
    });
    let r = run(&s);
    assert_eq!(r.summary.flows_completed, r.summary.flows);
    let lost = r.summary.drops_by_cause["random_loss"];
    let seen = r.summary.extra["loss_packets"];
    assert!(seen > 1000.0, "{seen} packets crossed the cable");
    let rate = lost as f64 / seen;
    assert!((rate - 0.05).abs() < 0.02, "loss rate {rate}");
    let port_drops: u64 = r
        .links
        .iter()
        .filter(|l| l.link == "tor0.up0" || l.link == "spine0.down0")
        .map(|l| l.drops)
        .sum();
    assert_eq!(port_drops, lost);
    assert_eq!(r.summary.extra["failed_cables"], 0.0, "the cable stays up");
    assert_eq!(listed(&r), vec!["tor0.up0".to_string()]);
    assert_eq!(run(&s).flows, r.flows, "deterministic");
    // Without it, nothing is lost and no failures.csv is written.
    let clean = run(&small());
    assert!(!clean.summary.drops_by_cause.contains_key("random_loss"));
    assert!(!clean.tables.contains_key("failures"));
}

/// An edit of a failure entry.
type Edit = Box<dyn Fn(&mut Failure)>;

/// Every bad value is refused with the field named.
#[test]
fn bad_failure_fields_are_refused() {
    let cases: Vec<(&str, Edit)> = vec![
        (
            "failures[0].random_fraction",
            Box::new(|f| f.random_fraction = Some(0.0)),
        ),
        (
            "failures[0].random_fraction",
            Box::new(|f| f.random_fraction = Some(1.5)),
        ),
        (
            "failures[0].random_fraction",
            Box::new(|f| f.random_fraction = Some(f64::NAN)),
        ),
        (
            "failures[0].drop_prob",
            Box::new(|f| f.drop_prob = Some(0.0)),
        ),
        (
            "failures[0].drop_prob",
            Box::new(|f| f.drop_prob = Some(2.0)),
        ),
        (
            "failures[0].drop_prob",
            Box::new(|f| {
                f.drop_prob = Some(0.1);
                f.gbps = Some(100.0);
            }),
        ),
        // A set needs random_fraction, and random_fraction needs a set.
        ("failures[0].link", Box::new(|f| f.random_fraction = None)),
        ("failures[0].link", Box::new(|f| f.link = "tor0.up0".into())),
        // 2 tiers have no aggregation uplinks.
        (
            "failures[0].link",
            Box::new(|f| f.link = "agg_uplinks".into()),
        ),
    ];
    for (field, edit) in cases {
        let mut s = small();
        let mut f = random("tor_uplinks", 0.25);
        edit(&mut f);
        s.failures.push(f);
        let e = err(&s);
        assert!(e.contains(field), "{field}: {e}");
    }
    // Random sets on a fat tree only.
    let mut s = small();
    s.topology.kind = TopologyKind::TwoDc;
    s.failures.push(random("tor_uplinks", 0.5));
    let e = err(&s);
    assert!(e.contains("failures[0].random_fraction"), "{e}");
    // One lossy entry per cable.
    let mut s = small();
    s.loss.push(Loss {
        link: "tor0.up0".into(),
        model: LossModel::Bernoulli,
        rate: 0.01,
        ..Loss::default()
    });
    s.failures.push(Failure {
        link: "spine0.down0".into(),
        drop_prob: Some(0.01),
        ..Default::default()
    });
    let e = err(&s);
    assert!(
        e.contains("failures[0].drop_prob") && e.contains("loss[0]"),
        "{e}"
    );
}
