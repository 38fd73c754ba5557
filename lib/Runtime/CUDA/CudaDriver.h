//===- CudaDriver.h - The CUDA driver, loaded at run time -------*- C++ -*-===//
//
// The runtime never links CUDA: libcuda.so.1 is opened with dlopen the
// first time something asks for a GPU, so that a machine without a driver
// builds and runs everything else. Errors become kiln::Error with the
// driver's own message.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CUDADRIVER_H
#define KILN_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::cuda::detail {

/// Whether the driver loaded, initialised, and has device 0 (its primary
/// context then current on the calling thread). Never throws.
bool ready();
/// Why ready() is false ("libcuda.so.1 not found", "no CUDA device", ...).
std::string whyNotReady();
/// Throws kiln::Error naming `op` unless ready().
void require(const char *op);

/// Device memory from a caching allocator: freed blocks are kept by size
/// and handed out again (all work runs on the one legacy stream, so reuse
/// in program order is safe). Sizes round up to powers of two from 512
/// bytes; a failed allocation empties the cache and tries once more.
void *allocateDevice(size_t nbytes);
void freeDevice(void *ptr);

void copyToDevice(void *dst, const void *src, size_t nbytes);
void copyToHost(void *dst, const void *src, size_t nbytes);
void copyOnDevice(void *dst, const void *src, size_t nbytes);
/// Either way (host or device on each side: unified addressing).
void copyAny(void *dst, const void *src, size_t nbytes, const char *op);
/// Waits for all launched work; throws kiln::Error if a kernel failed.
void synchronize(const char *op);

/// A module image (PTX text or a cubin/fatbin) loaded on first use.
struct Module;
Module *registerModule(const void *image, size_t size, bool ptx);
void unregisterModule(Module *module);
/// The kernel `name` of `module` (loading the module once); nullptr and a
/// pending error (see takeError) when it cannot be loaded.
void *function(Module *module, const char *name);
/// Launches on the legacy default stream; failures become the pending error.
void launch(void *function, int64_t gridX, int64_t gridY, int64_t gridZ,
            int64_t blockX, int64_t blockY, int64_t blockZ, int32_t sharedBytes,
            void **params);
/// KILN_PROFILE (set, not "0"): each piece of GPU work a graph call
/// launches (a kernel, a cuBLAS call) is timed between two CUDA events,
/// and the call reports them after the graph (reportProfile).
bool profiling();
/// Times the GPU work launched while it lives, unless !profiling() or
/// another TimedWork is live (a cuBLAS fallback's own gemms): name() names
/// it (called only when it is timed), `flops` is its arithmetic where
/// known (0 otherwise).
class TimedWork {
public:
  template <typename Name> TimedWork(const Name &name, double flops) {
    if (profiling())
      start(name(), flops);
  }
  ~TimedWork();
  TimedWork(const TimedWork &) = delete;
  TimedWork &operator=(const TimedWork &) = delete;

private:
  void start(const std::string &what, double flops);
  bool active_ = false;
};
/// Prints to stderr, as "kiln profile: graph GRAPH: ..." lines, each piece
/// of work timed on this thread since the last report (its time, and its
/// rate where its flops are known), then their count and total beside the
/// call's own `callMs`; forgets them. Call after synchronize().
void reportProfile(const char *graph, double callMs);

/// The first error that compiled code met since the last call, or "".
/// (Compiled code calls the launcher through C functions and cannot throw.)
std::string takeError();
/// Records an error met inside a C entry point.
void setError(const std::string &message);
bool errorPending();

} // namespace kiln::cuda::detail

#endif
