#!/usr/bin/env bash
# Draws TFLOP/s against n from portsolve-bench-dist CSV files (one file a grid): for each, the
# device-resident call and the host-array call, and once the single-device factorization on
# rank 0's device and, where the file has it, cuSOLVERMg on the same GPUs:
#   bash scripts/plot_dist.sh out.png "title" dist-lu-1x1.csv dist-lu-1x2.csv ...
set -euo pipefail
out=$1 title=$2
shift 2
plots=()
for f in "$@"; do
  label=$(awk -F, 'NR==2 {print $1 " " $2 " " $5 "x" $6 " " $7 " " $8}' "$f")
  plots+=("'$f' using 3:(\$20/1000) with linespoints title 'device-resident, $label'")
  plots+=("'$f' using 3:(\$10/1000) with linespoints dashtype 3 title 'host arrays, $label'")
  if head -1 "$f" | grep -q cusolvermg_s; then
    # cuSOLVERMg's rate from its time and the resident call's rate
    plots+=("'$f' using 3:(\$20/\$23/1000) with linespoints dashtype 2 title 'cuSOLVERMg, $label'")
  fi
done
plots+=("'$1' using 3:(\$17/1000) with linespoints dashtype 4 lc rgb 'black' title 'one device (ps_mat_getrf / ps_mat_potrf)'")
joined=$(printf '%s, ' "${plots[@]}")
gnuplot <<GP
set terminal pngcairo size 1000,600 noenhanced
set output '$out'
set title '$title'
set datafile separator ','
set datafile missing 'nan'
set key left top
set grid
set xlabel 'n'
set ylabel 'TFLOP/s (2/3 n^3 for LU, 1/3 n^3 for Cholesky)'
plot ${joined%, }
GP
echo "wrote $out"
