//! The edges of the C ABI the property tests (`ffi_props.rs`, `ffi_uno.rs`,
//! `ffi_zeropod.rs`) do not reach: the entries no other test calls (`dcfab_uport_new`,
//! `dcfab_unocc_set_word336`, `dcfab_reps_set_now`, the `*_config_default`s, the status
//! names), NULL output pointers of every Uno / Zeropod reader, out-of-range indices, and
//! use after free and double free of the Uno, Uno-port, REPS and Zeropod handles. Each
//! call returns a status (a panic across `extern "C"` would abort this test).
//!
//! One `#[test]`: the live-handle count is process-global.

use dcfab_cosim::*;
use std::ffi::CStr;
use std::ptr::{null, null_mut};

fn last_error() -> String {
    unsafe { CStr::from_ptr(dcfab_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn name(status: i32) -> String {
    unsafe { CStr::from_ptr(dcfab_status_name(status)) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn every_entry_survives_null_stale_and_out_of_range_arguments() {
    let live0 = dcfab_live_handles();

    // Status names and versions: never NULL, unknown codes named as such.
    for s in [i32::MIN, -9, 1, 42, i32::MAX] {
        assert_eq!(name(s), "DCFAB_UNKNOWN_STATUS", "{s}");
    }
    for s in -8..=0 {
        assert!(name(s).starts_with("DCFAB_") && name(s) != "DCFAB_UNKNOWN_STATUS");
    }
    assert_eq!(dcfab_abi_version(), DCFAB_ABI_VERSION);
    assert!(!unsafe { CStr::from_ptr(dcfab_version()) }
        .to_bytes()
        .is_empty());

    // Config defaults into NULL.
    assert_eq!(
        unsafe { dcfab_dcsim_config_default(null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { dcfab_reps_config_default(null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );

    // REPS: set_now on NULL, live, freed, and a double free.
    let mut rc = std::mem::MaybeUninit::<DcfabRepsConfig>::uninit();
    assert_eq!(
        unsafe { dcfab_reps_config_default(rc.as_mut_ptr()) },
        DCFAB_OK
    );
    let rc = unsafe { rc.assume_init() };
    let r = unsafe { dcfab_reps_new(&rc) };
    assert!(!r.is_null(), "{}", last_error());
    assert_eq!(dcfab_reps_set_now(null_mut(), 5), DCFAB_ERR_NULL_HANDLE);
    assert_eq!(dcfab_reps_set_now(r, 5), DCFAB_OK);
    let mut now = 0;
    assert_eq!(unsafe { dcfab_reps_now(r, &mut now) }, DCFAB_OK);
    assert_eq!(now, 5);
    assert_eq!(dcfab_reps_set_now(r, u64::MAX), DCFAB_OK);
    assert_eq!(dcfab_reps_free(r), DCFAB_OK);
    assert_eq!(dcfab_reps_set_now(r, 5), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(dcfab_reps_free(r), DCFAB_ERR_BAD_HANDLE);

    // DCSIM: a config default builds a block; use after free and double free.
    let mut dc = std::mem::MaybeUninit::<DcfabDcsimConfig>::uninit();
    assert_eq!(
        unsafe { dcfab_dcsim_config_default(dc.as_mut_ptr()) },
        DCFAB_OK
    );
    let dc = unsafe { dc.assume_init() };
    let d = unsafe { dcfab_dcsim_new(&dc) };
    assert!(!d.is_null(), "{}", last_error());
    assert_eq!(dcfab_dcsim_free(d), DCFAB_OK);
    assert_eq!(dcfab_dcsim_tick(d), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(dcfab_dcsim_free(d), DCFAB_ERR_BAD_HANDLE);

    // UnoCC: the eleven-word state in and out, NULL pointers, stale handle, double free.
    let cc = dcfab_unocc_new_uno(4096, 175_000, 175_000, 14_000, 14_000, 25 << 31);
    assert!(!cc.is_null(), "{}", last_error());
    let mut words = [0u32; 11];
    assert_eq!(
        unsafe { dcfab_unocc_get_word336(cc, words.as_mut_ptr()) },
        DCFAB_OK
    );
    assert_eq!(
        unsafe { dcfab_unocc_set_word336(cc, words.as_ptr()) },
        DCFAB_OK
    );
    let mut back = [1u32; 11];
    assert_eq!(
        unsafe { dcfab_unocc_get_word336(cc, back.as_mut_ptr()) },
        DCFAB_OK
    );
    assert_eq!(back, words);
    // Padding bits 330..336 must be zero.
    let mut bad = words;
    bad[10] |= 1 << 31;
    assert_eq!(
        unsafe { dcfab_unocc_set_word336(cc, bad.as_ptr()) },
        DCFAB_ERR_ARG
    );
    assert_eq!(
        unsafe { dcfab_unocc_set_word336(cc, null()) },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { dcfab_unocc_get_word336(cc, null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { dcfab_unocc_set_word336(null_mut(), words.as_ptr()) },
        DCFAB_ERR_NULL_HANDLE
    );
    assert_eq!(
        unsafe { dcfab_unocc_now(cc, null_mut()) },
        DCFAB_ERR_NULL_POINTER,
        "{}",
        last_error()
    );
    assert_eq!(
        unsafe { dcfab_unocc_can_send(cc, u64::MAX, null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(dcfab_unocc_advance(cc, u64::MAX), DCFAB_OK);
    // The cycle count would wrap: refused, naming the argument.
    assert_eq!(dcfab_unocc_advance(cc, u64::MAX), DCFAB_ERR_ARG);
    assert!(last_error().contains("cycles"), "{}", last_error());
    assert!(dcfab_unocc_tick(cc) <= DCFAB_OK);
    assert_eq!(dcfab_unocc_free(cc), DCFAB_OK);
    assert_eq!(
        unsafe { dcfab_unocc_set_word336(cc, words.as_ptr()) },
        DCFAB_ERR_BAD_HANDLE
    );
    assert_eq!(dcfab_unocc_on_nack(cc), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(dcfab_unocc_free(cc), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(dcfab_unocc_free(null_mut()), DCFAB_ERR_NULL_HANDLE);

    // Uno port: the config-struct constructor with NULL, NULL outputs, stale, double free.
    assert!(unsafe { dcfab_uport_new(null()) }.is_null());
    assert!(!last_error().is_empty());
    let p = dcfab_uport_new_uno(20_000, 50 << 32, 100_000, 1, 1);
    assert!(!p.is_null(), "{}", last_error());
    let mut v = 0u64;
    assert_eq!(
        unsafe { dcfab_uport_state(p, null_mut(), &mut v, &mut v, &mut v, &mut v) },
        DCFAB_ERR_NULL_POINTER
    );
    let mut m = 0u32;
    // A packet larger than the buffer, and of zero bytes: a status, never a panic.
    assert!(unsafe { dcfab_uport_arrive(p, u32::MAX, &mut m) } <= DCFAB_OK);
    assert!(unsafe { dcfab_uport_arrive(p, 0, &mut m) } <= DCFAB_OK);
    // Departing bytes that were never queued.
    assert!(dcfab_uport_depart(p, u32::MAX) <= DCFAB_OK);
    assert_eq!(dcfab_uport_advance(p, u64::MAX), DCFAB_OK);
    // The cycle count would wrap: refused, naming the argument.
    assert_eq!(dcfab_uport_advance(p, u64::MAX), DCFAB_ERR_ARG);
    assert!(last_error().contains("cycles"), "{}", last_error());
    assert!(dcfab_uport_tick(p) <= DCFAB_OK);
    assert_eq!(dcfab_uport_free(p), DCFAB_OK);
    assert_eq!(
        unsafe { dcfab_uport_arrive(p, 100, &mut m) },
        DCFAB_ERR_BAD_HANDLE
    );
    assert_eq!(dcfab_uport_depart(p, 100), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(dcfab_uport_free(p), DCFAB_ERR_BAD_HANDLE);

    // Zeropod scheduler: NULL outputs, out-of-range indices, stale handle, double free.
    let z = dcfab_zp_sched_new_flat(0, 8, 7, 255, 6, 32, 4, 2, 2, 1, 1, 1);
    assert!(!z.is_null(), "{}", last_error());
    let (mut a, mut b, mut c, mut e) = (0u32, 0u32, 0u32, 0u32);
    let mut busy = 0u8;
    let mut cyc = 0u64;
    assert_eq!(
        unsafe { dcfab_zp_sched_status(z, null_mut(), &mut a, &mut b, &mut cyc) },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { dcfab_zp_sched_status(z, &mut busy, &mut a, &mut b, &mut cyc) },
        DCFAB_OK
    );
    assert_eq!(
        unsafe { dcfab_zp_sched_grant_count(z, null_mut(), &mut a) },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { dcfab_zp_sched_check(z, null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );
    let mut cell = [0u32; 10];
    // NULL output (the index may be refused first: no SCHD cell yet).
    assert!(unsafe { dcfab_zp_sched_schd(z, 0, null_mut()) } < DCFAB_OK);
    // No grants yet: index 0 and u32::MAX are out of range.
    for i in [0, u32::MAX] {
        assert_eq!(
            unsafe {
                dcfab_zp_sched_grant(
                    z, i, &mut a, &mut b, &mut c, &mut e, &mut a, &mut b, &mut c, &mut e,
                )
            },
            DCFAB_ERR_ARG,
            "grant {i}"
        );
    }
    assert!(unsafe { dcfab_zp_sched_schd(z, u32::MAX, cell.as_mut_ptr()) } < DCFAB_OK);
    assert!(dcfab_zp_sched_demand(z, 0, u32::MAX, u32::MAX, 1) < DCFAB_OK);
    assert!(dcfab_zp_sched_backpressure(z, u32::MAX, u32::MAX) < DCFAB_OK);
    assert!(dcfab_zp_sched_set_link_failed(z, u32::MAX, u32::MAX, u32::MAX, 1) < DCFAB_OK);
    assert!(dcfab_zp_sched_set_link_failed(z, 0, 0, 0, 2) < DCFAB_OK);
    assert_eq!(dcfab_zp_sched_free(z), DCFAB_OK);
    assert_eq!(dcfab_zp_sched_tick(z), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(
        unsafe { dcfab_zp_sched_check(z, &mut busy) },
        DCFAB_ERR_BAD_HANDLE
    );
    assert_eq!(dcfab_zp_sched_free(z), DCFAB_ERR_BAD_HANDLE);
    assert_eq!(dcfab_zp_sched_free(null_mut()), DCFAB_ERR_NULL_HANDLE);

    // Header pack / unpack: NULL in and out.
    assert_eq!(
        unsafe { dcfab_zp_header_pack(0, 0, 1, 0, 1, 1, 2, 3, 4, 5, null_mut()) },
        DCFAB_ERR_NULL_POINTER
    );
    let (mut f0, mut f1, mut f2, mut f3, mut f4) = (0u32, 0u32, 0u32, 0u32, 0u32);
    let (mut f5, mut f6, mut f7, mut f8) = (0u32, 0u32, 0u32, 0u32);
    assert_eq!(
        unsafe {
            dcfab_zp_header_unpack(
                null(),
                &mut busy,
                &mut f0,
                &mut f1,
                &mut f2,
                &mut f3,
                &mut f4,
                &mut f5,
                &mut f6,
                &mut f7,
                &mut f8,
            )
        },
        DCFAB_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { dcfab_zp_header_pack(0, 0, 1, 0, 1, 1, 2, 3, 4, 5, cell.as_mut_ptr()) },
        DCFAB_OK
    );
    assert_eq!(
        unsafe {
            dcfab_zp_header_unpack(
                cell.as_ptr(),
                null_mut(),
                &mut f0,
                &mut f1,
                &mut f2,
                &mut f3,
                &mut f4,
                &mut f5,
                &mut f6,
                &mut f7,
                &mut f8,
            )
        },
        DCFAB_ERR_NULL_POINTER
    );

    assert_eq!(dcfab_live_handles(), live0, "every handle freed");
}
