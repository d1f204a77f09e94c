#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The data-parallel study (precision_study_mpi) against the one-process study (precision_study).
CTest: example_precision_study_mpi (label "mpi").

1. mpiexec -np 1, 2, 3: every reported number is the one-process run's (results.json but for times,
   peak RSS, thread and rank counts; losses.csv byte for byte; epochs.csv and results.csv but for
   times and RSS); every rank reports the same steps, skips, scale and accuracy, and float16-mixed
   (initial scale 2^24) does skip steps.
2. --reduce-dtype bfloat16 with 2 ranks: the same numbers as one process with bfloat16, a non-zero
   reported error against float32, and a different model than the float32 reduction.
3. A failing rank (MIXPREC_STUDY_FAIL_RANK=1, 3 ranks): the job ends within 20 s with a non-zero
   status and the rank's message.

    check_mpi.py MPIEXEC PRECISION_STUDY PRECISION_STUDY_MPI OUTDIR
"""
import csv
import json
import os
import re
import subprocess
import sys
import time

ARGS = ["--data", "synthetic", "--limit", "200", "--epochs", "2", "--threads", "1", "--log-every", "0",
        "--micro-batches", "4",  # precision_study_mpi's default; precision_study's is 1
        "--modes", "float32,float16-mixed,bfloat16-regular-sr,fp8-mixed,nvfp4", "--init-scale", "16777216"]
IGNORED = {"seconds", "total_seconds", "peak_rss_bytes", "threads", "ranks", "mpi_seconds", "train_seconds"}
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAILED: " + msg)


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in IGNORED}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def csv_rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in IGNORED} for r in csv.DictReader(f)]


def run(cmd, out, timeout=240, env=None):
    t = time.time()
    r = subprocess.run(cmd + ARGS + ["--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=env)
    return r, time.time() - t


def same_outputs(a, b, what):
    ja = strip(json.load(open(os.path.join(a, "results.json"))))
    jb = strip(json.load(open(os.path.join(b, "results.json"))))
    if ja != jb:
        for ma, mb in zip(ja.get("modes", []), jb.get("modes", [])):
            for k in ma:
                if ma[k] != mb.get(k):
                    print("  %s: %s: %r vs %r" % (ma.get("name"), k, str(ma[k])[:200], str(mb.get(k))[:200]))
        fail(what + ": results.json differs")
    if open(os.path.join(a, "losses.csv"), "rb").read() != open(os.path.join(b, "losses.csv"), "rb").read():
        fail(what + ": losses.csv differs")
    for f in ("results.csv", "epochs.csv"):
        if csv_rows(os.path.join(a, f)) != csv_rows(os.path.join(b, f)):
            fail(what + ": " + f + " differs")
    return ja


def main():
    mpiexec, single, mpi, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    r, s = run([single], os.path.join(out, "single"))
    if r.returncode != 0:
        fail("the one-process study: status %d\n%s" % (r.returncode, r.stderr[-2000:]))
        return 1
    print("one process: %.1f s" % s)
    ref = strip(json.load(open(os.path.join(out, "single", "results.json"))))
    skips = {m["name"]: m["skipped_steps"] for m in ref["modes"]}
    if not skips.get("float16-mixed", 0) > 0:
        fail("float16-mixed from 2^24 skips no step: the skip check would check nothing")
    for n in (1, 2, 3):
        d = os.path.join(out, "np%d" % n)
        r, s = run([mpiexec, "-np", str(n), mpi], d)
        print("%d rank(s): %.1f s, status %d" % (n, s, r.returncode))
        if r.returncode != 0:
            fail("%d ranks: status %d\n%s" % (n, r.returncode, r.stderr[-3000:]))
            continue
        j = same_outputs(os.path.join(out, "single"), d, "%d ranks" % n)
        if json.load(open(os.path.join(d, "results.json")))["ranks"] != n:
            fail("%d ranks: results.json does not say %d ranks" % (n, n))
        lines = re.findall(r"^rank (\d+): ([\w.-]+): (\d+) steps, (\d+) skipped, (.*)$", r.stderr, re.M)
        for m in j["modes"]:
            per_rank = [l for l in lines if l[1] == m["name"]]
            if n > 1 and (sorted(int(l[0]) for l in per_rank) != list(range(n)) or
                          len(set(l[2:] for l in per_rank)) != 1 or int(per_rank[0][3]) != skips[m["name"]]):
                fail("%d ranks: %s: the ranks report %r (one process: %d skipped)" %
                     (n, m["name"], per_rank, skips[m["name"]]))
    # bfloat16 reduction: reproducible too, its error reported, and not the float32 model
    global ARGS
    base = ARGS
    ARGS = base[:base.index("--modes")] + ["--modes", "float32", "--reduce-dtype", "bfloat16"]
    r1, _ = run([single], os.path.join(out, "bf16-single"))
    r2, _ = run([mpiexec, "-np", "2", mpi], os.path.join(out, "bf16-np2"))
    if r1.returncode != 0 or r2.returncode != 0:
        fail("--reduce-dtype bfloat16: status %d / %d\n%s" % (r1.returncode, r2.returncode, r2.stderr[-2000:]))
    else:
        j = same_outputs(os.path.join(out, "bf16-single"), os.path.join(out, "bf16-np2"), "bfloat16 reduction, 2 ranks")
        m = j["modes"][0]
        if j["reduce_dtype"] != "bfloat16" or not m["grad_reduce_err_max"] > 0 or not m["grad_reduce_err_mean"] > 0:
            fail("bfloat16 reduction: no error against float32 reported: %r" % m)
        f32 = [x for x in ref["modes"] if x["name"] == "float32"][0]
        if m["losses"][1:] == f32["losses"][1:]:
            fail("bfloat16 reduction: the same losses as float32 (the reduce precision is not used)")
        print("bfloat16 reduction: relative gradient error %.3g max, %.3g mean" %
              (m["grad_reduce_err_max"], m["grad_reduce_err_mean"]))
    ARGS = base
    # a rank that throws ends the job
    env = dict(os.environ, MIXPREC_STUDY_FAIL_RANK="1")
    try:
        r, s = run([mpiexec, "-np", "3", mpi], os.path.join(out, "fail"), timeout=60, env=env)
        text = r.stdout + r.stderr
        print("a failing rank: status %d after %.1f s" % (r.returncode, s))
        if r.returncode == 0:
            fail("a failing rank: the job exited 0")
        if "mixprec::mpi: rank 1: injected failure" not in text:
            fail("a failing rank: no message naming rank 1:\n" + text[-2000:])
        if s > 20:
            fail("a failing rank: the job took %.1f s to end" % s)
    except subprocess.TimeoutExpired:
        fail("a failing rank: the job hung (killed after 60 s)")
    print("data-parallel study: %s" % ("ok" if failures == 0 else "%d failure(s)" % failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
