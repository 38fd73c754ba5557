//===- Broadcast.cpp - Broadcasting and shape checks ----------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::kiln;

namespace mlir::kiln::detail {

std::pair<Value, int64_t> dimSource(Value v, int64_t dim) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return {v, dim};
  if (auto castOp = dyn_cast<tensor::CastOp>(op))
    return dimSource(castOp.getSource(), dim);
  // A slice's dynamic size is its own source: slices cut to one size value
  // agree (see agreeOnDim).
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (slice.getSourceType().getRank() == slice.getType().getRank()) {
      OpFoldResult size = slice.getMixedSizes()[dim];
      if (auto value = dyn_cast<Value>(size))
        return {value, -1};
    }
    return {v, dim};
  }
  // Converted ops: a linalg result has its init's sizes, and a tensor.empty
  // has the sizes it was given; a size that is a tensor.dim leads on, any
  // other size value stands for itself (dim -1).
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dimSource(dps.getTiedOpOperand(cast<OpResult>(v))->get(), dim);
  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    if (!empty.getType().isDynamicDim(dim))
      return {v, dim};
    Value size = empty.getDynamicSize(dim);
    if (auto dimOp = size.getDefiningOp<tensor::DimOp>())
      if (std::optional<int64_t> index = dimOp.getConstantIndex())
        return dimSource(dimOp.getSource(), *index);
    return {size, -1};
  }
  // kiln ops whose result has the shape of their first operand.
  if (op->hasTrait<OpTrait::SameOperandsAndResultShape>() ||
      op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      isa<LayerNormOp, RmsNormOp>(op))
    return dimSource(op->getOperand(0), dim);
  // kiln broadcasting ops: follow the operands that carry the dim; if they
  // all agree on a source, so does the result.
  if (isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, CmpOp,
          WhereOp>(op)) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    std::optional<std::pair<Value, int64_t>> common;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t od = dim - (rank - type.getRank());
      if (od < 0 || type.getDimSize(od) == 1)
        continue;
      auto source = dimSource(operand, od);
      if (common && *common != source)
        return {v, dim};
      common = source;
    }
    if (common)
      return *common;
  }
  return {v, dim};
}

void emitShapeCheck(OpBuilder &b, Location loc, Value cond, StringRef message) {
  cf::AssertOp::create(b, loc, cond, message);
}

namespace {
/// An operand's dim contributing to a result dim (its size is not static 1).
struct Contributor {
  Value operand;
  int64_t dim;
};
} // namespace

Value sliceDim(OpBuilder &b, Location loc, Value v, int64_t dim, Value size) {
  auto type = cast<RankedTensorType>(v.getType());
  // A tensor with a static empty dim has no element to read past: it stays
  // as it is (a slice of it would not verify, offset 0 being past the
  // empty dim's end).
  if (llvm::is_contained(type.getShape(), 0))
    return v;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes[dim] = size;
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

void agreeOnDims(OpBuilder &b, Location loc,
                 MutableArrayRef<std::pair<Value, int64_t>> dims,
                 StringRef message) {
  bool allStatic = llvm::all_of(dims, [](const std::pair<Value, int64_t> &d) {
    return !cast<RankedTensorType>(d.first.getType()).isDynamicDim(d.second);
  });
  auto source = dimSource(dims[0].first, dims[0].second);
  bool same = llvm::all_of(dims, [&](const std::pair<Value, int64_t> &d) {
    return dimSource(d.first, d.second) == source;
  });
  if (allStatic || same)
    return;
  Value first = tensor::DimOp::create(b, loc, dims[0].first, dims[0].second);
  Value size = first;
  for (auto &d : dims.drop_front()) {
    Value other = tensor::DimOp::create(b, loc, d.first, d.second);
    emitShapeCheck(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first, other),
        message);
    size = arith::MinUIOp::create(b, loc, size, other);
  }
  for (auto &d : dims)
    d.first = sliceDim(b, loc, d.first, d.second, size);
}

