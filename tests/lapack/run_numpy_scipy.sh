#!/usr/bin/env bash
# NumPy and SciPy (Debian's, /usr/bin/python3) with libportsolve_lapack preloaded on one backend:
# numpy_scipy_check.py judges every answer; this script also requires the verbose log to show
# that portsolve served each LAPACK routine those calls reach.
# Usage: run_numpy_scipy.sh LIBPORTSOLVE_LAPACK BACKEND
set -euo pipefail
lib=$1 backend=$2
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
PORTSOLVE_BACKEND=$backend PORTSOLVE_LAPACK_MIN_N=0 PORTSOLVE_LAPACK_VERBOSE=1 \
  OPENBLAS_NUM_THREADS=1 LD_PRELOAD=$lib /usr/bin/python3 "$here/numpy_scipy_check.py" 2>"$log"
status=0
# (NumPy's linalg computes float32 input in float64: no SGESV)
for routine in DGESV DGETRF DGETRS DGETRI DPOTRF DPOTRS DPOSV SGETRF SGETRS SGETRI SPOTRF SPOTRS SPOSV; do
  if ! grep -q "portsolve_lapack: $routine .* on portsolve $backend" "$log"; then
    echo "FAILED: no $routine call served by portsolve on $backend"
    status=1
  fi
done
if ! grep -q "DGESV m=300 n=300 nrhs=1 on host LAPACK after portsolve: .*NaN" "$log"; then
  echo "FAILED: the NaN system was not handed to the host LAPACK with the reason"
  status=1
fi
echo "$(grep -c 'on portsolve' "$log") LAPACK calls served by portsolve on $backend," \
  "$(grep -c 'on host LAPACK' "$log" || true) by the host LAPACK"
exit $status
