//===- DecomposeComposites.cpp - Composites written with the other ops ----===//
//
// kiln-decompose-composites (Passes.td): each composite op (KilnOps.td,
// "Composites") is rewritten, on its known types, as the kiln ops that
// compute it. The eager backend and the interpreter call the runtime's own
// function for it instead (its cppCall).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/EinsumPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <limits>
#include <type_traits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDECOMPOSECOMPOSITES
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
namespace k = mlir::kiln;

namespace {

/// Builds the sizes of a reshape: each dim of the result type, its size
/// when dynamic as an index value.
struct Sizes {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  void add(int64_t size, function_ref<Value()> value) {
    shape.push_back(size);
    if (ShapedType::isDynamic(size))
      dynamic.push_back(value());
  }
};

Value dimOf(PatternRewriter &b, Location loc, Value x, int64_t d) {
  return k::DimOp::create(b, loc, x, b.getI64IntegerAttr(d));
}

Value indexConstant(PatternRewriter &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value f64Constant(PatternRewriter &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}

/// An index value as an f64 (host arithmetic on sizes).
Value indexAsF64(PatternRewriter &b, Location loc, Value i) {
  return arith::SIToFPOp::create(
      b, loc, b.getF64Type(),
      arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
}

/// Positions 0 .. size - 1 as an int64 tensor.
Value positions(PatternRewriter &b, Location loc, Value size) {
  return k::ArangeOp::create(
      b, loc, RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type()),
      indexConstant(b, loc, 0), size, indexConstant(b, loc, 1));
}

/// An index or i64 value as a 0-d int64 tensor (a wrapped integer).
Value wrappedInteger(PatternRewriter &b, Location loc, Value i) {
  return k::FromScalarOp::create(b, loc,
                                 RankedTensorType::get({}, b.getI64Type()), i);
}

/// A 0-d float tensor of element type e holding v.
Value floatScalar(PatternRewriter &b, Location loc, Type e, double v) {
  return k::FullOp::create(b, loc, RankedTensorType::get({}, e), ValueRange{},
                           b.getFloatAttr(e, v));
}

/// v as `type`, cast where its sizes are more or less static.
Value castTo(PatternRewriter &b, Location loc, Type type, Value v) {
  return v.getType() == type ? v : k::CastOp::create(b, loc, type, v);
}

/// Replaces op by y, cast to op's result type.
LogicalResult replaceCasting(PatternRewriter &b, Operation *op, Value y) {
  b.replaceOp(op, castTo(b, op->getLoc(), op->getResult(0).getType(), y));
  return success();
}

/// Sizes that must be equal at run time, where eager checks them and the
/// types leave them dynamic: one cf.assert of them all, or none.
class SizeChecks {
public:
  SizeChecks(PatternRewriter &b, Location loc) : b_(b), loc_(loc) {}
  void equal(Value a, Value c) {
    holds(b_.createOrFold<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, a, c));
  }
  /// A condition that must hold besides (none where it folded to true).
  void holds(Value condition) {
    if (matchPattern(condition, m_One()))
      return;
    all_ = all_ ? arith::AndIOp::create(b_, loc_, all_, condition) : condition;
  }
  void assertAll(StringRef message) {
    if (all_)
      cf::AssertOp::create(b_, loc_, all_, message);
  }

private:
  PatternRewriter &b_;
  Location loc_;
  Value all_;
};

/// flatten: the merged dims' sizes multiplied.
struct DecomposeFlatten : OpRewritePattern<k::FlattenOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::FlattenOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto in = cast<RankedTensorType>(x.getType());
    auto out = cast<RankedTensorType>(op.getType());
    int64_t start = op.getStartDim(), end = op.getEndDim();
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      if (d < start || d > end) {
        if (in.isDynamicDim(d))
          dynamic.push_back(dimOf(b, loc, x, d));
      } else if (d == end && out.isDynamicDim(start)) {
        Value merged = indexConstant(b, loc, 1);
        for (int64_t m = start; m <= end; ++m)
          merged = arith::MulIOp::create(b, loc, merged, dimOf(b, loc, x, m));
        dynamic.push_back(merged);
      }
    }
    b.replaceOpWithNewOp<k::ReshapeOp>(op, out, x, dynamic);
    return success();
  }
};

/// unflatten: a -1 size is the dim's size over the others' product (a
/// zero product divides by 1, and the reshape's element-count check then
/// fails as eager's does).
struct DecomposeUnflatten : OpRewritePattern<k::UnflattenOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::UnflattenOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto in = cast<RankedTensorType>(x.getType());
    int64_t dim = op.getDim();
    auto isInferred = [](Value size) {
      APInt v;
      return matchPattern(size, m_ConstantInt(&v)) && v.isAllOnes();
    };
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < dim; ++d)
      if (in.isDynamicDim(d))
        dynamic.push_back(dimOf(b, loc, x, d));
    Value others = indexConstant(b, loc, 1);
    for (Value size : op.getSizes())
      if (!isInferred(size))
        others = arith::MulIOp::create(b, loc, others, size);
    Value zero = indexConstant(b, loc, 0);
    Value divisor = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, others, zero),
        indexConstant(b, loc, 1), others);
    auto out = cast<RankedTensorType>(op.getType());
    for (auto [i, size] : llvm::enumerate(op.getSizes())) {
      if (!out.isDynamicDim(dim + i))
        continue;
      dynamic.push_back(isInferred(size)
                            ? Value(arith::DivSIOp::create(
                                  b, loc, dimOf(b, loc, x, dim), divisor))
                            : size);
    }
    for (int64_t d = dim + 1; d < in.getRank(); ++d)
      if (in.isDynamicDim(d))
        dynamic.push_back(dimOf(b, loc, x, d));
    b.replaceOpWithNewOp<k::ReshapeOp>(op, out, x, dynamic);
    return success();
  }
};

/// reshape_as and expand_as: a reshape (expand) to the other tensor's
/// sizes.
template <typename OpTy, typename ToOp>
struct DecomposeToOthersSizes : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Value like = op.getOther();
    b.replaceOpWithNewOp<ToOp>(op, op.getType(), op.getInput(),
                               k::dynamicSizesOf(b, op.getLoc(), like));
    return success();
  }
};
using DecomposeReshapeAs = DecomposeToOthersSizes<k::ReshapeAsOp, k::ReshapeOp>;
using DecomposeExpandAs = DecomposeToOthersSizes<k::ExpandAsOp, k::ExpandOp>;

/// repeat and tile: [s0, s1] as [1, s0, 1, s1] (a leading 1 pair per extra
/// repeat), where-broadcast against a bool [r0, 1, r1, 1], and each pair
/// multiplied out.
template <typename OpTy> struct DecomposeRepeat : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto in = cast<RankedTensorType>(x.getType());
    int64_t rank = in.getRank();
    SmallVector<int64_t> reps(op.getRepeats());
    while (static_cast<int64_t>(reps.size()) < rank)
      reps.insert(reps.begin(), 1); // tile's padding
    int64_t lead = static_cast<int64_t>(reps.size()) - rank;
    Sizes pairs, sizes;
    SmallVector<int64_t> mask;
    for (auto [i, rep] : llvm::enumerate(reps)) {
      int64_t r = rep, d = static_cast<int64_t>(i) - lead; // d < 0: a leading 1
      int64_t known = d < 0 ? 1 : in.getDimSize(d);
      mask.append({r, 1});
      pairs.shape.push_back(1);
      pairs.add(known, [&] { return dimOf(b, loc, x, d); });
      sizes.add(ShapedType::isDynamic(known) ? known : known * r, [&] {
        return arith::MulIOp::create(b, loc, pairs.dynamic.back(),
                                     indexConstant(b, loc, r));
      });
    }
    Type el = in.getElementType();
    Value y = k::ReshapeOp::create(
        b, loc, RankedTensorType::get(pairs.shape, el), x, pairs.dynamic);
    Value everywhere =
        k::FullOp::create(b, loc, RankedTensorType::get(mask, b.getI1Type()),
                          ValueRange{}, b.getIntegerAttr(b.getI1Type(), 1));
    Value spread = k::WhereOp::create(b, loc, everywhere, y, y);
    b.replaceOpWithNewOp<k::ReshapeOp>(op, op.getType(), spread, sizes.dynamic);
    return success();
  }
};

/// rank: a constant.
struct DecomposeRank : OpRewritePattern<k::RankOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::RankOp op,
                                PatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    b.replaceOpWithNewOp<arith::ConstantIndexOp>(op, type.getRank());
    return success();
  }
};

/// numel: the product of the sizes, the static ones folded together.
struct DecomposeNumel : OpRewritePattern<k::NumelOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::NumelOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t known = 1;
    for (int64_t size : type.getShape())
      if (!ShapedType::isDynamic(size))
        known *= size;
    Value n = indexConstant(b, loc, known);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        n = arith::MulIOp::create(b, loc, n, dimOf(b, loc, x, d));
    b.replaceOp(op, n);
    return success();
  }
};

