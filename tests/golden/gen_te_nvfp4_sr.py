#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden vectors for NVFP4 stochastic rounding with Transformer Engine's random bits
(mixprec::nvfp4_sr_layout::te_vector_blockwise), written to tests/golden/te_nvfp4_sr.golden and
checked by tests/test_nvfp4_te_sr.cpp.

An independent reference in plain Python (no NumPy, no mixprec): exact rational arithmetic
(fractions.Fraction) rounded once to float32 for every float operation. It follows
NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b (2026-08-22):

- transformer_engine/common/util/curanddx.hpp: philox4x32_native_state (Philox4x32-10, TE's
  default NVTE_BUILD_NUM_PHILOX_ROUNDS=10; init(seed, subsequence, offset): counter words z, w =
  subsequence, x, y = offset in 128-bit blocks; generate4() returns a block and adds 1 to the
  128-bit counter), checked here against the Random123 known-answer vectors;
- transformer_engine/common/transpose/quantize_transpose_vector_blockwise_fp4.cu:
  block_scaled_1d_cast_transpose_kernel as TE launches it (grid (ceil(cols/128), ceil(rows/128)),
  256 threads, rng_sequence = threadIdx.x + blockIdx.x * 256 + blockIdx.y * gridDim.x * 256,
  rng_state = {seed, offset}), simulated thread by thread, loop by loop: step 2 (rowwise output)
  and step 3 (columnwise output) draw their 32-bit words with get_rbits in program order; each
  word serves the four elements of one cvt call, element e of the four getting bits 8e..8e+7;
  the scales as the kernel computes them;
