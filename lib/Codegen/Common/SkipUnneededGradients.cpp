//===- SkipUnneededGradients.cpp - A backward's gradients under scf.if ----===//
//
// Each top-level op of a backward is tagged with the set of gradients that
// read it, directly or through later ops; the ops of one set move, in
// order, into an scf.if on "one gradient of the set is needed". The sets
// are placed larger first: a value's set holds those of all its readers,
// so whatever an op reads was computed by an unconditional op, an earlier
// scf.if, or its own.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/Common/Passes.h"

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSKIPUNNEEDEDGRADIENTS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// Whether moving op under a condition changes nothing but whether its
/// results are computed: no effects, only allocations (of its results), or
/// a call of a runtime kernel that only reads its tensors
/// (declareRuntimeKernel: a convolution's gradients).
bool movable(Operation *op, SymbolTable &symbols) {
  if (isMemoryEffectFree(op))
    return true;
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    return callee && callee.isExternal() && call.getNumResults() > 0 &&
           llvm::all_of(
               llvm::enumerate(callee.getArgumentTypes()), [&](auto arg) {
                 auto access = callee.getArgAttrOfType<StringAttr>(
                     arg.index(), "bufferization.access");
                 return isa<IntegerType, IndexType, FloatType>(arg.value()) ||
                        (isa<TensorType>(arg.value()) && access &&
                         access.getValue() == "read");
               });
  }
  auto effects = getEffectsRecursively(op);
  return effects &&
         llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Allocate>(e.getEffect());
         });
}

/// What a skipped value is replaced with: an empty tensor of its static
/// sizes (0 where dynamic), or a zero scalar; null for other types.
Value placeholder(OpBuilder &b, Location loc, Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    SmallVector<Value> dynamic(t.getNumDynamicDims(),
                               arith::ConstantIndexOp::create(b, loc, 0));
    return tensor::EmptyOp::create(b, loc, t, dynamic);
  }
  if (isa<IndexType, IntegerType, FloatType>(type))
    return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  return nullptr;
}

/// Size d of v where it is computed from sizes defined outside `outer`: a
/// tensor.empty's, a tensor.reshape's to a shape of tensor.from_elements,
/// those that every branch of an scf.if agrees on; null otherwise.
Value sizeBefore(Value v, int64_t d, Operation *outer) {
  auto outside = [&](Value size) {
    return size && !outer->isAncestor(size.getParentBlock()->getParentOp())
               ? size
               : Value();
  };
  Operation *def = v.getDefiningOp();
  if (auto empty = dyn_cast_if_present<tensor::EmptyOp>(def))
    return empty.getType().isDynamicDim(d)
               ? outside(empty.getDynamicSize(static_cast<unsigned>(d)))
               : Value();
  if (auto reshape = dyn_cast_if_present<tensor::ReshapeOp>(def))
    if (auto shape = reshape.getShape().getDefiningOp<tensor::FromElementsOp>())
      return outside(shape.getElements()[d]);
  if (auto ifOp = dyn_cast_if_present<scf::IfOp>(def)) {
    if (ifOp.getElseRegion().empty())
      return Value();
    unsigned i = cast<OpResult>(v).getResultNumber();
    Value a = sizeBefore(ifOp.thenYield().getOperand(i), d, outer);
    Value b = sizeBefore(ifOp.elseYield().getOperand(i), d, outer);
    return a == b ? a : Value();
  }
  return Value();
}

/// tensor.dim of an scf.if result -> the size every branch computes it
/// from (a broadcast's or a reshape's check reads it), so that reading the
/// size does not compute the tensor.
struct DimOfIf : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> d = op.getConstantIndex();
    auto ifOp = op.getSource().getDefiningOp<scf::IfOp>();
    if (!d || !ifOp)
      return failure();
    Value size = sizeBefore(op.getSource(), *d, ifOp);
    if (!size)
      return failure();
    rewriter.replaceOp(op, size);
    return success();
  }
};

