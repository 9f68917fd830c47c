//! Threshold guidance for the steady-state detector (Wormhole section 5.2, Eq. 10-13).
//!
//! From the DCTCP fluid model of a bottleneck of capacity `C` shared by `N` flows, with
//! `C x RTT` the bandwidth-delay product **in packets** (`W*` is a window in packets) and the
//! marking threshold `K > (C x RTT) / 7`:
//!
//! * the steady-state relative rate oscillation is `eps_relative < sqrt(7N / (16 C RTT))`,
//!   and `theta` should be slightly above it (Eq. 10-11):
//!   `theta >~ theta_min = sqrt(7N / (16 C RTT))`; below it the detector may never fire;
//! * the oscillation period is `T_C > sqrt(4 C RTT / (7N))` **round-trip times** (DCTCP's
//!   `T_C` is in RTTs), and the window must cover at least one period (Eq. 12-13):
//!   `t_l - t_1 = (l - 1) x sample_interval >= T_C x RTT`, so `l >= l_min = ceil(T_C x RTT /
//!   sample_interval) + 1`.
//!
//! The paper gives only lower bounds and says theta should be "slightly greater than, but
//! close to" `theta_min` and `l` "an appropriate multiple of `T_C`". [`Guidance::warnings`]
//! warns below the bounds, and above them by more than [`THETA_HIGH_FACTOR`] (theta) or
//! [`SAMPLES_HIGH_FACTOR`] (l): those two factors are dcfab's choice, documented here. The
//! error bounds of Theorems 2 and 3 for the chosen theta are reported alongside.

use crate::error::{Error, Result};

/// theta above this multiple of `theta_min` draws a warning (unsteady periods may be taken
/// for steady ones; Theorem 2's rate error bound grows as `theta / (1 - theta)`).
pub const THETA_HIGH_FACTOR: f64 = 4.0;
/// A window longer than this multiple of `l_min` draws a warning (late steady detection,
/// less speedup).
pub const SAMPLES_HIGH_FACTOR: f64 = 100.0;

/// The inputs: one bottleneck of the scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuidanceInput {
    /// Link capacity `C`, Gbit/s (`topology.link_gbps`).
    pub link_gbps: f64,
    /// Base round-trip time, ps.
    pub rtt_ps: u64,
    /// Flows sharing the bottleneck, `N`.
    pub flows: u32,
    /// Packet size, bytes (`transport.mtu`): `C x RTT` is counted in packets.
    pub mtu_bytes: u32,
    /// Interval between two rate samples `t_{k+1} - t_k`, ps.
    pub sample_interval_ps: u64,
}

/// The recommended ranges for one scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Guidance {
    /// `C x RTT` in packets.
    pub bdp_packets: f64,
    /// Eq. 11: `sqrt(7N / (16 C RTT))`.
    pub theta_min: f64,
    /// Eq. 13: `T_C` lower bound `sqrt(4 C RTT / (7N))`, in RTTs.
    pub period_rtts: f64,
    /// The same in ps.
    pub period_ps: f64,
    /// The smallest `l` whose window spans `T_C`.
    pub samples_min: u64,
}

impl Guidance {
    /// Compute the guidance; a bad input is an error naming the scenario field.
    pub fn new(i: &GuidanceInput) -> Result<Self> {
        if !(i.link_gbps.is_finite() && i.link_gbps > 0.0) {
            return Err(Error::field(
                "topology.link_gbps",
                format!("must be a positive number, got {}", i.link_gbps),
            ));
        }
        if i.rtt_ps == 0 {
            return Err(Error::field("rtt_ps", "the base RTT must be positive"));
        }
        if i.flows == 0 {
            return Err(Error::field(
                "flows",
                "the bottleneck needs at least one flow",
            ));
        }
        if i.mtu_bytes == 0 {
            return Err(Error::field("transport.mtu", "must be positive"));
        }
        if i.sample_interval_ps == 0 {
            return Err(Error::field("sample_interval_ps", "must be positive"));
        }
        // bits per ps = gbps / 1000.
        let bdp_bytes = i.link_gbps * i.rtt_ps as f64 / 1000.0 / 8.0;
        let bdp_packets = bdp_bytes / i.mtu_bytes as f64;
        let n = i.flows as f64;
        let theta_min = (7.0 * n / (16.0 * bdp_packets)).sqrt();
        let period_rtts = (4.0 * bdp_packets / (7.0 * n)).sqrt();
        let period_ps = period_rtts * i.rtt_ps as f64;
        let samples_min = (period_ps / i.sample_interval_ps as f64).ceil() as u64 + 1;
        Ok(Self {
            bdp_packets,
            theta_min,
            period_rtts,
            period_ps,
            samples_min,
        })
    }

    /// Theorem 2: the bound on the steady-rate estimation error, `theta / (1 - theta)`.
    pub fn rate_error_bound(theta: f64) -> f64 {
        theta / (1.0 - theta)
    }

    /// Theorem 3: the bound on the steady-duration error, `theta`.
    pub fn duration_error_bound(theta: f64) -> f64 {
        theta
    }

