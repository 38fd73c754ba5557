//===- KilnOps.cpp - Verifiers and result type inference ------------------===//
//
// The rules are the eager runtime's (lib/Runtime), stated over static and
// dynamic dims: a check that needs a dynamic size is left to run time.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/EinsumPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

RankedTensorType rankedOf(Type type) { return cast<RankedTensorType>(type); }

/// "[?, 4]": shapes in diagnostics.
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + "]";
}

/// Broadcasts two dims; false when two static sizes conflict.
bool broadcastDim(int64_t a, int64_t b, int64_t &out) {
  if (a == 1) {
    out = b;
  } else if (b == 1) {
    out = a;
  } else if (ShapedType::isDynamic(a)) {
    out = b; // b is ? or a static size > 1 that a must equal
  } else if (ShapedType::isDynamic(b) || a == b) {
    out = a;
  } else {
    return false;
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// As eager words it (lib/Runtime), so that a refused graph reads the same
/// compiled or not.
std::string mlir::kiln::unsupportedDTypeMessage(Type e) {
  std::string name;
  llvm::raw_string_ostream(name) << e; // i64, not 'i64'
  return "not supported for dtype " + name +
         "; convert with to(kiln::kFloat32) first";
}

static LogicalResult refuseElementType(std::optional<Location> loc, Type e) {
  return emitOptionalError(loc, unsupportedDTypeMessage(e));
}

bool mlir::kiln::inferOpen(ValueRange operands,
                           SmallVectorImpl<Type> &inferred) {
  if (!anyOpen(operands.getTypes()))
    return false;
  inferred.push_back(openTensorType(operands.front().getContext()));
  return true;
}

LogicalResult mlir::kiln::trait::verifyInputElementType(Operation *op,
                                                        bool floatOnly) {
  Type input = op->getOperand(0).getType();
  if (isOpenTensor(input))
    return success();
  Type e = cast<ShapedType>(input).getElementType();
  if (floatOnly ? isa<FloatType>(e) : !e.isInteger(1))
    return success();
  return refuseElementType(op->getLoc(), e);
}

bool mlir::kiln::hasOpenTypes(Operation *op) {
  return anyOpen(op->getOperandTypes()) || anyOpen(op->getResultTypes());
}

LogicalResult
mlir::kiln::inferBroadcastResult(std::optional<Location> loc,
                                 ArrayRef<Type> operandTypes, Type elementType,
                                 SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  for (Type type : operandTypes) {
    ArrayRef<int64_t> s = rankedOf(type).getShape();
    SmallVector<int64_t> next(std::max(shape.size(), s.size()), 1);
    size_t rank = next.size();
    for (size_t i = 0; i < rank; ++i) {
      int64_t a =
          i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
      int64_t b = i < rank - s.size() ? 1 : s[i - (rank - s.size())];
      if (!broadcastDim(a, b, next[i]))
        return emitOptionalError(loc, "shapes ", shapeStr(shape), " and ",
                                 shapeStr(s), " cannot be broadcast: dim ",
                                 static_cast<int64_t>(i) -
                                     static_cast<int64_t>(rank),
                                 " has sizes ", a, " and ", b);
    }
    shape = std::move(next);
  }
  if (!elementType)
    elementType = rankedOf(operandTypes.front()).getElementType();
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

SmallVector<Value> mlir::kiln::dynamicSizesOf(OpBuilder &b, Location loc,
                                              Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(DimOp::create(b, loc, x, b.getI64IntegerAttr(d)));
  return sizes;
}

LogicalResult mlir::kiln::verifyDimInRange(Operation *op, int64_t dim,
                                           int64_t rank, StringRef name) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << name << " " << dim << " is out of range for rank " << rank
           << " (expected a dim in [0, " << rank - 1 << "])";
  return success();
}

/// Each of dims in [0, rank), sorted and distinct.
static LogicalResult verifySortedDims(Operation *op, ArrayRef<int64_t> dims,
                                      int64_t rank) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (failed(verifyDimInRange(op, d, rank, "dim")))
      return failure();
    if (i > 0 && dims[i - 1] >= d)
      return op->emitOpError("dims must be sorted and distinct, got ")
             << shapeStr(dims);
  }
  return success();
}

LogicalResult mlir::kiln::verifyReductionDims(Operation *op, Type input,
                                              ArrayRef<int64_t> dims) {
  // A 0-d input takes dim 0, as the runtime's reductions do.
  return verifySortedDims(op, dims,
                          std::max<int64_t>(rankedOf(input).getRank(), 1));
}

