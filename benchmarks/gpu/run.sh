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
log=$outdir/gpu-run.log
exec > >(tee "$log") 2>&1

# Beside bin/, where the binaries' rpath ($ORIGIN/../lib) finds them.
tar -C "$bundle" -xJf "$bundle/libs.tar.xz" || { echo "run.sh: cannot unpack libs.tar.xz"; exit 1; }
# cuBLAS: from the CUDA toolkit, or from PyTorch's wheels.
cublas=$(ls -d /usr/local/cuda*/lib64 /usr/local/cuda*/targets/x86_64-linux/lib 2>/dev/null | tr '\n' ':')
cublas+=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(nvidia.cublas.__path__[0], "lib"))' 2>/dev/null)
# The bundle's libraries first: libkiln_runtime's own needs (OpenBLAS,
# oneDNN) are not found through the binaries' rpath.
export LD_LIBRARY_PATH=$bundle/lib:$cublas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
for exe in "$bundle"/bin/*; do
  if ldd "$exe" | grep -q "not found"; then
    echo "run.sh: $(basename "$exe") misses libraries:"; ldd "$exe" | grep "not found"; exit 1
  fi
done

status=0
echo "== a model compiled for the GPU against its eager build (sizes 3 37)"
"$bundle/bin/model_ref" 3 37 > "$outdir/model_ref.txt"
KILN_LOGS=guards,graph_calls "$bundle/bin/model_cuda" 3 37 > "$outdir/model_cuda.txt" \
  2> "$outdir/model_cuda.log"
cat "$outdir/model_cuda.log"
if ! python3 "$bundle/compare.py" "$outdir/model_ref.txt" "$outdir/model_cuda.txt"; then
  echo "FAIL: the model's GPU output differs from eager"; status=1
fi
if ! grep -q "ran compiled" "$outdir/model_cuda.log"; then
  echo "FAIL: the model's graph did not run compiled on the GPU"; status=1
fi

echo "== the sweep's GPU rows, $reps repetitions"
PYTHONUNBUFFERED=1 python3 "$root/benchmarks/sweep.py" --device cuda \
  --exe "$bundle/bin/sweep_cuda" --reps "$reps" --profile || status=1
exit $status
