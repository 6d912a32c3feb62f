#!/usr/bin/env bash
# mixed_check (dsgesv_ and dsposv_ where portsolve hands the call back) with libportsolve_lapack
# preloaded on one backend: every answer the host LAPACK's, and the log showing each routine
# handed to the host LAPACK after portsolve, twice (the NaN, the solution beyond range).
# Usage: run_mixed.sh LIBPORTSOLVE_LAPACK BACKEND MIXED_CHECK
set -euo pipefail
lib=$1 backend=$2 prog=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
PORTSOLVE_BACKEND=$backend PORTSOLVE_LAPACK_MIN_N=0 PORTSOLVE_LAPACK_VERBOSE=1 \
  LD_PRELOAD=$lib "$prog" 2>"$log"
status=0
for routine in DSGESV DSPOSV; do
  handed=$(grep -c "$routine m=6 n=6 nrhs=1 on host LAPACK after portsolve" "$log" || true)
  echo "$routine: $handed calls handed to the host LAPACK after portsolve"
  [ "$handed" -eq 2 ] || status=1
done
[ $status -eq 0 ] || { echo "FAILED"; cat "$log"; }
exit $status
