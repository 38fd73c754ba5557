//===- Linear.cpp - matmul, linear, embedding, conv2d, cross_entropy ------===//
//
// matmul with a 2-d right operand is one linalg.matmul (batch dims of the
// left folded into rows); other products are a contraction generic whose
// indexing maps broadcast the batch dims. linear is a contraction with the
// weight read transposed in place, then the bias add. Sizes that must agree
// at run time are checked (shape checks) and the loops use the smaller one.
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
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {

Value zeroFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 Type element) {
  Value empty = emptyTensor(b, loc, sizes, element);
  return linalg::FillOp::create(b, loc, scalarConstant(b, loc, element, 0),
                                empty)
      .getResult(0);
}

/// acc + x * y in the element type.
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

/// The float32 sums `wide` rounded to the half type of `init` (its shape).
Value roundedInto(OpBuilder &b, Location loc, Value wide, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t rank = type.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{wide}, ValueRange{init},
             SmallVector<AffineMap>{identity, identity},
             parallelIterators(rank),
             [&](OpBuilder &bb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   bb, l,
                   arith::TruncFOp::create(bb, l, type.getElementType(),
                                           args[0])
                       .getResult());
             })
      .getResult(0);
}

/// A generic that accumulates inputs[0] * inputs[1] into init (zeros) over
/// `maps`, its last loop the reduction. Half types accumulate in float32,
/// rounded once at the end, as eager (and ATen) do.
Value contractionGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                         Value init, ArrayRef<AffineMap> maps) {
  SmallVector<utils::IteratorType> iterators =
      parallelIterators(maps.front().getNumDims());
  iterators.back() = utils::IteratorType::reduction;
  auto type = cast<RankedTensorType>(init.getType());
  bool half = isa<Float16Type, BFloat16Type>(type.getElementType());
  Type f32 = b.getF32Type();
  Value acc = half
                  ? zeroFilled(b, loc, tensor::getMixedSizes(b, loc, init), f32)
                  : init;
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{acc.getType()}, inputs, ValueRange{acc}, maps,
          iterators,
          [&](OpBuilder &bb, Location l, ValueRange args) {
            Value x = args[0], y = args[1];
            if (half) {
              x = arith::ExtFOp::create(bb, l, f32, x);
              y = arith::ExtFOp::create(bb, l, f32, y);
            }
            linalg::YieldOp::create(bb, l, multiplyAdd(bb, l, x, y, args[2]));
          })
          .getResult(0);
  return half ? roundedInto(b, loc, sum, init) : sum;
}

/// A 2-d product C[n, m] = A[n, k] * B[k, m], A read transposed when
/// transposeA (given as [k, n]) and B when transposeB (given as [m, k]).
Value matmul2d(OpBuilder &b, Location loc, Value a, Value bm, bool transposeA,
               bool transposeB, Type element) {
  OpFoldResult n = tensor::getMixedSize(b, loc, a, transposeA ? 1 : 0);
  OpFoldResult m = tensor::getMixedSize(b, loc, bm, transposeB ? 0 : 1);
  Value init = zeroFilled(b, loc, {n, m}, element);
  if (!transposeA && !transposeB && !isa<Float16Type, BFloat16Type>(element))
    return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                    ValueRange{a, bm}, ValueRange{init})
        .getResult(0);
  // A generic: half types' products accumulate in float32, and transposed
  // operands are read in place.
  MLIRContext *ctx = b.getContext();
  AffineExpr i = b.getAffineDimExpr(0), j = b.getAffineDimExpr(1),
             k = b.getAffineDimExpr(2);
  SmallVector<AffineExpr> aExprs = {i, k}, bExprs = {k, j};
  if (transposeA)
    aExprs = {k, i};
  if (transposeB)
    bExprs = {j, k};
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, aExprs, ctx),
                                 AffineMap::get(3, 0, bExprs, ctx),
                                 AffineMap::get(3, 0, {i, j}, ctx)};
  return contractionGeneric(b, loc, {a, bm}, init, maps);
}

/// The input of a `kiln.transpose` of v's last two dims, which a product
/// reads in place (its maps swapped) rather than as a copy: BLAS and cuBLAS
/// take either order of a matrix's strides. Null otherwise.
Value transposedMatrixOf(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  return t && t.swapsLastTwoDims() ? t.getInput() : Value();
}

