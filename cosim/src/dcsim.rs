//! C ABI of the DCSIM output-port arbiter (prefix `dcfab_dcsim_`): four queues (SIM,
//! SIM-ACK, DATA-ACK, DATA), strict priority without preemption, SIM token bucket of rate
//! `1 / (ceil(L/W) + h * ceil(l/W))` and depth 2 (DCSIM section 2.3, Eq. 2, Theorem 3).
//!
//! The block is [`switch::dcsim::DefaultDcsimArbiter`]: small queues of 12 slots, 64 DATA
//! descriptor slots, `uint32_t` descriptors (the caller's packet tag, returned on departure).
//!
//! Per cycle: any `dcfab_dcsim_enqueue` calls (this cycle's arrivals; an idle line can start
//! one of them in the same cycle), then `dcfab_dcsim_tick` (arbitrate, start at most one
//! packet, refill the bucket); `dcfab_dcsim_last_started` reads the packet that started in
//! the cycle just closed. Classes are `DCFAB_CLASS_*` (0 = SIM ... 3 = DATA, the priority
//! order). Units: bytes, cycles of the port clock, Q32.32 tokens.

use switch::dcsim::{Class, DcsimArbiterConfig, DefaultDcsimArbiter, Enqueue};

use crate::entry::{call, construct, input, on, out};
use crate::handle;
use crate::status::Error;

/// Class SIM (highest priority, token-gated).
pub const DCFAB_CLASS_SIM: u32 = 0;
/// Class SIM-ACK.
pub const DCFAB_CLASS_SIM_ACK: u32 = 1;
/// Class DATA-ACK.
pub const DCFAB_CLASS_DATA_ACK: u32 = 2;
/// Class DATA (lowest priority).
pub const DCFAB_CLASS_DATA: u32 = 3;

/// `dcfab_dcsim_enqueue` result: stored in its queue.
pub const DCFAB_ENQ_ACCEPTED: u32 = 0;
/// `dcfab_dcsim_enqueue` result: its queue (or the DATA buffer) was full; dropped, counted.
pub const DCFAB_ENQ_DROPPED: u32 = 1;
/// `dcfab_dcsim_enqueue` result: malformed (longer than 65535 line cycles); dropped, counted.
pub const DCFAB_ENQ_REJECTED: u32 = 2;

/// Opaque handle of a DCSIM port arbiter.
pub struct DcfabDcsimArbiter {
    _private: [u8; 0],
}

/// Configuration of a DCSIM port arbiter (`dcfab_dcsim_config_default` gives the paper's).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabDcsimConfig {
    /// Datapath width `W`, bytes per cycle (at least 1).
    pub bytes_per_cycle: u32,
    /// Small-packet size `l` (SIM, SIM-ACK, DATA-ACK), bytes.
    pub small_bytes: u32,
    /// DATA size `L`, bytes (at least `small_bytes`).
    pub data_bytes: u32,
    /// Token-rate factor `h` in thousandths (2100 = Eq. 2, 1000 = Eq. 1).
    pub h_milli: u32,
    /// Token-bucket depth, tokens (Theorem 3: 2).
    pub bucket_depth: u32,
    /// `B`: packets each small queue holds, 1..=12.
    pub small_queue_pkts: u32,
    /// Port clock period, picoseconds (at least 1).
    pub period_ps: u64,
    /// Port buffer, bytes; DATA gets `port_buffer_bytes - 3 * B * small_bytes`.
    pub port_buffer_bytes: u64,
}

impl From<DcsimArbiterConfig> for DcfabDcsimConfig {
    fn from(c: DcsimArbiterConfig) -> Self {
        DcfabDcsimConfig {
            bytes_per_cycle: c.bytes_per_cycle,
            small_bytes: c.small_bytes,
            data_bytes: c.data_bytes,
            h_milli: c.h_milli,
            bucket_depth: c.bucket_depth,
            small_queue_pkts: c.small_queue_pkts,
            period_ps: c.clock.period_ps,
            port_buffer_bytes: c.port_buffer_bytes,
        }
    }
}

