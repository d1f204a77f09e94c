#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the block-scaling reference pages of the documentation site from the opening comments
of their headers (scripts/docs runs it before mkdocs), so a page can never drift from its header.
The MX and NVFP4 pages (recipe-mx.md, recipe-nvfp4.md) are written by hand instead: their
headers' opening comments are short (what, contract, example) and link to those pages, which hold
the full rules (issue 16).

    scripts/docs_header_pages.py OUTDIR
"""
import os
import sys

PAGES = [
    ("block-scaling.md", "Block scaling: the interface", "recipes/block_scaling.hpp",
     "One interface for every recipe: a recipe quantizes a row-major tensor into elements and scales in a "
     "documented layout, dequantizes it, and describes itself as data (`info()`)."),
    ("recipe-fp8-blocks.md", "FP8 block scaling (DeepSeek-V3, TE Float8BlockScaling)", "recipes/block_scaling_fp8.hpp",
     "Fine-grained FP8: 1x128 activation tiles and 128x128 weight blocks with FP32 or power-of-two scales."),
    ("block-scaled-gemm.md", "GEMM on block-scaled operands and the accumulator model", "recipes/block_scaled_gemm.hpp",
     "Per K block: the dot of the quantized elements in an accumulator model, times the two scales, added into "
     "FP32, with the promotion interval as a parameter."),
]


def opening_comment(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            line = line.rstrip("\n")
            if not line.startswith("//"):
                break
            if i == 0 and "SPDX" in line:
                continue
            lines.append(line[3:] if line.startswith("// ") else line[2:])
    return "\n".join(lines)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, title, header, intro in PAGES:
        text = opening_comment(os.path.join(root, "include", "mixprec", header))
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write("# %s\n\n%s\n\nThe exact rules, from the opening comment of `include/mixprec/%s` (this page is "
                    "generated from it by `scripts/docs`; `tests/test_block_scaling.cpp` and "
                    "`tests/test_block_scaled_gemm.cpp` check them):\n\n```text\n%s\n```\n" % (title, intro, header, text))


if __name__ == "__main__":
    main()
