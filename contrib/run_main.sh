#!/usr/bin/env bash
# The README's main job: builds, then runs the main program on the GPU when
# one is visible, else on the CPU. Until the first application exists the
# main program is benchmarks/vector_operations.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/contrib/setup.sh" "$root/build" AUTO
export OMPI_MCA_rmaps_base_oversubscribe=1
[ "$(id -u)" != 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$root/build/run" && cd "$root/build/run"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  "$root/build/bin/vector_operations" "$root/benchmarks/vector_operations.prm" --device=cuda
else
  # CPU: smaller sizes, one rank per core (also measures the ghost exchange).
  sed 's/^set Sizes .*/set Sizes = 1e5, 1e6, 1e7/' "$root/benchmarks/vector_operations.prm" > cpu.prm
  mpirun -np "$(nproc)" "$root/build/bin/vector_operations" cpu.prm --device=host
fi