- transformer_engine/common/cast/nvfp4/specialized/quantize_transpose_nvfp4_tuned_1D.cuh (TE's
  BF16 kernel for 1D blocks, rows and cols multiples of 32; nvfp4_sr_layout::te_nvfp4_bf16):
  quantize_transpose_nvfp4_tuned_1D_kernel, not persistent, grid (ceil(cols/128), ceil(rows/128)),
  128 threads, rng_sequence = threadIdx.x + blockIdx.x * 128 + blockIdx.y * gridDim.x * 128; four
  64 x 64 stages, rowwise_scaling then colwise_scaling, simulated thread by thread ("bf16case");
  each word serves four elements, element e getting bits 8e..8e+7 (ptx_arch_spec.cuh,
  mul_cvt_bf16_to_fp4_8x_stochastic_rounding's software path); and for 16x16 blocks
  quantize_transpose_nvfp4_2D_kernel (cast/nvfp4/quantize_transpose_nvfp4.cuh), its rowwise output,
  likewise (mul_cvt_bf16_to_fp4_4x's software path);
- transformer_engine/common/util/ptx.cuh: stochastic_round_fp4_e2m1 (the software rounder TE runs
  where cvt.rs is missing; on sm_100/103/107 TE issues cvt.rs.satfinite.e2m1x4.f32, which TE's
  source says takes the same 8 bits per element; not verified here: no GPU).

Run: python3 tests/golden/gen_te_nvfp4_sr.py (writes the file; --check compares instead).
"""
import struct
import sys
from fractions import Fraction
from pathlib import Path

OUT = Path(__file__).with_name("te_nvfp4_sr.golden")
M32 = 0xFFFFFFFF
FLT_MAX = Fraction((2 ** 24 - 1) * 2 ** 104)


# ---- float32 -------------------------------------------------------------------------------
def f32_from_bits(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def round_f32(q):
    """The float32 nearest to the rational q (ties to even), as a Python float; inf beyond."""
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)  # subnormals share the exponent of the smallest normal
    ulp = Fraction(2) ** (e - 23)
    n, rem = divmod(a, ulp)
    n = int(n)
    if rem > ulp / 2 or (rem == ulp / 2 and n % 2 == 1):
        n += 1
    v = n * ulp
    if v > FLT_MAX:
        return sign * float("inf")
    return sign * float(v)


def is_neg(v):
    return v < 0 or (v == 0 and str(v).startswith("-"))


def fmul(a, b):
    r = round_f32(Fraction(a) * Fraction(b))
    if r == 0:  # the sign of a zero product: the xor of the signs
        return -0.0 if is_neg(a) != is_neg(b) else 0.0
    return r


def fdiv(a, b):
    if b == 0:
        return float("inf") if a > 0 else float("-inf")
    return round_f32(Fraction(a) / Fraction(b))


def fminf(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return a if a < b else b


def e4m3_satfinite(v):
    """cuda's __nv_fp8_e4m3 from float (satfinite, nearest even) for v >= 0, as a float."""
    if v != v:
        return float("nan")
    a = Fraction(v)
    if a >= 448:
        return 448.0
    if a == 0:
        return 0.0
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -6)
    ulp = Fraction(2) ** (e - 3)
    n, rem = divmod(a, ulp)
    n = int(n)
    if rem > ulp / 2 or (rem == ulp / 2 and n % 2 == 1):
        n += 1
    return float(min(n * ulp, Fraction(448)))


def e4m3_code(v):
    if v == 0:
        return 0
    e = int(Fraction(v).numerator.bit_length() - Fraction(v).denominator.bit_length())
    if Fraction(2) ** e > Fraction(v):
        e -= 1
    if e < -6:
        return int(Fraction(v) / Fraction(2) ** -9)  # subnormal: m * 2^-9
    m = int(Fraction(v) / Fraction(2) ** (e - 3)) - 8
    return ((e + 7) << 3) | m


E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def e2m1_code(q):
    """The E2M1 code of a grid value (the sign bit kept, -0 -> 0x8)."""
    neg = q < 0 or (q == 0 and str(q).startswith("-"))
    return (8 if neg else 0) | E2M1.index(abs(q))


# ---- TE's rounder (util/ptx.cuh, stochastic_round_fp4_e2m1) -------------------------------
def te_sr_e2m1(x, r8):
    u = (r8 & 0xFF) / 256.0  # exact
    a = abs(x)
    step = 2.0 if a >= 4.0 else (1.0 if a >= 2.0 else 0.5)
    if a != a or a == float("inf"):
        t = a
    else:
        t = round_f32(Fraction(u) * Fraction(step) + Fraction(a))  # fmaf: one rounding
    step_t = 2.0 if t >= 4.0 else (1.0 if t >= 2.0 else 0.5)
    inv_step_t = 0.5 if t >= 4.0 else (1.0 if t >= 2.0 else 2.0)
    if t != t:
        q = 6.0  # fminf(NaN, 6)
    elif t == float("inf"):
        q = 6.0
    else:
        q = min(float(int(t * inv_step_t)) * step_t, 6.0)  # t >= 0: floor; the products are exact
    sign_neg = (x == x) and (x < 0 or (x == 0 and str(x).startswith("-")))
    return -q if sign_neg else q  # copysignf(q, x != x ? 1 : x); -q of 0.0 is -0.0


# ---- Philox4x32-10 (util/curanddx.hpp) -----------------------------------------------------
def philox_round(c, k):
    p0 = 0xD2511F53 * c[0]
    p1 = 0xCD9E8D57 * c[2]
    return [((p1 >> 32) ^ c[1] ^ k[0]) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k[1]) & M32, p0 & M32]


def philox4x32(c, k, rounds=10):
    c, k = list(c), list(k)
    for _ in range(rounds - 1):
        c = philox_round(c, k)
        k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
    return philox_round(c, k)


