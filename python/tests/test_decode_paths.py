# SPDX-License-Identifier: MIT
"""from_bits and round decode through the C++ bulk path (mixprec::convert to float, widened exactly):
every code of every one-byte format and all 2^16 codes of float16 and bfloat16 against an
independent source: NumPy's float16, ml_dtypes' types, and for the two formats ml_dtypes lacks
(float4_e1m2, float8_ue4m3) their definitions written out here. Non-NaN values bit for bit (signed
zeros, float subnormals such as bfloat16's and e8m0's 2^-127); NaNs as NaNs with the source's sign."""
import numpy as np
import pytest

import mixprec

ml_dtypes = pytest.importorskip("ml_dtypes")

# mixprec name -> ml_dtypes name
ML = {"bfloat16": "bfloat16", "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
      "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz", "float8_e8m0fnu": "float8_e8m0fnu",
      "float6_e2m3fn": "float6_e2m3fn", "float6_e3m2fn": "float6_e3m2fn", "float4_e2m1fn": "float4_e2m1fn",
      "float8_e3m4": "float8_e3m4", "float8_e4m3": "float8_e4m3", "float8_e4m3b11fnuz": "float8_e4m3b11fnuz",
      "float8_ue5m3": "float8_e5m3fnu"}


def e1m2(c):
    """float4_e1m2 (format<1, 2, finite>, bias 0): sign bit 3, exponent bit 2, no NaN or infinity."""
    s = -1.0 if c & 8 else 1.0
    e, m = (c >> 2) & 1, c & 3
    return s * (m / 2.0 if e == 0 else 2.0 * (1 + m / 4.0))


def ue4m3(c):
    """float8_ue4m3 (unsigned, 4 exponent bits, bias 7, seven bits, 0x7f the NaN)."""
    if c == 0x7F:
        return np.nan
    e, m = c >> 3, c & 7
    return m / 8.0 * 2.0**-6 if e == 0 else (1 + m / 8.0) * 2.0 ** (e - 7)


def reference(fmt, codes):
    if fmt == "float16":
        return codes.view(np.float16).astype(np.float64)
    if fmt == "float4_e1m2":
        return np.array([e1m2(int(c)) for c in codes])
    if fmt == "float8_ue4m3":
        return np.array([ue4m3(int(c)) for c in codes])
    if not hasattr(ml_dtypes, ML[fmt]):
        pytest.skip("ml_dtypes has no " + ML[fmt])
    dt = np.dtype(getattr(ml_dtypes, ML[fmt]))
    with np.errstate(invalid="ignore"):  # the NaN codes
        return codes.astype(np.uint8 if dt.itemsize == 1 else np.uint16).view(dt).astype(np.float64)


def all_codes(fmt):
    bits = mixprec.finfo(fmt)["bits"]
    return np.arange(2**bits, dtype=np.uint16 if bits > 8 else np.uint8)


def same(got, want):
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(np.signbit(got[nan]), np.signbit(want[nan]))
    assert np.array_equal(got[~nan].view(np.uint64), want[~nan].view(np.uint64))  # signed zeros too


FORMATS = ["float16", "float4_e1m2", "float8_ue4m3"] + sorted(ML)


@pytest.mark.parametrize("fmt", FORMATS)
def test_from_bits_every_code(fmt):
    codes = all_codes(fmt)
    want = reference(fmt, codes)
    same(mixprec.from_bits(codes, fmt), want)
    # unaligned starts and lengths that are not multiples of a vector: the bulk path's head and tail
    for start in (1, 3, 17):
        same(mixprec.from_bits(codes[start:], fmt), want[start:])
    # many codes: every thread and block of the pass
    rng = np.random.default_rng(7)
    idx = rng.integers(0, codes.size, 200003)
    same(mixprec.from_bits(codes[idx], fmt), want[idx])


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_of_every_value(fmt):
    """round(value of code c) is that value: round's decode of the codes it produced."""
    codes = all_codes(fmt)
    want = reference(fmt, codes)
    finite = np.isfinite(want)
    same(mixprec.round(want[finite], fmt), want[finite])
    same(mixprec.round(want[finite].astype(np.float32), fmt), want[finite])


def test_float_subnormals_exact():
    """The values that are float subnormals come out exact (not flushed): e8m0's 2^-127 and
    bfloat16's smallest subnormals."""
    assert mixprec.from_bits(np.array([0], np.uint8), "float8_e8m0fnu")[0] == 2.0**-127
    got = mixprec.from_bits(np.array([1, 0x8001, 0x7F], np.uint16), "bfloat16")
    assert list(got) == [2.0**-133, -(2.0**-133), 127 * 2.0**-133]
