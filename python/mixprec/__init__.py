# SPDX-License-Identifier: MIT
"""mixprec for Python: exact low-precision floating point for NumPy arrays.

Every conversion rounds ONCE, from the exact value of its input, in the rounding mode you
choose (ml_dtypes' ``astype`` and NumPy's float16 ``astype`` round to nearest-even only).
The numbers come from mixprec's C++ headers; this package adds NumPy arrays around them.

>>> import numpy as np, mixprec
>>> mixprec.to_bits(np.array([0.1]), "float16")                      # codes, as uint16
array([11878], dtype=uint16)
>>> mixprec.to_bits(np.array([0.1]), "float16", rounding="upward")
array([11879], dtype=uint16)
>>> mixprec.round(np.array([0.1, 1e6]), "float8_e4m3fn", overflow="saturate")
array([1.015625e-01, 4.480000e+02])

Formats: see ``formats()`` (and ``format_aliases()``: "half", "bf16", "e4m3", ... name the same
formats). Codes are unsigned integers of the format's storage width (uint8 for the 8-, 6- and
4-bit formats, one code per byte; uint16; uint32 for tf32), so an ml_dtypes array is
``mixprec.to_bits(x, "float8_e4m3fn").view(ml_dtypes.float8_e4m3fn)`` without a copy.

Errors: ``ValueError`` for a bad value or name (an unknown format, mode or policy, a code that
does not fit, malformed text, an argument the call would ignore such as ``seed`` with a
deterministic mode), ``TypeError`` for an argument of the wrong type (a str where an int belongs,
an array of the wrong dtype). Messages start with the function's name: ``mixprec.to_bits: ...``.
"""
from __future__ import annotations

import math as _math
import numbers as _numbers
import re as _re

import numpy as _np

from . import _core

__all__ = ["set_num_threads", "get_num_threads", "pack", "unpack", "gemm", "block_scaled_gemm", "BlockScaled", "block_quantize", "block_dequantize", "block_recipe_info", "BLOCK_RECIPES",
           "LossScale", "autocast_ops", "GENERATORS", "format", "formats", "format_aliases", "to_bits", "from_bits", "round", "finfo", "explain", "to_string", "from_string",
           "ROUNDING_MODES", "OVERFLOW_POLICIES", "ENCODINGS", "__version__"]
__version__ = _core.version

#: Rounding modes, in the order of C++'s mixprec::rounding.
ROUNDING_MODES = ("nearest_even", "nearest_away", "toward_zero", "upward", "downward", "to_odd", "stochastic")
#: Overflow policies: "ieee" (inf, or NaN where the format has no inf) and "saturate" (clamp to +-max).
OVERFLOW_POLICIES = ("ieee", "saturate")
#: Counter-based generators of stochastic rounding's random bits, in the order of C++'s mixprec::rng_kind:
#: "splitmix64" (counter_rng, the default) and "philox4x32_10" (philox_rng: cuRAND's Philox stream).
GENERATORS = ("splitmix64", "philox4x32_10")

# ml_dtypes' dtype names and the mixprec formats they are (half is numpy's float16).
_ML_DTYPES = {"bfloat16": "bfloat16", "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
              "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
              "float8_e8m0fnu": "float8_e8m0fnu", "float6_e2m3fn": "float6_e2m3fn", "float6_e3m2fn": "float6_e3m2fn",
              "float4_e2m1fn": "float4_e2m1fn", "float8_e3m4": "float8_e3m4", "float8_e4m3": "float8_e4m3",
              "float8_e4m3b11fnuz": "float8_e4m3b11fnuz",
              "float8_e5m3fnu": "float8_ue5m3"}  # ml_dtypes 0.7: unsigned E5M3, bias 15, NaN 0xff, no inf


# --- argument checks: ValueError for bad values and names, TypeError for bad types; messages
# start with the public function's name ("mixprec.to_bits: ...") and quote the input once ---

def _is_int(v) -> bool:
    return isinstance(v, _numbers.Integral) and not isinstance(v, (bool, _np.bool_))


def _int_arg(func: str, what: str, v, lo: int, hi: "int | None" = None) -> int:
    """v as an int in [lo, hi) (hi None: no upper bound): TypeError if not an int, ValueError out of range."""
    if not _is_int(v):
        raise TypeError("mixprec.%s: %s must be an int, got %s" % (func, what, type(v).__name__))
    v = int(v)
    if v < lo or (hi is not None and v >= hi):
        raise ValueError("mixprec.%s: %s must be in [%d, %s), got %d" % (func, what, lo, _bound(hi), v))
    return v


def _bound(hi) -> str:
    if hi is None:
        return "inf"
    return "2**%d" % (hi.bit_length() - 1) if hi > 1024 and hi & (hi - 1) == 0 else str(hi)


def _str_arg(func: str, what: str, v, choices) -> int:
    """The index of v in choices: TypeError if v is not a str, ValueError if not one of them."""
    if not isinstance(v, str):
        raise TypeError("mixprec.%s: %s must be a str (one of %s), got %s" % (func, what, ", ".join(choices),
                                                                            type(v).__name__))
    if v not in choices:
        raise ValueError("mixprec.%s: unknown %s %r; one of %s" % (func, what, v, ", ".join(choices)))
    return choices.index(v)


_CPP_PREFIX = _re.compile(r"^(mixprec::[A-Za-z_:<>]+: )+")


def _cpp(func: str, f, *args):
    """f(*args) (a _core function): its ValueError re-raised under func's name, without the C++
    function's prefix ("mixprec::explain: ...")."""
    try:
        return f(*args)
    except ValueError as e:
        raise ValueError("mixprec.%s: %s" % (func, _CPP_PREFIX.sub("", str(e)))) from None


def set_num_threads(n: int) -> None:
    """Threads of mixprec's pool for the bulk functions (to_bits, round, gemm, ...): n >= 1, or 0 for
    the default ($MIXPREC_NUM_THREADS, else the hardware's). Results never depend on it."""
    _core.set_num_threads(_int_arg("set_num_threads", "n", n, 0, 2**32))


def get_num_threads() -> int:
    """The number of threads the bulk functions use."""
    return int(_core.num_threads())


def formats() -> list[str]:
    """The names of the built-in formats."""
    return list(_core.formats())


def format_aliases() -> dict:
    """Other names of the built-in formats, as {alias: name} (C++'s mixprec/format_names.hpp):
    every function taking a format accepts them."""
    return dict(_ALIASES)


def _load_aliases() -> dict:
    """ml_dtypes' names for built-in formats under another name (float8_e5m3fnu), then the C++ table."""
    aliases = {ml: name for ml, name in _ML_DTYPES.items() if ml != name}
    if hasattr(_core, "format_aliases"):
        aliases.update((a, n) for a, n in _core.format_aliases() if a != n)
    return aliases


_ALIASES = _load_aliases()


#: Encodings of user formats, in the order of C++'s mixprec::encoding: "ieee" (infinities and NaNs
#: in the all-ones exponent), "fn" (no inf; NaN = all ones, as float8_e4m3fn), "fnuz" (no inf, no -0;
#: NaN = the -0 pattern, bias one higher), "finite" (every code a number, as the MX FP4/FP6 types),
#: "exponent_only" (unsigned powers of two with all-ones NaN, as float8_e8m0fnu).
ENCODINGS = ("ieee", "fn", "fnuz", "finite", "exponent_only")


