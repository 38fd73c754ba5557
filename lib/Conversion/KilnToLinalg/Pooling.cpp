//===- Pooling.cpp - kiln.pool2d, kiln.adaptive_avg_pool2d to linalg ------===//
//
// max and average pooling as one generic over the output (n, c, oh, ow) and
// the window's taps (i, j): tap (i, j) of output (oh, ow) reads input row
// oh * sh - ph + i * dh and column ow * sw - pw + j * dw; a tap outside the
// input counts as -inf for max and 0 for the sum, as ATen's kernels skip
// it. Average pooling then divides by ATen's divisor in an elementwise
// generic that fuses with the sum. Window parameters known only at run time
// are operands, range-checked as eager checks them.
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

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

/// Where tap `tap` of output `o` reads along dim i (0: rows, 1: columns).
using TapPosition =
    function_ref<Value(OpBuilder &, Location, int i, Value o, Value tap)>;

/// One generic over the output (n, c, oh, ow) and the taps (i, j) < taps:
/// the max or the sum, in acc, of x's elements at the taps' positions that
/// lie inside the input's `in` rows and columns (positions are clamped into
/// x's planes; where a plane is empty, its check failed, nothing is read).
Value reduceWindows(OpBuilder &b, Location loc, Value x, ArrayRef<Value> in,
                    ArrayRef<OpFoldResult> sizes, ArrayRef<Value> taps,
                    Type acc, bool isMax, TapPosition position) {
  double neutral = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value empty = anyEmptyAlong(b, loc, x, {2, 3});
  Value init =
      linalg::FillOp::create(b, loc, scalarConstant(b, loc, acc, neutral),
                             emptyTensor(b, loc, sizes, acc))
          .getResult(0);
  // The window operand only gives the taps' loops their sizes.
  SmallVector<OpFoldResult> tapSizes = {taps[0], taps[1]};
  Value window = emptyTensor(b, loc, tapSizes, acc);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {b.getAffineDimExpr(4), b.getAffineDimExpr(5)}, ctx),
      AffineMap::getMultiDimIdentityMap(6, ctx).getMajorSubMap(4)};
  SmallVector<utils::IteratorType> iterators = parallelIterators(4);
  iterators.append(2, utils::IteratorType::reduction);
  using P = arith::CmpIPredicate;
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{window},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &bb, Location l, ValueRange args) {
               auto at = [&](int64_t dim) -> Value {
                 return linalg::IndexOp::create(bb, l, dim);
               };
               Value zero = arith::ConstantIndexOp::create(bb, l, 0);
               Value one = arith::ConstantIndexOp::create(bb, l, 1);
               Value inside, coords[2];
               for (int i = 0; i < 2; ++i) {
                 Value pos = position(bb, l, i, at(2 + i), at(4 + i));
                 Value ok = arith::AndIOp::create(
                     bb, l, arith::CmpIOp::create(bb, l, P::sge, pos, zero),
                     arith::CmpIOp::create(bb, l, P::slt, pos, in[i]));
                 inside = i ? arith::AndIOp::create(bb, l, inside, ok) : ok;
                 Value top = arith::SubIOp::create(
                     bb, l, tensor::DimOp::create(bb, l, x, 2 + i), one);
                 coords[i] = arith::MinSIOp::create(
                     bb, l, arith::MaxSIOp::create(bb, l, pos, zero), top);
               }
               Value v = extractUnlessEmpty(
                   bb, l, x, ValueRange{at(0), at(1), coords[0], coords[1]},
                   empty);
               if (v.getType() != acc)
                 v = arith::ExtFOp::create(bb, l, acc, v);
               v = arith::SelectOp::create(bb, l, inside, v,
                                           scalarConstant(bb, l, acc, neutral));
               Value r =
                   isMax ? Value(arith::MaximumFOp::create(bb, l, args[1], v))
                         : Value(arith::AddFOp::create(bb, l, args[1], v));
               linalg::YieldOp::create(bb, l, r);
             })
      .getResult(0);
}

