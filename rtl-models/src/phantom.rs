//! Phantom queue (virtual queue): a byte counter that fills with the real traffic and
//! drains at a fixed fraction of line rate, used to drive ECN marks.
//!
//! Uno, section 4.1.3 "Phantom Queues" (and section 2, Figure 4; Table 2: drain rate
//! `0.9 x` physical drain rate): "The phantom queue occupancy increases every time a new
//! packet is enqueued in the physical queue and decreases at a constant rate (*i.e.*,
//! draining rate), which is a fraction of the link bandwidth. [...] a phantom queue is easily
//! implementable using a counter that keeps track of its occupancy." Originally HULL
//! (Uno ref. \[10\]). Because it drains slower than the link, it signals congestion (ECN)
//! before the physical queue builds up, and it can be "arbitrarily" large (matching an
//! inter-DC BDP) regardless of the physical buffer.
//!
//! ```text
//!   on_enqueue(bytes) ---+                       (every packet admitted to the
//!                        v                        physical queue, same bytes)
//!              +--------------------+
//!              | level (Q32.32 B)   |  <= cap_bytes     occupancy() -> whole bytes
//!              +--------------------+ ----------------> (to the RED/ECN marker)
//!                        |
//!                        v  drain: Rate (B/cycle, Q32.32), e.g. 0.9 x line rate
//! ```
//!
//! Units: level and cap in bytes (level kept in Q32.32 so a fractional drain per cycle is
//! exact), drain in bytes per cycle (Q32.32 [`Rate`]), time in cycles of the port clock.
//!
//! Timing: within a cycle, enqueues add first; the clock edge ([`Clocked::tick`]) then drains
//! one cycle's worth, saturating at 0. Adds are capped at `cap_bytes` (a full phantom queue
//! drops nothing real: it only stops growing). Since the drain is a saturating subtraction
//! of a constant, `n` idle ticks equal one subtraction of `n * drain`: [`Clocked::advance`]
//! is O(1). The model also keeps the cycle it has been brought up to, so a lazy caller (the
//! DES) calls [`PhantomQueue::sync_to`] with the current cycle before reading or enqueueing.
//!
//! State budget: the 64-bit Q32.32 level register (hardware drains it every cycle). The
//! synced-cycle stamp is bookkeeping of the lazy software evaluation and is not counted;
//! drain and cap are configuration registers.

use crate::budget::StateBudget;
use crate::clock::Cycles;
use crate::clocked::Clocked;
use crate::error::ConfigError;
use crate::fixed::{Rate, FRAC_BITS};

/// Largest phantom-queue cap: the level's 32 integer bits.
pub const MAX_CAP_BYTES: u64 = u32::MAX as u64;

/// Configuration of a phantom queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PhantomConfig {
    /// Drain rate in bytes per cycle (Uno: 0.9 x line rate, `Rate::from_link(..).scale(9, 10)`).
    pub drain: Rate,
    /// Largest level in bytes (1..=[`MAX_CAP_BYTES`]).
    pub cap_bytes: u64,
}

impl PhantomConfig {
    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.drain.0 == 0 {
            return Err(ConfigError::new(
                "drain",
                "must be above zero bytes per cycle",
            ));
        }
        if self.cap_bytes == 0 {
            return Err(ConfigError::new("cap_bytes", "must be above zero"));
        }
        if self.cap_bytes > MAX_CAP_BYTES {
            return Err(ConfigError::new(
                "cap_bytes",
                "above 2^32 - 1 bytes (32 integer bits of the level)",
            ));
        }
        Ok(())
    }
}

/// A phantom (virtual) queue: Q32.32 byte level, constant drain, capped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PhantomQueue {
    drain: Rate,
    cap_q: u64,
    level_q: u64,
    synced: Cycles,
}

impl PhantomQueue {
    /// An empty phantom queue draining `drain` bytes per cycle and holding at most
    /// `cap_bytes`, synced to cycle 0. `None` if the drain is zero or the cap is zero or above
    /// [`MAX_CAP_BYTES`] (use [`PhantomConfig::validate`] for the reason).
    pub const fn new(drain: Rate, cap_bytes: u64) -> Option<Self> {
        match Self::from_config(PhantomConfig { drain, cap_bytes }) {
            Ok(q) => Some(q),
            Err(_) => None,
        }
    }

    /// Same as [`PhantomQueue::new`], with the reason on failure.
    pub const fn from_config(cfg: PhantomConfig) -> Result<Self, ConfigError> {
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        Ok(PhantomQueue {
            drain: cfg.drain,
            cap_q: cfg.cap_bytes << FRAC_BITS,
            level_q: 0,
            synced: 0,
        })
    }

    /// A packet of `bytes` was enqueued in the physical queue this cycle.
    #[inline]
    pub fn on_enqueue(&mut self, bytes: u32) {
        self.level_q = self
            .level_q
            .saturating_add((bytes as u64) << FRAC_BITS)
            .min(self.cap_q);
    }

    /// Occupancy in whole bytes (floor of the Q32.32 level).
    #[inline]
    pub const fn occupancy(&self) -> u64 {
        self.level_q >> FRAC_BITS
    }

    /// The raw Q32.32 level.
    #[inline]
    pub const fn level_q(&self) -> u64 {
        self.level_q
    }

