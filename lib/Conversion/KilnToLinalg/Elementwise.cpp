//===- Elementwise.cpp - kiln elementwise ops to linalg.generic -----------===//
//
// Every elementwise op becomes one linalg.generic over the broadcast shape
// (Broadcast.cpp), so that upstream elementwise fusion sees a chain of them.
// float16 and bfloat16 are computed in float32 and rounded per op, as the
// eager runtime does.
//
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isBool(Type t) { return t.isInteger(1); }

/// Computes fn on float32 copies of 16-bit float arguments, rounding back.
Value inF32(OpBuilder &b, Location loc, ValueRange args,
            function_ref<Value(ValueRange)> fn) {
  Type t = args[0].getType();
  if (!(t.isF16() || t.isBF16()))
    return fn(args);
  SmallVector<Value> wide;
  for (Value a : args)
    wide.push_back(arith::ExtFOp::create(b, loc, b.getF32Type(), a));
  return arith::TruncFOp::create(b, loc, t, fn(wide));
}

Value constantLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConstant(b, loc, like.getType(), value);
}

/// 1 / (1 + e^-|x|), and e^-|x| times that for negative x, as the runtime.
Value sigmoidOf(OpBuilder &b, Location loc, Value x) {
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  Value one = constantLike(b, loc, x, 1.0);
  // 1 + e lies in [1, 2] (or is NaN): the division may become a reciprocal
  // estimate with a Newton step (arcp; ninf holds as nothing is infinite).
  Value s = arith::DivFOp::create(
      b, loc, one, arith::AddFOp::create(b, loc, one, e),
      arith::FastMathFlags::arcp | arith::FastMathFlags::ninf);
  Value nonNegative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE,
                                            x, constantLike(b, loc, x, 0.0));
  return arith::SelectOp::create(b, loc, nonNegative, s,
                                 arith::MulFOp::create(b, loc, e, s));
}

// One scalar body per op. Operands are already of the op's element type.
Value scalarOf(AddOp, OpBuilder &b, Location loc, ValueRange a) {
  Type t = a[0].getType();
  if (isFloat(t))
    return inF32(b, loc, a, [&](ValueRange w) -> Value {
      return arith::AddFOp::create(b, loc, w[0], w[1]);
    });
  if (isBool(t))
    return arith::OrIOp::create(b, loc, a[0], a[1]);
  return arith::AddIOp::create(b, loc, a[0], a[1]);
}

Value scalarOf(SubOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return inF32(b, loc, a, [&](ValueRange w) -> Value {
      return arith::SubFOp::create(b, loc, w[0], w[1]);
    });
  return arith::SubIOp::create(b, loc, a[0], a[1]);
}

Value scalarOf(MulOp, OpBuilder &b, Location loc, ValueRange a) {
  Type t = a[0].getType();
  if (isFloat(t))
    return inF32(b, loc, a, [&](ValueRange w) -> Value {
      return arith::MulFOp::create(b, loc, w[0], w[1]);
    });
  if (isBool(t))
    return arith::AndIOp::create(b, loc, a[0], a[1]);
  return arith::MulIOp::create(b, loc, a[0], a[1]);
}

Value scalarOf(DivOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return arith::DivFOp::create(b, loc, w[0], w[1]);
  });
}

Value scalarOf(PowOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return inF32(b, loc, a, [&](ValueRange w) -> Value {
      return math::PowFOp::create(b, loc, w[0], w[1]);
    });
  return math::IPowIOp::create(b, loc, a[0], a[1]);
}

Value scalarOf(MaximumOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return arith::MaximumFOp::create(b, loc, a[0], a[1]);
  return arith::MaxSIOp::create(b, loc, a[0], a[1]);
}

Value scalarOf(MinimumOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return arith::MinimumFOp::create(b, loc, a[0], a[1]);
  return arith::MinSIOp::create(b, loc, a[0], a[1]);
}

