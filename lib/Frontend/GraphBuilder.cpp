//===- GraphBuilder.cpp - A traced graph's kiln ops -----------------------===//
//
// One func.func per graph, built as the tracer walks the source. Host
// integers (sizes included) are `index` inside the graph, converted from
// the i64 the ABI passes. The ops are built on open tensor types, as the
// source wrote them (dims counted from the end, a -1 size, a conversion to
// another tensor's type), and a copy is typed from its inputs' types by the
// dialect's own refinement (refineOp, kiln-refine-types), op by op: an op's
// own refusal, in eager's words, is the graph's error. The elementwise ops
// take their operands as they are and promote as the runtime does (the
// dialect's promotedElementType).
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/GraphBuilder.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"

#include <map>
#include <tuple>
#include <type_traits>

using namespace mlir;

namespace kiln::frontend {

namespace {

Type elementType(MLIRContext *ctx, ElementType e) {
  Builder b(ctx);
  switch (e) {
  case ElementType::F32:
    return b.getF32Type();
  case ElementType::F64:
    return b.getF64Type();
  case ElementType::F16:
    return b.getF16Type();
  case ElementType::BF16:
    return b.getBF16Type();
  case ElementType::I32:
    return b.getI32Type();
  case ElementType::I64:
    return b.getI64Type();
  case ElementType::Bool:
    return b.getI1Type();
  }
  return b.getF32Type();
}

RankedTensorType tensorType(MLIRContext *ctx, const TraceValue &v) {
  return RankedTensorType::get(
      SmallVector<int64_t>(v.rank, ShapedType::kDynamic),
      elementType(ctx, v.element));
}

/// The ABI's type of a scalar input.
Type scalarArgType(MLIRContext *ctx, ValueKind kind) {
  Builder b(ctx);
  switch (kind) {
  case ValueKind::I64:
    return b.getI64Type();
  case ValueKind::F32:
    return b.getF32Type();
  case ValueKind::F64:
    return b.getF64Type();
  case ValueKind::Bool:
    return b.getI1Type();
  case ValueKind::Tensor:
    break;
  }
  return {};
}

/// The type of a scalar inside the graph.
Type scalarType(MLIRContext *ctx, ValueKind kind) {
  return kind == ValueKind::I64 ? IndexType::get(ctx)
                                : scalarArgType(ctx, kind);
}

constexpr int64_t kDyn = ShapedType::kDynamic;

} // namespace

ElementType elementOf(Type t) {
  if (t.isF64())
    return ElementType::F64;
  if (t.isF16())
    return ElementType::F16;
  if (t.isBF16())
    return ElementType::BF16;
  if (t.isInteger(1))
    return ElementType::Bool;
  if (t.isInteger(32))
    return ElementType::I32;
  if (t.isInteger(64))
    return ElementType::I64;
  return ElementType::F32;
}

namespace {

/// A conversion to another type that the graph's types may make a no-op
/// (it then goes when the graph is typed).
constexpr llvm::StringLiteral kConversion = "kiln.conversion";
/// The C++ function an opaque call calls, on the traced op.
constexpr llvm::StringLiteral kCallee = "kiln.callee";

/// A host scalar converted as C++ converts it (a bool is nonzero).
Value castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto isInt = [](Type t) { return isa<IndexType>(t) || isa<IntegerType>(t); };
  if (isa<IndexType>(from) && isa<IntegerType>(to)) {
    if (to.getIntOrFloatBitWidth() == 1)
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                   arith::ConstantIndexOp::create(b, loc, 0));
    return arith::IndexCastOp::create(b, loc, to, v);
  }
  if (isa<IntegerType>(from) && isa<IndexType>(to)) {
    if (from.getIntOrFloatBitWidth() == 1)
      return arith::IndexCastUIOp::create(b, loc, to, v);
    return arith::IndexCastOp::create(b, loc, to, v);
  }
  if (isInt(from) && isa<FloatType>(to)) {
    if (isa<IndexType>(from))
      v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
    if (v.getType().getIntOrFloatBitWidth() == 1)
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  if (isa<FloatType>(from) && isInt(to)) {
    if (to.isInteger(1))
      return arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::UNE, v,
          arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0)));
    Value i = arith::FPToSIOp::create(b, loc, b.getI64Type(), v);
    return isa<IndexType>(to) ? Value(arith::IndexCastOp::create(b, loc, to, i))
                              : i;
  }
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, v))
               : Value(arith::TruncFOp::create(b, loc, to, v));
  return v;
}

/// One traced op, as the tracer describes it (TracedOps.def).
struct TracedOp {
  OpCode code;
  const std::vector<int> &operands;
  const std::vector<int64_t> &ints;
  double number;
  const std::string &text;
  int result;
  const SourcePos &pos;

  /// layer_norm and rms_norm with ints {1}: their eps is known only at run
  /// time, the last operand (an f64 scalar), not `number`.
  bool hasRuntimeEps() const { return !ints.empty() && ints[0] == 1; }
  /// The tensor operands of a norm: all but a run-time eps.
  size_t normTensorOperands() const {
    return operands.size() - (hasRuntimeEps() ? 1 : 0);
  }
};

llvm::Error opError(const TracedOp &op, const std::string &why) {
  return llvm::createStringError(std::string("kiln::") + opName(op.code) +
                                 " at " + op.pos.file + ":" +
                                 std::to_string(op.pos.line) + ": " + why);
}

/// "kiln::NAME at FILE:LINE: why" for an op at `loc` (a traced op's
/// location names its runtime function).
llvm::Error opErrorAt(Location loc, const std::string &why) {
  std::string name;
  SourcePos pos = sourceOf(loc, &name);
  std::string where = pos.file.empty()
                          ? ""
                          : " at " + pos.file + ":" + std::to_string(pos.line);
  return llvm::createStringError(name + where + ": " + why);
}

/// Where an op of a traced op is: its source, named after the runtime
/// function it was traced from.
Location locationOf(MLIRContext *ctx, OpCode code, const SourcePos &pos) {
  if (pos.file.empty()) // an input's conversion
    return UnknownLoc::get(ctx);
  return NameLoc::get(
      StringAttr::get(ctx, std::string("kiln::") + opName(code)),
      FileLineColLoc::get(ctx, pos.file, pos.line, pos.column));
}

