//===- MatmulToCublas.cpp - Float products -> cuBLAS, kernels as fallback -===//
#include "kiln/Codegen/GPU/Passes.h"

#include "kiln/Codegen/Common/BlasProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMATMULTOCUBLAS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-gpu-matmul-to-cublas"

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct KilnGpuMatmulToCublasPass
    : mlir::kiln::impl::KilnGpuMatmulToCublasBase<KilnGpuMatmulToCublasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (const BlasProduct &product : findBlasProducts(module)) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << product.op->getName()
                              << " to a cuBLAS call\n");
      replaceWithRuntimeCall(module, product, "kiln_cuda_", /*fallback=*/true);
    }
  }
};
} // namespace
