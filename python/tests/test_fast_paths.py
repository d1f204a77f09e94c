# SPDX-License-Identifier: MIT
"""The bulk kernel's FP8 fast path (mixprec::convert through detail/simd_narrow8.hpp: float32 and
float64 -> float8_e4m3fn / float8_e5m2, nearest-even, overflow "ieee" and "saturate") gives the bits
of the C++ scalar element loop (fast=False). All 2^32 float32 patterns: the C++ test
tests/exhaustive/test_narrow8_all_floats.cpp and python/check_fp8_exhaustive.py; here a sample:
every 4099th pattern, every float16 value, the neighbours of every FP8 value and midpoint."""
import numpy as np
import pytest

import mixprec
from mixprec import _core


def patterns():
    every = (np.arange(0, 1 << 32, 4099, dtype=np.uint64)).astype(np.uint32).view(np.float32)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    fp8 = mixprec.from_bits(np.arange(256, dtype=np.uint8), "float8_e5m2")
    fp8 = np.concatenate([fp8, mixprec.from_bits(np.arange(256, dtype=np.uint8), "float8_e4m3fn")])
    fp8 = fp8[np.isfinite(fp8)]
    mids = np.sort(np.unique(fp8))
    mids = ((mids[1:] + mids[:-1]) / 2).astype(np.float32)
    near = np.concatenate([fp8.astype(np.float32), mids])
    near = np.concatenate([near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(-np.inf))])
    return np.concatenate([every, halves, near, -near])


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float4_e2m1fn"])
@pytest.mark.parametrize("policy", [0, 1])  # overflow ieee, saturate
def test_fp8_fast_path_is_the_scalar_path(fmt, policy):
    x = patterns()
    for n in (len(x), 17, 1):  # the masked tail too
        fast = _core.to_bits_f32(x[:n], fmt, 0, policy, 0, 0, True)
        slow = _core.to_bits_f32(x[:n], fmt, 0, policy, 0, 0, False)
        bad = np.flatnonzero(fast != slow)
        assert bad.size == 0, "x=%r (bits %#x): fast %#x scalar %#x" % (
            x[bad[0]], x[bad[0]:bad[0] + 1].view(np.uint32)[0], fast[bad[0]], slow[bad[0]])


def test_thread_count_switch():
    x = np.random.default_rng(0).standard_normal(300000).astype(np.float32)
    before = mixprec.get_num_threads()
    try:
        mixprec.set_num_threads(1)
        assert mixprec.get_num_threads() == 1
        one = mixprec.to_bits(x, "float8_e4m3fn")
    finally:
        mixprec.set_num_threads(0)
    assert mixprec.get_num_threads() == before
    assert np.array_equal(one, mixprec.to_bits(x, "float8_e4m3fn"))


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float4_e2m1fn"])
@pytest.mark.parametrize("policy", [0, 1])
def test_fp8_fast_path_float64(fmt, policy):
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 2**63, 1 << 20, dtype=np.int64).view(np.uint64) * np.uint64(2)
    raw |= rng.integers(0, 2, 1 << 20).astype(np.uint64)
    with np.errstate(invalid="ignore"):  # signaling NaN patterns
        x32 = patterns().astype(np.float64)
    near = np.concatenate([np.nextafter(x32, np.inf), np.nextafter(x32, -np.inf)])  # one double ulp off
    # doubles near FP8 exponents: the whole range of shifts
    small = np.ldexp(1.0 + rng.random(1 << 16), rng.integers(-30, 20, 1 << 16)) * rng.choice([-1, 1], 1 << 16)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308])
    x = np.concatenate([raw.view(np.float64), x32, near, small, specials])
    for n in (len(x), 7, 1):
        fast = _core.to_bits_f64(x[:n], fmt, 0, policy, 0, 0, True)
        slow = _core.to_bits_f64(x[:n], fmt, 0, policy, 0, 0, False)
        bad = np.flatnonzero(fast != slow)
        assert bad.size == 0, "x=%r: fast %#x scalar %#x" % (x[bad[0]], fast[bad[0]], slow[bad[0]])
