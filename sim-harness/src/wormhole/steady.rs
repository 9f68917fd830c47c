//! The steady-state detector of one flow (Wormhole section 5.1.2, Eq. 5-7).
//!
//! The engine samples a flow's sending rate `R(t_k)` at a fixed interval and pushes each
//! sample ([`SteadyDetector::push`]). Over the last `l` samples `t_1 < ... < t_l = t` the
//! fluctuation degree is (Eq. 6)
//!
//! ```text
//! dR_l(t) = (max_k R(t_k) - min_k R(t_k)) / (sum_k R(t_k) / l)
//! ```
//!
//! and the flow is steady when `dR_l(t) < theta`; the steady rate estimate is the window mean
//! `R^ = sum_k R(t_k) / l` (Eq. 7). Theorem 2 then bounds the rate error by
//! `theta / (1 - theta)` and Theorem 3 the steady-duration error by `theta`.
//!
//! Samples are integers (the engine's unit: bits per second, or bytes per sample interval);
//! the window is a ring of `l` samples, max and min come from monotonic deques and the sum is
//! a running `u128`, so a push is O(1) amortized and the test is exact integer arithmetic:
//! `(max - min) * l * 1_000_000 < theta_ppm * sum`, with `theta` held in parts per million.
//! Memory: the ring is `8 l` bytes (16 KB at `l = 2000`); the deques grow only as long as the
//! window's samples are monotonic (at most `16 l` bytes each). The engine keeps one detector
//! per *active* flow.
//! A window whose mean is 0 (a flow that sent nothing) is never steady: it cannot be
//! fast-forwarded to a completion. A window is judged only once it holds `l` samples.
//!
//! The engine resets the detector ([`SteadyDetector::reset`]) at each interrupt (section 5.3:
//! flow arrival or completion in the partition, reroute, failure), since the rate history
//! before it no longer predicts the rate after it.

use std::collections::VecDeque;

/// Default `theta` (section 7: 5%).
pub const DEFAULT_THETA: f64 = 0.05;
/// Default `l` (section 7: 2000 samples).
pub const DEFAULT_SAMPLES: usize = 2000;

/// A bad detector parameter, naming the scenario field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SteadyConfigError {
    /// `theta` outside `(0, 1)` or not finite.
    #[error("skip.theta: must be in (0, 1), got {0}")]
    Theta(f64),
    /// `l` below 2.
    #[error("skip.samples: needs at least 2 rate samples, got {0}")]
    Samples(usize),
}

/// The detector of one flow: a ring of the last `l` rate samples.
#[derive(Debug, Clone)]
pub struct SteadyDetector {
    theta_ppm: u64,
    l: usize,
    ring: Vec<u64>,
    /// Number of samples pushed since the last reset (index of the next one).
    seq: u64,
    sum: u128,
    /// (sample index, value), values strictly decreasing from the front.
    max_q: VecDeque<(u64, u64)>,
    /// (sample index, value), values strictly increasing from the front.
    min_q: VecDeque<(u64, u64)>,
}

/// The window's verdict after a push.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// `max_k R(t_k)`.
    pub max: u64,
    /// `min_k R(t_k)`.
    pub min: u64,
    /// `sum_k R(t_k)`.
    pub sum: u128,
    /// `l`.
    pub len: usize,
}

impl Window {
    /// Eq. 6 as a float (for reports; the steady test itself is exact).
    pub fn fluctuation(&self) -> f64 {
        if self.sum == 0 {
            return f64::INFINITY;
        }
        (self.max - self.min) as f64 * self.len as f64 / self.sum as f64
    }

    /// Eq. 7: the mean rate `R^`, rounded down to the sample unit.
    pub fn mean(&self) -> u64 {
        (self.sum / self.len as u128) as u64
    }
}

impl SteadyDetector {
    /// A detector with threshold `theta` (in `(0, 1)`; held in ppm) and window `l >= 2`.
    pub fn new(theta: f64, l: usize) -> Result<Self, SteadyConfigError> {
        if !(theta.is_finite() && theta > 0.0 && theta < 1.0) {
            return Err(SteadyConfigError::Theta(theta));
        }
        if l < 2 {
            return Err(SteadyConfigError::Samples(l));
        }
        let theta_ppm = (theta * 1e6).round() as u64;
        if theta_ppm == 0 {
            return Err(SteadyConfigError::Theta(theta));
        }
        Ok(Self {
            theta_ppm,
            l,
            ring: vec![0; l],
            seq: 0,
            sum: 0,
            max_q: VecDeque::new(),
            min_q: VecDeque::new(),
        })
    }

    /// The paper's defaults: theta 5%, l 2000.
    pub fn with_defaults() -> Self {
        Self::new(DEFAULT_THETA, DEFAULT_SAMPLES).expect("defaults are valid")
    }

    /// `theta` in parts per million.
    pub fn theta_ppm(&self) -> u64 {
        self.theta_ppm
    }

    /// `l`.
    pub fn samples(&self) -> usize {
        self.l
    }

    /// Forget every sample (an interrupt ended the steady state).
    pub fn reset(&mut self) {
        self.seq = 0;
        self.sum = 0;
        self.max_q.clear();
        self.min_q.clear();
    }

