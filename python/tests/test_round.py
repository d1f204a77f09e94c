# SPDX-License-Identifier: MIT
"""round() is to_bits then the exact decode in one pass: the same bits as ml_dtypes' values of its
astype (nearest-even), as from_bits(to_bits(...)) in every mode (stochastic: the same random bits
for element i at offset + i, across the pass's blocks and threads), and ml_dtypes 0.7's
float8_e5m3fnu is mixprec's float8_ue5m3 code for code."""
import numpy as np
import pytest

import mixprec

ml_dtypes = pytest.importorskip("ml_dtypes")

ML = {"bfloat16": "bfloat16", "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
      "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz", "float6_e2m3fn": "float6_e2m3fn",
      "float6_e3m2fn": "float6_e3m2fn", "float4_e2m1fn": "float4_e2m1fn", "float8_e3m4": "float8_e3m4",
      "float8_e4m3": "float8_e4m3", "float8_e4m3b11fnuz": "float8_e4m3b11fnuz", "float8_ue5m3": "float8_e5m3fnu"}


def ml_version():
    return tuple(int(p) for p in ml_dtypes.__version__.split(".")[:2])


needs_07 = pytest.mark.skipif(not hasattr(ml_dtypes, "float8_e5m3fnu") or ml_version() < (0, 7),
                              reason="ml_dtypes < 0.7 (no float8_e5m3fnu; float64 rounded through float32)")


def inputs(dtype, n=40000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))
    specials = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 448.0, 464.0, 57344.0, 65504.0, 114688.0, 1e30, -1e-30]
    return np.concatenate([specials, x]).astype(dtype)


def same(a, b):
    return np.array_equal(np.asarray(a, np.float64).view(np.uint64), np.asarray(b, np.float64).view(np.uint64))


@pytest.mark.parametrize("fmt", sorted(ML))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_is_ml_dtypes_values(fmt, dtype):
    if fmt == "float8_ue5m3" and not hasattr(ml_dtypes, "float8_e5m3fnu"):
        pytest.skip("ml_dtypes < 0.7 has no float8_e5m3fnu")
    if dtype == np.float64 and ml_version() < (0, 7):
        pytest.skip("ml_dtypes < 0.7 rounds float64 through float32")
    x = inputs(dtype)
    want = x.astype(getattr(ml_dtypes, ML[fmt])).astype(np.float64)
    got = mixprec.round(x, fmt)
    ok = (got == want) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), "x=%r got %r want %r" % (x[~ok][0], got[~ok][0], want[~ok][0])


@pytest.mark.parametrize("fmt", mixprec.formats())
def test_round_is_from_bits_of_to_bits_every_mode(fmt):
    # lengths across the pass's 4096-element steps and 16384-element blocks, float32 and float64
    for dtype, n in ((np.float32, 4096 * 9 + 5), (np.float64, 16384 + 1), (np.float32, 3)):
        x = inputs(dtype, n, seed=n)
        for mode in mixprec.ROUNDING_MODES:
            for overflow in mixprec.OVERFLOW_POLICIES:
                kw = dict(seed=99, offset=1000) if mode == "stochastic" else {}
                want = mixprec.from_bits(mixprec.to_bits(x, fmt, mode, overflow, **kw), fmt)
                assert same(mixprec.round(x, fmt, mode, overflow, **kw), want), (fmt, dtype, mode, overflow)
    assert mixprec.round(np.zeros((0, 3), np.float32), fmt).shape == (0, 3)
    assert mixprec.round(np.ones((2, 3)), fmt).shape == (2, 3)


