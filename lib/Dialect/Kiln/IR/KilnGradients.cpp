//===- KilnGradients.cpp - Each kiln op's vector-Jacobian product ---------===//
//
// The GradientOpInterface (KilnOps.td) of the differentiable kiln ops: for
// each op, the gradients of its operands built of kiln ops from the
// gradients of its results, with the formulas of torch's derivatives.yaml
// as Kiln's eager autograd computes them (lib/Runtime/Ops): one function
// `gradient(XOp, ...)` per op (the views that reshape and the rounding ops
// share one rule each), attached to the op in attachGradients. A
// gradient is summed over the dims its operand was broadcast along and
// converted to the operand's element type where the op promoted it;
// integer, bool and index operands take none.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// A dim counted from 0 (torch's negative dims count from the end).
int64_t dimIn(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

/// Builds the gradient expressions of one op at its location, and sets the
/// operands' gradients.
struct Grad {
  OpBuilder &b;
  Location loc;
  Operation *op;
  SmallVectorImpl<Value> &out;

  /// A 0-d tensor holding v, of like's element type.
  Value scalar(double v, Value like) {
    Type e = tensorType(like).getElementType();
    return FullOp::create(b, loc, RankedTensorType::get({}, e), ValueRange{},
                          b.getFloatAttr(e, v));
  }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value mul(Value x, double k) { return mul(x, scalar(k, x)); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value cmp(CmpPredicate p, Value x, Value y) {
    return CmpOp::create(b, loc, p, x, y);
  }
  Value where(Value c, Value x, Value y) {
    return WhereOp::create(b, loc, c, x, y);
  }
  Value sum(Value x, ArrayRef<int64_t> dims, bool keep) {
    return SumOp::create(b, loc, x, b.getDenseI64ArrayAttr(dims),
                         keep ? b.getUnitAttr() : UnitAttr());
  }
  Value mean(Value x, ArrayRef<int64_t> dims, bool keep) {
    return MeanOp::create(b, loc, x, b.getDenseI64ArrayAttr(dims),
                          keep ? b.getUnitAttr() : UnitAttr());
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value dim(Value x, int64_t d) {
    return DimOp::create(b, loc, x, b.getI64IntegerAttr(d));
  }
  SmallVector<Value> dynamicSizes(Value x) { return dynamicSizesOf(b, loc, x); }
  /// t converted to element type e (a cast where it has another).
  Value castTo(Value t, Type e) {
    RankedTensorType type = tensorType(t);
    if (type.getElementType() == e)
      return t;
    return CastOp::create(b, loc, type.clone(e), t);
  }
  /// A count (an index) as a 0-d tensor of like's element type.
  Value countOf(Value n, Value like) {
    Value i64 = FromScalarOp::create(
        b, loc, RankedTensorType::get({}, b.getI64Type()),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), n));
    return castTo(i64, tensorType(like).getElementType());
  }
  /// Zeros of `type`, its dynamic sizes `sizes`.
  Value zeros(RankedTensorType type, ValueRange sizes) {
    return FullOp::create(b, loc, type, sizes,
                          b.getFloatAttr(type.getElementType(), 0));
  }
  /// Zeros of `like`'s shape but for dim d, of size n (an index), in
  /// element type e.
  Value zerosAlong(Value like, int64_t d, Value n, Type e) {
    RankedTensorType lt = tensorType(like);
    SmallVector<int64_t> shape(lt.getShape());
    shape[d] = ShapedType::kDynamic;
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < lt.getRank(); ++i)
      if (ShapedType::isDynamic(shape[i]))
        sizes.push_back(i == d ? n : dim(like, i));
    return zeros(RankedTensorType::get(shape, e), sizes);
  }
  /// x as the rows of a matrix: a vector as one row, a batch's leading dims
  /// folded into rows, a matrix as it is.
  Value rows(Value x) {
    int64_t rank = tensorType(x).getRank();
    if (rank == 1)
      return UnsqueezeOp::create(b, loc, x, 0);
    if (rank > 2)
      return FlattenOp::create(b, loc, x, 0, rank - 2);
    return x;
  }
  /// g (of x's element count) as a tensor of type `type`, whose dynamic
  /// sizes are `sizes`; g itself where it has that type (the caller knows
  /// that g's sizes are those, as an elementwise op's gradient has).
  Value reshape(Value g, RankedTensorType type, ValueRange sizes) {
    type = type.clone(tensorType(g).getElementType());
    if (g.getType() == type)
      return g;
    return ReshapeOp::create(b, loc, type, g, sizes);
  }
  /// g with x's shape (and g's element type).
  Value reshapeLike(Value g, Value x) {
    return reshape(g, tensorType(x), dynamicSizes(x));
  }
  /// The gradient of a view of x (a reshape, flatten, squeeze) reshaped
  /// back to x's sizes, even where the view's type is x's: a reshape of
  /// [N, C, S] to [N, G, C / G * S] keeps the type tensor<?x?x?xf32>, not
  /// the sizes. (A static type is the sizes.)
  Value reshapeBack(Value g, Value x) {
    RankedTensorType type = tensorType(x).clone(tensorType(g).getElementType());
    if (g.getType() == type && type.hasStaticShape())
      return g;
    return ReshapeOp::create(b, loc, type, g, dynamicSizes(x));
  }
  /// g broadcast to x's shape.
  Value expandLike(Value g, Value x) {
    RankedTensorType type = tensorType(x).clone(tensorType(g).getElementType());
    if (g.getType() == type)
      return g;
    return ExpandOp::create(b, loc, type, g, dynamicSizes(x));
  }
  /// A gradient reduced over `dims` of x (kept or not) brought back to x's
  /// shape: the reduced dims reinserted as 1s, then broadcast.
  Value unreduce(Value g, Value x, ArrayRef<int64_t> dims) {
    RankedTensorType in = tensorType(x);
    SmallVector<int64_t> shape(in.getShape());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      bool reduced = dims.empty() || llvm::is_contained(dims, d);
      if (reduced)
        shape[d] = 1;
      else if (in.isDynamicDim(d))
        sizes.push_back(dim(x, d));
    }
    return expandLike(
        reshape(g, RankedTensorType::get(shape, in.getElementType()), sizes),
        x);
  }

  /// g summed over the dims x was broadcast along: the leading dims x lacks,
  /// and the dims of size 1 in x that are not in g (but for its last
  /// `sameTrailing` dims, which the op keeps). A dim whose size x shows
  /// only at run time is reduced or kept as it turns out: g viewed as
  /// [r0, k0, r1, k1, ...] with (r, k) = (g's size, 1) where x's size is 1
  /// and (1, x's size) otherwise, summed over the r dims.
  Value sumToShape(Value g, Value x, int64_t sameTrailing = 0) {
    RankedTensorType xt = tensorType(x);
    int64_t lead = tensorType(g).getRank() - xt.getRank();
    if (lead > 0)
      g = sum(g, llvm::to_vector(llvm::seq<int64_t>(0, lead)), false);
    RankedTensorType gt = tensorType(g);
    int64_t checked = xt.getRank() - sameTrailing;
    SmallVector<int64_t> reduce;
    bool undetermined = false;
    for (int64_t d = 0; d < checked; ++d) {
      int64_t xs = xt.getDimSize(d), gs = gt.getDimSize(d);
      if (xs == 1 && gs != 1)
        reduce.push_back(d);
      else if (ShapedType::isDynamic(xs) && gs != 1)
        undetermined = true;
    }
    if (!undetermined)
      return reduce.empty() ? g : sum(g, reduce, true);
    SmallVector<int64_t> shape, rDims;
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < xt.getRank(); ++d) {
      int64_t xs = xt.getDimSize(d), gs = gt.getDimSize(d);
      rDims.push_back(2 * d);
      if (d >= checked) {
        shape.append({1, gs});
        if (ShapedType::isDynamic(gs))
          sizes.push_back(dim(g, d));
      } else if (xs == 1) {
        shape.append({gs, 1});
        if (ShapedType::isDynamic(gs))
          sizes.push_back(dim(g, d));
      } else if (!ShapedType::isDynamic(xs)) {
        shape.append({1, xs});
      } else {
        Value xd = dim(x, d);
        Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, xd,
                                          index(1));
        shape.append({ShapedType::kDynamic, ShapedType::kDynamic});
        sizes.push_back(
            arith::SelectOp::create(b, loc, one, dim(g, d), index(1)));
        sizes.push_back(xd);
      }
    }
    Value pairs =
        reshape(g, RankedTensorType::get(shape, gt.getElementType()), sizes);
    return sum(pairs, rDims, false);
  }

  /// Sets operand i's gradient to g (of the operand's shape), converted to
  /// its type; nothing for an operand that takes no gradient. (An operand
  /// used twice gets each use's: buildBackward adds them.)
  void set(unsigned i, Value g) {
    Value x = op->getOperand(i);
    if (g && takesGradient(x.getType()))
      out[i] = reshapeLike(castTo(g, tensorType(x).getElementType()), x);
  }

  /// set, for an operand the op broadcast: g summed to its shape first.
  void setBroadcast(unsigned i, Value g, int64_t sameTrailing = 0) {
    if (g && takesGradient(op->getOperand(i).getType()))
      set(i, sumToShape(g, op->getOperand(i), sameTrailing));
  }
};

