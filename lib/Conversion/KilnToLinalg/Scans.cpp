//===- Scans.cpp - kiln ops that walk a dim in order ----------------------===//
//
// cumsum, cumprod, topk and scatter_add carry a state from one element of a
// dim to the next, which no linalg op expresses. Each is one scf.forall
// over the other dims' positions (parallel: threads on the CPU, one GPU
// thread each) whose body walks its row serially with scf.for, in exactly
// the runtime's order, so that results match eager's bit for bit. Work is
// linear in the row for the scans and scatter_add, k times the row for
// topk.
//
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

/// Whether `size` is a constant 0: rows along such a dim are empty, and a
/// slice of them would not verify (a static offset 0 into a 0-size dim).
bool isZero(OpFoldResult size) {
  std::optional<int64_t> n = getConstantIntValue(size);
  return n && *n == 0;
}

/// A floating element widened to f64, or an integer as it is.
Value widen(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return arith::ExtFOp::create(b, loc, to, v);
}

/// An accumulator narrowed to the result's float type. float16 and
/// bfloat16 go through float32, as the runtime converts them (a double
/// rounded once to float16 can differ from one rounded through float).
Value narrow(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  if ((to.isF16() || to.isBF16()) && v.getType().isF64())
    v = arith::TruncFOp::create(b, loc, b.getF32Type(), v);
  return arith::TruncFOp::create(b, loc, to, v);
}

template <typename OpTy, bool Product>
struct CumulativeToLoops : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getType());
    if (type.getRank() == 0) { // one element: the scan is the element
      rewriter.replaceOp(op, x);
      return success();
    }
    int64_t dim = op.getDim();
    Type element = type.getElementType();
    bool floating = isa<FloatType>(element);
    Type acc = floating ? Type(rewriter.getF64Type()) : element;
    Value init = emptyTensor(rewriter, loc,
                             tensor::getMixedSizes(rewriter, loc, x), element);
    if (isZero(tensor::getMixedSize(rewriter, loc, x, dim))) {
      rewriter.replaceOp(op, castTo(rewriter, loc, init, type));
      return success();
    }
    SmallVector<Value> result = forEachRow(
        rewriter, loc, otherExtents(rewriter, loc, x, dim), dim, {init},
        [&](OpBuilder &b, Location l, ValueRange coords, ValueRange rows) {
          OpFoldResult n = tensor::getMixedSize(b, l, x, dim);
          Value in = rowOf(b, l, x, dim, coords, n);
          Value start = scalarConstant(b, l, acc, Product ? 1 : 0);
          auto loop = scf::ForOp::create(
              b, l, indexConstant(b, l, 0),
              getValueOrCreateConstantIndexOp(b, l, n), indexConstant(b, l, 1),
              ValueRange{rows[0], start},
              [&](OpBuilder &bb, Location ll, Value j, ValueRange iter) {
                Value v = widen(bb, ll,
                                tensor::ExtractOp::create(bb, ll, in, j), acc);
                Value next =
                    Product
                        ? (floating ? Value(arith::MulFOp::create(bb, ll,
                                                                  iter[1], v))
                                    : Value(arith::MulIOp::create(bb, ll,
                                                                  iter[1], v)))
                        : (floating ? Value(arith::AddFOp::create(bb, ll,
                                                                  iter[1], v))
                                    : Value(arith::AddIOp::create(bb, ll,
                                                                  iter[1], v)));
                Value row = tensor::InsertOp::create(
                    bb, ll, narrow(bb, ll, next, element), iter[0], j);
                scf::YieldOp::create(bb, ll, ValueRange{row, next});
              });
          return SmallVector<Value>{loop.getResult(0)};
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result[0], type));
    return success();
  }
};

/// Whether (va, ia) comes before (vb, ib) in topk's order: better values
/// first (NaN the largest), equal values by index.
Value comesBefore(OpBuilder &b, Location loc, bool largest, Value va, Value ia,
                  Value vb, Value ib) {
  Value indexFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ia, ib);
  if (!isa<FloatType>(va.getType())) {
    Value better = arith::CmpIOp::create(
        b, loc, largest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
        va, vb);
    Value equal =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, va, vb);
    return arith::OrIOp::create(
        b, loc, better, arith::AndIOp::create(b, loc, equal, indexFirst));
  }
  using P = arith::CmpFPredicate;
  Value nanA = arith::CmpFOp::create(b, loc, P::UNO, va, va);
  Value nanB = arith::CmpFOp::create(b, loc, P::UNO, vb, vb);
  Value better =
      arith::CmpFOp::create(b, loc, largest ? P::OGT : P::OLT, va, vb);
  // A NaN beats a number when largest, loses to one otherwise.
  Value nanOrder =
      largest
          ? arith::AndIOp::create(
                b, loc, nanA,
                arith::XOrIOp::create(
                    b, loc, nanB, arith::ConstantIntOp::create(b, loc, 1, 1)))
          : arith::AndIOp::create(
                b, loc, nanB,
                arith::XOrIOp::create(
                    b, loc, nanA, arith::ConstantIntOp::create(b, loc, 1, 1)));
  Value equal = arith::OrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OEQ, va, vb),
      arith::AndIOp::create(b, loc, nanA, nanB));
  return arith::OrIOp::create(b, loc,
                              arith::OrIOp::create(b, loc, nanOrder, better),
                              arith::AndIOp::create(b, loc, equal, indexFirst));
}