/// logsumexp: log(sum(exp(x - m))) + m over the dims, as the runtime
/// computes it: m the maximum, taken as 0 where it is infinite (floats);
/// integers subtract exactly and exp gives the result's f32.
struct DecomposeLogsumexp : OpRewritePattern<k::LogsumexpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::LogsumexpOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type e = cast<RankedTensorType>(x.getType()).getElementType();
    auto scalar = [&](double v) { return floatScalar(b, loc, e, v); };
    auto finiteMax = [&](bool keep) -> Value {
      Value m = k::AmaxOp::create(b, loc, x, op.getDimsAttr(),
                                  keep ? b.getUnitAttr() : UnitAttr());
      if (!isa<FloatType>(e))
        return m;
      Value infinite = k::CmpOp::create(
          b, loc, k::CmpPredicate::eq, k::AbsOp::create(b, loc, m),
          scalar(std::numeric_limits<double>::infinity()));
      return k::WhereOp::create(b, loc, infinite, scalar(0), m);
    };
    Value shifted =
        k::ExpOp::create(b, loc, k::SubOp::create(b, loc, x, finiteMax(true)));
    Value sum = k::SumOp::create(b, loc, shifted, op.getDimsAttr(),
                                 op.getKeepdimAttr());
    b.replaceOpWithNewOp<k::AddOp>(op, k::LogOp::create(b, loc, sum),
                                   finiteMax(op.getKeepdim()));
    return success();
  }
};

/// var and std: the squared deviations from the mean summed, divided by
/// the count less the correction (a wrapped i64, as the runtime's int64_t
/// promotes); std the square root of that, whose gradient is 0 where it is
/// 0, as eager's.
template <typename OpTy> struct DecomposeVariance : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto in = cast<RankedTensorType>(x.getType());
    DenseI64ArrayAttr dims = op.getDimsAttr();
    Value mean = k::MeanOp::create(b, loc, x, dims, b.getUnitAttr());
    Value deviation = k::SubOp::create(b, loc, x, mean);
    Value squares =
        k::SumOp::create(b, loc, k::MulOp::create(b, loc, deviation, deviation),
                         dims, op.getKeepdimAttr());
    // The count of the reduced elements: a sum of ones shaped as x.
    Value ones = k::FullOp::create(b, loc, in, k::dynamicSizesOf(b, loc, x),
                                   b.getFloatAttr(in.getElementType(), 1));
    Value count = k::SumOp::create(b, loc, ones, dims, op.getKeepdimAttr());
    Value correction =
        op.getCorrectionValue()
            ? Value(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                               op.getCorrectionValue()))
            : Value(arith::ConstantIntOp::create(
                  b, loc, static_cast<int64_t>(op.getCorrection()), 64));
    Value variance = k::DivOp::create(
        b, loc, squares,
        k::SubOp::create(b, loc, count, wrappedInteger(b, loc, correction)));
    if constexpr (std::is_same_v<OpTy, k::StdOp>) {
      // The root is taken of 1 where the variance is 0 and 0 given there:
      // the same values, and torch's gradient when a backward is built of
      // this decomposition (std_backward masks a zero result; the root's
      // own would be inf * 0).
      Type e = cast<RankedTensorType>(variance.getType()).getElementType();
      auto scalar = [&](double v) { return floatScalar(b, loc, e, v); };
      Value zero =
          k::CmpOp::create(b, loc, k::CmpPredicate::eq, variance, scalar(0));
      Value root = k::SqrtOp::create(
          b, loc, k::WhereOp::create(b, loc, zero, scalar(1), variance));
      variance = k::WhereOp::create(b, loc, zero, scalar(0), root);
    }
    b.replaceOp(op, variance);
    return success();
  }
};

/// tril and triu: x where the column less the row is at most (at least)
/// the diagonal, zero elsewhere, as the runtime computes them.
template <typename OpTy> struct DecomposeTriangle : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    Type i64 = b.getI64Type();
    auto range = [&](int64_t d) {
      return positions(b, loc, dimOf(b, loc, x, d));
    };
    Value rows =
        k::UnsqueezeOp::create(b, loc, range(rank - 2), b.getI64IntegerAttr(1));
    Value offset = k::SubOp::create(b, loc, range(rank - 1), rows);
    Value diagonal =
        k::FullOp::create(b, loc, RankedTensorType::get({}, i64), ValueRange{},
                          b.getI64IntegerAttr(op.getDiagonal()));
    Value keep =
        k::CmpOp::create(b, loc,
                         std::is_same_v<OpTy, k::TrilOp> ? k::CmpPredicate::le
                                                         : k::CmpPredicate::ge,
                         offset, diagonal);
    Type e = type.getElementType();
    Attribute zero = isa<FloatType>(e) ? Attribute(b.getFloatAttr(e, 0))
                                       : Attribute(b.getIntegerAttr(e, 0));
    Value zeros = k::FullOp::create(b, loc, RankedTensorType::get({}, e),
                                    ValueRange{}, cast<TypedAttr>(zero));
    Value y = k::WhereOp::create(b, loc, keep, x, zeros);
    return replaceCasting(b, op, y);
  }
};

/// An f64 value as a wrapped number (kiln.from_scalar), which promotes
/// against a tensor as the runtime's Scalar does.
Value wrapped(PatternRewriter &b, Location loc, Value f64) {
  return k::FromScalarOp::create(
      b, loc, RankedTensorType::get({}, b.getF64Type()), f64);
}

/// An f64 or index number (a value operand of pad, full_like) wrapped.
Value wrappedScalar(PatternRewriter &b, Location loc, Value v) {
  return v.getType().isIndex() ? wrappedInteger(b, loc, v) : wrapped(b, loc, v);
}

Value wrappedNumber(PatternRewriter &b, Location loc, double v) {
  return wrapped(b, loc, f64Constant(b, loc, v));
}

/// norm: as the runtime computes it (sum(|x|^p)^(1/p), the sum of
/// magnitudes, the count of non-zero elements, the largest or smallest
/// magnitude), the root taken of 1 where the sum is 0 and 0 given there:
/// the same values, and eager's gradient (NormBackward1: none for a zero
/// vector, where the root's own would be inf * 0).
struct DecomposeNorm : OpRewritePattern<k::NormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::NormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    double p = op.getP().convertToDouble();
    DenseI64ArrayAttr dims = op.getDimsAttr();
    UnitAttr keep = op.getKeepdimAttr();
    auto number = [&](double v) { return wrappedNumber(b, loc, v); };
    auto sum = [&](Value v) -> Value {
      return k::SumOp::create(b, loc, v, dims, keep);
    };
    auto root = [&](Value s, double exponent) -> Value {
      Value zero = k::CmpOp::create(b, loc, k::CmpPredicate::eq, s, number(0));
      Value safe = k::WhereOp::create(b, loc, zero, number(1), s);
      Value r = exponent == 0.5
                    ? Value(k::SqrtOp::create(b, loc, safe))
                    : Value(k::PowOp::create(b, loc, safe, number(exponent)));
      return k::WhereOp::create(b, loc, zero, number(0), r);
    };
    auto magnitude = [&]() -> Value { return k::AbsOp::create(b, loc, x); };
    Value y;
    if (p == 2)
      y = root(sum(k::MulOp::create(b, loc, x, x)), 0.5);
    else if (p == 1)
      y = sum(magnitude());
    else if (std::isinf(p) && p > 0)
      y = k::AmaxOp::create(b, loc, magnitude(), dims, keep);
    else if (std::isinf(p))
      y = k::AminOp::create(b, loc, magnitude(), dims, keep);
    else if (p == 0)
      y = sum(
          castTo(b, loc, x.getType(),
                 k::CmpOp::create(b, loc, k::CmpPredicate::ne, x, number(0))));
    else
      y = root(sum(k::PowOp::create(b, loc, magnitude(), number(p))), 1.0 / p);
    return replaceCasting(b, op, y);
  }
};

/// isnan, isinf, isfinite and logical_not: comparisons with the runtime's
/// numbers, bools added as or and multiplied as and.
template <typename OpTy> struct DecomposeValueTest : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    using P = k::CmpPredicate;
    const double inf = std::numeric_limits<double>::infinity();
    auto cmp = [&](P p, double v) -> Value {
      return k::CmpOp::create(b, loc, p, x, wrappedNumber(b, loc, v));
    };
    Value y;
    if constexpr (std::is_same_v<OpTy, k::IsnanOp>)
      y = k::CmpOp::create(b, loc, P::ne, x, x);
    else if constexpr (std::is_same_v<OpTy, k::LogicalNotOp>)
      y = cmp(P::eq, 0);
    else if constexpr (std::is_same_v<OpTy, k::IsinfOp>)
      y = k::AddOp::create(b, loc, cmp(P::eq, inf), cmp(P::eq, -inf));
    else
      y = k::MulOp::create(
          b, loc, k::CmpOp::create(b, loc, P::eq, x, x),
          k::MulOp::create(b, loc, cmp(P::ne, inf), cmp(P::ne, -inf)));
    return replaceCasting(b, op, y);
  }
};

/// logical_and and logical_or: each operand compared with 0, the bools
/// multiplied as and or added as or.
template <typename OpTy> struct DecomposeLogical : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto truth = [&](Value x) -> Value {
      return k::CmpOp::create(b, loc, k::CmpPredicate::ne, x,
                              wrappedNumber(b, loc, 0));
    };
    Value l = truth(op.getLhs()), r = truth(op.getRhs()), y;
    if constexpr (std::is_same_v<OpTy, k::LogicalAndOp>)
      y = k::MulOp::create(b, loc, l, r);
    else
      y = k::AddOp::create(b, loc, l, r);
    return replaceCasting(b, op, y);
  }
};

