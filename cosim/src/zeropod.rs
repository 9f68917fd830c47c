//! C ABI of the Zeropod blocks (prefix `dcfab_zp_`): the pipelined iterative scheduler of a
//! k = 8 pod ([`scheduler_asic::K8Scheduler`]: 16 hosts, up to 8 pods and 7 Cores; Zeropod
//! §IV-A3, Algorithm 1) and the 40 B cell formats ([`rtl_models::zeropod_cell`]).
//!
//! Cells cross the ABI as SystemVerilog `bit [319:0]`, i.e. ten `uint32_t` words: bit `b`
//! of the cell is bit `b % 32` of word `b / 32` (the same little-endian order as the bytes).
//! A route crosses as `hops` (0..=5) and `ports`, hop `h`'s output port in bits
//! `6h..6h+6`.
//!
//! Scheduler, per cycle: feed RTS (`dcfab_zp_sched_rts` with a packed cell, or the flat
//! `dcfab_zp_sched_demand`), mark failed links, `dcfab_zp_sched_start` an epoch when idle,
//! then `dcfab_zp_sched_tick` (one scheduler cycle; a phase evaluates on its last cycle).
//! When `busy` drops, `dcfab_zp_sched_grant*` read the epoch's grants and
//! `dcfab_zp_sched_schd` their SCHD cells. Traffic kinds: 0 E2E, 1 E2P, 2 C2E.

use rtl_models::zeropod_cell::{
    ControlCell, DataHeader, DataHeaderRepr, Route, RtsArrival, RtsRepr, HEADER_LEN, MAX_HOPS,
};
use rtl_models::Clocked;
use scheduler_asic::ports::PortStates;
use scheduler_asic::scheduler::{SchedulerConfig, Stage, StageLatency};
use scheduler_asic::{check_grants, Grant, K8Scheduler};

use crate::entry::{call, construct, flag, input, on, out};
use crate::handle;
use crate::status::Error;

/// 32-bit words of a 40 B cell as SystemVerilog `bit [319:0]`.
pub const DCFAB_ZP_CELL_WORDS: u32 = 10;
/// `mice_core` value meaning "no exclusive mice Core".
pub const DCFAB_ZP_NO_MICE_CORE: u32 = 255;
/// Half-radix of the pod this ABI schedules (k = 8).
pub const DCFAB_ZP_M: u32 = 4;

/// Opaque handle of a Zeropod scheduler.
pub struct DcfabZpSched {
    _private: [u8; 0],
}

fn cell_bytes(words: &[u32; 10]) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    for (i, w) in words.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    b
}

fn cell_words(b: &[u8; HEADER_LEN]) -> [u32; 10] {
    let mut w = [0u32; 10];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    }
    w
}

fn route_from(hops: u32, ports: u32) -> Result<Route, Error> {
    if hops as usize > MAX_HOPS {
        return Err(Error::arg("hops", format_args!("{hops} is not 0..=5")));
    }
    let p: Vec<u8> = (0..hops)
        .map(|h| ((ports >> (6 * h)) & 0x3f) as u8)
        .collect();
    if hops < 5 && ports >> (6 * hops) != 0 {
        return Err(Error::arg("ports", "bits set beyond the route length"));
    }
    Route::new(&p).map_err(|e| Error::arg("ports", e))
}

fn route_ports(r: &Route) -> u32 {
    r.ports
        .iter()
        .enumerate()
        .map(|(h, p)| (p.value() as u32) << (6 * h))
        .sum()
}

fn u16_arg(v: u32, name: &str) -> Result<u16, Error> {
    u16::try_from(v).map_err(|_| Error::arg(name, format_args!("{v} does not fit 16 bits")))
}