struct MatmulToLinalg : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value a = adaptor.getLhs(), bm = adaptor.getRhs();
    bool transposeA = false, transposeB = false;
    if (Value input = transposedMatrixOf(op.getLhs())) {
      a = rewriter.getRemappedValue(input);
      transposeA = true;
    }
    if (Value input = transposedMatrixOf(op.getRhs())) {
      bm = rewriter.getRemappedValue(input);
      transposeB = true;
    }
    auto ta = cast<RankedTensorType>(a.getType());
    auto tb = cast<RankedTensorType>(bm.getType());
    Type element = ta.getElementType();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t ra = ta.getRank(), rb = tb.getRank();
    // Contracting dims: a's last (second to last, transposed), b's first
    // (1-d) or second to last (last, transposed).
    std::tie(a, bm) = agreeOnDim(b, loc, a, transposeA ? ra - 2 : ra - 1, bm,
                                 rb == 1 ? 0 : (transposeB ? rb - 1 : rb - 2),
                                 "matmul: contracting sizes differ");
    // 2-d products are linalg.matmul; the others one contraction generic
    // (folding batch dims into rows would need expand_shapes with several
    // dynamic dims in a group, which upstream's expand-strided-metadata
    // does not handle).
    Value result =
        ra == 2 && rb == 2
            ? matmul2d(b, loc, a, bm, transposeA, transposeB, element)
            : contraction(b, loc, a, bm, transposeA, transposeB, resultType);
    result = castTo(b, loc, result, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The general product as one generic: loops over the broadcast batch
  /// dims, then n (when a is not 1-d), m (when b is not 1-d) and k.
  static Value contraction(OpBuilder &b, Location loc, Value a, Value bm,
                           bool transposeA, bool transposeB,
                           RankedTensorType resultType) {
    auto ta = cast<RankedTensorType>(a.getType());
    auto tb = cast<RankedTensorType>(bm.getType());
    int64_t ra = ta.getRank(), rb = tb.getRank();
    int64_t batchA = std::max<int64_t>(ra - 2, 0),
            batchB = std::max<int64_t>(rb - 2, 0);
    int64_t batch = std::max(batchA, batchB);
    bool hasN = ra > 1, hasM = rb > 1;
    int64_t loops = batch + hasN + hasM + 1;
    int64_t nDim = batch, mDim = batch + hasN, kDim = loops - 1;
    // Batch sizes: broadcast like an elementwise op over the batch dims.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < batch; ++d) {
      int64_t rd = d; // result batch dims come first
      OpFoldResult size = b.getIndexAttr(resultType.getDimSize(rd));
      if (resultType.isDynamicDim(rd)) {
        // The broadcast of the operands' dims that are not static 1.
        SmallVector<Value> candidates;
        for (auto [v, vb] : {std::pair{a, batchA}, std::pair{bm, batchB}}) {
          int64_t od = d - (batch - vb);
          auto t = cast<RankedTensorType>(v.getType());
          if (od >= 0 && t.getDimSize(od) != 1)
            candidates.push_back(tensor::DimOp::create(b, loc, v, od));
        }
        size = broadcastSize(b, loc, candidates);
      }
      sizes.push_back(size);
    }
    auto batchMap = [&](Value &v, int64_t vb, SmallVector<AffineExpr> &exprs) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> dims;
      SmallVector<Value> rs;
      for (int64_t od = 0; od < vb; ++od) {
        int64_t d = od + (batch - vb);
        if (t.getDimSize(od) == 1 && resultType.getDimSize(d) != 1) {
          exprs.push_back(b.getAffineConstantExpr(0));
          continue;
        }
        if (t.isDynamicDim(od)) {
          dims.push_back(od);
          rs.push_back(indexValue(b, loc, sizes[d]));
        }
        exprs.push_back(b.getAffineDimExpr(d));
      }
      v = broadcastDimsChecked(b, loc, v, dims, rs,
                               "matmul: batch shapes cannot be broadcast");
    };
    SmallVector<AffineExpr> ea, eb, ec;
    batchMap(a, batchA, ea);
    batchMap(bm, batchB, eb);
    // A's matrix dims (n, k) and B's (k, m), each swapped when read
    // transposed; a vector operand's only k.
    AffineExpr nExpr = b.getAffineDimExpr(nDim),
               mExpr = b.getAffineDimExpr(mDim),
               kExpr = b.getAffineDimExpr(kDim);
    auto appendMatrix = [&](SmallVector<AffineExpr> &exprs, bool isMatrix,
                            AffineExpr row, AffineExpr col, bool transposed) {
      if (!isMatrix)
        exprs.push_back(kExpr);
      else if (transposed)
        exprs.append({col, row});
      else
        exprs.append({row, col});
    };
    appendMatrix(ea, hasN, nExpr, kExpr, transposeA);
    appendMatrix(eb, hasM, kExpr, mExpr, transposeB);
    for (int64_t d = 0; d < batch; ++d)
      ec.push_back(b.getAffineDimExpr(d));
    if (hasN) {
      ec.push_back(nExpr);
      sizes.push_back(
          tensor::getMixedSize(b, loc, a, transposeA ? ra - 1 : ra - 2));
    }
    if (hasM) {
      ec.push_back(mExpr);
      sizes.push_back(
          tensor::getMixedSize(b, loc, bm, transposeB ? rb - 2 : rb - 1));
    }
    Value init = zeroFilled(b, loc, sizes, resultType.getElementType());
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, ea, ctx),
                                   AffineMap::get(loops, 0, eb, ctx),
                                   AffineMap::get(loops, 0, ec, ctx)};
    return contractionGeneric(b, loc, {a, bm}, init, maps);
  }
};

