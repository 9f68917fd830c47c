//! C ABI of REPS (prefix `dcfab_reps_`): the sender-side load balancer of REPS Algorithms
//! 1 and 2 with its per-connection state in the 25-byte (193-bit) word of REPS Table 1
//! ([`nic::reps::Reps`]; layout in `nic::reps::word`).
//!
//! REPS has no per-cycle behaviour of its own; its timer `exitFreezingMode` is compared with
//! the NIC cycle count when an ACK arrives. The handle therefore keeps the NIC cycle count
//! `now` (0 at creation, +1 per `dcfab_reps_tick`, `dcfab_reps_set_now` to jump) and a 32-bit
//! Galois LFSR for `rand()` seeded from the config (`dcfab_reps_on_send_with` takes the
//! random word from the caller instead).
//!
//! The word: `dcfab_reps_get_word` / `dcfab_reps_set_word` move the 25 bytes (bit `b` is bit
//! `b % 8` of byte `b / 8`); `dcfab_reps_get_word193` / `dcfab_reps_set_word193` move the
//! same 193 bits as seven 32-bit words (bit `b` is bit `b % 32` of word `b / 32`), which is
//! SystemVerilog's `bit [192:0]` across DPI-C (`svBitVecVal[7]`). `set_word*` rejects a
//! malformed or unreachable word with `DCFAB_ERR_ARG` and leaves the state unchanged.
//!
//! ```text
//!  bits      field (Table 1)             bits      field
//!  0..127    cachedEV[k] = [16k +: 16]   144..151  numberOfValidEVs
//!  128..135  isValid[k]  = [128 + k]     152..183  exitFreezingMode
//!  136..138  head                        184..191  exploreCounter
//!  139..142  reserved (0)                192       isFreezingMode
//!  143       notEmpty (= !isEmpty)
//! ```

use nic::reps::{AckOutcome, EvChoice, Reps, RepsConfig, WORD_LEN};
use rtl_models::{Cycles, Lfsr32, RandomSource};

use crate::entry::{call, construct, flag, input, on, out};
use crate::handle;
use crate::status::Error;

/// `dcfab_reps_on_send` choice: A2 L17, exploration after freezing (random EV).
pub const DCFAB_REPS_EXPLORE: u32 = 0;
/// `dcfab_reps_on_send` choice: A2 L20, random EV (empty buffer / no valid EV).
pub const DCFAB_REPS_RANDOM: u32 = 1;
/// `dcfab_reps_on_send` choice: A2 L3-6, the oldest valid cached EV.
pub const DCFAB_REPS_RECYCLE: u32 = 2;
/// `dcfab_reps_on_send` choice: A2 L8-9, freezing mode, the entry at `head`.
pub const DCFAB_REPS_FROZEN: u32 = 3;
/// `out_slot` value when the choice read no buffer slot.
pub const DCFAB_REPS_NO_SLOT: u32 = 255;
/// Bytes of the REPS Table 1 word.
pub const DCFAB_REPS_WORD_BYTES: u32 = 25;
/// Bits of the REPS Table 1 word (REPS Table 1: 193).
pub const DCFAB_REPS_WORD_BITS: u32 = 193;
/// 32-bit words of the SystemVerilog `bit [192:0]` form (`svBitVecVal[7]`).
pub const DCFAB_REPS_WORD193_WORDS: u32 = 7;

const _: () = assert!(
    WORD_LEN == DCFAB_REPS_WORD_BYTES as usize
        && nic::reps::WORD_BITS == DCFAB_REPS_WORD_BITS
        && DCFAB_REPS_WORD193_WORDS * 32 >= DCFAB_REPS_WORD_BITS
);

/// Opaque handle of a REPS instance (one connection).
pub struct DcfabReps {
    _private: [u8; 0],
}

/// Configuration of a REPS instance (`dcfab_reps_config_default` gives the defaults).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfabRepsConfig {
    /// Bits per entropy value, 1..=16 (`EVS_SIZE = 2^ev_bits`).
    pub ev_bits: u32,
    /// `NUM_PKTS_CWND` (A1 L17), packets, 0..=255.
    pub num_pkts_cwnd: u32,
    /// `FREEZING_TIMEOUT` (A1 L24), NIC cycles, below 2^31.
    pub freezing_timeout_cycles: u32,
    /// ACK+Reuse EVs: uses per cached EV, 1..=255 (1 = standard REPS).
    pub reuse: u32,
    /// Seed of the handle's LFSR (0 is replaced by 1).
    pub seed: u32,
    /// 1: `ONFAILUREDETECTION` enters freezing mode; 0: freezing disabled (Appendix C.4).
    pub freezing: u8,
}

