//! The REPS state variables (Algorithm 1 lines 1-3, Table 1) as a storage-agnostic trait,
//! and their logical, unpacked view [`RepsRepr`].
//!
//! [`crate::reps::RepsEngine`] runs Algorithms 1 and 2 against any [`RepsState`]: the Table 1
//! word ([`crate::reps::RepsWord`]), the compact word ([`crate::reps::CompactWord`]) or the
//! unpacked [`RepsRepr`] itself. The packed forms are what an NIC SRAM row holds; the repr
//! is for debugging, traces and `set_word`/`word` conversions (smoltcp's `Repr`).

use core::fmt;

use crate::lb::Ev;

/// Read/write access to the REPS state of one connection with an `N`-entry buffer.
///
/// Indices are buffer slots `0..N`; implementations reduce out-of-range indices modulo `N`
/// (they never panic). Field names are the paper's (Algorithm 1, Table 1).
pub trait RepsState<const N: usize> {
    /// Width of one stored `cachedEV`, bits (16 in Table 1).
    const EV_FIELD_BITS: u32;
    /// `repsBuffer[i].cachedEV`.
    fn cached_ev(&self, i: usize) -> Ev;
    /// Write `repsBuffer[i].cachedEV` (the value already fits the EV width).
    fn set_cached_ev(&mut self, i: usize, ev: Ev);
    /// `repsBuffer[i].isValid`.
    fn is_valid(&self, i: usize) -> bool;
    /// Write `repsBuffer[i].isValid`. A layout that derives validity from `head` and
    /// `numberOfValidEVs` (the compact word) ignores the write: the engine always updates
    /// the count in the same step, which keeps the derived bit equal.
    fn set_is_valid(&mut self, i: usize, valid: bool);
    /// `head`, in `0..N`.
    fn head(&self) -> usize;
    /// Write `head` (`0..N`).
    fn set_head(&mut self, head: usize);
    /// `numberOfValidEVs`, in `0..=N`.
    fn number_of_valid_evs(&self) -> usize;
    /// Write `numberOfValidEVs` (`0..=N`).
    fn set_number_of_valid_evs(&mut self, n: usize);
    /// `exitFreezingMode`: low 32 bits of the NIC cycle count at which freezing may end.
    fn exit_freezing_mode(&self) -> u32;
    /// Write `exitFreezingMode`.
    fn set_exit_freezing_mode(&mut self, t: u32);
    /// `isFreezingMode`.
    fn is_freezing_mode(&self) -> bool;
    /// Write `isFreezingMode`.
    fn set_is_freezing_mode(&mut self, on: bool);
    /// `exploreCounter` (8 bits).
    fn explore_counter(&self) -> u8;
    /// Write `exploreCounter`.
    fn set_explore_counter(&mut self, c: u8);
    /// `repsBuffer.isEmpty()` (Alg. 2 line 19): no ACK EV was ever cached.
    fn is_empty(&self) -> bool;
    /// Write the emptiness flag (the engine only ever clears it, Alg. 1 line 12).
    fn set_is_empty(&mut self, empty: bool);
}

/// Whether slot `i` lies in the window of the `n` slots just before `head` (mod `N`): the
/// slots that hold valid EVs in every reachable REPS state (valid EVs are appended at
/// `head` by Alg. 1 lines 12-14 and consumed oldest first at `head - n` by Alg. 2 lines
/// 4-6, so they stay contiguous).
pub const fn in_valid_window(i: usize, head: usize, n: usize, buffer_size: usize) -> bool {
    if buffer_size == 0 {
        return false;
    }
    let d = (head % buffer_size + buffer_size - 1 - i % buffer_size) % buffer_size;
    d < n
}

/// Why a packed word or a repr is not a REPS state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RepsWordError {
    /// The buffer is shorter than the word.
    Truncated {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        need: usize,
    },
    /// A field holds a value no REPS state has.
    Field {
        /// The field (paper name, e.g. `"numberOfValidEVs"`).
        field: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
}

impl RepsWordError {
    const fn field(field: &'static str, problem: &'static str) -> Self {
        RepsWordError::Field { field, problem }
    }
}