struct KilnSkipUnneededGradientsPass
    : mlir::kiln::impl::KilnSkipUnneededGradientsBase<
          KilnSkipUnneededGradientsPass> {
  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(skipUnneeded(fn, symbols)))
        return signalPassFailure();
  }

  LogicalResult skipUnneeded(func::FuncOp fn, SymbolTable &symbols) {
    if (fn.isExternal() || !fn.getBody().hasOneBlock())
      return success();
    unsigned numResults = fn.getNumResults();
    // need[k]: the argument saying whether result k is needed.
    SmallVector<Value> need(numResults);
    llvm::BitVector guarded(numResults);
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto k =
              fn.getArgAttrOfType<IntegerAttr>(i, kiln::kGradientNeedAttrName);
          k && k.getInt() >= 0 && k.getInt() < numResults) {
        need[k.getInt()] = fn.getArgument(i);
        guarded.set(k.getInt());
      }
    if (guarded.none())
      return success();
    // The sizes of computed values (shape checks read them) from those of
    // the arguments, so that a check does not keep a skipped op alive.
    {
      RewritePatternSet patterns(&getContext());
      memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
      memref::populateResolveShapedTypeResultDimsPatterns(patterns);
      tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
      scf::ForallOp::getCanonicalizationPatterns(patterns, &getContext());
      patterns.add<DimOfIf>(&getContext());
      if (failed(applyPatternsGreedily(fn, std::move(patterns))))
        return failure();
    }
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());

    // Each op's set of results that read it; an op that something
    // unconditional reads is unconditional itself (no set).
    DenseMap<Operation *, llvm::BitVector> sets;
    DenseSet<Operation *> always;
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      llvm::BitVector set(numResults);
      // (Constants cost nothing: they stay where every region sees them.)
      bool unconditional = !movable(op, symbols) || op->use_empty() ||
                           op->hasTrait<OpTrait::ConstantLike>();
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses()) {
          Operation *user = body.findAncestorOpInBlock(*use.getOwner());
          if (user == ret) {
            unsigned k = use.getOperandNumber();
            if (need[k])
              set.set(k);
            else
              unconditional = true;
          } else if (always.contains(user)) {
            unconditional = true;
          } else {
            set |= sets[user];
          }
        }
      // (Read by every gradient: autograd calls the backward for one.)
      if (unconditional || set == guarded)
        always.insert(op);
      else
        sets[op] = std::move(set);
    }
    if (sets.empty())
      return success();

    // The groups, larger sets first (ties in the order of their first op).
    llvm::MapVector<llvm::BitVector, SmallVector<Operation *>> groups;
    for (Operation *op : ops)
      if (auto it = sets.find(op); it != sets.end())
        groups[it->second].push_back(op);
    SmallVector<unsigned> byLarger(groups.size());
    std::iota(byLarger.begin(), byLarger.end(), 0);
    llvm::sort(byLarger, [&](unsigned x, unsigned y) {
      size_t a = groups.begin()[x].first.count(),
             b = groups.begin()[y].first.count();
      return a != b ? a > b : x < y;
    });
    SmallVector<std::pair<llvm::BitVector, SmallVector<Operation *>>> order;
    for (unsigned g : byLarger)
      order.push_back(groups.begin()[g]);

    // Each group's results read after it, and their placeholders' types.
    OpBuilder b(ret);
    Location loc = fn.getLoc();
    for (auto &[set, members] : order) {
      DenseSet<Operation *> inGroup(members.begin(), members.end());
      for (Operation *op : members)
        for (Value r : op->getResults())
          for (Operation *user : r.getUsers())
            if (!inGroup.contains(body.findAncestorOpInBlock(*user)) &&
                !isa<RankedTensorType, IndexType, IntegerType, FloatType>(
                    r.getType()))
              return success(); // no placeholder stands for it: leave fn
    }

    // The conditions, smaller sets first, each from the largest smaller
    // set inside it.
    SmallVector<unsigned> bySize(order.size());
    std::iota(bySize.begin(), bySize.end(), 0);
    llvm::sort(bySize, [&](unsigned x, unsigned y) {
      return std::make_pair(order[x].first.count(), x) <
             std::make_pair(order[y].first.count(), y);
    });
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
    DenseMap<Value, Value> needed; // need argument -> i1
    auto isNeeded = [&](unsigned k) {
      Value &c = needed[need[k]];
      if (!c)
        c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, need[k],
                                  zero);
      return c;
    };
    SmallVector<Value> condition(order.size());
    for (auto [n, g] : llvm::enumerate(bySize)) {
      const llvm::BitVector &set = order[g].first;
      Value c;
      llvm::BitVector rest = set;
      unsigned best = 0;
      for (unsigned h : ArrayRef(bySize).take_front(n)) {
        const llvm::BitVector &inner = order[h].first;
        if (inner.count() > best && !inner.test(set)) {
          best = inner.count();
          c = condition[h];
          rest = set;
          rest.reset(inner);
        }
      }
      for (unsigned k : rest.set_bits()) {
        Value one = isNeeded(k);
        c = c ? arith::OrIOp::create(b, loc, c, one).getResult() : one;
      }
      condition[g] = c;
    }

    // The groups in order, each as one scf.if before the return.
    for (auto [g, entry] : llvm::enumerate(order)) {
      SmallVector<Operation *> &members = entry.second;
      DenseSet<Operation *> inGroup(members.begin(), members.end());
      SmallVector<Value> escaping;
      for (Operation *op : members)
        for (Value r : op->getResults())
          if (llvm::any_of(r.getUsers(), [&](Operation *user) {
                return !inGroup.contains(body.findAncestorOpInBlock(*user));
              }))
            escaping.push_back(r);
      auto ifOp = scf::IfOp::create(b, loc, ValueRange(escaping).getTypes(),
                                    condition[g], /*withElseRegion=*/true);
      {
        OpBuilder inside = ifOp.getThenBodyBuilder();
        for (Operation *op : members)
          op->moveBefore(inside.getInsertionBlock(),
                         inside.getInsertionBlock()->end());
        scf::YieldOp::create(inside, loc, escaping);
      }
      {
        OpBuilder other = ifOp.getElseBodyBuilder();
        SmallVector<Value> placeholders;
        for (Value v : escaping)
          placeholders.push_back(placeholder(other, loc, v.getType()));
        scf::YieldOp::create(other, loc, placeholders);
      }
      for (auto [v, r] : llvm::zip(escaping, ifOp.getResults()))
        v.replaceUsesWithIf(r, [&](OpOperand &use) {
          return !ifOp->isProperAncestor(use.getOwner());
        });
    }
    return success();
  }
};

} // namespace
