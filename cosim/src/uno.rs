//! C ABI of Uno's blocks: the UnoCC flow word (prefix `dcfab_unocc_`, [`nic::uno::UnoCc`],
//! Uno Algorithm 1) and the phantom-marking switch port (prefix `dcfab_uport_`,
//! [`switch::output_port::OutputPortCtl`] with a phantom queue, Uno 4.1.3 / 5.1).
//!
//! UnoCC has no per-cycle behaviour of its own: the handle keeps the NIC cycle count `now`
//! (0 at creation, +1 per `dcfab_unocc_tick`); ACKs, NACKs, timeouts and sends happen at
//! `now`. The state word crosses as 42 bytes (`dcfab_unocc_get_word`) or, for
//! SystemVerilog, as eleven 32-bit words (`bit [335:0]`, `svBitVecVal[11]`; bit `b` is bit
//! `b % 32` of word `b / 32`; `dcfab_unocc_get_word336`). Layout, LSB first:
//!
//! ```text
//!  bits      field              bits      field
//!  0..40     cwnd_q8 (Q32.8)    106..154  t_epoch
//!  40..56    md_scale_q15       154..202  qa_end
//!  56..72    ecn_ewma_q15       202..234  qa_acked
//!  72..88    epoch_acked        234..282  hold_until
//!  88..104   epoch_marked       282..330  next_send
//!  104       started            330..336  padding (0)
//!  105       epoch_delay
//! ```
//!
//! The port: per cycle any number of `dcfab_uport_arrive` (verdict: 0 enqueue, 1 enqueue
//! with an ECN mark, 2 trim, 3 drop) and `dcfab_uport_depart`, then `dcfab_uport_tick`
//! (phantom drain). RED draws come from the handle's 32-bit LFSR.

use nic::uno::{UnoCc, UnoCcConfig, UnoCcState, UnoCcWord};
use rtl_models::{Clocked, Cycles, Lfsr32, PhantomConfig, Rate, RedConfig};
use switch::output_port::{Admit, MarkOn, OutputPortCtl, PhantomPortConfig, PortConfig};

use crate::entry::{call, construct, flag, input, on, out};
use crate::handle;
use crate::status::Error;

/// Bytes of the packed UnoCC word.
pub const DCFAB_UNOCC_WORD_BYTES: u32 = 42;
/// Bits of the UnoCC word in use.
pub const DCFAB_UNOCC_WORD_BITS: u32 = 330;
/// 32-bit words of the SystemVerilog form (`svBitVecVal[11]`, `bit [335:0]`).
pub const DCFAB_UNOCC_WORD336_WORDS: u32 = 11;
/// `dcfab_unocc_on_ack` flag: additive increase (Alg. 1 line 3).
pub const DCFAB_UNOCC_AI: u32 = 1;
/// `dcfab_unocc_on_ack` flag: an epoch ended.
pub const DCFAB_UNOCC_EPOCH: u32 = 2;
/// `dcfab_unocc_on_ack` flag: multiplicative decrease (line 14).
pub const DCFAB_UNOCC_MD: u32 = 4;
/// `dcfab_unocc_on_ack` flag: the MD was gentle (line 10).
pub const DCFAB_UNOCC_GENTLE: u32 = 8;
/// `dcfab_unocc_on_ack` flag: Quick Adapt fired (line 20).
pub const DCFAB_UNOCC_QA: u32 = 16;

/// `dcfab_uport_arrive` verdict: admitted, not marked.
pub const DCFAB_UPORT_ENQUEUE: u32 = 0;
/// `dcfab_uport_arrive` verdict: admitted and ECN-marked.
pub const DCFAB_UPORT_MARK: u32 = 1;
/// `dcfab_uport_arrive` verdict: trimmed (header forwarded).
pub const DCFAB_UPORT_TRIM: u32 = 2;
/// `dcfab_uport_arrive` verdict: dropped.
pub const DCFAB_UPORT_DROP: u32 = 3;
/// Port marking choice: physical queue.
pub const DCFAB_MARK_ON_PHYSICAL: u32 = 0;
/// Port marking choice: phantom queue (Uno).
pub const DCFAB_MARK_ON_PHANTOM: u32 = 1;
/// Port marking choice: either queue.
pub const DCFAB_MARK_ON_BOTH: u32 = 2;

const _: () = assert!(
    core::mem::size_of::<UnoCcWord>() == DCFAB_UNOCC_WORD_BYTES as usize
        && nic::uno::cc::UNO_CC_BITS == DCFAB_UNOCC_WORD_BITS
        && DCFAB_UNOCC_WORD336_WORDS * 32 >= DCFAB_UNOCC_WORD_BYTES * 8
);

