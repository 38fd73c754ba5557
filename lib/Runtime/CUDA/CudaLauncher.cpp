//===- CudaLauncher.cpp - What GPU graphs' host code calls ----------------===//
//
// The GPU pipeline lowers launches, device allocations and module loads
// with upstream's gpu-to-llvm conversion, which calls the mgpu* functions
// of MLIR's runtime-wrapper ABI. Kiln implements them here on its own
// driver loader (CudaDriver.cpp) rather than shipping MLIR's CUDA wrappers:
//
// * every launch goes to the one legacy default stream, in program order:
//   streams the code "creates" are that stream, and synchronizing or
//   destroying one is a no-op (GraphCall waits once, after the graph);
// * allocations come from the caching device allocator;
// * a module image registered by a static constructor is loaded on the
//   first launch, so a program without a GPU never touches the driver;
// * errors cannot be thrown through compiled code: they are kept and
//   GraphCall raises them as kiln::Error after the graph returns.
//
//===----------------------------------------------------------------------===//
#include "CUDA/CudaDriver.h"

#include <cstring>
#include <exception>

using namespace kiln::cuda::detail;

extern "C" {

/// A fatbin or cubin image.
void *mgpuModuleLoad(void *data, size_t size) {
  return registerModule(data, size, /*ptx=*/false);
}

/// PTX text (NUL-terminated), compiled by the driver when loaded.
void *mgpuModuleLoadJIT(void *data, int optLevel) {
  (void)optLevel;
  return registerModule(data, std::strlen(static_cast<const char *>(data)),
                        /*ptx=*/true);
}

void mgpuModuleUnload(void *module) {
  unregisterModule(static_cast<Module *>(module));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  return function(static_cast<Module *>(module), name);
}

void mgpuLaunchKernel(void *fn, int64_t gridX, int64_t gridY, int64_t gridZ,
                      int64_t blockX, int64_t blockY, int64_t blockZ,
                      int32_t sharedBytes, void *stream, void **params,
                      void **extra, size_t paramCount) {
  (void)stream;
  (void)extra;
  (void)paramCount;
  launch(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes, params);
}

void *mgpuStreamCreate() { return nullptr; }
void mgpuStreamDestroy(void *stream) { (void)stream; }
void mgpuStreamSynchronize(void *stream) { (void)stream; }
void mgpuStreamWaitEvent(void *stream, void *event) {
  (void)stream;
  (void)event;
}
void *mgpuEventCreate() { return nullptr; }
void mgpuEventDestroy(void *event) { (void)event; }
void mgpuEventSynchronize(void *event) { (void)event; }
void mgpuEventRecord(void *event, void *stream) {
  (void)event;
  (void)stream;
}

void *mgpuMemAlloc(uint64_t size, void *stream, bool hostShared) {
  (void)stream;
  if (hostShared) {
    setError("cuda: host-shared allocations are not supported");
    return nullptr;
  }
  try {
    return allocateDevice(size);
  } catch (const std::exception &e) {
    setError(e.what());
    return nullptr;
  }
}

/// Host <-> device copies of compiled code (a graph reading a flag its
/// kernels computed); synchronous, after the work launched before it.
void mgpuMemcpy(void *dst, void *src, size_t size, void *stream) {
  (void)stream;
  if (!errorPending())
    try {
      copyAny(dst, src, size, "cuda: copy in a graph");
    } catch (const std::exception &e) {
      setError(e.what());
    }
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  freeDevice(ptr);
}

} // extern "C"
