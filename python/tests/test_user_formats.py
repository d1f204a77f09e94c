# SPDX-License-Identifier: MIT
"""mixprec.format(...): user formats at run time. Checked bit for bit against every built-in format
(the same layout through the run-time path: every code decoded and printed, a float32/float64
battery encoded in every mode and policy) and against an exact Fraction reference written here."""
import math
from fractions import Fraction

import numpy as np
import pytest

import mixprec

BUILTINS = [n for n in mixprec.formats() if mixprec._core.layout(n)[5] == 0]  # all but tf32 (padded)


def user_twin(name):
    """The user format with name's layout, forced onto the run-time path."""
    e, m, enc, bias, signed, _pad = mixprec._core.layout(name)
    f = mixprec.format(e, m, mixprec.ENCODINGS[enc], bias, signed)
    assert f.builtin == name and f == mixprec.format(e, m, mixprec.ENCODINGS[enc], bias, signed)
    return f._runtime()


def battery(dtype, seed=3):
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 448.0, 464.0, 480.0, 57344.0, 61440.0,
                         65504.0, 65520.0, 6.0, 7.5, 28.0, 0.25, 2.0**-127, 2.0**-128, 2.0**-149, 3.4e38], dtype)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(dtype)
    pow2 = np.ldexp(1.0, np.arange(-150, 128)).astype(dtype)
    rand = (rng.standard_normal(40000) * np.exp2(rng.integers(-30, 30, 40000))).astype(dtype)
    return np.concatenate([specials, halves, pow2, -pow2, rand])


def same_float64(a, b):
    return np.array_equal(np.asarray(a, np.float64).view(np.uint64), np.asarray(b, np.float64).view(np.uint64))


def test_named_equivalents():
    assert mixprec.format(5, 10).builtin == "float16"
    assert mixprec.format(8, 7).builtin == "bfloat16"
    assert mixprec.format(4, 3, "fn").builtin == "float8_e4m3fn"
    assert mixprec.format(4, 3, "fnuz", bias=11).builtin == "float8_e4m3b11fnuz"
    assert mixprec.format(8, 0, "exponent_only").builtin == "float8_e8m0fnu"
    assert mixprec.format(3, 1).builtin is None and mixprec.format(3, 1).name == "float5_e3m1"
    assert mixprec.format(3, 2, "fn", bias=5).name == "float6_e3m2b5fn"
    assert mixprec.format(5, 10) == mixprec.format(5, 10, "ieee", 15, True)
    assert mixprec.format(5, 10) != mixprec.format(5, 10, bias=14)


@pytest.mark.parametrize("name", BUILTINS)
def test_every_code_decodes_prints_and_parses_as_builtin(name):
    f = user_twin(name)
    codes = np.arange(min(1 << f.bits, 1 << 16), dtype="uint%d" % f.storage_bits)
    assert same_float64(mixprec.from_bits(codes, f), mixprec.from_bits(codes, name))
    step = 1 if f.bits <= 8 else 7  # float16/bfloat16: every 7th code (printing is the slow part)
    for c in codes[::step]:
        text = mixprec.to_string(int(c), name)
        assert mixprec.to_string(int(c), f) == text
        for mode in ("nearest_even", "upward", "toward_zero"):
            assert mixprec.from_string(text, f, mode) == mixprec.from_string(text, name, mode)
    assert mixprec.finfo(f) == mixprec.finfo(name)


