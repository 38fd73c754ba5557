//===- Pipelines.h - Kiln's pass pipelines ----------------------*- C++ -*-===//
//
// Named pipelines shared by kiln-opt (-kiln-to-linalg-pipeline,
// -kiln-cpu-pipeline, -kiln-gpu-pipeline) and the compiler driver.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "kiln/Pipelines/Backend.h"

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

struct CpuPipelineOptions {
  /// Map parallel loops to OpenMP threads.
  bool openmp = true;
  /// Instead, map loop nests onto a grid as the GPU pipeline does
  /// (kiln-gpu-map-parallel-loops; a row reduction's threads combine their
  /// partial values in a serial loop instead of gpu.all_reduce) and run the
  /// grid's blocks and threads as serial loops: a check of the mapping's
  /// index arithmetic against eager on a machine without a GPU.
  bool emulateGpuMapping = false;
};

struct GpuPipelineOptions {
  /// The GPU architecture: sm_80, sm_90, ...
  std::string chip = "sm_90";
  /// The device binary: isa (PTX text), bin (cubin, through ptxas) or
  /// fatbin (cubin and PTX, through ptxas and fatbinary).
  std::string format = "fatbin";
  /// Threads per block.
  int64_t blockSize = 256;
  /// The CUDA toolkit (libdevice, ptxas, fatbinary); empty: findCudaToolkit.
  std::string toolkit;
};

/// The CUDA toolkit's root: $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH, else
/// /usr/local/cuda, else the one whose ptxas is on PATH; "" if none.
std::string findCudaToolkit();

/// kiln -> linalg on tensors, canonicalized, shape checks turned into the
/// entry points' status result.
void buildKilnToLinalgPipeline(OpPassManager &pm);

/// kiln -> LLVM dialect for the host CPU: fusion, bufferization with
/// deallocation, parallel loops on OpenMP, vectorizable math, C wrappers.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options = {});

/// kiln -> host code in the LLVM dialect that launches kernels, and one
/// gpu.binary holding the kernels for `options.chip`: fusion,
/// bufferization into device memory, loop nests mapped onto blocks and
/// threads (row reductions onto one block per row), NVVM, then upstream's
/// GPU-to-NVVM lowering and serialization.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options = {});

/// How far lowerModule takes a module of kiln-dialect graphs.
enum class Stage {
  Kiln,        // as built (nothing runs)
  Linalg,      // buildKilnToLinalgPipeline
  LLVMDialect, // the backend's whole pipeline: ready for emitObject
};

struct CompileOptions {
  /// cpu or cuda (eager graphs are not compiled).
  Backend backend = Backend::Cpu;
  CpuPipelineOptions cpu;
  GpuPipelineOptions gpu;
  /// Receives the module after every pass that changed it (--debug-dir).
  llvm::raw_ostream *afterEachPass = nullptr;
};

/// The one compile sequence of the driver, kiln-e2e and the benchmarks:
/// runs the backend's pipeline on `module`, in place, up to `stage`.
/// Failures are reported through the context's diagnostics.
LogicalResult lowerModule(ModuleOp module, const CompileOptions &options,
                          Stage stage = Stage::LLVMDialect);

/// Registers the pipelines with the pass registry (for kiln-opt).
void registerKilnPipelines();

/// What every tool that compiles graphs needs: upstream's dialects and
/// extensions and the kiln dialect in `registry`, and every upstream and
/// Kiln pass and pipeline in the pass registry (the pipelines are built
/// from pass names).
void registerKilnCompiler(DialectRegistry &registry);

} // namespace mlir::kiln

#endif