struct LinearToLinalg : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    auto tx = cast<RankedTensorType>(x.getType());
    std::tie(x, w) = agreeOnDim(b, loc, x, tx.getRank() - 1, w, 1,
                                "linear: in_features differ");
    // y[..., o] = sum_k x[..., k] * w[o, k]: the weight is read transposed
    // in place, and leading dims stay loops (no reshapes).
    int64_t lead = tx.getRank() - 1;
    int64_t loops = lead + 2;
    SmallVector<AffineExpr> xe,
        we = {b.getAffineDimExpr(lead), b.getAffineDimExpr(lead + 1)};
    SmallVector<AffineExpr> ye;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < lead; ++d) {
      xe.push_back(b.getAffineDimExpr(d));
      ye.push_back(b.getAffineDimExpr(d));
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
    }
    xe.push_back(b.getAffineDimExpr(lead + 1));
    ye.push_back(b.getAffineDimExpr(lead));
    sizes.push_back(tensor::getMixedSize(b, loc, w, 0));
    Value init = zeroFilled(b, loc, sizes, tx.getElementType());
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, xe, ctx),
                                   AffineMap::get(loops, 0, we, ctx),
                                   AffineMap::get(loops, 0, ye, ctx)};
    Value y = contractionGeneric(b, loc, {x, w}, init, maps);
    auto resultType = cast<RankedTensorType>(op.getType());
    y = castTo(b, loc, y, resultType);
    if (Value bias = adaptor.getBias())
      y = AddOp::create(b, loc, y, bias); // converted by the add pattern
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct EmbeddingToGeneric : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value ids = adaptor.getIds(), table = adaptor.getTable();
    checkIds(b, loc, ids, tensor::DimOp::create(b, loc, table, 0),
             "embedding: index out of range");
    Value empty = anyEmptyAlong(b, loc, table, {0});
    Value rows = tensor::DimOp::create(b, loc, table, 0);
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, ids);
    sizes.push_back(tensor::getMixedSize(b, loc, table, 1));
    Value init = emptyTensor(b, loc, sizes, resultType.getElementType());
    SmallVector<AffineExpr> idExprs;
    for (int64_t d = 0; d + 1 < rank; ++d)
      idExprs.push_back(b.getAffineDimExpr(d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, idExprs, b.getContext()),
        b.getMultiDimIdentityMap(rank)};
    Value result =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{ids},
            ValueRange{init}, maps, parallelIterators(rank),
            [&](OpBuilder &bb, Location l, ValueRange args) {
              Value row = clampedIndex(bb, l, args[0], rows);
              Value col = linalg::IndexOp::create(bb, l, rank - 1);
              linalg::YieldOp::create(bb, l,
                                      extractUnlessEmpty(bb, l, table,
                                                         ValueRange{row, col},
                                                         empty));
            })
            .getResult(0);
    result = castTo(b, loc, result, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A convolution with static parameters and one group is linalg's NCHW/FCHW
/// convolution. (The CPU pipeline calls the runtime's convolution before
/// this conversion: kiln-conv2d-to-runtime.)
/// With a parameter known only at run time, or groups, it is the same
/// computation spelled out: an im2col generic that gathers the input taps,
/// and a kiln.matmul (batched over the groups) that the conversion lowers in
/// turn.
struct Conv2dToLinalg : OpConversionPattern<Conv2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getInput().getType().getRank() != 4)
      return rewriter.notifyMatchFailure(
          op, "one unbatched image: kiln-decompose-composites batches it");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    auto tx = cast<RankedTensorType>(x.getType());
    Type element = tx.getElementType();

    // sh, sw, ph, pw: attributes, or the operands for the dynamic ones,
    // checked and clamped so that a failed check still runs in bounds.
    bool dynamicParams = !adaptor.getParams().empty();
    auto params = adaptor.getParams().begin();
    auto param = [&](int64_t v, int64_t minimum,
                     StringRef message) -> OpFoldResult {
      if (!ShapedType::isDynamic(v))
        return b.getIndexAttr(v);
      Value p = *params++;
      Value least = arith::ConstantIndexOp::create(b, loc, minimum);
      emitShapeCheck(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, p, least),
          message);
      return arith::MaxSIOp::create(b, loc, p, least).getResult();
    };
    ArrayRef<int64_t> strideAttr = op.getStrides(), padAttr = op.getPadding(),
                      dilationAttr = op.getDilation();
    SmallVector<OpFoldResult> stride, pad, dilation;
    for (int64_t s : strideAttr)
      stride.push_back(param(s, 1, "conv2d: stride must be at least 1"));
    for (int64_t p : padAttr)
      pad.push_back(param(p, 0, "conv2d: padding must be at least 0"));
    for (int64_t d : dilationAttr)
      dilation.push_back(param(d, 1, "conv2d: dilation must be at least 1"));
    OpFoldResult groups =
        param(op.getGroups(), 1, "conv2d: groups must be at least 1");
    bool grouped = getConstantIntValue(groups) != std::optional<int64_t>(1);
    if (!grouped) {
      std::tie(x, w) =
          agreeOnDim(b, loc, x, 1, w, 1, "conv2d: channels differ");
    } else {
      // C = C/g * g and O = O/g * g (a failed check still runs in bounds:
      // the im2col reads clamp the channel).
      Value g = indexValue(b, loc, groups);
      Value channels = tensor::DimOp::create(b, loc, x, 1);
      Value perGroup = tensor::DimOp::create(b, loc, w, 1);
      Value filters = tensor::DimOp::create(b, loc, w, 0);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      emitShapeCheck(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, channels,
                                arith::MulIOp::create(b, loc, perGroup, g)),
          "conv2d: the input's channels are not the weight's times groups");
      emitShapeCheck(b, loc,
                     arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::eq,
                         arith::RemSIOp::create(b, loc, filters, g), zero),
                     "conv2d: groups do not divide the filters");
    }

    if (llvm::any_of(pad, [](OpFoldResult p) {
          return getConstantIntValue(p) != std::optional<int64_t>(0);
        })) {
      SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       pad[0], pad[1]};
      SmallVector<int64_t> shape(tx.getShape());
      for (int i = 0; i < 2; ++i) {
        std::optional<int64_t> p = getConstantIntValue(pad[i]);
        shape[2 + i] = ShapedType::isDynamic(shape[2 + i]) || !p
                           ? ShapedType::kDynamic
                           : shape[2 + i] + 2 * *p;
      }
      x = tensor::PadOp::create(b, loc, RankedTensorType::get(shape, element),
                                x, low, low,
                                scalarConstant(b, loc, element, 0));
    }
    // Output sizes: (H + 2p - kH) / s + 1 on the padded input. The kernel
    // must fit (a shape check); the size is clamped at 0 so a failed check
    // gives an empty loop.
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, x, 0),
                                       tensor::getMixedSize(b, loc, w, 0)};
    auto resultType = cast<RankedTensorType>(op.getType());
    for (int i = 0; i < 2; ++i) {
      if (!resultType.isDynamicDim(2 + i)) {
        sizes.push_back(b.getIndexAttr(resultType.getDimSize(2 + i)));
        continue;
      }
      Value in = tensor::DimOp::create(b, loc, x, 2 + i);
      // The kernel's extent: d * (k - 1) + 1.
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value k = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, indexValue(b, loc, dilation[i]),
              arith::SubIOp::create(
                  b, loc, tensor::DimOp::create(b, loc, w, 2 + i), one)),
          one);
      Value fits =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, in, k);
      emitShapeCheck(b, loc, fits,
                     "conv2d: the kernel is larger than the input");
      Value span = arith::SubIOp::create(b, loc, in, k);
      Value out = arith::AddIOp::create(
          b, loc,
          arith::DivSIOp::create(b, loc, span, indexValue(b, loc, stride[i])),
          arith::ConstantIndexOp::create(b, loc, 1));
      sizes.push_back(OpFoldResult(arith::SelectOp::create(
          b, loc, fits, out, arith::ConstantIndexOp::create(b, loc, 0))));
    }
    Value y = dynamicParams || grouped
                  ? im2colProduct(b, loc, x, w, stride, dilation, groups, sizes)
                  : staticConv(b, loc, x, w, strideAttr, dilationAttr, sizes);
    y = castTo(b, loc, y, resultType);
    if (Value bias = adaptor.getBias()) {
      // [O] -> [1, O, 1, 1], then a broadcasting add.
      auto bt = cast<RankedTensorType>(bias.getType());
      Value b4 = tensor::ExpandShapeOp::create(
          b, loc,
          RankedTensorType::get({1, bt.getDimSize(0), 1, 1},
                                bt.getElementType()),
          bias, SmallVector<ReassociationIndices>{{0, 1, 2, 3}});
      y = AddOp::create(b, loc, y, b4);
    }
    rewriter.replaceOp(op, y);
    return success();
  }

