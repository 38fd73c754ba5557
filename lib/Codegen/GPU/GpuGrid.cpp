//===- GpuGrid.cpp - Grids of blocks and threads for loop nests ----------===//
#include "GpuGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::kiln;

namespace mlir::kiln {

/// Maps `loop` (one dim) onto `processor`.
void mapTo(scf::ParallelOp loop, gpu::Processor processor) {
  MLIRContext *ctx = loop.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping(
      loop.getNumLoops(),
      gpu::ParallelLoopDimMappingAttr::get(ctx, processor, id, id));
  (void)gpu::setMappingAttr(loop, mapping);
}

/// The number of iterations of loop dim i.
Value tripCount(OpBuilder &b, Location loc, scf::ParallelOp loop, unsigned i) {
  Value span = arith::SubIOp::create(b, loc, loop.getUpperBound()[i],
                                     loop.getLowerBound()[i]);
  return arith::CeilDivUIOp::create(b, loc, span, loop.getStep()[i]);
}

Value totalCount(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 SmallVectorImpl<Value> &counts, unsigned dims) {
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned i = 0; i < (dims ? dims : loop.getNumLoops()); ++i) {
    counts.push_back(tripCount(b, loc, loop, i));
    total = arith::MulIOp::create(b, loc, total, counts.back());
  }
  return total;
}

void delinearize(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 ArrayRef<Value> counts, Value linear, IRMapping &map,
                 unsigned dims, int64_t lastScale) {
  Value rest = linear;
  int last = static_cast<int>(dims ? dims : loop.getNumLoops()) - 1;
  for (int i = last; i >= 0; --i) {
    Value index =
        i == 0 ? rest : arith::RemUIOp::create(b, loc, rest, counts[i]);
    if (i > 0)
      rest = arith::DivUIOp::create(b, loc, rest, counts[i]);
    if (i == last && lastScale > 1)
      index = arith::MulIOp::create(
          b, loc, index, arith::ConstantIndexOp::create(b, loc, lastScale));
    Value scaled = arith::MulIOp::create(b, loc, index, loop.getStep()[i]);
    map.map(loop.getInductionVars()[i],
            arith::AddIOp::create(b, loc, loop.getLowerBound()[i], scaled));
  }
}

/// A grid of `count` blocks of `threads` threads: the outer loop (blocks)
/// and the inner loop (threads), the builder inside the inner one.
std::pair<scf::ParallelOp, scf::ParallelOp>
createGrid(OpBuilder &b, Location loc, Value count, int64_t threads) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value width = arith::ConstantIndexOp::create(b, loc, threads);
  auto blocks = scf::ParallelOp::create(b, loc, zero, count, one);
  mapTo(blocks, gpu::Processor::BlockX);
  b.setInsertionPointToStart(blocks.getBody());
  auto lanes = scf::ParallelOp::create(b, loc, zero, width, one);
  mapTo(lanes, gpu::Processor::ThreadX);
  b.setInsertionPointToStart(lanes.getBody());
  return {blocks, lanes};
}

/// Whether v is computed from iv by ops inside `region`.
bool dependsOn(Value v, Value iv, Region &region) {
  if (v == iv)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || !region.isAncestor(def->getParentRegion()))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOn(operand, iv, region);
  });
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
  return llvm::none_of(indices.drop_back(),
                       [&](Value index) { return dependsOn(index, iv, body); });
}

} // namespace mlir::kiln

namespace {
/// (Shared by vectorAccesses.)
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

} // namespace