@pytest.mark.parametrize("name", BUILTINS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_encoding_matches_builtin_every_mode(name, dtype):
    f = user_twin(name)
    x = battery(dtype)
    for rounding in mixprec.ROUNDING_MODES:
        for overflow in mixprec.OVERFLOW_POLICIES:
            kw = dict(rounding=rounding, overflow=overflow)
            if rounding == "stochastic":
                kw.update(seed=12345, offset=7)
            got, want = mixprec.to_bits(x, f, **kw), mixprec.to_bits(x, name, **kw)
            assert got.dtype == want.dtype
            bad = np.flatnonzero(got != want)
            assert bad.size == 0, "%s %s %s: x=%r got %#x want %#x" % (name, rounding, overflow, x[bad[0]],
                                                                      got[bad[0]], want[bad[0]])


def test_tf32_layout_is_format_8_10_without_padding():
    x = battery(np.float32)
    for rounding in ("nearest_even", "downward", "to_odd"):
        want = mixprec.to_bits(x, "tf32", rounding) >> 13
        assert np.array_equal(mixprec.to_bits(x, mixprec.format(8, 10), rounding), want)


# --- an exact reference: values from the field definitions, rounding with Fractions ---

def ref_decode(e, m, enc, bias, signed, code):
    """Fraction, "inf", "-inf" or "nan" from the fields (written from the encodings' definitions)."""
    sign = -1 if signed and (code >> (e + m)) & 1 else 1
    field, mant = (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    if enc == "ieee" and field == (1 << e) - 1:
        return ("inf" if sign > 0 else "-inf") if mant == 0 else "nan"
    if enc == "fn" and field == (1 << e) - 1 and mant == (1 << m) - 1:
        return "nan"
    if enc == "fnuz" and sign < 0 and field == 0 and mant == 0:
        return "nan"
    if field == 0:
        return sign * Fraction(mant) * Fraction(2) ** (1 - bias - m)
    return sign * Fraction((1 << m) + mant) * Fraction(2) ** (field - bias - m)


def ref_round(x, e, m, enc, bias, signed, mode, overflow, values):
    """The code of x (a finite Fraction or float, or +-inf) rounded once: independent of the C++ core."""
    finite = {v: c for c, v in values.items() if isinstance(v, Fraction)}
    mx = max(finite)
    nan = next((c for c, v in values.items() if v == "nan"), None)
    inf = {s: next((c for c, v in values.items() if v == s), None) for s in ("inf", "-inf")}
    neg = x < 0 or (x == 0 and math.copysign(1, x) < 0)
    if math.isinf(x):
        ax, exact = None, False
    else:
        x = Fraction(x)
        ax = abs(x)
    if neg and not signed and x != 0:
        return nan if nan is not None else 0
    if ax is not None:
        emin = 1 - bias
        ex = math.floor(math.log2(ax)) if ax else emin
        while ax and Fraction(2) ** ex > ax:
            ex -= 1
        while ax and Fraction(2) ** (ex + 1) <= ax:
            ex += 1
        q = Fraction(2) ** (max(ex, emin) - m)
        lo = (ax // q) * q
        hi = lo + q
        exact = lo == ax
        away = {"nearest_even": ax - lo > hi - ax or (ax - lo == hi - ax and (lo / q) % 2 == 1),
                "nearest_away": ax - lo >= hi - ax, "toward_zero": False, "upward": not neg and not exact,
                "downward": neg and not exact, "to_odd": not exact and (lo / q) % 2 == 0}[mode]
        r = hi if away and not exact else lo
        if r <= mx:
            if r == 0:
                return values_index(finite, -Fraction(0) if False else Fraction(0), neg, enc, signed, e, m)
            return finite[-r if neg else r]
    round_away = {"nearest_even": True, "nearest_away": True, "toward_zero": False, "upward": not neg,
                  "downward": neg, "to_odd": False}[mode] or ax is None
    if not round_away or overflow == "saturate" or enc == "finite":
        return finite[-mx if neg else mx]
    if enc == "ieee":
        return inf["-inf" if neg else "inf"]
    return (nan | (1 << (e + m))) if enc == "fn" and neg else nan


def values_index(finite, zero, neg, enc, signed, e, m):
    """The code of a zero result: -0 where the format has one."""
    if neg and signed and enc in ("ieee", "fn", "finite"):
        return 1 << (e + m)
    return 0


ODD = [(3, 1, "ieee", None, True), (2, 2, "fnuz", None, True), (3, 2, "fn", 5, True), (2, 3, "finite", 0, True),
       (3, 3, "fn", 4, False), (4, 0, "finite", 6, True), (1, 4, "fn", None, True)]


@pytest.mark.parametrize("layout", ODD, ids=lambda l: "e%dm%d%s" % l[:3])
def test_odd_formats_against_fraction_reference(layout):
    e, m, enc, bias, signed = layout
    f = mixprec.format(e, m, enc, bias, signed)
    assert f.builtin is None
    bias = f.bias
    values = {c: ref_decode(e, m, enc, bias, signed, c) for c in range(1 << f.bits)}
    got = mixprec.from_bits(np.arange(1 << f.bits, dtype=np.uint8), f)
    for c, v in values.items():
        if v == "nan":
            assert math.isnan(got[c])
        elif isinstance(v, str):
            assert got[c] == float(v)
        else:
            assert Fraction(got[c]) == v, (c, v, got[c])
            if v == 0 and signed and enc != "fnuz":
                assert math.copysign(1, got[c]) == (-1 if c >> (e + m) else 1)
    # inputs: every value, every midpoint, just either side of each, beyond the range, specials
    fin = sorted({abs(v) for v in values.values() if isinstance(v, Fraction)})
    pts = set(fin)
    for a, b in zip(fin, fin[1:] + [fin[-1] * 2]):
        mid = (a + b) / 2
        pts |= {mid, mid * (1 + Fraction(1, 2**40)), mid * (1 - Fraction(1, 2**40)), (a + 3 * b) / 4}
    pts |= {fin[1] / 3, fin[-1] * 8}
    xs = sorted(float(p) for p in pts) + [0.0, math.inf]
    xs = xs + [-v for v in xs]
    arr = np.array(xs)
    for mode in ("nearest_even", "nearest_away", "toward_zero", "upward", "downward", "to_odd"):
        for overflow in ("ieee", "saturate"):
            got = mixprec.to_bits(arr, f, mode, overflow)
            want = [ref_round(v, e, m, enc, bias, signed, mode, overflow, values) for v in xs]
            bad = [(v, int(g), w) for v, g, w in zip(xs, got, want) if g != w]
            assert not bad, "%s %s %s: first (x, got, want) %r" % (f, mode, overflow, bad[0])


def test_stochastic_rounding_is_reproducible_and_between_neighbours():
    f = mixprec.format(3, 1)
    x = np.full(20000, 0.3)  # between 0.25 and 0.375: P(up) = 0.4
    a = mixprec.to_bits(x, f, "stochastic", seed=9)
    assert np.array_equal(a, mixprec.to_bits(x, f, "stochastic", seed=9))
    v = mixprec.from_bits(a, f)
    assert set(np.unique(v)) == {0.25, 0.375}
    assert abs(np.mean(v == 0.375) - 0.4) < 0.02


def test_user_format_text_and_explain():
    f = mixprec.format(3, 1)
    assert mixprec.to_string(mixprec.from_string("0.3", f), f) == "0.2"  # shortest text of 0.25 here
    assert mixprec.from_string("0.3", f, "upward") == mixprec.to_bits(np.array([0.375]), f)[0]
    assert "float5_e3m1" in mixprec.explain("0.3", f)
    with pytest.raises(ValueError, match="not a number"):
        mixprec.from_string("0.3x", f)


@pytest.mark.parametrize("args, match", [((0, 3), "exponent bits"), ((12, 3), "exponent bits"),
                                         ((5, 53), "mantissa bits"), ((5, 0), "ieee encoding needs"),
                                         ((3, 2, "fnuz", None, False), "fnuz"), ((5, 2, "bogus"), "encoding"),
                                         ((3, 2, "ieee", 40), "represent 1"), ((11, 52, "fn"), "float64")])
def test_invalid_formats_raise(args, match):
    with pytest.raises(ValueError, match=match):
        mixprec.format(*args)


def test_codes_that_do_not_fit_raise():
    with pytest.raises(ValueError, match="code 32 does not fit float5_e3m1"):
        mixprec.from_bits(np.array([32], np.uint8), mixprec.format(3, 1))