class format:
    """A floating-point format given by its fields, usable wherever a format name is accepted.

    ``format(exp_bits, man_bits, encoding="ieee", bias=None, signed=None)``: exp_bits in [1, 11],
    man_bits in [0, 52], encoding one of ENCODINGS, bias the exponent bias (default: IEEE's
    2**(exp_bits-1) - 1, one more for "fnuz"), signed whether there is a sign bit (default: True
    except for "exponent_only"). Codes are the low ``bits`` bits of uint8/16/32/64 (no padding:
    tf32's layout is ``format(8, 10)`` with codes ``tf32 codes >> 13``). Every value must be a
    float64 value (emax <= 1023, qmin >= -1074) and 1 must be a value; otherwise ValueError.
    Rounding is exact, in every mode and overflow policy, with the same bits as the C++
    ``mixprec::format<E, M, Enc, 0, Bias, Signed>``; a format equal to a built-in one (for example
    ``format(4, 3, "fn")`` and "float8_e4m3fn") uses the built-in's code path.

    >>> e3m1 = mixprec.format(3, 1)            # 5-bit IEEE-style: 0.25 .. 12, inf, NaN
    >>> mixprec.round([0.3, 100.0], e3m1)
    array([0.25,  inf])
    """

    __slots__ = {"exp_bits": "exponent field width E", "man_bits": "stored mantissa bits M",
                 "encoding": "one of ENCODINGS", "bias": "the exponent bias", "signed": "whether there is a sign bit",
                 "bits": "the format's width (sign + E + M)",
                 "storage_bits": "width of the unsigned integer holding a code (8, 16, 32 or 64)",
                 "name": "ml_dtypes-style name (float<bits>_e<E>m<M>...), or the built-in's name",
                 "builtin": "the built-in format with this layout, or None",
                 "_args": "(E, M, encoding index, bias, signed) for the C++ core",
                 "_info": "derived constants from the C++ core"}

    def __init__(self, exp_bits: int, man_bits: int, encoding: str = "ieee", bias: int | None = None,
                 signed: bool | None = None):
        enc = _str_arg("format", "encoding", encoding, ENCODINGS)
        exp_bits = _int_arg("format", "exp_bits", exp_bits, -2**31, 2**31)  # the ranges: rt_describe's messages
        man_bits = _int_arg("format", "man_bits", man_bits, -2**31, 2**31)
        if bias is None:
            bias = (1 << (exp_bits - 1)) - 1 + (encoding == "fnuz") if 1 <= exp_bits <= 11 else 0
        elif not _is_int(bias):
            raise TypeError("mixprec.format: bias must be an int or None, got %s" % type(bias).__name__)
        bias = _int_arg("format", "bias", bias, -2**31, 2**31)
        if signed is None:
            signed = encoding != "exponent_only"
        elif not isinstance(signed, (bool, _np.bool_)):
            raise TypeError("mixprec.format: signed must be a bool or None, got %s" % type(signed).__name__)
        signed = bool(signed)
        info = _cpp("format", _core.rt_describe, exp_bits, man_bits, enc, bias, signed)
        self.exp_bits, self.man_bits, self.encoding, self.bias, self.signed = exp_bits, man_bits, encoding, bias, signed
        self.bits = info["bits"]
        self.storage_bits = info["storage_bits"]
        self._args = (exp_bits, man_bits, enc, bias, signed)
        self._info = dict(info)
        default_bias = (1 << (exp_bits - 1)) - 1 + (encoding == "fnuz")
        self.name = "float%d_%se%dm%d%s%s" % (
            self.bits, "u" if not signed and encoding != "exponent_only" else "", exp_bits, man_bits,
            "" if bias == default_bias else "b%d" % bias,
            {"ieee": "", "fn": "fn", "finite": "fn", "fnuz": "fnuz", "exponent_only": "fnu"}[encoding])
        self.builtin = _BUILTIN_LAYOUTS.get(self._args + (0,))
        if self.builtin is not None:
            self.name = self.builtin

    def _runtime(self) -> "format":
        """The same format with its built-in shortcut removed (tests compare the two paths)."""
        f = format(self.exp_bits, self.man_bits, self.encoding, self.bias, self.signed)
        f.builtin = None
        return f

    def __eq__(self, other):
        return isinstance(other, format) and self._args == other._args

    def __hash__(self):
        return hash(self._args)

    def __repr__(self):
        return "mixprec.format(%d, %d, %r, bias=%d, signed=%r)" % (self.exp_bits, self.man_bits, self.encoding,
                                                                   self.bias, self.signed)


_BUILTIN_LAYOUTS = {tuple(_core.layout(n)): n for n in _core.formats()}
_BUILTIN_NAMES = frozenset(_core.formats())
_FORMAT_TYPE = format


def _check_format(format, func: str):
    """A built-in name (str, aliases resolved) for names and built-in-equivalent user formats, else
    the format object. TypeError for anything but a str or a mixprec.format, ValueError for an
    unknown name."""
    if isinstance(format, _FORMAT_TYPE):
        return format.builtin if format.builtin is not None else format
    if not isinstance(format, str):
        raise TypeError("mixprec.%s: format must be a format name (str) or a mixprec.format, got %s"
                        % (func, type(format).__name__))
    if format in _BUILTIN_NAMES:
        return format
    canonical = _core.canonical_format_name(format) if hasattr(_core, "canonical_format_name") else ""
    if canonical:  # an alias of format_names.hpp's table ("half", "bf16", "e4m3", ...)
        return canonical
    if format in _ALIASES:
        return _ALIASES[format]
    raise ValueError("mixprec.%s: unknown format %r; formats(): %s (aliases: format_aliases()), or a mixprec.format(...)"
                     % (func, format, ", ".join(_core.formats())))


def _format_name(format) -> str:
    return format if isinstance(format, str) else format.name


def _code_layout(format):
    """(storage bits, code bits, low padding bits) of a checked format: a code is an unsigned integer of
    the storage width below 2**(code bits) whose low padding bits are zero (tf32: 32, 32, 13)."""
    if not isinstance(format, str):
        return format.storage_bits, format.bits, 0
    return _BUILTIN_CODES[format]


_BUILTIN_CODES = {n: (_core.finfo(n)["storage_bits"], l[0] + l[1] + int(l[4]) + l[5], l[5])
                  for n, l in ((n, _core.layout(n)) for n in _core.formats())}


def _rounding_args(func: str, rounding, overflow, seed, offset, generator="splitmix64"):
    """(mode index, policy index, seed, offset, generator index) checked: a seed with
    rounding='stochastic' and only then, an offset and another generator only with it."""
    mode = _str_arg(func, "rounding mode", rounding, ROUNDING_MODES)
    policy = _str_arg(func, "overflow policy", overflow, OVERFLOW_POLICIES)
    gen = _str_arg(func, "generator", generator, GENERATORS)
    if seed is not None:
        seed = _int_arg(func, "seed", seed, 0, 2**64)
    offset = _int_arg(func, "offset", offset, 0, 2**64)
    if rounding == "stochastic":
        if seed is None:
            raise ValueError("mixprec.%s: rounding='stochastic' needs a seed (an int in [0, 2**64))" % func)
    elif seed is not None or offset != 0 or gen != 0:
        what = "seed" if seed is not None else "offset" if offset != 0 else "generator"
        raise ValueError("mixprec.%s: %s is for rounding='stochastic'; rounding=%r uses no random bits"
                         % (func, what, rounding))
    return mode, policy, seed or 0, offset, gen


