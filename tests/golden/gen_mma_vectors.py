#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates tests/golden/mma_vectors.txt and tests/golden/mma_vectors_f8f6f4.txt: tensor-core
outputs computed by MMA-Sim (github microsoft/MMA-Sim, MIT; arXiv 2511.10909), the bit-accurate
reference that mixprec's presets (include/mixprec/kernels/tensor_core.hpp) are checked against by
tests/test_gemm.cpp and tests/test_tensor_core.cpp.

    python3 tests/golden/gen_mma_vectors.py /path/to/MMA-Sim [out.txt [preset,preset,...|f8f6f4]]
    python3 tests/golden/gen_mma_vectors.py /path/to/MMA-Sim --time    # MMA-Sim's speed

out.txt (default tests/golden/mma_vectors.txt) gets the presets' tiles; the FP4/FP6 operand tiles
of kind::f8f6f4 and kind::mxf8f6f4 go to out.txt's name with _f8f6f4 before .txt. A list of presets
writes only those (`f8f6f4`: only the FP4/FP6 file). The presets from cdna1_mfma_f16_f32 on and the
FP4/FP6 tiles reseed per preset, so a partial run gives the same tiles as a full one.

Two of MMA-Sim's models fail as published, and the script runs them with these changes (nothing
else of MMA-Sim is changed; tests/golden/README or docs/pages/tensor-cores.md say what is claimed):
- AMD CDNA1/CDNA2 f16/bf16 mfma: pairwise_dot asserts float32 operands; they are widened to float32
  (exact) before it.
- Blackwell kind::f8f6f4 / kind::mxf8f6f4 with e2m1 operands (given as uint8, which its fused sum
  cannot decode) or e2m3 / e3m2 (marked TODO): the operands are carried in an FNUZ FP8 tensor that
  holds their values exactly, and MMA-Sim's table of smallest normal exponents (dtype_min_exponent)
  gives the carrier the FP4/FP6 format's own (e2m1 and e2m3: 0, e3m2: -2), so MMA-Sim's own fused
  sum runs on them unchanged.

MMA-Sim needs torch (PyPI's torch; on a machine without CUDA its CUDA libraries still install
from PyPI and load). The output is deterministic (seeded).

Format, one tile per record (hex, lower case, row-major, no separators):
    tile <preset> <a_fmt> <b_fmt> <rows> <n> <k> <scale_fmt|-> <block|0>
    A <rows x k codes>     B <k x n codes>     C <rows x n accumulator bits>
    SA <rows x k/block scale codes>   SB <k/block x n scale codes>   (scaled presets only)
    D <rows x n output bits>
