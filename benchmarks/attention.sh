#!/usr/bin/env bash
# Builds benchmarks/attention.cpp through kiln compile and runs it: a
# Llama-style block with fused scaled_dot_product_attention against the same
# block with the attention written out, eager and compiled, in one run.
#   bash benchmarks/attention.sh [BUILD_DIR] [REPS] [T...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/kiln" compile "$root/benchmarks/attention.cpp" -o "$work/attention.cpp"
clang++-22 -std=c++17 -O2 -I"$root/include" -I"$build/include" "$work/attention.cpp" \
  "$work/attention.o" -o "$work/attention" -L"$build/lib/Runtime" -lkiln_runtime \
  -Wl,-rpath,"$build/lib/Runtime" -L/usr/lib/llvm-22/lib -lomp -Wl,-rpath,/usr/lib/llvm-22/lib
"$work/attention" "$@"