/// A new scheduler for pod `pod` of `pods` (1..=8), `cores` (0..=7) Cores, exclusive mice
/// Core `mice_core` (`DCFAB_ZP_NO_MICE_CORE` for none), `iterations` per round (§V-A: 6),
/// `epoch_slots` data slots per epoch, `requests_per_sender` (1..=16), phase latencies in
/// cycles, LFSR `seed`. NULL on a bad config (the last error names the field).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn dcfab_zp_sched_new_flat(
    pod: u32,
    pods: u32,
    cores: u32,
    mice_core: u32,
    iterations: u32,
    epoch_slots: u32,
    requests_per_sender: u32,
    lat_request: u32,
    lat_grant1: u32,
    lat_grant2: u32,
    lat_accept: u32,
    seed: u32,
) -> *mut DcfabZpSched {
    construct("dcfab_zp_sched_new_flat", || {
        let small = |v: u32, f: &str| {
            u8::try_from(v).map_err(|_| Error::config(f, format_args!("{v} does not fit 8 bits")))
        };
        let cfg = SchedulerConfig {
            pod: small(pod, "pod")?,
            pods: small(pods, "pods")?,
            cores: small(cores, "cores")?,
            mice_core: if mice_core == DCFAB_ZP_NO_MICE_CORE {
                None
            } else {
                Some(small(mice_core, "mice_core")?)
            },
            iterations: small(iterations, "iterations")?,
            epoch_slots: u16::try_from(epoch_slots)
                .map_err(|_| Error::config("epoch_slots", "does not fit 16 bits"))?,
            requests_per_sender: small(requests_per_sender, "requests_per_sender")?,
            latency: StageLatency {
                request: lat_request,
                grant1: lat_grant1,
                grant2: lat_grant2,
                accept: lat_accept,
            },
            seed,
        };
        let s = K8Scheduler::new(cfg).map_err(|e| Error::config(e.field, e.problem))?;
        handle::insert(s)
    })
}

/// Free a scheduler.
#[no_mangle]
pub extern "C" fn dcfab_zp_sched_free(h: *mut DcfabZpSched) -> i32 {
    call("dcfab_zp_sched_free", || {
        handle::remove::<K8Scheduler>(handle::from_ptr(h))
    })
}

/// Per-cycle input: a packed RTS cell (`bit [319:0]`). `DCFAB_ERR_ARG` if malformed.
///
/// # Safety
/// `rts_cell` must be NULL or point to 10 readable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_rts(h: *mut DcfabZpSched, rts_cell: *const u32) -> i32 {
    on("dcfab_zp_sched_rts", h, |s: &mut K8Scheduler| {
        // SAFETY: forwarded caller contract (10 words).
        let w = unsafe { input(rts_cell as *const [u32; 10], "rts_cell") }?;
        let b = cell_bytes(w);
        let r = RtsRepr::parse(&ControlCell::new_unchecked(&b[..]))
            .map_err(|e| Error::arg("rts_cell", e))?;
        s.on_rts(&r);
        Ok(())
    })
}

/// Per-cycle input, flat form of a one-arrival RTS: `cells` newly arrived at `src` (a host
/// of this pod, or Core `src` if `from_core`) for global host `dst`.
#[no_mangle]
pub extern "C" fn dcfab_zp_sched_demand(
    h: *mut DcfabZpSched,
    from_core: u8,
    src: u32,
    dst: u32,
    cells: u32,
) -> i32 {
    on("dcfab_zp_sched_demand", h, |s: &mut K8Scheduler| {
        let mut r = RtsRepr {
            from_core: flag(from_core, "from_core")?,
            src: u16_arg(src, "src")?,
            n_arrivals: 1,
            ..RtsRepr::default()
        };
        r.arrivals[0] = RtsArrival {
            dst: u16_arg(dst, "dst")?,
            cells: u16_arg(cells, "cells")?,
        };
        if r.from_core {
            // Keep the Core's last backpressure flags: this is a demand, not a full RTS.
            r.backpressure = s
                .matrices
                .backpressure
                .get(r.src as usize)
                .copied()
                .unwrap_or(0);
        }
        s.on_rts(&r);
        Ok(())
    })
}

