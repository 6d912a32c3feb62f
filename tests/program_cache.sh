#!/bin/sh
# The OpenCL program cache trusts nothing it did not write (backend_opencl/cl_cache.c): every
# damaged, planted or unsafe entry is refused, the solve still succeeds, and a refused file is
# rebuilt in place.   program_cache.sh DIR PORTSOLVE_CLI
set -u
dir=$1
cli=$2
export PORTSOLVE_CACHE_DIR="$dir" PORTSOLVE_HOST_CROSSOVER=0
fail() { echo "FAIL: $*"; exit 1; }
solve() { timeout 120 "$cli" solve --backend opencl --n 50 >"$dir.out" 2>"$dir.err" ||
  fail "$1: the solve failed or hung: $(cat "$dir.out" "$dir.err")"; }
rm -rf "$dir" "$dir.out" "$dir.err"
solve "first run"
lu=$(ls "$dir"/lu-*.clbin 2>/dev/null | head -n 1)
[ -n "$lu" ] || fail "no lu program was cached"
[ "$(head -c 8 "$lu")" = "PSCLBIN" ] || fail "$lu has no header"
[ "$(stat -c %a "$dir")" = 700 ] || fail "the folder is $(stat -c %a "$dir"), not 700"
size=$(stat -c %s "$lu")
# truncated by a byte, halved, zeroed in the middle, or written by someone else's tool
for damage in byte half zero garbage; do
  case $damage in
    byte) truncate -s -1 "$lu" ;;
    half) truncate -s $((size / 2)) "$lu" ;;
    zero) dd if=/dev/zero of="$lu" bs=1 seek=$((size / 2)) count=64 conv=notrunc 2>/dev/null ;;
    garbage) echo corrupt >"$lu" ;;
  esac
  solve "after $damage"
  [ "$(stat -c %s "$lu")" = "$size" ] || fail "after $damage the file was not rebuilt"
done
# a file others may write is not trusted; the rebuilt one replaces it, private again
chmod 666 "$lu"
solve "group-writable file"
[ "$(stat -c %a "$lu")" = 600 ] || fail "a group-writable file was not replaced"
# a FIFO or a link under a cache file's name cannot hang or redirect the caller
rm -f "$lu" && mkfifo "$lu"
solve "FIFO"
[ -f "$lu" ] && [ ! -p "$lu" ] || fail "the FIFO was not replaced"
rm -f "$lu" && ln -s /etc/hostname "$lu"
solve "symbolic link"
[ ! -L "$lu" ] || fail "the link was not replaced"
# a folder others may write is not used at all, and the user is told why
rm -f "$dir"/*.clbin
chmod 777 "$dir"
solve "world-writable folder"
grep -q "kernel cache is off" "$dir.err" || fail "no word about the refused folder"
[ -z "$(ls "$dir")" ] || fail "files were written into a world-writable folder"
chmod 700 "$dir"
rm -rf "$dir.link" && ln -s "$dir" "$dir.link"
PORTSOLVE_CACHE_DIR="$dir.link" timeout 120 "$cli" solve --backend opencl --n 50 >/dev/null 2>"$dir.err" ||
  fail "solve with a linked folder"
grep -q "kernel cache is off" "$dir.err" || fail "a symbolic link as the folder was used"
rm -f "$dir.link"
echo "program cache: every case refused or rebuilt; residual $(grep residual "$dir.out")"
