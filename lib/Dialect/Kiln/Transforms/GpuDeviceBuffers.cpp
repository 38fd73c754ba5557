//===- GpuDeviceBuffers.cpp - Every buffer of a GPU graph on the device ---===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUDEVICEBUFFERS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

struct KilnGpuDeviceBuffersPass
    : mlir::kiln::impl::KilnGpuDeviceBuffersBase<KilnGpuDeviceBuffersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Collected first: the walk must not see the ops it creates.
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            ValueRange{}, alloc.getDynamicSizes(), alloc.getSymbolOperands());
        rewriter.replaceOp(alloc, device.getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
            dealloc, /*asyncToken=*/Type(), ValueRange{}, dealloc.getMemref());
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                    copy.getTarget());
      }
    }
  }
};

} // namespace
