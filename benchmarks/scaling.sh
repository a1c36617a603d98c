#!/usr/bin/env bash
# GPU machine with several GPUs (nvidia-h100-x4, -x8, ...): the scaling runs
# of doc/benchmarks.md with benchmarks/scaling, one MPI rank a GPU, on the
# programs unpacked to $APP (default /tmp/app: bin/scaling, lib/) and
# deal.II's runtime (/tmp/rt). Rows go to $OUT/scaling.csv, logs to
# $OUT/scaling.txt, the machine (GPUs, NVLink topology, whether Open MPI is
# CUDA-aware) to $OUT/scaling_machine.txt.
#   [GPUS="1 2"] benchmarks/scaling.sh STEP...
# GPUS limits the GPU counts run (default 1 2 4 8): a call may last 10
# minutes, and each Q2 run at 5e7 DoFs a GPU takes 2-4 of them.
# Steps (each about 5.7e7 DoFs a GPU; P = 1, 2, 4, 8 up to the GPUs there):
#   small             Q2 and Q4 at 7e6 DoFs a GPU, uniform (a quick check)
#   weak-q4           Q4, B = P unit cubes: uniform (5.7e7 a GPU), adaptive
#                     (4.9e7 a GPU)
#   strong-q4         Q4 on B = 2 unit cubes (1.13e8 DoFs), P = 1, 4, 8; P = 2
#                     is weak-q4's row of the same mesh
#   weak-q2           Q2 uniform, B = P (5.7e7 a GPU)
#   weak-q2-adaptive  Q2 adaptive, B = P (4.9e7 a GPU)
set -uo pipefail
app=${APP:-/tmp/app}
out=${OUT:-/tmp/out}
mkdir -p "$out"
. /tmp/rt/rt-env.sh
export LD_LIBRARY_PATH=$app/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
n_gpus=$(nvidia-smi -L | wc -l)
work=$(mktemp -d)
cd "$work"

if [ ! -f "$out/scaling_machine.txt" ]; then
  {
    nvidia-smi -L
    nvidia-smi topo -m
    echo "Open MPI: $(ompi_info --parsable --all 2>/dev/null |
      grep -iE 'cuda|ompi:version:full')"
  } > "$out/scaling_machine.txt" 2>&1
fi

# run P DEGREE MESH BOXES REFINEMENTS: one row, skipped beyond the GPUs.
run() {
  local p=$1 degree=$2 mesh=$3 boxes=$4 r=$5
  [ "$p" -le "$n_gpus" ] || return 0
  [[ " ${GPUS:-1 2 4 8} " == *" $p "* ]] || return 0
  # Unbound, so that each rank's host set-up is not held to one core.
  mpirun -np "$p" --bind-to none "$app/bin/scaling" --degree="$degree" \
    --mesh="$mesh" --boxes="$boxes" --refinements="$r" \
    --csv="$out/scaling.csv" --device=cuda < /dev/null 2>&1 |
    grep --line-buffered -v pmix >> "$out/scaling.txt"
  echo "P=$p Q$degree $mesh B=$boxes r=$r: rc=${PIPESTATUS[0]} $(date +%T)"
}

for step in "$@"; do
  case $step in
    small)
      for p in 1 2 4 8; do run $p 2 uniform $p 5; run $p 4 uniform $p 4; done ;;
    weak-q4)
      for p in 1 2 4 8; do run $p 4 uniform $p 5; run $p 4 adaptive $p 4; done ;;
    strong-q4)
      for p in 1 4 8; do run $p 4 uniform 2 5; done ;;
    weak-q2)
      for p in 1 2 4 8; do run $p 2 uniform $p 6; done ;;
    weak-q2-adaptive)
      for p in 1 2 4 8; do run $p 2 adaptive $p 5; done ;;
    *) echo "unknown step $step" ;;
  esac
done
