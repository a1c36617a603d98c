#!/usr/bin/env bash
# Set-up on a fresh Debian 12 machine: installs what is missing with apt,
# then configures and builds dealii-gpu. Safe to run twice.
#
#   contrib/setup.sh [build-dir] [AUTO|ON|OFF] [CMake options...]
#
# DEAL_II_GPU_BUILD_TARGETS="t1 t2" builds those targets (and what they
# need) instead of all.
# The second argument is DEAL_II_GPU_WITH_CUDA: AUTO builds the CUDA backend
# when nvcc is found (/usr/local/cuda), OFF builds the host backend only.
# Further arguments go to CMake (e.g. -DDEAL_II_GPU_BUILD_BENCHMARKS=OFF).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
cuda=${2:-AUTO}
shift $(( $# < 2 ? $# : 2 ))

packages="libdeal.ii-dev libgtest-dev numdiff cmake g++ make perl openmpi-bin xz-utils ccache"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# ccache for warm rebuilds; CCACHE_BASEDIR lets clones in other folders
# share its entries (nvcc goes through it too).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDEAL_II_GPU_WITH_CUDA="$cuda" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache "$@"
targets=()
for t in ${DEAL_II_GPU_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j"$(nproc)" "${targets[@]}"
