//===- GraphBody.cpp - A traced graph's kiln ops and their typing --------===//
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
#include "kiln/Frontend/GraphBody.h"

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

namespace {
RankedTensorType tensorType(MLIRContext *ctx, const TraceValue &v) {
  return RankedTensorType::get(
      SmallVector<int64_t>(v.rank, ShapedType::kDynamic),
      elementType(ctx, v.element));
}
} // namespace

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

ValueKind kindOfType(Type type) {
  if (isa<TensorType>(type))
    return ValueKind::Tensor;
  if (type.isF32())
    return ValueKind::F32;
  if (type.isF64())
    return ValueKind::F64;
  if (type.isInteger(1))
    return ValueKind::Bool;
  return ValueKind::I64;
}

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

namespace {

llvm::Error opErrorAt(Location loc, const std::string &why) {
  return llvm::createStringError(opErrorText(loc, why));
}

/// What kiln::autocast does to an op's operands: the products of ATen's
/// lower_precision_fp list cast float32 ones to the autocast dtype,
/// cross_entropy (its fp32 list) widens 16-bit ones (the runtime's
/// AutocastOp, lib/Runtime/Core/Autocast.h, the same ops).
enum class AutocastCast { None, Lower, Widen };
AutocastCast autocastOf(Operation *op) {
  using namespace mlir::kiln;
  if (isa<MatmulOp, BmmOp, AddmmOp, BaddbmmOp, LinearOp, EinsumOp, Conv2dOp,
          ConvTranspose2dOp, ScaledDotProductAttentionOp>(op))
    return AutocastCast::Lower;
  if (isa<CrossEntropyOp>(op))
    return AutocastCast::Widen;
  return AutocastCast::None;
}

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
    if (graph_.autocast && !castForAutocast(op))
      return false;
    SmallVector<Value> old(op->getResults());
    FailureOr<Operation *> refined = mlir::kiln::refineOp(op);
    if (failed(refined) ||
        failed(verify(*refined, /*verifyRecursively=*/false))) {
      if (error_.empty())
        error_ = "its ops do not verify";
      return false;
    }
    Operation *now = *refined;
    now->removeAttr(kInPlaceResult);
    if (now->hasAttr(kInPlaceCast)) {
      now->removeAttr(kInPlaceCast);
      Type from = getElementTypeOrSelf(now->getOperand(0).getType());
      Type to = getElementTypeOrSelf(now->getResult(0).getType());
      if ((isa<FloatType>(from) && !isa<FloatType>(to)) ||
          (!from.isInteger(1) && to.isInteger(1))) {
        llvm::raw_string_ostream os(error_);
        os << "result type " << from
           << " can't be cast to the desired output type " << to;
        return false;
      }
    }
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
  /// Under autocast (Graph::autocast): op's operands cast as the runtime's
  /// AutocastOp casts them, before op is typed (its operands are).
  bool castForAutocast(Operation *op) {
    AutocastCast how = autocastOf(op);
    if (how == AutocastCast::None)
      return true;
    bool lower = how == AutocastCast::Lower, widen = !lower;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      Type element = type.getElementType();
      Type to;
      if (lower && element.isF32())
        to = BFloat16Type::get(ctx_);
      else if (widen && (element.isBF16() || element.isF16()))
        to = Float32Type::get(ctx_);
      if (!to)
        continue;
      OpBuilder b(op);
      auto cast = mlir::kiln::CastOp::create(b, op->getLoc(), type.clone(to),
                                             operand.get());
      operand.set(cast.getResult());
      if (failed(verify(cast, /*verifyRecursively=*/false))) {
        error_ = "its autocast conversion does not verify";
        return false;
      }
    }
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
  GraphBody &body = *graph.body;
  body.values.resize(graph.values.size());
  MLIRContext *ctx = body.module->getContext();
  Location loc = UnknownLoc::get(ctx);
  Block &entry = body.entry();
  ValueKind kind = graph.values[in.value].kind;
  Value arg = entry.addArgument(kind == ValueKind::Tensor
                                    ? mlir::kiln::openTensorType(ctx)
                                    : scalarArgType(ctx, kind),
                                loc);
  body.updateType();
  if (kind == ValueKind::I64) {
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(&entry);
    arg = arith::IndexCastOp::create(b, loc, b.getIndexType(), arg);
  }
  body.values[in.value] = arg;
  body.ids.try_emplace(arg, in.value);
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

void aliasBases(Value v, llvm::SmallPtrSetImpl<Value> &bases) {
  Operation *op = v.getDefiningOp();
  if (auto select = dyn_cast_or_null<arith::SelectOp>(op)) {
    aliasBases(select.getTrueValue(), bases);
    aliasBases(select.getFalseValue(), bases);
    return;
  }
  if (op && !op->hasAttr(kInPlaceResult) &&
      (op->hasTrait<mlir::kiln::trait::ViewOfInput>() ||
       isa<mlir::kiln::CastOp, mlir::kiln::CastLikeOp, mlir::kiln::DetachOp>(
           op))) {
    aliasBases(op->getOperand(0), bases);
    return;
  }
  bases.insert(v);
}

std::string opErrorText(Location loc, const std::string &why) {
  std::string name;
  SourcePos pos = sourceOf(loc, &name);
  std::string where = pos.file.empty()
                          ? ""
                          : " at " + pos.file + ":" + std::to_string(pos.line);
  return name + where + ": " + why;
}

int64_t Graph::tensorOpCount() const {
  int64_t n = 0;
  for (Operation &op : body->entry())
    if (op.getNumResults() == 1 && isa<TensorType>(op.getResult(0).getType()) &&
        !isa<mlir::kiln::FromScalarOp>(op) && !op.hasAttr(kConversion))
      ++n;
  return n;
}

bool Graph::holdsAutocastOps() const {
  if (!body || !body->fn)
    return false;
  return body->fn
      ->walk([](Operation *op) {
        return autocastOf(op) != AutocastCast::None ? WalkResult::interrupt()
                                                    : WalkResult::advance();
      })
      .wasInterrupted();
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
