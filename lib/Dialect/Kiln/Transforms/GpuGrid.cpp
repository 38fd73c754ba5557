//===- GpuGrid.cpp - Grids of blocks and threads for loop nests ----------===//
#include "GpuGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"

using namespace mlir;

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

} // namespace mlir::kiln
