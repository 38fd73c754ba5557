//===- GpuDeviceBuffers.cpp - Every buffer of a GPU graph on the device ---===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUDEVICEBUFFERS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using mlir::kiln::viewedBuffer;

namespace {

/// An allocation only host code uses: sizes for memref.reshape, or the
/// deallocation pipeline's lists of pointers and flags, which go to its
/// helper function. (A tensor's buffer is written by a kernel or returned.)
bool isHostMetadata(memref::AllocOp alloc) {
  SmallVector<Value> values = {alloc.getResult()};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto cast = dyn_cast<memref::CastOp>(user)) {
        values.push_back(cast.getResult());
        continue;
      }
      if (auto reshape = dyn_cast<memref::ReshapeOp>(user)) {
        if (reshape.getShape() != v)
          return false;
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return false;
        continue;
      }
      if (isa<memref::LoadOp, memref::StoreOp>(user) &&
          !user->getParentOfType<linalg::LinalgOp>())
        continue;
      if (!isa<memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp>(user))
        return false;
    }
  }
  return true;
}

/// Whether host code touching `buffer` touches device memory: it is (a
/// view of) an allocation that becomes gpu.alloc, or a public function's
/// argument (a graph's input). Stack buffers, metadata and the arguments
/// of the module's private helpers (the deallocation helper) are host
/// memory.
bool isDeviceBuffer(Value buffer) {
  buffer = viewedBuffer(buffer);
  if (Operation *def = buffer.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(def))
      return !isHostMetadata(alloc);
    return !isa<memref::AllocaOp, memref::GetGlobalOp>(def);
  }
  auto fn = dyn_cast<func::FuncOp>(buffer.getParentBlock()->getParentOp());
  return !fn || fn.isPublic();
}

/// A host load or store of a rank-0 device buffer goes through a host copy
/// and gpu.memcpy; other host accesses of device data are errors.
LogicalResult stageHostAccess(Operation *op, IRRewriter &rewriter) {
  auto load = dyn_cast<memref::LoadOp>(op);
  auto store = dyn_cast<memref::StoreOp>(op);
  Value buffer = load ? load.getMemRef() : store.getMemRef();
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 0 || !type.getLayout().isIdentity())
    return op->emitError("kiln: host code reads or writes device memory of type ")
           << type << " (only single values are copied for the host)";
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value host = memref::AllocaOp::create(rewriter, loc, type);
  if (load) {
    gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                          host, buffer);
    rewriter.replaceOpWithNewOp<memref::LoadOp>(load, host, ValueRange{});
  } else {
    memref::StoreOp::create(rewriter, loc, store.getValueToStore(), host,
                            ValueRange{});
    gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                          buffer, host);
    rewriter.eraseOp(store);
  }
  return success();
}

/// An external function given buffers (an allow_in_graph call) would read
/// device memory on the host: an error. (Functions of the module, such as
/// the deallocation helper, only compare their pointers.)
LogicalResult rejectHostCalls(func::FuncOp fn) {
  WalkResult calls = fn.walk([&](func::CallOp call) {
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
  return failure(calls.wasInterrupted());
}

/// Host reads and writes of tensor data (outside linalg ops, which become
/// kernels), such as a graph reading a flag it computed, through host copies.
LogicalResult stageHostAccesses(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<Operation *> accesses;
  fn.walk([&](Operation *op) {
    if (!isa<memref::LoadOp, memref::StoreOp>(op) ||
        op->getParentOfType<linalg::LinalgOp>())
      return;
    Value buffer = isa<memref::LoadOp>(op) ? cast<memref::LoadOp>(op).getMemRef()
                                           : cast<memref::StoreOp>(op).getMemRef();
    if (isDeviceBuffer(buffer))
      accesses.push_back(op);
  });
  for (Operation *op : accesses)
    if (failed(stageHostAccess(op, rewriter)))
      return failure();
  return success();
}

/// Allocations and deallocations through the gpu dialect, copies as
/// linalg.copy (a kernel later); host metadata stays.
void moveBuffersToDevice(func::FuncOp fn, IRRewriter &rewriter) {
  // Collected first: the walk must not see the ops it creates.
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (isHostMetadata(alloc))
        return;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      if (!isDeviceBuffer(dealloc.getMemref()))
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

/// A linalg op with no parallel loop (a reduction of every dim, a fill of a
/// single value) would lower to host loops over device memory: it gets a
/// parallel loop of one iteration, which becomes its kernel.
void wrapSerialOps(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<linalg::LinalgOp> serial;
  fn.walk([&](linalg::LinalgOp op) {
    if (op.getNumParallelLoops() == 0 && op.hasPureBufferSemantics())
      serial.push_back(op);
  });
  for (linalg::LinalgOp op : serial) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto unit = scf::ParallelOp::create(rewriter, loc, zero, one, one);
    op->moveBefore(unit.getBody()->getTerminator());
  }
}

struct KilnGpuDeviceBuffersPass
    : mlir::kiln::impl::KilnGpuDeviceBuffersBase<KilnGpuDeviceBuffersPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    IRRewriter rewriter(&getContext());
    if (failed(rejectHostCalls(fn)) || failed(stageHostAccesses(fn, rewriter)))
      return signalPassFailure();
    moveBuffersToDevice(fn, rewriter);
    wrapSerialOps(fn, rewriter);
  }
};

} // namespace
