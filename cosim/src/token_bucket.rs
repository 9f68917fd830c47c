//! C ABI of [`rtl_models::TokenBucket`] (prefix `dcfab_tb_`).
//!
//! Per cycle: optionally one `dcfab_tb_try_take` (the cycle's input; `granted` is the
//! combinational output), then `dcfab_tb_tick` (the clock edge: refill by `rate_q32`,
//! capped at `depth`). Quantities: tokens, rate in tokens per cycle as unsigned Q32.32,
//! the fill level as Q32.32 tokens.

use rtl_models::{Clocked, Rate, TokenBucket};

use crate::entry::{call, construct, flag, input, on, out};
use crate::handle;
use crate::status::Error;

/// Opaque handle of a token bucket (never dereferenced; see `dcfab_tb_new`).
pub struct DcfabTokenBucket {
    _private: [u8; 0],
}

/// Configuration of a token bucket.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabTokenBucketConfig {
    /// Refill rate in tokens per cycle, unsigned Q32.32 (1.0 = 1 << 32).
    pub rate_q32: u64,
    /// Capacity in whole tokens; at least 1.
    pub depth: u32,
    /// 1: start full; 0: start empty.
    pub start_full: u8,
}

pub(crate) fn build(cfg: &DcfabTokenBucketConfig) -> Result<TokenBucket, Error> {
    let full = flag(cfg.start_full, "start_full")?;
    let rate = Rate(cfg.rate_q32);
    let b = if full {
        TokenBucket::new(rate, cfg.depth)
    } else {
        TokenBucket::new_empty(rate, cfg.depth)
    };
    b.ok_or_else(|| Error::config("depth", "must be at least 1"))
}

/// A new token bucket; NULL on a bad config (see `dcfab_last_error`).
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabTokenBucketConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_tb_new(cfg: *const DcfabTokenBucketConfig) -> *mut DcfabTokenBucket {
    construct("dcfab_tb_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build(cfg)?)
    })
}

/// `dcfab_tb_new` with the config fields as arguments (for SystemVerilog DPI-C).
#[no_mangle]
pub extern "C" fn dcfab_tb_new_flat(
    rate_q32: u64,
    depth: u32,
    start_full: u8,
) -> *mut DcfabTokenBucket {
    let cfg = DcfabTokenBucketConfig {
        rate_q32,
        depth,
        start_full,
    };
    construct("dcfab_tb_new_flat", || handle::insert(build(&cfg)?))
}

/// Free a token bucket; the handle (and every copy of it) becomes invalid.
#[no_mangle]
pub extern "C" fn dcfab_tb_free(h: *mut DcfabTokenBucket) -> i32 {
    call("dcfab_tb_free", || {
        handle::remove::<TokenBucket>(handle::from_ptr(h))
    })
}

/// Per-cycle input: take `n` tokens if available; `*granted` = 1 if taken, else 0.
///
/// # Safety
/// `granted` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_tb_try_take(
    h: *mut DcfabTokenBucket,
    n: u32,
    granted: *mut u8,
) -> i32 {
    on("dcfab_tb_try_take", h, |b: &mut TokenBucket| {
        // SAFETY: forwarded caller contract.
        let g = unsafe { out(granted, "granted") }?;
        *g = b.try_take(n) as u8;
        Ok(())
    })
}

/// Clock edge: close the current cycle (refill).
#[no_mangle]
pub extern "C" fn dcfab_tb_tick(h: *mut DcfabTokenBucket) -> i32 {
    on("dcfab_tb_tick", h, |b: &mut TokenBucket| {
        b.tick();
        Ok(())
    })
}

/// Jump over `cycles` idle cycles (equal to `cycles` calls of `dcfab_tb_tick`).
#[no_mangle]
pub extern "C" fn dcfab_tb_advance(h: *mut DcfabTokenBucket, cycles: u64) -> i32 {
    on("dcfab_tb_advance", h, |b: &mut TokenBucket| {
        b.advance(cycles);
        Ok(())
    })
}

/// Whether `n` tokens are available now (`*out` = 0 or 1); no side effect.
///
/// # Safety
/// `out` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_tb_can_take(
    h: *mut DcfabTokenBucket,
    n: u32,
    out_can: *mut u8,
) -> i32 {
    on("dcfab_tb_can_take", h, |b: &mut TokenBucket| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_can, "out_can") }? = b.can_take(n) as u8;
        Ok(())
    })
}

/// Whole tokens available now.
///
/// # Safety
/// `out_tokens` must be NULL or valid for one `uint32_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_tb_tokens(h: *mut DcfabTokenBucket, out_tokens: *mut u32) -> i32 {
    on("dcfab_tb_tokens", h, |b: &mut TokenBucket| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_tokens, "out_tokens") }? = b.tokens();
        Ok(())
    })
}

/// The fill level in Q32.32 tokens (the block's whole state).
///
/// # Safety
/// `out_q32` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_tb_tokens_q32(h: *mut DcfabTokenBucket, out_q32: *mut u64) -> i32 {
    on("dcfab_tb_tokens_q32", h, |b: &mut TokenBucket| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_q32, "out_q32") }? = b.tokens_q();
        Ok(())
    })
}

/// Idle cycles until `n` tokens are available (0 if already; `UINT64_MAX` if never:
/// rate zero or `n` above the depth).
///
/// # Safety
/// `out_cycles` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_tb_cycles_until(
    h: *mut DcfabTokenBucket,
    n: u32,
    out_cycles: *mut u64,
) -> i32 {
    on("dcfab_tb_cycles_until", h, |b: &mut TokenBucket| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_cycles, "out_cycles") }? = b.cycles_until(n).unwrap_or(u64::MAX);
        Ok(())
    })
}
