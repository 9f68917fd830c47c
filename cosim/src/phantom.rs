//! C ABI of [`rtl_models::PhantomQueue`] (prefix `dcfab_pq_`), Uno section 4.1.3.
//!
//! Per cycle: any number of `dcfab_pq_on_enqueue` (bytes admitted to the physical queue
//! this cycle), then `dcfab_pq_tick` (drain one cycle's worth). Units: bytes; the level is
//! Q32.32 bytes; the drain rate is Q32.32 bytes per cycle.

use rtl_models::{Clocked, PhantomConfig, PhantomQueue, Rate};

use crate::entry::{call, construct, input, on, out};
use crate::handle;
use crate::status::Error;

/// Opaque handle of a phantom queue.
pub struct DcfabPhantomQueue {
    _private: [u8; 0],
}

/// Configuration of a phantom queue.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabPhantomConfig {
    /// Drain rate in bytes per cycle, unsigned Q32.32; above zero (Uno: 0.9 x line rate).
    pub drain_q32: u64,
    /// Largest level in bytes, 1 ..= 2^32 - 1.
    pub cap_bytes: u64,
}

pub(crate) fn build(cfg: &DcfabPhantomConfig) -> Result<PhantomQueue, Error> {
    PhantomQueue::from_config(PhantomConfig {
        drain: Rate(cfg.drain_q32),
        cap_bytes: cfg.cap_bytes,
    })
    .map_err(|e| {
        let field = if e.field == "drain" {
            "drain_q32"
        } else {
            e.field
        };
        Error::config(field, e.problem)
    })
}

/// A new, empty phantom queue; NULL on a bad config (see `dcfab_last_error`).
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabPhantomConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_pq_new(cfg: *const DcfabPhantomConfig) -> *mut DcfabPhantomQueue {
    construct("dcfab_pq_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build(cfg)?)
    })
}

/// `dcfab_pq_new` with the config fields as arguments (for SystemVerilog DPI-C).
#[no_mangle]
pub extern "C" fn dcfab_pq_new_flat(drain_q32: u64, cap_bytes: u64) -> *mut DcfabPhantomQueue {
    let cfg = DcfabPhantomConfig {
        drain_q32,
        cap_bytes,
    };
    construct("dcfab_pq_new_flat", || handle::insert(build(&cfg)?))
}

/// Free a phantom queue; the handle (and every copy of it) becomes invalid.
#[no_mangle]
pub extern "C" fn dcfab_pq_free(h: *mut DcfabPhantomQueue) -> i32 {
    call("dcfab_pq_free", || {
        handle::remove::<PhantomQueue>(handle::from_ptr(h))
    })
}

/// Per-cycle input: a packet of `bytes` entered the physical queue (level capped).
#[no_mangle]
pub extern "C" fn dcfab_pq_on_enqueue(h: *mut DcfabPhantomQueue, bytes: u32) -> i32 {
    on("dcfab_pq_on_enqueue", h, |q: &mut PhantomQueue| {
        q.on_enqueue(bytes);
        Ok(())
    })
}

/// Clock edge: drain one cycle's worth (saturating at 0).
#[no_mangle]
pub extern "C" fn dcfab_pq_tick(h: *mut DcfabPhantomQueue) -> i32 {
    on("dcfab_pq_tick", h, |q: &mut PhantomQueue| {
        q.tick();
        Ok(())
    })
}

/// Jump over `cycles` idle cycles (equal to `cycles` calls of `dcfab_pq_tick`).
#[no_mangle]
pub extern "C" fn dcfab_pq_advance(h: *mut DcfabPhantomQueue, cycles: u64) -> i32 {
    on("dcfab_pq_advance", h, |q: &mut PhantomQueue| {
        q.advance(cycles);
        Ok(())
    })
}

/// Empty the queue.
#[no_mangle]
pub extern "C" fn dcfab_pq_clear(h: *mut DcfabPhantomQueue) -> i32 {
    on("dcfab_pq_clear", h, |q: &mut PhantomQueue| {
        q.clear();
        Ok(())
    })
}

/// Occupancy in whole bytes (what the RED/ECN marker compares).
///
/// # Safety
/// `out_bytes` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_pq_occupancy(h: *mut DcfabPhantomQueue, out_bytes: *mut u64) -> i32 {
    on("dcfab_pq_occupancy", h, |q: &mut PhantomQueue| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_bytes, "out_bytes") }? = q.occupancy();
        Ok(())
    })
}

/// The level in Q32.32 bytes (the block's whole state).
///
/// # Safety
/// `out_q32` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_pq_level_q32(h: *mut DcfabPhantomQueue, out_q32: *mut u64) -> i32 {
    on("dcfab_pq_level_q32", h, |q: &mut PhantomQueue| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_q32, "out_q32") }? = q.level_q();
        Ok(())
    })
}

/// Idle cycles until the level is zero.
///
/// # Safety
/// `out_cycles` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_pq_cycles_until_empty(
    h: *mut DcfabPhantomQueue,
    out_cycles: *mut u64,
) -> i32 {
    on("dcfab_pq_cycles_until_empty", h, |q: &mut PhantomQueue| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_cycles, "out_cycles") }? = q.cycles_until_empty();
        Ok(())
    })
}
