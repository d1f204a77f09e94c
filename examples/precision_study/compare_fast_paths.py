#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the reduced study with mixprec's SIMD fast paths (precision_study) and without them
(precision_study_portable, compiled with MIXPREC_NO_SIMD), and checks that every reported number
is the same: results.csv (all columns but wall time and peak RSS), epochs.csv (but time) and
losses.csv (every step's loss). CTest: example_precision_study_fast_paths.

    compare_fast_paths.py FAST PORTABLE OUTDIR
"""
import csv
import os
import subprocess
import sys

ARGS = ["--data", "synthetic", "--limit", "1000", "--epochs", "1", "--modes", "all", "--threads", "2",
        "--log-every", "0"]
IGNORED = {"seconds", "peak_rss_bytes", "epoch_seconds", "time_s", "wall_seconds"}


def rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in IGNORED} for r in csv.DictReader(f)]


def main():
    fast, portable, out = sys.argv[1:4]
    for name, exe in (("fast", fast), ("portable", portable)):
        r = subprocess.run([exe] + ARGS + ["--out", os.path.join(out, name)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print("%s run failed (%d):\n%s" % (name, r.returncode, r.stderr[-2000:]))
            return 1
    bad = 0
    for f in ("results.csv", "epochs.csv", "losses.csv"):
        a, b = rows(os.path.join(out, "fast", f)), rows(os.path.join(out, "portable", f))
        if len(a) != len(b) or not a:
            print("%s: %d rows with the fast paths, %d without" % (f, len(a), len(b)))
            bad += 1
            continue
        for i, (ra, rb) in enumerate(zip(a, b)):
            for k in ra:
                if ra[k] != rb.get(k):
                    if bad < 20:
                        print("%s row %d (%s) column %s: %s with the fast paths, %s without" %
                              (f, i, ra.get("mode", "?"), k, ra[k], rb.get(k)))
                    bad += 1
        print("%s: %d rows compared" % (f, len(a)))
    print("fast paths on and off: %s" % ("identical" if bad == 0 else "%d differences" % bad))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
