//===- EmptySlices.cpp - Slices of a static size 0 -> tensor.empty --------===//
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNEMPTYSLICES
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {
/// extract_slice with a static 0 among its result's sizes -> tensor.empty of
/// the result's sizes (the dropped unit dims of a rank-reducing slice left
/// out).
struct EmptySliceToEmpty : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!llvm::is_contained(type.getShape(), 0))
      return failure();
    llvm::SmallBitVector dropped = op.getDroppedDims();
    SmallVector<OpFoldResult> sizes;
    for (auto [i, size] : llvm::enumerate(op.getMixedSizes()))
      if (!dropped.test(i))
        sizes.push_back(size);
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, sizes,
                                                 type.getElementType());
    return success();
  }
};

struct KilnEmptySlicesPass
    : mlir::kiln::impl::KilnEmptySlicesBase<KilnEmptySlicesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<EmptySliceToEmpty>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
