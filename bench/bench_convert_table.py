#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables from bench_convert's JSON output (bench/README.md).

    bench_convert --benchmark_repetitions=30 --benchmark_enable_random_interleaving=true \
                  --benchmark_min_time=0.02 \
                  --benchmark_out=convert.json --benchmark_out_format=json
    python3 bench/bench_convert_table.py convert.json            # every case, every row
    python3 bench/bench_convert_table.py --summary convert.json  # mixprec against its peers

Issue 31's table of every rounding mode and overflow policy (the modes/ rows):

    bench_convert --benchmark_filter='modes/' --benchmark_repetitions=10 \
                  --benchmark_enable_random_interleaving=true --benchmark_min_time=0.02 \
                  --benchmark_out=modes.json --benchmark_out_format=json
    python3 bench/bench_convert_table.py --measure-peers peers.json   # ml_dtypes / torch, if importable
    python3 bench/bench_convert_table.py --modes modes.json [peers.json]
    python3 bench/bench_convert_table.py --svg modes.json modes.svg "title"   # the same as a bar chart

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


# --- issue 31: every mode and policy (modes/<pair>/<mode>/<policy>/<n>) ---------------------------
MODES = ["nearest_even", "nearest_away", "toward_zero", "upward", "downward", "to_odd", "stochastic",
         "stochastic_philox"]  # the last: stochastic rounding from rng_kind::philox4x32_10
ENCODE_PAIRS = OrderedDict([("f2h", "float -> half"), ("f2b", "float -> bfloat16"), ("f2e4m3fn", "float -> e4m3fn"),
                            ("f2e5m2", "float -> e5m2"), ("f2e2m1", "float -> e2m1fn"), ("f2tf32", "float -> tf32"),
                            ("d2h", "double -> half"),
                            ("d2b", "double -> bfloat16"), ("d2e4m3fn", "double -> e4m3fn"),
                            ("d2e5m2", "double -> e5m2"), ("d2e2m1", "double -> e2m1fn"),
                            ("f2e4m3fnuz", "float -> e4m3fnuz"), ("f2e5m2fnuz", "float -> e5m2fnuz"),
                            ("f2e4m3b11fnuz", "float -> e4m3b11fnuz"), ("f2e4m3", "float -> e4m3"),
                            ("f2e3m4", "float -> e3m4"), ("f2e2m3", "float -> e2m3fn"), ("f2e3m2", "float -> e3m2fn"),
                            ("f2e1m2", "float -> e1m2fn"), ("f2e8m0", "float -> e8m0fnu"),
                            ("f2ue4m3", "float -> ue4m3"), ("f2ue5m3", "float -> ue5m3")])
DECODE_PAIRS = OrderedDict([("e4m3fn2f", "e4m3fn -> float"), ("e5m22f", "e5m2 -> float"), ("e2m12f", "e2m1fn -> float"),
                            ("e8m02f", "e8m0fnu -> float"), ("ue5m32f", "ue5m3 -> float"),
                            ("e4m3fnuz2f", "e4m3fnuz -> float"), ("e5m2fnuz2f", "e5m2fnuz -> float"),
                            ("e4m3b11fnuz2f", "e4m3b11fnuz -> float"), ("e4m32f", "e4m3 -> float"),
                            ("e3m42f", "e3m4 -> float"), ("e2m32f", "e2m3fn -> float"), ("e3m22f", "e3m2fn -> float"),
                            ("e1m22f", "e1m2fn -> float"), ("ue4m32f", "ue4m3 -> float")])
# ml_dtypes / torch names of the pairs' narrow types (torch has no unpacked FP4 dtype); d2*: from float64
PEER_TYPES = {"f2h": ("float16", "float16"), "f2b": ("bfloat16", "bfloat16"), "f2e4m3fn": ("float8_e4m3fn", "float8_e4m3fn"),
              "f2e5m2": ("float8_e5m2", "float8_e5m2"), "f2e2m1": ("float4_e2m1fn", None),
              "d2h": ("float16", "float16"), "d2b": ("bfloat16", "bfloat16"), "d2e4m3fn": ("float8_e4m3fn", "float8_e4m3fn"),
              "d2e5m2": ("float8_e5m2", "float8_e5m2"), "d2e2m1": ("float4_e2m1fn", None),
              "e4m3fn2f": ("float8_e4m3fn", "float8_e4m3fn"), "e5m22f": ("float8_e5m2", "float8_e5m2"),
              "e2m12f": ("float4_e2m1fn", None), "e8m02f": ("float8_e8m0fnu", "float8_e8m0fnu")}
for _f, _t in (("e4m3fnuz", True), ("e5m2fnuz", True), ("e4m3b11fnuz", False), ("e4m3", False), ("e3m4", False)):
    PEER_TYPES["f2" + _f] = PEER_TYPES[_f + "2f"] = ("float8_" + _f, "float8_" + _f if _t else None)
