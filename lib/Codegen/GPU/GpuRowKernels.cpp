//===- GpuRowKernels.cpp - Row reductions and their neighbours per block --===//
//
// Part of kiln-gpu-map-parallel-loops: a row reduction (the max and sum of
// softmax, a norm's mean and variance) runs one block per row, and the
// nests over the same rows around it (the fills of its accumulators, the
// elementwise steps between reductions) join it in the same kernel, one
// phase each, separated by barriers: softmax is one kernel instead of six.
//
//===----------------------------------------------------------------------===//
#include "GpuGrid.h"
#include "kiln/Codegen/Common/ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using gpu::AllReduceOperation;

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
    if (llvm::any_of(load.getIndices(), [&](Value index) {
          return dependsOn(index, iv, loop.getRegion());
        }))
      read.insert(load.getMemRef());
  });
  return read.size() >= 2;
}

/// Whether `op` has no effect on memory but reads.
bool onlyReads(Operation *op) {
  return isMemoryEffectFree(op) || (isa<MemoryEffectOpInterface>(op) &&
                                    cast<MemoryEffectOpInterface>(op)
                                        .onlyHasEffect<MemoryEffects::Read>());
}

/// The scf.for of a row reduction nest and how its accumulator combines.
struct RowReduction {
  scf::ForOp reduce;
  Operation *combiner;
  AllReduceOperation kind;
  TypedAttr identity;
};

/// `loop` as a row reduction: a parallel loop over rows whose body is ops
/// that only read, one scf.for carrying an accumulator combined by a single
/// op that gpu.all_reduce knows, and the ops that store its result. A
/// perfect nest of reduction loops is coalesced into one loop first.
std::optional<RowReduction> asRowReduction(scf::ParallelOp loop) {
  Block *body = loop.getBody();
  scf::ForOp reduce;
  for (Operation &op : body->without_terminator()) {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (reduce)
        return std::nullopt;
      reduce = forOp;
    } else if (!reduce && !onlyReads(&op)) {
      return std::nullopt; // writes before the reduction would race
    } else if (op.getNumRegions() != 0) {
      return std::nullopt;
    }
  }
  if (!reduce)
    return std::nullopt;
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
    return std::nullopt;
  // A loop that writes as it goes (a scan storing each running value) is
  // serial: threads sharing it would race and reorder.
  if (reduce.getBody()
          ->walk([](Operation *op) {
            return onlyReads(op) ? WalkResult::advance()
                                 : WalkResult::interrupt();
          })
          .wasInterrupted())
    return std::nullopt;
  Operation *combiner = combinerOf(reduce);
  auto kind = combiner ? reductionKind(combiner) : std::nullopt;
  if (!kind)
    return std::nullopt;
  return RowReduction{reduce, combiner, kind->first, kind->second};
}

/// One nest of a row kernel: over the rows only (a fill: one thread runs
/// its body), a row reduction, or over the rows and one more dim, the
/// columns (elementwise: the block's threads stride over the columns).
struct Phase {
  scf::ParallelOp loop;
  std::optional<RowReduction> reduction;
  bool columns = false;
};

/// Whether the body is straight-line code (no loops or branches).
bool isStraightLine(scf::ParallelOp loop) {
  return llvm::all_of(loop.getBody()->without_terminator(),
                      [](Operation &op) { return op.getNumRegions() == 0; });
}

/// The size a loop bound stands for: memref.dim of a fresh allocation is
/// the allocation's size operand (no canonicalization runs before the
/// mapping, whose one-iteration loops it would remove).
Value extentOf(Value bound) {
  auto dim = bound.getDefiningOp<memref::DimOp>();
  if (!dim)
    return bound;
  std::optional<int64_t> index = getConstantIntValue(dim.getIndex());
  Operation *alloc = dim.getSource().getDefiningOp();
  if (!index || !alloc || !isa<memref::AllocOp, gpu::AllocOp>(alloc))
    return bound;
  auto type = cast<MemRefType>(dim.getSource().getType());
  if (!type.isDynamicDim(*index))
    return bound;
  ValueRange sizes = isa<memref::AllocOp>(alloc)
                         ? cast<memref::AllocOp>(alloc).getDynamicSizes()
                         : cast<gpu::AllocOp>(alloc).getDynamicSizes();
  return sizes[type.getDynamicDimIndex(*index)];
}

