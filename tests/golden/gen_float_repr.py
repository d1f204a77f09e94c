#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/golden/python_float_repr.txt: Python's repr(float) for many doubles.

Each line is "<16 hex digits of the double's bits> <repr(x)>". tests/test_json_repr.cpp checks
mixprec::detail::json::number_text (grad_scaler::state_dict's number printer) against it.
Standard library only; deterministic (fixed seed). `--check` compares instead of writing.
"""
import math
import os
import random
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_float_repr.txt")


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def values():
    v = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
         1.7976931348623157e308, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 65536.0, 65504.0, 2.0 ** -24,
         0.0001, 0.00011, 1e-05, 9.999999999999999e-05, 0.00009999, 1.5e-05, 123.0, 123.456,
         2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 54, 2.0 ** 63, 2.0 ** 64, 9999999999999998.0,
         1e16, 1.5e16, 12345678901234567.0, 123456789012345678.0, 1e21, 1e22, 1e23, 2.0 ** 70,
         16777216.0, 3.4028234663852886e38, 1.1754943508222875e-38]
    for k in range(-325, 309):  # powers of ten and their neighbours
        x = float("1e%d" % k)
        v += [x, math.nextafter(x, 0.0), math.nextafter(x, math.inf)]
        v.append(float("1.5e%d" % k))
        v.append(float("9.87654321e%d" % k))
    for e in range(-1074, 1024, 7):  # powers of two
        v.append(math.ldexp(1.0, e))
    for i in range(0, 200):  # small integers and halves
        v += [float(i), i + 0.5, -float(i), i / 16]
    rng = random.Random(20261124)
    for _ in range(3000):  # random bit patterns (finite)
        while True:
            x = from_bits(rng.getrandbits(64))
            if math.isfinite(x):
                break
        v.append(x)
    for _ in range(2000):  # short decimals near the notation switches (1e-5 .. 1e-4, 1e15 .. 1e17)
        digits = rng.randint(1, 17)
        mant = rng.randint(1, 10 ** digits - 1)
        exp = rng.choice([-6, -5, -4, -3, 14, 15, 16, 17, 18, 20, 21, 22, 23, rng.randint(-330, 310)])
        v.append(float("%de%d" % (mant, exp - digits + 1)))
    for s in range(50):  # scale factors of a loss scaler: 2^k and 2^k * 0.5^j
        v.append(2.0 ** (s + 40))
    seen = set()
    out = []
    for x in v:
        if math.isfinite(x) and bits(x) not in seen:
            seen.add(bits(x))
            out.append(x)
    return out


def main():
    text = "".join("%016x %s\n" % (bits(x), repr(x)) for x in values())
    if "--check" in sys.argv:
        with open(OUT) as f:
            ok = f.read() == text
        print("python_float_repr.txt:", "matches" if ok else "DIFFERS")
        return 0 if ok else 1
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote", OUT, text.count("\n"), "lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
