extern crate std;

use super::receiver::RtsRejected;
use super::*;
use proptest::prelude::*;
use rtl_models::testing::assert_advance_eq_ticks;
use rtl_models::Clocked;
use std::vec::Vec;

const CFG: PhostReceiverConfig = PhostReceiverConfig {
    token_interval: 4,
    token_ttl: 12,
    downgrade_timeout: 20,
    downgrade_cycles: 30,
    window: 0,
    window_timeout: 0,
    srpt_received: false,
};

/// Sender and receiver wired back to back: tokens and DATA take `delay` cycles; the sender
/// sends at most one packet per `token_interval` cycles (line rate). Returns per-flow
/// packets delivered, and checks the token invariants on the way.
fn exchange(
    sizes: &[u32],
    bdp: u32,
    delay: u64,
    cycles: u64,
) -> (Vec<u32>, PhostReceiver<4>, PhostSender<4, 4>) {
    let mut rx = PhostReceiver::<4>::new(CFG).unwrap();
    let mut tx = PhostSender::<4, 4>::new();
    for (i, &s) in sizes.iter().enumerate() {
        tx.open(i as u32, s, bdp).unwrap();
    }
    let mut delivered = std::vec![0u32; sizes.len()];
    let mut to_tx: Vec<(u64, Token)> = Vec::new();
    let mut to_rx: Vec<(u64, TxPacket)> = Vec::new();
    for c in 0..cycles {
        while let Some((f, s)) = tx.take_rts() {
            rx.on_rts(f, s, s.min(bdp)).unwrap();
        }
        for (_, t) in to_tx.iter().filter(|(at, _)| *at == c) {
            tx.on_token(*t);
        }
        for (_, p) in to_rx.iter().filter(|(at, _)| *at == c) {
            delivered[p.flow as usize] += 1;
            if !p.free {
                rx.on_data(p.flow);
            }
        }
        if c % CFG.token_interval as u64 == 0 {
            if let Some(p) = tx.next_packet() {
                if let Some(e) = p.token_expiry {
                    assert!(e > tx.now(), "spent a token past its expiry");
                }
                to_rx.push((c + 1 + delay, p));
            }
        }
        rx.tick();
        tx.tick();
        if let Some(t) = rx.take_token() {
            to_tx.push((c + 1 + delay, t));
        }
        assert!(
            tx.held().all(|t| t.expiry > tx.now()),
            "a held token outlived its expiry"
        );
    }
    (delivered, rx, tx)
}

#[test]
fn srpt_order_free_tokens_and_completion() {
    let (delivered, rx, tx) = exchange(&[12, 5], 2, 1, 400);
    assert_eq!(delivered, std::vec![12, 5]);
    assert_eq!(rx.active().count(), 0);
    assert!(tx.flow(0).is_none() && tx.flow(1).is_none());
    // The short flow is granted first: its 3 tokens come before any of the long flow's.
    let mut rx = PhostReceiver::<4>::new(CFG).unwrap();
    rx.on_rts(0, 12, 2).unwrap();
    rx.on_rts(1, 5, 2).unwrap();
    rx.on_rts(2, 2, 2).unwrap(); // all free: no entry
    assert_eq!(rx.active().count(), 2);
    let mut order = Vec::new();
    for _ in 0..20 {
        rx.tick();
        if let Some(t) = rx.take_token() {
            order.push(t.flow);
            rx.on_data(t.flow);
        }
    }
    assert_eq!(order[..4], [1, 1, 1, 0]);
}

#[test]
fn unresponsive_sender_is_downgraded() {
    let mut rx = PhostReceiver::<4>::new(CFG).unwrap();
    rx.on_rts(7, 3, 0).unwrap();
    rx.on_rts(8, 10, 0).unwrap();
    let mut got = Vec::new();
    let mut run = |rx: &mut PhostReceiver<4>, cycles| {
        for _ in 0..cycles {
            rx.tick();
            if let Some(t) = rx.take_token() {
                got.push(t.flow);
                if t.flow == 8 {
                    rx.on_data(8); // flow 7's sender never answers
                }
            }
        }
    };
    run(&mut rx, 40);
    // Flow 7 (SRPT) gets all 3 of its tokens; unanswered, they time out (cycle 20), its
    // tokens go back to to_grant and it is downgraded while flow 8 is served.
    assert_eq!(rx.downgrades(), 1);
    let f7 = rx.flow(7).unwrap();
    assert_eq!((f7.pending, f7.to_grant), (0, 3));
    assert!(f7.downgraded > 0);
    // After the downgrade (30 cycles) flow 7 is the SRPT choice again.
    run(&mut rx, 30);
    let got = got;
    assert_eq!(got[..3], [7, 7, 7]);
    let back = got
        .iter()
        .skip(3)
        .position(|&f| f == 7)
        .expect("flow 7 served again")
        + 3;
    assert!(
        back >= 3 + 4 && got[3..back].iter().all(|&f| f == 8),
        "{got:?}"
    );
}