pub(crate) fn build(cfg: &DcfabDcsimConfig) -> Result<DefaultDcsimArbiter, Error> {
    let c = DcsimArbiterConfig {
        bytes_per_cycle: cfg.bytes_per_cycle,
        clock: rtl_models::Clock {
            period_ps: cfg.period_ps,
        },
        small_bytes: cfg.small_bytes,
        data_bytes: cfg.data_bytes,
        h_milli: cfg.h_milli,
        bucket_depth: cfg.bucket_depth,
        small_queue_pkts: cfg.small_queue_pkts,
        port_buffer_bytes: cfg.port_buffer_bytes,
    };
    DefaultDcsimArbiter::new(c).map_err(|e| {
        let field = if e.field == "clock.period_ps" {
            "period_ps"
        } else {
            e.field
        };
        Error::config(field, e.problem)
    })
}

fn class(c: u32) -> Result<Class, Error> {
    Class::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| Error::arg("class", format_args!("{c} is not 0..=3")))
}

/// Write the paper's configuration (800 Gb/s as 64 B at 1.5625 GHz, l = 64 B, L = 9000 B,
/// h = 2.1, depth 2, B = 12, 500 KB) to `*out_cfg`.
///
/// # Safety
/// `out_cfg` must be NULL or valid for one `DcfabDcsimConfig` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_config_default(out_cfg: *mut DcfabDcsimConfig) -> i32 {
    call("dcfab_dcsim_config_default", || {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_cfg, "out_cfg") }? = DcsimArbiterConfig::default().into();
        Ok(())
    })
}

/// A new port at cycle 0 (queues empty, bucket full); NULL on a bad config.
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabDcsimConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_new(cfg: *const DcfabDcsimConfig) -> *mut DcfabDcsimArbiter {
    construct("dcfab_dcsim_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build(cfg)?)
    })
}

/// `dcfab_dcsim_new` with the config fields as arguments (for SystemVerilog DPI-C).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn dcfab_dcsim_new_flat(
    bytes_per_cycle: u32,
    small_bytes: u32,
    data_bytes: u32,
    h_milli: u32,
    bucket_depth: u32,
    small_queue_pkts: u32,
    period_ps: u64,
    port_buffer_bytes: u64,
) -> *mut DcfabDcsimArbiter {
    let cfg = DcfabDcsimConfig {
        bytes_per_cycle,
        small_bytes,
        data_bytes,
        h_milli,
        bucket_depth,
        small_queue_pkts,
        period_ps,
        port_buffer_bytes,
    };
    construct("dcfab_dcsim_new_flat", || handle::insert(build(&cfg)?))
}

/// Free a port; the handle (and every copy of it) becomes invalid.
#[no_mangle]
pub extern "C" fn dcfab_dcsim_free(h: *mut DcfabDcsimArbiter) -> i32 {
    call("dcfab_dcsim_free", || {
        handle::remove::<DefaultDcsimArbiter>(handle::from_ptr(h))
    })
}

/// Per-cycle input: a `bytes`-byte packet of `class` (0..=3) with descriptor `desc`
/// arrives; `*out_result` = `DCFAB_ENQ_ACCEPTED`, `_DROPPED` or `_REJECTED`.
///
/// # Safety
/// `out_result` must be NULL or valid for one `uint32_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_enqueue(
    h: *mut DcfabDcsimArbiter,
    class_: u32,
    desc: u32,
    bytes: u32,
    out_result: *mut u32,
) -> i32 {
    on("dcfab_dcsim_enqueue", h, |a: &mut DefaultDcsimArbiter| {
        let c = class(class_)?;
        // SAFETY: forwarded caller contract.
        let o = unsafe { out(out_result, "out_result") }?;
        *o = match a.enqueue(c, desc, bytes) {
            Enqueue::Accepted => DCFAB_ENQ_ACCEPTED,
            Enqueue::Dropped => DCFAB_ENQ_DROPPED,
            Enqueue::Rejected => DCFAB_ENQ_REJECTED,
        };
        Ok(())
    })
}

