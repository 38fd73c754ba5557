//===- CudaDriver.cpp - The CUDA driver, loaded at run time ---------------===//
//
// Declares the few driver entry points the runtime uses (their C ABI is
// stable across CUDA releases; the _v2 names are the 64-bit ones) instead
// of including cuda.h, so the runtime builds without the toolkit.
//
//===----------------------------------------------------------------------===//
#include "CUDA/CudaDriver.h"
#include "Core/Device.h"

#include "kiln/Cuda.h"
#include "kiln/Error.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace kiln::cuda::detail {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxSynchronize)();
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*memcpy)(CUdeviceptr, CUdeviceptr, size_t); // either side (UVA)
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*getErrorString)(CUresult, const char **);
  // Events, for KILN_PROFILE only (a driver without them profiles nothing).
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*eventDestroy)(CUevent);
  bool events = false;

  bool ok = false;
  std::string why;
  CUcontext context = nullptr;
};

template <typename F> bool bind(void *lib, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

Driver loadDriver() {
  Driver d{};
  // KILN_LIBCUDA names another driver library (tests use a stand-in).
  const char *path = std::getenv("KILN_LIBCUDA");
  void *lib =
      dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    d.why = "the CUDA driver (libcuda.so.1) could not be loaded";
    return d;
  }
  bool bound = bind(lib, "cuInit", d.init) &&
               bind(lib, "cuDeviceGetCount", d.deviceGetCount) &&
               bind(lib, "cuDeviceGet", d.deviceGet) &&
               bind(lib, "cuDevicePrimaryCtxRetain", d.primaryCtxRetain) &&
               bind(lib, "cuCtxSetCurrent", d.ctxSetCurrent) &&
               bind(lib, "cuCtxSynchronize", d.ctxSynchronize) &&
               bind(lib, "cuMemAlloc_v2", d.memAlloc) &&
               bind(lib, "cuMemFree_v2", d.memFree) &&
               bind(lib, "cuMemcpyHtoD_v2", d.memcpyHtoD) &&
               bind(lib, "cuMemcpyDtoH_v2", d.memcpyDtoH) &&
               bind(lib, "cuMemcpyDtoD_v2", d.memcpyDtoD) &&
               bind(lib, "cuMemcpy", d.memcpy) &&
               bind(lib, "cuModuleLoadData", d.moduleLoadData) &&
               bind(lib, "cuModuleUnload", d.moduleUnload) &&
               bind(lib, "cuModuleGetFunction", d.moduleGetFunction) &&
               bind(lib, "cuLaunchKernel", d.launchKernel) &&
               bind(lib, "cuGetErrorString", d.getErrorString);
  if (!bound) {
    d.why = "the CUDA driver lacks a function the runtime needs";
    return d;
  }
  d.events = bind(lib, "cuEventCreate", d.eventCreate) &&
             bind(lib, "cuEventRecord", d.eventRecord) &&
             bind(lib, "cuEventElapsedTime", d.eventElapsedTime) &&
             bind(lib, "cuEventDestroy_v2", d.eventDestroy);
  int count = 0;
  if (d.init(0) != 0 || d.deviceGetCount(&count) != 0 || count == 0) {
    d.why = "no CUDA device";
    return d;
  }
  CUdevice device = 0;
  if (d.deviceGet(&device, 0) != 0 ||
      d.primaryCtxRetain(&d.context, device) != 0) {
    d.why = "the CUDA device's context could not be created";
    return d;
  }
  d.ok = true;
  return d;
}

Driver &driver() {
  static Driver d = loadDriver();
  // The primary context is current on every thread that uses the GPU.
  thread_local bool current = false;
  if (d.ok && !current) {
    d.ctxSetCurrent(d.context);
    current = true;
  }
  return d;
}

std::string message(CUresult result) {
  const char *text = nullptr;
  if (driver().getErrorString(result, &text) != 0 || !text)
    return "CUDA error " + std::to_string(result);
  return text;
}

void check(CUresult result, const char *op) {
  if (result != 0)
    throw Error(std::string(op) + ": " + message(result));
}

//===----------------------------------------------------------------------===//
// The caching allocator
//===----------------------------------------------------------------------===//

struct Cache {
  std::mutex mutex;
  std::map<size_t, std::vector<void *>> free; // by rounded size
  std::map<void *, size_t> sizes;             // every live or cached block
};

