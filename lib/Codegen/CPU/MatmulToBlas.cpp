//===- MatmulToBlas.cpp - Float products -> the runtime's OpenBLAS calls --===//
#include "kiln/Codegen/CPU/Passes.h"

#include "kiln/Codegen/Common/BlasProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMATMULTOBLAS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-matmul-to-blas"

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct KilnMatmulToBlasPass
    : mlir::kiln::impl::KilnMatmulToBlasBase<KilnMatmulToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<BlasProduct> products = findBlasProducts(module);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << products.size()
                            << " products to library calls\n");
    for (const BlasProduct &product : products)
      replaceWithRuntimeCall(module, product, "kiln_", /*fallback=*/false);
  }
};
} // namespace
