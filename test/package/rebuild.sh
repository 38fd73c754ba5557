#!/usr/bin/env bash
# Tests a project outside the repository, five lines of CMake against a Kiln
# package (find_package + kiln_compile), and kiln_compile's dependencies:
# its model includes a header of its own; touching that header re-runs kiln
# (DEPFILE) and rebuilds, and a build with nothing touched does nothing.
#
#   rebuild.sh KILN_DIR WORK_DIR [SANITIZE]
set -euo pipefail
kiln_dir=$1 work=$2 sanitize=${3:-}
rm -rf "$work" && mkdir -p "$work/src"
cat > "$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(rebuild LANGUAGES CXX)
find_package(Kiln CONFIG REQUIRED)
add_executable(app main.cpp)
kiln_compile(app)
CMAKE
cat > "$work/src/scale.h" <<'CPP'
constexpr float kScale = 2.0f;
CPP
cat > "$work/src/main.cpp" <<'CPP'
#include <kiln/kiln.h>
#include <iostream>
#include "scale.h"
KILN_COMPILE() kiln::Tensor f(const kiln::Tensor &x) { return kiln::exp(x) * kScale; }
int main() { std::cout << f(kiln::ones({2, 3})) << "\n"; }
CPP
flags=()
if [[ -n "$sanitize" ]]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
cmake -G Ninja -S "$work/src" -B "$work/build" -DKiln_DIR="$kiln_dir" \
  -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" "${flags[@]}" > "$work/configure.log"
cmake --build "$work/build" > "$work/build1.log"
grep -q "kiln compile main.cpp" "$work/build1.log"
"$work/build/app" | grep -q "5.4366"
# Nothing touched: nothing runs.
cmake --build "$work/build" > "$work/build2.log"
grep -q "no work to do" "$work/build2.log" || { cat "$work/build2.log"; exit 1; }
# The included header changes: kiln runs again and the program follows.
sleep 1
echo 'constexpr float kScale = 3.0f;' > "$work/src/scale.h"
cmake --build "$work/build" > "$work/build3.log"
grep -q "kiln compile main.cpp" "$work/build3.log" || { cat "$work/build3.log"; exit 1; }
"$work/build/app" | grep -q "8.1548"
echo "rebuild.sh: kiln re-ran for the header, not without it"
