#!/usr/bin/env python3
"""DCSIM against DCTCP per DATA and per packet-hop, from benches/dcsim_cost_split.sh's profiles.

Each source line's instructions (callgrind's self cost, by the file it comes from and the
function it is inlined into) go to one of two parts:

* shared: the engine every transport runs the same way (the event queue and run loop,
  links and `Deliver`, routing, the transport dispatch and context, metrics, clocks,
  flows, prefetch, and a switch arrival's routing in `engine/ports.rs`);
* own modules: the transport's blocks and their glue. DCSIM: its switch arbiter
  (`switch::dcsim`), host engine and receiver (`nic::dcsim`), the harness's DCSIM port and
  host glue (`sim-harness/src/dcsim`, `port/dcsim.rs`, `transport/dcsim.rs`) and the
  `rtl_models` FIFOs they use. DCTCP: its sender and receiver (`nic::transport`,
  `transport/dctcp.rs`), the output port block and the FIFO port's service in
  `engine/ports.rs` (`start_next`, `kick`, `on_txdone`).

Standard-library code inlined into a function goes with that function's part. DCSIM's own
modules are split once more: its hardware blocks (the `switch::dcsim` arbiter with the
`rtl_models` FIFOs and token bucket it is built of, the `nic::dcsim` host engine and
receiver), which DESIGN.md has the DES run as they are ("one model, two speeds"), and the
harness's glue around them (`port/dcsim.rs`, `dcsim/port.rs`; `transport/dcsim.rs`,
`dcsim/host.rs`, `dcsim/config.rs`).

The bound printed last: with the shared engine's cost per hop scaled by k (the same code
for both transports) and DCTCP's own modules as they are, DCSIM is within 2x of DCTCP per
DATA only if its own modules per hop are at most B(k) = (2 H_t (k S_t + M_t) - H_s k S_s) / H_s
(H packet-hops per DATA, S shared and M own instructions per hop; s DCSIM, t DCTCP).

Usage: dcsim_cost_split.py DIR   (DIR as written by dcsim_cost_split.sh)
"""
import collections
import csv
import json
import os
import re
import subprocess
import sys

SHARED_FILES = (
    "sim-harness/src/event.rs",
    "sim-harness/src/engine/run.rs",
    "sim-harness/src/engine/links.rs",
    "sim-harness/src/engine/prefetch.rs",
    "sim-harness/src/topology/",
    "sim-harness/src/transport/mod.rs",
    "sim-harness/src/transport/ctx.rs",
    "sim-harness/src/metrics",
    "sim-harness/src/clock.rs",
    "sim-harness/src/flow.rs",
)
MODULE_FILES = (
    "switch/src/dcsim",
    "nic/src/dcsim",
    "sim-harness/src/dcsim/",
    "sim-harness/src/port/dcsim.rs",
    "sim-harness/src/transport/dcsim.rs",
    "rtl-models/src/fifo.rs",
    "nic/src/transport/",
    "sim-harness/src/transport/dctcp.rs",
    "switch/src/output_port.rs",
)
FIFO_PORT_FNS = ("start_next", "kick", "on_txdone")
MODULE_FNS = (
    "switch::dcsim",
    "nic::dcsim",
    "sim_harness::dcsim",
    "sim_harness::port::dcsim",
    "sim_harness::transport::dcsim",
    "rtl_models::fifo",
    "nic::transport",
    "sim_harness::transport::dctcp",
    "output_port",
) + FIFO_PORT_FNS
LINE = re.compile(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S+?):(.*)$")
TOTALS = re.compile(r"\s*([\d,]+) \([ \d.]+%\)\s+PROGRAM TOTALS")


def part(path, fn):
    """'shared' or 'module' for a line of file `path` inlined into function `fn`."""
    if any(x in path for x in SHARED_FILES):
        return "shared"
    if any(x in path for x in MODULE_FILES):
        return "module"
    if "sim-harness/src/engine/ports.rs" in path:
        return "module" if any(x in fn for x in FIFO_PORT_FNS) else "shared"
    return "module" if any(x in fn for x in MODULE_FNS) else "shared"


BLOCK_FILES = ("switch/src/dcsim", "nic/src/dcsim", "rtl-models/src/")
BLOCK_FNS = ("switch::dcsim", "nic::dcsim", "rtl_models")


