//===- RecognizeAttention.cpp - Attention written out -> the fused op -----===//
//
// Attention as model code writes it out,
//
//   s = matmul(q, k.transpose(-2, -1)) [* scale | / d]
//   [s = where(causal, s, -inf)]        causal: arange(T)[:, None] >=
//                                                arange(S)[None, :]
//   [s = masked_fill(tril(ones(T, S)) == 0, -inf)]   (Llama's spelling)
//   o = matmul(softmax(s, -1), v)
//
// becomes one kiln.scaled_dot_product_attention, which the CPU pipeline
// runs as the runtime's fused kernel: no [..., L, S] scores in memory,
// blocks of queries against blocks of keys with an online softmax. The op
// is marked to keep softmax's answer where a query attends to no key (NaN,
// as softmax of a row of -inf gives; the op gives zeros otherwise, as
// torch's does), and other masks are left written out: only a row every
// key of which a mask removes can tell the two apart, and no row of the
// causal triangle is one. 16-bit attention (a bfloat16 model's, or
// autocast's) is recognized too: the kernel computes its scores and softmax
// in float32, which the ops written out round to 16 bits each.
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
  if (auto narrowed = t.getDefiningOp<CastOp>()) // a double scalar as float
    return isa<FloatType>(
               cast<RankedTensorType>(narrowed.getType()).getElementType()) &&
           isScalar(narrowed.getInput());
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
  if (auto narrowed = t.getDefiningOp<CastOp>()) {
    // Rounded to the element type as the cast rounds it.
    v = scalarOf(b, loc, narrowed.getInput());
    Type element = cast<RankedTensorType>(narrowed.getType()).getElementType();
    if (element != v.getType())
      v = arith::TruncFOp::create(b, loc, element, v);
  } else if (auto from = t.getDefiningOp<FromScalarOp>()) {
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
  // -inf converted to the scores' type (a bfloat16 model's float scalar):
  // -inf in every float type.
  if (auto converted = t.getDefiningOp<CastOp>())
    return isa<FloatType>(type.getElementType()) &&
           isMinusInfinity(converted.getInput());
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

/// v without the casts to its own type that tracing leaves (`Tensor`
/// results assigned back to a `Tensor`).
Value peel(Value v) {
  while (auto cast = v.getDefiningOp<CastOp>()) {
    if (cast.getInput().getType() != cast.getType())
      break;
    v = cast.getInput();
  }
  return v;
}

/// Whether the 0-d tensor is the constant 0, of any element type (a literal
/// 0 compared with a float tensor is traced as an integer cast to it; a
/// decomposed tril's diagonal and zero are kiln.full).
bool isZero(Value t) {
  t = t.getDefiningOp<CastOp>() ? t.getDefiningOp<CastOp>().getInput() : t;
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || type.getRank() != 0)
    return false;
  if (auto from = t.getDefiningOp<FromScalarOp>())
    return matchPattern(from.getScalar(), m_Zero()) ||
           matchPattern(from.getScalar(), m_AnyZeroFloat());
  if (auto constant = t.getDefiningOp<ConstantOp>())
    return matchPattern(constant.getValue(), m_Zero()) ||
           matchPattern(constant.getValue(), m_AnyZeroFloat());
  if (auto full = t.getDefiningOp<FullOp>()) // a decomposed tril's
    return matchPattern(full.getValue(), m_Zero()) ||
           matchPattern(full.getValue(), m_AnyZeroFloat());
  return false;
}

/// The causal triangle: query i (rows) attends key j (columns) when
/// i >= j, spelled as arange comparisons: GPT-2's `arange(T)[:, None] >=
/// arange(S)[None, :]`, or tril's `arange(S) - arange(T)[:, None] <= 0`.
bool isCausalMask(Value mask) {
  auto cmp = peel(mask).getDefiningOp<CmpOp>();
  if (!cmp)
    return false;
  if (cmp.getPredicate() == CmpPredicate::ge)
    return isPositions(cmp.getLhs(), 1) && isPositions(cmp.getRhs(), 0);
  if (cmp.getPredicate() != CmpPredicate::le)
    return false;
  if (isPositions(cmp.getLhs(), 0) && isPositions(cmp.getRhs(), 1))
    return true;
  auto offset = cmp.getLhs().getDefiningOp<SubOp>();
  if (!offset || !isZero(cmp.getRhs()) || !isPositions(offset.getRhs(), 1))
    return false;
  auto columns = offset.getLhs().getDefiningOp<ArangeOp>();
  return columns && isIndexConstant(columns.getStart(), 0) &&
         isIndexConstant(columns.getStep(), 1);
}

/// The complement of the causal triangle as `tril(ones) == 0` spells it:
/// where(causal, c, 0) == 0 with c a nonzero fill. Returns the triangle
/// (what attends), or null.
Value causalComplement(Value masked) {
  auto cmp = peel(masked).getDefiningOp<CmpOp>();
  if (!cmp || cmp.getPredicate() != CmpPredicate::eq || !isZero(cmp.getRhs()))
    return {};
  auto lower = peel(cmp.getLhs()).getDefiningOp<WhereOp>();
  if (!lower || !isZero(lower.getRhs()) || !isCausalMask(lower.getCond()))
    return {};
  auto fill = lower.getLhs().getDefiningOp<FullOp>();
  if (fill && cast<RankedTensorType>(fill.getType()).getRank() != 2)
    return {}; // a bigger fill would make the scores bigger
  auto value = fill ? dyn_cast<FloatAttr>(fill.getValue()) : FloatAttr();
  if (!value || value.getValue().isZero() || value.getValue().isNaN())
    return {};
  return lower.getCond();
}

