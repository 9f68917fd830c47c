#!/usr/bin/env python3
"""Collector of the DCSIM figure sweeps (scenarios/dcsim_figs/run.sh); stdlib only.

    python3 scenarios/dcsim_figs/collect.py OUTDIR [--doc FILE]

Reads OUTDIR/<sweep>/sweep.csv of every sweep run.sh makes (a missing one is skipped; a
figure's rows come from <fig>/ and then <fig>_baselines/, the paper's baselines) and
writes, per figure, OUTDIR/<figure>.csv: one row per (x value, cc) with the figure's metrics
taken from the sweep's summary.json columns (`extra.*`), converted to readable units:

    cct_us          extra.mean_cct_ps / 1e6 (mean collective completion time, completed
                    collectives; `complete` says whether every collective completed)
    utilization     extra.utilization_window (infinite flows: the steady-state window) or
                    extra.utilization (t = 0 to the last DATA arrival)
    data_loss       extra.data_loss_rate (DATAs dropped in the network / DATAs sent)
    sim_loss        extra.sim_loss_rate (DCSIM: SIMs dropped / SIMs sent)
    qdelay_us       extra.mean_queueing_delay_ps / 1e6 (DATA queueing delay, section 4.1)
    reorder         extra.reorder (DATAs arriving below their flow's highest sequence)
    reorder_per_iv  extra.reorder_per_interval (per extra.metrics_interval_ps)

and OUTDIR/figures.md with one markdown table per figure (printed on stdout too). A run
whose status is not `ok` keeps its row with the status and empty metrics. With --doc FILE,
each figure's table also replaces the lines between `<!-- table:NAME -->` and
`<!-- /table:NAME -->` in FILE (docs/dcsim_figures.md), so the document's tables are the
script's output.
"""
import csv
import os
import sys

METRICS = {
    "cct_us": ("extra.mean_cct_ps", 1e-6, "%.1f"),
    "utilization": (None, 1.0, "%.3f"),
    "data_loss": ("extra.data_loss_rate", 1.0, "%.2e"),
    "sim_loss": ("extra.sim_loss_rate", 1.0, "%.3f"),
    "qdelay_us": ("extra.mean_queueing_delay_ps", 1e-6, "%.2f"),
    "reorder": ("extra.reorder", 1.0, "%d"),
    "reorder_per_iv": ("extra.reorder_per_interval", 1.0, "%.1f"),
}

# (figure, title, [(sweep dir, x column, x label prefix)], metrics)
FIGURES = [
    ("fig4", "Fig. 4: single all-to-all, infinite flows",
     [("fig4", None, ""), ("fig4_baselines", None, "")], ["utilization", "data_loss", "reorder", "reorder_per_iv", "qdelay_us"]),
    ("fig5_permutation", "Fig. 5(a): single permutation, CCT against flow size",
     [("fig5_permutation", "workload.message", ""), ("fig5_permutation_baselines", "workload.message", "")], ["cct_us", "data_loss", "qdelay_us"]),
    ("fig5_all_to_all", "Fig. 5(b): single all-to-all, CCT against flow size",
     [("fig5_all_to_all", "workload.message", ""), ("fig5_all_to_all_baselines", "workload.message", "")], ["cct_us", "data_loss", "qdelay_us"]),
    ("fig6_a2av", "Fig. 6: single all-to-all-v, CCT against average flow size",
     [("fig6_a2av", "workload.message", ""), ("fig6_a2av_baselines", "workload.message", "")], ["cct_us", "data_loss", "qdelay_us", "reorder"]),
    ("fig7_five_a2av", "Fig. 7: five all-to-all-v collectives",
     [("fig7_five_a2av", "workload.message", ""), ("fig7_five_a2av_baselines", "workload.message", "")], ["cct_us", "data_loss", "qdelay_us", "reorder"]),
    ("fig8_oversubscribed", "Fig. 8: five all-to-all-v, half the core switches at 1%",
     [("fig8_oversubscribed", "workload.message", ""), ("fig8_oversubscribed_baselines", "workload.message", "")], ["cct_us", "data_loss", "sim_loss", "qdelay_us"]),
    ("fig11", "Fig. 11: DCSIM DATA loss against B_data / B",
     [("fig11", "transport.dcsim.data_buffer_ratio", "")], ["data_loss", "cct_us"]),
    ("fig13", "Fig. 13: sync, async and fractional DCSIM",
     [("fig13_variants", "transport.dcsim.variant", ""),
      ("fig13_fractional", "transport.dcsim.fraction", "fractional ")],
     ["cct_us", "data_loss", "qdelay_us", "reorder"]),
]