std::pair<Value, Value> agreeOnDim(OpBuilder &b, Location loc, Value x,
                                   int64_t dx, Value y, int64_t dy,
                                   StringRef message) {
  SmallVector<std::pair<Value, int64_t>> dims = {{x, dx}, {y, dy}};
  agreeOnDims(b, loc, dims, message);
  return {dims[0].first, dims[1].first};
}

Value broadcastSize(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value r = one;
  for (Value size : sizes) {
    Value rIsOne =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, one);
    Value cIsOne =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one);
    Value smaller = arith::MinUIOp::create(b, loc, r, size);
    r = arith::SelectOp::create(
        b, loc, rIsOne, size,
        arith::SelectOp::create(b, loc, cIsOne, r, smaller));
  }
  return r;
}

namespace {
using DimRef = std::pair<Value, int64_t>;

/// The sizes broadcastSize combined into r (its select chain, read back),
/// or none when r is not one of its results.
SmallVector<Value> broadcastLeaves(Value r) {
  SmallVector<Value> leaves;
  while (true) {
    if (std::optional<int64_t> c = getConstantIntValue(r); c && *c == 1)
      return leaves;
    // r = select(r' == 1, size, select(size == 1, r', minui(r', size)))
    auto outer = r.getDefiningOp<arith::SelectOp>();
    if (!outer)
      return {};
    auto inner = outer.getFalseValue().getDefiningOp<arith::SelectOp>();
    if (!inner)
      return {};
    auto smaller = inner.getFalseValue().getDefiningOp<arith::MinUIOp>();
    Value size = outer.getTrueValue(), prev = inner.getTrueValue();
    if (!smaller || smaller.getLhs() != prev || smaller.getRhs() != size)
      return {};
    leaves.push_back(size);
    r = prev;
  }
}

/// The operand dims a dim source stands for: a broadcast size's leaves'
/// (each one's own, recursively), or itself.
void expandSource(DimRef source, SmallVectorImpl<DimRef> &into) {
  if (source.second == -1)
    if (SmallVector<Value> leaves = broadcastLeaves(source.first);
        !leaves.empty()) {
      for (Value leaf : leaves) {
        DimRef s = {leaf, -1};
        if (auto dimOp = leaf.getDefiningOp<tensor::DimOp>())
          if (std::optional<int64_t> index = dimOp.getConstantIndex())
            s = dimSource(dimOp.getSource(), *index);
        expandSource(s, into);
      }
      return;
    }
  if (!llvm::is_contained(into, source))
    into.push_back(source);
}
/// The run-time size of a dim source (a tensor's dim, or a size value):
/// the source itself, so that a chain of results sized from one source
/// does not lead dimSource through every link.
Value sourceSize(OpBuilder &b, Location loc, DimRef source) {
  if (source.second < 0)
    return source.first;
  return tensor::DimOp::create(b, loc, source.first, source.second);
}
} // namespace

Value checkedEqualSize(OpBuilder &b, Location loc, Value a, Value bSize,
                       StringRef message) {
  emitShapeCheck(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, bSize),
      message);
  return arith::MinUIOp::create(b, loc, a, bSize);
}

