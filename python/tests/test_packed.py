# SPDX-License-Identifier: MIT
"""Packed FP4/FP6: the published element orders (torchao's pack_uint4 for FP4, the LSB-first
24-bit word for FP6), round trips, user formats of odd widths, PyTorch's float4_e2m1fn_x2."""
import numpy as np
import pytest

import mixprec


def codes(fmt, n, seed=0):
    bits = mixprec.finfo(fmt)["bits"] if isinstance(fmt, str) else fmt.bits
    return np.random.default_rng(seed).integers(0, 1 << bits, n).astype(np.uint8)


@pytest.mark.parametrize("fmt", ["float4_e2m1fn", "float4_e1m2"])
def test_fp4_order_is_torchao_pack_uint4(fmt):
    c = codes(fmt, 1000)
    want = (c[1::2] << 4 | c[::2]).astype(np.uint8)  # torchao pack_uint4, PyTorch float4_e2m1fn_x2
    got = mixprec.pack(c, fmt)
    assert np.array_equal(got, want)
    assert np.array_equal(mixprec.unpack(got, fmt), c)
    assert np.array_equal(mixprec.pack(c.reshape(10, 100), fmt), want.reshape(10, 50))
    assert np.array_equal(mixprec.unpack(want.reshape(10, 50), fmt), c.reshape(10, 100))


def test_fp4_documented_example():
    assert mixprec.pack(mixprec.to_bits(np.array([1.0, -6.0]), "float4_e2m1fn"), "float4_e2m1fn").tolist() == [0xF2]


@pytest.mark.parametrize("fmt", ["float6_e2m3fn", "float6_e3m2fn"])
def test_fp6_order_is_the_lsb_first_word(fmt):
    c = codes(fmt, 400).astype(np.uint32)
    word = c[0::4] | c[1::4] << 6 | c[2::4] << 12 | c[3::4] << 18
    want = np.stack([word & 0xFF, word >> 8 & 0xFF, word >> 16], axis=1).astype(np.uint8).reshape(-1)
    got = mixprec.pack(c.astype(np.uint8), fmt)
    assert np.array_equal(got, want)
    assert np.array_equal(mixprec.unpack(got, fmt), c)


@pytest.mark.parametrize("n", [0, 1, 3, 5, 7, 9, 13])
def test_odd_lengths_and_user_formats(n):
    for fmt in ("float4_e2m1fn", "float6_e3m2fn"):
        twin = mixprec.format(*{"float4_e2m1fn": (2, 1), "float6_e3m2fn": (3, 2)}[fmt], "finite")._runtime()
        c = codes(fmt, n, n)
        p = mixprec.pack(c, fmt)
        assert len(p) == (n * twin.bits + 7) // 8
        assert np.array_equal(mixprec.pack(c, twin), p)  # the run-time path: same bits
        assert np.array_equal(mixprec.unpack(p, fmt, n), c)
        assert np.array_equal(mixprec.unpack(p, twin, n), c)
    f5 = mixprec.format(3, 1)  # 5 bits: 8 elements in 5 bytes
    c = codes(f5, 16)
    stream = "".join(format(int(v), "05b")[::-1] for v in c)  # LSB-first bit stream
    want = [int(stream[8 * k:8 * k + 8][::-1], 2) for k in range(10)]
    assert mixprec.pack(c, f5).tolist() == want
    assert np.array_equal(mixprec.unpack(np.array(want, np.uint8), f5), c)


def test_pack_errors():
    with pytest.raises(ValueError, match="does not fit"):
        mixprec.pack(np.array([16], np.uint8), "float4_e2m1fn")
    with pytest.raises(ValueError, match="at most 8 bits"):
        mixprec.pack(np.array([1], np.uint8), "bfloat16")
    with pytest.raises(TypeError, match="uint8"):
        mixprec.pack(np.array([1], np.int32), "float4_e2m1fn")
    with pytest.raises(ValueError, match="whole bytes"):
        mixprec.pack(np.zeros((2, 3), np.uint8), "float4_e2m1fn")
    with pytest.raises(ValueError, match="need"):
        mixprec.unpack(np.zeros(3, np.uint8), "float4_e2m1fn", 7)


def test_torch_float4_e2m1fn_x2():
    torch = pytest.importorskip("torch", reason="NOTICE: torch not installed: PyTorch float4_e2m1fn_x2 check skipped")
    if not hasattr(torch, "float4_e2m1fn_x2"):
        pytest.skip("NOTICE: this torch has no float4_e2m1fn_x2")
    c = codes("float4_e2m1fn", 64)
    t = torch.from_numpy(mixprec.pack(c, "float4_e2m1fn")).view(torch.float4_e2m1fn_x2)
    assert np.array_equal(mixprec.unpack(t.view(torch.uint8).numpy(), "float4_e2m1fn"), c)
