//===- RecognizeAttention.cpp - Attention written out -> the fused op -----===//
//
// Attention as model code writes it out,
//
//   s = matmul(q, k.transpose(-2, -1)) [* scale | / d]
//   [s = where(causal, s, -inf)]        causal: arange(T)[:, None] >=
//                                                arange(S)[None, :]
//   o = matmul(softmax(s, -1), v)
//
// becomes one kiln.scaled_dot_product_attention, which the CPU pipeline
// runs as the runtime's fused kernel: no [..., L, S] scores in memory,
// blocks of queries against blocks of keys with an online softmax. The op
// is marked to keep softmax's answer where a query attends to no key (NaN,
// as softmax of a row of -inf gives; the op gives zeros otherwise, as
// torch's does), and other masks are left written out: only a row every
// key of which a mask removes can tell the two apart, and no row of the
// causal triangle is one.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Conversion/KilnToLinalg.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNRECOGNIZEATTENTION
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Whether a 0-d float tensor holds a scalar known before the graph's
/// ops: from_scalar of a value, or a splat constant.
bool isScalar(Value t) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || type.getRank() != 0 || !isa<FloatType>(type.getElementType()))
    return false;
  if (auto from = t.getDefiningOp<FromScalarOp>())
    return isa<FloatType>(from.getScalar().getType());
  if (auto constant = t.getDefiningOp<ConstantOp>())
    return isa<DenseFPElementsAttr>(constant.getValue());
  return false;
}

/// The scalar of a tensor isScalar accepts, as an f64 value.
Value scalarOf(OpBuilder &b, Location loc, Value t) {
  Value v;
  if (auto from = t.getDefiningOp<FromScalarOp>()) {
    v = from.getScalar();
  } else {
    auto dense =
        cast<DenseFPElementsAttr>(t.getDefiningOp<ConstantOp>().getValue());
    v = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(dense.getElementType(), dense.getSplatValue<APFloat>()));
  }
  return v.getType().isF64()
             ? v
             : arith::ExtFOp::create(b, loc, b.getF64Type(), v).getResult();
}

/// Whether the 0-d tensor is the constant -inf.
bool isMinusInfinity(Value t) {
  APFloat value(0.0);
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || type.getRank() != 0)
    return false;
  if (auto from = t.getDefiningOp<FromScalarOp>()) {
    if (!matchPattern(from.getScalar(), m_ConstantFloat(&value)))
      return false;
  } else if (auto constant = t.getDefiningOp<ConstantOp>()) {
    auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
    if (!dense || !dense.isSplat())
      return false;
    value = dense.getSplatValue<APFloat>();
  } else {
    return false;
  }
  return value.isInfinity() && value.isNegative();
}

bool isIndexConstant(Value v, int64_t want) {
  APInt value;
  return matchPattern(v, m_ConstantInt(&value)) && value == want;
}

/// arange(0, n, 1) unsqueezed at `dim` of a 2-d result.
bool isPositions(Value t, int64_t dim) {
  auto unsqueeze = t.getDefiningOp<UnsqueezeOp>();
  if (!unsqueeze || static_cast<int64_t>(unsqueeze.getDim()) != dim ||
      cast<RankedTensorType>(unsqueeze.getType()).getRank() != 2)
    return false;
  auto arange = unsqueeze.getInput().getDefiningOp<ArangeOp>();
  return arange && isIndexConstant(arange.getStart(), 0) &&
         isIndexConstant(arange.getStep(), 1);
}

/// The causal triangle: query i (rows) attends key j (columns) when
/// i >= j, spelled as arange comparisons.
bool isCausalMask(Value mask) {
  auto cmp = mask.getDefiningOp<CmpOp>();
  if (!cmp)
    return false;
  if (cmp.getPredicate() == CmpPredicate::ge)
    return isPositions(cmp.getLhs(), 1) && isPositions(cmp.getRhs(), 0);
  if (cmp.getPredicate() == CmpPredicate::le)
    return isPositions(cmp.getLhs(), 0) && isPositions(cmp.getRhs(), 1);
  return false;
}

bool hasOneUse(Value v) { return v.hasOneUse(); }