private:
  static Value staticConv(OpBuilder &b, Location loc, Value x, Value w,
                          ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations,
                          ArrayRef<OpFoldResult> sizes) {
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    Value init = zeroFilled(b, loc, sizes, element);
    // Half types accumulate in float32 (the named op extends its inputs to
    // its output's type), rounded once.
    bool half = isa<Float16Type, BFloat16Type>(element);
    Value acc = half ? zeroFilled(b, loc, sizes, b.getF32Type()) : init;
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("strides", b.getI64TensorAttr(strides)),
        b.getNamedAttr("dilations", b.getI64TensorAttr(dilations))};
    Value y = linalg::Conv2DNchwFchwOp::create(b, loc, TypeRange{acc.getType()},
                                               ValueRange{x, w},
                                               ValueRange{acc}, attrs)
                  .getResult(0);
    return half ? roundedInto(b, loc, y, init) : y;
  }

  /// cols[n, g, c, i, j, oh, ow] = x[n, g * C/g + c, oh * sh + i * dh,
  /// ow * sw + j * dw] on the padded input; then, per group, w [O/g,
  /// C/g*kH*kW] times cols [N, C/g*kH*kW, oH*oW]: one kiln.matmul batched
  /// over the groups.
  static Value im2colProduct(OpBuilder &b, Location loc, Value x, Value w,
                             ArrayRef<OpFoldResult> stride,
                             ArrayRef<OpFoldResult> dilation,
                             OpFoldResult groups,
                             ArrayRef<OpFoldResult> outSizes) {
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    Value sh = indexValue(b, loc, stride[0]),
          sw = indexValue(b, loc, stride[1]),
          dh = indexValue(b, loc, dilation[0]),
          dw = indexValue(b, loc, dilation[1]);
    Value g = indexValue(b, loc, groups);
    OpFoldResult perGroup = tensor::getMixedSize(b, loc, w, 1);
    Value cg = indexValue(b, loc, perGroup);
    Value lastChannel =
        arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, x, 1),
                              arith::ConstantIndexOp::create(b, loc, 1));
    SmallVector<OpFoldResult> sizes = {outSizes[0],
                                       groups,
                                       perGroup,
                                       tensor::getMixedSize(b, loc, w, 2),
                                       tensor::getMixedSize(b, loc, w, 3),
                                       outSizes[2],
                                       outSizes[3]};
    Value cols = buildGeneric(
        b, loc, sizes, element, ValueRange{}, {},
        [&](OpBuilder &bb, Location l, ValueRange) -> Value {
          auto at = [&](int64_t d) {
            return linalg::IndexOp::create(bb, l, d);
          };
          auto tap = [&](Value o, Value s, Value k, Value d) -> Value {
            return arith::AddIOp::create(bb, l,
                                         arith::MulIOp::create(bb, l, o, s),
                                         arith::MulIOp::create(bb, l, k, d));
          };
          // g * C/g + c, clamped: a failed channel check still reads in
          // bounds.
          Value channel = arith::MinSIOp::create(
              bb, l,
              arith::AddIOp::create(
                  bb, l, arith::MulIOp::create(bb, l, at(1), cg), at(2)),
              lastChannel);
          return tensor::ExtractOp::create(
              bb, l, x,
              ValueRange{at(0), channel, tap(at(5), sh, at(3), dh),
                         tap(at(6), sw, at(4), dw)});
        });
    Value wMatrix = tensor::CollapseShapeOp::create(
        b, loc, w, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    // [O, K] -> [g, O/g, K]: a kiln.reshape, not tensor.expand_shape:
    // memref's expand-strided-metadata cannot take a group with two dynamic
    // sizes.
    auto reshape = [&](Value v, ArrayRef<OpFoldResult> shape) -> Value {
      SmallVector<int64_t> staticShape;
      SmallVector<Value> dynamicShape;
      dispatchIndexOpFoldResults(shape, dynamicShape, staticShape);
      return ReshapeOp::create(
          b, loc, RankedTensorType::get(staticShape, element), v, dynamicShape);
    };
    OpFoldResult filters = tensor::getMixedSize(b, loc, w, 0);
    if (getConstantIntValue(groups) == std::optional<int64_t>(1)) {
      // [O, K] x [N, K, oH*oW] -> [N, O, oH*oW] -> [N, O, oH, oW].
      Value colMatrix = tensor::CollapseShapeOp::create(
          b, loc, cols,
          SmallVector<ReassociationIndices>{{0}, {1, 2, 3, 4}, {5, 6}});
      Value product = MatmulOp::create(b, loc, wMatrix, colMatrix);
      return reshape(product, {outSizes[0], filters, outSizes[2], outSizes[3]});
    }
    OpFoldResult perGroupFilters = OpFoldResult(
        arith::DivSIOp::create(b, loc, indexValue(b, loc, filters), g)
            .getResult());
    Value wGroups =
        reshape(wMatrix, {groups, perGroupFilters,
                          tensor::getMixedSize(b, loc, wMatrix, 1)});
    // [g, O/g, K] x [N, g, K, oH*oW] -> [N, g, O/g, oH*oW] -> [N, O, oH, oW].
    Value colMatrices = tensor::CollapseShapeOp::create(
        b, loc, cols,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}, {5, 6}});
    Value product = MatmulOp::create(b, loc, wGroups, colMatrices);
    return reshape(product, {outSizes[0], filters, outSizes[2], outSizes[3]});
  }
};