/// Per-cycle input: Core `core`'s backpressure flags (bit `p` = no relay to pod `p`).
#[no_mangle]
pub extern "C" fn dcfab_zp_sched_backpressure(h: *mut DcfabZpSched, core: u32, mask: u32) -> i32 {
    on("dcfab_zp_sched_backpressure", h, |s: &mut K8Scheduler| {
        let c = s
            .matrices
            .backpressure
            .get_mut(core as usize)
            .ok_or_else(|| Error::arg("core", format_args!("{core} is not 0..7")))?;
        *c = mask;
        Ok(())
    })
}

/// Port state input: mark a link failed (1) or usable (0) for future rounds. `kind` 0: ToR
/// `a` -> Agg `b`; 1: Agg `a` -> ToR `b`; 2: Agg `a` -> its Core `a + b * 4`; 3: Core `a`
/// -> its Agg (`b` ignored).
#[no_mangle]
pub extern "C" fn dcfab_zp_sched_set_link_failed(
    h: *mut DcfabZpSched,
    kind: u32,
    a: u32,
    b: u32,
    failed: u8,
) -> i32 {
    on(
        "dcfab_zp_sched_set_link_failed",
        h,
        |s: &mut K8Scheduler| {
            let failed = flag(failed, "failed")?;
            let m = DCFAB_ZP_M;
            let (a, b) = (a as usize, b as usize);
            let mut p: PortStates<4> = s.failed_links();
            let (word, bit) = match kind {
                0 if a < 4 && b < 4 => (&mut p.tor_up[a], b),
                1 if a < 4 && b < 4 => (&mut p.agg_down[a], b),
                2 if a < 4 && b < 4 => (&mut p.agg_up[a], b),
                3 if a < 7 => (&mut p.core_down, a),
                _ => {
                    return Err(Error::arg(
                        "kind/a/b",
                        format_args!("no link ({kind}, {a}, {b}) in a pod of M = {m}"),
                    ))
                }
            };
            if failed {
                *word |= 1 << bit;
            } else {
                *word &= !(1 << bit);
            }
            s.set_failed_links(p);
            Ok(())
        },
    )
}

/// Per-cycle input: start scheduling `epoch` (0..=65535); `*out_started` = 0 if a round is
/// still in flight (the request is refused and counted).
///
/// # Safety
/// `out_started` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_start(
    h: *mut DcfabZpSched,
    epoch: u32,
    out_started: *mut u8,
) -> i32 {
    on("dcfab_zp_sched_start", h, |s: &mut K8Scheduler| {
        let e = u16_arg(epoch, "epoch")?;
        // SAFETY: forwarded caller contract.
        let o = unsafe { out(out_started, "out_started") }?;
        *o = u8::from(s.start_round(e).is_ok());
        Ok(())
    })
}

/// Clock edge: one scheduler cycle.
#[no_mangle]
pub extern "C" fn dcfab_zp_sched_tick(h: *mut DcfabZpSched) -> i32 {
    on("dcfab_zp_sched_tick", h, |s: &mut K8Scheduler| {
        s.tick();
        Ok(())
    })
}

/// `*out_busy` = a round in flight; `*out_iteration`, `*out_stage` (0 Request, 1 Grant-1,
/// 2 Grant-2, 3 Accept; both 0 when idle); `*out_cycles_per_round`.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_status(
    h: *mut DcfabZpSched,
    out_busy: *mut u8,
    out_iteration: *mut u32,
    out_stage: *mut u32,
    out_cycles_per_round: *mut u64,
) -> i32 {
    on("dcfab_zp_sched_status", h, |s: &mut K8Scheduler| {
        // SAFETY: forwarded caller contract.
        let (b, i, st, c) = unsafe {
            (
                out(out_busy, "out_busy")?,
                out(out_iteration, "out_iteration")?,
                out(out_stage, "out_stage")?,
                out(out_cycles_per_round, "out_cycles_per_round")?,
            )
        };
        *b = u8::from(s.busy());
        let (it, stage) = s.stage().unwrap_or((0, Stage::Request));
        *i = it as u32;
        *st = match stage {
            Stage::Request => 0,
            Stage::Grant1 => 1,
            Stage::Grant2 => 2,
            Stage::Accept => 3,
        };
        *c = s.round_cycles();
        Ok(())
    })
}

