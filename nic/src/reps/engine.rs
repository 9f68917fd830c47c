//! Algorithms 1 and 2 of the REPS paper, run against any [`RepsState`] storage layout.
//!
//! Every step carries a doc comment or comment naming the algorithm line it implements
//! ("A1 L9" = Algorithm 1 line 9). See the module doc of [`crate::reps`] for the block
//! diagram, units and the two places where the pseudocode needed an interpretation.

use rtl_models::{Clocked, Cycles, RandomSource, StateBudget};

use super::compact::CompactWord;
use super::config::{RepsConfig, RepsConfigError};
use super::state::{RepsRepr, RepsState, RepsWordError};
use super::word::{RepsWord, WORD_LEN};
use crate::lb::{Ev, LoadBalancer};

/// The NIC's 32-bit view of time: the low 32 bits of the cycle count (the unit of
/// `exitFreezingMode`).
#[inline]
pub const fn nic_time(now: Cycles) -> u32 {
    now as u32
}

/// `a > b` for 32-bit cycle timestamps with wrap-around (serial-number arithmetic, RFC
/// 1982): true iff `a` is 1..2^31 cycles after `b`. Correct whenever the two are less than
/// 2^31 cycles apart (2.1 s at 1 GHz).
#[inline]
pub const fn cycles_after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// Which branch of Algorithm 2 chose a packet's EV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum EvChoice {
    /// A2 L17: one random EV every `REPS_BUFFER_SIZE` packets while `exploreCounter > 0`
    /// (after leaving freezing mode).
    Explore,
    /// A2 L20: random EV because the buffer is empty or holds no valid EV outside freezing
    /// mode (warm-up and "explore" of section 3.1).
    Random,
    /// A2 L22 -> L3-6: the oldest valid cached EV ("reuse", section 3.1).
    Recycle,
    /// A2 L22 -> L8-9: freezing mode with no valid EV: the entry at `head`, valid or not
    /// (section 3.2, item 2).
    Frozen,
}

impl EvChoice {
    /// Whether this choice drew a random number.
    pub const fn is_random(self) -> bool {
        matches!(self, EvChoice::Explore | EvChoice::Random)
    }

    /// Short lowercase name (for traces).
    pub const fn name(self) -> &'static str {
        match self {
            EvChoice::Explore => "explore",
            EvChoice::Random => "random",
            EvChoice::Recycle => "recycle",
            EvChoice::Frozen => "frozen",
        }
    }
}

/// The outcome of `ONSEND` for one DATA packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SendDecision {
    /// `dataPacket.ev`.
    pub ev: Ev,
    /// The branch that chose it.
    pub choice: EvChoice,
    /// The buffer slot read (`offset` of A2 L4/L8), for `Recycle` and `Frozen`.
    pub slot: Option<u8>,
}

/// The outcome of `ONACK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum AckOutcome {
    /// A1 L6-7: ECN-marked, the EV is discarded.
    Marked,
    /// A1 L9-18: the EV was cached in `slot`; `exited_freezing` if A1 L15-17 fired.
    Cached {
        /// Slot written (the old `head`).
        slot: u8,
        /// Freezing mode ended on this ACK.
        exited_freezing: bool,
    },
}

/// Event counters of one REPS instance (simulation statistics, not hardware state: they
/// are not part of the SRAM word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RepsStats {
    /// EVs chosen by A2 L17.
    pub explored: u64,
    /// EVs chosen by A2 L20.
    pub random: u64,
    /// EVs chosen by A2 L3-6.
    pub recycled: u64,
    /// EVs chosen by A2 L8-9.
    pub frozen: u64,
    /// ACK EVs cached (A1 L9-14).
    pub acks_cached: u64,
    /// ECN-marked ACKs ignored (A1 L6-7).
    pub acks_marked: u64,
    /// Entries into freezing mode (A1 L23).
    pub freezes: u64,
    /// Exits from freezing mode (A1 L16).
    pub thaws: u64,
    /// Failure detections that did not freeze (A1 L22 false, or freezing disabled).
    pub failures_ignored: u64,
}

