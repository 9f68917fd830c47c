use super::*;
use proptest::prelude::*;

/// 100 Gb/s at 1 GHz: 12.5 B/cycle. Intra-DC RTT 14 us = 14_000 cycles, BDP 175_000 B.
const INTRA_RTT: Cycles = 14_000;
const BDP_INTRA: u64 = 175_000;
const MTU: u32 = 4096;

fn line() -> Rate {
    Rate::from_ratio(25, 2).unwrap()
}

fn intra() -> UnoCcConfig {
    UnoCcConfig::uno(MTU, BDP_INTRA, BDP_INTRA, INTRA_RTT, INTRA_RTT, line())
}

/// Inter-DC: RTT 2 ms, BDP 25 MB; epochs still on the intra-DC RTT.
fn inter() -> UnoCcConfig {
    UnoCcConfig::uno(MTU, 25_000_000, BDP_INTRA, 2_000_000, INTRA_RTT, line())
}

#[test]
fn table2_defaults() {
    let c = intra();
    assert_eq!(c.alpha_q8 >> 8, 175); // 0.001 x BDP
    assert_eq!(c.beta_q15, Q15_ONE / 2);
    assert_eq!(c.k_bytes, 25_000); // BDP_intra / 7
    assert_eq!(c.md_gain_q15(), Q15_ONE / 2); // 4K / (K + BDP) = 100k / 200k
    assert_eq!(inter().k_bytes, 25_000);
    assert_eq!(inter().epoch_period, INTRA_RTT);
    // Inter-DC: 4 x 25k / 25.025M.
    assert_eq!(
        inter().md_gain_q15(),
        (100_000u64 * 32768 / 25_025_000) as u32
    );
}

#[test]
fn ai_adds_alpha_per_window_of_unmarked_acks() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    let o = cc.on_ack(100, MTU, false, 100);
    assert!(o.ai && !o.md && !o.qa);
    // 175 x 4096 / 175_000 = 4.096 B -> Q8 floor.
    assert_eq!(cc.state().cwnd_q8.value(), (175_000 << 8) + 1048);
    // One window of ACKs adds about alpha.
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    for i in 0..(BDP_INTRA / MTU as u64) {
        cc.on_ack(i, MTU, false, 10);
    }
    let grown = cc.cwnd() - BDP_INTRA;
    assert!((160..=175).contains(&grown), "{grown}");
    // Marked ACKs never add.
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    assert!(!cc.on_ack(5, MTU, true, 10).ai);
    assert_eq!(cc.cwnd(), BDP_INTRA);
}

/// A fast-forward over unmarked ACKs leaves the window where the same ACKs one by one
/// leave it (within the per-ACK floors), and `E` where as many unmarked epochs leave it.
#[test]
fn fast_forward_unmarked_matches_the_acks_one_by_one() {
    for n in [1u64, 43, 1_000, 20_000] {
        let mut a = UnoCc::new(intra(), 0).unwrap();
        let mut b = a;
        // ACKs spaced so that no QA window sees less than beta x cwnd acknowledged.
        for i in 0..n {
            a.on_ack(i * 300, MTU, false, INTRA_RTT);
        }
        b.fast_forward_unmarked(n * u64::from(MTU), 0);
        let (x, y) = (a.cwnd(), b.cwnd());
        assert!(
            y >= x && y - x <= n / 64 + 2,
            "{n} ACKs: one by one {x}, fast-forward {y}"
        );
        assert!(y > BDP_INTRA || n < 43, "{n}: the window grew");
    }
    // E decays as unmarked epochs decay it: 0 after enough of them.
    let mut c = UnoCc::new(intra(), 0).unwrap();
    marked_epoch(&mut c, 0, 0);
    let e = c.state().ecn_ewma_q15;
    assert!(e > 0);
    let mut d = c;
    d.fast_forward_unmarked(0, 1);
    assert_eq!(
        d.state().ecn_ewma_q15,
        e - (e >> 4) - u16::from(!e.is_multiple_of(16))
    );
    d.fast_forward_unmarked(0, 1_000);
    assert_eq!(d.state().ecn_ewma_q15, 0);
    assert_eq!(d.cwnd(), c.cwnd(), "no ACK, no increase");
}

