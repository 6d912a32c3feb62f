#!/usr/bin/env bash
# One of LAPACK's own test programs (Debian's liblapack-test) with libportsolve_lapack preloaded
# on one backend, every routed call sent to portsolve. Passes when every test group of the input
# reports "passed the threshold", every error-exit group passed, nothing failed, and the verbose
# log shows portsolve serving the calls.
# Usage: run_lapack_tests.sh LIBPORTSOLVE_LAPACK BACKEND PROGRAM INPUT GROUPS
#   GROUPS: how many "passed the threshold" (and as many error-exit) lines the input asks for
set -euo pipefail
lib=$1 backend=$2 program=$3 input=$4 groups=$5
out=$(mktemp) log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT
cd "$(dirname "$out")" # the test programs may write scratch files into the working folder
PORTSOLVE_BACKEND=$backend PORTSOLVE_LAPACK_MIN_N=0 PORTSOLVE_LAPACK_VERBOSE=1 \
  OPENBLAS_NUM_THREADS=1 LD_PRELOAD=$lib "$program" <"$input" >"$out" 2>"$log"
grep -E "passed|failed|FAIL|Messages|test\(" "$out" || true
passed=$(grep -c "passed the threshold" "$out" || true)
exits=$(grep -c "passed the tests of the error exits" "$out" || true)
served=$(grep -c "on portsolve $backend" "$log" || true)
host=$(grep -c "on host LAPACK" "$log" || true)
echo "$passed of $groups groups passed the threshold, $exits error-exit groups passed;" \
  "$served calls served by portsolve on $backend, $host by the host LAPACK"
status=0
[ "$passed" -eq "$groups" ] || status=1
[ "$exits" -eq "$groups" ] || status=1
if grep -qiE "fail|illegal|not passed" "$out"; then status=1; fi
[ "$served" -gt 0 ] || status=1
[ "$host" -eq 0 ] || { grep "on host LAPACK" "$log" | head -5; status=1; }
[ $status -eq 0 ] || echo "FAILED"
exit $status