using Grads = ValueRange;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult gradient(AddOp op, Grads dy, Grad &g) {
  g.setBroadcast(0, dy[0]);
  g.setBroadcast(1, dy[0]);
  return success();
}

LogicalResult gradient(SubOp op, Grads dy, Grad &g) {
  g.setBroadcast(0, dy[0]);
  g.setBroadcast(1, g.neg(dy[0]));
  return success();
}

LogicalResult gradient(MulOp op, Grads dy, Grad &g) {
  g.setBroadcast(0, g.mul(dy[0], op.getRhs()));
  g.setBroadcast(1, g.mul(dy[0], op.getLhs()));
  return success();
}

LogicalResult gradient(DivOp op, Grads dy, Grad &g) {
  // d(a / b)/db = -(a / b) / b.
  g.setBroadcast(0, g.div(dy[0], op.getRhs()));
  g.setBroadcast(1, g.neg(g.div(g.mul(dy[0], op.getResult()), op.getRhs())));
  return success();
}

LogicalResult gradient(PowOp op, Grads dy, Grad &g) {
  // a: b a^(b-1), none where b is 0; b: a^b log(a), none where a is 0 and
  // b >= 0.
  Value a = op.getLhs(), e = op.getRhs(), y = op.getResult(), grad = dy[0];
  Value zero = g.scalar(0, grad);
  Value da = g.mul(g.mul(grad, e),
                   PowOp::create(g.b, g.loc, a, g.sub(e, g.scalar(1, y))));
  g.setBroadcast(0,
                 g.where(g.cmp(CmpPredicate::eq, e, g.scalar(0, y)), zero, da));
  Value db = g.mul(g.mul(grad, y), LogOp::create(g.b, g.loc, a));
  Value kept = g.where(g.cmp(CmpPredicate::ge, e, g.scalar(0, y)), zero, db);
  g.setBroadcast(1,
                 g.where(g.cmp(CmpPredicate::eq, a, g.scalar(0, y)), kept, db));
  return success();
}

/// maximum (an operand wins by `wins` = gt) and minimum (lt): the operand
/// that wins takes the gradient, a tie half each, a NaN operand the whole
/// (torch's).
template <typename OpTy>
LogicalResult extremumGradient(OpTy op, Grads dy, Grad &g, CmpPredicate wins,
                               CmpPredicate loses) {
  Value a = op.getLhs(), b = op.getRhs(), grad = dy[0];
  Value zero = g.scalar(0, grad);
  Value tie = g.cmp(CmpPredicate::eq, a, b);
  Value shared = g.where(tie, g.mul(grad, 0.5), grad);
  g.setBroadcast(0, g.where(g.cmp(loses, a, b), zero, shared));
  g.setBroadcast(1, g.where(g.cmp(wins, a, b), zero, shared));
  return success();
}
LogicalResult gradient(MaximumOp op, Grads dy, Grad &g) {
  return extremumGradient(op, dy, g, CmpPredicate::gt, CmpPredicate::lt);
}
LogicalResult gradient(MinimumOp op, Grads dy, Grad &g) {
  return extremumGradient(op, dy, g, CmpPredicate::lt, CmpPredicate::gt);
}

LogicalResult gradient(WhereOp op, Grads dy, Grad &g) {
  Value zero = g.scalar(0, dy[0]);
  g.setBroadcast(1, g.where(op.getCond(), dy[0], zero));
  g.setBroadcast(2, g.where(op.getCond(), zero, dy[0]));
  return success();
}

