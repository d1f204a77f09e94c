#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that every git-tracked source, build and script file names its license.

    python3 scripts/check_spdx.py [ROOT]     exit 0: each such file has an
                                             "SPDX-License-Identifier: <id>" line in its first 5 lines
                                             exit 1: the files without one, one per line

Which files: code, build and tool configuration, chosen by what a file is, never by a list of
exceptions:
  - by extension: C++ and CUDA (.hpp .h .cpp .cc .cu .cuh), Python (.py .pyi), shell (.sh),
    JavaScript (.js), CMake (.cmake), templates that configure into one of these (.in),
    TOML and YAML (.toml .yml .yaml);
  - by name: CMakeLists.txt, meson.build, meson.options, meson_options.txt, Doxyfile,
    .clang-format, .clang-tidy, .gitignore, .gitattributes;
  - every file without an extension under .ci/ or scripts/ (the executable scripts).
Everything else is data or prose and is not checked: Markdown, JSON, CSV, SVG, plain .txt
(golden vectors, allowlists), fuzz corpora and dictionaries, LICENSE. Golden data stays
byte-for-byte what its source produced, so nothing under tests/golden/ is checked unless it is code
by the rules above (a generator script is). shared/ is not part of the project.
"""
import os
import re
import subprocess
import sys

EXTENSIONS = {
    ".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh",
    ".py", ".pyi", ".sh", ".js", ".cmake", ".in", ".toml", ".yml", ".yaml",
}
NAMES = {
    "CMakeLists.txt", "meson.build", "meson.options", "meson_options.txt", "Doxyfile",
    ".clang-format", ".clang-tidy", ".gitignore", ".gitattributes",
}
SCRIPT_DIRS = (".ci/", "scripts/")  # extensionless files here are scripts
OUTSIDE = ("shared/",)  # not the project's files
HEAD_LINES = 5
SPDX = re.compile(r"SPDX-License-Identifier:\s*\S")


def checked(path):
    """Whether `path` (relative, '/'-separated) is a source, build or script file."""
    if path.startswith(OUTSIDE):
        return False
    name = path.rsplit("/", 1)[-1]
    if name in NAMES:
        return True
    ext = os.path.splitext(name)[1]
    if ext in EXTENSIONS:
        return True
    return ext == "" and not name.startswith(".") and path.startswith(SCRIPT_DIRS)


def has_spdx(full):
    with open(full, encoding="utf-8", errors="replace") as f:
        for _, line in zip(range(HEAD_LINES), f):
            if SPDX.search(line):
                return True
    return False


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    git = subprocess.run(["git", "-c", "safe.directory=*", "-C", root, "ls-files", "-z"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if git.returncode != 0:
        print(f"check_spdx: skipped ({root} is not a git checkout: no tracked files to check)")
        return 0
    files = [p for p in git.stdout.decode("utf-8").split("\0") if p]
    missing = []
    count = 0
    for path in files:
        full = os.path.join(root, path)
        if not checked(path) or not os.path.isfile(full):  # a tracked file deleted in the work tree
            continue
        count += 1
        if not has_spdx(full):
            missing.append(path)
    if missing:
        print(f"check_spdx: {len(missing)} of {count} source/build/script files lack an "
              f"'SPDX-License-Identifier:' line in their first {HEAD_LINES} lines:")
        for path in missing:
            print(f"  {path}")
        return 1
    print(f"check_spdx: {count} source/build/script files, each with an SPDX-License-Identifier line")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