/// any and all: whether the count of nonzero elements over the dims is
/// above 0 (any), of zero elements is 0 (all).
template <typename OpTy> struct DecomposeQuantifier : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    using P = k::CmpPredicate;
    constexpr bool any = std::is_same_v<OpTy, k::AnyOp>;
    Value hits = k::CmpOp::create(b, loc, any ? P::ne : P::eq, op.getInput(),
                                  wrappedNumber(b, loc, 0));
    Value count =
        k::SumOp::create(b, loc, hits, op.getDimsAttr(), op.getKeepdimAttr());
    Value y = k::CmpOp::create(b, loc, any ? P::gt : P::eq, count,
                               wrappedNumber(b, loc, 0));
    return replaceCasting(b, op, y);
  }
};

/// index_select along dim d: a 0-d or 1-d integer index of n elements
/// placed along the dim ([1, .., n, .., 1]) and expanded to the input's
/// other sizes, the index of a kiln.gather (which checks its values: any
/// index into an empty dim is out of range, as eager says).
Value indexSelect(PatternRewriter &b, Location loc, Value x, int64_t d,
                  Value index) {
  auto in = cast<RankedTensorType>(x.getType());
  auto ids = cast<RankedTensorType>(index.getType());
  int64_t count = ids.getRank() == 0 ? 1 : ids.getDimSize(0);
  SmallVector<int64_t> placed(in.getRank(), 1);
  placed[d] = count;
  SmallVector<Value> dynamic;
  if (ShapedType::isDynamic(count))
    dynamic.push_back(dimOf(b, loc, index, 0));
  Value column = k::ReshapeOp::create(
      b, loc, RankedTensorType::get(placed, b.getI64Type()),
      castTo(b, loc, ids.clone(b.getI64Type()), index), dynamic);
  Sizes spread;
  for (int64_t k = 0; k < in.getRank(); ++k)
    spread.add(k == d ? count : in.getDimSize(k),
               [&] { return dimOf(b, loc, k == d ? column : x, k); });
  Value at = k::ExpandOp::create(
      b, loc, RankedTensorType::get(spread.shape, b.getI64Type()), column,
      spread.dynamic);
  return k::GatherOp::create(b, loc, x, at, b.getI64IntegerAttr(d));
}

struct DecomposeIndexSelect : OpRewritePattern<k::IndexSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::IndexSelectOp op,
                                PatternRewriter &b) const override {
    return replaceCasting(
        b, op,
        indexSelect(b, op.getLoc(), op.getInput(), op.getDim(), op.getIndex()));
  }
};

/// x padded along dim d by `before` and `after` elements (index values; a
/// negative count crops) holding `fill` (a 0-d tensor of x's element type),
/// as eager's constant pad computes it: the output's positions less
/// `before` are the source positions, and those outside x pick one element
/// holding the fill, appended to x along d (so an empty dim pads to all
/// fill, as in eager). A size that would be negative is 0 (the graph's
/// status reports the caller's check of it after the graph has run).
Value padAlong(PatternRewriter &b, Location loc, Value x, int64_t d,
               Value before, Value after, Value fill) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> one(type.getShape());
  one[d] = 1;
  SmallVector<Value> sizes;
  for (int64_t k = 0; k < type.getRank(); ++k)
    if (ShapedType::isDynamic(one[k]))
      sizes.push_back(dimOf(b, loc, x, k));
  Value slab = k::ExpandOp::create(b, loc, type.clone(one), fill, sizes);
  Value extended = k::CatOp::create(b, loc, ValueRange{x, slab}, d);
  Value size = dimOf(b, loc, x, d);
  Value out = arith::MaxSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, size, before),
                            after),
      indexConstant(b, loc, 0));
  Value from = k::SubOp::create(b, loc, positions(b, loc, out),
                                wrappedInteger(b, loc, before));
  Value end = wrappedInteger(b, loc, size);
  Value inside = k::MulOp::create(
      b, loc,
      k::CmpOp::create(b, loc, k::CmpPredicate::ge, from,
                       wrappedInteger(b, loc, indexConstant(b, loc, 0))),
      k::CmpOp::create(b, loc, k::CmpPredicate::lt, from, end));
  Value at = k::WhereOp::create(b, loc, inside, from, end);
  return indexSelect(b, loc, extended, d, at);
}

/// einsum as eager computes it (kiln/EinsumPlan.h): each operand summed
/// and permuted; two are then reshaped to [batch, M, K] and [batch, K, N],
/// multiplied (batch dims broadcast), and the product reshaped to [batch,
/// left kept, right kept] and permuted to the output's order. Contracted
/// sizes that the types leave dynamic are checked equal at run time.
struct DecomposeEinsum : OpRewritePattern<k::EinsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::EinsumOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    std::vector<int64_t> ranks;
    for (Value v : op.getOperands())
      ranks.push_back(cast<RankedTensorType>(v.getType()).getRank());
    ::kiln::detail::EinsumPlan plan =
        ::kiln::detail::planEinsum(op.getEquation().str(), ranks);
    SmallVector<Value> t;
    for (auto [v, p] : llvm::zip(op.getOperands(), plan.operands)) {
      Value x = v;
      if (!p.sumDims.empty())
        x = k::SumOp::create(b, loc, x, b.getDenseI64ArrayAttr(p.sumDims),
                             UnitAttr());
      t.push_back(
          k::PermuteOp::create(b, loc, x, b.getDenseI64ArrayAttr(p.perm)));
    }
    if (t.size() == 1)
      return replaceCasting(b, op, t[0]);
    int64_t nb = plan.batch, nl = plan.leftKept, nc = plan.contracted,
            nr = plan.rightKept;
    auto dim = [&](Value v, int64_t d) { return dimOf(b, loc, v, d); };
    auto product = [&](Value v, int64_t from, int64_t count) {
      Value p = indexConstant(b, loc, 1);
      for (int64_t d = 0; d < count; ++d)
        p = arith::MulIOp::create(b, loc, p, dim(v, from + d));
      return p;
    };
    // A reshape to sizes given as index values (constants: static dims).
    auto reshape = [&](Value v, ArrayRef<Value> sizes) -> Value {
      Sizes s;
      for (Value size : sizes)
        s.add(getConstantIntValue(size).value_or(ShapedType::kDynamic),
              [&] { return size; });
      auto type = cast<RankedTensorType>(v.getType());
      return k::ReshapeOp::create(
          b, loc, RankedTensorType::get(s.shape, type.getElementType()), v,
          s.dynamic);
    };
    Value l = t[0], r = t[1];
    SizeChecks contracted(b, loc);
    auto lt = cast<RankedTensorType>(l.getType()),
         rt = cast<RankedTensorType>(r.getType());
    for (int64_t d = 0; d < nc; ++d)
      if (lt.isDynamicDim(nb + nl + d) || rt.isDynamicDim(nb + d))
        contracted.equal(dim(l, nb + nl + d), dim(r, nb + d));
    contracted.assertAll("einsum: a contracted subscript has different sizes "
                         "in the operands");
    SmallVector<Value> ls, rs;
    for (int64_t d = 0; d < nb; ++d) {
      ls.push_back(dim(l, d));
      rs.push_back(dim(r, d));
    }
    Value k = product(r, nb, nc);
    ls.append({product(l, nb, nl), k});
    rs.append({k, product(r, nb + nc, nr)});
    Value p = k::MatmulOp::create(b, loc, reshape(l, ls), reshape(r, rs));
    SmallVector<Value> out;
    for (int64_t d = 0; d < nb; ++d)
      out.push_back(dim(p, d));
    for (int64_t d = 0; d < nl; ++d)
      out.push_back(dim(l, nb + d));
    for (int64_t d = 0; d < nr; ++d)
      out.push_back(dim(r, nb + nc + d));
    return replaceCasting(
        b, op,
        k::PermuteOp::create(b, loc, reshape(p, out),
                             b.getDenseI64ArrayAttr(plan.outPerm)));
  }
};