/// One epoch's ACKs (all marked, with or without queueing delay) starting at `t0`; returns
/// the outcome of the ACK that ends it.
fn marked_epoch(cc: &mut UnoCc, t0: Cycles, delay: Cycles) -> AckOutcome {
    let rtt = INTRA_RTT + delay;
    let mut last = AckOutcome::default();
    // Packets sent every 300 cycles (about line rate: no Quick Adapt), ACKed one RTT later.
    for k in 0..=200 {
        let sent = t0 + k * 300;
        last = cc.on_ack(sent + rtt, MTU, true, rtt);
        if last.epoch_end {
            return last;
        }
    }
    last
}

#[test]
fn md_on_congested_epoch_physical_queue() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    // The first ACK (packet sent at 0, 10 us of queueing) starts the epoch at its arrival
    // time (T_epoch = 24_000); the ACK of the first packet sent from 24_000 on ends it.
    let o = marked_epoch(&mut cc, 0, 10_000);
    assert_eq!(cc.now(), 48_000);
    assert!(o.epoch_end && o.md && !o.gentle);
    // E = 1/16 (all marked), MD_ECN = E x 0.5 = 1/32: cwnd x 31/32 (up to the fixed point).
    assert_eq!(cc.state().ecn_ewma_q15, (Q15_ONE / 16) as u16);
    assert_eq!(cc.md_ecn_q15(), Q15_ONE / 32);
    assert_eq!(cc.cwnd(), BDP_INTRA * 31 / 32);
    assert_eq!(cc.state().md_scale_q15, Q15_ONE as u16);
    assert_eq!(cc.state().t_epoch.value(), 24_000 + INTRA_RTT);
}

#[test]
fn gentle_md_when_marked_without_delay() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    let o = marked_epoch(&mut cc, 0, 0);
    assert!(o.md && o.gentle);
    assert_eq!(cc.state().md_scale_q15, 9830); // 0.3
                                               // Reduction = 1/32 x 0.3 = 0.009375: cwnd 175_000 -> ~173_359.
    let expect = BDP_INTRA as f64 * (1.0 - (1024.0 * 9830.0 / 32768.0) / 32768.0);
    assert!((cc.cwnd() as f64 - expect).abs() < 2.0, "{}", cc.cwnd());
    // A second gentle epoch: MD_scale = 0.3 x 0.3.
    let t = cc.state().t_epoch.value();
    let o = marked_epoch(&mut cc, t, 0);
    assert!(o.gentle);
    assert_eq!(cc.state().md_scale_q15, ((9830u32 * 9830) >> 15) as u16);
    // Then a physical-queue epoch resets it to 1.
    let t = cc.state().t_epoch.value();
    let o = marked_epoch(&mut cc, t, 5_000);
    assert!(o.md && !o.gentle);
    assert_eq!(cc.state().md_scale_q15, Q15_ONE as u16);
}

/// `md_fine` (Alg. 1 line 14 in Q2.30, as the authors' `double`): an inter-DC flow's
/// gentle MD is a few Q1.15 LSBs, which the default floors; Q2.30 keeps the printed product.
#[test]
fn md_fine_keeps_the_inter_dc_reduction_the_q15_product_floors() {
    let run = |fine: bool| {
        let mut cfg = inter();
        cfg.md_fine = fine;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        // All marked, no queueing delay: E = 1/16, MD_scale = 0.3 (gentle).
        let o = marked_epoch(&mut cc, 0, 0);
        assert!(o.md && o.gentle);
        cc.cwnd()
    };
    let g = 100_000.0 / 25_025_000.0; // 4K / (K + BDP)
    let exact = 25_000_000.0 * (1.0 - (1.0 / 16.0) * g * (9830.0 / 32768.0));
    // Default: MD_ECN = 2048 x 130 >> 15 = 8 LSB, x 0.3 -> 2 LSB (2.46 printed).
    let coarse = 25_000_000.0 * (1.0 - 2.0 / 32768.0);
    assert!((run(false) as f64 - coarse).abs() < 2.0, "{}", run(false));
    assert!(exact < run(false) as f64 - 300.0);
    let fine = run(true) as f64;
    assert!((fine - exact).abs() < 2.0, "{fine} vs {exact}");
    // Intra-DC, where the product is ~300 LSB, both agree to a few bytes.
    let cwnd = |fine: bool| {
        let mut cfg = intra();
        cfg.md_fine = fine;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        marked_epoch(&mut cc, 0, 0);
        cc.cwnd() as i64
    };
    assert!((cwnd(true) - cwnd(false)).abs() < 10);
}

