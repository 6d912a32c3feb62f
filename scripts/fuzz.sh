#!/usr/bin/env bash
# Fuzzes the Matrix Market reader and `portsolve solve`'s argument parser with libFuzzer under
# ASan+UBSan for FUZZ_SECONDS each (default 60), from the seed corpus and the regressions in
# tests/fuzz. A failing input is printed and kept; add it to tests/fuzz/regressions/<target>/,
# where CTest replays it from then on (cpu.fuzz_replay.*).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ -f build/libportsolve.so ] || bash scripts/build.sh
out=$(mktemp -d)
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Itools -Iinclude)
clang "${flags[@]}" tests/fuzz/fuzz_mmio.c tools/mmio.c -lm -o "$out/fuzz_mmio"
clang "${flags[@]}" tests/fuzz/fuzz_cli_args.c tools/cli_args.c tools/cli_methods.c \
  tools/cli_system.c tools/mmio.c -Lbuild -lportsolve -Wl,-rpath,"$PWD/build" -lm \
  -o "$out/fuzz_cli"
status=0
for t in mmio cli; do
  mkdir -p "$out/corpus-$t"
  cp tests/fuzz/corpus/$t/* tests/fuzz/regressions/$t/* "$out/corpus-$t/"
  echo "fuzz: $t for ${FUZZ_SECONDS:-60} s"
  if ! (cd "$out" && ASAN_OPTIONS=allocator_may_return_null=1 ./fuzz_$t \
        -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=2048 -print_final_stats=1 \
        -close_fd_mask=$([ $t = cli ] && echo 2 || echo 0) \
        -artifact_prefix="$out/failed-$t-" "corpus-$t" > "$out/$t.log" 2>&1); then
    tail -40 "$out/$t.log"
    for f in "$out"/failed-$t-*; do
      echo "fuzz: $t fails on $f (base64 below); add it to tests/fuzz/regressions/$t/"
      base64 "$f"
    done
    status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$out/$t.log" | head -2 || true
  fi
done
[ $status -eq 0 ] && rm -rf "$out"
exit $status