/// Builds the ops of traced ops at the end of a graph's body.
class OpEmitter {
public:
  OpEmitter(Graph &graph, const SourcePos &pos, OpCode code)
      : ctx_(graph.body->module->getContext()), b_(ctx_), graph_(graph),
        body_(*graph.body), loc_(locationOf(ctx_, code, pos)) {
    b_.setInsertionPointToEnd(&body_.entry());
  }

  llvm::Error build(const TracedOp &op) { return emit(op); }

  /// A value of `result`'s kind that stands for an op that could not be
  /// built (the graph then fails to type with its error).
  void placeholder(int result) {
    ValueKind kind = graph_.values[result].kind;
    Type type = kind == ValueKind::Tensor ? mlir::kiln::openTensorType(ctx_)
                                          : scalarType(ctx_, kind);
    setValue(result,
             UnrealizedConversionCastOp::create(b_, loc_, type, ValueRange{})
                 .getResult(0));
  }

  /// The value of input `in`: its argument (an index for an integer).
  void input(const GraphInput &in) {
    Block &entry = body_.entry();
    ValueKind kind = graph_.values[in.value].kind;
    Value arg = entry.addArgument(kind == ValueKind::Tensor
                                      ? mlir::kiln::openTensorType(ctx_)
                                      : scalarArgType(ctx_, kind),
                                  loc_);
    body_.updateType();
    if (kind == ValueKind::I64)
      arg = arith::IndexCastOp::create(b_, loc_, b_.getIndexType(), arg);
    setValue(in.value, arg);
  }

private:
  Value get(int v) const { return body_.values.at(v); }

  /// Whether a builder's arguments start with the result type.
  template <typename... Args> static constexpr bool givesTypes() {
    if constexpr (sizeof...(Args) == 0)
      return false;
    else
      return std::is_convertible_v<
          std::tuple_element_t<0, std::tuple<std::decay_t<Args>...>>, Type>;
  }

  /// OpTy built on an open result type (or the type it states), with its
  /// dims as the source wrote them: build() types it (refineOp).
  template <typename OpTy, typename... Args> OpTy make(Args &&...args) {
    if constexpr (!OpTy::template hasTrait<InferTypeOpInterface::Trait>() ||
                  givesTypes<Args...>()) {
      return OpTy::create(b_, loc_, std::forward<Args>(args)...);
    } else {
      OperationState state(loc_, OpTy::getOperationName());
      OpTy::build(b_, state, mlir::kiln::openTensorType(ctx_),
                  std::forward<Args>(args)...);
      auto op = cast<OpTy>(b_.create(state));
      // What it gives on open operands (an index for kiln.dim).
      (void)mlir::kiln::inferResultTypes(
          cast<InferTypeOpInterface>(op.getOperation()));
      return op;
    }
  }
  const TraceValue &info(int v) const { return graph_.values[v]; }

  /// A conversion the graph's types may make a no-op (it then goes).
  Value convert(Operation *op) {
    op->setAttr(kConversion, UnitAttr::get(ctx_));
    return op->getResult(0);
  }
  /// v in element type e: a conversion.
  Value tensorAs(int v, ElementType e) {
    return convert(make<mlir::kiln::CastOp>(
        UnrankedTensorType::get(elementType(ctx_, e)), get(v)));
  }
  /// v in the element type of like: a conversion.
  Value tensorLike(int v, Value like) {
    return convert(make<mlir::kiln::CastLikeOp>(get(v), like));
  }
  /// A ranked tensor type whose element type refinement completes.
  RankedTensorType shaped(ArrayRef<int64_t> sizes) {
    return RankedTensorType::get(sizes, mlir::kiln::OpenType::get(ctx_));
  }

  Value scalarCast(Value v, Type to) { return castScalar(b_, loc_, v, to); }

