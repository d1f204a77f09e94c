#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the ml_dtypes golden vectors checked by tests/test_golden_ml_dtypes.cpp.

    python3 tests/golden/gen.py            # rewrites tests/golden/*.golden and the
                                           # generated block of tests/golden/README.md
    python3 tests/golden/gen.py --check    # regenerates in memory, compares, writes nothing

Deterministic: fixed seeds, no dependence on time or environment beyond the ml_dtypes and
numpy versions (README.md says which ones produced the committed files).

For every format ml_dtypes and mixprec share, <name>.golden holds
  decode         every bit pattern -> float32 bits (ml_dtypes/numpy astype(float32))
  from_f32       a structured float32 input set -> bits (ml_dtypes astype from float32,
                 round to nearest even): exact values, midpoints between neighbours and the
                 float32 values one ulp either side, values around max/overflow/the smallest
                 subnormal/half of it, +-0, +-inf, NaNs
  from_f32_range ~20000 random float32 values in the format's range (half linear, half
                 log-uniform so that subnormals get their share)
  from_f32_bits  the 20000 random float32 bit patterns of random.golden -> bits
  from_f64       a structured float64 input set -> the EXACTLY rounded bits (computed here
                 with fractions.Fraction, not taken from ml_dtypes: ml_dtypes rounds float64
                 through float32, twice; the disagreements are counted in README.md)
  from_f64_range random float64 values in the format's range -> exact bits
  from_f64_bits  the random float64 bit patterns of random.golden -> exact bits
NaN inputs have no "exact" result: their outputs in from_f64* are ml_dtypes' own.

The exact rounding below is also run on every non-NaN float32 input and must agree with
ml_dtypes there (a single rounding, which ml_dtypes gets right); the script stops otherwise.

File layout (little-endian), readable without Python:
  line  "mixprec-golden 1 format=<name> bits=<n>\\n"
  then per section a line
        "section <name> in=<I> out=<O> count=<N> inputs=<inline|index|random_f32|random_f64>
         crc32=<8 hex digits>\\n"
  followed by N*I bytes of inputs (inputs=inline only; index: the inputs are 0..N-1; random_*:
  the inputs are the section of that name in random.golden) and N*O bytes of outputs; the
  CRC-32 (zlib) covers those bytes. The file ends with the line "end\\n".
