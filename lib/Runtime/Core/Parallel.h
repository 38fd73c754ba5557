//===- Parallel.h - OpenMP loops with a size threshold ----------*- C++ -*-===//
#ifndef KILN_RUNTIME_PARALLEL_H
#define KILN_RUNTIME_PARALLEL_H

#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace kiln::detail {

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
        body(begin, end);
    }
    return;
  }
#endif
  (void)work;
  body(0, n);
}

} // namespace kiln::detail

#endif