  llvm::Error emitScalar(const TracedOp &op) {
    const TraceValue &r = info(op.result);
    Type type = scalarType(ctx_, r.kind);
    OpCode c = op.code;
    Value out;
    bool isFloat = isa<FloatType>(type);
    auto arg = [&](size_t i) { return get(op.operands[i]); };
    if (c == OpCode::Const) {
      if (isa<IndexType>(type))
        out = arith::ConstantIndexOp::create(b_, loc_,
                                             static_cast<int64_t>(op.number));
      else if (isFloat)
        out = arith::ConstantOp::create(b_, loc_,
                                        b_.getFloatAttr(type, op.number));
      else
        out = arith::ConstantOp::create(
            b_, loc_, b_.getIntegerAttr(type, op.number != 0));
    } else if (c == OpCode::Dim) {
      out = make<mlir::kiln::DimOp>(arg(0), b_.getI64IntegerAttr(op.ints[0]));
    } else if (c == OpCode::Rank) {
      out = make<mlir::kiln::RankOp>(arg(0));
    } else if (c == OpCode::Numel) {
      out = make<mlir::kiln::NumelOp>(arg(0));
    } else if (c == OpCode::ScalarCast) {
      out = scalarCast(arg(0), type);
    } else if (c == OpCode::Check) {
      // A failed check fails the graph call (kiln-lower-shape-asserts).
      ctx_->getOrLoadDialect<cf::ControlFlowDialect>();
      cf::AssertOp::create(b_, loc_, arg(0), op.text);
      out = arg(0);
    } else if (c == OpCode::ScalarNeg) {
      out = isFloat ? Value(arith::NegFOp::create(b_, loc_, arg(0)))
                    : Value(arith::SubIOp::create(
                          b_, loc_, arith::ConstantIndexOp::create(b_, loc_, 0),
                          arg(0)));
    } else if (c == OpCode::ScalarAdd) {
      out = isFloat ? Value(arith::AddFOp::create(b_, loc_, arg(0), arg(1)))
                    : Value(arith::AddIOp::create(b_, loc_, arg(0), arg(1)));
    } else if (c == OpCode::ScalarSub) {
      out = isFloat ? Value(arith::SubFOp::create(b_, loc_, arg(0), arg(1)))
                    : Value(arith::SubIOp::create(b_, loc_, arg(0), arg(1)));
    } else if (c == OpCode::ScalarMul) {
      out = isFloat ? Value(arith::MulFOp::create(b_, loc_, arg(0), arg(1)))
                    : Value(arith::MulIOp::create(b_, loc_, arg(0), arg(1)));
    } else if (c == OpCode::ScalarDiv) {
      out = isFloat ? Value(arith::DivFOp::create(b_, loc_, arg(0), arg(1)))
                    : Value(arith::DivSIOp::create(b_, loc_, arg(0), arg(1)));
    } else if (c == OpCode::ScalarRem && !isFloat) {
      out = arith::RemSIOp::create(b_, loc_, arg(0), arg(1));
    } else if (isFloat && c == OpCode::ScalarSqrt) {
      out = math::SqrtOp::create(b_, loc_, arg(0));
    } else if (isFloat && c == OpCode::ScalarExp) {
      out = math::ExpOp::create(b_, loc_, arg(0));
    } else if (isFloat && c == OpCode::ScalarLog) {
      out = math::LogOp::create(b_, loc_, arg(0));
    } else if (isFloat && c == OpCode::ScalarTanh) {
      out = math::TanhOp::create(b_, loc_, arg(0));
    } else if (isFloat && c == OpCode::ScalarPow) {
      out = math::PowFOp::create(b_, loc_, arg(0), arg(1));
    } else if (c == OpCode::ScalarAbs) {
      out = isFloat
                ? Value(math::AbsFOp::create(b_, loc_, arg(0)))
                : Value(arith::MaxSIOp::create(
                      b_, loc_, arg(0),
                      arith::SubIOp::create(
                          b_, loc_, arith::ConstantIndexOp::create(b_, loc_, 0),
                          arg(0))));
    } else if (c == OpCode::Select) {
      out = arith::SelectOp::create(b_, loc_, arg(0), arg(1),
                                    scalarCast(arg(2), type));
    } else if (c == OpCode::ScalarCmp) {
      Value l = arg(0), r = arg(1);
      if (isa<FloatType>(l.getType())) {
        static const arith::CmpFPredicate p[] = {
            arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
            arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE,
            arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE};
        out = arith::CmpFOp::create(b_, loc_, p[op.ints[0]], l, r);
      } else {
        static const arith::CmpIPredicate p[] = {
            arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
            arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge,
            arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne};
        out = arith::CmpIOp::create(b_, loc_, p[op.ints[0]], l, r);
      }
    } else if (c == OpCode::ScalarAnd) {
      out = arith::AndIOp::create(b_, loc_, arg(0), arg(1));
    } else if (c == OpCode::ScalarOr) {
      out = arith::OrIOp::create(b_, loc_, arg(0), arg(1));
    } else if (c == OpCode::ScalarNot) {
      out = arith::XOrIOp::create(
          b_, loc_, arg(0),
          arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(true)));
    } else if (c == OpCode::ScalarMin || c == OpCode::ScalarMax) {
      bool min = c == OpCode::ScalarMin;
      out =
          isFloat
              ? (min ? Value(
                           arith::MinimumFOp::create(b_, loc_, arg(0), arg(1)))
                     : Value(
                           arith::MaximumFOp::create(b_, loc_, arg(0), arg(1))))
              : (min ? Value(arith::MinSIOp::create(b_, loc_, arg(0), arg(1)))
                     : Value(arith::MaxSIOp::create(b_, loc_, arg(0), arg(1))));
    } else {
      return llvm::createStringError(llvm::Twine("no lowering for ") +
                                     opName(c));
    }
    setValue(op.result, out);
    return llvm::Error::success();
  }

  /// Sizes for reshape/full: constants become static dims of the type, the
  /// rest index operands; one -1 is inferred from the element count.
  void shape(const TracedOp &op, size_t first, Value input,
             SmallVector<int64_t> &staticSizes, SmallVector<Value> &dynamic) {
    SmallVector<std::optional<int64_t>> constants;
    for (size_t i = first; i < op.operands.size(); ++i) {
      std::optional<double> c = graph_.constantValue(op.operands[i]);
      constants.push_back(c ? std::optional<int64_t>(static_cast<int64_t>(*c))
                            : std::nullopt);
    }
    int inferred = -1;
    for (size_t i = 0; i < constants.size(); ++i)
      if (constants[i] && *constants[i] == -1)
        inferred = static_cast<int>(i);
    for (size_t i = 0; i < constants.size(); ++i) {
      if (static_cast<int>(i) == inferred) {
        // numel(input) / product(other sizes)
        Value numel = make<mlir::kiln::NumelOp>(input);
        Value others = arith::ConstantIndexOp::create(b_, loc_, 1);
        for (size_t j = 0; j < constants.size(); ++j)
          if (j != i)
            others = arith::MulIOp::create(b_, loc_, others,
                                           get(op.operands[first + j]));
        // A zero product would divide by zero: 1 instead (the reshape's own
        // element-count check then fails as eager's does).
        Value zero = arith::ConstantIndexOp::create(b_, loc_, 0);
        Value isZero = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                             others, zero);
        others = arith::SelectOp::create(
            b_, loc_, isZero, arith::ConstantIndexOp::create(b_, loc_, 1),
            others);
        staticSizes.push_back(ShapedType::kDynamic);
        dynamic.push_back(arith::DivSIOp::create(b_, loc_, numel, others));
      } else if (constants[i] && *constants[i] >= 0) {
        staticSizes.push_back(*constants[i]);
      } else {
        staticSizes.push_back(ShapedType::kDynamic);
        dynamic.push_back(get(op.operands[first + i]));
      }
    }
  }

  llvm::Error emit(const TracedOp &op) {
    const TraceValue &r = info(op.result);
    if (r.kind != ValueKind::Tensor)
      return emitScalar(op);
    OpCode c = op.code;
    Value out;
    if (c == OpCode::FromScalar) {
      // A wrapped number in the type its C++ kind promotes as.
      Value s = get(op.operands[0]);
      ValueKind kind = info(op.operands[0]).kind;
      Type el = elementType(ctx_, kind == ValueKind::Bool  ? ElementType::Bool
                                  : kind == ValueKind::I64 ? ElementType::I64
                                  : kind == ValueKind::F64 ? ElementType::F64
                                                           : ElementType::F32);
      if (!isa<IndexType>(s.getType()) || el.isInteger(1))
        s = scalarCast(s, el);
      out = make<mlir::kiln::FromScalarOp>(RankedTensorType::get({}, el), s);
    } else if (opGroup(c) == OpGroup::Binary || c == OpCode::Cmp) {
      // Operands as they are: the ops promote (kiln-materialize-promotions
      // casts them before lowering).
      Value l = get(op.operands[0]), rr = get(op.operands[1]);
      switch (c) {
#define KILN_BINARY_OP(E, NAME)                                                \
  case OpCode::E:                                                              \
    out = make<mlir::kiln::E##Op>(l, rr);                                      \
    break;
#include "kiln/Frontend/TracedOps.def"
      default:
        out = make<mlir::kiln::CmpOp>(
            static_cast<mlir::kiln::CmpPredicate>(op.ints[0]), l, rr);
      }
    } else if (c == OpCode::Where) {
      Value cond = tensorAs(op.operands[0], ElementType::Bool);
      out = make<mlir::kiln::WhereOp>(cond, get(op.operands[1]),
                                      get(op.operands[2]));
    } else if (opGroup(c) == OpGroup::UnaryFloat ||
               opGroup(c) == OpGroup::Unary) {
      Value x = get(op.operands[0]);
      switch (c) {
#define KILN_UNARY_FLOAT_OP(E, NAME)                                           \
  case OpCode::E:                                                              \
    out = make<mlir::kiln::E##Op>(x);                                          \
    break;
#define KILN_UNARY_OP(E, NAME) KILN_UNARY_FLOAT_OP(E, NAME)
#include "kiln/Frontend/TracedOps.def"
      default:
        break;
      }
    } else if (c == OpCode::Gelu) {
      Value x = get(op.operands[0]);
      if (op.text != "none" && op.text != "tanh")
        return llvm::createStringError("gelu approximation '" + op.text + "'");
      out = make<mlir::kiln::GeluOp>(
          x, op.text == "tanh" ? mlir::kiln::GeluApproximation::tanh
                               : mlir::kiln::GeluApproximation::none);
    } else if (opGroup(c) == OpGroup::Reduction) {
      // The ops take the input as it is (sum and prod widen integers), and
      // the dims as written (make counts them).
      Value x = get(op.operands[0]);
      auto dimsAttr =
          b_.getDenseI64ArrayAttr(ArrayRef<int64_t>(op.ints).drop_front());
      UnitAttr keep = op.ints[0] ? b_.getUnitAttr() : UnitAttr();
      switch (c) {
#define KILN_REDUCTION_OP(E, NAME)                                             \
  case OpCode::E:                                                              \
    out = make<mlir::kiln::E##Op>(x, dimsAttr, keep);                          \
    break;
#include "kiln/Frontend/TracedOps.def"
      default:
        break;
      }
    } else if (c == OpCode::Var || c == OpCode::Std) {
      Value x = get(op.operands[0]);
      auto dims =
          b_.getDenseI64ArrayAttr(ArrayRef<int64_t>(op.ints).drop_front());
      UnitAttr keep = op.ints[0] ? b_.getUnitAttr() : UnitAttr();
      Value runtime = op.operands.size() > 1
                          ? scalarCast(get(op.operands[1]), b_.getIndexType())
                          : Value();
      auto correction = b_.getI64IntegerAttr(static_cast<int64_t>(op.number));
      out = c == OpCode::Var ? Value(make<mlir::kiln::VarOp>(x, dims, runtime,
                                                             correction, keep))
                             : Value(make<mlir::kiln::StdOp>(x, dims, runtime,
                                                             correction, keep));
    } else if (c == OpCode::Tril || c == OpCode::Triu) {
      Value x = get(op.operands[0]);
      auto diagonal = b_.getI64IntegerAttr(op.ints[0]);
      out = c == OpCode::Tril ? Value(make<mlir::kiln::TrilOp>(x, diagonal))
                              : Value(make<mlir::kiln::TriuOp>(x, diagonal));
    } else if (c == OpCode::Softmax || c == OpCode::LogSoftmax) {
      Value x = get(op.operands[0]);
      auto dim = b_.getI64IntegerAttr(op.ints[0]);
      out = c == OpCode::Softmax
                ? Value(make<mlir::kiln::SoftmaxOp>(x, dim))
                : Value(make<mlir::kiln::LogSoftmaxOp>(x, dim));
    } else if (c == OpCode::LayerNorm || c == OpCode::RmsNorm) {
      // The weight and bias in the input's type.
      Value x = get(op.operands[0]);
      Value w = tensorLike(op.operands[1], x);
      auto eps = b_.getF64FloatAttr(op.number);
      Value epsValue = op.hasRuntimeEps() ? scalarCast(get(op.operands.back()),
                                                       b_.getF64Type())
                                          : Value();
      size_t tensors = op.normTensorOperands();
      if (c == OpCode::LayerNorm)
        out = make<mlir::kiln::LayerNormOp>(
            x, w, tensors > 2 ? tensorLike(op.operands[2], x) : Value(),
            epsValue, eps);
      else
        out = make<mlir::kiln::RmsNormOp>(x, w, epsValue, eps);
    } else if (c == OpCode::Matmul) {
      out =
          make<mlir::kiln::MatmulOp>(get(op.operands[0]), get(op.operands[1]));
    } else if (c == OpCode::Attention) {
      // operands q, k, v, [mask], [scale]; ints is_causal, has mask, scale.
      Value mask = op.ints[1] ? get(op.operands[3]) : Value();
      Value scale = op.ints[2]
                        ? scalarCast(get(op.operands.back()), b_.getF64Type())
                        : Value();
      out = make<mlir::kiln::ScaledDotProductAttentionOp>(
          get(op.operands[0]), get(op.operands[1]), get(op.operands[2]), mask,
          scale, op.ints[0] != 0);
    } else if (c == OpCode::Linear) {
      out = make<mlir::kiln::LinearOp>(
          get(op.operands[0]), get(op.operands[1]),
          op.operands.size() > 2 ? get(op.operands[2]) : Value());
    } else if (c == OpCode::Embedding) {
      // Inferred: static dims of the ids' (an unsqueeze's 1) stay static.
      out = make<mlir::kiln::EmbeddingOp>(get(op.operands[0]),
                                          get(op.operands[1]));
    } else if (c == OpCode::Cumsum || c == OpCode::Cumprod) {
      // In its dtype when one is given (refinement scans integers as i64;
      // eager refuses to scan in int32 or bool).
      if (op.ints[1] >= 0) {
        ElementType e = elementOfDType(op.ints[1]);
        if (e == ElementType::I32 || e == ElementType::Bool)
          return opError(
              op, mlir::kiln::unsupportedDTypeMessage(elementType(ctx_, e)));
      }
      Value x = op.ints[1] >= 0
                    ? tensorAs(op.operands[0], elementOfDType(op.ints[1]))
                    : get(op.operands[0]);
      auto dim = b_.getI64IntegerAttr(op.ints[0]);
      out = c == OpCode::Cumsum ? Value(make<mlir::kiln::CumsumOp>(x, dim))
                                : Value(make<mlir::kiln::CumprodOp>(x, dim));
    } else if (c == OpCode::Topk) {
      out = make<mlir::kiln::TopkOp>(
          get(op.operands[0]),
          scalarCast(get(op.operands[1]), b_.getIndexType()),
          b_.getI64IntegerAttr(op.ints[0]),
          op.ints[1] ? b_.getUnitAttr() : UnitAttr());
    } else if (c == OpCode::ScatterAdd) {
      Value x = get(op.operands[0]);
      out = make<mlir::kiln::ScatterAddOp>(x, get(op.operands[1]),
                                           get(op.operands[2]),
                                           b_.getI64IntegerAttr(op.ints[0]));
    } else if (c == OpCode::Gather) {
      out = make<mlir::kiln::GatherOp>(get(op.operands[0]), get(op.operands[1]),
                                       b_.getI64IntegerAttr(op.ints[0]));
    } else if (c == OpCode::CrossEntropy) {
      out = make<mlir::kiln::CrossEntropyOp>(get(op.operands[0]),
                                             get(op.operands[1]));
    } else if (c == OpCode::Conv2d) {
      // ints: sh, sw, ph, pw, dh, dw, groups (kRuntimeAttr: the next scalar
      // operand), bias.
      size_t tensors = op.ints[7] ? 3 : 2;
      SmallVector<Value> params;
      SmallVector<int64_t> attrs;
      for (size_t i = 0; i < 7; ++i) {
        bool runtime = op.ints[i] == kRuntimeAttr;
        attrs.push_back(runtime ? ShapedType::kDynamic : op.ints[i]);
        if (runtime)
          params.push_back(get(op.operands[tensors + params.size()]));
      }
      // (A [C, H, W] input is convolved as one image.)
      Value x = get(op.operands[0]);
      out = make<mlir::kiln::Conv2dOp>(
          x, get(op.operands[1]), tensors > 2 ? get(op.operands[2]) : Value(),
          params, b_.getDenseI64ArrayAttr({attrs[0], attrs[1]}),
          b_.getDenseI64ArrayAttr({attrs[2], attrs[3]}),
          b_.getDenseI64ArrayAttr({attrs[4], attrs[5]}),
          b_.getI64IntegerAttr(attrs[6]));
    } else if (c == OpCode::AdaptiveAvgPool2d || c == OpCode::Pool2d) {
      // Pool2d ints: kind, kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode,
      // count_include_pad, divisor (0: none); AdaptiveAvgPool2d ints: h, w.
      // kRuntimeAttr: the next scalar operand. A [C, H, W] input is pooled
      // as one image.
      bool adaptive = c == OpCode::AdaptiveAvgPool2d;
      Value x = get(op.operands[0]);
      SmallVector<Value> params;
      SmallVector<int64_t> attrs;
      for (size_t i = adaptive ? 0 : 1; i < (adaptive ? 2 : 11); ++i) {
        bool runtime = op.ints[i] == kRuntimeAttr;
        attrs.push_back(runtime ? ShapedType::kDynamic : op.ints[i]);
        if (runtime)
          params.push_back(scalarCast(get(op.operands[1 + params.size()]),
                                      b_.getIndexType()));
      }
      auto pair = [&](size_t i) {
        return b_.getDenseI64ArrayAttr({attrs[i], attrs[i + 1]});
      };
      if (adaptive)
        out = make<mlir::kiln::AdaptiveAvgPool2dOp>(x, params, pair(0));
      else
        out = make<mlir::kiln::Pool2dOp>(
            mlir::kiln::PoolKindAttr::get(
                ctx_, op.ints[0] ? mlir::kiln::PoolKind::avg
                                 : mlir::kiln::PoolKind::max),
            x, params, pair(0), pair(2), pair(4), pair(6),
            b_.getI64IntegerAttr(attrs[8]), b_.getI64IntegerAttr(attrs[9]),
            op.ints[11] ? b_.getI64IntegerAttr(op.ints[11]) : IntegerAttr());
    } else if (c == OpCode::Cat) {
      SmallVector<Value> inputs;
      for (int o : op.operands)
        inputs.push_back(get(o));
      out = make<mlir::kiln::CatOp>(inputs, b_.getI64IntegerAttr(op.ints[0]));
    } else if (c == OpCode::Expand) {
      // Trailing dims align; -1 keeps the input's size: that dim of the
      // input, counted from the end (static once refined where it is).
      Value x = get(op.operands[0]);
      int64_t rank = static_cast<int64_t>(op.operands.size()) - 1;
      SmallVector<int64_t> sizes;
      SmallVector<Value> dynamic;
      for (int64_t d = 0; d < rank; ++d) {
        int operand = op.operands[1 + d];
        std::optional<double> c = graph_.constantValue(operand);
        if (c && *c >= 0) {
          sizes.push_back(static_cast<int64_t>(*c));
          continue;
        }
        sizes.push_back(ShapedType::kDynamic);
        dynamic.push_back(c && *c == -1
                              ? Value(make<mlir::kiln::DimOp>(
                                    x, b_.getI64IntegerAttr(d - rank)))
                              : get(operand));
      }
      out = make<mlir::kiln::ExpandOp>(shaped(sizes), x, dynamic);
    } else if (c == OpCode::Reshape) {
      SmallVector<int64_t> sizes;
      SmallVector<Value> dynamic;
      shape(op, 1, get(op.operands[0]), sizes, dynamic);
      out = make<mlir::kiln::ReshapeOp>(shaped(sizes), get(op.operands[0]),
                                        dynamic);
    } else if (c == OpCode::Full) {
      SmallVector<int64_t> sizes;
      SmallVector<Value> dynamic;
      shape(op, 0, Value(), sizes, dynamic);
      Type el = elementType(ctx_, elementOfDType(op.ints[0]));
      // A bool fill is true for any nonzero value, as eager's.
      TypedAttr value =
          isa<FloatType>(el) ? TypedAttr(b_.getFloatAttr(el, op.number))
          : el.isInteger(1)  ? TypedAttr(b_.getBoolAttr(op.number != 0))
                             : TypedAttr(b_.getIntegerAttr(
                                   el, static_cast<int64_t>(op.number)));
      out = make<mlir::kiln::FullOp>(RankedTensorType::get(sizes, el), dynamic,
                                     value);
    } else if (c == OpCode::Random) {
      SmallVector<int64_t> sizes;
      SmallVector<Value> dynamic;
      shape(op, 1, Value(), sizes, dynamic);
      out = make<mlir::kiln::RandomOp>(
          RankedTensorType::get(sizes,
                                elementType(ctx_, elementOfDType(op.ints[1]))),
          op.ints[0] ? mlir::kiln::RandomDistribution::normal
                     : mlir::kiln::RandomDistribution::uniform,
          scalarCast(get(op.operands[0]), b_.getIndexType()), dynamic);
    } else if (c == OpCode::Transpose) {
      out = make<mlir::kiln::TransposeOp>(get(op.operands[0]),
                                          b_.getI64IntegerAttr(op.ints[0]),
                                          b_.getI64IntegerAttr(op.ints[1]));
    } else if (c == OpCode::Permute) {
      out = make<mlir::kiln::PermuteOp>(get(op.operands[0]),
                                        b_.getDenseI64ArrayAttr(op.ints));
    } else if (c == OpCode::Unsqueeze) {
      out = make<mlir::kiln::UnsqueezeOp>(get(op.operands[0]),
                                          b_.getI64IntegerAttr(op.ints[0]));
    } else if (c == OpCode::ReshapeAs) {
      out = make<mlir::kiln::ReshapeAsOp>(get(op.operands[0]),
                                          get(op.operands[1]));
    } else if (c == OpCode::Repeat) {
      // tile pads the repeats to the rank; repeat needs one per dim.
      Value x = get(op.operands[0]);
      auto reps = b_.getDenseI64ArrayAttr(op.ints);
      out = op.text == "tile" ? Value(make<mlir::kiln::TileOp>(x, reps))
                              : Value(make<mlir::kiln::RepeatOp>(x, reps));
    } else if (c == OpCode::Unflatten) {
      SmallVector<Value> sizes;
      for (size_t i = 1; i < op.operands.size(); ++i)
        sizes.push_back(get(op.operands[i]));
      out = make<mlir::kiln::UnflattenOp>(
          get(op.operands[0]), b_.getI64IntegerAttr(op.ints[0]), sizes);
    } else if (c == OpCode::Flatten) {
      out = make<mlir::kiln::FlattenOp>(get(op.operands[0]),
                                        b_.getI64IntegerAttr(op.ints[0]),
                                        b_.getI64IntegerAttr(op.ints[1]));
    } else if (c == OpCode::Squeeze) {
      // (Eager's squeeze of a dim whose size is not 1 is the tensor itself:
      // where that size is static, refinement makes it a copy.)
      out = make<mlir::kiln::SqueezeOp>(get(op.operands[0]),
                                        b_.getI64IntegerAttr(op.ints[0]));
    } else if (c == OpCode::Slice) {
      // (Other dims keep their sizes, static ones included.)
      out = make<mlir::kiln::SliceOp>(
          mlir::kiln::openTensorType(ctx_), get(op.operands[0]),
          b_.getI64IntegerAttr(op.ints[0]),
          scalarCast(get(op.operands[1]), b_.getIndexType()),
          scalarCast(get(op.operands[2]), b_.getIndexType()),
          b_.getI64IntegerAttr(op.ints[1]));
    } else if (c == OpCode::Cast) {
      // Always a cast: a graph's results are never its inputs' buffers.
      // (ints {-1}: to its second operand's type, masked_fill's.)
      Value x = get(op.operands[0]);
      out = op.ints[0] < 0
                ? Value(make<mlir::kiln::CastLikeOp>(x, get(op.operands[1])))
                : Value(make<mlir::kiln::CastOp>(
                      UnrankedTensorType::get(
                          elementType(ctx_, elementOfDType(op.ints[0]))),
                      x));
    } else if (c == OpCode::OpaqueCall) {
      // Assumed to give its first argument's rank and dtype (refinement);
      // the adapter checks, and the statements run eagerly when it does
      // not. Its callee is declared once the call is typed.
      SmallVector<Value> args;
      for (int o : op.operands)
        args.push_back(get(o));
      auto call = make<mlir::kiln::OpaqueCallOp>(
          TypeRange{mlir::kiln::openTensorType(ctx_)},
          graph_.name + "_opaque_" + std::to_string(op.result), args);
      call->setAttr(kCallee, b_.getStringAttr(op.text));
      out = call.getResult(0);
    } else if (c == OpCode::Select) {
      // (The arms may know different sizes statically: refinement casts
      // both to what both promise.)
      out = arith::SelectOp::create(b_, loc_, get(op.operands[0]),
                                    get(op.operands[1]), get(op.operands[2]));
    } else if (c == OpCode::Arange) {
      out = make<mlir::kiln::ArangeOp>(
          RankedTensorType::get({kDyn}, b_.getI64Type()), get(op.operands[0]),
          get(op.operands[1]), get(op.operands[2]));
    } else {
      return llvm::createStringError(llvm::Twine("no lowering for kiln::") +
                                     opName(c));
    }
    setValue(op.result, out);
    return llvm::Error::success();
  }

  void setValue(int v, Value value) {
    body_.values[v] = value;
    body_.ids.try_emplace(value, v);
  }

  MLIRContext *ctx_;
  OpBuilder b_;
  const Graph &graph_;
  GraphBody &body_;
  Location loc_;
};

