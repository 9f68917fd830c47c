//! pFabric host rate control: line rate, timeouts only, probe mode after repeated timeouts.
//!
//! pFabric (Alizadeh et al., SIGCOMM 2013, section 4.3 "Rate Control"), a DCSIM baseline
//! (DCSIM section 4.1; section 5 "Priorities"). The fabric does the scheduling (see
//! `switch::pfabric`); the host only avoids persistent congestion collapse:
//!
//! * a flow starts at line rate: its window is one BDP (`init_window_pkts`), and an ACK
//!   grows it back by one packet up to that BDP;
//! * loss is detected only by a fixed retransmission timeout (`rto_cycles`, a few RTTs; no
//!   fast retransmit); a timeout drops the window to one packet;
//! * after `probe_after` consecutive timeouts the flow enters **probe mode**: it sends only
//!   minimal probe packets, one per timeout, until an ACK arrives, then resumes.
//!
//! ```text
//!   on_send() -----> timer armed (rto) if idle       can_send(inflight):
//!   on_ack(all) ---> consecutive = 0, probe off,       probe mode: Probe once per timeout
//!                    cwnd = min(cwnd + 1, BDP),        else inflight < cwnd: Data
//!                    timer = all ? off : rto           else Wait
//!   tick: timer -= 1; at 0: timeout: cwnd = 1, consecutive += 1,
//!         consecutive >= probe_after: probe mode; timer = rto (re-armed)
//! ```
//!
//! Units: cycles, packets. `advance(n)` counts the timeouts in `n` cycles arithmetically.

use rtl_models::budget::StateBudget;
use rtl_models::{field_bits, Clocked, ConfigError, Cycles};

/// pFabric host rate-control configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PfabricRateConfig {
    /// Initial and largest window, packets: one BDP (line rate). `>= 1`.
    pub init_window_pkts: u32,
    /// Fixed retransmission timeout, cycles (pFabric: about 3 RTTs). `>= 1`.
    pub rto_cycles: u32,
    /// Consecutive timeouts before probe mode (pFabric: 5). `>= 1`.
    pub probe_after: u8,
}

impl PfabricRateConfig {
    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.init_window_pkts == 0 {
            return Err(ConfigError::new("init_window_pkts", "must be at least 1"));
        }
        if self.rto_cycles == 0 {
            return Err(ConfigError::new("rto_cycles", "must be at least 1"));
        }
        if self.probe_after == 0 {
            return Err(ConfigError::new("probe_after", "must be at least 1"));
        }
        Ok(())
    }
}

/// What the flow may send now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendMode {
    /// A DATA packet (window open).
    Data,
    /// A minimal probe packet (probe mode, one per timeout).
    Probe,
    /// Nothing.
    Wait,
}

/// pFabric rate control of one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PfabricRate {
    cfg: PfabricRateConfig,
    /// Window, packets.
    cwnd: u32,
    /// Consecutive timeouts (saturating).
    consecutive: u8,
    /// In probe mode.
    probe: bool,
    /// A probe may be sent (set by each timeout in probe mode).
    probe_due: bool,
    /// Cycles until the timeout (0: disarmed).
    timer: u32,
    /// Timeouts not yet taken by the NIC (each one retransmits).
    timeouts: u32,
}

impl PfabricRate {
    /// A flow at line rate, timer disarmed; the error names the bad field.
    pub const fn new(cfg: PfabricRateConfig) -> Result<Self, ConfigError> {
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        Ok(PfabricRate {
            cfg,
            cwnd: cfg.init_window_pkts,
            consecutive: 0,
            probe: false,
            probe_due: false,
            timer: 0,
            timeouts: 0,
        })
    }

    /// What may be sent with `inflight_pkts` unacknowledged packets.
    pub const fn can_send(&self, inflight_pkts: u32) -> SendMode {
        if self.probe {
            if self.probe_due {
                SendMode::Probe
            } else {
                SendMode::Wait
            }
        } else if inflight_pkts < self.cwnd {
            SendMode::Data
        } else {
            SendMode::Wait
        }
    }

    /// A packet (DATA or probe) left: arm the timer if idle; a probe uses up the due probe.
    pub fn on_send(&mut self) {
        if self.timer == 0 {
            self.timer = self.cfg.rto_cycles;
        }
        if self.probe {
            self.probe_due = false;
        }
    }

    /// An ACK arrived; `all_acked`: nothing is outstanding any more.
    pub fn on_ack(&mut self, all_acked: bool) {
        self.consecutive = 0;
        self.probe = false;
        self.probe_due = false;
        self.cwnd = if self.cwnd < self.cfg.init_window_pkts {
            self.cwnd + 1
        } else {
            self.cfg.init_window_pkts
        };
        self.timer = if all_acked { 0 } else { self.cfg.rto_cycles };
    }

    /// Timeouts since the last call (the NIC retransmits for each).
    pub fn take_timeouts(&mut self) -> u32 {
        core::mem::take(&mut self.timeouts)
    }

    /// Window, packets.
    pub const fn cwnd(&self) -> u32 {
        self.cwnd
    }

    /// Consecutive timeouts so far.
    pub const fn consecutive_timeouts(&self) -> u8 {
        self.consecutive
    }

    /// In probe mode.
    pub const fn probing(&self) -> bool {
        self.probe
    }