#[test]
fn errors_name_fields() {
    let bad = PhostReceiverConfig {
        token_interval: 0,
        ..CFG
    };
    assert_eq!(
        PhostReceiver::<2>::new(bad).unwrap_err().field,
        "token_interval"
    );
    let bad = PhostReceiverConfig {
        token_ttl: 0,
        ..CFG
    };
    assert_eq!(PhostReceiver::<2>::new(bad).unwrap_err().field, "token_ttl");
    let bad = PhostReceiverConfig {
        downgrade_timeout: 0,
        ..CFG
    };
    assert_eq!(
        PhostReceiver::<2>::new(bad).unwrap_err().field,
        "downgrade_timeout"
    );
    let mut tx = PhostSender::<1, 1>::new();
    assert_eq!(tx.open(1, 0, 4).unwrap_err().field, "size_pkts");
    tx.open(1, 3, 4).unwrap();
    assert_eq!(tx.open(1, 3, 4).unwrap_err().field, "flow");
    assert_eq!(tx.open(2, 3, 4).unwrap_err().field, "flow");
    let mut rx = PhostReceiver::<1>::new(CFG).unwrap();
    rx.on_rts(1, 9, 0).unwrap();
    assert_eq!(rx.on_rts(2, 9, 0), Err(RtsRejected::TableFull));
}

#[test]
fn tokens_expire_at_the_sender() {
    let mut tx = PhostSender::<2, 2>::new();
    tx.open(1, 10, 0).unwrap();
    tx.on_token(Token { flow: 1, expiry: 3 });
    tx.on_token(Token { flow: 1, expiry: 0 }); // dead on arrival
    assert_eq!(tx.expired(), 1);
    tx.advance(3);
    assert_eq!(tx.held().count(), 0);
    assert_eq!(tx.expired(), 2);
    assert_eq!(tx.next_packet(), None);
}

/// `x` run `n` cycles, and a copy shifted by `d` first and then run `n` cycles.
fn run_shifted<T: Clone + Clocked>(x: T, d: u64, n: u64, shift: fn(&mut T, u64)) -> (T, T) {
    let (mut a, mut b) = (x.clone(), x);
    shift(&mut b, d);
    a.advance(n);
    b.advance(n);
    (a, b)
}

fn rx_ops() -> impl Strategy<Value = Vec<(u8, u32, u64)>> {
    proptest::collection::vec((0u8..3, 1u32..12, 0u64..30), 0..30)
}

/// Drive a receiver through random RTS / DATA / token takes with idle gaps.
fn drive(ops: &[(u8, u32, u64)]) -> PhostReceiver<4> {
    let mut rx = PhostReceiver::<4>::new(CFG).unwrap();
    for &(kind, x, gap) in ops {
        apply(&mut rx, kind, x);
        rx.advance(gap);
    }
    rx
}

/// One random receiver input of `rx_ops`: an RTS, a DATA or a token take.
fn apply(rx: &mut PhostReceiver<4>, kind: u8, x: u32) {
    match kind {
        0 => {
            let _ = rx.on_rts(x % 5, x, x % 3);
        }
        1 => rx.on_data(x % 5),
        _ => {
            rx.take_token();
        }
    }
}