/// Types a copy of a graph's body: its inputs take the graph's types and
/// each op is refined in order (refineOp) and verified; the values of
/// `typed`, if given, take the types built.
class GraphTyper {
public:
  explicit GraphTyper(const Graph &graph) : graph_(graph) {}

  /// The typed copy of the body at the end of `module`.
  llvm::Error type(ModuleOp module, Graph *typed) {
    const GraphBody &body = *graph_.body;
    if (body.error)
      return llvm::createStringError(*body.error);
    ctx_ = module.getContext();
    IRMapping map;
    fn_ = cast<func::FuncOp>(body.fn->clone(map));
    fn_.setSymName(graph_.name);
    module.getBody()->push_back(fn_);
    // (The body may hold more, null, values: a statement the tracer went
    // back over numbered them.)
    values_.reserve(graph_.values.size());
    for (size_t v = 0; v < graph_.values.size(); ++v) {
      Value value = v < body.values.size() ? body.values[v] : Value();
      values_.push_back(value ? map.lookupOrDefault(value) : Value());
    }
    Block *entry = &fn_.getBody().front();
    if (entry->getNumArguments() != graph_.inputs.size())
      return fail(llvm::createStringError(
          "the graph's function has " +
          std::to_string(entry->getNumArguments()) + " arguments for " +
          std::to_string(graph_.inputs.size()) + " inputs"));
    for (size_t i = 0; i < graph_.inputs.size(); ++i) {
      const TraceValue &v = graph_.values[graph_.inputs[i].value];
      if (v.kind == ValueKind::Tensor)
        entry->getArgument(i).setType(tensorType(ctx_, v));
    }
    SmallVector<Operation *> ops;
    for (Operation &op : *entry)
      ops.push_back(&op);
    for (Operation *op : ops)
      if (!refine(op))
        return fail(opErrorAt(*failedAt_, error_));
    if (typed)
      takeTypes(*typed);
    OpBuilder b(ctx_);
    b.setInsertionPointToEnd(entry);
    Location loc = fn_.getLoc();
    SmallVector<Value> outs;
    for (const GraphOutput &out : graph_.outputs) {
      Value v = static_cast<size_t>(out.value) < values_.size()
                    ? values_[out.value]
                    : Value();
      if (!v)
        return fail(llvm::createStringError(
            "output '" + out.variable + "' (value " +
            std::to_string(out.value) + ") was not built"));
      ValueKind kind = graph_.values[out.value].kind;
      if (kind != ValueKind::Tensor) {
        v = castScalar(b, loc, v, scalarArgType(ctx_, kind));
        v = mlir::kiln::FromScalarOp::create(
            b, loc, RankedTensorType::get({}, v.getType()), v);
      }
      outs.push_back(v);
    }
    func::ReturnOp::create(b, loc, outs);
    declareOpaqueCallees(module);
    // Results keep the sizes the graph knows statically (a reshape to 64
    // columns returns tensor<?x64xf32>): the ABI's descriptors carry every
    // size either way.
    fn_.setType(FunctionType::get(ctx_, entry->getArgumentTypes(),
                                  TypeRange(ValueRange(outs))));
    if (failed(verify(fn_)))
      return fail(llvm::createStringError("the graph does not verify"));
    return llvm::Error::success();
  }

private:
  llvm::Error fail(llvm::Error error) {
    fn_.erase();
    return error;
  }

