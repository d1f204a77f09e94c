#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the extension with AddressSanitizer + UndefinedBehaviorSanitizer (g++) into a private
# target directory and runs python/tests against it (the interpreter itself is not instrumented,
# so the runtimes are preloaded). Usage, from the repository root: bash python/run_asan_tests.sh
set -euo pipefail
dest=build/python-asan-site
rm -rf "$dest"
python3 -m pip install -q --no-deps --target "$dest" . \
    --config-settings=cmake.args="-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer;-DMIXPREC_PY_STUBS=OFF" \
    --config-settings=cmake.build-type=Debug --config-settings=build-dir=build/python-asan
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
PYTHONPATH="$PWD/$dest" python3 -m pytest -q -p no:cacheprovider python/tests