/// REPS on one connection: Algorithms 1 and 2 over the storage layout `S` with an
/// `N`-entry circular buffer. Use the aliases [`crate::reps::Reps`] (Table 1 word),
/// [`crate::reps::RepsCompact16`] & co. (compact word) or [`crate::reps::RepsUnpacked`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepsEngine<S, const N: usize> {
    cfg: RepsConfig,
    state: S,
    /// ACK+Reuse EVs (section 4.5.1): uses left for each valid entry (1 for standard REPS).
    /// Not part of the Table 1 word; see [`RepsConfig::reuse_extra_bits`].
    uses_left: [u8; N],
    stats: RepsStats,
}

impl<S: RepsState<N> + Default, const N: usize> RepsEngine<S, N> {
    /// `REPS_BUFFER_SIZE`.
    pub const BUFFER_SIZE: usize = N;

    /// A REPS instance in the reset state of A1 L1-3 (empty buffer, not freezing,
    /// `head = numberOfValidEVs = exploreCounter = 0`). Errors name the bad field.
    pub fn new(cfg: RepsConfig) -> Result<Self, RepsConfigError> {
        cfg.validate(S::EV_FIELD_BITS)?;
        if N == 0 || N > 128 {
            return Err(RepsConfigError::new(
                "buffer_size",
                "REPS_BUFFER_SIZE must be 1..=128",
            ));
        }
        Ok(RepsEngine {
            cfg,
            state: S::default(),
            uses_left: [0; N],
            stats: RepsStats::default(),
        })
    }
}

impl<S: RepsState<N>, const N: usize> RepsEngine<S, N> {
    /// The configuration.
    pub const fn config(&self) -> &RepsConfig {
        &self.cfg
    }

    /// The storage (the packed word for the packed layouts).
    pub const fn state(&self) -> &S {
        &self.state
    }

    /// Event counters.
    pub const fn stats(&self) -> &RepsStats {
        &self.stats
    }

    /// The logical view of the state.
    pub fn repr(&self) -> RepsRepr<N> {
        RepsRepr::read_from(&self.state)
    }

    /// Load a logical state. Rejects states REPS cannot reach (see [`RepsRepr::check`])
    /// with the configured EV width. Reuse-EVs lifetimes restart at `reuse` for every valid
    /// entry.
    pub fn set_repr(&mut self, repr: &RepsRepr<N>) -> Result<(), RepsWordError> {
        repr.check(self.cfg.ev_bits)?;
        repr.write_to(&mut self.state);
        for i in 0..N {
            self.uses_left[i] = if repr.is_valid[i] {
                self.cfg.reuse as u8
            } else {
                0
            };
        }
        Ok(())
    }

    /// `isFreezingMode`.
    pub fn is_freezing(&self) -> bool {
        self.state.is_freezing_mode()
    }

    /// `exploreCounter`.
    pub fn explore_counter(&self) -> u8 {
        self.state.explore_counter()
    }

    /// `numberOfValidEVs`.
    pub fn number_of_valid_evs(&self) -> usize {
        self.state.number_of_valid_evs()
    }

    /// `head`.
    pub fn head(&self) -> usize {
        self.state.head()
    }

    /// `exitFreezingMode` (low 32 bits of the NIC cycle count).
    pub fn exit_freezing_mode(&self) -> u32 {
        self.state.exit_freezing_mode()
    }

