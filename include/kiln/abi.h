//===- kiln/abi.h - How C++ calls compiled graphs ---------------*- C++ -*-===//
//
// A compiled graph NAME is called as kiln_entry_NAME(void **args):
//   args[0]      the results: one memref descriptor per tensor result, in
//                order, then an int32 status (0: ok; 1: a shape check failed);
//   args[1 + i]  the address of parameter i: a descriptor for a tensor, the
//                value for a scalar (int64 for sizes, float/double, ...).
// A descriptor is MLIR's strided memref: {allocated, aligned, offset,
// sizes[rank], strides[rank]}, elements and strides counted in elements.
// Inputs are described as they are (any strides, no copy); results come back
// in buffers that compiled code allocated through allocateForCompiled, and
// become Tensors
// that own them (no copy). docs/abi.md has the details.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ABI_H
#define KILN_ABI_H

#include "kiln/Tensor.h"

#include <cstddef>
#include <cstdint>

namespace kiln::abi {

/// Bytes of a descriptor of this rank.
inline size_t descriptorSize(int64_t rank) {
  return sizeof(int64_t) * static_cast<size_t>(3 + 2 * rank);
}

/// The allocator of compiled code (64-byte aligned blocks from the
/// runtime's caching allocator); results are freed with freeForCompiled.
void *allocateForCompiled(size_t nbytes);
void freeForCompiled(void *ptr);

/// Writes t's descriptor (a view of its storage, no copy) to out.
void describe(const Tensor &t, void *out);

/// The Tensor of a result descriptor of this rank and dtype, owning the
/// buffer it describes (allocated by compiled code).
Tensor adopt(const void *descriptor, int64_t rank, DType dtype);

/// A Tensor viewing a descriptor's memory without owning it (for the
/// arguments of an opaque call: valid only during the call).
Tensor borrow(const void *descriptor, int64_t rank, DType dtype);

/// Writes t as a result descriptor: a contiguous copy in a buffer that
/// compiled code then owns (for the results of an opaque call).
void returnTensor(const Tensor &t, void *descriptor);

extern "C" {
/// The signature of every compiled graph's entry point.
using EntryPoint = void (*)(void **args);
}

} // namespace kiln::abi

#endif
