//===- Builders.cpp - linalg builders the patterns share ------------------===//
#include "Builders.h"
#include "Broadcast.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {
/// The offsets, sizes and strides of a row of a rank-`rank` tensor: along
/// `dim` from 0, `length` long, at `coords` (the other dims' positions, in
/// order).
struct RowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RowSlice(OpBuilder &b, int64_t rank, int64_t dim, ValueRange coords,
           OpFoldResult length)
      : strides(rank, b.getIndexAttr(1)) {
    for (int64_t k = 0, c = 0; k < rank; ++k) {
      offsets.push_back(k == dim ? OpFoldResult(b.getIndexAttr(0))
                                 : OpFoldResult(coords[c++]));
      sizes.push_back(k == dim ? length : OpFoldResult(b.getIndexAttr(1)));
    }
  }
};

} // namespace

namespace mlir::kiln::detail {

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value dimProduct(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> dims) {
  Value n = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d : dims)
    n = arith::MulIOp::create(b, loc, n,
                              tensor::DimOp::create(b, loc, input, d));
  return n;
}

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type
             ? v
             : tensor::CastOp::create(b, loc, type, v).getResult();
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  if (auto value = dyn_cast<Value>(ofr))
    return value;
  return arith::ConstantIndexOp::create(
      b, loc, cast<IntegerAttr>(cast<Attribute>(ofr)).getInt());
}

SmallVector<OpFoldResult> mixedSizesOf(OpBuilder &b, ShapedType type,
                                       ValueRange dynamicSizes) {
  SmallVector<OpFoldResult> mixed;
  auto next = dynamicSizes.begin();
  for (int64_t s : type.getShape())
    mixed.push_back(ShapedType::isDynamic(s) ? OpFoldResult(*next++)
                                             : OpFoldResult(b.getIndexAttr(s)));
  return mixed;
}