Value compare(OpBuilder &b, Location loc, CmpPredicate predicate, Value x,
              Value y) {
  Type t = x.getType();
  if (isFloat(t)) {
    // Ordered comparisons are false with NaN; "ne" is unordered (true).
    arith::CmpFPredicate p;
    switch (predicate) {
    case CmpPredicate::lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case CmpPredicate::le:
      p = arith::CmpFPredicate::OLE;
      break;
    case CmpPredicate::gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case CmpPredicate::ge:
      p = arith::CmpFPredicate::OGE;
      break;
    case CmpPredicate::eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case CmpPredicate::ne:
      p = arith::CmpFPredicate::UNE;
      break;
    }
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  // Integers are signed; bools compare as 0 < 1.
  bool unsignedCmp = isBool(t);
  arith::CmpIPredicate p;
  switch (predicate) {
  case CmpPredicate::lt:
    p = unsignedCmp ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case CmpPredicate::le:
    p = unsignedCmp ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case CmpPredicate::gt:
    p = unsignedCmp ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case CmpPredicate::ge:
    p = unsignedCmp ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  case CmpPredicate::eq:
    p = arith::CmpIPredicate::eq;
    break;
  case CmpPredicate::ne:
    p = arith::CmpIPredicate::ne;
    break;
  }
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value scalarOf(CmpOp op, OpBuilder &b, Location loc, ValueRange a) {
  return compare(b, loc, op.getPredicate(), a[0], a[1]);
}

Value scalarOf(WhereOp, OpBuilder &b, Location loc, ValueRange a) {
  return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
}

Value scalarOf(NegOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return arith::NegFOp::create(b, loc, a[0]);
  return arith::SubIOp::create(b, loc, constantLike(b, loc, a[0], 0), a[0]);
}

Value scalarOf(AbsOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return math::AbsFOp::create(b, loc, a[0]);
  return math::AbsIOp::create(b, loc, a[0]);
}

Value scalarOf(ReluOp, OpBuilder &b, Location loc, ValueRange a) {
  Value zero = constantLike(b, loc, a[0], 0);
  if (isFloat(a[0].getType()))
    return arith::MaximumFOp::create(b, loc, a[0], zero);
  return arith::MaxSIOp::create(b, loc, a[0], zero);
}

template <typename MathOp>
Value unaryMath(OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return MathOp::create(b, loc, w[0]);
  });
}

// The kiln ops that are one math op on floats.
#define KILN_MATH_FUNCTION(NAME)                                               \
  Value scalarOf(NAME##Op, OpBuilder &b, Location loc, ValueRange a) {         \
    return unaryMath<math::NAME##Op>(b, loc, a);                               \
  }
KILN_MATH_FUNCTION(Exp)
KILN_MATH_FUNCTION(Log)
KILN_MATH_FUNCTION(Sqrt)
KILN_MATH_FUNCTION(Tanh)
KILN_MATH_FUNCTION(Sin)
KILN_MATH_FUNCTION(Cos)
KILN_MATH_FUNCTION(Tan)
KILN_MATH_FUNCTION(Atan)
KILN_MATH_FUNCTION(Erf)
KILN_MATH_FUNCTION(Erfc)
KILN_MATH_FUNCTION(Log2)
KILN_MATH_FUNCTION(Log10)
KILN_MATH_FUNCTION(Exp2)
#undef KILN_MATH_FUNCTION

Value scalarOf(RsqrtOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    Value one = constantLike(b, loc, w[0], 1.0);
    return arith::DivFOp::create(b, loc, one,
                                 math::SqrtOp::create(b, loc, w[0]));
  });
}
Value scalarOf(SigmoidOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a,
               [&](ValueRange w) { return sigmoidOf(b, loc, w[0]); });
}
Value scalarOf(SiluOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return arith::MulFOp::create(b, loc, w[0], sigmoidOf(b, loc, w[0]));
  });
}

