//===- ParallelizeOuterLoop.cpp - One parallel dim per loop nest ----------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNPARALLELIZEOUTERLOOP
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-parallelize-outer-loop"

using namespace mlir;

namespace {

/// Rewrites `loop` as an scf.parallel over its first `keep` dims (none when
/// keep is 0) around scf.for loops over the rest. Loops with reductions
/// (init values) are left alone.
void splitParallel(scf::ParallelOp loop, unsigned keep) {
  if (!loop.getInitVals().empty() || loop.getNumLoops() <= keep)
    return;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto lbs = loop.getLowerBound(), ubs = loop.getUpperBound(),
       steps = loop.getStep();
  IRMapping map;
  Block *body = nullptr;
  Operation *outer = nullptr;
  if (keep > 0) {
    auto par =
        scf::ParallelOp::create(b, loc, lbs.take_front(keep),
                                ubs.take_front(keep), steps.take_front(keep));
    for (unsigned i = 0; i < keep; ++i)
      map.map(loop.getInductionVars()[i], par.getInductionVars()[i]);
    outer = par;
    body = par.getBody();
    b.setInsertionPointToStart(body);
  }
  for (unsigned i = keep; i < loop.getNumLoops(); ++i) {
    auto forOp = scf::ForOp::create(b, loc, lbs[i], ubs[i], steps[i]);
    map.map(loop.getInductionVars()[i], forOp.getInductionVar());
    if (!outer)
      outer = forOp;
    b.setInsertionPointToStart(forOp.getBody());
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  loop.erase();
}

struct KilnParallelizeOuterLoopPass
    : mlir::kiln::impl::KilnParallelizeOuterLoopBase<
          KilnParallelizeOuterLoopPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    SmallVector<scf::ParallelOp> outermost, nested;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>())
        nested.push_back(loop);
      else
        outermost.push_back(loop);
    });
    // Inner loops first, so that cloned bodies hold no parallel loops.
    for (scf::ParallelOp loop : nested) // post-order: innermost first
      splitParallel(loop, 0);
    // An element nest keeps every dim but the innermost parallel (rows of
    // a [B, T, C] nest split over threads even when B is 1; the innermost
    // loop stays plain and vectorizes); a nest whose body loops (a row
    // tile, a reduction) keeps all its dims.
    for (scf::ParallelOp loop : outermost) {
      bool loops = loop.getBody()
                       ->walk([](LoopLikeOpInterface) {
                         return WalkResult::interrupt();
                       })
                       .wasInterrupted();
      unsigned dims = loop.getNumLoops();
      splitParallel(loop, loops || dims == 1 ? dims : dims - 1);
    }
  }
};

} // namespace
