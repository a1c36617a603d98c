#!/usr/bin/env bash
# The README's main job: builds, then runs applications/helmholtz (the
# step-64 problem on GPU::MatrixFree) on the GPU when one is visible, else on
# the CPU (host backend, one MPI rank per core, smaller meshes).
#   contrib/run_main.sh [extra arguments for helmholtz]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/contrib/setup.sh" "$root/build" AUTO
export OMPI_MCA_rmaps_base_oversubscribe=1
[ "$(id -u)" != 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$root/build/run" && cd "$root/build/run"
prm=$root/applications/helmholtz/helmholtz.prm
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  # Up to 5.7e7 DoFs (refinement 7, Q3).
  sed 's/^set Refinements .*/set Refinements = 3, 4, 5, 6, 7/' "$prm" > main.prm
  "$root/build/bin/helmholtz" main.prm --device=cuda "$@"
else
  sed 's/^set Refinements .*/set Refinements = 2, 3, 4/' "$prm" > main.prm
  mpirun -np "$(nproc)" "$root/build/bin/helmholtz" main.prm --device=host "$@"
fi
