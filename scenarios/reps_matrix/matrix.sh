#!/usr/bin/env bash
# REPS Figure 3 matrix: every scenarios/reps_matrix/*.toml under the nine load balancers,
# then one CSV of max FCT (us) per workload (rows) and load balancer (columns).
#
#   bash scenarios/reps_matrix/matrix.sh [DCFAB] [OUT]     (defaults: dcfab, out/reps_matrix)
#
# Extra arguments after OUT are passed to every sweep (e.g. --set topology.tiers=3 for the
# paper's 1024-host synthetic benchmarks, or --jobs 2). WORKLOADS="a b" re-runs only those
# scenarios and keeps the others' results already in OUT.
#
# Each cell is the metric the paper's figure plots for that workload (last CSV column):
# all_to_all the collective's runtime (end_time_ps: its flows start when earlier ones end;
# the artifact's plot_collective.py), websearch the mean FCT (plot_load.py, "Average FCT"),
# every other workload the max FCT (its flows all start at t = 0, so it is the runtime too).
set -euo pipefail
dcfab=${1:-dcfab}
out=${2:-out/reps_matrix}
shift $(( $# > 2 ? 2 : $# ))
lbs=ecmp,ops,reps,plb,flowlet,mprdma,mptcp,bitmap,adaptive_roce
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for f in "$here"/*.toml; do
  name=$(basename "$f" .toml)
  if [ -n "${WORKLOADS:-}" ] && [[ " $WORKLOADS " != *" $name "* ]]; then
    continue
  fi
  rm -rf "$out/$name"
  "$dcfab" sweep "$f" --grid transport.lb=$lbs --out "$out/$name" "$@" >/dev/null
done
python3 - "$out" "$lbs" <<'PY'
import csv, os, sys
out, lbs = sys.argv[1], sys.argv[2].split(",")
metric = {"all_to_all": "end_time_ps", "websearch": "mean_fct_ps"}
rows = []
for name in sorted(os.listdir(out)):
    p = os.path.join(out, name, "sweep.csv")
    if not os.path.isfile(p):
        continue
    lines = [l for l in open(p) if not l.startswith("#")]
    cells = {}
    for r in csv.DictReader(lines):
        done = r["flows_completed"] == r["flows"]
        m = metric.get(name, "max_fct_ps")
        v = float(r[m]) / 1e6 if r["status"] == "ok" and r[m] else float("nan")
        cells[r["transport.lb"]] = "%.1f%s" % (v, "" if done else "*")
    rows.append([name] + [cells.get(lb, "") for lb in lbs] + [metric.get(name, "max_fct_ps")])
with open(os.path.join(out, "figure3_max_fct_us.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["workload"] + lbs + ["metric"])
    w.writerows(rows)
print("| workload | " + " | ".join(lbs) + " | metric |")
print("|" + " --- |" * (len(lbs) + 2))
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
