#!/usr/bin/env bash
# GPU machine: runs benchmark steps of doc/benchmarks.md with the programs
# unpacked by run_tests.sh (/tmp/app) and deal.II's runtime (/tmp/rt);
# logs and CSV files go to $OUT.
#   contrib/gpu/run_benchmarks.sh STEP...
# Steps: uniform-low uniform-high (3D ball, double, Q1-4 / Q5-8, matrix-free
# with stored Jacobians, points and the merged tensor, and cuSPARSE), shell
# (matrix-free with hanging nodes; Jacobians and tensor), cells-per-block
# (Q1-Q3 with 1 to 32 cells per block), float, 2d, cpu (deal.II's CPU
# MatrixFree, one rank per core), large (Q4 matrix-free at 1.2e8 DoFs),
# large-low (geometry from points: Q2 at 1.2e8 and Q3 at 4e8 DoFs), helmholtz,
# overlap (2 ranks on 2 GPUs, with and without overlap of communication),
# field-low field-high (mapping field against points and Jacobians, Q1-4 /
# Q5-8, no cuSPARSE),
# field-large (mapping field alone: Q2 at 1.2e8 DoFs), q2-layouts (the
# standalone Q2 kernel-layout prototype against cuSPARSE), multigrid
# multigrid-double multigrid-cpu (CG + geometric multigrid on the ball:
# float and double V-cycle on the GPU, deal.II's multigrid and ML AMG on
# 16 CPU ranks), multigrid-options (coarse CG and AMG, Jacobi smoothing,
# p-coarsening), multigrid-geometry (stored Jacobians against the
# automatic geometry), multigrid-large (the largest Q2 problems),
# poisson poisson-mps (applications/poisson, the README's main job, on one
# rank and on RANKS=16 ranks sharing the GPU through MPS),
# setup (the set-up split of multigrid_solve and helmholtz), ceed ceed-cpu
# (the CEED benchmark problems BP1-BP6 on the GPU and on 16 CPU ranks),
# cpu-vs-gpu cpu-vs-gpu-cpu (each provided operation, Q1-Q8, on the GPU and
# on 16 CPU ranks; OPERATIONS picks some), time-to-solution
# time-to-solution-cpu (poisson and elasticity at about 1e7 DoFs),
# time-to-solution-mps (the same, helmholtz at 5.7e7 and multigrid_solve
# at 1.2e8 DoFs on RANKS=16 ranks sharing the GPU through MPS),
# time-to-solution-sweep
# time-to-solution-sweep-cpu (multigrid_solve from 2.3e5 to 1.2e8 DoFs on
# one rank and on 16 through MPS; deal.II's multigrid and ML AMG on 16 CPU
# ranks: the multigrid plot),
# element-integration element-integration-cpu (element matrices, CSR
# assembly and SpMV on the GPU; deal.II's FEValues assembly on 16 CPU ranks)
# element-integration-strategies (per point against reference tensor on
# affine cells), sparse-multigrid sparse-multigrid-cpu (Geveler et al.'s
# benchmark with GPU::SparseMatrixMultigrid: orderings and smoothers with
# the matrix-free times on the GPU; the host backend on 16 CPU ranks),
# sparse-multigrid-variants (smoothers, restriction kernels and coarse
# solvers at 1.8e6 DoFs), sparse-multigrid-orderings (orderings with
# Jacobi and SPAI(1), CSR and ELLPACK-R, at 1.8e6 DoFs), sparse-multigrid-3d sparse-multigrid-3d-cpu (the
# 3D plate: GPU with matrix-free times; ours and deal.II's on 16 ranks),
# sparse-multigrid-dealii (the same with deal.II's and Trilinos' classes on
# 16 CPU ranks: benchmarks/sparse_multigrid_cpu), kelly kelly-mps (Kelly's
# estimator, deal.II's against GPU::KellyErrorEstimator, Q2 and Q4 on one
# rank and on RANKS=16 ranks sharing the GPU through MPS).
set -uo pipefail
app=/tmp/app
out=${OUT:-/tmp/out}
mkdir -p "$out"
. /tmp/rt/rt-env.sh
export LD_LIBRARY_PATH=$app/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
cd "$work"