struct TopkToLoops : OpConversionPattern<TopkOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopkOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), k = adaptor.getK();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t dim = op.getDim();
    bool largest = op.getLargest();
    Value zero = indexConstant(rewriter, loc, 0),
          one = indexConstant(rewriter, loc, 1);
    if (type.getRank() == 0) { // one element: its index, with k = 1
      emitShapeCheck(rewriter, loc,
                     arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::eq, k, one),
                     "topk: k must be 1 for a 0-d tensor");
      Value index = tensor::FromElementsOp::create(
          rewriter, loc, type,
          ValueRange{arith::ConstantIntOp::create(rewriter, loc, 0, 64)});
      rewriter.replaceOp(op, index);
      return success();
    }
    Value n = tensor::DimOp::create(rewriter, loc, x, dim);
    using P = arith::CmpIPredicate;
    emitShapeCheck(rewriter, loc,
                   arith::AndIOp::create(
                       rewriter, loc,
                       arith::CmpIOp::create(rewriter, loc, P::sge, k, zero),
                       arith::CmpIOp::create(rewriter, loc, P::sle, k, n)),
                   "topk: k is out of range for the dim");
    // Clamped, so that a failed check still allocates and reads in bounds.
    Value count = arith::MinSIOp::create(
        rewriter, loc, arith::MaxSIOp::create(rewriter, loc, k, zero), n);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, x);
    sizes[dim] = count;
    Value init = emptyTensor(rewriter, loc, sizes, rewriter.getI64Type());
    if (isZero(tensor::getMixedSize(rewriter, loc, x, dim))) {
      rewriter.replaceOp(op, castTo(rewriter, loc, init, type));
      return success();
    }
    Type valueType = cast<RankedTensorType>(x.getType()).getElementType();
    SmallVector<Value> result = forEachRow(
        rewriter, loc, otherExtents(rewriter, loc, x, dim), dim, {init},
        [&](OpBuilder &b, Location l, ValueRange coords, ValueRange rows) {
          Value in = rowOf(b, l, x, dim, coords, n);
          Value none = arith::ConstantIntOp::create(b, l, -1, 64);
          Value anyValue = scalarConstant(b, l, valueType, 0);
          // Pick t: the best element after pick t - 1.
          auto picks = scf::ForOp::create(
              b, l, zero, count, one, ValueRange{rows[0], anyValue, none},
              [&](OpBuilder &bb, Location ll, Value t, ValueRange last) {
                Value first =
                    arith::CmpIOp::create(bb, ll, P::eq, last[2], none);
                auto scan = scf::ForOp::create(
                    bb, ll, zero, n, one, ValueRange{anyValue, none},
                    [&](OpBuilder &s, Location sl, Value j, ValueRange best) {
                      Value v = tensor::ExtractOp::create(s, sl, in, j);
                      Value jj =
                          arith::IndexCastOp::create(s, sl, s.getI64Type(), j);
                      Value after = arith::OrIOp::create(
                          s, sl, first,
                          comesBefore(s, sl, largest, last[1], last[2], v, jj));
                      Value better = arith::OrIOp::create(
                          s, sl,
                          arith::CmpIOp::create(s, sl, P::eq, best[1], none),
                          comesBefore(s, sl, largest, v, jj, best[0], best[1]));
                      Value take = arith::AndIOp::create(s, sl, after, better);
                      scf::YieldOp::create(
                          s, sl,
                          ValueRange{
                              arith::SelectOp::create(s, sl, take, v, best[0]),
                              arith::SelectOp::create(s, sl, take, jj,
                                                      best[1])});
                    });
                Value row = tensor::InsertOp::create(bb, ll, scan.getResult(1),
                                                     last[0], t);
                scf::YieldOp::create(
                    bb, ll,
                    ValueRange{row, scan.getResult(0), scan.getResult(1)});
              });
          return SmallVector<Value>{picks.getResult(0)};
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result[0], type));
    return success();
  }
};

