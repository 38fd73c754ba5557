//===- CUDA.h - Device images and the CUDA toolkit --------------*- C++ -*-===//
//
// What the host object needs from the CUDA side: the toolkit that
// gpu-module-to-binary runs (ptxas, fatbinary, libdevice), and the device
// images of a module's gpu.binary ops, moved out of the object so that
// kiln compile embeds them in the stitched C++ (docs/gpu.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_CUDA_H
#define KILN_TARGET_CUDA_H

#include "kiln/Target/Host.h"

#include <string>
#include <vector>

namespace mlir::kiln {

/// The CUDA toolkit's root: $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH, else
/// /usr/local/cuda, else the one whose ptxas is on PATH; "" if none.
std::string findCudaToolkit();

/// A device binary (a gpu.binary's image) moved out of the object file.
struct DeviceImage {
  /// The external symbol compiled code reads it from.
  std::string symbol;
  std::string bytes;
  /// What it is, e.g. "fatbin for sm_90".
  std::string description;
};

/// Makes emitObject with `options` keep the image of each gpu.binary NAME
/// out of the object: the code refers to the external symbol prefix + NAME
/// instead, and the image is appended to `images`, which must outlive the
/// emission. Without this, images stay in the object.
void collectDeviceImages(CodegenOptions &options,
                         std::vector<DeviceImage> &images,
                         std::string prefix = "kiln_image_");

} // namespace mlir::kiln

#endif
