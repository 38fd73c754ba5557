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

#include "Outlining.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
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

/// The chunks a threaded loop over elements is cut into: a few per thread,
/// for the schedule to balance; the work of each is at least min-work / 64
/// operations, against one call.
constexpr int64_t kChunks = 64;

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
    // Per function, its nests: a function with many has each nest
    // outlined into one body that its serial branch and its threaded loop
    // both call (shareOneBody).
    llvm::DenseMap<Operation *, int64_t> nests;
    for (scf::ParallelOp loop : outermost)
      ++nests[loop->getParentOfType<func::FuncOp>()];
    auto module = dyn_cast<ModuleOp>(getOperation());
    std::optional<SymbolTable> symbols;
    llvm::DenseMap<Operation *, int64_t> bodyNames;
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
      auto parent = branch->getParentOfType<func::FuncOp>();
      if (module && parent &&
          (nests.lookup(parent) > outlineAbove ||
           parent->hasAttr(kiln::kSplitFunctionAttrName))) {
        if (failed(shareOneBody(rewriter, loop, branch, parent,
                                estimate.iterations(), bodyNames, *symbols)))
          return signalPassFailure();
        continue;
      }
      rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
      // The serial copy: every parallel loop of the nest, innermost first
      // (post-order), made nested scf.for loops.
      Operation *serial = rewriter.clone(*loop);
      if (failed(toNestedFors(rewriter, serial, loop)))
        return signalPassFailure();
    }
  }

  /// Every parallel loop in `root`, innermost first (post-order), made
  /// nested scf.for loops.
  static LogicalResult toNestedFors(IRRewriter &rewriter, Operation *root,
                                    scf::ParallelOp original) {
    SmallVector<scf::ParallelOp> loops;
    root->walk([&](scf::ParallelOp p) { loops.push_back(p); });
    for (scf::ParallelOp p : loops) {
      rewriter.setInsertionPoint(p);
      if (failed(scf::parallelForToNestedFors(rewriter, p)))
        return original.emitError(
            "kiln-parallel-where-it-pays: no serial copy");
    }
    return success();
  }

  /// In a function of many nests: the nest becomes one private function
  /// of its outer loop's bounds, `NAME_nestN(lbs, ubs, values it uses)`,
  /// its loops scf.for, never inlined. The serial branch calls it over the
  /// whole range; the threaded loop calls it on each of its iterations.
  /// One body, compiled once, where a serial copy and the threaded loop had
  /// each been a copy of the nest for LLVM to optimize (a graph of hundreds
  /// of nests spent most of its compile time on them), and LLVM's register
  /// allocator no longer sees hundreds of nests in one function.
  static LogicalResult shareOneBody(IRRewriter &rewriter, scf::ParallelOp loop,
                                    scf::IfOp branch, func::FuncOp parent,
                                    Value iterations,
                                    llvm::DenseMap<Operation *, int64_t> &names,
                                    SymbolTable &symbols) {
    Location loc = loop.getLoc();
    MLIRContext *ctx = loop.getContext();
    size_t rank = loop.getNumLoops();
    // What the nest reads from above, steps included; constants stay
    // constants in the body (a step of 1 that the vectorizer must see, a
    // scalar it folds), not arguments.
    SetVector<Value> above;
    getUsedValuesDefinedAbove(loop.getRegion(), above);
    for (Value step : loop.getStep())
      above.insert(step);
    SmallVector<Value> captured, constants;
    for (Value v : above) {
      Operation *def = v.getDefiningOp();
      (def && def->hasTrait<OpTrait::ConstantLike>() ? constants : captured)
          .push_back(v);
    }
    SmallVector<Type> types(2 * rank, rewriter.getIndexType());
    for (Value v : captured)
      types.push_back(v.getType());
    func::FuncOp fn = kiln::createOutlinedFunction(
        rewriter, symbols, parent, "_nest", names[parent],
        FunctionType::get(ctx, types, {}));
    Block *entry = &fn.getBody().front();
    rewriter.setInsertionPointToStart(entry);
    IRMapping map;
    for (Value v : constants)
      map.map(v, rewriter.clone(*v.getDefiningOp())->getResult(0));
    for (auto [v, arg] :
         llvm::zip(captured, entry->getArguments().drop_front(2 * rank)))
      map.map(v, arg);
    auto nest = cast<scf::ParallelOp>(rewriter.clone(*loop, map));
    nest.getLowerBoundMutable().assign(entry->getArguments().take_front(rank));
    nest.getUpperBoundMutable().assign(entry->getArguments().slice(rank, rank));
    func::ReturnOp::create(rewriter, loc);
    if (failed(toNestedFors(rewriter, nest, loop)))
      return failure();

    auto call = [&](ValueRange lbs, ValueRange ubs) {
      SmallVector<Value> operands(lbs);
      llvm::append_range(operands, ubs);
      llvm::append_range(operands, captured);
      func::CallOp::create(rewriter, loc, fn, operands);
    };
    // Serial: the whole range.
    rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
    call(loop.getLowerBound(), loop.getUpperBound());
    // Threaded, a loop over elements (no loop in its body, one dim): in
    // kChunks chunks of iterations, each a call, so that the body's loop
    // stays a loop that LLVM vectorizes.
    bool light = rank == 1 && !loop.getBody()
                                   ->walk([](LoopLikeOpInterface) {
                                     return WalkResult::interrupt();
                                   })
                                   .wasInterrupted();
    if (light) {
      rewriter.setInsertionPoint(loop);
      // `iterations` is the work estimate's count of the loop's (at least
      // 2 here: the threaded branch is taken only then).
      Value lb = loop.getLowerBound()[0], ub = loop.getUpperBound()[0],
            step = loop.getStep()[0];
      auto index = [&](int64_t v) {
        return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
      };
      Value zero = index(0), one = index(1);
      Value chunks =
          arith::MinSIOp::create(rewriter, loc, iterations, index(kChunks));
      Value span = arith::MulIOp::create(
          rewriter, loc,
          arith::CeilDivSIOp::create(rewriter, loc, iterations, chunks), step);
      scf::ParallelOp::create(
          rewriter, loc, ValueRange{zero}, ValueRange{chunks}, ValueRange{one},
          [&](OpBuilder &b, Location l, ValueRange ivs) {
            Value begin = arith::AddIOp::create(
                b, l, lb, arith::MulIOp::create(b, l, ivs[0], span));
            Value end = arith::MinSIOp::create(
                b, l, arith::AddIOp::create(b, l, begin, span), ub);
            SmallVector<Value> operands{begin, end};
            llvm::append_range(operands, captured);
            func::CallOp::create(b, l, fn, operands);
          });
      rewriter.eraseOp(loop);
      return success();
    }
    // Threaded, a loop over rows or row tiles: one iteration per call,
    // [iv, min(iv + step, ub)).
    Block *body = loop.getBody();
    while (Operation *last = body->getTerminator()->getPrevNode())
      rewriter.eraseOp(last); // last first: no use outlives its value
    rewriter.setInsertionPointToStart(body);
    SmallVector<Value> ends;
    for (auto [iv, step, ub] : llvm::zip(loop.getInductionVars(),
                                         loop.getStep(), loop.getUpperBound()))
      ends.push_back(arith::MinSIOp::create(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, iv, step), ub));
    call(loop.getInductionVars(), ends);
    return success();
  }
};

} // namespace