/// An index as a float of type `type`.
Value asFloat(OpBuilder &b, Location loc, Value index, Type type) {
  return arith::SIToFPOp::create(
      b, loc, type, arith::IndexCastOp::create(b, loc, b.getI64Type(), index));
}

/// sums / count(output position), converted to element: an elementwise
/// generic that fuses with the sums'.
Value divideWindows(
    OpBuilder &b, Location loc, Value sums, ArrayRef<OpFoldResult> sizes,
    Type element, function_ref<Value(OpBuilder &, Location, Type acc)> count) {
  return buildGeneric(b, loc, sizes, element, ValueRange{sums},
                      {b.getMultiDimIdentityMap(4)},
                      [&](OpBuilder &bb, Location l, ValueRange args) -> Value {
                        Value mean = arith::DivFOp::create(
                            bb, l, args[0], count(bb, l, args[0].getType()));
                        if (mean.getType() != element)
                          mean = arith::TruncFOp::create(bb, l, element, mean);
                        return mean;
                      });
}

/// Checks that only the batch of x may be empty; x's planes' sizes.
void checkPlanes(OpBuilder &b, Location loc, Value x, StringRef name,
                 Value in[2]) {
  for (int64_t dim = 1; dim < 4; ++dim)
    emitShapeCheck(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                              tensor::DimOp::create(b, loc, x, dim),
                              arith::ConstantIndexOp::create(b, loc, 0)),
        (name + ": only the batch dim may be empty").str());
  in[0] = tensor::DimOp::create(b, loc, x, 2);
  in[1] = tensor::DimOp::create(b, loc, x, 3);
}

/// Sums of half floats accumulate in f32, as eager computes them.
Type accumulatorOf(OpBuilder &b, Type element) {
  return element.getIntOrFloatBitWidth() < 32 ? Type(b.getF32Type()) : element;
}