/// Opaque handle of a UnoCC flow.
pub struct DcfabUnoCc {
    _private: [u8; 0],
}

/// Configuration of a UnoCC flow (`dcfab_unocc_config_uno` fills Uno's defaults).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabUnoCcConfig {
    /// MTU, bytes (> 0).
    pub mtu_bytes: u32,
    /// The flow's path BDP, bytes (1 ..= 2^32 - 1).
    pub bdp_bytes: u64,
    /// AI factor alpha, Q32.8 bytes.
    pub alpha_q8: u64,
    /// QA ratio beta, Q1.15 (<= 32768).
    pub beta_q15: u32,
    /// MD constant K, bytes.
    pub k_bytes: u64,
    /// Gentle factor, Q1.15 (<= 32768).
    pub gentle_q15: u32,
    /// EWMA gain of E is 2^-ewma_shift (1..=15).
    pub ewma_shift: u32,
    /// The flow's base RTT, cycles.
    pub base_rtt: u64,
    /// Epoch period (intra-DC RTT), cycles.
    pub epoch_period: u64,
    /// Relative delay threshold, cycles.
    pub delay_thresh: u64,
    /// Initial window, bytes.
    pub init_cwnd_bytes: u64,
    /// Largest window, bytes.
    pub max_cwnd_bytes: u64,
    /// Line rate, bytes per cycle, Q32.32.
    pub line_rate_q32: u64,
    /// Rule flags: bit 0 `trend_ai`, bit 1 `gentle_fixed` (the authors' simulator's epoch
    /// rule; 0 = Algorithm 1 as printed). Other bits must be zero.
    pub flags: u32,
}

impl From<UnoCcConfig> for DcfabUnoCcConfig {
    fn from(c: UnoCcConfig) -> Self {
        DcfabUnoCcConfig {
            mtu_bytes: c.mtu_bytes,
            bdp_bytes: c.bdp_bytes,
            alpha_q8: c.alpha_q8,
            beta_q15: c.beta_q15,
            k_bytes: c.k_bytes,
            gentle_q15: c.gentle_q15,
            ewma_shift: c.ewma_shift as u32,
            base_rtt: c.base_rtt,
            epoch_period: c.epoch_period,
            delay_thresh: c.delay_thresh,
            init_cwnd_bytes: c.init_cwnd_bytes,
            max_cwnd_bytes: c.max_cwnd_bytes,
            line_rate_q32: c.line_rate.0,
            flags: u32::from(c.trend_ai) | u32::from(c.gentle_fixed) << 1,
        }
    }
}

pub(crate) fn build_cc(c: &DcfabUnoCcConfig) -> Result<UnoCc, Error> {
    let ewma_shift =
        u8::try_from(c.ewma_shift).map_err(|_| Error::config("ewma_shift", "must be in 1..=15"))?;
    if c.flags & !3 != 0 {
        return Err(Error::config(
            "flags",
            "only bits 0 (trend_ai) and 1 (gentle_fixed) exist",
        ));
    }
    let cfg = UnoCcConfig {
        mtu_bytes: c.mtu_bytes,
        bdp_bytes: c.bdp_bytes,
        alpha_q8: c.alpha_q8,
        beta_q15: c.beta_q15,
        k_bytes: c.k_bytes,
        gentle_q15: c.gentle_q15,
        ewma_shift,
        base_rtt: c.base_rtt,
        epoch_period: c.epoch_period,
        delay_thresh: c.delay_thresh,
        init_cwnd_bytes: c.init_cwnd_bytes,
        max_cwnd_bytes: c.max_cwnd_bytes,
        line_rate: Rate(c.line_rate_q32),
        trend_ai: c.flags & 1 != 0,
        gentle_fixed: c.flags & 2 != 0,
        qa_hold_sent: false,
        md_fine: false,
        epoch_rtt_q30: 0,
        ewma_gain_q16: 0,
        gentle_epoch_end: false,
    };
    UnoCc::new(cfg, 0).map_err(|e| Error::config(e.field, e.problem))
}

