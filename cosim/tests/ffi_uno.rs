//! Property tests of the Uno C ABI (`dcfab_unocc_*`, `dcfab_uport_*`), called through the
//! `extern "C"` functions exactly as C would: random call sequences checked against the
//! Rust blocks driven directly, bad handles, NULL pointers, bad arguments and configs, and
//! every handle freed at the end.
//!
//! The live-handle count is process-global: the tests of this file take one lock so each
//! can check that it frees what it made.

use std::ptr::{null, null_mut};

use dcfab_cosim::*;
use nic::uno::{UnoCc, UnoCcConfig, UnoCcState, UnoCcWord};
use proptest::prelude::*;
use rtl_models::{Clocked, Lfsr32, Rate};
use switch::output_port::{Admit, MarkOn, OutputPortCtl, PhantomPortConfig, PortConfig};

static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

const MTU: u32 = 4096;
const LINE_Q32: u64 = 25 << 31; // 12.5 B/cycle

fn cfg() -> UnoCcConfig {
    UnoCcConfig::uno(MTU, 175_000, 175_000, 14_000, 14_000, Rate(LINE_Q32))
}

#[derive(Debug, Clone)]
enum CcOp {
    Tick,
    Advance(u64),
    Ack(u32, bool, u64),
    Nack,
    Timeout,
    Send(u32),
    CanSend(u64),
}

fn cc_op() -> impl Strategy<Value = CcOp> {
    prop_oneof![
        4 => Just(CcOp::Tick),
        2 => (0u64..2000).prop_map(CcOp::Advance),
        6 => (1u32..9000, any::<bool>(), 0u64..40_000).prop_map(|(b, e, r)| CcOp::Ack(b, e, r)),
        1 => Just(CcOp::Nack),
        1 => Just(CcOp::Timeout),
        2 => (1u32..9000).prop_map(CcOp::Send),
        1 => (0u64..400_000).prop_map(CcOp::CanSend),
    ]
}

#[derive(Debug, Clone)]
enum PortOp {
    Tick,
    Advance(u64),
    Arrive(u32),
    Depart,
}

fn port_op() -> impl Strategy<Value = PortOp> {
    prop_oneof![
        3 => Just(PortOp::Tick),
        1 => (0u64..500).prop_map(PortOp::Advance),
        4 => (1u32..9000).prop_map(PortOp::Arrive),
        2 => Just(PortOp::Depart),
    ]
}

