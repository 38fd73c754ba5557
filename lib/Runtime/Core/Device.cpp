//===- Device.cpp - The registered device backends ------------------------===//
#include "Core/Device.h"

#include "kiln/Error.h"

#include <atomic>
#include <string>

namespace kiln::detail {
namespace {
constexpr size_t kDeviceTypes = static_cast<size_t>(DeviceType::CUDA) + 1;

std::atomic<const DeviceBackend *> &slot(DeviceType type) {
  static std::atomic<const DeviceBackend *> backends[kDeviceTypes] = {};
  return backends[static_cast<size_t>(type)];
}
} // namespace

void registerDeviceBackend(DeviceType type, const DeviceBackend *backend) {
  slot(type).store(backend);
}

const DeviceBackend &deviceBackend(DeviceType type, const char *op) {
  if (const DeviceBackend *backend = slot(type).load())
    return *backend;
  throw Error(std::string(op) + ": " + Device{type, 0}.str() +
              ": no runtime for this device was linked");
}

} // namespace kiln::detail