/// `epoch_rtt_q30` (the authors' `epoch_type = "short"`): the next epoch ends the measured RTT
/// of the epoch-ending ACK x the ratio after this one, not one intra-DC base RTT.
#[test]
fn epoch_rtt_sets_the_epoch_from_the_measured_rtt() {
    let t_next = |q30: u32| {
        let mut cfg = intra();
        cfg.epoch_rtt_q30 = q30;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        // 10 us of queueing: measured RTT 24_000; T_epoch = 24_000 (first ACK).
        let o = marked_epoch(&mut cc, 0, 10_000);
        assert!(o.epoch_end && o.md);
        cc.state().t_epoch.value()
    };
    assert_eq!(t_next(0), 24_000 + INTRA_RTT);
    assert_eq!(t_next(1 << 30), 24_000 + 24_000);
    assert_eq!(t_next(1 << 29), 24_000 + 12_000);
    let mut cfg = intra();
    cfg.epoch_rtt_q30 = (1 << 30) + 1;
    assert_eq!(UnoCc::new(cfg, 0).unwrap_err().field, "epoch_rtt_q30");
}

/// `ewma_gain_q16` (the authors' `-ecnAlpha 0.65`): `E += (frac - E) x gain` in Q0.16, exact
/// to 1e-4 at 0.65; a gain of `2^(16-n)` is bit-for-bit `ewma_shift = n`.
#[test]
fn ewma_gain_q16_weighs_the_new_fraction_by_a_general_gain() {
    let e_after = |gain: u32, epochs: usize, m: u64| {
        let mut cfg = intra();
        cfg.ewma_gain_q16 = gain;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        marked_epoch(&mut cc, 0, 0);
        let mut es = [0u16; 32];
        es[0] = cc.state().ecn_ewma_q15;
        for e in es.iter_mut().take(epochs).skip(1) {
            mixed_epoch(&mut cc, m);
            *e = cc.state().ecn_ewma_q15;
        }
        (es, cc.cwnd())
    };
    // One all-marked epoch from E = 0: E = 0.65 (the default shift 4 gives 1/16).
    let (es, _) = e_after(42_598, 1, 1);
    assert!(
        (f64::from(es[0]) / 32768.0 - 0.65).abs() < 1e-4,
        "{}",
        es[0]
    );
    assert_eq!(e_after(0, 1, 1).0[0], (Q15_ONE / 16) as u16);
    // Then epochs with 1 in 3 marked: E moves 0.65 of the way to 1/3 each epoch.
    let (es, _) = e_after(42_598, 4, 3);
    let mut e = 0.65;
    for got in es.iter().take(4).skip(1) {
        // About 1 in 3 of the epoch's ACKs are marked (k = 0, 3, ...).
        e += (1.0 / 3.0 - e) * 0.65;
        assert!((f64::from(*got) / 32768.0 - e).abs() < 0.02, "{got} vs {e}");
    }
    // 2^12 / 2^16 is exactly the default 2^-4, state and window, over many epochs.
    assert_eq!(e_after(1 << 12, 30, 4), e_after(0, 30, 4));
    assert_eq!(e_after(1 << 15, 30, 2).0, {
        let mut cfg = intra();
        cfg.ewma_shift = 1;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        marked_epoch(&mut cc, 0, 0);
        let mut es = [0u16; 32];
        es[0] = cc.state().ecn_ewma_q15;
        for e in es.iter_mut().take(30).skip(1) {
            mixed_epoch(&mut cc, 2);
            *e = cc.state().ecn_ewma_q15;
        }
        es
    });
    let mut cfg = intra();
    cfg.ewma_gain_q16 = (1 << 16) + 1;
    assert_eq!(UnoCc::new(cfg, 0).unwrap_err().field, "ewma_gain_q16");
}

