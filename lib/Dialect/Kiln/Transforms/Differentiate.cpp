//===- Differentiate.cpp - Reverse-mode differentiation of kiln graphs ----===//
//
// kiln-differentiate (Passes.td): each graph function's backward function,
// its body recomputed and then differentiated op by op in reverse through
// the ops' GradientOpInterface (KilnGradients.cpp).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDIFFERENTIATE
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
namespace k = mlir::kiln;

namespace {

Value zerosLike(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  return k::FullOp::create(b, loc, type, k::dynamicSizesOf(b, loc, x),
                           b.getFloatAttr(type.getElementType(), 0));
}

struct KilnDifferentiate : k::impl::KilnDifferentiateBase<KilnDifferentiate> {
  using KilnDifferentiateBase::KilnDifferentiateBase;
  void runOnOperation() override {
    SmallVector<func::FuncOp> functions;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() &&
          llvm::any_of(fn.getArgumentTypes(), k::takesGradient))
        functions.push_back(fn);
    for (func::FuncOp fn : functions) {
      std::string backward = (fn.getSymName() + "_backward").str();
      if (partition ? failed(k::buildForwardBackward(
                          fn, (fn.getSymName() + "_forward").str(), backward))
                    : failed(k::buildBackward(fn, backward)))
        return signalPassFailure();
    }
  }
};

} // namespace

