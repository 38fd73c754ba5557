//===- Passes.cpp - The CPU pipeline --------------------------------------===//
//
// The order of the lowering passes matters (docs/pipelines.md):
// finalize-memref-to-llvm runs before convert-scf-to-cf (OpenMP regions),
// lower-affine after expand-strided-metadata, and the C wrappers are
// requested while functions are still func.func.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::kiln::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  // Attention is recognized on the ops as they compute, promotions explicit
  // (kiln-to-linalg-pipeline's own runs of the passes then find none left).
  pm.addPass(createKilnDecomposeComposites());
  pm.addPass(createKilnMaterializePromotions());
  pm.addPass(createKilnRecognizeAttention());
  pm.addPass(createKilnAttentionToRuntime());
  pm.addPass(createKilnImageOpsToRuntime());
  buildKilnToLinalgPipeline(pm);
  addFusionPasses(pm);
  pm.addNestedPass<func::FuncOp>(createKilnTileAndFuseRows());
  pm.addPass(createKilnSkipUnneededGradients());
  pm.addPass(createKilnSplitLargeFunctions(
      KilnSplitLargeFunctionsOptions{options.splitOps}));
  addBufferizationPasses(pm);
  pm.addPass(createKilnBroadcastCopies());
  pm.addPass(createKilnMatmulToBlas());
  pm.addPass(createKilnLowerReductions());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createKilnParallelizeOuterLoop());
  pm.addPass(createKilnFuseRowLoops());
  pm.addPass(createKilnPrefetchNextRow());
  if (options.openmp) {
    pm.addPass(createKilnParallelWhereItPays(KilnParallelWhereItPaysOptions{
        options.minParallelWork, options.outlineAbove}));
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createKilnOpenMpSchedule());
  }
  addCpuLoweringToLLVM(pm);
}

void mlir::kiln::addCpuLoweringToLLVM(OpPassManager &pm) {
  pm.addPass(createKilnApproximateMath());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (float64 erf, tanh...) calls libm; after
  // math-to-llvm, so that floor, fma and friends stay intrinsics that
  // vectorize.
  pm.addPass(createConvertMathToLibmPass());
  // bfloat16 arithmetic in float32, and its conversions as integer
  // arithmetic: on an x86 CPU without AVX512-BF16, LLVM would otherwise call
  // __truncsfbf2, which older libgcc (Debian 12's GCC 12) lacks, so the
  // kernels would not link there.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createKilnExpandBf16Conversions());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
