#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile-fail checks for mixprec's drop-in rules.

Each tests/compile_fail/*.cpp must FAIL to compile, and the compiler's output must match the
regular expression on its first line (`// expect: REGEX`): the error users see is the one
documented. Then every code cell of README.md's Drop-in table (first column) must appear verbatim
in tests/test_dropin.cpp or in one of these files, so that each documented line is checked.

usage: check.py --cxx CXX --std 17 --include DIR [--readme README.md] [--flags "..."]
"""
import argparse
import pathlib
import re
import shlex
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--std", default="17")
    ap.add_argument("--include", required=True)
    ap.add_argument("--readme")
    ap.add_argument("--flags", default="")
    args = ap.parse_args()
    here = pathlib.Path(__file__).resolve().parent
    failures = 0
    sources = sorted(here.glob("*.cpp"))
    if not sources:
        print("no compile_fail sources found")
        return 1
    for src in sources:
        first = src.read_text().splitlines()[0]
        m = re.match(r"//\s*expect:\s*(.*)$", first)
        if not m:
            print(f"FAIL {src.name}: first line must be '// expect: REGEX'")
            failures += 1
            continue
        cmd = [args.cxx, f"-std=c++{args.std}", "-fsyntax-only", "-I", args.include,
               *shlex.split(args.flags), str(src)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        out = p.stdout + p.stderr
        if p.returncode == 0:
            print(f"FAIL {src.name}: compiled, but must not")
            failures += 1
        elif not re.search(m.group(1), out):
            print(f"FAIL {src.name}: error does not match /{m.group(1)}/:\n{out[:3000]}")
            failures += 1
        else:
            errors = sum(1 for line in out.splitlines() if re.search(r"\berror\b", line))
            print(f"ok   {src.name} ({errors} error line(s))")
    if args.readme:
        text = pathlib.Path(args.readme).read_text()
        sec = re.search(r"^## Drop-in.*?(?=^## )", text, re.S | re.M)
        if not sec:
            print("FAIL README.md has no '## Drop-in' section")
            return 1
        corpus = (here.parent / "test_dropin.cpp").read_text() + "".join(s.read_text() for s in sources)
        rows = 0
        for line in sec.group(0).splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
            if len(cells) < 2 or not cells[0].startswith("`"):
                continue
            code = cells[0].strip("`").replace("\\|", "|")
            rows += 1
            if code not in corpus:
                print(f"FAIL README Drop-in row not found in tests: {code}")
                failures += 1
        print(f"README Drop-in table: {rows} rows checked")
        if rows < 15:
            print("FAIL README Drop-in table has fewer than 15 rows")
            failures += 1
    print(f"{len(sources) - 0} files, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
