#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite for every backend label this machine
# can run. With --sanitize: a separate ASan+UBSan build (build-asan/) of the CPU tests and, when
# the OpenCL module is built, the OpenCL ones on POCL (without the leak check there). The tests
# that load the library into programs not built with the sanitizers (Python, LAPACK's and
# ScaLAPACK's testers) preload the sanitizers' runtimes there, without the leak check.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  export BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo
  # no CUDA module: the sanitizer runs the cpu and opencl labels only, and nvcc took minutes
  bash scripts/build.sh -DPORTSOLVE_SANITIZE=ON -DPORTSOLVE_BUILD_BENCH=OFF -DPORTSOLVE_WITH_CUDA=OFF
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # allocator_may_return_null: an allocation too large for the machine must come back NULL, as
  # malloc's does, so that the library's out-of-memory paths run (errors.huge_sizes)
  echo "portsolve: running the test label cpu under ASan+UBSan"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
    ctest --test-dir build-asan -L cpu -LE mpi --output-on-failure -j"$(nproc)"
  # the distributed tests without the leak check: Open MPI keeps what MPI_Init allocates
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
    ctest --test-dir build-asan -L cpu -L mpi --output-on-failure -j"$(nproc)"
  # The OpenCL backend's host code on POCL, when the module is built: without LeakSanitizer,
  # whose tracer crashed at exit beside POCL's worker threads (1 run in 2 of opencl.vtable), and
  # without ASan's alternate signal stacks, whose unmapping at a thread's exit failed beside
  # POCL's threads on one machine (opencl.threads, every run, also on code that had passed CI)
  if grep -q '^PORTSOLVE_WITH_OPENCL:BOOL=ON' build-asan/CMakeCache.txt; then
    echo "portsolve: running the test label opencl under ASan (no leak check)+UBSan"
    # The runs that only repeat LU and gjinv under other knobs (layouts, forms of the block
    # rows) take core's paths, which the cpu label checks under ASan, and the backend's entries,
    # which opencl.vtable checks: they are left to the plain run (a third of this run's time).
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:use_sigaltstack=0:allocator_may_return_null=1 \
      ctest --test-dir build-asan -L opencl --output-on-failure -j"$(nproc)" \
      -E '^opencl\.(lu_(inverse|trsm|rows|transposed_inverse|transposed_trsm)|gj\.(inverse|transposed)_by_(linv|trsm))$'
  fi
  exit 0
fi
bash scripts/build.sh
# Every label this build and machine can run: cpu always; opencl when the module is built (it
# then fails, never skips, without an OpenCL device); cuda when an NVIDIA GPU answers.
labels=cpu
grep -q '^PORTSOLVE_WITH_OPENCL:BOOL=ON' build/CMakeCache.txt && labels="$labels|opencl"
if grep -q '^PORTSOLVE_WITH_CUDA:BOOL=ON' build/CMakeCache.txt 2>/dev/null &&
   nvidia-smi -L >/dev/null 2>&1; then
  labels="$labels|cuda"
fi
echo "portsolve: running the test labels $labels"
ctest --test-dir build -L "$labels" --output-on-failure -j"$(nproc)"
