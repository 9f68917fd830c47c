#!/usr/bin/env python3
"""Wormhole skip-vs-full comparison (issue 12; benches/README.md, Wormhole section).

Usage: wormhole_err.py [--csv] FULL_OUT SKIP_OUT [SKIP_OUT ...]

FULL_OUT is the output directory of a `dcfab run ... --no-skip`, each SKIP_OUT one of the
same scenario with skipping. Per flow the FCT relative error |skip - full| / full (flows.csv,
matched by id); prints one row per SKIP_OUT: mean / p99 / max FCT error, the iteration error
(extra.llm_iteration_ps), events skip / full and their ratio, the skipped-event fraction
1 - events(skip) / events(full), wall full / skip (summary.json `wall_s`), and the memo's
hits / misses / size. With `--csv`, one CSV row per SKIP_OUT instead (no header; columns
as `CSV_HEADER`: errors in %, wall in s), as `benches/wormhole_grid.sh` collects them.
"""
import csv
import json
import sys


def flows(d):
    with open(f"{d}/flows.csv") as f:
        rows = [line for line in f if not line.startswith("#")]
    return {int(r["id"]): int(r["fct_ps"]) for r in csv.DictReader(rows)}


def summary(d):
    with open(f"{d}/summary.json") as f:
        return json.load(f)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


CSV_HEADER = ("events_skip,events_full,events_ratio,mean_err_pct,p99_err_pct,max_err_pct,"
              "iteration_err_pct,wall_full_s,wall_skip_s,memo_hits,memo_misses")


def compare(full, sf, d):
    """Skip run `d` against the full run (flows `full`, summary `sf`): the per-flow FCT errors,
    the iteration error, and the skip run's summary."""
    skip, ss = flows(d), summary(d)
    if set(skip) != set(full):
        sys.exit(f"{d}: not the same flows as the full run")
    errs = [abs(skip[i] - full[i]) / full[i] for i in full if full[i] > 0]
    it_f = sf["extra"].get("llm_iteration_ps", 0.0)
    it_s = ss["extra"].get("llm_iteration_ps", 0.0)
    it = abs(it_s - it_f) / it_f if it_f else float("nan")
    return errs, it, ss


def main():
    args = sys.argv[1:]
    as_csv = bool(args) and args[0] == "--csv"
    if as_csv:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    full, sf = flows(args[0]), summary(args[0])
    if not as_csv:
        print("run | flows | mean err | p99 | max | iteration err | events skip / full | "
              "full / skip | skipped | wall full / skip (s) | memo hits / misses / size")
    for d in args[1:]:
        errs, it, ss = compare(full, sf, d)
        ef, es = sf["events"], ss["events"]
        x = ss["extra"]
        hits, misses = x.get("wormhole_memo_hits", 0), x.get("wormhole_memo_misses", 0)
        if as_csv:
            print(f"{es},{ef},{ef / es:.2f},{100 * sum(errs) / len(errs):.4f},"
                  f"{100 * pct(errs, 0.99):.4f},{100 * max(errs):.4f},{100 * it:.4f},"
                  f"{sf['wall_s']:.3f},{ss['wall_s']:.3f},{hits:.0f},{misses:.0f}")
            continue
        memo = "{:.0f} / {:.0f} / {:.0f}".format(hits, misses, x.get("wormhole_memo_size", 0))
        print(f"{d} | {len(errs)} | {100 * sum(errs) / len(errs):.4f}% | "
              f"{100 * pct(errs, 0.99):.4f}% | {100 * max(errs):.4f}% | {100 * it:.4f}% | "
              f"{es:,} / {ef:,} | {ef / es:.1f}x | {100 * (1 - es / ef):.2f}% | "
              f"{sf['wall_s']:.2f} / {ss['wall_s']:.2f} | {memo}")


if __name__ == "__main__":
    main()
