#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fail when a tests/test_*.cpp or examples/*.cpp file is missing from the
explicit lists in tests/meson.build / examples/meson.build (Meson has no glob),
or when a list names a file that does not exist.

usage: scripts/check_meson_lists.py [REPO_ROOT]
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)

CHECKS = [
    # (meson file, list variable, source directory, glob)
    ("tests/meson.build", "mixprec_test_names", "tests", "test_*.cpp"),
    ("examples/meson.build", "mixprec_example_names", "examples", "*.cpp"),
]

ok = True
for meson_file, var, src_dir, pattern in CHECKS:
    text = (root / meson_file).read_text()
    m = re.search(re.escape(var) + r"\s*=\s*\[(.*?)\]", text, re.S)
    if not m:
        print(f"{meson_file}: no list '{var} = [...]' found")
        ok = False
        continue
    body = re.sub(r"#[^\n]*", "", m.group(1))
    listed = set(re.findall(r"'([^']+)'", body))
    present = {p.stem for p in (root / src_dir).glob(pattern)}
    missing = sorted(present - listed)
    stale = sorted(listed - present)
    if missing:
        ok = False
        print(f"{meson_file}: these {src_dir}/{pattern} files are not listed in {var}; add:")
        for name in missing:
            print(f"  '{name}',")
    if stale:
        ok = False
        print(f"{meson_file}: {var} lists files that do not exist: {', '.join(stale)}")
    if not missing and not stale:
        print(f"{meson_file}: {len(listed)} file(s), all listed")

sys.exit(0 if ok else 1)