Codes: e2m1 1 hex digit, fp8/scales 2, f16/bf16 4, tf32 (given as f32 bits) 8; C/D 8 (f32) or
4 (f16). k beyond the instruction's k: the instruction chained, D of one the C of the next, the
last chunk zero-padded (A/B zero, scales 1). Only `rows` rows of MMA-Sim's tile are stored.
"""
import math
import random
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
sys.path.insert(0, sys.argv[1])
OUT = sys.argv[2] if len(sys.argv) > 2 else "tests/golden/mma_vectors.txt"

import torch  # noqa: E402
from mmasim.simulator.nv_ptx import mma, wgmma, tcgen05mma, tcgen05mma_block_scale  # noqa: E402
from mmasim.simulator.amd import mfma  # noqa: E402

DT = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32, "e4m3": torch.float8_e4m3fn,
      "e5m2": torch.float8_e5m2, "f32": torch.float32, "e4m3fnuz": torch.float8_e4m3fnuz,
      "e5m2fnuz": torch.float8_e5m2fnuz, "ue8m0": torch.float8_e8m0fnu, "ue4m3": torch.float8_e4m3fn}
WIDTH = {"e2m3": 2, "e3m2": 2, "e4m3fnuz": 2, "e5m2fnuz": 2, "f16": 4, "bf16": 4, "tf32": 8, "e4m3": 2, "e5m2": 2, "e2m1": 1, "f32": 8, "ue8m0": 2, "ue4m3": 2}
# (exponent bits, mantissa bits, storage bits) of the operand codes
LAYOUT = {"f16": (5, 10, 16), "bf16": (8, 7, 16), "tf32": (8, 23, 32), "e4m3": (4, 3, 8), "e5m2": (5, 2, 8),
          "e2m1": (2, 1, 4), "e4m3fnuz": (4, 3, 8), "e5m2fnuz": (5, 2, 8), "e2m3": (2, 3, 6), "e3m2": (3, 2, 6)}
FP4FP6 = ("e2m1", "e2m3", "e3m2")  # no Inf or NaN
# FP4/FP6 in kind::f8f6f4: the FNUZ FP8 tensor that carries the values, and the format's emin
CARRIER = {"e2m1": (torch.float8_e4m3fnuz, 0), "e2m3": (torch.float8_e4m3fnuz, 0), "e3m2": (torch.float8_e5m2fnuz, -2)}
AMD_Q = {"e4m3fnuz": "fp8", "e5m2fnuz": "bf8"}

# preset -> (constructor(a_fmt, b_fmt), instruction k, operand formats, accumulator "f32"/"f16", scales)
def _fp8q(prefix, suffix=""):
    return lambda a, b: prefix + "." + a + "." + b + suffix


PRESETS = {
    "volta_mma_f16_f32": (lambda a, b: mma("Volta", "m8n8k4.f32.f16.f16.f32"), 4, ["f16"], "f32", None),
    "volta_mma_f16_f16": (lambda a, b: mma("Volta", "m8n8k4.f16.f16.f16.f16"), 4, ["f16"], "f16", None),
    "turing_mma_f16_f32": (lambda a, b: mma("Turing", "m16n8k8.f32.f16.f16.f32"), 8, ["f16"], "f32", None),
    "turing_mma_f16_f16": (lambda a, b: mma("Turing", "m16n8k8.f16.f16.f16.f16"), 8, ["f16"], "f16", None),
    "ampere_mma_f16_f32": (lambda a, b: mma("Ampere", "m16n8k16.f32.f16.f16.f32"), 16, ["f16"], "f32", None),
    "ampere_mma_f16_f16": (lambda a, b: mma("Ampere", "m16n8k16.f16.f16.f16.f16"), 16, ["f16"], "f16", None),
    "ampere_mma_bf16_f32": (lambda a, b: mma("Ampere", "m16n8k16.f32.bf16.bf16.f32"), 16, ["bf16"], "f32", None),
    "ampere_mma_tf32_f32": (lambda a, b: mma("Ampere", "m16n8k8.f32.tf32.tf32.f32"), 8, ["tf32"], "f32", None),
    "ada_mma_fp8_f32": (lambda a, b: mma("Ada Lovelace", f"m16n8k32.f32.{a}.{b}.f32"), 32, ["e4m3", "e5m2"], "f32", None),
    "ada_mma_fp8_f16": (lambda a, b: mma("Ada Lovelace", f"m16n8k32.f16.{a}.{b}.f16"), 32, ["e4m3", "e5m2"], "f16", None),
    "hopper_mma_f16_f32": (lambda a, b: mma("Hopper", "m16n8k16.f32.f16.f16.f32"), 16, ["f16"], "f32", None),
    "hopper_mma_bf16_f32": (lambda a, b: mma("Hopper", "m16n8k16.f32.bf16.bf16.f32"), 16, ["bf16"], "f32", None),
    "hopper_mma_tf32_f32": (lambda a, b: mma("Hopper", "m16n8k8.f32.tf32.tf32.f32"), 8, ["tf32"], "f32", None),
    "hopper_wgmma_f16_f32": (lambda a, b: wgmma("Hopper", "m64n8k16.f32.f16.f16"), 16, ["f16"], "f32", None),
    "hopper_wgmma_f16_f16": (lambda a, b: wgmma("Hopper", "m64n8k16.f16.f16.f16"), 16, ["f16"], "f16", None),
    "hopper_wgmma_bf16_f32": (lambda a, b: wgmma("Hopper", "m64n8k16.f32.bf16.bf16"), 16, ["bf16"], "f32", None),
    "hopper_wgmma_tf32_f32": (lambda a, b: wgmma("Hopper", "m64n8k8.f32.tf32.tf32"), 8, ["tf32"], "f32", None),
    "hopper_wgmma_fp8_f32": (lambda a, b: wgmma("Hopper", f"m64n8k32.f32.{a}.{b}"), 32, ["e4m3", "e5m2"], "f32", None),
    "hopper_wgmma_fp8_f16": (lambda a, b: wgmma("Hopper", f"m64n8k32.f16.{a}.{b}"), 32, ["e4m3", "e5m2"], "f16", None),
    "blackwell_tcgen05_f16_f32": (lambda a, b: tcgen05mma("Blackwell", "m64n8k16.f32.f16.f16"), 16, ["f16"], "f32", None),
    "blackwell_tcgen05_bf16_f32": (lambda a, b: tcgen05mma("Blackwell", "m64n8k16.f32.bf16.bf16"), 16, ["bf16"], "f32", None),
    "blackwell_tcgen05_tf32_f32": (lambda a, b: tcgen05mma("Blackwell", "m64n8k8.f32.tf32.tf32"), 8, ["tf32"], "f32", None),
    "blackwell_tcgen05_f8f6f4_f32": (lambda a, b: tcgen05mma("Blackwell", f"m64n8k32.f32.{a}.{b}"), 32, ["e4m3", "e5m2"], "f32", None),
    "blackwell_tcgen05_f8f6f4_f16": (lambda a, b: tcgen05mma("Blackwell", f"m64n8k32.f16.{a}.{b}"), 32, ["e4m3", "e5m2"], "f16", None),
    "blackwell_tcgen05_mxf8f6f4": (lambda a, b, s, blk: tcgen05mma_block_scale("Blackwell", f"m128n8k32.block32.f32.{a}.{b}.ue8m0"),
                                   32, ["e4m3", "e5m2"], "f32", [("ue8m0", 32)]),
    "blackwell_tcgen05_mxf4nvf4": (lambda a, b, s, blk: tcgen05mma_block_scale("Blackwell", f"m128n8k64.block{blk}.f32.e2m1.e2m1.{s}"),
                                   64, ["e2m1"], "f32", [("ue8m0", 32), ("ue8m0", 16), ("ue4m3", 16)]),
    # AMD CDNA3: MMA-Sim's CDNA1/CDNA2 f16/bf16 models fail (pairwise_dot asserts float32 operands)
    "cdna3_mfma_f16_f32": (lambda a, b: mfma("CDNA3", "f32_32x32x8_f16"), 8, ["f16"], "f32", None),
    "cdna3_mfma_bf16_f32": (lambda a, b: mfma("CDNA3", "f32_32x32x8_bf16"), 8, ["bf16"], "f32", None),
    "cdna3_mfma_fp8_f32": (lambda a, b: mfma("CDNA3", f"f32_16x16x32_{AMD_Q[a]}_{AMD_Q[b]}"), 32,
                           ["e4m3fnuz", "e5m2fnuz"], "f32", None),
    # AMD CDNA1/CDNA2 (pairwise_dot given float32 operands: the docstring)
    "cdna1_mfma_f16_f32": (lambda a, b: mfma("CDNA1", "f32_32x32x8f16"), 8, ["f16"], "f32", None),
    "cdna1_mfma_bf16_f32": (lambda a, b: mfma("CDNA1", "f32_32x32x4bf16"), 4, ["bf16"], "f32", None),
    "cdna2_mfma_f16_f32": (lambda a, b: mfma("CDNA2", "f32_32x32x8f16"), 8, ["f16"], "f32", None),
    "cdna2_mfma_bf16_f32": (lambda a, b: mfma("CDNA2", "f32_32x32x8bf16_1k"), 8, ["bf16"], "f32", None),
}
RESEED_FROM = "cdna1_mfma_f16_f32"
# kind::f8f6f4 / kind::mxf8f6f4 with FP4/FP6 operands: preset -> operand pairs (mma_vectors_f8f6f4.txt)
F6F4_PAIRS = [("e2m1", "e2m1"), ("e2m3", "e2m3"), ("e3m2", "e3m2"), ("e2m3", "e3m2"), ("e4m3", "e2m1"),
              ("e3m2", "e5m2"), ("e2m1", "e2m3"), ("e5m2", "e2m3")]
F6F4_PRESETS = ["blackwell_tcgen05_f8f6f4_f32", "blackwell_tcgen05_f8f6f4_f16", "blackwell_tcgen05_mxf8f6f4"]


def _widened_pairwise():
    """MMA-Sim's CDNA1/2 mfma with pairwise_dot given float32 operands (exact widening)."""
    import mmasim.simulator.amd as amd_sim
    orig = amd_sim.pairwise_dot
    amd_sim.pairwise_dot = lambda a, b, flush=False: orig(a.float(), b.float(), flush)