ReductionShape reductionShape(OpBuilder &b, Location loc, Value input,
                              ArrayRef<int64_t> dims, bool keepdim) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  ReductionShape shape;
  shape.reduced.assign(rank, dims.empty());
  for (int64_t d : dims)
    shape.reduced[d] = true;
  for (int64_t d = 0; d < rank; ++d) {
    shape.iterators.push_back(shape.reduced[d] ? utils::IteratorType::reduction
                                               : utils::IteratorType::parallel);
    if (!shape.reduced[d]) {
      shape.outSizes.push_back(tensor::getMixedSize(b, loc, input, d));
      shape.outExprs.push_back(b.getAffineDimExpr(d));
    } else if (keepdim) {
      shape.outSizes.push_back(b.getIndexAttr(1));
      shape.outExprs.push_back(b.getAffineConstantExpr(0));
    }
  }
  return shape;
}

Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> dims, bool keepdim, ReduceKind kind,
                     Type accType) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  ReductionShape shape = reductionShape(b, loc, input, dims, keepdim);
  SmallVector<OpFoldResult> &outSizes = shape.outSizes;
  SmallVector<AffineExpr> &outExprs = shape.outExprs;
  SmallVector<utils::IteratorType> &iterators = shape.iterators;
  Value empty = emptyTensor(b, loc, outSizes, accType);
  Value initValue;
  if (kind == ReduceKind::Sum || kind == ReduceKind::Prod) {
    initValue =
        scalarConstant(b, loc, accType, kind == ReduceKind::Sum ? 0 : 1);
  } else if (isa<FloatType>(accType)) {
    initValue = scalarConstant(b, loc, accType,
                               kind == ReduceKind::Min ? INFINITY : -INFINITY);
  } else {
    unsigned bits = accType.getIntOrFloatBitWidth();
    APInt v = kind == ReduceKind::Min ? APInt::getSignedMaxValue(bits)
                                      : APInt::getSignedMinValue(bits);
    initValue = arith::ConstantOp::create(b, loc, b.getIntegerAttr(accType, v));
  }
  Value filled = linalg::FillOp::create(b, loc, initValue, empty).getResult(0);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outExprs, b.getContext())};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{filled.getType()}, ValueRange{input},
      ValueRange{filled}, maps, iterators,
      [&](OpBuilder &bb, Location l, ValueRange args) {
        Value x = args[0], acc = args[1];
        if (x.getType() != accType)
          x = isa<FloatType>(accType)
                  ? Value(arith::ExtFOp::create(bb, l, accType, x))
                  : Value(arith::ExtSIOp::create(bb, l, accType, x));
        Value r;
        bool isFloat = isa<FloatType>(accType);
        switch (kind) {
        case ReduceKind::Sum:
          // reassoc: the order of a float sum is free, so that it vectorizes.
          r = isFloat ? Value(arith::AddFOp::create(
                            bb, l, acc, x, arith::FastMathFlags::reassoc))
                      : Value(arith::AddIOp::create(bb, l, acc, x));
          break;
        case ReduceKind::Prod:
          r = isFloat ? Value(arith::MulFOp::create(bb, l, acc, x))
                      : Value(arith::MulIOp::create(bb, l, acc, x));
          break;
        case ReduceKind::Max:
          r = isFloat ? Value(arith::MaximumFOp::create(bb, l, acc, x))
                      : Value(arith::MaxSIOp::create(bb, l, acc, x));
          break;
        case ReduceKind::MaxNum:
          r = isFloat ? Value(arith::MaxNumFOp::create(bb, l, acc, x))
                      : Value(arith::MaxSIOp::create(bb, l, acc, x));
          break;
        case ReduceKind::Min:
          r = isFloat ? Value(arith::MinimumFOp::create(bb, l, acc, x))
                      : Value(arith::MinSIOp::create(bb, l, acc, x));
          break;
        }
        linalg::YieldOp::create(bb, l, r);
      });
  return generic.getResult(0);
}

Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Type elementType, ValueRange operands,
                   ArrayRef<AffineMap> maps, ScalarFn fn) {
  int64_t rank = static_cast<int64_t>(sizes.size());
  Value init = emptyTensor(b, loc, sizes, elementType);
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(rank));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, operands, ValueRange{init},
             allMaps, parallelIterators(rank),
             [&](OpBuilder &bb, Location l, ValueRange args) {
               linalg::YieldOp::create(bb, l, fn(bb, l, args.drop_back()));
             })
      .getResult(0);
}

AffineMap projectOut(MLIRContext *context, int64_t rank,
                     ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dropped, d))
      exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// Whether any id lies outside [0, rows): a reduction to one i1, then a
/// shape check on it. Ids are clamped where they are used, so that a failed
/// check reads in bounds.
void checkIds(OpBuilder &b, Location loc, Value ids, Value rows,
              StringRef message) {
  auto type = cast<RankedTensorType>(ids.getType());
  int64_t rank = type.getRank();
  Value falseValue = scalarConstant(b, loc, b.getI1Type(), 0);
  Value init = linalg::FillOp::create(b, loc, falseValue,
                                      emptyTensor(b, loc, {}, b.getI1Type()))
                   .getResult(0);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, {}, b.getContext())};
  Value rowsI = arith::IndexCastOp::create(b, loc, type.getElementType(), rows);
  Value bad =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{ids}, ValueRange{init},
          maps, iterators,
          [&](OpBuilder &bb, Location l, ValueRange args) {
            Value zero = scalarConstant(bb, l, args[0].getType(), 0);
            Value lo = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::slt,
                                             args[0], zero);
            Value hi = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sge,
                                             args[0], rowsI);
            linalg::YieldOp::create(
                bb, l,
                arith::OrIOp::create(bb, l, args[1],
                                     arith::OrIOp::create(bb, l, lo, hi))
                    .getResult());
          })
          .getResult(0);
  Value flag = tensor::ExtractOp::create(b, loc, bad, ValueRange{});
  Value ok = arith::XOrIOp::create(b, loc, flag,
                                   scalarConstant(b, loc, b.getI1Type(), 1));
  emitShapeCheck(b, loc, ok, message);
}

