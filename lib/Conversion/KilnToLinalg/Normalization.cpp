//===- Normalization.cpp - softmax, log_softmax, layer_norm, rms_norm -----===//
//
// Each becomes reductions and elementwise generics that upstream fusion can
// merge: softmax is max, exp(x - max), sum, divide; the norms take the mean
// and the mean of squared deviations over the trailing dims. float16 and
// bfloat16 are computed in float32.
//
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

RankedTensorType withElement(Value v, Type element) {
  return RankedTensorType::get(cast<RankedTensorType>(v.getType()).getShape(),
                               element);
}

/// v converted to float32 when it is a 16-bit float tensor.
Value widen(OpBuilder &b, Location loc, Value v) {
  Type e = cast<RankedTensorType>(v.getType()).getElementType();
  if (!(e.isF16() || e.isBF16()))
    return v;
  return buildElementwise(
      b, loc, v, withElement(v, b.getF32Type()),
      [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
        return arith::ExtFOp::create(bb, l, bb.getF32Type(), a[0]);
      });
}

Value narrow(OpBuilder &b, Location loc, Value v, Type element) {
  if (cast<RankedTensorType>(v.getType()).getElementType() == element)
    return v;
  return buildElementwise(
      b, loc, v, withElement(v, element),
      [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
        return arith::TruncFOp::create(bb, l, element, a[0]);
      });
}

/// Elementwise fn over operands broadcast to like's shape (and type).
Value mapLike(OpBuilder &b, Location loc, Value like, ValueRange operands,
              ScalarFn fn) {
  return buildElementwise(b, loc, operands,
                          cast<RankedTensorType>(like.getType()), fn);
}

/// Reductions here keep no size-1 dims: their results are read back through
/// maps that project the reduced dims out, so that every op of a softmax or
/// norm can be tiled by rows and fused (kiln-tile-and-fuse-rows).
template <bool Log>
struct SoftmaxToGenerics
    : OpConversionPattern<std::conditional_t<Log, LogSoftmaxOp, SoftmaxOp>> {
  using OpTy = std::conditional_t<Log, LogSoftmaxOp, SoftmaxOp>;
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = widen(b, loc, adaptor.getInput());
    auto type = cast<RankedTensorType>(x.getType());
    Type f = type.getElementType();
    int64_t rank = type.getRank();
    int64_t dim = static_cast<int64_t>(op.getDim());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap row = projectOut(b.getContext(), rank, {dim});
    // Any NaN in the row makes the whole row NaN through the sum whatever
    // the shift is, so the maximum may skip NaNs (MaxNum).
    Value max = buildReduction(b, loc, x, {dim}, /*keepdim=*/false,
                               ReduceKind::MaxNum, f);
    // An infinite maximum (a fully masked row) shifts by 0, giving NaN as
    // the runtime and torch do, instead of exp(inf - inf).
    Value shift = mapLike(
        b, loc, max, max,
        [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
          Value inf = scalarConstant(bb, l, f, INFINITY);
          Value isInf =
              arith::CmpFOp::create(bb, l, arith::CmpFPredicate::OEQ,
                                    math::AbsFOp::create(bb, l, a[0]), inf);
          return arith::SelectOp::create(bb, l, isInf,
                                         scalarConstant(bb, l, f, 0), a[0]);
        });
    Value e =
        buildGeneric(b, loc, sizes, f, {x, shift}, {id, row},
                     [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
                       return math::ExpOp::create(
                           bb, l, arith::SubFOp::create(bb, l, a[0], a[1]));
                     });
    Value sum = buildReduction(b, loc, e, {dim}, false, ReduceKind::Sum, f);
    Value result;
    if (Log) {
      result = buildGeneric(
          b, loc, sizes, f, {x, shift, sum}, {id, row, row},
          [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
            Value centered = arith::SubFOp::create(bb, l, a[0], a[1]);
            return arith::SubFOp::create(bb, l, centered,
                                         math::LogOp::create(bb, l, a[2]));
          });
    } else {
      // One division per row, a multiplication per element (as ATen does).
      Value inverse =
          mapLike(b, loc, sum, sum,
                  [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
                    return arith::DivFOp::create(
                        bb, l, scalarConstant(bb, l, f, 1.0), a[0]);
                  });
      result =
          buildGeneric(b, loc, sizes, f, {e, inverse}, {id, row},
                       [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
                         return arith::MulFOp::create(bb, l, a[0], a[1]);
                       });
    }
    result = castTo(b, loc, result, type);
    rewriter.replaceOp(op,
                       narrow(b, loc, result, op.getType().getElementType()));
    return success();
  }
};