LogicalResult gradient(CastOp op, Grads dy, Grad &g) {
  g.set(0, dy[0]);
  return success();
}

LogicalResult gradient(NegOp op, Grads dy, Grad &g) {
  g.set(0, g.neg(dy[0]));
  return success();
}

LogicalResult gradient(AbsOp op, Grads dy, Grad &g) {
  // sign(x) = (x > 0) - (x < 0): 0 at 0 and NaN, as ATen's.
  Value x = op.getInput();
  auto side = [&](CmpPredicate p) {
    return g.castTo(g.cmp(p, x, g.scalar(0, x)),
                    tensorType(x).getElementType());
  };
  g.set(0, g.mul(dy[0], g.sub(side(CmpPredicate::gt), side(CmpPredicate::lt))));
  return success();
}

LogicalResult gradient(ReluOp op, Grads dy, Grad &g) {
  // threshold_backward: 0 where the result is at most 0 (a NaN gradient
  // too), the gradient elsewhere (where the result is NaN too).
  Value y = op.getResult();
  g.set(0, g.where(g.cmp(CmpPredicate::le, y, g.scalar(0, y)),
                   g.scalar(0, dy[0]), dy[0]));
  return success();
}

LogicalResult gradient(SquareOp op, Grads dy, Grad &g) {
  g.set(0, g.mul(g.mul(dy[0], op.getInput()), 2.0));
  return success();
}

LogicalResult gradient(ExpOp op, Grads dy, Grad &g) {
  g.set(0, g.mul(dy[0], op.getResult()));
  return success();
}

LogicalResult gradient(Exp2Op op, Grads dy, Grad &g) {
  g.set(0, g.mul(g.mul(dy[0], op.getResult()), llvm::numbers::ln2));
  return success();
}

LogicalResult gradient(Expm1Op op, Grads dy, Grad &g) {
  Value y = op.getResult();
  g.set(0, g.mul(dy[0], g.add(y, g.scalar(1, y))));
  return success();
}

LogicalResult gradient(LogOp op, Grads dy, Grad &g) {
  g.set(0, g.div(dy[0], op.getInput()));
  return success();
}

LogicalResult gradient(Log2Op op, Grads dy, Grad &g) {
  g.set(0, g.div(dy[0], g.mul(op.getInput(), llvm::numbers::ln2)));
  return success();
}

LogicalResult gradient(Log10Op op, Grads dy, Grad &g) {
  g.set(0, g.div(dy[0], g.mul(op.getInput(), llvm::numbers::ln10)));
  return success();
}

LogicalResult gradient(Log1pOp op, Grads dy, Grad &g) {
  Value x = op.getInput();
  g.set(0, g.div(dy[0], g.add(x, g.scalar(1, x))));
  return success();
}

LogicalResult gradient(SqrtOp op, Grads dy, Grad &g) {
  g.set(0, g.div(dy[0], g.mul(op.getResult(), 2.0)));
  return success();
}

LogicalResult gradient(RsqrtOp op, Grads dy, Grad &g) {
  // -1/2 x^(-3/2) = -1/2 y^3.
  Value y = op.getResult();
  g.set(0, g.mul(g.mul(dy[0], g.mul(g.mul(y, y), y)), -0.5));
  return success();
}

LogicalResult gradient(ReciprocalOp op, Grads dy, Grad &g) {
  Value y = op.getResult();
  g.set(0, g.neg(g.mul(dy[0], g.mul(y, y))));
  return success();
}

LogicalResult gradient(TanhOp op, Grads dy, Grad &g) {
  Value y = op.getResult();
  g.set(0, g.mul(dy[0], g.sub(g.scalar(1, y), g.mul(y, y))));
  return success();
}

LogicalResult gradient(SigmoidOp op, Grads dy, Grad &g) {
  Value y = op.getResult();
  g.set(0, g.mul(dy[0], g.mul(y, g.sub(g.scalar(1, y), y))));
  return success();
}

LogicalResult gradient(SiluOp op, Grads dy, Grad &g) {
  // s (1 + x (1 - s)), s = sigmoid(x).
  Value x = op.getInput();
  Value s = SigmoidOp::create(g.b, g.loc, x);
  Value one = g.scalar(1, x);
  g.set(0, g.mul(dy[0], g.mul(s, g.add(one, g.mul(x, g.sub(one, s))))));
  return success();
}

LogicalResult gradient(SinOp op, Grads dy, Grad &g) {
  g.set(0, g.mul(dy[0], CosOp::create(g.b, g.loc, op.getInput())));
  return success();
}

LogicalResult gradient(CosOp op, Grads dy, Grad &g) {
  g.set(0, g.neg(g.mul(dy[0], SinOp::create(g.b, g.loc, op.getInput()))));
  return success();
}

LogicalResult gradient(ErfOp op, Grads dy, Grad &g) {
  // 2/sqrt(pi) exp(-x^2).
  Value x = op.getInput();
  Value e = ExpOp::create(g.b, g.loc, g.neg(g.mul(x, x)));
  g.set(0, g.mul(g.mul(dy[0], e), 2.0 * llvm::numbers::inv_sqrtpi));
  return success();
}

LogicalResult gradient(GeluOp op, Grads dy, Grad &g) {
  Value x = op.getInput();
  Value one = g.scalar(1, x);
  if (op.getApproximate() == GeluApproximation::none) {
    // Phi(x) + x phi(x).
    Value cdf =
        g.mul(g.add(one, ErfOp::create(g.b, g.loc,
                                       g.mul(x, llvm::numbers::sqrt2 / 2))),
              0.5);
    Value pdf = g.mul(ExpOp::create(g.b, g.loc, g.mul(g.mul(x, x), -0.5)),
                      llvm::numbers::inv_sqrtpi / llvm::numbers::sqrt2);
    g.set(0, g.mul(dy[0], g.add(cdf, g.mul(x, pdf))));
    return success();
  }
  // tanh: ATen's gelu_backward.
  const double beta = llvm::numbers::sqrt2 * llvm::numbers::inv_sqrtpi,
               kappa = 0.044715;
  Value x2 = g.mul(x, x);
  Value inner = g.mul(g.add(x, g.mul(g.mul(x2, x), kappa)), beta);
  Value t = TanhOp::create(g.b, g.loc, inner);
  Value left = g.mul(g.add(one, t), 0.5);
  Value right = g.mul(g.mul(g.mul(x, 0.5), g.sub(one, g.mul(t, t))),
                      g.mul(g.add(one, g.mul(x2, 3 * kappa)), beta));
  g.set(0, g.mul(dy[0], g.add(left, right)));
  return success();
}

