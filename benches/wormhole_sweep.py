#!/usr/bin/env python3
"""Wormhole (issue 12): a randomized skip-against-full sweep (benches/README.md, Wormhole
"Session 22").

Usage (from the repository root, after `cargo build --release -p sim-harness`):

    python3 benches/wormhole_sweep.py [DCFAB] [CASES] [FIRST_SEED] [OUT_DIR]

Each case draws, from its seed, a transport (`transport.cc`), a load balancer, a workload
(tornado, permutation, incast, all-to-all, web search, ring allreduce), a small 2-tier fat
tree (radix 4 or 6, 100 or 400 Gb/s, link delay) and the `skip.*` fields (partition_by,
theta, samples, sample_us and, where the transport takes them, rate_metric,
nic_bound_samples, held_occupancy, rate_estimate), runs `scenarios/default.toml` with them
once with skipping and once with `--no-skip`, and prints one line: skips, events skip /
full, the per-flow FCT error (mean and max) and flows that completed in one run only. A
setting the run refuses (a field a transport does not take) prints the error. Lines ending
`<<<` have a mean error above 1 % or a completion mismatch. The last line counts them, split
by `partition_by` (`"all_ports"` is the sound default; `"data_ports"` is approximate by
design). `SWEEP_CC=uno` (any `transport.cc`) runs every case under that transport, `SWEEP_THETA=0.05`
every case at that `skip.theta` (the draws stay the same), `SWEEP_FAIL=1` adds to every
case one ToR uplink down for 20-300 us from 50-600 us (drawn after the rest), `SWEEP_LOSS=1` one
ToR uplink losing 1, 5 or 20 % of its packets (`drop_prob`) for 20-600 us from 50-600 us,
`SWEEP_SLOW=1` one ToR uplink at 25, 50 or 75 % of its rate (`gbps`) for 20-600 us from
50-600 us (any of the three together: each its own `failures` entry).
`SWEEP_LLM=1` runs every case on one training iteration of `scenarios/wormhole_{gpt,moe}_{64,128}.toml`
(the flow DAGs of Wormhole Table 1 on 64 or 128 GPUs) at 1-10 % of the paper's
message sizes, with drawn compute times, instead of the drawn workload and tree.
`SWEEP_SET="field=value ..."` sets those fields on every case after the draws (for
example a fixed `skip.*` setting).
`SWEEP_FLOOR=1` also measures, for each case over 1 %, its chaos floor: the largest mean FCT
error between the full run and full runs with every link 1 or 2 ns longer or shorter
(`topology.link_delay_ns`, the check of benches/wormhole_chaos.sh). Such a case is then flagged only when its skip error
is more than twice its floor; the floor is printed (`floor X %`), and the last lines count
the cases flagged against 1 % and against the floor. Nothing is asserted: a finding is read, reproduced with the case's own
`scenario.toml` (OUT_DIR/sN), and becomes a test. `benches/wormhole_sweep_diff.py` totals a
saved log, or compares two logs of the same seeds (two builds).
"""
import csv
import json
import os
import random
import subprocess
import sys

DCFAB = sys.argv[1] if len(sys.argv) > 1 else "target/release/dcfab"
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 100
FIRST = int(sys.argv[3]) if len(sys.argv) > 3 else 1
OUT = sys.argv[4] if len(sys.argv) > 4 else "/tmp/wormhole_sweep"


def fcts(d):
    with open(f"{d}/flows.csv") as f:
        rows = [line for line in f if not line.startswith("#")]
    return {int(r["id"]): int(r["fct_ps"] or -1) for r in csv.DictReader(rows)}


