//===- GpuMapParallelLoops.cpp - Loop nests onto GPU blocks and threads ---===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "GpuGrid.h"
#include "ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"

#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMAPPARALLELLOOPS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

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
  Value base = arith::MulIOp::create(b, loc, outer.getInductionVars()[0], width);
  Value linear = arith::AddIOp::create(b, loc, base, inner.getInductionVars()[0]);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, total);
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

/// The memref a load or store accesses, or null for other ops.
Value accessedMemRef(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getMemRef();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemRef();
  return nullptr;
}

/// Whether `op` reads or writes consecutive elements for consecutive
/// values of `iv`: its last index is iv itself and no other index depends
/// on it. Bytes only (an i1 vector would be bit-packed).
bool isContiguousAccess(Operation *op, Value iv, Region &body) {
  Value memref = accessedMemRef(op);
  if (!memref)
    return false;
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  ValueRange indices = isa<memref::LoadOp>(op)
                           ? cast<memref::LoadOp>(op).getIndices()
                           : cast<memref::StoreOp>(op).getIndices();
  if (indices.empty() || indices.back() != iv)
    return false;
  return llvm::none_of(indices.drop_back(), [&](Value index) {
    return dependsOn(index, iv, body);
  });
}

/// The accesses of `loop`'s body that the vectorized mapping turns into
/// vector loads and stores; empty when it does not apply (a last dim of
/// step other than 1, ops with regions, no contiguous access).
SmallVector<Operation *> contiguousAccesses(scf::ParallelOp loop) {
  SmallVector<Operation *> accesses;
  std::optional<int64_t> step = getConstantIntValue(loop.getStep().back());
  if (!step || *step != 1)
    return {};
  Value iv = loop.getInductionVars().back();
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return {};
    if (isContiguousAccess(&op, iv, loop.getRegion()))
      accesses.push_back(&op);
  }
  return accesses;
}

/// Whether value is a multiple of `factor` (folds for constants).
Value isMultipleOf(OpBuilder &b, Location loc, Value value, int64_t factor) {
  Value rem = arith::RemUIOp::create(
      b, loc, value, arith::ConstantIndexOp::create(b, loc, factor));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                               arith::ConstantIndexOp::create(b, loc, 0));
}

