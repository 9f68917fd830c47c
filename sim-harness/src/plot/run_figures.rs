//! The figures of one run, each read from its output file (README "Figures"):
//!
//! | file | from | what |
//! | --- | --- | --- |
//! | `fct_cdf.svg` | flows.csv | CDF of the completed flows' FCT, all flows and one line per `class` when that column exists |
//! | `queues.svg` | queues.csv | occupancy over time of the busiest ports (highest peak), physical, and phantom when a `phantom_bytes` column exists |
//! | `rates.svg` | rates.csv | sending rate over time of the flows that sent the most bytes |
//! | `fairness.svg` | fairness.csv | Jain's fairness index of the active flows' rates over time |
//! | `links.svg` | links.csv | link utilization, links sorted from busiest, one line per kind of link (`tor.up`, `agg.down`, ...) |
//! | `utilization.svg` | intervals.csv | hosts' received DATA over their capacity, per measurement interval |
//! | `collectives.svg` | collectives.csv | collective completion times: one bar per collective (a CDF beyond 32) |
//! | `uplinks.svg` | uplink_selection.csv | DATA packets ToR 0 sent to each uplink, per bucket |
//!
//! A figure whose file is missing or has no data is not drawn.

use super::chart::{bar_chart, line_chart, BarChart, LineChart, Series};
use super::data::{Csv, RunLabel};
use crate::error::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Ports drawn in `queues.svg`.
pub const BUSIEST_PORTS: usize = 6;
/// Flows drawn in `rates.svg`.
pub const RATE_FLOWS: usize = 8;
/// Collectives drawn as bars (more: a CDF).
pub const MAX_COLLECTIVE_BARS: usize = 32;

const PS_PER_US: f64 = 1e6;

/// A finished figure: its file, or why it was not drawn.
pub type Drawn = Option<PathBuf>;

/// CDF points of `vals` (sorted ascending): (value, fraction at or below it).
pub fn cdf(mut vals: Vec<f64>) -> Vec<(f64, f64)> {
    vals.sort_by(f64::total_cmp);
    let n = vals.len() as f64;
    vals.iter()
        .enumerate()
        .map(|(i, &v)| (v, (i + 1) as f64 / n))
        .collect()
}

/// `fct_cdf.svg`.
pub fn fct_cdf(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "flows.csv")? else {
        return Ok(None);
    };
    let fct = c.need("fct_ps")?;
    let class = c.col("class");
    let mut all = Vec::new();
    let mut by_class: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let v = c.num(r, fct)?;
        if v <= 0.0 {
            continue; // not completed
        }
        all.push(v / PS_PER_US);
        if let Some(k) = class {
            by_class
                .entry(c.rows[r][k].clone())
                .or_default()
                .push(v / PS_PER_US);
        }
    }
    if all.is_empty() {
        return Ok(None);
    }
    let mut series = vec![Series {
        name: format!("all flows ({})", all.len()),
        points: cdf(all),
    }];
    for (k, v) in by_class {
        series.push(Series {
            name: format!("class {k} ({})", v.len()),
            points: cdf(v),
        });
    }
    let path = dir.join("fct_cdf.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!("Flow completion time CDF{}", who.suffix()),
            x_label: "flow completion time (µs)".into(),
            y_label: "fraction of completed flows".into(),
            series,
            steps: true,
        },
    )?;
    Ok(Some(path))
}

/// A named series of (x, y) points.
type Keyed = (String, Vec<(f64, f64)>);

/// Per-key time series from a CSV: key column, time column (scaled to µs by `t_scale`),
/// value column (scaled by `v_scale`). Keys in file order of first appearance.
fn series_by_key(
    c: &Csv,
    key: usize,
    time: usize,
    t_scale: f64,
    val: usize,
    v_scale: f64,
) -> Result<Vec<Keyed>> {
    let mut order: Vec<String> = Vec::new();
    let mut map: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let k = &c.rows[r][key];
        let p = (c.num(r, time)? / t_scale, c.num(r, val)? / v_scale);
        match map.get_mut(k) {
            Some(v) => v.push(p),
            None => {
                order.push(k.clone());
                map.insert(k.clone(), vec![p]);
            }
        }
    }
    Ok(order
        .into_iter()
        .map(|k| {
            let mut v = map.remove(&k).unwrap_or_default();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            (k, v)
        })
        .collect())
}

/// The `n` entries with the largest `score`, ties in their given order.
fn top<T>(v: Vec<T>, n: usize, score: impl Fn(&T) -> f64) -> Vec<T> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| score(&v[b]).total_cmp(&score(&v[a])).then(a.cmp(&b)));
    idx.truncate(n);
    let keep: std::collections::BTreeSet<usize> = idx.into_iter().collect();
    v.into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, x)| x)
        .collect()
}

