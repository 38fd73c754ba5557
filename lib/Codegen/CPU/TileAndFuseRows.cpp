//===- TileAndFuseRows.cpp - Row-block tiling with producer fusion --------===//
#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Conversion/KilnToLinalg.h"

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
/// parallel, that is not a product (a contraction or a convolution, which
/// the runtime runs whole: tiled, a convolution whose result is read only
/// through a slice became one runtime call, im2col included, per 16
/// outputs), and whose results no other linalg op reads. A broadcast copy
/// is no root either: kiln-broadcast-copies makes it one strided copy.
bool isRoot(linalg::LinalgOp op) {
  // An op with a static size of 0 computes nothing: tiling it (SCF's tile
  // size computation divides by that size) is left out.
  auto empty = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return shaped && shaped.hasRank() &&
           llvm::is_contained(shaped.getShape(), 0);
  };
  if (llvm::any_of(op->getOperandTypes(), empty) ||
      llvm::any_of(op->getResultTypes(), empty))
    return false;
  if (!op.hasPureTensorSemantics() || op.getNumLoops() < 2 ||
      op->hasAttr(kiln::kBroadcastCopyAttrName) ||
      op.getIteratorTypesArray()[0] != utils::IteratorType::parallel ||
      linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op))
    return false;
  for (Value result : op->getResults())
    for (Operation *user : result.getUsers())
      if (isa<linalg::LinalgOp>(user))
        return false;
  return true;
}

/// Blocks of `rows` along the last of the root's leading parallel loops
/// (the innermost loop stays whole), one index of each loop before it: a
/// [B, T, C] chain is tiled [1, rows, C], so that its tiles are many even
/// when the batch is 1.
SmallVector<OpFoldResult> tileSizes(OpBuilder &b, linalg::LinalgOp root,
                                    int64_t rows) {
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  size_t lead = 0;
  while (lead + 1 < iterators.size() &&
         iterators[lead] == utils::IteratorType::parallel)
    ++lead;
  SmallVector<OpFoldResult> sizes(iterators.size(), b.getIndexAttr(0));
  for (size_t i = 0; i + 1 < lead; ++i)
    sizes[i] = b.getIndexAttr(1);
  sizes[lead - 1] = b.getIndexAttr(rows);
  return sizes;
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
      SmallVector<OpFoldResult> sizes = tileSizes(rewriter, root, rows);
      scf::SCFTilingOptions tiling;
      tiling.setTileSizes(sizes);
      tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      scf::SCFTileAndFuseOptions options;
      options.setTilingOptions(tiling);
      // Products stay whole, before the tiles: a BLAS call on a row block
      // runs at half the speed of one on the whole matrix, which the
      // runtime splits over the threads itself.
      options.setFusionControlFn(
          [](tensor::ExtractSliceOp slice, OpResult producer, bool)
              -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
            // Nor is a producer tiled to a slice of static size 0.
            if (llvm::is_contained(slice.getStaticSizes(), 0))
              return std::nullopt;
            // Only what can be tiled: a call (the runtime's attention) was
            // cloned into every tile, dead there but not erasable (a call
            // may have effects), and ran once per tile: the GPT-2 block's
            // attention 256 times a call.
            if (!isa<TilingInterface>(producer.getOwner()))
              return std::nullopt;
            auto op = dyn_cast<linalg::LinalgOp>(producer.getOwner());
            if (op && (linalg::isaContractionOpInterface(op) ||
                       linalg::isaConvolutionOpInterface(op)))
              return std::nullopt;
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          });
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