/// Uno's defaults (Table 2) for a flow: alpha = 0.001 BDP, beta = 0.5, K = BDP_intra / 7,
/// gentle 0.3, E gain 1/16, epoch = intra-DC RTT, cwnd from one BDP up to two.
///
/// # Safety
/// `out_cfg` must be NULL or valid for one `DcfabUnoCcConfig` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_config_uno(
    mtu_bytes: u32,
    bdp_bytes: u64,
    bdp_intra_bytes: u64,
    base_rtt: u64,
    intra_rtt: u64,
    line_rate_q32: u64,
    out_cfg: *mut DcfabUnoCcConfig,
) -> i32 {
    call("dcfab_unocc_config_uno", || {
        let c = UnoCcConfig::uno(
            mtu_bytes,
            bdp_bytes,
            bdp_intra_bytes,
            base_rtt,
            intra_rtt,
            Rate(line_rate_q32),
        );
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_cfg, "out_cfg") }? = c.into();
        Ok(())
    })
}

/// A new UnoCC flow at cycle 0; NULL on a bad config (see `dcfab_last_error`).
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabUnoCcConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_new(cfg: *const DcfabUnoCcConfig) -> *mut DcfabUnoCc {
    construct("dcfab_unocc_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build_cc(cfg)?)
    })
}

/// `dcfab_unocc_new` with Uno's defaults from the arguments of `dcfab_unocc_config_uno`
/// (for SystemVerilog DPI-C).
#[no_mangle]
pub extern "C" fn dcfab_unocc_new_uno(
    mtu_bytes: u32,
    bdp_bytes: u64,
    bdp_intra_bytes: u64,
    base_rtt: u64,
    intra_rtt: u64,
    line_rate_q32: u64,
) -> *mut DcfabUnoCc {
    construct("dcfab_unocc_new_uno", || {
        let c: DcfabUnoCcConfig = UnoCcConfig::uno(
            mtu_bytes,
            bdp_bytes,
            bdp_intra_bytes,
            base_rtt,
            intra_rtt,
            Rate(line_rate_q32),
        )
        .into();
        handle::insert(build_cc(&c)?)
    })
}

/// Free a UnoCC flow.
#[no_mangle]
pub extern "C" fn dcfab_unocc_free(h: *mut DcfabUnoCc) -> i32 {
    call("dcfab_unocc_free", || {
        handle::remove::<UnoCc>(handle::from_ptr(h))
    })
}

/// Clock edge: `now` + 1.
#[no_mangle]
pub extern "C" fn dcfab_unocc_tick(h: *mut DcfabUnoCc) -> i32 {
    on("dcfab_unocc_tick", h, |c: &mut UnoCc| {
        c.now()
            .checked_add(1)
            .ok_or_else(|| Error::arg("h", "the 64-bit cycle count would wrap"))?;
        c.tick();
        Ok(())
    })
}

/// `cycles` idle cycles (equal to `cycles` ticks).
#[no_mangle]
pub extern "C" fn dcfab_unocc_advance(h: *mut DcfabUnoCc, cycles: u64) -> i32 {
    on("dcfab_unocc_advance", h, |c: &mut UnoCc| {
        c.now()
            .checked_add(cycles)
            .ok_or_else(|| Error::arg("cycles", "the 64-bit cycle count would wrap"))?;
        c.advance(cycles);
        Ok(())
    })
}

/// The NIC cycle count.
///
/// # Safety
/// `out_now` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_now(h: *mut DcfabUnoCc, out_now: *mut u64) -> i32 {
    on("dcfab_unocc_now", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_now, "out_now") }? = c.now();
        Ok(())
    })
}

/// An ACK of `acked_bytes` at `now`, ECN-marked if `ecn` (0/1), with RTT sample `rtt`
/// cycles (at most `now`). `*out_flags` = OR of `DCFAB_UNOCC_AI` ... `_QA`.
///
/// # Safety
/// `out_flags` must be NULL or valid for one `uint32_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_on_ack(
    h: *mut DcfabUnoCc,
    acked_bytes: u32,
    ecn: u8,
    rtt: u64,
    out_flags: *mut u32,
) -> i32 {
    on("dcfab_unocc_on_ack", h, |c: &mut UnoCc| {
        let ecn = match ecn {
            0 | 1 => ecn == 1,
            _ => return Err(Error::arg("ecn", "must be 0 or 1")),
        };
        // SAFETY: forwarded caller contract.
        let f = unsafe { out(out_flags, "out_flags") }?;
        let o = c.on_ack(c.now(), acked_bytes, ecn, rtt);
        let bit = |on: bool, f: u32| if on { f } else { 0 };
        *f = bit(o.ai, DCFAB_UNOCC_AI)
            | bit(o.epoch_end, DCFAB_UNOCC_EPOCH)
            | bit(o.md, DCFAB_UNOCC_MD)
            | bit(o.gentle, DCFAB_UNOCC_GENTLE)
            | bit(o.qa, DCFAB_UNOCC_QA);
        Ok(())
    })
}

