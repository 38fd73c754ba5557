//===- LowerReductions.cpp - Reductions with a register accumulator -------===//
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNLOWERREDUCTIONS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-lower-reductions"

using namespace mlir;

namespace {

/// The indices that map selects from the loop induction variables.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    AffineMap one = AffineMap::get(map.getNumDims(), 0, expr, b.getContext());
    indices.push_back(affine::AffineApplyOp::create(b, loc, one, ivs));
  }
  return indices;
}

struct ReductionToLoops : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() == 0)
      return failure();
    // Parallel loops first, then the reductions.
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned numParallel = op.getNumParallelLoops();
    for (unsigned i = 0; i < iterators.size(); ++i)
      if ((i < numParallel) != (iterators[i] == utils::IteratorType::parallel))
        return failure();
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (unsigned i = numParallel; i < iterators.size(); ++i)
      if (outMap.isFunctionOfDim(i))
        return failure();

    Location loc = op.getLoc();
    SmallVector<Range> ranges = cast<linalg::LinalgOp>(op.getOperation())
                                    .createLoopRanges(rewriter, loc);
    auto value = [&](OpFoldResult ofr) {
      return getValueOrCreateConstantIndexOp(rewriter, loc, ofr);
    };
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(numParallel, zero), ubs, steps(numParallel, one);
    for (unsigned i = 0; i < numParallel; ++i)
      ubs.push_back(value(ranges[i].size));
    Value out = op.getDpsInits()[0];

    // A full reduction has no parallel loop.
    OpBuilder::InsertionGuard guard(rewriter);
    SmallVector<Value> ivs;
    if (numParallel > 0) {
      auto par = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
      rewriter.setInsertionPointToStart(par.getBody());
      auto vars = par.getInductionVars();
      ivs.assign(vars.begin(), vars.end());
    }
    // The output index does not depend on the reduced dims: any value works.
    SmallVector<Value> allIvs = ivs;
    allIvs.resize(iterators.size(), zero);
    SmallVector<Value> outIndices = applyMap(rewriter, loc, outMap, allIvs);
    Value init = memref::LoadOp::create(rewriter, loc, out, outIndices);

    // Nested scf.for loops over the reduced dims carry the accumulator.
    std::function<Value(unsigned, Value)> reduceFrom = [&](unsigned dim,
                                                           Value acc) -> Value {
      auto loop = scf::ForOp::create(
          rewriter, loc, zero, value(ranges[dim].size), one, ValueRange{acc},
          [&](OpBuilder &b, Location l, Value iv, ValueRange args) {
            allIvs[dim] = iv;
            Value result;
            if (dim + 1 < iterators.size()) {
              OpBuilder::InsertionGuard inner(rewriter);
              rewriter.setInsertionPoint(b.getInsertionBlock(),
                                         b.getInsertionPoint());
              result = reduceFrom(dim + 1, args[0]);
            } else {
              IRMapping map;
              Block &body = op.getRegion().front();
              for (OpOperand *input : op.getDpsInputOperands()) {
                AffineMap m = op.getMatchingIndexingMap(input);
                Value v = input->get();
                Value loaded = isa<MemRefType>(v.getType())
                                   ? Value(memref::LoadOp::create(
                                         b, l, v, applyMap(b, l, m, allIvs)))
                                   : v;
                map.map(body.getArgument(input->getOperandNumber()), loaded);
              }
              map.map(body.getArguments().back(), args[0]);
              for (Operation &bodyOp : body.without_terminator()) {
                // linalg.index reads the loop position.
                if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
                  map.map(index.getResult(), allIvs[index.getDim()]);
                  continue;
                }
                b.clone(bodyOp, map);
              }
              result = map.lookup(body.getTerminator()->getOperand(0));
            }
            scf::YieldOp::create(b, l, result);
          });
      return loop.getResult(0);
    };
    Value total = reduceFrom(numParallel, init);
    memref::StoreOp::create(rewriter, loc, total, out, outIndices);
    rewriter.eraseOp(op);
    return success();
  }
};

struct KilnLowerReductionsPass
    : mlir::kiln::impl::KilnLowerReductionsBase<KilnLowerReductionsPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    RewritePatternSet patterns(&getContext());
    patterns.add<ReductionToLoops>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
