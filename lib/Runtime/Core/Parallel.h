//===- Parallel.h - OpenMP loops with a size threshold ----------*- C++ -*-===//
//
// Every eager kernel's loop runs through parallelFor, and so every loop body
// is compiled three times on x86-64: for the library's own target
// (x86-64-v2 by default, KILN_RUNTIME_ARCH) and once more with the features
// of AVX2 (x86-64-v3) and of AVX-512 (x86-64-v4), the body inlined into
// each, with the same tuning. Which one runs is fixed at start-up from cpuid
// and KILN_CPU_CAPABILITY (kernelIsa), as ATen's CPU capability dispatch
// does: one built library runs on any x86-64-v2 CPU at each CPU's vector
// width. What a body calls outside its translation unit, or leaves
// out of line, runs the library's own target; hot helpers a body calls are
// KILN_KERNEL_INLINE so that each copy gets its own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_PARALLEL_H
#define KILN_RUNTIME_PARALLEL_H

#include "Core/CpuFeatures.h"

#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

/// A helper of loop bodies (a function, or a lambda after its parameter
/// list), inlined into each body's instruction set copy.
#define KILN_KERNEL_INLINE inline __attribute__((always_inline))
#define KILN_KERNEL_LAMBDA __attribute__((always_inline))
/// Before a statement that calls a kernel a loop body was handed: the
/// call inlined (clang; g++'s copies inline everything).
#if defined(__clang__)
#define KILN_INLINE_CALL [[clang::always_inline]]
#else
#define KILN_INLINE_CALL
#endif

namespace kiln::detail {

#if defined(__x86_64__)
// The features of KILN_CPU_CAPABILITY's levels 2 and 3 (CpuFeatures.cpp's
// table, which kernelIsa checks).
#define KILN_ISA_AVX2 "avx,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe"
#define KILN_ISA_AVX512                                                        \
  KILN_ISA_AVX2 ",avx512f,avx512vl,avx512bw,avx512dq,avx512cd"
// g++ inlines everything a copy calls (flatten); clang, the calls marked.
#if defined(__clang__)
#define KILN_ISA_COPY(ISA) __attribute__((target(ISA)))
#else
#define KILN_ISA_COPY(ISA) __attribute__((target(ISA), flatten))
#endif

template <typename F>
KILN_ISA_COPY(KILN_ISA_AVX2)
void runAvx2(const F &body, int64_t begin, int64_t end) {
  KILN_INLINE_CALL body(begin, end);
}
template <typename F>
KILN_ISA_COPY(KILN_ISA_AVX512)
void runAvx512(const F &body, int64_t begin, int64_t end) {
  KILN_INLINE_CALL body(begin, end);
}
#undef KILN_ISA_COPY
#endif

/// body(begin, end) in the copy for kernelIsa().
template <typename F> void runBody(const F &body, int64_t begin, int64_t end) {
#if defined(__x86_64__)
  switch (kernelIsa()) {
  case KernelIsa::Avx512:
    return runAvx512(body, begin, end);
  case KernelIsa::Avx2:
    return runAvx2(body, begin, end);
  case KernelIsa::Baseline:
    break;
  }
#endif
  body(begin, end);
}

/// Below this much work (in elements touched) a loop runs on the calling
/// thread: waking the OpenMP team costs more than tiny tensors save.
constexpr int64_t kParallelThreshold = 32768;

/// Calls body(begin, end) over [0, n) in contiguous chunks, one per thread
/// when work (elements touched in all) reaches the threshold, otherwise once
/// on the calling thread. Nested calls run serially.
template <typename F> void parallelFor(int64_t n, int64_t work, const F &body) {
  if (n <= 0)
    return;
#ifdef _OPENMP
  if (work >= kParallelThreshold && n > 1 && !omp_in_parallel() &&
      omp_get_max_threads() > 1) {
#pragma omp parallel
    {
      int64_t threads = omp_get_num_threads();
      int64_t tid = omp_get_thread_num();
      int64_t chunk = (n + threads - 1) / threads;
      int64_t begin = std::min(n, tid * chunk);
      int64_t end = std::min(n, begin + chunk);
      if (begin < end)
        runBody(body, begin, end);
    }
    return;
  }
#endif
  (void)work;
  runBody(body, 0, n);
}

} // namespace kiln::detail

#endif
