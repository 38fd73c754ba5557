//===- ApproximateMath.cpp - vectorizable polynomial math -----------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/Debug.h"
#include <cmath>
#include <optional>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNAPPROXIMATEMATH
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-approximate-math"

using namespace mlir;

namespace {

/// A constant of `like`'s type (a splat for vectors) with element `value`.
Value constantLike(PatternRewriter &rewriter, Location loc, Type like,
                   Attribute value) {
  TypedAttr attr = cast<TypedAttr>(value);
  if (auto vector = dyn_cast<VectorType>(like))
    attr = DenseElementsAttr::get(vector.clone(attr.getType()), attr);
  return arith::ConstantOp::create(rewriter, loc, attr);
}

/// The float value of a scalar or splat constant, if `v` is one.
std::optional<double> splatValue(Value v) {
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.getValueAsDouble();
  SplatElementsAttr splat;
  if (matchPattern(v, m_Constant(&splat)) &&
      isa<FloatType>(splat.getElementType()))
    return splat.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// select(x < lo, lo, x) or select(x > hi, hi, x): compare and select keeps
/// NaN and becomes one min or max instruction.
Value clampSide(PatternRewriter &rewriter, Location loc, Value x, Value bound,
                arith::CmpFPredicate beyond) {
  Value out = arith::CmpFOp::create(rewriter, loc, beyond, x, bound);
  return arith::SelectOp::create(rewriter, loc, out, bound, x);
}

/// -|y| (sigmoid's exp(-|x|)) is never above zero.
bool isNonPositive(Value v) {
  auto neg = v.getDefiningOp<arith::NegFOp>();
  return neg && neg.getOperand().getDefiningOp<math::AbsFOp>();
}

/// exp on f32 as 2^n exp(r), x = n ln2 + r with |r| <= ln2/2, in 12
/// multiply-class instructions where upstream's takes 15. The shift trick
/// rounds x/ln2 and leaves n in the low bits of z, whose bits shifted into
/// the exponent field are 2^(n-1) (n reaches 128 below the overflow
/// threshold, so the scale holds half of it and exp(r) is computed doubled,
/// exactly). exp(r) - 1 is the degree-5 polynomial of ARM's optimized
/// routines (v_expf). x is clamped to [-87.34, 88.723]: above, the result
/// overflows to inf by itself; from -87.34 (n = -126) the scale is +0, so
/// results below 2^-125 flush to zero; NaN stays NaN (0 * NaN). Checked
/// against exp in double on every float: at most 1.95 ulp.
struct ExpAsPolynomial : OpRewritePattern<math::ExpOp> {
  ExpAsPolynomial(MLIRContext *context)
      : OpRewritePattern<math::ExpOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    auto c = [&](float v) {
      return constantLike(rewriter, loc, type, rewriter.getF32FloatAttr(v));
    };
    auto fma = [&](Value a, Value b, Value acc) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, acc);
    };
    auto mul = [&](Value a, Value b) -> Value {
      return arith::MulFOp::create(rewriter, loc, a, b);
    };
    Value x = clampSide(rewriter, loc, op.getOperand(), c(-87.34f),
                        arith::CmpFPredicate::OLT);
    if (!isNonPositive(op.getOperand()))
      x = clampSide(rewriter, loc, x, c(88.723f), arith::CmpFPredicate::OGT);
    // 1.5 * 2^23 puts the rounded x/ln2 in the low mantissa bits; + 126 is
    // the exponent bias of 2^(n-1).
    Value shift = c(0x1.8p23f + 126.0f);
    Value z = fma(x, c(0x1.715476p+0f), shift);
    Value n = arith::SubFOp::create(rewriter, loc, z, shift);
    Value r = fma(n, c(-0x1.62e4p-1f), x);
    r = fma(n, c(-0x1.7f7d1cp-20f), r);
    Value r2 = mul(r, r);
    Value p = fma(c(2 * 0x1.0e4020p-7f), r, c(2 * 0x1.573e2ep-5f));
    Value q = fma(c(2 * 0x1.555e66p-3f), r, c(2 * 0x1.fffdb6p-2f));
    q = fma(p, r2, q);
    Value twiceExpm1 = fma(q, r2, mul(c(2 * 0x1.ffffecp-1f), r));
    Value twiceExpR = arith::AddFOp::create(rewriter, loc, twiceExpm1, c(2.0f));
    Type intType = rewriter.getI32Type();
    if (auto vector = dyn_cast<VectorType>(type))
      intType = vector.clone(intType);
    Value bits = arith::BitcastOp::create(rewriter, loc, intType, z);
    Value scaleBits = arith::ShLIOp::create(
        rewriter, loc, bits,
        constantLike(rewriter, loc, intType, rewriter.getI32IntegerAttr(23)));
    Value scale = arith::BitcastOp::create(rewriter, loc, type, scaleBits);
    rewriter.replaceOp(op, mul(twiceExpR, scale));
    return success();
  }
};

