#!/usr/bin/env bash
# REPS Figure 3 matrix: every scenarios/reps_matrix/*.toml under the nine load balancers,
# then one CSV of max FCT (us) per workload (rows) and load balancer (columns).
#
#   bash scenarios/reps_matrix/matrix.sh [DCFAB] [OUT]     (defaults: dcfab, out/reps_matrix)
#
# Extra arguments after OUT are passed to every sweep (e.g. --set topology.tiers=3 for the
# paper's 1024-host synthetic benchmarks, or --jobs 2).
set -euo pipefail
dcfab=${1:-dcfab}
out=${2:-out/reps_matrix}
shift $(( $# > 2 ? 2 : $# ))
lbs=ecmp,ops,reps,plb,flowlet,mprdma,mptcp,bitmap,adaptive_roce
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for f in "$here"/*.toml; do
  name=$(basename "$f" .toml)
  rm -rf "$out/$name"
  "$dcfab" sweep "$f" --grid transport.lb=$lbs --out "$out/$name" "$@" >/dev/null
done
python3 - "$out" "$lbs" <<'PY'
import csv, os, sys
out, lbs = sys.argv[1], sys.argv[2].split(",")
rows = []
for name in sorted(os.listdir(out)):
    p = os.path.join(out, name, "sweep.csv")
    if not os.path.isfile(p):
        continue
    lines = [l for l in open(p) if not l.startswith("#")]
    cells = {}
    for r in csv.DictReader(lines):
        done = r["flows_completed"] == r["flows"]
        v = float(r["max_fct_ps"]) / 1e6 if r["status"] == "ok" and r["max_fct_ps"] else float("nan")
        cells[r["transport.lb"]] = "%.1f%s" % (v, "" if done else "*")
    rows.append([name] + [cells.get(lb, "") for lb in lbs])
with open(os.path.join(out, "figure3_max_fct_us.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["workload"] + lbs)
    w.writerows(rows)
print("| workload | " + " | ".join(lbs) + " |")
print("|" + " --- |" * (len(lbs) + 1))
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