LogicalResult mlir::kiln::inferReductionResult(
    std::optional<Location> loc, Type input, ArrayRef<int64_t> dims,
    bool keepdim, Type elementType, SmallVectorImpl<Type> &inferred) {
  auto type = rankedOf(input);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool reduced = dims.empty() || llvm::is_contained(dims, d);
    if (!reduced)
      shape.push_back(type.getDimSize(d));
    else if (keepdim)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

namespace {
/// bool < integer < floating.
int category(Type t) {
  if (t.isInteger(1))
    return 0;
  return isa<IntegerType>(t) ? 1 : 2;
}

Type promotePair(Type a, Type b) {
  if (a == b)
    return a;
  if (category(a) != category(b))
    return category(a) > category(b) ? a : b;
  if ((a.isF16() && b.isBF16()) || (a.isBF16() && b.isF16()))
    return Float32Type::get(a.getContext());
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

/// The default type of a category: i1, i64, f32.
Type defaultOf(int cat, MLIRContext *context) {
  if (cat == 0)
    return IntegerType::get(context, 1);
  if (cat == 1)
    return IntegerType::get(context, 64);
  return Float32Type::get(context);
}
} // namespace

namespace {
/// The promoted element type of operands by kind: those of the tensors
/// with dims, of the 0-d tensors and of the wrapped numbers, each
/// promoted within its kind (null where none).
Type promoteKinds(Type dims, Type zero, Type wrapped) {
  Type result = dims;
  if (zero && (!result || category(zero) > category(result)))
    result = zero;
  if (wrapped && (!result || category(wrapped) > category(result)))
    result =
        result ? defaultOf(category(wrapped), wrapped.getContext()) : wrapped;
  return result;
}
} // namespace

Type mlir::kiln::promotedElementType(ValueRange operands) {
  Type dims, zero, wrapped;
  for (Value v : operands) {
    assert(isa<RankedTensorType>(v.getType()) && "promotes tensors only");
    auto type = rankedOf(v.getType());
    Type &slot = v.getDefiningOp<FromScalarOp>() ? wrapped
                 : type.getRank() > 0            ? dims
                                                 : zero;
    slot =
        slot ? promotePair(slot, type.getElementType()) : type.getElementType();
  }
  return promoteKinds(dims, zero, wrapped);
}

LogicalResult
mlir::kiln::inferArithmeticResult(std::optional<Location> loc, StringRef opName,
                                  ValueRange operands,
                                  SmallVectorImpl<Type> &inferred) {
  Type element = promotedElementType(operands);
  if (opName == SubOp::getOperationName() && element.isInteger(1))
    return emitOptionalError(
        loc, "subtracting bool tensors is not supported; use logical "
             "operations or convert with to(kiln::kInt64)");
  if (opName == DivOp::getOperationName() && category(element) != 2)
    element = Float32Type::get(element.getContext());
  SmallVector<Type> types(operands.getTypes());
  return inferBroadcastResult(loc, types, element, inferred);
}

LogicalResult mlir::kiln::inferFloatResult(Type input,
                                           SmallVectorImpl<Type> &inferred) {
  auto type = rankedOf(input);
  Type element = type.getElementType();
  if (category(element) != 2)
    element = Float32Type::get(input.getContext());
  inferred.push_back(type.clone(element));
  return success();
}

Type mlir::kiln::widenedIntegers(Type input) {
  Type element = rankedOf(input).getElementType();
  return category(element) == 2 ? element
                                : IntegerType::get(input.getContext(), 64);
}

/// Checks that the last rank(weight) dims of input equal weight's dims.
/// Equal, or at least one dynamic.
static bool compatibleDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// A linear or convolution bias: [filters].
static LogicalResult checkBias(std::optional<Location> loc, Value bias,
                               int64_t filters) {
  if (!bias)
    return success();
  auto b = rankedOf(bias.getType());
  if (b.getRank() != 1 || !compatibleDims(b.getDimSize(0), filters))
    return emitOptionalError(loc, "the bias must be [", filters, "], got ", b);
  return success();
}

/// Whether `from` may broadcast to `to` without growing it, as far as the
/// static sizes tell: each of its sizes, aligned from the end, 1 or `to`'s
/// (masked_fill's mask to its input, addmm's input to its product).
static bool broadcastsTo(RankedTensorType from, RankedTensorType to) {
  if (from.getRank() > to.getRank())
    return false;
  for (int64_t i = 1; i <= from.getRank(); ++i) {
    int64_t f = from.getDimSize(from.getRank() - i),
            t = to.getDimSize(to.getRank() - i);
    if (f != 1 && !compatibleDims(f, t))
      return false;
  }
  return true;
}

static LogicalResult verifyNormalizedShape(Operation *op, Type inputType,
                                           Type weightType, Value bias) {
  // Checked here, not by an ODS trait, so that an op on open types
  // checks nothing (hasOpenTypes).
  if (rankedOf(inputType).getElementType() !=
      rankedOf(weightType).getElementType())
    return op->emitOpError("the weight's type ")
           << weightType << " differs in element type from the input's "
           << inputType;
  ArrayRef<int64_t> xs = rankedOf(inputType).getShape();
  ArrayRef<int64_t> ws = rankedOf(weightType).getShape();
  bool ok = ws.size() <= xs.size();
  for (size_t i = 0; ok && i < ws.size(); ++i) {
    int64_t x = xs[xs.size() - ws.size() + i], w = ws[i];
    ok = ShapedType::isDynamic(x) || ShapedType::isDynamic(w) || x == w;
  }
  if (!ok)
    return op->emitOpError("the weight's shape ")
           << shapeStr(ws) << " must match the last dims of the input's shape "
           << shapeStr(xs);
  // The bias has the weight's sizes; a size may be static in one and
  // dynamic in the other (a traced graph's mix), checked at run time.
  if (bias) {
    auto bt = rankedOf(bias.getType()), wt = rankedOf(weightType);
    bool compatible = bt.getRank() == wt.getRank() &&
                      bt.getElementType() == wt.getElementType();
    for (int64_t i = 0; compatible && i < bt.getRank(); ++i)
      compatible = compatibleDims(bt.getDimSize(i), wt.getDimSize(i));
    if (!compatible)
      return op->emitOpError("the bias's type ")
             << bias.getType() << " differs from the weight's " << weightType;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  return inferBroadcastResult(
      loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
      IntegerType::get(context, 1), inferred);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  Type lhs = adaptor.getLhs().getType(), rhs = adaptor.getRhs().getType();
  return inferBroadcastResult(
      loc, {adaptor.getCond().getType(), lhs, rhs},
      promotedElementType({adaptor.getLhs(), adaptor.getRhs()}), inferred);
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifyNormalizedShape(*this, getInput().getType(),
                               getWeight().getType(), getBias());
}

LogicalResult RmsNormOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifyNormalizedShape(*this, getInput().getType(),
                               getWeight().getType(), Value());
}

//===----------------------------------------------------------------------===//
// Linear algebra and NN
//===----------------------------------------------------------------------===//

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto q = rankedOf(adaptor.getQuery().getType());
  auto k = rankedOf(adaptor.getKey().getType());
  auto v = rankedOf(adaptor.getValue().getType());
  // Eager's refusal of a non-floating query (Kiln_FloatInput's, here since
  // it comes before the checks below).
  if (!isa<FloatType>(q.getElementType()))
    return refuseElementType(loc, q.getElementType());
  for (RankedTensorType t : {q, k, v})
    if (t.getRank() < 2 || t.getRank() > 4)
      return emitOptionalError(loc,
                               "query, key and value need 2 to 4 dims, "
                               "got ",
                               q, ", ", k, " and ", v);
  Type e = q.getElementType();
  if (k.getElementType() != e || v.getElementType() != e)
    return emitOptionalError(loc,
                             "query, key and value differ in element "
                             "type: ",
                             q, ", ", k, " and ", v);
  if (!compatibleDims(q.getShape().back(), k.getShape().back()) ||
      !compatibleDims(k.getShape()[k.getRank() - 2],
                      v.getShape()[v.getRank() - 2]))
    return emitOptionalError(loc, "query, key and value do not fit: ", q, ", ",
                             k, " and ", v);
  auto batchType = [](RankedTensorType t) {
    return RankedTensorType::get(t.getShape().drop_back(2), t.getElementType());
  };
  SmallVector<Type> batch;
  if (failed(inferBroadcastResult(
          loc, {batchType(q), batchType(k), batchType(v)}, e, batch)))
    return failure();
  SmallVector<int64_t> shape(rankedOf(batch[0]).getShape());
  shape.push_back(q.getShape()[q.getRank() - 2]);
  shape.push_back(v.getShape().back());
  if (Value mask = adaptor.getMask()) {
    auto m = rankedOf(mask.getType());
    if (m.getRank() > static_cast<int64_t>(shape.size()))
      return emitOptionalError(loc, "the mask ", m,
                               " has more dims than the "
                               "scores");
    if (!m.getElementType().isInteger(1) && m.getElementType() != e)
      return emitOptionalError(loc, "the mask ", m, " is neither i1 nor ", e);
    if (adaptor.getIsCausal())
      return emitOptionalError(loc, "a mask with is_causal");
  }
  inferred.push_back(RankedTensorType::get(shape, e));
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto lhs = rankedOf(adaptor.getLhs().getType());
  auto rhs = rankedOf(adaptor.getRhs().getType());
  if (lhs.getRank() == 0 || rhs.getRank() == 0)
    return emitOptionalError(loc, "both operands need at least 1 dim, got ",
                             lhs, " and ", rhs);
  SmallVector<int64_t> a(lhs.getShape()), b(rhs.getShape());
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  int64_t k1 = a.back(), k2 = b[b.size() - 2];
  if (!compatibleDims(k1, k2))
    return emitOptionalError(loc, "shapes ", shapeStr(lhs.getShape()), " and ",
                             shapeStr(rhs.getShape()),
                             " cannot be multiplied: contracting sizes ", k1,
                             " and ", k2, " differ");
  SmallVector<Type> batch;
  auto batchType = [](ArrayRef<int64_t> s, Type e) {
    return RankedTensorType::get(s.drop_back(2), e);
  };
  Type e = promotedElementType({adaptor.getLhs(), adaptor.getRhs()});
  SmallVector<Type> batchResult;
  if (failed(inferBroadcastResult(loc, {batchType(a, e), batchType(b, e)}, e,
                                  batchResult)))
    return failure();
  SmallVector<int64_t> shape(rankedOf(batchResult[0]).getShape());
  if (lhs.getRank() > 1)
    shape.push_back(a[a.size() - 2]);
  if (rhs.getRank() > 1)
    shape.push_back(b.back());
  inferred.push_back(RankedTensorType::get(shape, e));
  return success();
}

/// Operands of a batched product family op of `rank` dims each, named as
/// torch names them.
static LogicalResult checkProductRanks(std::optional<Location> loc,
                                       StringRef name, int64_t rank, Value lhs,
                                       Value rhs) {
  const char *names[2][2] = {{"mat1", "mat2"}, {"batch1", "batch2"}};
  for (int i = 0; i < 2; ++i) {
    auto t = rankedOf((i ? rhs : lhs).getType());
    if (t.getRank() != rank)
      return emitOptionalError(loc, name, ": ", names[rank == 3][i],
                               " must be a ", rank, "-d tensor, got ", t);
  }
  if (rank == 3) {
    int64_t a = rankedOf(lhs.getType()).getDimSize(0),
            b = rankedOf(rhs.getType()).getDimSize(0);
    if (!compatibleDims(a, b))
      return emitOptionalError(loc, name, ": batch sizes differ: ", a, " and ",
                               b);
  }
  return success();
}

LogicalResult BmmOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  if (failed(
          checkProductRanks(loc, "bmm", 3, adaptor.getLhs(), adaptor.getRhs())))
    return failure();
  return MatmulOp::inferReturnTypes(
      context, loc, MatmulOp::Adaptor(adaptor.getOperands()), inferred);
}

double mlir::kiln::factorValue(Attribute factor) {
  if (auto i = dyn_cast<IntegerAttr>(factor))
    return static_cast<double>(i.getInt());
  return cast<FloatAttr>(factor).getValueAsDouble();
}

