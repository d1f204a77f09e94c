# SPDX-License-Identifier: MIT
"""mixprec for Python: exact low-precision floating point for NumPy arrays.

Every conversion rounds ONCE, from the exact value of its input, in the rounding mode you
choose (ml_dtypes' ``astype`` has nearest-even only and rounds float64 through float32 first).
The numbers come from mixprec's C++ headers; this package adds NumPy arrays around them.

>>> import numpy as np, mixprec
>>> mixprec.to_bits(np.array([0.1]), "float16")                      # codes, as uint16
array([11878], dtype=uint16)
>>> mixprec.to_bits(np.array([0.1]), "float16", rounding="upward")
array([11879], dtype=uint16)
>>> mixprec.round(np.array([0.1, 1e6]), "float8_e4m3fn", overflow="saturate")
array([1.015625e-01, 4.480000e+02])

Formats: see ``formats()``. Codes are unsigned integers of the format's storage width (uint8
for the 8-, 6- and 4-bit formats, one code per byte; uint16; uint32 for tf32), so an ml_dtypes
array is ``mixprec.to_bits(x, "float8_e4m3fn").view(ml_dtypes.float8_e4m3fn)`` without a copy.
"""
from __future__ import annotations

import math as _math

import numpy as _np

from . import _core

__all__ = ["set_num_threads", "get_num_threads", "pack", "unpack", "gemm", "block_scaled_gemm", "BlockScaled", "block_quantize", "block_dequantize", "block_recipe_info", "BLOCK_RECIPES",
           "LossScale", "autocast_ops", "format", "formats", "to_bits", "from_bits", "round", "finfo", "explain", "to_string", "from_string",
           "ROUNDING_MODES", "OVERFLOW_POLICIES", "ENCODINGS", "__version__"]
__version__ = _core.version

#: Rounding modes, in the order of C++'s mixprec::rounding.
ROUNDING_MODES = ("nearest_even", "nearest_away", "toward_zero", "upward", "downward", "to_odd", "stochastic")
#: Overflow policies: "ieee" (inf, or NaN where the format has no inf) and "saturate" (clamp to +-max).
OVERFLOW_POLICIES = ("ieee", "saturate")

