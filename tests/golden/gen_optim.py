#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden vectors for mixprec's optimizer steps (include/mixprec/kernels/optim.hpp) from PyTorch.

Runs a few steps of torch.optim.Adam / AdamW / SGD (single-tensor implementation: foreach=False,
fused=False; CPU) on small float32, float16 and bfloat16 tensors and writes the inputs and the
state after every step, as hex bit patterns, to tests/golden/optim.golden, which
tests/test_optim.cpp reads.

    pip install torch numpy          # CPU is enough; the committed file: see the header it writes
    python3 tests/golden/gen_optim.py            # rewrites tests/golden/optim.golden
    python3 tests/golden/gen_optim.py --check    # compares with the committed file, writes nothing

Hyperparameters are float32 values (mixprec's options structs hold floats) given to PyTorch as
the Python floats they equal, so both sides start from the same doubles.

One deliberate change to PyTorch: for float32 tensors PyTorch's CPU sqrt goes through MKL's
vsSqrt (VML_HA), which is not correctly rounded (1 ulp off for ~16% of random inputs on the
machine the file was made on). mixprec's sqrt is correctly rounded (like PyTorch's CUDA kernel and
its float16/bfloat16 CPU path), so for float32 this script replaces Tensor.sqrt by the correctly
rounded one (sqrt in float64, rounded to float32) and prints how many float32 values the MKL
sqrt would have changed. float16/bfloat16 run PyTorch unmodified.

