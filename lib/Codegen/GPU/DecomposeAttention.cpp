//===- DecomposeAttention.cpp - Attention as matmul, softmax, matmul ------===//
//
// The GPU pipeline has no fused attention kernel yet: each
// kiln.scaled_dot_product_attention becomes the kiln ops of its
// definition, which the pipeline then lowers as any others (the [..., L, S]
// scores in memory):
//
//   s = matmul(q, transpose(k)) * scale   (+ mask, or where(mask, s, -inf),
//                                           or the causal triangle)
//   p = where(amax(s) == -inf, 0, softmax(s))   (a query that attends to
//                                                 no key gives zeros)
//   o = matmul(p, v)
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/GPU/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDECOMPOSEATTENTION
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

void decompose(ScaledDotProductAttentionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Type element = cast<RankedTensorType>(q.getType()).getElementType();
  auto scalarTensor = [&](Value scalar) {
    if (scalar.getType() != element)
      scalar = arith::TruncFOp::create(b, loc, element, scalar);
    return FromScalarOp::create(b, loc, RankedTensorType::get({}, element),
                                scalar)
        .getResult();
  };
  auto f64 = [&](double x) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(x)).getResult();
  };
  // The scale: given, or 1 / sqrt(E).
  Value scale = op.getScale();
  if (!scale) {
    Value e = DimOp::create(b, loc, q, b.getI64IntegerAttr(rankOf(q) - 1));
    Value ef = arith::SIToFPOp::create(
        b, loc, b.getF64Type(),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), e));
    scale = arith::DivFOp::create(b, loc, f64(1.0),
                                  math::SqrtOp::create(b, loc, ef));
  }
  int64_t kr = rankOf(k);
  Value kt = TransposeOp::create(b, loc, k, b.getI64IntegerAttr(kr - 2),
                                 b.getI64IntegerAttr(kr - 1));
  Value s = MatmulOp::create(b, loc, q, kt);
  s = MulOp::create(b, loc, s, scalarTensor(scale));
  const double inf = std::numeric_limits<double>::infinity();
  Value minusInf = scalarTensor(f64(-inf));
  if (Value mask = op.getMask()) {
    bool flags =
        cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1);
    s = flags ? WhereOp::create(b, loc, mask, s, minusInf).getResult()
              : AddOp::create(b, loc, s, mask).getResult();
  }
  int64_t sr = rankOf(s);
  if (op.getIsCausal()) {
    // Key j attends query i when j - i <= 0.
    auto range = [&](int64_t dim) {
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
      Value n = DimOp::create(b, loc, s, b.getI64IntegerAttr(dim));
      return ArangeOp::create(
                 b, loc,
                 RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type()),
                 c0, n, c1)
          .getResult();
    };
    Value rows =
        UnsqueezeOp::create(b, loc, range(sr - 2), b.getI64IntegerAttr(1));
    Value offset = SubOp::create(b, loc, range(sr - 1), rows);
    Value zero = FromScalarOp::create(
        b, loc, RankedTensorType::get({}, b.getI64Type()),
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)));
    Value keep = CmpOp::create(b, loc, CmpPredicate::le, offset, zero);
    s = WhereOp::create(b, loc, keep, s, minusInf);
  }
  auto lastDim = b.getDenseI64ArrayAttr({sr - 1});
  Value top = AmaxOp::create(b, loc, s, lastDim, b.getUnitAttr());
  Value p = SoftmaxOp::create(b, loc, s, b.getI64IntegerAttr(sr - 1));
  Value none = CmpOp::create(b, loc, CmpPredicate::eq, top, minusInf);
  p = WhereOp::create(b, loc, none, scalarTensor(f64(0.0)), p);
  Value out = MatmulOp::create(b, loc, p, v);
  if (out.getType() != op.getType())
    out = tensor::CastOp::create(b, loc, op.getType(), out);
  op.replaceAllUsesWith(out);
  op.erase();
}

struct KilnDecomposeAttentionPass
    : mlir::kiln::impl::KilnDecomposeAttentionBase<KilnDecomposeAttentionPass> {
  void runOnOperation() override {
    SmallVector<ScaledDotProductAttentionOp> ops;
    getOperation()->walk(
        [&](ScaledDotProductAttentionOp op) { ops.push_back(op); });
    for (ScaledDotProductAttentionOp op : ops)
      decompose(op);
  }
};
} // namespace
