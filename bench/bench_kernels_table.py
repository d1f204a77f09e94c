#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ratio table of bench_kernels' JSON output (medians): mixprec and peers vs the copy.

usage: bench/bench_kernels_table.py bench_kernels.json
"""
import json
import sys
from collections import defaultdict


def main(path):
    data = json.load(open(path))
    bps = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        name = b["run_name"] if "run_name" in b else b["name"]
        bps[name] = b["bytes_per_second"]
    rows = defaultdict(dict)
    for name, v in bps.items():
        parts = name.split("/")
        if parts[0] == "convert":
            _, pair, impl, size = parts
            rows[(pair, int(size))][impl] = v
        elif parts[0] == "unscale":
            _, impl, size = parts
            rows[("unscale", int(size))][impl] = v
    print("| case | bytes (input) | mixprec GB/s | limit GB/s | mixprec / limit | intrinsic / limit | scalar loop / limit |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (case, size) in sorted(rows, key=lambda k: (k[0] == "unscale", k[0], k[1])):
        r = rows[(case, size)]
        limit = r.get("copy", r.get("mul"))
        fmt = lambda k: ("%.2f" % (r[k] / limit)) if k in r else "–"
        print("| %s | %d | %.1f | %.1f | %s | %s | %s |" % (
            case, size, r["mixprec"] / 1e9, limit / 1e9, fmt("mixprec"), fmt("intrinsic"),
            fmt("scalar") if case != "unscale" else ("naive %.2f" % (r["naive"] / limit))))


if __name__ == "__main__":
    main(sys.argv[1])