_widened_pairwise()

rng = random.Random(20261204)


def make_code(fmt, style):
    """A random operand code of `fmt` in `style` (finite unless 'special')."""
    e_bits, m_bits, _ = LAYOUT[fmt]
    bias = (1 << (e_bits - 1)) - 1
    sign = rng.getrandbits(1)
    e_max_field = (1 << e_bits) - 1 if fmt in ("e4m3", "e4m3fnuz", "e5m2fnuz") + FP4FP6 else (1 << e_bits) - 2
    if style == "zero" or (style != "special" and rng.random() < 0.04):
        e, m = 0, 0
    elif style == "sub":
        e = rng.choice([0, 0, 1, 2])
        m = rng.getrandbits(m_bits)
    elif style == "narrow":
        e = min(max(bias + rng.randint(-3, 3), 1), e_max_field)
        m = rng.getrandbits(m_bits)
    elif style == "mixed":
        e = rng.choice([rng.randint(0, 3), rng.randint(1, e_max_field), e_max_field - rng.randint(0, 2), bias])
        m = rng.getrandbits(m_bits)
    else:  # rand
        e = rng.randint(0, e_max_field)
        m = rng.getrandbits(m_bits)
    code = (sign << (e_bits + m_bits)) | (e << m_bits) | m
    if fmt == "e4m3" and (code & 0x7F) == 0x7F:
        code ^= 1  # NaN -> 448
    if fmt in ("e4m3fnuz", "e5m2fnuz") and code == 0x80:
        code = 0  # the FNUZ NaN
    if fmt in ("f16", "bf16") and style != "mixed" and e > bias + 12:
        code = (sign << (e_bits + m_bits)) | ((bias + 12) << m_bits) | m
    if fmt == "bf16" and style in ("rand",):
        code = (sign << 15) | ((bias + rng.randint(-20, 20)) << 7) | m
    if fmt == "tf32":  # f32 bits, low 13 bits random (MMA-Sim truncates them)
        ef = {"sub": rng.choice([0, 1, 2]), "narrow": 127 + rng.randint(-3, 3), "mixed": rng.choice([rng.randint(0, 254), 1, 127])}
        e32 = ef.get(style, 127 + rng.randint(-30, 30)) if (code & 0x7FFFFFFF) else 0
        code = (sign << 31) | (e32 << 23) | rng.getrandbits(23) if e32 else (sign << 31) | rng.getrandbits(23) * (style == "sub")
    return code