/// erf on f32 as one rational function of x clamped to [-4, 4] (beyond,
/// erf rounds to +-1), its result clamped to [-1, 1]: x P(x^2) / Q(x^2) with P
/// of degree 6 and Q of degree 4 in x^2, the form Eigen and XLA use. Measured
/// against erf in double over
/// [-6, 6]: at most 4.5e-7 absolute, 7.5 ulp. Upstream's approximation picks
/// coefficients among three intervals with selects and costs three times as
/// many instructions; here there is one division, whose denominator is
/// finite and at most -0.0142 for every input, so that it may become a
/// reciprocal estimate with a Newton step (arcp, ninf). erf(y * k) for a
/// constant k (gelu's erf(x / sqrt 2)) folds k into the coefficients:
/// x P(x^2) = y (k P(k^2 y^2)), the clamp becomes [-4/|k|, 4/|k|], and the
/// multiplication disappears.
struct ErfAsRational : OpRewritePattern<math::ErfOp> {
  ErfAsRational(MLIRContext *context)
      : OpRewritePattern<math::ErfOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    auto c = [&](double v) {
      return constantLike(rewriter, loc, type,
                          rewriter.getF32FloatAttr(static_cast<float>(v)));
    };
    Value y = op.getOperand();
    double k = 1.0;
    if (auto scaled = y.getDefiningOp<arith::MulFOp>()) {
      for (auto [factor, other] :
           {std::pair(scaled.getRhs(), scaled.getLhs()),
            std::pair(scaled.getLhs(), scaled.getRhs())}) {
        std::optional<double> value = splatValue(factor);
        // Within [1/64, 64] the rescaled coefficients stay normal floats.
        if (value && std::fabs(*value) >= 1.0 / 64 && std::fabs(*value) <= 64) {
          k = *value;
          y = other;
          break;
        }
      }
    }
    // Coefficients of P and Q in x^2, highest first, rescaled to y:
    // the one of x^(2i) gains k^(2i); P's gains one more k for the leading x.
    auto polynomial = [&](Value y2, ArrayRef<double> coefficients,
                          double extra) {
      int degree = coefficients.size() - 1;
      auto scaled = [&](int i) {
        return coefficients[i] * std::pow(k, 2 * (degree - i)) * extra;
      };
      Value p = c(scaled(0));
      for (int i = 1; i <= degree; ++i)
        p = math::FmaOp::create(rewriter, loc, p, y2, c(scaled(i)));
      return p;
    };
    // clamp(NaN) stays NaN: minnum/maxnum would drop it.
    double bound = 4.0 / std::fabs(k);
    Value x = arith::MinimumFOp::create(
        rewriter, loc, arith::MaximumFOp::create(rewriter, loc, y, c(-bound)),
        c(bound));
    Value x2 = arith::MulFOp::create(rewriter, loc, x, x);
    Value p = arith::MulFOp::create(
        rewriter, loc, x,
        polynomial(x2,
                   {-2.72614225801306e-10, 2.77068142495902e-08,
                    -2.10102402082508e-06, -5.69250639462346e-05,
                    -7.34990630326855e-04, -2.95459980854025e-03,
                    -1.60960333262415e-02},
                   k));
    Value q = polynomial(x2,
                         {-1.45660718464996e-05, -2.13374055278905e-04,
                          -1.68282697438203e-03, -7.37332916720468e-03,
                          -1.42647390514189e-02},
                         1.0);
    Value ratio = arith::DivFOp::create(rewriter, loc, p, q,
                                        arith::FastMathFlags::arcp |
                                            arith::FastMathFlags::ninf);
    // The rational overshoots 1 by up to 3.6e-7 near the clamp; erf itself
    // never does (gelu(-inf) = -inf * (1 + erf) must stay NaN, not +inf).
    rewriter.replaceOpWithNewOp<arith::MinimumFOp>(
        op, arith::MaximumFOp::create(rewriter, loc, ratio, c(-1.0)), c(1.0));
    return success();
  }
};

struct KilnApproximateMathPass
    : mlir::kiln::impl::KilnApproximateMathBase<KilnApproximateMathPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    RewritePatternSet patterns(&getContext());
    patterns.add<ErfAsRational, ExpAsPolynomial>(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
