//===- ParallelWhereItPays.cpp - Threads only for loop nests worth them ---===//
//
// Each outermost scf.parallel becomes
//
//     %work = (trip counts) * (operations of the body, down the nest)
//     scf.if (%work >= min-work and the loop has 2 iterations or more) {
//       scf.parallel ...                               // an OpenMP team
//     } else { scf.for ... }                           // no fork
//
// The estimate is built before the loop from values defined outside it; a
// bound computed inside (a row tile's `affine.min(16, n - i)`) counts as its
// constant part, the tile size.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNPARALLELWHEREITPAYS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// Builds, before `outer`, an estimate of the work of its loop nest.
class WorkEstimate {
public:
  WorkEstimate(OpBuilder &b, scf::ParallelOp outer)
      : b_(b), outer_(outer), loc_(outer.getLoc()) {}

  /// Trip counts of `outer` times the work of its body.
  Value ofOuter() { return mul(iterations(), ofBlock(*outer_.getBody())); }

  /// The iterations of `outer` itself.
  Value iterations() {
    if (!iterations_)
      iterations_ = tripCounts(outer_.getLowerBound(), outer_.getUpperBound(),
                               outer_.getStep());
    return iterations_;
  }

private:
  Value constant(int64_t v) {
    return arith::ConstantIndexOp::create(b_, loc_, v);
  }
  Value mul(Value a, Value c) {
    return b_.createOrFold<arith::MulIOp>(loc_, a, c);
  }
  Value add(Value a, Value c) {
    return b_.createOrFold<arith::AddIOp>(loc_, a, c);
  }

  bool outside(Value v) {
    Operation *def = v.getDefiningOp();
    Operation *owner = def ? def : v.getParentBlock()->getParentOp();
    return !outer_->isAncestor(owner);
  }

  /// A bound as seen from before the loop nest: itself when defined
  /// outside, the least constant of an affine.min inside (a tile's size),
  /// else unknown.
  std::optional<Value> bound(Value v) {
    if (outside(v))
      return v;
    if (auto min = v.getDefiningOp<affine::AffineMinOp>()) {
      std::optional<int64_t> least;
      for (AffineExpr e : min.getAffineMap().getResults())
        if (auto c = dyn_cast<AffineConstantExpr>(e))
          least = least ? std::min(*least, c.getValue()) : c.getValue();
      if (least)
        return constant(*least);
    }
    if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
      return constant(c.value());
    return std::nullopt;
  }

  /// The product of ceil((ub - lb) / step) over the dims; a dim whose
  /// bounds are not known outside counts once.
  Value tripCounts(ValueRange lbs, ValueRange ubs, ValueRange steps) {
    Value total = constant(1);
    for (size_t i = 0; i < lbs.size(); ++i) {
      std::optional<Value> lb = bound(lbs[i]), ub = bound(ubs[i]),
                           step = bound(steps[i]);
      if (!lb || !ub || !step)
        continue;
      Value span = b_.createOrFold<arith::MaxSIOp>(
          loc_, b_.createOrFold<arith::SubIOp>(loc_, *ub, *lb), constant(0));
      total =
          mul(total, b_.createOrFold<arith::CeilDivSIOp>(loc_, span, *step));
    }
    return total;
  }

  /// A loop's trip counts times the work of its body (scf.for or
  /// scf.parallel).
  template <typename Loop> Value ofLoop(Loop loop) {
    return mul(
        tripCounts(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()),
        ofBlock(*loop.getBody()));
  }

  /// The operations one run of `block` executes, nested loops multiplied
  /// by their trip counts and both arms of an if counted.
  Value ofBlock(Block &block) {
    int64_t own = 0;
    Value nested = constant(0);
    for (Operation &op : block) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        nested = add(nested, ofLoop(loop));
      } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        nested = add(nested, ofLoop(loop));
      } else if (op.getNumRegions() > 0) {
        for (Region &r : op.getRegions())
          for (Block &inner : r)
            nested = add(nested, ofBlock(inner));
      } else if (!op.hasTrait<OpTrait::ConstantLike>() &&
                 !op.hasTrait<OpTrait::IsTerminator>()) {
        ++own;
      }
    }
    return add(nested, constant(own));
  }

  OpBuilder &b_;
  scf::ParallelOp outer_;
  Location loc_;
  Value iterations_;
};