  /// Types one op and verifies it: false, with why in error_, where it
  /// cannot take its operands' types. A conversion the types make a no-op
  /// goes; an op refinement replaces (a squeeze that is a copy) is replaced
  /// in values_ too.
  bool refine(Operation *op) {
    error_.clear();
    failedAt_ = op->getLoc(); // op may be gone when refining it fails
    ScopedDiagnosticHandler capture(ctx_, [&](Diagnostic &d) {
      if (error_.empty())
        error_ = d.str();
      return success();
    });
    SmallVector<Value> old(op->getResults());
    FailureOr<Operation *> refined = mlir::kiln::refineOp(op);
    if (failed(refined) ||
        failed(verify(*refined, /*verifyRecursively=*/false))) {
      if (error_.empty())
        error_ = "its ops do not verify";
      return false;
    }
    Operation *now = *refined;
    if (now->hasAttr(kConversion)) {
      now->removeAttr(kConversion);
      if (now->getOperand(0).getType() == now->getResult(0).getType()) {
        now->getResult(0).replaceAllUsesWith(now->getOperand(0));
        replaceValue(now->getResult(0), now->getOperand(0));
        now->erase();
        return true;
      }
    }
    if (now != op)
      for (auto [from, to] : llvm::zip_equal(old, now->getResults()))
        replaceValue(from, to);
    return true;
  }
  void replaceValue(Value from, Value to) {
    for (Value &v : values_)
      if (v == from)
        v = to;
  }

