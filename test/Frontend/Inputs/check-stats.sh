#!/usr/bin/env bash
# Checks a compiled program's stderr, run with KILN_STATS=1 and
# KILN_LOGS=graph_calls,guards: no graph call fell back to eager, some ran
# compiled, and the one kiln-stats line says guard_misses=0 and compiled
# equal to graph_calls; with KILN_MIN_COMPILED_PERCENT=P in the
# environment, at least P% of the tensor ops under compile roots ran
# compiled (ops_compiled against ops_compiled + ops_eager). Prints the
# stats line.
#
#   check-stats.sh CALLS_LOG WHO
set -euo pipefail
log=$1 who=$2
if grep "running it eagerly\|runs eagerly" "$log"; then
  echo "$who: a graph fell back to eager"
  exit 1
fi
grep -q "ran compiled" "$log" || { echo "$who: no graph ran compiled"; exit 1; }
stats=$(grep '^kiln-stats ' "$log")
[[ $(grep -c '^kiln-stats ' "$log") == 1 ]] || { echo "$who: not one kiln-stats line"; exit 1; }
value() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<< "$stats"; }
if [[ $(value guard_misses) != 0 || $(value compiled) != "$(value graph_calls)" ]]; then
  echo "$who: $stats"
  exit 1
fi
if [[ -n "${KILN_MIN_COMPILED_PERCENT:-}" ]]; then
  compiled=$(value ops_compiled) eager=$(value ops_eager)
  if (( compiled * 100 < KILN_MIN_COMPILED_PERCENT * (compiled + eager) )); then
    echo "$who: fewer than $KILN_MIN_COMPILED_PERCENT% of the ops ran compiled: $stats"
    exit 1
  fi
fi
echo "$who: $stats"
