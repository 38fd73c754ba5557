//===- AbiDescriptors.cpp - Tensors and memref descriptors ---------------===//
//
// The runtime side of kiln/abi.h for data: compiled code's allocations,
// tensors described as memref descriptors and adopted or borrowed back.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "CUDA/CudaDriver.h"
#include "Core/Allocator.h"

#include <cstring>

namespace kiln::abi {

// Compiled code allocates through the runtime's caching allocator (the
// pipeline lowers memref.alloc to _mlir_memref_to_llvm_alloc): a 64-byte
// header in front of each block records its size for the free.
namespace {
constexpr size_t kHeader = 64;
} // namespace

void *allocateForCompiled(size_t nbytes) {
  char *block = static_cast<char *>(detail::allocateHost(nbytes + kHeader));
  std::memcpy(block, &nbytes, sizeof(nbytes));
  return block + kHeader;
}

void freeForCompiled(void *ptr) {
  if (!ptr)
    return;
  char *block = static_cast<char *>(ptr) - kHeader;
  size_t nbytes;
  std::memcpy(&nbytes, block, sizeof(nbytes));
  detail::freeHost(block, nbytes + kHeader);
}

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

Tensor adopt(const void *descriptor, int64_t rank, DType dtype, Device device) {
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
  char *data =
      static_cast<char *>(aligned) + d[2] * static_cast<int64_t>(esize);
  // Compiled code's blocks go back to the allocator that made them.
  Storage::Deleter free =
      device.type == DeviceType::CUDA
          ? [](void *owner, size_t) { cuda::detail::freeDevice(owner); }
          : [](void *owner, size_t) { freeForCompiled(owner); };
  auto storage = std::make_shared<Storage>(
      data, static_cast<size_t>(span) * esize, allocated, free, device);
  return Tensor(storage, shape, strides, 0, dtype);
}

Tensor borrow(const void *descriptor, int64_t rank, DType dtype) {
  const auto *d = static_cast<const int64_t *>(descriptor);
  void *aligned;
  std::memcpy(&aligned, &d[1], sizeof(void *));
  Shape shape(d + 3, d + 3 + rank), strides(d + 3 + rank, d + 3 + 2 * rank);
  size_t esize = elementSize(dtype);
  char *data =
      static_cast<char *>(aligned) + d[2] * static_cast<int64_t>(esize);
  int64_t span = 1;
  for (int64_t i = 0; i < rank; ++i)
    span += shape[i] > 0 ? (shape[i] - 1) * strides[i] : 0;
  auto storage = std::make_shared<Storage>(
      data, static_cast<size_t>(span) * esize, nullptr, nullptr); // borrowed
  return Tensor(storage, shape, strides, 0, dtype);
}

void returnTensor(const Tensor &t, void *descriptor) {
  Tensor c = t.contiguous();
  size_t nbytes = static_cast<size_t>(c.numel()) * elementSize(c.dtype());
  void *buffer = allocateForCompiled(nbytes);
  std::memcpy(buffer, c.raw_data(), nbytes);
  auto *d = static_cast<int64_t *>(descriptor);
  std::memcpy(&d[0], &buffer, sizeof(void *));
  std::memcpy(&d[1], &buffer, sizeof(void *));
  d[2] = 0;
  int64_t rank = c.dim();
  for (int64_t i = 0; i < rank; ++i) {
    d[3 + i] = c.shape()[i];
    d[3 + rank + i] = c.strides()[i];
  }
}

} // namespace kiln::abi