/// interpolate as eager resamples (lib/Runtime/Ops/Indexing.cpp): rows,
/// then columns, each a kiln.index_select at ATen's source positions
/// (nearest's in f32 as ATen computes them; bilinear's in f64, between two
/// neighbours weighed by the distance).
template <typename OpTy> struct DecomposeInterpolate : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    constexpr bool scaled = std::is_same_v<OpTy, k::InterpolateScaledOp>;
    Location loc = op.getLoc();
    Value x = op.getInput(), y = x;
    bool bilinear = op.getMode() == k::InterpolateMode::bilinear;
    bool alignCorners = op.getAlignCorners().value_or(false);
    auto index = [&](int64_t v) { return indexConstant(b, loc, v); };
    auto real = [&](double v) { return f64Constant(b, loc, v); };
    auto f64 = [&](Value i) { return indexAsF64(b, loc, i); };
    auto div = [&](Value l, Value r) -> Value {
      return arith::DivFOp::create(b, loc, l, r);
    };
    auto minusOne = [&](Value i) -> Value {
      return arith::SubIOp::create(b, loc, i, index(1));
    };
    auto typed = [&](Value v, Type e) {
      auto type = cast<RankedTensorType>(v.getType());
      return castTo(b, loc, type.clone(e), v);
    };
    SizeChecks checks(b, loc);
    using PI = arith::CmpIPredicate;
    SmallVector<Value, 2> out;
    Value factor;
    if constexpr (scaled) {
      factor = op.getScale();
      checks.holds(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                         factor, real(0)));
      for (int64_t d = 2; d < 4; ++d) {
        Value scaledSize =
            arith::MulFOp::create(b, loc, f64(dimOf(b, loc, x, d)), factor);
        out.push_back(arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            arith::FPToSIOp::create(b, loc, b.getI64Type(), scaledSize)));
      }
    } else {
      out.append(op.getSizes().begin(), op.getSizes().end());
    }
    for (Value size : out)
      if (!matchPattern(size, m_Constant()))
        checks.holds(arith::CmpIOp::create(b, loc, PI::sge, size, index(1)));
    auto in = cast<RankedTensorType>(x.getType());
    for (int64_t d = 1; d < 4; ++d)
      if (in.isDynamicDim(d))
        checks.holds(arith::CmpIOp::create(b, loc, PI::sgt, dimOf(b, loc, x, d),
                                           index(0)));
    checks.assertAll("interpolate: a size below 1, a scale not above 0, or "
                     "an empty image");
    for (int64_t d = 2; d < 4; ++d) {
      Value size = out[d - 2], inSize = dimOf(b, loc, x, d);
      Value last = wrappedInteger(b, loc, minusOne(inSize));
      Value scale = scaled ? div(real(1), factor) : div(f64(inSize), f64(size));
      Value o = positions(b, loc, size);
      if (!bilinear) {
        Value at = k::FloorOp::create(b, loc,
                                      k::MulOp::create(b, loc,
                                                       typed(o, b.getF32Type()),
                                                       wrapped(b, loc, scale)));
        y = indexSelect(
            b, loc, y, d,
            k::MinimumOp::create(b, loc, typed(at, b.getI64Type()), last));
        continue;
      }
      if (alignCorners)
        scale = arith::SelectOp::create(
            b, loc, arith::CmpIOp::create(b, loc, PI::sgt, size, index(1)),
            div(f64(minusOne(inSize)), f64(minusOne(size))), real(0));
      Value pos = typed(o, b.getF64Type());
      Value src =
          alignCorners
              ? Value(k::MulOp::create(b, loc, pos, wrapped(b, loc, scale)))
              : Value(k::MaximumOp::create(
                    b, loc,
                    k::SubOp::create(
                        b, loc,
                        k::MulOp::create(
                            b, loc,
                            k::AddOp::create(b, loc, pos,
                                             wrappedNumber(b, loc, 0.5)),
                            wrapped(b, loc, scale)),
                        wrappedNumber(b, loc, 0.5)),
                    wrappedNumber(b, loc, 0)));
      Value below = typed(k::FloorOp::create(b, loc, src), b.getI64Type());
      Value above = k::MinimumOp::create(
          b, loc,
          k::AddOp::create(b, loc, below, wrappedInteger(b, loc, index(1))),
          last);
      Value far = k::SubOp::create(b, loc, src, typed(below, b.getF64Type()));
      if (d == 2) // [h, 1] against [N, C, h, W]
        far = k::UnsqueezeOp::create(b, loc, far, b.getI64IntegerAttr(1));
      Value near = k::SubOp::create(b, loc, wrappedNumber(b, loc, 1), far);
      y = k::AddOp::create(
          b, loc,
          k::MulOp::create(b, loc, indexSelect(b, loc, y, d, below), near),
          k::MulOp::create(b, loc, indexSelect(b, loc, y, d, above), far));
    }
    return replaceCasting(b, op, y);
  }
};

/// dropout at inference: the input, once p is checked to be a probability.
struct DecomposeDropout : OpRewritePattern<k::DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::DropoutOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    using P = arith::CmpFPredicate;
    auto number = [&](double v) { return f64Constant(b, loc, v); };
    SizeChecks range(b, loc);
    range.holds(arith::CmpFOp::create(b, loc, P::OGE, op.getP(), number(0)));
    range.holds(arith::CmpFOp::create(b, loc, P::OLE, op.getP(), number(1)));
    range.assertAll("dropout: probability has to be between 0 and 1");
    b.replaceOp(op, op.getInput());
    return success();
  }
};

/// full_like: the value converted to the input's element type (a 0-d
/// tensor) and expanded to its sizes.
struct DecomposeFullLike : OpRewritePattern<k::FullLikeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::FullLikeOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value scalar = wrappedScalar(b, loc, op.getValue());
    auto type = cast<RankedTensorType>(op.getType());
    Value converted = castTo(
        b, loc, RankedTensorType::get({}, type.getElementType()), scalar);
    b.replaceOpWithNewOp<k::ExpandOp>(op, type, converted,
                                      k::dynamicSizesOf(b, loc, op.getInput()));
    return success();
  }
};

/// pad, one (before, after) pair at a time from the last dim, as eager
/// computes it: the output's positions less `before` are the source
/// positions; constant pads with the value (padAlong), reflect mirrors
/// them about the ends, replicate clamps them. A pair of zeros leaves its
/// dim as it is.
struct DecomposePad : OpRewritePattern<k::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::PadOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    using P = arith::CmpIPredicate;
    Value x = op.getInput(), y = x;
    auto in = cast<RankedTensorType>(x.getType());
    int64_t rank = in.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    auto integer = [&](Value i) { return wrappedInteger(b, loc, i); };
    auto index = [&](int64_t v) { return indexConstant(b, loc, v); };
    // constant's value converted to x's element type, as eager (and
    // torch) fill it.
    Value fill;
    if (op.getMode() == k::PadMode::constant)
      fill = castTo(b, loc, RankedTensorType::get({}, in.getElementType()),
                    wrappedScalar(b, loc, op.getValue()));
    for (int64_t j = 0; 2 * j < static_cast<int64_t>(pads.size()); ++j) {
      int64_t d = rank - 1 - j, before = pads[2 * j], after = pads[2 * j + 1];
      if (before == 0 && after == 0) // the dim as it is
        continue;
      Value size = dimOf(b, loc, x, d);
      Value out = arith::AddIOp::create(b, loc, size, index(before + after));
      SizeChecks checks(b, loc);
      if (in.isDynamicDim(d)) {
        checks.holds(arith::CmpIOp::create(b, loc, P::sge, out, index(0)));
        if (op.getMode() == k::PadMode::reflect)
          for (int64_t count : {before, after})
            checks.holds(
                arith::CmpIOp::create(b, loc, P::slt, index(count), size));
      }
      checks.assertAll("pad: the padding leaves a negative size or reflects "
                       "past the dim");
      if (op.getMode() == k::PadMode::constant) {
        y = padAlong(b, loc, y, d, index(before), index(after), fill);
        continue;
      }
      Value from = k::SubOp::create(b, loc, positions(b, loc, out),
                                    integer(index(before)));
      Value last = integer(arith::SubIOp::create(b, loc, size, index(1)));
      if (op.getMode() == k::PadMode::replicate) {
        y = indexSelect(b, loc, y, d,
                        k::MaximumOp::create(
                            b, loc, k::MinimumOp::create(b, loc, from, last),
                            integer(index(0))));
        continue;
      }
      Value mirrored = k::AbsOp::create(b, loc, from);
      Value back = k::SubOp::create(
          b, loc, k::MulOp::create(b, loc, last, integer(index(2))), mirrored);
      Value at =
          k::WhereOp::create(b, loc,
                             k::CmpOp::create(b, loc, k::CmpPredicate::ge,
                                              mirrored, integer(size)),
                             back, mirrored);
      y = indexSelect(b, loc, y, d, at);
    }
    return replaceCasting(b, op, y);
  }
};

/// x reversed along dim d: gathered at size - 1 - i (the positions as
/// static as the dim).
Value reversed(PatternRewriter &b, Location loc, Value x, int64_t d) {
  Value size = dimOf(b, loc, x, d);
  Value last = arith::SubIOp::create(b, loc, size, indexConstant(b, loc, 1));
  Value at = k::SubOp::create(b, loc, wrappedInteger(b, loc, last),
                              positions(b, loc, size));
  int64_t known = cast<RankedTensorType>(x.getType()).getDimSize(d);
  return indexSelect(
      b, loc, x, d,
      castTo(b, loc, RankedTensorType::get({known}, b.getI64Type()), at));
}

/// flip: each dim reversed.
struct DecomposeFlip : OpRewritePattern<k::FlipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::FlipOp op,
                                PatternRewriter &b) const override {
    Value y = op.getInput();
    for (int64_t d : op.getDims())
      y = reversed(b, op.getLoc(), y, d);
    return replaceCasting(b, op, y);
  }
};

