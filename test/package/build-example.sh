#!/usr/bin/env bash
# Builds an example as a standalone CMake project against a Kiln package
# (find_package(Kiln) + kiln_compile), uncompiled and with a backend, runs
# both on an argument the source does not name and compares their outputs
# (timings aside); the compiled build must run its graphs (cuda: where a GPU
# is; elsewhere they must fall back to eager, which the script says). Each
# example itself prints eager and compiled results side by side.
#
#   build-example.sh EXAMPLE_DIR KILN_DIR BACKEND WORK_DIR [SANITIZE] [ARGS...]
set -euo pipefail
example=$1 kiln_dir=$2 backend=$3 work=$4 sanitize=${5:-}
shift 5 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
flags=()
if [[ -n "$sanitize" ]]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
rm -rf "$work" && mkdir -p "$work"
for mode in none "$backend"; do
  cmake -G Ninja -S "$example" -B "$work/$mode" -DKiln_DIR="$kiln_dir" \
    -DKILN_BACKEND="$mode" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" "${flags[@]}" > "$work/$mode.configure.log"
  cmake --build "$work/$mode" > "$work/$mode.build.log"
done
name=$(basename "$example")
"$work/none/$name" "$@" | grep -v "^time: " > "$work/eager.txt"
KILN_LOGS=graph_calls,guards "$work/$backend/$name" "$@" 2> "$work/calls.log" | grep -v "^time: " > "$work/compiled.txt"
python3 "$here/../Frontend/Inputs/compare.py" "$work/eager.txt" "$work/compiled.txt"
if [[ "$backend" == cuda ]] && grep -q "is compiled for cuda: .*running it eagerly" "$work/calls.log"; then
  # No GPU here: built and linked, and the graphs fell back to eager.
  echo "build-example.sh: $name (cuda) built and linked; skipped: no GPU ($(grep -m1 -o 'cuda: [^;]*' "$work/calls.log"))"
  exit 0
elif [[ "$backend" == cpu || "$backend" == cuda ]]; then
  grep -q "ran compiled" "$work/calls.log" || { echo "no graph ran compiled"; cat "$work/calls.log"; exit 1; }
else
  grep -q "guard passed" "$work/calls.log" || { echo "no graph ran"; cat "$work/calls.log"; exit 1; }
fi
echo "build-example.sh: $name ($backend) agrees with eager"
