# SPDX-License-Identifier: MIT
"""Tests of the mixprec Python package against independent references: ml_dtypes and NumPy
(nearest-even), and an exact rational reference written here (every deterministic mode)."""
import math
import os
import shutil
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import mixprec

ml_dtypes = pytest.importorskip("ml_dtypes")

ML_FORMATS = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
              "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "float8_e3m4", "float8_e4m3",
              "float8_e4m3b11fnuz"]


def battery(seed=1):
    """float32 inputs: specials, every float16 value, powers of two, random magnitudes."""
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 448.0, 464.0, 480.0, 57344.0, 61440.0, 65504.0,
                         65520.0, 1e-45, 3.4e38, 6.0, 7.5, 28.0, 0.25, 2.0**-127, 2.0**-128], np.float32)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    pow2 = np.ldexp(np.float32(1), np.arange(-149, 128)).astype(np.float32)
    rand = (rng.standard_normal(200000) * np.exp2(rng.integers(-40, 40, 200000))).astype(np.float32)
    x = np.concatenate([specials, halves, pow2, rand])
    return x[~np.isnan(x)]


@pytest.mark.parametrize("fmt", ML_FORMATS)
def test_nearest_even_matches_ml_dtypes(fmt):
    x = battery()
    dt = getattr(ml_dtypes, fmt)
    if fmt == "float8_e8m0fnu":
        x = np.abs(x[x != 0])  # e8m0 has no zero and no sign; ml_dtypes differs on those (NaN)
    want = x.astype(dt).view("uint%d" % (8 * np.dtype(dt).itemsize))
    got = mixprec.to_bits(x, fmt)
    wv, gv = want.view(dt).astype(np.float64), mixprec.from_bits(got, fmt)
    same = (got == want) | (np.isnan(wv) & np.isnan(gv))
    assert same.all(), "first mismatch at %r: want 0x%x got 0x%x" % (x[~same][0], want[~same][0], got[~same][0])


def test_float16_matches_numpy():
    x = battery(2)
    assert (mixprec.to_bits(x, "float16") == x.astype(np.float16).view(np.uint16)).all()
    codes = np.arange(65536, dtype=np.uint16)
    v = mixprec.from_bits(codes, "float16")
    ref = codes.view(np.float16).astype(np.float64)
    assert ((v == ref) | (np.isnan(v) & np.isnan(ref))).all()


# --- an exact reference for IEEE-style formats (float16, bfloat16), every deterministic mode ---

IEEE = {"float16": (5, 10), "bfloat16": (8, 7)}