/// -mean(log_softmax(logits)[i, targets[i]]), through kiln ops that the
/// conversion lowers in turn, and a gather of the picked log-probabilities.
struct CrossEntropyToLinalg : OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value logits = adaptor.getLogits(), targets = adaptor.getTargets();
    auto lt = cast<RankedTensorType>(logits.getType());
    if (lt.getRank() == 1) {
      logits = tensor::ExpandShapeOp::create(
          b, loc,
          RankedTensorType::get({1, lt.getDimSize(0)}, lt.getElementType()),
          logits, SmallVector<ReassociationIndices>{{0, 1}});
      auto tt = cast<RankedTensorType>(targets.getType());
      targets = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({1}, tt.getElementType()), targets,
          SmallVector<ReassociationIndices>{});
    } else {
      std::tie(logits, targets) = agreeOnDim(
          b, loc, logits, 0, targets, 0, "cross_entropy: batch sizes differ");
    }
    checkIds(b, loc, targets, tensor::DimOp::create(b, loc, logits, 1),
             "cross_entropy: target out of range");
    Value empty = anyEmptyAlong(b, loc, logits, {1});
    Value classes = tensor::DimOp::create(b, loc, logits, 1);
    Value logp = LogSoftmaxOp::create(b, loc, logits, b.getI64IntegerAttr(1));
    Type element = lt.getElementType();
    Value init =
        emptyTensor(b, loc, tensor::getMixedSizes(b, loc, targets), element);
    Value picked =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{targets},
            ValueRange{init},
            SmallVector<AffineMap>{b.getMultiDimIdentityMap(1),
                                   b.getMultiDimIdentityMap(1)},
            parallelIterators(1),
            [&](OpBuilder &bb, Location l, ValueRange args) {
              Value row = linalg::IndexOp::create(bb, l, 0);
              Value col = clampedIndex(bb, l, args[0], classes);
              linalg::YieldOp::create(
                  bb, l,
                  extractUnlessEmpty(bb, l, logp, ValueRange{row, col}, empty));
            })
            .getResult(0);
    Value mean = MeanOp::create(b, loc, picked, b.getDenseI64ArrayAttr({}),
                                /*keepdim=*/false);
    rewriter.replaceOpWithNewOp<NegOp>(op, mean);
    return success();
  }
};

} // namespace

void mlir::kiln::populateLinearToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulToLinalg, LinearToLinalg, EmbeddingToGeneric,
               Conv2dToLinalg, CrossEntropyToLinalg>(patterns.getContext());
}
