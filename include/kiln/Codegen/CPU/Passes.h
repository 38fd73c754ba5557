//===- Passes.h - Kiln's CPU codegen passes ------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_CPU_PASSES_H
#define KILN_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/CPU/Passes.h.inc"

/// Marks the functions that kiln-split-large-functions cut one graph
/// function into (the parts and what is left of it): their loop nests are
/// outlined whatever their number (kiln-parallel-where-it-pays).
inline constexpr llvm::StringLiteral kSplitFunctionAttrName = "kiln.split";

/// Marks a kiln.scaled_dot_product_attention whose mask kiln-recognize-
/// attention proved the causal triangle: the kernel skips the keys past
/// each query (kiln-attention-to-runtime), after checking that the mask is
/// [L, S] exactly (else the graph falls back, and eager's where decides).
inline constexpr llvm::StringLiteral kCausalMaskAttrName = "kiln.causal_mask";

struct CpuPipelineOptions {
  /// Map parallel loops to OpenMP threads.
  bool openmp = true;
  /// Estimated operations below which a loop nest runs without forking a
  /// team (kiln-parallel-where-it-pays; docs/benchmarks.md measures it).
  int64_t minParallelWork = 1048576;
  /// Loop nests in a function above which each becomes one body that its
  /// serial and threaded paths share (kiln-parallel-where-it-pays).
  int64_t outlineAbove = 8;
  /// Operations per function, about, that a graph function of more than
  /// twice as many is cut into (kiln-split-large-functions).
  int64_t splitOps = 1500;
};

/// kiln -> LLVM dialect for the host CPU: fusion, bufferization with
/// deallocation, products through BLAS, row tiles as parallel loops on
/// OpenMP, vectorizable math, C wrappers (docs/pipelines.md).
void buildCpuPipeline(OpPassManager &pm,
                      const CpuPipelineOptions &options = {});

/// The CPU pipeline's last steps, from loops on buffers to the LLVM
/// dialect: Kiln's approximate math, then upstream's conversions.
void addCpuLoweringToLLVM(OpPassManager &pm);

} // namespace mlir::kiln

#endif