for _f in ("e2m3", "e3m2"):
    PEER_TYPES["f2" + _f] = PEER_TYPES[_f + "2f"] = ("float6_" + _f + "fn", None)
PEER_TYPES["f2e8m0"] = ("float8_e8m0fnu", "float8_e8m0fnu")


def measure_peers(out_path, n=16384, reps=2000):
    """Minimum time (ns) of one conversion of n elements by ml_dtypes (numpy astype) and torch (.to),
    single-threaded, on the same N(0,1) * 2^k data as bench_convert; written as JSON."""
    import time
    import numpy as np
    res = {"n": n}
    rng = np.random.default_rng(31)
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-8, 9, n))).astype(np.float32)
    x64 = x.astype(np.float64) * (1 + np.where(np.arange(n) % 2 == 0, 2.0**-30, -2.0**-30))  # as bench_convert's doubles
    try:
        import ml_dtypes
        res["ml_dtypes_version"] = ml_dtypes.__version__
    except ImportError:
        ml_dtypes = None
    try:
        import torch
        torch.set_num_threads(1)
        res["torch_version"] = torch.__version__
    except ImportError:
        torch = None

    def best(fn):
        fn()
        t = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter_ns()
            fn()
            t = min(t, time.perf_counter_ns() - t0)
        return t
    for pair, (mt, tt) in PEER_TYPES.items():
        decode = pair in DECODE_PAIRS
        src = x64 if pair.startswith("d2") else x
        if ml_dtypes is not None and (mt == "float16" or hasattr(ml_dtypes, mt)):
            dt = np.float16 if mt == "float16" else getattr(ml_dtypes, mt)
            if decode:
                c = x.astype(dt)
                res[f"ml_dtypes/{pair}"] = best(lambda: c.astype(np.float32))
            else:
                res[f"ml_dtypes/{pair}"] = best(lambda: src.astype(dt))
        if torch is not None and tt is not None and hasattr(torch, tt):
            tx = torch.from_numpy(src)
            tdt = getattr(torch, tt)
            if decode:
                c = tx.to(tdt)
                res[f"torch/{pair}"] = best(lambda: c.to(torch.float32))
            else:
                res[f"torch/{pair}"] = best(lambda: tx.to(tdt))
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


def modes(times, peers):
    """Ratios to nearest-even (ieee) of the same pair, to the movement limit and to the peers."""
    names = [nm for nm in times if nm.startswith("modes/")]
    if not names:
        sys.exit("no modes/ rows")
    n = int(names[0].split("/")[-1])
    reps = len(times[names[0]])

    def t(*parts):
        s_ = stats(times, "/".join(("modes",) + parts + (str(n),)))
        return s_[1] if s_ else None
    present = [p for p in ("ml_dtypes", "torch") if any(k.startswith(p + "/") for k in peers)]
    print(f"\nn = {n} elements (L1/L2-resident), minimum CPU time of {reps} interleaved repetitions.\n")
    head = ["conversion", "nearest_even ns/elem"] + [f"{m} ieee / sat" for m in MODES[1:]] + \
           ["RNE sat"] + ["RNE ÷ movement"] + [f"RNE ÷ {p}" for p in present]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for pair, title in ENCODE_PAIRS.items():
        rne = t(pair, "nearest_even", "ieee")
        if rne is None:
            continue
        cells = [title, f"{rne / n:.3f}"]
        for m in MODES[1:]:
            a, b = t(pair, m, "ieee"), t(pair, m, "saturate")
            cells.append(f"{a / rne:.2f} / {b / rne:.2f}" if a and b else "")
        sat = t(pair, "nearest_even", "saturate")
        cells.append(f"{sat / rne:.2f}" if sat else "")
        cp = t(pair, "copy")
        cells.append(f"{rne / cp:.2f}" if cp else "")
        for p in present:
            pt = peers.get(f"{p}/{pair}")
            cells.append(f"{rne / pt:.2f}" if pt else "–")
        print("| " + " | ".join(cells) + " |")
    print()
    head = ["decode", "ns/elem", "movement ns/elem", "movement ÷ decode (target >= 0.9)", "memcpy(4n bytes) ns/elem"] + \
           [f"÷ {p}" for p in present]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for pair, title in DECODE_PAIRS.items():
        d = t(pair, "decode")
        if d is None:
            continue
        cp, mc = t(pair, "copy"), t(pair, "memcpy")
        cells = [title, f"{d / n:.3f}", f"{cp / n:.3f}" if cp else "", f"{cp / d:.2f}" if cp else "",
                 f"{mc / n:.3f}" if mc else ""]
        for p in present:
            pt = peers.get(f"{p}/{pair}")
            cells.append(f"{d / pt:.2f}" if pt else "–")
        print("| " + " | ".join(cells) + " |")