# Random123 kat_vectors, philox4x32 10 rounds
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([M32] * 4, [M32, M32], [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


class TeState:
    """philox4x32_native_state: the counter as four words, init and generate4 as TE writes them."""

    def __init__(self, seed, subsequence, offset):
        self.key = [seed & M32, (seed >> 32) & M32]
        ctr = [0, 0, 0, 0]
        # skip_subsequence -> philox_state_incr_hi
        nlo, nhi = subsequence & M32, (subsequence >> 32) & M32
        ctr[2] = (ctr[2] + nlo) & M32
        if ctr[2] < nlo:
            nhi = (nhi + 1) & M32
        ctr[3] = (ctr[3] + nhi) & M32
        # skip_offset -> philox_state_incr(n)
        nlo, nhi = offset & M32, (offset >> 32) & M32
        ctr[0] = (ctr[0] + nlo) & M32
        if ctr[0] < nlo:
            nhi = (nhi + 1) & M32
        ctr[1] = (ctr[1] + nhi) & M32
        if not nhi <= ctr[1]:
            ctr[2] = (ctr[2] + 1) & M32
            if ctr[2] == 0:
                ctr[3] = (ctr[3] + 1) & M32
        self.ctr = ctr

    def generate4(self):
        out = philox4x32(self.ctr, self.key)
        for w in range(4):  # philox_state_incr(): ++x, carry on
            self.ctr[w] = (self.ctr[w] + 1) & M32
            if self.ctr[w] != 0:
                break
        return out


# ---- the kernel, thread by thread ----------------------------------------------------------
def kernel_rbits(rows, cols, seed, offset, identity, transpose):
    """{(i, j): 8-bit r} for the rowwise (identity) and columnwise (transpose) outputs, from
    block_scaled_1d_cast_transpose_kernel's loops (kTileDim 128, 256 threads, kNVecOut 16,
    kNVecSMem 2, kNumThreadsStore 8)."""
    grid_x, grid_y = -(-cols // 128), -(-rows // 128)
    row_bits, col_bits = {}, {}
    for by in range(grid_y):
        for bx in range(grid_x):
            for tid in range(256):
                st = TeState(seed, tid + bx * 256 + by * grid_x * 256, offset)
                words = st.generate4()
                idx = [0]

                def get_rbits():
                    nonlocal words
                    if idx[0] == 4:
                        idx[0] = 0
                        words = st.generate4()
                    w = words[idx[0]]
                    idx[0] += 1
                    return w

                if identity:  # step 2
                    c_s = (tid % 8) * 8  # in pairs
                    r_s = tid // 8
                    for _it in range(4):
                        for i in range(0, 8, 2):  # smem_vec pairs i, i + 1: columns 2i .. 2i + 3
                            r = get_rbits()
                            for e in range(4):
                                gi, gj = by * 128 + r_s, bx * 128 + (c_s + i) * 2 + e
                                row_bits[(gi, gj)] = (r >> (8 * e)) & 0xFF
                        r_s += 32
                if transpose:  # step 3
                    r_s = (tid % 8) * 16
                    c_s = tid // 8
                    for _it in range(2):
                        for smem_idx in range(2):
                            for i in range(0, 8, 2):  # rows 2i .. 2i + 3 of the 16
                                r = get_rbits()
                                for e in range(4):
                                    gi, gj = by * 128 + r_s + 2 * i + e, bx * 128 + c_s * 2 + smem_idx
                                    col_bits[(gi, gj)] = (r >> (8 * e)) & 0xFF
                        c_s += 32
    return row_bits, col_bits


def tuned_1d_rbits(rows, cols, seed, offset, transpose):
    """{(i, j): 8-bit r} for the rowwise and columnwise outputs of TE's BF16 NVFP4 kernel
    (cast/nvfp4/specialized/quantize_transpose_nvfp4_tuned_1D.cuh, not persistent: one 128 x 128
    chunk per CTA of 128 threads, 4 stages of 64 x 64 tiles; each stage rowwise_scaling, then
    colwise_scaling when the transpose is written; two get_rbits per 8 elements)."""
    grid_x, grid_y = -(-cols // 128), -(-rows // 128)
    row_bits, col_bits = {}, {}
    for by in range(grid_y):
        for bx in range(grid_x):
            for tid in range(128):
                st = TeState(seed, tid + bx * 128 + by * grid_x * 128, offset)
                words = st.generate4()
                idx = [0]

                def get_rbits():
                    nonlocal words
                    if idx[0] == 4:
                        idx[0] = 0
                        words = st.generate4()
                    w = words[idx[0]]
                    idx[0] += 1
                    return w

                warp, lane = tid // 32, tid % 32
                bank_group = lane // 16  # THREADS_PER_BANK = 256 / 16
                for stage in range(4):
                    oy, ox = by * 128 + (stage // 2) * 64, bx * 128 + (stage % 2) * 64
                    for it in range(2):  # rowwise_scaling: 4 x 32 threads, 16 elements each
                        i = oy + it * 32 + tid // 4
                        for w in range(2):
                            j0 = ox + (tid % 4) * 16 + ((w + bank_group) * 8) % 16
                            r03, r47 = get_rbits(), get_rbits()
                            for e in range(4):
                                row_bits[(i, j0 + e)] = (r03 >> (8 * e)) & 0xFF
                                row_bits[(i, j0 + 4 + e)] = (r47 >> (8 * e)) & 0xFF
                    if transpose:  # colwise_scaling: columns 2 lane, 2 lane + 1; 16 rows
                        i0 = oy + ((lane // 2 + warp) % 4) * 16
                        for w in range(2):
                            for e in range(2):
                                r03, r47 = get_rbits(), get_rbits()
                                for q in range(4):
                                    col_bits[(i0 + 8 * e + q, ox + 2 * lane + w)] = (r03 >> (8 * q)) & 0xFF
                                    col_bits[(i0 + 8 * e + 4 + q, ox + 2 * lane + w)] = (r47 >> (8 * q)) & 0xFF
    return row_bits, col_bits


def nvfp4_2d_rbits(rows, cols, seed, offset, transpose):
    """{(i, j): 8-bit r} for the rowwise output of TE's BF16 2D (16x16) NVFP4 kernel
    (cast/nvfp4/quantize_transpose_nvfp4.cuh, quantize_transpose_nvfp4_2D_kernel: 128 threads per
    128 x 128 chunk, 4 stages of 32 rows; each stage the columnwise pass when the transpose is
    written (ITERATIONS_TRANSPOSE 2 x 4 get_rbits), then the rowwise pass (ITERATIONS_NORMAL 2 x
    WAVES 2 x 2 get_rbits); one get_rbits per 4 elements)."""
    grid_x, grid_y = -(-cols // 128), -(-rows // 128)
    row_bits = {}
    for by in range(grid_y):
        for bx in range(grid_x):
            for tid in range(128):
                st = TeState(seed, tid + bx * 128 + by * grid_x * 128, offset)
                words = st.generate4()
                idx = [0]

                def get_rbits():
                    nonlocal words
                    if idx[0] == 4:
                        idx[0] = 0
                        words = st.generate4()
                    w = words[idx[0]]
                    idx[0] += 1
                    return w

                bank_group = (tid % 32) // 16  # THREADS_PER_BANK = 256 / 16
                for stage in range(4):
                    if transpose:
                        for _it in range(2):
                            for _e in range(4):
                                get_rbits()  # the columnwise output's words (not kept)
                    for it in range(2):  # THREADS_X_ROWWISE 8, THREADS_Y_ROWWISE 16
                        i = by * 128 + stage * 32 + it * 16 + tid // 8
                        for w in range(2):
                            j0 = bx * 128 + (tid % 8) * 16 + ((w + bank_group) * 8) % 16
                            for e in range(2):
                                r = get_rbits()
                                for q in range(4):
                                    row_bits[(i, j0 + 4 * e + q)] = (r >> (8 * q)) & 0xFF
    return row_bits


def te_quantize(x, rows, cols, block, rbits):
    """TE's float32 path: (scale codes row-major over blocks, element codes row-major)."""
    amax = 0.0
    for v in x:
        amax = max(amax, abs(v))
    s_enc = fminf(fdiv(2688.0, amax), f32_from_bits(0x7F7FFFFF)) if amax != 0 else 1.0
    if amax == 0 or s_enc == 0:
        s_enc = 1.0
    mult = fmul(s_enc, round_f32(Fraction(1, 6)))
    dec = round_f32(Fraction(1) / Fraction(s_enc))  # float(1.0 / S_enc): double, then float (innocuous)
    br, bc = block
    scales, elems = [], [0] * (rows * cols)
    for i0 in range(0, rows, br):
        for j0 in range(0, cols, bc):
            idx = [(i, j) for i in range(i0, min(rows, i0 + br)) for j in range(j0, min(cols, j0 + bc))]
            b = 0.0
            for (i, j) in idx:
                b = max(b, abs(x[i * cols + j]))
            s = e4m3_satfinite(fminf(fmul(b, mult), f32_from_bits(0x7F7FFFFF)))
            scales.append(e4m3_code(s))
            den = fmul(s, dec)
            enc = fminf(fdiv(1.0, den), f32_from_bits(0x7F7FFFFF))
            for (i, j) in idx:
                y = fmul(x[i * cols + j], enc)
                elems[i * cols + j] = e2m1_code(te_sr_e2m1(y, rbits[(i, j)]))
    return scales, elems


# ---- inputs --------------------------------------------------------------------------------
def splitmix(z):
    z = (z + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def input_bits(n, salt):
    """Float32 bit patterns: r = splitmix64(salt * 2^32 + k); exponent field 121 + (r >> 32) % 8
    (2^-6 .. 2^1), mantissa r & 0x7FFFFF, sign bit (r >> 63); every 61st value 0, every 67th -0.
    tests/test_nvfp4_te_sr.cpp draws the same."""
    out = []
    for k in range(n):
        if k % 61 == 60:
            out.append(0)
            continue
        if k % 67 == 66:
            out.append(0x80000000)
            continue
        r = splitmix((salt << 32) + k)
        exp = 121 + (r >> 32) % 8
        out.append(((r >> 63) << 31) | (exp << 23) | (r & 0x7FFFFF))
    return out


CASES = [  # name, rows, cols, block kind, after_rowwise, seed, offset, salt
    ("row_tile", 128, 128, "row", True, 0, 0, 1),
    ("row_unaligned", 136, 200, "row", True, 0x123456789ABCDEF0, 12345, 2),
    ("col_after_row", 136, 200, "col", True, 0x123456789ABCDEF0, 12345, 2),
    ("col_alone", 136, 200, "col", False, 0x123456789ABCDEF0, 12345, 2),
    ("tiles16", 144, 160, "tile", True, 777, 4, 3),
    ("row_carry", 48, 64, "row", True, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE, 4),
    ("col_carry", 48, 64, "col", True, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE, 4),
    ("row_partial", 37, 40, "row", True, 42, 7, 5),
    ("col_partial", 37, 40, "col", False, 42, 7, 5),
]

BF16_CASES = [  # name, rows, cols, block kind, with_columnwise, seed, offset, salt (inputs: bfloat16 values)
    ("bf16_row_tile", 128, 128, "row", True, 0, 0, 11),
    ("bf16_row_alone", 128, 128, "row", False, 0, 0, 11),
    ("bf16_row_partial", 160, 224, "row", True, 0x123456789ABCDEF0, 12345, 12),
    ("bf16_col_partial", 160, 224, "col", True, 0x123456789ABCDEF0, 12345, 12),
    ("bf16_row_carry", 64, 96, "row", False, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE, 13),
    ("bf16_col_carry", 64, 96, "col", True, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE, 13),
    ("bf16_tiles_with_col", 160, 224, "tile", True, 777, 4, 14),
    ("bf16_tiles_alone", 128, 128, "tile", False, 777, 4, 15),
]

# rounder table: x bit patterns x every r8 in R8S, plus the fmaf edge case
ROUNDER_X = [0x00000000, 0x80000000, 0x3E800000, 0xBE800000, 0x3F000000, 0x3F400000, 0x3FA00000, 0xBFE00000,
             0x40100000, 0x40300000, 0xC0500000, 0x40A00000, 0x40B00000, 0x40C00000, 0x40C80000, 0x41000000,
             0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x00000001, 0x3BFFFFF0, 0x3EFFFFFF, 0x3FFFFFFF,
             0x407FFFFF, 0x40BFFFFF]
R8S = [0, 1, 64, 127, 128, 129, 200, 254, 255]
EDGE = [(0x3AFFFFF0, 255), (0x3AFFFFF0, 254), (0x3B000000, 255)]  # 2^-9 - 2^-26: fmaf rounds t up to 0.5


def fnv(bits):
    h = 0xCBF29CE484222325
    for b in bits:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def generate():
    for ctr, key, want in KAT:
        got = philox4x32(ctr, key)
        assert got == want, ("Random123 known-answer vector", ctr, key, [hex(w) for w in got])
    lines = ["mixprec-te-nvfp4-sr 1",
             "# gen_te_nvfp4_sr.py; TransformerEngine d0067d0da6cb01811b8072a7d304f0e00344ce2b",
             "# rounder <x bits> <r8> <e2m1 code>: util/ptx.cuh stochastic_round_fp4_e2m1"]
    for xb in ROUNDER_X:
        for r8 in R8S:
            lines.append("rounder %08x %d %x" % (xb, r8, e2m1_code(te_sr_e2m1(f32_from_bits(xb), r8))))
    for xb, r8 in EDGE:
        lines.append("rounder %08x %d %x" % (xb, r8, e2m1_code(te_sr_e2m1(f32_from_bits(xb), r8))))
    lines.append("# philox <seed> <subsequence> <offset> <k> <4 words>: TE's state after init, k-th generate4")
    for seed, seq, off, k in [(0, 0, 0, 0), (123, 321, 0, 3), (2 ** 64 - 1, 5, 2 ** 64 - 2, 1),
                              (2 ** 64 - 1, 5, 2 ** 64 - 2, 2), (7, 2 ** 32 - 1, 2 ** 32 - 1, 1)]:
        st = TeState(seed, seq, off)
        for _ in range(k):
            st.generate4()
        lines.append("philox %d %d %d %d %s" % (seed, seq, off, k, " ".join("%08x" % w for w in st.generate4())))
    lines.append("# case <name> <rows> <cols> <row|col|tile> <after_rowwise> <seed> <offset> <salt> <fnv64 of input>;"
                 " then scales (2 hex digits each) and elems (1 hex digit each), row-major")
    for name, rows, cols, kind, after, seed, offset, salt in CASES:
        bits = input_bits(rows * cols, salt)
        x = [f32_from_bits(b) for b in bits]
        row_bits, col_bits = kernel_rbits(rows, cols, seed, offset, identity=(kind != "col" or after),
                                          transpose=(kind == "col"))
        block = {"row": (1, 16), "col": (16, 1), "tile": (16, 16)}[kind]
        scales, elems = te_quantize(x, rows, cols, block, col_bits if kind == "col" else row_bits)
        lines.append("case %s %d %d %s %d %d %d %d %016x" % (name, rows, cols, kind, int(after), seed, offset, salt,
                                                            fnv(bits)))
        lines.append("scales " + "".join("%02x" % s for s in scales))
        lines.append("elems " + "".join("%x" % e for e in elems))
    lines.append("# bf16case <name> <rows> <cols> <row|col|tile> <with_columnwise> <seed> <offset> <salt> <fnv64 of input>:"
                 " TE's BF16 kernels (tuned 1D; 2D for tile); input_bits with the low 16 bits cleared; scales, elems as above")
    for name, rows, cols, kind, with_col, seed, offset, salt in BF16_CASES:
        bits = [b & 0xFFFF0000 for b in input_bits(rows * cols, salt)]
        x = [f32_from_bits(b) for b in bits]
        if kind == "tile":
            rbits = nvfp4_2d_rbits(rows, cols, seed, offset, transpose=with_col)
        else:
            row_bits, col_bits = tuned_1d_rbits(rows, cols, seed, offset, transpose=(kind == "col" or with_col))
            rbits = col_bits if kind == "col" else row_bits
        scales, elems = te_quantize(x, rows, cols, {"row": (1, 16), "col": (16, 1), "tile": (16, 16)}[kind], rbits)
        lines.append("bf16case %s %d %d %s %d %d %d %d %016x" % (name, rows, cols, kind, int(with_col), seed, offset,
                                                                salt, fnv(bits)))
        lines.append("scales " + "".join("%02x" % s for s in scales))
        lines.append("elems " + "".join("%x" % e for e in elems))
    return "\n".join(lines) + "\n"


def main():
    text = generate()
    if "--check" in sys.argv[1:]:
        same = OUT.exists() and OUT.read_text() == text
        print("te_nvfp4_sr.golden", "matches" if same else "DIFFERS")
        return 0 if same else 1
    OUT.write_text(text)
    print("wrote", OUT, len(text), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
