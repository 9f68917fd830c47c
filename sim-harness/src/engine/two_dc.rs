//! Results of a `two_dc` run (Uno 5.1, "Evaluation metrics"): every flow's class (`intra`: both
//! hosts in one datacenter, `inter`: across) in the `fct` table (`fct.csv`), and the mean and
//! 99th-percentile FCT of each class in `summary.json` (`fct_intra_mean_ps`, `fct_intra_p99_ps`,
//! `fct_inter_mean_ps`, `fct_inter_p99_ps`, with `flows_intra` / `flows_inter` and their
//! completed counts). Nothing is added to a single-datacenter run. With `output.fct_slowdown`
//! also each class's FCT slowdown (Uno Fig. 11: FCT over the ideal FCT, base RTT plus the
//! flow's bytes at the host link rate, at least 1), mean and p99, as `slowdown_{class}_{stat}`.

use super::*;
use crate::results::Table;

/// Mean and p99 (the same nearest-rank rule as the summary's `p99_fct_ps`) of `v`, sorted here.
fn mean_p99(v: &mut [u64]) -> (u64, u64) {
    if v.is_empty() {
        return (0, 0);
    }
    v.sort_unstable();
    let n = v.len();
    let sum: u128 = v.iter().map(|&x| u128::from(x)).sum();
    let idx = ((n as f64 * 0.99).ceil() as usize).clamp(1, n) - 1;
    ((sum / n as u128) as u64, v[idx])
}

/// Mean and p99 of slowdowns `v` (sorted here), the p99 interpolated linearly between closest
/// ranks, as the Uno authors' FCT script computes it (`numpy.percentile`, spcl/Uno_SC25
/// `plot_script_micro.py`, `print_fct_info`).
fn mean_p99_linear(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_unstable_by(f64::total_cmp);
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    let k = (n - 1) as f64 * 0.99;
    let lo = k.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    (mean, v[lo] + (v[hi] - v[lo]) * (k - lo as f64))
}

/// A flow's class name.
pub(crate) fn class_name(inter: bool) -> &'static str {
    if inter {
        "inter"
    } else {
        "intra"
    }
}

impl Sim {
    /// Add the per-class FCTs and the `fct` table to `r` (two datacenters only).
    /// `slowdown`: also the per-class FCT slowdown keys (`output.fct_slowdown`).
    pub(super) fn two_dc_results(&self, r: &mut RunResult, slowdown: bool) {
        if self.fabric.hosts_per_dc >= self.fabric.hosts {
            return;
        }
        let mut fcts: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        // Slowdowns of the completed flows: intra, inter.
        let mut slow: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut total = [0u64; 2];
        let mut rows = Vec::with_capacity(r.flows.len());
        for (f, rec) in self.flows.iter().zip(&r.flows) {
            let inter = f.base.inter;
            total[inter as usize] += 1;
            if rec.end_ps > 0 {
                fcts[inter as usize].push(rec.fct_ps);
                if slowdown {
                    let ideal_ps =
                        f.base.rtt_ps as f64 + rec.bytes as f64 * 8000.0 / self.fabric.host_gbps;
                    slow[inter as usize].push((rec.fct_ps as f64 / ideal_ps).max(1.0));
                }
            }
            rows.push(vec![
                rec.id.to_string(),
                rec.src.to_string(),
                rec.dst.to_string(),
                class_name(inter).to_string(),
                rec.bytes.to_string(),
                rec.start_ps.to_string(),
                rec.end_ps.to_string(),
                rec.fct_ps.to_string(),
                f.base.rtt_ps.to_string(),
            ]);
        }
        let x = &mut r.summary.extra;
        for (i, name) in ["intra", "inter"].iter().enumerate() {
            let done = fcts[i].len();
            let (mean, p99) = mean_p99(&mut fcts[i]);
            x.insert(format!("flows_{name}"), total[i] as f64);
            x.insert(format!("flows_{name}_completed"), done as f64);
            x.insert(format!("fct_{name}_mean_ps"), mean as f64);
            x.insert(format!("fct_{name}_p99_ps"), p99 as f64);
        }
        if slowdown {
            let mut all: Vec<f64> = slow.iter().flatten().copied().collect();
            let [intra, inter] = &mut slow;
            for (name, v) in [("intra", intra), ("inter", inter), ("all", &mut all)] {
                let (mean, p99) = mean_p99_linear(v);
                x.insert(format!("slowdown_{name}_mean"), mean);
                x.insert(format!("slowdown_{name}_p99"), p99);
            }
        }
        x.insert("dc_buffer_bytes".into(), self.dc_buffer_bytes as f64);
        r.tables.insert(
            "fct".into(),
            Table {
                header: [
                    "id",
                    "src",
                    "dst",
                    "class",
                    "bytes",
                    "start_ps",
                    "end_ps",
                    "fct_ps",
                    "base_rtt_ps",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
                rows,
            },
        );
    }
}
