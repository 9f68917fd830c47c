#!/usr/bin/env bash
# Wormhole (issue 12): two dcfab builds (or two skip settings) A / B compared on the
# wall-clock speedup of paper-size GPT-13B / 128, interleaved so both see the same phases
# of a noisy machine. A skip run's `wall_s` on the 2-core VM is bimodal (0.25-0.40 s,
# benches/README.md "Session 32"), so a difference of a few percent needs many runs side by
# side; one build's rounds measured an hour apart do not tell it.
#
# Each round runs one full run (`--no-skip`) of A then of B, then SKIPS pairs of skip runs
# (A, B, A, B, ...). Prints, per build: the full runs' mean `wall_s`, the skip runs' median
# and mean, the speedup two ways (median full / median skip, and mean full / mean skip:
# the second is the one that treats both runs alike when the machine alternates between a
# fast and a slow phase, as a 30 s full run averages over them and the median of short skip
# runs picks the commoner phase), then B / A for each run type with a 90 % bootstrap
# interval of the skip median's ratio, and wormhole_err.py's row of each build's last skip
# run against its last full run (so a change that moves results shows).
#
# Usage (from the repository root):
#   benches/wormhole_ab.sh A_DCFAB B_DCFAB [ROUNDS [SKIPS]]      (defaults 3 and 10)
# Environment: SCENARIO, SETS, SKIP_SETS as in benches/wormhole_speedup.sh (shared by A and
# B); B_SKIP_SETS, more settings for B's skip runs only (compare two settings with one
# binary: pass it as A and B); TMP (scratch, default /tmp/wormhole_ab).
# One round at paper size takes about two full runs (1-1.5 min on the 2-core VM).
set -euo pipefail

usage() {
    echo "usage: $0 A_DCFAB B_DCFAB [ROUNDS [SKIPS]]  (ROUNDS, SKIPS positive integers)" >&2
    exit 2
}
[ $# -ge 2 ] && [ $# -le 4 ] || usage
a_bin=$1
b_bin=$2
rounds=${3:-3}
skips=${4:-10}
case "$rounds$skips" in
*[!0-9]* | "") usage ;;
esac
if [ "$rounds" -lt 1 ] || [ "$skips" -lt 1 ]; then usage; fi
for b in "$a_bin" "$b_bin"; do
    if [ ! -x "$b" ]; then
        echo "$0: no dcfab binary at $b" >&2
        exit 2
    fi
done
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=benches/wormhole_run.sh
. "$here/wormhole_run.sh"
root=$(dirname "$here")
scenario=${SCENARIO:-$root/scenarios/wormhole_gpt_128.toml}
read -r -a sets <<<"${SETS:-$WORMHOLE_SETS}"
read -r -a skip_sets <<<"${SKIP_SETS:-$WORMHOLE_SKIP_SETS}"
read -r -a b_extra <<<"${B_SKIP_SETS:-}"
tmp=${TMP:-/tmp/wormhole_ab}
mkdir -p "$tmp"
log="$tmp/walls.txt"
: >"$log"

for r in $(seq 1 "$rounds"); do
    for x in A B; do
        bin=$a_bin
        [ "$x" = B ] && bin=$b_bin
        "$bin" run "$scenario" "${sets[@]}" --no-skip -q --out "$tmp/full_$x" >/dev/null
        echo "full $x $(wall "$tmp/full_$x")" >>"$log"
    done
    for _ in $(seq 1 "$skips"); do
        "$a_bin" run "$scenario" "${sets[@]}" "${skip_sets[@]}" -q --out "$tmp/skip_A" >/dev/null
        echo "skip A $(wall "$tmp/skip_A")" >>"$log"
        "$b_bin" run "$scenario" "${sets[@]}" "${skip_sets[@]}" ${b_extra[@]+"${b_extra[@]}"} \
            -q --out "$tmp/skip_B" >/dev/null
        echo "skip B $(wall "$tmp/skip_B")" >>"$log"
    done
    echo "round $r of $rounds done" >&2
done

python3 - "$log" <<'EOF'
import random
import statistics as st
import sys

runs = {}
for line in open(sys.argv[1]):
    kind, build, wall = line.split()
    runs.setdefault((kind, build), []).append(float(wall))
print(f"{'build':<6} {'full mean s':<12} {'skip median s':<14} {'skip mean s':<12} "
      f"{'speedup (medians)':<18} speedup (means)")
for b in "AB":
    full, skip = runs[("full", b)], runs[("skip", b)]
    print(f"{b:<6} {st.mean(full):<12.3f} {st.median(skip):<14.4f} {st.mean(skip):<12.4f} "
          f"{st.median(full) / st.median(skip):<18.1f} {st.mean(full) / st.mean(skip):.1f}")
fa, fb = runs[("full", "A")], runs[("full", "B")]
sa, sb = runs[("skip", "A")], runs[("skip", "B")]
rng = random.Random(1)
boot = sorted(
    st.median(rng.choices(sb, k=len(sb))) / st.median(rng.choices(sa, k=len(sa)))
    for _ in range(2000)
)
print(f"B / A: full mean {st.mean(fb) / st.mean(fa):.3f}, skip median "
      f"{st.median(sb) / st.median(sa):.3f} (90 % bootstrap {boot[100]:.3f}-{boot[1899]:.3f}), "
      f"skip mean {st.mean(sb) / st.mean(sa):.3f}")
EOF
for x in A B; do
    python3 "$here/wormhole_err.py" "$tmp/full_$x" "$tmp/skip_$x" | tail -n 1 | sed "s/^/$x: /"
done
