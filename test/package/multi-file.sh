#!/usr/bin/env bash
# Builds a project whose compile root is declared in a header, defined in
# one source and called from another, as a standalone CMake project against
# a Kiln package: once eager (-DKILN_EAGER=ON: no kiln_compile) and once
# through kiln_compile(target), which gives each source the target's other
# sources as call sites. Runs both with ARGS (sizes the sources do not
# name) and checks that they print the same and that every graph call ran
# compiled (KILN_STATS: guard_misses=0, compiled == graph_calls), with at
# least MIN_PERCENT% of the tensor ops compiled.
#
#   multi-file.sh PROJECT_DIR KILN_DIR WORK_DIR MIN_PERCENT SANITIZE [ARGS...]
set -euo pipefail
project=$1 kiln_dir=$2 work=$3 min_percent=$4 sanitize=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
flags=()
if [[ -n "$sanitize" ]]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
rm -rf "$work" && mkdir -p "$work"
for mode in eager compiled; do
  eager=OFF
  [[ $mode == eager ]] && eager=ON
  cmake -G Ninja -S "$project" -B "$work/$mode" -DKiln_DIR="$kiln_dir" \
    -DKILN_EAGER=$eager -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" "${flags[@]}" > "$work/$mode.configure.log"
  cmake --build "$work/$mode" > "$work/$mode.build.log"
done
name=$(sed -n 's/^add_executable(\([A-Za-z0-9_]*\) .*/\1/p' "$project/CMakeLists.txt")
"$work/eager/$name" "$@" > "$work/eager.txt"
KILN_STATS=1 KILN_LOGS=graph_calls,guards "$work/compiled/$name" "$@" > "$work/compiled.txt" 2> "$work/calls.log"
python3 "$here/../Frontend/Inputs/compare.py" "$work/eager.txt" "$work/compiled.txt"
KILN_MIN_COMPILED_PERCENT=$min_percent \
  bash "$here/../Frontend/Inputs/check-stats.sh" "$work/calls.log" multi-file.sh
