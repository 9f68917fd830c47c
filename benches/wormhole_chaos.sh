#!/usr/bin/env bash
# Wormhole (issue 12): the full simulation's own sensitivity ("chaos floor") on an LLM
# iteration, to read a skip run's per-flow FCT error against (benches/README.md, Wormhole
# "Session 18").
#
# Usage (from the repository root, after `cargo build --release -p sim-harness`):
#   benches/wormhole_chaos.sh REF_DIR [PERTURBATION...]
#
# REF_DIR is the output directory of the reference `--no-skip` run of SCENARIO (with SETS),
# e.g.
#   target/release/dcfab run scenarios/wormhole_gpt_128.toml --set workload.llm.bytes_scale=1 \
#       --no-skip -q --set output.queue_sample_us=0 --out /tmp/ref128
# Each PERTURBATION is one `field=value` (passed as `--set field=value`) that changes the
# scenario by a physically negligible amount; the default list moves the per-stage compute
# times of `[workload.llm]` (50 / 100 us unless the scenario sets them) by 1 and 10 ns:
#   workload.llm.fwd_us=50.001 workload.llm.fwd_us=50.01
#   workload.llm.bwd_us=100.001 workload.llm.bwd_us=100.01
# Every perturbed run is a full one (`--no-skip`); each prints one row of
# benches/wormhole_err.py against REF_DIR: the per-flow FCT change the simulator itself shows
# for that input change. A skip run's error below these is inside the full run's own
# sensitivity.
# Environment: DCFAB (default target/release/dcfab), SCENARIO (default
# scenarios/wormhole_gpt_128.toml), SETS (default "--set workload.llm.bytes_scale=1
# --set output.queue_sample_us=0"), TMP (scratch, default /tmp/wormhole_chaos).
set -euo pipefail

if [ $# -lt 1 ] || [ ! -f "$1/flows.csv" ]; then
    echo "usage: $0 REF_DIR [field=value ...]  (REF_DIR: a --no-skip run's output directory)" >&2
    exit 2
fi
ref=$1
shift
perturb=("$@")
if [ ${#perturb[@]} -eq 0 ]; then
    perturb=(workload.llm.fwd_us=50.001 workload.llm.fwd_us=50.01
        workload.llm.bwd_us=100.001 workload.llm.bwd_us=100.01)
fi
dcfab=${DCFAB:-target/release/dcfab}
scenario=${SCENARIO:-scenarios/wormhole_gpt_128.toml}
read -r -a sets <<< "${SETS---set workload.llm.bytes_scale=1 --set output.queue_sample_us=0}"
tmp=${TMP:-/tmp/wormhole_chaos}
here=$(dirname "$0")
mkdir -p "$tmp"
for p in "${perturb[@]}"; do
    case $p in
        *=*) ;;
        *) echo "$0: perturbation '$p' is not field=value" >&2; exit 2 ;;
    esac
    out=$tmp/run
    rm -rf "$out"
    "$dcfab" run "$scenario" "${sets[@]}" --no-skip -q --set "$p" --out "$out"
    row=$(python3 "$here/wormhole_err.py" "$ref" "$out" | tail -n 1)
    echo "$p | ${row#*|}"
done