  /// Each opaque call calls this graph's callback, declared private from
  /// the typed call.
  void declareOpaqueCallees(ModuleOp module) {
    OpBuilder b(ctx_);
    b.setInsertionPointToStart(module.getBody());
    fn_.walk([&](mlir::kiln::OpaqueCallOp call) {
      call.setCallee(opaqueSymbol(graph_, call));
      call->removeAttr(kCallee);
      auto decl = func::FuncOp::create(
          b, call.getLoc(), call.getCallee(),
          b.getFunctionType(call.getOperandTypes(), call.getResultTypes()));
      decl.setPrivate();
    });
  }

  /// The rank and element type of each tensor value built.
  void takeTypes(Graph &typed) {
    for (size_t v = 0; v < values_.size(); ++v) {
      TraceValue &tv = typed.values[v];
      if (tv.kind != ValueKind::Tensor || !values_[v])
        continue;
      auto type = cast<RankedTensorType>(values_[v].getType());
      tv.rank = type.getRank();
      tv.element = elementOf(type.getElementType());
      tv.wrapped =
          isa_and_present<mlir::kiln::FromScalarOp>(values_[v].getDefiningOp());
    }
  }

  const Graph &graph_;
  MLIRContext *ctx_ = nullptr;
  func::FuncOp fn_;
  /// The value of each traced value in the copy.
  std::vector<Value> values_;
  /// Why the op being typed cannot be, and where it is (refine).
  std::string error_;
  std::optional<Location> failedAt_;
};

} // namespace

