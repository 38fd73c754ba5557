//===- FuseRowLoops.cpp - One loop over a row tile's rows -----------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "kiln/Codegen/Common/ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFUSEROWLOOPS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-fuse-row-loops"

using namespace mlir;
using mlir::kiln::viewedBuffer;

namespace {

/// A loop over rows: scf.for from 0 to `rows` by 1, with no results.
bool isRowLoop(Operation *op, Value rows) {
  auto loop = dyn_cast<scf::ForOp>(op);
  return loop && loop.getNumResults() == 0 && loop.getUpperBound() == rows &&
         isConstantIntValue(loop.getLowerBound(), 0) &&
         isConstantIntValue(loop.getStep(), 1);
}

struct Access {
  Value memref;
  bool write;
  ValueRange indices;
  Value iv; // the induction variable of the loop it belongs to
};

/// The loads and stores inside `loop`; false if it holds another op that
/// touches memory (a call, a copy), which fusion does not reason about.
bool collectAccesses(scf::ForOp loop, SmallVectorImpl<Access> &out) {
  Value iv = loop.getInductionVar();
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      out.push_back({load.getMemRef(), false, load.getIndices(), iv});
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      out.push_back({store.getMemRef(), true, store.getIndices(), iv});
    else if (!isMemoryEffectFree(op) && !isa<scf::ForOp, scf::YieldOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// For each buffer either loop writes: the memref value it is written
/// through (root -> value).
llvm::DenseMap<Value, Value> writtenBuffers(ArrayRef<Access> accesses) {
  llvm::DenseMap<Value, Value> written;
  for (const Access &x : accesses)
    if (x.write)
      written[viewedBuffer(x.memref)] = x.memref;
  return written;
}

/// Whether running `b`'s iteration r right after `a`'s iteration r, for
/// every r in order, computes what running all of `a` then all of `b` does:
/// every buffer either writes is accessed only at the loop's own row,
/// through one memref value.
bool rowLocal(scf::ForOp a, scf::ForOp b) {
  SmallVector<Access> accesses;
  if (!collectAccesses(a, accesses) || !collectAccesses(b, accesses))
    return false;
  llvm::DenseMap<Value, Value> written = writtenBuffers(accesses);
  for (const Access &x : accesses) {
    auto it = written.find(viewedBuffer(x.memref));
    if (it == written.end())
      continue; // read by both loops, written by neither
    if (it->second != x.memref || x.indices.empty() ||
        x.indices.front() != x.iv)
      return false;
  }
  return true;
}

/// Rewrites a memref.copy between two row buffers of `rows` rows as a row
/// loop (one element per row), so that it fuses with its neighbours.
scf::ForOp copyAsRowLoop(memref::CopyOp copy, Value rows, Value zero, Value one,
                         RewriterBase &rewriter) {
  auto isRowBuffer = [&](Value v) {
    auto alloc = v.getDefiningOp<memref::AllocOp>();
    return alloc && alloc.getType().getRank() == 1 &&
           alloc.getDynamicSizes().size() == 1 &&
           alloc.getDynamicSizes()[0] == rows;
  };
  if (!isRowBuffer(copy.getSource()) || !isRowBuffer(copy.getTarget()))
    return nullptr;
  rewriter.setInsertionPoint(copy);
  auto loop = scf::ForOp::create(rewriter, copy.getLoc(), zero, rows, one);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value v = memref::LoadOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                   loop.getInductionVar());
  memref::StoreOp::create(rewriter, copy.getLoc(), v, copy.getTarget(),
                          loop.getInductionVar());
  rewriter.eraseOp(copy);
  return loop;
}

/// Whether the ops between two row loops can all move above the first:
/// they touch no memory (allocations, views, arithmetic) and use only
/// values defined before it (or by each other, in order).
bool canHoist(ArrayRef<Operation *> ops, scf::ForOp first) {
  Block *block = first->getBlock();
  return llvm::all_of(ops, [&](Operation *op) {
    if (op->getNumRegions() != 0 ||
        !(isa<memref::AllocOp>(op) || isMemoryEffectFree(op)))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return !def || def->getBlock() != block || def->isBeforeInBlock(first) ||
             llvm::is_contained(ops, def);
    });
  });
}