    /// Configured drain rate (bytes per cycle).
    pub const fn drain(&self) -> Rate {
        self.drain
    }

    /// Configured cap in bytes.
    pub const fn cap_bytes(&self) -> u64 {
        self.cap_q >> FRAC_BITS
    }

    /// The configuration this queue was built from.
    pub const fn config(&self) -> PhantomConfig {
        PhantomConfig {
            drain: self.drain,
            cap_bytes: self.cap_bytes(),
        }
    }

    /// The cycle the queue has been brought up to (count of ticks / advanced cycles).
    #[inline]
    pub const fn now(&self) -> Cycles {
        self.synced
    }

    /// Drain up to cycle `now` (advance by `now - self.now()` idle cycles); a `now` in the
    /// past is ignored.
    #[inline]
    pub fn sync_to(&mut self, now: Cycles) {
        if now > self.synced {
            self.advance(now - self.synced);
        }
    }

    /// Idle cycles until the level is zero.
    pub const fn cycles_until_empty(&self) -> Cycles {
        // drain is non-zero by construction.
        (self.level_q as u128).div_ceil(self.drain.0 as u128) as u64
    }

    /// Empty the queue (keeps the synced cycle).
    pub fn clear(&mut self) {
        self.level_q = 0;
    }
}

impl Clocked for PhantomQueue {
    #[inline]
    fn tick(&mut self) {
        self.level_q = self.level_q.saturating_sub(self.drain.0);
        self.synced = self.synced.saturating_add(1);
    }

    #[inline]
    fn advance(&mut self, cycles: Cycles) {
        let drained = self.drain.over(cycles);
        self.level_q = (self.level_q as u128).saturating_sub(drained) as u64;
        self.synced = self.synced.saturating_add(cycles);
    }
}

impl StateBudget for PhantomQueue {
    const NAME: &'static str = "Phantom queue (Uno 4.1.3)";
    const BITS: u32 = 64;
    const UNIT: &'static str = "per port";
}
// Packed form: the Q32.32 level register, whose 32 integer bits hold the largest cap.
const _: () = assert!(
    PhantomQueue::BITS == u64::BITS
        && (MAX_CAP_BYTES as u128) << FRAC_BITS < 1u128 << PhantomQueue::BITS
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn uno_drain_at_90_percent() {
        // 400 Gb/s at 1 GHz = 50 B/cycle; phantom drains at 45 B/cycle.
        let line = Rate::from_link(400_000_000_000, 1000).unwrap();
        let mut p = PhantomQueue::new(line.scale(9, 10).unwrap(), 1 << 20).unwrap();
        p.on_enqueue(4096);
        p.on_enqueue(4096);
        assert_eq!(p.occupancy(), 8192);
        p.advance(91); // 91 * 45 = 4095
        assert_eq!(p.occupancy(), 8192 - 4095);
        assert_eq!(p.cycles_until_empty(), 92);
        p.sync_to(91 + 92);
        assert_eq!(p.occupancy(), 0);
        p.sync_to(10); // the past: ignored
        assert_eq!(p.now(), 183);
    }

    #[test]
    fn fractional_drain_is_exact_and_cap_holds() {
        let mut p = PhantomQueue::new(Rate::from_ratio(1, 3).unwrap(), 10).unwrap();
        p.on_enqueue(7);
        p.on_enqueue(7);
        assert_eq!(p.occupancy(), 10); // capped
        for _ in 0..3 {
            p.tick();
        }
        // 3 * floor(2^32 / 3) = 2^32 - 1 units drained: just under one byte.
        assert_eq!(p.level_q(), (10u64 << 32) - ((1u64 << 32) - 1));
        assert_eq!(p.occupancy(), 9);
        p.tick();
        assert_eq!(p.occupancy(), 8);
    }

    #[test]
    fn config_errors_name_the_field() {
        let r = Rate::from_int(1);
        assert_eq!(
            PhantomQueue::from_config(PhantomConfig {
                drain: Rate::ZERO,
                cap_bytes: 1
            })
            .unwrap_err()
            .field,
            "drain"
        );
        assert_eq!(
            PhantomQueue::from_config(PhantomConfig {
                drain: r,
                cap_bytes: 0
            })
            .unwrap_err()
            .field,
            "cap_bytes"
        );
        assert_eq!(
            PhantomQueue::from_config(PhantomConfig {
                drain: r,
                cap_bytes: 1 << 32
            })
            .unwrap_err()
            .field,
            "cap_bytes"
        );
        assert!(PhantomQueue::new(r, MAX_CAP_BYTES).is_some());
        assert!(PhantomQueue::new(Rate::ZERO, 5).is_none());
    }

    proptest! {
        #[test]
        fn advance_equals_idle_ticks(drain in 1u64..(200u64 << 32), cap in 1u64..1_000_000,
                                     fills in proptest::collection::vec((0u32..10_000, 0u64..300), 0..6),
                                     n in 0u64..2000) {
            let mut a = PhantomQueue::new(Rate(drain), cap).unwrap();
            for (b, gap) in fills { a.on_enqueue(b); a.advance(gap); }
            let mut c = a;
            let a = crate::testing::assert_advance_eq_ticks(&a, n);
            c.sync_to(c.now() + n);
            prop_assert_eq!(a, c);
            prop_assert!(a.occupancy() <= cap);
        }
    }
}