Cache &cache() {
  // Never destroyed: blocks may be freed by Tensors that outlive main.
  static Cache *c = new Cache;
  return *c;
}

size_t roundUp(size_t nbytes) {
  size_t size = 512;
  while (size < nbytes)
    size *= 2;
  return size;
}

//===----------------------------------------------------------------------===//
// Errors met by compiled code
//===----------------------------------------------------------------------===//

thread_local std::string pendingError;

/// Each loaded kernel's name, for KILN_PROFILE's report.
std::mutex kernelNamesMutex;
std::unordered_map<CUfunction, std::string> kernelNames;

} // namespace

bool ready() { return driver().ok; }

std::string whyNotReady() { return driver().ok ? "" : driver().why; }

void require(const char *op) {
  if (!ready())
    throw Error(std::string(op) + ": " + whyNotReady());
}

void *allocateDevice(size_t nbytes) {
  require("cuda allocation");
  size_t size = roundUp(nbytes);
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.free.find(size);
  if (it != c.free.end() && !it->second.empty()) {
    void *ptr = it->second.back();
    it->second.pop_back();
    return ptr;
  }
  CUdeviceptr ptr = 0;
  CUresult result = driver().memAlloc(&ptr, size);
  if (result != 0) {
    // Out of memory, perhaps only because of the cache: empty it and retry.
    for (auto &bucket : c.free)
      for (void *block : bucket.second) {
        driver().memFree(reinterpret_cast<CUdeviceptr>(block));
        c.sizes.erase(block);
      }
    c.free.clear();
    result = driver().memAlloc(&ptr, size);
  }
  if (result != 0)
    throw Error("cuda allocation of " + std::to_string(nbytes) +
                " bytes: " + message(result));
  void *block = reinterpret_cast<void *>(ptr);
  c.sizes[block] = size;
  return block;
}

void freeDevice(void *ptr) {
  if (!ptr)
    return;
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.sizes.find(ptr);
  if (it != c.sizes.end())
    c.free[it->second].push_back(ptr);
}

void copyToDevice(void *dst, const void *src, size_t nbytes) {
  if (nbytes)
    check(driver().memcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, nbytes),
          "copy to cuda");
}

void copyToHost(void *dst, const void *src, size_t nbytes) {
  if (nbytes)
    check(driver().memcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), nbytes),
          "copy from cuda");
}

void copyOnDevice(void *dst, const void *src, size_t nbytes) {
  if (nbytes)
    check(driver().memcpyDtoD(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), nbytes),
          "copy on cuda");
}

void copyAny(void *dst, const void *src, size_t nbytes, const char *op) {
  if (nbytes)
    check(driver().memcpy(reinterpret_cast<CUdeviceptr>(dst),
                          reinterpret_cast<CUdeviceptr>(src), nbytes),
          op);
}

