//! Clocks and cycle counts, and their conversion from the DES's picoseconds.

/// A number of clock cycles (or a cycle timestamp).
pub type Cycles = u64;

/// A clock domain, given by its period in picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Clock {
    /// Clock period in picoseconds (1000 = 1 GHz). Never zero.
    pub period_ps: u64,
}

impl Clock {
    /// A clock of `period_ps` picoseconds; `None` for a zero period.
    pub const fn new(period_ps: u64) -> Option<Self> {
        if period_ps == 0 {
            None
        } else {
            Some(Clock { period_ps })
        }
    }

    /// 1 GHz, the default NIC / switch pipeline clock.
    pub const GHZ1: Clock = Clock { period_ps: 1000 };

    /// The cycle in progress at time `ps` (floor).
    pub const fn cycle_at(self, ps: u64) -> Cycles {
        ps / self.period_ps
    }

    /// Whole cycles needed to cover `ps` picoseconds (ceiling).
    pub const fn cycles_ceil(self, ps: u64) -> Cycles {
        ps.div_ceil(self.period_ps)
    }

    /// Start time of cycle `c` in picoseconds (saturating).
    pub const fn ps_of(self, c: Cycles) -> u64 {
        c.saturating_mul(self.period_ps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        let clk = Clock::new(1250).unwrap(); // 800 MHz
        assert_eq!(clk.cycle_at(2499), 1);
        assert_eq!(clk.cycle_at(2500), 2);
        assert_eq!(clk.cycles_ceil(2501), 3);
        assert_eq!(clk.ps_of(4), 5000);
        assert!(Clock::new(0).is_none());
    }
}