/// Clock edge: arbitrate (only if the line is free), start at most one packet, refill.
#[no_mangle]
pub extern "C" fn dcfab_dcsim_tick(h: *mut DcfabDcsimArbiter) -> i32 {
    on("dcfab_dcsim_tick", h, |a: &mut DefaultDcsimArbiter| {
        if a.now() >= DCFAB_DCSIM_MAX_CYCLE {
            return Err(Error::arg("h", "the port reached DCFAB_DCSIM_MAX_CYCLE"));
        }
        a.step();
        Ok(())
    })
}

/// Largest cycle count a port may reach (`dcfab_dcsim_advance` beyond it is
/// `DCFAB_ERR_ARG`), so its 64-bit cycle arithmetic can never overflow.
pub const DCFAB_DCSIM_MAX_CYCLE: u64 = 4_611_686_018_427_387_904;

/// Close `cycles` cycles with no arrivals (equal to `cycles` ticks, in O(departures)).
/// `DCFAB_ERR_ARG` if the port's cycle count would pass `DCFAB_DCSIM_MAX_CYCLE`.
#[no_mangle]
pub extern "C" fn dcfab_dcsim_advance(h: *mut DcfabDcsimArbiter, cycles: u64) -> i32 {
    on("dcfab_dcsim_advance", h, |a: &mut DefaultDcsimArbiter| {
        if cycles > DCFAB_DCSIM_MAX_CYCLE - a.now() {
            return Err(Error::arg(
                "cycles",
                format_args!("now + cycles would pass DCFAB_DCSIM_MAX_CYCLE (2^62)"),
            ));
        }
        rtl_models::Clocked::advance(a, cycles);
        Ok(())
    })
}

/// The packet that started in the cycle just closed: `*out_valid` = 1 and its class,
/// descriptor, size (bytes) and line occupancy (cycles); `*out_valid` = 0 (others 0) if none.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_last_started(
    h: *mut DcfabDcsimArbiter,
    out_valid: *mut u8,
    out_class: *mut u32,
    out_desc: *mut u32,
    out_bytes: *mut u32,
    out_cycles: *mut u32,
) -> i32 {
    on(
        "dcfab_dcsim_last_started",
        h,
        |a: &mut DefaultDcsimArbiter| {
            // SAFETY: forwarded caller contract.
            let (v, c, d, b, n) = unsafe {
                (
                    out(out_valid, "out_valid")?,
                    out(out_class, "out_class")?,
                    out(out_desc, "out_desc")?,
                    out(out_bytes, "out_bytes")?,
                    out(out_cycles, "out_cycles")?,
                )
            };
            let s = a.last_started();
            *v = s.is_some() as u8;
            *c = s.map_or(0, |s| s.class.index() as u32);
            *d = s.map_or(0, |s| s.desc);
            *b = s.map_or(0, |s| s.bytes);
            *n = s.map_or(0, |s| s.cycles);
            Ok(())
        },
    )
}

/// Event model: the packet that starts next if nothing else arrives, and its start cycle
/// (`*out_valid` = 0 when every queue is empty). No state changes.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_next_departure(
    h: *mut DcfabDcsimArbiter,
    out_valid: *mut u8,
    out_class: *mut u32,
    out_desc: *mut u32,
    out_start: *mut u64,
) -> i32 {
    on(
        "dcfab_dcsim_next_departure",
        h,
        |a: &mut DefaultDcsimArbiter| {
            // SAFETY: forwarded caller contract.
            let (v, c, d, t) = unsafe {
                (
                    out(out_valid, "out_valid")?,
                    out(out_class, "out_class")?,
                    out(out_desc, "out_desc")?,
                    out(out_start, "out_start")?,
                )
            };
            let n = a.next_departure();
            *v = n.is_some() as u8;
            *c = n.map_or(0, |n| n.class.index() as u32);
            *d = n.map_or(0, |n| n.desc);
            *t = n.map_or(0, |n| n.start);
            Ok(())
        },
    )
}

