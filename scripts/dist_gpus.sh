#!/usr/bin/env bash
# Runs on a machine with several GPUs (../shared/device/README.md: the nvidia-h200-x2 and -x4
# kinds): libportsolve_mpi's tests and the multi-GPU figures of docs/DIST.md from a build tree made
# on the development machine, one rank per GPU, NCCL between them. Summary table last.
#   bash scripts/dist_gpus.sh BUILD_DIR OUT_DIR [PARTS]
# PARTS (default tests,opencl,lu,big,chol) picks what runs, so that a machine's per-command limit
# can take them in turns: tests (test_dist on CUDA and OpenCL, one rank per GPU, test_devices,
# and the build's cuda.mpi and cuda.scalapack tests), opencl (its opencl.mpi and opencl.scalapack
# tests on NVIDIA's OpenCL; for both, ScaLAPACK's testers are copied from .devsl to Debian's
# folder first), lu (the LU figures), big
# (n = 131072 on 2 GPUs), chol (the Cholesky figures). Each program runs under `timeout`
# (STEP_TIMEOUT seconds, default 300), and every log goes to OUT_DIR as it is written, so a run
# cut short still reports.
# Carry .device (the runtime packages) and, for ScaLAPACK's testers, .devsl (the testers and
# Debian's libscalapack-openmpi, liblapack and libblas under .devsl/lib).
set -uo pipefail
build=${1:-build-gpu}
out=${2:-/tmp/gpu-out}
parts=,${3:-tests,opencl,lu,big,chol},
want() { [[ $parts == *,$1,* ]]; }
mkdir -p "$out"
source .device/gpu-env.sh "$build" > /dev/null
bash scripts/link_configured_cmake.sh "$build" # for the cuda.mpi.staged_* tests
export PORTSOLVE_BACKEND_PATH=$PWD/$build NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -d .devsl/lib ] && export LD_LIBRARY_PATH=$PWD/.devsl/lib:$LD_LIBRARY_PATH
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi -L
# the staging threads of the host-array calls need more than the one core Open MPI binds a rank to
run() {
  timeout "${STEP_TIMEOUT:-300}" mpiexec --bind-to none -x NCCL_NVLS_ENABLE \
    -x PORTSOLVE_BACKEND_PATH -x LD_LIBRARY_PATH "$@"
}
bench=$build/bench/portsolve-bench-dist
summary=()
# the distributed tests, one rank per GPU, on the grids 1 x gpus and gpus x 1: CUDA (NCCL between
# the GPUs) and NVIDIA's OpenCL (MPI through host memory)
for backend in cuda opencl; do
  for grid in "1 $gpus" "$gpus 1"; do
    want tests || break
    set -- $grid
    log=$out/test-dist-$backend-$1x$2.log
    run -n "$gpus" -x OCL_ICD_VENDORS "$build"/tests/test_dist --backend $backend --case "$1x$2" > "$log" 2>&1
    summary+=("test_dist $backend ${1}x$2: rc=$? $(grep -m1 -o 'checks, [0-9]* failed' "$log")")
  done
done
# ScaLAPACK's testers where the build's tests look for them (Debian's folder)
copy_testers() {
  local testers=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests
  if [ -d .devsl ]; then
    mkdir -p "$testers" && for f in .devsl/x* .devsl/bin/x* .devsl/*.dat; do
      [ -f "$f" ] && cp -f "$f" "$testers/"
    done
  fi
}
# contexts on two GPUs used in turn from one thread (tests/test_devices.c); the distributed tests
# and ScaLAPACK's testers with the preload on CUDA, 4 ranks (two to a GPU: MPI between them)
if want tests; then
  timeout "${STEP_TIMEOUT:-300}" "$build"/tests/test_devices --backend cuda > "$out/test-devices.log" 2>&1
  summary+=("test_devices cuda: rc=$? $(grep -m1 -o 'checks, [0-9]* failed' "$out/test-devices.log")")
  copy_testers
  (cd "$build" && timeout "${STEP_TIMEOUT:-300}" ctest -R '^cuda\.(mpi|scalapack)' -j2) \
    > "$out/ctest-cuda.log" 2>&1
  summary+=("ctest cuda.mpi, cuda.scalapack: rc=$? $(grep -m1 'tests passed' "$out/ctest-cuda.log")")
fi
# the same on NVIDIA's OpenCL
if want opencl; then
  copy_testers
  (cd "$build" && timeout "${STEP_TIMEOUT:-300}" ctest -R '^opencl\.(mpi|scalapack)' -j2) \
    > "$out/ctest-opencl.log" 2>&1
  summary+=("ctest opencl.mpi, opencl.scalapack: rc=$? $(grep -m1 'tests passed' "$out/ctest-opencl.log")")
fi
# the figures: 65536 on 2 GPUs, 98304 on 4 (1 x P), against one GPU's factorization and
# cuSOLVERMg on the same GPUs; 131072 on 2 GPUs, more than one H200 holds, with its residual
sizes=${SIZES:-$([ "$gpus" -ge 4 ] && echo 32768,65536,98304 || echo 32768,65536)}
if want lu; then
  run -n "$gpus" "$bench" --backend cuda --sizes "$sizes" --nb 512 --grid 1,"$gpus" --repeats 2 \
    --reference none --single no --cusolvermg yes --check no --csv "$out/dist-lu-1x$gpus.csv" \
    2>&1 | tee "$out/dist-lu-1x$gpus.log"
  summary+=("LU 1x$gpus, $(grep -o 'transport [a-z]*' "$out/dist-lu-1x$gpus.log"):")
  summary+=("$(grep -E '^ +[0-9]+ ' "$out/dist-lu-1x$gpus.log")")
fi
if [ "$gpus" -eq 2 ] && want big; then
  run -n 2 "$bench" --backend cuda --sizes 131072 --nb 512 --grid 1,2 --repeats 1 --reference none \
    --single no --device no --check yes --csv "$out/dist-lu-131072.csv" 2>&1 |
    tee "$out/dist-lu-131072.log"
  summary+=("n = 131072: $(grep -E 'residual ratio|failed' "$out/dist-lu-131072.log" | tr '\n' ' ')")
fi
if want chol; then
  run -n "$gpus" "$bench" --method chol --backend cuda --sizes "$sizes" --nb 512 --grid 1,"$gpus" \
    --repeats 2 --reference none --single no --check no --csv "$out/dist-chol-1x$gpus.csv" 2>&1 |
    tee "$out/dist-chol-1x$gpus.log"
  run -n "$gpus" "$bench" --method chol --uplo U --backend cuda --sizes "$sizes" --nb 512 \
    --grid 1,"$gpus" --repeats 2 --reference none --single no --check no \
    --csv "$out/dist-chol-u-1x$gpus.csv" 2>&1 | tee "$out/dist-chol-u-1x$gpus.log"
fi
if command -v gnuplot > /dev/null; then
  for m in lu chol; do
    [ -s "$out/dist-$m-1x$gpus.csv" ] &&
      bash scripts/plot_dist.sh "$out/dist-$m.png" "$m on 1 x $gpus GPUs" "$out/dist-$m-1x$gpus.csv"
  done
fi
printf '%s\n' "${summary[@]}"