impl fmt::Display for RepsWordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RepsWordError::Truncated { len, need } => {
                write!(f, "REPS word truncated: {len} bytes, need {need}")
            }
            RepsWordError::Field { field, problem } => write!(f, "{field}: {problem}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RepsWordError {}

/// The logical (unpacked) REPS state of one connection: Algorithm 1 lines 1-3 with the
/// paper's names. `N` is `REPS_BUFFER_SIZE` (8 in the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RepsRepr<const N: usize = 8> {
    /// `repsBuffer[i].cachedEV`.
    pub cached_ev: [Ev; N],
    /// `repsBuffer[i].isValid`.
    pub is_valid: [bool; N],
    /// `head`: the slot the next cached ACK EV is written to.
    pub head: u8,
    /// `numberOfValidEVs`.
    pub number_of_valid_evs: u8,
    /// `exitFreezingMode`: low 32 bits of the NIC cycle count (see the module doc of
    /// [`crate::reps`] for the wrap-around compare).
    pub exit_freezing_mode: u32,
    /// `isFreezingMode`.
    pub is_freezing_mode: bool,
    /// `exploreCounter`.
    pub explore_counter: u8,
    /// `repsBuffer.isEmpty()`.
    pub is_empty: bool,
}

impl<const N: usize> RepsRepr<N> {
    /// The state after reset (Alg. 1 lines 1-3): empty buffer, everything zero.
    pub const fn new() -> Self {
        RepsRepr {
            cached_ev: [0; N],
            is_valid: [false; N],
            head: 0,
            number_of_valid_evs: 0,
            exit_freezing_mode: 0,
            is_freezing_mode: false,
            explore_counter: 0,
            is_empty: true,
        }
    }

    /// Check that this is a state Algorithms 1 and 2 can reach with EVs of `ev_bits` bits:
    /// `head < N`, `numberOfValidEVs <= N`, the valid slots are exactly the
    /// `numberOfValidEVs` slots before `head`, EVs fit `ev_bits`, an empty buffer is all
    /// zero, and `exploreCounter` is 0 in freezing mode (Alg. 1 line 22 only freezes at 0,
    /// line 17 only loads it when leaving).
    pub fn check(&self, ev_bits: u8) -> Result<(), RepsWordError> {
        if (self.head as usize) >= N {
            return Err(RepsWordError::field(
                "head",
                "must be below REPS_BUFFER_SIZE",
            ));
        }
        let n = self.number_of_valid_evs as usize;
        if n > N {
            return Err(RepsWordError::field(
                "numberOfValidEVs",
                "exceeds REPS_BUFFER_SIZE",
            ));
        }
        for i in 0..N {
            if self.is_valid[i] != in_valid_window(i, self.head as usize, n, N) {
                return Err(RepsWordError::field(
                    "isValid",
                    "valid entries must be exactly the numberOfValidEVs slots before head",
                ));
            }
        }
        let mask: u32 = (1u32 << ev_bits.min(16)) - 1;
        if self.cached_ev.iter().any(|&e| (e as u32) & !mask != 0) {
            return Err(RepsWordError::field(
                "cachedEV",
                "wider than the configured EV width (ev_bits)",
            ));
        }
        if self.is_empty && (self.head != 0 || n != 0 || self.cached_ev.iter().any(|&e| e != 0)) {
            return Err(RepsWordError::field(
                "isEmpty",
                "an empty buffer has head 0, no valid EVs and zero entries",
            ));
        }
        if self.is_freezing_mode && self.explore_counter != 0 {
            return Err(RepsWordError::field(
                "exploreCounter",
                "must be 0 in freezing mode (Alg. 1 line 22)",
            ));
        }
        Ok(())
    }

    /// Copy every field of `src` into this repr.
    pub fn read_from<S: RepsState<N>>(src: &S) -> Self {
        let mut r = Self::new();
        for i in 0..N {
            r.cached_ev[i] = src.cached_ev(i);
            r.is_valid[i] = src.is_valid(i);
        }
        r.head = src.head() as u8;
        r.number_of_valid_evs = src.number_of_valid_evs() as u8;
        r.exit_freezing_mode = src.exit_freezing_mode();
        r.is_freezing_mode = src.is_freezing_mode();
        r.explore_counter = src.explore_counter();
        r.is_empty = src.is_empty();
        r
    }

