#!/bin/bash
# Runs on a GPU machine what benchmarks/gpu/bundle.sh built elsewhere (it
# builds nothing): a model compiled for the GPU against its eager build,
# then the GPU rows of the sweep (benchmarks/sweep.py --device cuda: Kiln
# compiled on the GPU, Kiln eager on the CPU, torch eager and torch.compile
# on the GPU, alternating repetitions), printing issue 40's table and, per
# row, one compiled call's kernels and cuBLAS calls timed (KILN_PROFILE).
# Everything it prints is also written to OUT/gpu-run.log (default: $OUT,
# else /tmp).
#
# Usage, from the repository root: bash benchmarks/gpu/run.sh [BUNDLE] [OUT] [REPS]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "${1:-$root/build/gpu-bundle}" && pwd)
outdir=${2:-${OUT:-/tmp}}
reps=${3:-5}
mkdir -p "$outdir"

# The directories that hold libcublas.so.13: the CUDA toolkit's, or the
# NVIDIA wheels' that PyTorch uses.
cublas_dirs() {
  ls -d /usr/local/cuda*/lib64 /usr/local/cuda*/targets/x86_64-linux/lib 2>/dev/null
  python3 - <<'PY' 2>/dev/null
import glob, os, site
for base in site.getsitepackages():
    for pattern in ("nvidia/cublas/lib", "nvidia/cu13/lib", "nvidia/*/lib", "torch/lib"):
        for d in glob.glob(os.path.join(base, pattern)):
            print(d)
PY
}

main() {
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
  # The bundle's libraries (unpacked outside it, so that it stays small to
  # carry) and cuBLAS, for Kiln's binaries only: torch keeps its own.
  local libs
  libs=$(mktemp -d)
  tar -C "$libs" -xJf "$bundle/libs.tar.xz" || { echo "run.sh: cannot unpack libs.tar.xz"; return 1; }
  local path=$libs/lib found=""
  for d in $(cublas_dirs); do
    path+=":$d"
    [ -z "$found" ] && ls "$d"/libcublas.so.1[23]* >/dev/null 2>&1 && found=$d
  done
  [ -n "$found" ] && echo "cuBLAS: $found" ||
    echo "run.sh: no libcublas.so.13 or .12 found: Kiln's products will fail on the GPU"
  for exe in sweep_cuda model_ref model_cuda; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$path" "$bundle/bin/$exe" > "$libs/$exe"
    chmod +x "$libs/$exe"
    if LD_LIBRARY_PATH=$path ldd "$bundle/bin/$exe" | grep -q "not found"; then
      echo "run.sh: $exe misses libraries:"; LD_LIBRARY_PATH=$path ldd "$bundle/bin/$exe" | grep "not found"
      return 1
    fi
  done

  local status=0
  echo "== a model compiled for the GPU against its eager build (sizes 3 37)"
  "$libs/model_ref" 3 37 > "$outdir/model_ref.txt"
  KILN_LOGS=guards,graph_calls "$libs/model_cuda" 3 37 > "$outdir/model_cuda.txt" \
    2> "$outdir/model_cuda.log"
  cat "$outdir/model_cuda.log"
  if ! python3 "$bundle/compare.py" "$outdir/model_ref.txt" "$outdir/model_cuda.txt"; then
    echo "FAIL: the model's GPU output differs from eager"; status=1
  fi
  if ! grep -q "ran compiled" "$outdir/model_cuda.log"; then
    echo "FAIL: the model's graph did not run compiled on the GPU"; status=1
  fi

  echo "== the sweep's GPU rows, $reps repetitions"
  PYTHONUNBUFFERED=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} \
    python3 "$root/benchmarks/sweep.py" --device cuda --exe "$libs/sweep_cuda" \
    --reps "$reps" --profile || status=1
  rm -rf "$libs"
  return $status
}

main 2>&1 | tee "$outdir/gpu-run.log"
exit "${PIPESTATUS[0]}"