@needs_07
def test_float8_e5m3fnu_is_float8_ue5m3():
    dt = ml_dtypes.float8_e5m3fnu
    f = ml_dtypes.finfo(dt)
    assert (int(f.nexp), int(f.nmant), float(f.max), float(f.smallest_subnormal)) == (5, 3, 114688.0, 2.0**-17)
    codes = np.arange(256, dtype=np.uint8)
    want = codes.view(dt).astype(np.float64)
    got = mixprec.from_bits(codes, "float8_ue5m3")
    assert ((got == want) | (np.isnan(got) & np.isnan(want))).all()
    assert np.isnan(got[255]) and np.isnan(want[255]) and got[254] == 114688.0
    for dtype in (np.float32, np.float64):  # encode: negatives (NaN), overflow, ties, subnormals
        x = np.concatenate([inputs(dtype, 100000, seed=7), -inputs(dtype, 1000, seed=8),
                            (np.arange(1, 512) * 2.0**-18).astype(dtype)])
        assert np.array_equal(mixprec.to_bits(x, "float8_ue5m3"), x.astype(dt).view(np.uint8))
        assert np.array_equal(mixprec.to_bits(x, "float8_e5m3fnu"), x.astype(dt).view(np.uint8))  # its name too
    # ml_dtypes arrays of the type are read exactly through their codes
    v = np.array([0.5, 3.0, 114688.0], dt)
    assert np.array_equal(mixprec.round(v, "float16"), [0.5, 3.0, np.inf])
    assert mixprec.finfo("float8_ue5m3")["max"] == float(f.max)
    assert mixprec.finfo("float8_ue5m3")["eps"] == float(f.eps)


@needs_07
@pytest.mark.parametrize("fmt", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"])
def test_ml_dtypes_07_rounds_float64_once(fmt):
    # just above a tie of fmt by 2^-40: through float32 the excess is lost and the tie goes to even
    # (down); rounded once it goes up. ml_dtypes 0.7 and mixprec both round once.
    m = mixprec.finfo(fmt)["nmant"]
    k = np.arange(0, 2**m, 2)  # even last bits: nearest-even would round the bare tie down
    x = (1 + (2 * k + 1) * 2.0 ** -(m + 1) + 2.0**-40)
    dt = getattr(ml_dtypes, fmt)
    once = x.astype(dt).view(np.uint8 if np.dtype(dt).itemsize == 1 else np.uint16)
    twice = x.astype(np.float32).astype(dt).view(once.dtype)
    assert np.array_equal(mixprec.to_bits(x, fmt), once)
    assert (once == twice + 1).all()
    if fmt == "bfloat16":  # the example of docs/pages/python.md
        assert mixprec.to_bits(np.array([1 + 2.0**-8 + 2.0**-30]), "bfloat16")[0] == 0x3F81
        assert np.array([1 + 2.0**-8 + 2.0**-30]).astype(dt).view(np.uint16)[0] == 0x3F81


def test_format_aliases_are_the_cpp_table():
    aliases = mixprec.format_aliases()
    assert aliases["half"] == "float16" and aliases["bf16"] == "bfloat16" and aliases["e4m3"] == "float8_e4m3fn"
    assert aliases["float8_e5m3fnu"] == "float8_ue5m3"
    assert not set(aliases) & set(mixprec.formats()) and set(aliases.values()) <= set(mixprec.formats())
    x = inputs(np.float32, 20000, seed=3)
    assert np.array_equal(mixprec.to_bits(x, "half"), x.astype(np.float16).view(np.uint16))  # NumPy's float16
    assert np.array_equal(mixprec.to_bits(x, "bf16"), x.astype(ml_dtypes.bfloat16).view(np.uint16))
    assert np.array_equal(mixprec.to_bits(x, "e4m3"), x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
    assert mixprec.finfo("binary16")["max"] == 65504.0
    assert mixprec.from_string("0.1", "fp16") == 0x2E66 and mixprec.to_string(0x3C01, "half") == "1.001"
    assert "0.0999755859375" in mixprec.explain(0.1, "half")
    q = mixprec.block_quantize(np.ones((1, 32), np.float32), "mx", element="e2m1")
    assert q.params["element"] == "float4_e2m1fn"
    with pytest.raises(ValueError, match="mixprec.to_bits: unknown format 'halfs'"):
        mixprec.to_bits(x, "halfs")


@pytest.mark.parametrize("text, fmt, err", [("1e400", "float16", "infinite"), ("70000", "float16", "infinite"),
                                            ("500", "float8_e4m3fn", "undefined (NaN)"),
                                            ("nan", "float16", "undefined (NaN)")])
def test_explain_errors_of_overflow_and_nan_are_not_zero(text, fmt, err):
    # a finite number stored as an infinity is infinitely wrong; a NaN stored (or read) has no error value
    line = [l for l in mixprec.explain(text, fmt).splitlines() if l.strip().startswith("error")][0]
    assert "%s relative" % err in line and " 0 relative" not in line, line
