#!/usr/bin/env bash
# Builds a model source twice, as it is (eager) and through `kiln compile`
# (cpu), runs both with the given arguments and checks that they print the
# same (numbers within compare.py's float32 tolerance) and that every graph
# call ran compiled: a guard that rejects its inputs would hide a wrong
# compiled result behind the eager fallback (check-stats.sh: KILN_STATS=1
# must say the same, and KILN_MIN_COMPILED_PERCENT=P in the environment
# asks for at least P% of the tensor ops compiled). KILN_COMPILE_FLAGS adds
# options to kiln compile (--autograd).
#
#   matches-eager.sh CXX "INCLUDES" "LINK" "KERNEL_LINK" SRC WORK [ARGS...]
set -euo pipefail
cxx=$1 includes=$2 link=$3 kernel_link=$4 src=$5 work=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
# shellcheck disable=SC2086
"$cxx" -std=c++17 $includes "$src" -o "$work/ref" $link
# shellcheck disable=SC2086
kiln compile "$src" -o "$work/cpu.cpp" ${KILN_COMPILE_FLAGS:-}
# shellcheck disable=SC2086
"$cxx" -std=c++17 $includes "$work/cpu.cpp" "$work/cpu.o" -o "$work/cpu" $link $kernel_link
"$work/ref" "$@" > "$work/ref.txt"
KILN_STATS=1 KILN_LOGS=graph_calls,guards "$work/cpu" "$@" > "$work/cpu.txt" 2> "$work/calls.log"
python3 "$here/compare.py" "$work/ref.txt" "$work/cpu.txt"
bash "$here/check-stats.sh" "$work/calls.log" matches-eager.sh
echo "matches-eager.sh: $(grep -c 'ran compiled' "$work/calls.log") graph calls ran compiled"
