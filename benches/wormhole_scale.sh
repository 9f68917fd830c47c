#!/usr/bin/env bash
# Wormhole at Table 1's larger sizes (issue 12; benches/README.md, "Session 19"): one LLM
# iteration at GPUS GPUs (256 or 1024; a 3-tier fat tree of radix 16) simulated in full,
# once more in full with one input moved by 1 ns (the full run's own sensitivity:
# benches/wormhole_chaos.sh), and with a few skip settings; prints wormhole_err.py's row
# for each against the full run, then the signed per-flow FCT error by flow kind
# (pipeline activations / gradients are the small flows, DP ring steps the large ones).
#
# usage: benches/wormhole_scale.sh GPUS OUT_DIR [gpt|moe] [extra dcfab flags...]
#   e.g. benches/wormhole_scale.sh 1024 /tmp/scale1024
# Output directories are reused when present (the 1024-GPU full runs take minutes each).
# Build first: cargo build --release -p sim-harness.
set -euo pipefail
gpus=${1:?usage: wormhole_scale.sh GPUS OUT_DIR [gpt|moe] [flags...]}
out=${2:?usage: wormhole_scale.sh GPUS OUT_DIR [gpt|moe] [flags...]}
family=${3:-gpt}
shift $(( $# < 3 ? $# : 3 ))
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
dcfab=${DCFAB:-$root/target/release/dcfab}
base=("$root/scenarios/wormhole_${family}_128.toml" --set "workload.llm.gpus=$gpus"
    --set "topology.hosts=$gpus" --set topology.tiers=3 -q "$@")
w2=(--set skip.partition_by=data_ports --set skip.rate_metric=packets
    --set skip.rate_estimate=timed --set skip.theta=0.05 --set skip.samples=10
    --set skip.sample_us=10)
mkdir -p "$out"

run() { # name, flags...
    local name=$1
    shift
    if [ ! -f "$out/$name/summary.json" ]; then
        echo "== $name" >&2
        "$dcfab" run "${base[@]}" "$@" --out "$out/$name" 2>/dev/null
    fi
}

run full --no-skip
fwd=$(grep -E '^fwd_us' "${base[0]}" | sed 's/.*= *//')
run chaos --no-skip --set "workload.llm.fwd_us=$(python3 -c "print($fwd + 0.001)")"
run shipped
run data_ports --set skip.partition_by=data_ports
run data_ports_fai --set skip.partition_by=data_ports --set skip.foreign_ack_interrupts=true
run w2 "${w2[@]}"
run w2_h_m2 "${w2[@]}" --set skip.held_occupancy=true --set skip.nic_bound_samples=2 \
    --set skip.nic_bound_exact=true

runs=(chaos shipped data_ports data_ports_fai w2 w2_h_m2)
python3 "$here/wormhole_err.py" "$out/full" "${runs[@]/#/$out/}"
python3 - "$out" "${runs[@]}" <<'PY'
import csv, statistics, sys

def flows(d):
    with open(f"{d}/flows.csv") as f:
        return {r["id"]: r for r in csv.DictReader(l for l in f if not l.startswith("#"))}

out, runs = sys.argv[1], sys.argv[2:]
full = flows(f"{out}/full")
cut = sorted({int(r["bytes"]) for r in full.values()})
cut = cut[len(cut) // 2] if len(cut) > 1 else cut[0] + 1
print("\nsigned FCT error (skip - full) / full, by flow size (small: < %d bytes)" % cut)
print("run | kind | flows | mean | p10 | median | p90")
for name in runs:
    run = flows(f"{out}/{name}")
    for kind, keep in (("small", lambda b: b < cut), ("large", lambda b: b >= cut)):
        e = sorted((int(run[i]["fct_ps"]) - int(r["fct_ps"])) / int(r["fct_ps"])
                   for i, r in full.items() if keep(int(r["bytes"])) and int(r["fct_ps"]) > 0)
        if e:
            n = len(e)
            print("%s | %s | %d | %.3f%% | %.3f%% | %.3f%% | %.3f%%" % (
                name, kind, n, 100 * statistics.mean(e), 100 * e[n // 10], 100 * e[n // 2],
                100 * e[9 * n // 10]))
PY