def ref_round(x: float, exp_bits: int, man_bits: int, mode: str, overflow: str) -> float:
    if x == 0 or math.isinf(x):
        return x
    bias = 2 ** (exp_bits - 1) - 1
    emin, emax = 1 - bias, bias
    maxv = Fraction(2 ** (man_bits + 1) - 1, 2 ** man_bits) * Fraction(2) ** emax
    a = Fraction(abs(x))
    neg = x < 0
    e = max(math.floor(math.log2(abs(x))), emin)
    while Fraction(2) ** e > a and e > emin:  # log2 rounding guard
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    q = Fraction(2) ** (e - man_bits)
    lo = (a // q) * q
    hi = lo + q
    if lo == a:
        r = a
    else:
        up_mag = {"nearest_even": a - lo > hi - a or (a - lo == hi - a and (lo / q) % 2 == 1),
                  "nearest_away": a - lo >= hi - a,
                  "toward_zero": False,
                  "upward": not neg,
                  "downward": neg,
                  "to_odd": (lo / q) % 2 == 0}[mode]
        r = hi if up_mag else lo
    if r > maxv:
        away = mode in ("nearest_even", "nearest_away") or (mode == "upward" and not neg) or (mode == "downward" and neg)
        if overflow == "saturate" or not away:
            r = maxv
        else:
            return -math.inf if neg else math.inf
    return float(-r if neg else r)


@pytest.mark.parametrize("fmt", sorted(IEEE))
@pytest.mark.parametrize("mode", mixprec.ROUNDING_MODES[:6])
@pytest.mark.parametrize("overflow", mixprec.OVERFLOW_POLICIES)
def test_every_mode_against_exact_reference(fmt, mode, overflow):
    rng = np.random.default_rng(hash((fmt, mode, overflow)) % 2**32)
    e, m = IEEE[fmt]
    x = rng.standard_normal(3000) * np.exp2(rng.integers(-2 ** (e - 1) - m - 3, 2 ** (e - 1) + 2, 3000))
    ties = (1 + (2 * np.arange(1, 40) + 1) * 2.0 ** -(m + 1)) * np.exp2(rng.integers(-5, 5, 39))  # exact ties
    x = np.concatenate([x, ties, -ties, [65504.0, 65519.99, 65520.0, 1e300, -1e300, 2.0**-24, 2.0**-25, 3 * 2.0**-26]])
    got = mixprec.round(x, fmt, rounding=mode, overflow=overflow)  # float64 inputs: one rounding
    want = np.array([ref_round(float(v), e, m, mode, overflow) for v in x])
    bad = got != want
    assert not bad.any(), "x=%r: got %r want %r" % (x[bad][0], got[bad][0], want[bad][0])


def test_float64_rounds_once_not_through_float32():
    # 1 + 2^-11 + 2^-40 rounds up in float16 (above the tie); through float32 it becomes the tie 1 + 2^-11
    # and rounds to even (down). mixprec rounds once, as NumPy's float64 -> float16 astype does.
    x = np.array([1 + 2.0**-11 + 2.0**-40])
    assert mixprec.to_bits(x, "float16")[0] == 0x3C01
    assert x.astype(np.float16).view(np.uint16)[0] == 0x3C01
    assert x.astype(np.float32).astype(np.float16).view(np.uint16)[0] == 0x3C00


def test_stochastic_is_reproducible_and_unbiased():
    x = np.full(20000, 1 + 2.0**-9, dtype=np.float32)  # between 1 and 1 + 2^-7 in bfloat16, 1/4 of the way
    a = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=42)
    b = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=42)
    c = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=43)
    assert (a == b).all() and (a != c).any()
    assert set(np.unique(a).tolist()) == {0x3F80, 0x3F81}
    assert abs((a == 0x3F81).mean() - 0.25) < 0.02
    # offset shifts the stream: element i with offset k uses counter k + i
    d = mixprec.to_bits(x[:100], "bfloat16", rounding="stochastic", seed=42, offset=5)
    assert (d[:95] == a[5:100]).all()


def test_stochastic_matches_cpp(tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler to build the C++ side of the comparison")
    include = os.path.join(os.path.dirname(__file__), "..", "..", "include")
    src = tmp_path / "sr.cpp"
    src.write_text(r"""
#include <mixprec/kernels/convert.hpp>
#include <cstdio>
#include <vector>
int main() {
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = 1.0f + static_cast<float>(i) / 512.0f;
  std::vector<mixprec::bfloat16> y(64);
  mixprec::convert(mixprec::exec::seq, x, y, mixprec::rounding::stochastic, mixprec::overflow::ieee, 7, 3);
  for (auto v : y) std::printf("%u\n", static_cast<unsigned>(v.bits()));
}
""")
    exe = tmp_path / "sr"
    subprocess.run([cxx, "-std=c++17", "-O1", "-I", include, str(src), "-o", str(exe), "-pthread"], check=True)
    want = np.array([int(line) for line in subprocess.run([str(exe)], check=True, capture_output=True,
                                                         text=True).stdout.split()], np.uint16)
    x = (1.0 + np.arange(64) / 512.0).astype(np.float32)
    got = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=7, offset=3)
    assert (got == want).all()


@pytest.mark.parametrize("fmt", ["float16"] + ML_FORMATS)
def test_finfo_matches_ml_dtypes(fmt):
    f = mixprec.finfo(fmt)
    ref = np.finfo(np.float16) if fmt == "float16" else ml_dtypes.finfo(getattr(ml_dtypes, fmt))
    for key in ("bits", "nmant", "machep", "negep", "minexp", "maxexp", "precision"):
        assert f[key] == int(getattr(ref, key)), key
    for key in ("eps", "epsneg", "max", "min", "tiny", "smallest_subnormal", "resolution"):
        assert f[key] == float(getattr(ref, key)), key


def test_inputs_of_other_types():
    x16 = np.array([0.1, 2.5, -3.0], np.float16)
    assert (mixprec.to_bits(x16, "bfloat16") == mixprec.to_bits(x16.astype(np.float32), "bfloat16")).all()
    e5 = np.array([0.5, 3.0, -57344.0], ml_dtypes.float8_e5m2)
    assert (mixprec.round(e5, "float8_e4m3fn", overflow="saturate") == [0.5, 3.0, -448.0]).all()
    assert (mixprec.to_bits([[1, 2], [3, 4]], "float16").shape == (2, 2))
    strided = np.arange(10, dtype=np.float32)[::2]  # non-contiguous: copied
    assert (mixprec.round(strided, "bfloat16") == [0, 2, 4, 6, 8]).all()
    out = mixprec.to_bits(np.float32([1.5]), "float8_e4m3fn").view(ml_dtypes.float8_e4m3fn)  # no copy
    assert float(out[0]) == 1.5


