//===- Reduction.cpp - kiln reductions to linalg.generic ------------------===//
//
// One reduction generic each (mean adds an elementwise division; argmax and
// argmin carry the index beside the extremum). float16
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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

/// The shape check that the reduced dims hold an element (eager's error
/// otherwise).
void checkNotEmpty(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims, StringRef message) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  emitShapeCheck(b, loc,
                 arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       reducedCount(b, loc, input, dims), zero),
                 message);
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
    if (Kind != ReduceKind::Sum && Kind != ReduceKind::Prod)
      checkNotEmpty(rewriter, loc, input, op.getDims(),
                    "cannot reduce over a dim of size 0");
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

/// argmax/argmin: one generic with two outputs, the extremum so far and its
/// index (the position in the reduced dims, row-major), replaced only by a
/// strictly better element or by the first NaN, so that the first
/// occurrence wins; the loops run the reduction in order.
template <typename OpTy, bool Max>
struct ArgReductionToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type element = inType.getElementType();
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> dims = op.getDims();
    checkNotEmpty(rewriter, loc, input, dims,
                  "cannot take the index over an empty dim");
    ReductionShape shape =
        reductionShape(rewriter, loc, input, dims, op.getKeepdim());
    const SmallVector<bool> &reduced = shape.reduced;
    SmallVector<Value> reducedSizes; // of the reduced dims, in order
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        reducedSizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    SmallVector<OpFoldResult> &outSizes = shape.outSizes;
    // Start from the worst value at index 0: an input of only that value
    // (or of nothing better) keeps index 0, its first element.
    Value worst;
    if (isa<FloatType>(element)) {
      worst =
          scalarConstant(rewriter, loc, element, Max ? -INFINITY : INFINITY);
    } else {
      unsigned bits = element.getIntOrFloatBitWidth();
      worst = arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getIntegerAttr(element,
                                  Max ? APInt::getSignedMinValue(bits)
                                      : APInt::getSignedMaxValue(bits)));
    }
    Value values =
        linalg::FillOp::create(rewriter, loc, worst,
                               emptyTensor(rewriter, loc, outSizes, element))
            .getResult(0);
    Type i64 = rewriter.getI64Type();
    Value indexZero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    Value indices =
        linalg::FillOp::create(rewriter, loc, indexZero,
                               emptyTensor(rewriter, loc, outSizes, i64))
            .getResult(0);
    AffineMap outMap =
        AffineMap::get(rank, 0, shape.outExprs, rewriter.getContext());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), indices.getType()},
        ValueRange{input}, ValueRange{values, indices},
        {rewriter.getMultiDimIdentityMap(rank), outMap, outMap},
        shape.iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], at = args[2];
          // The row-major position in the reduced dims.
          Value position = arith::ConstantIndexOp::create(b, l, 0);
          size_t k = 0;
          for (int64_t d = 0; d < rank; ++d) {
            if (!reduced[d])
              continue;
            position = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, position, reducedSizes[k++]),
                linalg::IndexOp::create(b, l, d));
          }
          Value better;
          if (isa<FloatType>(element)) {
            Value strictly = arith::CmpFOp::create(
                b, l,
                Max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x,
                best);
            Value firstNaN = arith::AndIOp::create(
                b, l,
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x),
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, best,
                                      best));
            better = arith::OrIOp::create(b, l, strictly, firstNaN);
          } else {
            better = arith::CmpIOp::create(b, l,
                                           Max ? arith::CmpIPredicate::sgt
                                               : arith::CmpIPredicate::slt,
                                           x, best);
          }
          Value index = arith::IndexCastOp::create(b, l, i64, position);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, index, at)});
        });
    rewriter.replaceOp(
        op, castTo(rewriter, loc, generic.getResult(1), op.getType()));
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
               ReductionToGeneric<ProdOp, ReduceKind::Prod>,
               ArgReductionToGeneric<ArgmaxOp, true>,
               ArgReductionToGeneric<ArgminOp, false>>(patterns.getContext());
}
