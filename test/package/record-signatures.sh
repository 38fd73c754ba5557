#!/usr/bin/env bash
# Tests the recorded-signature flow through CMake, as torch.export's example
# inputs: a project builds its model with kiln_compile(BACKEND eager), runs
# it with KILN_RECORD=sig.json, then compiles it with
# kiln_compile(SIGNATURES sig.json): the graphs, whose inputs no caller in
# the model's file shows, then run compiled with no guard miss
# (KILN_STATS=1), printing what the eager build prints; and a changed
# signature file rebuilds the compiled target.
#
#   record-signatures.sh KILN_DIR WORK_DIR [SANITIZE]
set -euo pipefail
kiln_dir=$1 work=$2 sanitize=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/src"
cat > "$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(record_signatures LANGUAGES CXX)
find_package(Kiln CONFIG REQUIRED)
add_executable(recorder main.cpp model.cpp)
kiln_compile(recorder BACKEND eager)
if(EXISTS ${CMAKE_SOURCE_DIR}/sig.json)
  add_executable(app main.cpp model.cpp)
  kiln_compile(app SIGNATURES sig.json OPTIONS --require-known-types)
endif()
CMAKE
cat > "$work/src/model.h" <<'CPP'
#pragma once
#include <kiln/kiln.h>
kiln::Tensor encode(const kiln::Tensor &tokens, const kiln::Tensor &mask);
CPP
cat > "$work/src/model.cpp" <<'CPP'
#include "model.h"
// Nothing in this file shows what callers pass.
KILN_COMPILE() kiln::Tensor encode(const kiln::Tensor &tokens,
                                   const kiln::Tensor &mask) {
  kiln::Tensor h = kiln::softmax(tokens * 2.0, -1);
  return kiln::where(mask, h, 0.0);
}
CPP
cat > "$work/src/main.cpp" <<'CPP'
#include "model.h"
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  for (int64_t t = 2; t < 2 + n; ++t) {
    kiln::Tensor tokens = kiln::randn({2, t, 8}, t).to(kiln::kFloat64);
    kiln::Tensor mask = kiln::randn({2, t, 8}, t + 7) > 0.0;
    std::printf("t=%lld %.9f\n", (long long)t,
                kiln::sum(encode(tokens, mask)).item<double>());
  }
}
CPP
flags=()
if [[ -n "$sanitize" ]]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
configure() {
  cmake -G Ninja -S "$work/src" -B "$work/build" -DKiln_DIR="$kiln_dir" \
    -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" "${flags[@]}" > "$work/configure.log"
  cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
}
# 1. Record.
configure
KILN_RECORD="$work/src/sig.json" "$work/build/recorder" 3 > "$work/eager.txt"
grep -qF '"encode(f64[2,?,8], bool[2,?,8])"' "$work/src/sig.json" ||
  { echo "record-signatures.sh: unexpected recording"; cat "$work/src/sig.json"; exit 1; }
# 2. Compile for the recording, at sizes it never saw.
configure
KILN_STATS=1 "$work/build/app" 3 > "$work/compiled.txt" 2> "$work/stats.log"
python3 "$here/../Frontend/Inputs/compare.py" "$work/eager.txt" "$work/compiled.txt"
grep -q "^kiln-stats graph_calls=3 compiled=3 guard_misses=0" "$work/stats.log" ||
  { echo "record-signatures.sh: graphs did not run compiled"; cat "$work/stats.log"; exit 1; }
KILN_STATS=1 "$work/build/app" 5 > /dev/null 2> "$work/stats5.log"
grep -q "^kiln-stats graph_calls=5 compiled=5 guard_misses=0" "$work/stats5.log" ||
  { echo "record-signatures.sh: new sizes fell back"; cat "$work/stats5.log"; exit 1; }
# 3. A new recording rebuilds the compiled target.
sleep 1
sed -i 's/f64\[2,/f64[?,/' "$work/src/sig.json"
cmake --build "$work/build" > "$work/rebuild.log" 2>&1 || { cat "$work/rebuild.log"; exit 1; }
grep -q "kiln compile.*model.cpp" "$work/rebuild.log" ||
  { echo "record-signatures.sh: the changed signatures did not rebuild"; cat "$work/rebuild.log"; exit 1; }
echo "record-signatures.sh: recorded, compiled for the recording, no guard miss"
