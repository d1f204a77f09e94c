#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Speed of mixprec.to_bits next to ml_dtypes' astype and NumPy's astype(float16), same arrays, one run;
then round() against to_bits() and to_bits() + from_bits() (the decode).

    python3 bench/python_round.py [--n 10000000] [--reps 5] [--round-n 1000000] [--only round|peers] [--threads N]

Rounds an n-element float32 array, and the same values as float64, to bfloat16, float16,
float8_e4m3fn and float8_e5m2 (nearest-even, the only mode the peers have) and prints the best-of-reps
time of each (mixprec with its thread pool and with one thread; the peers are single-threaded) and
the ratios. The second table rounds round-n float32 values in a few formats and modes and prints
round / to_bits and round / (to_bits + from_bits): round() is the two in one pass, so the second
ratio is at most about 1 (it writes float64 values: 8 bytes an element where to_bits writes 1 to
4, so the first ratio is above 1 where to_bits is memory-bound). Run it against the built package
(PYTHONPATH=<dir holding mixprec>), not an older install.
"""
import argparse
import platform
import time

import numpy as np

import mixprec

try:
    import ml_dtypes
except ImportError:  # pragma: no cover
    ml_dtypes = None


def best(f, reps):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--round-n", type=int, default=1_000_000)
    ap.add_argument("--only", choices=("round", "peers"))
    ap.add_argument("--threads", type=int, default=0, help="threads of the round() table (0: the pool's default)")
    a = ap.parse_args()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    threads = mixprec.get_num_threads()
    print("n = %d, best of %d; CPU: %s; mixprec %s (%d threads, and 1)" % (a.n, a.reps, cpu, mixprec.__version__,
                                                                        threads))
    if a.only != "round":
        peers_table(a)
    if a.only != "peers":
        round_table(a)


def peers_table(a):
    x32 = np.random.default_rng(0).standard_normal(a.n).astype(np.float32)
    print()
    print("| input | format | mixprec (ms) | mixprec 1 thread (ms) | peer | peer (ms) | speed vs peer | 1 thread vs peer |")
    print("|---|---|--:|--:|---|--:|--:|--:|")
    for x in (x32, x32.astype(np.float64)):
        for fmt in ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"]:
            t_mp = best(lambda: mixprec.to_bits(x, fmt), a.reps)
            mixprec.set_num_threads(1)
            try:
                t_1 = best(lambda: mixprec.to_bits(x, fmt), a.reps)
            finally:
                mixprec.set_num_threads(0)
            peers = []
            if fmt == "float16":
                peers.append(("numpy astype", lambda: x.astype(np.float16)))
            if ml_dtypes is not None and fmt != "float16":
                dt = getattr(ml_dtypes, fmt)
                peers.append(("ml_dtypes astype", lambda: x.astype(dt)))
            for name, f in peers:
                t = best(f, a.reps)
                print("| %s | %s | %.1f | %.1f | %s | %.1f | %.2fx | %.2fx |" % (
                    x.dtype.name, fmt, 1e3 * t_mp, 1e3 * t_1, name, 1e3 * t, t / t_mp, t / t_1))


def round_table(a):
    x = np.random.default_rng(1).standard_normal(a.round_n).astype(np.float32)
    mixprec.set_num_threads(a.threads)
    print()
    print("round() vs to_bits() and to_bits() + from_bits(), %d float32 values, %d thread(s), best of %d:"
          % (a.round_n, mixprec.get_num_threads(), a.reps))
    print("| format | rounding | to_bits (ms) | from_bits (ms) | round (ms) | round / to_bits | "
          "round / (to_bits + from_bits) |")
    print("|---|---|--:|--:|--:|--:|--:|")
    fmts = ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "tf32", mixprec.format(3, 2)]
    for fmt in fmts:
        for mode in ("nearest_even", "toward_zero", "stochastic"):
            kw = {"seed": 1} if mode == "stochastic" else {}
            codes = mixprec.to_bits(x, fmt, mode, **kw)
            t_bits = t_dec = t_round = float("inf")
            for _ in range(a.reps):  # interleaved, so that a change of the machine's load hits all three
                t_bits = min(t_bits, best(lambda: mixprec.to_bits(x, fmt, mode, **kw), 1))
                t_dec = min(t_dec, best(lambda: mixprec.from_bits(codes, fmt), 1))
                t_round = min(t_round, best(lambda: mixprec.round(x, fmt, mode, **kw), 1))
            print("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
                getattr(fmt, "name", fmt), mode, 1e3 * t_bits, 1e3 * t_dec, 1e3 * t_round, t_round / t_bits,
                t_round / (t_bits + t_dec)))
    mixprec.set_num_threads(0)


if __name__ == "__main__":
    main()
