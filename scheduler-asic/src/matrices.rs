//! The scheduler's traffic matrices (Zeropod §IV-A1): "Each scheduler maintains three traffic
//! matrices ... The RTS cells inform the scheduler of newly arrived data ... When an SCHD is
//! given, the matrices are also updated to subtract the granted data size." Plus the top-k
//! mice information of each host's last RTS (§IV-B1) and each Core's backpressure flags
//! (§IV-A2).
//!
//! Units: cells (saturating `u16`). `N` hosts per pod, `P` pods, `C` Cores.
//!
//! Next to the counters the block keeps occupancy bitmaps (one bit per matrix entry, set while
//! the entry is non-zero, and one bit per host with any E2E / E2P demand), the hardware's
//! valid bits: the Request phase walks only the non-zero entries of the unmatched senders
//! (a priority encoder over the bits) instead of scanning every entry of an N x N matrix. The
//! matrices are therefore written only through [`TrafficMatrices::on_rts`] and
//! [`TrafficMatrices::debit`], which keep the bits in step.

use arbitrary_int::{u3, u9};
use rtl_models::zeropod_cell::{MiceEntry, RtsRepr, TrafficKind, TOP_K};

/// Words of a bitmap over the hosts of a pod (`N <= 1024`).
pub const HOST_WORDS: usize = 16;

/// A bitmap over the hosts of a pod, bit `h % 64` of word `h / 64`.
pub type HostBits = [u64; HOST_WORDS];

/// Call `f` on every set bit of `bits` (ascending) among the first `words` words, skipping
/// the bits set in `exclude`.
#[inline]
pub fn for_each_bit(bits: &HostBits, exclude: &HostBits, words: usize, mut f: impl FnMut(usize)) {
    for w in 0..words.min(HOST_WORDS) {
        let mut m = bits[w] & !exclude[w];
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            f(w * 64 + b);
        }
    }
}

