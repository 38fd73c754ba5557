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

/// A buffer that only describes a shape (memref.reshape's shape operand,
/// filled by host stores): it stays in host memory.
bool isShapeBuffer(Value buffer) {
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
      return reshape.getShape() == buffer;
    if (auto store = dyn_cast<memref::StoreOp>(user))
      return store.getMemRef() == buffer;
    return isa<memref::DeallocOp>(user);
  });
}

struct KilnGpuDeviceBuffersPass
    : mlir::kiln::impl::KilnGpuDeviceBuffersBase<KilnGpuDeviceBuffersPass> {
  void runOnOperation() override {
    // An external function given buffers (an allow_in_graph call) would
    // read device memory on the host. (Functions of the module, such as
    // the deallocation helper, only compare their pointers.)
    WalkResult calls = getOperation().walk([&](func::CallOp call) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if ((!callee || callee.isExternal()) &&
          llvm::any_of(call.getOperandTypes(), llvm::IsaPred<BaseMemRefType>)) {
        call.emitError("kiln: '")
            << call.getCallee()
            << "' is a host function and cannot take device buffers "
               "(allow_in_graph calls are not supported on the GPU)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (calls.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    // Collected first: the walk must not see the ops it creates.
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
          isShapeBuffer(op->getNumResults() ? op->getResult(0) : op->getOperand(0)))
        return;
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
