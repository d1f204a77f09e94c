#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables from bench_gemm's JSON output (--benchmark_out=FILE --benchmark_out_format=json).

Uses the median aggregates when the run had repetitions (else the single runs): GFLOP/s and the
ratio to cblas_sgemm of the same size and thread count (x_sgemm, > 1 is faster than sgemm).

    python3 bench/bench_gemm_table.py gemm.json [more.json ...]   (runs of parts are merged)
"""
import json
import re
import sys


def main(paths):
    docs = []
    for path in paths:
        with open(path) as f:
            docs.append(json.load(f))
    doc = docs[0]
    benchmarks = [b for d in docs for b in d["benchmarks"]]
    rows = {}
    have_median = any(b.get("aggregate_name") == "median" for b in benchmarks)
    for b in benchmarks:
        if have_median and b.get("aggregate_name") != "median":
            continue
        m = re.match(r"gemm/([^/]+)/(\d+)/threads:(\d+)", b["name"])
        if not m:
            continue
        impl, n, t = m.group(1), int(m.group(2)), int(m.group(3))
        rows.setdefault(impl, {})[(n, t)] = (b.get("GFLOPS", 0.0), b.get("x_sgemm", 0.0), b.get("label", ""))
    cols = sorted({c for r in rows.values() for c in r})
    head = "| impl | " + " | ".join(f"{n}^3, {t} thr" for n, t in cols) + " |"
    print(head)
    print("|---" * (len(cols) + 1) + "|")
    for impl, r in rows.items():
        cells = []
        for c in cols:
            if c in r:
                g, x, label = r[c]
                cell = f"{g:.0f} GFLOP/s ({x:.2f}x)"
                if label.startswith("WRONG"):
                    cell += " " + label
                cells.append(cell)
            else:
                cells.append("")
        print(f"| `{impl}` | " + " | ".join(cells) + " |")
    ctx = doc.get("context", {})
    print()
    print(f"{'medians' if have_median else 'single runs'}; "
          f"{', '.join(d.get('context', {}).get('date', '') for d in docs)}; "
          f"mixprec gemm: {ctx.get('mixprec gemm', '?')}; {ctx.get('openblas', '')}")


if __name__ == "__main__":
    main(sys.argv[1:] if len(sys.argv) > 1 else ["gemm.json"])
