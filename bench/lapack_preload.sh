#!/usr/bin/env bash
# The LAPACK drop-in's benchmark: the same plain LAPACK program (portsolve-bench-lapack, dgesv_
# `calls` times at order n) without and with libportsolve_lapack preloaded, in one run, and the
# ratio of the times spent in dgesv_. The backend is PORTSOLVE_BACKEND's (default auto).
# Usage: bench/lapack_preload.sh BUILD_DIR N CALLS
set -euo pipefail
build=$1 n=$2 calls=$3
prog=$build/bench/portsolve-bench-lapack
lib=$build/lapack/libportsolve_lapack.so
plain=$("$prog" "$n" "$calls")
preloaded=$(PORTSOLVE_BACKEND_PATH=${PORTSOLVE_BACKEND_PATH:-$build} LD_PRELOAD=$lib "$prog" "$n" "$calls")
echo "host LAPACK:          $plain"
echo "libportsolve_lapack:  $preloaded"
# all calls, and (more than one call) the best call after the first, which in the preloaded run
# carries the context's creation
t0=$(echo "$plain" | sed -E 's/.*: ([0-9.e+-]+) s in.*/\1/')
t1=$(echo "$preloaded" | sed -E 's/.*: ([0-9.e+-]+) s in.*/\1/')
b0=$(echo "$plain" | sed -E 's/.*best after it ([0-9.e+-]+) s.*/\1/')
b1=$(echo "$preloaded" | sed -E 's/.*best after it ([0-9.e+-]+) s.*/\1/')
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "all calls, time with the drop-in / without: %.3f (speed-up %.2fx)\n", b / a, a / b }'
if [ "$calls" -gt 1 ]; then
  awk -v a="$b0" -v b="$b1" 'BEGIN { printf "best call after the first, with / without: %.3f (speed-up %.2fx)\n", b / a, a / b }'
fi