/// One epoch whose ACKs are marked / delayed as `f(is_the_epoch_ending_ack)` says (packets
/// every 300 cycles from 0); returns the outcome of the epoch-ending ACK.
fn epoch_where(cc: &mut UnoCc, f: impl Fn(bool) -> (bool, Cycles)) -> AckOutcome {
    for k in 0..=400u64 {
        let sent = k * 300;
        let ending = cc.state().started && sent >= cc.state().t_epoch.value();
        let (ecn, delay) = f(ending);
        let o = cc.on_ack(sent + INTRA_RTT + delay, MTU, ecn, INTRA_RTT + delay);
        if o.epoch_end {
            assert!(ending);
            return o;
        }
    }
    panic!("no epoch end");
}

/// `gentle_epoch_end` (the authors' `processEpochEnd(rtt)`): line 9's "delay == 0" reads the
/// epoch-ending ACK's RTT alone, marked or not; the default reads every marked ACK's.
#[test]
fn gentle_epoch_end_reads_only_the_epoch_ending_ack() {
    let run = |end_only: bool, f: &dyn Fn(bool) -> (bool, Cycles)| {
        let mut cfg = intra();
        cfg.gentle_epoch_end = end_only;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        let o = epoch_where(&mut cc, f);
        assert!(o.md);
        o.gentle
    };
    // Marked ACKs queued 5 us, the epoch-ending one (marked) not: default full, option gentle.
    let queued_then_clear = |end: bool| (true, if end { 0 } else { 5_000 });
    assert!(!run(false, &queued_then_clear));
    assert!(run(true, &queued_then_clear));
    // Marked ACKs unqueued, the epoch-ending one unmarked and queued: default gentle, option full.
    let clear_then_queued = |end: bool| (!end, if end { 5_000 } else { 0 });
    assert!(run(false, &clear_then_queued));
    assert!(!run(true, &clear_then_queued));
    // At the threshold (delay == delay_thresh) it is still "no delay", as the default.
    let thr = intra().delay_thresh;
    assert!(run(true, &|end: bool| (true, if end { thr } else { 0 })));
    assert!(!run(true, &|end: bool| (
        true,
        if end { thr + 1 } else { 0 }
    )));
}

/// A stream of ACKs (every `m`-th marked, no queueing delay) continuing right after the
/// last epoch-ending packet; returns the outcome of the ACK that ends the next epoch.
fn mixed_epoch(cc: &mut UnoCc, m: u64) -> AckOutcome {
    let t0 = cc.now() - INTRA_RTT + 300;
    let mut last = AckOutcome::default();
    for k in 0..=200 {
        let sent = t0 + k * 300;
        last = cc.on_ack(sent + INTRA_RTT, MTU, k % m == 0, INTRA_RTT);
        if last.epoch_end {
            return last;
        }
    }
    last
}

#[test]
fn trend_ai_increases_when_the_marked_fraction_falls() {
    // The authors' simulator (`aimd_phantom`): a marked epoch whose E fell is an AI.
    let cfg = UnoCcConfig {
        trend_ai: true,
        ewma_shift: 1,
        ..intra()
    };
    let mut cc = UnoCc::new(cfg, 0).unwrap();
    // All marked: E 0 -> 0.5; E_old = 0, so an MD.
    let o = marked_epoch(&mut cc, 0, 0);
    assert!(o.md);
    let after_md = cc.cwnd();
    assert!(after_md < BDP_INTRA);
    // A quarter marked: E 0.5 -> 0.375 < 0.5: the epoch's bytes grow the window by
    // alpha x bytes / cwnd, and no MD.
    let o = mixed_epoch(&mut cc, 4);
    assert!(o.epoch_end && !o.md, "{o:?}");
    assert!(cc.cwnd() > after_md, "{} vs {after_md}", cc.cwnd());
    // Algorithm 1 as printed cuts on the same two epochs.
    let mut plain = UnoCc::new(
        UnoCcConfig {
            ewma_shift: 1,
            ..intra()
        },
        0,
    )
    .unwrap();
    marked_epoch(&mut plain, 0, 0);
    let w = plain.cwnd();
    assert!(mixed_epoch(&mut plain, 4).md);
    assert!(plain.cwnd() < w);
    // E rising again (all marked): an MD even with trend_ai.
    assert!(mixed_epoch(&mut cc, 1).md);
}

