//===- Constants.cpp - kiln constants, sizes, random, scalars to tensor ---===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
    auto type = cast<RankedTensorType>(op.getType());
    Value empty = emptyTensor(rewriter, loc,
                              mixedSizesOf(rewriter, type, adaptor.getSizes()),
                              type.getElementType());
    Value value = arith::ConstantOp::create(rewriter, loc, op.getValue());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, value, empty);
    return success();
  }
};

/// kiln.random as one generic: each element's row-major index, hashed with
/// the seed by SplitMix64, as the runtime's rand and randn compute it
/// (lib/Runtime/Ops/Factories.cpp).
struct RandomToGeneric : OpConversionPattern<RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes = mixedSizesOf(b, type, adaptor.getSizes());
    Value seed =
        arith::IndexCastOp::create(b, loc, b.getI64Type(), adaptor.getSeed());
    bool normal = op.getDistribution() == RandomDistribution::normal;
    Value result = buildGeneric(
        b, loc, sizes, type.getElementType(), ValueRange{}, {},
        [&](OpBuilder &bb, Location l, ValueRange) -> Value {
          Type i64 = bb.getI64Type(), f64 = bb.getF64Type();
          auto c = [&](uint64_t v) -> Value {
            return arith::ConstantOp::create(
                bb, l, bb.getIntegerAttr(i64, static_cast<int64_t>(v)));
          };
          auto f = [&](double v) -> Value {
            return arith::ConstantOp::create(bb, l, bb.getF64FloatAttr(v));
          };
          // The row-major index.
          Value index = c(0);
          for (int64_t d = 0; d < type.getRank(); ++d) {
            Value size = arith::IndexCastOp::create(
                bb, l, i64, indexValue(bb, l, sizes[d]));
            Value at = arith::IndexCastOp::create(
                bb, l, i64, linalg::IndexOp::create(bb, l, d));
            index = arith::AddIOp::create(
                bb, l, arith::MulIOp::create(bb, l, index, size), at);
          }
          // SplitMix64(seed, i) as a double in [0, 1).
          auto unit = [&](Value i) -> Value {
            Value z = arith::AddIOp::create(
                bb, l, seed,
                arith::MulIOp::create(bb, l,
                                      arith::AddIOp::create(bb, l, i, c(1)),
                                      c(0x9e3779b97f4a7c15ull)));
            auto mix = [&](Value v, uint64_t shift, uint64_t factor) {
              Value x = arith::XOrIOp::create(
                  bb, l, v, arith::ShRUIOp::create(bb, l, v, c(shift)));
              return factor ? Value(arith::MulIOp::create(bb, l, x, c(factor)))
                            : x;
            };
            z = mix(mix(mix(z, 30, 0xbf58476d1ce4e5b9ull), 27,
                        0x94d049bb133111ebull),
                    31, 0);
            Value top = arith::ShRUIOp::create(bb, l, z, c(11));
            return arith::MulFOp::create(
                bb, l, arith::UIToFPOp::create(bb, l, f64, top), f(0x1.0p-53));
          };
          Value v;
          if (!normal) {
            v = unit(index);
          } else {
            Value first = arith::MulIOp::create(
                bb, l, arith::ShRUIOp::create(bb, l, index, c(1)), c(2));
            Value u1 = unit(first);
            Value u2 = unit(arith::AddIOp::create(bb, l, first, c(1)));
            Value r = math::SqrtOp::create(
                bb, l,
                arith::MulFOp::create(
                    bb, l, f(-2.0),
                    math::LogOp::create(
                        bb, l, arith::SubFOp::create(bb, l, f(1.0), u1))));
            Value theta =
                arith::MulFOp::create(bb, l, f(6.283185307179586), u2);
            Value even = arith::CmpIOp::create(
                bb, l, arith::CmpIPredicate::eq,
                arith::AndIOp::create(bb, l, index, c(1)), c(0));
            v = arith::MulFOp::create(
                bb, l, r,
                arith::SelectOp::create(bb, l, even,
                                        math::CosOp::create(bb, l, theta),
                                        math::SinOp::create(bb, l, theta)));
          }
          Type element = type.getElementType();
          if (element != f64)
            v = arith::TruncFOp::create(bb, l, element, v);
          return v;
        });
    rewriter.replaceOp(op, result);
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
    auto type = cast<RankedTensorType>(op.getType());
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
               DimToTensorDim, ArangeToGeneric, RandomToGeneric>(
      patterns.getContext());
}