struct KilnParallelWhereItPaysPass
    : mlir::kiln::impl::KilnParallelWhereItPaysBase<
          KilnParallelWhereItPaysPass> {
  using KilnParallelWhereItPaysBase::KilnParallelWhereItPaysBase;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          loop.getNumResults() == 0)
        outermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    // Per function, its nests: a function with many has its serial copies
    // outlined, each into a function of its own that LLVM may not inline
    // back (one function of hundreds of loop nests took LLVM's register
    // allocator time quadratic in its size; the threaded copies are
    // outlined by OpenMP anyway).
    llvm::DenseMap<Operation *, int64_t> nests;
    for (scf::ParallelOp loop : outermost)
      ++nests[loop->getParentOfType<func::FuncOp>()];
    auto module = dyn_cast<ModuleOp>(getOperation());
    std::optional<SymbolTable> symbols;
    llvm::DenseMap<Operation *, int64_t> serialNames;
    if (module)
      symbols.emplace(module);
    for (scf::ParallelOp loop : outermost) {
      rewriter.setInsertionPoint(loop);
      WorkEstimate estimate(rewriter, loop);
      Value work = estimate.ofOuter();
      Location loc = loop.getLoc();
      Value enough = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sge, work,
          arith::ConstantIndexOp::create(rewriter, loc, minWork));
      // One iteration cannot use a second thread, and would keep the
      // runtime calls inside it (a BLAS product) from using theirs.
      Value several = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sge, estimate.iterations(),
          arith::ConstantIndexOp::create(rewriter, loc, 2));
      Value pays = arith::AndIOp::create(rewriter, loc, enough, several);
      auto branch = scf::IfOp::create(rewriter, loop.getLoc(), pays,
                                      /*withElseRegion=*/true);
      rewriter.moveOpBefore(loop, branch.thenBlock()->getTerminator());
      rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
      // The serial copy: every parallel loop of the nest, innermost first
      // (post-order), made nested scf.for loops.
      Operation *serial = rewriter.clone(*loop);
      SmallVector<scf::ParallelOp> copies;
      serial->walk([&](scf::ParallelOp p) { copies.push_back(p); });
      for (scf::ParallelOp copy : copies) {
        rewriter.setInsertionPoint(copy);
        if (failed(scf::parallelForToNestedFors(rewriter, copy))) {
          loop.emitError("kiln-parallel-where-it-pays: no serial copy");
          return signalPassFailure();
        }
      }
      auto parent = branch->getParentOfType<func::FuncOp>();
      if (!module || !parent || nests.lookup(parent) <= outlineAbove)
        continue;
      // Constants stay constants in the outlined copy (a step of 1 that
      // the vectorizer must see, a scalar it folds), not arguments.
      Region &serialRegion = branch.getElseRegion();
      SetVector<Value> above;
      getUsedValuesDefinedAbove(serialRegion, above);
      rewriter.setInsertionPointToStart(&serialRegion.front());
      for (Value v : above)
        if (Operation *def = v.getDefiningOp();
            def && def->hasTrait<OpTrait::ConstantLike>()) {
          Value local = rewriter.clone(*def)->getResult(0);
          rewriter.replaceUsesWithIf(v, local, [&](OpOperand &use) {
            return serialRegion.isAncestor(use.getOwner()->getParentRegion());
          });
        }
      func::FuncOp serialFn;
      std::string name;
      do
        name = (parent.getSymName() + "_serial" +
                std::to_string(serialNames[parent]++))
                   .str();
      while (symbols->lookup(name));
      rewriter.setInsertionPoint(branch);
      if (failed(outlineIfOp(rewriter, branch, nullptr, "", &serialFn, name))) {
        loop.emitError("kiln-parallel-where-it-pays: serial copy not outlined");
        return signalPassFailure();
      }
      serialFn.setPrivate();
      symbols->insert(serialFn);
      // llvm.func's passthrough: what func-to-llvm carries over.
      serialFn->setAttr(
          "passthrough",
          rewriter.getArrayAttr({rewriter.getStringAttr("noinline")}));
    }
  }
};

} // namespace