struct Pool2dToLinalg : OpConversionPattern<Pool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Pool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getInput().getType().getRank() != 4)
      return rewriter.notifyMatchFailure(
          op, "one unbatched image: kiln-decompose-composites batches it");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    bool isMax = op.getKind() == PoolKind::max;
    std::string name = isMax ? "max_pool2d" : "avg_pool2d";
    Value x = adaptor.getInput();
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    Type acc = isMax ? element : accumulatorOf(b, element);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto cmp = [&](arith::CmpIPredicate pred, Value l, Value r) -> Value {
      return arith::CmpIOp::create(b, loc, pred, l, r);
    };
    using P = arith::CmpIPredicate;

    // kh, kw, sh, sw, ph, pw, dh, dw: attributes, or the operands for the
    // dynamic ones, checked and clamped so that a failed check still runs
    // in bounds.
    auto params = adaptor.getParams().begin();
    auto param = [&](int64_t v, int64_t minimum, StringRef what) -> Value {
      if (!ShapedType::isDynamic(v))
        return cst(v);
      Value p = *params++;
      emitShapeCheck(b, loc, cmp(P::sge, p, cst(minimum)),
                     name + ": " + what.str() + " must be at least " +
                         std::to_string(minimum));
      return arith::MaxSIOp::create(b, loc, p, cst(minimum));
    };
    SmallVector<Value> k, s, p, d;
    for (int64_t v : op.getKernel())
      k.push_back(param(v, 1, "kernel_size"));
    for (int64_t v : op.getStrides())
      s.push_back(param(v, 1, "stride"));
    for (int64_t v : op.getPadding())
      p.push_back(param(v, 0, "padding"));
    for (int64_t v : op.getDilation())
      d.push_back(param(v, 1, "dilation"));
    // The flags as i1: constants, or operands (0 or 1).
    auto flag = [&](int64_t v) -> Value {
      if (!ShapedType::isDynamic(v))
        return arith::ConstantIntOp::create(b, loc, v, 1);
      return cmp(P::ne, *params++, cst(0));
    };
    Value ceilMode = flag(op.getCeilMode());
    Value countPad = flag(op.getCountIncludePad());

    Value in[2];
    checkPlanes(b, loc, x, name, in);

    // ATen's pooling_output_shape.
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, x, 0),
                                       tensor::getMixedSize(b, loc, x, 1)};
    for (int i = 0; i < 2; ++i) {
      emitShapeCheck(
          b, loc,
          cmp(P::sle, arith::MulIOp::create(b, loc, p[i], cst(2)), k[i]),
          name + ": padding must be at most half the kernel size");
      if (!resultType.isDynamicDim(2 + i)) {
        sizes.push_back(b.getIndexAttr(resultType.getDimSize(2 + i)));
        continue;
      }
      Value span = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, d[i],
                                arith::SubIOp::create(b, loc, k[i], cst(1))),
          cst(1));
      Value room = arith::SubIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, in[i],
                                arith::MulIOp::create(b, loc, p[i], cst(2))),
          span);
      // ceil_mode rounds up, as long as the last window starts inside the
      // input or its left padding.
      room = arith::AddIOp::create(
          b, loc, room,
          arith::SelectOp::create(b, loc, ceilMode,
                                  arith::SubIOp::create(b, loc, s[i], cst(1)),
                                  cst(0)));
      Value o = arith::AddIOp::create(
          b, loc, arith::FloorDivSIOp::create(b, loc, room, s[i]), cst(1));
      Value last = arith::MulIOp::create(
          b, loc, arith::SubIOp::create(b, loc, o, cst(1)), s[i]);
      Value past = arith::AndIOp::create(
          b, loc, ceilMode,
          cmp(P::sge, last, arith::AddIOp::create(b, loc, in[i], p[i])));
      o = arith::SelectOp::create(b, loc, past,
                                  arith::SubIOp::create(b, loc, o, cst(1)), o);
      emitShapeCheck(b, loc, cmp(P::sge, o, cst(1)),
                     name + ": the padded input is smaller than the kernel");
      sizes.push_back(
          OpFoldResult(arith::MaxSIOp::create(b, loc, o, cst(0)).getResult()));
    }

    // o * s - p + tap * d
    Value pooled = reduceWindows(
        b, loc, x, in, sizes, {k[0], k[1]}, acc, isMax,
        [&](OpBuilder &bb, Location l, int i, Value o, Value tap) -> Value {
          return arith::SubIOp::create(
              bb, l,
              arith::AddIOp::create(bb, l,
                                    arith::MulIOp::create(bb, l, o, s[i]),
                                    arith::MulIOp::create(bb, l, tap, d[i])),
              p[i]);
        });
    if (!isMax)
      pooled = divide(b, loc, op.getDivisor(), countPad, pooled, sizes, k, s, p,
                      in, element);
    rewriter.replaceOp(op, castTo(b, loc, pooled, resultType));
    return success();
  }

private:
  /// sums / ATen's divisor, converted to element: the window clipped to the
  /// padded input (count_include_pad) or to the input, or the override.
  static Value divide(OpBuilder &b, Location loc,
                      std::optional<int64_t> divisor, Value countPad,
                      Value sums, ArrayRef<OpFoldResult> sizes,
                      ArrayRef<Value> k, ArrayRef<Value> s, ArrayRef<Value> p,
                      ArrayRef<Value> in, Type element) {
    return divideWindows(
        b, loc, sums, sizes, element,
        [&](OpBuilder &bb, Location l, Type acc) -> Value {
          if (divisor)
            return scalarConstant(bb, l, acc, static_cast<double>(*divisor));
          Value area;
          for (int i = 0; i < 2; ++i) {
            Value start = arith::SubIOp::create(
                bb, l,
                arith::MulIOp::create(
                    bb, l, linalg::IndexOp::create(bb, l, 2 + i), s[i]),
                p[i]);
            Value end = arith::MinSIOp::create(
                bb, l, arith::AddIOp::create(bb, l, start, k[i]),
                arith::AddIOp::create(bb, l, in[i], p[i]));
            start = arith::SelectOp::create(
                bb, l, countPad, start,
                arith::MaxSIOp::create(
                    bb, l, start, arith::ConstantIndexOp::create(bb, l, 0)));
            end = arith::SelectOp::create(
                bb, l, countPad, end,
                arith::MinSIOp::create(bb, l, end, in[i]));
            Value extent = arith::SubIOp::create(bb, l, end, start);
            area = i ? arith::MulIOp::create(bb, l, area, extent) : extent;
          }
          return asFloat(bb, l, area, acc);
        });
  }
};

