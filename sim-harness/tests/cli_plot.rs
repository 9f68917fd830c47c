//! `dcfab plot` and `--plot`: each SVG is parsed back with an XML parser and checked for its
//! title (scenario and seed), axis labels with units, and one legend entry and one drawn line
//! or bar set per expected series.

mod common;
use common::{dcfab_in, ok};
use std::path::Path;

/// 8 hosts, permutation of 64 KiB messages, queue samples every µs.
fn tiny_toml() -> String {
    common::tiny_scenario(
        "64KiB",
        "\n[output]\nqueue_sample_us = 1.0\nselection_bucket_us = 2.0\nrate_sample_us = 1.0\n",
    )
}

/// What an SVG shows: its texts, and how many lines (polylines) and filled rectangles.
struct Svg {
    texts: Vec<String>,
    lines: usize,
    rects_by_fill: std::collections::BTreeMap<String, usize>,
}

fn svg(path: &Path) -> Svg {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut s = Svg {
        texts: Vec::new(),
        lines: 0,
        rects_by_fill: Default::default(),
    };
    for n in doc.descendants() {
        match n.tag_name().name() {
            "text" => s.texts.push(n.text().unwrap_or("").trim().to_string()),
            "polyline" => {
                let pts = n.attribute("points").unwrap_or("");
                if pts.split_whitespace().count() >= 2 {
                    s.lines += 1;
                }
            }
            "rect" => {
                if let Some(f) = n.attribute("fill").filter(|f| *f != "none") {
                    *s.rects_by_fill.entry(f.to_string()).or_default() += 1;
                }
            }
            _ => {}
        }
    }
    s
}

impl Svg {
    fn has(&self, want: &str) -> bool {
        self.texts.iter().any(|t| t == want)
    }
    fn has_containing(&self, want: &str) -> bool {
        self.texts.iter().any(|t| t.contains(want))
    }
    fn check(&self, file: &str, title: &str, x: &str, y: &str, series: &[&str]) {
        let t = &self.texts;
        assert!(
            self.has_containing(title),
            "{file}: no title '{title}' in {t:?}"
        );
        assert!(self.has(x), "{file}: no x label '{x}' in {t:?}");
        assert!(self.has(y), "{file}: no y label '{y}' in {t:?}");
        for s in series {
            assert!(self.has(s), "{file}: no series '{s}' in {t:?}");
        }
    }
}

#[test]
fn run_plot_draws_every_figure_with_labels_and_series() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("tiny.toml"), tiny_toml()).unwrap();
    let out = ok(&dcfab_in(
        tmp.path(),
        &["run", "tiny.toml", "--out", "res", "--plot"],
    ));
    assert!(out.contains("plot: wrote"), "{out}");
    let res = tmp.path().join("res");
    let who = "(scenario tiny, seed 3)";

    let f = svg(&res.join("fct_cdf.svg"));
    f.check(
        "fct_cdf",
        &format!("Flow completion time CDF {who}"),
        "flow completion time (µs)",
        "fraction of completed flows",
        &["all flows (8)"],
    );
    assert!(f.lines >= 1, "the CDF line is drawn");

    let q = svg(&res.join("queues.svg"));
    q.check("queues", who, "time (µs)", "queued (KB)", &[]);
    // Six busiest ports, each a legend entry `<switch>.<port>` and a line.
    let ports: Vec<&String> = q
        .texts
        .iter()
        .filter(|t| t.contains(".down") || t.contains(".up"))
        .collect();
    assert_eq!(ports.len(), 6, "{:?}", q.texts);
    assert!(q.lines >= 6 + 6, "6 lines and 6 legend marks: {}", q.lines);

    let l = svg(&res.join("links.svg"));
    l.check(
        "links",
        who,
        "link rank, busiest first (links)",
        "utilization (%)",
        &[
            "tor.down (8 links)",
            "tor.up (8 links)",
            "spine.down (8 links)",
        ],
    );

    let c = svg(&res.join("collectives.svg"));
    c.check(
        "collectives",
        who,
        "collective (id)",
        "completion time (µs)",
        &["CCT (1 completed)", "0"],
    );

    let u = svg(&res.join("uplinks.svg"));
    u.check(
        "uplinks",
        who,
        "time bucket start (µs)",
        "DATA packets per bucket (packets)",
        &["tor0.up0", "tor0.up1"],
    );
    // The engine's rates.csv: the 8 flows' rates, and their fairness.
    let r = svg(&res.join("rates.svg"));
    r.check(
        "rates",
        &format!("Sending rate, 8 largest flows {who}"),
        "time (µs)",
        "rate (Gbps)",
        &["flow 0", "flow 3", "flow 7"],
    );
    assert!(r.lines >= 8 + 8, "8 lines and 8 legend marks: {}", r.lines);
    let j = svg(&res.join("fairness.svg"));
    j.check(
        "fairness",
        &format!("Jain's fairness index of the active flows {who}"),
        "time (µs)",
        "Jain's fairness index (1 = equal rates)",
        &["Jain's index"],
    );
    assert!(j.lines >= 1, "the index line is drawn");

    // `dcfab plot` on the directory redraws the same bytes (deterministic).
    let before = std::fs::read(res.join("fct_cdf.svg")).unwrap();
    std::fs::remove_file(res.join("fct_cdf.svg")).unwrap();
    ok(&dcfab_in(tmp.path(), &["plot", "res", "--quiet"]));
    assert_eq!(std::fs::read(res.join("fct_cdf.svg")).unwrap(), before);
}