/// A REPS connection with its NIC cycle count and random source.
pub(crate) struct RepsBlock {
    pub(crate) reps: Reps,
    pub(crate) rng: Lfsr32,
    pub(crate) now: Cycles,
}

/// A random source that yields one caller-supplied word.
struct Given(u32);

impl RandomSource for Given {
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

impl From<RepsConfig> for DcfabRepsConfig {
    fn from(c: RepsConfig) -> Self {
        DcfabRepsConfig {
            ev_bits: c.ev_bits as u32,
            num_pkts_cwnd: c.num_pkts_cwnd,
            freezing_timeout_cycles: c.freezing_timeout_cycles,
            reuse: c.reuse,
            seed: 0xACE1,
            freezing: c.freezing as u8,
        }
    }
}

pub(crate) fn build(cfg: &DcfabRepsConfig) -> Result<RepsBlock, Error> {
    let ev_bits = u8::try_from(cfg.ev_bits)
        .map_err(|_| Error::config("ev_bits", "must be 1..=16 (EVS_SIZE = 2^ev_bits)"))?;
    let c = RepsConfig {
        ev_bits,
        num_pkts_cwnd: cfg.num_pkts_cwnd,
        freezing_timeout_cycles: cfg.freezing_timeout_cycles,
        freezing: flag(cfg.freezing, "freezing")?,
        reuse: cfg.reuse,
        timed_exit: false,
    };
    let reps = Reps::new(c).map_err(|e| Error::config(e.field, e.problem))?;
    Ok(RepsBlock {
        reps,
        rng: Lfsr32::new(cfg.seed),
        now: 0,
    })
}

fn word_error(e: nic::reps::RepsWordError) -> Error {
    Error::arg("word", e)
}

/// The 25-byte word as seven little-endian 32-bit words (SystemVerilog `bit [192:0]`).
fn to_word193(w: &[u8; WORD_LEN]) -> [u32; 7] {
    let mut out = [0u32; 7];
    for (i, b) in w.iter().enumerate() {
        out[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
    out
}

/// The inverse of [`to_word193`]; bits 193 and up (outside `bit [192:0]`) are ignored.
fn from_word193(v: &[u32; 7]) -> [u8; WORD_LEN] {
    let mut w = [0u8; WORD_LEN];
    for (i, b) in w.iter_mut().enumerate() {
        *b = (v[i / 4] >> (8 * (i % 4))) as u8;
    }
    w[WORD_LEN - 1] &= 0x01;
    w
}

/// Write the default configuration (16-bit EVs, `NUM_PKTS_CWND` 86, `FREEZING_TIMEOUT`
/// 100000 cycles, freezing on, reuse 1, seed 0xACE1) to `*out_cfg`.
///
/// # Safety
/// `out_cfg` must be NULL or valid for one `DcfabRepsConfig` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_config_default(out_cfg: *mut DcfabRepsConfig) -> i32 {
    call("dcfab_reps_config_default", || {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_cfg, "out_cfg") }? = RepsConfig::DEFAULT.into();
        Ok(())
    })
}

/// A new REPS instance in the reset state (all-zero word), `now` = 0; NULL on a bad config.
///
/// # Safety
/// `cfg` must be NULL or point to a valid `DcfabRepsConfig`.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_new(cfg: *const DcfabRepsConfig) -> *mut DcfabReps {
    construct("dcfab_reps_new", || {
        // SAFETY: forwarded caller contract.
        let cfg = unsafe { input(cfg, "cfg") }?;
        handle::insert(build(cfg)?)
    })
}

/// `dcfab_reps_new` with the config fields as arguments (for SystemVerilog DPI-C).
#[no_mangle]
pub extern "C" fn dcfab_reps_new_flat(
    ev_bits: u32,
    num_pkts_cwnd: u32,
    freezing_timeout_cycles: u32,
    reuse: u32,
    seed: u32,
    freezing: u8,
) -> *mut DcfabReps {
    let cfg = DcfabRepsConfig {
        ev_bits,
        num_pkts_cwnd,
        freezing_timeout_cycles,
        reuse,
        seed,
        freezing,
    };
    construct("dcfab_reps_new_flat", || handle::insert(build(&cfg)?))
}