/// roll: element i from (i - shift) mod size, that is (i + size - r) with
/// size subtracted past the end, r the shift reduced into [0, size) (0 for
/// an empty dim).
struct DecomposeRoll : OpRewritePattern<k::RollOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::RollOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t d = op.getDim();
    Value size = dimOf(b, loc, x, d);
    Value modulus =
        arith::MaxSIOp::create(b, loc, size, indexConstant(b, loc, 1));
    Value shift = indexConstant(b, loc, op.getShift());
    Value r = arith::RemSIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::RemSIOp::create(b, loc, shift, modulus), modulus),
        modulus);
    Value sizeT = wrappedInteger(b, loc, size);
    Value from = k::AddOp::create(
        b, loc, positions(b, loc, size),
        wrappedInteger(b, loc, arith::SubIOp::create(b, loc, size, r)));
    Value wrappedFrom = k::WhereOp::create(
        b, loc, k::CmpOp::create(b, loc, k::CmpPredicate::ge, from, sizeT),
        k::SubOp::create(b, loc, from, sizeT), from);
    return replaceCasting(b, op, indexSelect(b, loc, x, d, wrappedFrom));
  }
};

/// leaky_relu and elu: x where it is positive, else x times the factor
/// (leaky_relu) or expm1 of it times the factor (elu), the exponential
/// taken of 0 where x is positive.
template <typename OpTy> struct DecomposeBelowZero : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Value factor = wrapped(b, loc, op.getFactor());
    Value zero = wrappedNumber(b, loc, 0);
    Value positive = k::CmpOp::create(b, loc, k::CmpPredicate::gt, x, zero);
    Value below;
    if constexpr (std::is_same_v<OpTy, k::EluOp>)
      below = k::MulOp::create(
          b, loc,
          k::Expm1Op::create(b, loc,
                             k::WhereOp::create(b, loc, positive, zero, x)),
          factor);
    else
      below = k::MulOp::create(b, loc, x, factor);
    Value y = k::WhereOp::create(b, loc, positive, x, below);
    return replaceCasting(b, op, y);
  }
};

/// A product of the bmm family: lhs @ rhs, the batch sizes of rank-3
/// operands checked equal at run time where either is dynamic (matmul
/// would broadcast a batch of 1 where eager raises).
Value batchedProduct(PatternRewriter &b, Location loc, StringRef name,
                     Value lhs, Value rhs) {
  auto l = cast<RankedTensorType>(lhs.getType()),
       r = cast<RankedTensorType>(rhs.getType());
  if (l.getRank() == 3 && (l.isDynamicDim(0) || r.isDynamicDim(0))) {
    SizeChecks batches(b, loc);
    batches.equal(dimOf(b, loc, lhs, 0), dimOf(b, loc, rhs, 0));
    batches.assertAll((name + ": batch sizes differ").str());
  }
  return k::MatmulOp::create(b, loc, lhs, rhs);
}

struct DecomposeBmm : OpRewritePattern<k::BmmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::BmmOp op,
                                PatternRewriter &b) const override {
    return replaceCasting(
        b, op, batchedProduct(b, op.getLoc(), "bmm", op.getLhs(), op.getRhs()));
  }
};

/// addmm and baddbmm: the product scaled by alpha (unless 1) plus the
/// input scaled by beta (unless 1; none at all when 0, NaN included), each
/// factor a wrapped number of its own kind; the input's dims checked at
/// run time to broadcast to the product's where either is dynamic.
template <typename OpTy>
struct DecomposeScaledProduct : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    StringRef name = op->getName().stripDialect();
    Value input = op.getInput();
    Value product = batchedProduct(b, loc, name, op.getLhs(), op.getRhs());
    auto in = cast<RankedTensorType>(input.getType());
    auto p = cast<RankedTensorType>(product.getType());
    SizeChecks fits(b, loc);
    int64_t offset = p.getRank() - in.getRank();
    for (int64_t d = 0; d < in.getRank(); ++d) {
      int64_t s = in.getDimSize(d), ps = p.getDimSize(offset + d);
      if (s == 1 || (!ShapedType::isDynamic(s) && s == ps))
        continue;
      Value size = dimOf(b, loc, input, d);
      Value one = indexConstant(b, loc, 1);
      fits.holds(arith::OrIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size,
                                dimOf(b, loc, product, offset + d))));
    }
    fits.assertAll(
        (name + ": input does not broadcast to the product's shape").str());
    auto factor = [&](Attribute f) -> Value {
      if (auto i = dyn_cast<IntegerAttr>(f))
        return wrappedInteger(
            b, loc, arith::ConstantIntOp::create(b, loc, i.getInt(), 64));
      return wrappedNumber(b, loc, cast<FloatAttr>(f).getValueAsDouble());
    };
    auto is = [](Attribute f, double v) { return k::factorValue(f) == v; };
    if (!is(op.getAlpha(), 1))
      product = k::MulOp::create(b, loc, product, factor(op.getAlpha()));
    if (is(op.getBeta(), 0))
      return replaceCasting(b, op, product);
    if (!is(op.getBeta(), 1))
      input = k::MulOp::create(b, loc, input, factor(op.getBeta()));
    return replaceCasting(b, op, k::AddOp::create(b, loc, input, product));
  }
};

/// narrow and select: a kiln.slice of the dim from the start (counted from
/// the end when negative) over the length (select: 1, the dim then
/// squeezed), the range checked at run time as eager checks it.
template <typename OpTy> struct DecomposeSliceOfDim : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    constexpr bool narrow = std::is_same_v<OpTy, k::NarrowOp>;
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto in = cast<RankedTensorType>(x.getType());
    int64_t d = static_cast<int64_t>(op.getDim());
    using P = arith::CmpIPredicate;
    auto cmp = [&](P p, Value l, Value r) -> Value {
      return arith::CmpIOp::create(b, loc, p, l, r);
    };
    auto add = [&](Value l, Value r) -> Value {
      return arith::AddIOp::create(b, loc, l, r);
    };
    Value size = dimOf(b, loc, x, d), zero = indexConstant(b, loc, 0);
    Value start = op->getOperand(1);
    Value from = arith::SelectOp::create(b, loc, cmp(P::slt, start, zero),
                                         add(start, size), start);
    Value length = narrow ? op->getOperand(2) : indexConstant(b, loc, 1);
    Value end = add(from, length);
    SizeChecks range(b, loc);
    range.holds(cmp(P::sge, from, zero));
    if (narrow) {
      range.holds(cmp(P::sle, from, size));
      range.holds(cmp(P::sge, length, zero));
      range.holds(cmp(P::sle, end, size));
    } else {
      range.holds(cmp(P::slt, from, size));
    }
    range.assertAll(narrow ? "narrow: start or length out of range"
                           : "select: index out of range");
    SmallVector<int64_t> shape(in.getShape());
    shape[d] = narrow ? cast<RankedTensorType>(op.getType()).getDimSize(d) : 1;
    Value y =
        k::SliceOp::create(b, loc, in.clone(shape), x, b.getI64IntegerAttr(d),
                           from, end, b.getI64IntegerAttr(1));
    if (!narrow)
      y = k::SqueezeOp::create(b, loc, y, b.getI64IntegerAttr(d));
    return replaceCasting(b, op, y);
  }
};

/// stack: each input unsqueezed at the dim, then their cat (which checks
/// that the shapes are one).
struct DecomposeStack : OpRewritePattern<k::StackOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::StackOp op,
                                PatternRewriter &b) const override {
    SmallVector<Value> parts;
    for (Value v : op.getInputs())
      parts.push_back(k::UnsqueezeOp::create(b, op.getLoc(), v,
                                             b.getI64IntegerAttr(op.getDim())));
    return replaceCasting(b, op,
                          k::CatOp::create(b, op.getLoc(), parts,
                                           b.getI64IntegerAttr(op.getDim())));
  }
};

/// masked_fill: the value in the input's element type, chosen where
/// the mask is set; a mask whose sizes are dynamic where the input's may
/// differ is checked at run time to leave the input's shape unchanged.
struct DecomposeMaskedFill : OpRewritePattern<k::MaskedFillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::MaskedFillOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), mask = op.getMask();
    auto xType = cast<RankedTensorType>(x.getType());
    auto maskType = cast<RankedTensorType>(mask.getType());
    auto valueType = cast<RankedTensorType>(op.getValue().getType());
    Value value = op.getValue();
    // A float value into floats is a 0-d operand, which takes the input's
    // type in where (the form kiln-recognize-attention matches).
    if (!isa<FloatType>(valueType.getElementType()) ||
        !isa<FloatType>(xType.getElementType()))
      value = k::CastOp::create(b, loc, valueType.clone(xType.getElementType()),
                                value);
    Value y = k::WhereOp::create(b, loc, mask, value, x);
    SizeChecks fits(b, loc);
    int64_t offset = xType.getRank() - maskType.getRank();
    for (int64_t d = offset; d < xType.getRank(); ++d) {
      int64_t ms = maskType.getDimSize(d - offset);
      if (ms == 1 || (!ShapedType::isDynamic(ms) && ms == xType.getDimSize(d)))
        continue;
      fits.equal(dimOf(b, loc, y, d), dimOf(b, loc, x, d));
    }
    fits.assertAll(
        "masked_fill: the mask does not broadcast to the tensor's shape");
    return replaceCasting(b, op, y);
  }
};

