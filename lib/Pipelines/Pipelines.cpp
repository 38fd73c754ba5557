//===- Pipelines.cpp - Kiln's pass pipelines ------------------------------===//
//
// The order of the lowering passes matters (docs/pipelines.md):
// finalize-memref-to-llvm runs before convert-scf-to-cf (OpenMP regions),
// lower-affine after expand-strided-metadata, and the C wrappers are
// requested while functions are still func.func.
//
//===----------------------------------------------------------------------===//
#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace {
/// Appends a textual pipeline of upstream passes (with their options).
void appendPipeline(OpPassManager &pm, llvm::StringRef text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("kiln: bad built-in pipeline: ") + text);
}
} // namespace

void mlir::kiln::buildKilnToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertKilnToLinalg());
  appendPipeline(pm, "canonicalize,cse");
  pm.addPass(createKilnLowerShapeAsserts());
}

void mlir::kiln::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  buildKilnToLinalgPipeline(pm);
  // Fusion on tensors, then bufferization: inputs arrive as strided
  // memrefs (any Tensor view), results are buffers the caller owns.
  pm.addNestedPass<func::FuncOp>(createKilnFuseElementwise());
  appendPipeline(pm, "canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createKilnTileAndFuseRows());
  appendPipeline(pm, "canonicalize,cse,eliminate-empty-tensors,"
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=fully-dynamic-layout-map},"
                     "func.func(llvm-request-c-wrappers),scf-forall-to-parallel,"
                     "canonicalize,buffer-deallocation-pipeline,"
                     "convert-bufferization-to-memref,canonicalize");
  pm.addPass(createKilnMatmulToBlas());
  pm.addPass(createKilnLowerReductions());
  appendPipeline(pm, "func.func(convert-linalg-to-parallel-loops),canonicalize");
  pm.addPass(createKilnParallelizeOuterLoop());
  if (options.openmp)
    appendPipeline(pm, "convert-scf-to-openmp");
  pm.addPass(createKilnApproximateMath());
  appendPipeline(pm, "expand-strided-metadata,lower-affine,"
                     "finalize-memref-to-llvm{use-generic-functions},convert-scf-to-cf,"
                     "convert-math-to-llvm,"
                     // What has no LLVM intrinsic (float64 erf, tanh...)
                     // calls libm; after math-to-llvm, so that floor, fma
                     // and friends stay intrinsics that vectorize.
                     "convert-math-to-libm,convert-arith-to-llvm,"
                     "convert-openmp-to-llvm,convert-func-to-llvm,"
                     "convert-cf-to-llvm,convert-ub-to-llvm,"
                     "reconcile-unrealized-casts");
}

void mlir::kiln::registerKilnPipelines() {
  PassPipelineRegistration<>("kiln-to-linalg-pipeline",
                             "Lower kiln to linalg on tensors",
                             buildKilnToLinalgPipeline);
  PassPipelineRegistration<>("kiln-cpu-pipeline",
                             "Lower kiln to the LLVM dialect for the host CPU",
                             [](OpPassManager &pm) { buildCpuPipeline(pm); });
}

void mlir::kiln::registerKilnCompiler(DialectRegistry &registry) {
  registerAllPasses();
  registerKilnConversionPasses();
  registerKilnTransformsPasses();
  registerKilnPipelines();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<KilnDialect>();
}
