//! REPS configuration: the constants of Algorithms 1 and 2 (`EVS_SIZE`, `NUM_PKTS_CWND`,
//! `FREEZING_TIMEOUT`) plus the two switches the paper evaluates around them (freezing mode
//! on/off, Appendix C.4; ACK+Reuse EVs lifetime, section 4.5.1).
//!
//! Units: `ev_bits` in bits, `num_pkts_cwnd` in packets, `freezing_timeout_cycles` in cycles
//! of the NIC clock (the same clock as the `now` every REPS call takes), `reuse` in uses.

use rtl_models::ConfigError;

/// A rejected REPS configuration field (the shared [`rtl_models::ConfigError`]: field name
/// and problem).
pub type RepsConfigError = ConfigError;

/// Largest `freezing_timeout_cycles`: the 32-bit `exitFreezingMode` timestamp is compared
/// with serial-number (wrap-around) arithmetic, which orders two timestamps correctly only
/// when they are less than 2^31 cycles apart.
pub const MAX_FREEZING_TIMEOUT_CYCLES: u32 = (1 << 31) - 1;

/// Largest `num_pkts_cwnd`: `exploreCounter` is 8 bits wide (REPS Table 1).
pub const MAX_NUM_PKTS_CWND: u32 = u8::MAX as u32;

/// Configuration of one REPS instance (one per connection; every connection of a NIC
/// normally shares one configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RepsConfig {
    /// Bits per entropy value: `EVS_SIZE = 2^ev_bits` (section 2.2, "Entropy Values Set";
    /// section 4.5.2 evaluates 2^5..2^16). `rand() mod EVS_SIZE` (Alg. 2 lines 17 and 20)
    /// is the low `ev_bits` bits of one 32-bit [`rtl_models::RandomSource`] draw.
    /// 1..=16; default 16 (a UDP source port).
    pub ev_bits: u8,
    /// `NUM_PKTS_CWND` (Alg. 1 line 17): packets per bandwidth-delay product, loaded into
    /// `exploreCounter` when freezing mode ends. 0..=255 (8-bit counter, Table 1).
    /// Default 86: 400 Gb/s x 7 us base RTT / 4096 B MTU, the paper's section 4.1 setup
    /// (see [`packets_per_bdp`]).
    pub num_pkts_cwnd: u32,
    /// `FREEZING_TIMEOUT` (Alg. 1 line 24) in NIC clock cycles. 0..=2^31-1. Default
    /// 100_000 (100 us at 1 GHz: longer than the 70 us RTO of section 4.1, so a connection
    /// that froze on a timeout stays frozen for at least one more RTO; the paper gives no
    /// figure).
    pub freezing_timeout_cycles: u32,
    /// Whether `ONFAILUREDETECTION` enters freezing mode at all (Appendix C.4 evaluates
    /// REPS without freezing mode). Default true.
    pub freezing: bool,
    /// ACK+Reuse EVs (section 4.5.1): each cached EV is handed out `reuse` times before
    /// its validity bit clears. 1 is standard REPS (Algorithm 2 as printed); with a
    /// coalescing ratio `n:1` the paper's variant uses `reuse = n`. 1..=255.
    pub reuse: u32,
    /// Leave freezing mode by the clock as well as on an ACK: section 3.2's "we simply exit
    /// freezing mode after a fixed amount of time". Algorithm 1 checks `now() >
    /// exitFreezingMode` only in `ONACK` (L15), so a connection whose every cached EV maps to
    /// a dead path (no ACK ever returns) stays frozen for good; with `timed_exit` the same
    /// check (L15-17) also runs when a DATA packet is sent and on a failure detection
    /// ([`crate::reps::RepsEngine::thaw_if_due`]). No extra state: it reuses
    /// `exitFreezingMode`. Default false (Algorithm 1 as printed); absent in a serialized
    /// configuration = false.
    #[cfg_attr(feature = "serde", serde(default))]
    pub timed_exit: bool,
}

impl RepsConfig {
    /// The defaults documented on each field.
    pub const DEFAULT: RepsConfig = RepsConfig {
        ev_bits: 16,
        num_pkts_cwnd: 86,
        freezing_timeout_cycles: 100_000,
        freezing: true,
        reuse: 1,
        timed_exit: false,
    };