#[test]
fn classes_phantom_queues_and_rates_are_drawn_when_present() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let prov = "# dcfab_version=0.1.0 scenario=hand seed=9\n";
    std::fs::write(
        d.join("flows.csv"),
        format!("{prov}id,src,dst,bytes,start_ps,end_ps,fct_ps,class\n0,0,1,10,0,5000000,5000000,mice\n1,1,0,10,0,9000000,9000000,inter_dc\n2,1,2,10,0,0,0,mice\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("queues.csv"),
        format!("{prov}time_ps,port,bytes,phantom_bytes\n0,tor0.up0,100,300\n1000000,tor0.up0,2000,4000\n0,tor1.up0,0,0\n1000000,tor1.up0,10,20\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("rates.csv"),
        format!("{prov}flow,time_ps,bytes,rate_gbps\n0,1000000,1000,8\n0,2000000,2000,16\n1,1000000,500,4\n1,2000000,100,0.8\n"),
    )
    .unwrap();
    let files = sim_harness::plot::plot_run(d).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["fct_cdf.svg", "queues.svg", "rates.svg"]);
    let who = "(scenario hand, seed 9)";
    svg(&d.join("fct_cdf.svg")).check(
        "fct_cdf",
        who,
        "flow completion time (µs)",
        "fraction of completed flows",
        &["all flows (2)", "class inter_dc (1)", "class mice (1)"],
    );
    svg(&d.join("queues.svg")).check(
        "queues",
        who,
        "time (µs)",
        "queued (KB)",
        &[
            "tor0.up0",
            "tor0.up0 phantom",
            "tor1.up0",
            "tor1.up0 phantom",
        ],
    );
    let r = svg(&d.join("rates.svg"));
    r.check(
        "rates",
        &format!("Sending rate, 2 largest flows {who}"),
        "time (µs)",
        "rate (Gbps)",
        &["flow 0", "flow 1"],
    );
    assert!(r.lines >= 4, "2 lines and 2 legend marks: {}", r.lines);

    // A bad number names the file, the row and the column.
    std::fs::write(
        d.join("rates.csv"),
        format!("{prov}flow,time_ps,bytes,rate_gbps\n0,1000000,1000,fast\n"),
    )
    .unwrap();
    let e = sim_harness::plot::plot_run(d).unwrap_err().to_string();
    assert!(
        e.contains("rates.csv") && e.contains("rate_gbps") && e.contains("row 1"),
        "{e}"
    );
    // Not an output directory: a clear error, no panic.
    let out = dcfab_in(d, &["plot", "nowhere"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OUT_DIR"));
}

#[test]
fn sweep_plot_draws_one_bar_group_per_other_grid_value() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("tiny.toml"), tiny_toml()).unwrap();
    ok(&dcfab_in(
        tmp.path(),
        &[
            "sweep",
            "tiny.toml",
            "--grid",
            "transport.lb=ecmp,ops,reps",
            "--grid",
            "seed=1,2",
            "--out",
            "sw",
            "--jobs",
            "2",
            "--quiet",
            "--plot",
            "--metric",
            "mean_fct_ps",
            "--metric",
            "drops",
        ],
    ));
    let sw = tmp.path().join("sw");
    let m = svg(&sw.join("sweep_mean_fct_ps.svg"));
    m.check(
        "sweep_mean_fct_ps",
        "mean_fct (µs) by transport.lb (scenario tiny, seeds 1,2)",
        "transport.lb",
        "mean_fct (µs)",
        &["ecmp", "ops", "reps", "seed=1", "seed=2"],
    );
    // Two groups (seeds), three bars each, plus a legend box each: two colours with 4 rects.
    let bars: Vec<usize> = m
        .rects_by_fill
        .iter()
        .filter(|(f, _)| *f != "#FFFFFF")
        .map(|(_, n)| *n)
        .collect();
    assert_eq!(
        bars.iter().filter(|&&n| n == 4).count(),
        2,
        "{:?}",
        m.rects_by_fill
    );
    svg(&sw.join("sweep_drops.svg")).check(
        "sweep_drops",
        "drops by transport.lb",
        "transport.lb",
        "drops",
        &["seed=1", "seed=2"],
    );
    // An unknown metric is a clear error naming the flag.
    let out = dcfab_in(tmp.path(), &["plot", "sw", "--metric", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--metric") && err.contains("nope"), "{err}");
    // A numeric first grid gives lines, one per value of the other grid.
    ok(&dcfab_in(
        tmp.path(),
        &[
            "sweep",
            "tiny.toml",
            "--grid",
            "topology.link_delay_ns=200,500,1000",
            "--grid",
            "transport.lb=ecmp,ops",
            "--out",
            "num",
            "--quiet",
            "--plot",
        ],
    ));
    let l = svg(&tmp.path().join("num/sweep_max_fct_ps.svg"));
    l.check(
        "sweep_max_fct_ps",
        "max_fct (µs) by topology.link_delay_ns (scenario tiny, seed 3)",
        "topology.link_delay_ns",
        "max_fct (µs)",
        &["transport.lb=ecmp", "transport.lb=ops"],
    );
    assert!(l.lines >= 4, "{}", l.lines);
}
