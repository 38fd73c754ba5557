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

/// fn's joint graph: fn's arguments and its float results' gradients in,
/// fn's results (withResults) and its float arguments' gradients out.
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

  // Each value's gradient, the sum of what its uses contribute.
  DenseMap<Value, Value> adjoint;
  auto accumulate = [&](Value v, Value g) {
    if (!g)
      return;
    auto [it, first] = adjoint.try_emplace(v, g);
    if (!first)
      it->second = k::AddOp::create(b, loc, it->second, g);
  };
  for (auto [k, r] : llvm::enumerate(gradResults))
    accumulate(results[r], entry->getArgument(fn.getNumArguments() + k));
  SmallVector<Operation *> ops;
  for (Operation &op : *entry)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultGrads;
    bool reached = false;
    for (Value r : op->getResults()) {
      Value g = adjoint.lookup(r);
      resultGrads.push_back(g);
      reached |= static_cast<bool>(g);
    }
    if (!reached || llvm::none_of(op->getOperands(),
                                  [&](Value v) { return active.contains(v); }))
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
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (active.contains(operand))
        accumulate(operand, g);
  }
  SmallVector<Value> grads;
  if (withResults)
    llvm::append_range(grads, results);
  for (BlockArgument arg :
       entry->getArguments().take_front(fn.getNumArguments()))
    if (k::takesGradient(arg.getType())) {
      Value g = adjoint.lookup(arg);
      grads.push_back(g ? g : zerosLike(b, loc, arg));
    }
  func::ReturnOp::create(b, loc, grads);
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
