#!/usr/bin/env bash
# Builds a model source twice, as it is (eager) and through `kiln compile`
# (cpu), runs both with the given arguments and checks that they print the
# same (numbers within compare.py's float32 tolerance) and that every graph
# call ran compiled: a guard that rejects its inputs would hide a wrong
# compiled result behind the eager fallback. KILN_STATS=1 must say the same:
# guard_misses=0 and compiled equal to graph_calls. With
# KILN_MIN_COMPILED_PERCENT=P in the environment, at least P% of the tensor
# ops under compile roots must run compiled (ops_compiled against
# ops_compiled + ops_eager).
#
#   matches-eager.sh CXX "INCLUDES" "LINK" "KERNEL_LINK" SRC WORK [ARGS...]
set -euo pipefail
cxx=$1 includes=$2 link=$3 kernel_link=$4 src=$5 work=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
# shellcheck disable=SC2086
"$cxx" -std=c++17 $includes "$src" -o "$work/ref" $link
kiln compile "$src" -o "$work/cpu.cpp"
# shellcheck disable=SC2086
"$cxx" -std=c++17 $includes "$work/cpu.cpp" "$work/cpu.o" -o "$work/cpu" $link $kernel_link
"$work/ref" "$@" > "$work/ref.txt"
KILN_STATS=1 KILN_LOGS=graph_calls,guards "$work/cpu" "$@" > "$work/cpu.txt" 2> "$work/calls.log"
python3 "$here/compare.py" "$work/ref.txt" "$work/cpu.txt"
if grep "running it eagerly" "$work/calls.log"; then
  echo "matches-eager.sh: a graph fell back to eager"
  exit 1
fi
grep -q "ran compiled" "$work/calls.log" || { echo "matches-eager.sh: no graph ran compiled"; exit 1; }
stats=$(grep '^kiln-stats ' "$work/calls.log")
[[ $(grep -c '^kiln-stats ' "$work/calls.log") == 1 ]] || { echo "matches-eager.sh: not one kiln-stats line"; exit 1; }
value() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<< "$stats"; }
if [[ $(value guard_misses) != 0 || $(value compiled) != "$(value graph_calls)" ]]; then
  echo "matches-eager.sh: $stats"
  exit 1
fi
if [[ -n "${KILN_MIN_COMPILED_PERCENT:-}" ]]; then
  compiled=$(value ops_compiled) eager=$(value ops_eager)
  if (( compiled * 100 < KILN_MIN_COMPILED_PERCENT * (compiled + eager) )); then
    echo "matches-eager.sh: fewer than $KILN_MIN_COMPILED_PERCENT% of the ops ran compiled: $stats"
    exit 1
  fi
fi
echo "matches-eager.sh: $stats"
echo "matches-eager.sh: $(grep -c 'ran compiled' "$work/calls.log") graph calls ran compiled"
