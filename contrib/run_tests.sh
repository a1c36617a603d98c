#!/usr/bin/env bash
# The README's test command: set up, build and run the whole test suite in
# both configurations, with the CUDA backend compiled (when nvcc is there)
# and without it. On a machine without a GPU every test runs on the host
# backend; on the GPU machine use contrib/gpu/run_tests.sh. The benchmarks
# are built (to check that they compile) in the host configuration only,
# as C++, where they take about 8 minutes of a cold build instead of about
# 30 through nvcc, and the CEED benchmark with one degree only;
# contrib/gpu/pack.sh builds them all with CUDA for the GPU machine. That
# keeps the whole run within CI's 60 minutes on 2 cores (doc/benchmarks.md,
# "CI time").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
jobs=$(nproc)

status=0
configs="AUTO:build:OFF"
[ "${DEALII_GPU_SKIP_HOST_ONLY:-0}" = 1 ] || configs="$configs OFF:build-host:ON"
for config in $configs; do
  IFS=: read -r cuda dir benchmarks <<< "$config"
  dir=$root/$dir
  echo "=== configuration DEAL_II_GPU_WITH_CUDA=$cuda in $dir"
  "$root/contrib/setup.sh" "$dir" "$cuda" \
    -DDEAL_II_GPU_BUILD_BENCHMARKS="$benchmarks" \
    -DDEAL_II_GPU_CEED_BPS_DEGREES=2
  (cd "$dir" && ctest -j"$jobs" --output-on-failure) || status=1
done
exit $status