// One scf.if for all of v's dims: the copy is made only when one of them is
// smaller at run time. When one of them is 0 there is no element to
// broadcast, and nothing to copy: the result has no element either (a 0
// broadcasts only to 0), or a shape check failed and its values are never
// read, so it stays uninitialized rather than costing a fill's loop nest.
Value broadcastDimsIfSmaller(OpBuilder &b, Location loc, Value v,
                             ArrayRef<int64_t> dims, ArrayRef<Value> rs) {
  assert(dims.size() == rs.size() && !dims.empty());
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> cs;
  Value smaller;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  for (auto [dim, r] : llvm::zip(dims, rs)) {
    Value c = tensor::DimOp::create(b, loc, v, dim);
    cs.push_back(c);
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, r);
    smaller = smaller ? arith::OrIOp::create(b, loc, smaller, lt) : lt;
    sizes[dim] = r;
  }
  auto ifOp = scf::IfOp::create(
      b, loc, smaller,
      [&](OpBuilder &then, Location l) {
        Value zero = arith::ConstantIndexOp::create(then, l, 0);
        Value isEmpty;
        for (Value c : cs) {
          Value eq =
              arith::CmpIOp::create(then, l, arith::CmpIPredicate::eq, c, zero);
          isEmpty = isEmpty ? arith::OrIOp::create(then, l, isEmpty, eq) : eq;
        }
        auto inner = scf::IfOp::create(
            then, l, isEmpty,
            [&](OpBuilder &e, Location l2) {
              Value empty = emptyTensor(e, l2, sizes, type.getElementType());
              scf::YieldOp::create(e, l2, castTo(e, l2, empty, type));
            },
            [&](OpBuilder &e, Location l2) {
              // Every element of the result reads v at its own index, or at
              // min(index, c - 1) along the dims: 0 where c is 1 (the
              // broadcast), the index itself where c is r.
              Value one = arith::ConstantIndexOp::create(e, l2, 1);
              SmallVector<Value> lasts;
              for (Value c : cs)
                lasts.push_back(arith::SubIOp::create(e, l2, c, one));
              Value empty = emptyTensor(e, l2, sizes, type.getElementType());
              auto copy =
                  linalg::GenericOp::create(
                      e, l2, TypeRange{empty.getType()}, ValueRange{},
                      ValueRange{empty}, e.getMultiDimIdentityMap(rank),
                      parallelIterators(rank),
                      [&](OpBuilder &bb, Location l3, ValueRange) {
                        SmallVector<Value> index;
                        for (int64_t d = 0; d < rank; ++d)
                          index.push_back(linalg::IndexOp::create(bb, l3, d));
                        for (auto [dim, last] : llvm::zip(dims, lasts))
                          index[dim] =
                              arith::MinUIOp::create(bb, l3, index[dim], last);
                        Value x = tensor::ExtractOp::create(bb, l3, v, index);
                        linalg::YieldOp::create(bb, l3, x);
                      });
              copy->setAttr(kBroadcastCopyAttrName, e.getUnitAttr());
              Value bcast = copy.getResult(0);
              scf::YieldOp::create(e, l2, castTo(e, l2, bcast, type));
            });
        scf::YieldOp::create(then, l, inner.getResult(0));
      },
      [&](OpBuilder &other, Location l) { scf::YieldOp::create(other, l, v); });
  // Exactly r along each dim, also when the operand is larger (a failed
  // check): linalg takes loop bounds from its operands, so none may be
  // longer than r.
  Value result = ifOp.getResult(0);
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sliceSizes = tensor::getMixedSizes(b, loc, result);
  for (auto [dim, r] : llvm::zip(dims, rs))
    sliceSizes[dim] = r;
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, result, offsets, sliceSizes,
                                        strides);
}

Value broadcastDimsChecked(OpBuilder &b, Location loc, Value v,
                           ArrayRef<int64_t> dims, ArrayRef<Value> rs,
                           StringRef message) {
  if (dims.empty())
    return v;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [dim, r] : llvm::zip(dims, rs)) {
    Value c = tensor::DimOp::create(b, loc, v, dim);
    emitShapeCheck(
        b, loc,
        arith::OrIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c, one),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c, r)),
        message);
  }
  return broadcastDimsIfSmaller(b, loc, v, dims, rs);
}

