# SPDX-License-Identifier: MIT
"""Stochastic rounding with generator="philox4x32_10": the random bits of element i are word
(offset + i) % 4 of Philox4x32-10 at counter ((offset + i) // 4, 0) under the key seed (cuRAND's
stream), written out here from the Random123 definition and checked against its known answers."""
import numpy as np
import pytest

import mixprec

M32 = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    x0, x1, x2, x3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * x0
        p1 = 0xCD9E8D57 * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ x3 ^ k1) & M32, p0 & M32
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return x0, x1, x2, x3


def test_reference_generator_known_answers():
    # Random123's kat_vectors, philox4x32 10 rounds.
    assert philox4x32_10((0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert philox4x32_10((M32,) * 4, (M32, M32)) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert philox4x32_10((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0)) == (
        0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)


def philox_bits(seed, n):
    b = n // 4
    return philox4x32_10((b & M32, b >> 32, 0, 0), (seed & M32, seed >> 32))[n % 4]


@pytest.mark.parametrize("seed,offset", [(0, 0), (0x1234567890ABCDEF, 77), (42, 2**40 + 3)])
def test_bfloat16_stochastic_rounding_uses_philox(seed, offset):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(1000) * 10).astype(np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    # float32 -> bfloat16 (normal values far from overflow): truncate the low 16 bits, and round up
    # when (discarded bits << 16) + random bits reach 2**32.
    want = np.array([(int(v) >> 16) + (((int(v) & 0xFFFF) << 16) + philox_bits(seed, offset + i) >= 2**32)
                     for i, v in enumerate(u)], dtype=np.uint16)
    got = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=seed, offset=offset, generator="philox4x32_10")
    assert np.array_equal(got, want)
    vals = mixprec.round(x, "bfloat16", rounding="stochastic", seed=seed, offset=offset, generator="philox4x32_10")
    assert np.array_equal(vals, mixprec.from_bits(want, "bfloat16"))
    # The default generator draws other bits.
    other = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=seed, offset=offset)
    assert not np.array_equal(other, want)


def test_user_format_takes_the_generator():
    x = np.linspace(0.1, 3.0, 257, dtype=np.float32)
    f = mixprec.format(8, 7)  # bfloat16's layout as a user format
    a = mixprec.to_bits(x, f, rounding="stochastic", seed=9, generator="philox4x32_10")
    b = mixprec.to_bits(x, "bfloat16", rounding="stochastic", seed=9, generator="philox4x32_10")
    assert np.array_equal(a.astype(np.uint16), b)


def test_generator_errors():
    x = np.ones(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"^mixprec\.to_bits: generator is for rounding='stochastic'"):
        mixprec.to_bits(x, "half", generator="philox4x32_10")
    with pytest.raises(ValueError, match=r"^mixprec\.round: unknown generator 'mt19937'"):
        mixprec.round(x, "half", rounding="stochastic", seed=1, generator="mt19937")
    with pytest.raises(TypeError, match=r"^mixprec\.to_bits: generator must be a str"):
        mixprec.to_bits(x, "half", rounding="stochastic", seed=1, generator=1)