#[test]
fn gentle_fixed_does_not_compound() {
    let cfg = UnoCcConfig {
        gentle_fixed: true,
        gentle_q15: 11469, // 0.35, the authors' simulator
        ..intra()
    };
    let mut cc = UnoCc::new(cfg, 0).unwrap();
    assert!(marked_epoch(&mut cc, 0, 0).gentle);
    assert_eq!(cc.state().md_scale_q15, 11469);
    let t = cc.state().t_epoch.value();
    assert!(marked_epoch(&mut cc, t, 0).gentle);
    assert_eq!(cc.state().md_scale_q15, 11469);
}

#[test]
fn unmarked_epoch_decays_e_without_md() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    cc.on_ack(INTRA_RTT, MTU, true, INTRA_RTT + 1);
    marked_epoch(&mut cc, INTRA_RTT, 1);
    let e = cc.state().ecn_ewma_q15;
    let w = cc.cwnd();
    let t = cc.state().t_epoch.value();
    let mut end = None;
    for k in 0..20 {
        let o = cc.on_ack(t + k * 1000 + INTRA_RTT, MTU, false, INTRA_RTT);
        if o.epoch_end {
            end = Some(o);
            break;
        }
    }
    let o = end.unwrap();
    assert!(!o.md);
    assert_eq!(cc.state().ecn_ewma_q15, e - e / 16);
    assert!(cc.cwnd() > w);
}

#[test]
fn inter_dc_flow_ends_epochs_at_intra_dc_granularity() {
    let mut cc = UnoCc::new(inter(), 0).unwrap();
    let rtt = 2_000_000;
    // Packets sent every 1000 cycles, all ACKed one inter-DC RTT later.
    let mut ends = 0;
    for k in 0..=140u64 {
        if cc.on_ack(k * 1000 + rtt, MTU, false, rtt).epoch_end {
            ends += 1;
        }
    }
    // T_epoch starts at the first ACK (2_000_000); the packets sent in [0, 140_000] are
    // all older: no epoch ends, the stamp is not reached yet.
    assert_eq!(ends, 0);
    for k in 2000..=2140u64 {
        if cc.on_ack(k * 1000 + rtt, MTU, false, rtt).epoch_end {
            ends += 1;
        }
    }
    // Send times 2_000_000 ..= 2_140_000 cross 11 epoch stamps 14_000 apart (incl. first).
    assert_eq!(ends, 11);
}

#[test]
fn quick_adapt_then_one_rtt_without_qa_or_md() {
    // Inter-DC flow: RTT 2 ms (the QA period and the hold), epochs every 14 us.
    let rtt = 2_000_000;
    let mut cc = UnoCc::new(inter(), 0).unwrap();
    // First ACK at 2 ms: the QA window ends at 4 ms. Only 6 x 4096 B arrive in it.
    for k in 0..5 {
        assert!(!cc.on_ack(rtt + k * 1000, MTU, false, rtt).qa);
    }
    let o = cc.on_ack(2 * rtt, MTU, false, rtt);
    assert!(o.qa);
    assert_eq!(cc.cwnd(), 6 * MTU as u64);
    assert_eq!(cc.state().hold_until.value(), 3 * rtt);
    assert_eq!(cc.state().qa_end.value(), 4 * rtt);
    // Marked epochs (with queueing delay) during the held RTT apply no MD, and QA does not
    // count the held RTT's ACKs.
    let w = cc.cwnd();
    let mut ends = 0;
    let mut t = 2 * rtt;
    while t + 300 < 3 * rtt {
        t += 300;
        let o = cc.on_ack(t, MTU, true, rtt + 5000);
        ends += o.epoch_end as u32;
        assert!(!o.md && !o.qa, "{t}");
    }
    assert!(ends > 100, "{ends}");
    assert_eq!(cc.cwnd(), w);
    assert_eq!(cc.state().qa_acked, 0);
    // After the hold: the next congested epoch reduces.
    let mut md = false;
    while !md {
        t += 300;
        md = cc.on_ack(t, MTU, true, rtt + 5000).md;
    }
    assert!(cc.cwnd() < w);
}