struct ScatterAddToLoops : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), index = adaptor.getIndex(),
          src = adaptor.getSrc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), dim = op.getDim();
    Type element = type.getElementType();
    if (rank == 0) { // one element: x + src, where the index must be 0
      checkIds(rewriter, loc, index, indexConstant(rewriter, loc, 1),
               "scatter_add: index out of range");
      rewriter.replaceOp(
          op, buildElementwise(
                  rewriter, loc, ValueRange{x, src}, type,
                  [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                    return isa<FloatType>(element)
                               ? Value(arith::AddFOp::create(b, l, a[0], a[1]))
                               : Value(arith::AddIOp::create(b, l, a[0], a[1]));
                  }));
      return success();
    }
    using P = arith::CmpIPredicate;
    // The shape rules eager checks; the loops below run over the smallest
    // extents, so that a failed check still reads in bounds.
    SmallVector<OpFoldResult> extents;
    OpFoldResult length;
    for (int64_t k = 0; k < rank; ++k) {
      Value ik = rewriter.createOrFold<tensor::DimOp>(loc, index, k);
      Value sk = rewriter.createOrFold<tensor::DimOp>(loc, src, k);
      Value xk = rewriter.createOrFold<tensor::DimOp>(loc, x, k);
      emitShapeCheck(rewriter, loc,
                     arith::CmpIOp::create(rewriter, loc, P::sle, ik, sk),
                     "scatter_add: the index is larger than src");
      Value extent = rewriter.createOrFold<arith::MinSIOp>(loc, ik, sk);
      if (k != dim) {
        emitShapeCheck(rewriter, loc,
                       arith::CmpIOp::create(rewriter, loc, P::sle, ik, xk),
                       "scatter_add: the index is larger than the input "
                       "outside dim");
        extents.push_back(
            rewriter.createOrFold<arith::MinSIOp>(loc, extent, xk));
      } else {
        length = extent;
      }
    }
    Value rows = tensor::DimOp::create(rewriter, loc, x, dim);
    checkIds(rewriter, loc, index, rows, "scatter_add: index out of range");
    // float16 and bfloat16 accumulate in float32, as the runtime does.
    Type acc = element.isF16() || element.isBF16() ? Type(rewriter.getF32Type())
                                                   : element;
    auto accType = RankedTensorType::get(type.getShape(), acc);
    Value start =
        acc == element
            ? x
            : buildElementwise(
                  rewriter, loc, x, accType,
                  [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                    return arith::ExtFOp::create(b, l, acc, a[0]);
                  });
    if (isZero(length) || isZero(tensor::getMixedSize(rewriter, loc, x, dim))) {
      rewriter.replaceOp(op, castTo(rewriter, loc, x, type));
      return success();
    }
    Value zero = indexConstant(rewriter, loc, 0),
          one = indexConstant(rewriter, loc, 1);
    SmallVector<Value> result = forEachRow(
        rewriter, loc, extents, dim, {start},
        [&](OpBuilder &b, Location l, ValueRange coords, ValueRange out) {
          Value ids = rowOf(b, l, index, dim, coords, length);
          Value from = rowOf(b, l, src, dim, coords, length);
          auto loop = scf::ForOp::create(
              b, l, zero, getValueOrCreateConstantIndexOp(b, l, length), one,
              ValueRange{out[0]},
              [&](OpBuilder &bb, Location ll, Value r, ValueRange iter) {
                Value at = clampedIndex(
                    bb, ll, tensor::ExtractOp::create(bb, ll, ids, r), rows);
                Value s = widen(
                    bb, ll, tensor::ExtractOp::create(bb, ll, from, r), acc);
                Value cur = tensor::ExtractOp::create(bb, ll, iter[0], at);
                Value sum = isa<FloatType>(acc)
                                ? Value(arith::AddFOp::create(bb, ll, cur, s))
                                : Value(arith::AddIOp::create(bb, ll, cur, s));
                scf::YieldOp::create(bb, ll,
                                     ValueRange{tensor::InsertOp::create(
                                         bb, ll, sum, iter[0], at)});
              });
          return SmallVector<Value>{loop.getResult(0)};
        });
    Value out = result[0];
    if (acc != element)
      out = buildElementwise(
          rewriter, loc, out, type,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::TruncFOp::create(b, l, element, a[0]);
          });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, type));
    return success();
  }
};

} // namespace

void mlir::kiln::populateScansToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<CumulativeToLoops<CumsumOp, false>,
           CumulativeToLoops<CumprodOp, true>, TopkToLoops, ScatterAddToLoops>(
          patterns.getContext());
}
