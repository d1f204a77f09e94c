#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes recipe_refs.golden: block-scaling recipes computed the way the reference code computes
them (Transformer Engine MXFP8, DeepGEMM and DeepSeek-V3 FP8 blocks, TE's NVFP4 dequantize), each
formula written out with NumPy float32 operations and ml_dtypes conversions, independently of
mixprec. tests/test_block_scaling.cpp compares mixprec bit for bit.

usage: pip install numpy==2.4.6 ml_dtypes==0.6.0; python3 tests/golden/gen_recipe_refs.py [--check]

The references, as read (repository, file, function):
  TE MXFP8 (NVIDIA/TransformerEngine, transformer_engine/common/util/ptx.cuh float_to_e8m0,
    exp2f_rcp, exp2f; tests/cpp/test_common.h float_to_e8m0, exp2f_rcp; cast/mxfp8/
    quantize_mxfp8.cuh, dequantize_mxfp8.cuh):
      amax = fmaxf fold from 0 of |x| over the 1x32 block (NaN ignored)
      code = float_to_e8m0(amax * max_norm_rcp), max_norm_rcp = float(1 / max_elem): the E8M0
             code rounded up (exponent + 1 when the mantissa is not 0, except at 0xFE and for
             subnormals <= 2^-127), NaN -> 0xFF, Inf -> 0xFE, 0 -> 0
      current (exp2f_rcp since TE #2647, exp2f since TE #3262):
        P = satfinite_RNE(float(x * R)), R = 2^(127 - code) (code 0: 2^127; 0xFE: 2^-127)
        value = float(2^(code - 127) * P) (code 0: 2^-127 * P; 0xFF: NaN)
      legacy (TE before #2647 / #3262): R = 1 for code 0; value 0 for code 0 (exp2f built the
        float from the shifted code). 0xFE's R is 2^-127 here as in mixprec's earlier te_rceil
        and torchao's RCEIL (TE between #1628 and #2647 shifted to 0 instead).
  DeepGEMM (deepseek-ai/DeepGEMM, deep_gemm/utils/math.py per_token_cast_to_fp8,
    per_block_cast_to_fp8, ceil_to_ue8m0):
      amax = max |x| over the block (torch amax: a NaN propagates), clamp(min=1e-4) (NaN stays)
      sf = amax / 448.0 (float32); ue8m0: sf = ceil_to_ue8m0(sf): exponent field + (mantissa != 0)
           clamped to [1, 254], as a power of two
      P = float8_e4m3fn(x * (1.0 / sf)), float32 products; torch's cast rounds to nearest even,
          anything beyond 464 (Inf too) and NaN give NaN
  DeepSeek-V3 (deepseek-ai/DeepSeek-V3, inference/kernel.py act_quant_kernel, act_quant):
      amax = tl.max(tl.abs(x)) (NaN ignored: maxnum), amax = tl.maximum(amax, 1e-4)
      s = amax / 448. (float32); scale_fmt "ue8m0": s = exp2(ceil(log2(s))) with log2 a float32
          result (here: log2 correctly rounded to float32, computed with decimal at 60 digits)
      P = (x / s).to(float8e4nv): float32 quotient, Triton's satfinite RNE conversion
  TE NVFP4 dequantize (NVIDIA/TransformerEngine, transformer_engine/common/cast/nvfp4/
    dequantize_nvfp4.cuh dequantize_fp4_kernel, used by nvte_dequantize):
      factor_inv = 1.0f / (6.0f * 448); final_scale = float(S) * amax * factor_inv (left to
      right, float products); value = P * final_scale (float product)
    against mixprec's default ("exact"): P * S * float(1 / S_enc) rounded once, S_enc =
    min(float(2688 / amax), FLT_MAX) (1 if amax or S_enc is 0).

Format (text, hex without 0x; see tests/test_block_scaling.cpp):
  case <family> <variant> <rows> <cols> <block rows> <block cols>
  in <float32 bits> ...        rows*cols inputs, row-major
  scale <code or float32 bits> one per block, row-major (E8M0 byte for MX, float32 for FP8)
  elem <code> ...              one element code (byte) per input
  deq <float32 bits> ...       the dequantized values (FP8 blocks: P * s, one float product)
  nvfp4 <amax bits> <S_enc bits>
  nvfp4_te <float32 bits> ...  TE's value for scale code S (0..126) and element code P (0..15),
                               index S * 16 + P
  nvfp4_exact <float32 bits> ...  mixprec's exact value, same order
  nvfp4_ulp_set <amax bits> ...   the amax values the ulp measurement runs over
  nvfp4_max_ulp <n>               max ulp distance between the two over that set, all S, all P
Inputs are deterministic (numpy default_rng, fixed seeds).
"""
import sys
import pathlib
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import ml_dtypes

OUT = pathlib.Path(__file__).with_name("recipe_refs.golden")
f32 = np.float32
E4M3 = ml_dtypes.float8_e4m3fn
E5M2 = ml_dtypes.float8_e5m2


def bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def from_bits(u):
    return np.asarray(u, dtype=np.uint32).view(np.float32)


def hexs(a, width):
    return " ".join(f"{int(v):0{width}x}" for v in np.asarray(a).ravel())


# ---------------------------------------------------------------- TE MXFP8
def te_float_to_e8m0(val):
    """tests/cpp/test_common.h float_to_e8m0 (= ptx.cuh's software path) of a float32 >= 0."""
    if np.isnan(val):
        return 0xFF
    if np.isinf(val):
        return 0xFE
    if val == 0:
        return 0x00
    u = int(bits(val))
    exponent = (u >> 23) & 0xFF
    mantissa = u & 0x7FFFFF
    if (mantissa > 0 and exponent != 0xFE) and not (exponent == 0 and mantissa <= 0x400000):
        exponent += 1
    return exponent


def te_exp2f_rcp(code, legacy):
    if legacy and code == 0:
        return f32(1.0)
    if code == 255:
        return from_bits(0x7FFFFFFF)
    if code == 254:
        return from_bits(0x00400000)
    return from_bits((254 - code) << 23)


def te_exp2f(code, legacy):
    if legacy:
        return from_bits(code << 23)  # code 0: 0.0, 0xFF: +Inf
    if code == 255:
        return from_bits(0x7FFFFFFF)
    if code == 0:
        return from_bits(0x00400000)
    return from_bits(code << 23)


def satfinite(v, dtype, maxv):
    """cvt.rn.satfinite: RNE, finite overflow and infinities clamp to +-max, NaN stays NaN."""
    v = np.asarray(v, dtype=np.float32)
    c = np.where(np.isnan(v), v, np.clip(v, -maxv, maxv)).astype(np.float32)
    return c.astype(dtype)


def te_mxfp8(x, dtype, maxv, legacy):
    rows, cols = x.shape
    rcp = f32(1.0) / f32(maxv)  # Quantized_Limits<OType>::max_norm_rcp
    nb = cols // 32
    scales = np.zeros((rows, nb), dtype=np.uint8)
    elems = np.zeros((rows, cols), dtype=np.uint8)
    deq = np.zeros((rows, cols), dtype=np.float32)
    with np.errstate(all="ignore"):
        for r in range(rows):
            for b in range(nb):
                blk = x[r, 32 * b:32 * b + 32]
                amax = f32(0.0)
                for v in np.abs(blk):
                    amax = np.fmax(amax, v)
                code = te_float_to_e8m0(f32(amax * rcp))
                scales[r, b] = code
                p = satfinite(blk * te_exp2f_rcp(code, legacy), dtype, maxv)
                elems[r, 32 * b:32 * b + 32] = p.view(np.uint8)
                deq[r, 32 * b:32 * b + 32] = te_exp2f(code, legacy) * p.astype(np.float32)
    return scales, elems, deq


# ---------------------------------------------------------------- DeepGEMM / DeepSeek-V3
def blocks_of(rows, cols, br, bc):
    for r0 in range(0, rows, br):
        for c0 in range(0, cols, bc):
            yield r0, min(rows, r0 + br), c0, min(cols, c0 + bc)


def torch_e4m3fn(v):
    """torch's float32 -> float8_e4m3fn (c10 fp8e4m3fn_from_fp32_value): RNE; |v| > 464, Inf and
    NaN give NaN (0x7F with the sign). ml_dtypes' astype agrees on the value; the NaN codes are
    set here with the input's sign."""
    v = np.asarray(v, dtype=np.float32)
    c = v.astype(E4M3).view(np.uint8).copy()
    bad = np.isnan(v) | (np.abs(v) > f32(464.0))
    c[bad] = 0x7F | ((bits(v[bad]) >> 24) & 0x80).astype(np.uint8)
    return c


def ceil_to_ue8m0(sf):
    u = int(bits(np.abs(sf)))
    e = ((u >> 23) & 0xFF) + (1 if (u & 0x7FFFFF) != 0 else 0)
    e = min(max(e, 1), 254)
    return from_bits(e << 23)


def deepgemm(x, br, bc, ue8m0):
    rows, cols = x.shape
    sc = []
    elems = np.zeros((rows, cols), dtype=np.uint8)
    deq = np.zeros((rows, cols), dtype=np.float32)
    with np.errstate(all="ignore"):
        for r0, r1, c0, c1 in blocks_of(rows, cols, br, bc):
            blk = x[r0:r1, c0:c1]
            amax = np.max(np.abs(blk))  # NaN propagates, as torch.amax
            amax = amax if np.isnan(amax) else max(amax, f32(1e-4))
            sf = f32(amax) / f32(448.0)
            if ue8m0:
                sf = ceil_to_ue8m0(sf)
            sc.append(sf)
            q = torch_e4m3fn(blk * (f32(1.0) / sf))
            elems[r0:r1, c0:c1] = q
            deq[r0:r1, c0:c1] = q.view(E4M3).astype(np.float32) * sf
    return bits(np.array(sc, dtype=np.float32)), elems, deq


getcontext().prec = 60
LN2 = Decimal(2).ln()


def log2_f32(s):
    """log2 of a positive finite float32 rounded to the nearest float32."""
    exact = Fraction(Decimal(float(s)).ln() / LN2)
    c = f32(float(exact))
    best = None
    for cand in (np.nextafter(c, f32(-np.inf)), c, np.nextafter(c, f32(np.inf))):
        d = abs(Fraction(float(cand)) - exact)
        if best is None or d < best[0] or (d == best[0] and int(bits(cand)) % 2 == 0):
            best = (d, cand)
    return best[1]


def v3(x, br, bc, ue8m0):
    rows, cols = x.shape
    sc = []
    elems = np.zeros((rows, cols), dtype=np.uint8)
    deq = np.zeros((rows, cols), dtype=np.float32)
    with np.errstate(all="ignore"):
        for r0, r1, c0, c1 in blocks_of(rows, cols, br, bc):
            blk = x[r0:r1, c0:c1]
            amax = np.fmax.reduce(np.abs(blk), axis=None)  # maxnum: NaN ignored
            amax = np.fmax(amax, f32(1e-4))
            s = f32(amax) / f32(448.0)
            if ue8m0:
                if np.isfinite(s):
                    s = np.ldexp(f32(1.0), int(np.ceil(log2_f32(s))))
                    s = f32(s)
            sc.append(s)
            q = satfinite(blk / s, E4M3, 448.0).view(np.uint8)
            elems[r0:r1, c0:c1] = q
            deq[r0:r1, c0:c1] = q.view(E4M3).astype(np.float32) * s
    return bits(np.array(sc, dtype=np.float32)), elems, deq


# ---------------------------------------------------------------- inputs
def mx_inputs(seed, maxv):
    """Rows of 2 blocks of 32: random magnitudes, and the adversarial blocks: code 0 (amax 0,
    float subnormal, max * 2^-127 and its neighbours), 0xFE (FLT_MAX, Inf), NaN beside finite
    values (also in a code-0 block), the code 0/1 boundary of the subnormal product."""
    rng = np.random.default_rng(seed)
    blocks = []
    t = f32(maxv) * f32(2.0 ** -127)  # amax * rcp close to 2^-127: code 0 or 1
    amaxes = [f32(0.0), from_bits(1), from_bits(0x00012345), f32(2.0 ** -140), f32(2.0 ** -127), f32(2.0 ** -126),
              t, np.nextafter(t, f32(0)), np.nextafter(t, f32(1)), f32(maxv) * f32(2.0 ** -126),
              np.nextafter(f32(maxv) * f32(2.0 ** -126), f32(0)), f32(2.0 ** -119), f32(3.0e-36),
              np.finfo(np.float32).max, f32(maxv) * f32(2.0 ** 126), np.nextafter(f32(maxv) * f32(2.0 ** 126), f32(0)),
              f32(2.0 ** 127), f32(1.0), f32(maxv)]
    for a in amaxes:
        v = (rng.uniform(-1, 1, 32) * float(a)).astype(np.float32)
        v[rng.integers(0, 32)] = a
        v[rng.integers(0, 32)] = -a
        blocks.append(v)
    for k in range(-40, 40, 3):
        v = (rng.standard_normal(32) * 2.0 ** k).astype(np.float32)
        blocks.append(v)
    special = []
    v = (rng.uniform(-1, 1, 32) * 1e-3).astype(np.float32)
    v[3] = np.nan
    special.append(v)
    v = (rng.uniform(-1, 1, 32) * 2.0 ** -130).astype(np.float32)
    v[7] = -np.nan
    special.append(v)  # a NaN in a code-0 block
    v = rng.uniform(-1, 1, 32).astype(np.float32)
    v[1] = np.inf
    v[2] = -np.inf
    special.append(v)
    v = np.full(32, np.nan, dtype=np.float32)
    special.append(v)  # all NaN: amax 0, code 0
    v = np.zeros(32, dtype=np.float32)
    v[5] = -0.0
    special.append(v)
    blocks += special
    if len(blocks) % 2:
        blocks.append(np.zeros(32, dtype=np.float32))
    # shuffle deterministically so that code-0 blocks sit among others in groups of 16
    order = rng.permutation(len(blocks))
    x = np.concatenate([blocks[i] for i in order]).astype(np.float32)
    return x.reshape(-1, 64)


E4M3_POS = np.arange(1, 0x7F, dtype=np.uint8).view(E4M3).astype(np.float64)
E4M3_MIDS = (E4M3_POS[:-1] + E4M3_POS[1:]) / 2


def tie_block(rng, block):
    """A block of amax A whose other elements x sit next to E4M3 rounding midpoints times
    s = A / 448, chosen where float(x / s) and float(x * float(1 / s)) round to different E4M3
    codes: the blocks that tell DeepSeek-V3's quotient from DeepGEMM's reciprocal product."""
    while True:
        a = f32(rng.uniform(1.0, 2.0) * 2.0 ** rng.integers(-10, 10))
        s = a / f32(448.0)
        r = f32(1.0) / s
        found = []
        with np.errstate(all="ignore"):
            for m in rng.permutation(E4M3_MIDS):
                x0 = f32(m * float(s))
                for d in (-2, -1, 0, 1, 2):
                    x = from_bits(int(bits(x0)) + d)
                    q1 = np.array([x / s], dtype=np.float32).astype(E4M3).view(np.uint8)[0]
                    q2 = np.array([x * r], dtype=np.float32).astype(E4M3).view(np.uint8)[0]
                    if q1 != q2 and x < a:
                        found.append(x if rng.random() < 0.5 else -x)
                if len(found) >= block - 1:
                    break
        if found:
            v = np.zeros(block, dtype=np.float32)
            v[:len(found[:block - 1])] = found[:block - 1]
            v[block - 1] = a
            return v


def fp8_inputs(seed, rows, cols, block, ceil_cases):
    """Random blocks of every magnitude; zero blocks (the 1e-4 floor), NaN and Inf in blocks;
    ceil_cases: block amaxes making s = amax / 448 just above, at and just below powers of two
    (where float32 log2 rounds to the integer and ceil(log2) differs from the exponent bits)."""
    rng = np.random.default_rng(seed)
    x = np.zeros((rows, cols), dtype=np.float32)
    nb = cols // block
    targets = []
    if ceil_cases != "none":
        for k in list(range(-22, 24)) + [-1, 0, 1]:
            p = f32(2.0 ** k)
            for s in (p, np.nextafter(p, f32(np.inf)), from_bits(int(bits(p)) + 2), from_bits(int(bits(p)) + 7),
                      from_bits(int(bits(p)) + 40), np.nextafter(p, f32(0))):
                targets.append(s)
    if ceil_cases == "some":
        targets = targets[::37]  # 8 of them, the rest of the blocks random and tie blocks
    assert ceil_cases != "all" or len(targets) <= rows * nb
    ti = 0
    for r in range(rows):
        for b in range(nb):
            kind = (r * nb + b) % 7
            v = (rng.standard_normal(block) * 2.0 ** rng.integers(-30, 30)).astype(np.float32)
            if ti < len(targets) and (ceil_cases == "all" or kind in (0, 2, 4)):
                s = targets[ti]
                ti += 1
                amax = f32(s * f32(448.0))  # s = amax / 448 lands on or near s
                v = (rng.uniform(-1, 1, block) * float(amax)).astype(np.float32)
                v[rng.integers(0, block)] = amax
            elif kind == 1:
                v[:] = 0.0
            elif kind == 3:
                v[rng.integers(0, block)] = np.nan
            elif kind == 5:
                v[rng.integers(0, block)] = np.inf if r % 2 else -np.inf
            elif kind == 6:
                v = (rng.standard_normal(block) * 2.0 ** -20).astype(np.float32)  # below the floor
            elif kind == 4 or kind == 2:
                v = tie_block(rng, block)
            x[r, b * block:(b + 1) * block] = v
    return x, ti


# ---------------------------------------------------------------- NVFP4
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float32)
UE4M3 = np.arange(127, dtype=np.uint8).view(E4M3).astype(np.float32)


def te_s_enc(amax):
    with np.errstate(all="ignore"):
        s = f32(2688.0) / f32(amax)
    s = np.fmin(s, np.finfo(np.float32).max)
    if amax == 0 or s == 0:
        return f32(1.0)
    return f32(s)


def nvfp4_te(amax):
    np.seterr(over="ignore", invalid="ignore", under="ignore")
    factor_inv = f32(1.0) / (f32(6.0) * f32(448.0))
    final = (UE4M3 * f32(amax)) * factor_inv  # float32 products, left to right
    return (final[:, None] * E2M1[None, :]).astype(np.float32)


def nvfp4_exact(amax):
    s_dec = f32(1.0) / te_s_enc(amax)
    # P * S * s_dec is exact in float64 (3 + 4 + 24 significant bits), then rounded once
    return (E2M1[None, :].astype(np.float64) * UE4M3[:, None].astype(np.float64) * float(s_dec)).astype(np.float32)


def ordered(u):
    u = u.astype(np.int64)
    return np.where(u >= 0x80000000, 0x80000000 - u, u)


def ulp_dist(a, b):
    return np.abs(ordered(bits(a)) - ordered(bits(b)))


def nvfp4_amax_set():
    """amax in [1e-30, 1e30]: S_enc = 2688 / amax is neither clamped to FLT_MAX nor so large that
    1 / S_enc is subnormal, and S * amax (S <= 448) does not overflow. Outside it the two orders
    part by far more (see docs/pages/recipe-nvfp4.md)."""
    rng = np.random.default_rng(7)
    s = [f32(1.0), f32(2688.0), f32(6.0), f32(448.0), f32(1e-30), f32(1e30), f32(1e-3), f32(7.5)]
    s += list(from_bits(rng.integers(int(bits(f32(1e-30))), int(bits(f32(1e30))), 4000, dtype=np.uint32)))
    s += list((rng.uniform(0.5, 1.0, 2000) * 2.0 ** rng.integers(-20, 21, 2000)).astype(np.float32))
    return np.array(s, dtype=np.float32)


# ---------------------------------------------------------------- output
_last_in = [None]


def case(lines, family, variant, x, br, bc, scales, scale_width, elems, deq):
    rows, cols = x.shape
    lines.append(f"case {family} {variant} {rows} {cols} {br} {bc}")
    if _last_in[0] is x:
        lines.append("in =")  # the previous case's inputs
    else:
        lines.append("in " + hexs(bits(x), 8))
        _last_in[0] = x
    lines.append("scale " + hexs(scales, scale_width))
    lines.append("elem " + hexs(elems, 2))
    lines.append("deq " + hexs(bits(deq), 8))


def generate():
    lines = ["# recipe_refs.golden: written by gen_recipe_refs.py (see its docstring); do not edit",
             f"# numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}"]
    for name, dtype, maxv, seed in (("e4m3", E4M3, 448.0, 1), ("e5m2", E5M2, 57344.0, 2)):
        x = mx_inputs(seed, maxv)
        for legacy in (False, True):
            s, e, d = te_mxfp8(x, dtype, maxv, legacy)
            case(lines, "te_mxfp8", name + ("/te_rceil_legacy" if legacy else "/te_rceil"), x, 1, 32, s, 2, e, d)
    # 1x128 (the production block), 1x16 blocks holding the ceil(log2) boundary cases (both
    # references take the block length as a parameter: gran_k, block_size), and DeepGEMM's 2D
    # per_block_cast_to_fp8 with gran_k = 16 on a 40 x 40 tensor (edge blocks of 8).
    x1, _ = fp8_inputs(11, 16, 256, 128, "some")
    x3, _ = fp8_inputs(13, 20, 256, 16, "all")
    x2, _ = fp8_inputs(12, 40, 40, 16, "none")
    for fam, fn in (("deepgemm", deepgemm), ("v3", v3)):
        for xs, br, bc in ((x1, 1, 128), (x3, 1, 16)) + (((x2, 16, 16),) if fam == "deepgemm" else ()):
            for ue in (False, True):
                s, e, d = fn(xs, br, bc, ue)
                case(lines, "deepseek_fp8", fam + ("/ue8m0" if ue else ""), xs, br, bc, s, 8, e, d)
    # how many 1x16 blocks of x3 get a different UE8M0 scale from the two rules
    sg, _, _ = deepgemm(x3, 1, 16, True)
    sv, _, _ = v3(x3, 1, 16, True)
    n_ceil_differ = int(np.sum(sg != sv))
    lines.append(f"# 1x16 ue8m0 blocks whose scale differs between deepgemm and v3: {n_ceil_differ}")
    for a in (f32(0.0), f32(1.0), f32(7.5), f32(3.0e38), f32(1e-30), from_bits(1)):
        lines.append(f"nvfp4 {int(bits(a)):08x} {int(bits(te_s_enc(a))):08x}")
        lines.append("nvfp4_te " + hexs(bits(nvfp4_te(a)), 8))
        lines.append("nvfp4_exact " + hexs(bits(nvfp4_exact(a)), 8))
    amaxes = nvfp4_amax_set()
    worst = 0
    worst_at = None
    for a in amaxes:
        t, e = nvfp4_te(a), nvfp4_exact(a)
        assert np.all(np.isfinite(t)) and np.all(np.isfinite(e))
        m = int(ulp_dist(t, e).max())
        if m > worst:
            worst, worst_at = m, a
    lines.append("nvfp4_ulp_set " + hexs(bits(amaxes), 8))
    lines.append(f"nvfp4_max_ulp {worst}")
    lines.append(f"# max ulp reached at amax {float(worst_at)!r} ({int(bits(worst_at)):08x})")
    return "\n".join(lines) + "\n", n_ceil_differ, worst


def main():
    text, n_ceil, worst = generate()
    if "--check" in sys.argv[1:]:
        if OUT.read_text() != text:
            print(f"{OUT.name} differs from the generator's output")
            return 1
        print(f"{OUT.name} matches")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.name}: {len(text)} bytes; ue8m0 scale differences deepgemm/v3: {n_ceil}; "
          f"NVFP4 dequantize max ulp TE vs exact: {worst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
