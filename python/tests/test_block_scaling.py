# SPDX-License-Identifier: MIT
"""Block-scaling recipes from Python: the torchao golden vectors the C++ tests use
(tests/golden/block_scaling.golden, bit for bit), NumPy references of the FP8 recipes' formulas,
round trips, and argument errors."""
import os

import numpy as np
import pytest

import mixprec

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden", "block_scaling.golden")
MX_ELEMENTS = {"mxfp8_e4m3": "float8_e4m3fn", "mxfp8_e5m2": "float8_e5m2", "mxfp6_e2m3": "float6_e2m3fn",
               "mxfp6_e3m2": "float6_e3m2fn", "mxfp4_e2m1": "float4_e2m1fn"}
MX_RULES = {"floor": "ocp_floor", "ceil": "ceil_pow2", "even": "even", "rceil": "te_rceil_legacy"}  # torchao RCEIL


def read_golden():
    if not os.path.exists(GOLDEN):
        pytest.skip("NOTICE: %s not found (run from a source checkout)" % GOLDEN)
    cases = []
    with open(GOLDEN) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            tag, *rest = line.split()
            if tag == "case":
                fam, var, rows, cols, ts = rest
                cases.append(dict(family=fam, variant=var, rows=int(rows), cols=int(cols), ts=ts))
            else:
                cases[-1][tag] = np.array([int(h, 16) for h in rest], np.uint32)
    return cases


def same_f32(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def test_golden_vectors_bit_for_bit():
    cases = read_golden()
    assert len(cases) == 46
    for c in cases:
        x = c["in"].view(np.float32).reshape(c["rows"], c["cols"])
        if c["family"] == "mx":
            elem, rule = c["variant"].split("/")
            q = mixprec.block_quantize(x, "mx", element=MX_ELEMENTS[elem], rule=MX_RULES[rule],
                                       torchao_min_normal_divisor=rule != "rceil")
        else:
            q = mixprec.block_quantize(x, "nvfp4", order=c["variant"])
        what = "%s %s" % (c["family"], c["variant"])
        assert np.array_equal(q.scales.reshape(-1), c["scale"]), what
        assert np.array_equal(q.elements.reshape(-1), c["elem"]), what
        assert same_f32(mixprec.block_dequantize(q).reshape(-1), c["deq"].view(np.float32)).all(), what
        if c["ts"] != "-":
            assert np.float32(q.tensor_scale).view(np.uint32) == int(c["ts"], 16), what


def sample(rows, cols, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols)) * np.exp2(rng.integers(-20, 20, (rows, 1)))
    x[0, :] = 0.0  # an all-zero row
    return x.astype(np.float32)


