#!/usr/bin/env bash
# One of ScaLAPACK's own test programs (Debian's scalapack-mpi-test) under mpirun with 4 ranks and
# libportsolve_scalapack preloaded, on one backend. Passes when the tester reports every test
# passed, none failed and none skipped, and libportsolve_mpi's log shows it serving every
# factorization the input asks for (none left to ScaLAPACK).
# Usage: run_scalapack_tester.sh LIBPORTSOLVE_SCALAPACK BACKEND MPIEXEC PROGRAM INPUT NAME ROUTINE COUNT
#   [staged]
#   INPUT: the input file, given to the tester as NAME (LU.dat, LLT.dat); ROUTINE: the
#   factorization's name in the log (PDGETRF, ...); COUNT: how many factorizations the input asks
#   for. PORTSOLVE_TUNING, if set, adds its knobs to the ranks' dist_verbose=1. staged: some of
#   the factorizations must also have moved their host arrays beside the work (dist/dist_staged.c).
set -euo pipefail
lib=$1 backend=$2 mpiexec=$3 program=$4 input=$5 name=$6 routine=$7 count=$8 staged=${9:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$input" "$work/$name"
cd "$work" # the testers read their .dat from the working folder
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$mpiexec" -n 4 --oversubscribe \
  -x PORTSOLVE_BACKEND="$backend" -x PORTSOLVE_TUNING="dist_verbose=1${PORTSOLVE_TUNING:+,$PORTSOLVE_TUNING}" -x OPENBLAS_NUM_THREADS=1 \
  -x OMP_NUM_THREADS=1 -x POCL_MAX_PTHREAD_COUNT=1 -x PORTSOLVE_BACKEND_PATH \
  -x LD_PRELOAD="$lib" "$program" >out.txt 2>log.txt || { tail -n 20 out.txt log.txt; exit 1; }
grep -E "tests completed|skipped" out.txt || true
passed=$(sed -n 's/^ *\([0-9]*\) tests completed and passed.*/\1/p' out.txt)
failed=$(sed -n 's/^ *\([0-9]*\) tests completed and failed.*/\1/p' out.txt)
skipped=$(sed -n 's/^ *\([0-9]*\) tests skipped.*/\1/p' out.txt)
served=$(grep -c "^portsolve_mpi: $routine " log.txt || true)
echo "$served of $count $routine calls served by portsolve on $backend"
status=0
[ "${passed:-0}" -gt 0 ] || status=1
[ "${failed:-1}" -eq 0 ] || status=1
[ "${skipped:-1}" -eq 0 ] || status=1
[ "$served" -eq "$count" ] || status=1
grep -q "on $backend" log.txt || status=1
if [ -n "$staged" ]; then
  moved=$(grep -c "^portsolve_mpi: the host array moves beside the work" log.txt || true)
  echo "$moved of them moved their host arrays beside the work"
  [ "$moved" -gt 0 ] || status=1
fi
[ $status -eq 0 ] || { echo "FAILED"; grep -v '^portsolve_mpi' log.txt | head -20; }
exit $status