# prm NAME "key = value" ...: parameter file from the defaults plus changes.
prm() {
  local name=$1; shift
  cp "$app/operator_throughput.prm" "$name.prm"
  for setting in "$@"; do echo "set $setting" >> "$name.prm"; done
  echo "set Output file = $out/$name.csv" >> "$name.prm"
}
bench() { # name, settings...
  local name=$1
  prm "$@"
  "$app/bin/operator_throughput" "$name.prm" --device=cuda > "$out/$name.txt" 2>&1
  echo "$name: rc=$? $(grep -c DoFs/s "$out/$name.txt") rows"
}

# An MPS daemon of our own, so that ranks sharing the GPU run their kernels
# at the same time instead of taking turns; stopped on exit.
mps_start() {
  export CUDA_MPS_PIPE_DIRECTORY=$work/mps CUDA_MPS_LOG_DIRECTORY=$work/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d || { echo "no MPS: nvidia-cuda-mps-control failed"; return 1; }
  trap mps_stop EXIT
}
mps_stop() {
  echo quit | nvidia-cuda-mps-control 2>/dev/null
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  trap - EXIT
}

for step in "$@"; do
  case $step in
    uniform-low)
      bench uniform_q1-4 "Degrees = 1, 2, 3, 4" "Max DoFs = 1e7" "Max DoFs sparse = 4e6" "Repetitions = 10" "Geometry = jacobians, points, tensor" ;;
    uniform-high)
      bench uniform_q5-8 "Degrees = 5, 6, 7, 8" "Max DoFs = 1e7" "Max DoFs sparse = 4e6" "Repetitions = 10" "Geometry = jacobians, points, tensor" ;;
    shell)
      bench shell "Refinement = shell" "Implementations = gpu" "Max DoFs = 1e7" "Repetitions = 10" "Geometry = jacobians, tensor" ;;
    cells-per-block)
      for cpb in 1 2 4 8 16 32; do
        bench cells_per_block_$cpb "Degrees = 1, 2, 3" "Implementations = gpu" "Min DoFs = 7e5" "Max DoFs = 7e6" "Cells per block = $cpb" "Repetitions = 10"
      done ;;
    large)
      bench large_q4 "Degrees = 4" "Implementations = gpu" "Min DoFs = 1e8" "Max DoFs = 1.3e8" "Repetitions = 5" ;;
    large-low)
      bench large_q2-3 "Degrees = 2, 3" "Implementations = gpu" "Geometry = points" "Min DoFs = 1e8" "Max DoFs = 4.5e8" "Repetitions = 5" ;;
    q2-layouts)
      "$app/bin/q2_kernel_designs" 128 > "$out/q2_kernel_designs.txt" 2>&1
      echo "q2-layouts: rc=$?"
      mv q2_kernel_designs.csv "$out/" ;;
    field-low)
      bench field_q1-4 "Degrees = 1, 2, 3, 4" "Implementations = gpu" "Max DoFs = 1e7" "Repetitions = 10" "Geometry = field, points, jacobians" ;;
    field-high)
      bench field_q5-8 "Degrees = 5, 6, 7, 8" "Implementations = gpu" "Max DoFs = 1e7" "Repetitions = 10" "Geometry = field, points, jacobians" ;;
    field-large)
      bench field_large_q2 "Degrees = 2" "Implementations = gpu" "Geometry = field" "Min DoFs = 1e8" "Max DoFs = 1.3e8" "Repetitions = 5" ;;
    overlap)
      # Two ranks, one GPU each (nvidia-h200-x2): with and without overlap.
      for o in true false; do
        prm overlap_$o "Degrees = 2, 4" "Implementations = gpu" "Min DoFs = 1e6" "Max DoFs = 2e7" "Repetitions = 10" "Overlap communication = $o"
        mpirun -np 2 "$app/bin/operator_throughput" overlap_$o.prm --device=cuda > "$out/overlap_$o.txt" 2>&1
        echo "overlap_$o: rc=$? $(grep -c DoFs/s "$out/overlap_$o.txt") rows"
      done ;;
    float)
      bench float "Number types = float" "Max DoFs = 1e7" "Max DoFs sparse = 4e6" "Repetitions = 10" "Geometry = jacobians, tensor" ;;
    2d)
      bench 2d "Dimension = 2" "Max DoFs = 5e6" "Max DoFs sparse = 4e6" "Repetitions = 10" ;;
    cpu)
      cp "$app/cpu.prm" cpu.prm
      echo "set Output file = $out/cpu16.csv" >> cpu.prm
      mpirun -np 16 --bind-to core "$app/bin/operator_throughput" cpu.prm --device=host > "$out/cpu16.txt" 2>&1
      echo "cpu: rc=$?" ;;
    helmholtz)
      cp "$app/helmholtz.prm" h.prm
      sed -i 's/^set Refinements .*/set Refinements = 3, 4, 5, 6, 7/' h.prm
      "$app/bin/helmholtz" h.prm --device=cuda > "$out/helmholtz.txt" 2>&1
      echo "helmholtz: rc=$?" ;;
    multigrid)
      # CG + GPU::MultigridPreconditioner, Q2 and Q4, uniform and adaptive,
      # float V-cycle (about 6 minutes on an H100).
      for degree in 2 4; do
        for mesh in uniform adaptive; do
          "$app/bin/multigrid_solve" --degree=$degree --mesh=$mesh \
            --refinements=2,3,4,5 --device=cuda > "$out/mg_q${degree}_$mesh.txt" 2>&1
          echo "multigrid Q$degree $mesh: rc=$?"
          mv multigrid_solve.csv "$out/mg_q${degree}_$mesh.csv"
        done
      done ;;
    multigrid-double)
      # The double V-cycle against the float one, uniform meshes.
      for degree in 2 4; do
        "$app/bin/multigrid_solve" --degree=$degree --vcycle=double \
          --refinements=2,3,4,5 --device=cuda > "$out/mg_q${degree}_double.txt" 2>&1
        echo "multigrid Q$degree double: rc=$?"
        mv multigrid_solve.csv "$out/mg_q${degree}_double.csv"
      done ;;
    multigrid-options)
      # The choices of GPU::MultigridData against the default (Chebyshev
      # smoother and coarse solver), uniform ball, Q2 and Q4 up to 1.5e7 DoFs
      # (about 7 minutes on an H100).
      for degree in 2 4; do
        for option in --coarse=chebyshev --coarse=cg --coarse=amg \
                      "--smoother=jacobi --smoothing-degree=6" \
                      --p-coarsening; do
          name=$(echo $option | sed -e 's/--//g' -e 's/[= ]/_/g')
          "$app/bin/multigrid_solve" --degree=$degree $option \
            --refinements=4,5,6 --device=cuda > "$out/mg_q${degree}_$name.txt" 2>&1
          echo "multigrid Q$degree $option: rc=$?"
          mv multigrid_solve.csv "$out/mg_q${degree}_$name.csv"
        done
      done ;;
    multigrid-geometry)
      # Stored Jacobians against the automatic geometry (the mapping field
      # at Q2 where no hanging nodes are) on the fine operator and every
      # level, uniform ball (about 4 minutes on an H100).
      for degree in 2 4; do
        for geometry in jacobians automatic; do
          "$app/bin/multigrid_solve" --degree=$degree --geometry=$geometry \
            --refinements=4,5,6 --device=cuda > "$out/mg_q${degree}_$geometry.txt" 2>&1
          echo "multigrid Q$degree $geometry: rc=$?"
          mv multigrid_solve.csv "$out/mg_q${degree}_$geometry.csv"
        done
      done ;;
    ceed|ceed-cpu|ceed-large)
      # CEED BP1-BP6 (CEED_BPS, default all), degrees 1-8, CG with the
      # diagonal, 50 iterations: on the GPU up to 2e7 DoFs, on 16 CPU ranks
      # up to 3e6, and ceed-large: BP5 and BP6 at k = 7 up to 1.2e8.
      bps=${CEED_BPS:-1,2,3,4,5,6}
      case $step in
        ceed) run="$app/bin/ceed_bps --backend=gpu --max-dofs=2e7 --device=cuda" ;;
        ceed-large) bps=5,6; run="$app/bin/ceed_bps --backend=gpu --degrees=7 --min-dofs=2e7 --max-dofs=1.2e8 --device=cuda" ;;
        ceed-cpu) run="mpirun -np 16 --bind-to core $app/bin/ceed_bps --backend=cpu --max-dofs=3e6 --device=host" ;;
      esac
      name=${step//-/_}_bp${bps//,/}
      $run --bps=$bps > "$out/$name.txt" 2>&1
      echo "$step BP $bps: rc=$? $(grep -c '^BP' "$out/$name.txt") rows"
      for f in ceed_bps_*.csv; do mv "$f" "$out/${name}.csv"; done ;;
    cpu-vs-gpu|cpu-vs-gpu-cpu)
      # Operator applications of each provided operation, degrees 1-8: on
      # the GPU at 2e6 to 8e6 DoFs, on 16 CPU ranks at 1e6 to 4e6 (their
      # rate no longer depends on the size there);
      # benchmarks/join_cpu_vs_gpu.py joins the two CSVs.
      ops=${OPERATIONS:-laplace,mass,helmholtz,conv-diff,elasticity}
      if [ $step = cpu-vs-gpu ]; then
        run="$app/bin/cpu_vs_gpu --backend=gpu --device=cuda --min-dofs=2e6 --max-dofs=8e6"
      else
        run="mpirun -np 16 --bind-to core $app/bin/cpu_vs_gpu --backend=cpu --device=host --min-dofs=1e6 --max-dofs=4e6"
      fi
      name=${step//-/_}_${ops//,/_}
      $run --operations=$ops > "$out/$name.txt" 2>&1
      echo "$step $ops: rc=$? $(grep -c 'e+' "$out/$name.txt") rows"
      for f in cpu_vs_gpu_*.csv; do mv "$f" "$out/${name}.csv"; done ;;
    time-to-solution|time-to-solution-cpu)
      # Set-up and solve of poisson (Q2 ball, 6 refinements, 1.5e7 DoFs, one
      # cycle) and elasticity (Q2, 5 refinements, 6.5e6 DoFs), multigrid, on
      # the GPU or on deal.II's MatrixFree with 16 CPU ranks.
      if [ $step = time-to-solution ]; then
        backend=gpu; launch=""; device=cuda
      else
        backend=cpu; launch="mpirun -np 16 --bind-to core"; device=host
      fi
      sed -e 's/^set Initial refinements .*/set Initial refinements = 6/' \
          -e 's/^set Cycles .*/set Cycles = 1/' -e "s/^set Backend .*/set Backend = $backend/" \
          -e 's/^set Write VTU .*/set Write VTU = false/' "$app/poisson.prm" > p.prm
      $launch "$app/bin/poisson" p.prm --device=$device > "$out/time_to_solution_poisson_$backend.txt" 2>&1
      echo "$step poisson: rc=$?"
      sed -e 's/^set Refinements .*/set Refinements = 5/' -e "s/^set Backend .*/set Backend = $backend/" \
          -e 's/^set Write VTU .*/set Write VTU = false/' "$app/elasticity.prm" > e.prm
      $launch "$app/bin/elasticity" e.prm --device=$device > "$out/time_to_solution_elasticity_$backend.txt" 2>&1
      echo "$step elasticity: rc=$?" ;;
    time-to-solution-mps)
      # The same problems, helmholtz (Q3 cube, 5.7e7 DoFs) and
      # multigrid_solve (Q2 with a in the kernels, Q4; 1.18e8 DoFs) on RANKS
      # ranks sharing the GPU through MPS: deal.II's set-up split by ranks.
      n=${RANKS:-16}
      mps_start || continue
      # Unbound: a rank's set-up threads use the cores other ranks leave.
      launch="mpirun -np $n --bind-to none"
      sed -e 's/^set Initial refinements .*/set Initial refinements = 6/' \
          -e 's/^set Cycles .*/set Cycles = 1/' -e 's/^set Backend .*/set Backend = gpu/' \
          -e 's/^set Write VTU .*/set Write VTU = false/' "$app/poisson.prm" > p.prm
      $launch "$app/bin/poisson" p.prm --device=cuda > "$out/time_to_solution_poisson_mps$n.txt" 2>&1
      echo "$step poisson: rc=$?"
      sed -e 's/^set Refinements .*/set Refinements = 5/' -e 's/^set Backend .*/set Backend = gpu/' \
          -e 's/^set Write VTU .*/set Write VTU = false/' "$app/elasticity.prm" > e.prm
      $launch "$app/bin/elasticity" e.prm --device=cuda > "$out/time_to_solution_elasticity_mps$n.txt" 2>&1
      echo "$step elasticity: rc=$?"
      sed -e 's/^set Refinements .*/set Refinements = 7/' -e 's/^set Backend .*/set Backend = gpu/' \
          -e 's/^set Write VTU .*/set Write VTU = false/' "$app/helmholtz.prm" > h.prm
      $launch "$app/bin/helmholtz" h.prm --device=cuda > "$out/time_to_solution_helmholtz_mps$n.txt" 2>&1
      echo "$step helmholtz: rc=$?"
      for args in "--degree=2 --refinements=7 --coefficient=kernel" "--degree=4 --refinements=6"; do
        name=time_to_solution_mg_q${args:9:1}_mps$n
        $launch "$app/bin/multigrid_solve" $args --device=cuda > "$out/$name.txt" 2>&1
        echo "$step multigrid_solve $args: rc=$?"
        mv multigrid_solve.csv "$out/$name.csv"
      done
      mps_stop ;;
    multigrid-large)
      # The largest Q2 problems: the uniform ball refined 7 times (1.2e8
      # DoFs, one rank), and refined once more inside |x| < 0.62 (3.2e8
      # DoFs) with the mapping field on the fine operator too, deal.II's
      # set-up on 4 ranks sharing the GPU.
      /usr/bin/time -f "wall %e s, peak host memory %M KB" \
        "$app/bin/multigrid_solve" --degree=2 --refinements=7 \
        --device=cuda > "$out/mg_q2_large_uniform.txt" 2>&1
      echo "multigrid Q2 r7 uniform: rc=$?"
      mv multigrid_solve.csv "$out/mg_q2_large_uniform.csv"
      /usr/bin/time -f "wall %e s, peak host memory %M KB" \
        mpirun -np 4 "$app/bin/multigrid_solve" --degree=2 --refinements=7 \
        --mesh=adaptive --refine-radii=0.62 --geometry=field \
        --device=cuda > "$out/mg_q2_largest.txt" 2>&1
      echo "multigrid Q2 largest: rc=$?"
      mv multigrid_solve.csv "$out/mg_q2_largest.csv" ;;
    multigrid-cpu)
      # The same problems on deal.II's CPU (16 ranks): its MatrixFree
      # multigrid and Trilinos ML AMG.
      for degree in 2 4; do
        for solver in gmg amg; do
          refinements=2,3,4,5
          [ $solver = amg ] && refinements=2,3,4
          mpirun -np 16 --bind-to core "$app/bin/multigrid_solve_cpu" --degree=$degree \
            --solver=$solver --refinements=$refinements > "$out/cpu_q${degree}_$solver.txt" 2>&1
          echo "multigrid-cpu Q$degree $solver: rc=$?"
          mv multigrid_solve_cpu.csv "$out/cpu_q${degree}_$solver.csv"
        done
      done ;;
    time-to-solution-sweep)
      # Time to solution over the sizes, 2.3e5 to 1.18e8 DoFs: Q2 with a in
      # the kernels (GPU::MatrixFreeMultigrid) and Q4 with a stored
      # (GPU::MultigridPreconditioner) on one rank, then on RANKS=16 ranks
      # sharing the GPU through MPS (the plot of doc/benchmarks.md).
      for args in "--degree=2 --refinements=4,5,6 --coefficient=kernel" \
          "--degree=4 --refinements=3,4,5,6"; do
        name=sweep_q${args:9:1}_1
        "$app/bin/multigrid_solve" $args --device=cuda > "$out/$name.txt" 2>&1
        echo "$step $args: rc=$?"
        mv multigrid_solve.csv "$out/$name.csv"
      done
      n=${RANKS:-16}
      mps_start || continue
      for args in "--degree=2 --refinements=4,5,6,7 --coefficient=kernel" \
          "--degree=4 --refinements=3,4,5,6" \
          "--degree=4 --refinements=6 --coefficient=kernel"; do
        name=sweep_q${args:9:1}_mps$n
        [ "${args: -6}" = kernel ] && [ "${args:9:1}" = 4 ] && name=${name}_kernel
        mpirun -np $n --bind-to none "$app/bin/multigrid_solve" $args --device=cuda > "$out/$name.txt" 2>&1
        echo "$step $args (MPS): rc=$?"
        mv multigrid_solve.csv "$out/$name.csv"
      done
      mps_stop ;;
    time-to-solution-sweep-cpu)
      # The CPU side of time-to-solution-sweep: deal.II's multigrid (16
      # ranks) at the same sizes, ML AMG at Q2 up to 1.47e7 DoFs (36 GB of
      # host memory there: 1.18e8 would need about 280 GB).
      for args in "--degree=2 --refinements=4,5,6,7 --solver=gmg" \
          "--degree=4 --refinements=3,4,5,6 --solver=gmg" \
          "--degree=2 --refinements=4,5,6 --solver=amg"; do
        name=sweep_cpu_q${args:9:1}_${args: -3}
        mpirun -np 16 --bind-to core "$app/bin/multigrid_solve_cpu" $args > "$out/$name.txt" 2>&1
        echo "$step $args: rc=$?"
        mv multigrid_solve_cpu.csv "$out/$name.csv"
      done ;;
    setup)
      # Set-up split (doc/benchmarks.md, set-up): multigrid_solve Q2 and Q4
      # on the ball, helmholtz Q3 on the cube up to 5.7e7 DoFs (about 6
      # minutes on an H100).
      for degree in 2 4; do
        /usr/bin/time -f "wall %e s, peak host memory %M KB" \
          "$app/bin/multigrid_solve" --degree=$degree --refinements=3,4,5,6 \
          --device=cuda > "$out/setup_q$degree.txt" 2>&1
        echo "setup Q$degree: rc=$?"
        mv multigrid_solve.csv "$out/setup_q$degree.csv"
      done
      sed -e 's/^set Refinements .*/set Refinements = 5, 6, 7/' \
          -e 's/^set Write VTU .*/set Write VTU = false/' "$app/helmholtz.prm" > h.prm
      /usr/bin/time -f "wall %e s, peak host memory %M KB" \
        "$app/bin/helmholtz" h.prm --device=cuda > "$out/setup_helmholtz.txt" 2>&1
      echo "setup helmholtz: rc=$?"
      # deal.II's part of the set-up on 8 ranks sharing the one GPU.
      mpirun -np 8 "$app/bin/multigrid_solve" --degree=2 --refinements=6 \
        --device=cuda > "$out/setup_q2_np8.txt" 2>&1
      echo "setup Q2 8 ranks: rc=$?"
      mv multigrid_solve.csv "$out/setup_q2_np8.csv" ;;
    element-integration-strategies)
      # Affine cells (sheared cube, MappingQ(1)), constant coefficients:
      # the per-point and the reference-tensor strategies side by side
      # (CONFIGS="form:k:r ..." overrides).
      configs=${CONFIGS:-"laplace:1:7 laplace:2:6 laplace:3:5 laplace:4:4 elasticity:1:6 elasticity:2:5 laplace:1:10:q:2 laplace:4:8:q:2"}
      for c in $configs; do
        set -- ${c//:/ }
        for strategy in points tensor; do
          $app/bin/element_integration --backend=gpu --device=cuda \
            --mesh=cube --strategy=$strategy --forms=$1 --degrees=$2 \
            --cells-per-team=${CELLS_PER_TEAM:-0} \
            --refinements=$3 --element=${4:-q} --dim=${5:-3} \
            --csv=strategies.csv >> "$out/element_integration_strategies.txt" 2>&1
          echo "$step $c $strategy: rc=$?"
          [ -f strategies.csv ] || continue
          [ -f "$out/element_integration_strategies.csv" ] || head -1 strategies.csv > "$out/element_integration_strategies.csv"
          tail -n +2 strategies.csv >> "$out/element_integration_strategies.csv"; rm strategies.csv
        done
      done ;;
    sparse-multigrid)
      for args in "--degrees=1 --refinements=5,6,7,8" "--degrees=2 --refinements=4,5,6,7"; do
        $app/bin/sparse_multigrid --device=cuda $args --orderings=none,cm,xyz,random,hie,2lv \
          --smoothers=jacobi,spai0,spai --matrix-free --csv=smg.csv >> "$out/sparse_multigrid.txt" 2>&1
        echo "$step $args: rc=$?"
        [ -f "$out/sparse_multigrid.csv" ] || head -1 smg.csv > "$out/sparse_multigrid.csv"
        tail -n +2 smg.csv >> "$out/sparse_multigrid.csv"; rm -f smg.csv
      done ;;
    sparse-multigrid-cpu)
      for args in "--degrees=1 --refinements=5,6,7,8" "--degrees=2 --refinements=4,5,6,7"; do
        mpirun -np 16 --bind-to core $app/bin/sparse_multigrid --device=host $args \
          --orderings=none,cm --smoothers=jacobi,spai0,spai --csv=smg.csv >> "$out/sparse_multigrid_cpu.txt" 2>&1
        echo "$step $args: rc=$?"
        [ -f "$out/sparse_multigrid_cpu.csv" ] || head -1 smg.csv > "$out/sparse_multigrid_cpu.csv"
        tail -n +2 smg.csv >> "$out/sparse_multigrid_cpu.csv"; rm -f smg.csv
      done ;;
    sparse-multigrid-orderings)
      # At 1.8e6 DoFs: every ordering with Jacobi and SPAI(1), CSR (ours)
      # and ELLPACK-R.
      for args in "--degrees=1 --refinements=8" "--degrees=2 --refinements=7"; do
        $app/bin/sparse_multigrid --device=cuda $args --orderings=none,cm,xyz,random,hie,2lv \
          --smoothers=jacobi,spai --spmv=csr,ellpack --csv=smg.csv >> "$out/sparse_multigrid_orderings.txt" 2>&1
        echo "$step $args: rc=$?"
        [ -f "$out/sparse_multigrid_orderings.csv" ] || head -1 smg.csv > "$out/sparse_multigrid_orderings.csv"
        tail -n +2 smg.csv >> "$out/sparse_multigrid_orderings.csv"; rm -f smg.csv
      done ;;
    sparse-multigrid-variants)
      # At 1.8e6 DoFs: smoothers, restriction kernels, coarse solvers.
      for args in "--degrees=1 --refinements=8" "--degrees=2 --refinements=7"; do
        for v in "--smoothers=jacobi,spai0,spai --restriction=stored,transposed" "--smoothers=jacobi,spai --coarse=direct"; do
          $app/bin/sparse_multigrid --device=cuda $args $v --csv=smg.csv >> "$out/sparse_multigrid_variants.txt" 2>&1
          echo "$step $args $v: rc=$?"
          [ -f "$out/sparse_multigrid_variants.csv" ] || head -1 smg.csv > "$out/sparse_multigrid_variants.csv"
          tail -n +2 smg.csv >> "$out/sparse_multigrid_variants.csv"; rm -f smg.csv
        done
      done ;;
    sparse-multigrid-3d|sparse-multigrid-3d-cpu)
      # The 3D plate with a hole: GPU with the matrix-free times, or 16 CPU
      # ranks (ours, host backend, and deal.II's sparse_multigrid_cpu).
      for args in "--degrees=1 --refinements=3,4,5,6" "--degrees=2 --refinements=2,3,4,5"; do
        sm="--smoothers=jacobi,spai0,spai"
        if [ $step = sparse-multigrid-3d ]; then
          $app/bin/sparse_multigrid --device=cuda --dim=3 $args $sm --matrix-free --csv=smg.csv >> "$out/$step.txt" 2>&1
        else
          args=${args%,*}
          mpirun -np 16 --bind-to core $app/bin/sparse_multigrid --device=host --dim=3 $args $sm --csv=smg.csv >> "$out/$step.txt" 2>&1
          mpirun -np 16 --bind-to core $app/bin/sparse_multigrid_cpu --dim=3 $args --csv=d.csv >> "$out/${step}_dealii.txt" 2>&1
          [ -f "$out/${step}_dealii.csv" ] || head -1 d.csv > "$out/${step}_dealii.csv"
          tail -n +2 d.csv >> "$out/${step}_dealii.csv"; rm -f d.csv
        fi
        echo "$step $args: rc=$?"
        [ -f "$out/$step.csv" ] || head -1 smg.csv > "$out/$step.csv"
        tail -n +2 smg.csv >> "$out/$step.csv"; rm -f smg.csv
      done ;;
    sparse-multigrid-dealii)
      # The same problem and algorithm with deal.II's classes (Trilinos
      # level matrices, MGTransferPrebuilt, double V-cycle), 16 ranks.
      for args in "--degrees=1 --refinements=5,6,7,8,9" "--degrees=2 --refinements=4,5,6,7,8"; do
        mpirun -np 16 --bind-to core $app/bin/sparse_multigrid_cpu $args \
          --orderings=none,cm --csv=smg.csv >> "$out/sparse_multigrid_dealii.txt" 2>&1
        echo "$step $args: rc=$?"
        [ -f "$out/sparse_multigrid_dealii.csv" ] || head -1 smg.csv > "$out/sparse_multigrid_dealii.csv"
        tail -n +2 smg.csv >> "$out/sparse_multigrid_dealii.csv"; rm -f smg.csv
      done ;;
    element-integration|element-integration-cpu)
      # Ball, MappingQ(2), one shell refinement: Laplace Q1-Q7, elasticity
      # Q1-Q2, mass, convection-diffusion, FE_DGQ and 2D, each at the
      # largest size whose matrix stays under 2^31 entries on one rank
      # (CONFIGS="form:k:r[:element[:dim]] ..." overrides; element q|dgq).
      if [ $step = element-integration ]; then
        run="$app/bin/element_integration --backend=gpu --device=cuda"
      else
        run="mpirun -np 16 --bind-to core $app/bin/element_integration --backend=cpu --device=host"
      fi
      name=${step//-/_}
      configs=${CONFIGS:-"laplace:1:6 laplace:2:5 laplace:3:4 laplace:4:4 laplace:5:3 laplace:6:2 laplace:7:1 elasticity:1:5 elasticity:2:4 mass:2:5 convection-diffusion:2:5 laplace:2:5:dgq laplace:2:8:q:2 laplace:4:7:q:2"}
      for c in $configs; do
        set -- ${c//:/ }
        $run --forms=$1 --degrees=$2 --refinements=$3 --element=${4:-q} \
          --dim=${5:-3} --csv=$name.csv >> "$out/$name.txt" 2>&1
        echo "$step $c: rc=$?"
        [ -f $name.csv ] || continue
        [ -f "$out/$name.csv" ] || head -1 $name.csv > "$out/$name.csv"
        tail -n +2 $name.csv >> "$out/$name.csv"; rm $name.csv
      done ;;
    poisson)
      sed -e 's/^set Initial refinements .*/set Initial refinements = 3/' \
          -e 's/^set Cycles .*/set Cycles = 7/' "$app/poisson.prm" > p.prm
      "$app/bin/poisson" p.prm --device=cuda > "$out/poisson.txt" 2>&1
      echo "poisson: rc=$?" ;;
    poisson-mps)
      # The main job as contrib/run_main.sh runs it: RANKS=16 ranks sharing
      # the GPU through MPS.
      n=${RANKS:-16}
      mps_start || continue
      sed -e 's/^set Initial refinements .*/set Initial refinements = 3/' \
          -e 's/^set Cycles .*/set Cycles = 7/' "$app/poisson.prm" > p.prm
      mpirun -np $n --bind-to none "$app/bin/poisson" p.prm --device=cuda > "$out/poisson_mps$n.txt" 2>&1
      echo "poisson-mps: rc=$?"
      mps_stop ;;
    kelly)
      for k in 2 4; do
        r=$([ $k = 2 ] && echo 2,3,4 || echo 2,3)
        "$app/bin/kelly_estimator" --degree=$k --refinements=$r --device=cuda >> "$out/kelly_estimator.txt" 2>&1
        echo "kelly Q$k: rc=$?"
        mv kelly_estimator.csv "$out/kelly_estimator_q$k.csv"
      done ;;
    kelly-mps)
      n=${RANKS:-16}
      mps_start || continue
      for k in 2 4; do
        r=$([ $k = 2 ] && echo 2,3,4,5 || echo 2,3,4)
        mpirun -np $n --bind-to none "$app/bin/kelly_estimator" --degree=$k --refinements=$r --device=cuda >> "$out/kelly_estimator_mps$n.txt" 2>&1
        echo "kelly-mps Q$k: rc=$?"
        mv kelly_estimator.csv "$out/kelly_estimator_q${k}_mps$n.csv"
      done
      mps_stop ;;
    *) echo "unknown step $step" ;;
  esac
done