    /// `repsBuffer.isEmpty()`.
    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }

    /// `repsBuffer[i].cachedEV` (`i` mod `N`).
    pub fn cached_ev(&self, i: usize) -> Ev {
        self.state.cached_ev(i)
    }

    /// `repsBuffer[i].isValid` (`i` mod `N`).
    pub fn is_valid(&self, i: usize) -> bool {
        self.state.is_valid(i)
    }

    /// Remaining uses of slot `i` under ACK+Reuse EVs (0 when invalid).
    pub fn uses_left(&self, i: usize) -> u8 {
        if self.state.is_valid(i) {
            self.uses_left[i % N]
        } else {
            0
        }
    }

    /// `rand() mod EVS_SIZE`: one 32-bit draw, low `ev_bits` bits.
    fn random_ev<R: RandomSource>(&self, rng: &mut R) -> Ev {
        (rng.next_u32() as Ev) & self.cfg.ev_mask()
    }

    /// Algorithm 1 `ONACK(ackPacket)` (section 3.1): cache the EV of an unmarked ACK.
    /// `now` is the NIC cycle count.
    pub fn observe_ack(&mut self, now: Cycles, ev: Ev, ecn: bool) -> AckOutcome {
        // A1 L6-8: `if ackPacket.ecn is set then return`.
        if ecn {
            self.stats.acks_marked += 1;
            return AckOutcome::Marked;
        }
        let head = self.state.head();
        // A1 L9-11: `if not repsBuffer[head].isValid then numberOfValidEVs++`.
        if !self.state.is_valid(head) {
            let n = self.state.number_of_valid_evs();
            self.state.set_number_of_valid_evs(n + 1);
        }
        // A1 L12: `repsBuffer[head].cachedEV = ackPacket.ev` (the EV field is
        // `ev_bits` wide; higher bits are not stored). The buffer is no longer empty.
        self.state.set_cached_ev(head, ev & self.cfg.ev_mask());
        self.state.set_is_empty(false);
        // A1 L13: `repsBuffer[head].isValid = true` (with a Reuse-EVs lifetime of `reuse`).
        self.state.set_is_valid(head, true);
        self.uses_left[head % N] = self.cfg.reuse as u8;
        // A1 L14: `head = (head + 1) % REPS_BUFFER_SIZE`.
        self.state.set_head((head + 1) % N);
        self.stats.acks_cached += 1;
        // A1 L15: `if isFreezingMode and now() > exitFreezingMode` (32-bit wrap-around
        // compare of NIC cycle timestamps).
        let mut exited_freezing = false;
        if self.state.is_freezing_mode()
            && cycles_after(nic_time(now), self.state.exit_freezing_mode())
        {
            // A1 L16: `isFreezingMode = false`.
            self.state.set_is_freezing_mode(false);
            // A1 L17: `exploreCounter = NUM_PKTS_CWND`.
            self.state.set_explore_counter(self.cfg.num_pkts_cwnd as u8);
            self.stats.thaws += 1;
            exited_freezing = true;
        }
        AckOutcome::Cached {
            slot: head as u8,
            exited_freezing,
        }
    }

    /// Section 3.2's timed exit from freezing mode ("we simply exit freezing mode after a
    /// fixed amount of time"): A1 L15-17 (`if isFreezingMode and now() > exitFreezingMode:
    /// isFreezingMode = false; exploreCounter = NUM_PKTS_CWND`) run without an ACK. Algorithm 1
    /// runs them only in `ONACK`; with [`RepsConfig::timed_exit`] the [`LoadBalancer`] hooks
    /// also call this before each send and each failure detection. Returns whether freezing
    /// mode ended (counted in [`RepsStats::thaws`]).
    pub fn thaw_if_due(&mut self, now: Cycles) -> bool {
        // A1 L15 (32-bit wrap-around compare of NIC cycle timestamps).
        if self.state.is_freezing_mode()
            && cycles_after(nic_time(now), self.state.exit_freezing_mode())
        {
            // A1 L16-17.
            self.state.set_is_freezing_mode(false);
            self.state.set_explore_counter(self.cfg.num_pkts_cwnd as u8);
            self.stats.thaws += 1;
            true
        } else {
            false
        }
    }

    /// Algorithm 1 `ONFAILUREDETECTION()` (section 3.2): enter freezing mode. Returns
    /// whether it did. Ignored when `cfg.freezing` is off (Appendix C.4).
    pub fn observe_failure(&mut self, now: Cycles) -> bool {
        // A1 L22: `if not isFreezingMode and exploreCounter == 0`.
        if self.cfg.freezing && !self.state.is_freezing_mode() && self.state.explore_counter() == 0
        {
            // A1 L23: `isFreezingMode = true`.
            self.state.set_is_freezing_mode(true);
            // A1 L24: `exitFreezingMode = now() + FREEZING_TIMEOUT` (mod 2^32 cycles).
            self.state.set_exit_freezing_mode(
                nic_time(now).wrapping_add(self.cfg.freezing_timeout_cycles),
            );
            self.stats.freezes += 1;
            true
        } else {
            self.stats.failures_ignored += 1;
            false
        }
    }

    /// Algorithm 2 `GETNEXTEV()`: the oldest valid EV, or outside that (freezing mode) the
    /// entry at `head`. Returns the EV, the branch and the slot read.
    fn get_next_ev(&mut self) -> (Ev, EvChoice, usize) {
        let n = self.state.number_of_valid_evs();
        let head = self.state.head();
        let offset;
        let choice;
        // A2 L3: `if numberOfValidEVs > 0`.
        if n > 0 {
            // A2 L4: `offset = (head - numberOfValidEVs) % REPS_BUFFER_SIZE`.
            offset = (head + N - n) % N;
            // ACK+Reuse EVs (section 4.5.1): one use of the entry's lifetime; lines 5-6
            // run when it is spent (always, for standard REPS with reuse = 1).
            let left = self.uses_left[offset].saturating_sub(1);
            self.uses_left[offset] = left;
            if left == 0 {
                // A2 L5: `repsBuffer[offset].isValid = false`.
                self.state.set_is_valid(offset, false);
                // A2 L6: `numberOfValidEVs = numberOfValidEVs - 1`.
                self.state.set_number_of_valid_evs(n - 1);
            }
            choice = EvChoice::Recycle;
        } else {
            // A2 L7-8: `else offset = head` ("must be in freezing mode").
            offset = head;
            // A2 L9: `head = (head + 1) % REPS_BUFFER_SIZE`.
            self.state.set_head((head + 1) % N);
            choice = EvChoice::Frozen;
        }
        // A2 L11: `return repsBuffer[offset].cachedEV`.
        (self.state.cached_ev(offset), choice, offset)
    }

    /// Algorithm 2 `ONSEND(dataPacket)`: the EV for the DATA packet being sent.
    ///
    /// Lines 15-18 assign no EV when the decremented `exploreCounter` is not a multiple of
    /// `REPS_BUFFER_SIZE`; such a packet continues with lines 19-22 (section 3.2: after
    /// freezing "we occasionally use random EVs", i.e. one packet in `REPS_BUFFER_SIZE`).
    // `% N == 0` spells A2 L16 as printed (and keeps the workspace's rust-version 1.80).
    #[allow(clippy::manual_is_multiple_of)]
    pub fn choose_ev<R: RandomSource>(&mut self, rng: &mut R) -> SendDecision {
        // A2 L15: `if exploreCounter > 0`.
        let explore = self.state.explore_counter();
        if explore > 0 {
            // A2 L16: `if (--exploreCounter % REPS_BUFFER_SIZE) == 0` (pre-decrement).
            let c = explore - 1;
            self.state.set_explore_counter(c);
            if (c as usize) % N == 0 {
                // A2 L17: `dataPacket.ev = rand() mod EVS_SIZE`.
                self.stats.explored += 1;
                return SendDecision {
                    ev: self.random_ev(rng),
                    choice: EvChoice::Explore,
                    slot: None,
                };
            }
        }
        // A2 L19: `else if repsBuffer.isEmpty() or (numberOfValidEVs == 0 and not
        // isFreezingMode)`.
        if self.state.is_empty()
            || (self.state.number_of_valid_evs() == 0 && !self.state.is_freezing_mode())
        {
            // A2 L20: `dataPacket.ev = rand() % EVS_SIZE`.
            self.stats.random += 1;
            return SendDecision {
                ev: self.random_ev(rng),
                choice: EvChoice::Random,
                slot: None,
            };
        }
        // A2 L21-22: `else dataPacket.ev = getNextEV()`.
        let (ev, choice, slot) = self.get_next_ev();
        match choice {
            EvChoice::Recycle => self.stats.recycled += 1,
            _ => self.stats.frozen += 1,
        }
        SendDecision {
            ev,
            choice,
            slot: Some(slot as u8),
        }
    }

    /// ACK+Carry EVs (section 4.5.1): one coalesced ACK covering several DATA packets,
    /// given as `(ev, ecn_marked)` per covered packet, oldest first. The receiver returns
    /// every unmarked EV; each goes through A1 `ONACK` in order (marked ones stop at
    /// A1 L6-7). Returns how many EVs were cached.
    pub fn on_coalesced_ack(&mut self, now: Cycles, covered: &[(Ev, bool)]) -> usize {
        covered
            .iter()
            .filter(|&&(ev, ecn)| {
                matches!(self.observe_ack(now, ev, ecn), AckOutcome::Cached { .. })
            })
            .count()
    }
}