def modes_svg(times, path, title):
    """A bar chart of the modes table: per conversion, each mode's time over nearest-even (log
    scale, the targets 2 and 8 drawn), and per decode the movement limit over the decode time."""
    names = [nm for nm in times if nm.startswith("modes/")]
    n = int(names[0].split("/")[-1])

    def t(*parts):
        s_ = stats(times, "/".join(("modes",) + parts + (str(n),)))
        return s_[1] if s_ else None
    import math
    series = MODES[1:] + ["nearest_even saturate"]
    colors = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"]
    rows = []  # (label, [(mode, ratio)])
    for pair, label in ENCODE_PAIRS.items():
        rne = t(pair, "nearest_even", "ieee")
        if rne is None:
            continue
        bars = [(m, max((t(pair, m, pol) or 0) for pol in ("ieee", "saturate")) / rne) for m in MODES[1:]
                if t(pair, m, "ieee")]
        if t(pair, "nearest_even", "saturate"):
            bars.append((series[-1], t(pair, "nearest_even", "saturate") / rne))
        rows.append((label, bars))
    bar, gap, left, width = 7, 10, 150, 560
    lo, hi = math.log2(0.25), math.log2(16)
    x_of = lambda r: left + (math.log2(min(max(r, 0.25), 16)) - lo) / (hi - lo) * width
    h = 40 + sum(len(b) * bar + gap for _, b in rows) + 60
    dec = [(lab, t(p, "copy") / t(p, "decode")) for p, lab in DECODE_PAIRS.items() if t(p, "decode") and t(p, "copy")]
    h2 = 40 + len(dec) * (bar + 6)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 170}" height="{h + h2}" '
           'font-family="sans-serif" font-size="11">', f'<text x="10" y="18" font-size="13">{title}</text>',
           '<text x="10" y="32">time of each mode / time of nearest-even, same conversion (worse of ieee and '
           'saturate; log scale)</text>']
    y = 44
    for label, bars in rows:
        out.append(f'<text x="{left - 6}" y="{y + len(bars) * bar / 2 + 4}" text-anchor="end">{label}</text>')
        for i, (m, r) in enumerate(bars):
            out.append(f'<rect x="{left}" y="{y + i * bar}" width="{x_of(r) - left:.1f}" height="{bar - 1}" '
                       f'fill="{colors[series.index(m)]}"><title>{label} {m}: {r:.2f}</title></rect>')
        y += len(bars) * bar + gap
    for v in (0.25, 0.5, 1, 2, 4, 8, 16):
        dash = ' stroke-dasharray="4,3" stroke="#c00"' if v in (2, 8) else ' stroke="#bbb"'
        out.append(f'<line x1="{x_of(v):.1f}" y1="40" x2="{x_of(v):.1f}" y2="{y}"{dash}/>')
        out.append(f'<text x="{x_of(v):.1f}" y="{y + 12}" text-anchor="middle">{v:g}</text>')
    out.append(f'<text x="{x_of(2):.1f}" y="{y + 24}" fill="#c00" text-anchor="middle">target 2</text>')
    out.append(f'<text x="{x_of(8):.1f}" y="{y + 24}" fill="#c00" text-anchor="middle">target 8 (stochastic)</text>')
    for i, m in enumerate(series):
        out.append(f'<rect x="{left + width + 20}" y="{50 + 16 * i}" width="10" height="10" fill="{colors[i]}"/>'
                   f'<text x="{left + width + 36}" y="{59 + 16 * i}">{m}</text>')
    y = h
    out.append(f'<text x="10" y="{y}">decode: movement limit / decode time (1 = at the limit; target 0.9)</text>')
    y += 10
    xd = lambda r: left + min(r, 1.2) / 1.2 * width
    for label, r in dec:
        out.append(f'<text x="{left - 6}" y="{y + bar}" text-anchor="end">{label}</text>'
                   f'<rect x="{left}" y="{y}" width="{xd(r) - left:.1f}" height="{bar + 2}" fill="#4e79a7">'
                   f'<title>{label}: {r:.2f}</title></rect><text x="{xd(r) + 4:.1f}" y="{y + bar}">{r:.2f}</text>')
        y += bar + 6
    out.append(f'<line x1="{xd(0.9):.1f}" y1="{h + 8}" x2="{xd(0.9):.1f}" y2="{y}" stroke="#c00" stroke-dasharray="4,3"/>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--measure-peers"] and len(args) == 2:
        measure_peers(args[1])
        sys.exit(0)
    if args[:1] == ["--svg"] and len(args) == 4:  # --svg modes.json out.svg "title (CPU, compiler, flags)"
        t, _ = load(args[1])
        modes_svg(t, args[2], args[3])
        sys.exit(0)
    if args[:1] == ["--modes"] and len(args) in (2, 3):
        t, _ = load(args[1])
        peers = {}
        if len(args) == 3:
            with open(args[2]) as f:
                peers = json.load(f)
        modes(t, peers)
        sys.exit(0)
    want_summary = "--summary" in args
    args = [a for a in args if a != "--summary"]
    if len(args) != 1:
        sys.exit(__doc__)
    t, _ = load(args[0])
    t = OrderedDict((k, v) for k, v in t.items() if not k.startswith("modes/"))
    summary(t) if want_summary else full(t)
