//===- FakeDriver.cpp - A stand-in libcuda for testing the runtime --------===//
//
// Loaded through KILN_LIBCUDA by kiln-cuda-runtime-tests: one "device"
// whose memory is host memory, so that the runtime's driver loading,
// caching allocator, transfers, staging of graph inputs and error paths run
// on machines without a GPU. It runs no kernels: a launch fails with an
// error of its own, which tests expect to surface as kiln::Error.
//
//===----------------------------------------------------------------------===//
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace {
std::mutex mutex;
std::set<void *> live; // device allocations
int modulesLoaded = 0;
constexpr int kNotFound = 500, kInvalidValue = 1, kLaunchFailed = 719;
} // namespace

extern "C" {

int cuInit(unsigned) { return 0; }
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : kInvalidValue;
}
int cuDevicePrimaryCtxRetain(void **context, int) {
  static int primary;
  *context = &primary;
  return 0;
}
int cuCtxSetCurrent(void *) { return 0; }
int cuCtxSynchronize() { return 0; }

int cuMemAlloc_v2(unsigned long long *ptr, size_t size) {
  void *p = std::malloc(size);
  std::lock_guard<std::mutex> lock(mutex);
  live.insert(p);
  *ptr = reinterpret_cast<unsigned long long>(p);
  return 0;
}
int cuMemFree_v2(unsigned long long ptr) {
  void *p = reinterpret_cast<void *>(ptr);
  std::lock_guard<std::mutex> lock(mutex);
  if (!live.erase(p))
    return kInvalidValue;
  std::free(p);
  return 0;
}
int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return 0;
}
int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), n);
  return 0;
}
int cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst),
              reinterpret_cast<const void *>(src), n);
  return 0;
}

int cuMemcpy(unsigned long long dst, unsigned long long src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst),
              reinterpret_cast<const void *>(src), n);
  return 0;
}

/// Accepts PTX text and ELF/fatbin images by their first bytes.
int cuModuleLoadData(void **module, const void *image) {
  const char *bytes = static_cast<const char *>(image);
  if (std::strncmp(bytes, "//", 2) != 0 &&
      std::strncmp(bytes, ".version", 8) != 0 &&
      std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0 &&
      std::memcmp(bytes, "\x50\xed\x55\xba", 4) != 0)
    return kInvalidValue;
  ++modulesLoaded;
  *module = const_cast<void *>(image);
  return 0;
}
int cuModuleUnload(void *) { return 0; }
int cuModuleGetFunction(void **fn, void *, const char *name) {
  if (std::strcmp(name, "missing") == 0)
    return kNotFound;
  *fn = const_cast<char *>(name);
  return 0;
}
/// Runs no kernel, but for one named "noop" (the profiling test's).
int cuLaunchKernel(void *fn, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, void *, void **, void **) {
  return std::strcmp(static_cast<const char *>(fn), "noop") == 0
             ? 0
             : kLaunchFailed;
}

/// Events on a clock that ticks once per record: an elapsed time is a
/// quarter of a millisecond per record between the two.
int cuEventCreate(void **event, unsigned) {
  *event = new int(0);
  return 0;
}
int cuEventRecord(void *event, void *) {
  static int clock = 0;
  *static_cast<int *>(event) = ++clock;
  return 0;
}
int cuEventElapsedTime(float *ms, void *start, void *stop) {
  *ms = 0.25f * float(*static_cast<int *>(stop) - *static_cast<int *>(start));
  return 0;
}
int cuEventDestroy_v2(void *event) {
  delete static_cast<int *>(event);
  return 0;
}
int cuGetErrorString(int error, const char **text) {
  switch (error) {
  case kNotFound:
    *text = "named symbol not found (fake driver)";
    return 0;
  case kLaunchFailed:
    *text = "the fake driver runs no kernels";
    return 0;
  case kInvalidValue:
    *text = "invalid argument (fake driver)";
    return 0;
  default:
    return kInvalidValue;
  }
}

/// For the tests: how many device blocks are live (cached ones included).
size_t kiln_fake_cuda_live_blocks() {
  std::lock_guard<std::mutex> lock(mutex);
  return live.size();
}
int kiln_fake_cuda_modules_loaded() { return modulesLoaded; }

} // extern "C"
