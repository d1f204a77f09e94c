# SPDX-License-Identifier: MIT
"""One exception type per fault, and messages that say where and what: ValueError for a bad value
or name (an unknown format, mode, policy or preset, a code that does not fit, malformed text, an
argument the call would ignore), TypeError for an argument of the wrong type. Every message starts
with the public function's name ("mixprec.to_bits: ...") and quotes the caller's input once."""
import numpy as np
import pytest

import mixprec

X = np.ones(3, np.float32)
F8 = mixprec.format(3, 4)  # a user format (the run-time path)


def q():
    return mixprec.block_quantize(np.ones((2, 32), np.float32), "mx")


# (function name in the message, call, exception type, a phrase of the message)
CASES = [
    # format names and objects
    ("to_bits", lambda: mixprec.to_bits(X, "nope"), ValueError, "unknown format 'nope'"),
    ("to_bits", lambda: mixprec.to_bits(X, 16), TypeError, "format must be a format name"),
    ("round", lambda: mixprec.round(X, "float7"), ValueError, "unknown format 'float7'"),
    ("from_bits", lambda: mixprec.from_bits([1], "nope"), ValueError, "unknown format 'nope'"),
    ("finfo", lambda: mixprec.finfo("nope"), ValueError, "unknown format"),
    ("finfo", lambda: mixprec.finfo(None), TypeError, "format must be"),
    ("explain", lambda: mixprec.explain("1", "nope"), ValueError, "unknown format 'nope'"),
    ("to_string", lambda: mixprec.to_string(1, "nope"), ValueError, "unknown format 'nope'"),
    ("from_string", lambda: mixprec.from_string("1", "nope"), ValueError, "unknown format 'nope'"),
    ("pack", lambda: mixprec.pack(np.zeros(2, np.uint8), "nope"), ValueError, "unknown format 'nope'"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), format="nope"), ValueError, "unknown format"),
    # modes and policies: a wrong name is a ValueError, a non-str a TypeError, in every function
    ("to_bits", lambda: mixprec.to_bits(X, "float16", rounding="nearest"), ValueError, "unknown rounding mode 'nearest'"),
    ("to_bits", lambda: mixprec.to_bits(X, "float16", rounding=0), TypeError, "rounding mode must be a str"),
    ("round", lambda: mixprec.round(X, F8, overflow="clamp"), ValueError, "unknown overflow policy 'clamp'"),
    ("explain", lambda: mixprec.explain("1", "float16", "up"), ValueError, "unknown rounding mode 'up'"),
    ("from_string", lambda: mixprec.from_string("1", "float16", overflow=None), TypeError, "overflow policy must be"),
    # seed and offset: needed by "stochastic", refused by the other modes (they would be ignored)
    ("to_bits", lambda: mixprec.to_bits(X, "float16", rounding="stochastic"), ValueError, "needs a seed"),
    ("to_bits", lambda: mixprec.to_bits(X, "float16", seed=1), ValueError, "seed is for rounding='stochastic'"),
    ("round", lambda: mixprec.round(X, "bfloat16", "upward", seed=0), ValueError, "seed is for rounding='stochastic'"),
    ("round", lambda: mixprec.round(X, F8, offset=3), ValueError, "offset is for rounding='stochastic'"),
    ("to_bits", lambda: mixprec.to_bits(X, "float16", "stochastic", seed=-1), ValueError, "seed must be in [0, 2**64)"),
    ("to_bits", lambda: mixprec.to_bits(X, "float16", "stochastic", seed=2**64), ValueError, "seed must be in"),
    ("to_bits", lambda: mixprec.to_bits(X, "float16", "stochastic", seed="7"), TypeError, "seed must be an int"),
    ("to_bits", lambda: mixprec.to_bits(X, "float16", "stochastic", seed=1.0), TypeError, "seed must be an int"),
    ("round", lambda: mixprec.round(X, "float16", "stochastic", seed=1, offset=-1), ValueError, "offset must be in"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), seed=1), ValueError, "are for out="),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), out="bfloat16", seed=1), ValueError,
     "seed is for rounding='stochastic'"),
    ("block_quantize", lambda: mixprec.block_quantize(np.ones((1, 16), np.float32), "nvfp4", seed=3), ValueError,
     "seed is for stochastic=True"),
    # arrays and codes: a wrong dtype is a TypeError, a code that does not fit a ValueError
    ("to_bits", lambda: mixprec.to_bits(np.array(["a"]), "float16"), TypeError, "expected a float array"),
    ("round", lambda: mixprec.round(np.array([1 + 2j]), "float16"), TypeError, "expected a float array"),
    ("from_bits", lambda: mixprec.from_bits(np.array([1.0]), "float16"), TypeError, "codes must be integers"),
    ("from_bits", lambda: mixprec.from_bits(np.array([300]), "float8_e4m3fn"), ValueError,
     "code 300 does not fit float8_e4m3fn (8 bits)"),
    ("from_bits", lambda: mixprec.from_bits(np.array([300], np.uint16), "float8_e4m3fn"), ValueError,
     "code 300 does not fit"),
    ("from_bits", lambda: mixprec.from_bits(np.array([-1]), "float16"), ValueError, "code -1 does not fit"),
    ("from_bits", lambda: mixprec.from_bits(np.array([16], np.uint8), "float4_e2m1fn"), ValueError,
     "code 16 does not fit float4_e2m1fn (4 bits)"),
    ("from_bits", lambda: mixprec.from_bits(np.array([0x3F800001], np.uint32), "tf32"), ValueError,
     "code 1065353217 is not a tf32 code (its low 13 bits must be zero)"),
    ("from_bits", lambda: mixprec.from_bits(np.array([128], np.uint8), mixprec.format(3, 3)), ValueError,
     "code 128 does not fit float7_e3m3 (7 bits)"),
    ("to_string", lambda: mixprec.to_string(1 << 20, "float16"), ValueError, "code 1048576 does not fit float16"),
    ("to_string", lambda: mixprec.to_string(-1, "float16"), ValueError, "code must be in"),
    ("to_string", lambda: mixprec.to_string("1", "float16"), TypeError, "code must be an int"),
    ("to_string", lambda: mixprec.to_string(1.0, "float16"), TypeError, "code must be an int"),
    ("to_string", lambda: mixprec.to_string(256, F8), ValueError, "code 256 does not fit"),
    # text
    ("from_string", lambda: mixprec.from_string("1.2.3", "float16"), ValueError, "not a number: '1.2.3'"),
    ("from_string", lambda: mixprec.from_string("0.3x", F8), ValueError, "not a number: '0.3x'"),
    ("from_string", lambda: mixprec.from_string(1.5, "float16"), TypeError, "text must be a str"),
    ("from_string", lambda: mixprec.from_string("1", "float16", "stochastic"), ValueError, "needs random bits"),
    ("explain", lambda: mixprec.explain("nope", "float16"), ValueError, "not a number: 'nope'"),
    ("explain", lambda: mixprec.explain("nope", F8), ValueError, "not a number: 'nope'"),
    ("explain", lambda: mixprec.explain([1.0], "float16"), TypeError, "x must be text"),
    ("explain", lambda: mixprec.explain("1", "float16", "stochastic"), ValueError, "needs random bits"),
    # user formats
    ("format", lambda: mixprec.format(0, 3), ValueError, "exponent bits"),
    ("format", lambda: mixprec.format(5, 2, "bogus"), ValueError, "unknown encoding 'bogus'"),
    ("format", lambda: mixprec.format(5, 2, 1), TypeError, "encoding must be a str"),
    ("format", lambda: mixprec.format(5.0, 2), TypeError, "exp_bits must be an int"),
    ("format", lambda: mixprec.format(5, 2, bias="15"), TypeError, "bias must be an int"),
    ("format", lambda: mixprec.format(5, 2, signed="yes"), TypeError, "signed must be a bool"),
    # the rest of the API
    ("set_num_threads", lambda: mixprec.set_num_threads(-1), ValueError, "n must be in [0"),
    ("set_num_threads", lambda: mixprec.set_num_threads("2"), TypeError, "n must be an int"),
    ("set_num_threads", lambda: mixprec.set_num_threads(True), TypeError, "n must be an int"),
    ("autocast_ops", lambda: mixprec.autocast_ops("tpu"), ValueError, "unknown device 'tpu'"),
    ("autocast_ops", lambda: mixprec.autocast_ops(0), TypeError, "device must be a str"),
    ("LossScale", lambda: mixprec.LossScale("caffe"), ValueError, "unknown loss-scale preset 'caffe'"),
    ("LossScale", lambda: mixprec.LossScale(1), TypeError, "loss-scale preset must be a str"),
    ("block_quantize", lambda: mixprec.block_quantize(X, "mxfp9"), ValueError, "unknown recipe 'mxfp9'"),
    ("block_quantize", lambda: mixprec.block_quantize(X, "mx", element="float16"), ValueError,
     "unknown MX element 'float16'"),
    ("block_quantize", lambda: mixprec.block_quantize(X, "mx", rule="floor"), ValueError, "unknown MX rule 'floor'"),
    ("block_quantize", lambda: mixprec.block_quantize(X, "mx", block=(0, 32)), ValueError, "block must be"),
    ("block_quantize", lambda: mixprec.block_quantize(X, "mx", block="1x32"), TypeError, "block must be"),
    ("block_quantize", lambda: mixprec.block_quantize(X, "mx", order="te"), TypeError, "has no parameter(s) order"),
    ("block_quantize", lambda: mixprec.block_quantize(X.astype(np.float64), "mx"), TypeError, "float32"),
    ("block_quantize", lambda: mixprec.block_quantize(np.ones((1, 2, 32), np.float32)), ValueError, "1-D or 2-D"),
    ("block_dequantize", lambda: mixprec.block_dequantize(np.ones(3)), TypeError, "BlockScaled"),
    ("block_recipe_info", lambda: mixprec.block_recipe_info("deepseek_fp8", amax_floor="x"), TypeError,
     "amax_floor must be a number"),
    ("block_scaled_gemm", lambda: mixprec.block_scaled_gemm(q(), q(), "fp16"), ValueError, "accumulator must be"),
    ("block_scaled_gemm", lambda: mixprec.block_scaled_gemm(q(), q(), 16), TypeError, "accumulator must be"),
    ("block_scaled_gemm", lambda: mixprec.block_scaled_gemm(q(), q(), promotion=-1), ValueError, "promotion must be"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), accumulate="float16"), ValueError,
     "unknown accumulate 'float16'"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), precision="low"), ValueError,
     "unknown precision 'low'"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), high_mode="bf16x3"), ValueError,
     "high_mode is for precision='high'"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), threads=0), ValueError, "threads must be in"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 2)), np.ones((2, 2)), threads=2.0), TypeError, "threads must be an int"),
    ("gemm", lambda: mixprec.gemm(np.ones((2, 3)), np.ones((2, 3))), ValueError, "inner sizes differ"),
    ("gemm", lambda: mixprec.gemm(np.ones(3), np.ones(3)), ValueError, "must be 2-D"),
    ("pack", lambda: mixprec.pack(np.array([16], np.uint8), "float4_e2m1fn"), ValueError, "does not fit"),
    ("pack", lambda: mixprec.pack(np.array([1], np.int32), "float4_e2m1fn"), TypeError, "uint8"),
    ("pack", lambda: mixprec.pack(np.array([1], np.uint8), "bfloat16"), ValueError, "at most 8 bits"),
    ("unpack", lambda: mixprec.unpack(np.zeros(3, np.uint8), "float4_e2m1fn", 7), ValueError, "need"),
    ("unpack", lambda: mixprec.unpack(np.zeros(3, np.uint8), "float4_e2m1fn", "7"), TypeError, "count must be an int"),
    ("unpack", lambda: mixprec.unpack(np.zeros(3, np.float32), "float4_e2m1fn"), TypeError, "uint8"),
]