/// A NACK at `now` (counts as a marked packet that saw a physical queue).
#[no_mangle]
pub extern "C" fn dcfab_unocc_on_nack(h: *mut DcfabUnoCc) -> i32 {
    on("dcfab_unocc_on_nack", h, |c: &mut UnoCc| {
        c.on_nack(c.now());
        Ok(())
    })
}

/// A retransmission timeout at `now` (the window halves).
#[no_mangle]
pub extern "C" fn dcfab_unocc_on_timeout(h: *mut DcfabUnoCc) -> i32 {
    on("dcfab_unocc_on_timeout", h, |c: &mut UnoCc| {
        c.on_timeout(c.now());
        Ok(())
    })
}

/// A packet of `bytes` leaves at `now` (the pacer moves on).
#[no_mangle]
pub extern "C" fn dcfab_unocc_on_send(h: *mut DcfabUnoCc, bytes: u32) -> i32 {
    on("dcfab_unocc_on_send", h, |c: &mut UnoCc| {
        c.on_send(c.now(), bytes);
        Ok(())
    })
}

/// Window (bytes), pacing rate (bytes per cycle, Q32.32) and next pacer slot (cycle).
///
/// # Safety
/// Every output pointer must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_cwnd(
    h: *mut DcfabUnoCc,
    out_cwnd: *mut u64,
    out_rate_q32: *mut u64,
    out_next_send: *mut u64,
) -> i32 {
    on("dcfab_unocc_cwnd", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract.
        let (w, r, n) = unsafe {
            (
                out(out_cwnd, "out_cwnd")?,
                out(out_rate_q32, "out_rate_q32")?,
                out(out_next_send, "out_next_send")?,
            )
        };
        (*w, *r, *n) = (c.cwnd(), c.pacing_rate().0, c.next_send());
        Ok(())
    })
}

/// Whether a packet may leave now with `inflight_bytes` unacknowledged (0/1).
///
/// # Safety
/// `out_can` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_can_send(
    h: *mut DcfabUnoCc,
    inflight_bytes: u64,
    out_can: *mut u8,
) -> i32 {
    on("dcfab_unocc_can_send", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_can, "out_can") }? = c.can_send(inflight_bytes) as u8;
        Ok(())
    })
}

/// The 42-byte packed word.
///
/// # Safety
/// `out_word` must be NULL or valid for 42 byte writes.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_get_word(h: *mut DcfabUnoCc, out_word: *mut u8) -> i32 {
    on("dcfab_unocc_get_word", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract (42 bytes).
        let w = unsafe { out(out_word as *mut [u8; 42], "out_word") }?;
        *w = c.state().pack().into_bytes();
        Ok(())
    })
}

/// Replace the state by a 42-byte word (its 6 padding bits must be zero).
///
/// # Safety
/// `word` must be NULL or valid for 42 byte reads.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_set_word(h: *mut DcfabUnoCc, word: *const u8) -> i32 {
    on("dcfab_unocc_set_word", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract (42 bytes).
        let w = unsafe { input(word as *const [u8; 42], "word") }?;
        if w[41] & 0xFC != 0 {
            return Err(Error::arg("word", "padding bits 330..336 must be zero"));
        }
        c.set_state(UnoCcState::unpack(UnoCcWord::from_bytes(*w)));
        Ok(())
    })
}

/// The word as eleven little-endian 32-bit words (SystemVerilog `bit [335:0]`).
///
/// # Safety
/// `out_words` must be NULL or valid for 11 `uint32_t` writes.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_get_word336(h: *mut DcfabUnoCc, out_words: *mut u32) -> i32 {
    on("dcfab_unocc_get_word336", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract (11 words).
        let o = unsafe { out(out_words as *mut [u32; 11], "out_words") }?;
        let b = c.state().pack().into_bytes();
        *o = [0; 11];
        for (i, x) in b.iter().enumerate() {
            o[i / 4] |= (*x as u32) << (8 * (i % 4));
        }
        Ok(())
    })
}

/// Opaque handle of a Uno phantom-marking port.
pub struct DcfabUnoPort {
    _private: [u8; 0],
}

/// A port control block with its cycle count and RED LFSR.
pub(crate) struct UnoPortBlock {
    pub(crate) ctl: OutputPortCtl,
    pub(crate) rng: Lfsr32,
    pub(crate) now: Cycles,
}

