#!/usr/bin/env bash
# The README's test command: set up, build and run the test suite in two
# configurations, with the CUDA backend compiled (when nvcc is there) and
# without it. On a machine without a GPU every test runs on the host
# backend; on the GPU machine use contrib/gpu/run_tests.sh. To stay within
# CI's 60 minutes on 2 cores (doc/benchmarks.md, "CI time"):
# - without a GPU, the deal.II-style tests are built and run in the
#   configuration without CUDA: they run the same kernel code on the host
#   backend either way, and g++ compiles them in about 40 % of nvcc's time
#   (2026-11-28); the CUDA configuration (nvcc) builds the library, the
#   applications and the unit tests and runs those, the applications'
#   runs and the package test. With a GPU, the CUDA configuration builds
#   and runs every test (on the GPU), the other one the unit tests and the
#   applications;
# - the applications compile the (dimension, degree) pairs their runs use;
# - without a GPU, nvcc stops at PTX (the kernels are compiled and checked
#   up to the assembler, which only the GPU machine needs), and the
#   heaviest tests compile a subset of their cases (DEAL_II_GPU_FULL_TESTS,
#   tests/tests.h; DEALII_GPU_FULL_TESTS=ON here compiles all);
# - the benchmarks are not built: contrib/gpu/pack.sh builds them all with
#   CUDA for the GPU machine (DEALII_GPU_BENCHMARKS=1 builds them here in
#   the configuration without CUDA, as C++).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
jobs=$(nproc)
# The (dim:degree) pairs the application tests run (tests/applications/*.prm):
# the applications compile these only.
application_cases="helmholtz:2:2;poisson:2:3;elasticity:3:2"

# Without a GPU the kernels never run here: PTX only (no ptxas, no SASS),
# and the heaviest tests compile their CI subset of cases (every feature,
# low degrees; the GPU machine compiles and runs all of them).
cuda_architectures=""
full_tests=ON
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  cuda_architectures="-DCMAKE_CUDA_ARCHITECTURES=90-virtual"
  full_tests=OFF
fi
full_tests=${DEALII_GPU_FULL_TESTS:-$full_tests}

status=0
tests="base;lac;matrix_free;multigrid;operators;integration;numerics"
host_benchmarks=OFF
[ "${DEALII_GPU_BENCHMARKS:-0}" = 1 ] && host_benchmarks=ON
if [ -z "$cuda_architectures" ]; then
  cuda_areas="$tests;unit;package;applications"
  host_areas="unit;applications"
else
  cuda_areas="unit;package;applications"
  host_areas="$tests;unit;applications"
fi
configs="AUTO:build:OFF:$cuda_areas OFF:build-host:$host_benchmarks:$host_areas"
for config in $configs; do
  IFS=: read -r cuda dir benchmarks areas <<< "$config"
  dir=$root/$dir
  echo "=== configuration DEAL_II_GPU_WITH_CUDA=$cuda in $dir"
  "$root/contrib/setup.sh" "$dir" "$cuda" \
    -DDEAL_II_GPU_BUILD_BENCHMARKS="$benchmarks" \
    -DDEAL_II_GPU_CEED_BPS_DEGREES=2 \
    -DDEAL_II_GPU_APPLICATION_CASES="$application_cases" \
    -DDEAL_II_GPU_TEST_AREAS="$areas" -DDEAL_II_GPU_FULL_TESTS="$full_tests" \
    $cuda_architectures
  (cd "$dir" && ctest -j"$jobs" --output-on-failure) || status=1
done
exit $status