LogicalResult gradient(TanOp op, Grads dy, Grad &g) {
  Value y = op.getResult();
  g.set(0, g.mul(dy[0], g.add(g.scalar(1, y), g.mul(y, y))));
  return success();
}

LogicalResult gradient(AtanOp op, Grads dy, Grad &g) {
  Value x = op.getInput();
  g.set(0, g.div(dy[0], g.add(g.scalar(1, x), g.mul(x, x))));
  return success();
}

LogicalResult gradient(ErfcOp op, Grads dy, Grad &g) {
  // -2/sqrt(pi) exp(-x^2).
  Value x = op.getInput();
  Value e = ExpOp::create(g.b, g.loc, g.neg(g.mul(x, x)));
  g.set(0, g.mul(g.mul(dy[0], -2.0 * llvm::numbers::inv_sqrtpi), e));
  return success();
}

LogicalResult gradient(SoftplusOp op, Grads dy, Grad &g) {
  // sigmoid(x), the gradient itself above the threshold (20) where softplus
  // is x.
  Value x = op.getInput();
  Value s = SigmoidOp::create(g.b, g.loc, x);
  g.set(0, g.where(g.cmp(CmpPredicate::gt, x, g.scalar(20, x)), dy[0],
                   g.mul(dy[0], s)));
  return success();
}

LogicalResult gradient(MishOp op, Grads dy, Grad &g) {
  // t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)).
  Value x = op.getInput();
  Value t = TanhOp::create(g.b, g.loc, SoftplusOp::create(g.b, g.loc, x));
  Value s = SigmoidOp::create(g.b, g.loc, x);
  Value slope = g.sub(g.scalar(1, x), g.mul(t, t));
  g.set(0, g.mul(dy[0], g.add(t, g.mul(g.mul(x, s), slope))));
  return success();
}

LogicalResult gradient(HardswishOp op, Grads dy, Grad &g) {
  // 0 below -3, x/3 + 1/2 up to 3, 1 above.
  Value x = op.getInput(), grad = dy[0];
  Value ramp = g.mul(grad, g.add(g.div(x, g.scalar(3, x)), g.scalar(0.5, x)));
  Value upper = g.where(g.cmp(CmpPredicate::le, x, g.scalar(3, x)), ramp, grad);
  g.set(0, g.where(g.cmp(CmpPredicate::lt, x, g.scalar(-3, x)),
                   g.scalar(0, grad), upper));
  return success();
}

LogicalResult gradient(HardsigmoidOp op, Grads dy, Grad &g) {
  // 1/6 strictly between -3 and 3, else 0.
  Value x = op.getInput(), grad = dy[0];
  Value zero = g.scalar(0, grad);
  Value inside = g.where(g.cmp(CmpPredicate::lt, x, g.scalar(3, x)),
                         g.div(grad, g.scalar(6, grad)), zero);
  g.set(0, g.where(g.cmp(CmpPredicate::gt, x, g.scalar(-3, x)), inside, zero));
  return success();
}

