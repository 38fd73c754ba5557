//===- PrefetchNextRow.cpp - Next row's cache lines during this row -------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "kiln/Codegen/Common/ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNPREFETCHNEXTROW
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-prefetch-next-row"

using namespace mlir;
using mlir::kiln::viewedBuffer;

namespace {

constexpr int64_t kCacheLineBytes = 64;

/// A row of a big array that `column` (a loop of step 1 over the columns
/// inside the loop over rows `row`) reads or writes: the access's last index
/// is the column, one other is the row, the rest do not vary in the row
/// loop, and the buffer comes from outside the parallel loop around the rows
/// (tile buffers inside it stay in cache anyway).
struct RowAccess {
  Value memref;
  SmallVector<Value> indices; // with the row and column positions
  unsigned rowPos;
  bool write;
};

std::optional<RowAccess> rowAccess(Operation *op, scf::ForOp row,
                                   scf::ForOp column) {
  auto load = dyn_cast<memref::LoadOp>(op);
  auto store = dyn_cast<memref::StoreOp>(op);
  if (!load && !store)
    return std::nullopt;
  Value memref = load ? load.getMemRef() : store.getMemRef();
  ValueRange indices = load ? load.getIndices() : store.getIndices();
  if (indices.size() < 2 || indices.back() != column.getInductionVar())
    return std::nullopt;
  Value root = viewedBuffer(memref);
  Operation *tile = row->getParentOfType<scf::ParallelOp>();
  if (!tile || tile->isAncestor(root.getParentBlock()->getParentOp()))
    return std::nullopt;
  auto definedInRow = [&](Value v) {
    return row.getRegion().isAncestor(v.getParentRegion());
  };
  if (definedInRow(column.getLowerBound()) ||
      definedInRow(column.getUpperBound()))
    return std::nullopt;
  if (definedInRow(memref))
    return std::nullopt;
  std::optional<unsigned> rowPos;
  for (auto [pos, index] : llvm::enumerate(indices.drop_back())) {
    if (index == row.getInductionVar() && !rowPos)
      rowPos = pos;
    else if (definedInRow(index))
      return std::nullopt;
  }
  if (!rowPos)
    return std::nullopt;
  return RowAccess{memref, SmallVector<Value>(indices), *rowPos, bool(store)};
}

/// The column loops directly inside `row`.
SmallVector<scf::ForOp> columnLoops(scf::ForOp row) {
  SmallVector<scf::ForOp> loops;
  for (Operation &op : row.getBody()->without_terminator())
    if (auto loop = dyn_cast<scf::ForOp>(op);
        loop && isConstantIntValue(loop.getStep(), 1))
      loops.push_back(loop);
  return loops;
}

/// Adds, at the start of `row`'s body, a loop that prefetches one cache line
/// at a time of the next row (the last row prefetches itself) of each big
/// array the row's first column loop reads and its last one writes.
void prefetchNextRow(scf::ForOp row) {
  SmallVector<scf::ForOp> columns = columnLoops(row);
  if (columns.size() < 2)
    return;
  SmallVector<std::pair<RowAccess, scf::ForOp>> wanted;
  auto collect = [&](scf::ForOp column, bool write) {
    for (Operation &op : column.getBody()->without_terminator()) {
      std::optional<RowAccess> access = rowAccess(&op, row, column);
      if (!access || access->write != write ||
          llvm::any_of(wanted, [&](auto &seen) {
            return seen.first.memref == access->memref;
          }))
        continue;
      wanted.push_back({*access, column});
    }
  };
  collect(columns.front(), /*write=*/false);
  collect(columns.back(), /*write=*/true);
  if (wanted.empty())
    return;

  OpBuilder b = OpBuilder::atBlockBegin(row.getBody());
  Location loc = row.getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value next = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, row.getInductionVar(), one),
      arith::SubIOp::create(b, loc, row.getUpperBound(), one));
  for (auto &[access, column] : wanted) {
    auto type = cast<MemRefType>(access.memref.getType());
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    Value step = arith::ConstantIndexOp::create(
        b, loc, std::max<int64_t>(1, kCacheLineBytes / elementBytes));
    auto lines = scf::ForOp::create(b, loc, column.getLowerBound(),
                                    column.getUpperBound(), step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(lines.getBody());
    SmallVector<Value> indices = access.indices;
    indices[access.rowPos] = next;
    indices.back() = lines.getInductionVar();
    memref::PrefetchOp::create(b, loc, access.memref, indices,
                               /*isWrite=*/access.write, /*localityHint=*/3,
                               /*isDataCache=*/true);
  }
}

struct KilnPrefetchNextRowPass
    : mlir::kiln::impl::KilnPrefetchNextRowBase<KilnPrefetchNextRowPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    SmallVector<scf::ForOp> rows;
    getOperation()->walk([&](scf::ParallelOp tile) {
      for (Operation &op : tile.getBody()->without_terminator())
        if (auto row = dyn_cast<scf::ForOp>(op);
            row && row.getNumResults() == 0 &&
            isConstantIntValue(row.getStep(), 1))
          rows.push_back(row);
    });
    for (scf::ForOp row : rows)
      prefetchNextRow(row);
  }
};
} // namespace
