//! The scheduler's traffic matrices (Zeropod §IV-A1): "Each scheduler maintains three traffic
//! matrices ... The RTS cells inform the scheduler of newly arrived data ... When an SCHD is
//! given, the matrices are also updated to subtract the granted data size." Plus the top-k
//! mice information of each host's last RTS (§IV-B1) and each Core's backpressure flags
//! (§IV-A2).
//!
//! Units: cells (saturating `u16`). `N` hosts per pod, `P` pods, `C` Cores.

use arbitrary_int::{u3, u9};
use rtl_models::zeropod_cell::{MiceEntry, RtsRepr, TOP_K};

/// E2E, E2P and C2E matrices, mice tables and backpressure flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrafficMatrices<const N: usize, const P: usize, const C: usize> {
    /// `e2e[s][d]`: cells host s has for host d.
    pub e2e: [[u16; N]; N],
    /// `e2p[s][p]`: cells host s has for pod p.
    pub e2p: [[u16; P]; N],
    /// `c2e[c][d]`: cells Core c holds for host d.
    pub c2e: [[u16; N]; C],
    /// Top-k mice entries of each host's last RTS.
    pub mice: [[MiceEntry; TOP_K]; N],
    /// Used mice entries per host.
    pub n_mice: [u8; N],
    /// `backpressure[c]` bit p: Core c must not relay to pod p.
    pub backpressure: [u32; C],
    /// RTS entries dropped because they named no valid destination.
    pub bad_rts: u32,
}

/// Size class of `cells` as carried in RTS: `ceil(log2(cells))`, capped at 7.
pub const fn size_class(cells: u32) -> u3 {
    let c = if cells <= 1 {
        0
    } else {
        32 - (cells - 1).leading_zeros()
    };
    u3::new(if c > 7 { 7 } else { c as u8 })
}

impl<const N: usize, const P: usize, const C: usize> TrafficMatrices<N, P, C> {
    /// Empty matrices.
    pub const fn new() -> Self {
        TrafficMatrices {
            e2e: [[0; N]; N],
            e2p: [[0; P]; N],
            c2e: [[0; N]; C],
            mice: [[MiceEntry {
                dst: u9::new(0),
                size: u3::new(0),
            }; TOP_K]; N],
            n_mice: [0; N],
            backpressure: [0; C],
            bad_rts: 0,
        }
    }

    /// SRAM bits: three matrices of u16, 16 x 12-bit mice entries + u5 count per host,
    /// 32 backpressure bits per Core.
    pub const BITS: u32 = (16 * (N * N + N * P + C * N) + N * (12 * TOP_K + 5) + 32 * C) as u32;

    /// Apply one RTS (§IV-A1). `pod` is this scheduler's pod; host `dst` values are global
    /// (`pod * N + index`). Destinations outside every matrix are counted in `bad_rts`.
    pub fn on_rts(&mut self, pod: usize, rts: &RtsRepr) {
        let n_arr = (rts.n_arrivals as usize).min(rts.arrivals.len());
        if rts.from_core {
            let c = rts.src as usize;
            if c >= C {
                self.bad_rts += 1;
                return;
            }
            self.backpressure[c] = rts.backpressure;
            for a in &rts.arrivals[..n_arr] {
                let d = a.dst as usize;
                if d / N == pod && d % N < N {
                    let e = &mut self.c2e[c][d % N];
                    *e = e.saturating_add(a.cells);
                } else {
                    self.bad_rts += 1;
                }
            }
            return;
        }
        let s = rts.src as usize;
        if s >= N {
            self.bad_rts += 1;
            return;
        }
        for a in &rts.arrivals[..n_arr] {
            let d = a.dst as usize;
            let (dp, di) = (d / N, d % N);
            if dp == pod {
                let e = &mut self.e2e[s][di];
                *e = e.saturating_add(a.cells);
            } else if dp < P {
                let e = &mut self.e2p[s][dp];
                *e = e.saturating_add(a.cells);
            } else {
                self.bad_rts += 1;
            }
        }
        let k = (rts.n_mice as usize).min(TOP_K);
        self.mice[s] = rts.mice;
        self.n_mice[s] = k as u8;
    }

    /// The mice size class host `s` reported for destination slot `slot` (host index, or
    /// `N + pod`), if any.
    pub fn mice_class(&self, s: usize, slot: usize) -> Option<u8> {
        let k = self.n_mice[s] as usize;
        self.mice[s][..k]
            .iter()
            .filter(|m| m.dst.value() as usize == slot)
            .map(|m| m.size.value())
            .min()
    }
}

impl<const N: usize, const P: usize, const C: usize> Default for TrafficMatrices<N, P, C> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes() {
        assert_eq!(size_class(0).value(), 0);
        assert_eq!(size_class(1).value(), 0);
        assert_eq!(size_class(2).value(), 1);
        assert_eq!(size_class(5).value(), 3);
        assert_eq!(size_class(200).value(), 7);
    }
}