Value buildElementwise(OpBuilder &b, Location loc, ValueRange operands,
                       RankedTensorType resultType, ScalarFn fn) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes(rank);
  SmallVector<bool> uniform(rank, false);
  // Per result dim, the dim source that has the result's size exactly when
  // the size is an earlier broadcast's (operands with it need no copy).
  SmallVector<std::optional<DimRef>> exact(rank);

  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<Contributor> contributors;
    for (Value operand : operands) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t od = d - (rank - type.getRank());
      if (od >= 0 && type.getDimSize(od) != 1)
        contributors.push_back({operand, od});
    }
    int64_t staticSize = resultType.getDimSize(d);
    if (contributors.empty()) {
      sizes[d] = b.getIndexAttr(1);
      continue;
    }
    // Contributors that all derive from one dim have one size: no checks.
    auto source = dimSource(contributors[0].operand, contributors[0].dim);
    bool same = llvm::all_of(contributors, [&](const Contributor &c) {
      return dimSource(c.operand, c.dim) == source;
    });
    if (same) {
      uniform[d] = true;
      sizes[d] = ShapedType::isDynamic(staticSize)
                     ? OpFoldResult(sourceSize(b, loc, source))
                     : OpFoldResult(b.getIndexAttr(staticSize));
      continue;
    }
    // A size an earlier broadcast computed from the dims of every other
    // contributor (x = x * 0.5f + b, again and again): the broadcast again,
    // with no checks (each dim was checked to be 1 or it then); only the
    // operands smaller at run time need a copy.
    if (ShapedType::isDynamic(staticSize)) {
      std::optional<DimRef> covering;
      for (const Contributor &c : contributors) {
        DimRef cs = dimSource(c.operand, c.dim);
        if (cs.second != -1 || broadcastLeaves(cs.first).empty())
          continue;
        SmallVector<DimRef> covered;
        expandSource(cs, covered);
        bool all = llvm::all_of(contributors, [&](const Contributor &o) {
          SmallVector<DimRef> others;
          expandSource(dimSource(o.operand, o.dim), others);
          return llvm::all_of(others, [&](const DimRef &x) {
            return llvm::is_contained(covered, x);
          });
        });
        if (all) {
          covering = cs;
          break;
        }
      }
      if (covering) {
        exact[d] = covering;
        sizes[d] = covering->first;
        continue;
      }
    }
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value r;
    if (!ShapedType::isDynamic(staticSize)) {
      r = arith::ConstantIndexOp::create(b, loc, staticSize);
    } else {
      // All contributors are dynamic here.
      SmallVector<Value> candidates;
      for (const Contributor &c : contributors)
        candidates.push_back(tensor::DimOp::create(b, loc, c.operand, c.dim));
      r = broadcastSize(b, loc, candidates);
    }
    for (const Contributor &c : contributors) {
      // Static sizes were checked by the verifier.
      if (!cast<RankedTensorType>(c.operand.getType()).isDynamicDim(c.dim))
        continue;
      Value size = tensor::DimOp::create(b, loc, c.operand, c.dim);
      Value ok = arith::OrIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, r));
      emitShapeCheck(b, loc, ok, "operand shapes cannot be broadcast");
    }
    sizes[d] = ShapedType::isDynamic(staticSize)
                   ? OpFoldResult(r)
                   : OpFoldResult(b.getIndexAttr(staticSize));
  }

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (Value operand : operands) {
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t lead = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> smallerDims;
    SmallVector<Value> smallerSizes;
    for (int64_t od = 0; od < type.getRank(); ++od) {
      int64_t d = od + lead;
      int64_t size = type.getDimSize(od);
      if (size == 1 && resultType.getDimSize(d) != 1) {
        exprs.push_back(b.getAffineConstantExpr(0));
        continue;
      }
      if (ShapedType::isDynamic(size) && !uniform[d] &&
          !(exact[d] && dimSource(operand, od) == *exact[d])) {
        smallerDims.push_back(od);
        smallerSizes.push_back(indexValue(b, loc, sizes[d]));
      }
      exprs.push_back(b.getAffineDimExpr(d));
    }
    inputs.push_back(smallerDims.empty()
                         ? operand
                         : broadcastDimsIfSmaller(b, loc, operand, smallerDims,
                                                  smallerSizes));
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = emptyTensor(b, loc, sizes, resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      parallelIterators(rank), [&](OpBuilder &bb, Location l, ValueRange args) {
        linalg::YieldOp::create(bb, l, fn(bb, l, args.drop_back()));
      });
  return castTo(b, loc, generic.getResult(0), resultType);
}

} // namespace mlir::kiln::detail