/// Samples are written only for non-empty queues: put the zeros back on the sampling grid
/// (the smallest step between sample times, from one step before the first sample to one
/// after the last), so a line drops to 0 where the queue was empty.
pub fn zero_fill(points: &[(f64, f64)], times_ps: &[u64]) -> Vec<(f64, f64)> {
    let step = times_ps.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0);
    let (Some(&first), Some(&last)) = (times_ps.first(), times_ps.last()) else {
        return points.to_vec();
    };
    if step == 0 {
        return points.to_vec();
    }
    let at: BTreeMap<u64, f64> = points
        .iter()
        .map(|&(t, v)| ((t * PS_PER_US).round() as u64, v))
        .collect();
    let mut out = Vec::new();
    let mut t = first.saturating_sub(step);
    while t <= last + step {
        out.push((t as f64 / PS_PER_US, at.get(&t).copied().unwrap_or(0.0)));
        t += step;
    }
    out
}

fn peak(points: &[(f64, f64)]) -> f64 {
    points.iter().map(|p| p.1).fold(0.0, f64::max)
}

/// `queues.svg`.
pub fn queues(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "queues.csv")? else {
        return Ok(None);
    };
    if c.rows.is_empty() {
        return Ok(None);
    }
    let (time, port, bytes) = (c.need("time_ps")?, c.need("port")?, c.need("bytes")?);
    let phys = series_by_key(&c, port, time, PS_PER_US, bytes, 1e3)?;
    let phantom = match c.col("phantom_bytes") {
        Some(p) => series_by_key(&c, port, time, PS_PER_US, p, 1e3)?,
        None => Vec::new(),
    };
    let mut times = (0..c.rows.len())
        .map(|r| c.num(r, time).map(|t| t as u64))
        .collect::<Result<Vec<u64>>>()?;
    times.sort_unstable();
    times.dedup();
    let busiest = top(phys, BUSIEST_PORTS, |s| peak(&s.1));
    let mut series = Vec::new();
    for (name, points) in busiest {
        if let Some((_, ph)) = phantom.iter().find(|(n, _)| *n == name) {
            series.push(Series {
                name: format!("{name} phantom"),
                points: zero_fill(ph, &times),
            });
        }
        let points = zero_fill(&points, &times);
        series.push(Series { name, points });
    }
    let path = dir.join("queues.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!(
                "Queue occupancy, {BUSIEST_PORTS} busiest ports{}",
                who.suffix()
            ),
            x_label: "time (µs)".into(),
            y_label: "queued (KB)".into(),
            series,
            steps: false,
        },
    )?;
    Ok(Some(path))
}

/// `rates.svg` (schema `flow,time_ps,bytes,rate_gbps`, README "rates.csv").
pub fn rates(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "rates.csv")? else {
        return Ok(None);
    };
    if c.rows.is_empty() {
        return Ok(None);
    }
    let (flow, time, bytes, rate) = (
        c.need("flow")?,
        c.need("time_ps")?,
        c.need("bytes")?,
        c.need("rate_gbps")?,
    );
    let per_flow = series_by_key(&c, flow, time, PS_PER_US, rate, 1.0)?;
    let sent = series_by_key(&c, flow, time, PS_PER_US, bytes, 1.0)?;
    let total: BTreeMap<&str, f64> = sent
        .iter()
        .map(|(k, v)| (k.as_str(), v.iter().map(|p| p.1).sum()))
        .collect();
    let chosen = top(per_flow, RATE_FLOWS, |s| {
        total.get(s.0.as_str()).copied().unwrap_or(0.0)
    });
    let series: Vec<Series> = chosen
        .into_iter()
        .map(|(k, points)| Series {
            name: format!("flow {k}"),
            points,
        })
        .collect();
    let path = dir.join("rates.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!(
                "Sending rate, {} largest flows{}",
                series.len(),
                who.suffix()
            ),
            x_label: "time (µs)".into(),
            y_label: "rate (Gbps)".into(),
            series,
            steps: false,
        },
    )?;
    Ok(Some(path))
}

/// `fairness.svg` (schema `time_ps,flows,jain_index,fair_share_gbps`, README "fairness.csv").
pub fn fairness(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "fairness.csv")? else {
        return Ok(None);
    };
    if c.rows.is_empty() {
        return Ok(None);
    }
    let (time, jain) = (c.need("time_ps")?, c.need("jain_index")?);
    let points = (0..c.rows.len())
        .map(|r| Ok((c.num(r, time)? / PS_PER_US, c.num(r, jain)?)))
        .collect::<Result<Vec<_>>>()?;
    let path = dir.join("fairness.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!("Jain's fairness index of the active flows{}", who.suffix()),
            x_label: "time (µs)".into(),
            y_label: "Jain's fairness index (1 = equal rates)".into(),
            series: vec![Series {
                name: "Jain's index".into(),
                points,
            }],
            steps: false,
        },
    )?;
    Ok(Some(path))
}

