//! Host-engine configuration and `RTT_max` (DCSIM section 2.5, Theorem 2, Eq. 5 and 7).
//!
//! ```text
//!  RTT_max = RTT_p + (2 H l / C) * ((B + 1) alpha + h B + 1)        alpha = L / l, h = 2.1
//!          = RTT_p + 2 H * ((B + 1) L + h B l + l) / C
//!            ^        ^     ^^^^^^^^^^^^^^^^^^^^^^^^
//!            |        |     per hop: B SIMs ahead each waiting a token period
//!            |        |     ((L + h l) / C), one non-preemptible DATA (L / C),
//!            |        |     and the SIM's own transmission (l / C)
//!            |        2H hops: SIM out, SIM-ACK back
//!            propagation + processing round trip
//! ```
//!
//! Units: time in picoseconds ([`rtt_max_ps`]) or host cycles ([`DcsimHostConfig`]), sizes
//! in bytes, link rate in bits per second, `h` in thousandths.

use rtl_models::{Clock, ConfigError, Cycles};

/// Largest timer value (rtt_max, timeouts) the 32-bit timestamps of the packed state
/// compare safely with wrapping arithmetic, cycles.
pub const MAX_TIMER_CYCLES: Cycles = (1 << 31) - 1;

/// Inputs of Theorem 2 (Eq. 5), with `RTT_p` built from per-hop delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RttMaxInputs {
    /// `H`: most links a SIM (or a SIM-ACK) crosses, host NIC output included
    /// (a 3-tier fat tree: 6).
    pub hops: u32,
    /// `C`: link rate, bits per second (same everywhere, section 2.3).
    pub link_bps: u64,
    /// Propagation delay of one link, picoseconds.
    pub link_delay_ps: u64,
    /// Processing latency of one switch, picoseconds (a path has `H - 1` switches).
    pub switch_latency_ps: u64,
    /// Any further fixed round-trip time (host processing...), picoseconds. With both
    /// delays above at 0 this is `RTT_p` itself (the paper's example gives `RTT_p` directly).
    pub extra_rtt_ps: u64,
    /// `B`: SIM buffer size, packets.
    pub small_queue_pkts: u32,
    /// `l`: SIM / SIM-ACK size, bytes.
    pub small_bytes: u32,
    /// `L`: DATA size, bytes.
    pub data_bytes: u32,
    /// `h` of the token rate in thousandths (2100 = Eq. 2).
    pub h_milli: u32,
}

impl RttMaxInputs {
    /// The paper's example (section 2.5): `H = 6`, `RTT_p = 7.8 us`, `C = 800 Gb/s`,
    /// `L = 1.5 KB`, `l = 64 B`, `B = 12`, `h = 2.1`; `RTT_max = 1.32 RTT_p = 10.3 us`.
    pub const PAPER_EXAMPLE: RttMaxInputs = RttMaxInputs {
        hops: 6,
        link_bps: 800_000_000_000,
        link_delay_ps: 0,
        switch_latency_ps: 0,
        extra_rtt_ps: 7_800_000,
        small_queue_pkts: 12,
        small_bytes: 64,
        data_bytes: 1500,
        h_milli: 2100,
    };

    /// `RTT_p`: `2 (H * link_delay + (H - 1) * switch_latency) + extra`, picoseconds.
    pub const fn rtt_p_ps(&self) -> u64 {
        let one_way = (self.hops as u64)
            .saturating_mul(self.link_delay_ps)
            .saturating_add(
                (self.hops.saturating_sub(1) as u64).saturating_mul(self.switch_latency_ps),
            );
        one_way.saturating_mul(2).saturating_add(self.extra_rtt_ps)
    }
}

/// Theorem 2 (Eq. 5, proof Eq. 7): the bound on a SIM's round-trip time, picoseconds,
/// rounded up. Errors name the field that makes it meaningless.
pub const fn rtt_max_ps(x: &RttMaxInputs) -> Result<u64, ConfigError> {
    if x.hops == 0 {
        return Err(ConfigError::new("hops", "must be at least 1"));
    }
    if x.link_bps == 0 {
        return Err(ConfigError::new("link_bps", "must be positive"));
    }
    if x.small_bytes == 0 {
        return Err(ConfigError::new("small_bytes", "must be at least 1"));
    }
    if x.data_bytes < x.small_bytes {
        return Err(ConfigError::new(
            "data_bytes",
            "must be at least small_bytes",
        ));
    }
    if x.small_queue_pkts == 0 {
        return Err(ConfigError::new("small_queue_pkts", "must be at least 1"));
    }
    // Per hop, in thousandths of a byte: (B + 1) L + h B l + l.
    let b = x.small_queue_pkts as u128;
    let per_hop_milli = (b + 1) * x.data_bytes as u128 * 1000
        + x.h_milli as u128 * b * x.small_bytes as u128
        + 1000 * x.small_bytes as u128;
    // ps = 2H * per_hop_milli / 1000 bytes * 8 bits / C * 1e12
    let num = 2 * x.hops as u128 * per_hop_milli * 8 * 1_000_000_000_000;
    let den = 1000 * x.link_bps as u128;
    let q = num.div_ceil(den);
    let rtt_p = x.rtt_p_ps() as u128;
    let total = q + rtt_p;
    if total > u64::MAX as u128 {
        return Err(ConfigError::new(
            "link_bps",
            "RTT_max does not fit 64-bit picoseconds",
        ));
    }
    Ok(total as u64)
}