"""

import argparse
import bisect
import math
import os
import sys
import warnings
import zlib
from fractions import Fraction

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 0x6D697870  # "mixp"

N_F32_RANGE = 20000
N_F32_BITS = 20000
N_F64_RANGE = 2000
N_F64_BITS = 5000
N_SAMPLE_16 = 5000  # 16-bit formats: neighbour pairs / exact values sampled for the structured sets
N_SAMPLE_16_F64 = 2000

# name, dtype, width in bits, encoding (as mixprec::encoding names it)
FORMATS = [
    ("bfloat16", ml_dtypes.bfloat16, 16, "ieee"),
    ("float16", np.float16, 16, "ieee"),
    ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 8, "fn"),
    ("float8_e5m2", ml_dtypes.float8_e5m2, 8, "ieee"),
    ("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 8, "fnuz"),
    ("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 8, "fnuz"),
    ("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, 8, "exponent_only"),
    ("float8_e3m4", ml_dtypes.float8_e3m4, 8, "ieee"),
    ("float8_e4m3", ml_dtypes.float8_e4m3, 8, "ieee"),
    ("float6_e2m3fn", ml_dtypes.float6_e2m3fn, 6, "finite"),
    ("float6_e3m2fn", ml_dtypes.float6_e3m2fn, 6, "finite"),
    ("float4_e2m1fn", ml_dtypes.float4_e2m1fn, 4, "finite"),
    # (Appended: each format's random inputs are seeded by its position in this list.)
    ("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, 8, "fnuz"),
]

# Formats ml_dtypes does not have. Their golden files are computed here alone, from the field
# definitions below (exponent bits, mantissa bits, bias, sign bit, encoding), typed in from
# their published descriptions, with the same exact rounding (fractions.Fraction) as above;
# NaN inputs give the format's NaN (float4_e1m2, which has none: +max, mixprec's and CUDA's
# rule for the MX element types; the test does not compare those).
#   name, width in bits, (E, M, bias, signed, encoding)
EXACT_FORMATS = [
    # CUTLASS float_ue4m3_t (FpBitRepresentation<uint8_t, 8, 4, 3, CANONICAL_ONLY, unsigned>),
    # CUDA_R_8F_UE4M3: E4M3 without sign, NaN = 0x7F, max 448; 7 bits in a byte.
    ("float8_ue4m3", 7, (4, 3, 7, False, "fn")),
    # CUTLASS FpEncoding::UE5M3 (<uint8_t, 8, 5, 3, CANONICAL_ONLY, unsigned>): NaN = 0xFF, max 114688.
    ("float8_ue5m3", 8, (5, 3, 15, False, "fn")),
    # S.E.MM, bias 0, no Inf/NaN (ml_dtypes#281): 0, 0.5, ..., 3.5.
    ("float4_e1m2", 4, (1, 2, 0, True, "finite")),
]

# Known ml_dtypes errors on the float32 path (a single rounding, which ml_dtypes otherwise gets
# right): predicates on the float32 input bits. The golden files hold the exact result there;
# README.md counts these cases. Any other difference stops the script.
KNOWN_F32_ERRORS = {
    # float8_e8m0fnu from a float32 subnormal in (2^-127, 1.5 * 2^-127): ml_dtypes gives 2^-126
    # (code 1) instead of the nearer 2^-127 (code 0). It appears to round the float32 bit pattern
    # rather than the value, which coincide for normal inputs only.
    "float8_e8m0fnu": lambda b: 0x400000 < (b & 0x7FFFFFFF) < 0x600000 and not b >> 31,
}

F32_NANS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FA00000, 0x7FFFFFFF, 0xFFE12345, 0x7FD55555]
F64_NANS = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF4000000000000,
            0x7FF8123456789ABC, 0x7FFFFFFFFFFFFFFF]


def f32_from_bits(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def f64_from_bits(bits):
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def dedupe(bits):
    """Unique values, first occurrence order kept."""
    seen = {}
    for b in bits:
        seen.setdefault(int(b), None)
    return list(seen)


def spec_value(code, spec):
    """The value of a code from the field definition (E, M, bias, signed, encoding): a Fraction,
    or a float for NaN and infinities."""
    e, m, bias, signed, enc = spec
    neg = signed and (code >> (e + m)) & 1
    mag = code & ((1 << (e + m)) - 1)
    field, mant = mag >> m, mag & ((1 << m) - 1)
    if enc == "fn" and mag == (1 << (e + m)) - 1:
        return math.nan
    if enc == "ieee" and field == (1 << e) - 1:
        return math.nan if mant else (-math.inf if neg else math.inf)
    if field == 0:
        v = Fraction(mant, 1 << m) * Fraction(2) ** (1 - bias)
    else:
        v = (1 + Fraction(mant, 1 << m)) * Fraction(2) ** (field - bias)
    if v == 0:
        return -0.0 if neg else 0.0
    return -v if neg else v


class Format:
    def __init__(self, name, dtype, nbits, enc, spec=None):
        self.name, self.dtype, self.bits, self.enc, self.spec = name, dtype, nbits, enc, spec
        self.view = np.uint16 if nbits == 16 else np.uint8
        self.out_bytes = 2 if nbits == 16 else 1
        self.signed = enc != "exponent_only" and (spec is None or spec[3])
        self.sign_bit = (1 << (nbits - 1)) if self.signed else 0
        codes = np.arange(1 << nbits, dtype=self.view)
        if spec is None:
            self.decode = codes.view(dtype).astype(np.float32).view(np.uint32)
        else:
            vals = [spec_value(c, spec) for c in range(1 << nbits)]
            assert all(math.isnan(v) or math.isinf(v) or Fraction(float(np.float32(float(v)))) == v for v in vals)
            self.decode = np.array([float(v) for v in vals], dtype=np.float32).view(np.uint32)
        dec = self.decode.view(np.float32)
        self.nan_codes = {int(c) for c in range(1 << nbits) if np.isnan(dec[c])}
        # Positive finite values, in code order: must be increasing.
        half = self.sign_bit if self.signed else (1 << nbits)
        self.vals, self.codes = [], []
        for c in range(half):
            v = float(dec[c])
            if math.isfinite(v):
                self.vals.append(Fraction(v))
                self.codes.append(c)
        assert all(a < b for a, b in zip(self.vals, self.vals[1:])), name
        assert self.codes == list(range(len(self.codes))), name
        self.max_code = self.codes[-1]
        self.maxv = self.vals[-1]
        # The value the next code would have with an unbounded exponent.
        self.nextv = 2 * self.maxv if enc == "exponent_only" else 2 * self.maxv - self.vals[-2]
        self.has_zero = enc != "exponent_only"
        self.smallest = self.vals[1] if self.has_zero else self.vals[0]
        if enc == "ieee":
            assert not math.isfinite(float(dec[self.max_code + 1])), name

    # --- exact round-to-nearest-even from a Python float (float32 inputs are exact in it) ---
    def overflow_code(self, neg):
        s = self.sign_bit if neg else 0
        if self.enc == "ieee":
            return s | (self.max_code + 1)  # infinity
        if self.enc == "fn":
            return s | (self.sign_bit - 1 if self.signed else (1 << self.bits) - 1)  # S.1111.111: NaN
        if self.enc == "fnuz":
            return self.sign_bit  # the only NaN
        if self.enc == "finite":
            return s | self.max_code  # saturates: no Inf, no NaN
        return 0xFF  # e8m0: NaN

    def zero_code(self, neg):
        return self.sign_bit if (neg and self.enc in ("ieee", "fn", "finite")) else 0

    def round_exact(self, x):
        """Bits of x rounded once to nearest (ties to even; ties away for e8m0, whose
        significand has no bits), or None for NaN (no exact result)."""
        if math.isnan(x):
            return None
        neg = math.copysign(1.0, x) < 0
        if self.enc == "exponent_only" and (neg or x == 0):
            return 0xFF  # no sign, no zero: NaN
        if not self.signed and neg:
            # Unsigned with a zero: -0 is 0, other negative values NaN (0 without NaN).
            return 0 if x == 0 or self.enc == "finite" else self.overflow_code(False)
        if math.isinf(x):
            return self.overflow_code(neg)
        if x == 0:
            return self.zero_code(neg)
        a = Fraction(abs(x))
        i = bisect.bisect_left(self.vals, a)
        if i < len(self.vals) and self.vals[i] == a:
            mag = self.codes[i]
        elif i == 0:
            mag = self.codes[0]  # e8m0 only: below 2^-127 clamps to 2^-127
        else:
            if i == len(self.vals):
                lo, hi, lo_code, hi_code = self.maxv, self.nextv, self.max_code, self.max_code + 1
                if a >= hi:
                    return self.overflow_code(neg)
            else:
                lo, hi, lo_code, hi_code = self.vals[i - 1], self.vals[i], self.codes[i - 1], self.codes[i]
            mid = (lo + hi) / 2
            if a < mid:
                mag = lo_code
            elif a > mid:
                mag = hi_code
            elif self.enc == "exponent_only":
                mag = hi_code
            else:
                mag = lo_code if lo_code % 2 == 0 else hi_code
        if mag > self.max_code:
            return self.overflow_code(neg)
        if self.has_zero and mag == 0:
            return self.zero_code(neg)
        return (self.sign_bit if neg else 0) | mag

    def ml_from(self, xs):
        if self.spec is not None:  # not in ml_dtypes: the exact result; NaN -> the format's NaN
            out = [self.round_exact(x) for x in np.asarray(xs).tolist()]
            return np.array([self.nan_result() if e is None else e for e in out], dtype=np.uint64)
        return np.asarray(xs).astype(self.dtype).view(self.view)

    def nan_result(self):
        if self.enc == "finite":
            return self.max_code  # no NaN: +max (mixprec, CUDA); not compared by the test
        return self.overflow_code(False) if self.enc == "fn" else self.sign_bit


# --- input sets ------------------------------------------------------------------------------

def signed_both(values):
    out = []
    for v in values:
        out += [v, -v]
    return out


def f32_structured(fmt, rng):
    vals = fmt.vals
    n = len(vals)
    if fmt.bits <= 8:
        exact_idx = range(n)
        mid_idx = range(n - 1)
    else:
        exact_idx = sorted(set(rng.choice(n, N_SAMPLE_16 // 2, replace=False).tolist()) | {0, 1, 2, n - 2, n - 1})
        mid_idx = sorted(set(rng.choice(n - 1, N_SAMPLE_16 // 2, replace=False).tolist()) | {0, 1, n - 2})
    exact = [float(vals[i]) for i in exact_idx]
    mids = [(vals[i] + vals[i + 1]) / 2 for i in mid_idx] + [(fmt.maxv + fmt.nextv) / 2]
    pts = []
    for m in mids:
        mf = np.float32(float(m))
        assert Fraction(float(mf)) == m, (fmt.name, m)  # midpoints are float32 values
        pts += [mf, np.nextafter(mf, np.float32(np.inf)), np.nextafter(mf, np.float32(0))]
    s = fmt.smallest
    specials = [s / 2, s / 4, 3 * s / 4, 5 * s / 4, 3 * s / 2, s, fmt.maxv, fmt.nextv, 2 * fmt.nextv, 4 * fmt.maxv,
                Fraction(1)]
    for v in specials:
        f = np.float32(float(v)) if v < Fraction(2) ** 128 else np.float32(np.inf)
        pts += [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(0))]
    f32max = np.finfo(np.float32).max
    pts += [f32max, np.float32(2.0**-149), np.float32(2.0**-126), np.float32(2.0**-127), np.float32(np.inf)]
    values = np.array(signed_both([float(v) for v in exact] + [float(p) for p in pts]), dtype=np.float32)
    values = values[~np.isnan(values)]
    return dedupe(values.view(np.uint32).tolist() + [0, 0x80000000] + F32_NANS)


def range_values(fmt, rng, n, f64):
    """Half linear-uniform in [-1.1 max, 1.1 max], half log-uniform over [smallest/4, 2 max)."""
    maxf = float(fmt.maxv)
    hi = min(1.1 * maxf, float(np.finfo(np.float32).max)) if not f64 else 1.1 * maxf
    lin = rng.uniform(-hi, hi, n // 2)
    e_lo = math.floor(math.log2(float(fmt.smallest))) - 2
    e_hi = math.floor(math.log2(maxf)) + 1
    k = n - n // 2
    exps = rng.integers(e_lo, e_hi + 1, k)
    mant_bits = 52 if f64 else 23
    mant = rng.integers(0, 1 << mant_bits, k, dtype=np.uint64)
    sign = rng.integers(0, 2, k)
    log = [(-1.0 if sg else 1.0) * math.ldexp(1.0 + int(mn) / 2.0**mant_bits, int(e))
           for sg, mn, e in zip(sign, mant, exps)]
    out = np.concatenate([lin, np.array(log)])
    if f64:
        return out.view(np.uint64).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return out.astype(np.float32).view(np.uint32).tolist()


def f64_structured(fmt, rng):
    vals = fmt.vals
    n = len(vals)
    if fmt.bits <= 8:
        exact_idx = range(n)
        mid_idx = range(n - 1)
    else:
        exact_idx = sorted(set(rng.choice(n, N_SAMPLE_16_F64 // 4, replace=False).tolist()) | {0, 1, n - 1})
        mid_idx = sorted(set(rng.choice(n - 1, N_SAMPLE_16_F64 // 2, replace=False).tolist()) | {0, 1, n - 2})
    pts = [float(vals[i]) for i in exact_idx]
    mids = [(vals[i] + vals[i + 1]) / 2 for i in mid_idx] + [(fmt.maxv + fmt.nextv) / 2]
    for m in mids:
        mf = float(m)
        assert Fraction(mf) == m
        h32 = float(np.spacing(np.float32(mf))) / 2  # half a float32 ulp: a float32 tie
        pts += [mf, math.nextafter(mf, math.inf), math.nextafter(mf, 0.0),
                mf * (1 + 2.0**-30), mf * (1 - 2.0**-30), mf + h32, mf - h32]
    s = fmt.smallest
    for v in [s / 2, s / 4, 3 * s / 4, 5 * s / 4, 3 * s / 2, s, fmt.maxv, fmt.nextv, 2 * fmt.nextv, Fraction(1)]:
        f = float(v)
        pts += [f, math.nextafter(f, math.inf), math.nextafter(f, 0.0)]
    f32max = float(np.finfo(np.float32).max)
    pts += [f32max, math.nextafter(f32max, math.inf), 2.0**128 * (1 - 2.0**-30), 2.0**128, 1e300,
            float(np.finfo(np.float64).max), 2.0**-149, 2.0**-150, 2.0**-151, 1e-300, 5e-324, 1e-320, math.inf]
    values = np.array(signed_both(pts), dtype=np.float64)
    return dedupe(values.view(np.uint64).tolist() + [0, 0x8000000000000000] + F64_NANS)


# --- writing ---------------------------------------------------------------------------------

def le_bytes(values, width):
    if width == 0:
        return b""
    return np.asarray(values, dtype=np.uint64).astype("<u%d" % width).tobytes()


def section(name, inputs, in_bytes, outputs, out_bytes, inputs_kind="inline"):
    data = (le_bytes(inputs, in_bytes) if inputs_kind == "inline" else b"") + le_bytes(outputs, out_bytes)
    count = len(outputs) if outputs is not None else len(inputs)
    head = "section %s in=%d out=%d count=%d inputs=%s crc32=%08x\n" % (
        name, in_bytes if inputs_kind == "inline" else 0, out_bytes, count, inputs_kind, zlib.crc32(data))
    return head.encode() + data


def golden_file(title, sections):
    return ("mixprec-golden 1 %s\n" % title).encode() + b"".join(sections) + b"end\n"


class Disagreements:
    def __init__(self):
        self.rows = []  # float64 path: (format, inputs checked, [(bits, exact, ml_dtypes)])
        self.f32_rows = []  # float32 path: (format, [(bits, exact, ml_dtypes)]), known errors only


def build_format(index, fmt, rand_f32, rand_f64, report):
    rng = np.random.default_rng([SEED, index])
    w = fmt.out_bytes
    secs = [section("decode", None, 0, fmt.decode.tolist(), 4, "index")]
    mismatches = []  # ml_dtypes' float32 path against the exact rounding
    f32_dis = []  # ... where KNOWN_F32_ERRORS explains the difference

    def from_f32(bits_list):
        xs = f32_from_bits(bits_list)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fmt.ml_from(xs).tolist()
        out = []
        for b, x, g in zip(bits_list, xs.tolist(), got):
            e = fmt.round_exact(x)
            if e is None:
                if fmt.enc != "finite" and g not in fmt.nan_codes:
                    mismatches.append(("float32 NaN -> non-NaN", hex(b), g))
                out.append(g)
                continue
            if e != g:
                known = KNOWN_F32_ERRORS.get(fmt.name)
                if known is not None and known(b):
                    f32_dis.append((b, e, g))
                else:
                    mismatches.append(("float32 bits, exact, ml_dtypes", hex(b), hex(e), hex(g)))
            out.append(e)
        return out

    f32_struct = f32_structured(fmt, rng)
    f32_range = range_values(fmt, rng, N_F32_RANGE, f64=False)
    secs.append(section("from_f32", f32_struct, 4, from_f32(f32_struct), w))
    secs.append(section("from_f32_range", f32_range, 4, from_f32(f32_range), w))
    secs.append(section("from_f32_bits", rand_f32, 0, from_f32(rand_f32), w, "random_f32"))
    if mismatches:
        for m in mismatches[:20]:
            print("  %s: %s" % (fmt.name, m), file=sys.stderr)
        raise SystemExit("%s: the exact rounding here and ml_dtypes' float32 path disagree in %d unexplained "
                         "cases (a bug here, or a new ml_dtypes behaviour to review)" % (fmt.name, len(mismatches)))
    if fmt.spec is None:
        report.f32_rows.append((fmt, f32_dis))

    dis = []
    counts = {"checked": 0}

    def from_f64(bits_list):
        xs = f64_from_bits(bits_list)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ml = fmt.ml_from(xs).tolist()
        out = []
        for b, x, g in zip(bits_list, xs.tolist(), ml):
            e = fmt.round_exact(x)
            if e is None:
                out.append(g)  # NaN: ml_dtypes' NaN (the test compares NaNs by sign only)
                continue
            counts["checked"] += 1
            if e != g:
                dis.append((b, e, g))
            out.append(e)
        return out

    f64_struct = f64_structured(fmt, rng)
    f64_range = range_values(fmt, rng, N_F64_RANGE, f64=True)
    secs.append(section("from_f64", f64_struct, 8, from_f64(f64_struct), w))
    secs.append(section("from_f64_range", f64_range, 8, from_f64(f64_range), w))
    secs.append(section("from_f64_bits", rand_f64, 0, from_f64(rand_f64), w, "random_f64"))
    if fmt.spec is None:
        report.rows.append((fmt, counts["checked"], dis))
    return golden_file("format=%s bits=%d" % (fmt.name, fmt.bits), secs)


def readme_block(report):
    lines = ["<!-- BEGIN GENERATED by gen.py: do not edit by hand -->",
             "Generated with ml_dtypes %s, numpy %s, Python %d.%d."
             % (ml_dtypes.__version__, np.__version__, sys.version_info[0], sys.version_info[1]),
             "",
             "ml_dtypes `astype` from float64 compared with the exactly rounded result "
             "(non-NaN float64 inputs of `from_f64`, `from_f64_range`, `from_f64_bits`):",
             "",
             "| format | float64 inputs | ml_dtypes wrong | of which double rounding | "
             "example: float64 bits -> exact, ml_dtypes |",
             "|---|---:|---:|---:|---|"]
    total = 0
    for fmt, checked, dis in report.rows:
        total += len(dis)
        width = 4 if fmt.out_bytes == 2 else 2
        ex = ""
        if dis:
            b, e, g = dis[0]
            ex = "`0x%016x` (%r) -> `0x%0*x`, `0x%0*x`" % (b, float(f64_from_bits([b])[0]), width, e, width, g)
        # Double rounding: ml_dtypes' result is the exact rounding of float32(x).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x32 = f64_from_bits([b for b, _, _ in dis]).astype(np.float32).tolist()
        double = sum(1 for (b, e, g), y in zip(dis, x32) if fmt.round_exact(y) == g)
        lines.append("| %s | %d | %d | %d | %s |" % (fmt.name, checked, len(dis), double, ex))
    lines += ["", "Total: %d disagreements on the float64 path." % total, "",
              "ml_dtypes `astype` from float32 compared with the exactly rounded result (known errors "
              "listed in `KNOWN_F32_ERRORS`; any other difference stops gen.py):", "",
              "| format | ml_dtypes wrong | examples: float32 bits -> exact, ml_dtypes |",
              "|---|---:|---|"]
    for fmt, dis in report.f32_rows:
        if not dis:
            continue
        width = 4 if fmt.out_bytes == 2 else 2
        ex = "; ".join("`0x%08x` -> `0x%0*x`, `0x%0*x`" % (b, width, e, width, g) for b, e, g in dis[:3])
        lines.append("| %s | %d | %s |" % (fmt.name, len(dis), ex))
    lines.append("<!-- END GENERATED -->")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    ap.add_argument("--out", default=HERE, help="output directory (default: this script's directory)")
    args = ap.parse_args()

    rng = np.random.default_rng([SEED, 1000])
    rand_f32 = rng.integers(0, 1 << 32, N_F32_BITS, dtype=np.uint64).tolist()
    rand_f64 = rng.integers(0, 1 << 64, N_F64_BITS, dtype=np.uint64, endpoint=False).tolist()
    files = {"random.golden": golden_file("format=random", [
        section("random_f32", rand_f32, 4, None, 0), section("random_f64", rand_f64, 8, None, 0)])}

    report = Disagreements()
    for i, (name, dtype, nbits, enc) in enumerate(FORMATS):
        files[name + ".golden"] = build_format(i, Format(name, dtype, nbits, enc), rand_f32, rand_f64, report)
    for k, (name, nbits, spec) in enumerate(EXACT_FORMATS):
        fmt = Format(name, None, nbits, spec[4], spec)
        files[name + ".golden"] = build_format(len(FORMATS) + k, fmt, rand_f32, rand_f64, report)

    readme_path = os.path.join(args.out, "README.md")
    block = readme_block(report)
    readme = open(readme_path).read() if os.path.exists(readme_path) else ""
    b0, b1 = readme.find("<!-- BEGIN GENERATED"), readme.find("<!-- END GENERATED -->")
    if b0 >= 0 and b1 > b0:
        readme = readme[:b0] + block + readme[b1 + len("<!-- END GENERATED -->\n"):]
    else:
        readme += "\n" + block

    sys.stdout.write(block)
    total = 0
    stale = []
    for fname, data in files.items():
        total += len(data)
        path = os.path.join(args.out, fname)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if args.check:
            if old != data:
                stale.append(fname)
        elif old != data:
            with open(path, "wb") as f:
                f.write(data)
    old_readme = open(readme_path).read() if os.path.exists(readme_path) else None
    if args.check:
        if old_readme != readme:
            stale.append("README.md")
    elif old_readme != readme:
        with open(readme_path, "w") as f:
            f.write(readme)
    print("%d files, %d bytes" % (len(files), total))
    if stale:
        raise SystemExit("out of date: " + ", ".join(stale))


if __name__ == "__main__":
    main()