/// Whether `loop`'s first `rows` dims run from 0 by 1 to the same extents
/// as `first`'s.
bool sameRows(scf::ParallelOp loop, scf::ParallelOp first, unsigned rows) {
  for (unsigned i = 0; i < rows; ++i)
    if (!isConstantIntValue(loop.getLowerBound()[i], 0) ||
        !isConstantIntValue(loop.getStep()[i], 1) ||
        extentOf(loop.getUpperBound()[i]) != extentOf(first.getUpperBound()[i]))
      return false;
  return true;
}

/// Every load and store of `phases` of a buffer any of them writes, as
/// (buffer, row indices, the phase's row induction variables).
bool rowLocal(ArrayRef<Phase> phases, unsigned rows) {
  llvm::SmallPtrSet<Value, 8> written;
  bool other = false;
  for (Phase phase : phases)
    phase.loop.getBody()->walk([&](Operation *op) {
      if (auto store = dyn_cast<memref::StoreOp>(op))
        written.insert(viewedBuffer(store.getMemRef()));
      else if (!isa<memref::LoadOp>(op) && !isMemoryEffectFree(op) &&
               !isa<scf::ForOp, scf::YieldOp, scf::ReduceOp>(op))
        other = true;
    });
  if (other)
    return false;
  for (Phase phase : phases) {
    SmallVector<Value> ivs(phase.loop.getInductionVars());
    WalkResult result = phase.loop.getBody()->walk([&](Operation *op) {
      Value memref;
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        memref = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
        memref = store.getMemRef();
        indices = store.getIndices();
      } else {
        return WalkResult::advance();
      }
      if (!written.contains(viewedBuffer(memref)))
        return WalkResult::advance();
      // A view of it (a subview, a cast) could shift the rows.
      if (viewedBuffer(memref) != memref || indices.size() < rows)
        return WalkResult::interrupt();
      for (unsigned i = 0; i < rows; ++i)
        if (indices[i] != ivs[i])
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return false;
  }
  return true;
}

/// What a row kernel's phase needs to know where it is: the block's row (in
/// `map`), its thread (`lane`, on a GPU), and the block size.
struct RowBlock {
  OpBuilder &b;
  Location loc;
  Value lane; // null when emulated
  int64_t blockSize;
  int64_t vectorWidth;
  bool serialThreads;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Runs `body(lane)` for every thread of the block: on a GPU in the
  /// thread itself, emulated as a serial loop over the threads (carrying
  /// `init` and returning the value `body` yields, when given).
  Value forEachThread(function_ref<Value(Value lane, Value carried)> body,
                      Value init = Value()) {
    if (!serialThreads)
      return body(lane, Value());
    auto loop =
        init ? scf::ForOp::create(b, loc, index(0), index(blockSize), index(1),
                                  init)
             : scf::ForOp::create(b, loc, index(0), index(blockSize), index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value yielded = body(loop.getInductionVar(),
                         init ? loop.getRegionIterArgs()[0] : Value());
    if (init)
      scf::YieldOp::create(b, loc, yielded);
    else if (loop.getBody()->empty() ||
             !isa<scf::YieldOp>(loop.getBody()->back()))
      scf::YieldOp::create(b, loc);
    return init ? loop.getResult(0) : Value();
  }

  /// Runs `body` on thread 0 only (emulated: once).
  void onFirstThread(function_ref<void()> body) {
    if (serialThreads)
      return body();
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
    auto guard = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    body();
  }

  /// A loop over lb + (lane + k * blockSize) * step, k = 0, 1, ..., < ub:
  /// the thread's share of a row's columns.
  scf::ForOp strided(Value lane, Value lb, Value ub, Value step,
                     ValueRange init) {
    Value start = arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, lane, step));
    Value stride = arith::MulIOp::create(b, loc, step, index(blockSize));
    return scf::ForOp::create(b, loc, start, ub, stride, init);
  }
};

void cloneRange(OpBuilder &b, Operation *begin, Operation *end,
                IRMapping &map) {
  for (Operation *op = begin; op && op != end; op = op->getNextNode())
    b.clone(*op, map);
}