/// log(1 + x) and exp(x) - 1 for small x: f32 stays math.log1p and
/// math.expm1 (polynomials on the CPU, libdevice on GPUs); f64, which the
/// CPU would lower as log(1 + x) and exp(x) - 1, losing small x, uses
/// Goldberg's and Kahan's corrections: with u = 1 + x (u = exp(x)),
/// log1p = log(u) * x / (u - 1) and expm1 = (u - 1) * x / log(u), x itself
/// where u rounds to 1.
template <typename MathOp>
Value correctedInF64(OpBuilder &b, Location loc, ValueRange a,
                     function_ref<Value(Value)> f64) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return w[0].getType().isF64() ? f64(w[0])
                                  : Value(MathOp::create(b, loc, w[0]));
  });
}
Value scalarOf(Log1pOp, OpBuilder &b, Location loc, ValueRange a) {
  return correctedInF64<math::Log1pOp>(b, loc, a, [&](Value x) -> Value {
    Value one = constantLike(b, loc, x, 1.0);
    Value u = arith::AddFOp::create(b, loc, one, x);
    Value d = arith::SubFOp::create(b, loc, u, one);
    Value corrected = arith::DivFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, math::LogOp::create(b, loc, u), x), d);
    Value exact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d,
                                        constantLike(b, loc, x, 0.0));
    // u = inf (x = inf): log(u) itself.
    Value infinite = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OEQ, u,
        constantLike(b, loc, x, std::numeric_limits<double>::infinity()));
    return arith::SelectOp::create(
        b, loc, exact, x,
        arith::SelectOp::create(b, loc, infinite, u, corrected));
  });
}
Value scalarOf(Expm1Op, OpBuilder &b, Location loc, ValueRange a) {
  return correctedInF64<math::ExpM1Op>(b, loc, a, [&](Value x) -> Value {
    Value one = constantLike(b, loc, x, 1.0);
    Value u = math::ExpOp::create(b, loc, x);
    Value d = arith::SubFOp::create(b, loc, u, one);
    Value logU = math::LogOp::create(b, loc, u);
    Value corrected = arith::DivFOp::create(
        b, loc, arith::MulFOp::create(b, loc, d, x), logU);
    // u rounds to 1: x; u - 1 = -1 (x very negative) or u = inf: u - 1.
    Value exact =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
    Value far = arith::OrIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d,
                              constantLike(b, loc, x, -1.0)),
        arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ, u,
            constantLike(b, loc, x, std::numeric_limits<double>::infinity())));
    return arith::SelectOp::create(
        b, loc, exact, x, arith::SelectOp::create(b, loc, far, d, corrected));
  });
}
Value scalarOf(ReciprocalOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return arith::DivFOp::create(b, loc, constantLike(b, loc, w[0], 1.0), w[0]);
  });
}

namespace {
/// log(1 + exp(x)), x above 20.
Value softplusOf(OpBuilder &b, Location loc, Value x) {
  Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                    constantLike(b, loc, x, 20.0));
  Value soft = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
  return arith::SelectOp::create(b, loc, big, x, soft);
}
/// min(max(x + 3, 0), 6) / 6, NaN propagating.
Value hardSigmoidOf(OpBuilder &b, Location loc, Value x) {
  Value shifted =
      arith::AddFOp::create(b, loc, x, constantLike(b, loc, x, 3.0));
  Value clamped = arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, shifted, constantLike(b, loc, x, 0.0)),
      constantLike(b, loc, x, 6.0));
  return arith::DivFOp::create(b, loc, clamped, constantLike(b, loc, x, 6.0));
}
} // namespace

Value scalarOf(SoftplusOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a,
               [&](ValueRange w) { return softplusOf(b, loc, w[0]); });
}
Value scalarOf(MishOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return arith::MulFOp::create(
        b, loc, w[0], math::TanhOp::create(b, loc, softplusOf(b, loc, w[0])));
  });
}
Value scalarOf(HardswishOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    return arith::MulFOp::create(b, loc, w[0], hardSigmoidOf(b, loc, w[0]));
  });
}
Value scalarOf(HardsigmoidOp, OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a,
               [&](ValueRange w) { return hardSigmoidOf(b, loc, w[0]); });
}