Each case has `exact=K`: the first K elements must match bit for bit. K < n only for
float16/bfloat16 cases that use add(..., alpha=) (SGD, Adam's coupled weight decay): PyTorch
computes the last n % 64 elements of such a small tensor in its scalar loop, which rounds
alpha * b to the dtype before adding (the vectorized loop, which mixprec follows, does one fused
multiply-add in float). tests/test_optim.cpp counts the tail values that differ (and prints the
counts when MIXPREC_GOLDEN_VERBOSE=1 is set).

The file depends on the CPU capability PyTorch picks: AVX2 and AVX512 give this file; ATen's
DEFAULT capability (ATEN_CPU_CAPABILITY=default, CPUs without AVX2) does not fuse the
multiply-adds and gives different values.
"""
import argparse
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "optim.golden")

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def f32(x):
    return float(np.float32(x))


def hexs(t):
    t = t.detach().contiguous()
    if t.dtype == torch.float32:
        return " ".join("%08x" % v for v in t.view(torch.int32).numpy().astype(np.uint32))
    return " ".join("%04x" % v for v in t.view(torch.int16).numpy().astype(np.uint16))


_orig_sqrt = torch.Tensor.sqrt


def _cr_sqrt(self):
    if self.dtype == torch.float32:
        return _orig_sqrt(self.double()).float()
    return _orig_sqrt(self)


def grads_for(rng, n, kind, dtype):
    """Gradients of mixed magnitudes; 'tiny' adds values whose square underflows in float16."""
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    if kind == "tiny":
        mags = 10.0 ** rng.uniform(-7, -1, n)
        mags[rng.random(n) < 0.08] = 0.0
    elif kind == "wide":
        mags = 10.0 ** rng.uniform(-5, 1, n)
    else:
        mags = np.abs(rng.standard_normal(n))
    return torch.tensor(sign * mags, dtype=torch.float64).to(dtype)


CASES = [
    # name, optimizer, dtype, n, steps, step0, options, grad kind
    ("adam_f32_default", "adam", "float32", 128, 4, 0, dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8), "wide"),
    ("adam_f32_wd_step1000", "adam", "float32", 128, 3, 999,
     dict(lr=1e-2, beta1=0.8, beta2=0.99, eps=1e-6, wd=1e-2), "normal"),
    ("adam_f32_beta1_small", "adam", "float32", 100, 3, 0, dict(lr=3e-3, beta1=0.3, beta2=0.9, eps=1e-8), "wide"),
    ("adamw_f32", "adamw", "float32", 100, 4, 0, dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=1e-1), "wide"),
    ("adam_f16_regular_eps_underflow", "adam", "float16", 128, 3, 0,
     dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8), "tiny"),
    ("adam_f16_eps1e-4", "adam", "float16", 100, 4, 0, dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-4), "wide"),
    ("adam_f16_wd_step50", "adam", "float16", 128, 3, 49,
     dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-4, wd=1e-2), "normal"),
    ("adam_bf16_default", "adam", "bfloat16", 128, 4, 0, dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8), "wide"),
    ("adam_bf16_wd_tail", "adam", "bfloat16", 100, 3, 0,
     dict(lr=1e-2, beta1=0.9, beta2=0.95, eps=1e-8, wd=5e-2), "wide"),
    ("adamw_f16", "adamw", "float16", 128, 3, 0, dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-5, wd=1e-2), "normal"),
    ("adamw_bf16_step10", "adamw", "bfloat16", 128, 3, 9,
     dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=1e-2), "wide"),
    ("sgd_f32_plain", "sgd", "float32", 100, 2, 0, dict(lr=1e-2), "wide"),
    ("sgd_f32_momentum_wd", "sgd", "float32", 128, 4, 0, dict(lr=1e-2, momentum=0.9, dampening=0.1, wd=1e-3),
     "normal"),
    ("sgd_f32_nesterov", "sgd", "float32", 100, 3, 0, dict(lr=5e-2, momentum=0.9, nesterov=True, wd=1e-4), "wide"),
    ("sgd_f16_momentum", "sgd", "float16", 128, 4, 0, dict(lr=1e-2, momentum=0.9), "normal"),
    ("sgd_f16_nesterov_tail", "sgd", "float16", 100, 3, 0, dict(lr=1e-2, momentum=0.9, nesterov=True, wd=1e-3),
     "wide"),
    ("sgd_f16_large_lr_tail", "sgd", "float16", 100, 3, 0, dict(lr=0.7, wd=0.3), "normal"),
    ("sgd_bf16_momentum_state", "sgd", "bfloat16", 128, 3, 5, dict(lr=1e-1, momentum=0.5, dampening=0.5, wd=1e-2),
     "normal"),
]


def run_case(name, opt, dt, n, steps, step0, o, gkind, seed):
    dtype = DTYPES[dt]
    rng = np.random.default_rng(seed)
    opts = {k: f32(o.get(k, 0.0)) for k in ["lr", "beta1", "beta2", "eps", "wd", "momentum", "dampening"]}
    nesterov = bool(o.get("nesterov", False))
    p = torch.tensor(rng.standard_normal(n), dtype=torch.float64).to(dtype).requires_grad_(False)
    param = torch.nn.Parameter(p.clone())
    lines = []
    lines.append(f"case {name} {opt} {dt} n={n} steps={steps} step0={step0} exact=%EXACT%")
    lines.append("options " + " ".join(f"{k}=%08x" % np.float32(v).view(np.uint32) for k, v in opts.items())
                 + f" nesterov={int(nesterov)}")
    lines.append("init param " + hexs(param.data))
    if opt in ("adam", "adamw"):
        cls = torch.optim.Adam if opt == "adam" else torch.optim.AdamW
        optim = cls([param], lr=opts["lr"], betas=(opts["beta1"], opts["beta2"]), eps=opts["eps"],
                    weight_decay=opts["wd"], foreach=False, fused=False)
        if step0 > 0:
            m0 = torch.tensor(rng.standard_normal(n) * 1e-2, dtype=torch.float64).to(dtype)
            v0 = torch.tensor(rng.random(n) * 1e-4, dtype=torch.float64).to(dtype)
            optim.state[param] = {"step": torch.tensor(float(step0)), "exp_avg": m0.clone(),
                                  "exp_avg_sq": v0.clone()}
            lines.append("init exp_avg " + hexs(m0))
            lines.append("init exp_avg_sq " + hexs(v0))
        states = ["exp_avg", "exp_avg_sq"]
    else:
        optim = torch.optim.SGD([param], lr=opts["lr"], momentum=opts["momentum"], dampening=opts["dampening"],
                                weight_decay=opts["wd"], nesterov=nesterov, foreach=False, fused=False)
        if step0 > 0:
            b0 = torch.tensor(rng.standard_normal(n) * 1e-1, dtype=torch.float64).to(dtype)
            optim.state[param] = {"momentum_buffer": b0.clone()}
            lines.append("init momentum_buffer " + hexs(b0))
        states = ["momentum_buffer"] if opts["momentum"] != 0 else []
    for s in range(1, steps + 1):
        g = grads_for(rng, n, gkind, dtype)
        param.grad = g.clone()
        optim.step()
        lines.append(f"grad {step0 + s} " + hexs(g))
        lines.append(f"param {step0 + s} " + hexs(param.data))
        for st in states:
            lines.append(f"{st} {step0 + s} " + hexs(optim.state[param][st]))
    lines.append("end")
    return lines, [param.data.clone()] + [optim.state[param][st].clone() for st in states]


def generate():
    out = [
        "# mixprec optimizer goldens: generated by tests/golden/gen_optim.py, do not edit.",
        f"# torch {torch.__version__}, numpy {np.__version__}, CPU capability "
        f"{torch.backends.cpu.get_cpu_capability()}; float32 cases use the correctly rounded sqrt.",
        "# Format: see tests/golden/gen_optim.py and tests/test_optim.cpp.",
    ]
    stats = []
    for i, (name, opt, dt, n, steps, step0, o, gkind) in enumerate(CASES):
        uses_alpha_add = opt == "sgd" or (opt == "adam" and o.get("wd", 0.0) != 0.0)
        exact = n if (dt == "float32" or not uses_alpha_add) else (n // 64) * 64
        torch.Tensor.sqrt = _cr_sqrt
        try:
            lines, final = run_case(name, opt, dt, n, steps, step0, o, gkind, 1000 + i)
        finally:
            torch.Tensor.sqrt = _orig_sqrt
        lines[0] = lines[0].replace("%EXACT%", str(exact))
        out += lines
        if dt == "float32" and opt != "sgd":
            _, final_mkl = run_case(name, opt, dt, n, steps, step0, o, gkind, 1000 + i)
            diff = sum(int((a.view(torch.int32) != b.view(torch.int32)).sum()) for a, b in zip(final, final_mkl))
            stats.append(f"{name}: {diff} of {n * len(final)} final float32 values change with PyTorch's MKL sqrt")
    return "\n".join(out) + "\n", stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    args = ap.parse_args()
    torch.set_num_threads(1)
    text, stats = generate()
    for s in stats:
        print(s)
    if args.check:
        with open(OUT) as f:
            old = f.read()
        body = lambda t: [l for l in t.splitlines() if not l.startswith("#")]
        if body(old) != body(text):
            print("optim.golden differs from what this PyTorch produces")
            return 1
        print("optim.golden: identical")
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