LogicalResult mlir::kiln::inferScaledProduct(std::optional<Location> loc,
                                             StringRef name, int64_t rank,
                                             Value input, Value lhs, Value rhs,
                                             Attribute beta, Attribute alpha,
                                             SmallVectorImpl<Type> &inferred) {
  if (inferOpen({input, lhs, rhs}, inferred))
    return success();
  SmallVector<Type> product;
  if (failed(checkProductRanks(loc, name, rank, lhs, rhs)) ||
      failed(MatmulOp::inferReturnTypes(input.getContext(), loc,
                                        MatmulOp::Adaptor(ValueRange{lhs, rhs}),
                                        product)))
    return failure();
  auto p = rankedOf(product[0]), in = rankedOf(input.getType());
  // The input broadcasts to the product's shape, or eager refuses it.
  if (!broadcastsTo(in, p))
    return emitOptionalError(
        loc, name, ": input of shape ", shapeStr(in.getShape()),
        " does not broadcast to the product's shape ", shapeStr(p.getShape()));
  MLIRContext *ctx = input.getContext();
  auto factorType = [&](Attribute f) -> Type {
    return isa<IntegerAttr>(f) ? Type(IntegerType::get(ctx, 64))
                               : Type(Float64Type::get(ctx));
  };
  auto isValue = [](Attribute f, double v) { return factorValue(f) == v; };
  // product * alpha, input * beta, then their sum, as the runtime's ops.
  Type scaled = p.getElementType();
  if (!isValue(alpha, 1))
    scaled = promoteKinds(scaled, Type(), factorType(alpha));
  Type e = scaled;
  if (!isValue(beta, 0)) {
    Type x = in.getElementType();
    bool dims = in.getRank() > 0;
    if (!isValue(beta, 1))
      x = dims ? promoteKinds(x, Type(), factorType(beta))
               : promoteKinds(Type(), x, factorType(beta));
    e = dims ? promoteKinds(promotePair(x, scaled), Type(), Type())
             : promoteKinds(scaled, x, Type());
  }
  inferred.push_back(RankedTensorType::get(p.getShape(), e));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto x = rankedOf(adaptor.getInput().getType());
  auto w = rankedOf(adaptor.getWeight().getType());
  if (w.getRank() != 2)
    return emitOptionalError(loc, "the weight must be 2-d [out, in], got ", w);
  if (x.getRank() == 0 || !compatibleDims(x.getShape().back(), w.getDimSize(1)))
    return emitOptionalError(
        loc, "the input's last dim (shape ", shapeStr(x.getShape()),
        ") does not match the weight's in_features ", w.getDimSize(1));
  if (failed(checkBias(loc, adaptor.getBias(), w.getDimSize(0))))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  shape.back() = w.getDimSize(0);
  inferred.push_back(
      RankedTensorType::get(shape, promotedElementType(adaptor.getOperands())));
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto ids = rankedOf(adaptor.getIds().getType());
  auto table = rankedOf(adaptor.getTable().getType());
  if (table.getRank() != 2)
    return emitOptionalError(loc, "the table must be 2-d [rows, dim], got ",
                             table);
  SmallVector<int64_t> shape(ids.getShape());
  shape.push_back(table.getDimSize(1));
  inferred.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto input = rankedOf(adaptor.getInput().getType());
  auto index = rankedOf(adaptor.getIndex().getType());
  int64_t rank = input.getRank(), dim = adaptor.getDim();
  if (index.getRank() != rank)
    return emitOptionalError(loc, "the index must have the input's rank, got ",
                             index, " for ", input);
  if (dim < 0 || dim >= std::max<int64_t>(rank, 1))
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && !input.isDynamicDim(d) && !index.isDynamicDim(d) &&
        index.getDimSize(d) > input.getDimSize(d))
      return emitOptionalError(loc, "the index's dim ", d,
                               " is larger than the input's: ", index, " for ",
                               input);
  inferred.push_back(
      RankedTensorType::get(index.getShape(), input.getElementType()));
  return success();
}

LogicalResult ScatterAddOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  auto input = getInput().getType(), src = getSrc().getType();
  auto index = getIndex().getType();
  int64_t rank = input.getRank(), dim = getDim();
  if (index.getRank() != rank || src.getRank() != rank)
    return emitOpError("the input, index and src must have one rank, got ")
           << input << ", " << index << " and " << src;
  if (src.getElementType() != input.getElementType())
    return emitOpError("src must have the input's element type, got ")
           << src << " for " << input;
  if (failed(verifyDimInRange(getOperation(), dim, std::max<int64_t>(rank, 1),
                              "dim")))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    if (!index.isDynamicDim(d) && !src.isDynamicDim(d) &&
        index.getDimSize(d) > src.getDimSize(d))
      return emitOpError("the index's dim ")
             << d << " is larger than src's: " << index << " for " << src;
    if (d != dim && !index.isDynamicDim(d) && !input.isDynamicDim(d) &&
        index.getDimSize(d) > input.getDimSize(d))
      return emitOpError("the index's dim ")
             << d << " is larger than the input's: " << index << " for "
             << input;
  }
  return success();
}

LogicalResult TopkOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto input = rankedOf(adaptor.getInput().getType());
  int64_t rank = input.getRank(), dim = adaptor.getDim();
  if (dim < 0 || dim >= std::max<int64_t>(rank, 1))
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             rank);
  SmallVector<int64_t> shape(input.getShape());
  if (rank > 0)
    shape[dim] = ShapedType::kDynamic;
  inferred.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

/// An unbatched [C, H, W] image seen as a batch of one (torch's conv2d and
/// 2-d pools take either); `dropBatch` takes the batch off the result again.
static RankedTensorType batchOfOne(RankedTensorType x, bool &unbatched) {
  unbatched = x.getRank() == 3;
  if (!unbatched)
    return x;
  SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin(), 1);
  return x.clone(shape);
}

/// A pool's input as a batch (batchOfOne), or the pool's refusal of its
/// rank.
static FailureOr<RankedTensorType> pooledImages(std::optional<Location> loc,
                                                Type input, bool &unbatched) {
  auto x = batchOfOne(rankedOf(input), unbatched);
  if (x.getRank() != 4)
    return emitOptionalError(loc,
                             "the input must be 4-d (NCHW, or CHW for one "
                             "image), got ",
                             input);
  return x;
}

static RankedTensorType dropBatch(RankedTensorType y, bool unbatched) {
  return unbatched ? y.clone(y.getShape().drop_front()) : y;
}

/// Whether a window parameter known at compile time (not kDynamic) is below
/// minimum.
static bool below(ArrayRef<int64_t> values, int64_t minimum) {
  return llvm::any_of(values, [&](int64_t v) {
    return !ShapedType::isDynamic(v) && v < minimum;
  });
}

/// A convolution's result: its (batched) shape in the operands' promoted
/// element type, without the batch dim for one image.
static RankedTensorType convolved(ArrayRef<int64_t> shape, Value input,
                                  Value weight, Value bias, bool unbatched) {
  SmallVector<Value> tensors = {input, weight};
  if (bias)
    tensors.push_back(bias);
  return dropBatch(RankedTensorType::get(shape, promotedElementType(tensors)),
                   unbatched);
}

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  bool unbatched;
  auto x = batchOfOne(rankedOf(adaptor.getInput().getType()), unbatched);
  auto w = rankedOf(adaptor.getWeight().getType());
  ArrayRef<int64_t> strides = adaptor.getStrides(), pad = adaptor.getPadding(),
                    dilation = adaptor.getDilation();
  int64_t groups = adaptor.getGroups();
  if (x.getRank() != 4 || w.getRank() != 4)
    return emitOptionalError(loc,
                             "input and weight must be 4-d (NCHW, or CHW "
                             "for one image, and OIHW), got ",
                             adaptor.getInput().getType(), " and ", w);
  auto dynamic = [](int64_t v) { return ShapedType::isDynamic(v); };
  if (strides.size() != 2 || pad.size() != 2 || dilation.size() != 2 ||
      below(strides, 1) || below(pad, 0) || below(dilation, 1) ||
      below({groups}, 1))
    return emitOptionalError(loc, "strides and dilation must be two values "
                                  ">= 1, padding two values >= 0 and groups "
                                  ">= 1");
  size_t dynamicParams = llvm::count_if(strides, dynamic) +
                         llvm::count_if(pad, dynamic) +
                         llvm::count_if(dilation, dynamic) + dynamic(groups);
  if (adaptor.getParams().size() != dynamicParams)
    return emitOptionalError(loc, "expected ", dynamicParams,
                             " index operands for the dynamic strides, "
                             "padding, dilation and groups, got ",
                             adaptor.getParams().size());
  int64_t channels = x.getDimSize(1), perGroup = w.getDimSize(1);
  if (!dynamic(groups) && !dynamic(channels) && !dynamic(perGroup) &&
      channels != perGroup * groups)
    return emitOptionalError(loc, "the input has ", channels,
                             " channels but the weight expects ",
                             perGroup * groups);
  if (!dynamic(groups) && !dynamic(w.getDimSize(0)) &&
      w.getDimSize(0) % groups != 0)
    return emitOptionalError(loc, groups, " groups do not divide the ",
                             w.getDimSize(0), " filters");
  if (failed(checkBias(loc, adaptor.getBias(), w.getDimSize(0))))
    return failure();
  SmallVector<int64_t> shape = {x.getDimSize(0), w.getDimSize(0)};
  for (int i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i), k = w.getDimSize(2 + i);
    if (dynamic(in) || dynamic(k) || dynamic(pad[i]) || dynamic(strides[i]) ||
        dynamic(dilation[i])) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t span = dilation[i] * (k - 1) + 1;
    if (in + 2 * pad[i] < span)
      return emitOptionalError(loc,
                               "the kernel is larger than the padded "
                               "input in dim ",
                               2 + i);
    shape.push_back((in + 2 * pad[i] - span) / strides[i] + 1);
  }
  inferred.push_back(convolved(shape, adaptor.getInput(), adaptor.getWeight(),
                               adaptor.getBias(), unbatched));
  return success();
}