/// Rounding: integers are their own rounding.
template <typename MathOp>
Value rounded(OpBuilder &b, Location loc, ValueRange a) {
  if (!isFloat(a[0].getType()))
    return a[0];
  return unaryMath<MathOp>(b, loc, a);
}
Value scalarOf(FloorOp, OpBuilder &b, Location loc, ValueRange a) {
  return rounded<math::FloorOp>(b, loc, a);
}
Value scalarOf(CeilOp, OpBuilder &b, Location loc, ValueRange a) {
  return rounded<math::CeilOp>(b, loc, a);
}
Value scalarOf(RoundOp, OpBuilder &b, Location loc, ValueRange a) {
  return rounded<math::RoundEvenOp>(b, loc, a);
}
Value scalarOf(TruncOp, OpBuilder &b, Location loc, ValueRange a) {
  return rounded<math::TruncOp>(b, loc, a);
}
Value scalarOf(SquareOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return inF32(b, loc, a, [&](ValueRange w) -> Value {
      return arith::MulFOp::create(b, loc, w[0], w[0]);
    });
  if (isBool(a[0].getType()))
    return a[0];
  return arith::MulIOp::create(b, loc, a[0], a[0]);
}

Value scalarOf(GeluOp op, OpBuilder &b, Location loc, ValueRange a) {
  bool tanhForm = op.getApproximate() == GeluApproximation::tanh;
  return inF32(b, loc, a, [&](ValueRange w) -> Value {
    Value x = w[0];
    auto c = [&](double v) { return constantLike(b, loc, x, v); };
    Value inner;
    if (tanhForm) {
      // 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715
      // x^3), as the runtime computes it: no cancellation in 1 + tanh.
      Value x3 =
          arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
      Value arg = arith::MulFOp::create(
          b, loc, c(2 * 0.7978845608028654),
          arith::AddFOp::create(
              b, loc, x, arith::MulFOp::create(b, loc, c(0.044715), x3)));
      return arith::MulFOp::create(b, loc, x, sigmoidOf(b, loc, arg));
    } else {
      // 0.5 x (1 + erf(x / sqrt(2)))
      inner = math::ErfOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, c(0.7071067811865476)));
    }
    Value half = arith::MulFOp::create(b, loc, c(0.5), x);
    return arith::MulFOp::create(b, loc, half,
                                 arith::AddFOp::create(b, loc, c(1.0), inner));
  });
}

