#!/usr/bin/env bash
# float32 product rates (GFLOP/s, linear / matmul) of each choice the
# runtime can make (KILN_FLOAT_PRODUCTS: Kiln's tiles, OpenBLAS, oneDNN)
# and of torch's (MKL) when benchmarks/torch_env.sh made build/torch-env,
# in alternating rounds on one machine (docs/benchmarks.md).
#
#   bash benchmarks/products.sh [ROUNDS]     (after scripts/setup)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
cmake --build build --target products >/dev/null
python=build/torch-env/bin/python
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) threads"
for ((r = 1; r <= rounds; ++r)); do
  for who in tiles openblas onednn; do
    echo "== round $r: $who"
    KILN_FLOAT_PRODUCTS=$who build/bin/products
    sleep 0.3 # the last team's threads stop spinning
  done
  if [ -x "$python" ]; then
    echo "== round $r: torch"
    "$python" - <<'PY'
import time, torch
torch.set_num_threads(len(__import__("os").sched_getaffinity(0)))
shapes = [(256, 768, 2304), (256, 768, 3072), (256, 3072, 768),
          (256, 768, 50304), (768, 256, 3072), (3072, 256, 768),
          (1024, 768, 768), (2048, 1024, 1024), (64, 1024, 4096)]
for m, k, n in shapes:
    a, w, b = torch.randn(m, k), torch.randn(n, k), torch.randn(k, n)
    flop = 2.0 * m * n * k
    reps = 5 if flop > 2e10 else 20
    def best(f):
        t = 1e30
        for _ in range(reps):
            t0 = time.perf_counter(); f(); t = min(t, time.perf_counter() - t0)
        return t
    lin = best(lambda: torch.nn.functional.linear(a, w))
    mm = best(lambda: a @ b)
    print(f"{m}x{k}x{n} {flop / lin / 1e9:.0f} {flop / mm / 1e9:.0f}")
PY
  fi
done
