//! Uno Fig. 10 with the authors' setup at the paper's fabric size
//! (`scenarios/uno_realistic_paper.toml`: two k = 8 fat trees, the border of `-os_border 16`,
//! 1 MB buffers, the authors' workload reading, CC rule and marking, no trimming, no EC),
//! on fewer flows so that a run is short. README, Uno, "Session 9".

use sim_harness::scenario::{CcKind, LbKind, Scenario, Size};
use sim_harness::{simulate, RunControl, RunResult};

fn paper() -> Scenario {
    let path = format!(
        "{}/../scenarios/uno_realistic_paper.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The baselines as the authors' scripts run them (README, Uno, "Session 9": `$BASE9`): no
/// phantom queues, no ECN at the border, MPRDMA's one-BDP cap and `-noRto`, pacing; and
/// (Session 10) Gemini by its `GeminiSrc` rules: slow start after a timeout (no `-noRto` in
/// its runs), `-geminiT 5` (ms), `-geminiBeta 0.1`, `-geminiH 0.00024`, `-ecnAlpha 0.5`;
/// BBR's window back to one packet on a timeout (`BBRSrc::apply_timeout_penalty`).
fn as_the_authors_ran_the_baselines(s: &mut Scenario) {
    s.topology.phantom_queue = false;
    s.topology.two_dc.dc_ecn = false;
    s.transport.uno.baseline_max_cwnd = Some(1.0);
    s.transport.uno.baseline_timeout_cut = false;
    s.transport.uno.baseline_pacing = true;
    s.transport.uno.bbr_timeout_reset = true;
    as_the_authors_ran_gemini(s);
}

/// Gemini's rules in the authors' simulator (spcl/Uno_SC25 `sim/gemini.cpp`, the flags of
/// `sc25_fig10_realistic_40_load.sh` / `sc25_fig12.sh`; README, Uno, "Session 10").
fn as_the_authors_ran_gemini(s: &mut Scenario) {
    let u = &mut s.transport.uno;
    u.gemini_timeout_slow_start = true;
    u.gemini_delay_us = Some(5000.0);
    u.gemini_beta = Some(0.1);
    u.gemini_h = Some(0.00024);
    u.gemini_ewma_shift = Some(1);
}

fn intra_p99(s: &Scenario) -> f64 {
    let r: RunResult = simulate(s, &RunControl::default()).expect("run");
    assert_eq!(
        r.summary.flows_completed, r.summary.flows,
        "{:?}/{:?}: every flow completes",
        s.transport.cc, s.transport.lb
    );
    *r.summary
        .extra
        .get("fct_intra_p99_ps")
        .expect("intra-DC p99")
}

/// Uno 5.2.2: "by achieving balanced load [...] on top of UnoCC, Uno manages to reduce the
/// latency of [...] intra-DC flows compared to other baselines", while Uno+ECMP does not.
/// At k = 8 with the authors' setup, Uno (UnoLB) has an intra-DC p99 FCT at least 1.5x below
/// Gemini's and MPRDMA+BBR's as their scripts run them (ECMP, physical RED inside the
/// datacenters, no ECN at the border, MPRDMA's one-BDP cap, `-noRto`, pacing), and UnoCC on
/// ECMP is not: the gain is the load balancing. Paper size (5000 flows): 3.2-3.8x below both.
#[test]
fn uno_paper_setup_intra_dc_tail_below_the_baselines_by_load_balancing() {
    let mut s = paper();
    assert_eq!(s.topology.radix, 8);
    assert_eq!(s.topology.two_dc.border_links_per_core, 8);
    assert_eq!(s.topology.two_dc.dc_links, 8);
    assert_eq!(s.topology.buffer, Size::Bytes(1_000_000));
    assert_eq!(s.transport.lb, LbKind::Unolb);
    assert!(!s.transport.trimming && !s.transport.uno.ec);
    s.workload.flows = 1000;
    let uno = intra_p99(&s);
    s.transport.lb = LbKind::Ecmp;
    let uno_ecmp = intra_p99(&s);
    as_the_authors_ran_the_baselines(&mut s);
    let mut base = Vec::new();
    for cc in [CcKind::Gemini, CcKind::MprdmaBbr] {
        s.transport.cc = cc;
        base.push(intra_p99(&s));
    }
    let msg = format!(
        "intra-DC p99: uno {uno} ps, uno+ecmp {uno_ecmp} ps, gemini {} ps, mprdma_bbr {} ps",
        base[0], base[1]
    );
    assert!(uno * 1.5 < base[0] && uno * 1.5 < base[1], "{msg}");
    assert!(uno_ecmp > 0.8 * base[0].min(base[1]), "{msg}");
}

/// `transport.uno.authors_rto`: the authors' sender timeout (base RTT + 5 drains of a 1 MB
/// port, + 3 more for an inter-DC flow: +640 us against the default's +270 us) recovers the
/// same WAN losses later, so the inter-DC tail grows (200 flows, seed 1: 4.56 -> 4.93 ms).
#[test]
fn authors_rto_recovers_inter_dc_losses_later() {
    let mut s = paper();
    s.workload.flows = 200;
    assert!(
        s.transport.uno.authors_rto,
        "the file runs the authors' timeout"
    );
    s.transport.uno.authors_rto = false;
    let inter_p99 = |s: &Scenario| -> (f64, f64) {
        let r = simulate(s, &RunControl::default()).expect("run");
        assert_eq!(r.summary.flows_completed, r.summary.flows);
        let e = &r.summary.extra;
        (e["fct_inter_p99_ps"], e["timeouts"])
    };
    let (default, timeouts) = inter_p99(&s);
    s.transport.uno.authors_rto = true;
    let (authors, authors_timeouts) = inter_p99(&s);
    assert!(
        timeouts > 0.0 && authors_timeouts > 0.0,
        "losses recovered by the timer"
    );
    assert!(
        authors > default,
        "inter-DC p99: authors' RTO {authors} ps, default {default} ps"
    );
}

/// Uno 5.2.2 / Fig. 10: Uno "decreases the tail FCT [...] by 1.7x and 2.1x for inter-DC flows"
/// against MPRDMA+BBR and Gemini. With the authors' whole setup (their sender timeout for every
/// scheme, their Quick Adapt hold for Uno) Uno's inter-DC p99 is below both baselines'; at the
/// paper's 5000 flows 1.14-1.32x below Gemini's and 1.42-2.11x below MPRDMA+BBR's on seeds 1-3
/// (README, Uno, "Session 9"). Here 500 flows, seed 1: measured 1.5x / 2.4x below.
#[test]
fn uno_paper_setup_inter_dc_tail_below_the_baselines() {
    let mut s = paper();
    assert!(s.transport.uno.authors_rto && s.transport.uno.qa_hold == "sent");
    s.workload.flows = 500;
    let inter_p99 = |s: &Scenario| -> f64 {
        let r = simulate(s, &RunControl::default()).expect("run");
        assert_eq!(r.summary.flows_completed, r.summary.flows);
        r.summary.extra["fct_inter_p99_ps"]
    };
    let uno = inter_p99(&s);
    s.transport.lb = LbKind::Ecmp;
    as_the_authors_ran_the_baselines(&mut s);
    let mut base = Vec::new();
    for cc in [CcKind::Gemini, CcKind::MprdmaBbr] {
        s.transport.cc = cc;
        base.push(inter_p99(&s));
    }
    assert!(
        uno * 1.25 < base[0] && uno * 1.25 < base[1],
        "inter-DC p99: uno {uno} ps, gemini {} ps, mprdma_bbr {} ps",
        base[0],
        base[1]
    );
}

/// Uno 5.2.2 / Fig. 12 (intra-DC ports of one intra-DC BDP, inter-DC ports of 0.1 inter-DC
/// BDP, 2.24 MB): Uno "reduces [...] the tail FCT" of the inter-DC flows 1.7x below Gemini's.
/// With Gemini as the authors ran it (a sender timeout restarts it at one packet in slow
/// start, `GeminiSrc::retransmit_packet`) Uno's inter-DC p99 is well below Gemini's; with
/// dcfab's default Gemini (no timeout reaction) the gap is much smaller (at the paper's 5000
/// flows level: 0.97-1.16x). 300 flows, seed 1: Uno 5.48 ms, Gemini 24.31 ms as the authors
/// ran it, 7.15 ms by default (paper size, seeds 1-3: 2.3-3.1x; README, Uno, "Session 10").
#[test]
fn uno_paper_setup_fig12_inter_dc_tail_below_gemini_as_the_authors_ran_it() {
    let mut s = paper();
    s.workload.flows = 300;
    s.topology.buffer = Size::Bdp(1.0);
    s.topology.two_dc.dc_buffer = Some(Size::Bytes(2_240_051));
    let inter_p99 = |s: &Scenario| -> f64 {
        let r = simulate(s, &RunControl::default()).expect("run");
        assert_eq!(r.summary.flows_completed, r.summary.flows);
        r.summary.extra["fct_inter_p99_ps"]
    };
    let uno = inter_p99(&s);
    s.transport.lb = LbKind::Ecmp;
    s.transport.cc = CcKind::Gemini;
    as_the_authors_ran_the_baselines(&mut s);
    let authors = inter_p99(&s);
    s.transport.uno.gemini_timeout_slow_start = false;
    let no_slow_start = inter_p99(&s);
    let msg = format!(
        "inter-DC p99: uno {uno} ps, gemini as the authors ran it {authors} ps, without the \
         slow start after a timeout {no_slow_start} ps"
    );
    assert!(uno * 2.0 < authors, "{msg}");
    assert!(
        no_slow_start * 1.5 < authors,
        "the timeout rule moves it: {msg}"
    );
}

/// Uno 5.2.2 / Fig. 11: at an inter/intra-DC RTT ratio of 512, Uno's p99 FCT *slowdown* over
/// all flows (FCT over the flow's base RTT plus its bytes at 100 Gb/s, at least 1:
/// `output.fct_slowdown`, as the authors' `print_fct_info` computes it) is "5x lower" than
/// both baselines'. The file at ratio 512 (`dc_link_delay_us = 3574`, Uno's phantom queues of
/// that inter-DC BDP), 1000 flows: Uno 3.96 / 4.89 / 3.96 against Gemini 7.30 / 6.28 / 5.35
/// and MPRDMA+BBR 21.17 / 6.21 / 6.14 on seeds 1-3 (1.27-5.3x); at the paper's 5000 flows
/// 4.7-5.3x (README, Uno, "Session 9: Fig. 11 as the authors plot it"). Seed 1 here, with
/// each class's p99 slowdown lowest too.
#[test]
fn uno_paper_setup_rtt_ratio_512_tail_slowdown_below_the_baselines() {
    let mut s = paper();
    s.workload.flows = 1000;
    s.topology.two_dc.dc_link_delay_us = 3574.0;
    s.topology.phantom_size = Some(Size::Bdp(512.0));
    s.output.fct_slowdown = true;
    let slow = |s: &Scenario| -> [f64; 3] {
        let r = simulate(s, &RunControl::default()).expect("run");
        assert_eq!(r.summary.flows_completed, r.summary.flows);
        let e = &r.summary.extra;
        ["all", "intra", "inter"].map(|c| e[&format!("slowdown_{c}_p99")])
    };
    let uno = slow(&s);
    s.transport.lb = LbKind::Ecmp;
    as_the_authors_ran_the_baselines(&mut s);
    let mut base = Vec::new();
    for cc in [CcKind::Gemini, CcKind::MprdmaBbr] {
        s.transport.cc = cc;
        base.push(slow(&s));
    }
    let msg = format!(
        "p99 slowdown all / intra / inter: uno {uno:?}, gemini {:?}, mprdma_bbr {:?}",
        base[0], base[1]
    );
    assert!(
        uno[0] * 1.5 < base[0][0] && uno[0] * 1.5 < base[1][0],
        "{msg}"
    );
    for b in &base {
        assert!(uno[1] < b[1] && uno[2] < b[2], "{msg}");
    }
}

/// Uno Fig. 11 at an inter/intra-DC RTT ratio of 8 (`dc_link_delay_us = 46`): the paper has
/// MPRDMA+BBR's tail slowdown slightly *below* Uno's (23.8 against 24.3); BBR v1 ignores loss,
/// and with it MPRDMA+BBR was the worst here (paper size, all-flows p99 slowdown 42-44). The
/// authors' BBR puts its window back to one packet on every timed-out packet
/// (`BBRSrc::apply_timeout_penalty`, `transport.uno.bbr_timeout_reset`): fewer repeated losses of the
/// small inter-DC flows. 1000 flows, seed 1: all-flows p99 slowdown 14.9 -> 11.2, timeouts
/// 24.5 k -> 16.7 k (paper size, seeds 1-3: 42.2 / 42.9 / 43.9 -> 27.5 / 30.1 / 31.6; README,
/// Uno, "Session 10").
#[test]
fn uno_paper_setup_rtt_ratio_8_bbr_timeout_reset_lowers_mprdma_bbr_tail() {
    let mut s = paper();
    s.workload.flows = 1000;
    s.topology.two_dc.dc_link_delay_us = 46.0;
    s.output.fct_slowdown = true;
    s.transport.lb = LbKind::Ecmp;
    s.transport.cc = CcKind::MprdmaBbr;
    as_the_authors_ran_the_baselines(&mut s);
    assert!(s.transport.uno.bbr_timeout_reset);
    let run = |s: &Scenario| -> (f64, f64) {
        let r = simulate(s, &RunControl::default()).expect("run");
        assert_eq!(r.summary.flows_completed, r.summary.flows);
        let e = &r.summary.extra;
        (e["slowdown_all_p99"], e["timeouts"])
    };
    let (reset, reset_timeouts) = run(&s);
    s.transport.uno.bbr_timeout_reset = false;
    let (ignore, ignore_timeouts) = run(&s);
    let msg = format!(
        "all-flows p99 slowdown (timeouts): reset {reset} ({reset_timeouts}), loss ignored \
         {ignore} ({ignore_timeouts})"
    );
    assert!(reset < 0.85 * ignore, "{msg}");
    assert!(reset_timeouts < ignore_timeouts, "{msg}");
}

fn failures_paper() -> Scenario {
    let path = format!(
        "{}/../scenarios/uno_failures_paper.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Uno Fig. 13 (A) with the authors' setup (`scenarios/uno_failures_paper.toml`: k = 8, one of
/// the 8 inter-DC links down, 5 MB inter-DC flows between 8 host pairs each way, 1 MB buffers,
/// no trimming, UnoLB with the authors' 10 subflows): "Uno outperforms both spraying and PLB
/// with and without EC". Seed 1, mean : largest FCT (ms): UnoLB + EC 3.48 : 4.93, UnoLB
/// 7.20 : 11.82, spraying + EC 5.07 : 6.88, spraying 13.76 : 19.10, PLB + EC 9.02 : 37.97, PLB
/// 11.55 : 20.97. Seeds 1-20: UnoLB + EC has the lowest mean on all 20 and a largest FCT no
/// higher than any other's (README, Uno, "Session 9: Fig. 13").
#[test]
fn uno_fig13a_uno_with_ec_has_the_lowest_mean_fct_under_a_dead_wan_link() {
    let mut s = failures_paper();
    assert_eq!(s.topology.radix, 8);
    assert_eq!(s.failures.len(), 1);
    assert!(s.transport.uno.ec && !s.transport.trimming);
    assert_eq!(s.transport.lb, LbKind::Unolb);
    assert_eq!(s.transport.uno.subflows, 10);
    let mut fct = |lb: LbKind, ec: bool| -> (f64, f64) {
        s.transport.lb = lb;
        s.transport.uno.ec = ec;
        let r = simulate(&s, &RunControl::default()).expect("run");
        assert_eq!(r.summary.flows_completed, r.summary.flows);
        assert_eq!(r.summary.flows, 16);
        (r.summary.mean_fct_ps as f64, r.summary.max_fct_ps as f64)
    };
    let (uno_ec, uno_ec_max) = fct(LbKind::Unolb, true);
    let others = [
        ("UnoLB", fct(LbKind::Unolb, false)),
        ("spraying + EC", fct(LbKind::Ops, true)),
        ("spraying", fct(LbKind::Ops, false)),
        ("PLB + EC", fct(LbKind::Plb, true)),
        ("PLB", fct(LbKind::Plb, false)),
    ];
    let msg = format!("(mean, largest) FCT ps: UnoLB + EC {uno_ec} {uno_ec_max}, {others:?}");
    for (_, (mean, max)) in &others {
        assert!(uno_ec * 1.2 < *mean, "{msg}");
        assert!(uno_ec_max <= *max, "{msg}");
    }
    // The paper: about 2x below spraying, up to 3x below Uno without EC.
    assert!(uno_ec * 2.0 < others[2].1 .0, "{msg}");
    assert!(uno_ec * 1.5 < others[0].1 .0, "{msg}");
}
