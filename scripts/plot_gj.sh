#!/usr/bin/env bash
# Draws a portsolve-bench-gj CSV as the inversion paper's Figures 2 and 3 do (GFLOP/s against n,
# one line per method: getri, the three gjinv variants and the vendor inverse; beside it, gjsv
# and the vendor solve), the best block size or stripe per order:
#   bash scripts/plot_gj.sh out.png "title" run.csv
set -euo pipefail
out=$1 title=$2 csv=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the quoted device name may hold commas: drop it, so the columns stay put
sed 's/"[^"]*"/device/' "$csv" | awk -F, -v dir="$tmp" 'NR > 1 {
  key = $5 "," $4
  if (!(key in best) || $8 > best[key]) best[key] = $8
  methods[$5] = 1
}
END {
  for (k in best) { split(k, p, ","); print p[2], best[k] > (dir "/" p[1] ".dat") }
}'
for f in "$tmp"/*.dat; do sort -n -o "$f" "$f"; done
inverse=() solve=()
for m in getrf+getri gjinv-device gjinv-hybrid gjinv-concurrent ref-inverse; do
  [ -s "$tmp/$m.dat" ] && inverse+=("'$tmp/$m.dat' using 1:2 with linespoints title '$m'")
done
for m in gjsv ref-solve; do
  [ -s "$tmp/$m.dat" ] && solve+=("'$tmp/$m.dat' using 1:2 with linespoints title '$m'")
done
join() { local s; s=$(printf '%s, ' "$@"); printf '%s' "${s%, }"; }
gnuplot <<GP
set terminal pngcairo size 1100,450 noenhanced
set output '$out'
set multiplot layout 1,2 title '$title'
set grid
set key left top
set xlabel 'n'
set logscale x 2
set ylabel 'GFLOP/s (2 n^3 for an inverse)'
set title 'inverse'
plot $(join "${inverse[@]}")
set ylabel 'GFLOP/s (2/3 n^3 + 2 n^2 for a solve)'
set title 'solve'
plot $(join "${solve[@]}")
unset multiplot
GP
