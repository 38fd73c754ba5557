//===- Allocator.h - Host memory for tensors --------------------*- C++ -*-===//
#ifndef KILN_RUNTIME_ALLOCATOR_H
#define KILN_RUNTIME_ALLOCATOR_H

#include "kiln/DType.h"

#include <cstddef>

namespace kiln::detail {

/// 64-byte aligned memory. Large blocks are cached and reused by size, so an
/// eager op on a big tensor does not pay the kernel's page faults on every
/// call (the cache is bounded; see Allocator.cpp).
void *allocateHost(size_t nbytes);
void freeHost(void *ptr, size_t nbytes);

/// nbytes on `device` from that device's allocator (the host's above,
/// another device's from its registered backend, Core/Device.h), and the
/// function that gives them back: the one place that picks an allocator by
/// device.
struct Block {
  void *data;
  void (*free)(void *data, size_t nbytes);
};
Block allocate(size_t nbytes, Device device);

} // namespace kiln::detail

#endif
