//! Test helpers shared by every block crate's tests (`#[doc(hidden)]`: not part of the
//! hardware vocabulary, but usable from `nic`, `switch` and `scheduler-asic` tests).
//!
//! DESIGN.md ("Cycle accuracy with cheap idling") asks every block for a property test that
//! `advance(n)` equals `n` idle `tick()`s. [`assert_advance_eq_ticks`] is that check, written
//! once: it clones the start state, advances one copy by `n` and ticks the other `n` times,
//! and panics (which `proptest` reports and shrinks like a failed `prop_assert!`) with both
//! states if they differ.

use core::fmt::Debug;

use crate::clock::Cycles;
use crate::clocked::Clocked;

/// Check that `start.advance(n)` gives the same state as `n` calls to `start.tick()`, and
/// return that state (so a test can keep checking behaviour after the jump).
///
/// # Panics
/// If the two states differ; the message names `n` and shows both.
#[track_caller]
pub fn assert_advance_eq_ticks<T>(start: &T, n: Cycles) -> T
where
    T: Clocked + Clone + PartialEq + Debug,
{
    let mut advanced = start.clone();
    advanced.advance(n);
    let mut ticked = start.clone();
    for _ in 0..n {
        ticked.tick();
    }
    assert!(
        advanced == ticked,
        "advance({n}) differs from {n} idle ticks:\n  advance: {advanced:?}\n  ticks:   {ticked:?}"
    );
    advanced
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block whose `advance` is wrong past 3 cycles: the helper must catch it.
    #[derive(Debug, Clone, PartialEq)]
    struct Broken(u64);
    impl Clocked for Broken {
        fn tick(&mut self) {
            self.0 += 1;
        }
        fn advance(&mut self, cycles: Cycles) {
            self.0 += cycles.min(3);
        }
    }

    #[test]
    fn passes_when_equal_and_returns_the_state() {
        assert_eq!(assert_advance_eq_ticks(&Broken(5), 3), Broken(8));
        assert_eq!(assert_advance_eq_ticks(&Broken(5), 0), Broken(5));
    }

    #[test]
    #[should_panic(expected = "advance(4) differs from 4 idle ticks")]
    fn catches_a_wrong_advance() {
        assert_advance_eq_ticks(&Broken(0), 4);
    }
}