Block &GraphBody::entry() const {
  return cast<func::FuncOp>(fn).getBody().front();
}

void GraphBody::updateType() {
  Block &block = entry();
  cast<func::FuncOp>(fn).setType(FunctionType::get(
      fn->getContext(), block.getArgumentTypes(), TypeRange()));
}

void startBody(Graph &graph, MLIRContext &ctx) {
  auto body = std::make_shared<GraphBody>();
  body->module = ModuleOp::create(UnknownLoc::get(&ctx));
  OpBuilder b(&ctx);
  b.setInsertionPointToEnd(body->module->getBody());
  // The types are known once the graph is typed.
  auto fn = func::FuncOp::create(b, UnknownLoc::get(&ctx), graph.name,
                                 b.getFunctionType({}, {}));
  fn.addEntryBlock();
  body->fn = fn;
  body->values.resize(graph.values.size());
  graph.body = std::move(body);
}

void addBodyInput(Graph &graph, const GraphInput &in) {
  graph.body->values.resize(graph.values.size());
  SourcePos none;
  OpEmitter(graph, none, OpCode::Const).input(in);
}

void buildOp(Graph &graph, OpCode code, const std::vector<int> &operands,
             int result, const std::vector<int64_t> &ints, double number,
             const std::string &text, const SourcePos &pos) {
  GraphBody &body = *graph.body;
  body.values.resize(graph.values.size());
  TracedOp op{code, operands, ints, number, text, result, pos};
  OpEmitter emitter(graph, pos, code);
  if (llvm::Error error = emitter.build(op)) {
    if (!body.error)
      body.error = llvm::toString(std::move(error));
    else
      llvm::consumeError(std::move(error));
    emitter.placeholder(result);
  }
}

