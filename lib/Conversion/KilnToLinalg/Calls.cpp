//===- Calls.cpp - kiln.opaque_call to func.call --------------------------===//
//
// An allow_in_graph function is called, not traced: the op becomes a
// func.call of its declaration, which gets a C interface so that the host
// provides `_mlir_ciface_NAME` (docs/abi.md). Bufferization then passes the
// tensors as strided memrefs (read only: no copies), and the results are
// buffers the callee allocated for the graph (abi::returnTensor).
//
//===----------------------------------------------------------------------===//
#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct OpaqueCallToCall : OpConversionPattern<OpaqueCallOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpaqueCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, op.getCalleeAttr());
    if (!callee)
      return rewriter.notifyMatchFailure(op, "no declaration of the callee");
    rewriter.modifyOpInPlace(callee, [&] {
      callee->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
      // The callee only reads its tensors (abi::borrow): bufferization
      // passes the graph's buffers as they are instead of copies.
      for (unsigned i = 0; i < callee.getNumArguments(); ++i)
        if (isa<TensorType>(callee.getArgumentTypes()[i]))
          callee.setArgAttr(i, "bufferization.access",
                            rewriter.getStringAttr("read"));
    });
    rewriter.replaceOpWithNewOp<func::CallOp>(op, callee,
                                              adaptor.getOperands());
    return success();
  }
};
} // namespace

void mlir::kiln::populateCallsToFuncPatterns(RewritePatternSet &patterns) {
  patterns.add<OpaqueCallToCall>(patterns.getContext());
}