@pytest.mark.parametrize("block", [(1, 128), (128, 128)])
@pytest.mark.parametrize("ue8m0", [False, True])
def test_deepseek_fp8_against_numpy(block, ue8m0):
    x = sample(200, 300)
    q = mixprec.block_quantize(x, "deepseek_fp8", block=block, ue8m0=ue8m0)
    br, bc = block
    assert q.scales.shape == (-(-200 // br), -(-300 // bc)) and q.scales.dtype == np.float32
    for bi in range(q.scales.shape[0]):
        for bj in range(q.scales.shape[1]):
            blk = x[bi * br:(bi + 1) * br, bj * bc:(bj + 1) * bc]
            a = max(np.float32(np.abs(blk).max()), np.float32(1e-4))
            s = np.float32(a / np.float32(448))
            if ue8m0:  # 2^ceil(log2 s) from the exponent bits
                b = s.view(np.uint32)
                s = np.uint32((((b >> 23) + (1 if b & 0x7FFFFF else 0)) << 23)).view(np.float32)
            assert q.scales[bi, bj] == s, (bi, bj)
            want = mixprec.to_bits((blk / s).astype(np.float32), "float8_e4m3fn", overflow="saturate")
            assert np.array_equal(q.elements[bi * br:(bi + 1) * br, bj * bc:(bj + 1) * bc], want)
    back = mixprec.block_dequantize(q)
    s_full = np.repeat(np.repeat(q.scales, br, 0), bc, 1)[:200, :300].astype(np.float64)
    want = (mixprec.from_bits(q.elements, "float8_e4m3fn") * s_full).astype(np.float32)  # exact product, 1 rounding
    assert same_f32(back, want).all()


def test_te_fp8_block_against_numpy():
    x = sample(3, 256, 1)
    q = mixprec.block_quantize(x, "te_fp8_block")
    for i in range(3):
        for j in range(2):
            blk = x[i, j * 128:(j + 1) * 128]
            amax = np.abs(blk).max()
            scale = 1.0 if amax == 0 else 2.0 ** np.floor(np.log2(np.float32(448) / amax))
            assert q.scales[i, j] == np.float32(1 / scale)
            want = mixprec.to_bits((blk * np.float32(scale)).astype(np.float32), "float8_e4m3fn", overflow="saturate")
            assert np.array_equal(q.elements[i, j * 128:(j + 1) * 128], want)


@pytest.mark.parametrize("recipe, params", [("mx", {}), ("mx", {"element": "float4_e2m1fn", "block": (32, 1)}),
                                            ("mx", {"element": "mxint8"}), ("te_mxfp8", {"block": (32, 1)}),
                                            ("nvfp4", {}), ("nvfp4", {"stochastic": True, "seed": 5}),
                                            ("nvfp4", {"hadamard": True}), ("deepseek_fp8", {"block": (128, 128)}),
                                            ("te_fp8_block", {})])
def test_round_trip_error_is_bounded_and_reproducible(recipe, params):
    x = sample(64, 256, 2)
    if recipe == "nvfp4":  # one FP32 tensor scale: E4M3 block scales cover 2^-9 .. 448 of it
        x = x / np.maximum(np.abs(x).max(axis=1, keepdims=True), 1e-30) * np.float32(3)
        x[0] = 0
    q = mixprec.block_quantize(x, recipe, **params)
    q2 = mixprec.block_quantize(x, recipe, **params)
    assert np.array_equal(q.elements, q2.elements) and np.array_equal(q.scales, q2.scales)
    back = mixprec.block_dequantize(q)
    assert back.shape == x.shape and back.dtype == np.float32
    # relative to the block amax, every recipe is within its element's half-ulp at the top (FP4: 1/4)
    br, bc = q.info["block"]
    amax = np.zeros_like(x)
    for i in range(0, x.shape[0], br):
        for j in range(0, x.shape[1], bc):
            amax[i:i + br, j:j + bc] = np.abs(x[i:i + br, j:j + bc]).max()
    err = np.abs(back - x) / np.where(amax == 0, 1, amax)
    if not params.get("hadamard"):  # with the RHT, dequantize gives the transformed values
        assert err.max() < (0.35 if params.get("stochastic") else 0.3)  # SR: up to one ulp
    assert back[0].tolist() == [0.0] * 256
    again = mixprec.BlockScaled(q.elements.copy(), q.scales.copy(), q.tensor_scale, q.recipe, q.params, q.info)
    assert same_f32(mixprec.block_dequantize(again), back).all()


def test_info_and_errors():
    info = mixprec.block_recipe_info("nvfp4")
    assert info["name"] == "nvfp4/te" and info["element"] == "float4_e2m1fn" and info["block"] == (1, 16)
    assert mixprec.block_recipe_info("deepseek_fp8", ue8m0=True)["name"] == "deepseek_fp8/ue8m0"
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(ValueError, match="unknown recipe"):
        mixprec.block_quantize(x, "mxfp9")
    with pytest.raises(TypeError, match="no parameter"):
        mixprec.block_quantize(x, "mx", order="te")
    with pytest.raises(ValueError, match="MX element"):
        mixprec.block_quantize(x, "mx", element="float16")
    with pytest.raises(ValueError, match="block"):
        mixprec.block_quantize(x, "mx", block=(0, 32))
    with pytest.raises(TypeError, match="float32"):
        mixprec.block_quantize(x.astype(np.float64), "mx")
    q = mixprec.block_quantize(x, "mx")
    q.scales = q.scales[:, :1].copy()
    with pytest.raises(ValueError, match="scales must have shape"):
        mixprec.block_dequantize(q)


# NVFP4 stochastic rounding with Transformer Engine's bits (sr_layout "te_vector_blockwise"): the
# golden tensors tests/test_nvfp4_te_sr.cpp checks (tests/golden/gen_te_nvfp4_sr.py, an independent
# pure-Python reference of TE's float32 kernel), through the binding.
TE_SR_GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden", "te_nvfp4_sr.golden")


def te_sr_cases(tag_wanted="case"):
    """The golden file's tensors of one kind: "case" (TE's float32 kernel) or "bf16case" (its BF16 kernel)."""
    if not os.path.exists(TE_SR_GOLDEN):
        pytest.skip("NOTICE: %s not found (run from a source checkout)" % TE_SR_GOLDEN)
    cases = []
    with open(TE_SR_GOLDEN) as f:
        for line in f:
            tag, _, rest = line.rstrip("\n").partition(" ")
            if tag in ("case", "bf16case"):
                name, rows, cols, kind, after, seed, offset, salt, h = rest.split()
                cases.append(dict(name=name, rows=int(rows), cols=int(cols), kind=kind, after=after == "1",
                                  seed=int(seed), offset=int(offset), salt=int(salt), fnv=int(h, 16), tag=tag))
            elif tag == "scales":
                cases[-1]["scales"] = np.array([int(rest[k:k + 2], 16) for k in range(0, len(rest), 2)], np.uint8)
            elif tag == "elems":
                cases[-1]["elems"] = np.array([int(c, 16) for c in rest], np.uint8)
    return [c for c in cases if c["tag"] == tag_wanted]


def te_sr_input(n, salt):
    """gen_te_nvfp4_sr.py's input_bits, as float32."""
    m64 = 0xFFFFFFFFFFFFFFFF
    out = np.empty(n, np.uint32)
    for k in range(n):
        if k % 61 == 60:
            out[k] = 0
        elif k % 67 == 66:
            out[k] = 0x80000000
        else:
            z = ((salt << 32) + k + 0x9E3779B97F4A7C15) & m64
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m64
            r = z ^ (z >> 31)
            out[k] = ((r >> 63) << 31) | ((121 + (r >> 32) % 8) << 23) | (r & 0x7FFFFF)
    return out


def te_sr_params(c):
    block = {"row": (1, 16), "col": (16, 1), "tile": (16, 16)}[c["kind"]]
    return dict(block_rows=block[0], block_cols=block[1], order=0, factor=0, stochastic=True, seed=c["seed"],
                hadamard=False, hadamard_signs=0, sr_layout="te_vector_blockwise", sr_offset=c["offset"],
                sr_after_rowwise=c["after"])


def test_nvfp4_te_sr_layout_bit_for_bit():
    cases = te_sr_cases()
    assert len(cases) == 9
    for c in cases:
        x = te_sr_input(c["rows"] * c["cols"], c["salt"]).view(np.float32).reshape(c["rows"], c["cols"])
        d = mixprec._core.block_quantize(x, "nvfp4", te_sr_params(c))
        assert d["info"]["name"] == "nvfp4/te/sr/te_vector_blockwise", c["name"]
        assert np.array_equal(d["scales"].reshape(-1), c["scales"]), c["name"]
        assert np.array_equal(d["elements"].reshape(-1), c["elems"]), c["name"]


def test_nvfp4_te_bf16_sr_layout_bit_for_bit():
    """sr_layout "te_nvfp4_bf16": TE's BF16 kernels (quantize_transpose_nvfp4 tuned 1D, 2D), bfloat16 inputs."""
    cases = te_sr_cases("bf16case")
    assert len(cases) == 8
    for c in cases:
        bits = te_sr_input(c["rows"] * c["cols"], c["salt"]) & np.uint32(0xFFFF0000)
        x = bits.view(np.float32).reshape(c["rows"], c["cols"])
        p = dict(te_sr_params(c), sr_layout="te_nvfp4_bf16", sr_with_columnwise=c["after"])
        d = mixprec._core.block_quantize(x, "nvfp4", p)
        assert d["info"]["name"] == "nvfp4/te/sr/te_nvfp4_bf16", c["name"]
        assert np.array_equal(d["scales"].reshape(-1), c["scales"]), c["name"]
        assert np.array_equal(d["elements"].reshape(-1), c["elems"]), c["name"]
    bad = x.copy()
    bad.view(np.uint32)[0, 0] |= 1  # not a bfloat16 value
    with pytest.raises(ValueError, match="bfloat16"):
        mixprec._core.block_quantize(bad, "nvfp4", p)
    # The same through the public call.
    q = mixprec.block_quantize(x, "nvfp4", block=(p["block_rows"], p["block_cols"]),
                               stochastic=True, seed=c["seed"], sr_layout="te_nvfp4_bf16", sr_offset=c["offset"],
                               sr_with_columnwise=c["after"])
    assert np.array_equal(q.elements.reshape(-1), c["elems"]), c["name"]
    with pytest.raises(ValueError, match="bfloat16"):
        mixprec.block_quantize(bad, "nvfp4", block=(p["block_rows"], p["block_cols"]), stochastic=True, seed=1,
                               sr_layout="te_nvfp4_bf16")
    with pytest.raises(ValueError, match="sr_with_columnwise is for stochastic=True"):
        mixprec.block_quantize(x, "nvfp4", sr_with_columnwise=False)
    # Options that the chosen order or layout would ignore are errors, not silently dropped.
    with pytest.raises(ValueError, match="stochastic=True is for the TE orders"):
        mixprec.block_quantize(x, "nvfp4", order="torchao", stochastic=True, seed=1)
    with pytest.raises(ValueError, match="sr_offset is for sr_layout 'te_vector_blockwise' or 'te_nvfp4_bf16', not 'counter'"):
        mixprec.block_quantize(x, "nvfp4", stochastic=True, seed=1, sr_offset=3)
    with pytest.raises(ValueError, match="sr_with_columnwise is for sr_layout 'te_nvfp4_bf16', not 'te_vector_blockwise'"):
        mixprec.block_quantize(x, "nvfp4", stochastic=True, seed=1, sr_layout="te_vector_blockwise",
                               sr_with_columnwise=False)


def test_nvfp4_te_sr_layout_errors_and_default():
    c = te_sr_cases()[0]
    x = te_sr_input(c["rows"] * c["cols"], c["salt"]).view(np.float32).reshape(c["rows"], c["cols"])
    p = te_sr_params(c)
    by_index = mixprec._core.block_quantize(x, "nvfp4", dict(p, sr_layout=1))
    assert np.array_equal(by_index["elements"].reshape(-1), c["elems"])
    with pytest.raises(ValueError, match="allowed: counter, te_vector_blockwise, te_nvfp4_bf16"):
        mixprec._core.block_quantize(x, "nvfp4", dict(p, sr_layout="philox"))
    with pytest.raises(ValueError, match="allowed"):
        mixprec._core.block_quantize(x, "nvfp4", dict(p, block_cols=32))
    # without the key: mixprec's counter bits, as mixprec.block_quantize(stochastic=True, seed=...) gives
    plain = {k: v for k, v in p.items() if not k.startswith("sr_")}
    d = mixprec._core.block_quantize(x, "nvfp4", plain)
    q = mixprec.block_quantize(x, "nvfp4", stochastic=True, seed=c["seed"])
    assert d["info"]["name"] == "nvfp4/te/sr" and np.array_equal(d["elements"], q.elements)


def test_nvfp4_te_sr_layout_public_keyword():
    for c in te_sr_cases():
        x = te_sr_input(c["rows"] * c["cols"], c["salt"]).view(np.float32).reshape(c["rows"], c["cols"])
        q = mixprec.block_quantize(x, "nvfp4", block={"row": (1, 16), "col": (16, 1), "tile": (16, 16)}[c["kind"]],
                                   stochastic=True, seed=c["seed"], sr_layout="te_vector_blockwise",
                                   sr_offset=c["offset"], sr_after_rowwise=c["after"])
        assert np.array_equal(q.elements.reshape(-1), c["elems"]), c["name"]
        assert np.array_equal(q.scales.reshape(-1), c["scales"]), c["name"]
    x = np.ones((1, 16), np.float32)
    with pytest.raises(ValueError, match="sr_layout is for stochastic=True"):
        mixprec.block_quantize(x, "nvfp4", sr_layout="te_vector_blockwise")
    with pytest.raises(ValueError, match="unknown NVFP4 sr_layout 'philox'; one of counter, te_vector_blockwise"):
        mixprec.block_quantize(x, "nvfp4", stochastic=True, seed=1, sr_layout="philox")
    with pytest.raises(TypeError, match="sr_after_rowwise must be a bool"):
        mixprec.block_quantize(x, "nvfp4", stochastic=True, seed=1, sr_after_rowwise=1)