def dcsim_part(path, fn):
    """DCSIM's own line: 'blocks' (the hardware models) or 'glue' (the harness around them)."""
    if any(x in path for x in BLOCK_FILES) or any(x in fn for x in BLOCK_FNS):
        return "blocks"
    return "glue"


def self_costs(cg):
    out = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", cg],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    costs = collections.Counter()
    total = None
    for line in out.splitlines():
        m = TOTALS.match(line)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        m = LINE.match(line)
        if m:
            costs[(m.group(2), m.group(3).split(" [")[0])] += int(m.group(1).replace(",", ""))
    # Every instruction once: the lines read must add up to the profile's total (with
    # `--auto=yes`, the default, annotated source lines would be read as more lines).
    if total is None or sum(costs.values()) != total:
        sys.exit(f"{cg}: the per-function lines add up to {sum(costs.values())}, not {total}")
    return costs


def hops(run_dir):
    with open(os.path.join(run_dir, "links.csv")) as f:
        f.readline()  # the provenance line
        return sum(int(r["tx_packets"]) for r in csv.DictReader(f))


def data_packets(run_dir):
    with open(os.path.join(run_dir, "summary.json")) as f:
        return json.load(f)["data_packets"]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: dcsim_cost_split.py DIR")
    d = sys.argv[1]
    rows = {}
    print(
        "| scenario | cc | DATAs | packet-hops per DATA | instructions per DATA "
        "| per hop: all | shared engine | own modules |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in ("dcsim_a2av", "dcsim_oversubscribed"):
        for cc in ("dcsim", "dctcp"):
            early = os.path.join(d, f"{s}_{cc}_50")
            late = os.path.join(d, f"{s}_{cc}_100")
            a, b = self_costs(early + ".cg"), self_costs(late + ".cg")
            run_a, run_b = os.path.join(d, f"o_{s}_{cc}_50"), os.path.join(d, f"o_{s}_{cc}_100")
            n = data_packets(run_b) - data_packets(run_a)
            h = hops(run_b) - hops(run_a)
            if n <= 0 or h <= 0:
                sys.exit(f"{s} cc={cc}: no DATA or no packet-hop between 50 and 100 us")
            split = collections.Counter()
            for k in set(a) | set(b):
                p = part(*k)
                split[p] += b[k] - a[k]
                if cc == "dcsim" and p == "module":
                    split[dcsim_part(*k)] += b[k] - a[k]
            total = split["shared"] + split["module"]
            rows[(s, cc)] = (n, h, split["shared"], split["module"], split["blocks"])
            print(
                f"| `{s}` | {cc} | {n:,} | {h / n:.2f} | {total / n:,.0f} | {total / h:.0f} "
                f"| {split['shared'] / h:.0f} | {split['module'] / h:.0f} |"
            )
    print()
    for s in ("dcsim_a2av", "dcsim_oversubscribed"):
        n_s, h_s, sh_s, m_s, b_s = rows[(s, "dcsim")]
        n_t, h_t, sh_t, m_t, _ = rows[(s, "dctcp")]
        per_data_t = (sh_t + m_t) / n_t
        ratio = (sh_s + m_s) / n_s / per_data_t
        floor = sh_s / n_s / per_data_t
        hs, ht = h_s / n_s, h_t / n_t
        ss, st, mt = sh_s / h_s, sh_t / h_t, m_t / h_t

        def bound(k):
            """B(k) of the docstring: DCSIM's own modules per hop for 2x, engine scaled by k."""
            return (2 * ht * (k * st + mt) - hs * k * ss) / hs

        print(
            f"{s}: DCSIM / DCTCP per DATA {ratio:.2f}x (packet-hops {(h_s / n_s) / (h_t / n_t):.2f}x); "
            f"with DCSIM's own modules at zero {floor:.2f}x; 2x needs them at "
            f"{bound(1.0):.0f} instructions per hop (now {m_s / h_s:.0f}: blocks {b_s / h_s:.0f}, "
            f"glue {(m_s - b_s) / h_s:.0f})"
        )
        for k in (1.0, 0.5, 0.0):
            print(f"  shared engine at {k:.0%} of today's cost: 2x needs DCSIM's own modules at "
                  f"<= {bound(k):.0f} instructions per hop")


if __name__ == "__main__":
    main()
