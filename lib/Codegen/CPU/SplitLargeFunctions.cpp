//===- SplitLargeFunctions.cpp - A graph of many ops as a chain of calls --===//
//
// A graph function of thousands of ops (an unrolled recurrence) is one LLVM
// function of tens of thousands of instructions, and LLVM's optimizations
// and register allocation take time superlinear in a function's size. The
// function's top-level ops are cut, in order, into runs of about `ops`
// operations each (nested ones counted), each cut where the fewest values
// live across it; each run but the last becomes a private, never-inlined
// function of the values it reads from before it, returning the values
// read after it, called in its place. Shape arithmetic on the function's
// arguments (dims, sizes, offsets) is recomputed where it is read rather
// than passed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "Outlining.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSPLITLARGEFUNCTIONS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

int64_t countOps(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

/// One function's body, cut into runs.
class Splitter {
public:
  Splitter(func::FuncOp fn, SymbolTable &symbols)
      : fn_(fn), body_(fn.getBody().front()), symbols_(symbols) {}

  /// Scalars computed from the function's arguments and constants alone,
  /// by ops without effects, and empty tensors of such sizes: recomputed
  /// wherever they are read. An empty tensor must never cross a call: a
  /// part would return its buffer, which an op inside the part may have
  /// filled in place (its contents being undefined), aliasing another of
  /// its results, and a later write into it would clobber that one.
  bool recomputable(Value v) {
    auto it = recomputable_.find(v);
    if (it != recomputable_.end())
      return it->second;
    bool result = false;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      result = arg.getOwner() == &body_;
    } else {
      Operation *def = v.getDefiningOp();
      result = def->getBlock() == &body_ && def->getNumRegions() == 0 &&
               isMemoryEffectFree(def) &&
               (def->hasTrait<OpTrait::ConstantLike>() ||
                isa<tensor::EmptyOp>(def) || !isa<ShapedType>(v.getType())) &&
               llvm::all_of(def->getOperands(),
                            [&](Value o) { return recomputable(o); });
    }
    recomputable_[v] = result;
    return result;
  }

  bool recomputable(Operation *op) {
    return op->getNumResults() > 0 &&
           llvm::all_of(op->getResults(),
                        [&](Value v) { return recomputable(v); }) &&
           !isa<BlockArgument>(op->getResult(0));
  }

  /// Cuts the body into runs of about `ops` operations, each cut where
  /// the fewest values that are not recomputed live across it.
  SmallVector<std::pair<Operation *, Operation *>> runs(int64_t ops) {
    SmallVector<Operation *> tops;
    for (Operation &op : body_.without_terminator())
      tops.push_back(&op);
    llvm::DenseMap<Operation *, int64_t> index;
    for (auto [i, op] : llvm::enumerate(tops))
      index[op] = i;
    // live[i]: values defined at or before i and read after it.
    SmallVector<int64_t> live(tops.size() + 1, 0);
    for (auto [i, op] : llvm::enumerate(tops)) {
      if (recomputable(op))
        continue;
      for (Value result : op->getResults()) {
        int64_t last = i;
        for (Operation *user : result.getUsers())
          if (Operation *top = body_.findAncestorOpInBlock(*user))
            last = std::max(last, index.lookup_or(top, tops.size()));
        ++live[i];
        --live[last];
      }
    }
    for (size_t i = 1; i < live.size(); ++i)
      live[i] += live[i - 1];

    SmallVector<std::pair<Operation *, Operation *>> result;
    size_t first = 0;
    int64_t count = 0;
    std::optional<size_t> best;
    for (size_t i = 0; i < tops.size(); ++i) {
      count += countOps(tops[i]);
      if (count < ops / 2)
        continue;
      if (!best || live[i] < live[*best])
        best = i;
      if (count >= ops + ops / 2) {
        result.push_back({tops[first], tops[*best]});
        first = *best + 1;
        count = 0;
        for (size_t j = first; j <= i; ++j)
          count += countOps(tops[j]);
        best.reset();
      }
    }
    return result;
  }

  /// Moves the ops [first, last] of the body (but the recomputed ones,
  /// which stay for the code after them) into a new private function
  /// called in their place.
  void outline(Operation *first, Operation *last, int64_t &parts) {
    llvm::SmallPtrSet<Operation *, 32> run;
    SmallVector<Operation *> ops;
    for (Operation *op = first;; op = op->getNextNode()) {
      if (!recomputable(op)) {
        run.insert(op);
        ops.push_back(op);
      }
      if (op == last)
        break;
    }
    if (ops.empty())
      return; // only recomputed ops: nothing to call
    auto inRun = [&](Operation *op) {
      Operation *top = body_.findAncestorOpInBlock(*op);
      return top && run.contains(top);
    };
    auto definedInRun = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return inRun(def ? def : v.getParentBlock()->getParentOp());
    };
    SetVector<Value> read, inputs, recomputed;
    for (Operation *op : ops) {
      read.insert(op->getOperands().begin(), op->getOperands().end());
      for (Region &region : op->getRegions())
        getUsedValuesDefinedAbove(region, read);
    }
    for (Value v : read)
      if (!definedInRun(v))
        (recomputable(v) && !isa<BlockArgument>(v) ? recomputed : inputs)
            .insert(v);
    // The recomputed values' own operands: arguments become inputs.
    SmallVector<Operation *> chain;
    llvm::SmallPtrSet<Operation *, 32> inChain;
    std::function<void(Value)> collect = [&](Value v) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        inputs.insert(arg);
        return;
      }
      Operation *def = v.getDefiningOp();
      if (!inChain.insert(def).second)
        return;
      for (Value o : def->getOperands())
        collect(o);
      chain.push_back(def); // operands first
    };
    for (Value v : recomputed)
      collect(v);
    SmallVector<Value> outputs;
    for (Operation *op : ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !inRun(user); }))
          outputs.push_back(result);

    OpBuilder b(fn_);
    Location loc = first->getLoc();
    SmallVector<Type> inputTypes, outputTypes;
    for (Value v : inputs)
      inputTypes.push_back(v.getType());
    for (Value v : outputs)
      outputTypes.push_back(v.getType());
    func::FuncOp part = kiln::createOutlinedFunction(
        b, symbols_, fn_, "_part", parts,
        b.getFunctionType(inputTypes, outputTypes));
    part->setAttr(kiln::kSplitFunctionAttrName, b.getUnitAttr());
    fn_->setAttr(kiln::kSplitFunctionAttrName, b.getUnitAttr());
    Block *entry = &part.getBody().front();

    b.setInsertionPoint(first);
    auto call = func::CallOp::create(b, loc, part, inputs.getArrayRef());
    for (size_t i = 0; i < outputs.size(); ++i)
      outputs[i].replaceUsesWithIf(call.getResult(i), [&](OpOperand &use) {
        return !inRun(use.getOwner());
      });
    for (Operation *op : ops)
      op->moveBefore(entry, entry->end());
    IRMapping map;
    for (size_t i = 0; i < inputs.size(); ++i)
      map.map(inputs[i], entry->getArgument(i));
    b.setInsertionPointToStart(entry);
    for (Operation *op : chain)
      b.clone(*op, map);
    auto inPart = [&](OpOperand &use) {
      return part->isAncestor(use.getOwner());
    };
    for (Value v : recomputed)
      v.replaceUsesWithIf(map.lookup(v), inPart);
    for (size_t i = 0; i < inputs.size(); ++i)
      Value(inputs[i]).replaceUsesWithIf(entry->getArgument(i), inPart);
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc, outputs);
  }

private:
  func::FuncOp fn_;
  Block &body_;
  SymbolTable &symbols_;
  llvm::DenseMap<Value, bool> recomputable_;
};

struct KilnSplitLargeFunctionsPass
    : mlir::kiln::impl::KilnSplitLargeFunctionsBase<
          KilnSplitLargeFunctionsPass> {
  using KilnSplitLargeFunctionsBase::KilnSplitLargeFunctionsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> large;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && fn.getBody().hasOneBlock() &&
          countOps(fn) > 2 * ops &&
          // A stack allocation must not outlive the function making it.
          !fn.walk([](memref::AllocaOp) {
               return WalkResult::interrupt();
             }).wasInterrupted())
        large.push_back(fn);
    for (func::FuncOp fn : large) {
      Splitter splitter(fn, symbols);
      int64_t parts = 0;
      for (auto [from, to] : splitter.runs(ops))
        splitter.outline(from, to, parts);
    }
  }
};

} // namespace
