#!/usr/bin/env bash
# Regenerates the README figures in docs/figures/ from the small scenario docs/figures.toml:
# one run's figures (dcfab run --plot) and a sweep's comparison figures (dcfab sweep --plot);
# the per-flow rate and fairness figures from docs/fairness.toml (an incast with rate samples).
# Usage: bash docs/figures.sh   (from anywhere; builds dcfab in the dev profile if needed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build -q -p sim-harness --bin dcfab
dcfab=target/debug/dcfab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$dcfab" run docs/figures.toml --out "$tmp/run" --plot --quiet
"$dcfab" sweep docs/figures.toml --grid transport.lb=ecmp,ops,reps --grid seed=1,2 \
    --out "$tmp/lb" --plot --quiet
"$dcfab" sweep docs/figures.toml --grid topology.link_delay_ns=250,500,1000,2000 \
    --grid transport.lb=ecmp,ops --out "$tmp/delay" --plot --metric p99_fct_ps --quiet
"$dcfab" run docs/fairness.toml --out "$tmp/fair" --plot --quiet
rm -f docs/figures/*.svg
for f in "$tmp"/run/*.svg; do cp "$f" "docs/figures/run_$(basename "$f")"; done
cp "$tmp/fair/rates.svg" docs/figures/fairness_rates.svg
cp "$tmp/fair/fairness.svg" docs/figures/fairness_jain.svg
cp "$tmp/lb/sweep_mean_fct_ps.svg" docs/figures/sweep_lb_mean_fct.svg
cp "$tmp/delay/sweep_p99_fct_ps.svg" docs/figures/sweep_delay_p99_fct.svg
ls -l docs/figures
