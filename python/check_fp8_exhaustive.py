#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The FP8 bulk fast path (mixprec::convert, detail/simd_narrow8.hpp) against the C++ scalar element loop on ALL 2^32
float32 bit patterns, for float8_e4m3fn and float8_e5m2 (nearest-even, overflow "ieee"). About two
minutes on 2 cores; not part of pytest (python/tests/test_fast_paths.py runs a sample).

    PYTHONPATH=<dir holding the built mixprec> python3 python/check_fp8_exhaustive.py
"""
import sys
import time

import numpy as np

from mixprec import _core


def main():
    t0 = time.time()
    bad = {"float8_e4m3fn": 0, "float8_e5m2": 0}
    step = 1 << 26
    for start in range(0, 1 << 32, step):
        x = np.arange(start, start + step, dtype=np.uint64).astype(np.uint32).view(np.float32)
        for f in bad:
            fast = _core.to_bits_f32(x, f, 0, 0, 0, 0, True)
            slow = _core.to_bits_f32(x, f, 0, 0, 0, 0, False)
            bad[f] += int((fast != slow).sum())
    print("all 2^32 float32 patterns, fast path vs scalar converter: mismatches %s (%.0f s)" % (bad, time.time() - t0))
    return 1 if any(bad.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