fn word336(h: *mut DcfabUnoCc) -> [u32; 11] {
    let mut w = [0u32; 11];
    assert_eq!(
        unsafe { dcfab_unocc_get_word336(h, w.as_mut_ptr()) },
        DCFAB_OK
    );
    w
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn unocc_abi_matches_the_block(ops in proptest::collection::vec(cc_op(), 1..200)) {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let live0 = dcfab_live_handles();
        let mut c = DcfabUnoCcConfig::from(cfg());
        prop_assert_eq!(unsafe { dcfab_unocc_config_uno(MTU, 175_000, 175_000, 14_000, 14_000, LINE_Q32, &mut c) }, DCFAB_OK);
        let h = unsafe { dcfab_unocc_new(&c) };
        prop_assert!(!h.is_null(), "new");
        let h2 = dcfab_unocc_new_uno(MTU, 175_000, 175_000, 14_000, 14_000, LINE_Q32);
        prop_assert!(!h2.is_null());
        let mut m = UnoCc::new(cfg(), 0).unwrap();
        for op in &ops {
            match *op {
                CcOp::Tick => {
                    prop_assert_eq!(dcfab_unocc_tick(h), DCFAB_OK);
                    prop_assert_eq!(dcfab_unocc_tick(h2), DCFAB_OK);
                    m.tick();
                }
                CcOp::Advance(n) => {
                    prop_assert_eq!(dcfab_unocc_advance(h, n), DCFAB_OK);
                    // The other handle ticks n times: same state.
                    for _ in 0..n { dcfab_unocc_tick(h2); }
                    m.advance(n);
                }
                CcOp::Ack(b, e, r) => {
                    let mut f = 0u32;
                    let mut f2 = 0u32;
                    prop_assert_eq!(unsafe { dcfab_unocc_on_ack(h, b, e as u8, r, &mut f) }, DCFAB_OK);
                    prop_assert_eq!(unsafe { dcfab_unocc_on_ack(h2, b, e as u8, r, &mut f2) }, DCFAB_OK);
                    let o = m.on_ack(m.now(), b, e, r);
                    let want = [(o.ai, DCFAB_UNOCC_AI), (o.epoch_end, DCFAB_UNOCC_EPOCH),
                        (o.md, DCFAB_UNOCC_MD), (o.gentle, DCFAB_UNOCC_GENTLE), (o.qa, DCFAB_UNOCC_QA)]
                        .iter().filter(|(on, _)| *on).fold(0, |a, (_, f)| a | f);
                    prop_assert_eq!(f, want);
                    prop_assert_eq!(f2, want);
                    // A bad ECN flag is an argument error and changes nothing.
                    prop_assert_eq!(unsafe { dcfab_unocc_on_ack(h, b, 2, r, &mut f) }, DCFAB_ERR_ARG);
                }
                CcOp::Nack => {
                    prop_assert_eq!(dcfab_unocc_on_nack(h), DCFAB_OK);
                    dcfab_unocc_on_nack(h2);
                    m.on_nack(m.now());
                }
                CcOp::Timeout => {
                    prop_assert_eq!(dcfab_unocc_on_timeout(h), DCFAB_OK);
                    dcfab_unocc_on_timeout(h2);
                    m.on_timeout(m.now());
                }
                CcOp::Send(b) => {
                    prop_assert_eq!(dcfab_unocc_on_send(h, b), DCFAB_OK);
                    dcfab_unocc_on_send(h2, b);
                    m.on_send(m.now(), b);
                }
                CcOp::CanSend(infl) => {
                    let mut can = 9u8;
                    prop_assert_eq!(unsafe { dcfab_unocc_can_send(h, infl, &mut can) }, DCFAB_OK);
                    prop_assert_eq!(can, m.can_send(infl) as u8);
                }
            }
            let (mut w, mut r, mut n) = (0, 0, 0);
            prop_assert_eq!(unsafe { dcfab_unocc_cwnd(h, &mut w, &mut r, &mut n) }, DCFAB_OK);
            prop_assert_eq!((w, r, n), (m.cwnd(), m.pacing_rate().0, m.next_send()));
            let mut now = 0;
            prop_assert_eq!(unsafe { dcfab_unocc_now(h, &mut now) }, DCFAB_OK);
            prop_assert_eq!(now, m.now());
            prop_assert_eq!(word336(h), word336(h2));
        }
        // The word: 42 bytes equal to the block's, the 336-bit form the same bits; a
        // set_word round-trips and a word with padding bits set is refused.
        let mut bytes = [0u8; 42];
        prop_assert_eq!(unsafe { dcfab_unocc_get_word(h, bytes.as_mut_ptr()) }, DCFAB_OK);
        prop_assert_eq!(bytes, m.state().pack().into_bytes());
        let w = word336(h);
        for (i, b) in bytes.iter().enumerate() {
            prop_assert_eq!((w[i / 4] >> (8 * (i % 4))) as u8, *b);
        }
        // Field positions of the documented layout: cwnd_q8 at bits 0..40, next_send at 282..330.
        let st = UnoCcState::unpack(UnoCcWord::from_bytes(bytes));
        let bit = |b: usize| (bytes[b / 8] >> (b % 8)) & 1;
        let cw: u64 = (0..40).map(|b| (bit(b) as u64) << b).sum();
        prop_assert_eq!(cw, st.cwnd_q8.value());
        let ns: u64 = (0..48).map(|b| (bit(282 + b) as u64) << b).sum();
        prop_assert_eq!(ns, st.next_send.value());
        prop_assert_eq!(unsafe { dcfab_unocc_set_word(h2, bytes.as_ptr()) }, DCFAB_OK);
        prop_assert_eq!(word336(h2), w);
        let mut bad = bytes;
        bad[41] |= 0x80;
        prop_assert_eq!(unsafe { dcfab_unocc_set_word(h2, bad.as_ptr()) }, DCFAB_ERR_ARG);
        prop_assert_eq!(word336(h2), w);
        // NULL pointers and handles.
        prop_assert_eq!(unsafe { dcfab_unocc_get_word(h, null_mut()) }, DCFAB_ERR_NULL_POINTER);
        prop_assert_eq!(unsafe { dcfab_unocc_cwnd(h, null_mut(), null_mut(), null_mut()) }, DCFAB_ERR_NULL_POINTER);
        prop_assert_eq!(dcfab_unocc_tick(null_mut()), DCFAB_ERR_NULL_HANDLE);
        let nul = unsafe { dcfab_unocc_new(null()) };
        prop_assert!(nul.is_null());
        // Wrong kind: a UnoCC handle passed as a port.
        let mut v = 0;
        prop_assert_eq!(unsafe { dcfab_uport_arrive(h as *mut DcfabUnoPort, 100, &mut v) }, DCFAB_ERR_WRONG_KIND);
        prop_assert_eq!(dcfab_unocc_free(h), DCFAB_OK);
        prop_assert_eq!(dcfab_unocc_free(h2), DCFAB_OK);
        // Freed: bad handle.
        prop_assert_eq!(dcfab_unocc_tick(h), DCFAB_ERR_BAD_HANDLE);
        prop_assert_eq!(dcfab_live_handles(), live0);
    }

    #[test]
    fn uport_abi_matches_the_block(mark in 0u32..3, seed: u32, ops in proptest::collection::vec(port_op(), 1..300)) {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let live0 = dcfab_live_handles();
        let h = dcfab_uport_new_uno(20_000, 50 << 32, 100_000, mark, seed);
        prop_assert!(!h.is_null());
        let mut ph = PhantomPortConfig::uno(Rate(50 << 32), 100_000).unwrap();
        ph.mark_on = [MarkOn::Physical, MarkOn::Phantom, MarkOn::Both][mark as usize];
        let mut m = OutputPortCtl::new(PortConfig { phantom: Some(ph), ..PortConfig::tail_drop(20_000) }).unwrap();
        let mut rng = Lfsr32::new(seed);
        let mut now = 0;
        let mut queued: std::collections::VecDeque<u32> = Default::default();
        for op in &ops {
            match *op {
                PortOp::Tick => { prop_assert_eq!(dcfab_uport_tick(h), DCFAB_OK); m.tick(); now += 1; }
                PortOp::Advance(n) => { prop_assert_eq!(dcfab_uport_advance(h, n), DCFAB_OK); m.advance(n); now += n; }
                PortOp::Arrive(b) => {
                    let mut v = 99;
                    prop_assert_eq!(unsafe { dcfab_uport_arrive(h, b, &mut v) }, DCFAB_OK);
                    let want = match m.on_arrival(now, b, &mut rng) {
                        Admit::Enqueue { ecn_mark } => { queued.push_back(b); ecn_mark as u32 }
                        Admit::Trim => DCFAB_UPORT_TRIM,
                        Admit::Drop => DCFAB_UPORT_DROP,
                    };
                    prop_assert_eq!(v, want);
                }
                PortOp::Depart => if let Some(b) = queued.pop_front() {
                    prop_assert_eq!(dcfab_uport_depart(h, b), DCFAB_OK);
                    m.on_departure(b);
                }
            }
            let (mut q, mut p, mut d, mut t, mut k) = (0, 0, 0, 0, 0);
            prop_assert_eq!(unsafe { dcfab_uport_state(h, &mut q, &mut p, &mut d, &mut t, &mut k) }, DCFAB_OK);
            prop_assert_eq!((q, p, d, t, k), (m.occupancy_bytes(), m.phantom_bytes(now).unwrap(), m.drops(), m.trims(), m.marks()));
        }
        prop_assert_eq!(unsafe { dcfab_uport_arrive(h, 1, null_mut()) }, DCFAB_ERR_NULL_POINTER);
        prop_assert_eq!(dcfab_uport_free(h), DCFAB_OK);
        prop_assert_eq!(dcfab_uport_tick(h), DCFAB_ERR_BAD_HANDLE);
        prop_assert_eq!(dcfab_live_handles(), live0);
    }
}