/// Checks that each present [C] operand's size is x's channels (dim 1)
/// where either is dynamic: broadcasting would take one of size 1 where
/// eager raises.
void checkChannels(PatternRewriter &b, Location loc, Value x,
                   ArrayRef<Value> operands, SizeChecks &checks) {
  int64_t channels = cast<RankedTensorType>(x.getType()).getDimSize(1);
  for (Value v : operands)
    if (v && (ShapedType::isDynamic(channels) ||
              cast<RankedTensorType>(v.getType()).getDimSize(0) != channels))
      checks.equal(dimOf(b, loc, v, 0), dimOf(b, loc, x, 1));
}

/// y, whose channels are its last dim (where [C] operands broadcast),
/// scaled by weight and shifted by bias, each optional: the channel norms'
/// affine step.
Value affineChannels(PatternRewriter &b, Location loc, Value y, Value weight,
                     Value bias) {
  if (weight)
    y = k::MulOp::create(b, loc, y, weight);
  if (bias)
    y = k::AddOp::create(b, loc, y, bias);
  return y;
}

/// The eps of a norm: its run-time operand, else its attribute, as a
/// wrapped number.
Value normEps(PatternRewriter &b, Location loc, Value value, APFloat attr) {
  return value ? wrapped(b, loc, value)
               : wrappedNumber(b, loc, attr.convertToDouble());
}

/// batch_norm (inference), as the runtime computes it: the channels moved
/// last, where the [C] operands broadcast, (x - mean) * rsqrt(var + eps)
/// with the statistics detached, scaled and shifted, moved back and
/// converted to the input's type. Each [C] operand whose size may differ
/// from the channels is checked at run time: broadcasting would take one
/// of size 1 where eager raises.
struct DecomposeBatchNorm : OpRewritePattern<k::BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::BatchNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t last = xType.getRank() - 1;
    SizeChecks fits(b, loc);
    checkChannels(
        b, loc, x,
        {op.getRunningMean(), op.getRunningVar(), op.getWeight(), op.getBias()},
        fits);
    fits.assertAll("batch_norm: statistics and parameters must have shape "
                   "[C] (the input's dim 1)");
    auto swap = [&](Value t) -> Value {
      return k::TransposeOp::create(b, loc, t, int64_t(1), last);
    };
    Value eps = normEps(b, loc, op.getEpsValue(), op.getEps());
    Value variance = k::AddOp::create(
        b, loc, k::DetachOp::create(b, loc, op.getRunningVar()), eps);
    Value y = k::MulOp::create(
        b, loc,
        k::SubOp::create(b, loc, swap(x),
                         k::DetachOp::create(b, loc, op.getRunningMean())),
        k::RsqrtOp::create(b, loc, variance));
    y = affineChannels(b, loc, y, op.getWeight(), op.getBias());
    return replaceCasting(b, op, swap(y));
  }
};

/// group_norm, as the runtime computes it: each group's elements in a row
/// ([N, G, C / G * ...]), centred, divided by the root of the biased
/// variance plus eps, back to x's shape, then the channels' weight and
/// bias. That the groups divide the channels is checked at run time.
struct DecomposeGroupNorm : OpRewritePattern<k::GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::GroupNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), groups = op.getGroups();
    SizeChecks checks(b, loc);
    Value channels = dimOf(b, loc, x, 1), zero = indexConstant(b, loc, 0);
    Value some =
        arith::MaxSIOp::create(b, loc, groups, indexConstant(b, loc, 1));
    checks.holds(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, groups, zero));
    checks.equal(arith::RemSIOp::create(b, loc, channels, some), zero);
    // (Reshapes, not flatten and unflatten: the joint graph decomposes in
    // one walk, which would not visit composites written here.)
    auto xType = cast<RankedTensorType>(x.getType());
    Value row = arith::DivSIOp::create(b, loc, channels, some);
    for (int64_t d = 2; d < xType.getRank(); ++d)
      row = arith::MulIOp::create(b, loc, row, dimOf(b, loc, x, d));
    int64_t dyn = ShapedType::kDynamic;
    Value rows = k::ReshapeOp::create(
        b, loc, RankedTensorType::get({dyn, dyn, dyn}, xType.getElementType()),
        x, ValueRange{dimOf(b, loc, x, 0), groups, row});
    auto mean = [&](Value t) -> Value {
      return k::MeanOp::create(b, loc, t, b.getDenseI64ArrayAttr({2}),
                               b.getUnitAttr());
    };
    Value centred = k::SubOp::create(b, loc, rows, mean(rows));
    Value variance = mean(k::MulOp::create(b, loc, centred, centred));
    Value eps = normEps(b, loc, op.getEpsValue(), op.getEps());
    Value normalized = k::MulOp::create(
        b, loc, centred,
        k::RsqrtOp::create(b, loc, k::AddOp::create(b, loc, variance, eps)));
    Value y = k::ReshapeOp::create(
        b, loc,
        RankedTensorType::get(
            xType.getShape(),
            cast<RankedTensorType>(normalized.getType()).getElementType()),
        normalized, k::dynamicSizesOf(b, loc, x));
    Value weight = op.getWeight(), bias = op.getBias();
    checkChannels(b, loc, x, {weight, bias}, checks);
    if (weight || bias) {
      int64_t last = xType.getRank() - 1;
      auto swap = [&](Value t) -> Value {
        return k::TransposeOp::create(b, loc, t, int64_t(1), last);
      };
      y = swap(affineChannels(b, loc, swap(y), weight, bias));
    }
    checks.assertAll("group_norm: the groups must divide the channels, and "
                     "weight and bias have shape [C] (the input's dim 1)");
    return replaceCasting(b, op, y);
  }
};

/// clamp: maximum(x, min) then minimum(., max) in value (NaN stays NaN,
/// min > max gives max everywhere), written so that the gradient is
/// eager's (ClampBackward1): x's only where min < x < max strictly, none
/// at a bound (maximum and minimum would share it there), none at NaN
/// (x * 0).
struct DecomposeClamp : OpRewritePattern<k::ClampOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::ClampOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), lo = op.getMin(), hi = op.getMax();
    using P = k::CmpPredicate;
    auto cmp = [&](P p, Value l, Value r) -> Value {
      return k::CmpOp::create(b, loc, p, l, r);
    };
    Value bound = lo ? (hi ? k::MinimumOp::create(b, loc, lo, hi) : lo) : hi;
    Value outside = k::WhereOp::create(
        b, loc, cmp(P::ne, x, x),
        k::MulOp::create(b, loc, x,
                         wrappedInteger(b, loc, indexConstant(b, loc, 0))),
        bound);
    Value y;
    if (!lo) {
      y = k::WhereOp::create(b, loc, cmp(P::lt, x, hi), x, outside);
    } else {
      Value below =
          hi ? k::WhereOp::create(b, loc, cmp(P::lt, x, hi), x, hi).getResult()
             : x;
      y = k::WhereOp::create(b, loc, cmp(P::lt, lo, x), below, outside);
    }
    return replaceCasting(b, op, y);
  }
};

/// lerp: from the start where the weight is below 0.5, else from the end,
/// as ATen's; the choice made here when the weight is a constant.
struct DecomposeLerp : OpRewritePattern<k::LerpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::LerpOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value start = op.getStart(), end = op.getEnd(), w = op.getWeight();
    Value diff = k::SubOp::create(b, loc, end, start);
    auto fit = [&](Value v) { return castTo(b, loc, op.getType(), v); };
    auto fromStart = [&] {
      return fit(k::AddOp::create(
          b, loc, start, k::MulOp::create(b, loc, diff, wrapped(b, loc, w))));
    };
    auto fromEnd = [&] {
      Value one = f64Constant(b, loc, 1);
      Value rest = arith::SubFOp::create(b, loc, one, w);
      return fit(k::SubOp::create(
          b, loc, end, k::MulOp::create(b, loc, diff, wrapped(b, loc, rest))));
    };
    FloatAttr weight;
    if (matchPattern(w, m_Constant(&weight))) {
      b.replaceOp(op,
                  weight.getValueAsDouble() < 0.5 ? fromStart() : fromEnd());
      return success();
    }
    Value half = f64Constant(b, loc, 0.5);
    Value nearStart =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, w, half);
    Value a = fromStart(), c = fromEnd();
    b.replaceOpWithNewOp<arith::SelectOp>(op, nearStart, a, c);
    return success();
  }
};

/// sign: (x > 0) - (x < 0) in x's element type, as ATen's.
struct DecomposeSign : OpRewritePattern<k::SignOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::SignOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto side = [&](k::CmpPredicate p) -> Value {
      Value c = k::CmpOp::create(b, loc, p, x, wrappedNumber(b, loc, 0));
      auto type = cast<RankedTensorType>(c.getType());
      return k::CastOp::create(
          b, loc,
          type.clone(cast<RankedTensorType>(x.getType()).getElementType()), c);
    };
    Value y = k::SubOp::create(b, loc, side(k::CmpPredicate::gt),
                               side(k::CmpPredicate::lt));
    return replaceCasting(b, op, y);
  }
};

