#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A rank that throws must end the whole job at once: non-zero status, the message on stderr,
# well inside the time limit (the other ranks wait in a barrier that would otherwise hang).
#   check_abort.sh MPIEXEC PROGRAM
set -u
start=$(date +%s)
out=$(timeout 60 "$1" -np 3 "$2" 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
echo "$out" | tail -n 5
echo "exit status $rc after ${elapsed}s"
[ "$rc" -ne 0 ] || { echo "FAILED: the job exited 0"; exit 1; }
[ "$rc" -ne 124 ] || { echo "FAILED: the job hung (killed by timeout)"; exit 1; }
echo "$out" | grep -q "mixprec::mpi: rank 1: boom on rank 1; aborting the job" || { echo "FAILED: no message"; exit 1; }
[ "$elapsed" -le 20 ] || { echo "FAILED: took ${elapsed}s"; exit 1; }
echo "ok"
