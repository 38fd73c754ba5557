//===- TestGpuMappingOnCpu.cpp - The GPU's grids, run on the CPU ----------===//
//
// A check of kiln-gpu-map-parallel-loops' index arithmetic on a machine
// without a GPU: the pass maps loop nests onto blocks and threads as the
// GPU pipeline does, except that a row reduction's threads run as a serial
// loop (mapParallelLoopsToGrid's serialThreads), and the pipeline then
// lowers the grids as ordinary serial loops for the host. kiln-e2e
// --backend=cuda-emulated runs graphs through it against eager.
//
//===----------------------------------------------------------------------===//
#include "TestPasses.h"

#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {

struct TestGpuMappingOnCpuPass
    : PassWrapper<TestGpuMappingOnCpuPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGpuMappingOnCpuPass)

  TestGpuMappingOnCpuPass() = default;
  TestGpuMappingOnCpuPass(const TestGpuMappingOnCpuPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "kiln-test-gpu-mapping-on-cpu"; }
  StringRef getDescription() const final {
    return "Map loop nests onto a grid as kiln-gpu-map-parallel-loops does, "
           "with each block's threads as a serial loop, for running on the CPU";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, gpu::GPUDialect, memref::MemRefDialect,
                    scf::SCFDialect, vector::VectorDialect>();
  }
  void runOnOperation() override {
    if (failed(kiln::mapParallelLoopsToGrid(
            getOperation(), blockSize, vectorWidth, /*serialThreads=*/true)))
      signalPassFailure();
  }

  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("Consecutive elements per thread where data is "
                     "contiguous (1: off)"),
      llvm::cl::init(4)};
};

} // namespace

void mlir::kiln::test::buildGpuMappingOnCpuPipeline(OpPassManager &pm) {
  // The GPU pipeline up to the mapping (its buffers in host memory, its
  // products through the CPU's BLAS), then the CPU's lowering.
  buildKilnToLinalgPipeline(pm);
  addFusionPasses(pm);
  addBufferizationPasses(pm);
  pm.addPass(createKilnMatmulToBlas());
  pm.addPass(createKilnLowerReductions());
  // As the GPU pipeline: cse only, the one-iteration loops kept.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<TestGpuMappingOnCpuPass>());
  addCpuLoweringToLLVM(pm);
}

void mlir::kiln::test::registerTestPasses() {
  PassRegistration<TestGpuMappingOnCpuPass>();
  PassPipelineRegistration<>(
      "kiln-test-gpu-mapping-on-cpu-pipeline",
      "The GPU pipeline's grids, lowered for the host CPU",
      buildGpuMappingOnCpuPipeline);
}
