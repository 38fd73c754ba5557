#!/usr/bin/env bash
# Tests kiln_compile as a project outside the repository uses it, against a
# Kiln package: an eager and a compiled target built from the same sources
# in one directory (kiln_compile changes only the target it is given), and
# OPTIONS reaching `kiln compile` exactly as written, one of each annotation
# form (parentheses, spaces, `=`; quoted, and unquoted where CMake splits at
# parentheses), checked by what each does: the build log
# (--log=graph_breaks), the compiled program's graph calls, and its output
# against the eager target's.
#
#   two-targets.sh KILN_DIR WORK_DIR [SANITIZE]
set -euo pipefail
kiln_dir=$1 work=$2 sanitize=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/src"
cat > "$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(two_targets LANGUAGES CXX)
find_package(Kiln CONFIG REQUIRED)
add_executable(app_eager main.cpp model.cpp)
target_link_libraries(app_eager PRIVATE Kiln::runtime)
add_executable(app main.cpp model.cpp)
kiln_compile(app OPTIONS
  "--annotate=Ns::Model::forward=compile(fullgraph=false, backend=cpu)"
  --annotate=Ns::Model::forward=error_on_graph_break(false)
  --annotate=Ns::log_shape=disable(recursive = false)
  "--annotate=Ns::clip=allow_in_graph"
  --annotate Ns::Model::head=compile(fullgraph=true, backend=cpu)
  "--annotate=Ns::debug_only=disable"
  "--annotate=Ns::rescale=disallow_in_graph"
  --disallow-in-graph=kiln::tanh
  --log=graph_breaks)
CMAKE
cat > "$work/src/model.h" <<'CPP'
#pragma once
#include <kiln/kiln.h>
namespace Ns {
kiln::Tensor clip(const kiln::Tensor &x);
kiln::Tensor rescale(const kiln::Tensor &x);
kiln::Tensor log_shape(const kiln::Tensor &x);
kiln::Tensor debug_only(const kiln::Tensor &x);
struct Model {
  kiln::Tensor w, b;
  kiln::Tensor forward(const kiln::Tensor &x) const;
  kiln::Tensor head(const kiln::Tensor &h) const;
};
} // namespace Ns
CPP
cat > "$work/src/model.cpp" <<'CPP'
#include "model.h"
#include <cstdio>
namespace Ns {
kiln::Tensor clip(const kiln::Tensor &x) { return kiln::minimum(kiln::relu(x), kiln::full({}, 2.0f)); }
kiln::Tensor rescale(const kiln::Tensor &x) { return x * 0.5f; }
static kiln::Tensor centred(const kiln::Tensor &x) { return x - kiln::mean(x, {-1}, true); }
kiln::Tensor log_shape(const kiln::Tensor &x) {
  std::printf("log_shape: %lld x %lld\n", (long long)x.size(0), (long long)x.size(1));
  return centred(x);
}
kiln::Tensor debug_only(const kiln::Tensor &x) { return x + 0.0f; }
kiln::Tensor Model::forward(const kiln::Tensor &x) const {
  kiln::Tensor h = clip(kiln::matmul(x, w) + b);
  kiln::Tensor t = kiln::tanh(h);
  h = t + rescale(h);
  h = log_shape(h);
  return head(debug_only(h));
}
kiln::Tensor Model::head(const kiln::Tensor &h) const { return kiln::softmax(h * 3.0f, -1); }
} // namespace Ns
CPP
cat > "$work/src/main.cpp" <<'CPP'
#include "model.h"
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Ns::Model m{kiln::randn({n + 1, n + 3}, 1), kiln::randn({n + 3}, 2)};
  kiln::Tensor y = m.forward(kiln::randn({n, n + 1}, 3));
  std::printf("y: %lld x %lld, sum %.6f, y[0][0] %.6f\n", (long long)y.size(0),
              (long long)y.size(1), kiln::sum(y).item<float>(),
              y.contiguous().data<float>()[0]);
}
CPP
flags=()
if [[ -n "$sanitize" ]]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
cmake -G Ninja -S "$work/src" -B "$work/build" -DKiln_DIR="$kiln_dir" \
  -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" "${flags[@]}" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
log=$work/build.log
expect() { grep -qF -- "$1" "$log" || { echo "two-targets.sh: not in the build log: $1"; cat "$log"; exit 1; }; }
# Each option did what it says.
expect "kiln: graph break in Ns::Model::forward: call to 'kiln::tanh', which is disallowed in graphs"
expect "kiln: graph break in Ns::Model::forward: call to 'Ns::rescale', which is disallowed in graphs"
expect "kiln: graph break in Ns::Model::forward: call to 'Ns::log_shape', which is marked KILN_DISABLE(recursive=false)"
expect "kiln: graph break in Ns::Model::forward: call to 'Ns::debug_only', which is marked KILN_DISABLE()"
if grep -q "Ns::clip" "$log"; then echo "two-targets.sh: clip (allow_in_graph) broke the graph"; cat "$log"; exit 1; fi
# Both targets, one source: each program runs; the compiled one matches.
"$work/build/app_eager" 5 > "$work/eager.txt"
KILN_LOGS=graph_calls,guards "$work/build/app" 5 > "$work/compiled.txt" 2> "$work/calls.log"
python3 "$here/../Frontend/Inputs/compare.py" "$work/eager.txt" "$work/compiled.txt"
# (model.cpp shows no caller of forward: its graphs are type versions, _t<k>.)
for graph in kiln_Ns__Model__forward_ kiln_Ns__Model__head_ kiln_Ns__centred_; do
  grep -qE "graph ${graph}[0-9]+(_t[0-9]+)?: ran compiled" "$work/calls.log" ||
    { echo "two-targets.sh: no ${graph} graph ran compiled"; cat "$work/calls.log"; exit 1; }
done
if grep -q "running it eagerly" "$work/calls.log"; then cat "$work/calls.log"; exit 1; fi
echo "two-targets.sh: app_eager and app built from one source; every option arrived as written"