    /// Cycles until the timeout (0: disarmed).
    pub const fn timer(&self) -> u32 {
        self.timer
    }

    /// `k >= 1` timeouts at once; the timer is then set by the caller.
    fn timeouts_fired(&mut self, k: u64) {
        self.timeouts = self.timeouts.saturating_add(k.min(u32::MAX as u64) as u32);
        self.consecutive = (self.consecutive as u64 + k).min(u8::MAX as u64) as u8;
        self.cwnd = 1;
        if self.consecutive >= self.cfg.probe_after {
            self.probe = true;
            self.probe_due = true;
        }
    }
}

impl Clocked for PfabricRate {
    fn tick(&mut self) {
        if self.timer > 0 {
            self.timer -= 1;
            if self.timer == 0 {
                self.timeouts_fired(1);
                self.timer = self.cfg.rto_cycles;
            }
        }
    }

    fn advance(&mut self, cycles: Cycles) {
        if self.timer == 0 || cycles == 0 {
            return;
        }
        if cycles < self.timer as u64 {
            self.timer -= cycles as u32;
            return;
        }
        let rto = self.cfg.rto_cycles as u64;
        let after_first = cycles - self.timer as u64;
        self.timeouts_fired(1 + after_first / rto);
        self.timer = (rto - after_first % rto) as u32;
    }
}

impl StateBudget for PfabricRate {
    const NAME: &'static str = "pFabric host rate control";
    /// Window + consecutive-timeout counter + probe and probe-due flags + timer + pending
    /// timeouts. The configuration is per host.
    const BITS: u32 = 32 + 8 + 1 + 1 + 32 + 32;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(
    PfabricRate::BITS
        == field_bits!(PfabricRate, cwnd)
            + field_bits!(PfabricRate, consecutive)
            + 2
            + field_bits!(PfabricRate, timer)
            + field_bits!(PfabricRate, timeouts)
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::testing::assert_advance_eq_ticks;

    const CFG: PfabricRateConfig = PfabricRateConfig {
        init_window_pkts: 8,
        rto_cycles: 10,
        probe_after: 5,
    };

    #[test]
    fn line_rate_then_backoff_then_probe() {
        let mut r = PfabricRate::new(CFG).unwrap();
        assert_eq!(r.can_send(7), SendMode::Data);
        assert_eq!(r.can_send(8), SendMode::Wait);
        r.on_send();
        for _ in 0..10 {
            r.tick();
        }
        assert_eq!(r.take_timeouts(), 1);
        assert_eq!((r.cwnd(), r.probing()), (1, false));
        assert_eq!(r.can_send(1), SendMode::Wait);
        r.advance(40); // four more timeouts: probe mode
        assert_eq!(r.take_timeouts(), 4);
        assert!(r.probing());
        assert_eq!(r.can_send(0), SendMode::Probe);
        r.on_send();
        assert_eq!(r.can_send(0), SendMode::Wait);
        r.advance(10);
        assert_eq!(r.can_send(0), SendMode::Probe);
        r.on_ack(false);
        assert!(!r.probing());
        assert_eq!((r.cwnd(), r.consecutive_timeouts(), r.timer()), (2, 0, 10));
        r.on_ack(true);
        assert_eq!(r.timer(), 0);
        for _ in 0..10 {
            r.on_ack(true);
        }
        assert_eq!(r.cwnd(), 8, "the window grows back to one BDP, not beyond");
    }

    #[test]
    fn errors_name_fields() {
        let e = |c| PfabricRate::new(c).unwrap_err().field;
        assert_eq!(
            e(PfabricRateConfig {
                init_window_pkts: 0,
                ..CFG
            }),
            "init_window_pkts"
        );
        assert_eq!(
            e(PfabricRateConfig {
                rto_cycles: 0,
                ..CFG
            }),
            "rto_cycles"
        );
        assert_eq!(
            e(PfabricRateConfig {
                probe_after: 0,
                ..CFG
            }),
            "probe_after"
        );
    }

    proptest! {
        /// `advance(n)` equals `n` idle ticks from any reachable state.
        #[test]
        fn advance_equals_idle_ticks(ops in proptest::collection::vec((0u8..3, 0u64..40), 0..20), rto in 1u32..20,
                                     n in 0u64..400) {
            let mut r = PfabricRate::new(PfabricRateConfig { rto_cycles: rto, ..CFG }).unwrap();
            for (op, gap) in ops {
                match op { 0 => r.on_send(), 1 => r.on_ack(gap % 2 == 0), _ => { r.take_timeouts(); } }
                r.advance(gap);
            }
            assert_advance_eq_ticks(&r, n);
        }

        /// Probe mode exactly when `probe_after` timeouts came without an ACK in between.
        #[test]
        fn probe_iff_enough_consecutive_timeouts(gaps in proptest::collection::vec(0u64..30, 1..12)) {
            let mut r = PfabricRate::new(CFG).unwrap();
            r.on_send();
            let mut total = 0u32;
            for g in gaps {
                r.advance(g);
                total += r.take_timeouts();
                prop_assert_eq!(r.probing(), total >= CFG.probe_after as u32);
                prop_assert_eq!(r.cwnd(), if total > 0 { 1 } else { CFG.init_window_pkts });
            }
        }
    }
}