def settings(rng):
    cc = rng.choice(["dctcp", "dctcp", "mprdma", "uno", "mprdma_bbr", "dcsim", "pfabric", "phost"])
    # SWEEP_CC=x: every case under transport.cc = x (the draw is still made, so the other
    # settings of a seed stay the same).
    cc = os.environ.get("SWEEP_CC", cc)
    lb = rng.choice(["ecmp", "ecmp", "ops", "ops", "reps", "plb", "flowlet", "bitmap", "mptcp"])
    wk = rng.choice(["tornado", "permutation", "incast", "all_to_all", "websearch", "ring_allreduce"])
    part = rng.choice(["all_ports", "all_ports", "data_ports"])
    if cc in ("phost", "pfabric", "dcsim"):
        part = "all_ports"
        if lb not in ("ecmp", "ops", "reps") or (cc != "dcsim" and lb == "reps"):
            lb = "ops"
    msg = rng.choice([2, 4, 8, 16]) * 1_000_000 // (8 if wk == "all_to_all" else 1)
    s = [
        f"transport.cc={cc}", f"transport.lb={lb}", f"workload.kind={wk}",
        f"workload.message={msg}", "topology.tiers=2",
        f"topology.radix={rng.choice([4, 4, 6])}",
        f"topology.link_gbps={rng.choice([100, 400])}",
        f"topology.link_delay_ns={rng.choice([500, 1000, 2000])}",
        "output.queue_sample_us=0", "skip.enabled=true", f"skip.partition_by={part}",
        f"skip.theta={os.environ.get('SWEEP_THETA', rng.choice([0.05, 0.1, 0.2]))}",
        f"skip.samples={rng.choice([10, 20, 40])}",
        f"skip.sample_us={rng.choice([5, 10, 20])}",
    ]
    if wk == "incast":
        s.append(f"workload.degree={rng.choice([2, 3, 5])}")
    if wk == "websearch":
        s += ["workload.load=0.5", "workload.flows=40"]
    if cc == "dctcp" and rng.random() < 0.3:
        s.append(f"skip.rate_metric={rng.choice(['packets', 'cc', 'inflight'])}")
    if cc == "dctcp" and rng.random() < 0.3:
        s.append(f"skip.nic_bound_samples={rng.choice([1, 2, 3])}")
    if part == "data_ports" and rng.random() < 0.3:
        s.append("skip.held_occupancy=true")
    if cc in ("dctcp", "mprdma") and rng.random() < 0.2:
        s.append("skip.rate_estimate=timed")
    if os.environ.get("SWEEP_LLM") == "1":
        # One training iteration of a Table 1 configuration on 64 or 128 GPUs (its scenario file's
        # rail-optimized radix-16 fat tree), at a small share of the paper's message sizes.
        fam = rng.choice(["gpt", "gpt", "moe"])
        scale = rng.choice([0.02, 0.05, 0.1] if fam == "gpt" else [0.01, 0.02, 0.05])
        drop = ("workload.", "topology.tiers=", "topology.radix=")
        s = [x for x in s if not x.startswith(drop)]
        s += [f"workload.llm.bytes_scale={scale}", f"workload.llm.fwd_us={rng.choice([10, 50])}",
              f"workload.llm.bwd_us={rng.choice([20, 100])}", "topology.radix=16"]
        gpus = rng.choice([64, 64, 128])
        s.insert(0, f"llm={fam}_{gpus}")
    # SWEEP_SET="field=value field=value": set on every case after the draws (a later
    # `--set` of the same field wins).
    s += os.environ.get("SWEEP_SET", "").split()
    part = [x for x in s if x.startswith("skip.partition_by=")][-1].split("=")[1]
    if os.environ.get("SWEEP_FAIL") == "1":
        # A known interrupt of another kind (Wormhole 5.3): one ToR uplink down for a while.
        radix = int(next(x for x in s if x.startswith("topology.radix=")).split("=")[1])
        at, span = rng.randrange(50, 600), rng.randrange(20, 300)
        up = rng.randrange(radix // 2)
        s.append(f'failures.0={{ link = "tor0.up{up}", at_us = {at}, for_us = {span} }}')
    if os.environ.get("SWEEP_SLOW") == "1":
        # A rate change: one ToR uplink at a quarter to three quarters of its rate for a while.
        radix = int(next(x for x in s if x.startswith("topology.radix=")).split("=")[1])
        gbps = int(next(x for x in s if x.startswith("topology.link_gbps=")).split("=")[1])
        at, span = rng.randrange(50, 600), rng.randrange(20, 600)
        up, g = rng.randrange(radix // 2), gbps * rng.choice([0.25, 0.5, 0.75])
        i = sum(os.environ.get(k) == "1" for k in ("SWEEP_FAIL",))
        s.append(f'failures.{i}={{ link = "tor0.up{up}", at_us = {at}, for_us = {span}, gbps = {g} }}')
    if os.environ.get("SWEEP_LOSS") == "1":
        # A lossy window (a `drop_prob` failure): one ToR uplink losing 1-20 % of its
        # packets for a while.
        radix = int(next(x for x in s if x.startswith("topology.radix=")).split("=")[1])
        at, span = rng.randrange(50, 600), rng.randrange(20, 600)
        up, p = rng.randrange(radix // 2), rng.choice([0.01, 0.05, 0.2])
        i = sum(os.environ.get(k) == "1" for k in ("SWEEP_FAIL", "SWEEP_SLOW"))
        s.append(f'failures.{i}={{ link = "tor0.up{up}", at_us = {at}, for_us = {span}, drop_prob = {p} }}')
    return s, part


def mean_err(a, b):
    """Mean per-flow FCT error of run dir `a` against run dir `b`, and the flows that
    completed in one run only."""
    fa, fb = fcts(a), fcts(b)
    errs = [abs(fa[k] - v) / v for k, v in fb.items() if v > 0 and fa.get(k, -1) > 0]
    odd = sum(1 for k, v in fb.items() if (v > 0) != (fa.get(k, -1) > 0))
    return (sum(errs) / len(errs) if errs else 0.0), errs, odd


def chaos_floor(args, sets, out, by=1):
    """The full run's own spread: `--no-skip` with every link `by` ns longer, against
    `f{i}`."""
    moved = []
    for x in sets:
        if x.startswith("topology.link_delay_ns="):
            x = f"topology.link_delay_ns={int(x.split('=')[1]) + by}"
        if not x.startswith("llm="):
            moved += ["--set", x]
    base = args[: args.index("--set")]
    c = subprocess.run(base + moved + ["--no-skip", "--out", out], capture_output=True, text=True)
    return None if c.returncode != 0 else c


def main():
    floor_on = os.environ.get("SWEEP_FLOOR") == "1"
    over_floor = {"all_ports": 0, "data_ports": 0}
    bad = {"all_ports": 0, "data_ports": 0}
    ran = {"all_ports": 0, "data_ports": 0}
    worst = {"all_ports": (0.0, None), "data_ports": (0.0, None)}
    for i in range(FIRST, FIRST + CASES):
        sets, part = settings(random.Random(i))
        base = "scenarios/default.toml"
        if sets[0].startswith("llm="):
            base = f"scenarios/wormhole_{sets[0][4:]}.toml"
        args = [DCFAB, "run", base, "-q", "--seed", str(i)]
        for x in sets:
            if not x.startswith("llm="):
                args += ["--set", x]
        a = subprocess.run(args + ["--out", f"{OUT}/s{i}"], capture_output=True, text=True)
        if a.returncode != 0:
            print(f"{i} refused: {(a.stderr.strip().splitlines() or ['?'])[-1][:160]}", flush=True)
            continue
        b = subprocess.run(args + ["--no-skip", "--out", f"{OUT}/f{i}"], capture_output=True, text=True)
        if b.returncode != 0:
            print(f"{i} FULL RUN FAILED: {b.stderr[-300:]}", flush=True)
            continue
        mean, errs, odd = mean_err(f"{OUT}/s{i}", f"{OUT}/f{i}")
        with open(f"{OUT}/s{i}/summary.json") as f:
            sa = json.load(f)
        with open(f"{OUT}/f{i}/summary.json") as f:
            sb = json.load(f)
        skips = sa["extra"].get("wormhole_skips", 0)
        flag = (mean > 0.01 and skips > 0) or odd != 0
        floor = ""
        if floor_on and flag:
            spread = []
            for by, tag in ((1, "c"), (-1, "d"), (2, "e"), (-2, "g")):
                if chaos_floor(args, sets, f"{OUT}/{tag}{i}", by) is not None:
                    spread.append(mean_err(f"{OUT}/{tag}{i}", f"{OUT}/f{i}")[0])
            if len(spread) == 4:
                fl = max(spread)
                floor = f" | floor {fl * 100:.3f} %"
                over_floor[part] += odd != 0 or mean > 2 * fl
            else:
                floor = " | floor ?"
                over_floor[part] += 1
        ran[part] += 1
        bad[part] += flag
        if mean > worst[part][0]:
            worst[part] = (mean, i)
        knobs = " ".join(x for x in sets if x.startswith(("llm=", "transport.", "workload.kind", "workload.llm.bytes", "skip.", "failures")) and "enabled" not in x)
        print(
            f"{i} | skips {skips:.0f} | events {sa['events']} / {sb['events']} | FCT error mean "
            f"{mean * 100:.3f} % max {max(errs or [0]) * 100:.2f} % | one-run completions {odd} | "
            f"{knobs}{floor}{' <<<' if flag else ''}",
            flush=True,
        )
    for p in ran:
        print(f"{p}: {ran[p]} cases run, {bad[p]} over 1 % or mismatched; worst mean "
              f"{worst[p][0] * 100:.3f} % (case {worst[p][1]})")
        if floor_on:
            print(f"{p}: {over_floor[p]} over 1 % and over twice their chaos floor (or mismatched)")


if __name__ == "__main__":
    main()