/// Free a REPS instance; the handle (and every copy of it) becomes invalid.
#[no_mangle]
pub extern "C" fn dcfab_reps_free(h: *mut DcfabReps) -> i32 {
    call("dcfab_reps_free", || {
        handle::remove::<RepsBlock>(handle::from_ptr(h))
    })
}

/// Clock edge: the NIC cycle count advances by one.
#[no_mangle]
pub extern "C" fn dcfab_reps_tick(h: *mut DcfabReps) -> i32 {
    on("dcfab_reps_tick", h, |r: &mut RepsBlock| {
        r.now = r
            .now
            .checked_add(1)
            .ok_or_else(|| Error::arg("h", "the 64-bit cycle count would wrap"))?;
        Ok(())
    })
}

/// `cycles` idle cycles (REPS has no per-cycle state: only `now` moves).
#[no_mangle]
pub extern "C" fn dcfab_reps_advance(h: *mut DcfabReps, cycles: u64) -> i32 {
    on("dcfab_reps_advance", h, |r: &mut RepsBlock| {
        r.now = r
            .now
            .checked_add(cycles)
            .ok_or_else(|| Error::arg("cycles", "the 64-bit cycle count would wrap"))?;
        Ok(())
    })
}

/// Set the NIC cycle count (any value; REPS compares only its low 32 bits, with wrap-around).
#[no_mangle]
pub extern "C" fn dcfab_reps_set_now(h: *mut DcfabReps, now: u64) -> i32 {
    on("dcfab_reps_set_now", h, |r: &mut RepsBlock| {
        r.now = now;
        Ok(())
    })
}

/// The NIC cycle count.
///
/// # Safety
/// `out_now` must be NULL or valid for one `uint64_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_now(h: *mut DcfabReps, out_now: *mut u64) -> i32 {
    on("dcfab_reps_now", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_now, "out_now") }? = r.now;
        Ok(())
    })
}

/// Algorithm 1 `ONACK`: an ACK carrying entropy value `ev` (< 2^16), ECN-marked if `ecn`
/// (0/1). `*out_cached` = 1 if the EV was cached (then `*out_slot` is the slot written and
/// `*out_exited_freezing` = 1 if freezing mode ended), 0 if it was marked (slot 255).
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_on_ack(
    h: *mut DcfabReps,
    ev: u32,
    ecn: u8,
    out_cached: *mut u8,
    out_slot: *mut u32,
    out_exited_freezing: *mut u8,
) -> i32 {
    on("dcfab_reps_on_ack", h, |r: &mut RepsBlock| {
        let ev = u16::try_from(ev).map_err(|_| Error::arg("ev", "above 65535"))?;
        let ecn = match ecn {
            0 | 1 => ecn == 1,
            _ => return Err(Error::arg("ecn", "must be 0 or 1")),
        };
        // SAFETY: forwarded caller contract.
        let (c, s, x) = unsafe {
            (
                out(out_cached, "out_cached")?,
                out(out_slot, "out_slot")?,
                out(out_exited_freezing, "out_exited_freezing")?,
            )
        };
        match r.reps.observe_ack(r.now, ev, ecn) {
            AckOutcome::Marked => (*c, *s, *x) = (0, DCFAB_REPS_NO_SLOT, 0),
            AckOutcome::Cached {
                slot,
                exited_freezing,
            } => (*c, *s, *x) = (1, slot as u32, exited_freezing as u8),
        }
        Ok(())
    })
}

/// Algorithm 1 `ONFAILUREDETECTION`: `*out_froze` = 1 if freezing mode was entered.
///
/// # Safety
/// `out_froze` must be NULL or valid for one `uint8_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_on_failure(h: *mut DcfabReps, out_froze: *mut u8) -> i32 {
    on("dcfab_reps_on_failure", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        let f = unsafe { out(out_froze, "out_froze") }?;
        *f = r.reps.observe_failure(r.now) as u8;
        Ok(())
    })
}

fn send<R: RandomSource>(
    r: &mut Reps,
    rng: &mut R,
    ev: &mut u32,
    choice: &mut u32,
    slot: &mut u32,
) {
    let d = r.choose_ev(rng);
    *ev = d.ev as u32;
    *choice = match d.choice {
        EvChoice::Explore => DCFAB_REPS_EXPLORE,
        EvChoice::Random => DCFAB_REPS_RANDOM,
        EvChoice::Recycle => DCFAB_REPS_RECYCLE,
        EvChoice::Frozen => DCFAB_REPS_FROZEN,
    };
    *slot = d.slot.map_or(DCFAB_REPS_NO_SLOT, |s| s as u32);
}