/// cast_like: a cast to the other tensor's element type.
struct DecomposeCastLike : OpRewritePattern<k::CastLikeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::CastLikeOp op,
                                PatternRewriter &b) const override {
    b.replaceOpWithNewOp<k::CastOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// A conv2d or 2-d pool of one [C, H, W] image: of a batch of one, the
/// batch dim then dropped.
template <typename OpTy> struct DecomposeUnbatched : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    Value x = op.getInput();
    if (cast<RankedTensorType>(x.getType()).getRank() != 3)
      return failure();
    Location loc = op.getLoc();
    Value batch = k::UnsqueezeOp::create(b, loc, x, b.getI64IntegerAttr(0));
    b.modifyOpInPlace(op, [&] {
      op.getInputMutable().set(batch);
      auto y = cast<RankedTensorType>(op.getType());
      SmallVector<int64_t> shape(y.getShape());
      shape.insert(shape.begin(), 1);
      op.getResult().setType(y.clone(shape));
    });
    b.setInsertionPointAfter(op);
    auto squeeze =
        k::SqueezeOp::create(b, loc, op.getResult(), b.getI64IntegerAttr(0));
    b.replaceAllUsesExcept(op.getResult(), squeeze.getResult(), squeeze);
    return success();
  }
};

/// conv_transpose2d as eager computes it (lib/Runtime/Ops/NN.cpp): the
/// input with stride - 1 zeros between its pixels (each pixel and a slab
/// of zeros concatenated along a new dim, merged into the dim and its
/// trailing zeros cut), each side padded by dilation * (k - 1) - padding
/// (padAlong; cropped where negative) and the far side by output_padding
/// more, convolved with stride 1 by the weight flipped, its in and out
/// swapped within each group. Eager's refusals that the types leave open
/// are checked at run time first.
struct DecomposeConvTranspose2d : OpRewritePattern<k::ConvTranspose2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::ConvTranspose2dOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    using P = arith::CmpIPredicate;
    auto index = [&](int64_t v) { return indexConstant(b, loc, v); };
    auto cmp = [&](P p, Value l, Value r) -> Value {
      return b.createOrFold<arith::CmpIOp>(loc, p, l, r);
    };
    auto add = [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::AddIOp>(loc, l, r);
    };
    auto sub = [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::SubIOp>(loc, l, r);
    };
    auto mul = [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::MulIOp>(loc, l, r);
    };
    // Sizes, constants where the types know them (the checks fold).
    auto size = [&](Value v, int64_t d) {
      int64_t known = cast<RankedTensorType>(v.getType()).getDimSize(d);
      return ShapedType::isDynamic(known) ? dimOf(b, loc, v, d) : index(known);
    };
    // The parameters, those known only at run time from `params` in the
    // op's order.
    auto param = op.getParams().begin();
    auto take = [&](ArrayRef<int64_t> values) {
      SmallVector<Value> taken;
      for (int64_t v : values)
        taken.push_back(ShapedType::isDynamic(v) ? *param++ : index(v));
      return taken;
    };
    SmallVector<Value> stride = take(op.getStrides()),
                       padding = take(op.getPadding()),
                       extra = take(op.getOutputPadding());
    Value groups = take({static_cast<int64_t>(op.getGroups())})[0];
    SmallVector<Value> dilation = take(op.getDilation());
    Value x = op.getInput(), w = op.getWeight(), bias = op.getBias();
    bool unbatched = cast<RankedTensorType>(x.getType()).getRank() == 3;
    if (unbatched)
      x = k::UnsqueezeOp::create(b, loc, x, b.getI64IntegerAttr(0));
    Value channels = size(x, 1), filters = size(w, 1);
    // Along spatial dim i: the input's n pixels with stride - 1 zeros
    // between them (an empty dim is not spread), and each side's padding of
    // that, dilation * (k - 1) - padding, the far side output_padding more.
    auto spreadOf = [&](Value n, Value s) {
      return b.createOrFold<arith::MaxSIOp>(
          loc, add(mul(sub(n, index(1)), s), index(1)), index(0));
    };
    auto reachOf = [&](int i, Value dil) {
      return mul(dil, sub(size(w, 2 + i), index(1)));
    };
    auto sidesOf = [&](int i, Value dil, Value pad, Value extraPad) {
      Value before = sub(reachOf(i, dil), pad);
      return std::pair(before, add(before, extraPad));
    };
    // Eager's refusals (those of constants fold away: inference made them).
    SizeChecks checks(b, loc);
    for (auto [values, minimum] :
         {std::pair(stride, 1), std::pair(padding, 0), std::pair(extra, 0),
          std::pair(dilation, 1), std::pair(SmallVector<Value>{groups}, 1)})
      for (Value v : values)
        checks.holds(cmp(P::sge, v, index(minimum)));
    Value perGroup = b.createOrFold<arith::DivSIOp>(
        loc, channels, b.createOrFold<arith::MaxSIOp>(loc, groups, index(1)));
    checks.equal(mul(perGroup, groups), channels);
    checks.equal(size(w, 0), channels);
    if (bias)
      checks.equal(size(bias, 0), mul(groups, filters));
    for (int i = 0; i < 2; ++i) {
      checks.holds(
          b.createOrFold<arith::OrIOp>(loc, cmp(P::slt, extra[i], stride[i]),
                                       cmp(P::slt, extra[i], dilation[i])));
      // The output keeps at least one pixel.
      auto [before, after] = sidesOf(i, dilation[i], padding[i], extra[i]);
      Value padded =
          add(spreadOf(size(x, 2 + i), stride[i]), add(before, after));
      checks.holds(cmp(P::sge, sub(padded, reachOf(i, dilation[i])), index(1)));
    }
    checks.assertAll("conv_transpose2d: the parameters, the channels, the "
                     "weight or the bias do not agree, or the output is "
                     "empty");
    // The status reports the checks after the graph has run: meanwhile
    // every size must stay what a valid call could make, so the parameters
    // compute clamped into their ranges (a stride, dilation or group count
    // of at least 1 and at most the channels, paddings of at least 0, an
    // output_padding below the stride or the dilation).
    auto clamped = [&](Value v, Value low, Value high) {
      Value atLeast = b.createOrFold<arith::MaxSIOp>(loc, v, low);
      return high ? b.createOrFold<arith::MinSIOp>(loc, atLeast, high)
                  : atLeast;
    };
    Value safeGroups =
        clamped(groups, index(1),
                b.createOrFold<arith::MaxSIOp>(loc, channels, index(1)));
    SmallVector<std::pair<Value, Value>> sides;
    for (int i = 0; i < 2; ++i) {
      stride[i] = clamped(stride[i], index(1), Value());
      dilation[i] = clamped(dilation[i], index(1), Value());
      Value below =
          sub(b.createOrFold<arith::MaxSIOp>(loc, stride[i], dilation[i]),
              index(1));
      sides.push_back(sidesOf(i, dilation[i],
                              clamped(padding[i], index(0), Value()),
                              clamped(extra[i], index(0), below)));
    }
    auto in = cast<RankedTensorType>(x.getType());
    Type element = in.getElementType();
    Value zero = k::FullOp::create(b, loc, RankedTensorType::get({}, element),
                                   ValueRange{}, b.getZeroAttr(element));
    // Sizes as a reshape's or an expand's type and operands.
    auto sized = [&](ArrayRef<Value> values) {
      Sizes s;
      for (Value v : values) {
        std::optional<int64_t> c = getConstantIntValue(v);
        s.add(c ? *c : ShapedType::kDynamic, [&] { return v; });
      }
      return s;
    };
    auto sizesOf = [&](Value v) {
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < cast<RankedTensorType>(v.getType()).getRank();
           ++d)
        sizes.push_back(size(v, d));
      return sizes;
    };
    Value y = x;
    for (int i = 0; i < 2; ++i) {
      int64_t d = 2 + i;
      if (getConstantIntValue(stride[i]) != 1) {
        SmallVector<Value> gaps = sizesOf(y), merged = gaps;
        Value n = gaps[d];
        gaps.insert(gaps.begin() + d + 1, sub(stride[i], index(1)));
        Sizes slab = sized(gaps);
        Value zeros = k::ExpandOp::create(
            b, loc, RankedTensorType::get(slab.shape, element), zero,
            slab.dynamic);
        Value pixels =
            k::UnsqueezeOp::create(b, loc, y, b.getI64IntegerAttr(d + 1));
        Value spread =
            k::CatOp::create(b, loc, ValueRange{pixels, zeros}, d + 1);
        merged[d] = mul(n, stride[i]);
        Sizes m = sized(merged);
        Value flat = k::ReshapeOp::create(
            b, loc, RankedTensorType::get(m.shape, element), spread, m.dynamic);
        Value end = spreadOf(n, stride[i]);
        SmallVector<int64_t> cut(m.shape);
        cut[d] = getConstantIntValue(end).value_or(ShapedType::kDynamic);
        y = k::SliceOp::create(b, loc, RankedTensorType::get(cut, element),
                               flat, d, index(0), end, 1);
      }
      y = padAlong(b, loc, y, d, sides[i].first, sides[i].second, zero);
    }
    // The weight flipped along kH and kW, then [g, C/g, O/g, kH, kW] with
    // in and out swapped, as [O, C/g, kH, kW].
    Value wc = reversed(b, loc, reversed(b, loc, w, 2), 3);
    auto reshape = [&](Value v, ArrayRef<Value> sizes) -> Value {
      Sizes s = sized(sizes);
      auto type = cast<RankedTensorType>(v.getType());
      return k::ReshapeOp::create(b, loc, type.clone(s.shape), v, s.dynamic);
    };
    Value kh = size(w, 2), kw = size(w, 3);
    Value safePerGroup =
        b.createOrFold<arith::DivSIOp>(loc, channels, safeGroups);
    wc = reshape(wc, {safeGroups, safePerGroup, filters, kh, kw});
    wc = k::TransposeOp::create(b, loc, wc, int64_t(1), int64_t(2));
    wc = reshape(wc, {mul(safeGroups, filters), safePerGroup, kh, kw});
    // Stride 1, no padding; dilation and groups as the op has them.
    SmallVector<Value> params;
    for (int i = 0; i < 2; ++i)
      if (ShapedType::isDynamic(op.getDilation()[i]))
        params.push_back(dilation[i]);
    if (ShapedType::isDynamic(static_cast<int64_t>(op.getGroups())))
      params.push_back(safeGroups);
    Value out = k::Conv2dOp::create(b, loc, y, wc, bias, params,
                                    b.getDenseI64ArrayAttr({1, 1}),
                                    b.getDenseI64ArrayAttr({0, 0}),
                                    op.getDilationAttr(), op.getGroupsAttr());
    if (unbatched)
      out = k::SqueezeOp::create(b, loc, out, b.getI64IntegerAttr(0));
    return replaceCasting(b, op, out);
  }
};

