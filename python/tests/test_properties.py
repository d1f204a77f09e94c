# SPDX-License-Identifier: MIT
"""Property tests (hypothesis): round trips of every code, monotonicity of rounding in every
deterministic mode, directed modes bracketing the input, stochastic rounding unbiased within
bounds; for the built-in formats and random user formats."""
import math

import numpy as np
import pytest

import mixprec

hypothesis = pytest.importorskip("hypothesis", reason="NOTICE: hypothesis not installed: property tests skipped "
                                                       "(pip install hypothesis)")
from hypothesis import given, settings, strategies as st  # noqa: E402

DETERMINISTIC = [m for m in mixprec.ROUNDING_MODES if m != "stochastic"]
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None)


@st.composite
def user_formats(draw):
    enc = draw(st.sampled_from(mixprec.ENCODINGS))
    e = draw(st.integers(1, 8))
    if enc == "exponent_only":
        return mixprec.format(draw(st.integers(2, 8)), 0, enc)
    m = draw(st.integers(1 if enc == "ieee" else 0, 10))
    signed = True if enc == "fnuz" else draw(st.booleans())
    default = (1 << (e - 1)) - 1 + (enc == "fnuz")
    bias = draw(st.integers(default - 2, default + 2))
    try:
        return mixprec.format(e, m, enc, bias, signed)
    except ValueError:  # e.g. the bias leaves 1 out of range
        hypothesis.assume(False)


formats_any = st.one_of(st.sampled_from([f for f in mixprec.formats()]), user_formats())


def bits_of(fmt):
    return mixprec.finfo(fmt)["bits"] if isinstance(fmt, str) else fmt.bits


def storage(fmt):
    return "uint%d" % mixprec.finfo(fmt)["storage_bits"]


@SETTINGS
@given(formats_any, st.data())
def test_every_value_round_trips(fmt, data):
    nbits = bits_of(fmt)
    pad = 13 if fmt == "tf32" else 0
    codes = np.array(data.draw(st.lists(st.integers(0, (1 << nbits) - 1), min_size=1, max_size=64)),
                     np.uint64) << np.uint64(pad)
    codes = codes.astype(storage(fmt))
    v = mixprec.from_bits(codes, fmt)
    for mode in DETERMINISTIC:
        back = mixprec.to_bits(v, fmt, mode)
        again = mixprec.from_bits(back, fmt)
        ok = (again == v) | (np.isnan(again) & np.isnan(v))
        assert ok.all(), (fmt, mode, codes[~ok][:3])
        # the code itself comes back except for the second zero / NaN patterns
        same = (back == codes) | (v == 0) | np.isnan(v)
        assert same.all()


finite = st.floats(allow_nan=False, allow_infinity=True, width=64)


@SETTINGS
@given(formats_any, st.lists(finite, min_size=2, max_size=40))
def test_rounding_is_monotone_and_brackets(fmt, xs):
    x = np.sort(np.array(xs))
    lo = mixprec.round(x, fmt, "downward")
    hi = mixprec.round(x, fmt, "upward")
    for mode in DETERMINISTIC:
        r = mixprec.round(x, fmt, mode, "saturate")
        r = r[~np.isnan(r)]
        assert (np.diff(r) >= 0).all(), (fmt, mode)
    info = mixprec.finfo(fmt)
    inside = (x >= info["min"]) & (x <= info["max"]) & ~np.isnan(lo) & ~np.isnan(hi)
    assert (lo[inside] <= x[inside]).all() and (x[inside] <= hi[inside]).all()
    near = mixprec.round(x, fmt)[inside]
    assert ((near == lo[inside]) | (near == hi[inside])).all()


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]),
       st.floats(0.01, 0.99), st.integers(-2, 2), st.integers(0, 2**64 - 1))
def test_stochastic_rounding_is_unbiased(fmt, frac, exp, seed):
    one = np.array([2.0**exp])
    lo = float(mixprec.round(one, fmt)[0])
    hi = float(mixprec.round(np.nextafter(one, 2 * one), fmt, "upward")[0])
    hypothesis.assume(hi > lo)
    x = lo + frac * (hi - lo)
    n = 4000
    r = mixprec.round(np.full(n, x), fmt, "stochastic", seed=seed)
    assert set(np.unique(r)) <= {lo, hi}
    p = (x - lo) / (hi - lo)  # P(up); 32 random bits: truncation error below 2^-32
    sigma = math.sqrt(p * (1 - p) / n)
    assert abs(np.mean(r == hi) - p) < 6 * sigma + 2.0**-30
