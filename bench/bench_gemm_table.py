#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables from bench_gemm's JSON output (--benchmark_out=FILE --benchmark_out_format=json).

Uses the median aggregates when the run had repetitions (else the single runs): GFLOP/s and the
ratios to OpenBLAS's cblas_sgemm (x_sgemm), oneDNN's dnnl_sgemm (x_dnnl) and oneDNN's bf16
matmul (x_dnnl_bf16) of the same shape and thread count (> 1: faster than the peer). One table per shape group (square n^3, the study's
shapes). --min: the minimum time of each row over all repetitions and files instead, the
ratios recomputed from those minima; --cpu (with --min, one-thread rows): the benchmark
thread's CPU time instead of real time (on a loaded machine, what the row itself spent).

    python3 bench/bench_gemm_table.py [--min [--cpu]] gemm.json [more.json ...]   (files are merged)
"""
import json
import re
import sys


def main(args):
    use_min = "--min" in args
    use_cpu = "--cpu" in args
    tkey = "cpu_time" if use_cpu else "real_time"
    paths = [a for a in args if a not in ("--min", "--cpu")] or ["gemm.json"]
    docs = []
    for path in paths:
        with open(path) as f:
            docs.append(json.load(f))
    doc = docs[0]
    benchmarks = [b for d in docs for b in d["benchmarks"]]
    have_median = any(b.get("aggregate_name") == "median" for b in benchmarks)
    rows = {}
    for b in benchmarks:
        agg = b.get("aggregate_name")
        if use_min:
            if agg:
                continue
        elif have_median and agg != "median":
            continue
        m = re.match(r"gemm/([^/]+)/([^/]+)/threads:(\d+)", b.get("run_name", b["name"]))
        if not m:
            continue
        impl, shape, t = m.group(1), m.group(2), int(m.group(3))
        key = (shape, t)
        cur = rows.setdefault(impl, {}).get(key)
        if cur is None or b[tkey] < cur[tkey]:
            rows[impl][key] = b
    if use_min:  # GFLOP/s and ratios from the minima
        flop = {}
        for impl, r in rows.items():
            for key, b in r.items():
                b = dict(b)
                if b.get("GFLOPS", 0) > 0:
                    b["GFLOPS"] = b["GFLOPS"] * b["real_time"] / b[tkey]
                for peer, name in (("sgemm", "x_sgemm"), ("dnnl_sgemm", "x_dnnl"), ("dnnl_bf16", "x_dnnl_bf16")):
                    p = rows.get(peer, {}).get(key)
                    if p is not None:
                        b[name] = p[tkey] / b[tkey]
                    else:
                        b.pop(name, None)
                r[key] = b
    cols = []
    for r in rows.values():
        for c in r:
            if c not in cols:
                cols.append(c)

    def shape_key(c):
        s, t = c
        return (0 if s.isdigit() else 1, int(s) if s.isdigit() else 0, s, t)

    cols.sort(key=shape_key)
    for group in (lambda c: c[0].isdigit(), lambda c: not c[0].isdigit()):
        gcols = [c for c in cols if group(c)]
        if not gcols:
            continue
        head = "| impl | " + " | ".join((f"{s}^3" if s.isdigit() else s) + f", {t} thr" for s, t in gcols) + " |"
        print(head)
        print("|---" * (len(gcols) + 1) + "|")
        for impl, r in rows.items():
            cells = []
            for c in gcols:
                b = r.get(c)
                if b is None:
                    cells.append("")
                    continue
                cell = f"{b.get('GFLOPS', 0.0):.0f} GFLOP/s"
                ratios = []
                if "x_sgemm" in b:
                    ratios.append(f"{b['x_sgemm']:.2f}")
                if "x_dnnl" in b:
                    ratios.append(f"{b['x_dnnl']:.2f}")
                if "x_dnnl_bf16" in b:
                    ratios.append(f"{b['x_dnnl_bf16']:.2f}")
                if ratios:
                    cell += " (" + " / ".join(ratios) + ")"
                label = b.get("label", "")
                if label.startswith("WRONG"):
                    cell += " " + label
                cells.append(cell)
            if any(cells):
                print(f"| `{impl}` | " + " | ".join(cells) + " |")
        print()
    ctx = doc.get("context", {})
    print(f"{('minimum ' + tkey) if use_min else 'medians' if have_median else 'single runs'}; ratios (x_sgemm / x_dnnl / x_dnnl_bf16); "
          f"{', '.join(d.get('context', {}).get('date', '') for d in docs)}; "
          f"mixprec gemm: {ctx.get('mixprec gemm', '?')}; {ctx.get('openblas', '')}; {ctx.get('onednn', '')}")


if __name__ == "__main__":
    main(sys.argv[1:])
