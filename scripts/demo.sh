#!/usr/bin/env bash
# The main job: install what is missing, build, and solve a dense system on the best available
# backend (CUDA GPU, then OpenCL GPU, then the CPU; PORTSOLVE_BACKEND overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
./build/tools/portsolve info
./build/tools/portsolve solve --method lu --n "${N:-2000}"