LogicalResult ConvTranspose2dOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  bool unbatched;
  auto x = batchOfOne(rankedOf(adaptor.getInput().getType()), unbatched);
  auto w = rankedOf(adaptor.getWeight().getType());
  if (x.getRank() != 4 || w.getRank() != 4)
    return emitOptionalError(loc,
                             "input and weight must be 4-d (NCHW, or CHW "
                             "for one image, and [C, O / groups, kH, kW]), "
                             "got ",
                             adaptor.getInput().getType(), " and ", w);
  ArrayRef<int64_t> strides = adaptor.getStrides(), pad = adaptor.getPadding(),
                    extra = adaptor.getOutputPadding(),
                    dilation = adaptor.getDilation();
  int64_t groups = adaptor.getGroups();
  auto dynamic = [](int64_t v) { return ShapedType::isDynamic(v); };
  if (strides.size() != 2 || pad.size() != 2 || extra.size() != 2 ||
      dilation.size() != 2 || below(strides, 1) || below(pad, 0) ||
      below(extra, 0) || below(dilation, 1) || below({groups}, 1))
    return emitOptionalError(loc, "strides and dilation must be two values "
                                  ">= 1, padding and output_padding two "
                                  "values >= 0 and groups >= 1");
  size_t dynamicParams = llvm::count_if(strides, dynamic) +
                         llvm::count_if(pad, dynamic) +
                         llvm::count_if(extra, dynamic) + dynamic(groups) +
                         llvm::count_if(dilation, dynamic);
  if (adaptor.getParams().size() != dynamicParams)
    return emitOptionalError(loc, "expected ", dynamicParams,
                             " index operands for the dynamic strides, "
                             "padding, output_padding, groups and dilation, "
                             "got ",
                             adaptor.getParams().size());
  for (int i = 0; i < 2; ++i)
    if (!dynamic(extra[i]) && !dynamic(strides[i]) && !dynamic(dilation[i]) &&
        extra[i] >= strides[i] && extra[i] >= dilation[i])
      return emitOptionalError(loc,
                               "output_padding must be smaller than "
                               "either stride or dilation in dim ",
                               2 + i);
  int64_t channels = x.getDimSize(1), perGroup = w.getDimSize(1);
  if (!dynamic(channels) && !dynamic(w.getDimSize(0)) &&
      channels != w.getDimSize(0))
    return emitOptionalError(loc, "the input has ", channels,
                             " channels but the weight expects ",
                             w.getDimSize(0));
  if (!dynamic(groups) && !dynamic(channels) && channels % groups != 0)
    return emitOptionalError(loc, groups, " groups do not divide the ",
                             channels, " channels");
  int64_t filters = dynamic(groups) || dynamic(perGroup) ? ShapedType::kDynamic
                                                         : perGroup * groups;
  if (failed(checkBias(loc, adaptor.getBias(), filters)))
    return failure();
  SmallVector<int64_t> shape = {x.getDimSize(0), filters};
  for (int i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i), k = w.getDimSize(2 + i);
    if (dynamic(in) || dynamic(k) || dynamic(pad[i]) || dynamic(strides[i]) ||
        dynamic(extra[i]) || dynamic(dilation[i])) {
      shape.push_back(kDynamic);
      continue;
    }
    // As eager computes it: an empty dim is not spread.
    int64_t spread = in == 0 ? 0 : (in - 1) * strides[i] + 1;
    int64_t out = spread - 2 * pad[i] + dilation[i] * (k - 1) + extra[i];
    if (out < 1)
      return emitOptionalError(loc, "the output would be empty in dim ", 2 + i);
    shape.push_back(out);
  }
  inferred.push_back(convolved(shape, adaptor.getInput(), adaptor.getWeight(),
                               adaptor.getBias(), unbatched));
  return success();
}

LogicalResult Pool2dOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  bool unbatched;
  FailureOr<RankedTensorType> images =
      pooledImages(loc, adaptor.getInput().getType(), unbatched);
  if (failed(images))
    return failure();
  RankedTensorType x = *images;
  ArrayRef<int64_t> kernel = adaptor.getKernel(),
                    strides = adaptor.getStrides(), pad = adaptor.getPadding(),
                    dilation = adaptor.getDilation();
  auto dynamic = [](int64_t v) { return ShapedType::isDynamic(v); };
  if (kernel.size() != 2 || strides.size() != 2 || pad.size() != 2 ||
      dilation.size() != 2 || below(kernel, 1) || below(strides, 1) ||
      below(pad, 0) || below(dilation, 1))
    return emitOptionalError(loc, "kernel, strides and dilation must be two "
                                  "values >= 1 and padding two values >= 0");
  int64_t ceilMode = adaptor.getCeilMode(),
          countPad = adaptor.getCountIncludePad();
  auto flag = [&](int64_t v) { return dynamic(v) || v == 0 || v == 1; };
  if (!flag(ceilMode) || !flag(countPad))
    return emitOptionalError(loc, "ceil_mode and count_include_pad must be 0 "
                                  "or 1");
  if (adaptor.getKind() == PoolKind::max
          ? countPad != 1 || adaptor.getDivisor()
          : llvm::any_of(dilation, [](int64_t v) { return v != 1; }))
    return emitOptionalError(loc, "dilation is max pooling's, "
                                  "count_include_pad and divisor average "
                                  "pooling's");
  if (adaptor.getDivisor() && *adaptor.getDivisor() == 0)
    return emitOptionalError(loc, "the divisor must be non-zero");
  size_t dynamicParams =
      llvm::count_if(kernel, dynamic) + llvm::count_if(strides, dynamic) +
      llvm::count_if(pad, dynamic) + llvm::count_if(dilation, dynamic) +
      dynamic(ceilMode) + dynamic(countPad);
  if (adaptor.getParams().size() != dynamicParams)
    return emitOptionalError(loc, "expected ", dynamicParams,
                             " index operands for the dynamic window "
                             "parameters, got ",
                             adaptor.getParams().size());
  for (int64_t d = 1; d < 4; ++d)
    if (x.getDimSize(d) == 0)
      return emitOptionalError(loc, "only the batch dim may be empty");
  SmallVector<int64_t> shape = {x.getDimSize(0), x.getDimSize(1)};
  for (int i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i), k = kernel[i], s = strides[i], p = pad[i],
            d = dilation[i];
    if (!dynamic(p) && !dynamic(k) && 2 * p > k)
      return emitOptionalError(loc, "padding must be at most half the kernel "
                                    "size");
    if (dynamic(in) || dynamic(k) || dynamic(s) || dynamic(p) || dynamic(d) ||
        dynamic(ceilMode)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t room = in + 2 * p - (d * (k - 1) + 1) + (ceilMode ? s - 1 : 0);
    int64_t o = (room >= 0 ? room / s : -((-room + s - 1) / s)) + 1;
    if (ceilMode && (o - 1) * s >= in + p)
      --o;
    if (o < 1)
      return emitOptionalError(loc,
                               "the padded input is smaller than the "
                               "kernel in dim ",
                               2 + i);
    shape.push_back(o);
  }
  inferred.push_back(
      dropBatch(RankedTensorType::get(shape, x.getElementType()), unbatched));
  return success();
}

