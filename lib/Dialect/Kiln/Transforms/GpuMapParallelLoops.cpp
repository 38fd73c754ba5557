//===- GpuMapParallelLoops.cpp - Loop nests onto GPU blocks and threads ---===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMAPPARALLELLOOPS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

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
void delinearize(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 ArrayRef<Value> counts, Value linear, IRMapping &map) {
  Value rest = linear;
  for (int i = static_cast<int>(loop.getNumLoops()) - 1; i >= 0; --i) {
    Value index = i == 0 ? rest
                         : arith::RemUIOp::create(b, loc, rest, counts[i]);
    if (i > 0)
      rest = arith::DivUIOp::create(b, loc, rest, counts[i]);
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

/// Any nest: one thread per iteration, blockSize per block, with a bounds
/// check for the last block.
void mapElementwise(scf::ParallelOp loop, int64_t blockSize) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> counts;
  Value total = totalCount(b, loc, loop, counts);
  Value width = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value blocks = arith::CeilDivUIOp::create(b, loc, total, width);
  auto [outer, inner] = createGrid(b, loc, blocks, blockSize);
  Value base = arith::MulIOp::create(b, loc, outer.getInductionVars()[0], width);
  Value linear = arith::AddIOp::create(b, loc, base, inner.getInductionVars()[0]);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, total);
  auto guard = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  IRMapping map;
  delinearize(b, loc, loop, counts, linear, map);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
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
/// false when `loop` is not one.
bool mapRowReduction(scf::ParallelOp loop, int64_t blockSize) {
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
  auto [outer, inner] = createGrid(b, loc, rows, blockSize);
  Value lane = inner.getInductionVars()[0];
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
  // Each thread folds elements lane, lane + blockSize, ... from identity.
  Value lb = map.lookupOrDefault(reduce.getLowerBound());
  Value ub = map.lookupOrDefault(reduce.getUpperBound());
  Value step = map.lookupOrDefault(reduce.getStep());
  Value start = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, lane, step));
  Value stride = arith::MulIOp::create(
      b, loc, step, arith::ConstantIndexOp::create(b, loc, blockSize));
  Value identity = arith::ConstantOp::create(b, loc, kind->second);
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
  auto all = gpu::AllReduceOp::create(
      b, loc, partial.getResult(0),
      gpu::AllReduceOperationAttr::get(b.getContext(), kind->first),
      b.getUnitAttr());
  // The row's initial value, folded in once, as the sequential loop did.
  IRMapping fold = map;
  fold.map(reduce.getRegionIterArgs()[0], map.lookupOrDefault(reduce.getInitArgs()[0]));
  Value combinerOther = combiner->getOperand(0) == reduce.getRegionIterArgs()[0]
                            ? combiner->getOperand(1)
                            : combiner->getOperand(0);
  fold.map(combinerOther, all.getResult());
  Operation *total = b.clone(*combiner, fold);
  map.map(reduce.getResult(0), total->getResult(0));
  // Thread 0 writes the row's results.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  auto writer = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPointToStart(writer.thenBlock());
  for (Operation *op = after; op && op != body->getTerminator();
       op = op->getNextNode())
    b.clone(*op, map);
  loop.erase();
  return true;
}

/// Whether `buffer` is device memory: (a view of) a gpu.alloc or an
/// argument of a public function (a graph's input).
bool onDevice(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (isa<gpu::AllocOp>(def))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    buffer = view.getViewSource();
  }
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
      if (!mapRowReduction(loop, blockSize))
        mapElementwise(loop, blockSize);
    }
    if (failed(checkHostCode(getOperation())))
      signalPassFailure();
  }
};

} // namespace
