//! The two chart kinds every figure is made of, drawn with `plotters`' SVG backend: a line
//! chart (one line per series) and a grouped bar chart (one bar per group in each category).
//!
//! The SVG backend writes text as SVG `<text>` elements and sizes it with plotters' built-in
//! estimate, so no font files, fontconfig or system libraries are needed. Each chart has a
//! title, both axis descriptions (with units) and a legend naming every series.

use crate::error::{Error, Result};
use crate::output::atomic_write;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::io::Write;
use std::path::Path;

/// Width and height of every figure, pixels.
pub const SIZE: (u32, u32) = (820, 500);

/// Most points drawn per line (longer series are thinned evenly, first and last kept).
pub const MAX_POINTS: usize = 2000;

/// One line of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) in axis units.
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Title (names the scenario and seed).
    pub title: String,
    /// x-axis description with its unit.
    pub x_label: String,
    /// y-axis description with its unit.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Draw the points as steps (a CDF) rather than straight segments.
    pub steps: bool,
}

/// A grouped bar chart: `values[g][c]` is group `g`'s bar in category `c` (`None`: no bar).
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Title.
    pub title: String,
    /// Category-axis description.
    pub x_label: String,
    /// Value-axis description with its unit.
    pub y_label: String,
    /// Category names, left to right.
    pub categories: Vec<String>,
    /// Group names (legend), one colour each.
    pub groups: Vec<String>,
    /// Bar heights.
    pub values: Vec<Vec<Option<f64>>>,
}

fn draw_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!("drawing the figure: {e}")),
    }
}

/// The colour of series `i`.
fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    C[i % C.len()]
}

/// Padded axis range covering `vals` (and 0 when `from_zero`).
fn range(vals: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
        return (
            lo - if from_zero && lo == 0.0 { 0.0 } else { pad },
            hi + pad,
        );
    }
    let pad = (hi - lo) * 0.04;
    (
        if from_zero && lo == 0.0 {
            0.0
        } else {
            lo - pad
        },
        hi + pad,
    )
}

/// Raise the top of the value axis so a legend of `entries` lines in the upper right corner
/// sits above the data rather than on it.
fn legend_headroom(lo: f64, hi: f64, entries: usize) -> f64 {
    let plot_px = f64::from(SIZE.1) - 100.0;
    let frac = (entries as f64 * 20.0 + 16.0) / plot_px;
    if entries == 0 || frac >= 0.7 {
        return hi;
    }
    lo + (hi - lo) / (1.0 - frac)
}

/// Keep at most [`MAX_POINTS`] points, evenly spaced, first and last included.
pub fn thin(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points.to_vec();
    }
    let n = points.len() - 1;
    (0..MAX_POINTS)
        .map(|i| points[i * n / (MAX_POINTS - 1)])
        .collect()
}

/// Tick label: at most 4 significant digits, no trailing zeros.
fn tick(v: &f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        return format!("{v:.2e}");
    }
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn write_svg(path: &Path, svg: &str) -> Result<()> {
    atomic_write(path, |w| w.write_all(svg.as_bytes()))
}

/// A chart over linear `f64` axes on an SVG page.
type Frame<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The chart area of both kinds of chart: a white page, the title, margins and room for the
/// axis labels, over linear axes `x` and `y`.
fn frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    title: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    path: &Path,
) -> Result<Frame<'a, 'b>> {
    root.fill(&WHITE).map_err(|e| draw_err(path, e))?;
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(|e| draw_err(path, e))
}

/// The series legend: upper right, on a translucent white box with a black border.
fn legend<'a, 'b: 'a>(chart: &mut Frame<'a, 'b>, path: &Path) -> Result<()> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw_err(path, e))
}