/// `*out_count` = grants of the last completed round, `*out_epoch` = its epoch.
///
/// # Safety
/// Output pointers must be NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_grant_count(
    h: *mut DcfabZpSched,
    out_count: *mut u32,
    out_epoch: *mut u32,
) -> i32 {
    on("dcfab_zp_sched_grant_count", h, |s: &mut K8Scheduler| {
        // SAFETY: forwarded caller contract.
        let (c, e) = unsafe { (out(out_count, "out_count")?, out(out_epoch, "out_epoch")?) };
        *c = s.grants().len() as u32;
        *e = s.grants_epoch() as u32;
        Ok(())
    })
}

fn grant(s: &K8Scheduler, i: u32) -> Result<Grant, Error> {
    s.grants()
        .get(i as usize)
        .copied()
        .ok_or_else(|| Error::arg("i", format_args!("{i} is not below the grant count")))
}

/// Grant `i`: traffic kind, sender (host in pod, or Core for C2E), destination (host in pod,
/// or pod for E2P), Agg, Core, cells, and its route (`hops`, `ports`).
///
/// # Safety
/// Every output pointer must be NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_grant(
    h: *mut DcfabZpSched,
    i: u32,
    out_traffic: *mut u32,
    out_src: *mut u32,
    out_dst: *mut u32,
    out_agg: *mut u32,
    out_core: *mut u32,
    out_volume: *mut u32,
    out_hops: *mut u32,
    out_ports: *mut u32,
) -> i32 {
    on("dcfab_zp_sched_grant", h, |s: &mut K8Scheduler| {
        let g = grant(s, i)?;
        let r = g.route(DCFAB_ZP_M as usize);
        // SAFETY: forwarded caller contract.
        unsafe {
            *out(out_traffic, "out_traffic")? = g.traffic as u32;
            *out(out_src, "out_src")? = g.src as u32;
            *out(out_dst, "out_dst")? = g.dst as u32;
            *out(out_agg, "out_agg")? = g.agg as u32;
            *out(out_core, "out_core")? = g.core as u32;
            *out(out_volume, "out_volume")? = g.volume as u32;
            *out(out_hops, "out_hops")? = r.hops.value() as u32;
            *out(out_ports, "out_ports")? = route_ports(&r);
        }
        Ok(())
    })
}

/// Grant `i`'s packed SCHD cell (`bit [319:0]`).
///
/// # Safety
/// `out_cell` must be NULL or valid for 10 `uint32_t` writes.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_schd(
    h: *mut DcfabZpSched,
    i: u32,
    out_cell: *mut u32,
) -> i32 {
    on("dcfab_zp_sched_schd", h, |s: &mut K8Scheduler| {
        let g = grant(s, i)?;
        // SAFETY: forwarded caller contract (10 words).
        let o = unsafe { out(out_cell as *mut [u32; 10], "out_cell") }?;
        *o = cell_words(&s.schd(&g).to_bytes());
        Ok(())
    })
}

/// `*out_ok` = 1 if the last round's grants pass the route-walking conflict check.
///
/// # Safety
/// `out_ok` must be NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_zp_sched_check(h: *mut DcfabZpSched, out_ok: *mut u8) -> i32 {
    on("dcfab_zp_sched_check", h, |s: &mut K8Scheduler| {
        // SAFETY: forwarded caller contract.
        let o = unsafe { out(out_ok, "out_ok") }?;
        *o = u8::from(check_grants(DCFAB_ZP_M as usize, s.grants()).is_ok());
        Ok(())
    })
}

