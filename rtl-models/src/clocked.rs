//! The `Clocked` discipline (DESIGN.md, "Cycle accuracy with cheap idling").

use crate::clock::Cycles;

/// A synchronous block: per-cycle inputs are method calls made during the current cycle,
/// [`Clocked::tick`] closes the cycle, and [`Clocked::advance`] jumps over `n` idle cycles in
/// O(1). Every implementor has a property test proving `advance(n)` equals `n` idle ticks.
pub trait Clocked {
    /// Close the current cycle (one rising edge) with no new inputs.
    fn tick(&mut self);
    /// Jump over `cycles` idle cycles; must equal `cycles` calls to [`Clocked::tick`].
    fn advance(&mut self, cycles: Cycles);
}
