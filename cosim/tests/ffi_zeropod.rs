//! The Zeropod C ABI against the Rust blocks driven directly: the cell header packs and
//! unpacks exactly as `DataHeaderRepr`, the scheduler run through `dcfab_zp_sched_*` cycle
//! by cycle gives the same grants, SCHD cells and stages as `K8Scheduler` driven directly,
//! and bad handles, pointers and arguments are statuses, never panics.
//!
//! One `#[test]` on purpose: the live-handle count is process-global.

use std::ffi::CStr;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Grants compared over all cases (the comparison must have compared something).
static GRANTS: AtomicUsize = AtomicUsize::new(0);
/// Headers compared.
static HEADERS: AtomicUsize = AtomicUsize::new(0);

use dcfab_cosim::*;
use proptest::prelude::*;
use rtl_models::zeropod_cell::{DataHeader, DataHeaderRepr, RtsArrival, RtsRepr};
use rtl_models::Clocked;
use scheduler_asic::scheduler::{SchedulerConfig, StageLatency};
use scheduler_asic::K8Scheduler;

fn words(b: &[u8; 40]) -> [u32; 10] {
    let mut w = [0u32; 10];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    }
    w
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(dcfab_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn cfg(seed: u32) -> SchedulerConfig {
    SchedulerConfig {
        pod: 1,
        pods: 8,
        cores: 7,
        mice_core: Some(6),
        iterations: 6,
        epoch_slots: 32,
        requests_per_sender: 4,
        latency: StageLatency {
            request: 2,
            grant1: 2,
            grant2: 1,
            accept: 1,
        },
        seed,
    }
}

fn header_case(
    ports: Vec<u8>,
    ptr: u8,
    f: (bool, u8, u16, u16, u16, u32, u16),
) -> Result<(), TestCaseError> {
    let (sched, prio, src, dst, flow, seq, len) = f;
    let hops = ports.len() as u32;
    let packed_ports: u32 = ports
        .iter()
        .enumerate()
        .map(|(h, &p)| (p as u32) << (6 * h))
        .sum();
    let ptr = (ptr as u32).min(hops);
    let mut cell = [0u32; 10];
    let st = unsafe {
        dcfab_zp_header_pack(
            sched as u8,
            prio as u32,
            hops,
            ptr,
            packed_ports,
            src as u32,
            dst as u32,
            flow as u32,
            seq,
            len as u32,
            cell.as_mut_ptr(),
        )
    };
    prop_assert_eq!(st, DCFAB_OK, "{}", last_error());
    // Reference: the Rust repr.
    let mut route = rtl_models::zeropod_cell::Route::new(&ports).unwrap();
    for _ in 0..ptr {
        route = route.advanced();
    }
    let r = DataHeaderRepr {
        scheduled: sched,
        priority: arbitrary_int::u3::new(prio),
        route,
        src,
        dst,
        flow,
        seq,
        len: arbitrary_int::u10::new(len),
    };
    prop_assert_eq!(cell, words(&r.to_bytes()));
    let (mut s, mut pr, mut h, mut p, mut po, mut sr, mut d, mut fl, mut sq, mut l) =
        (0u8, 0u32, 0u32, 0u32, 0u32, 0u32, 0u32, 0u32, 0u32, 0u32);
    let st = unsafe {
        dcfab_zp_header_unpack(
            cell.as_ptr(),
            &mut s,
            &mut pr,
            &mut h,
            &mut p,
            &mut po,
            &mut sr,
            &mut d,
            &mut fl,
            &mut sq,
            &mut l,
        )
    };
    prop_assert_eq!(st, DCFAB_OK);
    prop_assert_eq!(
        (s != 0, pr, h, p, po, sr, d, fl, sq, l),
        (
            sched,
            prio as u32,
            hops,
            ptr,
            packed_ports,
            src as u32,
            dst as u32,
            flow as u32,
            seq,
            len as u32
        )
    );
    HEADERS.fetch_add(1, Ordering::Relaxed);
    prop_assert_eq!(
        DataHeaderRepr::parse(&DataHeader::new_unchecked(&r.to_bytes()[..])).unwrap(),
        r
    );
    Ok(())
}

fn sched_case(
    demands: Vec<(bool, u16, u16, u16)>,
    bp: (u8, u32),
    seed: u32,
) -> Result<(), TestCaseError> {
    let c = cfg(seed);
    let h = dcfab_zp_sched_new_flat(1, 8, 7, 6, 6, 32, 4, 2, 2, 1, 1, seed);
    prop_assert!(!h.is_null(), "{}", last_error());
    let mut r = Box::new(K8Scheduler::new(c).unwrap());
    prop_assert_eq!(dcfab_zp_sched_backpressure(h, bp.0 as u32, bp.1), DCFAB_OK);
    r.matrices.backpressure[bp.0 as usize] = bp.1;
    for &(core, src, dst, cells) in &demands {
        let src = if core { src % 7 } else { src % 16 };
        // Alternate the packed-RTS and the flat entry points.
        let mut rts = RtsRepr {
            from_core: core,
            src,
            n_arrivals: 1,
            ..RtsRepr::default()
        };
        if core {
            rts.backpressure = r.matrices.backpressure[src as usize];
        }
        rts.arrivals[0] = RtsArrival { dst, cells };
        let st = if cells % 2 == 0 {
            let w = words(&rts.to_bytes());
            unsafe { dcfab_zp_sched_rts(h, w.as_ptr()) }
        } else {
            dcfab_zp_sched_demand(h, core as u8, src as u32, dst as u32, cells as u32)
        };
        prop_assert_eq!(st, DCFAB_OK, "{}", last_error());
        r.on_rts(&rts);
    }
    for epoch in 0..3u32 {
        let mut started = 0u8;
        prop_assert_eq!(
            unsafe { dcfab_zp_sched_start(h, epoch, &mut started) },
            DCFAB_OK
        );
        prop_assert_eq!(started, 1);
        r.start_round(epoch as u16).unwrap();
        loop {
            let (mut busy, mut it, mut stage, mut cyc) = (0u8, 0u32, 0u32, 0u64);
            prop_assert_eq!(
                unsafe { dcfab_zp_sched_status(h, &mut busy, &mut it, &mut stage, &mut cyc) },
                DCFAB_OK
            );
            prop_assert_eq!(busy != 0, r.busy());
            prop_assert_eq!(cyc, r.round_cycles());
            if let Some((ri, _)) = r.stage() {
                prop_assert_eq!(it, ri as u32);
            }
            if busy == 0 {
                break;
            }
            prop_assert_eq!(dcfab_zp_sched_tick(h), DCFAB_OK);
            r.tick();
        }
        let (mut n, mut e) = (0u32, 0u32);
        prop_assert_eq!(
            unsafe { dcfab_zp_sched_grant_count(h, &mut n, &mut e) },
            DCFAB_OK
        );
        prop_assert_eq!((n as usize, e), (r.grants().len(), epoch));
        GRANTS.fetch_add(n as usize, Ordering::Relaxed);
        for (i, g) in r.grants().iter().enumerate() {
            let mut o = [0u32; 8];
            let [a, b, cc, d, ee, f, gg, hh] = &mut o;
            prop_assert_eq!(
                unsafe { dcfab_zp_sched_grant(h, i as u32, a, b, cc, d, ee, f, gg, hh) },
                DCFAB_OK
            );
            prop_assert_eq!(
                &o[..6],
                &[
                    g.traffic as u32,
                    g.src as u32,
                    g.dst as u32,
                    g.agg as u32,
                    g.core as u32,
                    g.volume as u32
                ][..]
            );
            let mut cell = [0u32; 10];
            prop_assert_eq!(
                unsafe { dcfab_zp_sched_schd(h, i as u32, cell.as_mut_ptr()) },
                DCFAB_OK
            );
            prop_assert_eq!(cell, words(&r.schd(g).to_bytes()));
        }
        let mut ok = 0u8;
        prop_assert_eq!(unsafe { dcfab_zp_sched_check(h, &mut ok) }, DCFAB_OK);
        prop_assert_eq!(ok, 1);
    }
    prop_assert_eq!(dcfab_zp_sched_free(h), DCFAB_OK);
    prop_assert_eq!(dcfab_zp_sched_tick(h), DCFAB_ERR_BAD_HANDLE, "freed handle");
    Ok(())
}

#[test]
fn zeropod_abi_matches_the_blocks() {
    let live0 = dcfab_live_handles();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(48));
    runner
        .run(
            &(
                prop::collection::vec(0u8..64, 0..=5),
                0u8..6,
                (
                    any::<bool>(),
                    0u8..8,
                    any::<u16>(),
                    any::<u16>(),
                    any::<u16>(),
                    any::<u32>(),
                    0u16..=512,
                ),
            ),
            |(p, ptr, f)| header_case(p, ptr, f),
        )
        .unwrap();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(48));
    runner
        .run(
            &(
                prop::collection::vec((any::<bool>(), 0u16..16, 0u16..128, 1u16..80), 0..40),
                (0u8..7, 0u32..256),
                1u32..10_000,
            ),
            |(d, bp, seed)| sched_case(d, bp, seed),
        )
        .unwrap();

    let compared = GRANTS.load(Ordering::Relaxed);
    eprintln!("grants compared: {compared}");
    assert!(compared > 100, "{compared}");
    assert_eq!(HEADERS.load(Ordering::Relaxed), 48);

    // Errors are statuses naming the culprit.
    assert!(dcfab_zp_sched_new_flat(0, 8, 7, 7, 6, 32, 4, 2, 2, 1, 1, 1).is_null());
    assert!(last_error().contains("mice_core"), "{}", last_error());
    assert!(dcfab_zp_sched_new_flat(0, 9, 7, 255, 6, 32, 4, 2, 2, 1, 1, 1).is_null());
    assert!(last_error().contains("pods"), "{}", last_error());
    let h = dcfab_zp_sched_new_flat(0, 8, 7, 255, 6, 32, 4, 2, 2, 1, 1, 1);
    assert!(!h.is_null());
    assert_eq!(
        unsafe { dcfab_zp_sched_rts(h, std::ptr::null()) },
        DCFAB_ERR_NULL_POINTER
    );
    let junk = [u32::MAX; 10];
    assert_eq!(
        unsafe { dcfab_zp_sched_rts(h, junk.as_ptr()) },
        DCFAB_ERR_ARG
    );
    assert_eq!(dcfab_zp_sched_demand(h, 2, 0, 1, 1), DCFAB_ERR_CONFIG);
    assert_eq!(dcfab_zp_sched_demand(h, 0, 0, 1, 70_000), DCFAB_ERR_ARG);
    assert!(last_error().contains("cells"));
    assert_eq!(dcfab_zp_sched_set_link_failed(h, 4, 0, 0, 1), DCFAB_ERR_ARG);
    assert_eq!(dcfab_zp_sched_set_link_failed(h, 0, 0, 1, 1), DCFAB_OK);
    assert_eq!(
        unsafe { dcfab_zp_sched_start(h, 0, null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );
    let mut o = [0u32; 8];
    let [a, b, c, d, e, f, g, hh] = &mut o;
    assert_eq!(
        unsafe { dcfab_zp_sched_grant(h, 0, a, b, c, d, e, f, g, hh) },
        DCFAB_ERR_ARG
    );
    let mut cell = [0u32; 10];
    assert_eq!(
        unsafe { dcfab_zp_header_pack(1, 8, 0, 0, 0, 0, 0, 0, 0, 0, cell.as_mut_ptr()) },
        DCFAB_ERR_ARG
    );
    assert!(last_error().contains("prio"));
    assert_eq!(
        unsafe { dcfab_zp_header_pack(1, 0, 1, 0, 1 << 6, 0, 0, 0, 0, 0, cell.as_mut_ptr()) },
        DCFAB_ERR_ARG
    );
    let tb = dcfab_tb_new_flat(1 << 30, 3, 1);
    assert!(!tb.is_null());
    assert_eq!(
        dcfab_zp_sched_tick(tb as *mut DcfabZpSched),
        DCFAB_ERR_WRONG_KIND
    );
    assert_eq!(dcfab_tb_free(tb), DCFAB_OK);
    assert_eq!(dcfab_zp_sched_free(h), DCFAB_OK);
    assert_eq!(dcfab_live_handles(), live0);
}