proptest! {
    /// No token outlives its expiry: the sender never holds or spends an expired token,
    /// whatever the flow sizes and delays; and every packet is delivered.
    #[test]
    fn no_token_outlives_its_expiry(sizes in proptest::collection::vec(1u32..20, 1..4), bdp in 0u32..4,
                                    delay in 0u64..6) {
        let (delivered, _, tx) = exchange(&sizes, bdp, delay, 2_000);
        prop_assert!(tx.held().all(|t| t.expiry > tx.now()));
        prop_assert_eq!(delivered, sizes);
    }

    /// Tokens come at most one per token_interval, each to an SRPT-minimal eligible flow.
    #[test]
    fn tokens_at_line_rate_in_srpt_order(ops in rx_ops()) {
        let mut rx = drive(&ops);
        rx.take_token();
        let mut last: Option<u64> = None;
        for _ in 0..200 {
            let before: Vec<_> = rx.active().copied().collect();
            rx.tick();
            if let Some(t) = rx.take_token() {
                if let Some(l) = last { prop_assert!(rx.now() - l >= CFG.token_interval as u64); }
                last = Some(rx.now());
                let f = before.iter().find(|f| f.flow == t.flow).unwrap();
                // The edge first moves the per-flow timers (a downgrade ends or starts),
                // then grants: the flows eligible at the grant, from the state before it.
                let eligible: Vec<u32> = before.iter().filter(|b| {
                    let grants = b.to_grant > 0;
                    if b.downgraded > 0 { grants && b.downgraded == 1 }
                    else { grants && !(b.pending > 0 && b.silent + 1 >= CFG.downgrade_timeout) }
                }).map(|b| b.to_grant).collect();
                prop_assert_eq!(Some(&f.to_grant), eligible.iter().min());
                prop_assert_eq!(t.expiry, rx.now() + CFG.token_ttl as u64);
            }
        }
    }

    /// `advance(n)` equals `n` idle ticks from any reachable receiver state.
    #[test]
    fn receiver_advance_equals_idle_ticks(ops in rx_ops(), n in 0u64..300) {
        assert_advance_eq_ticks(&drive(&ops), n);
    }

    /// With a window, no flow ever has more tokens pending than the window, whatever the
    /// RTS / DATA / token order; and `advance` still equals idle ticks.
    #[test]
    fn no_flow_exceeds_its_token_window(ops in rx_ops(), window in 1u16..4, n in 0u64..200) {
        let cfg = PhostReceiverConfig { window, window_timeout: 7, ..CFG };
        let mut rx = PhostReceiver::<4>::new(cfg).unwrap();
        for &(kind, x, gap) in &ops {
            apply(&mut rx, kind, x);
            for _ in 0..gap.min(64) {
                rx.tick();
                rx.take_token();
                prop_assert!(rx.active().all(|f| f.pending <= window));
            }
        }
        assert_advance_eq_ticks(&rx, n);
    }

    /// Wormhole's shift is a pure offset: a receiver shifted by `d` and then run `n`
    /// cycles is the unshifted one run `n` cycles, its clock and token expiries `d` later
    /// (no downgrade, window give-up or token timer runs for the skipped time).
    #[test]
    fn receiver_shift_is_a_pure_offset(ops in rx_ops(), d in 0u64..1_000, n in 0u64..200) {
        let (mut a, mut b) = run_shifted(drive(&ops), d, n, PhostReceiver::shift);
        prop_assert_eq!(b.now(), a.now() + d);
        prop_assert_eq!(b.downgrades(), a.downgrades());
        prop_assert_eq!(b.active().copied().collect::<Vec<_>>(), a.active().copied().collect::<Vec<_>>());
        let (ta, tb) = (a.take_token(), b.take_token());
        prop_assert_eq!(tb.map(|t| (t.flow, t.expiry - d)), ta.map(|t| (t.flow, t.expiry)));
    }

    /// The same for the sender: held tokens expire `d` later, nothing else moves.
    #[test]
    fn sender_shift_is_a_pure_offset(toks in proptest::collection::vec((0u32..3, 0u64..50), 0..6),
                                     d in 0u64..1_000, n in 0u64..60) {
        let mut tx = PhostSender::<4, 4>::new();
        tx.open(0, 9, 2).unwrap();
        tx.open(1, 4, 2).unwrap();
        for (flow, expiry) in toks { tx.on_token(Token { flow, expiry }); }
        let (a, b) = run_shifted(tx, d, n, PhostSender::shift);
        prop_assert_eq!(b.now(), a.now() + d);
        prop_assert_eq!(b.expired(), a.expired());
        let held = |x: &PhostSender<4, 4>, off: u64| x.held().map(|t| (t.flow, t.expiry - off)).collect::<Vec<_>>();
        prop_assert_eq!(held(&b, d), held(&a, 0));
    }

    /// A fast-forward takes at most what it is asked, never a flow's last packet to grant
    /// (receiver) or to send on a token (sender), nor its free ones: both entries stay, and
    /// the flow still completes packet by packet afterwards, its free packets included.
    #[test]
    fn fast_forward_keeps_the_last_packet(size in 1u32..40, bdp in 0u32..4, n in 0u32..60,
                                          delay in 0u64..4, early in proptest::bool::ANY) {
        let mut rx = PhostReceiver::<4>::new(CFG).unwrap();
        let mut tx = PhostSender::<4, 4>::new();
        tx.open(0, size, bdp).unwrap();
        prop_assert_eq!(tx.fast_forward(0, n), 0, "no RTS sent yet");
        let (_, size_rts) = tx.take_rts().unwrap();
        let free = size_rts.min(bdp);
        rx.on_rts(0, size, free).unwrap();
        let before = tx.flow(0).unwrap();
        let mut sent = 0u32;
        // Free packets first (or not: tokens are spent before free ones).
        while !early && tx.flow(0).is_some_and(|f| f.free > 0) {
            prop_assert!(tx.next_packet().is_some_and(|p| p.free));
            sent += 1;
        }
        let to_grant = rx.flow(0).map_or(0, |f| f.to_grant);
        let kr = rx.fast_forward(0, n);
        let kt = tx.fast_forward(0, kr);
        prop_assert!(kr <= n && kr <= to_grant.saturating_sub(1));
        prop_assert_eq!(kt, kr, "the sender has every packet the receiver has to grant");
        if to_grant > 0 {
            prop_assert_eq!(rx.flow(0).map(|f| f.to_grant), Some(to_grant - kr));
            prop_assert_eq!(tx.flow(0).map(|f| f.remaining), Some(before.remaining - sent - kt));
        }
        // The rest goes on tokens: the flow completes with exactly size - taken packets.
        let mut got = sent;
        let mut to_tx: Vec<(u64, Token)> = Vec::new();
        for c in 0..4_000u64 {
            for (_, t) in to_tx.iter().filter(|(at, _)| *at == c) { tx.on_token(*t); }
            if let Some(p) = tx.next_packet() {
                got += 1;
                rx.on_data(p.flow);
            }
            rx.tick();
            tx.tick();
            if let Some(t) = rx.take_token() { to_tx.push((c + 1 + delay, t)); }
        }
        prop_assert_eq!(got, size - kt);
        prop_assert!(tx.flow(0).is_none());
    }

    /// `advance(n)` equals `n` idle ticks for the sender.
    #[test]
    fn sender_advance_equals_idle_ticks(toks in proptest::collection::vec((0u32..3, 0u64..50), 0..6), n in 0u64..60) {
        let mut tx = PhostSender::<4, 4>::new();
        tx.open(0, 9, 2).unwrap();
        tx.open(1, 4, 2).unwrap();
        for (flow, expiry) in toks { tx.on_token(Token { flow, expiry }); }
        assert_advance_eq_ticks(&tx, n);
    }
}

