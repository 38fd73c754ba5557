//===- KilnToLinalg.cpp - The convert-kiln-to-linalg pass -----------------===//
#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_CONVERTKILNTOLINALG
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::populateKilnToLinalgPatterns(RewritePatternSet &patterns) {
  populateAttentionToLoopsPatterns(patterns);
  populateCallsToFuncPatterns(patterns);
  populateConstantsToLinalgPatterns(patterns);
  populateDataMovementToLinalgPatterns(patterns);
  populateElementwiseToLinalgPatterns(patterns);
  populateLinearToLinalgPatterns(patterns);
  populateNormalizationToLinalgPatterns(patterns);
  populatePoolingToLinalgPatterns(patterns);
  populateReductionToLinalgPatterns(patterns);
  populateScansToLinalgPatterns(patterns);
}

namespace {
struct ConvertKilnToLinalgPass
    : mlir::kiln::impl::ConvertKilnToLinalgBase<ConvertKilnToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<KilnDialect>();
    target.addLegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect,
                           func::FuncDialect>();
    RewritePatternSet patterns(ctx);
    populateKilnToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // A graph's tensor arguments are its caller's (a scatter's input, say,
    // is not its output): bufferization copies them rather than writing
    // into them.
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && fn.isPublic())
        for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
          if (isa<TensorType>(type))
            fn.setArgAttr(
                i, bufferization::BufferizationDialect::kWritableAttrName,
                BoolAttr::get(ctx, false));
  }
};
} // namespace
