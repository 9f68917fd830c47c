//! Comparison figures of a sweep, from its `sweep.csv`: one figure per metric, the metric
//! against the values of the first `--grid`, one bar group (or line, when there are more than two
//! of those values and all are numbers) per combination of the other grids' values. `--grid transport.lb=ecmp,ops,reps`
//! gives the paper-style bar chart: one bar per load balancer.

use super::chart::{bar_chart, line_chart, BarChart, LineChart, Series};
use super::data::Csv;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Metrics drawn when none is asked for.
pub const DEFAULT_METRICS: [&str; 2] = ["mean_fct_ps", "max_fct_ps"];

/// The axis label of a metric and the divisor to its unit: `_ps` metrics are drawn in µs.
pub fn metric_axis(metric: &str) -> (String, f64) {
    match metric.strip_suffix("_ps") {
        Some(base) => (format!("{base} (µs)"), 1e6),
        None => (metric.to_string(), 1.0),
    }
}

/// File name of a metric's figure: `sweep_<metric>.svg` (other characters as `_`).
pub fn file_name(metric: &str) -> String {
    let clean: String = metric
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("sweep_{clean}.svg")
}

/// Draw one figure per metric into `dir` from `dir/sweep.csv`; returns the files written.
pub fn plot_sweep(dir: &Path, metrics: &[String]) -> Result<Vec<PathBuf>> {
    let c = Csv::read(dir, "sweep.csv")?.ok_or_else(|| Error::Io {
        path: dir.join("sweep.csv"),
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    })?;
    let status = c.need("status")?;
    let dims: Vec<usize> = (1..status).collect();
    if dims.is_empty() {
        return Err(Error::Parse {
            path: c.path.clone(),
            problem: "no grid column between 'run' and 'status'".into(),
        });
    }
    let scenario = c.provenance_field("scenario").unwrap_or_else(|| "?".into());
    // A grid over the seed: name its values, not the first run's seed.
    let seed = match dims.iter().find(|&&d| c.header[d] == "seed") {
        Some(&d) => {
            let mut seeds: Vec<&str> = Vec::new();
            for row in &c.rows {
                if !seeds.contains(&row[d].as_str()) {
                    seeds.push(&row[d]);
                }
            }
            format!("s {}", seeds.join(","))
        }
        None => format!(
            " {}",
            c.provenance_field("seed").unwrap_or_else(|| "?".into())
        ),
    };
    let mut categories: Vec<String> = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    let mut cell = Vec::with_capacity(c.rows.len());
    for row in &c.rows {
        let cat = row[dims[0]].clone();
        let grp = dims[1..]
            .iter()
            .map(|&d| format!("{}={}", c.header[d], row[d]))
            .collect::<Vec<_>>()
            .join(", ");
        if !categories.contains(&cat) {
            categories.push(cat.clone());
        }
        if !groups.contains(&grp) {
            groups.push(grp.clone());
        }
        let ci = categories.iter().position(|x| *x == cat).unwrap_or(0);
        let gi = groups.iter().position(|x| *x == grp).unwrap_or(0);
        cell.push((gi, ci));
    }
    let numeric_x: Option<Vec<f64>> = categories.iter().map(|v| v.parse::<f64>().ok()).collect();
    let mut written = Vec::new();
    let any_result = c
        .rows
        .iter()
        .any(|r| matches!(r[status].as_str(), "ok" | "interrupted"));
    for metric in metrics {
        // No run has results (all failed or missing): no metric columns, nothing to draw.
        if !any_result && c.col(metric).is_none() {
            continue;
        }
        let m = c.need(metric)?;
        let (label, div) = metric_axis(metric);
        let mut values = vec![vec![None; categories.len()]; groups.len()];
        for (r, &(gi, ci)) in cell.iter().enumerate() {
            let ok = matches!(c.rows[r][status].as_str(), "ok" | "interrupted");
            if ok && !c.rows[r][m].is_empty() {
                values[gi][ci] = Some(c.num(r, m)? / div);
            }
        }
        let group_names: Vec<String> = groups
            .iter()
            .map(|g| {
                if g.is_empty() {
                    label.clone()
                } else {
                    g.clone()
                }
            })
            .collect();
        let title = format!(
            "{label} by {} (scenario {scenario}, seed{seed})",
            c.header[dims[0]]
        );
        let path = dir.join(file_name(metric));
        match &numeric_x {
            Some(xs) if xs.len() > 2 => line_chart(
                &path,
                &LineChart {
                    title,
                    x_label: c.header[dims[0]].clone(),
                    y_label: label.clone(),
                    series: group_names
                        .into_iter()
                        .zip(&values)
                        .map(|(name, vals)| Series {
                            name,
                            points: xs
                                .iter()
                                .zip(vals)
                                .filter_map(|(&x, v)| v.map(|v| (x, v)))
                                .collect(),
                        })
                        .collect(),
                    steps: false,
                },
            )?,
            _ => bar_chart(
                &path,
                &BarChart {
                    title,
                    x_label: c.header[dims[0]].clone(),
                    y_label: label.clone(),
                    categories: categories.clone(),
                    groups: group_names,
                    values,
                },
            )?,
        }
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_file_names() {
        assert_eq!(metric_axis("mean_fct_ps"), ("mean_fct (µs)".into(), 1e6));
        assert_eq!(metric_axis("drops"), ("drops".into(), 1.0));
        assert_eq!(
            file_name("extra.mean_cct_ps"),
            "sweep_extra.mean_cct_ps.svg"
        );
        assert_eq!(file_name("a/b"), "sweep_a_b.svg");
    }
}