/// `qa_hold_sent` (the authors' simulator, `processQaMeasurementEnd`): after a QA, no QA or
/// MD until the ACK of a packet sent after it, however late; the next QA window starts at that
/// ACK. A sender still blocked by its backlog acks almost nothing in the RTT after the hold:
/// the default window (one RTT after a one-RTT hold) measures that gap and cuts again.
#[test]
fn qa_hold_sent_waits_for_the_ack_of_a_packet_sent_after_the_qa() {
    let rtt = 2_000_000;
    let run = |hold_sent: bool| {
        let mut cfg = inter();
        cfg.qa_hold_sent = hold_sent;
        let mut cc = UnoCc::new(cfg, 0).unwrap();
        for k in 0..5 {
            assert!(!cc.on_ack(rtt + k * 1000, MTU, false, rtt).qa);
        }
        assert!(cc.on_ack(2 * rtt, MTU, false, rtt).qa);
        assert_eq!(cc.cwnd(), 6 * MTU as u64);
        // One late ACK of a packet sent before the QA, 2.1 RTTs after it.
        let t = 4 * rtt + rtt / 10;
        let late = cc.on_ack(t, MTU, false, t - (2 * rtt - 1000));
        (cc, late.qa)
    };
    // Default: the window [3, 4] RTT acked one packet (< beta x 6): QA cuts to one MTU.
    let (cc, qa) = run(false);
    assert!(qa);
    assert_eq!(cc.cwnd(), MTU as u64);
    // `qa_hold_sent`: still held (no packet sent since the QA acked yet).
    let (mut cc, qa) = run(true);
    assert!(!qa);
    assert_eq!(cc.state().hold_until.value(), T_MAX);
    let w = cc.cwnd();
    // The first ACK of a packet sent after the QA opens a window of one RTT; the window-limited
    // flow acks its 6 packets in it and QA does not fire.
    let t0 = 4 * rtt + rtt / 2;
    assert!(!cc.on_ack(t0, MTU, false, rtt).qa);
    assert_eq!(cc.state().hold_until.value(), t0);
    assert_eq!(cc.state().qa_end.value(), t0 + rtt);
    for k in 1..=6u64 {
        assert!(!cc.on_ack(t0 + k * rtt / 6, MTU, false, rtt).qa, "{k}");
    }
    assert!(cc.cwnd() >= w);
}

#[test]
fn no_quick_adapt_when_acks_keep_up() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    // A full window (175_000 B) per RTT: 43 x 4096 = 176_128 >= beta x cwnd.
    for k in 0..=43u64 {
        let o = cc.on_ack(INTRA_RTT + k * 325, MTU, false, INTRA_RTT);
        assert!(!o.qa);
    }
    assert!(cc.cwnd() > BDP_INTRA);
}

/// 4.1.2: QA looks at the ACKed bytes "once every RTT". A window-limited intra-DC flow
/// whose RTT is 4x its base RTT (a standing queue, no loss) acks one full window per measured
/// RTT: QA must not fire. Over a base-RTT window it would ack only a quarter of its window,
/// below beta = 0.5, and QA would cut the window to that quarter (the pre-session-6 rule).
#[test]
fn no_quick_adapt_when_a_queued_window_keeps_acking() {
    let rtt = 4 * INTRA_RTT;
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    let w = cc.cwnd();
    // One window (43 x 4096 B) spread over each measured RTT, for 5 RTTs.
    let mut qa = 0;
    for k in 0..5 * 43u64 {
        let o = cc.on_ack(rtt + k * rtt / 43, MTU, false, rtt);
        qa += o.qa as u32;
    }
    assert_eq!(qa, 0, "no QA while a full window is acked per RTT");
    assert!(cc.cwnd() >= w);
    // The same ACK stream with the flow's RTT samples at the base RTT (the old QA window):
    // a quarter of the window per window, so QA fires.
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    let mut fired = false;
    for k in 0..5 * 43u64 {
        fired |= cc.on_ack(rtt + k * rtt / 43, MTU, false, INTRA_RTT).qa;
    }
    assert!(fired);
    assert!(cc.cwnd() < w / 2, "{}", cc.cwnd());
}

