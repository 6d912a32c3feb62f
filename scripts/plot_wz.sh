#!/usr/bin/env bash
# Plots a portsolve-bench-wz CSV like the WZ papers' Figures 6, 7 and 9: time, GFLOP/s and
# accuracy against n, one line per algorithm.   bash scripts/plot_wz.sh in.csv out.png [title]
set -euo pipefail
csv=$1 png=$2 title=${3:-$(basename "$csv" .csv)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
algs=$(tail -n +2 "$csv" | awk -F, '{print $(NF-3)}' | sort -u)
for a in $algs; do
  tail -n +2 "$csv" | awk -F, -v a="$a" '$(NF-3) == a {print $(NF-4), $(NF-2), $(NF-1), $NF}' > "$tmp/$a.dat"
done
{
  echo "set terminal pngcairo size 1500,450 noenhanced; set output '$png'"
  echo "set multiplot layout 1,3 title '$title'; set grid; set key left top; set xlabel 'n'; set logscale x 2"
  col=2
  for ylabel in "seconds" "GFLOP/s (WZ: 2/3 n^3 - 1/2 n^2 + 11/6 n - 7)" "-log10(||PA-WZ||_F / (n ||A||_F))"; do
    if [ $col = 2 ]; then echo "set logscale y"; else echo "unset logscale y"; fi
    echo "set ylabel '$ylabel'"
    plots=()
    for a in $algs; do
      [ $col = 4 ] && [ "$a" = lu ] && continue
      plots+=("'$tmp/$a.dat' using 1:(\$$col == \$$col ? \$$col : 1/0) with linespoints title '$a'")
    done
    (IFS=,; echo "plot ${plots[*]}")
    col=$((col + 1))
  done
  echo "unset multiplot"
} | gnuplot
