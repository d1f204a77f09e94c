#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables from bench_convert's JSON output (bench/README.md).

    bench_convert --benchmark_repetitions=30 --benchmark_enable_random_interleaving=true \
                  --benchmark_min_time=0.02 \
                  --benchmark_out=convert.json --benchmark_out_format=json
    python3 bench/bench_convert_table.py convert.json            # every case, every row
    python3 bench/bench_convert_table.py --summary convert.json  # mixprec against its peers

Per benchmark it takes the CPU time of every repetition (or, from a run with
--benchmark_report_aggregates_only=true, the median row alone) and reports the median and the
minimum. On a shared VM the minimum is the repetition least disturbed by other guests, so the
ratios use it; the median is printed next to it. Ratios are time(row) / time(peer) in the same
run: below 1 = faster than the peer.
"""
import json
import statistics
import sys
from collections import OrderedDict

DIRECTIONS = OrderedDict([
    ("f2h", ("float -> half", "narrowing_copy", ["eigen", "imath_portable", "imath", "fp16h"])),
    ("h2f", ("half -> float", "widening_copy", ["eigen", "imath_portable", "imath", "fp16h"])),
    ("f2b", ("float -> bfloat16", "narrowing_copy", ["eigen"])),
    ("b2f", ("bfloat16 -> float", "widening_copy", ["eigen"])),
])
MIXPREC_ROWS = {"f2h": ["mixprec_half", "mixprec_round_to"], "h2f": ["mixprec_half"],
                "f2b": ["mixprec_bfloat16", "mixprec_round_to"], "b2f": ["mixprec_bfloat16"]}


def load(path):
    with open(path) as f:
        data = json.load(f)
    times, labels = OrderedDict(), {}
    for b in data["benchmarks"]:
        name = b["run_name"]
        if b.get("run_type") == "iteration":
            times.setdefault(name, []).append(b["cpu_time"])
            labels[name] = b.get("label", "")
        elif b.get("aggregate_name") == "median" and name not in times:
            times.setdefault(name + "#median", []).append(b["cpu_time"])
    # Runs with aggregates only: the median row stands for the repetitions.
    for key in [k for k in times if k.endswith("#median")]:
        if key[:-7] not in times:
            times[key[:-7]] = times[key]
        del times[key]
    if not times:
        sys.exit("no benchmark rows in " + path)
    return times, labels


# Row order in the tables (random interleaving shuffles the JSON); unknown rows go last.
ROW_ORDER = ["mixprec_half", "mixprec_bfloat16", "mixprec_round_to", "mixprec_generic", "eigen", "eigen_portable",
             "imath", "imath_portable", "fp16h", "f16c_256", "avx512_cvtps_ph", "avx512_cvtph_ps", "avx512bf16",
             "avx512bf16_fixed", "narrowing_copy", "widening_copy"]


def row_key(name):
    impl = name.split("/")[1]
    return ROW_ORDER.index(impl) if impl in ROW_ORDER else len(ROW_ORDER)


def cases_of(times):
    cases = []
    for name in times:
        d, _, data_set, n = name.split("/")[:4]
        if (d, data_set, n) not in cases:
            cases.append((d, data_set, n))
    return sorted(cases, key=lambda c: (list(DIRECTIONS).index(c[0]) if c[0] in DIRECTIONS else 99, c[1], int(c[2])))


def stats(times, name):
    v = times.get(name)
    return (statistics.median(v), min(v), len(v)) if v else None


def full(times):
    for d, (title, copy, peers) in DIRECTIONS.items():
        for dd, data_set, n in cases_of(times):
            if dd != d:
                continue
            rows = sorted((nm for nm in times if nm.split("/")[0] == d and nm.split("/")[2:4] == [data_set, n]),
                          key=row_key)
            present = [p for p in peers if stats(times, f"{d}/{p}/{data_set}/{n}")]
            reps = len(times[rows[0]])
            print(f"\n#### {title}, {data_set}, n = {n} ({reps} repetitions, CPU time)\n")
            head = ["implementation", "ns/elem median", "ns/elem min", f"x {copy}"] + [f"x {p}" for p in present]
            print("| " + " | ".join(head) + " |")
            print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
            for nm in rows:
                med, mn, _ = stats(times, nm)
                cells = [nm.split("/")[1], f"{med / int(n):.3f}", f"{mn / int(n):.3f}"]
                for p in [copy] + present:
                    sp = stats(times, f"{d}/{p}/{data_set}/{n}")
                    cells.append(f"{mn / sp[1]:.2f}" if sp else "")
                print("| " + " | ".join(cells) + " |")


def summary(times):
    head = ["case", "data", "mixprec ns/elem (min; median)"]
    peers = ["eigen", "imath_portable", "imath", "fp16h"]
    head += [f"÷ {p}" for p in peers]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|")
    for d, rows in MIXPREC_ROWS.items():
        for row in rows:
            for dd, data_set, n in cases_of(times):
                if dd != d:
                    continue
                s = stats(times, f"{d}/{row}/{data_set}/{n}")
                if not s:
                    continue
                cells = [f"{DIRECTIONS[d][0]} `{row}`", f"{data_set}/{n}", f"{s[1] / int(n):.3f}; {s[0] / int(n):.3f}"]
                for p in peers:
                    sp = stats(times, f"{d}/{p}/{data_set}/{n}")
                    cells.append(f"{s[1] / sp[1]:.2f}" if sp else "–")
                print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    args = sys.argv[1:]
    want_summary = "--summary" in args
    args = [a for a in args if a != "--summary"]
    if len(args) != 1:
        sys.exit(__doc__)
    t, _ = load(args[0])
    summary(t) if want_summary else full(t)
