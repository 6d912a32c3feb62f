#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/device/README.md): the GPU test labels and the GPU
# benchmarks from a build tree made on the development machine. Summary table last.
#   bash scripts/gpu_run.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:-build-gpu}
out=${2:-/tmp/gpu-out}
mkdir -p "$out"
source .device/gpu-env.sh "$build"
bash scripts/link_configured_cmake.sh "$build"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
clinfo -l
"$build"/tools/portsolve info
summary=()
for label in ${LABELS:-opencl}; do
  ctest --test-dir "$build" -L "$label" --output-on-failure -j4 > "$out/ctest-$label.log" 2>&1
  summary+=("ctest -L $label: $(grep -E 'tests passed' "$out/ctest-$label.log")")
  grep -E "Failed|CHECK" "$out/ctest-$label.log" | head -20
done
# compute-sanitizer memcheck over the given cuda test programs (once; it is slow)
for prog in ${MEMCHECK:-}; do
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  PORTSOLVE_BACKEND_PATH="$PWD/$build" timeout 300 "$sanitizer" --tool memcheck --leak-check full \
    --error-exitcode 9 "$build"/tests/$prog --backend cuda > "$out/memcheck-$prog.log" 2>&1
  summary+=("memcheck $prog: rc=$? $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$out/memcheck-$prog.log" | tr '\n' ' ')")
  tail -3 "$out/memcheck-$prog.log"
done
for spec in ${BENCH:-}; do # spec: backend:level:precision:sizes[:reference[:method]]
  IFS=: read -r backend level precision sizes reference method <<<"$spec"
  method=${method:-lu}
  name="bench-$method-$backend-$level-$precision${reference:+-$reference}"
  "$build"/bench/portsolve-bench --method "$method" --backend "$backend" --level "$level" \
    --precision "$precision" \
    ${reference:+--reference "$reference"} --sizes "$sizes" --repeats "${REPEATS:-3}" \
    --csv "$out/$name.csv" > "$out/$name.txt" 2>&1
  cat "$out/$name.txt"
  summary+=("$name: $(tail -n +6 "$out/$name.txt" | awk '{printf "n=%s ratio=%s; ", $1, $6}')")
done
for spec in ${ITER:-}; do # spec: backend:precision:sizes:cpu_max (portsolve-bench-iter)
  IFS=: read -r backend precision sizes cpu_max <<<"$spec"
  name="bench-iter-$backend-$precision"
  "$build"/bench/portsolve-bench-iter --backend "$backend" --precision "$precision" \
    --sizes "$sizes" --cpu-max "${cpu_max:-10000}" --csv "$out/$name.csv" > "$out/$name.txt" 2>&1
  cat "$out/$name.txt"
  summary+=("$name: $(grep -E '^(cg|gmres) ' "$out/$name.txt" | awk '{printf "%s n=%s x%s %sGB/s mv %sGB/s (gemv %s); ", $1, $2, $6, $8, $9, $10}')")
done
for spec in ${WZ:-}; do # spec: backend:precision:sizes:vector_max (portsolve-bench-wz)
  IFS=: read -r backend precision sizes vector_max <<<"$spec"
  name="bench-wz-$backend-$precision"
  "$build"/bench/portsolve-bench-wz --backend "$backend" --precision "$precision" \
    --sizes "$sizes" --vector-max "${vector_max:-8192}" --repeats "${REPEATS:-3}" \
    --csv "$out/$name.csv" --plot "$out/$name.png" > "$out/$name.txt" 2>&1
  cat "$out/$name.txt"
  summary+=("$name: $(grep -E 'blocked/LU' "$out/$name.txt" | awk '{printf "n=%s %s; ", $1, $4}' )")
done
for spec in ${GJ:-}; do # spec: backend:precision:sizes:nbs:stripes:hybrid_max (portsolve-bench-gj)
  IFS=: read -r backend precision sizes nbs stripes hybrid_max <<<"$spec"
  name="bench-gj-$backend-$precision"
  "$build"/bench/portsolve-bench-gj --backend "$backend" --precision "$precision" \
    --sizes "$sizes" --nbs "${nbs:-0}" --stripes "${stripes:-0}" --hybrid-max "${hybrid_max:-8192}" \
    --repeats "${REPEATS:-3}" --csv "$out/$name.csv" > "$out/$name.txt" 2>&1
  cat "$out/$name.txt"
  summary+=("$name: $(sed -n '/^summary/,$p' "$out/$name.txt" | tail -n +3 | tr -s ' ' | tr '\n' ';')")
done
echo "==== summary ===="
printf '%s\n' "${summary[@]}"