/// [`rtt_max_ps`] in cycles of `clock` (rounded up).
pub const fn rtt_max_cycles(x: &RttMaxInputs, clock: Clock) -> Result<Cycles, ConfigError> {
    if clock.period_ps == 0 {
        return Err(ConfigError::new("clock.period_ps", "must be at least 1"));
    }
    match rtt_max_ps(x) {
        Ok(ps) => Ok(clock.cycles_ceil(ps)),
        Err(e) => Err(e),
    }
}

/// When the DATA associated with a SIM is released (section 2.4 (4), section 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DcsimVariant {
    /// DCSIM: `t_DATA = t_SIM + RTT_max` (Eq. 4).
    Sync,
    /// Async DCSIM: as soon as the SIM-ACK arrives.
    Async,
    /// Fractional DCSIM: at the later of `t_SIM + fraction * RTT_max` and the SIM-ACK
    /// arrival; the fraction is `permille / 1000` (the paper tries 0.85 and below).
    Fractional {
        /// The fraction of `RTT_max`, in thousandths (0..=1000).
        permille: u16,
    },
}

/// Configuration of the host engine. Times in host cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DcsimHostConfig {
    /// `RTT_max` (Theorem 2; see [`rtt_max_cycles`]).
    pub rtt_max: Cycles,
    /// SIM timeout after the SIM's transmission (Fig. 2 example: `RTT_max`).
    pub sim_timeout: Cycles,
    /// DATA timeout after the DATA's transmission ("a large timer", section 2.4 (4)); it
    /// must cover the DATA-ACK delay (up to 16 DATAs or the receiver's ack interval).
    pub data_timeout: Cycles,
    /// Sync, Async or Fractional DCSIM.
    pub variant: DcsimVariant,
    /// Width of the entropy value (source port) in bits, 1..=16.
    pub ev_bits: u8,
}

impl DcsimHostConfig {
    /// Defaults from `RTT_max` and the propagation RTT `RTT_p` (cycles): SIM timeout
    /// `RTT_max`, DATA timeout `2 RTT_max + 3 RTT_p` (the receiver acks at least every
    /// 3 propagation RTTs), Sync DCSIM, 16-bit EVs.
    pub const fn with_rtt(rtt_max: Cycles, rtt_p: Cycles) -> Self {
        DcsimHostConfig {
            rtt_max,
            sim_timeout: rtt_max,
            data_timeout: rtt_max
                .saturating_mul(2)
                .saturating_add(rtt_p.saturating_mul(3)),
            variant: DcsimVariant::Sync,
            ev_bits: 16,
        }
    }

    /// Mask of the EV field.
    pub const fn ev_mask(&self) -> u16 {
        if self.ev_bits >= 16 {
            u16::MAX
        } else {
            (1u16 << self.ev_bits) - 1
        }
    }

    /// `t_DATA` for a SIM sent at `t_sim` whose SIM-ACK arrived at `t_ack` (Eq. 4 and the
    /// variants of section 4.4). Never earlier than `t_ack`.
    pub const fn release_at(&self, t_sim: Cycles, t_ack: Cycles) -> Cycles {
        let t = match self.variant {
            DcsimVariant::Sync => t_sim + self.rtt_max,
            DcsimVariant::Async => t_ack,
            DcsimVariant::Fractional { permille } => {
                t_sim + (self.rtt_max as u128 * permille as u128 / 1000) as Cycles
            }
        };
        if t > t_ack {
            t
        } else {
            t_ack
        }
    }