def special_code(fmt):
    if fmt == "e4m3":
        return rng.choice([0x7F, 0xFF])
    if fmt == "e5m2":
        return rng.choice([0x7C, 0xFC, 0x7E])
    if fmt == "f16":
        return rng.choice([0x7C00, 0xFC00, 0x7E00])
    if fmt == "bf16":
        return rng.choice([0x7F80, 0xFF80, 0x7FC0])
    return rng.choice([0x7F800000, 0xFF800000, 0x7FC00000])


def fp4fp6_value(code, fmt):
    e_bits, m_bits, _ = LAYOUT[fmt]
    bias = (1 << (e_bits - 1)) - 1
    e, m = (code >> m_bits) & ((1 << e_bits) - 1), code & ((1 << m_bits) - 1)
    v = m * 2.0 ** (1 - bias - m_bits) if e == 0 else (1 + m * 2.0 ** -m_bits) * 2.0 ** (e - bias)
    return -v if code >> (e_bits + m_bits) else v


def codes_to_tensor(codes, fmt, shape, packed=True):
    if fmt in FP4FP6 and not (packed and fmt == "e2m1"):  # kind::f8f6f4: the FNUZ FP8 carrier
        return torch.tensor([fp4fp6_value(c, fmt) for c in codes], dtype=torch.float64).reshape(shape).to(CARRIER[fmt][0])
    if fmt == "e2m1":  # packed two per byte, element 2i in the low nibble
        rows, cols = shape
        flat = []
        for r in range(rows):
            row = codes[r * cols:(r + 1) * cols]
            flat += [row[2 * i] | (row[2 * i + 1] << 4) for i in range(cols // 2)]
        return torch.tensor(flat, dtype=torch.uint8).reshape(rows, cols // 2)
    if fmt in ("e4m3", "e5m2", "ue8m0", "ue4m3", "e4m3fnuz", "e5m2fnuz"):
        return torch.tensor(codes, dtype=torch.uint8).reshape(shape).view(DT[fmt])
    if fmt in ("f16", "bf16"):
        return torch.tensor([c - 65536 if c >= 32768 else c for c in codes], dtype=torch.int16).reshape(shape).view(DT[fmt])
    return torch.tensor([c - (1 << 32) if c >= (1 << 31) else c for c in codes], dtype=torch.int32).reshape(shape).view(torch.float32)


def tensor_bits(t, acc):
    if acc == "f16":
        return [int(x) & 0xFFFF for x in t.contiguous().view(torch.int16).flatten().tolist()]
    return [int(x) & 0xFFFFFFFF for x in t.contiguous().view(torch.int32).flatten().tolist()]


def value_of(code, fmt):
    if fmt in FP4FP6:
        return fp4fp6_value(code, fmt)
    return codes_to_tensor([code], fmt, (1, 1)).double().item() if fmt != "tf32" else \
        codes_to_tensor([code], fmt, (1, 1)).item()


def acc_code(value, acc):
    t = torch.tensor([value], dtype=torch.float64).to(torch.float32)
    if acc == "f16":
        t = t.to(torch.float16)
    return tensor_bits(t, acc)[0]


def acc_random(acc, style, approx):
    if style == "zero":
        return 0
    if style == "neg_dot":  # cancels the (double) dot product
        return acc_code(-approx, acc)
    if style == "tiny":
        if acc == "f16":
            return rng.getrandbits(10) | (rng.getrandbits(1) << 15)
        return rng.getrandbits(23) | (rng.getrandbits(1) << 31) | (rng.choice([0, 1]) << 23)
    if style == "big":
        return acc_code(rng.choice([-1, 1]) * 2.0 ** rng.randint(6, 14) * (1 + rng.random()), acc)
    return acc_code(rng.choice([-1, 1]) * 2.0 ** rng.randint(-6, 6) * (1 + rng.random()), acc)


def scale_code(sfmt, style, top=254):
    if sfmt == "ue8m0":
        if style == "wide":  # mxf4nvf4: top 180, as MMA-Sim fails on an infinite C (an overflowed D chained)
            return rng.choice([0, 1, top, 127, rng.randint(0, top)])
        if style == "special":
            return 255
        return 127 + rng.randint(-6, 6)
    if style == "wide":
        return rng.choice([0, 1, 7, 0x7E, rng.randint(0, 0x7E)])
    if style == "special":
        return 0x7F
    return rng.randint(0x30, 0x48)


def gen_tile(preset, a_fmt, b_fmt, k_total, rows, styles, special=False, sfmt=None, block=0, full=False):
    ctor, ik, _, acc, scales = PRESETS[preset]
    f6f4 = ik == 32 and (a_fmt in FP4FP6 or b_fmt in FP4FP6)  # kind::f8f6f4 with FP4/FP6: the carriers
    qa, qb = ("e4m3" if f6f4 and a_fmt in FP4FP6 else a_fmt), ("e4m3" if f6f4 and b_fmt in FP4FP6 else b_fmt)
    sim = ctor(qa, qb) if scales is None else ctor(qa, qb, sfmt, block)
    if f6f4:
        from mmasim.simulator import arithmetic
        saved = dict(arithmetic.dtype_min_exponent)
        for f in (a_fmt, b_fmt):
            if f in FP4FP6:
                arithmetic.dtype_min_exponent[CARRIER[f][0]] = CARRIER[f][1]
        sim.a_type = CARRIER[a_fmt][0] if a_fmt in FP4FP6 else sim.a_type
        sim.b_type = CARRIER[b_fmt][0] if b_fmt in FP4FP6 else sim.b_type
    M, N = sim.m, sim.n
    if full:
        rows = M
    # operand codes (M x k_total and k_total x N), per-row / per-column styles
    A = [[0] * k_total for _ in range(M)]
    Bt = [[0] * k_total for _ in range(N)]
    row_style = [styles[i % len(styles)] for i in range(M)]
    col_style = [rng.choice(styles) for _ in range(N)]
    for i in range(M):
        st = row_style[i]
        for p in range(k_total):
            A[i][p] = make_code(a_fmt, "narrow" if st == "cancel" else st)
        if st == "cancel":
            h = k_total // 2
            for p in range(h, 2 * h):
                A[i][p] = A[i][p - h]
    for j in range(N):
        st = col_style[j]
        for p in range(k_total):
            Bt[j][p] = make_code(b_fmt, "narrow" if st == "cancel" else st)
        if st == "cancel":
            h = k_total // 2
            sbit = 1 << (LAYOUT[b_fmt][2] - 1)
            for p in range(h, 2 * h):
                Bt[j][p] = Bt[j][p - h] ^ sbit
                if b_fmt in ("e4m3fnuz", "e5m2fnuz") and Bt[j][p] == 0x80:
                    Bt[j][p] = 0
            Bt[j][rng.randrange(k_total)] = make_code(b_fmt, "narrow")
    if special and a_fmt not in FP4FP6 and b_fmt not in FP4FP6:  # FP4/FP6 have no Inf or NaN (the scales do)
        for _ in range(3):
            i, j, p = rng.randrange(min(rows, M)), rng.randrange(N), rng.randrange(k_total)
            if rng.random() < 0.5:
                A[i][p] = special_code(a_fmt)
            else:
                Bt[j][p] = special_code(b_fmt)
    # scales
    nblk = (k_total + block - 1) // block if block else 0
    top = 180 if ik == 64 else 254
    SA = [[scale_code(sfmt, rng.choice(["narrow", "narrow", "wide"]), top) for _ in range(nblk)] for _ in range(M)]
    SB = [[scale_code(sfmt, rng.choice(["narrow", "narrow", "wide"]), top) for _ in range(nblk)] for _ in range(N)]
    if special and block:
        SA[rng.randrange(min(rows, M))][0] = scale_code(sfmt, "special")
    # C: styles per element
    C = [[0] * N for _ in range(M)]
    for i in range(M):
        for j in range(N):
            approx = 0.0
            if a_fmt != "tf32":
                approx = sum(value_of(A[i][p], a_fmt) * value_of(Bt[j][p], b_fmt) for p in range(k_total)) \
                    if not block else 0.0
            st = rng.choice(["zero", "rand", "rand", "tiny", "big", "neg_dot" if math.isfinite(approx) else "rand"])
            if acc == "f32" and scales is not None and sfmt is not None:
                st = rng.choice(["zero", "rand", "tiny", "big"])
            C[i][j] = acc_random(acc, st, approx)
    # run MMA-Sim, chained over instruction-k chunks
    D = codes_to_tensor([c for r in C for c in r], acc, (M, N))
    for k0 in range(0, k_total, ik):
        a_codes = [A[i][k0 + p] if k0 + p < k_total else 0 for i in range(M) for p in range(ik)]
        b_codes = [Bt[j][k0 + p] if k0 + p < k_total else 0 for j in range(N) for p in range(ik)]
        At = codes_to_tensor(a_codes, a_fmt, (M, ik), ik == 64)
        Bm = codes_to_tensor(b_codes, b_fmt, (N, ik), ik == 64).T  # mxf4nvf4's e2m1: packed along k
        if scales is None:
            D = sim(At, Bm, D)
        else:
            nb = ik // block
            one = 127 if sfmt == "ue8m0" else 0x38
            sa = [SA[i][k0 // block + q] if k0 + q * block < k_total else one for i in range(M) for q in range(nb)]
            sb = [SB[j][k0 // block + q] if k0 + q * block < k_total else one for q in range(nb) for j in range(N)]
            D = sim(At, Bm, D, codes_to_tensor(sa, sfmt, (M, nb)), codes_to_tensor(sb, sfmt, (nb, N)))
    if f6f4:
        arithmetic.dtype_min_exponent.clear()
        arithmetic.dtype_min_exponent.update(saved)
    dbits = tensor_bits(D, acc)
    w, wc = WIDTH[a_fmt], (8 if acc == "f32" else 4)
    hx = lambda vals, width: "".join(format(v, "0%dx" % width) for v in vals)
    rec = [f"tile {preset} {a_fmt} {b_fmt} {rows} {N} {k_total} {sfmt or '-'} {block}"]
    rec.append("A " + hx([A[i][p] for i in range(rows) for p in range(k_total)], w))
    rec.append("B " + hx([Bt[j][p] for p in range(k_total) for j in range(N)], WIDTH[b_fmt]))
    rec.append("C " + hx([C[i][j] for i in range(rows) for j in range(N)], wc))
    if block:
        rec.append("SA " + hx([SA[i][q] for i in range(rows) for q in range(nblk)], 2))
        rec.append("SB " + hx([SB[j][q] for q in range(nblk) for j in range(N)], 2))
    rec.append("D " + hx(dbits[: rows * N], wc))
    return "\n".join(rec)


def time_mmasim():
    """--time: MMA-Sim's seconds per multiply-add on one tile of three instructions (bench/README.md)."""
    import time
    torch.manual_seed(0)
    cases = [("hopper_wgmma_fp8_f32", wgmma("Hopper", "m64n8k32.f32.e4m3.e4m3"), torch.float8_e4m3fn),
             ("ampere_mma_f16_f32", mma("Ampere", "m16n8k16.f32.f16.f16.f32"), torch.float16),
             ("volta_mma_f16_f32", mma("Volta", "m8n8k4.f32.f16.f16.f32"), torch.float16)]
    for name, sim, at in cases:
        A = torch.randn(sim.m, sim.k).to(at)
        B = torch.randn(sim.k, sim.n).to(at)
        C = torch.zeros(sim.m, sim.n)
        sim(A, B, C)
        best = 1e9
        for _ in range(3):
            t = time.perf_counter()
            sim(A, B, C)
            best = min(best, time.perf_counter() - t)
        print("%s: %.4f s per %dx%dx%d tile, %.2f us per multiply-add"
              % (name, best, sim.m, sim.n, sim.k, best * 1e6 / (sim.m * sim.n * sim.k)))


def main():
    if OUT == "--time":
        return time_mmasim()
    global rng
    out = ["# MMA-Sim tensor-core vectors, generated by tests/golden/gen_mma_vectors.py (see its docstring)."]
    only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
    reseed = False
    for preset, (_, ik, fmts, acc, scales) in PRESETS.items():
        reseed = reseed or preset == RESEED_FROM
        if only and preset not in only:
            continue
        if reseed:
            rng = random.Random("20261204 " + preset)
        pairs = [(a, b) for a in fmts for b in fmts]
        layouts = scales or [(None, 0)]
        rows = 8
        plan = [  # (k_total, styles, special)
            (ik, ["narrow", "rand", "mixed", "sub"], False),
            (ik, ["cancel", "narrow", "mixed"], False),
            (ik, ["sub", "zero", "narrow"], False),
            (3 * ik, ["narrow", "cancel", "mixed"], False),                 # chained C
            (ik + ik // 2 + 3 if ik > 4 else 7, ["rand", "mixed"], False),  # k not a multiple
            (ik, ["narrow", "rand"], True),                                  # Inf / NaN
        ]
        if preset.startswith("cdna"):  # Inf / NaN left out: MMA-Sim's AMD NaN bits follow x86's operand order
            plan = plan[:5]
        if preset == "blackwell_tcgen05_mxf4nvf4":
            plan = [(ik, ["narrow", "rand", "mixed", "sub"], False), (2 * ik, ["cancel", "rand"], False),
                    (ik + 32, ["rand", "mixed"], False), (ik, ["narrow"], True)]
        n = 0
        for t, (k_total, styles, special) in enumerate(plan):
            a, b = pairs[t % len(pairs)]
            for sfmt, block in (layouts if scales else [(None, 0)]):
                if sfmt and block and k_total % block:
                    continue
                out.append(gen_tile(preset, a, b, k_total, rows, styles, special, sfmt, block))
                n += 1
        if preset == "hopper_wgmma_fp8_f32":  # the case: a whole random m64n8k32 e4m3 tile
            out.append(gen_tile(preset, "e4m3", "e4m3", 32, 64, ["narrow"], full=True))
        print(preset, n, "tiles", file=sys.stderr)
    if not only or only != {"f8f6f4"}:
        with open(OUT, "w") as f:
            f.write("\n".join(out) + "\n")
    if only and "f8f6f4" not in only:
        return
    out = ["# MMA-Sim tensor-core vectors with FP4/FP6 operands (kind::f8f6f4, kind::mxf8f6f4), generated by",
           "# tests/golden/gen_mma_vectors.py (see its docstring: the operands' carrier and emin)."]
    for preset in F6F4_PRESETS:
        rng = random.Random("20261204 f8f6f4 " + preset)
        scales = PRESETS[preset][4]
        sfmt, block = scales[0] if scales else (None, 0)
        plan = [(32, ["narrow", "rand", "mixed", "sub"], False), (32, ["cancel", "narrow", "mixed"], False),
                (32, ["sub", "zero", "narrow"], False), (96, ["narrow", "cancel", "mixed"], False),
                (64 if block else 51, ["rand", "mixed"], False)]
        if block:
            plan.append((32, ["narrow", "rand"], True))  # a NaN scale
        n = 0
        for a, b in F6F4_PAIRS:
            for k_total, styles, special in plan:
                out.append(gen_tile(preset, a, b, k_total, 8, styles, special, sfmt, block))
                n += 1
        print(preset, "FP4/FP6", n, "tiles", file=sys.stderr)
    with open(OUT[:-4] + "_f8f6f4.txt", "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
