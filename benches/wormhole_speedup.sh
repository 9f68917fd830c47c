#!/usr/bin/env bash
# Wormhole (issue 12): the wall-clock speedup of a skip run over the full run, measured the
# way benches/README.md reports it ("Session 32"): rounds of one full run (`--no-skip`)
# followed by SKIPS skip runs, so each round's full and skip runs see the same phase of a
# noisy machine; a round's speedup is its full run's `wall_s` over the median of its skip
# runs' `wall_s` (the event loop's own timing in summary.json). Prints one row per round,
# the median of the rounds' speedups, the pooled ratio of the means (mean full wall over
# mean skip wall), and benches/wormhole_err.py's row (FCT error, events,
# memo) of the last skip run against the last full run.
#
# Usage (from the repository root, after `cargo build --release -p sim-harness`):
#   benches/wormhole_speedup.sh [ROUNDS [SKIPS]]        (defaults 3 and 10)
# Environment: DCFAB (default target/release/dcfab), SCENARIO (default
# scenarios/wormhole_gpt_128.toml), SETS (default: paper size, "--set
# workload.llm.bytes_scale=1 --set output.queue_sample_us=0"), SKIP_SETS (the skip run's
# settings; default: the 177.5x-in-events settings of benches/README.md "Session 28"),
# TMP (scratch, default /tmp/wormhole_speedup).
# One round at paper size takes about as long as one full run (11-35 s on the 2-core VM).
set -euo pipefail

rounds=${1:-3}
skips=${2:-10}
case "$rounds$skips" in
*[!0-9]* | "")
    echo "usage: $0 [ROUNDS [SKIPS]]  (positive integers)" >&2
    exit 2
    ;;
esac
if [ "$rounds" -lt 1 ] || [ "$skips" -lt 1 ]; then
    echo "usage: $0 [ROUNDS [SKIPS]]  (positive integers)" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=benches/wormhole_run.sh
. "$here/wormhole_run.sh"
root=$(dirname "$here")
dcfab=${DCFAB:-$root/target/release/dcfab}
scenario=${SCENARIO:-$root/scenarios/wormhole_gpt_128.toml}
read -r -a sets <<<"${SETS:-$WORMHOLE_SETS}"
read -r -a skip_sets <<<"${SKIP_SETS:-$WORMHOLE_SKIP_SETS}"
tmp=${TMP:-/tmp/wormhole_speedup}
if [ ! -x "$dcfab" ]; then
    echo "$0: no dcfab binary at $dcfab (cargo build --release -p sim-harness, or set DCFAB)" >&2
    exit 2
fi
mkdir -p "$tmp"

ratios=()
fulls=()
all_skips=()
printf '%-6s %-12s %-14s %s\n' round "full wall s" "skip median s" speedup
for r in $(seq 1 "$rounds"); do
    "$dcfab" run "$scenario" "${sets[@]}" --no-skip -q --out "$tmp/full" >/dev/null
    full=$(wall "$tmp/full")
    walls=()
    for _ in $(seq 1 "$skips"); do
        "$dcfab" run "$scenario" "${sets[@]}" "${skip_sets[@]}" -q --out "$tmp/skip" >/dev/null
        walls+=("$(wall "$tmp/skip")")
    done
    read -r med ratio < <(python3 -c '
import statistics, sys
full = float(sys.argv[1]); m = statistics.median(float(x) for x in sys.argv[2:])
print(f"{m:.4f} {full / m:.1f}")' "$full" "${walls[@]}")
    ratios+=("$ratio")
    fulls+=("$full")
    all_skips+=("${walls[@]}")
    printf '%-6s %-12.2f %-14s %sx\n' "$r" "$full" "$med" "$ratio"
done
python3 -c '
import statistics, sys
print(f"median speedup over {len(sys.argv) - 1} rounds: {statistics.median(float(x) for x in sys.argv[1:]):.1f}x")' "${ratios[@]}"
# The same runs pooled: mean full wall over mean skip wall. A full run averages over the
# machine's fast and slow phases, the median of short skip runs picks the commoner one;
# the means treat both alike (benches/README.md "Session 34").
python3 -c '
import statistics, sys
n = int(sys.argv[1]); full = [float(x) for x in sys.argv[2:2 + n]]; skip = [float(x) for x in sys.argv[2 + n:]]
print(f"pooled: mean full {statistics.mean(full):.2f} s / mean skip {statistics.mean(skip):.4f} s = {statistics.mean(full) / statistics.mean(skip):.1f}x")' "${#fulls[@]}" "${fulls[@]}" "${all_skips[@]}"
python3 "$here/wormhole_err.py" "$tmp/full" "$tmp/skip"
