//===- Allocator.h - Host memory for tensors --------------------*- C++ -*-===//
#ifndef KILN_RUNTIME_ALLOCATOR_H
#define KILN_RUNTIME_ALLOCATOR_H

#include <cstddef>

namespace kiln::detail {

/// 64-byte aligned memory. Large blocks are cached and reused by size, so an
/// eager op on a big tensor does not pay the kernel's page faults on every
/// call (the cache is bounded; see Allocator.cpp).
void *allocateHost(size_t nbytes);
void freeHost(void *ptr, size_t nbytes);

} // namespace kiln::detail

#endif