/// (x - mean?) * rsqrt(mean((x - mean?)^2) + eps) * weight + bias? over the
/// last rank(weight) dims; epsValue (f64), when set, is eps.
Value normalize(OpBuilder &b, Location loc, Value input, Value weight,
                Value bias, double eps, Value epsValue, bool center) {
  Value x = widen(b, loc, input);
  Value w = widen(b, loc, weight);
  Value bi = bias ? widen(b, loc, bias) : Value();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  int64_t k = cast<RankedTensorType>(weight.getType()).getRank();
  // The weight (and bias) must have the normalised dims' sizes exactly.
  // When they do not (a failed shape check), zeros of the right sizes stand
  // in for them, so that every read stays in bounds; x itself is left
  // untouched, which keeps the chain that produces it fusible.
  SmallVector<Value> params = {w};
  if (bi)
    params.push_back(bi);
  Value ok;
  for (Value p : params)
    for (int64_t i = 0; i < k; ++i) {
      auto pt = cast<RankedTensorType>(p.getType());
      auto xt = cast<RankedTensorType>(x.getType());
      if ((!pt.isDynamicDim(i) && !xt.isDynamicDim(rank - k + i)) ||
          dimSource(p, i) == dimSource(x, rank - k + i))
        continue;
      Value eq = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, tensor::DimOp::create(b, loc, p, i),
          tensor::DimOp::create(b, loc, x, rank - k + i));
      ok = ok ? arith::AndIOp::create(b, loc, ok, eq).getResult() : eq;
    }
  if (ok) {
    emitShapeCheck(b, loc, ok, "norm: the weight's or bias's shape differs");
    for (Value *p : {&w, &bi}) {
      if (!*p)
        continue;
      auto pt = cast<RankedTensorType>(p->getType());
      SmallVector<OpFoldResult> sizes;
      for (int64_t i = 0; i < k; ++i)
        sizes.push_back(tensor::getMixedSize(b, loc, x, rank - k + i));
      Value param = *p;
      *p = scf::IfOp::create(
               b, loc, ok,
               [&](OpBuilder &bb, Location l) {
                 scf::YieldOp::create(bb, l, param);
               },
               [&](OpBuilder &bb, Location l) {
                 Value zeros =
                     linalg::FillOp::create(
                         bb, l, scalarConstant(bb, l, pt.getElementType(), 0),
                         emptyTensor(bb, l, sizes, pt.getElementType()))
                         .getResult(0);
                 scf::YieldOp::create(bb, l, castTo(bb, l, zeros, pt));
               })
               .getResult(0);
    }
  }
  auto type = cast<RankedTensorType>(x.getType());
  Type f = type.getElementType();
  SmallVector<int64_t> dims, lead;
  for (int64_t d = 0; d < rank; ++d)
    (d >= rank - k ? dims : lead).push_back(d);
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap row = projectOut(ctx, rank, dims);
  AffineMap trailing = projectOut(ctx, rank, lead);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  // The element count n of a row, as a float.
  Value n = dimProduct(b, loc, x, dims);
  Value nf = arith::SIToFPOp::create(
      b, loc, f, arith::IndexCastOp::create(b, loc, b.getI64Type(), n));
  // The deviations x - mean are recomputed where they are read (in the
  // variance and in the result) rather than stored: one pass over the row
  // less, and one buffer less per row block.
  Value mean;
  if (center) {
    Value sum = buildReduction(b, loc, x, dims, false, ReduceKind::Sum, f);
    mean = mapLike(b, loc, sum, sum,
                   [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
                     return arith::DivFOp::create(bb, l, a[0], nf);
                   });
  }
  auto deviation = [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
    return mean ? Value(arith::SubFOp::create(bb, l, a[0], a[1])) : a[0];
  };
  SmallVector<Value> xAndMean = {x};
  SmallVector<AffineMap> xAndMeanMaps = {id};
  if (mean) {
    xAndMean.push_back(mean);
    xAndMeanMaps.push_back(row);
  }
  Value squares =
      buildGeneric(b, loc, sizes, f, xAndMean, xAndMeanMaps,
                   [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
                     Value d = deviation(bb, l, a);
                     return arith::MulFOp::create(bb, l, d, d);
                   });
  Value sq = buildReduction(b, loc, squares, dims, false, ReduceKind::Sum, f);
  // An eps known only at run time comes as an f64 operand.
  Value epsV = !epsValue ? scalarConstant(b, loc, f, eps)
               : epsValue.getType() == f
                   ? epsValue
                   : Value(arith::TruncFOp::create(b, loc, f, epsValue));
  Value scale = mapLike(b, loc, sq, sq,
                        [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
                          Value var = arith::DivFOp::create(bb, l, a[0], nf);
                          // 1 / sqrt: math.rsqrt has no libm fallback for f64.
                          Value root = math::SqrtOp::create(
                              bb, l, arith::AddFOp::create(bb, l, var, epsV));
                          return arith::DivFOp::create(
                              bb, l, scalarConstant(bb, l, f, 1.0), root);
                        });
  SmallVector<Value> operands = xAndMean;
  SmallVector<AffineMap> maps = xAndMeanMaps;
  unsigned first = operands.size();
  operands.append({scale, w});
  maps.append({row, trailing});
  if (bi) {
    operands.push_back(bi);
    maps.push_back(trailing);
  }
  Value y = buildGeneric(
      b, loc, sizes, f, operands, maps,
      [&](OpBuilder &bb, Location l, ValueRange a) -> Value {
        Value v = arith::MulFOp::create(
            bb, l, arith::MulFOp::create(bb, l, deviation(bb, l, a), a[first]),
            a[first + 1]);
        return a.size() > first + 2
                   ? Value(arith::AddFOp::create(bb, l, v, a[first + 2]))
                   : v;
      });
  return castTo(b, loc, y, type);
}

struct LayerNormToGenerics : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value y = normalize(rewriter, op.getLoc(), adaptor.getInput(),
                        adaptor.getWeight(), adaptor.getBias(),
                        op.getEps().convertToDouble(), adaptor.getEpsValue(),
                        /*center=*/true);
    rewriter.replaceOp(
        op, narrow(rewriter, op.getLoc(), y, op.getType().getElementType()));
    return success();
  }
};

struct RmsNormToGenerics : OpConversionPattern<RmsNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RmsNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value y = normalize(rewriter, op.getLoc(), adaptor.getInput(),
                        adaptor.getWeight(), Value(),
                        op.getEps().convertToDouble(), adaptor.getEpsValue(),
                        /*center=*/false);
    rewriter.replaceOp(
        op, narrow(rewriter, op.getLoc(), y, op.getType().getElementType()));
    return success();
  }
};

} // namespace

void mlir::kiln::populateNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SoftmaxToGenerics<false>, SoftmaxToGenerics<true>,
               LayerNormToGenerics, RmsNormToGenerics>(patterns.getContext());
}
