//===- DataMovement.cpp - reshape, transpose, permute, slice, cat ... -----===//
//
// Value-semantics views become tensor ops that bufferization turns back into
// views where it can: tensor.reshape, linalg.transpose, tensor.extract_slice
// (with the runtime's Python slice semantics), expand/collapse_shape for
// unsqueeze/squeeze, a broadcasting generic for expand, insert_slice for cat.
//
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Builders.h"

#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

Value product(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes) {
  Value n = arith::ConstantIndexOp::create(b, loc, 1);
  for (OpFoldResult s : sizes)
    n = arith::MulIOp::create(b, loc, n, indexValue(b, loc, s));
  return n;
}

/// tensor.reshape to the new sizes, after a shape check that the element
/// counts agree; when they do not, an uninitialised tensor of the new shape
/// stands in, so nothing reads past the input.
struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto type = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    SmallVector<OpFoldResult> sizes = mixedSizesOf(b, type, adaptor.getSizes());
    Value ok = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        product(b, loc, tensor::getMixedSizes(b, loc, input)),
        product(b, loc, sizes));
    emitShapeCheck(b, loc, ok, "reshape: the element counts differ");
    SmallVector<Value> sizeValues;
    for (OpFoldResult s : sizes)
      sizeValues.push_back(indexValue(b, loc, s));
    auto ifOp = scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &then, Location l) {
          // Typed, so that a 0-d result's shape (no elements) builds too.
          Value shape = tensor::FromElementsOp::create(
              then, l,
              RankedTensorType::get({static_cast<int64_t>(sizeValues.size())},
                                    b.getIndexType()),
              sizeValues);
          scf::YieldOp::create(
              then, l,
              tensor::ReshapeOp::create(then, l, type, input, shape)
                  .getResult());
        },
        [&](OpBuilder &other, Location l) {
          Value empty = emptyTensor(other, l, sizes, type.getElementType());
          scf::YieldOp::create(other, l, castTo(other, l, empty, type));
        });
    rewriter.replaceOp(op, ifOp.getResult(0));
    return success();
  }
};

Value transposeBy(OpBuilder &b, Location loc, Value input,
                  ArrayRef<int64_t> perm, ShapedType resultType) {
  SmallVector<OpFoldResult> in = tensor::getMixedSizes(b, loc, input);
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm)
    sizes.push_back(in[p]);
  Value init = emptyTensor(b, loc, sizes, resultType.getElementType());
  Value t = linalg::TransposeOp::create(b, loc, input, init,
                                        b.getDenseI64ArrayAttr(perm))
                .getResult()[0];
  return castTo(b, loc, t, resultType);
}

struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      perm.push_back(d);
    std::swap(perm[op.getDim0()], perm[op.getDim1()]);
    rewriter.replaceOp(op, transposeBy(rewriter, op.getLoc(),
                                       adaptor.getInput(), perm, op.getType()));
    return success();
  }
};

struct PermuteToLinalg : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       transposeBy(rewriter, op.getLoc(), adaptor.getInput(),
                                   op.getPermutation(), op.getType()));
    return success();
  }
};

/// Python slicing as the runtime (and ATen) does it: negative start/end
/// count from the end, and both are clamped into [0, n].
struct SliceToExtractSlice : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = adaptor.getInput();
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t stepValue = static_cast<int64_t>(op.getStep());
    Value n = tensor::DimOp::create(b, loc, input, dim);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value step = arith::ConstantIndexOp::create(b, loc, stepValue);
    auto wrap = [&](Value v) {
      Value negative =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
      return arith::SelectOp::create(b, loc, negative,
                                     arith::AddIOp::create(b, loc, v, n), v)
          .getResult();
    };
    Value start = adaptor.getStart(), end = adaptor.getEnd();
    Value s = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, wrap(start), zero), n);
    Value e = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, wrap(end), zero), n);
    Value span = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, e, s), zero);
    Value len = arith::CeilDivSIOp::create(b, loc, span, step);
    // A size the type states (kiln-refine-types: [s, s + 1)) holds only
    // while s is in range: checked, so that the call otherwise fails and
    // runs eagerly, where the slice is shorter.
    int64_t stated = cast<RankedTensorType>(op.getType()).getDimSize(dim);
    if (!ShapedType::isDynamic(stated) && !matchPattern(len, m_Constant())) {
      Value holds =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, len,
                                arith::ConstantIndexOp::create(b, loc, stated));
      emitShapeCheck(b, loc, holds,
                     "slice: the range is not the width its type states");
    }
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    // An empty slice may start at n, but a static offset must lie inside
    // a static dim (verifyInBoundsSlice): start it at n - 1 instead, the
    // same empty slice, so that folding never makes an invalid subview.
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    offsets[dim] = arith::MinSIOp::create(
                       b, loc, s,
                       arith::MaxSIOp::create(
                           b, loc, arith::SubIOp::create(b, loc, n, one), zero))
                       .getResult();
    sizes[dim] = len;
    strides[dim] = b.getIndexAttr(stepValue);
    Value slice =
        tensor::ExtractSliceOp::create(b, loc, input, offsets, sizes, strides);
    rewriter.replaceOp(op, castTo(b, loc, slice, op.getType()));
    return success();
  }
};

