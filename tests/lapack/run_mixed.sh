#!/usr/bin/env bash
# mixed_check (dsgesv_ and dsposv_ where portsolve hands the call back) with libportsolve_lapack
# preloaded on one backend: every answer the host LAPACK's, and the log showing each routine
# handed to the host LAPACK after portsolve, twice (the NaN, the solution beyond range); the same
# with the host LAPACK named in PORTSOLVE_LAPACK_FALLBACK. Then the routing's own refusals: a
# backend that does not exist sends every call to the host LAPACK, saying so, and an
# unreadable PORTSOLVE_LAPACK_MIN_N is reported and the backend's routing order taken instead.
# Usage: run_mixed.sh LIBPORTSOLVE_LAPACK BACKEND MIXED_CHECK
set -euo pipefail
lib=$1 backend=$2 prog=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run() { # ENV...: the program's run with the preload and the verbose log
  env PORTSOLVE_BACKEND="$backend" PORTSOLVE_LAPACK_MIN_N=0 PORTSOLVE_LAPACK_VERBOSE=1 "$@" \
    LD_PRELOAD="$lib" "$prog" 2>"$log" || { echo "FAILED: $*"; cat "$log"; status=1; }
}
expect() { # COUNT PATTERN: how many log lines must match
  local n
  n=$(grep -c -- "$2" "$log" || true)
  echo "$n lines: $2"
  [ "$n" -eq "$1" ] || { echo "FAILED: expected $1"; status=1; }
}
for fallback in "" liblapack.so.3; do
  run PORTSOLVE_LAPACK_FALLBACK="$fallback"
  for routine in DSGESV DSPOSV; do
    expect 2 "$routine m=6 n=6 nrhs=1 on host LAPACK after portsolve"
  done
done
run PORTSOLVE_BACKEND=none-such
expect 1 "no portsolve context"
expect 0 "on portsolve"
for routine in DSGESV DSPOSV; do
  expect 2 "$routine m=6 n=6 nrhs=1 on host LAPACK [0-9]"
done
run PORTSOLVE_LAPACK_MIN_N=six
expect 1 "PORTSOLVE_LAPACK_MIN_N='six' is not an order"
expect 0 "on portsolve" # order 6 is below every backend's routing order
[ $status -eq 0 ] || echo "FAILED"
exit $status
