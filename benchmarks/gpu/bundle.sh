#!/bin/bash
# Builds, on a machine without a GPU, everything benchmarks/gpu/run.sh runs on
# one, into BUILD/gpu-bundle (default build/gpu-bundle): nothing is built
# there. The GPU machine has the CUDA driver, cuBLAS, Python and PyTorch but
# none of Kiln's build dependencies, so the bundle carries them:
#
#   bin/sweep_cuda         benchmarks/sweep/sweep.cpp through
#                          kiln compile --backend=cuda (kernels for sm_90),
#                          its host code for x86-64-v3 (any GPU host runs it)
#   bin/model_ref          test/Frontend/cuda-backend.cpp built plainly (eager)
#   bin/model_cuda         the same through kiln compile --backend=cuda
#   libs.tar.xz            the shared libraries they need beyond the C and
#                          C++ runtimes (libkiln_runtime built for x86-64-v3
#                          in BUILD/gpu-runtime, libomp, OpenBLAS, oneDNN,
#                          ...), compressed to fit the carry limit
#   compare.py             test/Frontend/Inputs/compare.py
#
# Usage: bash benchmarks/gpu/bundle.sh [BUILD]
# Then, on the GPU machine, from the repository root:
#   bash benchmarks/gpu/run.sh [BUILD/gpu-bundle] [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$build/gpu-bundle
cxx=${CXX:-clang++-22}
kiln=$build/bin/kiln
omp=/usr/lib/llvm-22/lib
rm -rf "$out"
mkdir -p "$out/bin" "$out/work" "$out/lib"

# The runtime as it ships (x86-64-v2, its kernels' AVX2 and AVX-512 copies
# chosen on the GPU host), whatever KILN_RUNTIME_ARCH the build here has.
runtime=$build/gpu-runtime
cmake -G Ninja -S "$root" -B "$runtime" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DKILN_BUILD_COMPILER=OFF -DKILN_RUNTIME_ARCH=x86-64-v2 > /dev/null
ninja -C "$runtime" -j2 kiln_runtime > /dev/null

flags=(-std=c++17 -O2 -march=x86-64-v3 -I"$root/include" -I"$runtime/include")
link=(-L"$runtime/lib/Runtime" -lkiln_runtime -L"$omp" -lomp)

# The sweep, compiled for the GPU: its host code (the stitched calls, the
# graphs' CPU-side checks) for x86-64-v3, so that the GPU machine's CPU runs
# every graph compiled whatever its vector extensions.
"$kiln" compile "$root/benchmarks/sweep/sweep.cpp" --backend=cuda --target-cpu=x86-64-v3 \
  -o "$out/work/sweep.cpp"
"$cxx" "${flags[@]}" -fopenmp "$out/work/sweep.cpp" "$out/work/sweep.o" \
  -o "$out/bin/sweep_cuda" "${link[@]}"

# A model (matmul, softmax, layer_norm, elementwise), eager and compiled for
# the GPU: run.sh compares their outputs and checks that the graph ran.
model=$root/test/Frontend/cuda-backend.cpp
"$cxx" "${flags[@]}" "$model" -o "$out/bin/model_ref" "${link[@]}"
"$kiln" compile "$model" --backend=cuda --target-cpu=x86-64-v3 -o "$out/work/model.cpp"
"$cxx" "${flags[@]}" "$out/work/model.cpp" "$out/work/model.o" -o "$out/bin/model_cuda" \
  "${link[@]}"

# Their shared libraries, but for those every Linux has (the C library, the
# C++ runtime, the loader): the GPU machine's are at least as new.
for exe in "$out"/bin/*; do
  LD_LIBRARY_PATH=$runtime/lib/Runtime ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*)
      continue ;;
  esac
  cp -L "$lib" "$out/lib/$(basename "$lib")"
done
tar -C "$out" -cJf "$out/libs.tar.xz" lib
rm -rf "$out/lib" "$out/work"
cp "$root/test/Frontend/Inputs/compare.py" "$out/"
du -sh "$out"
ls -l "$out" "$out/bin"
