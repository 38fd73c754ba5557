//===- kiln/Cuda.h - Whether a GPU is there ---------------------*- C++ -*-===//
//
// Like torch.cuda: the runtime loads the CUDA driver on first use, so that a
// program built with Kiln runs on machines without one (CPU only).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CUDA_H
#define KILN_CUDA_H

namespace kiln::cuda {

/// True when the CUDA driver loads and a device is present (device 0 is
/// the one Kiln uses).
bool is_available();

/// Waits until all work launched on the GPU has finished; throws
/// kiln::Error when there is no GPU or a kernel failed.
void synchronize();

} // namespace kiln::cuda

#endif
