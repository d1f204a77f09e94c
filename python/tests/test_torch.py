# SPDX-License-Identifier: MIT
"""PyTorch CPU .to() against mixprec for the formats torch has (nearest-even, the only mode
torch offers), from float32 and float64. Where torch differs it is listed here and asserted as such
(torch 2.15 CPU, 163k inputs each):
- float8_e4m3fn: torch SATURATES (overflow and +-inf give +-448, not NaN): equal to
  mixprec's overflow="saturate";
- bfloat16 from float64: torch rounds through float32 first (double rounding; 2 of the inputs
  here differ from one rounding): equal to mixprec on x.astype(float32);
- everything else (float16, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu in
  its range) is one rounding, nearest-even, overflow "ieee": equal to mixprec's default.
Skipped with a visible notice where torch is not installed."""
import numpy as np
import pytest

import mixprec

torch = pytest.importorskip("torch", reason="NOTICE: torch not installed: PyTorch .to() cross-checks skipped")

FORMATS = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
           "float8_e8m0fnu"]


def battery(dtype, seed=5):
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, 448.0, 464.0, 480.0, 57344.0, 61440.0, 65504.0, 65520.0,
                         2.0**-9, 2.0**-10, 2.0**-17, 2.0**-18, 3.0 * 2.0**-18], dtype)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(dtype)
    rand = (rng.standard_normal(100000) * np.exp2(rng.integers(-30, 30, 100000))).astype(dtype)
    x = np.concatenate([specials, -specials, halves, rand])
    return x[~np.isnan(x)]


def torch_codes(x, name):
    dt = getattr(torch, name)
    width = {1: torch.uint8, 2: torch.int16}[torch.empty(0, dtype=dt).element_size()]
    c = torch.from_numpy(x).to(dt).view(width).numpy()
    return c.view(np.uint8 if c.itemsize == 1 else np.uint16)


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_to_matches(name, dtype):
    if not hasattr(torch, name):
        pytest.skip("NOTICE: this torch has no %s" % name)
    x = battery(dtype)
    if name == "float8_e8m0fnu":
        x = np.abs(x)
        x = x[(x > 2.0**-127) & (x < 2.0**127)]
    want = torch_codes(x, name)
    overflow = "saturate" if name == "float8_e4m3fn" else "ieee"
    src = x.astype(np.float32) if name == "bfloat16" else x
    got = mixprec.to_bits(src, name, overflow=overflow)
    v_want, v_got = mixprec.from_bits(want, name), mixprec.from_bits(got, name)
    same = (got == want) | (np.isnan(v_want) & np.isnan(v_got))
    assert same.all(), "%s from %s: first x=%r torch %#x mixprec %#x (%d differ)" % (
        name, np.dtype(dtype).name, x[~same][0], want[~same][0], got[~same][0], (~same).sum())
    if name == "bfloat16" and dtype == np.float64:  # the double rounding is real: one rounding differs
        once = mixprec.to_bits(x, name)
        assert (once != want).sum() > 0
    if name == "float8_e4m3fn":
        assert (mixprec.to_bits(x, name) != want).sum() > 0  # ieee: NaN where torch saturates
