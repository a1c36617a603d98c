#!/usr/bin/env bash
# The README's main job: builds, then runs applications/poisson (step-37 on
# the GPU: adaptive refinement, CG with a geometric multigrid V-cycle) on
# the GPU when one is visible (one MPI rank a core sharing it through MPS
# where the driver has it), else on the CPU (host backend, one MPI rank
# per core, smaller meshes).
#   contrib/run_main.sh [extra arguments for poisson]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Every (dimension, degree) pair of the applications (run_tests.sh, which
# shares the build folder, compiles those of its tests only); the library
# and poisson only, not the tests and benchmarks.
DEAL_II_GPU_BUILD_TARGETS=poisson "$root/contrib/setup.sh" "$root/build" AUTO -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DDEAL_II_GPU_APPLICATION_CASES="2:1;2:2;2:3;2:4;3:1;3:2;3:3;3:4"
export OMPI_MCA_rmaps_base_oversubscribe=1
[ "$(id -u)" != 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$root/build/run" && cd "$root/build/run"
prm=$root/applications/poisson/poisson.prm
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  # Seven cycles from 3584 cells: up to about 3e7 DoFs.
  sed -e 's/^set Initial refinements .*/set Initial refinements = 3/' \
      -e 's/^set Cycles .*/set Cycles = 7/' "$prm" > main.prm
  # deal.II's set-up runs one core a rank: one rank a core (at most 16),
  # the ranks sharing the GPU through an MPS daemon of our own, which lets
  # their kernels run at the same time (doc/user-guide.md). Without MPS,
  # one rank.
  ranks=1
  if [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
    export CUDA_MPS_PIPE_DIRECTORY=$PWD/mps CUDA_MPS_LOG_DIRECTORY=$PWD/mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
      trap 'echo quit | nvidia-cuda-mps-control' EXIT
      ranks=$(( $(nproc) < 16 ? $(nproc) : 16 ))
    else
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    fi
  fi
  mpirun -np $ranks --bind-to none "$root/build/bin/poisson" main.prm --device=cuda "$@"
else
  sed 's/^set Cycles .*/set Cycles = 5/' "$prm" > main.prm
  mpirun -np "$(nproc)" "$root/build/bin/poisson" main.prm --device=host "$@"
fi