    /// Check every field for an engine with `sims` outstanding-SIM slots per flow.
    pub const fn validate(&self, sims: usize) -> Result<(), ConfigError> {
        if self.rtt_max == 0 || self.rtt_max > MAX_TIMER_CYCLES {
            return Err(ConfigError::new("rtt_max", "must be 1..=2^31-1 cycles"));
        }
        if self.sim_timeout == 0 || self.sim_timeout > MAX_TIMER_CYCLES {
            return Err(ConfigError::new("sim_timeout", "must be 1..=2^31-1 cycles"));
        }
        if self.data_timeout == 0 || self.data_timeout > MAX_TIMER_CYCLES {
            return Err(ConfigError::new(
                "data_timeout",
                "must be 1..=2^31-1 cycles",
            ));
        }
        if self.ev_bits == 0 || self.ev_bits > 16 {
            return Err(ConfigError::new("ev_bits", "must be 1..=16"));
        }
        if (1u32 << self.ev_bits) <= sims as u32 {
            return Err(ConfigError::new(
                "ev_bits",
                "too narrow: outstanding SIMs of a flow need distinct EVs (2^ev_bits > S)",
            ));
        }
        if let DcsimVariant::Fractional { permille } = self.variant {
            if permille > 1000 {
                return Err(ConfigError::new(
                    "variant.permille",
                    "the fraction of RTT_max must be 0..=1000 thousandths",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_example_rtt_max_is_1_32_rtt_p() {
        // Section 2.5: RTT_max = 1.32 RTT_p = 10.3 us (the paper rounds alpha to 23; the
        // exact alpha = 1500/64 gives 10.34 us).
        let ps = rtt_max_ps(&RttMaxInputs::PAPER_EXAMPLE).unwrap();
        assert!((10_300_000..10_400_000).contains(&ps), "{ps}");
        let ratio_milli = ps * 1000 / 7_800_000;
        assert!((1320..=1330).contains(&ratio_milli), "{ratio_milli}");
        // alpha = 23 exactly (L = 23 * 64 = 1472 B) reproduces 10.30 us.
        let x = RttMaxInputs {
            data_bytes: 23 * 64,
            ..RttMaxInputs::PAPER_EXAMPLE
        };
        let ps = rtt_max_ps(&x).unwrap();
        assert_eq!((ps + 5_000) / 10_000, 1030, "{ps}"); // 10.30 us
        assert_eq!(ps * 1000 / 7_800_000, 1320); // 1.32 RTT_p
    }

    #[test]
    fn rtt_p_from_delays() {
        // Section 4.1: 6 links of 200 ns, 5 switches of 450 ns.
        let x = RttMaxInputs {
            link_delay_ps: 200_000,
            switch_latency_ps: 450_000,
            extra_rtt_ps: 0,
            ..RttMaxInputs::PAPER_EXAMPLE
        };
        assert_eq!(x.rtt_p_ps(), 2 * (6 * 200_000 + 5 * 450_000));
        let c = rtt_max_cycles(&x, Clock::GHZ1).unwrap();
        assert_eq!(c, rtt_max_ps(&x).unwrap().div_ceil(1000));
    }

    #[test]
    fn bad_inputs_name_the_field() {
        let e = rtt_max_ps(&RttMaxInputs {
            hops: 0,
            ..RttMaxInputs::PAPER_EXAMPLE
        });
        assert_eq!(e.unwrap_err().field, "hops");
        let c = DcsimHostConfig::with_rtt(100, 50);
        assert_eq!(c.validate(16), Ok(()));
        let bad = DcsimHostConfig { ev_bits: 4, ..c };
        assert_eq!(bad.validate(16).unwrap_err().field, "ev_bits");
        let bad = DcsimHostConfig {
            variant: DcsimVariant::Fractional { permille: 1001 },
            ..c
        };
        assert_eq!(bad.validate(16).unwrap_err().field, "variant.permille");
        let bad = DcsimHostConfig { rtt_max: 0, ..c };
        assert_eq!(bad.validate(16).unwrap_err().field, "rtt_max");
    }

    #[test]
    fn variants_release_times() {
        let mut c = DcsimHostConfig::with_rtt(100, 50);
        assert_eq!(c.release_at(10, 60), 110);
        assert_eq!(c.release_at(10, 130), 130); // late SIM-ACK: immediately
        c.variant = DcsimVariant::Async;
        assert_eq!(c.release_at(10, 60), 60);
        c.variant = DcsimVariant::Fractional { permille: 850 };
        assert_eq!(c.release_at(10, 60), 95);
        assert_eq!(c.release_at(10, 99), 99);
        c.variant = DcsimVariant::Fractional { permille: 1000 };
        assert_eq!(c.release_at(10, 60), 110);
    }
}
