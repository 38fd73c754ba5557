//===- KilnFolds.cpp - Folds and canonicalization patterns ----------------===//
//
// Only rewrites that are exact: x * 1, x + 0 (integers) and x + (-0.0)
// (floats, where x + 0.0 would turn -0.0 into 0.0), identity casts,
// reshapes and permutations, and compositions of view ops.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

/// Whether attr is a splat constant equal to value (for floats, bit-exact,
/// so that -0.0 and 0.0 differ).
static bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type e = splat.getElementType();
  if (isa<FloatType>(e)) {
    APFloat v = splat.getSplatValue<APFloat>();
    bool losesInfo = false;
    APFloat want(value);
    want.convert(v.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    return v.bitwiseIsEqual(want);
  }
  if (auto intType = dyn_cast<IntegerType>(e)) {
    APInt v = splat.getSplatValue<APInt>();
    if (intType.getWidth() == 1)
      return v.getZExtValue() == static_cast<uint64_t>(value);
    return v.getSExtValue() == static_cast<int64_t>(value);
  }
  return false;
}

/// `op(x, c) -> x` is exact only when broadcasting c does not change x's type.
static OpFoldResult foldIdentityOperand(Value lhs, Attribute rhsAttr,
                                        Type resultType, double identity) {
  if (lhs.getType() == resultType && isSplatOf(rhsAttr, identity))
    return lhs;
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  bool isFloat = isa<FloatType>(getType().getElementType());
  return foldIdentityOperand(getLhs(), adaptor.getRhs(), getType(),
                             isFloat ? -0.0 : 0.0);
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldIdentityOperand(getLhs(), adaptor.getRhs(), getType(), 1.0);
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult CastLikeOp::fold(FoldAdaptor) {
  if (!hasOpenTypes(*this) && getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  auto index = static_cast<int64_t>(getIndex()); // an I64Attr, read unsigned
  if (!type || index < 0 || index >= type.getRank())
    return {};
  int64_t size = type.getDimSize(index);
  if (ShapedType::isDynamic(size))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), size);
}

OpFoldResult RankOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type)
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), type.getRank());
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x): only the last shape matters.
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput(),
                                           op.getSizes());
    return success();
  }
};

/// permute(permute(x, p), q) -> permute(x, p o q).
struct ComposePermutes : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<PermuteOp>();
    if (!inner || hasOpenTypes(op) || hasOpenTypes(inner))
      return failure(); // dims as written until the rank is known
    ArrayRef<int64_t> p = inner.getPermutation(), q = op.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t i : q)
      composed.push_back(p[i]);
    rewriter.replaceOpWithNewOp<PermuteOp>(op, inner.getInput(), composed);
    return success();
  }
};
/// transpose(a @ b) over the product's matrices -> b^T @ a^T: the
/// product's lowering reads transposed operands in place, so no copy is
/// left (a gradient's [k, m] product feeding a transpose, as a tied
/// embedding's does, becomes an [m, k] product).
struct TransposeOfProduct : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto product = op.getInput().getDefiningOp<MatmulOp>();
    if (!product || !product->hasOneUse() || hasOpenTypes(op) ||
        hasOpenTypes(product))
      return failure();
    auto rankOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getRank();
    };
    if (!op.swapsLastTwoDims() || rankOf(product.getLhs()) < 2 ||
        rankOf(product.getRhs()) < 2)
      return failure();
    auto swapped = [&](Value v) {
      int64_t r = rankOf(v);
      return rewriter.createOrFold<TransposeOp>(op.getLoc(), v, r - 2, r - 1);
    };
    Value bt = swapped(product.getRhs()), at = swapped(product.getLhs());
    auto result = MatmulOp::create(rewriter, op.getLoc(), bt, at);
    if (result.getType() != op.getType()) {
      rewriter.eraseOp(result);
      return failure();
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// cast(transpose(x)) -> transpose(cast(x)): a conversion is elementwise, so
/// it runs in x's own layout, a contiguous pass, and the transpose stays a
/// view that a product reads in place. (Autocast's cast of a transposed
/// float32 weight, a tied lm head's, otherwise wrote the transposed copy
/// column by column: a tenth of a bfloat16 GPT-2 training step.)
struct CastOfTranspose : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t || hasOpenTypes(op) || hasOpenTypes(t))
      return failure();
    auto inputType = cast<RankedTensorType>(t.getInput().getType());
    Type element = cast<RankedTensorType>(op.getType()).getElementType();
    Value converted = CastOp::create(rewriter, op.getLoc(),
                                     inputType.clone(element), t.getInput());
    auto swapped = TransposeOp::create(rewriter, t.getLoc(), converted,
                                       t.getDim0(), t.getDim1());
    if (swapped.getType() != op.getType()) {
      rewriter.eraseOp(swapped);
      rewriter.eraseOp(converted.getDefiningOp());
      return failure();
    }
    rewriter.replaceOp(op, swapped);
    return success();
  }
};
} // namespace

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<CastOfTranspose>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeOfProduct>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposePermutes>(context);
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  if (hasOpenTypes(*this))
    return {};
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    if (static_cast<int64_t>(i) != p)
      return {};
  return getInput();
}

bool TransposeOp::swapsLastTwoDims() {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || type.getRank() < 2)
    return false;
  int64_t rank = type.getRank();
  auto d0 = static_cast<int64_t>(getDim0()),
       d1 = static_cast<int64_t>(getDim1());
  return std::minmax(d0, d1) == std::minmax(rank - 2, rank - 1);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (hasOpenTypes(*this))
    return {};
  if (getDim0() == getDim1())
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (inner && std::minmax(getDim0(), getDim1()) ==
                   std::minmax(inner.getDim0(), inner.getDim1()))
    return inner.getInput();
  return {};
}

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  if (hasOpenTypes(*this))
    return {};
  auto inner = getInput().getDefiningOp<UnsqueezeOp>();
  if (inner && inner.getDim() == getDim())
    return inner.getInput();
  return {};
}