LogicalResult gradient(arith::SelectOp op, Grads dy, Grad &g) {
  // A host condition choosing one of two tensors: the chosen one takes the
  // gradient, the other zeros.
  if (!isa<IntegerType>(op.getCondition().getType()))
    return op->emitOpError("has no gradient for a tensor condition");
  Value grad = dy[0];
  Value zeros = g.zeros(tensorType(grad), g.dynamicSizes(grad));
  g.set(1, arith::SelectOp::create(g.b, g.loc, op.getCondition(), grad, zeros));
  g.set(2, arith::SelectOp::create(g.b, g.loc, op.getCondition(), zeros, grad));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

LogicalResult gradient(SumOp op, Grads dy, Grad &g) {
  g.set(0, g.unreduce(dy[0], op.getInput(), op.getDims()));
  return success();
}

LogicalResult gradient(MeanOp op, Grads dy, Grad &g) {
  // The sum's, divided by the number of elements each mean took.
  Value x = op.getInput();
  RankedTensorType in = tensorType(x);
  Value count = g.index(1);
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (op.getDims().empty() || llvm::is_contained(op.getDims(), d))
      count = arith::MulIOp::create(g.b, g.loc, count, g.dim(x, d));
  g.set(0, g.div(g.unreduce(dy[0], x, op.getDims()), g.countOf(count, x)));
  return success();
}

/// amax, amin: the gradient shared evenly between the elements that equal
/// the result.
template <typename OpTy>
LogicalResult extremeGradient(OpTy op, Grads dy, Grad &g) {
  Value x = op.getInput();
  ArrayRef<int64_t> dims = op.getDims();
  Value hit = g.cmp(CmpPredicate::eq, x, g.unreduce(op.getResult(), x, dims));
  Value share = g.castTo(hit, tensorType(dy[0]).getElementType());
  Value ties = g.unreduce(g.sum(share, dims, op.getKeepdim()), x, dims);
  g.set(0, g.div(g.mul(g.unreduce(dy[0], x, dims), share), ties));
  return success();
}
LogicalResult gradient(AmaxOp op, Grads dy, Grad &g) {
  return extremeGradient(op, dy, g);
}
LogicalResult gradient(AminOp op, Grads dy, Grad &g) {
  return extremeGradient(op, dy, g);
}

LogicalResult gradient(ProdOp op, Grads dy, Grad &g) {
  // Exact with zeros, as the runtime's: an element's gradient is the
  // product of the others (result / x where the group holds no zero; the
  // product of the nonzeros for a group's only zero; 0 otherwise).
  Value x = op.getInput();
  ArrayRef<int64_t> dims = op.getDims();
  bool keep = op.getKeepdim();
  Type e = tensorType(x).getElementType();
  Value zero = g.cmp(CmpPredicate::eq, x, g.scalar(0, x));
  Value nonzero = g.where(zero, g.scalar(1, x), x);
  Value zerosIn = g.unreduce(g.sum(g.castTo(zero, e), dims, keep), x, dims);
  Value others =
      g.unreduce(ProdOp::create(g.b, g.loc, nonzero, op.getDimsAttr(),
                                op.getKeepdimAttr()),
                 x, dims);
  Value result = g.unreduce(op.getResult(), x, dims);
  Value noZero = g.div(result, nonzero);
  Value onlyZero =
      g.where(zero,
              g.where(g.cmp(CmpPredicate::eq, zerosIn, g.scalar(1, x)), others,
                      g.scalar(0, x)),
              g.scalar(0, x));
  Value each = g.where(g.cmp(CmpPredicate::eq, zerosIn, g.scalar(0, x)), noZero,
                       onlyZero);
  g.set(0, g.mul(g.unreduce(dy[0], x, dims), each));
  return success();
}

LogicalResult gradient(SoftmaxOp op, Grads dy, Grad &g) {
  // y (dy - sum(dy y)).
  Value y = op.getResult();
  int64_t d = dimIn(op.getDim(), tensorType(y).getRank());
  Value dot = g.sum(g.mul(dy[0], y), {d}, true);
  g.set(0, g.mul(y, g.sub(dy[0], dot)));
  return success();
}

LogicalResult gradient(LogSoftmaxOp op, Grads dy, Grad &g) {
  // dy - exp(y) sum(dy).
  Value y = op.getResult();
  int64_t d = dimIn(op.getDim(), tensorType(y).getRank());
  Value total = g.sum(dy[0], {d}, true);
  g.set(0, g.sub(dy[0], g.mul(ExpOp::create(g.b, g.loc, y), total)));
  return success();
}

/// eps as a 0-d tensor of x's element type: the attribute, or the f64
/// operand that overrides it.
Value epsOf(Grad &g, Value epsValue, double eps, Value x) {
  if (!epsValue)
    return g.scalar(eps, x);
  Value e = FromScalarOp::create(
      g.b, g.loc, RankedTensorType::get({}, epsValue.getType()), epsValue);
  return g.castTo(e, tensorType(x).getElementType());
}

/// The dims a norm takes its statistics over: the last rank(weight) of x.
SmallVector<int64_t> normDims(Value x, Value weight) {
  int64_t rank = tensorType(x).getRank();
  return llvm::to_vector(
      llvm::seq<int64_t>(rank - tensorType(weight).getRank(), rank));
}

LogicalResult gradient(LayerNormOp op, Grads dy, Grad &g) {
  // Over the weight's dims: xhat = (x - mean) rstd; dw = sum(dy xhat),
  // db = sum(dy); dx = rstd (d - mean(d) - xhat mean(d xhat)), d = dy w.
  Value x = op.getInput(), w = op.getWeight();
  SmallVector<int64_t> rows = normDims(x, w);
  int64_t kept = rows.size();
  Value centered = g.sub(x, g.mean(x, rows, true));
  Value var = g.mean(g.mul(centered, centered), rows, true);
  Value rstd = RsqrtOp::create(
      g.b, g.loc,
      g.add(var, epsOf(g, op.getEpsValue(), op.getEps().convertToDouble(), x)));
  Value xhat = g.mul(centered, rstd);
  g.setBroadcast(1, g.mul(dy[0], xhat), kept);
  if (op.getBias())
    g.setBroadcast(2, dy[0], kept);
  Value d = g.mul(dy[0], w);
  Value inner = g.sub(g.sub(d, g.mean(d, rows, true)),
                      g.mul(xhat, g.mean(g.mul(d, xhat), rows, true)));
  g.set(0, g.mul(rstd, inner));
  return success();
}

LogicalResult gradient(RmsNormOp op, Grads dy, Grad &g) {
  // y = x r w, r = rsqrt(mean(x^2) + eps) over the weight's dims:
  // dw = sum(dy x r), dx = r d - x r^3 mean(d x), d = dy w.
  Value x = op.getInput(), w = op.getWeight();
  SmallVector<int64_t> rows = normDims(x, w);
  Value r = RsqrtOp::create(
      g.b, g.loc,
      g.add(g.mean(g.mul(x, x), rows, true),
            epsOf(g, op.getEpsValue(), op.getEps().convertToDouble(), x)));
  g.setBroadcast(1, g.mul(dy[0], g.mul(x, r)), rows.size());
  Value d = g.mul(dy[0], w);
  Value r3 = g.mul(g.mul(r, r), r);
  g.set(0, g.sub(g.mul(r, d),
                 g.mul(g.mul(x, r3), g.mean(g.mul(d, x), rows, true))));
  return success();
}

//===----------------------------------------------------------------------===//
// Products
//===----------------------------------------------------------------------===//

/// x with its last two dims swapped.
Value transposed(Grad &g, Value x) {
  int64_t rank = tensorType(x).getRank();
  return TransposeOp::create(g.b, g.loc, x, rank - 2, rank - 1);
}

LogicalResult gradient(MatmulOp op, Grads dy, Grad &g) {
  // As batched matrices: a vector operand is a [1, k] row (lhs) or a
  // [k, 1] column (rhs), and the result gets that dim back.
  Value a = op.getLhs(), bm = op.getRhs(), grad = dy[0];
  bool rowA = tensorType(a).getRank() == 1,
       colB = tensorType(bm).getRank() == 1;
  if (rowA) {
    a = UnsqueezeOp::create(g.b, g.loc, a, 0);
    grad = UnsqueezeOp::create(g.b, g.loc, grad,
                               tensorType(grad).getRank() - (colB ? 0 : 1));
  }
  if (colB) {
    bm = UnsqueezeOp::create(g.b, g.loc, bm, 1);
    grad = UnsqueezeOp::create(g.b, g.loc, grad, tensorType(grad).getRank());
  }
  Value da = MatmulOp::create(g.b, g.loc, grad, transposed(g, bm));
  Value db;
  int64_t rankA = tensorType(a).getRank(), rankB = tensorType(bm).getRank();
  if (rankB == 2 && rankA > 2) {
    // A matrix applied to every matrix of a batch (a projection): its
    // gradient sums over the batch, so the batch's rows join the
    // contraction, one product [k, rows] x [rows, m] as torch's matmul
    // folds it, never a [batch, k, m] of products to sum.
    db = MatmulOp::create(g.b, g.loc, transposed(g, g.rows(a)), g.rows(grad));
  } else {
    db = MatmulOp::create(g.b, g.loc, transposed(g, a), grad);
  }
  // The batch dims a vector operand was broadcast along sum, and the dim
  // added for it goes. An operand facing a plain matrix has the result's
  // batch dims, its product's gradient its shape; set sums a batched
  // operand's over the dims it was broadcast along.
  if (rowA)
    da = g.reshapeLike(g.sumToShape(da, a, 2), op.getLhs());
  if (colB)
    db = g.reshapeLike(g.sumToShape(db, bm, 2), op.getRhs());
  if (rowA || rankB == 2)
    g.set(0, da);
  else
    g.setBroadcast(0, da, 2);
  if (colB || rankA == 2)
    g.set(1, db);
  else
    g.setBroadcast(1, db, 2);
  return success();
}

LogicalResult gradient(LinearOp op, Grads dy, Grad &g) {
  // y = x w^T + b: dx = dy w, dw = dy^T x over every row, db = sum(dy).
  Value x = op.getInput(), w = op.getWeight(), grad = dy[0];
  g.set(0, MatmulOp::create(g.b, g.loc, grad, w));
  g.set(1,
        MatmulOp::create(g.b, g.loc, transposed(g, g.rows(grad)), g.rows(x)));
  if (op.getBias())
    g.setBroadcast(2, grad, 1);
  return success();
}

LogicalResult gradient(ScaledDotProductAttentionOp op, Grads dy, Grad &g) {
  // The runtime's backward (lib/Runtime/Ops/Attention.cpp): the
  // probabilities recomputed, as FlashAttention's backward does, with
  // torch's masking and _safe_softmax (a query that attends to no key has
  // none), then dv = p^T do, ds = p (do v^T - rowsum(do v^T p)),
  // dq = ds k scale, dk = ds^T q scale, a float mask's gradient ds.
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
        mask = op.getMask(), grad = dy[0];
  Type e = tensorType(q).getElementType();
  int64_t rank = tensorType(q).getRank();
  Value scale;
  if (Value given = op.getScale()) {
    scale = g.castTo(
        FromScalarOp::create(g.b, g.loc,
                             RankedTensorType::get({}, given.getType()), given),
        e);
  } else if (int64_t E = tensorType(q).getDimSize(rank - 1);
             !ShapedType::isDynamic(E)) {
    scale = g.scalar(1.0 / std::sqrt(static_cast<double>(E)), q);
  } else {
    scale = RsqrtOp::create(g.b, g.loc, g.countOf(g.dim(q, rank - 1), q));
  }
  Value scores =
      g.mul(MatmulOp::create(g.b, g.loc, q, transposed(g, k)), scale);
  Value minusInf = g.scalar(-std::numeric_limits<double>::infinity(), q);
  int64_t scoresRank = tensorType(scores).getRank();
  if (op.getIsCausal()) {
    auto positions = [&](Value x) {
      int64_t n = tensorType(x).getDimSize(tensorType(x).getRank() - 2);
      return ArangeOp::create(
          g.b, g.loc, RankedTensorType::get({n}, g.b.getI64Type()), g.index(0),
          g.dim(x, tensorType(x).getRank() - 2), g.index(1));
    };
    Value later = g.cmp(CmpPredicate::gt,
                        UnsqueezeOp::create(g.b, g.loc, positions(k), 0),
                        UnsqueezeOp::create(g.b, g.loc, positions(q), 1));
    scores = g.where(later, minusInf, scores);
  } else if (mask && tensorType(mask).getElementType().isInteger(1)) {
    scores = g.where(mask, scores, minusInf);
  } else if (mask) {
    scores = g.add(scores, mask);
  }
  Value rowMax = AmaxOp::create(g.b, g.loc, scores,
                                g.b.getDenseI64ArrayAttr({scoresRank - 1}),
                                g.b.getUnitAttr());
  Value unattended = g.cmp(CmpPredicate::eq, rowMax, minusInf);
  Value zero = g.scalar(0, q);
  Value p = SoftmaxOp::create(g.b, g.loc, g.where(unattended, zero, scores),
                              scoresRank - 1);
  p = g.where(unattended, zero, p);
  g.setBroadcast(2, MatmulOp::create(g.b, g.loc, transposed(g, p), grad), 2);
  Value dp = MatmulOp::create(g.b, g.loc, grad, transposed(g, v));
  Value ds = g.mul(p, g.sub(dp, g.sum(g.mul(dp, p), {scoresRank - 1}, true)));
  if (mask && !op.getIsCausal() && takesGradient(mask.getType()))
    g.setBroadcast(3, ds);
  Value scaled = g.mul(ds, scale);
  g.setBroadcast(0, MatmulOp::create(g.b, g.loc, scaled, k), 2);
  g.setBroadcast(1, MatmulOp::create(g.b, g.loc, transposed(g, scaled), q), 2);
  return success();
}

LogicalResult gradient(CrossEntropyOp op, Grads dy, Grad &g) {
  // The mean over rows of -log_softmax at each target: (softmax - onehot)
  // dy / N.
  Value logits = op.getLogits(), targets = op.getTargets();
  if (tensorType(logits).getRank() != 2)
    return op.emitOpError("has a gradient for [N, C] logits only");
  Value p = SoftmaxOp::create(g.b, g.loc, logits, 1);
  Value classes = ArangeOp::create(
      g.b, g.loc,
      RankedTensorType::get({tensorType(logits).getDimSize(1)},
                            tensorType(targets).getElementType()),
      g.index(0), g.dim(logits, 1), g.index(1));
  Value hot =
      g.cmp(CmpPredicate::eq, UnsqueezeOp::create(g.b, g.loc, classes, 0),
            UnsqueezeOp::create(g.b, g.loc, targets, 1));
  Value diff = g.sub(p, g.castTo(hot, tensorType(p).getElementType()));
  g.set(0, g.mul(diff, g.div(dy[0], g.countOf(g.dim(logits, 0), p))));
  return success();
}

LogicalResult gradient(EmbeddingOp op, Grads dy, Grad &g) {
  // Each row's gradient added into the table row it read.
  Value ids = op.getIds(), table = op.getTable(), rows = dy[0], flatIds = ids;
  int64_t idsRank = tensorType(ids).getRank();
  if (idsRank == 0) {
    rows = UnsqueezeOp::create(g.b, g.loc, rows, 0);
    flatIds = UnsqueezeOp::create(g.b, g.loc, ids, 0);
  } else if (idsRank > 1) {
    rows = FlattenOp::create(g.b, g.loc, rows, 0, idsRank - 1);
    flatIds = FlattenOp::create(g.b, g.loc, ids, 0, idsRank - 1);
  }
  Value index = g.expandLike(UnsqueezeOp::create(g.b, g.loc, flatIds, 1), rows);
  Value zeros = g.zeros(tensorType(table), g.dynamicSizes(table));
  g.set(1, ScatterAddOp::create(g.b, g.loc, zeros, index, rows, 0));
  return success();
}

//===----------------------------------------------------------------------===//
// Views and data movement
//===----------------------------------------------------------------------===//

LogicalResult gradient(GatherOp op, Grads dy, Grad &g) {
  // Each read element's gradient added back where it was read.
  Value x = op.getInput();
  Value zeros = g.zeros(tensorType(x).clone(tensorType(dy[0]).getElementType()),
                        g.dynamicSizes(x));
  g.set(0, ScatterAddOp::create(g.b, g.loc, zeros, op.getIndex(), dy[0],
                                op.getDim()));
  return success();
}

LogicalResult gradient(ScatterAddOp op, Grads dy, Grad &g) {
  // The input's passes through; each source element's is read where it
  // was added. The source may be larger than the index (torch reads only
  // its leading index-shaped part): the elements no index reaches take
  // zeros, the gradient padded along each dim whose sizes may differ.
  g.set(0, dy[0]);
  Value src = op.getSrc(), index = op.getIndex();
  Value part = GatherOp::create(g.b, g.loc, dy[0], index, op.getDim());
  RankedTensorType st = tensorType(src), it = tensorType(index);
  for (int64_t d = 0; d < st.getRank(); ++d) {
    if (!st.isDynamicDim(d) && st.getDimSize(d) == it.getDimSize(d))
      continue;
    Value past =
        arith::SubIOp::create(g.b, g.loc, g.dim(src, d), g.dim(index, d));
    Value rest = g.zerosAlong(part, d, past, tensorType(part).getElementType());
    part = CatOp::create(g.b, g.loc, ValueRange{part, rest}, d);
  }
  g.set(2, part);
  return success();
}

/// The sum of v's elements from each position on along d: the total less
/// the running sum before it.
Value sumFromHere(Grad &g, Value v, int64_t d) {
  Value running = CumsumOp::create(g.b, g.loc, v, d);
  return g.add(g.sub(g.sum(v, {d}, true), running), v);
}

LogicalResult gradient(CumsumOp op, Grads dy, Grad &g) {
  int64_t d = dimIn(op.getDim(), tensorType(dy[0]).getRank());
  g.set(0, sumFromHere(g, dy[0], d));
  return success();
}

LogicalResult gradient(CumprodOp op, Grads dy, Grad &g) {
  // ATen's cumprod_backward, as eager computes it: x_i's gradient is the
  // sum over j >= i of dy_j y_j / x_i before a slice's first zero (at k);
  // at k the same sum with the products y' of x with x_k taken as 1; after
  // k, 0. The zeros before each position are counted in i64.
  Value x = op.getInput(), y = op.getResult();
  RankedTensorType type = tensorType(x);
  if (!isa<FloatType>(type.getElementType()))
    return success();
  int64_t d = dimIn(op.getDim(), type.getRank());
  Value zero = g.scalar(0, x), one = g.scalar(1, x);
  Type i64 = g.b.getI64Type();
  Value isZero = g.cmp(CmpPredicate::eq, x, zero);
  Value counted = g.castTo(isZero, i64);
  Value zeros = CumsumOp::create(g.b, g.loc, counted, d);
  Value none = FullOp::create(g.b, g.loc, RankedTensorType::get({}, i64),
                              ValueRange{}, g.b.getI64IntegerAttr(0));
  Value before = g.cmp(CmpPredicate::eq, zeros, none);
  Value upToFirst = g.cmp(CmpPredicate::eq, g.sub(zeros, counted), none);
  Value safe = g.where(before, x, one);
  Value products =
      CumprodOp::create(g.b, g.loc, g.where(upToFirst, safe, x), d);
  Value atFirst = sumFromHere(g, g.mul(dy[0], products), d);
  g.set(0, g.where(before, g.div(sumFromHere(g, g.mul(dy[0], y), d), safe),
                   g.where(upToFirst, atFirst, g.scalar(0, atFirst))));
  return success();
}

LogicalResult gradient(ExpandOp op, Grads dy, Grad &g) {
  g.setBroadcast(0, dy[0]);
  return success();
}

LogicalResult gradient(TransposeOp op, Grads dy, Grad &g) {
  g.set(0, TransposeOp::create(g.b, g.loc, dy[0], op.getDim0(), op.getDim1()));
  return success();
}

LogicalResult gradient(PermuteOp op, Grads dy, Grad &g) {
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[dimIn(p, perm.size())] = static_cast<int64_t>(i);
  g.set(0, PermuteOp::create(g.b, g.loc, dy[0], inverse));
  return success();
}

LogicalResult gradient(SliceOp op, Grads dy, Grad &g) {
  // Zeros before and after the slice's elements (with a step, each added
  // at its place among zeros), the slice's start counted as the runtime
  // counts it.
  Value x = op.getInput();
  RankedTensorType xt = tensorType(x);
  int64_t d = dimIn(op.getDim(), xt.getRank());
  Value size = g.dim(x, d), start = op.getStart();
  Value negative = arith::CmpIOp::create(g.b, g.loc, arith::CmpIPredicate::slt,
                                         start, g.index(0));
  start = arith::SelectOp::create(
      g.b, g.loc, negative, arith::AddIOp::create(g.b, g.loc, start, size),
      start);
  start = arith::MaxSIOp::create(g.b, g.loc, start, g.index(0));
  start = arith::MinSIOp::create(g.b, g.loc, start, size);
  if (int64_t step = op.getStep(); step != 1) {
    RankedTensorType gt = tensorType(dy[0]);
    Value n = g.dim(dy[0], d);
    Value end = arith::AddIOp::create(
        g.b, g.loc, start, arith::MulIOp::create(g.b, g.loc, n, g.index(step)));
    Value index = ArangeOp::create(
        g.b, g.loc, RankedTensorType::get({gt.getDimSize(d)}, g.b.getI64Type()),
        start, end, g.index(step));
    for (int64_t i = 0; i < xt.getRank(); ++i)
      if (i != d)
        index = UnsqueezeOp::create(g.b, g.loc, index, i);
    Value zeros =
        g.zeros(RankedTensorType::get(xt.getShape(), gt.getElementType()),
                g.dynamicSizes(x));
    g.set(0, ScatterAddOp::create(g.b, g.loc, zeros, g.expandLike(index, dy[0]),
                                  dy[0], d));
    return success();
  }
  Value after = arith::SubIOp::create(
      g.b, g.loc, arith::SubIOp::create(g.b, g.loc, size, start),
      g.dim(dy[0], d));
  auto zeros = [&](Value n) {
    return g.zerosAlong(x, d, n, tensorType(dy[0]).getElementType());
  };
  g.set(0, CatOp::create(g.b, g.loc,
                         ValueRange{zeros(start), dy[0], zeros(after)}, d));
  return success();
}

LogicalResult gradient(CatOp op, Grads dy, Grad &g) {
  // Each input's part of the gradient, in order along dim.
  int64_t rank = tensorType(dy[0]).getRank();
  int64_t d = dimIn(op.getDim(), rank);
  Value offset = g.index(0);
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    Value end = arith::AddIOp::create(g.b, g.loc, offset, g.dim(input, d));
    RankedTensorType type =
        tensorType(input).clone(tensorType(dy[0]).getElementType());
    SmallVector<int64_t> shape(tensorType(dy[0]).getShape());
    shape[d] = type.getDimSize(d);
    Value part = SliceOp::create(
        g.b, g.loc, RankedTensorType::get(shape, type.getElementType()), dy[0],
        d, offset, end, 1);
    g.set(i, part);
    offset = end;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Images: the backward graphs' own ops, which the CPU pipeline computes with
// the runtime's functions eager autograd runs
//===----------------------------------------------------------------------===//

/// An image op's input is a batch [N, C, H, W]: kiln-decompose-composites
/// batches one image before the recomputed forward is differentiated.
LogicalResult batchedImage(Operation *op, Value input) {
  if (tensorType(input).getRank() == 4)
    return success();
  return op->emitOpError("takes its gradient over a batch of images: "
                         "kiln-decompose-composites batches one image first");
}

LogicalResult gradient(Conv2dOp op, Grads dy, Grad &g) {
  Value x = op.getInput(), w = op.getWeight();
  if (failed(batchedImage(op, x)))
    return failure();
  Type e = tensorType(x).getElementType();
  if (tensorType(w).getElementType() != e)
    return op.emitOpError("takes its gradient with an input and a weight of "
                          "one element type");
  auto back = Conv2dBackwardOp::create(
      g.b, g.loc, x.getType(), w.getType(), g.castTo(dy[0], e), x, w,
      op.getParams(), op.getStridesAttr(), op.getPaddingAttr(),
      op.getDilationAttr(), op.getGroupsAttr());
  g.set(0, back.getInputGrad());
  g.set(1, back.getWeightGrad());
  if (op.getBias())
    g.set(2, g.sum(dy[0], {0, 2, 3}, false));
  return success();
}

LogicalResult gradient(Pool2dOp op, Grads dy, Grad &g) {
  Value x = op.getInput();
  if (failed(batchedImage(op, x)))
    return failure();
  g.set(0, Pool2dBackwardOp::create(
               g.b, g.loc, x.getType(), op.getKindAttr(),
               g.castTo(dy[0], tensorType(x).getElementType()), x,
               op.getParams(), op.getKernelAttr(), op.getStridesAttr(),
               op.getPaddingAttr(), op.getDilationAttr(), op.getCeilModeAttr(),
               op.getCountIncludePadAttr(), op.getDivisorAttr()));
  return success();
}

LogicalResult gradient(AdaptiveAvgPool2dOp op, Grads dy, Grad &g) {
  Value x = op.getInput();
  if (failed(batchedImage(op, x)))
    return failure();
  g.set(0, AdaptiveAvgPool2dBackwardOp::create(
               g.b, g.loc, x.getType(),
               g.castTo(dy[0], tensorType(x).getElementType()), x));
  return success();
}

/// How an op's gradient is built: by its `gradient` function, or as one of
/// the views that keep the elements in order (reshape, flatten, squeeze,
/// unsqueeze: the gradient reshaped back), or as one of the rounding ops
/// (zero almost everywhere) and detach: none flows back.
enum class Rule { Function, ReshapedBack, None };

/// The GradientOpInterface of OpTy.
template <typename OpTy, Rule R = Rule::Function>
struct GradientModel
    : GradientOpInterface::ExternalModel<GradientModel<OpTy, R>, OpTy> {
  LogicalResult buildGradients(Operation *op, OpBuilder &b,
                               ValueRange resultGrads,
                               SmallVectorImpl<Value> &operandGrads) const {
    operandGrads.assign(op->getNumOperands(), Value());
    if (llvm::all_of(resultGrads, [](Value v) { return !v; }))
      return success();
    Grad g{b, op->getLoc(), op, operandGrads};
    if constexpr (R == Rule::ReshapedBack)
      g.set(0, g.reshapeBack(resultGrads[0], op->getOperand(0)));
    if constexpr (R == Rule::Function)
      return gradient(cast<OpTy>(op), resultGrads, g);
    return success();
  }
};

template <Rule R, typename... OpTys> void attach(MLIRContext &context) {
  (OpTys::template attachInterface<GradientModel<OpTys, R>>(context), ...);
}

} // namespace

bool mlir::kiln::takesGradient(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

void mlir::kiln::attachGradients(MLIRContext &context) {
  attach<Rule::Function, AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp,
         MinimumOp, WhereOp, CastOp, NegOp, AbsOp, AmaxOp, AminOp, ReluOp,
         SquareOp, ExpOp, Exp2Op, Expm1Op, LogOp, Log2Op, Log10Op, Log1pOp,
         SqrtOp, RsqrtOp, ReciprocalOp, TanhOp, SigmoidOp, SiluOp, SinOp, CosOp,
         ErfOp, GeluOp, SumOp, MeanOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp,
         RmsNormOp, MatmulOp, LinearOp, ScaledDotProductAttentionOp,
         CrossEntropyOp, EmbeddingOp, GatherOp, ScatterAddOp, CumsumOp,
         CumprodOp, ExpandOp, TransposeOp, PermuteOp, SliceOp, CatOp, TanOp,
         AtanOp, ErfcOp, SoftplusOp, MishOp, HardswishOp, HardsigmoidOp, ProdOp,
         Conv2dOp, Pool2dOp, AdaptiveAvgPool2dOp>(context);
  attach<Rule::ReshapedBack, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
      context);
  // arith.select of two tensors (a host condition's `c ? a : b`), loaded
  // with the kiln dialect (KilnBase.td's dependent dialects).
  attach<Rule::Function, arith::SelectOp>(context);
  attach<Rule::None, FloorOp, CeilOp, RoundOp, TruncOp, DetachOp>(context);
}