/// The most ops a fused loop's body holds: fusion stops there, as
/// kiln-fuse-elementwise does, so that a long chain makes loops of bounded
/// size (LLVM's loop vectorizer takes time quadratic in a loop's size, and
/// checking a growing loop's accesses again at each fusion would too).
constexpr size_t kMaxFusedLoopOps = 1024;

/// The ops in `loop`'s body, nested ones included.
size_t opsIn(scf::ForOp loop) {
  size_t n = 0;
  loop.getBody()->walk([&](Operation *) { ++n; });
  return n;
}

/// Fuses the row loops of `block` (a row tile's body) whose bound is `rows`.
void fuseRowLoops(Block &block, Value rows, RewriterBase &rewriter) {
  rewriter.setInsertionPointToStart(&block);
  Value zero = arith::ConstantIndexOp::create(rewriter,
                                              block.getParentOp()->getLoc(), 0);
  Value one = arith::ConstantIndexOp::create(rewriter,
                                             block.getParentOp()->getLoc(), 1);
  for (Operation &op : llvm::make_early_inc_range(block))
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      copyAsRowLoop(copy, rows, zero, one, rewriter);

  scf::ForOp current;
  size_t currentOps = 0;
  for (Operation *op = &block.front(); op;) {
    Operation *next = op->getNextNode();
    if (!isRowLoop(op, rows)) {
      op = next;
      continue;
    }
    auto loop = cast<scf::ForOp>(op);
    size_t loopOps = opsIn(loop);
    if (!current || currentOps + loopOps > kMaxFusedLoopOps) {
      current = loop;
      currentOps = loopOps;
      op = next;
      continue;
    }
    // The ops between `current` and `loop` must move above `current`.
    SmallVector<Operation *> between;
    for (Operation *o = current->getNextNode(); o != loop; o = o->getNextNode())
      between.push_back(o);
    bool movable = canHoist(between, current);
    if (!movable || !rowLocal(current, loop)) {
      current = loop;
      currentOps = loopOps;
      op = next;
      continue;
    }
    currentOps += loopOps;
    for (Operation *o : between)
      o->moveBefore(current);
    // loop's body runs after current's, at the same row.
    rewriter.replaceAllUsesWith(loop.getInductionVar(),
                                current.getInductionVar());
    Block *body = current.getBody();
    body->getOperations().splice(
        body->getTerminator()->getIterator(), loop.getBody()->getOperations(),
        loop.getBody()->begin(),
        loop.getBody()->getTerminator()->getIterator());
    rewriter.eraseOp(loop);
    op = next;
  }
}

//===----------------------------------------------------------------------===//
// Inside a row: loops over the same columns
//===----------------------------------------------------------------------===//

/// Whether every access in `a` and `b` of a buffer either writes is at the
/// loop's own column (last index = its induction variable) of one fixed
/// row (the other indices the same values, defined outside both loops),
/// through one memref value.
bool columnLocal(scf::ForOp a, scf::ForOp b) {
  SmallVector<Access> accesses;
  if (!collectAccesses(a, accesses) || !collectAccesses(b, accesses))
    return false;
  llvm::DenseMap<Value, Value> written = writtenBuffers(accesses);
  // The indices each written buffer is first written at.
  llvm::DenseMap<Value, ValueRange> writeIndices;
  for (const Access &x : accesses)
    if (x.write)
      writeIndices.try_emplace(viewedBuffer(x.memref), x.indices);
  auto inside = [&](Value v) {
    Operation *scope = v.getParentBlock()->getParentOp();
    return a->isAncestor(scope) || b->isAncestor(scope);
  };
  for (const Access &x : accesses) {
    auto it = written.find(viewedBuffer(x.memref));
    if (it == written.end())
      continue; // read by both loops, written by neither
    ValueRange w = writeIndices.lookup(it->first);
    if (it->second != x.memref || x.indices.empty() ||
        x.indices.back() != x.iv || x.indices.size() != w.size())
      return false;
    for (size_t i = 0; i + 1 < x.indices.size(); ++i)
      if (x.indices[i] != w[i] || inside(x.indices[i]))
        return false;
  }
  return true;
}