/// The port's control registers (its packed hardware state): token fill (Q32.32), busy
/// cycles remaining, the three small-queue occupancies, DATA descriptors and bytes queued,
/// and the saturating SIM / DATA drop counters.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dcfab_dcsim_regs(
    h: *mut DcfabDcsimArbiter,
    out_tokens_q32: *mut u64,
    out_busy_remaining: *mut u32,
    out_sim_len: *mut u32,
    out_sim_ack_len: *mut u32,
    out_data_ack_len: *mut u32,
    out_data_len: *mut u32,
    out_data_bytes: *mut u32,
    out_sim_drops: *mut u32,
    out_data_drops: *mut u32,
) -> i32 {
    on("dcfab_dcsim_regs", h, |a: &mut DefaultDcsimArbiter| {
        // SAFETY: forwarded caller contract.
        let o = unsafe {
            (
                out(out_tokens_q32, "out_tokens_q32")?,
                out(out_busy_remaining, "out_busy_remaining")?,
                out(out_sim_len, "out_sim_len")?,
                out(out_sim_ack_len, "out_sim_ack_len")?,
                out(out_data_ack_len, "out_data_ack_len")?,
                out(out_data_len, "out_data_len")?,
                out(out_data_bytes, "out_data_bytes")?,
                out(out_sim_drops, "out_sim_drops")?,
                out(out_data_drops, "out_data_drops")?,
            )
        };
        let r = a.regs();
        *o.0 = r.tokens_q;
        *o.1 = r.busy_remaining as u32;
        *o.2 = r.sim_len as u32;
        *o.3 = r.sim_ack_len as u32;
        *o.4 = r.data_ack_len as u32;
        *o.5 = r.data_len as u32;
        *o.6 = r.data_bytes;
        *o.7 = r.sim_drops;
        *o.8 = r.data_drops;
        Ok(())
    })
}

/// Packets queued in `class`'s queue and their bytes.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_queue(
    h: *mut DcfabDcsimArbiter,
    class_: u32,
    out_len: *mut u32,
    out_bytes: *mut u64,
) -> i32 {
    on("dcfab_dcsim_queue", h, |a: &mut DefaultDcsimArbiter| {
        let c = class(class_)?;
        // SAFETY: forwarded caller contract.
        let (l, b) = unsafe { (out(out_len, "out_len")?, out(out_bytes, "out_bytes")?) };
        *l = a.queue_len(c) as u32;
        *b = a.queue_bytes(c);
        Ok(())
    })
}

/// Per-class counters: packets accepted, dropped (full), rejected (malformed), departed.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_counts(
    h: *mut DcfabDcsimArbiter,
    class_: u32,
    out_accepted: *mut u64,
    out_dropped: *mut u64,
    out_rejected: *mut u64,
    out_departed: *mut u64,
) -> i32 {
    on("dcfab_dcsim_counts", h, |a: &mut DefaultDcsimArbiter| {
        let k = class(class_)?.index();
        // SAFETY: forwarded caller contract.
        let o = unsafe {
            (
                out(out_accepted, "out_accepted")?,
                out(out_dropped, "out_dropped")?,
                out(out_rejected, "out_rejected")?,
                out(out_departed, "out_departed")?,
            )
        };
        let s = a.stats();
        *o.0 = s.accepted[k];
        *o.1 = s.dropped[k];
        *o.2 = s.rejected[k];
        *o.3 = s.departed[k];
        Ok(())
    })
}

/// The cycle in progress, whether the line is busy in it, and the configured SIM token
/// rate (Q32.32 tokens per cycle, Eq. 2 rounded up).
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_dcsim_status(
    h: *mut DcfabDcsimArbiter,
    out_now: *mut u64,
    out_line_busy: *mut u8,
    out_token_rate_q32: *mut u64,
) -> i32 {
    on("dcfab_dcsim_status", h, |a: &mut DefaultDcsimArbiter| {
        // SAFETY: forwarded caller contract.
        let o = unsafe {
            (
                out(out_now, "out_now")?,
                out(out_line_busy, "out_line_busy")?,
                out(out_token_rate_q32, "out_token_rate_q32")?,
            )
        };
        *o.0 = a.now();
        *o.1 = a.line_busy() as u8;
        *o.2 = a.bucket().rate().0;
        Ok(())
    })
}