    /// Check every field; `ev_field_bits` is the EV width of the storage layout
    /// (16 for the Table 1 word).
    pub const fn validate(&self, ev_field_bits: u32) -> Result<(), RepsConfigError> {
        if self.ev_bits == 0 || self.ev_bits > 16 {
            return Err(ConfigError::new(
                "ev_bits",
                "must be 1..=16 (EVS_SIZE = 2^ev_bits)",
            ));
        }
        if self.ev_bits as u32 > ev_field_bits {
            return Err(ConfigError::new(
                "ev_bits",
                "wider than the EV field of this REPS storage layout",
            ));
        }
        if self.num_pkts_cwnd > MAX_NUM_PKTS_CWND {
            return Err(ConfigError::new(
                "num_pkts_cwnd",
                "must be 0..=255: exploreCounter is 8 bits wide (REPS Table 1)",
            ));
        }
        if self.freezing_timeout_cycles > MAX_FREEZING_TIMEOUT_CYCLES {
            return Err(ConfigError::new(
                "freezing_timeout_cycles",
                "must be below 2^31 cycles: exitFreezingMode is a 32-bit wrap-around timestamp",
            ));
        }
        if self.reuse == 0 || self.reuse > 255 {
            return Err(ConfigError::new(
                "reuse",
                "must be 1..=255 (uses per cached EV; 1 = standard REPS)",
            ));
        }
        Ok(())
    }

    /// `EVS_SIZE - 1`: the mask that implements `rand() mod EVS_SIZE`.
    pub const fn ev_mask(&self) -> u16 {
        if self.ev_bits >= 16 {
            u16::MAX
        } else {
            (1u16 << self.ev_bits) - 1
        }
    }

    /// Bits of extra per-entry state the ACK+Reuse EVs variant needs beside the Table 1
    /// word: a lifetime counter of `bits_for(reuse - 1)` bits per buffer entry (0 for
    /// standard REPS, where the validity bit is the whole lifetime).
    pub const fn reuse_extra_bits(&self, buffer_size: u32) -> u32 {
        let r = if self.reuse == 0 { 0 } else { self.reuse - 1 };
        buffer_size * rtl_models::budget::bits_for(r as u64)
    }
}

impl Default for RepsConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Packets in one bandwidth-delay product, rounded up: the usual `NUM_PKTS_CWND`.
/// `link_gbps` in Gb/s, `rtt_ns` in nanoseconds, `mtu_bytes` in bytes; 0 for a zero MTU.
///
/// ```
/// // Section 4.1: 400 Gb/s, 7 us two-tier base RTT, 4 KiB MTU.
/// assert_eq!(nic::reps::packets_per_bdp(400, 7_000, 4096), 86);
/// ```
pub const fn packets_per_bdp(link_gbps: u64, rtt_ns: u64, mtu_bytes: u64) -> u64 {
    if mtu_bytes == 0 {
        return 0;
    }
    // bytes = Gb/s * ns / 8
    let bytes = link_gbps.saturating_mul(rtt_ns) / 8;
    bytes.div_ceil(mtu_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_matches_section_4_1() {
        assert_eq!(RepsConfig::default().validate(16), Ok(()));
        assert_eq!(
            packets_per_bdp(400, 7_000, 4096),
            RepsConfig::DEFAULT.num_pkts_cwnd as u64
        );
        assert_eq!(packets_per_bdp(400, 7_000, 0), 0);
    }

    #[test]
    fn errors_name_the_field() {
        let d = RepsConfig::DEFAULT;
        let cases: [(RepsConfig, u32, &str); 7] = [
            (RepsConfig { ev_bits: 0, ..d }, 16, "ev_bits"),
            (RepsConfig { ev_bits: 17, ..d }, 16, "ev_bits"),
            (RepsConfig { ev_bits: 16, ..d }, 8, "ev_bits"),
            (
                RepsConfig {
                    num_pkts_cwnd: 256,
                    ..d
                },
                16,
                "num_pkts_cwnd",
            ),
            (
                RepsConfig {
                    freezing_timeout_cycles: 1 << 31,
                    ..d
                },
                16,
                "freezing_timeout_cycles",
            ),
            (RepsConfig { reuse: 0, ..d }, 16, "reuse"),
            (RepsConfig { reuse: 256, ..d }, 16, "reuse"),
        ];
        for (cfg, width, field) in cases {
            let e = cfg.validate(width).unwrap_err();
            assert_eq!(e.field, field, "{cfg:?}");
            assert!(!e.problem.is_empty());
        }
        // Edges that are legal.
        let ok = RepsConfig {
            ev_bits: 5,
            num_pkts_cwnd: 255,
            freezing_timeout_cycles: MAX_FREEZING_TIMEOUT_CYCLES,
            freezing: false,
            reuse: 255,
            timed_exit: true,
        };
        assert_eq!(ok.validate(5), Ok(()));
    }

    #[test]
    fn masks_and_reuse_bits() {
        let d = RepsConfig::DEFAULT;
        assert_eq!(d.ev_mask(), 0xffff);
        assert_eq!(RepsConfig { ev_bits: 8, ..d }.ev_mask(), 0xff);
        assert_eq!(RepsConfig { ev_bits: 5, ..d }.ev_mask(), 0x1f);
        assert_eq!(d.reuse_extra_bits(8), 0);
        assert_eq!(RepsConfig { reuse: 4, ..d }.reuse_extra_bits(8), 16);
        assert_eq!(RepsConfig { reuse: 16, ..d }.reuse_extra_bits(8), 32);
    }
}