LogicalResult AdaptiveAvgPool2dOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  bool unbatched;
  FailureOr<RankedTensorType> images =
      pooledImages(loc, adaptor.getInput().getType(), unbatched);
  if (failed(images))
    return failure();
  RankedTensorType x = *images;
  ArrayRef<int64_t> sizes = adaptor.getOutputSize();
  auto dynamic = [](int64_t v) { return ShapedType::isDynamic(v); };
  if (sizes.size() != 2 ||
      llvm::any_of(sizes, [&](int64_t v) { return !dynamic(v) && v < 1; }))
    return emitOptionalError(loc, "output_size must be two values >= 1");
  if (adaptor.getParams().size() !=
      static_cast<size_t>(llvm::count_if(sizes, dynamic)))
    return emitOptionalError(loc, "expected ", llvm::count_if(sizes, dynamic),
                             " index operands for the dynamic output size, "
                             "got ",
                             adaptor.getParams().size());
  for (int64_t d = 1; d < 4; ++d)
    if (x.getDimSize(d) == 0)
      return emitOptionalError(loc, "only the batch dim may be empty");
  inferred.push_back(
      dropBatch(RankedTensorType::get(
                    {x.getDimSize(0), x.getDimSize(1), sizes[0], sizes[1]},
                    x.getElementType()),
                unbatched));
  return success();
}

LogicalResult CatOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "needs at least one input");
  auto first = rankedOf(adaptor.getInputs().front().getType());
  int64_t rank = first.getRank(), dim = adaptor.getDim();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             rank);
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [i, v] : llvm::enumerate(adaptor.getInputs())) {
    auto t = rankedOf(v.getType());
    if (t.getRank() != rank)
      return emitOptionalError(loc, "input ", i, " has rank ", t.getRank(),
                               ", input 0 has rank ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim)
        continue;
      if (!compatibleDims(shape[d], t.getDimSize(d)))
        return emitOptionalError(
            loc, "input ", i, " has shape ", shapeStr(t.getShape()),
            " but input 0 has shape ", shapeStr(first.getShape()),
            "; they may differ only in dim ", dim);
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = t.getDimSize(d);
    }
    shape[dim] = ShapedType::isDynamic(shape[dim]) ||
                         ShapedType::isDynamic(t.getDimSize(dim))
                     ? kDynamic
                     : shape[dim] + t.getDimSize(dim);
  }
  inferred.push_back(
      RankedTensorType::get(shape, promotedElementType(adaptor.getInputs())));
  return success();
}

LogicalResult
CrossEntropyOp::inferReturnTypes(MLIRContext *context,
                                 std::optional<Location> loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto logits = rankedOf(adaptor.getLogits().getType());
  auto targets = rankedOf(adaptor.getTargets().getType());
  if (logits.getRank() != 1 && logits.getRank() != 2)
    return emitOptionalError(loc, "logits must be [N, C] or [C], got ", logits);
  if (targets.getRank() != logits.getRank() - 1 ||
      (logits.getRank() == 2 &&
       !compatibleDims(targets.getDimSize(0), logits.getDimSize(0))))
    return emitOptionalError(loc, "targets ", targets, " do not match logits ",
                             logits);
  inferred.push_back(RankedTensorType::get({}, logits.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Views and reshapes
//===----------------------------------------------------------------------===//

/// Why `in` cannot be reshaped to `shape`, where both element counts are
/// known and differ.
static std::optional<std::string>
elementCountMismatch(ShapedType in, ArrayRef<int64_t> shape) {
  auto out = RankedTensorType::get(shape, in.getElementType());
  if (!in.hasStaticShape() || !out.hasStaticShape() ||
      in.getNumElements() == out.getNumElements())
    return std::nullopt;
  return "cannot reshape " + shapeStr(in.getShape()) + " (" +
         std::to_string(in.getNumElements()) + " elements) to " +
         shapeStr(shape) + " (" + std::to_string(out.getNumElements()) +
         " elements)";
}

/// The result's element type is the input's (checked here rather than by an
/// ODS trait, so that an op on open types checks nothing).
static LogicalResult verifySameElementType(Operation *op, Type in, Type out) {
  if (cast<ShapedType>(in).getElementType() ==
      cast<ShapedType>(out).getElementType())
    return success();
  return op->emitOpError("failed to verify that all of {input, result} have "
                         "same element type");
}

/// One index operand per dynamic dim of the result.
static LogicalResult verifyDynamicSizes(Operation *op, Type resultType,
                                        ValueRange sizes) {
  auto result = rankedOf(resultType);
  if (static_cast<int64_t>(sizes.size()) !=
      static_cast<int64_t>(result.getNumDynamicDims()))
    return op->emitOpError("expects one size operand per dynamic dim of ")
           << result << " (" << result.getNumDynamicDims() << "), got "
           << sizes.size();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  auto in = getInput().getType(), out = getResult().getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (failed(verifyDynamicSizes(*this, out, getSizes())))
    return failure();
  if (std::optional<std::string> why = elementCountMismatch(in, out.getShape()))
    return emitOpError(*why);
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  SmallVector<int64_t> shape(in.getShape());
  int64_t d0 = adaptor.getDim0(), d1 = adaptor.getDim1();
  if (d0 < 0 || d1 < 0 || d0 >= in.getRank() || d1 >= in.getRank())
    return emitOptionalError(loc, "dims ", d0, " and ", d1, " must be in [0, ",
                             in.getRank(), ")");
  std::swap(shape[d0], shape[d1]);
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOptionalError(loc, "the permutation has ", perm.size(),
                             " entries for rank ", in.getRank());
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOptionalError(
          loc, "permute's dims are not a permutation of the input's ",
          in.getRank(), " dims (", shapeStr(perm),
          " is not a permutation of [0, ", in.getRank(), "))");
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult SliceOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  auto in = getInput().getType(), out = getResult().getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (failed(verifyDimInRange(*this, getDim(), in.getRank(), "dim")))
    return failure();
  if (static_cast<int64_t>(getStep()) < 1)
    return emitOpError("step must be at least 1, got ") << getStep();
  if (in.getRank() != out.getRank())
    return emitOpError("result rank ")
           << out.getRank() << " differs from input rank " << in.getRank();
  int64_t step = static_cast<int64_t>(getStep());
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t i = in.getDimSize(d), o = out.getDimSize(d);
    if (d == static_cast<int64_t>(getDim())) {
      if (!ShapedType::isDynamic(i) && !ShapedType::isDynamic(o) &&
          o > (i + step - 1) / step)
        return emitOpError("sliced size ") << o << " exceeds what dim " << d
                                           << " of size " << i << " can give";
    } else if (i != o) {
      return emitOpError("dim ")
             << d << " changes from " << shapeStr(in.getShape()) << " to "
             << shapeStr(out.getShape());
    }
  }
  return success();
}

LogicalResult mlir::kiln::inferSliceOfDim(std::optional<Location> loc,
                                          StringRef name, Value input,
                                          int64_t dim, Value start,
                                          Value length,
                                          SmallVectorImpl<Type> &inferred) {
  if (inferOpen(input, inferred))
    return success();
  auto in = rankedOf(input.getType());
  int64_t d = countDim(dim, in.getRank());
  if (d < 0 || d >= in.getRank())
    return emitOptionalError(loc, name, ": dim ", dim,
                             " is out of range for a tensor of rank ",
                             in.getRank());
  int64_t size = in.getDimSize(d);
  SmallVector<int64_t> shape(in.getShape());
  APInt c;
  std::optional<int64_t> from, count;
  if (matchPattern(start, m_ConstantInt(&c)))
    from = c.getSExtValue();
  if (length && matchPattern(length, m_ConstantInt(&c)))
    count = c.getSExtValue();
  if (!length) {
    if (!ShapedType::isDynamic(size) &&
        (size == 0 || (from && (*from < -size || *from >= size))))
      return emitOptionalError(loc, "select: index is out of range for dim ",
                               dim, " of size ", size);
    shape.erase(shape.begin() + d);
  } else {
    if (count && *count < 0)
      return emitOptionalError(loc, "narrow: length ", *count,
                               " must be non-negative");
    if (!ShapedType::isDynamic(size) && count && *count > size)
      return emitOptionalError(loc, "narrow: length ", *count, " exceeds dim ",
                               dim, " of size ", size);
    shape[d] = count ? *count : ShapedType::kDynamic;
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult StackOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "stack: expects a non-empty list of tensors");
  auto first = rankedOf(adaptor.getInputs().front().getType());
  int64_t rank = first.getRank();
  int64_t dim = countDim(adaptor.getDim(), rank + 1);
  if (dim < 0 || dim > rank)
    return emitOptionalError(loc, "stack: dim ", adaptor.getDim(),
                             " is out of range for a tensor of rank ", rank);
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : adaptor.getInputs()) {
    auto t = rankedOf(v.getType());
    bool same = t.getRank() == rank;
    for (int64_t d = 0; same && d < rank; ++d) {
      same = compatibleDims(shape[d], t.getDimSize(d));
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = t.getDimSize(d);
    }
    if (!same)
      return emitOptionalError(loc, "stack: expects tensors of one shape, got ",
                               shapeStr(first.getShape()), " and ",
                               shapeStr(t.getShape()));
  }
  shape.insert(shape.begin() + dim,
               static_cast<int64_t>(adaptor.getInputs().size()));
  inferred.push_back(
      RankedTensorType::get(shape, promotedElementType(adaptor.getInputs())));
  return success();
}

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  auto index = rankedOf(adaptor.getIndex().getType());
  int64_t d = countDim(adaptor.getDim(), in.getRank());
  if (d < 0 || d >= in.getRank())
    return emitOptionalError(loc, "index_select: dim ", adaptor.getDim(),
                             " is out of range for a tensor of rank ",
                             in.getRank());
  if (index.getRank() > 1)
    return emitOptionalError(loc,
                             "index_select: the index must be 1-d, got "
                             "shape ",
                             shapeStr(index.getShape()));
  SmallVector<int64_t> shape(in.getShape());
  shape[d] = index.getRank() == 0 ? 1 : index.getDimSize(0);
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  std::vector<int64_t> ranks;
  for (Value v : adaptor.getOperands())
    ranks.push_back(rankedOf(v.getType()).getRank());
  ::kiln::detail::EinsumPlan plan =
      ::kiln::detail::planEinsum(adaptor.getEquation().str(), ranks);
  if (!plan.error.empty())
    return emitOptionalError(loc, plan.error);
  // Each operand's sizes after its sum and permutation; integers summed
  // widen to i64, as kiln.sum's do.
  SmallVector<SmallVector<int64_t>> t;
  Type e;
  for (auto [v, p] : llvm::zip(adaptor.getOperands(), plan.operands)) {
    auto type = rankedOf(v.getType());
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(p.sumDims, d))
        kept.push_back(type.getDimSize(d));
    t.push_back(
        llvm::map_to_vector(p.perm, [&](int64_t d) { return kept[d]; }));
    Type element = type.getElementType();
    if (!p.sumDims.empty() && !isa<FloatType>(element))
      element = IntegerType::get(context, 64);
    e = e ? promotePair(e, element) : element;
  }
  if (t.size() == 1) {
    inferred.push_back(RankedTensorType::get(t[0], e));
    return success();
  }
  int64_t nb = plan.batch, nl = plan.leftKept, nc = plan.contracted;
  ArrayRef<int64_t> a = t[0], b = t[1];
  SmallVector<int64_t> shape(nb);
  for (int64_t d = 0; d < nb; ++d)
    if (!broadcastDim(a[d], b[d], shape[d]))
      return emitOptionalError(loc, "einsum: batch sizes ", a[d], " and ", b[d],
                               " do not broadcast");
  for (int64_t d = 0; d < nc; ++d) {
    int64_t x = a[nb + nl + d], y = b[nb + d];
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return emitOptionalError(loc, "einsum: a contracted subscript has size ",
                               x, " in one operand and ", y, " in the other");
  }
  llvm::append_range(shape, a.slice(nb, nl));
  llvm::append_range(shape, b.drop_front(nb + nc));
  inferred.push_back(RankedTensorType::get(
      llvm::map_to_vector(plan.outPerm, [&](int64_t d) { return shape[d]; }),
      e));
  return success();
}