/// Configuration of a Uno phantom-marking port.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabUnoPortConfig {
    /// Physical buffer, bytes (> 0).
    pub buffer_bytes: u64,
    /// 1: RED on the physical queue with `phys_kmin` / `phys_kmax`; 0: none.
    pub phys_ecn: u8,
    /// Physical RED thresholds, bytes.
    pub phys_kmin: u64,
    /// Physical RED upper threshold, bytes.
    pub phys_kmax: u64,
    /// Phantom drain, bytes per cycle, Q32.32 (Uno: 0.9 x line).
    pub drain_q32: u64,
    /// Phantom cap, bytes.
    pub cap_bytes: u64,
    /// Phantom RED thresholds, bytes (Uno: 25 % / 75 % of the cap).
    pub phantom_kmin: u64,
    /// Phantom RED upper threshold, bytes.
    pub phantom_kmax: u64,
    /// `DCFAB_MARK_ON_PHYSICAL` / `_PHANTOM` / `_BOTH`.
    pub mark_on: u32,
    /// 1: trim instead of drop.
    pub trimming: u8,
    /// Trimmed header size, bytes.
    pub header_bytes: u32,
    /// RED LFSR seed (0 is replaced by 1).
    pub seed: u32,
}

pub(crate) fn build_port(c: &DcfabUnoPortConfig) -> Result<UnoPortBlock, Error> {
    let mark_on = match c.mark_on {
        DCFAB_MARK_ON_PHYSICAL => MarkOn::Physical,
        DCFAB_MARK_ON_PHANTOM => MarkOn::Phantom,
        DCFAB_MARK_ON_BOTH => MarkOn::Both,
        _ => return Err(Error::config("mark_on", "must be 0, 1 or 2")),
    };
    let cfg = PortConfig {
        buffer_bytes: c.buffer_bytes,
        ecn: flag(c.phys_ecn, "phys_ecn")?.then_some(RedConfig::linear(c.phys_kmin, c.phys_kmax)),
        phantom: Some(PhantomPortConfig {
            queue: PhantomConfig {
                drain: Rate(c.drain_q32),
                cap_bytes: c.cap_bytes,
            },
            ecn: RedConfig::linear(c.phantom_kmin, c.phantom_kmax),
            mark_on,
        }),
        trimming: flag(c.trimming, "trimming")?,
        header_bytes: c.header_bytes,
    };
    let ctl = OutputPortCtl::new(cfg).map_err(|e| Error::config(e.field, e.problem))?;
    Ok(UnoPortBlock {
        ctl,
        rng: Lfsr32::new(c.seed),
        now: 0,
    })
}

/// A new port (empty, cycle 0); NULL on a bad config.
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabUnoPortConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_uport_new(cfg: *const DcfabUnoPortConfig) -> *mut DcfabUnoPort {
    construct("dcfab_uport_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build_port(cfg)?)
    })
}

/// `dcfab_uport_new` with Uno's phantom defaults (drain 0.9 x `line_q32`, RED at 25 % /
/// 75 % of `cap_bytes`, no physical RED, no trimming) and the marking choice (for DPI-C).
#[no_mangle]
pub extern "C" fn dcfab_uport_new_uno(
    buffer_bytes: u64,
    line_q32: u64,
    cap_bytes: u64,
    mark_on: u32,
    seed: u32,
) -> *mut DcfabUnoPort {
    construct("dcfab_uport_new_uno", || {
        let ph = PhantomPortConfig::uno(Rate(line_q32), cap_bytes)
            .ok_or_else(|| Error::config("line_q32", "0.9 x line does not fit Q32.32"))?;
        let c = DcfabUnoPortConfig {
            buffer_bytes,
            phys_ecn: 0,
            phys_kmin: 0,
            phys_kmax: 0,
            drain_q32: ph.queue.drain.0,
            cap_bytes,
            phantom_kmin: ph.ecn.kmin_bytes,
            phantom_kmax: ph.ecn.kmax_bytes,
            mark_on,
            trimming: 0,
            header_bytes: 64,
            seed,
        };
        handle::insert(build_port(&c)?)
    })
}

/// Free a port.
#[no_mangle]
pub extern "C" fn dcfab_uport_free(h: *mut DcfabUnoPort) -> i32 {
    call("dcfab_uport_free", || {
        handle::remove::<UnoPortBlock>(handle::from_ptr(h))
    })
}

