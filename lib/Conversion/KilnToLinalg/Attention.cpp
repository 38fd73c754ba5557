//===- Attention.cpp - scaled_dot_product_attention as one loop nest ------===//
//
// Where no fused kernel is called for it (the GPU pipeline; the CPU
// pipeline calls the runtime's, kiln-attention-to-runtime), a
// kiln.scaled_dot_product_attention becomes one scf.forall over the query
// rows (one GPU thread each) whose body walks the keys in order with the
// online softmax of FlashAttention: a running maximum m and sum l in
// registers, the output row (accumulated in f32, f64 for f64) rescaled by
// exp(m_old - m_new) as m grows and divided by l at the end. No score
// reaches memory: the [..., L, S] tensor is never made. A causal row stops
// at its diagonal. Batch dims broadcast by reading a size-1 dim at 0, and
// the mask's dims likewise, so nothing is copied.
//
// The semantics are the runtime's (lib/Runtime/Ops/Attention.cpp): the
// query scaled before its products with the keys, then the mask added
// (float) or -inf where it is false (bool); a query that attends to no key
// gives zeros, or NaN where the op is marked kiln.nan_when_unattended (a
// softmax written out, which gives 0 / 0); a NaN score makes the row's sum
// NaN, and the row NaN, as torch gives. Every size eager checks is
// a shape check, and every read stays in bounds when one fails (an operand
// with an empty batch dim then leaves every row uncomputed).
//
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

/// The longest query or output row kept in registers (a head dim of up to
/// 128; GPU threads then hold both rows, 2 * 128 registers of float32).
constexpr int64_t kRegisterRow = 128;

/// The position along dim `dim` of `x` that reads position `coord` of a
/// dim of size `target` (static, or kDynamic) that it broadcasts to: the
/// coordinate itself when the sizes are the same statically, 0 when x's is
/// a static 1, otherwise min(coord, size - 1), which is 0 for a size of 1
/// at run time and stays in bounds after a failed shape check.
Value broadcastCoord(OpBuilder &b, Location loc, Value x, int64_t dim,
                     int64_t target, Value coord) {
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(dim);
  if (size == 1)
    return indexConstant(b, loc, 0);
  if (!ShapedType::isDynamic(size) && size == target)
    return coord;
  Value last = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, x, dim), indexConstant(b, loc, 1));
  return arith::MinUIOp::create(b, loc, coord, last);
}

/// Checks that each dim of x in `dims` (paired with the result dims they
/// broadcast to, of `sizes`) is 1 or that size; returns whether one of them
/// is 0 at run time (nothing may then be read from x).
Value checkBroadcast(OpBuilder &b, Location loc, Value x,
                     ArrayRef<std::pair<int64_t, int64_t>> dims,
                     ArrayRef<Value> sizes, ArrayRef<int64_t> staticSizes,
                     StringRef message) {
  auto type = cast<RankedTensorType>(x.getType());
  using P = arith::CmpIPredicate;
  Value empty = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (auto [od, d] : dims) {
    int64_t size = type.getDimSize(od);
    if (size == 1 || (!ShapedType::isDynamic(size) && size == staticSizes[d]))
      continue;
    Value s = tensor::DimOp::create(b, loc, x, od);
    Value ok = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, P::eq, s, indexConstant(b, loc, 1)),
        arith::CmpIOp::create(b, loc, P::eq, s, sizes[d]));
    emitShapeCheck(b, loc, ok, message);
    empty = arith::OrIOp::create(
        b, loc, empty,
        arith::CmpIOp::create(b, loc, P::eq, s, indexConstant(b, loc, 0)));
  }
  return empty;
}

