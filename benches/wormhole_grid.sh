#!/usr/bin/env bash
# Wormhole (issue 12): a grid of the existing `skip.*` fields against one `--no-skip` reference,
# one CSV row per setting (benches/README.md, Wormhole "Session 15").
#
# Usage (from the repository root, after `cargo build --release -p sim-harness`):
#   benches/wormhole_grid.sh grid > settings.txt          the built-in cross product (648 lines)
#   benches/wormhole_grid.sh extras BASE... > more.txt     each BASE setting (quoted, one line of
#                                                          `field=value` words) with the opt-in
#                                                          fields (held_occupancy, memo_interrupted,
#                                                          the lockstep family, lockstep_shadow)
#   benches/wormhole_grid.sh run REF_DIR OUT.csv [SETTINGS]  run every setting (a file, or stdin)
#   benches/wormhole_grid.sh pareto OUT.csv [MAX_ERR_PCT]  the Pareto front of events ratio against
#                                                          mean FCT error, and the top 10 settings
#                                                          by events ratio under MAX_ERR_PCT (1.0)
#
# A setting is one line of space-separated `field=value` words, each passed as
# `--set skip.<field>=<value>` on top of the scenario (blank lines and `#` lines skipped).
# REF_DIR is the output directory of the reference run, e.g.
#   nice -n 10 target/release/dcfab run scenarios/wormhole_gpt_128.toml \
#       --set workload.llm.bytes_scale=1 --no-skip --out /tmp/wh/ref
# Environment: DCFAB (default target/release/dcfab), SCENARIO (default
# scenarios/wormhole_gpt_128.toml), SETS (extra `--set` words, default
# "--set workload.llm.bytes_scale=1", the paper size; SETS= for none), TMP (scratch, default /tmp/wormhole_grid;
# each run's output is deleted once its row is written), RUN_TIMEOUT (s, default 60: a skip run
# still going then is stopped and recorded with status 124, e.g. `packets` at 2.5 us samples and theta 0.1,
# where nothing turns steady and the run is the full one).
# Columns: setting, status (the run's exit code; a refused setting has its error in `note`),
# then benches/wormhole_err.py --csv's: events skip / full and their ratio, mean / p99 / max
# per-flow FCT error and the iteration error (%), wall full / skip (summary.json `wall_s`, s;
# a single run on whatever load the machine has), memo hits / misses, and `note`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
DCFAB="${DCFAB:-target/release/dcfab}"
SCENARIO="${SCENARIO:-scenarios/wormhole_gpt_128.toml}"
SETS="${SETS---set workload.llm.bytes_scale=1}"
TMP="${TMP:-/tmp/wormhole_grid}"
RUN_TIMEOUT="${RUN_TIMEOUT:-60}"

grid() {
    for part in all_ports data_ports; do
        for metric in packets cc inflight; do
            for est in packets timed metric; do
                for theta in 0.1 0.15 0.2 0.25; do
                    for samples in 10 20 40; do
                        for sus in 2.5 5.0 10.0; do
                            echo "partition_by=$part rate_metric=$metric rate_estimate=$est theta=$theta samples=$samples sample_us=$sus"
                        done
                    done
                done
            done
        done
    done
}

extras() {
    for base in "$@"; do
        echo "$base memo_interrupted=true"
        echo "$base memo_lockstep=true"
        echo "$base memo_lockstep=true lockstep_complete=true"
        echo "$base memo_lockstep=true lockstep_complete=true lockstep_stay=true"
        echo "$base memo_lockstep=true lockstep_fixed_leader=true"
        echo "$base memo_lockstep=true lockstep_complete=true lockstep_stay=true lockstep_fixed_leader=true"
        if [[ "$base" == *partition_by=data_ports* ]]; then
            echo "$base held_occupancy=true"
            echo "$base memo_lockstep=true lockstep_shadow=true"
            echo "$base memo_lockstep=true lockstep_complete=true lockstep_stay=true lockstep_shadow=true"
            echo "$base memo_lockstep=true lockstep_fixed_leader=true lockstep_shadow=true"
            echo "$base memo_lockstep=true lockstep_complete=true lockstep_stay=true lockstep_fixed_leader=true lockstep_shadow=true"
            echo "$base held_occupancy=true memo_lockstep=true lockstep_complete=true lockstep_stay=true lockstep_shadow=true"
        fi
    done
}

run() {
    local ref="$1" out="$2" src="${3:-/dev/stdin}"
    mkdir -p "$TMP"
    [[ -s "$out" ]] || echo "setting,status,events_skip,events_full,events_ratio,mean_err_pct,p99_err_pct,max_err_pct,iteration_err_pct,wall_full_s,wall_skip_s,memo_hits,memo_misses,note" > "$out"
    local n=0 line
    while IFS= read -r line || [[ -n "$line" ]]; do
        [[ -z "${line// }" || "$line" == \#* ]] && continue
        n=$((n + 1))
        local d="$TMP/run$n" args=() w status=0
        for w in $line; do args+=(--set "skip.$w"); done
        rm -rf "$d"
        # shellcheck disable=SC2086
        timeout "$RUN_TIMEOUT" "$DCFAB" run "$SCENARIO" $SETS "${args[@]}" -q --out "$d" 2> "$TMP/stderr" || status=$?
        if [[ $status -eq 0 ]]; then
            echo "\"$line\",0,$(python3 "$here/wormhole_err.py" --csv "$ref" "$d"),"
        else
            local note
            note="$({ grep -v '^warning' "$TMP/stderr" || true; } | head -c 300 | tr '\n",' '   ')"
            if [[ $status -eq 124 ]]; then note="stopped after RUN_TIMEOUT = $RUN_TIMEOUT s"; fi
            echo "\"$line\",$status,,,,,,,,,,,,\"$note\""
        fi >> "$out"
        rm -rf "$d"
    done < "$src"
}

pareto() {
    python3 - "$1" "${2:-1.0}" <<'EOF'
import csv, sys
seen, rows = set(), []
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] == "0" and r["setting"] not in seen:  # a setting run twice: its first row
        seen.add(r["setting"])
        rows.append(r)
lim = float(sys.argv[2])
for r in rows:
    r["ratio"], r["mean"] = float(r["events_ratio"]), float(r["mean_err_pct"])
cols = ("events_ratio", "mean_err_pct", "p99_err_pct", "max_err_pct", "iteration_err_pct",
        "events_skip", "wall_skip_s")
def show(title, rs):
    print(f"\n{title}\n| setting | " + " | ".join(cols) + " |")
    print("|" + " --- |" * (len(cols) + 1))
    for r in rs:
        print(f"| `{r['setting']}` | " + " | ".join(r[c] for c in cols) + " |")
front, best = [], 0.0
for r in sorted(rows, key=lambda r: (r["mean"], -r["ratio"])):
    if r["ratio"] > best:
        front.append(r)
        best = r["ratio"]
print(f"{len(rows)} settings run")
show("Pareto front (events ratio against mean FCT error):", front)
show(f"Top 10 by events ratio with mean FCT error < {lim} %:",
     sorted((r for r in rows if r["mean"] < lim), key=lambda r: -r["ratio"])[:10])
EOF
}

cmd="${1:-}"
shift || true
case "$cmd" in
    grid) grid ;;
    extras) extras "$@" ;;
    run) run "$@" ;;
    pareto) pareto "$@" ;;
    *) sed -n '2,30p' "$0"; exit 2 ;;
esac