/// Whether `v`'s one use besides kiln.dim ops (shape queries: masked_fill's
/// check that the mask broadcasts) is by `reader`; collects the dims.
bool readOnlyBy(Value v, Operation *reader, SmallVectorImpl<DimOp> &dims) {
  bool read = false;
  for (Operation *user : v.getUsers()) {
    if (auto dim = dyn_cast<DimOp>(user)) {
      dims.push_back(dim);
      continue;
    }
    if (user != reader || read)
      return false;
    read = true;
  }
  return read;
}

/// What `v` is below the casts to its own type that tracing leaves,
/// when v and each cast are read by `reader` (then the cast above) alone
/// besides kiln.dim ops (collected); null otherwise. `reader` becomes the
/// op that reads the value returned.
Value through(Value v, Operation *&reader, SmallVectorImpl<DimOp> &dims) {
  while (true) {
    if (!readOnlyBy(v, reader, dims))
      return {};
    auto cast = v.getDefiningOp<CastOp>();
    if (!cast || cast.getInput().getType() != cast.getType())
      return v;
    reader = cast;
    v = cast.getInput();
  }
}

/// The size of dim `d` of q k^T (q [..., L, E], k [..., S, E], batch dims
/// broadcast), for the shape queries of the masked scores, which have its
/// shape wherever the fused kernel runs (its mask is then [L, S]).
Value scoresDim(OpBuilder &b, Location loc, Value q, Value k, int64_t rank,
                int64_t d) {
  auto rankOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  };
  if (d == rank - 1)
    return DimOp::create(b, loc, k, b.getI64IntegerAttr(rankOf(k) - 2));
  if (d == rank - 2)
    return DimOp::create(b, loc, q, b.getI64IntegerAttr(rankOf(q) - 2));
  Value size;
  for (Value x : {q, k}) {
    int64_t od = d - (rank - rankOf(x));
    if (od < 0)
      continue;
    Value s = DimOp::create(b, loc, x, b.getI64IntegerAttr(od));
    if (!size) {
      size = s;
      continue;
    }
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    size = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one), s,
        size);
  }
  return size ? size : arith::ConstantIndexOp::create(b, loc, 1).getResult();
}

/// Rewrites `out = matmul(softmax(...), v)` when it is attention written
/// out; returns whether it did.
bool recognize(MatmulOp out) {
  auto softmax = out.getLhs().getDefiningOp<SoftmaxOp>();
  auto type = cast<RankedTensorType>(out.getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  if (!softmax || !softmax->hasOneUse() || rank < 2 || rank > 4 ||
      !(element.isF32() || element.isF64() || element.isBF16() ||
        element.isF16()) ||
      static_cast<int64_t>(softmax.getDim()) !=
          cast<RankedTensorType>(softmax.getType()).getRank() - 1)
    return false;
  // Each value from the scores to the softmax is read by the next alone,
  // but for shape queries (masked_fill's check), which have the scores'
  // shape wherever the fused kernel runs.
  SmallVector<DimOp> dims;
  Operation *reader = softmax;
  Value s = softmax.getInput();
  int64_t scoresRank = cast<RankedTensorType>(s.getType()).getRank();
  Value mask;
  if (!(s = through(s, reader, dims)))
    return false;
  if (auto where = s.getDefiningOp<WhereOp>()) {
    // where(causal, s, -inf) or masked_fill(tril(ones) == 0, -inf).
    if (isMinusInfinity(where.getRhs()) && isCausalMask(where.getCond())) {
      mask = peel(where.getCond());
      s = where.getLhs();
    } else if (isMinusInfinity(where.getLhs()) &&
               (mask = causalComplement(where.getCond()))) {
      mask = peel(mask);
      s = where.getRhs();
    } else {
      return false;
    }
    reader = where;
    if (!(s = through(s, reader, dims)))
      return false;
  }
  // The scale: s * c, c * s or s / c, c a scalar.
  Value factor, divisor;
  if (auto mul = s.getDefiningOp<MulOp>()) {
    if (isScalar(mul.getRhs())) {
      factor = mul.getRhs();
      s = mul.getLhs();
    } else if (isScalar(mul.getLhs())) {
      factor = mul.getLhs();
      s = mul.getRhs();
    } else {
      return false;
    }
    reader = mul;
  } else if (auto div = s.getDefiningOp<DivOp>()) {
    if (!isScalar(div.getRhs()))
      return false;
    divisor = div.getRhs();
    s = div.getLhs();
    reader = div;
  }
  // Below the scale (the where and the casts above it were walked).
  if ((factor || divisor) && !(s = through(s, reader, dims)))
    return false;
  auto scores = s.getDefiningOp<MatmulOp>();
  if (!scores)
    return false;
  auto transpose = scores.getRhs().getDefiningOp<TransposeOp>();
  Value q = scores.getLhs(), v = out.getRhs();
  if (!transpose || !transpose.swapsLastTwoDims())
    return false;
  Value k = transpose.getInput();
  for (Value t : {q, k, v}) {
    auto tt = cast<RankedTensorType>(t.getType());
    if (tt.getRank() < 2 || tt.getRank() > 4 || tt.getElementType() != element)
      return false;
  }
  OpBuilder b(out);
  Location loc = out.getLoc();
  // Unscaled scores are scaled by 1 (the op's own default is 1/sqrt(E)).
  Value scale = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
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
  for (DimOp dim : dims) {
    b.setInsertionPoint(dim);
    dim.replaceAllUsesWith(scoresDim(b, dim.getLoc(), q, k, scoresRank,
                                     static_cast<int64_t>(dim.getIndex())));
    dim.erase();
  }
  b.setInsertionPointAfter(attention);
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
