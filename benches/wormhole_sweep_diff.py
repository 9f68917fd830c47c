#!/usr/bin/env python3
"""Wormhole (issue 12): totals of one `benches/wormhole_sweep.py` log, or two logs of the same
seeds side by side (two builds), with the cases that moved (benches/README.md, Wormhole
"Session 25").

Usage:

    python3 benches/wormhole_sweep_diff.py BEFORE.log [AFTER.log] [--moved PTS]

For each log: cases run, cases with a skip, cases over 1 % (or with a one-run completion),
cases over twice their chaos floor (logs run with `SWEEP_FLOOR=1`), each split by
`skip.partition_by`, and the events of all cases, full / skip. With two logs: the cases whose
events changed, the ones whose mean FCT error moved by more than PTS points (default 0.05),
and the cases over twice their floor in one log only.
"""
import re
import sys

LINE = re.compile(
    r"^(\d+) \| skips (\d+) \| events (\d+) / (\d+) \| FCT error mean ([0-9.]+) % .*"
    r"one-run completions (\d+)"
)


def load(path):
    """Case seed -> (partition_by, skips, events skip, events full, mean error %, floor % or
    None, one-run completions)."""
    cases = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            part = "data_ports" if "partition_by=data_ports" in line else "all_ports"
            fl = re.search(r"\| floor ([0-9.]+) %", line)
            cases[int(m[1])] = (
                part,
                int(m[2]),
                int(m[3]),
                int(m[4]),
                float(m[5]),
                float(fl[1]) if fl else None,
                int(m[6]),
            )
    return cases


def over_floor(c):
    return c[6] != 0 or (c[5] is not None and c[4] > 2 * c[5])


def totals(name, cases):
    print(f"{name}: {len(cases)} cases, {sum(1 for c in cases.values() if c[1] > 0)} with a skip")
    for part in ("all_ports", "data_ports"):
        cs = [c for c in cases.values() if c[0] == part]
        over1 = sum(1 for c in cs if (c[4] > 1 and c[1] > 0) or c[6] != 0)
        floors = sum(1 for c in cs if over_floor(c))
        print(f"  {part}: {len(cs)} cases, {over1} over 1 %, {floors} over twice their floor")
    skip = sum(c[2] for c in cases.values())
    full = sum(c[3] for c in cases.values())
    ratio = full / skip if skip else float("nan")
    print(f"  events skip / full: {skip:,} / {full:,} ({ratio:.3f}x)")


def main():
    args = [a for a in sys.argv[1:]]
    pts = 0.05
    if "--moved" in args:
        i = args.index("--moved")
        pts = float(args[i + 1])
        del args[i : i + 2]
    if not args or len(args) > 2:
        sys.exit(__doc__)
    logs = [load(a) for a in args]
    for name, cases in zip(args, logs):
        totals(name, cases)
    if len(logs) == 2:
        a, b = logs
        common = sorted(set(a) & set(b))
        changed = [k for k in common if a[k][2] != b[k][2]]
        worse = [k for k in common if b[k][4] > a[k][4] + pts]
        better = [k for k in common if b[k][4] < a[k][4] - pts]
        print(f"{len(common)} cases in both; events changed in {len(changed)}")
        for label, ks in (("worse", worse), ("better", better)):
            moves = ", ".join(f"{k} {a[k][4]:.3f} -> {b[k][4]:.3f} %" for k in ks)
            print(f"  {label} by more than {pts} points: {len(ks)}{': ' + moves if ks else ''}")
        only = [
            (k, "first" if over_floor(a[k]) else "second")
            for k in common
            if over_floor(a[k]) != over_floor(b[k])
        ]
        for k, side in only:
            print(f"  over twice its floor in the {side} log only: {k}")


if __name__ == "__main__":
    main()
