//===- Allocator.cpp - A size-keyed cache of large host blocks ------------===//
//
// glibc returns blocks above its mmap threshold to the kernel on free, and
// the next op of the same size faults every page in again: on a 64 MB tensor
// that costs as much as the op itself. Like PyTorch's caching allocators,
// freed large blocks wait in a cache keyed by their exact size. The cache is
// bounded; blocks beyond the bound are freed.
//
//===----------------------------------------------------------------------===//
#include "Allocator.h"

#include "kiln/Error.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace kiln::detail {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kCachedMinBytes = size_t(1) << 20;
constexpr size_t kCacheCapacityBytes = size_t(1) << 30;

struct BlockCache {
  std::mutex mutex;
  std::multimap<size_t, void *> free;
  size_t cachedBytes = 0;

  ~BlockCache() {
    for (auto &entry : free)
      std::free(entry.second);
  }
};

BlockCache &cache() {
  static BlockCache instance;
  return instance;
}

size_t roundUp(size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

} // namespace

void *allocateHost(size_t nbytes) {
  size_t size = roundUp(nbytes == 0 ? 1 : nbytes);
  if (size >= kCachedMinBytes) {
    BlockCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free.find(size);
    if (it != c.free.end()) {
      void *ptr = it->second;
      c.free.erase(it);
      c.cachedBytes -= size;
      return ptr;
    }
  }
  void *ptr = std::aligned_alloc(kAlignment, size);
  if (!ptr)
    throw Error("out of memory allocating " + std::to_string(nbytes) +
                " bytes");
  return ptr;
}

void freeHost(void *ptr, size_t nbytes) {
  if (!ptr)
    return;
  size_t size = roundUp(nbytes == 0 ? 1 : nbytes);
  if (size >= kCachedMinBytes) {
    BlockCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.cachedBytes + size <= kCacheCapacityBytes) {
      c.free.emplace(size, ptr);
      c.cachedBytes += size;
      return;
    }
  }
  std::free(ptr);
}

} // namespace kiln::detail