def test_torch_tensor_input():
    torch = pytest.importorskip("torch")
    t = torch.linspace(-3, 3, 101, dtype=torch.float32)
    assert (mixprec.to_bits(t, "bfloat16") == t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)).all()


def test_text():
    assert mixprec.from_string("1.00048828125000000000000001", "float16") == 0x3C01  # once, not via double
    assert mixprec.from_string("0.1", "float16", rounding="upward") == 0x2E67
    assert mixprec.to_string(0x3C01, "float16") == "1.001"
    assert mixprec.to_string(0x4049, "bfloat16") == "3.14"
    assert "why       overflow: |x| > max 448" in mixprec.explain("500", "float8_e4m3fn")
    assert "0.0999755859375" in mixprec.explain(0.1, "float16")


def test_errors_are_python_exceptions():
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="unknown format"):
        mixprec.to_bits(x, "float7")
    with pytest.raises(ValueError, match="unknown rounding mode"):
        mixprec.to_bits(x, "float16", rounding="nearest")
    with pytest.raises(ValueError, match="unknown overflow"):
        mixprec.to_bits(x, "float16", overflow="clamp")
    with pytest.raises(ValueError, match="needs a seed"):
        mixprec.to_bits(x, "float16", rounding="stochastic")
    with pytest.raises(ValueError, match="seed"):
        mixprec.to_bits(x, "float16", rounding="stochastic", seed=-1)
    with pytest.raises(TypeError):
        mixprec.to_bits(np.array(["a"]), "float16")
    with pytest.raises(ValueError, match="code 300 does not fit"):  # a bad value, whatever its integer dtype
        mixprec.from_bits(np.array([300]), "float8_e4m3fn")
    with pytest.raises(ValueError, match="not a number"):
        mixprec.from_string("1.2.3", "float16")
    with pytest.raises(ValueError):
        mixprec.to_string(1 << 20, "float16")
    with pytest.raises(ValueError):  # a code above the format's width
        mixprec.from_bits(np.array([0x20], np.uint8), "float4_e2m1fn")


def test_loss_scale_presets_follow_the_frameworks_rules():
    s = mixprec.LossScale("pytorch")  # torch.amp.GradScaler: 2^16, x0.5 on inf, x2 after 2000 clean steps
    assert s.scale == 65536.0
    assert s.update(True) == 32768.0
    for _ in range(1999):
        s.update(False)
    assert s.scale == 32768.0 and s.growth_tracker == 1999
    assert s.update(False) == 65536.0 and s.growth_tracker == 0
    k = mixprec.LossScale("keras")  # Keras LossScaleOptimizer: initial 2^15, dynamic_growth_steps 2000
    assert k.scale == 32768.0 and k.update(True) == 16384.0
    d = mixprec.LossScale("deepspeed")  # initial 2^16, hysteresis 2: the first overflow only uses up the hysteresis
    assert d.scale == 65536.0
    assert d.update(True) == 65536.0 and d.update(True) == 32768.0
    with pytest.raises(ValueError, match="unknown loss-scale preset"):
        mixprec.LossScale("caffe")


def test_autocast_tables_as_data():
    cuda = mixprec.autocast_ops("cuda")
    # torch/csrc/autograd/autocast_mode.cpp (CUDA): mm lower precision, softmax fp32_set_opt_dtype,
    # dot promote, binary_cross_entropy banned
    assert cuda["mm"] == "lower_precision" and cuda["softmax"] == "fp32_set_opt_dtype" and cuda["dot"] == "promote"
    assert cuda["binary_cross_entropy"] == "banned"
    cpu = mixprec.autocast_ops("cpu")
    assert cpu["conv2d"] == "lower_precision" and cpu["binary_cross_entropy"] == "fp32"
    effective = mixprec.autocast_ops("cuda", effective=True)
    assert "multi_head_attention_forward" not in cuda and effective["multi_head_attention_forward"] == "lower_precision"
    with pytest.raises(ValueError):
        mixprec.autocast_ops("tpu")
