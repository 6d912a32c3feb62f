#!/usr/bin/env bash
# Fails when a C source is not formatted as .clang-format says (clang-format from Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang-format
fi
git ls-files '*.c' '*.h' '*.cu' '*.cl' | xargs clang-format --dry-run --Werror
echo "format check: clean"