/// Whether g, a gradient a rule built from its op's result gradients
/// `from`, reads nothing else of the graph but sizes, masks, indices and
/// finite constants: then it is linear in them with finite coefficients, and
/// zero where they are.
static bool readsOnlyGradients(Value g, const DenseSet<Value> &from) {
  SmallVector<Value> work{g};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || from.contains(v))
      continue;
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    if (!tensor || !isa<FloatType>(tensor.getElementType()))
      continue; // a size, a mask, indices
    Operation *def = v.getDefiningOp();
    if (!def)
      return false; // an argument
    if (auto full = dyn_cast<k::FullOp>(def)) {
      auto value = dyn_cast<FloatAttr>(full.getValue());
      if (!value || !value.getValue().isFinite())
        return false;
      continue;
    }
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// fn's joint graph: fn's arguments, its float results' gradients and
/// whether each arrived in, fn's results (withResults) and its float
/// arguments' gradients out.
FailureOr<func::FuncOp> mlir::kiln::detail::buildJoint(func::FuncOp fn,
                                                       StringRef name,
                                                       bool withResults) {
  MLIRContext *context = fn.getContext();
  Location loc = fn.getLoc();
  SmallVector<Type> inputs(fn.getArgumentTypes()), outputs;
  if (withResults)
    llvm::append_range(outputs, fn.getResultTypes());
  SmallVector<unsigned> gradResults;
  for (auto [i, t] : llvm::enumerate(fn.getResultTypes()))
    if (k::takesGradient(t)) {
      inputs.push_back(t);
      gradResults.push_back(i);
    }
  unsigned numGrads = gradResults.size();
  inputs.append(numGrads, IntegerType::get(context, 64));
  for (Type t : fn.getArgumentTypes())
    if (k::takesGradient(t))
      outputs.push_back(t);
  OpBuilder b(context);
  b.setInsertionPointAfter(fn);
  auto backward = func::FuncOp::create(
      b, loc, name, FunctionType::get(context, inputs, outputs));
  Block *entry = backward.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  // The forward, recomputed.
  IRMapping forward;
  forward.map(fn.getArguments(),
              entry->getArguments().take_front(fn.getNumArguments()));
  Operation *ret = nullptr;
  for (Operation &op : fn.getBody().front()) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      ret = &op;
      continue;
    }
    // An op with effects (an allow_in_graph call) would run again, or
    // differently, in the backward: such a graph is not differentiated.
    // A shape check may run twice.
    if (isa<k::OpaqueCallOp>(op) ||
        (!isMemoryEffectFree(&op) && !isa<cf::AssertOp>(op))) {
      op.emitOpError("has effects that a recomputed forward would repeat");
      backward.erase();
      return failure();
    }
    b.clone(op, forward);
  }
  if (!ret || fn.getBody().getBlocks().size() != 1) {
    backward.erase();
    fn.emitOpError("is differentiated as one block only");
    return failure();
  }
  // Composites (var, std, logsumexp, tril, triu, repeat, ...) differentiate
  // through their decomposition, as torch's CompositeImplicitAutograd ops
  // do: each is written once (kiln-decompose-composites), its gradient
  // that of the ops it is made of. fn's results are held by a return for
  // as long as the rewrite may replace them.
  SmallVector<Value> results;
  {
    auto held = func::ReturnOp::create(
        b, loc, llvm::map_to_vector(ret->getOperands(), [&](Value v) {
          return forward.lookup(v);
        }));
    RewritePatternSet patterns(context);
    k::populateDecomposeCompositesPatterns(patterns);
    walkAndApplyPatterns(backward, std::move(patterns));
    results = llvm::to_vector(held.getOperands());
    held.erase();
  }

  // Which values vary with a float argument (activity analysis: only their
  // ops are differentiated, so that a mask built from constants needs no
  // gradient).
  DenseSet<Value> active;
  for (BlockArgument arg :
       entry->getArguments().take_front(fn.getNumArguments()))
    if (k::takesGradient(arg.getType()))
      active.insert(arg);
  for (Operation &op : *entry)
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value r : op.getResults())
        if (k::takesGradient(r.getType()))
          active.insert(r);

  // Each value's gradient, the sum of what its uses contribute, and which
  // result gradients it is made of.
  DenseMap<Value, Value> adjoint;
  DenseMap<Value, llvm::SmallBitVector> sources;
  auto accumulate = [&](Value v, Value g, const llvm::SmallBitVector &from) {
    if (!g)
      return;
    auto [it, first] = adjoint.try_emplace(v, g);
    if (!first)
      it->second = k::AddOp::create(b, loc, it->second, g);
    auto [s, none] = sources.try_emplace(v, numGrads);
    s->second |= from;
  };
  for (auto [k, r] : llvm::enumerate(gradResults)) {
    llvm::SmallBitVector only(numGrads);
    only.set(k);
    accumulate(results[r], entry->getArgument(fn.getNumArguments() + k), only);
  }
  // Eager autograd runs an op's formula only when a gradient reached one of
  // its results; a result of the graph that reached no loss comes in as
  // zeros, and zeros times a forward's inf or NaN would be NaN where eager
  // computed nothing. So an op reached from some of the results only gives
  // its gradients (those that read the forward) when one of those arrived:
  // the flag after the result gradients says so.
  DenseMap<llvm::SmallBitVector, Value> arrivedFor;
  auto arrived = [&](const llvm::SmallBitVector &from) {
    Value &cond = arrivedFor[from];
    if (cond)
      return cond;
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    Value any;
    for (unsigned k : from.set_bits()) {
      Value flag = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          entry->getArgument(fn.getNumArguments() + numGrads + k), zero);
      any = any ? arith::OrIOp::create(b, loc, any, flag) : flag;
    }
    cond = k::FromScalarOp::create(
        b, loc, RankedTensorType::get({}, b.getI1Type()), any);
    return cond;
  };
  SmallVector<Operation *> ops;
  for (Operation &op : *entry)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultGrads;
    llvm::SmallBitVector from(numGrads);
    for (Value r : op->getResults()) {
      Value g = adjoint.lookup(r);
      resultGrads.push_back(g);
      if (g)
        from |= sources.lookup(r);
    }
    if (from.none() || llvm::none_of(op->getOperands(), [&](Value v) {
          return active.contains(v);
        }))
      continue;
    auto rule = dyn_cast<k::GradientOpInterface>(op);
    if (!rule) {
      op->emitOpError("has no gradient");
      backward.erase();
      return failure();
    }
    SmallVector<Value> operandGrads;
    if (failed(rule.buildGradients(b, resultGrads, operandGrads))) {
      backward.erase();
      return failure();
    }
    DenseSet<Value> given;
    for (Value g : resultGrads)
      if (g)
        given.insert(g);
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads)) {
      if (!g || !active.contains(operand))
        continue;
      if (!from.all() && !readsOnlyGradients(g, given)) {
        auto type = cast<RankedTensorType>(g.getType());
        Value zero = k::FullOp::create(
            b, loc, RankedTensorType::get({}, type.getElementType()),
            ValueRange{}, b.getFloatAttr(type.getElementType(), 0));
        g = k::WhereOp::create(b, loc, arrived(from), g, zero);
      }
      accumulate(operand, g, from);
    }
  }
  SmallVector<Value> grads;
  SmallVector<Attribute> gradSources;
  if (withResults)
    llvm::append_range(grads, results);
  for (BlockArgument arg :
       entry->getArguments().take_front(fn.getNumArguments()))
    if (k::takesGradient(arg.getType())) {
      Value g = adjoint.lookup(arg);
      grads.push_back(g ? g : zerosLike(b, loc, arg));
      SmallVector<int64_t> from;
      if (g) {
        llvm::SmallBitVector made = sources.lookup(arg);
        for (unsigned k : made.set_bits())
          from.push_back(k);
      }
      gradSources.push_back(
          from.size() == numGrads ? nullptr : b.getDenseI64ArrayAttr(from));
    }
  func::ReturnOp::create(b, loc, grads);
  // Which result gradients each argument's is made of where not all:
  // where none of them arrived, eager autograd leaves it undefined.
  unsigned first = withResults ? fn.getNumResults() : 0;
  for (auto [k, from] : llvm::enumerate(gradSources))
    if (from)
      backward.setResultAttr(first + k, kGradientSourcesAttrName, from);
  // What the gradients do not read of the recomputed forward goes.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (isOpTriviallyDead(&op))
      op.erase();
  if (failed(verify(backward))) {
    backward.erase();
    return failure();
  }
  return backward;
}

FailureOr<func::FuncOp> mlir::kiln::buildBackward(func::FuncOp fn,
                                                  StringRef name) {
  return detail::buildJoint(fn, name, /*withResults=*/false);
}