/// The reassociation that groups the size-1 dim `dim` of the larger rank
/// with a neighbour (the next dim, or the previous one when it is last).
SmallVector<ReassociationIndices> unitDimGroups(int64_t largeRank,
                                                int64_t dim) {
  SmallVector<ReassociationIndices> groups;
  if (largeRank == 1)
    return groups; // 0-d <-> [1]
  for (int64_t d = 0; d < largeRank; ++d) {
    if (d == dim && d + 1 < largeRank) {
      groups.push_back({d, d + 1});
      ++d;
    } else if (d + 1 == dim && dim + 1 == largeRank) {
      groups.push_back({d, d + 1});
      ++d;
    } else {
      groups.push_back({d});
    }
  }
  return groups;
}

struct UnsqueezeToExpandShape : OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> shape;
    SmallVector<OpFoldResult> in =
        tensor::getMixedSizes(rewriter, op.getLoc(), adaptor.getInput());
    for (int64_t d = 0, i = 0; d < type.getRank(); ++d)
      shape.push_back(d == static_cast<int64_t>(op.getDim())
                          ? OpFoldResult(rewriter.getIndexAttr(1))
                          : in[i++]);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, adaptor.getInput(),
        unitDimGroups(type.getRank(), op.getDim()), shape);
    return success();
  }
};

struct SqueezeToCollapseShape : OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank(), dim = op.getDim();
    Value input = adaptor.getInput();
    if (type.isDynamicDim(dim)) {
      // A dim that is 1 only at run time: checked, then taken as 1 (a
      // failed check sends the call back to eager code, whose squeeze of a
      // larger dim keeps it).
      Location loc = op.getLoc();
      Value size = tensor::DimOp::create(rewriter, loc, input, dim);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      emitShapeCheck(rewriter, loc,
                     arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::eq, size, one),
                     "squeeze of a dim whose size is not 1");
      SmallVector<int64_t> unit(type.getShape());
      unit[dim] = 1;
      input = tensor::CastOp::create(rewriter, loc, type.clone(unit), input);
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), input, unitDimGroups(rank, dim));
    return success();
  }
};