/// interpolate's result: a 4-d image of which only the batch may be empty,
/// its last two sizes `out` gives (dynamic where it cannot say).
static LogicalResult
inferInterpolation(std::optional<Location> loc, Value input,
                   InterpolateMode mode, std::optional<bool> alignCorners,
                   function_ref<FailureOr<int64_t>(int64_t size, int i)> out,
                   SmallVectorImpl<Type> &inferred) {
  auto in = rankedOf(input.getType());
  if (in.getRank() != 4)
    return emitOptionalError(
        loc, "interpolate: the input must be 4-d [N, C, H, W], got shape ",
        shapeStr(in.getShape()));
  if (mode == InterpolateMode::nearest && alignCorners)
    return emitOptionalError(
        loc, "interpolate: align_corners is bilinear's, not nearest's");
  if (llvm::is_contained(in.getShape().drop_front(), 0))
    return emitOptionalError(
        loc, "interpolate: only the batch dim may be empty, got shape ",
        shapeStr(in.getShape()));
  SmallVector<int64_t> shape(in.getShape());
  for (int i = 0; i < 2; ++i) {
    FailureOr<int64_t> size = out(in.getDimSize(2 + i), i);
    if (failed(size))
      return failure();
    shape[2 + i] = *size;
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult InterpolateOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  if (adaptor.getSizes().size() != 2)
    return emitOptionalError(loc,
                             "interpolate: two sizes (h, w) are needed, "
                             "got ",
                             adaptor.getSizes().size());
  return inferInterpolation(
      loc, adaptor.getInput(), adaptor.getMode(), adaptor.getAlignCorners(),
      [&](int64_t, int i) -> FailureOr<int64_t> {
        APInt c;
        if (!matchPattern(adaptor.getSizes()[i], m_ConstantInt(&c)))
          return kDynamic;
        if (c.getSExtValue() < 1)
          return emitOptionalError(loc,
                                   "interpolate: size must be at least 1, "
                                   "got ",
                                   c.getSExtValue());
        return c.getSExtValue();
      },
      inferred);
}

LogicalResult InterpolateScaledOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  FloatAttr scale;
  matchPattern(adaptor.getScale(), m_Constant(&scale));
  if (scale && !(scale.getValueAsDouble() > 0))
    return emitOptionalError(loc,
                             "interpolate: scale_factor must be "
                             "positive, got ",
                             scale.getValueAsDouble());
  return inferInterpolation(
      loc, adaptor.getInput(), adaptor.getMode(), adaptor.getAlignCorners(),
      [&](int64_t size, int) -> FailureOr<int64_t> {
        if (!scale || ShapedType::isDynamic(size))
          return kDynamic;
        auto out = static_cast<int64_t>(
            std::floor(static_cast<double>(size) * scale.getValueAsDouble()));
        if (out < 1)
          return emitOptionalError(loc,
                                   "interpolate: size must be at least 1, "
                                   "got ",
                                   out);
        return out;
      },
      inferred);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = in.getRank(), pairs = static_cast<int64_t>(pads.size()) / 2;
  if (pads.size() % 2 != 0 || pairs > rank)
    return emitOptionalError(loc, "pad: ", shapeStr(pads),
                             " must hold a (before, after) pair for each of "
                             "at most ",
                             rank, " trailing dims");
  SmallVector<int64_t> shape(in.getShape());
  for (int64_t j = 0; j < pairs; ++j) {
    int64_t d = rank - 1 - j, before = pads[2 * j], after = pads[2 * j + 1];
    if (adaptor.getMode() == PadMode::reflect && (before < 0 || after < 0))
      return emitOptionalError(loc, "pad: reflect padding ", shapeStr(pads),
                               " must be non-negative");
    if (in.isDynamicDim(d))
      continue;
    int64_t n = in.getDimSize(d);
    shape[d] = n + before + after;
    if (shape[d] < 0)
      return emitOptionalError(loc, "pad: ", shapeStr(pads), " leaves dim ", d,
                               " of size ", n, " with a negative size");
    if (adaptor.getMode() == PadMode::reflect && (before >= n || after >= n))
      return emitOptionalError(loc, "pad: reflect padding ", shapeStr(pads),
                               " must be less than dim ", d, "'s size ", n);
    if (adaptor.getMode() == PadMode::replicate && n == 0 && shape[d] > 0)
      return emitOptionalError(loc, "pad: replicate padding of the empty dim ",
                               d);
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult FullLikeOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

/// A factory's size operand: its value when it is a constant (refused when
/// negative, as eager refuses it), dynamic otherwise.
static FailureOr<int64_t> factorySize(std::optional<Location> loc,
                                      StringRef name, Value size) {
  APInt c;
  if (!matchPattern(size, m_ConstantInt(&c)))
    return kDynamic;
  if (c.isNegative())
    return emitOptionalError(loc, name, ": size ", c.getSExtValue(),
                             " must be non-negative");
  return c.getSExtValue();
}

/// A factory's result: the sizes' constants as static dims, `element`.
static LogicalResult inferFactory(std::optional<Location> loc, StringRef name,
                                  ValueRange sizes, Type element,
                                  SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  for (Value size : sizes) {
    FailureOr<int64_t> s = factorySize(loc, name, size);
    if (failed(s))
      return failure();
    shape.push_back(*s);
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult EyeOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  return inferFactory(loc, "eye", {adaptor.getRows(), adaptor.getCols()},
                      adaptor.getDtype(), inferred);
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto ids = rankedOf(adaptor.getIds().getType());
  if (!ids.getElementType().isInteger(64))
    return emitOptionalError(loc, "one_hot: ids must be int64, got ",
                             ids.getElementType());
  FailureOr<int64_t> classes =
      factorySize(loc, "one_hot", adaptor.getClasses());
  if (failed(classes))
    return failure();
  SmallVector<int64_t> shape(ids.getShape());
  shape.push_back(*classes);
  inferred.push_back(RankedTensorType::get(shape, ids.getElementType()));
  return success();
}

LogicalResult LinspaceOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  Type e = adaptor.getDtype();
  if (!isa<FloatType>(e))
    return emitOptionalError(loc, "linspace: ", unsupportedDTypeMessage(e));
  return inferFactory(loc, "linspace", adaptor.getSteps(), e, inferred);
}

LogicalResult RandintOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  Type e = adaptor.getDtype();
  if (e.isInteger(1))
    return emitOptionalError(loc, "randint: dtype must be numeric, got bool");
  return inferFactory(loc, "randint", adaptor.getSizes(), e, inferred);
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim > in.getRank())
    return emitOptionalError(loc, "dim ", dim, " must be in [0, ", in.getRank(),
                             "]");
  SmallVector<int64_t> shape(in.getShape());
  shape.insert(shape.begin() + dim, 1);
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             in.getRank());
  if (!in.isDynamicDim(dim) && in.getDimSize(dim) != 1)
    return emitOptionalError(loc, "dim ", dim, " of ", in, " is not of size 1");
  SmallVector<int64_t> shape(in.getShape());
  shape.erase(shape.begin() + dim);
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ExpandOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  auto in = getInput().getType(), out = getResult().getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (failed(verifyDynamicSizes(*this, out, getSizes())))
    return failure();
  if (out.getRank() < in.getRank())
    return emitOpError("cannot expand ") << in << " to the lower rank " << out;
  int64_t lead = out.getRank() - in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t i = in.getDimSize(d), o = out.getDimSize(d + lead);
    if (i != 1 && !compatibleDims(i, o))
      return emitOpError("dim ")
             << d << " of size " << i << " cannot be expanded to " << o;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Constants, scalars and sizes
