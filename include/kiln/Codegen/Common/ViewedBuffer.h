//===- ViewedBuffer.h - The buffer under a chain of views -----*- C++ -*-===//
//
// Shared by the transforms that reason about which buffer a memref value
// reads or writes (row fusion, prefetching, GPU device buffers).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_COMMON_VIEWEDBUFFER_H
#define KILN_CODEGEN_COMMON_VIEWEDBUFFER_H

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::kiln {

/// The buffer (an allocation, a function argument...) that `v` views,
/// through subviews, casts, reshapes and other view-like ops.
inline Value viewedBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

} // namespace mlir::kiln

#endif