/// Rewrites `out = matmul(softmax(...), v)` when it is attention written
/// out; returns whether it did.
bool recognize(MatmulOp out) {
  auto softmax = out.getLhs().getDefiningOp<SoftmaxOp>();
  auto type = cast<RankedTensorType>(out.getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  if (!softmax || !hasOneUse(softmax) || rank < 2 || rank > 4 ||
      !(element.isF32() || element.isF64()) ||
      static_cast<int64_t>(softmax.getDim()) !=
          cast<RankedTensorType>(softmax.getType()).getRank() - 1)
    return false;
  Value s = softmax.getInput();
  Value mask;
  if (auto where = s.getDefiningOp<WhereOp>()) {
    if (!hasOneUse(where) || !isMinusInfinity(where.getRhs()) ||
        !isCausalMask(where.getCond()))
      return false;
    mask = where.getCond();
    s = where.getLhs();
  }
  // The scale: s * c, c * s or s / c, c a scalar.
  Value factor, divisor;
  if (auto mul = s.getDefiningOp<MulOp>()) {
    if (!hasOneUse(mul))
      return false;
    if (isScalar(mul.getRhs())) {
      factor = mul.getRhs();
      s = mul.getLhs();
    } else if (isScalar(mul.getLhs())) {
      factor = mul.getLhs();
      s = mul.getRhs();
    } else {
      return false;
    }
  } else if (auto div = s.getDefiningOp<DivOp>()) {
    if (!hasOneUse(div) || !isScalar(div.getRhs()))
      return false;
    divisor = div.getRhs();
    s = div.getLhs();
  }
  auto scores = s.getDefiningOp<MatmulOp>();
  if (!scores || !hasOneUse(scores))
    return false;
  auto transpose = scores.getRhs().getDefiningOp<TransposeOp>();
  Value q = scores.getLhs(), v = out.getRhs();
  if (!transpose)
    return false;
  int64_t kRank = cast<RankedTensorType>(transpose.getType()).getRank();
  int64_t d0 = std::min(transpose.getDim0(), transpose.getDim1());
  int64_t d1 = std::max(transpose.getDim0(), transpose.getDim1());
  if (d0 != kRank - 2 || d1 != kRank - 1)
    return false;
  Value k = transpose.getInput();
  for (Value t : {q, k, v}) {
    auto tt = cast<RankedTensorType>(t.getType());
    if (tt.getRank() < 2 || tt.getRank() > 4 || tt.getElementType() != element)
      return false;
  }
  OpBuilder b(out);
  Location loc = out.getLoc();
  Value scale;
  if (factor)
    scale = scalarOf(b, loc, factor);
  if (divisor)
    scale = arith::DivFOp::create(
        b, loc, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)),
        scalarOf(b, loc, divisor));
  auto attention =
      ScaledDotProductAttentionOp::create(b, loc, q, k, v, mask, scale, false);
  attention->setAttr(kNanWhenUnattendedAttrName, b.getUnitAttr());
  if (mask)
    attention->setAttr(kCausalMaskAttrName, b.getUnitAttr());
  Value result = attention.getResult();
  if (result.getType() != out.getType())
    result = tensor::CastOp::create(b, loc, out.getType(), result);
  out.replaceAllUsesWith(result);
  return true;
}

struct KilnRecognizeAttentionPass
    : mlir::kiln::impl::KilnRecognizeAttentionBase<KilnRecognizeAttentionPass> {
  void runOnOperation() override {
    SmallVector<MatmulOp> products;
    getOperation()->walk([&](MatmulOp op) { products.push_back(op); });
    SmallVector<Operation *> dead;
    for (MatmulOp op : products)
      if (recognize(op))
        dead.push_back(op);
    // The written-out ops, now read by nothing, from the last back (each
    // once: one op may read a value twice).
    while (!dead.empty()) {
      Operation *op = dead.pop_back_val();
      llvm::SmallPtrSet<Operation *, 4> defs;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          defs.insert(def);
      op->erase();
      for (Operation *def : defs)
        if (def->use_empty() && isPure(def))
          dead.push_back(def);
    }
  }
};

} // namespace
