#!/usr/bin/env bash
# GPU machine: runs every deal.II-style test program on the CUDA backend and
# compares its output with the same .output file CI uses (deal.II's
# normalize.pl and numdiff tolerances), then the unit tests. Run from the
# repository root after contrib/gpu/pack.sh. Logs go to /tmp/gpu-out; the
# summary and one archive of all logs (gpu-test-logs.tar.gz) go to $OUT.
#   SANITIZE=1 also runs compute-sanitizer (memcheck, racecheck) on the team
#   kernel, vector, matrix-free and transfer tests (SANITIZE_TESTS="area/name ..."
#   picks others).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
rt=${RT:-/tmp/rt}
app=${APP:-/tmp/app}
logs=/tmp/gpu-out
rm -rf "$logs"; mkdir -p "$logs"
if [ ! -f "$rt/rt-env.sh" ]; then
  mkdir -p "$rt"
  for a in .gpu/rt/rt-*.tar.xz; do tar -xJf "$a" -C "$rt"; done
fi
if [ -f .gpu/app.tar.xz ]; then
  rm -rf "$app"; mkdir -p "$app"; tar -xJf .gpu/app.tar.xz -C "$app"
fi
# shellcheck disable=SC1091
. "$rt/rt-env.sh"
export LD_LIBRARY_PATH=$app/lib:$LD_LIBRARY_PATH
export DEALII_GPU_DEVICE=cuda
nvidia-smi -L || true

passed=0; failed=0; table=""
while read -r test n expected; do
  dir=$(mktemp -d)
  label=$test; [ "$n" = 0 ] || label="$test.mpirun=$n"
  start=$(date +%s.%N)
  if [ "$n" = 0 ]; then
    (cd "$dir" && "$app/bin/$test" < /dev/null > stdout 2>&1); rc=$?
  else
    (cd "$dir" && mpirun -np "$n" "$app/bin/$test" < /dev/null > stdout 2>&1); rc=$?
  fi
  t=$(awk "BEGIN {print $(date +%s.%N) - $start}")
  [ -f "$dir/output" ] || cp "$dir/stdout" "$dir/output"
  perl -pi "$app/normalize.pl" "$dir/output"
  result=FAILED
  if [ $rc = 0 ] && "$app/bin/numdiff" -q -a 1e-6 -r 1e-8 -s ' \t\r\n=,:;<>[](){}^' \
       "$app/expected/$expected" "$dir/output" > "$dir/diff" 2>&1; then
    result=passed; passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  safe=$(echo "$label" | tr '/=' '__')
  cat "$dir/stdout" "$dir/output" "$dir/diff" > "$logs/$safe.log" 2>/dev/null
  grep -m1 "backend" "$dir/stdout" > "$dir/backend" || echo "-" > "$dir/backend"
  table="$table$(printf '%-40s %-7s %6.1fs  %s' "$label" "$result" "$t" "$(cut -c1-60 "$dir/backend")")\n"
  rm -rf "$dir"
done < "$app/manifest"

# The applications' small runs: the table (lines starting with '|') must
# match tests/applications/<name>.output, as in CI's ctest.
for prm in "$app"/expected/applications/*.prm; do
  name=$(basename "$prm" .prm)
  dir=$(mktemp -d)
  start=$(date +%s.%N)
  (cd "$dir" && "$app/bin/$name" "$prm" < /dev/null > stdout 2>&1); rc=$?
  t=$(awk "BEGIN {print $(date +%s.%N) - $start}")
  grep '^|' "$dir/stdout" > "$dir/table"
  result=FAILED
  if [ $rc = 0 ] && "$app/bin/numdiff" -q -a 1e-10 -r 1e-5 -s ' \t\n|' \
       "$app/expected/applications/$name.output" "$dir/table" > "$dir/diff" 2>&1; then
    result=passed; passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  cat "$dir/stdout" "$dir/diff" > "$logs/applications_$name.log" 2>/dev/null
  table="$table$(printf '%-40s %-7s %6.1fs' "applications/$name" "$result" "$t")\n"
  rm -rf "$dir"
done

for run in "1" "3"; do
  if [ "$run" = 1 ]; then
    "$app/bin/unit_tests" < /dev/null > "$logs/unit_serial.log" 2>&1; rc=$?
  else
    mpirun -np 3 "$app/bin/unit_tests" --gtest_filter='GhostExchange*:VectorOps*' \
      < /dev/null > "$logs/unit_mpirun3.log" 2>&1; rc=$?
  fi
  if [ $rc = 0 ]; then result=passed; passed=$((passed + 1)); else result=FAILED; failed=$((failed + 1)); fi
  table="$table$(printf '%-40s %-7s' "unit (gtest) ranks=$run" "$result")\n"
done

if [ "${SANITIZE:-0}" = 1 ]; then
  for tool in memcheck racecheck; do
    for test in ${SANITIZE_TESTS:-base/team_kernels lac/vector_operations matrix_free/laplace_vs_cpu matrix_free/diagonal_vs_cpu matrix_free/laplace_vs_sparse_matrix matrix_free/hanging_nodes_vs_cpu multigrid/transfer_vs_cpu multigrid/level_geometry_from_system}; do
      dir=$(mktemp -d)
      (cd "$dir" && compute-sanitizer --tool $tool --error-exitcode 9 "$app/bin/$test" < /dev/null > "$logs/sanitizer_${tool}_${test//\//_}.log" 2>&1); rc=$?
      if [ $rc = 0 ]; then result=passed; passed=$((passed + 1)); else result=FAILED; failed=$((failed + 1)); fi
      table="$table$(printf '%-40s %-7s' "compute-sanitizer $tool $test" "$result")\n"
      rm -rf "$dir"
    done
  done
fi

printf '\n%b' "$table" | tee "$logs/summary.txt"
echo "gpu: $passed passed, $failed failed" | tee -a "$logs/summary.txt"
if [ -n "${OUT:-}" ]; then
  cp "$logs/summary.txt" "$OUT/gpu-test-summary.txt"
  tar -C "$logs" -czf "$OUT/gpu-test-logs.tar.gz" .
fi
[ $failed = 0 ]
