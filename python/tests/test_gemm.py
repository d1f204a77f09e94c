# SPDX-License-Identifier: MIT
"""mixprec.gemm and mixprec.block_scaled_gemm against exact references: NumPy float64 where every
sum is exact, a sequential-fma reference in exact rational arithmetic (rounded once per step),
and the block-scaled GEMM's formula in NumPy float32 arithmetic (one IEEE rounding per operation)."""
import math
import os
from fractions import Fraction

import numpy as np
import pytest

import mixprec

F32 = mixprec.format(8, 23)  # float32's layout: from_string rounds text once to float32


def round_f32(q: Fraction) -> float:
    """q rounded once to float32 (nearest-even), via its exact decimal text."""
    d = q.denominator
    k = d.bit_length() - 1
    assert d == 1 << k
    code = mixprec.from_string("%de-%d" % (q.numerator * 5**k, k), F32)
    return float(np.uint32(code).view(np.float32))


def fma_reference(a, b, acc_f32=True):
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), np.float32 if acc_f32 else np.float64)
    for i in range(m):
        for j in range(n):
            acc = Fraction(0)
            for p in range(k):
                exact = Fraction(float(a[i, p])) * Fraction(float(b[p, j])) + acc
                acc = Fraction(round_f32(exact) if acc_f32 else float(exact))  # float(Fraction) rounds once
            c[i, j] = float(acc)
    return c


def test_exact_sums_match_numpy_float64():
    rng = np.random.default_rng(0)
    a = rng.integers(-8, 9, (37, 300)).astype(np.float32)
    b = rng.integers(-8, 9, (300, 29)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)  # |sums| < 2^24: every step exact
    for fmt in (None, "bfloat16", "float16", "float8_e4m3fn"):
        for acc in ("float32", "float64"):
            c = mixprec.gemm(a, b, format=fmt, accumulate=acc)
            assert np.array_equal(c, want), (fmt, acc)
    assert np.array_equal(mixprec.gemm(a, b, format="bfloat16", algorithm="bf16_dot2"), want)


@pytest.mark.parametrize("acc", ["float32", "float64"])
def test_sequential_fma_bit_for_bit(acc):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 37)) * np.exp2(rng.integers(-12, 12, (3, 37)))).astype(np.float32)
    b = (rng.standard_normal((37, 4)) * np.exp2(rng.integers(-12, 12, (37, 4)))).astype(np.float32)
    got = mixprec.gemm(a, b, accumulate=acc)
    want = fma_reference(a, b, acc == "float32")
    assert np.array_equal(got.view(np.uint32 if acc == "float32" else np.uint64),
                          want.view(np.uint32 if acc == "float32" else np.uint64))


def test_threads_formats_and_output_rounding():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((70, 200)).astype(np.float32)
    b = rng.standard_normal((200, 90)).astype(np.float32)
    c = mixprec.gemm(a, b, format="bfloat16")
    assert np.array_equal(c.view(np.uint32), mixprec.gemm(a, b, format="bfloat16", threads=1).view(np.uint32))
    ab, bb = mixprec.round(a, "bfloat16").astype(np.float32), mixprec.round(b, "bfloat16").astype(np.float32)
    assert np.array_equal(c.view(np.uint32), mixprec.gemm(ab, bb).view(np.uint32))
    for mode in ("nearest_even", "upward", "stochastic"):
        kw = dict(seed=3, offset=5) if mode == "stochastic" else {}  # a seed with another mode is an error
        got = mixprec.gemm(a, b, format="bfloat16", out="float8_e4m3fn", rounding=mode, **kw)
        assert np.array_equal(got, mixprec.round(c, "float8_e4m3fn", mode, **kw), equal_nan=True)


