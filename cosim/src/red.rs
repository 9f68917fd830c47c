//! C ABI of [`rtl_models::RedMarker`] (prefix `dcfab_red_`): RED/ECN marking, REPS 2.1 and
//! 4.1, Uno 5.1.
//!
//! The marker is stateless; its random draws come from a 32-bit Galois LFSR
//! ([`rtl_models::Lfsr32`]) held with it and seeded from the config, so an RTL design with
//! the same LFSR reproduces every decision. `dcfab_red_should_mark_with` takes the random
//! word from the caller instead (for an RTL design with its own random source).
//! Units: bytes; probabilities Q0.32 (2^32 = 1.0).

use rtl_models::{Clocked, Lfsr32, RandomSource, RedConfig, RedMarker};

use crate::entry::{call, construct, input, on, out};
use crate::handle;
use crate::status::Error;

/// Opaque handle of a RED/ECN marker.
pub struct DcfabRedMarker {
    _private: [u8; 0],
}

/// Configuration of a RED/ECN marker.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabRedConfig {
    /// Below this occupancy (bytes) a packet is never marked.
    pub kmin_bytes: u64,
    /// At or above this occupancy (bytes) a packet is always marked; `>= kmin_bytes`.
    pub kmax_bytes: u64,
    /// Marking probability just below `kmax_bytes`, Q0.32, at most 2^32 (= 1.0).
    pub pmax_q32: u64,
    /// Seed of the marker's LFSR (0 is replaced by 1).
    pub seed: u32,
}

/// A marker with its hardware random source.
pub(crate) struct Red {
    pub(crate) marker: RedMarker,
    pub(crate) rng: Lfsr32,
}

/// A random source that yields one caller-supplied word.
struct Given(u32);

impl RandomSource for Given {
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

pub(crate) fn build(cfg: &DcfabRedConfig) -> Result<Red, Error> {
    let marker = RedMarker::new(RedConfig {
        kmin_bytes: cfg.kmin_bytes,
        kmax_bytes: cfg.kmax_bytes,
        pmax_q32: cfg.pmax_q32,
    })
    .map_err(|e| Error::config(e.field, e.problem))?;
    Ok(Red {
        marker,
        rng: Lfsr32::new(cfg.seed),
    })
}

/// A new RED/ECN marker; NULL on a bad config (see `dcfab_last_error`).
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabRedConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_red_new(cfg: *const DcfabRedConfig) -> *mut DcfabRedMarker {
    construct("dcfab_red_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build(cfg)?)
    })
}

/// `dcfab_red_new` with the config fields as arguments (for SystemVerilog DPI-C).
#[no_mangle]
pub extern "C" fn dcfab_red_new_flat(
    kmin_bytes: u64,
    kmax_bytes: u64,
    pmax_q32: u64,
    seed: u32,
) -> *mut DcfabRedMarker {
    let cfg = DcfabRedConfig {
        kmin_bytes,
        kmax_bytes,
        pmax_q32,
        seed,
    };
    construct("dcfab_red_new_flat", || handle::insert(build(&cfg)?))
}

/// Free a marker; the handle (and every copy of it) becomes invalid.
#[no_mangle]
pub extern "C" fn dcfab_red_free(h: *mut DcfabRedMarker) -> i32 {
    call("dcfab_red_free", || {
        handle::remove::<Red>(handle::from_ptr(h))
    })
}

/// Whether a packet arriving at `queue_bytes` is marked; draws one LFSR word only when
/// `kmin_bytes <= queue_bytes < kmax_bytes`.
///
/// # Safety
/// `out_mark` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_red_should_mark(
    h: *mut DcfabRedMarker,
    queue_bytes: u64,
    out_mark: *mut u8,
) -> i32 {
    on("dcfab_red_should_mark", h, |r: &mut Red| {
        // SAFETY: forwarded caller contract.
        let o = unsafe { out(out_mark, "out_mark") }?;
        *o = r.marker.should_mark(queue_bytes, &mut r.rng) as u8;
        Ok(())
    })
}

/// `dcfab_red_should_mark` with the random word `rand32` supplied by the caller (the
/// marker's own LFSR is not clocked).
///
/// # Safety
/// `out_mark` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_red_should_mark_with(
    h: *mut DcfabRedMarker,
    queue_bytes: u64,
    rand32: u32,
    out_mark: *mut u8,
) -> i32 {
    on("dcfab_red_should_mark_with", h, |r: &mut Red| {
        // SAFETY: forwarded caller contract.
        let o = unsafe { out(out_mark, "out_mark") }?;
        *o = r.marker.should_mark(queue_bytes, &mut Given(rand32)) as u8;
        Ok(())
    })
}

/// Marking probability at `queue_bytes`, Q0.32 (2^32 = 1.0).
///
/// # Safety
/// `out_q32` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_red_probability_q32(
    h: *mut DcfabRedMarker,
    queue_bytes: u64,
    out_q32: *mut u64,
) -> i32 {
    on("dcfab_red_probability_q32", h, |r: &mut Red| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_q32, "out_q32") }? = r.marker.mark_probability_q32(queue_bytes);
        Ok(())
    })
}

/// The LFSR's current register value.
///
/// # Safety
/// `out_state` must be NULL or valid for one `uint32_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_red_lfsr_state(h: *mut DcfabRedMarker, out_state: *mut u32) -> i32 {
    on("dcfab_red_lfsr_state", h, |r: &mut Red| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_state, "out_state") }? = r.rng.state();
        Ok(())
    })
}

/// Clock edge (the marker is stateless: no effect; kept so every block ticks alike).
#[no_mangle]
pub extern "C" fn dcfab_red_tick(h: *mut DcfabRedMarker) -> i32 {
    on("dcfab_red_tick", h, |r: &mut Red| {
        r.marker.tick();
        Ok(())
    })
}
