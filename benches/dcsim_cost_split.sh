#!/usr/bin/env bash
# DCSIM against DCTCP per simulated DATA and per packet-hop (issue 14, benches/README.md
# "Session 37"): where each transport's instructions go, split into the engine both share
# and each transport's own modules, and what DCSIM's own modules would have to cost for
# its runs to be within 2x of DCTCP's per DATA.
#
# For each of `dcsim_a2av` and `dcsim_oversubscribed` under `transport.cc` = dcsim and
# dctcp, runs callgrind to 50 us and to 100 us of simulated time (sessions 5-22's window:
# the difference leaves out the setup and the first RTTs), counts the DATAs sent and the
# packet-hops (the sum of `tx_packets` over `links.csv`: every packet's every link, control
# packets included) in between, and hands the profiles to dcsim_cost_split.py.
#
# Usage (from the repository root; about 3 minutes with valgrind on the 2-core VM):
#   benches/dcsim_cost_split.sh DCFAB [OUT]        (OUT defaults to /tmp/dcsim_cost_split)
set -euo pipefail

usage() {
    echo "usage: $0 DCFAB [OUT]" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
bin=$1
out=${2:-/tmp/dcsim_cost_split}
[ -x "$bin" ] || { echo "$0: DCFAB '$bin' is not an executable" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 2; }
command -v callgrind_annotate >/dev/null || { echo "$0: callgrind_annotate is not installed" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"

for s in dcsim_a2av dcsim_oversubscribed; do
    for cc in dcsim dctcp; do
        for t in 50 100; do
            echo "callgrind: $s, cc=$cc, to $t us" >&2
            valgrind --tool=callgrind --callgrind-out-file="$out/${s}_${cc}_$t.cg" \
                "$bin" run "$here/../scenarios/$s.toml" -q --out "$out/o_${s}_${cc}_$t" \
                --set transport.cc=$cc --set stop.max_time_us=$t \
                --set output.queue_sample_us=0 >/dev/null 2>"$out/${s}_${cc}_$t.log"
        done
    done
done
python3 "$here/dcsim_cost_split.py" "$out"
