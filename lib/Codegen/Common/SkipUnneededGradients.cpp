//===- SkipUnneededGradients.cpp - A backward's products under scf.if -----===//
//
// Each top-level op of a backward is tagged with the one gradient that
// reads it, directly or through later ops, if only one does; each
// gradient's ops that hold a product or a runtime kernel's call move, in
// order, into an scf.if on whether that gradient is needed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/Common/Passes.h"

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"

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

/// What a skipped gradient is returned as: an empty tensor of its static
/// sizes (0 where dynamic).
Value placeholder(OpBuilder &b, Location loc, Type type) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<Value> dynamic(t.getNumDynamicDims(),
                             arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::EmptyOp::create(b, loc, t, dynamic);
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
    bool guarded = false;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto k =
              fn.getArgAttrOfType<IntegerAttr>(i, kiln::kGradientNeedAttrName);
          k && k.getInt() >= 0 && k.getInt() < numResults) {
        need[k.getInt()] = fn.getArgument(i);
        guarded = true;
      }
    if (!guarded)
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

    // The gradient that alone reads each op (through the ops that read
    // it); an op read by several, by something unconditional, or by no
    // gradient is unconditional.
    constexpr int kShared = -1;
    DenseMap<Operation *, int> owner;
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      // (Constants cost nothing: they stay where every region sees them.)
      int only = !movable(op, symbols) || op->use_empty() ||
                         op->hasTrait<OpTrait::ConstantLike>()
                     ? kShared
                     : -2; // no reader seen yet
      for (OpOperand &use : op->getUses()) {
        if (only == kShared)
          break;
        Operation *user = body.findAncestorOpInBlock(*use.getOwner());
        int k = user == ret ? (need[use.getOperandNumber()]
                                   ? int(use.getOperandNumber())
                                   : kShared)
                            : owner.lookup(user);
        only = only == -2 || only == k ? k : kShared;
      }
      owner[op] = only == -2 ? kShared : only;
    }
    // Each gradient's ops, where they compute a product or call a runtime
    // kernel: the work worth skipping. Cheaper ops (a bias's sum, a
    // norm's weight gradient) stay where they fuse with their neighbours
    // (kiln-fuse-row-loops): moved apart, a GPT-2 training step ran 6%
    // slower with every gradient needed.
    llvm::MapVector<int, SmallVector<Operation *>> groups;
    for (Operation *op : ops)
      if (int k = owner.lookup(op); k != kShared)
        groups[k].push_back(op);
    auto worthSkipping = [](Operation *op) {
      bool costly = false;
      op->walk([&](Operation *inner) {
        if (isa<func::CallOp>(inner) ||
            (isa<linalg::LinalgOp>(inner) &&
             linalg::isaContractionOpInterface(cast<linalg::LinalgOp>(inner))))
          costly = true;
      });
      return costly;
    };
    groups.remove_if([&](const auto &group) {
      return llvm::none_of(group.second, worthSkipping);
    });
    if (groups.empty())
      return success();

    OpBuilder b(ret);
    Location loc = fn.getLoc();
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
    // Each group as one scf.if on its gradient's need, before the return
    // (a group reads only unconditional ops and its own; only the return
    // reads it, a gradient tensor, which the placeholder stands for).
    for (auto &[k, members] : groups) {
      DenseSet<Operation *> inGroup(members.begin(), members.end());
      SmallVector<Value> escaping;
      for (Operation *op : members)
        for (Value r : op->getResults())
          if (llvm::any_of(r.getUsers(), [&](Operation *user) {
                return !inGroup.contains(body.findAncestorOpInBlock(*user));
              }))
            escaping.push_back(r);
      Value needed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           need[k], zero);
      auto ifOp = scf::IfOp::create(b, loc, ValueRange(escaping).getTypes(),
                                    needed, /*withElseRegion=*/true);
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
