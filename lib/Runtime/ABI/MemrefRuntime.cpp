//===- MemrefRuntime.cpp - What MLIR-lowered code calls ------------------===//
//
// The functions MLIR's lowering calls by name, which its runtime library
// would provide (it is not shipped): allocation through the runtime's
// caching allocator, memrefCopy between strided buffers, and the release of
// an allow_in_graph result copied to the device.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "ABI/Descriptors.h"
#include "Core/Parallel.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

extern "C" void *_mlir_memref_to_llvm_alloc(size_t nbytes) {
  return kiln::abi::allocateForCompiled(nbytes);
}

/// Blocks are 64-byte aligned, which is what the pipeline asks for.
extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t nbytes) {
  (void)alignment;
  return kiln::abi::allocateForCompiled(nbytes);
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  kiln::abi::freeForCompiled(ptr);
}

/// GPU graphs' host code allocates with malloc; the result of an
/// allow_in_graph call (abi::returnTensor's buffer, its allocated and
/// aligned pointers equal) comes back here once copied to the device.
extern "C" void kiln_release_returned_buffer(uintptr_t buffer) {
  kiln::abi::freeForCompiled(reinterpret_cast<void *>(buffer));
}

namespace {
/// Copies n elements of elemSize bytes at element strides ds and ss (0:
/// one element read n times, a run-time broadcast), typed for the usual
/// sizes so that the loop vectorizes: a memcpy call per element (or per
/// doubling of a broadcast row) made a MoE's broadcast gate, [8192, 16]
/// from one column, cost 91 us against 40 now.
template <typename T>
KILN_KERNEL_INLINE void copyTyped(char *d, int64_t ds, const char *s,
                                  int64_t ss, int64_t n) {
  T *dt = reinterpret_cast<T *>(d);
  const T *st = reinterpret_cast<const T *>(s);
  if (ss == 0 && ds == 1) { // a broadcast into a contiguous row
    std::fill_n(dt, n, *st);
    return;
  }
  for (int64_t j = 0; j < n; ++j)
    dt[j * ds] = st[j * ss];
}

KILN_KERNEL_INLINE void copyElements(char *d, int64_t ds, const char *s,
                                     int64_t ss, int64_t n, int64_t elemSize) {
  switch (elemSize) {
  case 1:
    return copyTyped<uint8_t>(d, ds, s, ss, n);
  case 2:
    return copyTyped<uint16_t>(d, ds, s, ss, n);
  case 4:
    return copyTyped<uint32_t>(d, ds, s, ss, n);
  case 8:
    return copyTyped<uint64_t>(d, ds, s, ss, n);
  default:
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(d + j * ds * elemSize, s + j * ss * elemSize,
                  static_cast<size_t>(elemSize));
  }
}
} // namespace

/// Copies src to dst, both strided memrefs of the same shape.
extern "C" void memrefCopy(int64_t elemSize, kiln::detail::UnrankedView *src,
                           kiln::detail::UnrankedView *dst) {
  int64_t rank = src->rank;
  auto *s = static_cast<int64_t *>(src->descriptor);
  auto *d = static_cast<int64_t *>(dst->descriptor);
  char *sBase, *dBase;
  std::memcpy(&sBase, &s[1], sizeof(void *));
  std::memcpy(&dBase, &d[1], sizeof(void *));
  sBase += s[2] * elemSize;
  dBase += d[2] * elemSize;
  const int64_t *sizes = s + 3, *sStrides = s + 3 + rank,
                *dStrides = d + 3 + rank;
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= sizes[i];
  if (total == 0)
    return;
  // Rows of the last dim: one memcpy each when both sides are contiguous
  // there (a pad's interior, a slice), rows split over the threads.
  int64_t cols = rank ? sizes[rank - 1] : 1;
  bool rowsContiguous = rank == 0 || ((sStrides[rank - 1] == 1 || cols == 1) &&
                                      (dStrides[rank - 1] == 1 || cols == 1));
  // Otherwise element by element (copyElements), a run-time broadcast
  // along the last dim (source stride 0) included.
  int64_t rows = total / cols;
  size_t rowBytes = static_cast<size_t>((rowsContiguous ? cols : 1) * elemSize);
  kiln::detail::parallelFor(rows, total, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      // The coordinates of the row's first element.
      int64_t rest = row, so = 0, dO = 0;
      for (int64_t i = rank - 2; i >= 0; --i) {
        int64_t at = rest % sizes[i];
        rest /= sizes[i];
        so += at * sStrides[i];
        dO += at * dStrides[i];
      }
      char *d = dBase + dO * elemSize;
      const char *s = sBase + so * elemSize;
      if (rowsContiguous) {
        std::memcpy(d, s, rowBytes);
        continue;
      }
      KILN_INLINE_CALL copyElements(d, dStrides[rank - 1], s,
                                    sStrides[rank - 1], cols, elemSize);
    }
  });
}