/// Element conversion with the runtime's rules: float to integer
/// saturates and maps NaN to 0; anything to bool tests for non-zero.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isBool(to)) {
    if (isFloat(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   constantLike(b, loc, v, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 constantLike(b, loc, v, 0));
  }
  if (isFloat(from) && isFloat(to)) {
    unsigned fb = from.getIntOrFloatBitWidth(), tb = to.getIntOrFloatBitWidth();
    if (fb < tb)
      return arith::ExtFOp::create(b, loc, to, v);
    if (fb == tb) // float16 <-> bfloat16 goes through float32
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (isFloat(to)) // integer or bool to float
    return isBool(from) ? Value(arith::UIToFPOp::create(b, loc, to, v))
                        : Value(arith::SIToFPOp::create(b, loc, to, v));
  if (isFloat(from)) {
    // Saturate like the runtime: v >= float(max) gives max, v <= float(min)
    // gives min, NaN gives 0; in-range values truncate toward zero.
    unsigned bits = to.getIntOrFloatBitWidth();
    Value wide = from.getIntOrFloatBitWidth() < 32
                     ? Value(arith::ExtFOp::create(b, loc, b.getF32Type(), v))
                     : v;
    double maxV = std::ldexp(1.0, bits - 1), minV = -maxV;
    Value hi = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, wide,
                                     constantLike(b, loc, wide, maxV));
    Value lo = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, wide,
                                     constantLike(b, loc, wide, minV));
    Value nan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, wide, wide);
    Value outside =
        arith::OrIOp::create(b, loc, arith::OrIOp::create(b, loc, hi, lo), nan);
    Value safe = arith::SelectOp::create(b, loc, outside,
                                         constantLike(b, loc, wide, 0.0), wide);
    Value converted = arith::FPToSIOp::create(b, loc, to, safe);
    APInt maxI = APInt::getSignedMaxValue(bits),
          minI = APInt::getSignedMinValue(bits);
    Value maxC = arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, maxI));
    Value minC = arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, minI));
    Value r = arith::SelectOp::create(b, loc, hi, maxC, converted);
    return arith::SelectOp::create(b, loc, lo, minC, r);
  }
  // integer to integer: bools zero-extend, others sign-extend or wrap.
  unsigned fb = from.getIntOrFloatBitWidth(), tb = to.getIntOrFloatBitWidth();
  if (fb < tb)
    return isBool(from) ? Value(arith::ExtUIOp::create(b, loc, to, v))
                        : Value(arith::ExtSIOp::create(b, loc, to, v));
  return arith::TruncIOp::create(b, loc, to, v);
}

Value scalarOf(CastOp op, OpBuilder &b, Location loc, ValueRange a) {
  return convertScalar(b, loc, a[0], op.getType().getElementType());
}

template <typename OpTy>
struct ElementwiseToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), adaptor.getOperands(), resultType,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return scalarOf(op, b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::kiln::populateElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseToGeneric<AddOp>, ElementwiseToGeneric<SubOp>,
               ElementwiseToGeneric<MulOp>, ElementwiseToGeneric<DivOp>,
               ElementwiseToGeneric<PowOp>, ElementwiseToGeneric<MaximumOp>,
               ElementwiseToGeneric<MinimumOp>, ElementwiseToGeneric<CmpOp>,
               ElementwiseToGeneric<WhereOp>, ElementwiseToGeneric<NegOp>,
               ElementwiseToGeneric<AbsOp>, ElementwiseToGeneric<ReluOp>,
               ElementwiseToGeneric<ExpOp>, ElementwiseToGeneric<LogOp>,
               ElementwiseToGeneric<SqrtOp>, ElementwiseToGeneric<RsqrtOp>,
               ElementwiseToGeneric<TanhOp>, ElementwiseToGeneric<SigmoidOp>,
               ElementwiseToGeneric<SiluOp>, ElementwiseToGeneric<GeluOp>,
               ElementwiseToGeneric<SinOp>, ElementwiseToGeneric<CosOp>,
               ElementwiseToGeneric<TanOp>, ElementwiseToGeneric<AtanOp>,
               ElementwiseToGeneric<ErfOp>, ElementwiseToGeneric<ErfcOp>,
               ElementwiseToGeneric<Log1pOp>, ElementwiseToGeneric<Expm1Op>,
               ElementwiseToGeneric<Log2Op>, ElementwiseToGeneric<Log10Op>,
               ElementwiseToGeneric<Exp2Op>, ElementwiseToGeneric<ReciprocalOp>,
               ElementwiseToGeneric<SoftplusOp>, ElementwiseToGeneric<MishOp>,
               ElementwiseToGeneric<HardswishOp>,
               ElementwiseToGeneric<HardsigmoidOp>,
               ElementwiseToGeneric<FloorOp>, ElementwiseToGeneric<CeilOp>,
               ElementwiseToGeneric<RoundOp>, ElementwiseToGeneric<TruncOp>,
               ElementwiseToGeneric<SquareOp>, ElementwiseToGeneric<CastOp>>(
      ctx);
}
