#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds the examples against it: all of them
# through find_package(portsolve), the README's through pkg-config too; then runs them on the
# CPU backend.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install build --prefix "$prefix" >/dev/null
cmake -S examples -B "$prefix/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cmake-consumer" >/dev/null
for example in solve_dense factor_once iterative; do
  LD_LIBRARY_PATH="$prefix/lib" PORTSOLVE_BACKEND=cpu "$prefix/cmake-consumer/$example"
done
pkgconfig_dirs=("$prefix"/lib*/pkgconfig)
libdir=${pkgconfig_dirs[0]}
PKG_CONFIG_PATH="$libdir" cc -std=c11 examples/solve_dense.c -o "$prefix/pc-consumer" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs portsolve)
LD_LIBRARY_PATH="$(dirname "$libdir")" PORTSOLVE_BACKEND=cpu "$prefix/pc-consumer"
# the installed command-line program finds the library in its own prefix
"$prefix/bin/portsolve" solve --backend cpu --n 50 >/dev/null
# the installed LAPACK drop-in serves a plain LAPACK program, and pkg-config knows it
# (outputs are captured first: grep -q leaving a pipe early kills the writer with SIGPIPE)
libs=$(PKG_CONFIG_PATH="$libdir" pkg-config --libs portsolve-lapack)
grep -q -- -lportsolve_lapack <<<"$libs"
log=$(PORTSOLVE_BACKEND=cpu PORTSOLVE_LAPACK_MIN_N=0 PORTSOLVE_LAPACK_VERBOSE=1 \
  LD_PRELOAD="$(dirname "$libdir")/libportsolve_lapack.so" build/bench/portsolve-bench-lapack 50 2 \
  2>&1 >/dev/null)
grep -q "DGESV m=50 n=50 nrhs=1 on portsolve cpu" <<<"$log"
# the installed Python package finds the installed library by itself (Debian's python3)
env -u PORTSOLVE_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" PORTSOLVE_BACKEND=cpu \
  /usr/bin/python3 -c 'import numpy as np, portsolve as ps
x = ps.solve(np.diag([2.0, 4.0]), np.ones(2))
assert np.allclose(x, [0.5, 0.25]), x
print("installed Python package:", ps.__version__, ps.Context().backend)'
echo "install check: find_package and pkg-config consumers built and ran, the installed CLI," \
  "the LAPACK drop-in and the Python package"
