#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ratio table of bench_block_scaling's JSON output (min over repetitions of the CPU time).

usage: bench/bench_block_scaling_table.py bench_block_scaling.json

Block quantize / dequantize: GB/s of input + output bytes, and the ratio to the copy of the same
bytes (uint32 <-> uint8) measured in the same run. GEMM: time and the ratio to mixprec::gemm float.
"""
import json
import sys
from collections import defaultdict


def main(path):
    data = json.load(open(path))
    best = {}  # name -> (cpu_time, bytes_per_second)
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name = b.get("run_name", b["name"])
        t = b["cpu_time"]
        if name not in best or t < best[name][0]:
            best[name] = (t, b.get("bytes_per_second", 0.0), b.get("time_unit", "us"))
    rows = defaultdict(dict)
    gemm = {}
    for name, (t, bps, unit) in best.items():
        parts = name.split("/")
        if parts[0] in ("quant", "dequant"):
            _, recipe, impl, n = parts
            rows[(parts[0], recipe, int(n))][impl] = bps
        elif parts[0] == "gemm":
            gemm[parts[1] + "/" + parts[2]] = (t, unit)
    print("| operation | recipe | n (floats) | mixprec GB/s | copy GB/s | mixprec / copy | amax given / copy "
          "| avx2 level / copy | scalar loop / copy |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(rows, key=lambda k: (k[0] != "quant", k[1], k[2])):
        r = rows[key]
        # a variant of a recipe (mxfp8_ocp) against its recipe's copy (the same bytes)
        c = r.get("copy", rows.get((key[0], key[1].split("_")[0], key[2]), {}).get("copy"))
        if c is None or "mixprec" not in r:
            continue
        sc = ("%.3f" % (r["scalar"] / c)) if "scalar" in r else "–"
        a2 = ("%.2f" % (r["avx2"] / c)) if "avx2" in r else "–"
        ga = ("%.2f" % (r["given_amax"] / c)) if "given_amax" in r else "–"
        print("| %s | %s | %d | %.1f | %.1f | %.2f | %s | %s | %s |" % (key[0], key[1], key[2], r["mixprec"] / 1e9,
                                                                        c / 1e9, r["mixprec"] / c, ga, a2, sc))
    if gemm:
        print()
        print("| GEMM (m = n = k) | time | / float GEMM |")
        print("|---|---:|---:|")
        for name in sorted(gemm):
            m = name.split("/")[1]
            ref = gemm.get("f32/" + m)
            t, unit = gemm[name]
            print("| %s | %.2f %s | %s |" % (name, t, unit, ("%.2fx" % (t / ref[0])) if ref else "–"))


if __name__ == "__main__":
    main(sys.argv[1])
