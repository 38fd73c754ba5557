//===- TileAndFuseRows.cpp - Row-block tiling with producer fusion --------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNTILEANDFUSEROWS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-tile-and-fuse-rows"

using namespace mlir;

namespace {

/// The end of a chain: a linalg op on tensors whose outermost loop is
/// parallel, that is not a contraction, and whose results no other linalg op
/// reads.
bool isRoot(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() < 2 ||
      op.getIteratorTypesArray()[0] != utils::IteratorType::parallel ||
      linalg::isaContractionOpInterface(op))
    return false;
  for (Value result : op->getResults())
    for (Operation *user : result.getUsers())
      if (isa<linalg::LinalgOp>(user))
        return false;
  return true;
}

struct KilnTileAndFuseRowsPass
    : mlir::kiln::impl::KilnTileAndFuseRowsBase<KilnTileAndFuseRowsPass> {
  using KilnTileAndFuseRowsBase::KilnTileAndFuseRowsBase;

  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    SmallVector<linalg::LinalgOp> roots;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isRoot(op))
        roots.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp root : roots) {
      SmallVector<OpFoldResult> sizes(root.getNumLoops(),
                                      rewriter.getIndexAttr(0));
      sizes[0] = rewriter.getIndexAttr(rows);
      scf::SCFTilingOptions tiling;
      tiling.setTileSizes(sizes);
      tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      scf::SCFTileAndFuseOptions options;
      options.setTilingOptions(tiling);
      rewriter.setInsertionPoint(root);
      // A root the interface cannot tile (a keepdim reduction's (d0, 0)
      // result) says why as an error; leaving it untiled is no error of the
      // user's program, so the attempt stays quiet.
      FailureOr<scf::SCFTileAndFuseResult> result = [&] {
        ScopedDiagnosticHandler quiet(&getContext(),
                                      [](Diagnostic &) { return success(); });
        return scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root.getOperation()), options);
      }();
      if (failed(result)) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] left untiled: "
                                << root->getName() << "\n");
        continue; // left untiled: correct, only slower
      }
      LLVM_DEBUG(llvm::dbgs()
                 << "[" DEBUG_TYPE "] tiled by " << rows << " rows, "
                 << result->fusedProducers.size()
                 << " producers fused: " << root->getName() << "\n");
      for (OpResult value : root->getResults())
        rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));
      rewriter.eraseOp(root);
    }
  }
};

} // namespace