    /// Push `R(t_k)`; O(1) amortized. Returns the window once it holds `l` samples.
    pub fn push(&mut self, rate: u64) -> Option<Window> {
        let slot = (self.seq % self.l as u64) as usize;
        if self.seq >= self.l as u64 {
            self.sum -= self.ring[slot] as u128;
            let oldest = self.seq - self.l as u64;
            if self.max_q.front().is_some_and(|&(i, _)| i == oldest) {
                self.max_q.pop_front();
            }
            if self.min_q.front().is_some_and(|&(i, _)| i == oldest) {
                self.min_q.pop_front();
            }
        }
        self.ring[slot] = rate;
        self.sum += rate as u128;
        while self.max_q.back().is_some_and(|&(_, v)| v <= rate) {
            self.max_q.pop_back();
        }
        self.max_q.push_back((self.seq, rate));
        while self.min_q.back().is_some_and(|&(_, v)| v >= rate) {
            self.min_q.pop_back();
        }
        self.min_q.push_back((self.seq, rate));
        self.seq += 1;
        self.window()
    }

    /// The current window, if full.
    pub fn window(&self) -> Option<Window> {
        if self.seq < self.l as u64 {
            return None;
        }
        Some(Window {
            max: self.max_q.front().expect("full window").1,
            min: self.min_q.front().expect("full window").1,
            sum: self.sum,
            len: self.l,
        })
    }

    /// Eq. 6 `dR_l(t) < theta`, exactly: `(max - min) * l * 1e6 < theta_ppm * sum`.
    pub fn is_steady(&self) -> bool {
        match self.window() {
            Some(w) if w.sum > 0 => {
                (w.max - w.min) as u128 * self.l as u128 * 1_000_000
                    < self.theta_ppm as u128 * w.sum
            }
            _ => false,
        }
    }

    /// Eq. 7: the steady rate estimate `R^` (window mean, rounded down), when steady.
    pub fn estimate(&self) -> Option<u64> {
        if self.is_steady() {
            self.window().map(|w| w.mean())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_computed_window() {
        // l = 4, theta = 5%.
        let mut d = SteadyDetector::new(0.05, 4).unwrap();
        assert_eq!(d.push(100), None);
        d.push(102);
        d.push(98);
        assert!(!d.is_steady(), "window not full");
        // Window 100, 102, 98, 101: (102 - 98) / (401 / 4) = 4 / 100.25 = 0.0399 < 0.05.
        let w = d.push(101).unwrap();
        assert_eq!((w.max, w.min, w.sum), (102, 98, 401));
        assert!((w.fluctuation() - 4.0 / 100.25).abs() < 1e-12);
        assert!(d.is_steady());
        assert_eq!(d.estimate(), Some(100)); // 100.25 rounded down
                                             // Window 102, 98, 101, 90: 12 / 97.75 = 0.1228 >= 0.05.
        let w = d.push(90).unwrap();
        assert_eq!((w.max, w.min, w.sum), (102, 90, 391));
        assert!(!d.is_steady());
        assert_eq!(d.estimate(), None);
        // 102, 98, 101, 90 leave; window 95, 96, 97, 96: 2 / 96 = 0.0208.
        for r in [95, 96, 97, 96] {
            d.push(r);
        }
        assert!(d.is_steady());
        assert_eq!(d.estimate(), Some(96));
        d.reset();
        assert_eq!(d.window(), None);
        assert!(!d.is_steady());
    }

    #[test]
    fn threshold_is_strict_and_zero_mean_is_not_steady() {
        // (110 - 90) / 100 = 0.2: steady for theta 0.2000001, not for theta 0.2.
        let mut a = SteadyDetector::new(0.2, 2).unwrap();
        a.push(90);
        a.push(110);
        assert!(!a.is_steady());
        let mut b = SteadyDetector::new(0.200001, 2).unwrap();
        b.push(90);
        b.push(110);
        assert!(b.is_steady());
        let mut z = SteadyDetector::new(0.05, 2).unwrap();
        z.push(0);
        z.push(0);
        assert!(!z.is_steady());
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = SteadyDetector::new(1.5, 10).unwrap_err();
        assert!(e.to_string().starts_with("skip.theta"), "{e}");
        assert!(SteadyDetector::new(f64::NAN, 10).is_err());
        assert!(SteadyDetector::new(0.0, 10).is_err());
        let e = SteadyDetector::new(0.05, 1).unwrap_err();
        assert!(e.to_string().starts_with("skip.samples"), "{e}");
        let d = SteadyDetector::with_defaults();
        assert_eq!((d.theta_ppm(), d.samples()), (50_000, 2000));
    }

    proptest! {
        /// The ring, deques and running sum agree with a brute-force window at every push.
        #[test]
        fn matches_brute_force(
            l in 2usize..12,
            theta in 0.01f64..0.9,
            rates in prop::collection::vec(0u64..1_000, 1..200),
        ) {
            let mut d = SteadyDetector::new(theta, l).unwrap();
            let ppm = (theta * 1e6).round() as u128;
            for (i, &r) in rates.iter().enumerate() {
                let w = d.push(r);
                if i + 1 < l {
                    prop_assert!(w.is_none());
                    continue;
                }
                let win = &rates[i + 1 - l..=i];
                let (mx, mn) = (*win.iter().max().unwrap(), *win.iter().min().unwrap());
                let sum: u128 = win.iter().map(|&x| x as u128).sum();
                let w = w.unwrap();
                prop_assert_eq!((w.max, w.min, w.sum), (mx, mn, sum));
                let steady = sum > 0 && ((mx - mn) as u128) * l as u128 * 1_000_000 < ppm * sum;
                prop_assert_eq!(d.is_steady(), steady);
                prop_assert_eq!(d.estimate(), steady.then(|| (sum / l as u128) as u64));
            }
        }
    }
}
