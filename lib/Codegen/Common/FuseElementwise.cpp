//===- FuseElementwise.cpp - Elementwise fusion, never into contractions --===//
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFUSEELEMENTWISE
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-fuse-elementwise"

using namespace mlir;

namespace {
/// The most ops a fused elementwise body holds.
constexpr size_t kMaxFusedBodyOps = 256;

struct KilnFuseElementwisePass
    : mlir::kiln::impl::KilnFuseElementwiseBase<KilnFuseElementwisePass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    MLIRContext *context = &getContext();
    // Upstream's rule (a producer with one use), and never into a
    // contraction, where the producer would be recomputed at every step.
    // A fused body stays under kMaxFusedBodyOps: each fusion clones both
    // bodies, so fusing a chain of n ops into one costs n^2 (a 4,000-op
    // chain took minutes), while a kernel of that many ops per element
    // is bound by its arithmetic, not by the loads a split adds.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      if (!producer || !producer->hasOneUse() ||
          (consumer && linalg::isaContractionOpInterface(consumer)))
        return false;
      auto bodyOps = [](Operation *op) -> size_t {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        return linalgOp && linalgOp.getBlock()
                   ? linalgOp.getBlock()->getOperations().size()
                   : 0;
      };
      return bodyOps(producer) + bodyOps(fused->getOwner()) <= kMaxFusedBodyOps;
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal())))
      signalPassFailure();
  }
};
} // namespace