impl RepsEngine<RepsWord<[u8; WORD_LEN]>, 8> {
    /// The Table 1 word (25 bytes, layout in [`crate::reps::word`]).
    pub fn word(&self) -> [u8; WORD_LEN] {
        self.state.into_inner()
    }

    /// Load a Table 1 word. Rejects malformed words (reserved / padding bits,
    /// `numberOfValidEVs > 8`) and unreachable states ([`RepsRepr::check`]); on error the
    /// state is unchanged.
    pub fn set_word(&mut self, word: [u8; WORD_LEN]) -> Result<(), RepsWordError> {
        let repr = RepsRepr::parse(&RepsWord::new_unchecked(word))?;
        self.set_repr(&repr)
    }
}

impl<const N: usize, const EV_BITS: usize, const BYTES: usize>
    RepsEngine<CompactWord<N, EV_BITS, BYTES>, N>
{
    /// The compact word (layout in [`crate::reps::compact`]).
    pub fn word(&self) -> [u8; BYTES] {
        self.state.bytes()
    }

    /// Load a compact word (rejects malformed or unreachable states; on error the state is
    /// unchanged).
    pub fn set_word(&mut self, word: [u8; BYTES]) -> Result<(), RepsWordError> {
        let repr = CompactWord::<N, EV_BITS, BYTES>::from_bytes(word)?.to_repr();
        self.set_repr(&repr)
    }
}

