//===- CompiledAbi.cpp - Descriptors for compiled graphs ------------------===//
//
// The runtime side of the ABI in kiln/abi.h, and memrefCopy, which compiled
// code calls to copy between strided buffers (MLIR's runtime library is not
// shipped, so the runtime provides the one function the CPU lowering needs).
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include <cstring>
#include <vector>

namespace kiln::abi {

void describe(const Tensor &t, void *out) {
  t.checkDefined("compiled graph input");
  auto *d = static_cast<int64_t *>(out);
  char *base = static_cast<char *>(t.storage()->data());
  std::memcpy(&d[0], &base, sizeof(void *));
  std::memcpy(&d[1], &base, sizeof(void *));
  d[2] = t.storage_offset();
  int64_t rank = t.dim();
  for (int64_t i = 0; i < rank; ++i) {
    d[3 + i] = t.shape()[i];
    d[3 + rank + i] = t.strides()[i];
  }
}

Tensor adopt(const void *descriptor, int64_t rank, DType dtype) {
  const auto *d = static_cast<const int64_t *>(descriptor);
  void *allocated, *aligned;
  std::memcpy(&allocated, &d[0], sizeof(void *));
  std::memcpy(&aligned, &d[1], sizeof(void *));
  Shape shape(d + 3, d + 3 + rank), strides(d + 3 + rank, d + 3 + 2 * rank);
  // The extent the view spans, from its first element.
  int64_t span = 1;
  for (int64_t i = 0; i < rank; ++i)
    span += shape[i] > 0 ? (shape[i] - 1) * strides[i] : 0;
  size_t esize = elementSize(dtype);
  char *data = static_cast<char *>(aligned) + d[2] * static_cast<int64_t>(esize);
  auto storage = std::make_shared<Storage>(
      data, static_cast<size_t>(span) * esize, allocated);
  return Tensor(storage, shape, strides, 0, dtype);
}

} // namespace kiln::abi

namespace {
struct UnrankedDescriptor {
  int64_t rank;
  void *descriptor;
};
} // namespace

/// Copies src to dst, both strided memrefs of the same shape.
extern "C" void memrefCopy(int64_t elemSize, UnrankedDescriptor *src,
                           UnrankedDescriptor *dst) {
  int64_t rank = src->rank;
  auto *s = static_cast<int64_t *>(src->descriptor);
  auto *d = static_cast<int64_t *>(dst->descriptor);
  char *sBase, *dBase;
  std::memcpy(&sBase, &s[1], sizeof(void *));
  std::memcpy(&dBase, &d[1], sizeof(void *));
  sBase += s[2] * elemSize;
  dBase += d[2] * elemSize;
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= s[3 + i];
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t so = 0, dO = 0;
    for (int64_t i = 0; i < rank; ++i) {
      so += index[i] * s[3 + rank + i];
      dO += index[i] * d[3 + rank + i];
    }
    std::memcpy(dBase + dO * elemSize, sBase + so * elemSize,
                static_cast<size_t>(elemSize));
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < s[3 + i])
        break;
      index[i] = 0;
    }
  }
}