/// An id as an index clamped into [0, rows - 1].
Value clampedIndex(OpBuilder &b, Location loc, Value id, Value rows) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, rows,
                                     arith::ConstantIndexOp::create(b, loc, 1));
  return arith::MaxSIOp::create(b, loc, zero,
                                arith::MinSIOp::create(b, loc, i, last));
}

Value anyEmptyAlong(OpBuilder &b, Location loc, Value table,
                    ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(table.getType());
  Value any;
  for (int64_t dim : dims) {
    if (!type.isDynamicDim(dim))
      continue;
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              tensor::DimOp::create(b, loc, table, dim),
                              arith::ConstantIndexOp::create(b, loc, 0));
    any = any ? arith::OrIOp::create(b, loc, any, empty).getResult() : empty;
  }
  return any;
}

Value extractUnlessEmpty(OpBuilder &b, Location loc, Value table, ValueRange at,
                         Value empty) {
  if (!empty)
    return tensor::ExtractOp::create(b, loc, table, at);
  Type element = cast<RankedTensorType>(table.getType()).getElementType();
  return scf::IfOp::create(
             b, loc, empty,
             [&](OpBuilder &bb, Location l) {
               scf::YieldOp::create(bb, l, scalarConstant(bb, l, element, 0));
             },
             [&](OpBuilder &bb, Location l) {
               scf::YieldOp::create(
                   bb, l,
                   tensor::ExtractOp::create(bb, l, table, at).getResult());
             })
      .getResult(0);
}

Value rowOf(OpBuilder &b, Location loc, Value source, int64_t dim,
            ValueRange coords, OpFoldResult length) {
  if (auto v = dyn_cast<Value>(length)) // a constant as an attribute
    length = getAsOpFoldResult(v);
  auto type = cast<RankedTensorType>(source.getType());
  RowSlice slice(b, type.getRank(), dim, coords, length);
  std::optional<int64_t> n = getConstantIntValue(length);
  auto rowType = RankedTensorType::get({n ? *n : ShapedType::kDynamic},
                                       type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, rowType, source, slice.offsets,
                                        slice.sizes, slice.strides);
}

SmallVector<Value> forEachRow(OpBuilder &b, Location loc,
                              ArrayRef<OpFoldResult> extents, int64_t dim,
                              ValueRange outs, RowFn fn) {
  SmallVector<OpFoldResult> bounds(extents);
  bool none = bounds.empty();
  if (none)
    bounds.push_back(b.getIndexAttr(1));
  auto forall = scf::ForallOp::create(b, loc, bounds, outs, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  SmallVector<Value> coords;
  if (!none)
    coords = forall.getInductionVars();
  SmallVector<Value> rows;
  SmallVector<OpFoldResult> lengths;
  for (auto [out, shared] : llvm::zip(outs, forall.getRegionIterArgs())) {
    OpFoldResult length = tensor::getMixedSize(b, loc, out, dim);
    if (auto v = dyn_cast<Value>(length))
      length = getAsOpFoldResult(v);
    lengths.push_back(length);
    rows.push_back(rowOf(b, loc, shared, dim, coords, lengths.back()));
  }
  SmallVector<Value> written = fn(b, loc, coords, rows);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [row, shared, length] :
       llvm::zip(written, forall.getRegionIterArgs(), lengths)) {
    RowSlice slice(b, cast<RankedTensorType>(shared.getType()).getRank(), dim,
                   coords, length);
    tensor::ParallelInsertSliceOp::create(b, loc, row, shared, slice.offsets,
                                          slice.sizes, slice.strides);
  }
  return SmallVector<Value>(forall.getResults());
}

SmallVector<OpFoldResult> otherExtents(OpBuilder &b, Location loc, Value v,
                                       int64_t dim) {
  SmallVector<OpFoldResult> extents;
  auto type = cast<RankedTensorType>(v.getType());
  for (int64_t k = 0; k < type.getRank(); ++k)
    if (k != dim)
      extents.push_back(tensor::getMixedSize(b, loc, v, k));
  return extents;
}

} // namespace mlir::kiln::detail