/// A broadcasting copy: size-1 input dims read index 0.
struct ExpandToGeneric : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto type = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> sizes = mixedSizesOf(b, type, adaptor.getSizes());
    int64_t rank = type.getRank(), lead = rank - inType.getRank();
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> dims;
    SmallVector<Value> rs;
    for (int64_t od = 0; od < inType.getRank(); ++od) {
      int64_t d = od + lead;
      if (inType.getDimSize(od) == 1 && type.getDimSize(d) != 1) {
        exprs.push_back(b.getAffineConstantExpr(0));
        continue;
      }
      if (inType.isDynamicDim(od)) {
        dims.push_back(od);
        rs.push_back(indexValue(b, loc, sizes[d]));
      }
      exprs.push_back(b.getAffineDimExpr(d));
    }
    input = broadcastDimsChecked(
        b, loc, input, dims, rs,
        "expand: a dim that is not 1 cannot change its size");
    Value init = emptyTensor(b, loc, sizes, type.getElementType());
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, b.getContext()),
        b.getMultiDimIdentityMap(rank)};
    Value result = linalg::GenericOp::create(
                       b, loc, TypeRange{init.getType()}, ValueRange{input},
                       ValueRange{init}, maps, parallelIterators(rank),
                       [](OpBuilder &bb, Location l, ValueRange args) {
                         linalg::YieldOp::create(bb, l, args[0]);
                       })
                       .getResult(0);
    result = castTo(b, loc, result, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Inserts each input at its offset along dim. Other dims take input 0's
/// sizes; an input that differs fails a shape check and is cut to them.
struct CatToInsertSlices : OpConversionPattern<CatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    int64_t dim = static_cast<int64_t>(op.getDim());
    ValueRange inputs = adaptor.getInputs();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, inputs[0]);
    int64_t rank = static_cast<int64_t>(sizes.size());
    Value total = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> lengths;
    for (Value v : inputs) {
      Value len = tensor::DimOp::create(b, loc, v, dim);
      lengths.push_back(len);
      total = arith::AddIOp::create(b, loc, total, len);
    }
    sizes[dim] = total;
    auto type = cast<RankedTensorType>(op.getType());
    Value result = emptyTensor(b, loc, sizes, type.getElementType());
    Value offset = arith::ConstantIndexOp::create(b, loc, 0);
    for (auto [i, v] : llvm::enumerate(inputs)) {
      auto vt = cast<RankedTensorType>(v.getType());
      SmallVector<OpFoldResult> pieceSizes = tensor::getMixedSizes(b, loc, v);
      bool cut = false;
      for (int64_t d = 0; d < rank; ++d) {
        if (d == dim || !vt.isDynamicDim(d) || i == 0)
          continue;
        pieceSizes[d] = checkedEqualSize(
            b, loc, tensor::DimOp::create(b, loc, v, d),
            indexValue(b, loc, sizes[d]), "cat: the inputs' shapes differ");
        cut = true;
      }
      Value piece = v;
      SmallVector<OpFoldResult> zeros(rank, b.getIndexAttr(0));
      SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
      if (cut)
        piece =
            tensor::ExtractSliceOp::create(b, loc, v, zeros, pieceSizes, ones);
      SmallVector<OpFoldResult> offsets = zeros;
      offsets[dim] = offset;
      result = tensor::InsertSliceOp::create(b, loc, piece, result, offsets,
                                             pieceSizes, ones);
      offset = arith::AddIOp::create(b, loc, offset, lengths[i]);
    }
    result = castTo(b, loc, result, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// torch.gather: a generic over the index's shape whose body reads the
/// input at its own coordinates, the index's value in place of `dim`. The
/// index is checked (its other dims at most the input's, its values in
/// range) and every coordinate clamped, so that a failed check reads in
/// bounds.
struct GatherToGeneric : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = adaptor.getInput(), index = adaptor.getIndex();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto indexType = cast<RankedTensorType>(index.getType());
    int64_t rank = inputType.getRank(), dim = op.getDim();
    // Dims other than `dim` that need a check and a clamp.
    SmallVector<bool> bounded(rank, false);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim ||
          (!inputType.isDynamicDim(d) && !indexType.isDynamicDim(d) &&
           indexType.getDimSize(d) <= inputType.getDimSize(d)))
        continue;
      bounded[d] = true;
      emitShapeCheck(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                tensor::DimOp::create(b, loc, index, d),
                                tensor::DimOp::create(b, loc, input, d)),
          "gather: the index is larger than the input outside dim");
    }
    Value rows = rank > 0
                     ? tensor::DimOp::create(b, loc, input, dim).getResult()
                     : arith::ConstantIndexOp::create(b, loc, 1).getResult();
    checkIds(b, loc, index, rows, "gather: index out of range");
    SmallVector<Value> limits(rank);
    SmallVector<int64_t> readDims;
    for (int64_t d = 0; d < rank; ++d)
      if (d == dim || bounded[d]) {
        readDims.push_back(d);
        limits[d] = tensor::DimOp::create(b, loc, input, d);
      }
    Value empty = anyEmptyAlong(b, loc, input, readDims);
    auto resultType = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(b, loc, tensor::getMixedSizes(b, loc, index),
                             resultType.getElementType());
    SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
    Value result =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{index},
            ValueRange{init}, maps, parallelIterators(rank),
            [&](OpBuilder &bb, Location l, ValueRange args) {
              SmallVector<Value> at;
              for (int64_t d = 0; d < rank; ++d) {
                if (d == dim) {
                  at.push_back(clampedIndex(bb, l, args[0], limits[d]));
                  continue;
                }
                Value i = linalg::IndexOp::create(bb, l, d);
                if (bounded[d])
                  i = arith::MinSIOp::create(
                      bb, l, i,
                      arith::SubIOp::create(
                          bb, l, limits[d],
                          arith::ConstantIndexOp::create(bb, l, 1)));
                at.push_back(i);
              }
              linalg::YieldOp::create(
                  bb, l, extractUnlessEmpty(bb, l, input, at, empty));
            })
            .getResult(0);
    rewriter.replaceOp(op, castTo(b, loc, result, resultType));
    return success();
  }
};

/// detach: the input itself (a compiled graph has no autograd to cut).
struct DetachToInput : OpConversionPattern<DetachOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DetachOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

} // namespace

void mlir::kiln::populateDataMovementToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<DetachToInput, GatherToGeneric, ReshapeToTensor, TransposeToLinalg,
           PermuteToLinalg, SliceToExtractSlice, UnsqueezeToExpandShape,
           SqueezeToCollapseShape, ExpandToGeneric, CatToInsertSlices>(
          patterns.getContext());
}
