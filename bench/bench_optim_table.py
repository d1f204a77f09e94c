#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Table of bench_kernels' optimizer-step rows (optim/...): ns per parameter, the fast path
against the portable loop, and the speed of each low-precision step relative to the float32
master-weight step of the same optimizer in the same run (t_f32 / t_step, >= 0.5 is issue 14's
target). Takes the minimum over repetitions (the machine is shared: the least disturbed run).

usage: bench/bench_optim_table.py bench_kernels.json [more.json ...]
"""
import json
import sys
from collections import defaultdict


def load(paths):
    t = defaultdict(lambda: float("inf"))
    for path in paths:
        for b in json.load(open(path))["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            name = b.get("run_name", b["name"])
            if not name.startswith("optim/") or "per_elem" not in b:
                continue
            t[name] = min(t[name], b["per_elem"] * 1e9)
    return t


def main(paths):
    t = load(paths)
    rows = defaultdict(dict)
    for name, ns in t.items():
        _, step, dtype, rnd, impl, n = name.split("/")
        rows[(int(n), step, dtype, rnd)][impl] = ns
    print("| n | step | dtype | final rounding | fast ns/elem | portable ns/elem | fast / portable speed-up | speed vs float32 step (fast) |")
    print("|---:|---|---|---|---:|---:|---:|---:|")
    order = {"f32": 0, "f32+bf16": 1, "f32+f16": 2, "bf16": 3, "f16": 4}
    for key in sorted(rows, key=lambda k: (k[0], k[1], order.get(k[2], 9), k[3])):
        n, step, dtype, rnd = key
        r = rows[key]
        fast, port = r.get("fast"), r.get("portable")
        ref = rows.get((n, step, "f32", "rne"), {}).get("fast")
        speedup = f"{port / fast:.1f}x" if fast and port else "–"
        rel = f"{ref / fast:.2f}" if ref and fast else "–"
        print(f"| {n} | {step} | {dtype} | {rnd} | {fast:.2f} | {port:.2f} | {speedup} | {rel} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
