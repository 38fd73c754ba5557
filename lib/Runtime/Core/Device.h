//===- Device.h - What the core needs from a device -------------*- C++ -*-===//
//
// The core (Tensor, Storage, the allocator) knows only the host. Another
// device's runtime (lib/Runtime/CUDA) registers its memory and copies
// here when the library loads; the core calls them through this table.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CORE_DEVICE_H
#define KILN_RUNTIME_CORE_DEVICE_H

#include "kiln/DType.h"

#include <cstddef>

namespace kiln::detail {

struct DeviceBackend {
  /// Throws kiln::Error naming `op` unless the device can be used.
  void (*require)(const char *op);
  /// Memory on the device, and its release.
  void *(*allocate)(size_t nbytes);
  void (*free)(void *data, size_t nbytes);
  /// Copies of nbytes: host to device, device to host, within the device.
  void (*copyToDevice)(void *dst, const void *src, size_t nbytes);
  void (*copyToHost)(void *dst, const void *src, size_t nbytes);
  void (*copyOnDevice)(void *dst, const void *src, size_t nbytes);
};

/// Makes `backend` (static storage) the one of devices of `type`.
void registerDeviceBackend(DeviceType type, const DeviceBackend *backend);

/// The backend of `type`; throws kiln::Error naming `op` if none was
/// registered (never the host's: the core handles host memory itself).
const DeviceBackend &deviceBackend(DeviceType type, const char *op);

} // namespace kiln::detail

#endif