/// The kind of a link from its name: `tor3.up1` -> `tor.up`, `spine0.down2` -> `spine.down`.
pub fn link_kind(name: &str) -> String {
    name.split('.')
        .map(|part| part.trim_end_matches(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(".")
}

/// `links.svg`.
pub fn links(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "links.csv")? else {
        return Ok(None);
    };
    if c.rows.is_empty() {
        return Ok(None);
    }
    let (link, util) = (c.need("link")?, c.need("utilization")?);
    let mut kinds: Vec<(String, Vec<f64>)> = Vec::new();
    for r in 0..c.rows.len() {
        let k = link_kind(&c.rows[r][link]);
        let u = c.num(r, util)? * 100.0;
        match kinds.iter_mut().find(|(n, _)| *n == k) {
            Some((_, v)) => v.push(u),
            None => kinds.push((k, vec![u])),
        }
    }
    let series = kinds
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_by(|a, b| b.total_cmp(a));
            Series {
                name: format!("{k} ({} links)", v.len()),
                points: v
                    .into_iter()
                    .enumerate()
                    .map(|(i, u)| ((i + 1) as f64, u))
                    .collect(),
            }
        })
        .collect();
    let path = dir.join("links.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!("Link utilization over the run{}", who.suffix()),
            x_label: "link rank, busiest first (links)".into(),
            y_label: "utilization (%)".into(),
            series,
            steps: false,
        },
    )?;
    Ok(Some(path))
}

/// `utilization.svg`.
pub fn utilization(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "intervals.csv")? else {
        return Ok(None);
    };
    if c.rows.is_empty() {
        return Ok(None);
    }
    let (start, util) = (c.need("start_ps")?, c.need("utilization")?);
    let points = (0..c.rows.len())
        .map(|r| Ok((c.num(r, start)? / PS_PER_US, c.num(r, util)? * 100.0)))
        .collect::<Result<Vec<_>>>()?;
    let path = dir.join("utilization.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!("Host receive utilization per interval{}", who.suffix()),
            x_label: "interval start (µs)".into(),
            y_label: "utilization (%)".into(),
            series: vec![Series {
                name: "DATA received / host capacity".into(),
                points,
            }],
            steps: false,
        },
    )?;
    Ok(Some(path))
}

/// `collectives.svg`.
pub fn collectives(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "collectives.csv")? else {
        return Ok(None);
    };
    let (id, cct) = (c.need("id")?, c.need("cct_ps")?);
    let mut done = Vec::new();
    for r in 0..c.rows.len() {
        let v = c.num(r, cct)?;
        if v > 0.0 {
            done.push((c.rows[r][id].clone(), v / PS_PER_US));
        }
    }
    if done.is_empty() {
        return Ok(None);
    }
    let path = dir.join("collectives.svg");
    let title = format!("Collective completion time{}", who.suffix());
    if done.len() <= MAX_COLLECTIVE_BARS {
        bar_chart(
            &path,
            &BarChart {
                title,
                x_label: "collective (id)".into(),
                y_label: "completion time (µs)".into(),
                categories: done.iter().map(|d| d.0.clone()).collect(),
                groups: vec![format!("CCT ({} completed)", done.len())],
                values: vec![done.iter().map(|d| Some(d.1)).collect()],
            },
        )?;
    } else {
        line_chart(
            &path,
            &LineChart {
                title,
                x_label: "collective completion time (µs)".into(),
                y_label: "fraction of completed collectives".into(),
                series: vec![Series {
                    name: format!("CCT ({} completed)", done.len()),
                    points: cdf(done.into_iter().map(|d| d.1).collect()),
                }],
                steps: true,
            },
        )?;
    }
    Ok(Some(path))
}

/// `uplinks.svg`: the uplinks of ToR 0.
pub fn uplinks(dir: &Path, who: &RunLabel) -> Result<Drawn> {
    let Some(c) = Csv::read(dir, "uplink_selection.csv")? else {
        return Ok(None);
    };
    let (time, port, pkts) = (c.need("time_us")?, c.need("port")?, c.need("data_packets")?);
    let series: Vec<Series> = series_by_key(&c, port, time, 1.0, pkts, 1.0)?
        .into_iter()
        .filter(|(k, _)| k.starts_with("tor0."))
        .map(|(name, points)| Series { name, points })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    let path = dir.join("uplinks.svg");
    line_chart(
        &path,
        &LineChart {
            title: format!("Uplink choice at tor0{}", who.suffix()),
            x_label: "time bucket start (µs)".into(),
            y_label: "DATA packets per bucket (packets)".into(),
            series,
            steps: false,
        },
    )?;
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_top_and_link_kinds() {
        assert_eq!(cdf(vec![3.0, 1.0]), vec![(1.0, 0.5), (3.0, 1.0)]);
        let v = vec![("a", 1.0), ("b", 5.0), ("c", 3.0), ("d", 5.0)];
        let t: Vec<&str> = top(v, 3, |x| x.1).into_iter().map(|x| x.0).collect();
        assert_eq!(t, ["b", "c", "d"]);
        assert_eq!(link_kind("tor3.up12"), "tor.up");
        assert_eq!(link_kind("spine0.down2"), "spine.down");
        assert_eq!(link_kind("host7"), "host");
        let filled = zero_fill(
            &[(2.0, 5.0), (4.0, 7.0)],
            &[2_000_000, 3_000_000, 4_000_000],
        );
        assert_eq!(
            filled,
            [(1.0, 0.0), (2.0, 5.0), (3.0, 0.0), (4.0, 7.0), (5.0, 0.0)]
        );
    }
}