    /// Warnings for a chosen `theta` (`skip.theta`) and `l` (`skip.samples`), empty when both
    /// fall inside the guidance. Each names the field.
    pub fn warnings(&self, theta: f64, samples: u64) -> Vec<String> {
        let mut w = Vec::new();
        if theta < self.theta_min {
            w.push(format!(
                "skip.theta = {theta} is below Eq. 11's {:.4} (sqrt(7N / (16 C RTT)), C RTT = \
                 {:.1} packets): the steady-state oscillation may never fall under it, so \
                 nothing is skipped",
                self.theta_min, self.bdp_packets
            ));
        } else if theta > THETA_HIGH_FACTOR * self.theta_min {
            w.push(format!(
                "skip.theta = {theta} is more than {THETA_HIGH_FACTOR}x Eq. 11's {:.4}: \
                 unsteady periods may be taken for steady ones (rate error bound {:.3})",
                self.theta_min,
                Self::rate_error_bound(theta)
            ));
        }
        if samples < self.samples_min {
            w.push(format!(
                "skip.samples = {samples} spans less than Eq. 13's period T_C = {:.2} RTTs \
                 (needs at least {} samples): the rate estimate may miss the oscillation",
                self.period_rtts, self.samples_min
            ));
        } else if samples as f64 > SAMPLES_HIGH_FACTOR * self.samples_min as f64 {
            w.push(format!(
                "skip.samples = {samples} is more than {SAMPLES_HIGH_FACTOR}x the {} samples \
                 of Eq. 13's period T_C: steady states are detected late",
                self.samples_min
            ));
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(n: u32) -> GuidanceInput {
        // C = 100 Gbit/s, RTT = 10 us: C x RTT = 1e6 bits = 125 000 B = 125 packets of 1000 B.
        GuidanceInput {
            link_gbps: 100.0,
            rtt_ps: 10_000_000,
            flows: n,
            mtu_bytes: 1000,
            sample_interval_ps: 1_000_000,
        }
    }

    #[test]
    fn worked_by_hand() {
        let g = Guidance::new(&input(4)).unwrap();
        assert!((g.bdp_packets - 125.0).abs() < 1e-9);
        // theta_min = sqrt(28 / 2000) = sqrt(0.014) = 0.118322.
        assert!((g.theta_min - 0.118_321_6).abs() < 1e-6, "{}", g.theta_min);
        // T_C = sqrt(500 / 28) = 4.225771 RTTs = 42.25771 us; 1 us samples: l >= 43 + 1.
        assert!(
            (g.period_rtts - 4.225_771).abs() < 1e-6,
            "{}",
            g.period_rtts
        );
        assert_eq!(g.samples_min, 44);
        // One flow: theta_min = sqrt(7 / 2000) = 0.059161, T_C = sqrt(500 / 7) = 8.4515 RTTs.
        let g1 = Guidance::new(&input(1)).unwrap();
        assert!((g1.theta_min - 0.059_160_8).abs() < 1e-6);
        assert_eq!(g1.samples_min, 86);
        assert!((Guidance::rate_error_bound(0.05) - 0.05 / 0.95).abs() < 1e-15);
        assert_eq!(Guidance::duration_error_bound(0.05), 0.05);
    }

    /// `N` enters both bounds: 4x the flows doubles Eq. 11's theta and halves Eq. 13's
    /// period, so a theta inside the guidance for one flow falls below it for 16.
    #[test]
    fn flows_per_bottleneck_scale_the_guidance() {
        let g1 = Guidance::new(&input(1)).unwrap();
        let g4 = Guidance::new(&input(4)).unwrap();
        let g16 = Guidance::new(&input(16)).unwrap();
        assert!((g4.theta_min / g1.theta_min - 2.0).abs() < 1e-12);
        assert!((g16.theta_min / g4.theta_min - 2.0).abs() < 1e-12);
        assert!((g1.period_rtts / g4.period_rtts - 2.0).abs() < 1e-12);
        assert!(g16.samples_min < g1.samples_min);
        // theta = 0.1 is inside for N = 1 (0.059) and below for N = 16 (0.237).
        assert!(g1.warnings(0.1, 100).is_empty());
        assert!(g16.warnings(0.1, 100)[0].contains("below"));
    }

    #[test]
    fn warnings_below_inside_and_above() {
        let g = Guidance::new(&input(4)).unwrap();
        assert!(g.warnings(0.2, 100).is_empty());
        let low = g.warnings(0.05, 10);
        assert_eq!(low.len(), 2);
        assert!(low[0].starts_with("skip.theta") && low[0].contains("below"));
        assert!(low[1].starts_with("skip.samples") && low[1].contains("44"));
        let high = g.warnings(0.5, 10_000);
        assert_eq!(high.len(), 2);
        assert!(high[0].contains("more than 4x"));
        assert!(high[1].contains("detected late"));
    }

    #[test]
    fn bad_input_names_the_field() {
        let mut i = input(4);
        i.link_gbps = f64::NAN;
        assert!(Guidance::new(&i)
            .unwrap_err()
            .to_string()
            .starts_with("topology.link_gbps"));
        let mut i = input(4);
        i.mtu_bytes = 0;
        assert!(Guidance::new(&i)
            .unwrap_err()
            .to_string()
            .starts_with("transport.mtu"));
        assert!(Guidance::new(&input(0))
            .unwrap_err()
            .to_string()
            .starts_with("flows"));
    }
}