@pytest.mark.parametrize("func, call, exc, phrase", CASES, ids=["%s-%d" % (c[0], i) for i, c in enumerate(CASES)])
def test_one_exception_type_per_fault(func, call, exc, phrase):
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value) is exc, "%s: %r" % (func, info.value)
    msg = str(info.value)
    assert msg.startswith("mixprec.%s: " % func), msg
    assert phrase in msg, msg
    assert "''" not in msg and "mixprec::" not in msg, msg  # quoted once; no C++ function names


def test_a_rejected_call_changes_nothing():
    n = mixprec.get_num_threads()
    with pytest.raises(ValueError):
        mixprec.set_num_threads(-3)
    assert mixprec.get_num_threads() == n
    s = mixprec.LossScale("pytorch")
    with pytest.raises(ValueError):
        mixprec.LossScale("caffe")
    assert s.update(True) == 32768.0  # torch.amp.GradScaler: 2^16 halved on an overflow
    x = np.array([1.5, 2.5], np.float32)
    before = x.copy()
    with pytest.raises(ValueError):
        mixprec.to_bits(x, "float16", seed=1)
    assert np.array_equal(x, before)


def test_long_input_is_quoted_short():
    with pytest.raises(ValueError) as info:
        mixprec.from_string("1" * 10000 + "x", "float16")
    assert len(str(info.value)) < 200 and "10001 bytes" in str(info.value)
