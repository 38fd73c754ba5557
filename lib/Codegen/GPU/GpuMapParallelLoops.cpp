//===- GpuMapParallelLoops.cpp - Loop nests onto GPU blocks and threads ---===//
#include "kiln/Codegen/GPU/Passes.h"

#include "GpuGrid.h"
#include "kiln/Codegen/Common/ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"

#include "llvm/Support/Debug.h"
#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMAPPARALLELLOOPS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-gpu-map-parallel-loops"

using namespace mlir;
using namespace mlir::kiln;

namespace {

using gpu::AllReduceOperation;

/// The grid of an elementwise nest of `total` threads: one per (group of)
/// iterations, blockSize per block, the builder inside the bounds check of
/// the last block. Returns the thread's linear index.
Value createElementwiseGrid(OpBuilder &b, Location loc, Value total,
                            int64_t blockSize) {
  Value width = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value blocks = arith::CeilDivUIOp::create(b, loc, total, width);
  auto [outer, inner] = createGrid(b, loc, blocks, blockSize);
  Value base =
      arith::MulIOp::create(b, loc, outer.getInductionVars()[0], width);
  Value linear =
      arith::AddIOp::create(b, loc, base, inner.getInductionVars()[0]);
  Value inBounds =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear, total);
  auto guard = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  return linear;
}

/// Any nest: one thread per iteration, blockSize per block, with a bounds
/// check for the last block. Built at b's insertion point; `loop` stays.
void buildElementwise(OpBuilder &b, scf::ParallelOp loop, int64_t blockSize) {
  OpBuilder::InsertionGuard g(b);
  Location loc = loop.getLoc();
  SmallVector<Value> counts;
  Value total = totalCount(b, loc, loop, counts);
  Value linear = createElementwiseGrid(b, loc, total, blockSize);
  IRMapping map;
  delinearize(b, loc, loop, counts, linear, map);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
}

/// A nest whose data is contiguous along its last dim: each thread handles
/// `width` consecutive iterations, its contiguous accesses one vector load
/// or store each (ld.global.v4.f32), the rest of the body once per lane.
/// This path runs when the last dim's size and every such buffer's
/// address, offset and outer strides are multiples of `width` elements and
/// its last stride is 1 (checked at run time; otherwise the scalar grid
/// runs), so that every vector access is aligned to its size.
void mapElementwiseVectorized(scf::ParallelOp loop,
                              const VectorAccesses &accesses,
                              int64_t blockSize) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned last = loop.getNumLoops() - 1;
  int64_t width = accesses.width;
  Value ok = accesses.check(b, loc, tripCount(b, loc, loop, last),
                            loop.getLowerBound()[last]);
  auto choice = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
  b.setInsertionPointToStart(choice.elseBlock());
  buildElementwise(b, loop, blockSize);
  b.setInsertionPointToStart(choice.thenBlock());
  llvm::MapVector<Value, Value> views = accesses.views(b, loc);
  SmallVector<Value> counts;
  for (unsigned i = 0; i < loop.getNumLoops(); ++i)
    counts.push_back(tripCount(b, loc, loop, i));
  counts[last] = arith::DivUIOp::create(
      b, loc, counts[last], arith::ConstantIndexOp::create(b, loc, width));
  Value total = counts[0];
  for (Value count : ArrayRef(counts).drop_front())
    total = arith::MulIOp::create(b, loc, total, count);
  Value linear = createElementwiseGrid(b, loc, total, blockSize);
  IRMapping first;
  delinearize(b, loc, loop, counts, linear, first, /*dims=*/0, width);
  accesses.emitLanes(b, loc, first, views);
  loop.erase();
}

/// Any nest: vectorized where its data is contiguous (width > 1), else one
/// thread per iteration.
void mapElementwise(scf::ParallelOp loop, int64_t width, int64_t blockSize) {
  if (std::optional<VectorAccesses> accesses = vectorAccesses(loop, width))
    return mapElementwiseVectorized(loop, *accesses, blockSize);
  OpBuilder b(loop);
  buildElementwise(b, loop, blockSize);
  loop.erase();
}

/// Whether `buffer` is device memory: (a view of) a gpu.alloc or an
/// argument of a public function (a graph's input).
bool onDevice(Value buffer) {
  buffer = viewedBuffer(buffer);
  if (Operation *def = buffer.getDefiningOp())
    return isa<gpu::AllocOp>(def);
  auto fn = dyn_cast<func::FuncOp>(buffer.getParentBlock()->getParentOp());
  return fn && fn.isPublic();
}

/// What stays outside the kernels runs on the host, which cannot touch
/// device memory: a graph doing so is a compiler bug, stopped here.
LogicalResult checkHostCode(func::FuncOp fn) {
  WalkResult host = fn.walk([&](Operation *op) {
    if (!isa<memref::LoadOp, memref::StoreOp>(op) ||
        op->getParentOfType<scf::ParallelOp>())
      return WalkResult::advance();
    Value buffer = isa<memref::LoadOp>(op)
                       ? cast<memref::LoadOp>(op).getMemRef()
                       : cast<memref::StoreOp>(op).getMemRef();
    if (!onDevice(buffer))
      return WalkResult::advance();
    op->emitError("kiln: host code would access device memory (not mapped "
                  "onto the GPU)");
    return WalkResult::interrupt();
  });
  return failure(host.wasInterrupted());
}

struct KilnGpuMapParallelLoopsPass
    : mlir::kiln::impl::KilnGpuMapParallelLoopsBase<
          KilnGpuMapParallelLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    if (failed(
            mapParallelLoopsToGrid(getOperation(), blockSize, vectorWidth)) ||
        failed(checkHostCode(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::kiln::mapParallelLoopsToGrid(func::FuncOp fn,
                                                 int64_t blockSize,
                                                 int64_t vectorWidth,
                                                 bool serialThreads) {
  SmallVector<scf::ParallelOp> outermost;
  fn.walk([&](scf::ParallelOp loop) {
    if (loop->getParentOfType<scf::ParallelOp>())
      mapTo(loop, gpu::Processor::Sequential);
    else
      outermost.push_back(loop);
  });
  for (scf::ParallelOp loop : outermost)
    if (!loop.getInitVals().empty())
      return loop.emitError("kiln: scf.parallel with reductions is not mapped "
                            "to the GPU");
  for (scf::ParallelOp loop :
       mapRowKernels(outermost, blockSize, vectorWidth, serialThreads))
    mapElementwise(loop, vectorWidth, blockSize);
  // A serial nest directly in a thread's body becomes loops when the grid
  // is converted to a launch; one under a loop or branch (a reduction dim
  // between parallel dims: sum over dim 1 of [B, R, C]) would not, and its
  // host-side scf.parallel would then read device memory. Make such nests
  // loops here.
  SmallVector<scf::ParallelOp> serial;
  fn.walk([&](scf::ParallelOp loop) {
    if (loop->getParentOfType<scf::ParallelOp>() &&
        !isa<scf::ParallelOp>(loop->getParentOp()))
      serial.push_back(loop);
  });
  IRRewriter rewriter(fn.getContext());
  for (scf::ParallelOp loop : serial) {
    rewriter.setInsertionPoint(loop);
    if (failed(scf::parallelForToNestedFors(rewriter, loop)))
      return loop.emitError("kiln: a serial loop nest inside a kernel could "
                            "not be made loops");
  }
  return success();
}