/// Algorithm 2 `ONSEND`: the EV of the next DATA packet, the branch that chose it
/// (`DCFAB_REPS_EXPLORE` ... `_FROZEN`) and the slot read (255 if none). Random EVs come
/// from the handle's LFSR (one 32-bit draw, low `ev_bits` bits).
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_on_send(
    h: *mut DcfabReps,
    out_ev: *mut u32,
    out_choice: *mut u32,
    out_slot: *mut u32,
) -> i32 {
    on("dcfab_reps_on_send", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        let (e, c, s) = unsafe {
            (
                out(out_ev, "out_ev")?,
                out(out_choice, "out_choice")?,
                out(out_slot, "out_slot")?,
            )
        };
        send(&mut r.reps, &mut r.rng, e, c, s);
        Ok(())
    })
}

/// `dcfab_reps_on_send` with `rand32` as the random word if one is needed (the handle's
/// LFSR is not clocked).
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_on_send_with(
    h: *mut DcfabReps,
    rand32: u32,
    out_ev: *mut u32,
    out_choice: *mut u32,
    out_slot: *mut u32,
) -> i32 {
    on("dcfab_reps_on_send_with", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        let (e, c, s) = unsafe {
            (
                out(out_ev, "out_ev")?,
                out(out_choice, "out_choice")?,
                out(out_slot, "out_slot")?,
            )
        };
        send(&mut r.reps, &mut Given(rand32), e, c, s);
        Ok(())
    })
}

/// Read the 25-byte Table 1 word into `out_word[0..25]`.
///
/// # Safety
/// `out_word` must be NULL or valid for 25 `uint8_t` writes.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_get_word(h: *mut DcfabReps, out_word: *mut u8) -> i32 {
    on("dcfab_reps_get_word", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract (25 bytes).
        let o = unsafe { out(out_word.cast::<[u8; WORD_LEN]>(), "out_word") }?;
        *o = r.reps.word();
        Ok(())
    })
}

/// Load a 25-byte Table 1 word from `word[0..25]`; `DCFAB_ERR_ARG` (state unchanged) if it
/// is malformed (reserved or padding bits set, `numberOfValidEVs > 8`) or unreachable.
///
/// # Safety
/// `word` must be NULL or valid for 25 `uint8_t` reads.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_set_word(h: *mut DcfabReps, word: *const u8) -> i32 {
    on("dcfab_reps_set_word", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract (25 bytes).
        let w = unsafe { input(word.cast::<[u8; WORD_LEN]>(), "word") }?;
        r.reps.set_word(*w).map_err(word_error)
    })
}

/// Read the word as SystemVerilog `bit [192:0]`: seven 32-bit words, bit `b` in bit
/// `b % 32` of `out_word[b / 32]` (bits 193..223 are 0).
///
/// # Safety
/// `out_word` must be NULL or valid for 7 `uint32_t` writes.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_get_word193(h: *mut DcfabReps, out_word: *mut u32) -> i32 {
    on("dcfab_reps_get_word193", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract (7 words).
        let o = unsafe { out(out_word.cast::<[u32; 7]>(), "out_word") }?;
        *o = to_word193(&r.reps.word());
        Ok(())
    })
}

/// Load the word from SystemVerilog `bit [192:0]` form (bits above 192 are ignored);
/// `DCFAB_ERR_ARG` (state unchanged) if malformed or unreachable.
///
/// # Safety
/// `word` must be NULL or valid for 7 `uint32_t` reads.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_set_word193(h: *mut DcfabReps, word: *const u32) -> i32 {
    on("dcfab_reps_set_word193", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract (7 words).
        let w = unsafe { input(word.cast::<[u32; 7]>(), "word") }?;
        r.reps.set_word(from_word193(w)).map_err(word_error)
    })
}