#[test]
fn pacing_and_can_send() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    // cwnd / RTT = 12.5 B/cycle = line rate.
    assert_eq!(cc.pacing_rate(), line());
    assert!(cc.can_send(0));
    assert!(!cc.can_send(BDP_INTRA - 4000));
    cc.on_send(0, MTU);
    // 4096 / 12.5 = 327.68 -> 328 cycles.
    assert_eq!(cc.next_send(), 328);
    assert!(!cc.can_send(MTU as u64));
    cc.advance(328);
    assert!(cc.can_send(MTU as u64));
    // A halved window halves the rate.
    cc.on_timeout(328);
    assert_eq!(cc.cwnd(), BDP_INTRA / 2);
    cc.on_send(328, MTU);
    assert_eq!(cc.next_send(), 328 + 656);
}

#[test]
fn nack_counts_as_physical_congestion() {
    let mut cc = UnoCc::new(intra(), 0).unwrap();
    cc.on_ack(INTRA_RTT, MTU, false, INTRA_RTT);
    cc.on_nack(INTRA_RTT + 10);
    assert_eq!(cc.state().epoch_marked, 1);
    assert!(cc.state().epoch_delay);
    let o = cc.on_ack(3 * INTRA_RTT, MTU, false, INTRA_RTT);
    assert!(o.epoch_end && o.md && !o.gentle);
}

#[test]
fn config_errors_name_fields() {
    let f = |c: UnoCcConfig| UnoCc::new(c, 0).unwrap_err().field;
    let c = intra();
    assert_eq!(f(UnoCcConfig { mtu_bytes: 0, ..c }), "mtu_bytes");
    assert_eq!(f(UnoCcConfig { bdp_bytes: 0, ..c }), "bdp_bytes");
    assert_eq!(
        f(UnoCcConfig {
            beta_q15: Q15_ONE + 1,
            ..c
        }),
        "beta_q15"
    );
    assert_eq!(f(UnoCcConfig { k_bytes: 0, ..c }), "k_bytes");
    assert_eq!(f(UnoCcConfig { ewma_shift: 0, ..c }), "ewma_shift");
    assert_eq!(f(UnoCcConfig { base_rtt: 0, ..c }), "base_rtt");
    assert_eq!(
        f(UnoCcConfig {
            epoch_period: 0,
            ..c
        }),
        "epoch_period"
    );
    assert_eq!(
        f(UnoCcConfig {
            max_cwnd_bytes: 10,
            ..c
        }),
        "max_cwnd_bytes"
    );
    assert_eq!(
        f(UnoCcConfig {
            init_cwnd_bytes: 10,
            ..c
        }),
        "init_cwnd_bytes"
    );
    assert_eq!(
        f(UnoCcConfig {
            line_rate: Rate::ZERO,
            ..c
        }),
        "line_rate"
    );
    assert_eq!(
        f(UnoCcConfig {
            gentle_q15: Q15_ONE + 1,
            ..c
        }),
        "gentle_q15"
    );
}

#[test]
fn budget_names_the_word() {
    assert_eq!(UnoCc::BITS, 330);
    assert_eq!(core::mem::size_of::<UnoCcWord>(), 42);
}

#[derive(Debug, Clone)]
enum Ev {
    Ack { gap: u64, ecn: bool, extra: u64 },
    Nack { gap: u64 },
    Timeout { gap: u64 },
    Send { gap: u64 },
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        6 => (0u64..3000, any::<bool>(), 0u64..20_000).prop_map(|(gap, ecn, extra)| Ev::Ack { gap, ecn, extra }),
        1 => (0u64..3000).prop_map(|gap| Ev::Nack { gap }),
        1 => (0u64..3000).prop_map(|gap| Ev::Timeout { gap }),
        2 => (0u64..3000).prop_map(|gap| Ev::Send { gap }),
    ]
}