def read_sweep(path):
    """Rows of a sweep.csv (its '#' provenance line skipped)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def value(row, metric):
    col, scale, _ = METRICS[metric]
    if metric == "utilization":
        col = "extra.utilization_window" if row.get("extra.utilization_window") else "extra.utilization"
    v = row.get(col, "")
    if v == "" or row.get("status") != "ok":
        return None
    return float(v) * scale


def fmt(metric, v):
    return "" if v is None else METRICS[metric][2] % v


def figure_rows(out, sources, metrics):
    rows = []
    for sweep, xcol, prefix in sources:
        p = os.path.join(out, sweep, "sweep.csv")
        if not os.path.isfile(p):
            continue
        for r in read_sweep(p):
            x = prefix + r[xcol] if xcol else ""
            done = r.get("extra.collectives_completed", "") == r.get("extra.collectives", "-")
            row = {"x": x, "cc": r.get("transport.cc", ""), "status": r["status"],
                   "complete": "yes" if done else "no", "run": r["run"]}
            for m in metrics:
                row[m] = value(r, m)
            rows.append(row)
    return rows


def replace_block(text, name, table):
    """`text` with the lines between the markers of figure `name` replaced by `table`."""
    begin, end = "<!-- table:%s -->" % name, "<!-- /table:%s -->" % name
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return text
    return text[: i + len(begin)] + "\n" + table + text[j:]


def main():
    args = sys.argv[1:]
    doc = None
    if len(args) == 3 and args[1] == "--doc":
        doc = args[2]
        args = args[:1]
    if len(args) != 1:
        sys.exit("usage: " + __doc__.strip().splitlines()[2].strip())
    out = args[0]
    md = ["# DCSIM figures, measured (scenarios/dcsim_figs/run.sh)", ""]
    tables = {}
    wrote = 0
    for name, title, sources, metrics in FIGURES:
        rows = figure_rows(out, sources, metrics)
        if not rows:
            continue
        wrote += 1
        cols = ["x", "cc", "status", "complete"] + metrics + ["run"]
        with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow([fmt(c, r[c]) if c in METRICS else r[c] for c in cols])
        md += ["## " + title, ""]
        first = len(md)
        head = (["x"] if any(r["x"] for r in rows) else []) + ["cc"] + metrics
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + " --- |" * len(head))
        for r in rows:
            cells = [r["x"]] if head[0] == "x" else []
            cells.append(r["cc"] if r["status"] == "ok" else "%s (%s)" % (r["cc"], r["status"]))
            for m in metrics:
                c = fmt(m, r[m])
                if m == "cct_us" and c and r["complete"] != "yes":
                    c += "*"
                cells.append(c)
            md.append("| " + " | ".join(cells) + " |")
        tables[name] = "\n".join(md[first:]) + "\n"
        md.append("")
    md.append("`*`: not every collective completed (mean over the completed ones).")
    text = "\n".join(md) + "\n"
    with open(os.path.join(out, "figures.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    if doc:
        with open(doc) as f:
            d = f.read()
        for name, table in tables.items():
            d = replace_block(d, name, table)
        with open(doc, "w") as f:
            f.write(d)
    if wrote == 0:
        sys.exit("collect.py: no sweep.csv found under %s" % out)


if __name__ == "__main__":
    main()
