#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes block_scaling.golden: MX and NVFP4 block quantization by torchao's CPU reference
implementations (torchao.prototype.mx_formats: to_mx / to_dtype, nvfp4_quantize /
NVFP4Tensor.dequantize), for tests/test_block_scaling.cpp to compare bit for bit.

usage: pip install torch torchao numpy; python3 tests/golden/gen_block_scaling.py [--check]

Format (text, one record per line, hex without 0x):
  case <family> <variant> <rows> <cols> <tensor_scale float32 bits or ->
  in <float32 bits> ...           rows*cols inputs, row-major
  scale <code> ...                one per block (E8M0 or E4M3 byte), row-major
  elem <code> ...                 one element code per input (FP8 byte, FP6 6-bit, FP4 4-bit)
  deq <float32 bits> ...          torchao's dequantized float32 values
Inputs are deterministic (numpy default_rng, fixed seeds); they are finite.
"""
import sys
import pathlib
import numpy as np
import torch
import torchao
from torchao.prototype.mx_formats.mx_tensor import to_mx, to_dtype
from torchao.prototype.mx_formats.config import ScaleCalculationMode
from torchao.prototype.mx_formats.constants import DTYPE_FP6_E2M3, DTYPE_FP6_E3M2
from torchao.prototype.mx_formats.kernels import unpack_uint4
from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor, per_tensor_amax_to_scale

OUT = pathlib.Path(__file__).with_name("block_scaling.golden")


def inputs(seed, rows, cols, block):
    """Blocks of varied magnitude: wide and narrow spreads, zeros, subnormal and huge amax,
    power-of-two amax, exact element-grid values."""
    rng = np.random.default_rng(seed)
    x = np.zeros((rows, cols), dtype=np.float64)
    nb = cols // block
    for r in range(rows):
        for b in range(nb):
            kind = (r * nb + b) % 8
            base = rng.integers(-30, 30)
            v = rng.standard_normal(block) * 2.0 ** base * rng.uniform(0.5, 2.0, block) ** rng.integers(0, 6)
            if kind == 1:
                v[:] = 0.0
            elif kind == 2:
                v = rng.standard_normal(block) * 2.0 ** -135  # subnormal amax
            elif kind == 3:
                v = rng.standard_normal(block) * 2.0 ** 120
            elif kind == 4:
                v[rng.integers(0, block)] = 2.0 ** base  # maybe a power-of-two amax
                v[rng.integers(0, block)] = -(2.0 ** base)
            elif kind == 5:
                v = rng.integers(-12, 13, block) * 0.5 * 2.0 ** base  # on an element grid
            elif kind == 6:
                v[rng.random(block) < 0.5] = 0.0
            x[r, b * block:(b + 1) * block] = v
    return torch.from_numpy(x.astype(np.float32))


def fbits(t):
    return " ".join(f"{b:08x}" for b in t.contiguous().view(torch.int32).flatten().tolist() for b in [b & 0xFFFFFFFF])


def ubytes(t):
    return " ".join(f"{b:02x}" for b in t.contiguous().view(torch.uint8).flatten().tolist())


def mx_cases(lines):
    elems = [("mxfp8_e4m3", torch.float8_e4m3fn), ("mxfp8_e5m2", torch.float8_e5m2),
             ("mxfp6_e2m3", DTYPE_FP6_E2M3), ("mxfp6_e3m2", DTYPE_FP6_E3M2),
             ("mxfp4_e2m1", torch.float4_e2m1fn_x2)]
    modes = [("floor", ScaleCalculationMode.FLOOR), ("ceil", ScaleCalculationMode.CEIL),
             ("even", ScaleCalculationMode.EVEN), ("rceil", ScaleCalculationMode.RCEIL)]
    for ei, (ename, edt) in enumerate(elems):
        for mi, (mname, mode) in enumerate(modes):
            for k in range(2):
                rows, cols = 8, 128
                x = inputs(1000 + 100 * ei + 10 * mi + k, rows, cols, 32)
                scale, data = to_mx(x, edt, 32, mode)
                deq = to_dtype(data, scale, edt, 32, torch.float32)
                if edt == torch.float4_e2m1fn_x2:
                    codes = unpack_uint4(data.view(torch.uint8))
                else:
                    codes = data.view(torch.uint8)
                lines.append(f"case mx {ename}/{mname} {rows} {cols} -")
                lines.append("in " + fbits(x))
                lines.append("scale " + ubytes(scale))
                lines.append("elem " + ubytes(codes))
                lines.append("deq " + fbits(deq))


def nvfp4_cases(lines):
    for two_level in (False, True):
        for k in range(3):
            rows, cols = 16, 64
            x = inputs(5000 + 10 * int(two_level) + k, rows, cols, 16)
            if k == 2:
                x = x * 2.0 ** -100  # tiny tensor: per-tensor scale near the subnormal range
            pts = per_tensor_amax_to_scale(torch.max(torch.abs(x))) if two_level else None
            t = NVFP4Tensor.to_nvfp4(x, 16, per_tensor_scale=pts)
            codes = unpack_uint4(t.qdata.contiguous().view(torch.uint8))
            deq = t.dequantize(torch.float32)
            ts = fbits(pts.reshape(1)) if two_level else "-"
            lines.append(f"case nvfp4 {'torchao' if two_level else 'torchao_single'} {rows} {cols} {ts}")
            lines.append("in " + fbits(x))
            lines.append("scale " + ubytes(t.scale))
            lines.append("elem " + ubytes(codes))
            lines.append("deq " + fbits(deq))


def main():
    lines = [f"# block_scaling.golden: torchao {torchao.__version__}, torch {torch.__version__.split('+')[0]}, "
             f"numpy {np.__version__} (tests/golden/gen_block_scaling.py)"]
    mx_cases(lines)
    nvfp4_cases(lines)
    text = "\n".join(lines) + "\n"
    if "--check" in sys.argv:
        ok = OUT.read_text() == text
        print("block_scaling.golden:", "matches" if ok else "DIFFERS")
        sys.exit(0 if ok else 1)
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