/// A row reduction's phase: each thread folds a strided share of the row
/// from the identity, the block combines the parts (gpu.all_reduce, or in
/// order when emulated), the row's initial value is folded in once, and
/// thread 0 runs what follows (the store).
void emitReduction(RowBlock &blk, Phase phase, IRMapping map) {
  OpBuilder &b = blk.b;
  Location loc = blk.loc;
  RowReduction red = *phase.reduction;
  Block *body = phase.loop.getBody();
  cloneRange(b, &body->front(), red.reduce, map);
  Value identity = arith::ConstantOp::create(b, loc, red.identity);
  Value acc = red.reduce.getRegionIterArgs()[0];
  Value element = red.combiner->getOperand(0) == acc
                      ? red.combiner->getOperand(1)
                      : red.combiner->getOperand(0);
  auto combine = [&](Value left, Value right) {
    IRMapping fold = map;
    fold.map(acc, left);
    fold.map(element, right);
    return b.clone(*red.combiner, fold)->getResult(0);
  };
  Value lb = map.lookupOrDefault(red.reduce.getLowerBound());
  Value ub = map.lookupOrDefault(red.reduce.getUpperBound());
  Value step = map.lookupOrDefault(red.reduce.getStep());
  Value iv = red.reduce.getInductionVar();
  Block *reduceBody = red.reduce.getBody();
  Value yielded = reduceBody->getTerminator()->getOperand(0);
  auto scalarPartial = [&](Value lane) {
    scf::ForOp partial = blk.strided(lane, lb, ub, step, identity);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(partial.getBody());
    IRMapping inLoop = map;
    inLoop.map(iv, partial.getInductionVar());
    inLoop.map(acc, partial.getRegionIterArgs()[0]);
    for (Operation &op : reduceBody->without_terminator())
      b.clone(op, inLoop);
    scf::YieldOp::create(b, loc, inLoop.lookup(yielded));
    return partial.getResult(0);
  };
  // Loads contiguous along the reduced index: each thread may fold
  // vectorWidth consecutive elements per step, loaded at once, in order.
  VectorAccesses loads{scf::ParallelOp(), {}, blk.vectorWidth};
  bool vectorize = blk.vectorWidth > 1 && isConstantIntValue(step, 1);
  for (Operation &op : reduceBody->without_terminator()) {
    if (op.getNumRegions() != 0 || isa<memref::StoreOp>(op))
      vectorize = false;
    else if (isa<memref::LoadOp>(op) &&
             isContiguousAccess(&op, iv, red.reduce.getRegion()))
      loads.ops.push_back(&op);
  }
  vectorize = vectorize && !loads.ops.empty();
  Value aligned;
  llvm::MapVector<Value, Value> views;
  if (vectorize) {
    Value count = arith::SubIOp::create(b, loc, ub, lb);
    aligned = loads.check(b, loc, count, lb);
    views = loads.views(b, loc);
  }
  auto vectorPartial = [&](Value lane) {
    int64_t width = loads.width;
    Value start = arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, lane, blk.index(width)));
    auto partial = scf::ForOp::create(
        b, loc, start, ub, blk.index(width * blk.blockSize), identity);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(partial.getBody());
    Value j0 = partial.getInductionVar();
    Value running = partial.getRegionIterArgs()[0];
    llvm::SmallPtrSet<Operation *, 4> vectorized(loads.ops.begin(),
                                                 loads.ops.end());
    SmallVector<IRMapping> lanes(width, map);
    for (int64_t k = 0; k < width; ++k)
      lanes[k].map(
          iv,
          k == 0 ? j0
                 : arith::AddIOp::create(b, loc, j0, blk.index(k)).getResult());
    for (int64_t k = 0; k < width; ++k) {
      lanes[k].map(acc, running);
      for (Operation &op : reduceBody->without_terminator()) {
        if (!vectorized.contains(&op)) {
          b.clone(op, lanes[k]);
          continue;
        }
        if (k == 0) // one load for every lane
          loads.loadLanes(b, loc, cast<memref::LoadOp>(op), views, lanes);
      }
      running = lanes[k].lookup(yielded);
    }
    scf::YieldOp::create(b, loc, running);
    return partial.getResult(0);
  };
  auto partialOf = [&](Value lane) -> Value {
    if (!vectorize)
      return scalarPartial(lane);
    auto choice = scf::IfOp::create(b, loc, TypeRange{identity.getType()},
                                    aligned, /*withElse=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(choice.thenBlock());
    scf::YieldOp::create(b, loc, vectorPartial(lane));
    b.setInsertionPointToStart(choice.elseBlock());
    scf::YieldOp::create(b, loc, scalarPartial(lane));
    return choice.getResult(0);
  };
  Value all;
  if (blk.serialThreads)
    all = blk.forEachThread(
        [&](Value lane, Value sofar) {
          return combine(sofar, partialOf(lane));
        },
        identity);
  else
    all = gpu::AllReduceOp::create(
        b, loc, partialOf(blk.lane),
        gpu::AllReduceOperationAttr::get(b.getContext(), red.kind),
        b.getUnitAttr());
  map.map(red.reduce.getResult(0),
          combine(map.lookupOrDefault(red.reduce.getInitArgs()[0]), all));
  blk.onFirstThread([&] {
    cloneRange(b, red.reduce->getNextNode(), body->getTerminator(), map);
  });
}

/// An elementwise phase over the row's columns, strided over the threads:
/// where the phase reads or writes buffers contiguously along the columns
/// and the run-time check allows (VectorAccesses), each thread takes
/// vectorWidth consecutive columns at a time with vector accesses.
void emitColumns(RowBlock &blk, Phase phase, IRMapping map) {
  OpBuilder &b = blk.b;
  Location loc = blk.loc;
  scf::ParallelOp loop = phase.loop;
  unsigned column = loop.getNumLoops() - 1;
  Value iv = loop.getInductionVars()[column];
  Value lb = map.lookupOrDefault(loop.getLowerBound()[column]);
  Value ub = map.lookupOrDefault(loop.getUpperBound()[column]);
  Value step = map.lookupOrDefault(loop.getStep()[column]);
  auto scalar = [&] {
    blk.forEachThread([&](Value lane, Value) {
      scf::ForOp columns = blk.strided(lane, lb, ub, step, ValueRange());
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(columns.getBody());
      IRMapping inLoop = map;
      inLoop.map(iv, columns.getInductionVar());
      Block *body = loop.getBody();
      cloneRange(b, &body->front(), body->getTerminator(), inLoop);
      return Value();
    });
  };
  std::optional<VectorAccesses> accesses =
      vectorAccesses(loop, blk.vectorWidth);
  if (!accesses)
    return scalar();
  int64_t width = accesses->width;
  Value count = arith::CeilDivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
  auto choice = scf::IfOp::create(b, loc, accesses->check(b, loc, count, lb),
                                  /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(choice.elseBlock());
    scalar();
    b.setInsertionPointToStart(choice.thenBlock());
    // (The views of buffers defined outside the nest: its own values are
    // not mapped yet.)
    llvm::MapVector<Value, Value> views = accesses->views(b, loc);
    blk.forEachThread([&](Value lane, Value) {
      // Columns lb + (lane + k * blockSize) * width, width at a time (step
      // is 1 for vector accesses).
      Value start = arith::AddIOp::create(
          b, loc, lb, arith::MulIOp::create(b, loc, lane, blk.index(width)));
      auto groups = scf::ForOp::create(b, loc, start, ub,
                                       blk.index(width * blk.blockSize));
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(groups.getBody());
      IRMapping first = map;
      first.map(iv, groups.getInductionVar());
      accesses->emitLanes(b, loc, first, views);
      return Value();
    });
  }
}

/// One kernel for `phases`: a block per row, each phase in turn, a barrier
/// between phases (a phase reads what others threads wrote in the last).
void emitRowKernel(ArrayRef<Phase> phases, unsigned rows, int64_t blockSize,
                   int64_t vectorWidth, bool serialThreads) {
  scf::ParallelOp first = phases.front().loop;
  // Host ops between the nests (allocations, dims) move above the kernel.
  for (Phase phase : phases.drop_front())
    for (Operation *op = first->getNextNode();
         op != phase.loop.getOperation();) {
      Operation *next = op->getNextNode();
      if (!isa<scf::ParallelOp>(op))
        op->moveBefore(first);
      op = next;
    }
  OpBuilder b(first);
  Location loc = first.getLoc();
  SmallVector<Value> counts;
  Value total = totalCount(b, loc, first, counts, rows);
  Value row;
  Value lane;
  if (serialThreads) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto blocks = scf::ParallelOp::create(b, loc, zero, total, one);
    mapTo(blocks, gpu::Processor::BlockX);
    b.setInsertionPointToStart(blocks.getBody());
    row = blocks.getInductionVars()[0];
  } else {
    auto [blocks, threads] = createGrid(b, loc, total, blockSize);
    row = blocks.getInductionVars()[0];
    lane = threads.getInductionVars()[0];
  }
  RowBlock blk{b, loc, lane, blockSize, vectorWidth, serialThreads};
  for (auto [i, phaseRef] : llvm::enumerate(phases)) {
    Phase phase = phaseRef;
    if (i > 0 && !serialThreads)
      gpu::BarrierOp::create(b, loc);
    IRMapping map;
    delinearize(b, loc, phase.loop, counts, row, map, rows);
    if (phase.reduction)
      emitReduction(blk, phase, map);
    else if (phase.columns)
      emitColumns(blk, phase, map);
    else
      blk.onFirstThread([&] {
        Block *body = phase.loop.getBody();
        cloneRange(b, &body->front(), body->getTerminator(), map);
      });
  }
  for (Phase phase : phases)
    phase.loop.erase();
}

/// `loop` as a phase of a kernel over `rows` row dims starting at `first`,
/// if it is one.
std::optional<Phase> asPhase(scf::ParallelOp loop, scf::ParallelOp first,
                             unsigned rows) {
  unsigned dims = loop.getNumLoops();
  if ((dims != rows && dims != rows + 1) || !sameRows(loop, first, rows))
    return std::nullopt;
  if (dims == rows + 1)
    return isStraightLine(loop) ? std::optional(Phase{loop, std::nullopt, true})
                                : std::nullopt;
  if (isStraightLine(loop))
    return Phase{loop, std::nullopt, false};
  if (auto reduction = asRowReduction(loop))
    return Phase{loop, reduction, false};
  return std::nullopt;
}

/// Host ops that may move above a kernel: allocations and ops without
/// memory effects.
bool movable(Operation &op) {
  return isa<memref::AllocOp, gpu::AllocOp>(op) ||
         (isMemoryEffectFree(&op) && op.getNumRegions() == 0);
}

/// Whether every op strictly between `first` and `last` (in one block) is
/// movable.
bool onlyMovableBetween(Operation *first, Operation *last) {
  for (Operation *op = first->getNextNode(); op && op != last;
       op = op->getNextNode())
    if (!movable(*op))
      return false;
  return true;
}

} // namespace

SmallVector<scf::ParallelOp>
mlir::kiln::mapRowKernels(ArrayRef<scf::ParallelOp> nests, int64_t blockSize,
                          int64_t vectorWidth, bool serialThreads) {
  SmallVector<scf::ParallelOp> left;
  llvm::SmallPtrSet<Operation *, 16> done;
  for (auto [i, nestRef] : llvm::enumerate(nests)) {
    scf::ParallelOp nest = nestRef;
    if (done.contains(nest))
      continue;
    std::optional<RowReduction> reduction = asRowReduction(nest);
    if (!reduction) {
      left.push_back(nest);
      continue;
    }
    // The reduction, then the nests over the same rows after it while the
    // group stays row-local; fills and elementwise nests just before it
    // that nothing else took join at the front.
    unsigned rows = nest.getNumLoops();
    SmallVector<Phase> phases{{nest, reduction, false}};
    while (!left.empty()) {
      scf::ParallelOp prev = left.back();
      if (prev->getBlock() != nest->getBlock())
        break;
      std::optional<Phase> phase = onlyMovableBetween(prev, nest)
                                       ? asPhase(prev, nest, rows)
                                       : std::nullopt;
      if (!phase || phase->reduction)
        break;
      SmallVector<Phase> trial{*phase};
      trial.append(phases);
      if (!rowLocal(trial, rows))
        break;
      phases = trial;
      left.pop_back();
    }
    for (scf::ParallelOp next : nests.drop_front(i + 1)) {
      if (next->getBlock() != nest->getBlock())
        break;
      std::optional<Phase> phase =
          onlyMovableBetween(phases.back().loop, next)
              ? asPhase(next, phases.front().loop, rows)
              : std::nullopt;
      if (!phase)
        break;
      phases.push_back(*phase);
      if (!rowLocal(phases, rows)) {
        phases.pop_back();
        break;
      }
      done.insert(next);
    }
    emitRowKernel(phases, rows, blockSize, vectorWidth, serialThreads);
  }
  return left;
}