/// adaptive_avg_pool2d: output o's window is [floor(o * in / out),
/// ceil((o + 1) * in / out)), read as taps from its start: at most
/// ceil(in / out) + 1 of them.
struct AdaptiveAvgPool2dToLinalg : OpConversionPattern<AdaptiveAvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AdaptiveAvgPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getInput().getType().getRank() != 4)
      return rewriter.notifyMatchFailure(
          op, "one unbatched image: kiln-decompose-composites batches it");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput();
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    Type acc = accumulatorOf(b, element);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto params = adaptor.getParams().begin();
    SmallVector<Value> out;
    SmallVector<OpFoldResult> sizes;
    for (int64_t v : op.getOutputSize()) {
      if (!ShapedType::isDynamic(v)) {
        out.push_back(cst(v));
        sizes.push_back(b.getIndexAttr(v));
        continue;
      }
      Value p = *params++;
      emitShapeCheck(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, p, cst(1)),
          "adaptive_avg_pool2d: output_size must be at least 1");
      out.push_back(arith::MaxSIOp::create(b, loc, p, cst(1)));
      sizes.push_back(out.back());
    }
    Value in[2];
    checkPlanes(b, loc, x, "adaptive_avg_pool2d", in);
    sizes.insert(sizes.begin(), {tensor::getMixedSize(b, loc, x, 0),
                                 tensor::getMixedSize(b, loc, x, 1)});
    SmallVector<Value> taps;
    for (int i = 0; i < 2; ++i)
      taps.push_back(arith::AddIOp::create(
          b, loc, arith::CeilDivSIOp::create(b, loc, in[i], out[i]), cst(1)));
    // floor(o * in / out) and ceil((o + 1) * in / out).
    auto start = [&](OpBuilder &bb, Location l, int i, Value o) -> Value {
      return arith::DivSIOp::create(
          bb, l, arith::MulIOp::create(bb, l, o, in[i]), out[i]);
    };
    auto end = [&](OpBuilder &bb, Location l, int i, Value o) -> Value {
      Value next = arith::AddIOp::create(
          bb, l, o, arith::ConstantIndexOp::create(bb, l, 1));
      return arith::CeilDivSIOp::create(
          bb, l, arith::MulIOp::create(bb, l, next, in[i]), out[i]);
    };
    Value sums = reduceWindows(
        b, loc, x, in, sizes, taps, acc, /*isMax=*/false,
        [&](OpBuilder &bb, Location l, int i, Value o, Value tap) -> Value {
          // Past the window's end reads as outside the input.
          Value pos = arith::AddIOp::create(bb, l, start(bb, l, i, o), tap);
          Value past = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sge,
                                             pos, end(bb, l, i, o));
          return arith::SelectOp::create(bb, l, past, in[i], pos);
        });
    Value mean = divideWindows(
        b, loc, sums, sizes, element,
        [&](OpBuilder &bb, Location l, Type type) -> Value {
          Value area;
          for (int i = 0; i < 2; ++i) {
            Value o = linalg::IndexOp::create(bb, l, 2 + i);
            Value extent = arith::SubIOp::create(bb, l, end(bb, l, i, o),
                                                 start(bb, l, i, o));
            area = i ? arith::MulIOp::create(bb, l, area, extent) : extent;
          }
          return asFloat(bb, l, area, type);
        });
    rewriter.replaceOp(op, castTo(b, loc, mean, op.getType()));
    return success();
  }
};

} // namespace

void mlir::kiln::populatePoolingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<AdaptiveAvgPool2dToLinalg, Pool2dToLinalg>(
      patterns.getContext());
}
