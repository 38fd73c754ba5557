//===- Reduction.cpp - kiln sum/mean/amax/amin/prod to linalg.generic -----===//
//
// One reduction generic each (mean adds an elementwise division). float16
// and bfloat16 accumulate in float32; float32 accumulates in float32, which
// is why compiled sums carry a (documented) tolerance against the runtime's
// double accumulation.
//
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

Type accumulatorType(OpBuilder &b, Type element) {
  return element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
}

/// Converts acc (of the accumulator type) to the result's element type.
Value narrowTo(OpBuilder &b, Location loc, Value acc, RankedTensorType type) {
  auto accType = cast<RankedTensorType>(acc.getType());
  if (accType.getElementType() == type.getElementType())
    return acc;
  return buildElementwise(
      b, loc, acc, type, [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
        return arith::TruncFOp::create(bb, l, type.getElementType(), a[0]);
      });
}

/// The number of elements reduced: the product of the reduced dims.
Value reducedCount(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> reduced;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (dims.empty() || llvm::is_contained(dims, d))
      reduced.push_back(d);
  return dimProduct(b, loc, input, reduced);
}

template <typename OpTy, ReduceKind Kind>
struct ReductionToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getType());
    if (Kind != ReduceKind::Sum && Kind != ReduceKind::Prod) {
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      emitShapeCheck(rewriter, loc,
                     arith::CmpIOp::create(
                         rewriter, loc, arith::CmpIPredicate::ne,
                         reducedCount(rewriter, loc, input, op.getDims()),
                         zero),
                     "cannot reduce over a dim of size 0");
    }
    Type acc = accumulatorType(rewriter, type.getElementType());
    Value r = buildReduction(rewriter, loc, input, op.getDims(),
                             op.getKeepdim(), Kind, acc);
    r = castTo(rewriter, loc, r, RankedTensorType::get(type.getShape(), acc));
    if (std::is_same<OpTy, MeanOp>::value) {
      Value count = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          reducedCount(rewriter, loc, input, op.getDims()));
      Value n = arith::SIToFPOp::create(rewriter, loc, acc, count);
      r = buildElementwise(
          rewriter, loc, r, cast<RankedTensorType>(r.getType()),
          [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
            return arith::DivFOp::create(bb, l, a[0], n);
          });
    }
    rewriter.replaceOp(op, narrowTo(rewriter, loc, r, type));
    return success();
  }
};

} // namespace

void mlir::kiln::populateReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReductionToGeneric<SumOp, ReduceKind::Sum>,
               ReductionToGeneric<MeanOp, ReduceKind::Sum>,
               ReductionToGeneric<AmaxOp, ReduceKind::Max>,
               ReductionToGeneric<AminOp, ReduceKind::Min>,
               ReductionToGeneric<ProdOp, ReduceKind::Prod>>(
      patterns.getContext());
}
