#!/usr/bin/env bash
# threads_check (4 threads solving at once) with libportsolve_lapack preloaded on one backend:
# every answer right, every call served by portsolve, one context per thread.
# Usage: run_threads.sh LIBPORTSOLVE_LAPACK BACKEND THREADS_CHECK
set -euo pipefail
lib=$1 backend=$2 prog=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
PORTSOLVE_BACKEND=$backend PORTSOLVE_LAPACK_MIN_N=0 PORTSOLVE_LAPACK_VERBOSE=1 \
  LD_PRELOAD=$lib "$prog" 2>"$log"
served=$(grep -c "on portsolve $backend" "$log" || true)
contexts=$(grep -c "routing orders" "$log" || true)
echo "$served calls served by portsolve on $backend, $contexts contexts"
[ "$served" -eq 80 ] && [ "$contexts" -eq 4 ]