/// The [rows, cols] identity of `type`: a column of positions compared
/// with a row of them, as eager's eye computes it.
Value identity(PatternRewriter &b, Location loc, RankedTensorType type,
               Value rows, Value cols) {
  Value column = k::UnsqueezeOp::create(b, loc, positions(b, loc, rows),
                                        b.getI64IntegerAttr(1));
  Value equal = k::CmpOp::create(b, loc, k::CmpPredicate::eq, column,
                                 positions(b, loc, cols));
  return castTo(b, loc, type, equal);
}

/// Index values that must not be negative, checked at run time as eager
/// checks them (the op's inference refused negative constants).
void nonNegative(PatternRewriter &b, Location loc, ValueRange sizes,
                 StringRef message) {
  SizeChecks checks(b, loc);
  for (Value size : sizes)
    if (!matchPattern(size, m_Constant()))
      checks.holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         size, indexConstant(b, loc, 0)));
  checks.assertAll(message);
}

struct DecomposeEye : OpRewritePattern<k::EyeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::EyeOp op,
                                PatternRewriter &b) const override {
    nonNegative(b, op.getLoc(), {op.getRows(), op.getCols()},
                "eye: sizes must be non-negative");
    b.replaceOp(op,
                identity(b, op.getLoc(), cast<RankedTensorType>(op.getType()),
                         op.getRows(), op.getCols()));
    return success();
  }
};

/// one_hot: the ids' rows of the i64 identity (the embedding checks their
/// range).
struct DecomposeOneHot : OpRewritePattern<k::OneHotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::OneHotOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value classes = op.getClasses();
    nonNegative(b, loc, classes,
                "one_hot: num_classes must be -1 or non-negative");
    int64_t c = cast<RankedTensorType>(op.getType()).getShape().back();
    Value table =
        identity(b, loc, RankedTensorType::get({c, c}, b.getI64Type()), classes,
                 classes);
    return replaceCasting(b, op,
                          k::EmbeddingOp::create(b, loc, op.getIds(), table));
  }
};

/// linspace as eager computes it: positions i in the dtype; i * step + start
/// below the middle, (steps - 1 - i) * -step + end from it.
struct DecomposeLinspace : OpRewritePattern<k::LinspaceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::LinspaceOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value steps = op.getSteps();
    nonNegative(b, loc, steps,
                "linspace: the number of steps must be non-negative");
    auto index = [&](int64_t v) { return indexConstant(b, loc, v); };
    Value start = op.getStart(), end = op.getEnd();
    Value last = arith::SubIOp::create(b, loc, steps, index(1));
    Value gaps = arith::MaxSIOp::create(b, loc, last, index(1));
    Value many = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, steps,
                                       index(1));
    Value step = arith::SelectOp::create(
        b, loc, many,
        arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, end, start),
                              indexAsF64(b, loc, gaps)),
        f64Constant(b, loc, 0));
    auto type = cast<RankedTensorType>(op.getType());
    Value i = castTo(b, loc, type, positions(b, loc, steps));
    Value up = k::AddOp::create(
        b, loc, k::MulOp::create(b, loc, i, wrapped(b, loc, step)),
        wrapped(b, loc, start));
    Value down = k::AddOp::create(
        b, loc,
        k::MulOp::create(
            b, loc,
            k::SubOp::create(b, loc, wrapped(b, loc, indexAsF64(b, loc, last)),
                             i),
            wrapped(b, loc, arith::NegFOp::create(b, loc, step))),
        wrapped(b, loc, end));
    Value half =
        indexAsF64(b, loc, arith::DivSIOp::create(b, loc, steps, index(2)));
    Value below =
        k::CmpOp::create(b, loc, k::CmpPredicate::lt, i, wrapped(b, loc, half));
    return replaceCasting(b, op, k::WhereOp::create(b, loc, below, up, down));
  }
};

/// randint as eager composes it: floor(u * (high - low)) + low, u the f64
/// uniform draws, converted to the dtype.
struct DecomposeRandint : OpRewritePattern<k::RandintOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(k::RandintOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    SizeChecks bounds(b, loc);
    bounds.holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                       op.getHigh(), op.getLow()));
    bounds.assertAll("randint: high must be greater than low");
    SmallVector<Value> dynamic;
    for (auto [d, size] : llvm::enumerate(op.getSizes()))
      if (type.isDynamicDim(d))
        dynamic.push_back(size);
    Value u = k::RandomOp::create(b, loc, type.clone(b.getF64Type()),
                                  k::RandomDistribution::uniform, op.getSeed(),
                                  dynamic);
    Value span = indexAsF64(
        b, loc, arith::SubIOp::create(b, loc, op.getHigh(), op.getLow()));
    Value picked = k::AddOp::create(
        b, loc,
        k::FloorOp::create(b, loc,
                           k::MulOp::create(b, loc, u, wrapped(b, loc, span))),
        wrappedInteger(b, loc, op.getLow()));
    b.replaceOp(op, k::CastOp::create(b, loc, type, picked));
    return success();
  }
};

struct KilnDecomposeCompositesPass
    : mlir::kiln::impl::KilnDecomposeCompositesBase<
          KilnDecomposeCompositesPass> {
  void runOnOperation() override {
    // The decompositions read sizes: a graph is typed first.
    WalkResult open = getOperation()->walk([](Operation *op) {
      if (isa<k::KilnDialect>(op->getDialect()) && k::hasOpenTypes(op)) {
        op->emitOpError("has open types: type the graph first "
                        "(kiln-refine-types)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (open.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    k::populateDecomposeCompositesPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::kiln::populateDecomposeCompositesPatterns(
    RewritePatternSet &patterns) {
  patterns.add<
      DecomposeFlatten, DecomposeUnflatten, DecomposeReshapeAs,
      DecomposeExpandAs, DecomposeRepeat<RepeatOp>, DecomposeRepeat<TileOp>,
      DecomposeRank, DecomposeNumel, DecomposeCastLike, DecomposeLogsumexp,
      DecomposeTriangle<TrilOp>, DecomposeTriangle<TriuOp>,
      DecomposeVariance<VarOp>, DecomposeVariance<StdOp>,
      DecomposeUnbatched<Conv2dOp>, DecomposeUnbatched<Pool2dOp>,
      DecomposeConvTranspose2d, DecomposeUnbatched<AdaptiveAvgPool2dOp>,
      DecomposeValueTest<IsnanOp>, DecomposeValueTest<IsinfOp>,
      DecomposeValueTest<IsfiniteOp>, DecomposeValueTest<LogicalNotOp>,
      DecomposeSign, DecomposeBelowZero<LeakyReluOp>, DecomposeBelowZero<EluOp>,
      DecomposeMaskedFill, DecomposeLerp, DecomposeClamp, DecomposeNorm,
      DecomposeBmm, DecomposeScaledProduct<AddmmOp>,
      DecomposeSliceOfDim<NarrowOp>, DecomposeSliceOfDim<SelectOp>,
      DecomposeStack, DecomposeScaledProduct<BaddbmmOp>, DecomposeBatchNorm,
      DecomposeGroupNorm, DecomposeLogical<LogicalAndOp>,
      DecomposeLogical<LogicalOrOp>, DecomposeQuantifier<AnyOp>,
      DecomposeQuantifier<AllOp>, DecomposeFlip, DecomposeRoll, DecomposeEye,
      DecomposeOneHot, DecomposeLinspace, DecomposeRandint,
      DecomposeIndexSelect, DecomposePad, DecomposeDropout, DecomposeFullLike,
      DecomposeEinsum, DecomposeInterpolate<InterpolateOp>,
      DecomposeInterpolate<InterpolateScaledOp>>(patterns.getContext());
}
