//===- ExpandBf16Conversions.cpp - bf16 extf/truncf as integer code -------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNEXPANDBF16CONVERSIONS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-expand-bf16-conversions"

using namespace mlir;

namespace {
struct KilnExpandBf16ConversionsPass
    : mlir::kiln::impl::KilnExpandBf16ConversionsBase<
          KilnExpandBf16ConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