fn run(cc: &mut UnoCc, evs: &[Ev]) {
    for e in evs {
        match *e {
            Ev::Ack { gap, ecn, extra } => {
                let t = cc.now() + gap;
                cc.on_ack(t, MTU, ecn, INTRA_RTT + extra);
            }
            Ev::Nack { gap } => cc.on_nack(cc.now() + gap),
            Ev::Timeout { gap } => cc.on_timeout(cc.now() + gap),
            Ev::Send { gap } => cc.on_send(cc.now() + gap, MTU),
        }
    }
}

proptest! {
    #[test]
    fn pack_unpack_round_trip(evs in proptest::collection::vec(ev(), 0..60)) {
        let mut cc = UnoCc::new(intra(), 0).unwrap();
        run(&mut cc, &evs);
        let st = *cc.state();
        prop_assert_eq!(UnoCcState::unpack(st.pack()), st);
        // Every word is a state and re-packs to itself.
        let w = UnoCcWord::from_bytes(st.pack().into_bytes());
        prop_assert_eq!(UnoCcState::unpack(w).pack(), w);
    }

    #[test]
    fn arbitrary_words_round_trip(bytes in proptest::array::uniform32(any::<u8>()), tail in proptest::array::uniform10(any::<u8>())) {
        let mut b = [0u8; 42];
        b[..32].copy_from_slice(&bytes);
        b[32..].copy_from_slice(&tail);
        b[41] &= 0x03; // the 6 padding bits are zero
        let w = UnoCcWord::from_bytes(b);
        prop_assert_eq!(UnoCcState::unpack(w).pack().into_bytes(), b);
    }

    #[test]
    fn advance_equals_idle_ticks(evs in proptest::collection::vec(ev(), 0..40), n in 0u64..5000,
                                 after in proptest::collection::vec(ev(), 0..10)) {
        let mut a = UnoCc::new(inter(), 0).unwrap();
        run(&mut a, &evs);
        let mut b = a;
        a.advance(n);
        for _ in 0..n { b.tick(); }
        prop_assert_eq!(a, b);
        run(&mut a, &after);
        run(&mut b, &after);
        prop_assert_eq!(a, b);
    }

    /// A fast-forward after any history: the window within its bounds, never smaller for
    /// more bytes acknowledged, and nothing but the window and `E` moves.
    #[test]
    fn fast_forward_unmarked_is_bounded_and_monotone(evs in proptest::collection::vec(ev(), 0..60),
                                                     x in 0u64..1 << 36, y in 0u64..1 << 36,
                                                     epochs in 0u64..300) {
        let mut cc = UnoCc::new(intra(), 0).unwrap();
        run(&mut cc, &evs);
        let (mut a, mut b) = (cc, cc);
        a.fast_forward_unmarked(x.min(y), epochs);
        b.fast_forward_unmarked(x.max(y), epochs);
        prop_assert!(a.cwnd() <= b.cwnd());
        prop_assert!(b.cwnd() >= MTU as u64 && b.cwnd() <= 2 * BDP_INTRA);
        prop_assert!(a.cwnd() >= cc.cwnd());
        prop_assert!(a.state().ecn_ewma_q15 <= cc.state().ecn_ewma_q15);
        let (mut s, t) = (*a.state(), *cc.state());
        s.cwnd_q8 = t.cwnd_q8;
        s.ecn_ewma_q15 = t.ecn_ewma_q15;
        prop_assert_eq!(s, t);
    }

    #[test]
    fn cwnd_stays_in_bounds(evs in proptest::collection::vec(ev(), 0..200)) {
        let mut cc = UnoCc::new(intra(), 0).unwrap();
        run(&mut cc, &evs);
        prop_assert!(cc.cwnd() >= MTU as u64 && cc.cwnd() <= 2 * BDP_INTRA);
        prop_assert!(cc.state().md_scale_q15 as u32 <= Q15_ONE);
        prop_assert!(cc.state().ecn_ewma_q15 as u32 <= Q15_ONE);
    }
}
