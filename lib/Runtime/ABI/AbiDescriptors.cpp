//===- AbiDescriptors.cpp - Tensors and memref descriptors ---------------===//
//
// The runtime side of kiln/abi.h for data: compiled code's allocations,
// tensors described as memref descriptors and adopted or borrowed back.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "CUDA/CudaDriver.h"
#include "Core/Allocator.h"

#include <algorithm>
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

namespace {
/// A result descriptor's fields.
struct ResultView {
  void *allocated;
  char *aligned;
  int64_t offset; // elements
  Shape shape, strides;
  size_t esize;
  /// One past the last byte the view reaches, from aligned.
  size_t end() const {
    int64_t last = offset;
    for (size_t i = 0; i < shape.size(); ++i)
      last += shape[i] > 0 ? (shape[i] - 1) * strides[i] : 0;
    return static_cast<size_t>(last + 1) * esize;
  }
};

ResultView readResult(const void *descriptor, int64_t rank, DType dtype) {
  const auto *d = static_cast<const int64_t *>(descriptor);
  ResultView v;
  void *aligned;
  std::memcpy(&v.allocated, &d[0], sizeof(void *));
  std::memcpy(&aligned, &d[1], sizeof(void *));
  v.aligned = static_cast<char *>(aligned);
  v.offset = d[2];
  v.shape.assign(d + 3, d + 3 + rank);
  v.strides.assign(d + 3 + rank, d + 3 + 2 * rank);
  v.esize = elementSize(dtype);
  return v;
}

/// Compiled code's blocks go back to the allocator that made them.
Storage::Deleter resultDeleter(Device device) {
  if (device.type == DeviceType::CUDA)
    return [](void *owner, size_t) { cuda::detail::freeDevice(owner); };
  return [](void *owner, size_t) { freeForCompiled(owner); };
}
} // namespace

Tensor adopt(const void *descriptor, int64_t rank, DType dtype, Device device) {
  return adoptResults({{descriptor, rank, dtype}}, device).front();
}

std::vector<Tensor> adoptResults(const std::vector<ResultDescriptor> &results,
                                 Device device) {
  std::vector<ResultView> views;
  views.reserve(results.size());
  for (const ResultDescriptor &r : results)
    views.push_back(readResult(r.descriptor, r.rank, r.dtype));
  // One Storage per buffer, from its aligned start to the furthest byte
  // any of its views reaches.
  std::vector<std::shared_ptr<Storage>> storages(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    if (storages[i])
      continue;
    size_t end = views[i].end();
    for (size_t j = i + 1; j < views.size(); ++j)
      if (views[j].allocated == views[i].allocated)
        end = std::max(end, views[j].end());
    auto storage =
        std::make_shared<Storage>(views[i].aligned, end, views[i].allocated,
                                  resultDeleter(device), device);
    for (size_t j = i; j < views.size(); ++j)
      if (views[j].allocated == views[i].allocated)
        storages[j] = storage;
  }
  std::vector<Tensor> tensors;
  tensors.reserve(views.size());
  for (size_t i = 0; i < views.size(); ++i)
    tensors.emplace_back(storages[i], views[i].shape, views[i].strides,
                         views[i].offset, results[i].dtype);
  return tensors;
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