def test_matmul_precision():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((20, 70)).astype(np.float32)
    b = rng.standard_normal((70, 30)).astype(np.float32)
    bits = lambda c: c.view(np.uint32)
    highest = mixprec.gemm(a, b)
    assert np.array_equal(bits(mixprec.gemm(a, b, precision="medium")), bits(mixprec.gemm(a, b, format="bfloat16")))
    for mode, rnd in (("tf32_nearest_away", "nearest_away"), ("tf32_nearest_even", "nearest_even")):
        want = mixprec.gemm(mixprec.round(a, "tf32", rnd), mixprec.round(b, "tf32", rnd))
        assert np.array_equal(bits(mixprec.gemm(a, b, precision="high", high_mode=mode)), bits(want))
    x3 = mixprec.gemm(a, b, precision="high", high_mode="bf16x3")
    med = mixprec.gemm(a, b, precision="medium")
    assert np.abs(x3 - highest).max() < np.abs(med - highest).max() / 100
    assert np.array_equal(bits(mixprec.gemm(a, b)), bits(highest))  # the setting was restored
    with pytest.raises(ValueError, match="precision"):
        mixprec.gemm(a, b, precision="low")


def test_bf16_dot2_flushes_subnormals():
    a = np.array([[2.0**-130]], np.float32)  # a bfloat16 subnormal
    b = np.array([[1.0]], np.float32)
    assert mixprec.gemm(a, b, format="bfloat16")[0, 0] == np.float32(2.0**-130)
    assert mixprec.gemm(a, b, format="bfloat16", algorithm="bf16_dot2")[0, 0] == 0


def test_gemm_errors():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="inner sizes"):
        mixprec.gemm(a, a)
    with pytest.raises(ValueError, match="bf16_dot2"):
        mixprec.gemm(a, a.T, algorithm="bf16_dot2")
    with pytest.raises(ValueError, match="not all float32"):
        mixprec.gemm(np.full((2, 3), 0.1), a.T, format=mixprec.format(11, 30))
    with pytest.raises(ValueError, match="accumulate"):
        mixprec.gemm(a, a.T, accumulate="float16")
    with pytest.raises(ValueError, match="2-D"):
        mixprec.gemm(np.ones(3), np.ones(3))


# --- block-scaled GEMM: the header's formula in NumPy float32 arithmetic ---

def trunc_to(v, e):
    return math.ldexp(math.trunc(math.ldexp(v, -e)), e)


def ilogb(v):
    return math.frexp(v)[1] - 1


def truncated_group(acc, p, bits):
    nz = [v for v in [acc] + list(p) if v != 0]
    if not nz:
        return acc
    q = max(ilogb(v) for v in nz) - bits
    s = trunc_to(acc, q) + sum(trunc_to(v, q) for v in p)
    return 0.0 if s == 0 else trunc_to(s, ilogb(s) - bits)