#[test]
fn sender_add_close_and_has_work() {
    let mut tx = PhostSender::<2, 2>::new();
    assert!(!tx.has_work());
    tx.open(1, 3, 1).unwrap();
    assert!(tx.has_work(), "a free token left");
    tx.take_rts();
    assert_eq!(tx.next_packet().map(|p| p.free), Some(true));
    assert!(!tx.has_work(), "2 packets left, no free token, no token");
    tx.on_token(Token { flow: 1, expiry: 9 });
    assert!(tx.has_work());
    assert_eq!(tx.next_packet().map(|p| p.free), Some(false));
    // A retransmission request: the entry grows; after its last packet it goes.
    tx.add(1, 1).unwrap();
    assert_eq!(tx.flow(1).map(|f| f.remaining), Some(2));
    for _ in 0..2 {
        tx.on_token(Token { flow: 1, expiry: 9 });
        assert!(tx.next_packet().is_some());
    }
    assert!(tx.flow(1).is_none());
    // A request for a flow without entry brings it back (no free token, no RTS).
    tx.add(1, 2).unwrap();
    let f = tx.flow(1).unwrap();
    assert_eq!((f.remaining, f.free, f.rts_pending), (2, 0, false));
    tx.add(2, 1).unwrap();
    assert_eq!(tx.add(3, 1).unwrap_err().field, "flow");
    assert!(tx.close(1) && !tx.close(1));
    tx.on_token(Token { flow: 1, expiry: 9 });
    assert_eq!(tx.next_packet(), None, "a closed flow's token is not spent");
}

