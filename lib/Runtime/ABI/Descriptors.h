//===- Descriptors.h - Memref descriptors as the runtime reads them -*- C++
//-*-===//
//
// What compiled code passes the runtime's C-interface functions (BLAS
// calls, copies): MLIR's strided memref descriptors, ranked and unranked.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_DESCRIPTORS_H
#define KILN_RUNTIME_DESCRIPTORS_H

#include <cstdint>

namespace kiln::detail {

/// A rank-2 descriptor.
template <typename T> struct Matrix {
  void *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
  T *data() const { return aligned + offset; }
};

/// An unranked memref: its rank and the address of its descriptor.
struct UnrankedView {
  int64_t rank;
  void *descriptor;
};

} // namespace kiln::detail

#endif
