//===- Allocator.cpp - A size-keyed cache of large host blocks ------------===//
//
// glibc returns blocks above its mmap threshold to the kernel on free, and
// the next op of the same size faults every page in again: on a 64 MB tensor
// that costs as much as the op itself. Like PyTorch's caching allocators,
// freed large blocks wait in a cache keyed by their exact size. The cache is
// bounded (a quarter of the machine's memory, at least 1 GiB, or
// KILN_HOST_CACHE_MB): when it is full, the blocks freed longest ago are
// released, and an allocation that fails releases the whole cache and
// tries again.
//
//===----------------------------------------------------------------------===//
#include "Core/Allocator.h"
#include "Core/Device.h"

#include "kiln/Error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <string>

#include <unistd.h>

namespace kiln::detail {
namespace {

constexpr size_t kAlignment = 64;
// glibc's mmap threshold starts at 128 KiB: blocks from there on are the
// ones it may hand back to the kernel. (From 1 MiB only, a bfloat16 GPT-2
// block's [512, 768] activations, 768 KiB, faulted in afresh every call:
// 8% of its compiled time on the Xeon.)
constexpr size_t kCachedMinBytes = size_t(128) << 10;

/// A training step's transient buffers are reused step after step: GPT-2
/// 124M's (B=4, T=64) come to about 3 GiB, and with a 1 GiB cache a third
/// of its compiled step went to the kernel's page faults on the Xeon.
size_t cacheCapacityBytes() {
  static const size_t capacity = [] {
    const char *env = std::getenv("KILN_HOST_CACHE_MB");
    if (env && *env) {
      char *end = nullptr;
      unsigned long long mb = std::strtoull(env, &end, 10);
      if (end != env && *end == '\0')
        return static_cast<size_t>(mb) << 20;
      std::fprintf(stderr,
                   "kiln: warning: KILN_HOST_CACHE_MB=%s is not a number of "
                   "MiB: ignored\n",
                   env);
    }
    size_t floor = size_t(1) << 30;
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
      return floor;
    return std::max(floor, static_cast<size_t>(pages) *
                               static_cast<size_t>(pageSize) / 4);
  }();
  return capacity;
}

struct CachedBlock {
  size_t size;
  void *ptr;
};

/// Freed blocks by size, evicted oldest first when the cache is full (so
/// that blocks of sizes no longer used do not crowd out current ones).
struct BlockCache {
  std::mutex mutex;
  std::list<CachedBlock> age; // oldest first
  std::multimap<size_t, std::list<CachedBlock>::iterator> bySize;
  size_t cachedBytes = 0;

  void *take(size_t size) {
    auto it = bySize.find(size);
    if (it == bySize.end())
      return nullptr;
    void *ptr = it->second->ptr;
    age.erase(it->second);
    bySize.erase(it);
    cachedBytes -= size;
    return ptr;
  }

  void put(size_t size, void *ptr) {
    while (!age.empty() && cachedBytes + size > cacheCapacityBytes())
      releaseOldest();
    age.push_back({size, ptr});
    bySize.emplace(size, std::prev(age.end()));
    cachedBytes += size;
  }

  void releaseOldest() {
    CachedBlock oldest = age.front();
    auto range = bySize.equal_range(oldest.size);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == age.begin()) {
        bySize.erase(it);
        break;
      }
    age.pop_front();
    cachedBytes -= oldest.size;
    std::free(oldest.ptr);
  }

  void releaseAll() {
    while (!age.empty())
      releaseOldest();
  }

  ~BlockCache() { releaseAll(); }
};

BlockCache &cache() {
  static BlockCache instance;
  return instance;
}

size_t roundUp(size_t n) {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace

void *allocateHost(size_t nbytes) {
  size_t size = roundUp(nbytes == 0 ? 1 : nbytes);
  if (size >= kCachedMinBytes) {
    BlockCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (void *ptr = c.take(size))
      return ptr;
  }
  void *ptr = std::aligned_alloc(kAlignment, size);
  if (!ptr) {
    BlockCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.releaseAll();
    ptr = std::aligned_alloc(kAlignment, size);
  }
  if (!ptr)
    throw Error("out of memory allocating " + std::to_string(nbytes) +
                " bytes");
  return ptr;
}

void freeHost(void *ptr, size_t nbytes) {
  if (!ptr)
    return;
  size_t size = roundUp(nbytes == 0 ? 1 : nbytes);
  if (size >= kCachedMinBytes && size <= cacheCapacityBytes()) {
    BlockCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.put(size, ptr);
    return;
  }
  std::free(ptr);
}

Block allocate(size_t nbytes, Device device) {
  if (device.type == DeviceType::CPU)
    return {allocateHost(nbytes), freeHost};
  const DeviceBackend &backend =
      deviceBackend(device.type, "tensor allocation");
  return {backend.allocate(nbytes), backend.free};
}

} // namespace kiln::detail