#[test]
fn receiver_remove_and_quiet_cycles_name_the_next_event() {
    let mut rx = PhostReceiver::<2>::new(CFG).unwrap();
    assert_eq!(rx.quiet_cycles(), u64::MAX, "nothing to grant: no event");
    rx.on_rts(4, 10, 0).unwrap();
    // Stepping by quiet_cycles() + 1 lands on every token, one per token_interval.
    let mut at = Vec::new();
    for _ in 0..3 {
        let q = rx.quiet_cycles();
        rx.advance(q + 1);
        let t = rx.take_token().expect("a token at the event");
        at.push(t.expiry - CFG.token_ttl as u64);
        rx.on_data(4);
    }
    assert_eq!(at[1] - at[0], CFG.token_interval as u64);
    assert_eq!(at[2] - at[1], CFG.token_interval as u64);
    assert!(rx.remove(4) && !rx.remove(4));
    assert_eq!(rx.active().count(), 0);
    assert_eq!(rx.quiet_cycles(), u64::MAX);
}

/// The flows of the tokens `rx` hands out over `cycles` ticks, in order.
fn token_flows(rx: &mut PhostReceiver<4>, cycles: u32) -> Vec<u32> {
    (0..cycles)
        .filter_map(|_| {
            rx.tick();
            rx.take_token().map(|t| t.flow)
        })
        .collect()
}

#[test]
fn a_flow_gets_no_token_beyond_its_window_until_data_answers() {
    // Window 3: three tokens go, then none until a DATA arrives; another flow is served
    // meanwhile (the window is per flow; SRPT skips the full one).
    let cfg = PhostReceiverConfig {
        window: 3,
        window_timeout: 100,
        ..CFG
    };
    let mut rx = PhostReceiver::<4>::new(cfg).unwrap();
    rx.on_rts(1, 10, 0).unwrap();
    // 18 cycles: room for four tokens at one per 4, less than the downgrade timeout (20).
    let got = token_flows(&mut rx, 18);
    assert_eq!(got, [1, 1, 1], "{got:?}");
    assert_eq!(rx.flow(1).unwrap().pending, 3);
    rx.on_rts(2, 20, 0).unwrap();
    rx.on_data(1);
    let got = token_flows(&mut rx, 12);
    // One more for flow 1 (the smaller), then flow 2.
    assert_eq!(got[0], 1, "{got:?}");
    assert!(
        got[1..].iter().all(|&f| f == 2) && got.len() >= 2,
        "{got:?}"
    );
    // Stuck at the window (no DATA back) for window_timeout cycles: one token given up,
    // one more sent.
    let cfg = PhostReceiverConfig {
        window: 2,
        window_timeout: 6,
        ..CFG
    };
    let mut rx = PhostReceiver::<4>::new(cfg).unwrap();
    rx.on_rts(1, 10, 0).unwrap();
    let at: Vec<u64> = (0..19)
        .filter_map(|_| {
            rx.tick();
            rx.take_token().map(|_| rx.now())
        })
        .collect();
    // Two at line rate (4 cycles apart), then one per window_timeout.
    assert_eq!(at.len(), 4, "{at:?}");
    assert_eq!(
        (at[1] - at[0], at[2] - at[1], at[3] - at[2]),
        (4, 6, 6),
        "{at:?}"
    );
    // A DATA answering the latest token forgives the earlier unanswered ones.
    let cfg = PhostReceiverConfig {
        window: 2,
        window_timeout: 1000,
        downgrade_timeout: 10_000,
        ..CFG
    };
    let mut rx = PhostReceiver::<4>::new(cfg).unwrap();
    rx.on_rts(1, 10, 0).unwrap();
    let tokens = |rx: &mut PhostReceiver<4>| {
        (0..12)
            .filter(|_| {
                rx.tick();
                rx.take_token().is_some()
            })
            .count()
    };
    assert_eq!((tokens(&mut rx), rx.flow(1).unwrap().pending), (2, 2));
    rx.forgive(1, 3);
    assert_eq!(
        rx.flow(1).unwrap().pending,
        2,
        "a larger gap changes nothing"
    );
    rx.on_data(1);
    rx.forgive(1, 0);
    assert_eq!(rx.flow(1).unwrap().pending, 0);
    assert_eq!(tokens(&mut rx), 2, "the window open again");
    let bad = PhostReceiverConfig {
        window: 2,
        window_timeout: 0,
        ..CFG
    };
    assert_eq!(
        PhostReceiver::<2>::new(bad).unwrap_err().field,
        "window_timeout"
    );
    // Without the window the same flow takes every token.
    let mut rx = PhostReceiver::<4>::new(CFG).unwrap();
    rx.on_rts(1, 10, 0).unwrap();
    let n = (0..18)
        .filter(|_| {
            rx.tick();
            rx.take_token().is_some()
        })
        .count();
    assert!(n >= 4, "{n}");
}