    /// Write every field of this repr into `dst`.
    pub fn write_to<S: RepsState<N>>(&self, dst: &mut S) {
        for i in 0..N {
            dst.set_cached_ev(i, self.cached_ev[i]);
            dst.set_is_valid(i, self.is_valid[i]);
        }
        dst.set_head(self.head as usize);
        dst.set_number_of_valid_evs(self.number_of_valid_evs as usize);
        dst.set_exit_freezing_mode(self.exit_freezing_mode);
        dst.set_is_freezing_mode(self.is_freezing_mode);
        dst.set_explore_counter(self.explore_counter);
        dst.set_is_empty(self.is_empty);
    }
}

impl<const N: usize> Default for RepsRepr<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The unpacked repr is itself a storage layout (the reference the packed ones are
/// compared with).
impl<const N: usize> RepsState<N> for RepsRepr<N> {
    const EV_FIELD_BITS: u32 = 16;
    fn cached_ev(&self, i: usize) -> Ev {
        self.cached_ev[i % N]
    }
    fn set_cached_ev(&mut self, i: usize, ev: Ev) {
        self.cached_ev[i % N] = ev;
    }
    fn is_valid(&self, i: usize) -> bool {
        self.is_valid[i % N]
    }
    fn set_is_valid(&mut self, i: usize, valid: bool) {
        self.is_valid[i % N] = valid;
    }
    fn head(&self) -> usize {
        self.head as usize
    }
    fn set_head(&mut self, head: usize) {
        self.head = head as u8;
    }
    fn number_of_valid_evs(&self) -> usize {
        self.number_of_valid_evs as usize
    }
    fn set_number_of_valid_evs(&mut self, n: usize) {
        self.number_of_valid_evs = n as u8;
    }
    fn exit_freezing_mode(&self) -> u32 {
        self.exit_freezing_mode
    }
    fn set_exit_freezing_mode(&mut self, t: u32) {
        self.exit_freezing_mode = t;
    }
    fn is_freezing_mode(&self) -> bool {
        self.is_freezing_mode
    }
    fn set_is_freezing_mode(&mut self, on: bool) {
        self.is_freezing_mode = on;
    }
    fn explore_counter(&self) -> u8 {
        self.explore_counter
    }
    fn set_explore_counter(&mut self, c: u8) {
        self.explore_counter = c;
    }
    fn is_empty(&self) -> bool {
        self.is_empty
    }
    fn set_is_empty(&mut self, empty: bool) {
        self.is_empty = empty;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_the_n_slots_before_head() {
        // head 2, n 3 on 8 slots: slots 1, 0, 7.
        let v: [bool; 8] = core::array::from_fn(|i| in_valid_window(i, 2, 3, 8));
        assert_eq!(v, [true, true, false, false, false, false, false, true]);
        assert!((0..8).all(|i| in_valid_window(i, 5, 8, 8)));
        assert!((0..8).all(|i| !in_valid_window(i, 5, 0, 8)));
        assert!(!in_valid_window(0, 0, 1, 0));
    }

    #[test]
    fn check_rejects_unreachable_states_by_field() {
        let ok = RepsRepr::<8>::new();
        assert_eq!(ok.check(16), Ok(()));
        let field = |r: RepsRepr<8>, bits: u8| match r.check(bits) {
            Err(RepsWordError::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        };
        assert_eq!(field(RepsRepr { head: 8, ..ok }, 16), "head");
        assert_eq!(
            field(
                RepsRepr {
                    number_of_valid_evs: 9,
                    is_empty: false,
                    ..ok
                },
                16
            ),
            "numberOfValidEVs"
        );
        let mut gap = RepsRepr {
            head: 3,
            number_of_valid_evs: 2,
            is_empty: false,
            ..ok
        };
        gap.is_valid[1] = true;
        gap.is_valid[0] = true; // should be slots 2 and 1
        assert_eq!(field(gap, 16), "isValid");
        let mut wide = RepsRepr {
            is_empty: false,
            ..ok
        };
        wide.cached_ev[3] = 0x20;
        assert_eq!(wide.check(6), Ok(()));
        assert_eq!(field(wide, 5), "cachedEV");
        assert_eq!(field(RepsRepr { head: 1, ..ok }, 16), "isEmpty");
        assert_eq!(
            field(
                RepsRepr {
                    is_freezing_mode: true,
                    explore_counter: 3,
                    ..ok
                },
                16
            ),
            "exploreCounter"
        );
    }
}
