//===- Pipelines.h - Kiln's pass pipelines ----------------------*- C++ -*-===//
//
// Named pipelines shared by kiln-opt (-kiln-to-linalg-pipeline,
// -kiln-cpu-pipeline) and the compiler driver.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

struct CpuPipelineOptions {
  /// Map parallel loops to OpenMP threads.
  bool openmp = true;
};

/// kiln -> linalg on tensors, canonicalized, shape checks turned into the
/// entry points' status result.
void buildKilnToLinalgPipeline(OpPassManager &pm);

/// kiln -> LLVM dialect for the host CPU: fusion, bufferization with
/// deallocation, parallel loops on OpenMP, vectorizable math, C wrappers.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options = {});

/// Registers both pipelines with the pass registry (for kiln-opt).
void registerKilnPipelines();

/// What every tool that compiles graphs needs: upstream's dialects and
/// extensions and the kiln dialect in `registry`, and every upstream and
/// Kiln pass and pipeline in the pass registry (the pipelines are built
/// from pass names).
void registerKilnCompiler(DialectRegistry &registry);

} // namespace mlir::kiln

#endif