def _to_numpy(x):
    """x as a NumPy array: through __dlpack__ without a copy where it can (CPU PyTorch tensors)."""
    if hasattr(x, "__dlpack__") and not isinstance(x, _np.ndarray):
        try:
            return _np.asarray(_np.from_dlpack(x))
        except (TypeError, RuntimeError, BufferError):
            pass
    return _np.asarray(x)


def _as_float_array(x, func: str):
    """x as a contiguous float32 or float64 NumPy array (exact), and its shape.

    Accepts anything NumPy converts (lists, scalars, the buffer protocol, objects with
    __array__ or __dlpack__ such as CPU PyTorch tensors), NumPy float16 and the ml_dtypes types
    (converted exactly through their codes). Non-contiguous arrays are copied.
    """
    a = _to_numpy(x)
    name = _ML_DTYPES.get(a.dtype.name)
    if name is not None:
        width = a.dtype.itemsize * 8
        codes = _np.ascontiguousarray(a).view("uint%d" % width).reshape(-1)
        return _core.from_bits(codes, name).reshape(a.shape), a.shape
    if a.dtype == _np.float16:
        a = a.astype(_np.float32)  # exact
    elif a.dtype.kind in "iub":
        a = a.astype(_np.float64)  # exact up to 2^53; larger integers round once here
    elif a.dtype not in (_np.float32, _np.float64):
        raise TypeError("mixprec.%s: expected a float array (float16/32/64, an ml_dtypes type or integers), got %s"
                        % (func, a.dtype))
    return _np.ascontiguousarray(a), a.shape


def _encode(a, format, mode, policy, seed, offset, gen=0):
    """Codes of the checked float32/float64 array a (any shape) in the checked format."""
    flat = a.reshape(-1)
    if not isinstance(format, str):
        fn = _core.rt_to_bits_f32 if flat.dtype == _np.float32 else _core.rt_to_bits_f64
        return fn(flat, *format._args, mode, policy, seed, offset, generator=gen).reshape(a.shape)
    fn = _core.to_bits_f32 if flat.dtype == _np.float32 else _core.to_bits_f64
    return fn(flat, format, mode, policy, seed, offset, generator=gen).reshape(a.shape)


def _decode(c, format):
    """float64 values of the codes c (unsigned integers of the format's storage width, known to fit)."""
    flat = _np.ascontiguousarray(c).reshape(-1)
    if not isinstance(format, str):
        return _core.rt_from_bits(flat, *format._args).reshape(c.shape)
    return _core.from_bits(flat, format).reshape(c.shape)


def to_bits(x, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee", seed: int | None = None,
            offset: int = 0, generator: str = "splitmix64") -> _np.ndarray:
    """The codes of x rounded once into format (an unsigned integer array of x's shape).

    rounding: one of ROUNDING_MODES; "stochastic" needs ``seed``: element i (in C order) uses the
    random bits counter_rng(seed)(offset + i) of the C++ library, so a result is reproducible and
    equals the C++ ``mixprec::convert`` with the same seed and offset. generator="philox4x32_10"
    takes them from Philox4x32-10 in cuRAND's layout instead (philox_rng(seed)(offset + i): the
    (offset + i + 1)-th curand() after curand_init(seed, 0, 0)). ``seed``, a non-zero ``offset`` or
    another generator with another mode raise ValueError (they would change nothing).
    overflow: "ieee" or "saturate". Raises ValueError for an unknown format, mode or policy.
    """
    format = _check_format(format, "to_bits")
    mode, policy, seed, offset, gen = _rounding_args("to_bits", rounding, overflow, seed, offset, generator)
    a, _ = _as_float_array(x, "to_bits")
    return _encode(a, format, mode, policy, seed, offset, gen)


def _codes_array(func: str, codes, format):
    """codes as an array of the format's storage type: TypeError for a non-integer array, ValueError
    for a code that does not fit the format (negative, above its width, or padding bits set)."""
    c = _np.asarray(codes)
    storage, bits, padding = _code_layout(format)
    want = _np.dtype("uint%d" % storage)
    if c.dtype.kind not in "iu":
        raise TypeError("mixprec.%s: codes must be integers (%s), got %s" % (func, want, c.dtype))
    if c.size and c.dtype != want or bits < storage or padding:
        if c.size:
            lo, hi = int(c.min()), int(c.max())
            bad = lo if lo < 0 else hi if hi >> bits else None
            if bad is not None:
                raise ValueError("mixprec.%s: code %d does not fit %s (%d bits)" % (func, bad, _format_name(format), bits))
            if padding:
                low = c.reshape(-1).astype(_np.uint64) & _np.uint64((1 << padding) - 1)
                if low.any():
                    raise ValueError("mixprec.%s: code %d is not a %s code (its low %d bits must be zero)" % (
                        func, int(c.reshape(-1)[_np.flatnonzero(low)[0]]), _format_name(format), padding))
    return c.astype(want, copy=False)


def from_bits(codes, format: "str | format") -> _np.ndarray:
    """The exact values (float64) of codes of format: integers (any integer dtype) that fit its width."""
    format = _check_format(format, "from_bits")
    c = _codes_array("from_bits", codes, format)
    return _decode(c, format)


def round(x, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee", seed: int | None = None,
          offset: int = 0, generator: str = "splitmix64") -> _np.ndarray:
    """x rounded once into format, returned as float64 values (exact): ``from_bits(to_bits(...))``
    in one pass (the same bits, the same random bits for "stochastic", the same generator)."""
    format = _check_format(format, "round")
    mode, policy, seed, offset, gen = _rounding_args("round", rounding, overflow, seed, offset, generator)
    a, shape = _as_float_array(x, "round")
    if not isinstance(format, str):
        return _decode(_encode(a, format, mode, policy, seed, offset, gen), format)
    fn = _core.round_f32 if a.dtype == _np.float32 else _core.round_f64
    return fn(a.reshape(-1), format, mode, policy, seed, offset, generator=gen).reshape(shape)


def finfo(format: "str | format") -> dict:
    """Machine limits of format, as numpy/ml_dtypes finfo (a dict of exact values)."""
    format = _check_format(format, "finfo")
    if not isinstance(format, str):
        return _user_finfo(format)
    return dict(_core.finfo(format))


