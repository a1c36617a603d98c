#!/usr/bin/env bash
# Development machine: builds every test program and the benchmarks, then
# packs them for the GPU machine (see ../../doc/gpu-machine.md):
#   .gpu/rt/rt-{1,2,3}.tar.xz  deal.II's runtime (../shared/tools/gpu-runtime-pack)
#   .gpu/app.tar.xz            our executables, libdealii-gpu, the expected
#                              outputs, numdiff and deal.II's normalize.pl
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
cd "$root"
[ -f "$build/CMakeCache.txt" ] || contrib/setup.sh "$build" ON

stage=$root/.gpu/app
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/expected"
: > "$stage/manifest"
targets=""
for out in tests/*/*.output; do
  area=$(basename "$(dirname "$out")")
  # The applications' tables are run by run_tests.sh from their .prm.
  [ "$area" = applications ] && continue
  file=$(basename "$out")
  # Every case of the heaviest tests runs here (CI compiles a subset).
  case "$file" in *with_gpu_full_tests=off*) continue ;; esac
  name=${file%%.*}
  n=$(echo "$file" | sed -n 's/.*mpirun=\([0-9]*\).*/\1/p')
  echo "$area/$name ${n:-0} $area/$file" >> "$stage/manifest"
  targets="$targets $area.$name.release"
done
targets=$(echo $targets | tr ' ' '\n' | sort -u | tr '\n' ' ')
# Every degree of the CEED benchmark (CI's build compiles one).
cmake -DDEAL_II_GPU_FULL_TESTS=ON -DDEAL_II_GPU_CEED_BPS_DEGREES="1;2;3;4;5;6;7;8" \
  -DDEAL_II_GPU_APPLICATION_CASES="2:1;2:2;2:3;2:4;3:1;3:2;3:3;3:4" "$build" > /dev/null
cmake --build "$build" -j"$(nproc)" --target $targets unit_tests vector_operations operator_throughput multigrid_solve multigrid_solve_cpu ceed_bps element_integration sparse_multigrid sparse_multigrid_cpu scaling kelly_estimator helmholtz poisson elasticity q2_kernel_designs
for t in $targets; do
  area=${t%%.*}; rest=${t#*.}; name=${rest%.release}
  mkdir -p "$stage/bin/$area" "$stage/expected/$area"
  cp "$build/tests/$area/$name.release/$name.release" "$stage/bin/$area/$name"
  cp tests/$area/$name*.output "$stage/expected/$area/"
done
cp "$build/tests/unit/unit_tests" "$build"/bin/* "$stage/bin/"
cp -P "$build"/lib/libdealii-gpu.so* "$stage/lib/"
cp "$(command -v numdiff)" "$stage/bin/"
cp /usr/share/deal.ii/scripts/normalize.pl "$stage/"
cp benchmarks/*.prm applications/*/*.prm "$stage/"
mkdir -p "$stage/expected/applications"
cp tests/applications/*.prm tests/applications/*.output "$stage/expected/applications/"
tar -C "$stage" -cJf "$root/.gpu/app.tar.xz" .
echo "app.tar.xz: $(du -h "$root/.gpu/app.tar.xz" | cut -f1)"

# The runtime archives are rebuilt only when the set of libraries changes.
# DEALII_GPU_SHARED names the workplace's shared folder for a checkout that
# does not sit beside it.
shared=${DEALII_GPU_SHARED:-$root/../shared}
LD_LIBRARY_PATH=$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  "$shared/tools/gpu-runtime-pack" "$root/.gpu/rt" "$stage/bin/unit_tests" \
  "$stage/bin/vector_operations" $(find "$stage/bin" -mindepth 2 -type f)