/// The budget of a REPS instance is that of its word (standard REPS; ACK+Reuse EVs adds
/// [`RepsConfig::reuse_extra_bits`]).
impl<S: RepsState<N> + StateBudget, const N: usize> StateBudget for RepsEngine<S, N> {
    const NAME: &'static str = S::NAME;
    const BITS: u32 = S::BITS;
    const UNIT: &'static str = S::UNIT;
    const PAPER_BITS: Option<u32> = S::PAPER_BITS;
    const PAPER_REF: &'static str = S::PAPER_REF;
}

/// REPS has no per-cycle behaviour: its only timer, `exitFreezingMode`, is an absolute
/// timestamp compared with the NIC clock when an ACK arrives (A1 L15), so an idle cycle
/// changes nothing and `advance(n)` is trivially `n` idle ticks.
impl<S: RepsState<N>, const N: usize> Clocked for RepsEngine<S, N> {
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

/// With [`RepsConfig::timed_exit`] the send and failure hooks first check section 3.2's
/// timed exit ([`RepsEngine::thaw_if_due`]); without it they are Algorithms 1 and 2 as
/// printed.
impl<S: RepsState<N>, const N: usize> LoadBalancer for RepsEngine<S, N> {
    fn on_send<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> Ev {
        if self.cfg.timed_exit {
            self.thaw_if_due(now);
        }
        self.choose_ev(rng).ev
    }

    fn on_ack(&mut self, now: Cycles, ev: Ev, ecn: bool) {
        self.observe_ack(now, ev, ecn);
    }

    fn on_failure_detection(&mut self, now: Cycles) {
        if self.cfg.timed_exit {
            self.thaw_if_due(now);
        }
        self.observe_failure(now);
    }
}