/// Draw `c` into the SVG file `path` (written atomically).
pub fn line_chart(path: &Path, c: &LineChart) -> Result<()> {
    let series: Vec<(String, Vec<(f64, f64)>)> = c
        .series
        .iter()
        .map(|s| {
            let mut pts = thin(&s.points);
            if c.steps {
                let mut st = Vec::with_capacity(pts.len() * 2);
                let mut prev_y = 0.0;
                for &(x, y) in &pts {
                    st.push((x, prev_y));
                    st.push((x, y));
                    prev_y = y;
                }
                pts = st;
            }
            (s.name.clone(), pts)
        })
        .collect();
    let (x0, x1) = range(series.iter().flat_map(|s| s.1.iter().map(|p| p.0)), false);
    let (y0, y1) = range(series.iter().flat_map(|s| s.1.iter().map(|p| p.1)), true);
    let y1 = legend_headroom(y0, y1, series.len());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let mut chart = frame(&root, &c.title, x0..x1, y0..y1, path)?;
        chart
            .configure_mesh()
            .x_desc(c.x_label.as_str())
            .y_desc(c.y_label.as_str())
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .max_light_lines(2)
            .draw()
            .map_err(|e| draw_err(path, e))?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let col = colour(i);
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), col.stroke_width(2)))
                .map_err(|e| draw_err(path, e))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], col));
        }
        if !series.is_empty() {
            legend(&mut chart, path)?;
        }
        root.present().map_err(|e| draw_err(path, e))?;
    }
    write_svg(path, &svg)
}

/// Draw `c` into the SVG file `path` (written atomically).
pub fn bar_chart(path: &Path, c: &BarChart) -> Result<()> {
    let n_cat = c.categories.len().max(1);
    let n_grp = c.groups.len().max(1);
    let (_, y1) = range(c.values.iter().flatten().flatten().copied(), true);
    let y1 = legend_headroom(0.0, y1, c.groups.len());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let mut chart = frame(&root, &c.title, 0.0..n_cat as f64, 0.0..y1, path)?;
        let none = |_: &f64| String::new();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .x_label_formatter(&none)
            .x_desc(c.x_label.as_str())
            .y_desc(c.y_label.as_str())
            .y_label_formatter(&tick)
            .max_light_lines(2)
            .draw()
            .map_err(|e| draw_err(path, e))?;
        let width = 0.8 / n_grp as f64;
        for (g, name) in c.groups.iter().enumerate() {
            let col = colour(g);
            let bars: Vec<Rectangle<(f64, f64)>> = c.values[g]
                .iter()
                .enumerate()
                .filter_map(|(ci, v)| {
                    v.map(|v| {
                        let left = ci as f64 + 0.1 + g as f64 * width;
                        Rectangle::new([(left, 0.0), (left + width, v)], col.filled())
                    })
                })
                .collect();
            chart
                .draw_series(bars)
                .map_err(|e| draw_err(path, e))?
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], col.filled()));
        }
        // Category names under the axis, centred on their bar groups.
        let style = TextStyle::from(("sans-serif", 13).into_font())
            .pos(Pos::new(HPos::Center, VPos::Top))
            .color(&BLACK);
        for (ci, name) in c.categories.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(ci as f64 + 0.5, 0.0));
            root.draw(&Text::new(name.as_str(), (px, py + 6), style.clone()))
                .map_err(|e| draw_err(path, e))?;
        }
        if !c.groups.is_empty() {
            legend(&mut chart, path)?;
        }
        root.present().map_err(|e| draw_err(path, e))?;
    }
    write_svg(path, &svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_ticks_and_thinning() {
        assert_eq!(range([2.0, 4.0].into_iter(), true), (0.0, 4.0 + 4.0 * 0.04));
        assert_eq!(range(std::iter::empty(), false), (0.0, 1.0));
        let (lo, hi) = range([5.0].into_iter(), false);
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(tick(&2.5), "2.5");
        assert_eq!(tick(&100.0), "100");
        assert_eq!(tick(&-0.0), "0");
        assert_eq!(tick(&1.5e7), "1.50e7");
        let pts: Vec<(f64, f64)> = (0..5000).map(|i| (i as f64, 0.0)).collect();
        let t = thin(&pts);
        assert_eq!(t.len(), MAX_POINTS);
        assert_eq!(t[0].0, 0.0);
        assert_eq!(t[MAX_POINTS - 1].0, 4999.0);
    }
}