/// Per-cycle input: a packet of `bytes` arrives; `*out_verdict` = `DCFAB_UPORT_*`.
///
/// # Safety
/// `out_verdict` must be NULL or valid for one `uint32_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_uport_arrive(
    h: *mut DcfabUnoPort,
    bytes: u32,
    out_verdict: *mut u32,
) -> i32 {
    on("dcfab_uport_arrive", h, |p: &mut UnoPortBlock| {
        // SAFETY: forwarded caller contract.
        let v = unsafe { out(out_verdict, "out_verdict") }?;
        *v = match p.ctl.on_arrival(p.now, bytes, &mut p.rng) {
            Admit::Enqueue { ecn_mark: false } => DCFAB_UPORT_ENQUEUE,
            Admit::Enqueue { ecn_mark: true } => DCFAB_UPORT_MARK,
            Admit::Trim => DCFAB_UPORT_TRIM,
            Admit::Drop => DCFAB_UPORT_DROP,
        };
        Ok(())
    })
}

/// Per-cycle input: an admitted packet of `bytes` left the physical queue.
#[no_mangle]
pub extern "C" fn dcfab_uport_depart(h: *mut DcfabUnoPort, bytes: u32) -> i32 {
    on("dcfab_uport_depart", h, |p: &mut UnoPortBlock| {
        p.ctl.on_departure(bytes);
        Ok(())
    })
}

/// Clock edge: the phantom queue drains one cycle's worth.
#[no_mangle]
pub extern "C" fn dcfab_uport_tick(h: *mut DcfabUnoPort) -> i32 {
    on("dcfab_uport_tick", h, |p: &mut UnoPortBlock| {
        p.now = p
            .now
            .checked_add(1)
            .ok_or_else(|| Error::arg("h", "the 64-bit cycle count would wrap"))?;
        p.ctl.tick();
        Ok(())
    })
}

/// `cycles` idle cycles (equal to `cycles` ticks).
#[no_mangle]
pub extern "C" fn dcfab_uport_advance(h: *mut DcfabUnoPort, cycles: u64) -> i32 {
    on("dcfab_uport_advance", h, |p: &mut UnoPortBlock| {
        p.now = p
            .now
            .checked_add(cycles)
            .ok_or_else(|| Error::arg("cycles", "the 64-bit cycle count would wrap"))?;
        p.ctl.advance(cycles);
        Ok(())
    })
}

/// Physical occupancy (bytes), phantom occupancy (whole bytes) and the drop / trim / mark
/// counters.
///
/// # Safety
/// Every output pointer must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_uport_state(
    h: *mut DcfabUnoPort,
    out_queue_bytes: *mut u64,
    out_phantom_bytes: *mut u64,
    out_drops: *mut u64,
    out_trims: *mut u64,
    out_marks: *mut u64,
) -> i32 {
    on("dcfab_uport_state", h, |p: &mut UnoPortBlock| {
        // SAFETY: forwarded caller contract.
        let (q, ph, d, t, m) = unsafe {
            (
                out(out_queue_bytes, "out_queue_bytes")?,
                out(out_phantom_bytes, "out_phantom_bytes")?,
                out(out_drops, "out_drops")?,
                out(out_trims, "out_trims")?,
                out(out_marks, "out_marks")?,
            )
        };
        *q = p.ctl.occupancy_bytes();
        *ph = p.ctl.phantom_bytes(p.now).unwrap_or(0);
        (*d, *t, *m) = (p.ctl.drops(), p.ctl.trims(), p.ctl.marks());
        Ok(())
    })
}

/// Replace the state by the eleven-word form (SystemVerilog `bit [335:0]`); padding bits
/// 330..336 must be zero.
///
/// # Safety
/// `words` must be NULL or valid for 11 `uint32_t` reads.
#[no_mangle]
pub unsafe extern "C" fn dcfab_unocc_set_word336(h: *mut DcfabUnoCc, words: *const u32) -> i32 {
    on("dcfab_unocc_set_word336", h, |c: &mut UnoCc| {
        // SAFETY: forwarded caller contract (11 words).
        let v = unsafe { input(words as *const [u32; 11], "words") }?;
        let mut b = [0u8; 42];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (v[i / 4] >> (8 * (i % 4))) as u8;
        }
        if b[41] & 0xFC != 0 || v[10] >> 16 != 0 {
            return Err(Error::arg("words", "padding bits 330..336 must be zero"));
        }
        c.set_state(UnoCcState::unpack(UnoCcWord::from_bytes(b)));
        Ok(())
    })
}
