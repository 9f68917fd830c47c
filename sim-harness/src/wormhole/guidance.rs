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
//!
//! One more bound is not the paper's but the samples': under `skip.rate_metric = "packets"`
//! a sample is a whole number of packets. A flow alone at the host line rate sends
//! `x = C x sample_us / ((mtu + header_bytes) x 8)` packets per sample, i.e. `k = floor(x)` or
//! `k + 1` in each; unless a window of `l` samples can hold one count throughout (`x` within
//! `1 / l` of an integer), its `max - min` is one packet while its mean is at most
//! `ceil(l x) / l` packets, so Eq. 6 is at least `l / ceil(l x)` (about `1 / x`). When that
//! is not below `theta` no flow at the line rate is ever steady, and a slower flow, with
//! fewer packets per sample, fluctuates more: [`Guidance::quantization_warning`] says so
//! (it is exact in the detector's integers: rates truncated to bit/s, theta in ppm).

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
    /// Header bytes of a DATA packet on the wire (`transport.header_bytes`): a packet takes
    /// `mtu + header_bytes` of the line.
    pub header_bytes: u32,
    /// `skip.rate_metric = "packets"`: the samples are whole packets (the quantization
    /// check of [`Guidance::quantization_warning`] applies).
    pub packets_metric: bool,
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
    /// Packets (`mtu + header_bytes` each) a flow at the line rate sends per sample, `x`.
    pub packets_per_sample: f64,
    /// The payload rate (bit/s, truncated as the engine's samples are) of `c` packets in one
    /// sample, for `c = floor(x)` and `floor(x) + 1`.
    rate_k: [u64; 2],
    /// Whether the quantization check applies (`skip.rate_metric = "packets"`).
    packets_metric: bool,
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
        let wire_bits = f64::from(i.mtu_bytes + i.header_bytes) * 8.0;
        let packets_per_sample = i.link_gbps * i.sample_interval_ps as f64 / 1000.0 / wire_bits;
        // The engine's sample of `c` packets: c x mtu x 8 bit over the interval, in bit/s.
        let rate = |c: u64| {
            (u128::from(c) * u128::from(i.mtu_bytes) * 8 * 1_000_000_000_000
                / u128::from(i.sample_interval_ps)) as u64
        };
        let k = packets_per_sample.floor() as u64;
        Ok(Self {
            bdp_packets,
            theta_min,
            period_rtts,
            period_ps,
            samples_min,
            packets_per_sample,
            rate_k: [rate(k), rate(k + 1)],
            packets_metric: i.packets_metric,
        })
    }

    /// Under `skip.rate_metric = "packets"`, the smallest Eq. 6 fluctuation a window of `l`
    /// samples of a flow at the line rate can have (see the module docs), `None` when a
    /// window may hold one count throughout (`x` within `1 / l` of an integer: 0 then).
    pub fn quantization_floor(&self, samples: u64) -> Option<f64> {
        let (x, l) = (self.packets_per_sample, samples as f64);
        if (x - x.round()).abs() * l < 1.0 {
            return None;
        }
        let k = x.floor();
        // The window's most packets: `ceil(l x)`, of which `m` samples hold `k + 1`.
        let m = ((l * x).ceil() - l * k).clamp(0.0, l);
        let [rk, rk1] = self.rate_k.map(|r| r as f64);
        Some((rk1 - rk) * l / ((l - m) * rk + m * rk1))
    }

    /// The warning for a `theta` no flow can meet under `skip.rate_metric = "packets"`
    /// (packet quantization, see the module docs), naming `skip.sample_us` and `skip.theta`.
    /// `theta` is compared as the detector holds it, in ppm.
    pub fn quantization_warning(&self, theta: f64, samples: u64) -> Option<String> {
        if !self.packets_metric {
            return None;
        }
        let floor = self.quantization_floor(samples)?;
        // The detector: steady iff (max - min) l 1e6 < theta_ppm sum; here max - min =
        // rate_k[1] - rate_k[0] and sum is at most (l - m) rate_k[0] + m rate_k[1].
        let x = self.packets_per_sample;
        let (l, k) = (u128::from(samples), x.floor() as u128);
        let m = ((samples as f64 * x).ceil() as u128)
            .saturating_sub(l * k)
            .min(l);
        let [rk, rk1] = self.rate_k.map(u128::from);
        let theta_ppm = (theta * 1e6).round() as u128;
        if (rk1 - rk) * l * 1_000_000 < theta_ppm * ((l - m) * rk + m * rk1) {
            return None;
        }
        Some(format!(
            "skip.sample_us with skip.rate_metric = \"packets\": a flow at the host line rate \
             sends {x:.3} packets per sample ({} or {}), so Eq. 6's (max - min) / mean over \
             skip.samples = {samples} is at least {floor:.4}, not below skip.theta = {theta}: \
             no flow is ever steady and nothing is skipped (a skip.sample_us giving a whole \
             number of packets or more of them, a skip.theta above {floor:.4}, or \
             rate_metric = \"cc\" would)",
            k,
            k + 1
        ))
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
    /// fall inside the guidance and whole-packet samples can meet `theta`: those of
    /// [`Self::eq_warnings`], then [`Self::quantization_warning`]'s. Each names the field.
    pub fn warnings(&self, theta: f64, samples: u64) -> Vec<String> {
        let mut w = self.eq_warnings(theta, samples);
        w.extend(self.quantization_warning(theta, samples));
        w
    }

    /// The warnings of Eq. 11 and 13 alone (the ones that depend on the scenario's `N`),
    /// empty when `theta` and `l` fall inside the guidance.
    pub fn eq_warnings(&self, theta: f64, samples: u64) -> Vec<String> {
        let mut w = Vec::new();
        if theta < self.theta_min {
            w.push(format!(
                "skip.theta = {theta} is below Eq. 11's {:.4} (sqrt(7N / (16 C RTT)), C RTT = \
                 {:.1} packets): the steady-state oscillation of flows sharing a port N ways \
                 may never fall under it, and those flows are then never skipped",
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
            header_bytes: 0,
            packets_metric: false,
        }
    }

    /// Packet quantization (module docs): 100 Gb/s, 4096 + 64 B packets, 2.5 us samples (the
    /// shipped GPT scenarios' link with `skip.sample_us = 2.5`): x = 250 000 / 33 280 =
    /// 7.512 packets, l = 20: the window holds at most ceil(150.24) = 151 packets, so Eq. 6
    /// is at least 20 / 151 = 0.13245. theta = 0.1 and 0.13 can never be met, 0.135 can;
    /// 5 us samples (x = 15.02, within 1 / 20 of 15) and the `cc` metric draw nothing.
    #[test]
    fn whole_packet_samples_that_can_never_be_steady() {
        let mut i = input(2);
        i.packets_metric = true;
        i.mtu_bytes = 4096;
        i.header_bytes = 64;
        i.sample_interval_ps = 2_500_000;
        let g = Guidance::new(&i).unwrap();
        assert!((g.packets_per_sample - 7.512_019).abs() < 1e-6);
        // Among the run's warnings, after Eq. 11 / 13's.
        assert!(g
            .warnings(0.1, 20)
            .last()
            .unwrap()
            .starts_with("skip.sample_us"));
        let floor = g.quantization_floor(20).unwrap();
        assert!((floor - 20.0 / 151.0).abs() < 1e-9, "{floor}");
        let w = g.quantization_warning(0.1, 20).unwrap();
        assert!(
            w.starts_with("skip.sample_us") && w.contains("skip.theta = 0.1"),
            "{w}"
        );
        assert!(w.contains("7.512 packets") && w.contains("(7 or 8)") && w.contains("0.1325"));
        assert!(g.quantization_warning(0.13, 20).is_some());
        assert!(g.quantization_warning(0.135, 20).is_none());
        // A longer window: ceil(2000 x 7.512) = 15025, floor 2000 / 15025 = 0.13311.
        assert!(g.quantization_warning(0.133, 2000).is_some());
        assert!(g.quantization_warning(0.1332, 2000).is_none());
        // Not under another metric.
        i.packets_metric = false;
        assert!(Guidance::new(&i)
            .unwrap()
            .quantization_warning(0.1, 20)
            .is_none());
        // 5 us: 15.024 packets, a window of 20 may hold 15 in every sample.
        i.packets_metric = true;
        i.sample_interval_ps = 5_000_000;
        let g5 = Guidance::new(&i).unwrap();
        assert!(g5.quantization_floor(20).is_none());
        assert!(g5.quantization_warning(0.01, 20).is_none());
        // ... but not one of 100 (0.024 x 100 > 1): at least 100 / 1503 = 0.0665.
        assert!(g5.quantization_warning(0.06, 100).is_some());
        assert!(g5.quantization_warning(0.07, 100).is_none());
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
