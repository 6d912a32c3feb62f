#!/usr/bin/env bash
# Installs the Debian packages portsolve needs, only those missing. Used by demo.sh and test.sh.
set -euo pipefail
packages=(gcc make cmake pkg-config libopenblas-dev liblapacke-dev libtmglib-dev gnuplot-nox
  ocl-icd-opencl-dev opencl-headers libclblast-dev pocl-opencl-icd clinfo
  liblapack-test python3-numpy python3-scipy python3-pytest openmpi-bin libopenmpi-dev
  libscalapack-openmpi-dev scalapack-mpi-test)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "portsolve: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
