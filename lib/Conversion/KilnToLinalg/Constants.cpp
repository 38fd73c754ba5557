//===- Constants.cpp - kiln constants, sizes and scalars to tensor/arith --===//
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

struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, op.getType(), cast<TypedAttr>(op.getValue()));
    return success();
  }
};

struct FullToFill : OpConversionPattern<FullOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FullOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Value empty = emptyTensor(rewriter, loc,
                              mixedSizesOf(rewriter, type, adaptor.getSizes()),
                              type.getElementType());
    Value value = arith::ConstantOp::create(rewriter, loc, op.getValue());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, value, empty);
    return success();
  }
};

struct FromScalarToFromElements : OpConversionPattern<FromScalarOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FromScalarOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value scalar = adaptor.getScalar();
    Type element = op.getType().getElementType();
    if (isa<IndexType>(scalar.getType()))
      scalar =
          arith::IndexCastOp::create(rewriter, op.getLoc(), element, scalar);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(),
                                                        scalar);
    return success();
  }
};

struct DimToTensorDim : OpConversionPattern<DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::DimOp>(
        op, adaptor.getInput(), static_cast<int64_t>(op.getIndex()));
    return success();
  }
};

/// start + i * step for i < ceil((end - start) / step), with a shape check
/// that step is not 0 (a 0 step gives an empty result meanwhile).
struct ArangeToGeneric : OpConversionPattern<ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value start = adaptor.getStart(), end = adaptor.getEnd(),
          step = adaptor.getStep();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value stepOk =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, step, zero);
    emitShapeCheck(b, loc, stepOk, "arange: the step must be nonzero");
    Value safeStep = arith::SelectOp::create(b, loc, stepOk, step, one);
    // ceildiv(end - start, step), clamped at 0.
    Value span = arith::SubIOp::create(b, loc, end, start);
    Value count = arith::CeilDivSIOp::create(b, loc, span, safeStep);
    count = arith::MaxSIOp::create(b, loc, count, zero);
    count = arith::SelectOp::create(b, loc, stepOk, count, zero);
    auto type = op.getType();
    OpFoldResult size = ShapedType::isDynamic(type.getDimSize(0))
                            ? OpFoldResult(count)
                            : OpFoldResult(b.getIndexAttr(type.getDimSize(0)));
    Value empty = emptyTensor(b, loc, {size}, type.getElementType());
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
        SmallVector<AffineMap>{b.getMultiDimIdentityMap(1)},
        parallelIterators(1), [&](OpBuilder &bb, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(bb, l, 0);
          Value v = arith::AddIOp::create(
              bb, l, start, arith::MulIOp::create(bb, l, i, safeStep));
          linalg::YieldOp::create(
              bb, l,
              arith::IndexCastOp::create(bb, l, type.getElementType(), v)
                  .getResult());
        });
    Value result = generic.getResult(0);
    result = castTo(b, loc, result, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::kiln::populateConstantsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConstantToArith, FullToFill, FromScalarToFromElements,
               DimToTensorDim, ArangeToGeneric>(patterns.getContext());
}
