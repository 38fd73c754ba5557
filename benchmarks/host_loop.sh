#!/usr/bin/env bash
# Builds benchmarks/host_loop.cpp through kiln compile and runs it at three
# widths, with the machine's threads and with OMP_NUM_THREADS=1.
#   bash benchmarks/host_loop.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/kiln" compile "$root/benchmarks/host_loop.cpp" -o "$work/host_loop.cpp"
clang++-22 -std=c++17 -O2 -I"$root/include" -I"$build/include" "$work/host_loop.cpp" \
  "$work/host_loop.o" -o "$work/host_loop" -L"$build/lib/Runtime" -lkiln_runtime \
  -Wl,-rpath,"$build/lib/Runtime" -L/usr/lib/llvm-22/lib -lomp -Wl,-rpath,/usr/lib/llvm-22/lib
for width in 16 64 256; do
  steps=$((width == 256 ? 500 : 2000))
  "$work/host_loop" "$steps" "$width"
  OMP_NUM_THREADS=1 "$work/host_loop" "$steps" "$width" | sed 's/^/OMP_NUM_THREADS=1: /'
done