namespace mlir::kiln {

std::optional<VectorAccesses> vectorAccesses(scf::ParallelOp loop,
                                             int64_t width) {
  if (width <= 1)
    return std::nullopt;
  SmallVector<Operation *> ops = contiguousAccesses(loop);
  if (ops.empty())
    return std::nullopt;
  return VectorAccesses{loop, std::move(ops), width};
}

Value VectorAccesses::check(OpBuilder &b, Location loc, Value count,
                            Value lowerBound) const {
  auto andAlso = [&](Value a, Value c) -> Value {
    return arith::AndIOp::create(b, loc, a, c);
  };
  Value ok = andAlso(isMultipleOf(b, loc, count, width),
                     isMultipleOf(b, loc, lowerBound, width));
  llvm::SetVector<Value> buffers;
  for (Operation *op : ops)
    buffers.insert(accessedMemRef(op));
  for (Value memref : buffers) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    ok = andAlso(ok, isMultipleOf(b, loc, address, bytes));
    ok = andAlso(ok, isMultipleOf(b, loc, meta.getOffset(), width));
    ValueRange strides = meta.getStrides();
    ok = andAlso(ok, arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::eq, strides.back(),
                         arith::ConstantIndexOp::create(b, loc, 1)));
    for (Value stride : strides.drop_back())
      ok = andAlso(ok, isMultipleOf(b, loc, stride, width));
  }
  return ok;
}

llvm::MapVector<Value, Value> VectorAccesses::views(OpBuilder &b,
                                                    Location loc) const {
  llvm::MapVector<Value, Value> views;
  for (Operation *op : ops) {
    Value memref = accessedMemRef(op);
    if (views.count(memref))
      continue;
    auto type = cast<MemRefType>(memref.getType());
    if (type.isLastDimUnitStride()) {
      views[memref] = memref;
      continue;
    }
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    SmallVector<OpFoldResult> sizes, strides(meta.getStrides());
    for (int64_t i = 0; i < type.getRank(); ++i)
      sizes.push_back(type.isDynamicDim(i)
                          ? OpFoldResult(meta.getSizes()[i])
                          : b.getIndexAttr(type.getDimSize(i)));
    strides.back() = b.getIndexAttr(1);
    SmallVector<int64_t> layout(type.getRank(), ShapedType::kDynamic);
    layout.back() = 1;
    auto viewType = MemRefType::get(
        type.getShape(), type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, layout),
        type.getMemorySpace());
    views[memref] = memref::ReinterpretCastOp::create(
        b, loc, viewType, memref, OpFoldResult(meta.getOffset()), sizes,
        strides);
  }
  return views;
}

void VectorAccesses::emitLanes(
    OpBuilder &b, Location loc, IRMapping first,
    const llvm::MapVector<Value, Value> &views) const {
  scf::ParallelOp nest = loop;
  Value iv = nest.getInductionVars().back();
  SmallVector<IRMapping> lanes(width, first);
  for (int64_t k = 1; k < width; ++k)
    lanes[k].map(
        iv, arith::AddIOp::create(b, loc, first.lookup(iv),
                                  arith::ConstantIndexOp::create(b, loc, k)));
  llvm::SmallPtrSet<Operation *, 8> vectorized(ops.begin(), ops.end());
  for (Operation &op : nest.getBody()->without_terminator()) {
    if (!vectorized.contains(&op)) {
      for (IRMapping &lane : lanes)
        b.clone(op, lane);
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      loadLanes(b, loc, load, views, lanes);
      continue;
    }
    Value view = views.lookup(accessedMemRef(&op));
    auto type = cast<MemRefType>(view.getType());
    auto vectorType = VectorType::get({width}, type.getElementType());
    llvm::MaybeAlign align(width * type.getElementTypeBitWidth() / 8);
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
}

void VectorAccesses::loadLanes(OpBuilder &b, Location loc, memref::LoadOp load,
                               const llvm::MapVector<Value, Value> &views,
                               MutableArrayRef<IRMapping> lanes) const {
  Value view = views.lookup(load.getMemRef());
  auto type = cast<MemRefType>(view.getType());
  SmallVector<Value> indices;
  for (Value index : load.getIndices())
    indices.push_back(lanes[0].lookupOrDefault(index));
  Value vector = vector::LoadOp::create(
      b, loc, VectorType::get({width}, type.getElementType()), view, indices,
      /*nontemporal=*/false,
      llvm::MaybeAlign(width * type.getElementTypeBitWidth() / 8));
  for (int64_t k = 0; k < width; ++k)
    lanes[k].map(load.getResult(),
                 vector::ExtractOp::create(b, loc, vector, k));
}

} // namespace mlir::kiln