def block_gemm_reference(qa, qb, fmt, model, bits=23, group=1, promotion=0):
    pa = mixprec.from_bits(qa.elements, fmt)
    pb = mixprec.from_bits(qb.elements, fmt)
    sa = mixprec.from_bits(qa.scales, "float8_e8m0fnu").astype(np.float32)
    sb = mixprec.from_bits(qb.scales, "float8_e8m0fnu").astype(np.float32)
    kb = qa.info["block"][1]
    chunk = promotion or kb
    m, k = pa.shape
    n = pb.shape[1]
    c = np.zeros((m, n), np.float32)
    f = np.float32
    for i in range(m):
        for j in range(n):
            acc32 = f(0)
            for k0 in range(0, k, chunk):
                if model == "fp32":
                    s = f(0)
                    for kk in range(k0, min(k, k0 + chunk)):
                        s = f(s + f(pa[i, kk] * pb[kk, j]))  # exact product, one rounding
                    partial = float(s)
                else:
                    partial = 0.0
                    for g0 in range(k0, min(k, k0 + chunk), group):
                        prods = [pa[i, kk] * pb[kk, j] for kk in range(g0, min(k, k0 + chunk, g0 + group))]
                        partial = truncated_group(partial, prods, bits)
                sab = f(sa[i, k0 // kb] * sb[k0 // kb, j])
                acc32 = f(acc32 + f(f(partial) * sab))
            c[i, j] = acc32
    return c


@pytest.mark.parametrize("elem", ["float8_e4m3fn", "float4_e2m1fn"])
@pytest.mark.parametrize("acc", ["fp32", ("truncated", 13, 4), ("truncated", 8, 1)])
@pytest.mark.parametrize("promotion", [0, 16])
def test_block_scaled_gemm_against_formula(elem, acc, promotion):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((4, 96)) * np.exp2(rng.integers(-6, 6, (4, 96)))).astype(np.float32)
    w = rng.standard_normal((96, 5)).astype(np.float32)
    qa = mixprec.block_quantize(x, "mx", element=elem)
    qb = mixprec.block_quantize(w, "mx", element=elem, block=(32, 1))
    got = mixprec.block_scaled_gemm(qa, qb, acc, promotion)
    want = block_gemm_reference(qa, qb, elem, "fp32" if acc == "fp32" else "truncated",
                                *(acc[1:] if acc != "fp32" else ()), promotion=promotion)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_block_scaled_gemm_errors():
    x = np.ones((4, 64), np.float32)
    qa = mixprec.block_quantize(x, "mx")
    qb = mixprec.block_quantize(x.T.copy(), "mx", block=(16, 1))
    with pytest.raises(ValueError, match="K block"):
        mixprec.block_scaled_gemm(qa, qb)
    qb = mixprec.block_quantize(x.T.copy(), "mx", block=(32, 1))
    with pytest.raises(ValueError, match="promotion"):
        mixprec.block_scaled_gemm(qa, qb, promotion=12)
    with pytest.raises(ValueError, match="accumulator"):
        mixprec.block_scaled_gemm(qa, qb, "fp16")


def _tc_reference_wgmma_fp8(a, b):
    """hopper_wgmma_fp8_f32 written out (docs/pages/tensor-cores.md) in exact rationals: per 32
    products (zero-padded) and c, every term truncated toward zero to a multiple of 2^(E_max - 13),
    E_max the largest of c's exponent and the products' e_a + e_b (exponents clamped at -6 for
    e4m3 operands, -126 for c; zero counts -126), the exact sum truncated to 13 fraction bits."""
    def expo(x, emin):
        return -126 if x == 0 else max(math.frexp(x)[1] - 1, emin)

    def trunc_to(q, e):  # toward zero, to a multiple of 2^e
        u = Fraction(2) ** e
        n = abs(q) / u
        return (1 if q > 0 else -1) * (n.numerator // n.denominator) * u if q else Fraction(0)

    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = Fraction(0)
            for k0 in range(0, k, 32):
                terms = [(Fraction(float(a[i, p])) * Fraction(float(b[p, j])),
                          expo(float(a[i, p]), -6) + expo(float(b[p, j]), -6)) for p in range(k0, min(k, k0 + 32))]
                emax = max([expo(float(acc), -126)] + [e for _, e in terms])
                s = trunc_to(acc, emax - 13) + sum((trunc_to(t, emax - 13) for t, _ in terms), Fraction(0))
                if s == 0:
                    acc = Fraction(0)
                    continue
                e = max(math.frexp(float(s))[1] - 1, -126)  # float(s) is exact (under 53 bits)
                acc = trunc_to(s, e - 13)
            out[i, j] = np.float32(float(acc))
    return out


def test_gemm_tensor_core_preset():
    rng = np.random.default_rng(32)
    a = mixprec.round(rng.standard_normal((4, 45)) * 2.0, "float8_e4m3fn")
    b = mixprec.round(rng.standard_normal((45, 3)) / 4.0, "float8_e4m3fn")
    c = mixprec.gemm(a, b, format="float8_e4m3fn", mma="hopper_wgmma_fp8_f32")
    assert c.dtype == np.float32
    assert np.all((c.view(np.uint32) & 0x3FF) == 0)  # 13 fraction bits
    np.testing.assert_array_equal(c.view(np.uint32), _tc_reference_wgmma_fp8(a, b).view(np.uint32))
    np.testing.assert_array_equal(
        c.view(np.uint32), mixprec.gemm(a, b, format="float8_e4m3fn", mma="hopper_wgmma_fp8_f32", threads=1).view(np.uint32))
    with pytest.raises(ValueError, match="float8_e4m3fn, float8_e5m2"):
        mixprec.gemm(a, b, format="float16", mma="hopper_wgmma_fp8_f32")
    with pytest.raises(ValueError, match="ampere_mma_f16_f32"):
        mixprec.gemm(a, b, format="float8_e4m3fn", mma="hopper_wgmma")
    with pytest.raises(ValueError, match="accumulate='float32'"):
        mixprec.gemm(a, b, format="float8_e4m3fn", mma="hopper_wgmma_fp8_f32", accumulate="float64")
    with pytest.raises(TypeError):
        mixprec.gemm(a, b, format="float8_e4m3fn", mma=3)


# --- tensor-core presets with FP4/FP6 operands and block_scaled_gemm's tensor_core model, against
# MMA-Sim's outputs in tests/golden/mma_vectors_f8f6f4.txt (tests/golden/gen_mma_vectors.py) ---

_GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "golden")
_FP = {"e2m1": ("float4_e2m1fn", 2, 1), "e2m3": ("float6_e2m3fn", 2, 3), "e3m2": ("float6_e3m2fn", 3, 2),
       "e4m3": ("float8_e4m3fn", 4, 3), "e5m2": ("float8_e5m2", 5, 2)}


def _tiles(name):
    tiles, t = [], None
    with open(os.path.join(_GOLDEN, name)) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "tile":
                t = dict(preset=w[1], a=w[2], b=w[3], rows=int(w[4]), n=int(w[5]), k=int(w[6]), block=int(w[8]))
                tiles.append(t)
            else:
                wd = {"A": 1 if t["a"] == "e2m1" else 2, "B": 1 if t["b"] == "e2m1" else 2, "SA": 2, "SB": 2}.get(
                    w[0], 4 if t["preset"].endswith("_f16") else 8)
                t[w[0]] = np.array([int(w[1][i:i + wd], 16) for i in range(0, len(w[1]), wd)], np.uint32)
    return tiles


def _fp_value(code, fmt):
    """An FP4/FP6/FP8 (OCP, finite) code's value, from its fields."""
    _, eb, mb = _FP[fmt]
    bias = (1 << (eb - 1)) - 1
    e, m = (int(code) >> mb) & ((1 << eb) - 1), int(code) & ((1 << mb) - 1)
    v = math.ldexp(m, 1 - bias - mb) if e == 0 else math.ldexp((1 << mb) + m, e - bias - mb)
    return -v if int(code) >> (eb + mb) else v


def test_gemm_tensor_core_fp6_fp4_against_mmasim():
    checked = 0
    for t in _tiles("mma_vectors_f8f6f4.txt"):
        if t["block"] or t["a"] != t["b"] or t["a"] not in ("e2m1", "e2m3", "e3m2"):
            continue
        rows, n, k = t["rows"], t["n"], t["k"]
        a = np.array([_fp_value(c, t["a"]) for c in t["A"]], np.float32).reshape(rows, k)
        b = np.array([_fp_value(c, t["b"]) for c in t["B"]], np.float32).reshape(k, n)
        got = mixprec.gemm(a, b, format=_FP[t["a"]][0], mma=t["preset"]).reshape(-1)
        zero_c = t["C"] == 0  # gemm starts from +0
        if t["preset"].endswith("_f16"):
            bits = got.astype(np.float16).view(np.uint16).astype(np.uint32)
        else:
            bits = got.view(np.uint32)
        np.testing.assert_array_equal(bits[zero_c], t["D"][zero_c])
        checked += int(zero_c.sum())
    assert checked >= 150
    with pytest.raises(ValueError, match="float6_e2m3fn"):  # kind::f16 takes no FP6
        mixprec.gemm(np.ones((2, 32)), np.ones((32, 2)), format="float6_e2m3fn", mma="blackwell_tcgen05_f16_f32")


def _block_gemm_mma(qa, qb, preset, promotion=0):
    """block_scaled_gemm with block_accumulator::tensor_core(preset)."""
    return mixprec.block_scaled_gemm(qa, qb, ("tensor_core", preset), promotion)


def test_block_scaled_gemm_tensor_core_against_mmasim():
    checked = 0
    for t in _tiles("mma_vectors_f8f6f4.txt"):
        if t["preset"] != "blackwell_tcgen05_mxf8f6f4":
            continue
        rows, n, k = t["rows"], t["n"], t["k"]
        qa = mixprec.block_quantize(np.zeros((rows, k), np.float32), "mx", element=_FP[t["a"]][0])
        qb = mixprec.block_quantize(np.zeros((k, n), np.float32), "mx", element=_FP[t["b"]][0], block=(32, 1))
        qa.elements, qa.scales = t["A"].astype(np.uint8).reshape(rows, k), t["SA"].astype(np.uint8).reshape(rows, k // 32)
        qb.elements, qb.scales = t["B"].astype(np.uint8).reshape(k, n), t["SB"].astype(np.uint8).reshape(k // 32, n)
        got = _block_gemm_mma(qa, qb, "blackwell_tcgen05_mxf8f6f4").reshape(-1).view(np.uint32)
        zero_c = t["C"] == 0  # block_scaled_gemm starts from +0
        np.testing.assert_array_equal(got[zero_c], t["D"][zero_c])
        checked += int(zero_c.sum())
    assert checked >= 300


def test_block_scaled_gemm_tensor_core_errors():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 64)).astype(np.float32), rng.standard_normal((64, 3)).astype(np.float32)
    qa = mixprec.block_quantize(x, "mx", element="float6_e2m3fn")
    qb = mixprec.block_quantize(w, "mx", element="float6_e3m2fn", block=(32, 1))
    c = _block_gemm_mma(qa, qb, "blackwell_tcgen05_mxf8f6f4")
    assert c.shape == (4, 3) and c.dtype == np.float32
    with pytest.raises(ValueError, match="cdna3_mfma_fp8_f32"):  # not a preset: the presets named
        _block_gemm_mma(qa, qb, "blackwell_mxf8f6f4")
    with pytest.raises(ValueError, match="not a tensor-core preset"):
        _block_gemm_mma(qa, qb, "none")
    with pytest.raises(ValueError, match="float4_e2m1fn"):  # mxf4nvf4 takes FP4 only
        _block_gemm_mma(qa, qb, "blackwell_tcgen05_mxf4nvf4")
    with pytest.raises(ValueError, match="promotion must be 0"):
        _block_gemm_mma(qa, qb, "blackwell_tcgen05_mxf8f6f4", promotion=16)
    qa16 = mixprec.block_quantize(x, "mx", element="float6_e2m3fn", block=(1, 16))
    qb16 = mixprec.block_quantize(w, "mx", element="float6_e3m2fn", block=(16, 1))
    with pytest.raises(ValueError, match="float8_e8m0fnu per 32 K elements"):
        _block_gemm_mma(qa16, qb16, "blackwell_tcgen05_mxf8f6f4")
    with pytest.raises(ValueError, match="float8_e4m3fn, float8_e5m2"):  # FP6 is not Hopper's
        _block_gemm_mma(qa, qb, "hopper_wgmma_fp8_f32")
    with pytest.raises(TypeError, match="a tensor_core preset is a name"):
        mixprec.block_scaled_gemm(qa, qb, ("tensor_core", 3))
    with pytest.raises(ValueError, match=r"\('tensor_core', preset\)"):
        mixprec.block_scaled_gemm(qa, qb, ("tensor_cores", "hopper_wgmma_fp8_f32"))