/// The tokens `rx` sends over `n` token intervals (the flow of each).
fn tokens_over(rx: &mut PhostReceiver<4>, n: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for _ in 0..n * CFG.token_interval as usize {
        rx.tick();
        if let Some(t) = rx.take_token() {
            out.push(t.flow);
        }
    }
    out
}

/// `srpt_received` (the dcPIM simulator's pHost): ties go to the flow registered (pushed)
/// last and then to the flow granted last; the key is packets not yet received, so a flow
/// whose DATA arrives overtakes one that only got tokens. The default (packets not yet
/// granted, ties to the lowest slot) grants the first flow and keeps to it.
#[test]
fn srpt_received_follows_the_simulators_queue() {
    let big = 1000;
    // No downgrade within the test (its senders never answer).
    let quiet = PhostReceiverConfig {
        downgrade_timeout: 10_000,
        ..CFG
    };
    let mut def = PhostReceiver::<4>::new(quiet).unwrap();
    let mut sim = PhostReceiver::<4>::new(PhostReceiverConfig {
        srpt_received: true,
        ..quiet
    })
    .unwrap();
    for rx in [&mut def, &mut sim] {
        rx.on_rts(1, big, 0).unwrap();
        rx.on_rts(2, big, 0).unwrap();
    }
    // Default: to_grant of flow 1 falls with its first token, so it keeps every token.
    assert_eq!(tokens_over(&mut def, 4), [1, 1, 1, 1]);
    // Simulator: equal keys (nothing received), the flow pushed last (2) wins and, granted,
    // goes back to the end of the queue: it keeps the tie.
    assert_eq!(tokens_over(&mut sim, 4), [2, 2, 2, 2]);
    // Flow 1's DATA arrives (a free packet, say): fewer left to receive, it comes first.
    sim.on_received(1);
    assert_eq!(tokens_over(&mut sim, 2), [1, 1]);
    // Flow 2 receives two: now it has the fewest left.
    sim.on_received(2);
    sim.on_received(2);
    assert_eq!(tokens_over(&mut sim, 2), [2, 2]);
    // A flow registered later with the same packets left wins the tie.
    sim.on_rts(3, big - 2, 0).unwrap();
    assert_eq!(tokens_over(&mut sim, 1), [3]);
}

/// `srpt_received` with a window: the best flow at its window is passed over (and goes
/// back to the queue's end), the next one gets the tokens; once its DATA comes back it
/// is first again.
#[test]
fn srpt_received_passes_over_a_flow_at_its_window() {
    let mut rx = PhostReceiver::<4>::new(PhostReceiverConfig {
        srpt_received: true,
        window: 2,
        window_timeout: 1000,
        downgrade_timeout: 10_000,
        ..CFG
    })
    .unwrap();
    rx.on_rts(1, 100, 0).unwrap();
    rx.on_rts(2, 100, 0).unwrap();
    rx.on_received(1);
    // Flow 1 (fewer left) gets its window of 2, then flow 2 its window; then none.
    assert_eq!(tokens_over(&mut rx, 6), [1, 1, 2, 2]);
    // Flow 1 answers (pending 2 -> 0) and has still the fewest left: back to it.
    rx.on_data(1);
    rx.on_data(1);
    assert_eq!(tokens_over(&mut rx, 2), [1, 1]);
}
