//===- GpuMapParallelLoops.cpp - Loop nests onto GPU blocks and threads ---===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

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
using mlir::kiln::viewedBuffer;

namespace {

using gpu::AllReduceOperation;

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

/// The product of the trip counts of loop's dims (0 for an empty loop).
Value totalCount(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 SmallVectorImpl<Value> &counts) {
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned i = 0; i < loop.getNumLoops(); ++i) {
    counts.push_back(tripCount(b, loc, loop, i));
    total = arith::MulIOp::create(b, loc, total, counts.back());
  }
  return total;
}

/// Maps loop's induction variables to the coordinates of linear index
/// `linear` (the last dim fastest, so that neighbouring threads touch
/// neighbouring elements of row-major data).
/// With `lastScale` > 1, counts[last] counts groups of that many iterations
/// of the last dim, and its induction variable maps to each group's first.
void delinearize(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 ArrayRef<Value> counts, Value linear, IRMapping &map,
                 int64_t lastScale = 1) {
  Value rest = linear;
  int last = static_cast<int>(loop.getNumLoops()) - 1;
  for (int i = last; i >= 0; --i) {
    Value index = i == 0 ? rest
                         : arith::RemUIOp::create(b, loc, rest, counts[i]);
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
  delinearize(b, loc, loop, counts, linear, first, width);
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

/// The all-reduce kind of `combiner` and its identity, when the combiner is
/// one that gpu.all_reduce computes.
std::optional<std::pair<AllReduceOperation, TypedAttr>>
reductionKind(Operation *combiner) {
  Type type = combiner->getResult(0).getType();
  auto floatType = dyn_cast<FloatType>(type);
  auto intType = dyn_cast<IntegerType>(type);
  auto fp = [&](double value) -> TypedAttr {
    return FloatAttr::get(type, value);
  };
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  if (floatType) {
    // maxnumf/minnumf ignore a NaN operand: NaN is their exact identity.
    if (isa<arith::AddFOp>(combiner))
      return std::pair{AllReduceOperation::ADD, fp(0.0)};
    if (isa<arith::MulFOp>(combiner))
      return std::pair{AllReduceOperation::MUL, fp(1.0)};
    if (isa<arith::MaxNumFOp>(combiner))
      return std::pair{AllReduceOperation::MAXNUMF, fp(nan)};
    if (isa<arith::MinNumFOp>(combiner))
      return std::pair{AllReduceOperation::MINNUMF, fp(nan)};
    if (isa<arith::MaximumFOp>(combiner))
      return std::pair{AllReduceOperation::MAXIMUMF, fp(-inf)};
    if (isa<arith::MinimumFOp>(combiner))
      return std::pair{AllReduceOperation::MINIMUMF, fp(inf)};
  }
  if (intType && isa<arith::AddIOp>(combiner))
    return std::pair{AllReduceOperation::ADD,
                     cast<TypedAttr>(IntegerAttr::get(type, 0))};
  return std::nullopt;
}

/// The op that folds one element into the accumulator of `loop` (its only
/// iter_arg), when the accumulator is used by that op alone.
Operation *combinerOf(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 1)
    return nullptr;
  Value acc = loop.getRegionIterArgs()[0];
  Value next = loop.getBody()->getTerminator()->getOperand(0);
  Operation *combiner = next.getDefiningOp();
  if (!combiner || combiner->getBlock() != loop.getBody() ||
      combiner->getNumOperands() != 2 || !acc.hasOneUse() ||
      *acc.getUsers().begin() != combiner)
    return nullptr;
  return combiner;
}

/// Whether the reduction reads two or more buffers along its reduced index:
/// a contraction (matmul, linear), whose output elements are many and each
/// short, so one thread per output element does better than a block.
bool isContraction(scf::ForOp loop) {
  llvm::SmallPtrSet<Value, 4> read;
  Value iv = loop.getInductionVar();
  loop.getBody()->walk([&](memref::LoadOp load) {
    if (llvm::any_of(load.getIndices(),
                     [&](Value index) {
                       return dependsOn(index, iv, loop.getRegion());
                     }))
      read.insert(load.getMemRef());
  });
  return read.size() >= 2;
}

/// Maps a row reduction (see the pass description) onto one block per row;
/// false when `loop` is not one. With `emulate`, the block's threads are a
/// serial loop that combines their partial values in order instead of
/// gpu.all_reduce (which has no CPU lowering), and the last one writes the
/// row's results: the same per-thread strided folds, run on the CPU.
bool mapRowReduction(scf::ParallelOp loop, int64_t blockSize, bool emulate) {
  Block *body = loop.getBody();
  scf::ForOp reduce;
  for (Operation &op : body->without_terminator()) {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (reduce)
        return false;
      reduce = forOp;
    } else if (!reduce && !isMemoryEffectFree(&op) &&
               !(isa<MemoryEffectOpInterface>(op) &&
                 cast<MemoryEffectOpInterface>(op).onlyHasEffect<MemoryEffects::Read>())) {
      return false; // writes before the reduction would race
    }
  }
  if (!reduce)
    return false;
  // A reduction over several dims (a perfect nest carrying the
  // accumulator) becomes one loop over their product, so that the block
  // shares all of it.
  if (reduce.getNumRegionIterArgs() == 1 &&
      isa<scf::ForOp>(reduce.getBody()->front()) &&
      succeeded(coalescePerfectlyNestedSCFForLoops(reduce))) {
    reduce = nullptr;
    for (Operation &op : body->without_terminator())
      if (auto forOp = dyn_cast<scf::ForOp>(op))
        reduce = forOp;
  }
  if (!reduce || isContraction(reduce))
    return false;
  Operation *combiner = combinerOf(reduce);
  auto kind = combiner ? reductionKind(combiner) : std::nullopt;
  if (!kind)
    return false;

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> counts;
  Value rows = totalCount(b, loc, loop, counts);
  Value identity = arith::ConstantOp::create(b, loc, kind->second);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ParallelOp outer;
  scf::ForOp lanes; // the emulated block's threads
  Value lane;
  if (emulate) {
    outer = scf::ParallelOp::create(b, loc, zero, rows, one);
    mapTo(outer, gpu::Processor::BlockX);
    b.setInsertionPointToStart(outer.getBody());
  } else {
    auto [blocks, threads] = createGrid(b, loc, rows, blockSize);
    outer = blocks;
    lane = threads.getInductionVars()[0];
  }
  IRMapping map;
  delinearize(b, loc, loop, counts, outer.getInductionVars()[0], map);
  Operation *after = nullptr;
  for (Operation &op : body->without_terminator()) {
    if (&op == reduce.getOperation()) {
      after = op.getNextNode();
      break;
    }
    b.clone(op, map);
  }
  if (emulate) {
    lanes = scf::ForOp::create(
        b, loc, zero, arith::ConstantIndexOp::create(b, loc, blockSize), one,
        identity);
    b.setInsertionPointToStart(lanes.getBody());
    lane = lanes.getInductionVar();
  }
  // Each thread folds elements lane, lane + blockSize, ... from identity.
  Value lb = map.lookupOrDefault(reduce.getLowerBound());
  Value ub = map.lookupOrDefault(reduce.getUpperBound());
  Value step = map.lookupOrDefault(reduce.getStep());
  Value start = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, lane, step));
  Value stride = arith::MulIOp::create(
      b, loc, step, arith::ConstantIndexOp::create(b, loc, blockSize));
  auto partial = scf::ForOp::create(b, loc, start, ub, stride, identity);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(partial.getBody());
    IRMapping inLoop = map;
    inLoop.map(reduce.getInductionVar(), partial.getInductionVar());
    inLoop.map(reduce.getRegionIterArgs()[0], partial.getRegionIterArgs()[0]);
    for (Operation &op : reduce.getBody()->without_terminator())
      b.clone(op, inLoop);
    scf::YieldOp::create(
        b, loc, inLoop.lookup(reduce.getBody()->getTerminator()->getOperand(0)));
  }
  // combine(acc, value): the combiner with its accumulator and element.
  Value combinerOther = combiner->getOperand(0) == reduce.getRegionIterArgs()[0]
                            ? combiner->getOperand(1)
                            : combiner->getOperand(0);
  auto combine = [&](Value acc, Value value) {
    IRMapping fold = map;
    fold.map(reduce.getRegionIterArgs()[0], acc);
    fold.map(combinerOther, value);
    return b.clone(*combiner, fold)->getResult(0);
  };
  Value block;
  if (emulate) {
    scf::YieldOp::create(b, loc, combine(lanes.getRegionIterArgs()[0],
                                         partial.getResult(0)));
    b.setInsertionPointAfter(lanes);
    block = lanes.getResult(0);
  } else {
    block = gpu::AllReduceOp::create(
        b, loc, partial.getResult(0),
        gpu::AllReduceOperationAttr::get(b.getContext(), kind->first),
        b.getUnitAttr());
  }
  // The row's initial value, folded in once, as the sequential loop did.
  map.map(reduce.getResult(0),
          combine(map.lookupOrDefault(reduce.getInitArgs()[0]), block));
  // Thread 0 writes the row's results.
  if (!emulate) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
    auto writer = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    b.setInsertionPointToStart(writer.thenBlock());
  }
  for (Operation *op = after; op && op != body->getTerminator();
       op = op->getNextNode())
    b.clone(*op, map);
  loop.erase();
  return true;
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
    for (scf::ParallelOp loop : outermost) {
      if (!loop.getInitVals().empty()) {
        loop.emitError("kiln: scf.parallel with reductions is not mapped to the GPU");
        return signalPassFailure();
      }
      if (!mapRowReduction(loop, blockSize, cpuEmulation))
        mapElementwise(loop, vectorWidth, blockSize);
    }
    if (!cpuEmulation && failed(checkHostCode(getOperation())))
      signalPassFailure();
  }
};

} // namespace