/// The scalar fields of the word: `exploreCounter`, `isFreezingMode`, `exitFreezingMode`,
/// `head`, `numberOfValidEVs`, `repsBuffer.isEmpty()`.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_fields(
    h: *mut DcfabReps,
    out_explore_counter: *mut u32,
    out_is_freezing_mode: *mut u8,
    out_exit_freezing_mode: *mut u32,
    out_head: *mut u32,
    out_number_of_valid_evs: *mut u32,
    out_is_empty: *mut u8,
) -> i32 {
    on("dcfab_reps_fields", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        let o = unsafe {
            (
                out(out_explore_counter, "out_explore_counter")?,
                out(out_is_freezing_mode, "out_is_freezing_mode")?,
                out(out_exit_freezing_mode, "out_exit_freezing_mode")?,
                out(out_head, "out_head")?,
                out(out_number_of_valid_evs, "out_number_of_valid_evs")?,
                out(out_is_empty, "out_is_empty")?,
            )
        };
        let p = &r.reps;
        *o.0 = p.explore_counter() as u32;
        *o.1 = p.is_freezing() as u8;
        *o.2 = p.exit_freezing_mode();
        *o.3 = p.head() as u32;
        *o.4 = p.number_of_valid_evs() as u32;
        *o.5 = p.is_empty() as u8;
        Ok(())
    })
}

/// Buffer entry `slot` (0..=7): `cachedEV`, `isValid`, and the ACK+Reuse EVs uses left.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_slot(
    h: *mut DcfabReps,
    slot: u32,
    out_cached_ev: *mut u32,
    out_is_valid: *mut u8,
    out_uses_left: *mut u32,
) -> i32 {
    on("dcfab_reps_slot", h, |r: &mut RepsBlock| {
        if slot >= nic::reps::BUFFER_SIZE as u32 {
            return Err(Error::arg("slot", format_args!("{slot} is not 0..=7")));
        }
        // SAFETY: forwarded caller contract.
        let o = unsafe {
            (
                out(out_cached_ev, "out_cached_ev")?,
                out(out_is_valid, "out_is_valid")?,
                out(out_uses_left, "out_uses_left")?,
            )
        };
        let i = slot as usize;
        *o.0 = r.reps.cached_ev(i) as u32;
        *o.1 = r.reps.is_valid(i) as u8;
        *o.2 = r.reps.uses_left(i) as u32;
        Ok(())
    })
}

/// Event counters (simulation statistics, not part of the word): EVs chosen by each branch
/// of Algorithm 2, ACK EVs cached and ECN-marked ACKs ignored, freezes and thaws, and
/// failure detections that did not freeze.
///
/// # Safety
/// Every output pointer must be NULL or valid for one write of its type.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dcfab_reps_stats(
    h: *mut DcfabReps,
    out_explored: *mut u64,
    out_random: *mut u64,
    out_recycled: *mut u64,
    out_frozen: *mut u64,
    out_acks_cached: *mut u64,
    out_acks_marked: *mut u64,
    out_freezes: *mut u64,
    out_thaws: *mut u64,
    out_failures_ignored: *mut u64,
) -> i32 {
    on("dcfab_reps_stats", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        let o = unsafe {
            (
                out(out_explored, "out_explored")?,
                out(out_random, "out_random")?,
                out(out_recycled, "out_recycled")?,
                out(out_frozen, "out_frozen")?,
                out(out_acks_cached, "out_acks_cached")?,
                out(out_acks_marked, "out_acks_marked")?,
                out(out_freezes, "out_freezes")?,
                out(out_thaws, "out_thaws")?,
                out(out_failures_ignored, "out_failures_ignored")?,
            )
        };
        let s = r.reps.stats();
        (*o.0, *o.1, *o.2, *o.3) = (s.explored, s.random, s.recycled, s.frozen);
        (*o.4, *o.5, *o.6, *o.7) = (s.acks_cached, s.acks_marked, s.freezes, s.thaws);
        *o.8 = s.failures_ignored;
        Ok(())
    })
}

/// The handle's LFSR register.
///
/// # Safety
/// `out_state` must be NULL or valid for one `uint32_t` write.
#[no_mangle]
pub unsafe extern "C" fn dcfab_reps_lfsr_state(h: *mut DcfabReps, out_state: *mut u32) -> i32 {
    on("dcfab_reps_lfsr_state", h, |r: &mut RepsBlock| {
        // SAFETY: forwarded caller contract.
        *unsafe { out(out_state, "out_state") }? = r.rng.state();
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn word193_round_trips(bytes in proptest::array::uniform25(any::<u8>())) {
            let mut b = bytes;
            b[WORD_LEN - 1] &= 1;
            let v = to_word193(&b);
            prop_assert_eq!(from_word193(&v), b);
            prop_assert_eq!(v[6] >> 1, 0);
            // Bit b of the byte form is bit b % 32 of word b / 32.
            for bit in 0..193usize {
                let want = (b[bit / 8] >> (bit % 8)) & 1;
                prop_assert_eq!(((v[bit / 32] >> (bit % 32)) & 1) as u8, want);
            }
        }
    }
}
