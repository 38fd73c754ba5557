//===- MatmulToBlas.cpp - Float products -> the runtime's OpenBLAS calls --===//
#include "kiln/Codegen/CPU/Passes.h"

#include "kiln/Codegen/Common/BlasProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMATMULTOBLAS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-matmul-to-blas"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The zero fill of the product's output that the product would only add
/// to: the fill right before it (nothing with an effect on memory between),
/// on the very buffer the product writes whole. The product can overwrite
/// the buffer instead (kiln_assign_*), one pass over it fewer to write and
/// one fewer to read.
linalg::FillOp zeroFillBefore(linalg::LinalgOp product) {
  Value out = product.getDpsInitOperand(0)->get();
  for (Operation *op = product->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (fill.getDpsInitOperand(0)->get() != out ||
          !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return {};
      return fill;
    }
    if (!isMemoryEffectFree(op))
      return {};
  }
  return {};
}

struct KilnMatmulToBlasPass
    : mlir::kiln::impl::KilnMatmulToBlasBase<KilnMatmulToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<BlasProduct> products = findBlasProducts(module, /*bf16=*/true);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << products.size()
                            << " products to library calls\n");
    for (const BlasProduct &product : products) {
      StringRef prefix = "kiln_";
      if (linalg::FillOp fill = zeroFillBefore(product.op)) {
        fill.erase();
        prefix = "kiln_assign_";
      }
      replaceWithRuntimeCall(module, product, prefix, /*fallback=*/false);
    }
  }
};
} // namespace