struct AttentionToLoops : OpConversionPattern<ScaledDotProductAttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScaledDotProductAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value mask = adaptor.getMask();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    FloatType acc =
        element.isF64() ? FloatType(b.getF64Type()) : FloatType(b.getF32Type());
    const int64_t rank = type.getRank(), batch = rank - 2;
    const int64_t rq = rankOf(q), rk = rankOf(k), rv = rankOf(v);
    // E and S agree (sliced to the smaller after a failed check).
    std::tie(q, k) = agreeOnDim(
        b, loc, q, rq - 1, k, rk - 1,
        "scaled_dot_product_attention: query and key differ in the last dim");
    std::tie(k, v) = agreeOnDim(b, loc, k, rk - 2, v, rv - 2,
                                "scaled_dot_product_attention: key and value "
                                "differ in dim -2 (the number of keys)");
    Value L = tensor::DimOp::create(b, loc, q, rq - 2);
    Value E = tensor::DimOp::create(b, loc, q, rq - 1);
    Value S = tensor::DimOp::create(b, loc, k, rk - 2);
    Value Ev = tensor::DimOp::create(b, loc, v, rv - 1);

    // The result's batch sizes: q, k and v's broadcast, checked.
    SmallVector<Value> sizes;
    SmallVector<int64_t> staticSizes(type.getShape());
    auto batchDims = [&](Value x) {
      SmallVector<std::pair<int64_t, int64_t>> dims;
      for (int64_t od = 0; od + 2 < rankOf(x); ++od)
        dims.push_back({od, od + batch - (rankOf(x) - 2)});
      return dims;
    };
    for (int64_t d = 0; d < batch; ++d) {
      if (!type.isDynamicDim(d)) {
        sizes.push_back(indexConstant(b, loc, type.getDimSize(d)));
        continue;
      }
      SmallVector<Value> candidates;
      for (Value x : {q, k, v})
        for (auto [od, rd] : batchDims(x))
          if (rd == d &&
              cast<RankedTensorType>(x.getType()).getDimSize(od) != 1)
            candidates.push_back(tensor::DimOp::create(b, loc, x, od));
      sizes.push_back(broadcastSize(b, loc, candidates));
    }
    // Whether an operand's batch dim is empty where the result's is not (a
    // failed check): then no row is computed, nothing read.
    Value emptyOperand = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value x : {q, k, v})
      emptyOperand = arith::OrIOp::create(
          b, loc, emptyOperand,
          checkBroadcast(b, loc, x, batchDims(x), sizes, staticSizes,
                         "scaled_dot_product_attention: the batch dims of "
                         "query, key and value do not broadcast"));
    // The keys a row walks: none when the mask has an empty dim (its check
    // failed, or the scores are empty anyway).
    Value keys = S;
    SmallVector<int64_t> scoreSizes(staticSizes);
    scoreSizes[rank - 1] =
        cast<RankedTensorType>(k.getType()).getDimSize(rk - 2);
    if (mask) {
      SmallVector<Value> scores(sizes);
      scores.push_back(L);
      scores.push_back(S);
      SmallVector<std::pair<int64_t, int64_t>> dims;
      for (int64_t od = 0; od < rankOf(mask); ++od)
        dims.push_back({od, od + rank - rankOf(mask)});
      Value empty = checkBroadcast(
          b, loc, mask, dims, scores, scoreSizes,
          "scaled_dot_product_attention: attn_mask does not broadcast to the "
          "scores' shape");
      keys =
          arith::SelectOp::create(b, loc, empty, indexConstant(b, loc, 0), S);
    }

    // The scale: given, or 1 / sqrt(E).
    Value scale = adaptor.getScale();
    if (!scale) {
      Value e = arith::UIToFPOp::create(
          b, loc, b.getF64Type(),
          arith::IndexCastUIOp::create(b, loc, b.getI64Type(), E));
      scale = arith::DivFOp::create(
          b, loc, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)),
          math::SqrtOp::create(b, loc, e));
    }
    if (!acc.isF64())
      scale = arith::TruncFOp::create(b, loc, acc, scale);

    bool causal = op.getIsCausal();
    bool nanWhenUnattended = op->hasAttr(kNanWhenUnattendedAttrName);
    bool flags =
        mask &&
        cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1);
    SmallVector<OpFoldResult> outSizes(sizes.begin(), sizes.end());
    for (OpFoldResult &s : outSizes)
      s = getAsOpFoldResult(cast<Value>(s));
    outSizes.push_back(tensor::getMixedSize(b, loc, q, rq - 2));
    outSizes.push_back(tensor::getMixedSize(b, loc, v, rv - 1));
    if (type.getDimSize(rank - 1) == 0) { // rows of nothing
      rewriter.replaceOp(
          op, castTo(b, loc, emptyTensor(b, loc, outSizes, element), type));
      return success();
    }
    Value out = emptyTensor(b, loc, outSizes, acc);
    SmallVector<OpFoldResult> rowsOf(ArrayRef(outSizes).drop_back());
    if (!matchPattern(emptyOperand, m_Zero()))
      rowsOf.back() = arith::SelectOp::create(b, loc, emptyOperand,
                                              indexConstant(b, loc, 0),
                                              indexValue(b, loc, rowsOf.back()))
                          .getResult();
    const double inf = std::numeric_limits<double>::infinity();

    // Rows of static size up to kRegisterRow live in registers: the query
    // row loaded once, the output row accumulated as scalars (on the GPU,
    // a warp's threads then read each key's row at one address). Other
    // rows are read from the query where needed and accumulated in the
    // result's row.
    auto inRegisters = [](Value x, int64_t dim) {
      int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(dim);
      return !ShapedType::isDynamic(n) && n <= kRegisterRow;
    };
    const bool qInRegisters = inRegisters(q, rq - 1);
    const bool oInRegisters = inRegisters(v, rv - 1);
    const int64_t nE = cast<RankedTensorType>(q.getType()).getDimSize(rq - 1);
    const int64_t nEv = cast<RankedTensorType>(v.getType()).getDimSize(rv - 1);

    SmallVector<Value> result = forEachRow(
        b, loc, rowsOf, rank - 1, {out},
        [&](OpBuilder &b, Location l, ValueRange coords, ValueRange rows) {
          Value i = coords[batch];
          Value c0 = indexConstant(b, l, 0), c1 = indexConstant(b, l, 1);
          // Each operand's position in its batch dims (and the mask's row).
          auto prefix = [&](Value x, int64_t lead) {
            SmallVector<Value> at;
            for (int64_t od = 0; od + lead < rankOf(x); ++od) {
              int64_t d = od + rank - rankOf(x);
              at.push_back(broadcastCoord(b, l, x, od, staticSizes[d],
                                          d == batch ? i : coords[d]));
            }
            return at;
          };
          SmallVector<Value> qAt = prefix(q, 2), kAt = prefix(k, 2),
                             vAt = prefix(v, 2);
          SmallVector<Value> mAt =
              mask ? prefix(mask, 1) : SmallVector<Value>{};
          qAt.push_back(i);
          auto read = [&](OpBuilder &b, Location l, Value x, ArrayRef<Value> at,
                          Value last) {
            SmallVector<Value> indices(at);
            indices.push_back(last);
            Value e = tensor::ExtractOp::create(b, l, x, indices);
            return e.getType() == acc
                       ? e
                       : arith::ExtFOp::create(b, l, acc, e).getResult();
          };
          // fn over each element of a row: Ev scalars, or a tensor row
          // (one element).
          using ElementFn =
              function_ref<Value(OpBuilder &, Location, Value e, Value x)>;
          auto overRow = [&](OpBuilder &b, Location l, ValueRange row,
                             ElementFn fn) -> SmallVector<Value> {
            if (oInRegisters) {
              SmallVector<Value> next;
              for (auto [e, x] : llvm::enumerate(row))
                next.push_back(
                    fn(b, l, indexConstant(b, l, static_cast<int64_t>(e)), x));
              return next;
            }
            return {
                scf::ForOp::create(
                    b, l, c0, Ev, c1, row,
                    [&](OpBuilder &bb, Location ll, Value e, ValueRange iter) {
                      Value x = tensor::ExtractOp::create(bb, ll, iter[0], e);
                      scf::YieldOp::create(
                          bb, ll,
                          tensor::InsertOp::create(bb, ll, fn(bb, ll, e, x),
                                                   iter[0], e)
                              .getResult());
                    })
                    .getResult(0)};
          };
          Value zero = scalarConstant(b, l, acc, 0);
          Value minusInf = scalarConstant(b, l, acc, -inf);
          SmallVector<Value> start;
          if (oInRegisters)
            start.assign(nEv, zero);
          else
            start = overRow(
                b, l, rows[0],
                [&](OpBuilder &, Location, Value, Value) { return zero; });
          SmallVector<Value> qRow;
          if (qInRegisters)
            for (int64_t d = 0; d < nE; ++d)
              qRow.push_back(arith::MulFOp::create(
                  b, l, read(b, l, q, qAt, indexConstant(b, l, d)), scale));
          // Causal: key j attends query i when j <= i (top-left).
          Value n = keys;
          if (causal)
            n = arith::MinUIOp::create(b, l, n,
                                       arith::AddIOp::create(b, l, i, c1));
          SmallVector<Value> inits(start);
          inits.push_back(minusInf); // m
          inits.push_back(zero);     // l
          const size_t width = start.size();
          auto walk = scf::ForOp::create(
              b, l, c0, n, c1, inits,
              [&](OpBuilder &b, Location l, Value j, ValueRange iter) {
                SmallVector<Value> kj(kAt), vj(vAt);
                kj.push_back(j);
                vj.push_back(j);
                Value top = iter[width], sum = iter[width + 1];
                Value dot = zero;
                if (qInRegisters) {
                  for (int64_t d = 0; d < nE; ++d)
                    dot = arith::AddFOp::create(
                        b, l, dot,
                        arith::MulFOp::create(
                            b, l, qRow[d],
                            read(b, l, k, kj, indexConstant(b, l, d))));
                } else {
                  dot = scf::ForOp::create(
                            b, l, c0, E, c1, ValueRange{zero},
                            [&](OpBuilder &bb, Location ll, Value d,
                                ValueRange partial) {
                              Value p = arith::MulFOp::create(
                                  bb, ll,
                                  arith::MulFOp::create(
                                      bb, ll, read(bb, ll, q, qAt, d), scale),
                                  read(bb, ll, k, kj, d));
                              scf::YieldOp::create(
                                  bb, ll,
                                  arith::AddFOp::create(bb, ll, partial[0], p)
                                      .getResult());
                            })
                            .getResult(0);
                }
                Value s = dot;
                if (mask) {
                  SmallVector<Value> at(mAt);
                  if (rankOf(mask) > 0) // a 0-d mask holds one value for all
                    at.push_back(broadcastCoord(b, l, mask, rankOf(mask) - 1,
                                                scoreSizes[rank - 1], j));
                  Value m = tensor::ExtractOp::create(b, l, mask, at);
                  if (flags)
                    s = arith::SelectOp::create(b, l, m, s, minusInf);
                  else
                    s = arith::AddFOp::create(
                        b, l, s,
                        m.getType() == acc
                            ? m
                            : arith::ExtFOp::create(b, l, acc, m).getResult());
                }
                // A key scored -inf changes nothing; a NaN one does.
                Value attends = arith::CmpFOp::create(
                    b, l, arith::CmpFPredicate::UNE, s, minusInf);
                auto step = scf::IfOp::create(
                    b, l, attends,
                    [&](OpBuilder &b, Location l) {
                      Value next = arith::MaximumFOp::create(b, l, top, s);
                      Value alpha = math::ExpOp::create(
                          b, l, arith::SubFOp::create(b, l, top, next));
                      Value p = math::ExpOp::create(
                          b, l, arith::SubFOp::create(b, l, s, next));
                      SmallVector<Value> yields = overRow(
                          b, l, iter.take_front(width),
                          [&](OpBuilder &b, Location l, Value e, Value o) {
                            return arith::AddFOp::create(
                                b, l, arith::MulFOp::create(b, l, o, alpha),
                                arith::MulFOp::create(b, l, p,
                                                      read(b, l, v, vj, e)));
                          });
                      yields.push_back(next);
                      yields.push_back(arith::AddFOp::create(
                          b, l, arith::MulFOp::create(b, l, sum, alpha), p));
                      scf::YieldOp::create(b, l, yields);
                    },
                    [&](OpBuilder &b, Location l) {
                      scf::YieldOp::create(b, l, iter);
                    });
                scf::YieldOp::create(b, l, step.getResults());
              });
          Value sum = walk.getResult(width + 1);
          // A query that attended to no key (its sum exactly 0) gives
          // zeros, or what o / l gives where the softmax was written out; a
          // NaN sum gives NaN.
          Value inv =
              arith::DivFOp::create(b, l, scalarConstant(b, l, acc, 1), sum);
          Value attended =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, sum, zero);
          SmallVector<Value> done =
              overRow(b, l, walk.getResults().take_front(width),
                      [&](OpBuilder &b, Location l, Value, Value o) -> Value {
                        Value x = arith::MulFOp::create(b, l, o, inv);
                        if (nanWhenUnattended)
                          return x;
                        return arith::SelectOp::create(b, l, attended, x, zero);
                      });
          if (!oInRegisters)
            return done;
          Value row = rows[0];
          for (auto [e, x] : llvm::enumerate(done))
            row = tensor::InsertOp::create(
                b, l, x, row, indexConstant(b, l, static_cast<int64_t>(e)));
          return SmallVector<Value>{row};
        });
    Value o = result[0];
    if (acc != element) // float16 and bfloat16 accumulate in float32
      o = buildGeneric(b, loc, outSizes, element, {o},
                       {b.getMultiDimIdentityMap(rank)},
                       [&](OpBuilder &b, Location l, ValueRange x) -> Value {
                         return arith::TruncFOp::create(b, l, element, x[0]);
                       });
    rewriter.replaceOp(op, castTo(b, loc, o, type));
    return success();
  }
};

} // namespace

void mlir::kiln::populateAttentionToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<AttentionToLoops>(patterns.getContext());
}
