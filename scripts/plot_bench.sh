#!/usr/bin/env bash
# Draws GFLOP/s against n from portsolve-bench CSV files (columns as bench.c writes them), one
# line for portsolve and one for the reference of each file:
#   bash scripts/plot_bench.sh out.png "title" a.csv [b.csv ...]
set -euo pipefail
out=$1 title=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plots=()
i=0
for f in "$@"; do
  i=$((i + 1))
  # the quoted device name may hold commas: replace it, so the columns stay put
  sed 's/"[^"]*"/device/' "$f" > "$tmp/$i.csv"
  label=$(awk -F, 'NR==2 {print $3 " " $2 " " $5}' "$tmp/$i.csv")
  ref=$(awk -F, 'NR==2 {print $10}' "$tmp/$i.csv")
  plots+=("'$tmp/$i.csv' using 6:(\$9/1000) with linespoints title 'portsolve $label'")
  plots+=("'$tmp/$i.csv' using 6:(\$12/1000) with linespoints dashtype 2 title '$ref ($label)'")
done
joined=$(printf '%s, ' "${plots[@]}")
gnuplot <<GP
set terminal pngcairo size 1000,600 noenhanced
set output '$out'
set title '$title'
set datafile separator ','
set key left top
set grid
set xlabel 'n'
set ylabel 'TFLOP/s (2/3 n^3 + 2 n^2 for a solve; 2 n^3 for GEMM)'
set logscale x 2
plot ${joined%, }
GP
