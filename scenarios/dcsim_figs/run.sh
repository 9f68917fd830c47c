#!/usr/bin/env bash
# The DCSIM paper's figures (section 4, Fig. 4-8, 11, 13) as dcfab sweeps, one CSV per figure
# and a markdown table (docs/dcsim_figures.md explains each figure and quotes the paper).
#
#   bash scenarios/dcsim_figs/run.sh DCFAB OUTDIR [--ccs dcsim,dctcp,pfabric,phost,dcpim]
#                                    [--jobs N] [--only fig5_permutation,...] [--doc FILE]
#                                    [--own-baselines] [-- SWEEP ARGS]
#
# For each figure: `DCFAB sweep scenarios/dcsim_figs/<fig>.toml --grid transport.cc=<ccs>
# --grid <the figure's x axis>` into OUTDIR/<fig>/ (sweep.csv + one directory per run). A cc
# the binary refuses (checked with `DCFAB run <fig>.toml --dry-run --set transport.cc=<cc>`)
# is skipped with a message on stderr and left out of the grid. Fig. 11 and 13 are DCSIM's
# own properties: dcsim only. Arguments after `--` go to every sweep (e.g. --set
# topology.radix=8 for the paper's 128 hosts, or --seed 2). --only takes figure names: fig4,
# fig5_permutation, fig5_all_to_all, fig6_a2av, fig7_five_a2av, fig8_oversubscribed, fig11,
# fig13.
#
# The paper's baselines (pfabric, phost, dcpim) run as the DCSIM paper ran them, in the dcPIM
# simulator with its default settings (4.1; docs/dcsim_figures.md, "Session 8"): a second
# sweep per figure into OUTDIR/<fig>_baselines/ with --set transport.lb=spray_rr (the
# simulator's round-robin spraying in the switches) and --set
# transport.phost.free_small_flows_only=true (its pHost's free tokens). dcsim and dctcp keep
# the scenario's settings. --own-baselines runs the baselines with the scenario's settings too
# (ops, pHost's free first BDP: the tables before session 8).
#
# Then collect.py (python3, stdlib only) writes OUTDIR/<figure>.csv (one row per cc and x
# value: CCT, utilization, DATA loss, queueing delay, reordering as the figure needs) and
# OUTDIR/figures.md (all tables); --doc docs/dcsim_figures.md also writes each table into
# that document between its `<!-- table:NAME -->` markers. Defaults: --ccs dcsim,dctcp,pfabric,phost,dcpim, --jobs =
# CPUs. Whole script with all five ccs: a few minutes on 2 cores (docs/dcsim_figures.md).
set -euo pipefail
usage() { sed -n '4,7p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
dcfab=$1
out=$2
shift 2
ccs=dcsim,dctcp,pfabric,phost,dcpim
jobs=$(nproc 2>/dev/null || echo 2)
only=""
doc=()
extra=()
# How the dcPIM simulator runs the baselines (docs/dcsim_figures.md, "Session 8").
paper_set=(--set transport.lb=spray_rr --set transport.phost.free_small_flows_only=true)
while [ $# -gt 0 ]; do
  case $1 in
    --ccs) ccs=${2:?--ccs needs a list}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --only) only=${2:?--only needs a list}; shift 2 ;;
    --doc) doc=(--doc "${2:?--doc needs a file}"); shift 2 ;;
    --own-baselines) paper_set=(); shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run.sh: unknown argument $1" >&2; usage ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# The paper's baselines, which run with "${paper_set[@]}".
is_baseline() { [[ ",pfabric,phost,dcpim," == *",$1,"* ]]; }

# The ccs of list $2 that the binary accepts for scenario $1 (refusals on stderr).
accepted() {
  local scen=$1 list=$2 ok=() cc opts
  IFS=, read -r -a all <<<"$list"
  for cc in "${all[@]}"; do
    opts=()
    if is_baseline "$cc"; then opts=("${paper_set[@]}"); fi
    if msg=$("$dcfab" run "$scen" --dry-run --set "transport.cc=$cc" "${opts[@]}" "${extra[@]}" 2>&1 >/dev/null); then
      ok+=("$cc")
    else
      echo "run.sh: skipping cc $cc for $(basename "$scen" .toml): ${msg##*$'\n'}" >&2
    fi
  done
  (IFS=,; echo "${ok[*]}")
}

# sweep1 NAME SCENARIO CC_LIST [ARGS ...]: one dcfab sweep into $out/NAME.
sweep1() {
  local name=$1 scen=$2 list=$3
  shift 3
  rm -rf "${out:?}/$name"
  [ -n "$list" ] || return 0
  echo "run.sh: $name: ccs $list" >&2
  "$dcfab" sweep "$scen" --grid "transport.cc=$list" "$@" --jobs "$jobs" --out "$out/$name" \
    --quiet "${extra[@]}" >/dev/null || echo "run.sh: $name: some runs failed (see $out/$name/sweep.csv)" >&2
}

# sweep NAME SCENARIO CC_LIST [GRID ...]: the ccs of the list into $out/NAME, the paper's
# baselines among them into $out/NAME_baselines with "${paper_set[@]}".
sweep() {
  local name=$1 scen=$2 list=$3 own=() base=() cc
  shift 3
  [ -n "$list" ] || { echo "run.sh: $name: no cc left to run" >&2; return 0; }
  IFS=, read -r -a all <<<"$list"
  for cc in "${all[@]}"; do
    if is_baseline "$cc"; then base+=("$cc"); else own+=("$cc"); fi
  done
  sweep1 "$name" "$scen" "$(IFS=,; echo "${own[*]}")" "$@"
  sweep1 "${name}_baselines" "$scen" "$(IFS=,; echo "${base[*]}")" "$@" "${paper_set[@]}"
}

sizes=0.5bdp,1bdp,2bdp,4bdp,8bdp
if wanted fig4; then
  f=$here/fig4_infinite_a2a.toml; sweep fig4 "$f" "$(accepted "$f" "$ccs")"
fi
for fig in fig5_permutation fig5_all_to_all fig6_a2av; do
  if wanted $fig; then
    f=$here/$fig.toml; sweep $fig "$f" "$(accepted "$f" "$ccs")" --grid "workload.message=$sizes"
  fi
done
for fig in fig7_five_a2av fig8_oversubscribed; do
  if wanted $fig; then
    f=$here/$fig.toml; sweep $fig "$f" "$(accepted "$f" "$ccs")" --grid workload.message=1bdp,2bdp,4bdp
  fi
done
if wanted fig11; then
  f=$here/fig11_buffer_ratio.toml
  sweep fig11 "$f" "$(accepted "$f" dcsim)" --grid transport.dcsim.data_buffer_ratio=1,1.5,2,2.5,3
fi
if wanted fig13; then
  f=$here/fig13_fractional.toml
  sweep fig13_variants "$f" "$(accepted "$f" dcsim)" --grid transport.dcsim.variant=sync,async
  sweep fig13_fractional "$f" "$(accepted "$f" dcsim)" --grid transport.dcsim.fraction=0.95,0.85,0.7
fi
python3 "$here/collect.py" "$out" "${doc[@]}"