/// Whether `a`'s work can run after the ops between `a` and the loop it
/// fuses with: they do not use its results, touch nothing it writes, and
/// write nothing it reads.
bool canSinkPast(scf::ForOp a, ArrayRef<Operation *> between) {
  SmallVector<Access> inA;
  if (!collectAccesses(a, inA))
    return false;
  for (Operation *op : between) {
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          return v.getDefiningOp() == a.getOperation();
        }))
      return false;
    if (!isMemoryEffectFree(op) &&
        !isa<memref::LoadOp, memref::StoreOp, memref::AllocOp>(op))
      return false;
    Value mine;
    bool write = false;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      mine = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      std::tie(mine, write) = std::pair{store.getMemRef(), true};
    if (mine && llvm::any_of(inA, [&](const Access &x) {
          return (write || x.write) &&
                 viewedBuffer(mine) == viewedBuffer(x.memref);
        }))
      return false;
  }
  return true;
}

/// Fuses consecutive loops of `block` (a row's body) over the same columns.
void fuseColumnLoops(Block &block, RewriterBase &rewriter) {
  scf::ForOp current;
  size_t currentOps = 0;
  for (Operation *op = &block.front(); op;) {
    Operation *next = op->getNextNode();
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop) {
      op = next;
      continue;
    }
    size_t loopOps = opsIn(loop);
    if (current && currentOps + loopOps <= kMaxFusedLoopOps &&
        current.getLowerBound() == loop.getLowerBound() &&
        current.getUpperBound() == loop.getUpperBound() &&
        current.getStep() == loop.getStep()) {
      SmallVector<Operation *> between;
      for (Operation *o = current->getNextNode(); o != loop;
           o = o->getNextNode())
        between.push_back(o);
      bool usesCurrent = llvm::any_of(loop->getOperands(), [&](Value v) {
        return v.getDefiningOp() == current.getOperation();
      });
      if (!usesCurrent && canSinkPast(current, between) &&
          columnLocal(current, loop)) {
        // The fused loop stands where `loop` was: current's body, then
        // loop's, for each column.
        current = fuseIndependentSiblingForLoops(current, loop, rewriter);
        currentOps += loopOps;
        op = current->getNextNode();
        continue;
      }
    }
    current = loop;
    currentOps = loopOps;
    op = next;
  }
}

struct KilnFuseRowLoopsPass
    : mlir::kiln::impl::KilnFuseRowLoopsBase<KilnFuseRowLoopsPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ParallelOp> tiles;
    getOperation()->walk([&](scf::ParallelOp tile) { tiles.push_back(tile); });
    for (scf::ParallelOp tile : tiles) {
      Block &body = tile.getRegion().front();
      // The bound shared by most row loops of the tile: its row count.
      llvm::DenseMap<Value, int> bounds;
      for (Operation &op : body)
        if (auto loop = dyn_cast<scf::ForOp>(op))
          if (loop.getNumResults() == 0)
            ++bounds[loop.getUpperBound()];
      Value rows;
      int most = 0;
      for (auto &[bound, count] : bounds)
        if (count > most) {
          rows = bound;
          most = count;
        }
      if (!rows)
        continue;
      fuseRowLoops(body, rows, rewriter);
      for (Operation &op : body)
        if (isRowLoop(&op, rows))
          fuseColumnLoops(*cast<scf::ForOp>(op).getBody(), rewriter);
    }
  }
};

} // namespace