#[test]
fn bad_configs_name_the_field() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let live0 = dcfab_live_handles();
    let last = || {
        unsafe { std::ffi::CStr::from_ptr(dcfab_last_error()) }
            .to_string_lossy()
            .into_owned()
    };
    let mut c = DcfabUnoCcConfig::from(cfg());
    c.ewma_shift = 99;
    assert!(unsafe { dcfab_unocc_new(&c) }.is_null());
    assert!(last().contains("ewma_shift"), "{}", last());
    c = DcfabUnoCcConfig::from(cfg());
    c.base_rtt = 0;
    assert!(unsafe { dcfab_unocc_new(&c) }.is_null());
    assert!(last().contains("base_rtt"), "{}", last());
    c = DcfabUnoCcConfig::from(cfg());
    c.flags = 4;
    assert!(unsafe { dcfab_unocc_new(&c) }.is_null());
    assert!(last().contains("flags"), "{}", last());
    // The two rule flags round-trip through the C struct.
    let mut r = cfg();
    r.trend_ai = true;
    r.gentle_fixed = true;
    assert_eq!(DcfabUnoCcConfig::from(r).flags, 3);
    assert!(dcfab_uport_new_uno(20_000, 50 << 32, 100_000, 7, 1).is_null());
    assert!(last().contains("mark_on"), "{}", last());
    assert!(dcfab_uport_new_uno(20_000, 50 << 32, 0, 1, 1).is_null());
    assert!(last().contains("cap_bytes"), "{}", last());
    assert_eq!(dcfab_live_handles(), live0);
}