void synchronize(const char *op) {
  require(op);
  check(driver().ctxSynchronize(), op);
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

struct Module {
  std::vector<char> image; // PTX gets its terminating NUL here
  bool ptx;
  std::mutex mutex;
  CUmodule loaded = nullptr;
  std::map<std::string, CUfunction> functions;
};

Module *registerModule(const void *image, size_t size, bool ptx) {
  auto *m = new Module;
  const char *bytes = static_cast<const char *>(image);
  m->image.assign(bytes, bytes + size);
  if (ptx && (m->image.empty() || m->image.back() != '\0'))
    m->image.push_back('\0');
  m->ptx = ptx;
  return m;
}

void unregisterModule(Module *module) {
  // The driver releases loaded modules with the process; unloading here
  // could run after the driver's own teardown.
  delete module;
}

void *function(Module *module, const char *name) {
  if (!module) {
    setError("cuda: no module for kernel " + std::string(name));
    return nullptr;
  }
  if (!ready()) {
    setError("cuda: " + whyNotReady());
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(module->mutex);
  if (!module->loaded) {
    CUresult result =
        driver().moduleLoadData(&module->loaded, module->image.data());
    if (result != 0) {
      module->loaded = nullptr;
      setError("cuda: loading the kernels: " + message(result));
      return nullptr;
    }
  }
  auto it = module->functions.find(name);
  if (it != module->functions.end())
    return it->second;
  CUfunction fn = nullptr;
  CUresult result = driver().moduleGetFunction(&fn, module->loaded, name);
  if (result != 0) {
    setError("cuda: kernel " + std::string(name) + ": " + message(result));
    return nullptr;
  }
  module->functions[name] = fn;
  std::lock_guard<std::mutex> names(kernelNamesMutex);
  kernelNames[fn] = name;
  return fn;
}

void launch(void *fn, int64_t gridX, int64_t gridY, int64_t gridZ,
            int64_t blockX, int64_t blockY, int64_t blockZ, int32_t sharedBytes,
            void **params) {
  // After an error (a failed allocation, a missing kernel) nothing more
  // runs: its operands may not exist.
  if (!fn || !pendingError.empty())
    return;
  // An empty grid (a tensor with a zero size) launches nothing.
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0)
    return;
  TimedWork timed(
      [&] {
        std::lock_guard<std::mutex> names(kernelNamesMutex);
        auto it = kernelNames.find(fn);
        return (it == kernelNames.end() ? std::string("kernel") : it->second) +
               " grid(" + std::to_string(gridX) + ", " + std::to_string(gridY) +
               ", " + std::to_string(gridZ) + ") block(" +
               std::to_string(blockX) + ", " + std::to_string(blockY) + ", " +
               std::to_string(blockZ) + ")";
      },
      0);
  CUresult result = driver().launchKernel(
      fn, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
      static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
      static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
      static_cast<unsigned>(sharedBytes), /*stream=*/nullptr, params, nullptr);
  if (result != 0)
    setError("cuda: kernel launch: " + message(result));
}

//===----------------------------------------------------------------------===//
// KILN_PROFILE
//===----------------------------------------------------------------------===//

namespace {
/// One piece of timed work: its name, flops (0: not known), events.
struct Timed {
  std::string what;
  double flops;
  CUevent start, stop;
};
thread_local std::vector<Timed> timed;
thread_local int timing = 0; // live TimedWork objects on this thread
} // namespace

bool profiling() {
  const char *env = std::getenv("KILN_PROFILE");
  return env && *env && std::strcmp(env, "0") != 0;
}

void TimedWork::start(const std::string &what, double flops) {
  if (timing > 0 || !ready() || !driver().events)
    return;
  Driver &d = driver();
  Timed t{what, flops, nullptr, nullptr};
  if (d.eventCreate(&t.start, 0) != 0)
    return;
  if (d.eventCreate(&t.stop, 0) != 0) {
    d.eventDestroy(t.start);
    return;
  }
  d.eventRecord(t.start, nullptr);
  timed.push_back(std::move(t));
  active_ = true;
  ++timing;
}

TimedWork::~TimedWork() {
  if (!active_)
    return;
  driver().eventRecord(timed.back().stop, nullptr);
  --timing;
}

void reportProfile(const char *graph, double callMs) {
  if (timed.empty() && !profiling())
    return;
  double total = 0;
  for (const Timed &t : timed) {
    float ms = 0;
    driver().eventElapsedTime(&ms, t.start, t.stop);
    total += ms;
    std::string rate;
    if (t.flops > 0 && ms > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, ", %.2f TFLOP/s", t.flops / ms / 1e9);
      rate = buf;
    }
    std::fprintf(stderr, "kiln profile: graph %s: %s: %.4f ms%s\n", graph,
                 t.what.c_str(), ms, rate.c_str());
    driver().eventDestroy(t.start);
    driver().eventDestroy(t.stop);
  }
  std::fprintf(stderr,
               "kiln profile: graph %s: %zu launches, %.4f ms on the GPU, "
               "%.4f ms the call\n",
               graph, timed.size(), total, callMs);
  timed.clear();
}

std::string takeError() {
  std::string error;
  error.swap(pendingError);
  return error;
}

bool errorPending() { return !pendingError.empty(); }

void setError(const std::string &message) {
  if (pendingError.empty())
    pendingError = message;
}

} // namespace kiln::cuda::detail

namespace kiln::cuda::detail {
namespace {
/// The CUDA side of Core/Device.h, registered when the library loads.
const kiln::detail::DeviceBackend backend = {
    require,      allocateDevice, [](void *data, size_t) { freeDevice(data); },
    copyToDevice, copyToHost,     copyOnDevice,
};
const bool registered =
    (kiln::detail::registerDeviceBackend(DeviceType::CUDA, &backend), true);
} // namespace
} // namespace kiln::cuda::detail

namespace kiln::cuda {

bool is_available() { return detail::ready(); }

void synchronize() { detail::synchronize("cuda::synchronize"); }

} // namespace kiln::cuda
