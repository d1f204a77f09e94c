#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run tests/cuda/*.cu on a machine with an NVIDIA GPU, then repeat each
# under compute-sanitizer (memcheck, racecheck).  Usage (from the repository root):
#   bash tests/cuda/run_on_gpu.sh [build-dir] [cuda-arch]      e.g.  build-gpu 90
# SANITIZE=0 skips compute-sanitizer; SAN_TIMEOUT (seconds, default 900) bounds each sanitizer run.
# Needs nvcc, CMake >= 3.18, ninja or make, and doctest's header (set DOCTEST_INC to a
# directory holding doctest/doctest.h when it is not installed system-wide).
set -u -o pipefail
build=${1:-build-gpu}
arch=${2:-90}
out=${OUT:-.}
extra=()
[ -n "${DOCTEST_INC:-}" ] && extra+=(-DMIXPREC_DOCTEST_INCLUDE_DIR="$DOCTEST_INC")
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -n 2
  cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIXPREC_REQUIRE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="$arch" -DMIXPREC_BUILD_BENCH=OFF -DMIXPREC_BUILD_EXAMPLES=OFF \
        -DMIXPREC_HEADER_CHECKS=OFF "${extra[@]}" >"$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log"; exit 2; }
  targets=$(cd tests/cuda && ls *.cu | sed 's/^/cuda_/; s/\.cu$//')
  cmake --build "$build" -j "$(nproc)" --target $targets || exit 3
  status=0
  for t in $targets; do
    echo "=== $t"; start=$(date +%s%N)
    "$build/tests/$t"; rc=$?
    echo "--- $t: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"
    [ $rc -ne 0 ] && status=1
  done
  if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
      for t in $targets; do
        timeout "${SAN_TIMEOUT:-900}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$build/tests/$t" >/tmp/san.txt 2>&1
        rc=$?; echo "--- compute-sanitizer $tool $t: exit $rc: $(tail -n 1 /tmp/san.txt)"
        { echo "=== $tool $t (exit $rc)"; cat /tmp/san.txt; } >>"$out/sanitizer.log"
        [ $rc -ne 0 ] && status=1
      done
    done
  fi
  exit $status
} 2>&1 | tee "$out/cuda_tests.log"