# ml_dtypes' dtype names that are mixprec formats of the same name (half is numpy's float16).
_ML_DTYPES_NAMES = {"bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                    "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
                    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz"}


def set_num_threads(n: int) -> None:
    """Threads of mixprec's pool for the bulk functions (to_bits, round, gemm, ...): n >= 1, or 0 for
    the default ($MIXPREC_NUM_THREADS, else the hardware's). Results never depend on it."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError("n must be a non-negative int")
    _core.set_num_threads(n)


def get_num_threads() -> int:
    """The number of threads the bulk functions use."""
    return int(_core.num_threads())


def formats() -> list[str]:
    """The names of the built-in formats."""
    return list(_core.formats())


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
        if encoding not in ENCODINGS:
            raise ValueError("unknown encoding %r; one of %s" % (encoding, ", ".join(ENCODINGS)))
        for what, v in (("exp_bits", exp_bits), ("man_bits", man_bits)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError("%s must be an int" % what)
        if bias is None:
            bias = (1 << (exp_bits - 1)) - 1 + (encoding == "fnuz") if 1 <= exp_bits <= 11 else 0
        elif not isinstance(bias, int) or isinstance(bias, bool):
            raise TypeError("bias must be an int or None")
        if signed is None:
            signed = encoding != "exponent_only"
        enc = ENCODINGS.index(encoding)
        info = _core.rt_describe(exp_bits, man_bits, enc, bias, bool(signed))  # ValueError if invalid
        self.exp_bits, self.man_bits, self.encoding, self.bias, self.signed = exp_bits, man_bits, encoding, bias, bool(signed)
        self.bits = info["bits"]
        self.storage_bits = info["storage_bits"]
        self._args = (exp_bits, man_bits, enc, bias, bool(signed))
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


def _check_format(format):
    """A built-in name (str) for names and built-in-equivalent user formats, else the format object."""
    if isinstance(format, globals()["format"]):
        return format.builtin if format.builtin is not None else format
    if not isinstance(format, str) or format not in _core.formats():
        raise ValueError("unknown format %r; formats(): %s, or a mixprec.format(...)" % (format, ", ".join(_core.formats())))
    return format


def _mode(rounding: str) -> int:
    if rounding not in ROUNDING_MODES:
        raise ValueError("unknown rounding mode %r; one of %s" % (rounding, ", ".join(ROUNDING_MODES)))
    return ROUNDING_MODES.index(rounding)


def _policy(overflow: str) -> int:
    if overflow not in OVERFLOW_POLICIES:
        raise ValueError("unknown overflow policy %r; one of %s" % (overflow, ", ".join(OVERFLOW_POLICIES)))
    return OVERFLOW_POLICIES.index(overflow)


def _to_numpy(x):
    """x as a NumPy array: through __dlpack__ without a copy where it can (CPU PyTorch tensors)."""
    if hasattr(x, "__dlpack__") and not isinstance(x, _np.ndarray):
        try:
            return _np.asarray(_np.from_dlpack(x))
        except (TypeError, RuntimeError, BufferError):
            pass
    return _np.asarray(x)


def _as_float_array(x):
    """x as a contiguous float32 or float64 NumPy array (exact), and its shape.

    Accepts anything NumPy converts (lists, scalars, the buffer protocol, objects with
    __array__ or __dlpack__ such as CPU PyTorch tensors), NumPy float16 and the ml_dtypes types
    (converted exactly through their codes). Non-contiguous arrays are copied.
    """
    a = _to_numpy(x)
    name = a.dtype.name
    if name in _ML_DTYPES_NAMES:
        width = a.dtype.itemsize * 8
        codes = _np.ascontiguousarray(a).view("uint%d" % width).reshape(-1)
        return _core.from_bits(codes, name).reshape(a.shape), a.shape
    if a.dtype == _np.float16:
        a = a.astype(_np.float32)  # exact
    elif a.dtype.kind in "iub":
        a = a.astype(_np.float64)  # exact up to 2^53; larger integers round once here
    elif a.dtype not in (_np.float32, _np.float64):
        raise TypeError("expected a float array (float16/32/64, an ml_dtypes type or integers), got %s" % a.dtype)
    return _np.ascontiguousarray(a), a.shape


def to_bits(x, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee", seed: int | None = None,
            offset: int = 0) -> _np.ndarray:
    """The codes of x rounded once into format (an unsigned integer array of x's shape).

    rounding: one of ROUNDING_MODES; "stochastic" needs ``seed``: element i (in C order) uses the
    random bits counter_rng(seed)(offset + i) of the C++ library, so a result is reproducible and
    equals the C++ ``mixprec::convert`` with the same seed and offset.
    overflow: "ieee" or "saturate". Raises ValueError for an unknown format, mode or policy.
    """
    format = _check_format(format)
    mode, policy = _mode(rounding), _policy(overflow)
    if rounding == "stochastic" and seed is None:
        raise ValueError("rounding='stochastic' needs a seed")
    if seed is not None and (not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise ValueError("seed must be an integer in [0, 2**64)")
    if not isinstance(offset, int) or not 0 <= offset < 2**64:
        raise ValueError("offset must be an integer in [0, 2**64)")
    a, shape = _as_float_array(x)
    flat = a.reshape(-1)
    if not isinstance(format, str):
        fn = _core.rt_to_bits_f32 if flat.dtype == _np.float32 else _core.rt_to_bits_f64
        return fn(flat, *format._args, mode, policy, seed or 0, offset).reshape(shape)
    fn = _core.to_bits_f32 if flat.dtype == _np.float32 else _core.to_bits_f64
    return fn(flat, format, mode, policy, seed or 0, offset).reshape(shape)


def from_bits(codes, format: "str | format") -> _np.ndarray:
    """The exact values (float64) of codes of format (unsigned integers of its storage width)."""
    format = _check_format(format)
    c = _np.asarray(codes)
    width = format.storage_bits if not isinstance(format, str) else _core.finfo(format)["storage_bits"]
    want = _np.dtype("uint%d" % width)
    if c.dtype != want:
        if c.dtype.kind not in "iu" or (c.size and (c.min() < 0 or c.max() >= 2**width)):
            raise TypeError("codes of %s must be unsigned integers below 2**%d (got %s)" % (format, width, c.dtype))
        c = c.astype(want)
    flat = _np.ascontiguousarray(c).reshape(-1)
    if not isinstance(format, str):
        return _core.rt_from_bits(flat, *format._args).reshape(c.shape)
    return _core.from_bits(flat, format).reshape(c.shape)


def round(x, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee", seed: int | None = None,
          offset: int = 0) -> _np.ndarray:
    """x rounded once into format, returned as float64 values (exact)."""
    return from_bits(to_bits(x, format, rounding, overflow, seed, offset), format)


def finfo(format: "str | format") -> dict:
    """Machine limits of format, as numpy/ml_dtypes finfo (a dict of exact values)."""
    format = _check_format(format)
    if not isinstance(format, str):
        return _user_finfo(format)
    return dict(_core.finfo(format))


def _user_finfo(f: format) -> dict:
    """finfo of a user format, by the definitions of the C++ mixprec::finfo (finfo.hpp)."""
    info = f._info
    value = lambda code: float(from_bits(_np.array([code], "uint%d" % f.storage_bits), f)[0])
    code = lambda v: int(to_bits(_np.array([v], _np.float64), f)[0])
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


def explain(x, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee") -> str:
    """What storing x in format does: fields, class, exact value, ulp, neighbours, error and why.

    x: text (read as strtod reads it, rounded once from its exact value: "0.1", "1e-400",
    "0x1.8p1", "inf") or a Python float/int (its exact value).
    """
    format = _check_format(format)
    text = x if isinstance(x, str) else float(x).hex() if not isinstance(x, int) else str(x)
    if not isinstance(format, str):
        return _user_explain(text, format, rounding, overflow)
    try:
        return _core.explain_text(text, format, _mode(rounding), _policy(overflow))
    except ValueError as e:
        raise ValueError(str(e)) from None


def _user_explain(text: str, f: format, rounding: str, overflow: str) -> str:
    """explain() for a user format: the stored code, its fields and value (shorter than the C++ text)."""
    if rounding == "stochastic":
        raise ValueError("explain: rounding='stochastic' needs random bits; use to_bits with a seed")
    code = from_string(text, f, rounding, overflow)
    value = float(from_bits(_np.array([code], "uint%d" % f.storage_bits), f)[0])
    m, e = f.man_bits, f.exp_bits
    sign = (code >> (e + m)) & 1 if f.signed else 0
    field, mant = (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    kind = ("nan" if value != value else "infinity" if value in (float("inf"), float("-inf")) else
            "zero" if value == 0 else "subnormal" if field == 0 and f.encoding != "exponent_only" else "normal")
    return ("%s read into %s (%r), rounding %s, overflow %s\n"
            "  stored: code 0x%x = sign %d, exponent field %d, mantissa field %d (%s)\n"
            "  value:  %s (exactly %s)\n" % (text, f.name, f, rounding, overflow, code, sign, field, mant, kind,
                                            to_string(code, f), value.hex() if value == value else "nan"))


def to_string(code: int, format: "str | format") -> str:
    """The shortest text that reads back as the value of code (as C++ to_chars)."""
    format = _check_format(format)
    if not isinstance(format, str):
        return _core.rt_code_to_string(int(code), *format._args)
    return _core.code_to_string(int(code), format)


def from_string(text: str, format: "str | format", rounding: str = "nearest_even", overflow: str = "ieee") -> int:
    """The code of text read ONCE into format (strtod's grammar, any number of digits)."""
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    format = _check_format(format)
    if not isinstance(format, str):
        return _core.rt_from_string(text, *format._args, _mode(rounding), _policy(overflow))
    return _core.code_from_string(text, format, _mode(rounding), _policy(overflow))


def autocast_ops(device: str = "cuda", effective: bool = False) -> dict:
    """PyTorch's autocast op table as data: {op name: policy}.

    device: "cuda" or "cpu". Policies: "lower_precision" (runs in float16/bfloat16), "fp32",
    "fp32_set_opt_dtype", "fp32_append_dtype", "promote", "banned". effective=True adds the composite
    ops that PyTorch runs through listed low-precision ops (einsum, tensordot, ...).
    """
    if device not in ("cpu", "cuda"):
        raise ValueError("device must be 'cpu' or 'cuda'")
    return dict(_core.autocast_table(device + ("_effective" if effective else "")))


class LossScale:
    """A dynamic loss scale stepping by one framework's rules (``update(found_inf)``).

    preset: "pytorch" (torch.amp.GradScaler), "keras", "tf_keras", "jmp", "apex", "deepspeed",
    "megatron" — each bit-exact with that framework's update rule (see the C++ loss_scale.hpp).

    >>> s = LossScale("pytorch"); s.update(True); s.scale
    32768.0
    """

    def __init__(self, preset: str = "pytorch"):
        if not isinstance(preset, str):
            raise TypeError("preset must be a str")
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


# --- block-scaling recipes (include/mixprec/block_scaling*.hpp) ---

_MX_RULES = ("ocp_floor", "te_rceil", "ceil_pow2", "even")
_NVFP4_ORDERS = ("te", "te_legacy", "torchao", "torchao_single")
_NVFP4_FACTORS = ("reciprocal", "quotient")
#: Recipe families and their parameters with defaults (see block_quantize).
BLOCK_RECIPES = {
    "mx": {"element": "float8_e4m3fn", "rule": "ocp_floor", "block": (1, 32), "torchao_min_normal_divisor": False},
    "te_mxfp8": {"element": "float8_e4m3fn", "block": (1, 32)},
    "nvfp4": {"order": "te", "factor": "reciprocal", "block": (1, 16), "stochastic": False, "seed": 0,
              "hadamard": False, "hadamard_signs": 0},
    "deepseek_fp8": {"block": (1, 128), "ue8m0": False, "amax_floor": 1e-4},
    "te_fp8_block": {"block": (1, 128), "epsilon": 0.0},
}


def _recipe_params(recipe: str, params: dict):
    """(C++ family, C++ parameter dict, the full Python parameters) for a recipe and its keywords."""
    if recipe not in BLOCK_RECIPES:
        raise ValueError("unknown recipe %r; one of %s" % (recipe, ", ".join(BLOCK_RECIPES)))
    full = dict(BLOCK_RECIPES[recipe])
    unknown = set(params) - set(full)
    if unknown:
        raise TypeError("recipe %r has no parameter(s) %s; its parameters: %s"
                        % (recipe, ", ".join(sorted(unknown)), ", ".join(full)))
    full.update(params)
    block = full.pop("block")
    if (not isinstance(block, (tuple, list)) or len(block) != 2 or
            not all(isinstance(b, int) and b > 0 for b in block)):
        raise ValueError("block must be (rows, cols) of positive ints, got %r" % (block,))
    cpp = {"block_rows": int(block[0]), "block_cols": int(block[1])}
    family = recipe
    if recipe in ("mx", "te_mxfp8"):
        family = "mx"
        rule = full.get("rule", "te_rceil")
        if rule not in _MX_RULES:
            raise ValueError("unknown MX rule %r; one of %s" % (rule, ", ".join(_MX_RULES)))
        if recipe == "te_mxfp8" and full["element"] not in ("float8_e4m3fn", "float8_e5m2"):
            raise ValueError("te_mxfp8 elements are float8_e4m3fn or float8_e5m2")
        cpp.update(element=str(full["element"]), rule=_MX_RULES.index(rule),
                   torchao_min_normal_divisor=bool(full.get("torchao_min_normal_divisor", False)))
    elif recipe == "nvfp4":
        if full["order"] not in _NVFP4_ORDERS:
            raise ValueError("unknown NVFP4 order %r; one of %s" % (full["order"], ", ".join(_NVFP4_ORDERS)))
        if full["factor"] not in _NVFP4_FACTORS:
            raise ValueError("unknown NVFP4 factor %r; one of %s" % (full["factor"], ", ".join(_NVFP4_FACTORS)))
        if not isinstance(full["seed"], int) or not 0 <= full["seed"] < 2**64:
            raise ValueError("seed must be an integer in [0, 2**64)")
        if not isinstance(full["hadamard_signs"], int) or not 0 <= full["hadamard_signs"] < 2**16:
            raise ValueError("hadamard_signs must be an integer in [0, 2**16)")
        cpp.update(order=_NVFP4_ORDERS.index(full["order"]), factor=_NVFP4_FACTORS.index(full["factor"]),
                   stochastic=bool(full["stochastic"]), seed=int(full["seed"]), hadamard=bool(full["hadamard"]),
                   hadamard_signs=int(full["hadamard_signs"]))
    elif recipe == "deepseek_fp8":
        cpp.update(ue8m0=bool(full["ue8m0"]), amax_floor=float(full["amax_floor"]))
    else:
        cpp.update(epsilon=float(full["epsilon"]))
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
    if a.dtype.name in _ML_DTYPES_NAMES or a.dtype == _np.float16:
        a = _as_float_array(a)[0].astype(_np.float32)  # exact: every such value is a float32
    if a.dtype != _np.float32:
        raise TypeError("block_quantize takes float32 (or float16/bfloat16/FP8) arrays, as the frameworks' "
                        "recipes do; got %s (convert with .astype(np.float32) if that rounding is intended)" % a.dtype)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2:
        raise ValueError("block_quantize takes a 1-D or 2-D array (rows, cols), got %d dimensions" % a.ndim)
    return _np.ascontiguousarray(a)


def block_quantize(x, recipe: str = "mx", **params) -> BlockScaled:
    """Quantizes x (rows x cols float32; 1-D is one row) with a block-scaling recipe.

    Recipes and their keyword parameters (defaults in BLOCK_RECIPES), bit for bit the C++ recipes:

    - "mx": OCP MX. element: float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn,
      float4_e2m1fn or mxint8; rule: "ocp_floor" (OCP v1.0), "te_rceil" (Transformer Engine
      MXFP8BlockScaling / torchao RCEIL), "ceil_pow2" (torchao CEIL), "even" (torchao EVEN);
      block (1, 32); torchao_min_normal_divisor (torchao's 2^-126 for all-zero blocks).
    - "te_mxfp8": Transformer Engine MXFP8 (rule te_rceil); element float8_e4m3fn/e5m2;
      block (1, 32) rowwise or (32, 1) columnwise.
    - "nvfp4": NVFP4 (E2M1 elements, UE4M3 scales over 16 values, FP32 tensor scale). order: "te",
      "te_legacy", "torchao" (two-level) or "torchao_single"; factor "reciprocal"/"quotient";
      stochastic and seed (TE's stochastic rounding); hadamard and hadamard_signs (TE's RHT).
    - "deepseek_fp8": DeepSeek-V3 fine-grained FP8 (E4M3 elements, FP32 scales); block (1, 128)
      activations or (128, 128) weights; ue8m0 (power-of-two scales, DeepSeek V3.1/DeepGEMM);
      amax_floor (default 1e-4; 0 as in the V3 release).
    - "te_fp8_block": Transformer Engine Float8BlockScaling (power-of-two scales); block (1, 128)
      or (128, 128); epsilon.

    Returns a BlockScaled (element codes, scales in the documented layout, tensor scale, the
    recipe's parameters and its C++ recipe_info).

    >>> q = mixprec.block_quantize(np.ones((2, 64), np.float32), "mx", element="float4_e2m1fn")
    >>> q.scales.shape, q.info["name"]
    ((2, 2), 'ocp_mx/mxfp4_e2m1')
    """
    family, cpp, full = _recipe_params(recipe, params)
    a = _as_float32_matrix(x)
    d = _core.block_quantize(a, family, cpp)
    return BlockScaled(d["elements"], d["scales"], d["tensor_scale"], recipe, full, dict(d["info"]))


def block_dequantize(q: BlockScaled) -> _np.ndarray:
    """The float32 values of a BlockScaled (the C++ recipe's dequantize: bit for bit)."""
    if not isinstance(q, BlockScaled):
        raise TypeError("block_dequantize takes what block_quantize returns (a BlockScaled)")
    family, cpp, _ = _recipe_params(q.recipe, {k: v for k, v in q.params.items()})
    e_dtype, s_dtype, _ = _core.block_storage(family, cpp)
    e = _np.ascontiguousarray(q.elements)
    s = _np.ascontiguousarray(q.scales)
    if e.ndim != 2 or s.ndim != 2 or e.dtype != _np.dtype(e_dtype) or s.dtype != _np.dtype(s_dtype):
        raise TypeError("elements must be 2-D %s and scales 2-D %s for recipe %r" % (e_dtype, s_dtype, q.recipe))
    return _core.block_dequantize(e, s, q.tensor_scale, family, cpp)


def block_recipe_info(recipe: str = "mx", **params) -> dict:
    """A recipe's name and parameters as data: the C++ recipe_info plus its Python parameters."""
    family, cpp, full = _recipe_params(recipe, params)
    info = dict(_core.block_storage(family, cpp)[2])
    info["params"] = full
    info["recipe"] = recipe
    return info


# --- GEMM (kernels/gemm.hpp, block_scaled_gemm.hpp) ---

def _threads(threads):
    if threads is None:
        return 0
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise ValueError("threads must be None (all) or a positive int (1: this thread only)")
    return threads


def gemm(a, b, format: "str | format | None" = None, accumulate: str = "float32", algorithm: str = "exact",
         out: "str | format | None" = None, rounding: str = "nearest_even", seed: int | None = None, offset: int = 0,
         threads: int | None = None, precision: str = "highest", high_mode: str = "tf32_nearest_away") -> _np.ndarray:
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

    >>> mixprec.gemm(np.ones((2, 3)), np.ones((3, 2)), format="bfloat16")
    array([[3., 3.],
           [3., 3.]], dtype=float32)
    """
    if accumulate not in ("float32", "float64"):
        raise ValueError("accumulate must be 'float32' or 'float64'")
    if algorithm not in ("exact", "bf16_dot2"):
        raise ValueError("algorithm must be 'exact' or 'bf16_dot2'")
    precisions, high_modes = ("highest", "high", "medium"), ("tf32_nearest_away", "tf32_nearest_even", "bf16x3")
    if precision not in precisions or high_mode not in high_modes:
        raise ValueError("precision must be one of %s and high_mode one of %s" % (precisions, high_modes))
    if precision != "highest" and accumulate != "float32":
        raise ValueError("precision applies to float32 operands (accumulate='float32')")
    prec = (precisions.index(precision), high_modes.index(high_mode))
    n_threads = _threads(threads)
    acc = _np.float32 if accumulate == "float32" else _np.float64
    mats = []
    for name, x in (("a", a), ("b", b)):
        v, shape = _as_float_array(x)
        if v.ndim != 2:
            raise ValueError("gemm: %s must be 2-D, got shape %s" % (name, shape))
        if algorithm == "bf16_dot2":
            if format != "bfloat16" or accumulate != "float32":
                raise ValueError("algorithm='bf16_dot2' needs format='bfloat16' and accumulate='float32'")
            mats.append(_np.ascontiguousarray(to_bits(v, "bfloat16")))
            continue
        if format is not None:
            v = round(v, format)
            w = v.astype(acc)
            same = (w == v) | (_np.isnan(w) & _np.isnan(v))
            if not same.all():
                raise ValueError("gemm: values of %s are not all %s values (use accumulate='float64')"
                                 % (getattr(format, "name", format), accumulate))
            v = w
        mats.append(_np.ascontiguousarray(v.astype(acc)))
    if mats[0].shape[1] != mats[1].shape[0]:
        raise ValueError("gemm: a is %d x %d, b is %d x %d (inner sizes differ)" % (mats[0].shape + mats[1].shape))
    if algorithm == "bf16_dot2":
        c = _core.gemm_bf16_dot2(mats[0], mats[1], n_threads, *prec)
    elif acc is _np.float32:
        c = _core.gemm_f32(mats[0], mats[1], n_threads, *prec)
    else:
        c = _core.gemm_f64(mats[0], mats[1], n_threads, *prec)
    if out is None:
        return c
    return round(c, out, rounding, "ieee", seed, offset)


_ACCUMULATORS = ("fp32", "truncated")


def block_scaled_gemm(a: BlockScaled, b: BlockScaled, accumulator: "str | tuple" = "fp32", promotion: int = 0,
                      a_global: float = 0.0, b_global: float = 0.0) -> _np.ndarray:
    """C = A B (float32, m x n) for block-scaled A (m x k, blocks along k: e.g. (1, 32)) and B
    (k x n, blocks along k: (32, 1), or 2-D tiles), as mixprec::block_scaled_gemm: each C element
    runs over k in chunks of ``promotion`` (0: the k block size), a chunk's element products summed
    in the accumulator model then promoted to float32 with the two block scales.

    accumulator: "fp32" (round to nearest-even after each product) or ("truncated", bits, group):
    groups of products aligned to their largest exponent and truncated to ``bits`` bits (a MODEL of
    published Hopper/Blackwell FP8 tensor-core measurements, e.g. ("truncated", 13, 4)).
    a_global/b_global: per-tensor decode factors (0: the recipe's; pass torchao NVFP4's
    per-tensor scale yourself).
    """
    if not isinstance(a, BlockScaled) or not isinstance(b, BlockScaled):
        raise TypeError("block_scaled_gemm takes two BlockScaled (from block_quantize)")
    if accumulator == "fp32":
        model, bits, group = 0, 23, 1
    elif (isinstance(accumulator, tuple) and len(accumulator) == 3 and accumulator[0] == "truncated"
          and all(isinstance(v, int) for v in accumulator[1:])):
        model, bits, group = 1, accumulator[1], accumulator[2]
    else:
        raise ValueError("accumulator must be 'fp32' or ('truncated', bits, group)")
    if not isinstance(promotion, int) or promotion < 0:
        raise ValueError("promotion must be a non-negative int")
    args = []
    for q in (a, b):
        family, cpp, _ = _recipe_params(q.recipe, dict(q.params))
        args += [_np.ascontiguousarray(q.elements), _np.ascontiguousarray(q.scales), q.tensor_scale, family, cpp]
    return _core.block_gemm(*args, model, bits, group, promotion, float(a_global), float(b_global))


# --- packed sub-byte storage (packed.hpp) ---

def _pack_width(format):
    format = _check_format(format)
    bits = format.bits if not isinstance(format, str) else _core.finfo(format)["bits"]
    if bits > 8:
        raise ValueError("%s has %d bits: only formats of at most 8 bits are packed" % (getattr(format, "name", format), bits))
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
    format, b = _pack_width(format)
    c = _np.asarray(codes)
    if c.dtype != _np.uint8:
        raise TypeError("pack takes uint8 codes (one per byte, as to_bits returns them), got %s" % c.dtype)
    if c.ndim == 0:
        raise ValueError("pack takes an array, not a scalar")
    n = c.shape[-1]
    if c.ndim > 1 and (n * b) % 8:
        raise ValueError("the last axis (%d elements of %d bits) does not fill whole bytes; pack a 1-D array"
                         % (n, b))
    flat = _np.ascontiguousarray(c).reshape(-1)
    out = _core.pack_bits(flat, b) if not isinstance(format, str) else _core.pack_codes(flat, format)
    return out.reshape(c.shape[:-1] + (n * b // 8,)) if c.ndim > 1 else out


def unpack(packed, format: "str | format", count: int | None = None) -> _np.ndarray:
    """The inverse of pack: uint8 codes, one per byte. packed: uint8 (..., bytes); count: the
    number of elements of a 1-D packed array (default: all whole elements of its bytes)."""
    format, b = _pack_width(format)
    p = _np.asarray(packed)
    if hasattr(packed, "__dlpack__") and not isinstance(packed, _np.ndarray):
        p = _np.from_dlpack(packed)
    if p.dtype != _np.uint8:
        p = p.view(_np.uint8) if p.dtype.itemsize == 1 else p  # torch float4_e2m1fn_x2 / ml_dtypes views
    if p.dtype != _np.uint8:
        raise TypeError("unpack takes uint8 bytes, got %s" % p.dtype)
    nbytes = p.shape[-1] if p.ndim else 0
    if p.ndim != 1:
        if count is not None:
            raise ValueError("count is for 1-D arrays")
        if (nbytes * 8) % b:
            raise ValueError("%d bytes per row do not hold whole %d-bit elements" % (nbytes, b))
    n = nbytes * 8 // b if count is None else count
    if not isinstance(n, int) or n < 0:
        raise ValueError("count must be a non-negative int")
    if p.ndim != 1:
        rows = int(_np.prod(p.shape[:-1]))
        flat = _np.ascontiguousarray(p).reshape(-1)
        total = rows * n
    else:
        flat, total = _np.ascontiguousarray(p), n
    out = _core.unpack_bits(flat, total, b) if not isinstance(format, str) else _core.unpack_codes(flat, total, format)
    return out.reshape(p.shape[:-1] + (n,)) if p.ndim != 1 else out
