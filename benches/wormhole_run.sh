# Sourced (not run) by benches/wormhole_speedup.sh and benches/wormhole_ab.sh: the run both
# time and the helper that reads a run's timing, kept in one place so the two scripts
# measure the same thing.
#
# WORMHOLE_SETS: paper-size GPT-13B / 128 (scenarios/wormhole_gpt_128.toml at bytes_scale 1,
# no queue samples). WORMHOLE_SKIP_SETS: the skip settings of 177.5x fewer events at 0.848 %
# mean FCT error (benches/README.md "Session 28": `skip.nic_bound_inexact`).
# shellcheck shell=bash
WORMHOLE_SETS="--set workload.llm.bytes_scale=1 --set output.queue_sample_us=0"
WORMHOLE_SKIP_SETS="--set skip.partition_by=data_ports --set skip.rate_estimate=timed \
--set skip.held_occupancy=true --set skip.nic_bound_samples=1 --set skip.nic_bound_exact=true \
--set skip.nic_bound_inexact=true --set skip.theta=0.35 --set skip.samples=16 \
--set skip.sample_us=5.5 --set skip.reserve_bdps=0"

# The event loop's own wall time (`wall_s` of summary.json) of the run written to $1.
wall() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["wall_s"])' "$1/summary.json"; }