/// E2E, E2P and C2E matrices, mice tables and backpressure flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrafficMatrices<const N: usize, const P: usize, const C: usize> {
    /// `e2e[s][d]`: cells host s has for host d.
    e2e: [[u16; N]; N],
    /// `e2p[s][p]`: cells host s has for pod p.
    e2p: [[u16; P]; N],
    /// `c2e[c][d]`: cells Core c holds for host d.
    c2e: [[u16; N]; C],
    /// Bit d of `e2e_nz[s]`: `e2e[s][d] > 0`.
    e2e_nz: [HostBits; N],
    /// Bit p of `e2p_nz[s]`: `e2p[s][p] > 0`.
    e2p_nz: [u32; N],
    /// Bit d of `c2e_nz[c]`: `c2e[c][d] > 0`.
    c2e_nz: [HostBits; C],
    /// Bit s: host s has some E2E or E2P demand.
    active: HostBits,
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
    /// The bitmaps cover at most 1024 hosts and 32 pods (checked when instantiated).
    const SIZES_OK: () = assert!(N <= HOST_WORDS * 64 && P <= 32);

    /// Empty matrices.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::SIZES_OK;
        TrafficMatrices {
            e2e: [[0; N]; N],
            e2p: [[0; P]; N],
            c2e: [[0; N]; C],
            e2e_nz: [[0; HOST_WORDS]; N],
            e2p_nz: [0; N],
            c2e_nz: [[0; HOST_WORDS]; C],
            active: [0; HOST_WORDS],
            mice: [[MiceEntry {
                dst: u9::new(0),
                size: u3::new(0),
            }; TOP_K]; N],
            n_mice: [0; N],
            backpressure: [0; C],
            bad_rts: 0,
        }
    }

    /// SRAM bits: three matrices of u16 and one valid bit per entry, 16 x 12-bit mice entries
    /// + u5 count per host, one active bit per host, 32 backpressure bits per Core.
    pub const BITS: u32 = (17 * (N * N + N * P + C * N) + N * (12 * TOP_K + 5) + N + 32 * C) as u32;

    /// The E2E matrix: `e2e()[s][d]` cells host s has for host d.
    pub fn e2e(&self) -> &[[u16; N]; N] {
        &self.e2e
    }
    /// The E2P matrix: `e2p()[s][p]` cells host s has for pod p.
    pub fn e2p(&self) -> &[[u16; P]; N] {
        &self.e2p
    }
    /// The C2E matrix: `c2e()[c][d]` cells Core c holds for host d.
    pub fn c2e(&self) -> &[[u16; N]; C] {
        &self.c2e
    }
    /// Hosts with E2E demand from host `s` (bit d: `e2e[s][d] > 0`).
    pub fn e2e_bits(&self, s: usize) -> &HostBits {
        &self.e2e_nz[s]
    }
    /// Pods with E2P demand from host `s` (bit p).
    pub fn e2p_bits(&self, s: usize) -> u32 {
        self.e2p_nz[s]
    }
    /// Hosts Core `c` holds cells for (bit d).
    pub fn c2e_bits(&self, c: usize) -> &HostBits {
        &self.c2e_nz[c]
    }
    /// Hosts with any E2E or E2P demand (bit s).
    pub fn active(&self) -> &HostBits {
        &self.active
    }

    fn add_e2e(&mut self, s: usize, d: usize, cells: u16) {
        let e = &mut self.e2e[s][d];
        *e = e.saturating_add(cells);
        if *e > 0 {
            self.e2e_nz[s][d / 64] |= 1 << (d % 64);
            self.active[s / 64] |= 1 << (s % 64);
        }
    }

    fn add_e2p(&mut self, s: usize, p: usize, cells: u16) {
        let e = &mut self.e2p[s][p];
        *e = e.saturating_add(cells);
        if *e > 0 {
            self.e2p_nz[s] |= 1 << p;
            self.active[s / 64] |= 1 << (s % 64);
        }
    }

    fn refresh_active(&mut self, s: usize) {
        let any = self.e2p_nz[s] != 0 || self.e2e_nz[s].iter().any(|&w| w != 0);
        if any {
            self.active[s / 64] |= 1 << (s % 64);
        } else {
            self.active[s / 64] &= !(1 << (s % 64));
        }
    }

    /// Subtract `cells` granted (saturating at 0) from one entry (§IV-A1: "When an SCHD is
    /// given, the matrices are also updated to subtract the granted data size"). `kind`
    /// picks the matrix; `row` is the sender (host, or Core for C2E), `col` the host or pod.
    pub fn debit(&mut self, kind: TrafficKind, row: usize, col: usize, cells: u16) {
        match kind {
            TrafficKind::E2E => {
                let e = &mut self.e2e[row][col];
                *e = e.saturating_sub(cells);
                if *e == 0 {
                    self.e2e_nz[row][col / 64] &= !(1 << (col % 64));
                    self.refresh_active(row);
                }
            }
            TrafficKind::E2P => {
                let e = &mut self.e2p[row][col];
                *e = e.saturating_sub(cells);
                if *e == 0 {
                    self.e2p_nz[row] &= !(1 << col);
                    self.refresh_active(row);
                }
            }
            TrafficKind::C2E => {
                let e = &mut self.c2e[row][col];
                *e = e.saturating_sub(cells);
                if *e == 0 {
                    self.c2e_nz[row][col / 64] &= !(1 << (col % 64));
                }
            }
        }
    }

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
                    let (di, cells) = (d % N, a.cells);
                    let e = &mut self.c2e[c][di];
                    *e = e.saturating_add(cells);
                    if *e > 0 {
                        self.c2e_nz[c][di / 64] |= 1 << (di % 64);
                    }
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
                self.add_e2e(s, di, a.cells);
            } else if dp < P {
                self.add_e2p(s, dp, a.cells);
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