//===----------------------------------------------------------------------===//

LogicalResult FullOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  auto type = getResult().getType();
  if (failed(verifyDynamicSizes(*this, type, getSizes())))
    return failure();
  if (getValue().getType() != type.getElementType())
    return emitOpError("value of type ")
           << getValue().getType() << " does not match the element type "
           << type.getElementType();
  return success();
}

LogicalResult RandomOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifyDynamicSizes(*this, getResult().getType(), getSizes());
}

LogicalResult FromScalarOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  Type scalar = getScalar().getType();
  Type element = getResult().getType().getElementType();
  bool ok = scalar == element ||
            (isa<IndexType>(scalar) && isa<IntegerType>(element) &&
             element.getIntOrFloatBitWidth() > 1);
  if (!ok)
    return emitOpError("cannot hold a ")
           << scalar << " in a tensor of " << element;
  return success();
}

LogicalResult DimOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifyDimInRange(*this, getIndex(), getInput().getType().getRank(),
                          "index");
}

//===----------------------------------------------------------------------===//
// opaque_call
//===----------------------------------------------------------------------===//

LogicalResult
OpaqueCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (hasOpenTypes(*this))
    return success(); // its callee is declared with the types refined
  auto fn =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!fn)
    return emitOpError("'")
           << getCallee() << "' does not name a func.func declaration";
  FunctionType type = fn.getFunctionType();
  if (!llvm::equal(type.getInputs(), getOperands().getTypes()) ||
      !llvm::equal(type.getResults(), getResults().getTypes()))
    return emitOpError("call types ")
           << FunctionType::get(getContext(), getOperands().getTypes(),
                                getResults().getTypes())
           << " do not match '" << getCallee() << "' of type " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

/// A reshape of `in` to `shape` whose element counts both known differ is
/// refused as kiln.reshape's verifier refuses it.
static LogicalResult checkElementCount(std::optional<Location> loc,
                                       ShapedType in, ArrayRef<int64_t> shape) {
  if (std::optional<std::string> why = elementCountMismatch(in, shape))
    return emitOptionalError(loc, *why);
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  int64_t rank = in.getRank();
  if (rank == 0) {
    inferred.push_back(RankedTensorType::get({1}, in.getElementType()));
    return success();
  }
  int64_t start = adaptor.getStartDim(), end = adaptor.getEndDim();
  for (int64_t d : {start, end})
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, "dim ", d, " is out of range for rank ",
                               rank);
  if (start > end)
    return emitOptionalError(loc, "flatten's start dim comes after its end "
                                  "dim");
  SmallVector<int64_t> shape(in.getShape().take_front(start));
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d)
    merged = ShapedType::isDynamic(merged) || in.isDynamicDim(d)
                 ? kDynamic
                 : merged * in.getDimSize(d);
  shape.push_back(merged);
  llvm::append_range(shape, in.getShape().drop_front(end + 1));
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult UnflattenOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             in.getRank());
  // Eager's refusals that constant sizes show: one -1 at most, no other
  // negative size.
  SmallVector<int64_t> written;
  for (Value size : adaptor.getSizes()) {
    APInt value;
    written.push_back(matchPattern(size, m_ConstantInt(&value))
                          ? value.getSExtValue()
                          : kDynamic);
  }
  if (llvm::any_of(written, [](int64_t s) { return s < -1 && s != kDynamic; }))
    return emitOptionalError(loc, "unflatten: invalid size ",
                             shapeStr(written));
  if (llvm::count(written, -1) > 1)
    return emitOptionalError(loc, "unflatten: only one size may be -1, got ",
                             shapeStr(written));
  SmallVector<int64_t> shape(in.getShape().take_front(dim));
  for (int64_t size : written) // a -1 or an unknown size: ?
    shape.push_back(size >= 0 ? size : kDynamic);
  llvm::append_range(shape, in.getShape().drop_front(dim + 1));
  if (failed(checkElementCount(loc, in, shape)))
    return failure();
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult LogsumexpOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  Type input = adaptor.getInput().getType();
  Type e = rankedOf(input).getElementType();
  return inferReductionResult(
      loc, input, adaptor.getDims(), adaptor.getKeepdim(),
      isa<FloatType>(e) ? e : Float32Type::get(context), inferred);
}

LogicalResult LogsumexpOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifyReductionDims(getOperation(), getInput().getType(), getDims());
}

LogicalResult mlir::kiln::inferTriangle(std::optional<Location> loc,
                                        StringRef op, ValueRange operands,
                                        SmallVectorImpl<Type> &inferred) {
  if (inferOpen(operands, inferred))
    return success();
  auto input = rankedOf(operands.front().getType());
  if (input.getRank() < 2)
    return emitOptionalError(
        loc, op, ": input tensor must have at least 2 dimensions, got rank ",
        input.getRank());
  inferred.push_back(input);
  return success();
}

LogicalResult mlir::kiln::inferMaskedFill(std::optional<Location> loc,
                                          Type input, Type mask, Type value,
                                          SmallVectorImpl<Type> &inferred) {
  auto x = rankedOf(input), m = rankedOf(mask);
  if (int64_t rank = rankedOf(value).getRank())
    return emitOptionalError(
        loc,
        "masked_fill only supports a 0-dimensional value tensor, but got "
        "tensor with ",
        rank, " dimension(s).");
  if (!broadcastsTo(m, x))
    return emitOptionalError(loc, "masked_fill: a mask of type ", mask,
                             " does not broadcast to the tensor's type ",
                             input);
  inferred.push_back(x);
  return success();
}

LogicalResult CastLikeOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  inferred.push_back(
      rankedOf(adaptor.getInput().getType())
          .clone(rankedOf(adaptor.getLike().getType()).getElementType()));
  return success();
}

LogicalResult ReshapeAsOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  auto other = rankedOf(adaptor.getOther().getType());
  if (failed(checkElementCount(loc, in, other.getShape())))
    return failure();
  inferred.push_back(other.clone(in.getElementType()));
  return success();
}

LogicalResult ExpandAsOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  auto in = rankedOf(adaptor.getInput().getType());
  auto other = rankedOf(adaptor.getOther().getType());
  if (in.getRank() > other.getRank())
    return emitOptionalError(loc, "expand_as: cannot expand ", in,
                             " to the lower rank of ", other);
  int64_t lead = other.getRank() - in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t i = in.getDimSize(d), o = other.getDimSize(d + lead);
    if (i != 1 && !compatibleDims(i, o))
      return emitOptionalError(loc, "expand_as: dim ", d, " of size ", i,
                               " cannot be expanded to ", o);
  }
  inferred.push_back(other.clone(in.getElementType()));
  return success();
}