/// Pack a data-cell header into `bit [319:0]`: scheduled flag, PIAS priority `prio` (0..=7), route
/// (`hops` 0..=5, pointer `ptr` <= hops, `ports` 6 bits per hop), src, dst, flow (16 bits),
/// sequence number, payload length (0..=512).
///
/// # Safety
/// `out_cell` must be NULL or valid for 10 `uint32_t` writes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dcfab_zp_header_pack(
    scheduled: u8,
    prio: u32,
    hops: u32,
    ptr: u32,
    ports: u32,
    src: u32,
    dst: u32,
    flow: u32,
    seq: u32,
    len: u32,
    out_cell: *mut u32,
) -> i32 {
    call("dcfab_zp_header_pack", || {
        let mut route = route_from(hops, ports)?;
        if ptr > hops {
            return Err(Error::arg(
                "ptr",
                format_args!("{ptr} is beyond hops {hops}"),
            ));
        }
        for _ in 0..ptr {
            route = route.advanced();
        }
        let r = DataHeaderRepr {
            scheduled: flag(scheduled, "scheduled")?,
            priority: arbitrary_int::u3::try_new(u8::try_from(prio).unwrap_or(u8::MAX))
                .map_err(|_| Error::arg("prio", format_args!("{prio} is not 0..=7")))?,
            route,
            src: u16_arg(src, "src")?,
            dst: u16_arg(dst, "dst")?,
            flow: u16_arg(flow, "flow")?,
            seq,
            len: arbitrary_int::u10::try_new(u16::try_from(len).unwrap_or(u16::MAX))
                .ok()
                .filter(|l| l.value() <= 512)
                .ok_or_else(|| Error::arg("len", format_args!("{len} is not 0..=512")))?,
        };
        // SAFETY: forwarded caller contract (10 words).
        let o = unsafe { out(out_cell as *mut [u32; 10], "out_cell") }?;
        *o = cell_words(&r.to_bytes());
        Ok(())
    })
}

/// Unpack a data-cell header (`bit [319:0]`); `DCFAB_ERR_ARG` naming the field if malformed.
///
/// # Safety
/// `header_cell` must be NULL or point to 10 readable `uint32_t`; every output pointer NULL or
/// valid for one write.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dcfab_zp_header_unpack(
    header_cell: *const u32,
    out_scheduled: *mut u8,
    out_priority: *mut u32,
    out_hops: *mut u32,
    out_ptr: *mut u32,
    out_ports: *mut u32,
    out_src: *mut u32,
    out_dst: *mut u32,
    out_flow: *mut u32,
    out_seq: *mut u32,
    out_len: *mut u32,
) -> i32 {
    call("dcfab_zp_header_unpack", || {
        // SAFETY: forwarded caller contract (10 words).
        let w = unsafe { input(header_cell as *const [u32; 10], "header_cell") }?;
        let b = cell_bytes(w);
        let r = DataHeaderRepr::parse(&DataHeader::new_unchecked(&b[..]))
            .map_err(|e| Error::arg("header_cell", e))?;
        // SAFETY: forwarded caller contract.
        unsafe {
            *out(out_scheduled, "out_scheduled")? = u8::from(r.scheduled);
            *out(out_priority, "out_priority")? = r.priority.value() as u32;
            *out(out_hops, "out_hops")? = r.route.hops.value() as u32;
            *out(out_ptr, "out_ptr")? = r.route.ptr.value() as u32;
            *out(out_ports, "out_ports")? = route_ports(&r.route);
            *out(out_src, "out_src")? = r.src as u32;
            *out(out_dst, "out_dst")? = r.dst as u32;
            *out(out_flow, "out_flow")? = r.flow as u32;
            *out(out_seq, "out_seq")? = r.seq;
            *out(out_len, "out_len")? = r.len.value() as u32;
        }
        Ok(())
    })
}
