//===- Passes.h - Kiln's GPU codegen passes ------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_GPU_PASSES_H
#define KILN_CODEGEN_GPU_PASSES_H

#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/GPU/Passes.h.inc"

struct GpuPipelineOptions {
  /// The GPU architecture: sm_80, sm_90, ...
  std::string chip = "sm_90";
  /// The device binary: isa (PTX text), bin (cubin, through ptxas) or
  /// fatbin (cubin and PTX, through ptxas and fatbinary).
  std::string format = "fatbin";
  /// Threads per block.
  int64_t blockSize = 256;
  /// The CUDA toolkit (libdevice, ptxas, fatbinary); empty: the one
  /// gpu-module-to-binary finds.
  std::string toolkit;
};

/// kiln -> host code in the LLVM dialect that launches kernels, and one
/// gpu.binary holding the kernels for `options.chip`: fusion,
/// bufferization into device memory, loop nests mapped onto blocks and
/// threads (row reductions onto one block per row), NVVM, then upstream's
/// GPU-to-NVVM lowering and serialization (docs/gpu.md).
void buildGpuPipeline(OpPassManager &pm,
                      const GpuPipelineOptions &options = {});

/// Maps the scf.parallel nests of `fn` onto blocks and threads
/// (kiln-gpu-map-parallel-loops). With `serialThreads`, the threads of a
/// row reduction's block run as a serial loop that combines their partial
/// values in order (no gpu.all_reduce, no barriers), so that the whole
/// grid can run as serial loops on the CPU (the test pass
/// kiln-test-gpu-mapping-on-cpu).
LogicalResult mapParallelLoopsToGrid(func::FuncOp fn, int64_t blockSize,
                                     int64_t vectorWidth,
                                     bool serialThreads = false);

} // namespace mlir::kiln

#endif