BodyMark markBody(const Graph &graph) {
  Block &entry = graph.body->entry();
  return {entry.empty() ? nullptr : &entry.back(), entry.getNumArguments(),
          graph.values.size(), graph.body->error};
}

void cutBody(Graph &graph, const BodyMark &mark) {
  GraphBody &body = *graph.body;
  Block &entry = body.entry();
  while (!entry.empty() && &entry.back() != mark.last) {
    Operation *op = &entry.back();
    for (Value v : op->getResults())
      body.ids.erase(v);
    op->erase();
  }
  while (entry.getNumArguments() > mark.arguments) {
    body.ids.erase(entry.getArgument(entry.getNumArguments() - 1));
    entry.eraseArgument(entry.getNumArguments() - 1);
  }
  body.updateType();
  for (size_t v = mark.values; v < body.values.size(); ++v)
    body.values[v] = Value();
  body.error = mark.error;
}

std::string opaqueCallee(Operation *call) {
  auto callee = call->getAttrOfType<StringAttr>(kCallee);
  return callee ? callee.str() : "";
}

std::string opaqueSymbol(const Graph &graph, Operation *call) {
  // Built as the body's name + "_opaque_" + the call's value.
  StringRef built = cast<mlir::kiln::OpaqueCallOp>(call).getCallee();
  StringRef bodyName = cast<func::FuncOp>(graph.body->fn).getSymName();
  return graph.name + built.drop_front(bodyName.size()).str();
}

SourcePos sourceOf(Location loc, std::string *name) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    if (name)
      *name = named.getName().str();
    loc = named.getChildLoc();
  }
  SourcePos pos;
  if (auto at = dyn_cast<FileLineColLoc>(loc))
    pos = {at.getFilename().str(), at.getLine(), at.getColumn()};
  return pos;
}

int64_t Graph::tensorOpCount() const {
  int64_t n = 0;
  for (Operation &op : body->entry())
    if (op.getNumResults() == 1 && isa<TensorType>(op.getResult(0).getType()) &&
        !isa<mlir::kiln::FromScalarOp>(op) && !op.hasAttr(kConversion))
      ++n;
  return n;
}

std::optional<double> Graph::constantValue(int value) const {
  if (static_cast<size_t>(value) >= body->values.size())
    return std::nullopt;
  Value v = body->values[value];
  auto constant = v ? v.getDefiningOp<arith::ConstantOp>() : nullptr;
  if (!constant)
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(constant.getValue()))
    return i.getType().isInteger(1)
               ? static_cast<double>(i.getValue().getBoolValue())
               : static_cast<double>(i.getInt());
  if (auto f = dyn_cast<FloatAttr>(constant.getValue()))
    return f.getValueAsDouble();
  return std::nullopt;
}

llvm::Error typeBody(Graph &graph) {
  OwningOpRef<ModuleOp> scratch =
      ModuleOp::create(UnknownLoc::get(graph.body->module->getContext()));
  return GraphTyper(graph).type(*scratch, &graph);
}

llvm::Error buildGraphFunction(ModuleOp module, const Graph &graph) {
  return GraphTyper(graph).type(module, nullptr);
}

MLIRContext &graphContext() {
  struct Loaded {
    MLIRContext context{MLIRContext::Threading::DISABLED};
    Loaded() {
      context.loadDialect<mlir::kiln::KilnDialect, func::FuncDialect,
                          arith::ArithDialect, math::MathDialect,
                          cf::ControlFlowDialect, tensor::TensorDialect>();
    }
  };
  thread_local Loaded loaded;
  return loaded.context;
}

llvm::Error inferSignature(Graph &graph) {
  if (llvm::Error error = typeInputs(graph))
    return error;
  return typeBody(graph);
}

} // namespace kiln::frontend
