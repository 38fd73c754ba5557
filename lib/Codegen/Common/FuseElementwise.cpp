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
struct KilnFuseElementwisePass
    : mlir::kiln::impl::KilnFuseElementwiseBase<KilnFuseElementwisePass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    MLIRContext *context = &getContext();
    // Upstream's rule (a producer with one use), and never into a
    // contraction, where the producer would be recomputed at every step.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return producer && producer->hasOneUse() &&
             !(consumer && linalg::isaContractionOpInterface(consumer));
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