def _user_finfo(f: format) -> dict:
    """finfo of a user format, by the definitions of the C++ mixprec::finfo (finfo.hpp)."""
    info = f._info
    value = lambda code: float(_decode(_np.array([code], "uint%d" % f.storage_bits), f)[0])
    code = lambda v: int(_encode(_np.array([v], _np.float64), f, 0, 0, 0, 0)[0])
    exponent = lambda v: _math.frexp(v)[1] - 1
    one = code(1.0)
    machep = exponent(value(code(value(one + 1) - 1.0)))
    # 1 - the value below 1 (where 1 is the smallest value, as in an exponent_only format with bias 0,
    # there is none: epsneg is then taken as eps)
    negep = exponent(value(code(1.0 - value(one - 1)))) if one >= 1 else machep
    raw = int(-machep * 30103 / 100000) if machep <= 0 else -((machep * 30103) // 100000)  # C++ truncation
    precision = 1 if f.bits == 8 and raw < 1 else raw
    d = 1.0
    for _ in range(precision):
        d *= 10.0
    mx = value(info["max_code"])
    tiny = 2.0 ** info["emin"]
    if f.signed:
        mn = -mx
    else:
        mn = tiny if f.encoding == "exponent_only" else 0.0
    return {"name": f.name, "bits": f.bits, "nmant": f.man_bits, "nexp": f.exp_bits, "machep": machep,
            "negep": negep, "minexp": info["emin"], "maxexp": info["emax"] + 1, "precision": precision,
            "eps": 2.0 ** machep, "epsneg": 2.0 ** negep, "max": mx, "min": mn, "tiny": tiny,
            "smallest_normal": tiny,
            "smallest_subnormal": tiny if f.encoding == "exponent_only" else 2.0 ** info["qmin"],
            "resolution": value(code(1.0 / d)), "storage_bits": f.storage_bits,
            "has_infinity": info["has_infinity"], "has_nan": info["has_nan"]}


def _text_arg(func: str, x) -> str:
    """explain's x as text: a str as is, a Python/NumPy float by its exact (hex) value, an int by its digits."""
    if isinstance(x, str):
        return x
    if _is_int(x):
        return str(int(x))
    if isinstance(x, (float, _np.floating)):
        return float(x).hex()  # float16/32/64 scalars: exact in float64
    raise TypeError("mixprec.%s: x must be text (str), a float or an int, got %s" % (func, type(x).__name__))


def explain(x, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee") -> str:
    """What storing x in format does: fields, class, exact value, ulp, neighbours, error and why.

    x: text (read as strtod reads it, rounded once from its exact value: "0.1", "1e-400",
    "0x1.8p1", "inf") or a Python/NumPy float or int (its exact value). The error line is the
    C++ explain's: a finite x stored as an infinity has an infinite error, NaN stored or read a
    NaN one.
    """
    format = _check_format(format, "explain")
    text = _text_arg("explain", x)
    mode = _str_arg("explain", "rounding mode", rounding, ROUNDING_MODES)
    policy = _str_arg("explain", "overflow policy", overflow, OVERFLOW_POLICIES)
    if rounding == "stochastic":
        raise ValueError("mixprec.explain: rounding='stochastic' needs random bits; use to_bits with a seed")
    if not isinstance(format, str):
        return _user_explain(text, format, rounding, overflow, mode, policy)
    return _cpp("explain", _core.explain_text, text, format, mode, policy)


def _user_explain(text: str, f: format, rounding: str, overflow: str, mode: int, policy: int) -> str:
    """explain() for a user format: the stored code, its fields and value (shorter than the C++ text)."""
    code = _cpp("explain", _core.rt_from_string, text, *f._args, mode, policy)
    value = float(_decode(_np.array([code], "uint%d" % f.storage_bits), f)[0])
    m, e = f.man_bits, f.exp_bits
    sign = (code >> (e + m)) & 1 if f.signed else 0
    field, mant = (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    kind = ("nan" if value != value else "infinity" if value in (float("inf"), float("-inf")) else
            "zero" if value == 0 else "subnormal" if field == 0 and f.encoding != "exponent_only" else "normal")
    return ("%s read into %s (%r), rounding %s, overflow %s\n"
            "  stored: code 0x%x = sign %d, exponent field %d, mantissa field %d (%s)\n"
            "  value:  %s (exactly %s)\n" % (text, f.name, f, rounding, overflow, code, sign, field, mant, kind,
                                            _core.rt_code_to_string(code, *f._args),
                                            value.hex() if value == value else "nan"))


def to_string(code: int, format: "str | format") -> str:
    """The shortest text that reads back as the value of code (as C++ to_chars)."""
    format = _check_format(format, "to_string")
    c = int(_codes_array("to_string", _np.array(_int_arg("to_string", "code", code, 0, 2**64), _np.uint64), format))
    if not isinstance(format, str):
        return _core.rt_code_to_string(c, *format._args)
    return _cpp("to_string", _core.code_to_string, c, format)


def from_string(text: str, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee") -> int:
    """The code of text read ONCE into format (strtod's grammar, any number of digits)."""
    if not isinstance(text, str):
        raise TypeError("mixprec.from_string: text must be a str, got %s" % type(text).__name__)
    format = _check_format(format, "from_string")
    mode = _str_arg("from_string", "rounding mode", rounding, ROUNDING_MODES)
    policy = _str_arg("from_string", "overflow policy", overflow, OVERFLOW_POLICIES)
    if rounding == "stochastic":
        raise ValueError("mixprec.from_string: rounding='stochastic' needs random bits; use to_bits with a seed")
    if not isinstance(format, str):
        return _cpp("from_string", _core.rt_from_string, text, *format._args, mode, policy)
    return _cpp("from_string", _core.code_from_string, text, format, mode, policy)


def autocast_ops(device: str = "cuda", effective: bool = False) -> dict:
    """PyTorch's autocast op table as data: {op name: policy}.

    device: "cuda" or "cpu". Policies: "lower_precision" (runs in float16/bfloat16), "fp32",
    "fp32_set_opt_dtype", "fp32_append_dtype", "promote", "banned". effective=True adds the composite
    ops that PyTorch runs through listed low-precision ops (einsum, tensordot, ...).
    """
    _str_arg("autocast_ops", "device", device, ("cpu", "cuda"))
    if not isinstance(effective, (bool, _np.bool_)):
        raise TypeError("mixprec.autocast_ops: effective must be a bool, got %s" % type(effective).__name__)
    return dict(_core.autocast_table(device + ("_effective" if effective else "")))


_LOSS_SCALE_PRESETS = ("pytorch", "keras", "tf_keras", "jmp", "apex", "deepspeed", "megatron")


class LossScale:
    """A dynamic loss scale stepping by one framework's rules (``update(found_inf)``).

    preset: "pytorch" (torch.amp.GradScaler), "keras", "tf_keras", "jmp", "apex", "deepspeed",
    "megatron" — each bit-exact with that framework's update rule (see the C++ loss_scale.hpp).

    >>> s = mixprec.LossScale("pytorch"); s.update(True)
    32768.0
    """

    def __init__(self, preset: str = "pytorch"):
        _str_arg("LossScale", "loss-scale preset", preset, _LOSS_SCALE_PRESETS)
        self._s = _core.DynamicLossScale(preset)
        self.preset = preset

    def update(self, found_inf: bool) -> float:
        """One step: back off after an overflow, grow after enough clean steps. Returns the scale."""
        self._s.update(bool(found_inf))
        return self._s.scale

    @property
    def scale(self) -> float:
        """The current loss scale."""
        return self._s.scale

    @property
    def growth_tracker(self) -> int:
        """Clean steps since the last change of the scale (the framework's growth counter)."""
        return self._s.growth_tracker

    def __repr__(self) -> str:
        return "LossScale(%r, scale=%r, growth_tracker=%d)" % (self.preset, self.scale, self.growth_tracker)


# --- block-scaling recipes (include/mixprec/recipes/block_scaling*.hpp) ---

_MX_RULES = ("ocp_floor", "te_rceil", "ceil_pow2", "even", "te_rceil_legacy")  # mx_block_rule order
_MX_ELEMENTS = ("float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "mxint8")


def _float_arg(func: str, what: str, v) -> float:
    """v as a float >= 0: TypeError for a non-number, ValueError for a negative or NaN one."""
    if not isinstance(v, (_numbers.Real)) or isinstance(v, (bool, _np.bool_)):
        raise TypeError("mixprec.%s: %s must be a number, got %s" % (func, what, type(v).__name__))
    v = float(v)
    if not v >= 0:
        raise ValueError("mixprec.%s: %s must be >= 0, got %r" % (func, what, v))
    return v
_NVFP4_ORDERS = ("te", "te_legacy", "torchao", "torchao_single")
_NVFP4_FACTORS = ("reciprocal", "quotient")
_NVFP4_SR_LAYOUTS = ("counter", "te_vector_blockwise", "te_nvfp4_bf16")  # nvfp4_sr_layout order
_DEEPSEEK_VARIANTS = ("v3", "deepgemm")  # deepseek_fp8_variant order
#: Recipe families and their parameters with defaults (see block_quantize).
BLOCK_RECIPES = {
    "mx": {"element": "float8_e4m3fn", "rule": "ocp_floor", "block": (1, 32), "torchao_min_normal_divisor": False},
    "te_mxfp8": {"element": "float8_e4m3fn", "block": (1, 32)},
    "nvfp4": {"order": "te", "factor": "reciprocal", "block": (1, 16), "stochastic": False, "seed": 0,
              "hadamard": False, "hadamard_signs": 0, "sr_layout": "counter", "sr_offset": 0,
              "sr_after_rowwise": True, "sr_with_columnwise": True},
    "deepseek_fp8": {"block": (1, 128), "ue8m0": False, "amax_floor": 1e-4, "variant": "v3"},
    "te_fp8_block": {"block": (1, 128), "epsilon": 0.0},
}


def _recipe_params(recipe: str, params: dict, func: str, given: bool = True):
    """(C++ family, C++ parameter dict, the full Python parameters) for a recipe and its keywords
    (given: params are the caller's keywords, not a BlockScaled's full set)."""
    _str_arg(func, "recipe", recipe, tuple(BLOCK_RECIPES))
    full = dict(BLOCK_RECIPES[recipe])
    unknown = set(params) - set(full)
    if unknown:  # as Python's own unexpected keyword arguments: TypeError
        raise TypeError("mixprec.%s: recipe %r has no parameter(s) %s; its parameters: %s"
                        % (func, recipe, ", ".join(sorted(unknown)), ", ".join(full)))
    full.update(params)
    block = full.pop("block")
    if not isinstance(block, (tuple, list)) or not all(_is_int(b) for b in block):
        raise TypeError("mixprec.%s: block must be a (rows, cols) tuple of ints, got %r" % (func, block))
    if len(block) != 2 or not all(b > 0 for b in block):
        raise ValueError("mixprec.%s: block must be (rows, cols) of positive ints, got %r" % (func, tuple(block)))
    cpp = {"block_rows": int(block[0]), "block_cols": int(block[1])}
    family = recipe
    if recipe in ("mx", "te_mxfp8"):
        family = "mx"
        rule = full.get("rule", "te_rceil")
        rule_index = _str_arg(func, "MX rule", rule, _MX_RULES)
        element = full["element"]
        if not isinstance(element, str):
            raise TypeError("mixprec.%s: element must be a format name (str), got %s" % (func, type(element).__name__))
        element = _ALIASES.get(element, element)
        if recipe == "te_mxfp8":
            _str_arg(func, "te_mxfp8 element", element, ("float8_e4m3fn", "float8_e5m2"))
        else:
            _str_arg(func, "MX element", element, _MX_ELEMENTS)
        full["element"] = element
        cpp.update(element=element, rule=rule_index,
                   torchao_min_normal_divisor=bool(full.get("torchao_min_normal_divisor", False)))
    elif recipe == "nvfp4":
        order = _str_arg(func, "NVFP4 order", full["order"], _NVFP4_ORDERS)
        factor = _str_arg(func, "NVFP4 factor", full["factor"], _NVFP4_FACTORS)
        _int_arg(func, "seed", full["seed"], 0, 2**64)
        _int_arg(func, "hadamard_signs", full["hadamard_signs"], 0, 2**16)
        sr_layout = _str_arg(func, "NVFP4 sr_layout", full["sr_layout"], _NVFP4_SR_LAYOUTS)
        _int_arg(func, "sr_offset", full["sr_offset"], 0, 2**64)
        for what in ("stochastic", "hadamard", "sr_after_rowwise", "sr_with_columnwise"):
            if not isinstance(full[what], (bool, _np.bool_)):
                raise TypeError("mixprec.%s: %s must be a bool, got %s" % (func, what, type(full[what]).__name__))
        if given and "seed" in params and not full["stochastic"]:
            raise ValueError("mixprec.%s: seed is for stochastic=True (round-to-nearest uses no random bits)" % func)
        if given and "hadamard_signs" in params and not full["hadamard"]:
            raise ValueError("mixprec.%s: hadamard_signs is for hadamard=True" % func)
        for what in ("sr_layout", "sr_offset", "sr_after_rowwise", "sr_with_columnwise"):
            if given and what in params and not full["stochastic"]:
                raise ValueError("mixprec.%s: %s is for stochastic=True (round-to-nearest uses no random bits)"
                                 % (func, what))
        if given and full["stochastic"] and full["order"] not in ("te", "te_legacy"):
            raise ValueError("mixprec.%s: stochastic=True is for the TE orders (te, te_legacy); order=%r rounds to "
                             "nearest" % (func, full["order"]))
        # Options of one stochastic-rounding layout, given with another: they would be ignored.
        layout_options = {"sr_offset": (1, 2), "sr_after_rowwise": (1, 2), "sr_with_columnwise": (2,)}
        for what, layouts in layout_options.items():
            if given and full["stochastic"] and what in params and sr_layout not in layouts:
                raise ValueError("mixprec.%s: %s is for sr_layout %s, not %r" % (
                    func, what, " or ".join(repr(_NVFP4_SR_LAYOUTS[k]) for k in layouts), full["sr_layout"]))
        cpp.update(order=order, factor=factor,
                   stochastic=bool(full["stochastic"]), seed=int(full["seed"]), hadamard=bool(full["hadamard"]),
                   hadamard_signs=int(full["hadamard_signs"]), sr_layout=sr_layout,
                   sr_offset=int(full["sr_offset"]), sr_after_rowwise=bool(full["sr_after_rowwise"]),
                   sr_with_columnwise=bool(full["sr_with_columnwise"]))
    elif recipe == "deepseek_fp8":
        cpp.update(ue8m0=bool(full["ue8m0"]), amax_floor=_float_arg(func, "amax_floor", full["amax_floor"]),
                   variant=_str_arg(func, "DeepSeek FP8 variant", full["variant"], _DEEPSEEK_VARIANTS))
    else:
        cpp.update(epsilon=_float_arg(func, "epsilon", full["epsilon"]))
    full["block"] = (int(block[0]), int(block[1]))
    return family, cpp, full


class BlockScaled:
    """A block-scaled tensor: what block_quantize returns and block_dequantize takes.

    elements: (rows, cols) element codes, one per value, unpacked (uint8; int8 for MXINT8), in
    the input's row-major order. scales: (ceil(rows / block rows), ceil(cols / block cols)) scale
    codes (uint8 E8M0 for MX, uint8 UE4M3 for NVFP4) or float32 decode factors (FP8 recipes); the
    scale of x[i, j] is scales[i // block rows, j // block cols]; edge blocks are shorter.
    tensor_scale: the per-tensor float32 factor (NVFP4's S_enc or torchao's per-tensor scale; 1.0
    otherwise). recipe / params: how it was made; info: the C++ recipe_info (name, element,
    scale, block, tensor_scale, stochastic, scale_rule).
    """

    __slots__ = {"elements": "(rows, cols) element codes (uint8; int8 for MXINT8)",
                 "scales": "block scales: uint8 codes (E8M0, UE4M3) or float32 decode factors",
                 "tensor_scale": "the per-tensor float32 factor (1.0 for recipes without one)",
                 "recipe": "the recipe family name (a key of BLOCK_RECIPES)",
                 "params": "the recipe's parameters, defaults filled in",
                 "info": "the C++ recipe_info as a dict"}

    def __init__(self, elements, scales, tensor_scale: float, recipe: str, params: dict, info: dict):
        self.elements, self.scales, self.tensor_scale = elements, scales, float(tensor_scale)
        self.recipe, self.params, self.info = recipe, dict(params), dict(info)

    def __repr__(self):
        return "BlockScaled(%s, elements %s %s, scales %s %s, tensor_scale=%r)" % (
            self.info.get("name"), self.elements.shape, self.elements.dtype, self.scales.shape, self.scales.dtype,
            self.tensor_scale)


def _as_float32_matrix(x):
    a = _to_numpy(x)
    if a.dtype.name in _ML_DTYPES or a.dtype == _np.float16:
        a = _as_float_array(a, "block_quantize")[0].astype(_np.float32)  # exact: every such value is a float32
    if a.dtype != _np.float32:
        raise TypeError("mixprec.block_quantize: takes float32 (or float16/bfloat16/FP8) arrays, as the frameworks' "
                        "recipes do; got %s (convert with .astype(np.float32) if that rounding is intended)" % a.dtype)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2:
        raise ValueError("mixprec.block_quantize: takes a 1-D or 2-D array (rows, cols), got %d dimensions" % a.ndim)
    return _np.ascontiguousarray(a)


def block_quantize(x, recipe: str = "mx", **params) -> BlockScaled:
    """Quantizes x (rows x cols float32; 1-D is one row) with a block-scaling recipe.

    Recipes and their keyword parameters (defaults in BLOCK_RECIPES), bit for bit the C++ recipes:

    - "mx": OCP MX. element: float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn,
      float4_e2m1fn or mxint8; rule: "ocp_floor" (OCP v1.0), "te_rceil" (Transformer Engine
      MXFP8BlockScaling, current TE), "te_rceil_legacy" (TE's earlier code-0 handling / torchao
      RCEIL), "ceil_pow2" (torchao CEIL), "even" (torchao EVEN);
      block (1, 32); torchao_min_normal_divisor (torchao's 2^-126 for all-zero blocks).
    - "te_mxfp8": Transformer Engine MXFP8 (rule te_rceil); element float8_e4m3fn/e5m2;
      block (1, 32) rowwise or (32, 1) columnwise.
    - "nvfp4": NVFP4 (E2M1 elements, UE4M3 scales over 16 values, FP32 tensor scale). order: "te",
      "te_legacy", "torchao" (two-level) or "torchao_single"; factor "reciprocal"/"quotient";
      stochastic and seed (TE's stochastic rounding); sr_layout "counter" (mixprec's counter
      generator, the default), "te_vector_blockwise" (Transformer Engine's Philox4x32-10 bits of
      its float32/float16 NVFP4 kernel, with sr_offset and sr_after_rowwise) or "te_nvfp4_bf16"
      (TE's bits of its BF16 kernels, finite bfloat16 inputs with rows and cols multiples of 32,
      with sr_offset and sr_with_columnwise); hadamard and hadamard_signs (TE's RHT).
    - "deepseek_fp8": DeepSeek-V3 fine-grained FP8 (E4M3 elements, FP32 scales); block (1, 128)
      activations or (128, 128) weights; ue8m0 (power-of-two scales, DeepSeek V3.1/DeepGEMM);
      amax_floor (default 1e-4; 0 as in the V3 release); variant "v3" (DeepSeek-V3 act_quant:
      x / s, UE8M0 from float32 ceil(log2 s)) or "deepgemm" (DeepGEMM's casts: x * (1 / s)).
    - "te_fp8_block": Transformer Engine Float8BlockScaling (power-of-two scales); block (1, 128)
      or (128, 128); epsilon.

    Returns a BlockScaled (element codes, scales in the documented layout, tensor scale, the
    recipe's parameters and its C++ recipe_info).

    >>> q = mixprec.block_quantize(np.ones((2, 64), np.float32), "mx", element="float4_e2m1fn")
    >>> q.scales.shape, q.info["name"]
    ((2, 2), 'ocp_mx/mxfp4_e2m1')
    """
    family, cpp, full = _recipe_params(recipe, params, "block_quantize")
    a = _as_float32_matrix(x)
    d = _cpp("block_quantize", _core.block_quantize, a, family, cpp)
    return BlockScaled(d["elements"], d["scales"], d["tensor_scale"], recipe, full, dict(d["info"]))


def block_dequantize(q: BlockScaled) -> _np.ndarray:
    """The float32 values of a BlockScaled (the C++ recipe's dequantize: bit for bit)."""
    if not isinstance(q, BlockScaled):
        raise TypeError("mixprec.block_dequantize: takes what block_quantize returns (a BlockScaled), got %s"
                        % type(q).__name__)
    family, cpp, _ = _recipe_params(q.recipe, dict(q.params), "block_dequantize", given=False)
    e_dtype, s_dtype, _ = _core.block_storage(family, cpp)
    e = _np.ascontiguousarray(q.elements)
    s = _np.ascontiguousarray(q.scales)
    if e.dtype != _np.dtype(e_dtype) or s.dtype != _np.dtype(s_dtype):
        raise TypeError("mixprec.block_dequantize: elements must be %s and scales %s for recipe %r, got %s and %s"
                        % (e_dtype, s_dtype, q.recipe, e.dtype, s.dtype))
    if e.ndim != 2 or s.ndim != 2:
        raise ValueError("mixprec.block_dequantize: elements and scales must be 2-D, got %d-D and %d-D" % (e.ndim, s.ndim))
    return _cpp("block_dequantize", _core.block_dequantize, e, s, q.tensor_scale, family, cpp)


def block_recipe_info(recipe: str = "mx", **params) -> dict:
    """A recipe's name and parameters as data: the C++ recipe_info plus its Python parameters."""
    family, cpp, full = _recipe_params(recipe, params, "block_recipe_info")
    info = dict(_cpp("block_recipe_info", _core.block_storage, family, cpp)[2])
    info["params"] = full
    info["recipe"] = recipe
    return info


# --- GEMM (kernels/gemm.hpp, block_scaled_gemm.hpp) ---

def _threads(threads, func):
    """None (the pool: 0) or a positive int (1: the calling thread only)."""
    return 0 if threads is None else _int_arg(func, "threads", threads, 1, 2**32)


def gemm(a, b, format: "str | format | None" = None, accumulate: str = "float32", algorithm: str = "exact",
         out: "str | format | None" = None, rounding: str = "nearest_even", seed: int | None = None, offset: int = 0,
         threads: int | None = None, precision: str = "highest", high_mode: str = "tf32_nearest_away",
         mma: "str | None" = None) -> _np.ndarray:
    """C = a @ b with mixprec::gemm's exact semantics: for each C element, acc = +0 then
    acc = fma(a[i, p], b[p, j], acc) for p = 0 .. k-1 in ``accumulate`` ("float32" or "float64"),
    one rounding per step, in k order, whatever the thread count.

    a: (m, k), b: (k, n) arrays (float32/float64, float16, ml_dtypes types; lists). format: a
    format name or mixprec.format; a and b are first rounded to it (nearest-even) — the product of
    format elements, as the C++ gemm on that element type. Inputs are otherwise taken as
    ``accumulate`` values (float64 inputs with accumulate="float32" round to nearest-even first, as
    C++ does). algorithm="bf16_dot2": AVX-512-BF16 vdpbf16ps semantics (DAZ inputs, FTZ steps;
    needs format="bfloat16" and accumulate="float32"). out: a format for C: the accumulator
    rounded ONCE into it (rounding, seed, offset as to_bits over C in row-major order; returned as
    float64 values, as round()); None returns the accumulator (float32 or float64 array).
    threads: None uses mixprec's pool, 1 the calling thread only (the bits are the same).
    precision: torch.set_float32_matmul_precision's "highest", "high" (float32 operands rounded to
    tf32 first; high_mode "tf32_nearest_away" as NVIDIA hardware, "tf32_nearest_even", or "bf16x3"
    split products) or "medium" (operands rounded to bfloat16), for accumulate="float32"; set for
    this call only.
    mma: a tensor-core preset (docs/pages/tensor-cores.md, e.g. "hopper_wgmma_fp8_f32"): each C
    element is that instruction's datapath chained along k from +0 (bit-identical to MMA-Sim);
    format names the operand format ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
    "float8_e5m2fnuz", "float16", "bfloat16", "tf32"; None: float32 operands truncated to tf32 by
    the tf32 presets), accumulate "float32"; a format the preset does not take is a ValueError.

    >>> mixprec.gemm(np.ones((2, 3)), np.ones((3, 2)), format="bfloat16")
    array([[3., 3.],
           [3., 3.]], dtype=float32)
    """
    G = "gemm"
    _str_arg(G, "accumulate", accumulate, ("float32", "float64"))
    _str_arg(G, "algorithm", algorithm, ("exact", "bf16_dot2"))
    precisions, high_modes = ("highest", "high", "medium"), ("tf32_nearest_away", "tf32_nearest_even", "bf16x3")
    prec = (_str_arg(G, "precision", precision, precisions), _str_arg(G, "high_mode", high_mode, high_modes))
    if precision != "highest" and accumulate != "float32":
        raise ValueError("mixprec.gemm: precision=%r applies to float32 operands (accumulate='float32')" % precision)
    if high_mode != "tf32_nearest_away" and precision != "high":
        raise ValueError("mixprec.gemm: high_mode is for precision='high' (got precision=%r)" % precision)
    if format is not None:
        format = _check_format(format, G)
    if out is not None:
        out = _check_format(out, G)
        out_args = _rounding_args(G, rounding, "ieee", seed, offset)
    elif rounding != "nearest_even" or seed is not None or offset != 0:
        raise ValueError("mixprec.gemm: rounding, seed and offset are for out=<format> (the accumulator is returned "
                         "as is without it)")
    if algorithm == "bf16_dot2" and (format != "bfloat16" or accumulate != "float32"):
        raise ValueError("mixprec.gemm: algorithm='bf16_dot2' needs format='bfloat16' and accumulate='float32'")
    n_threads = _threads(threads, G)
    acc = _np.float32 if accumulate == "float32" else _np.float64
    mats = []
    for name, x in (("a", a), ("b", b)):
        v, shape = _as_float_array(x, G)
        if v.ndim != 2:
            raise ValueError("mixprec.gemm: %s must be 2-D, got shape %s" % (name, shape))
        if algorithm == "bf16_dot2":
            mats.append(_np.ascontiguousarray(_encode(v, "bfloat16", 0, 0, 0, 0)))
            continue
        if format is not None:
            v = _decode(_encode(v, format, 0, 0, 0, 0), format)
            w = v.astype(acc)
            same = (w == v) | (_np.isnan(w) & _np.isnan(v))
            if not same.all():
                raise ValueError("mixprec.gemm: values of %s are not all %s values (use accumulate='float64')"
                                 % (_format_name(format), accumulate))
            v = w
        mats.append(_np.ascontiguousarray(v.astype(acc)))
    if mats[0].shape[1] != mats[1].shape[0]:
        raise ValueError("mixprec.gemm: a is %d x %d, b is %d x %d (inner sizes differ)" % (mats[0].shape + mats[1].shape))
    if mma is not None:
        if not isinstance(mma, str):
            raise TypeError("mixprec.gemm: mma must be a preset name (str), got %s" % type(mma).__name__)
        if algorithm != "exact" or accumulate != "float32" or precision != "highest":
            raise ValueError("mixprec.gemm: mma=%r needs algorithm='exact', accumulate='float32' and precision='highest'" % mma)
        c = _cpp(G, _core.gemm_mma, mats[0], mats[1], "float32" if format is None else _format_name(format), mma, n_threads)
    elif algorithm == "bf16_dot2":
        c = _cpp(G, _core.gemm_bf16_dot2, mats[0], mats[1], n_threads, *prec)
    elif acc is _np.float32:
        c = _cpp(G, _core.gemm_f32, mats[0], mats[1], n_threads, *prec)
    else:
        c = _cpp(G, _core.gemm_f64, mats[0], mats[1], n_threads, *prec)
    if out is None:
        return c
    return _decode(_encode(c, out, *out_args), out)


_ACCUMULATORS = ("fp32", "truncated")


def block_scaled_gemm(a: BlockScaled, b: BlockScaled, accumulator: "str | tuple" = "fp32", promotion: int = 0,
                      a_global: float = 0.0, b_global: float = 0.0) -> _np.ndarray:
    """C = A B (float32, m x n) for block-scaled A (m x k, blocks along k: e.g. (1, 32)) and B
    (k x n, blocks along k: (32, 1), or 2-D tiles), as mixprec::block_scaled_gemm: each C element
    runs over k in chunks of ``promotion`` (0: the k block size), a chunk's element products summed
    in the accumulator model then promoted to float32 with the two block scales.

    accumulator: "fp32" (round to nearest-even after each product), ("truncated", bits, group):
    groups of products aligned to their largest exponent and truncated to ``bits`` bits (a MODEL of
    published Hopper/Blackwell FP8 tensor-core measurements, e.g. ("truncated", 13, 4)), or
    ("tensor_core", preset): the chunk's products through that instruction's datapath, bit for bit
    MMA-Sim's model (a preset of docs/pages/tensor-cores.md, e.g. "hopper_wgmma_fp8_f32"; the mx
    kinds take the block scales inside the instruction and need promotion=0). A preset that does
    not take these elements, scales or K blocks is a ValueError naming what it takes.
    a_global/b_global: per-tensor decode factors (0: the recipe's; pass torchao NVFP4's
    per-tensor scale yourself).
    """
    G = "block_scaled_gemm"
    if not isinstance(a, BlockScaled) or not isinstance(b, BlockScaled):
        raise TypeError("mixprec.block_scaled_gemm: takes two BlockScaled (from block_quantize), got %s and %s"
                        % (type(a).__name__, type(b).__name__))
    preset = None
    if isinstance(accumulator, str) and accumulator == "fp32":
        model, bits, group = 0, 23, 1
    elif isinstance(accumulator, tuple) and len(accumulator) == 2 and accumulator[0] == "tensor_core":
        preset = accumulator[1]
        if not isinstance(preset, str):
            raise TypeError("mixprec.block_scaled_gemm: a tensor_core preset is a name (str), got %s"
                            % type(preset).__name__)
    elif isinstance(accumulator, str) or (isinstance(accumulator, tuple) and (
            len(accumulator) != 3 or accumulator[0] != "truncated")):
        raise ValueError("mixprec.block_scaled_gemm: accumulator must be 'fp32', ('truncated', bits, group) or "
                         "('tensor_core', preset), got %r" % (accumulator,))
    elif isinstance(accumulator, tuple):
        model = 1
        bits = _int_arg(G, "accumulator bits", accumulator[1], 1, 2**31)
        group = _int_arg(G, "accumulator group", accumulator[2], 1, 2**31)
    else:
        raise TypeError("mixprec.block_scaled_gemm: accumulator must be 'fp32' or a tuple ('truncated', bits, group) "
                        "or ('tensor_core', preset), got %s" % type(accumulator).__name__)
    promotion = _int_arg(G, "promotion", promotion, 0, 2**31)
    a_global, b_global = _float_arg(G, "a_global", a_global), _float_arg(G, "b_global", b_global)
    args = []
    for q in (a, b):
        family, cpp, _ = _recipe_params(q.recipe, dict(q.params), G, given=False)
        args += [_np.ascontiguousarray(q.elements), _np.ascontiguousarray(q.scales), q.tensor_scale, family, cpp]
    if preset is not None:
        return _cpp(G, _core.block_gemm_mma, *args, preset, promotion, a_global, b_global)
    return _cpp(G, _core.block_gemm, *args, model, bits, group, promotion, a_global, b_global)


# --- packed sub-byte storage (packed.hpp) ---

def _pack_width(format, func):
    format = _check_format(format, func)
    bits = format.bits if not isinstance(format, str) else _core.finfo(format)["bits"]
    if bits > 8:
        raise ValueError("mixprec.%s: %s has %d bits: only formats of at most 8 bits are packed"
                         % (func, _format_name(format), bits))
    return format, bits


def pack(codes, format: "str | format") -> _np.ndarray:
    """Codes of a format of at most 8 bits (uint8, one per byte, as to_bits returns them) packed
    into a uint8 array: element i occupies bits [b*i, b*i + b) of the LSB-first bit stream (b the
    format's width). FP4: element 2j is the LOW nibble of byte j, as CUDA's __nv_fp4x2_e2m1 and
    PyTorch's float4_e2m1fn_x2 (``data[1::2] << 4 | data[::2]``); FP6: four elements in three
    bytes, the little-endian word e0 | e1 << 6 | e2 << 12 | e3 << 18 (CUTLASS's order).

    Packs along the last axis: (..., n) gives (..., n * b / 8) when that is whole (so each row
    packs on its own); otherwise codes must be 1-D and the last byte is padded with zero bits.
    Codes that do not fit b bits raise ValueError.

    >>> mixprec.pack(mixprec.to_bits([1.0, -6.0], "float4_e2m1fn"), "float4_e2m1fn")
    array([242], dtype=uint8)
    """
    format, b = _pack_width(format, "pack")
    c = _np.asarray(codes)
    if c.dtype != _np.uint8:
        raise TypeError("mixprec.pack: takes uint8 codes (one per byte, as to_bits returns them), got %s" % c.dtype)
    if c.ndim == 0:
        raise ValueError("mixprec.pack: takes an array, not a scalar")
    n = c.shape[-1]
    if c.ndim > 1 and (n * b) % 8:
        raise ValueError("mixprec.pack: the last axis (%d elements of %d bits) does not fill whole bytes; pack a 1-D "
                         "array" % (n, b))
    flat = _np.ascontiguousarray(c).reshape(-1)
    if not isinstance(format, str):
        out = _cpp("pack", _core.pack_bits, flat, b)
    else:
        out = _cpp("pack", _core.pack_codes, flat, format)
    return out.reshape(c.shape[:-1] + (n * b // 8,)) if c.ndim > 1 else out


def unpack(packed, format: "str | format", count: int | None = None) -> _np.ndarray:
    """The inverse of pack: uint8 codes, one per byte. packed: uint8 (..., bytes); count: the
    number of elements of a 1-D packed array (default: all whole elements of its bytes)."""
    format, b = _pack_width(format, "unpack")
    p = _np.asarray(packed)
    if hasattr(packed, "__dlpack__") and not isinstance(packed, _np.ndarray):
        p = _np.from_dlpack(packed)
    if p.dtype != _np.uint8:
        p = p.view(_np.uint8) if p.dtype.itemsize == 1 else p  # torch float4_e2m1fn_x2 / ml_dtypes views
    if p.dtype != _np.uint8:
        raise TypeError("mixprec.unpack: takes uint8 bytes, got %s" % p.dtype)
    if p.ndim == 0:
        raise ValueError("mixprec.unpack: takes an array, not a scalar")
    nbytes = p.shape[-1]
    if count is not None:
        count = _int_arg("unpack", "count", count, 0)
    if p.ndim != 1:
        if count is not None:
            raise ValueError("mixprec.unpack: count is for 1-D arrays")
        if (nbytes * 8) % b:
            raise ValueError("mixprec.unpack: %d bytes per row do not hold whole %d-bit elements" % (nbytes, b))
    n = nbytes * 8 // b if count is None else count
    if p.ndim != 1:
        rows = int(_np.prod(p.shape[:-1]))
        flat = _np.ascontiguousarray(p).reshape(-1)
        total = rows * n
    else:
        flat, total = _np.ascontiguousarray(p), n
    if not isinstance(format, str):
        out = _cpp("unpack", _core.unpack_bits, flat, total, b)
    else:
        out = _cpp("unpack", _core.unpack_codes, flat, total, format)
    return out.reshape(p.shape[:-1] + (n,)) if p.ndim != 1 else out
