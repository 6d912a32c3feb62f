#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite for every backend label this machine
# can run (cpu always). With --sanitize: a separate ASan+UBSan build (build-asan/) of the CPU tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  export BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo
  bash scripts/build.sh -DPORTSOLVE_SANITIZE=ON -DPORTSOLVE_BUILD_BENCH=OFF
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan -L cpu --output-on-failure -j"$(nproc)"
  exit 0
fi
bash scripts/build.sh
ctest --test-dir build -L cpu --output-on-failure -j"$(nproc)"