/// A nest whose data is contiguous along its last dim: each thread handles
/// `width` consecutive iterations, its contiguous accesses one vector load
/// or store each (ld.global.v4.f32), the rest of the body once per lane.
/// This path runs when the last dim's size and every such buffer's
/// address, offset and outer strides are multiples of `width` elements and
/// its last stride is 1 (checked at run time; otherwise the scalar grid
/// runs), so that every vector access is aligned to its size.
void mapElementwiseVectorized(scf::ParallelOp loop,
                              ArrayRef<Operation *> accesses, int64_t width,
                              int64_t blockSize) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned last = loop.getNumLoops() - 1;
  Value iv = loop.getInductionVars()[last];
  auto andAlso = [&](Value a, Value c) -> Value {
    return arith::AndIOp::create(b, loc, a, c);
  };
  Value ok = andAlso(isMultipleOf(b, loc, tripCount(b, loc, loop, last), width),
                     isMultipleOf(b, loc, loop.getLowerBound()[last], width));
  // The views vector accesses go through, with the last stride 1 in their
  // type (vector.load requires it); the same buffer and view for each.
  llvm::MapVector<Value, Value> views;
  for (Operation *access : accesses)
    views.insert({accessedMemRef(access), Value()});
  for (auto &[memref, view] : views) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    ok = andAlso(ok, isMultipleOf(b, loc, address, bytes));
    ok = andAlso(ok, isMultipleOf(b, loc, meta.getOffset(), width));
    ValueRange strides = meta.getStrides();
    ok = andAlso(ok, arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::eq, strides.back(),
                         arith::ConstantIndexOp::create(b, loc, 1)));
    for (Value stride : strides.drop_back())
      ok = andAlso(ok, isMultipleOf(b, loc, stride, width));
    view = memref;
  }
  auto choice = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
  b.setInsertionPointToStart(choice.elseBlock());
  buildElementwise(b, loop, blockSize);
  b.setInsertionPointToStart(choice.thenBlock());
  for (auto &[memref, view] : views) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.isLastDimUnitStride())
      continue;
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    SmallVector<OpFoldResult> sizes, strides(meta.getStrides());
    for (int64_t i = 0; i < type.getRank(); ++i)
      sizes.push_back(type.isDynamicDim(i) ? OpFoldResult(meta.getSizes()[i])
                                           : b.getIndexAttr(type.getDimSize(i)));
    strides.back() = b.getIndexAttr(1);
    SmallVector<int64_t> layout(type.getRank(), ShapedType::kDynamic);
    layout.back() = 1;
    auto viewType = MemRefType::get(
        type.getShape(), type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, layout),
        type.getMemorySpace());
    view = memref::ReinterpretCastOp::create(b, loc, viewType, memref,
                                             OpFoldResult(meta.getOffset()),
                                             sizes, strides);
  }
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
  SmallVector<IRMapping> lanes(width, first);
  for (int64_t k = 1; k < width; ++k)
    lanes[k].map(iv, arith::AddIOp::create(
                         b, loc, first.lookup(iv),
                         arith::ConstantIndexOp::create(b, loc, k)));
  llvm::SmallPtrSet<Operation *, 8> vectorized(accesses.begin(), accesses.end());
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!vectorized.contains(&op)) {
      for (IRMapping &lane : lanes)
        b.clone(op, lane);
      continue;
    }
    Value view = views.lookup(accessedMemRef(&op));
    auto type = cast<MemRefType>(view.getType());
    auto vectorType = VectorType::get({width}, type.getElementType());
    llvm::MaybeAlign align(width * type.getElementTypeBitWidth() / 8);
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      SmallVector<Value> indices;
      for (Value index : load.getIndices())
        indices.push_back(lanes[0].lookupOrDefault(index));
      Value vector = vector::LoadOp::create(b, loc, vectorType, view, indices,
                                            /*nontemporal=*/false, align);
      for (int64_t k = 0; k < width; ++k)
        lanes[k].map(load.getResult(), vector::ExtractOp::create(b, loc, vector, k));
      continue;
    }
    auto store = cast<memref::StoreOp>(op);
    SmallVector<Value> elements, indices;
    for (IRMapping &lane : lanes)
      elements.push_back(lane.lookupOrDefault(store.getValueToStore()));
    for (Value index : store.getIndices())
      indices.push_back(lanes[0].lookupOrDefault(index));
    Value vector = vector::FromElementsOp::create(b, loc, vectorType, elements);
    vector::StoreOp::create(b, loc, vector, view, indices,
                            /*nontemporal=*/false, align);
  }
  loop.erase();
}

/// Any nest: vectorized where its data is contiguous (width > 1), else one
/// thread per iteration.
void mapElementwise(scf::ParallelOp loop, int64_t width, int64_t blockSize) {
  if (width > 1) {
    SmallVector<Operation *> accesses = contiguousAccesses(loop);
    if (!accesses.empty())
      return mapElementwiseVectorized(loop, accesses, width, blockSize);
  }
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
    Value buffer = isa<memref::LoadOp>(op) ? cast<memref::LoadOp>(op).getMemRef()
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
    : mlir::kiln::impl::KilnGpuMapParallelLoopsBase<KilnGpuMapParallelLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>())
        mapTo(loop, gpu::Processor::Sequential);
      else
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost)
      if (!loop.getInitVals().empty()) {
        loop.emitError("kiln: scf.parallel with reductions is not mapped to the GPU");
        return signalPassFailure();
      }
    for (scf::ParallelOp loop : mapRowKernels(outermost, blockSize, cpuEmulation))
      mapElementwise(loop, vectorWidth, blockSize);
    if (!cpuEmulation && failed(checkHostCode(getOperation())))
      signalPassFailure();
  }
};

} // namespace
