#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch reference for examples/precision_study: the same training in PyTorch on the CPU,
to compare wall times and accuracies with the study's float32 (and float64) rows.

Same model (MLP 784-512-256-10, ReLU, nn.Linear's default init), loss (cross-entropy), optimizer
(Adam lr 1e-3, betas 0.9/0.999, eps 1e-8), batch 128 (last batch smaller), 3 epochs, inputs
byte / 255, splits (first 55000 training images train, last 5000 validate, 10000 test), and the
same work per epoch: a training pass, then a validation pass; the test pass at the end. The data
are loaded into tensors first (outside the timing), as the study does. Random streams differ from
the study's (PyTorch's own init and shuffles), so accuracies agree only statistically.

    pip install torch     # (CPU wheels: --index-url https://download.pytorch.org/whl/cpu)
    python3 pytorch_reference.py [--data DIR] [--threads N] [--epochs N] [--dtype float32|float64]
                                 [--matmul-precision highest|high|medium] [--seed N]
"""
import argparse
import gzip
import os
import struct
import sys
import time

import torch


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


def find(d, name):
    for p in (os.path.join(d, name + ".gz"), os.path.join(d, name)):
        if os.path.exists(p):
            return p
    sys.exit(f"error: {d} has no {name}[.gz]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--matmul-precision", choices=["highest", "high", "medium"], default="highest")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.set_float32_matmul_precision(a.matmul_precision)
    torch.manual_seed(a.seed)
    dtype = getattr(torch, a.dtype)

    xtr = read_idx(find(a.data, "train-images-idx3-ubyte")).reshape(-1, 784)
    ytr = read_idx(find(a.data, "train-labels-idx1-ubyte")).long()
    xte = read_idx(find(a.data, "t10k-images-idx3-ubyte")).reshape(-1, 784)
    yte = read_idx(find(a.data, "t10k-labels-idx1-ubyte")).long()
    # ToTensor: byte / 255 in float32 (then the model's dtype).
    to_x = lambda b: (b.float() / 255.0).to(dtype)
    x_train, y_train = to_x(xtr[:55000]), ytr[:55000]
    x_val, y_val = to_x(xtr[55000:]), ytr[55000:]
    x_test, y_test = to_x(xte), yte

    model = torch.nn.Sequential(
        torch.nn.Linear(784, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10)).to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    loss_fn = torch.nn.CrossEntropyLoss()

    def accuracy(x, y):
        model.eval()
        ok = 0
        with torch.no_grad():
            for i in range(0, len(x), 128):
                ok += (model(x[i:i + 128]).argmax(1) == y[i:i + 128]).sum().item()
        model.train()
        return ok / len(x)

    print(f"PyTorch {torch.__version__}, {a.dtype}, matmul precision {a.matmul_precision}, "
          f"{torch.get_num_threads()} thread(s)")
    t0 = time.perf_counter()
    n = len(x_train)
    nb = (n + 127) // 128
    for epoch in range(1, a.epochs + 1):
        te = time.perf_counter()
        perm = torch.randperm(n)
        correct = 0
        for b in range(nb):
            idx = perm[b * 128:(b + 1) * 128]
            x, y = x_train[idx], y_train[idx]
            logits = model(x)
            loss = loss_fn(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            correct += (logits.argmax(1) == y).sum().item()
            if b % 100 == 0:
                print(f"Epoch: {epoch:04d}/{a.epochs:04d} | Batch {b:04d}/{nb:04d} | Loss: {loss.item():.4f}")
        val = accuracy(x_val, y_val)
        print(f"Epoch: {epoch:04d}/{a.epochs:04d} | Train acc.: {100 * correct / n:.2f}% | "
              f"Val acc.: {100 * val:.2f}% | {time.perf_counter() - te:.1f} s")
    test = accuracy(x_test, y_test)
    elapsed = time.perf_counter() - t0
    print(f"Time elapsed {elapsed / 60:.2f} min ({elapsed:.1f} s)")
    print(f"Test accuracy {100 * test:.2f}%")


if __name__ == "__main__":
    main()