/// repeat and tile: the repeats padded with leading 1s to the rank (tile),
/// or refused when fewer (repeat).
static LogicalResult inferRepeated(std::optional<Location> loc, Type input,
                                   ArrayRef<int64_t> repeats, bool padsRepeats,
                                   SmallVectorImpl<Type> &inferred) {
  auto in = rankedOf(input);
  int64_t rank = in.getRank();
  SmallVector<int64_t> reps(repeats);
  if (static_cast<int64_t>(reps.size()) < rank && !padsRepeats)
    return emitOptionalError(loc, "repeat needs at least one repeat per dim");
  while (static_cast<int64_t>(reps.size()) < rank)
    reps.insert(reps.begin(), 1);
  if (llvm::any_of(reps, [](int64_t r) { return r < 0; }))
    return emitOptionalError(loc, "a negative repeat");
  int64_t lead = static_cast<int64_t>(reps.size()) - rank;
  SmallVector<int64_t> shape;
  for (auto [i, r] : llvm::enumerate(reps)) {
    int64_t d = static_cast<int64_t>(i) - lead;
    int64_t size = d < 0 ? 1 : in.getDimSize(d);
    shape.push_back(ShapedType::isDynamic(size) ? kDynamic : size * r);
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult RepeatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  return inferRepeated(loc, adaptor.getInput().getType(), adaptor.getRepeats(),
                       false, inferred);
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  if (inferOpen(adaptor.getOperands(), inferred))
    return success();
  return inferRepeated(loc, adaptor.getInput().getType(), adaptor.getRepeats(),
                       true, inferred);
}

//===----------------------------------------------------------------------===//
// Dims as the source wrote them (DimsOpInterface)
//===----------------------------------------------------------------------===//

int64_t mlir::kiln::countDim(int64_t dim, int64_t rank) {
  return dim < 0 && dim >= -rank ? dim + rank : dim;
}

void mlir::kiln::normalizeDimAttrs(Operation *op, int64_t rank) {
  auto count = [&](int64_t d) { return countDim(d, rank); };
  MLIRContext *ctx = op->getContext();
  for (StringRef name :
       {"dim", "dim0", "dim1", "index", "start_dim", "end_dim"})
    if (auto attr = dyn_cast_or_null<IntegerAttr>(op->getAttr(name)))
      op->setAttr(name, IntegerAttr::get(attr.getType(), count(attr.getInt())));
  for (StringRef name : {"dims", "permutation"}) {
    auto attr = dyn_cast_or_null<DenseI64ArrayAttr>(op->getAttr(name));
    if (!attr)
      continue;
    SmallVector<int64_t> dims = llvm::map_to_vector(attr.asArrayRef(), count);
    if (name == "dims") {
      llvm::sort(dims);
      dims.erase(llvm::unique(dims), dims.end());
    }
    op->setAttr(name, DenseI64ArrayAttr::get(ctx, dims));
  }
}

/// The rank of value's tensor type, or -1 while it is open.
static int64_t rankOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getRank() : -1;
}

/// Dims of op's first operand; a 0-d input takes dim 0 (or -1) as torch's
/// reductions, scans and indexing do.
static void normalizeInputDims(Operation *op, bool scalarTakesDim) {
  if (op->getNumOperands() == 0) // a cat of nothing: its inference says so
    return;
  int64_t rank = rankOf(op->getOperand(0));
  if (rank < 0)
    return;
  normalizeDimAttrs(op, scalarTakesDim ? std::max<int64_t>(rank, 1) : rank);
}

#define KILN_INPUT_DIMS(Op, scalarTakesDim)                                    \
  void Op::normalizeDims() { normalizeInputDims(*this, scalarTakesDim); }
KILN_INPUT_DIMS(SumOp, true)
KILN_INPUT_DIMS(MeanOp, true)
KILN_INPUT_DIMS(LogsumexpOp, true)
KILN_INPUT_DIMS(NormOp, true)
KILN_INPUT_DIMS(VarOp, true)
KILN_INPUT_DIMS(StdOp, true)
KILN_INPUT_DIMS(AmaxOp, true)
KILN_INPUT_DIMS(AminOp, true)
KILN_INPUT_DIMS(ProdOp, true)
KILN_INPUT_DIMS(AnyOp, true)
KILN_INPUT_DIMS(AllOp, true)
KILN_INPUT_DIMS(FlipOp, false)
KILN_INPUT_DIMS(RollOp, false)
KILN_INPUT_DIMS(NarrowOp, false)
KILN_INPUT_DIMS(SelectOp, false)
KILN_INPUT_DIMS(ArgmaxOp, true)
KILN_INPUT_DIMS(ArgminOp, true)
KILN_INPUT_DIMS(CumsumOp, true)
KILN_INPUT_DIMS(CumprodOp, true)
KILN_INPUT_DIMS(TopkOp, true)
KILN_INPUT_DIMS(GatherOp, true)
KILN_INPUT_DIMS(ScatterAddOp, true)
KILN_INPUT_DIMS(SoftmaxOp, false)
KILN_INPUT_DIMS(LogSoftmaxOp, false)
KILN_INPUT_DIMS(CatOp, false)
// stack's dim counts in the result, of one more dim.
void StackOp::normalizeDims() {
  if (getNumOperands() > 0 && rankOf(getOperand(0)) >= 0)
    normalizeDimAttrs(*this, rankOf(getOperand(0)) + 1);
}
KILN_INPUT_DIMS(TransposeOp, false)
KILN_INPUT_DIMS(PermuteOp, false)
KILN_INPUT_DIMS(SliceOp, false)
KILN_INPUT_DIMS(SqueezeOp, false)
KILN_INPUT_DIMS(DimOp, false)
KILN_INPUT_DIMS(FlattenOp, false)
KILN_INPUT_DIMS(UnflattenOp, false)
KILN_INPUT_DIMS(IndexSelectOp, false)
#undef KILN_INPUT_DIMS

void UnsqueezeOp::normalizeDims() {
  // A dim of the result, which has one more.
  if (int64_t rank = rankOf(getInput()); rank >= 0)
    normalizeDimAttrs(*this, rank + 1);
}

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"

LogicalResult FlipOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifySortedDims(
      getOperation(), getDims(),
      cast<RankedTensorType>(getInput().getType()).getRank());
}

LogicalResult RollOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  int64_t rank = cast<RankedTensorType>(getInput().getType()).getRank();
  return verifyDimInRange(getOperation(), getDim(), rank, "dim");
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("clamp: at least one of min and max must be given");
  for (Value bound : {getMin(), getMax()})
    if (bound && !hasOpenTypes(*this) &&
        cast<RankedTensorType>(bound.getType()).getRank() != 0)
      return emitOpError("the bounds must be 0-d, got ") << bound.getType();
  return success();
}

/// A channel norm's input of rank 2 or more and its [C] operands (each
/// present one of rank 1 and of the input's dim 1 where both are static).
static LogicalResult verifyChannelOperands(Operation *op, StringRef name,
                                           StringRef what, Value input,
                                           ArrayRef<Value> operands) {
  auto x = cast<RankedTensorType>(input.getType());
  if (x.getRank() < 2)
    return op->emitOpError(name)
           << ": expected an input of 2 or more dims, got " << x;
  for (Value v : operands) {
    if (!v)
      continue;
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 || !compatibleDims(t.getDimSize(0), x.getDimSize(1)))
      return op->emitOpError(name)
             << ": " << what << " must have shape [C] (the input's dim 1), got "
             << t << " for " << x;
  }
  return success();
}

LogicalResult BatchNormOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  return verifyChannelOperands(
      *this, "batch_norm", "statistics and parameters", getInput(),
      {getRunningMean(), getRunningVar(), getWeight(), getBias()});
}

LogicalResult GroupNormOp::verify() {
  if (hasOpenTypes(*this))
    return success();
  if (failed(verifyChannelOperands(*this, "group_norm", "weight and bias",
                                   getInput(), {getWeight(), getBias()})))
    return failure();
  int64_t channels = cast<RankedTensorType>(getInput().getType()).getDimSize(1);
  if (std::optional<int64_t> groups = getConstantIntValue(getGroups());
      groups && (*groups <= 0 ||
                 (!ShapedType::isDynamic(channels) && channels % *groups != 0)))
    return emitOpError("group_norm: ")
           << channels << " channels do not split into " << *groups
           << " groups";
  return success();
}
