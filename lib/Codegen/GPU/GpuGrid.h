//===- GpuGrid.h - Loop nests onto blocks and threads: shared parts -*- C++
//-*-===//
//
// The pieces of kiln-gpu-map-parallel-loops that its elementwise mapping
// (GpuMapParallelLoops.cpp) and its row kernels (GpuRowKernels.cpp) share:
// scf.parallel grids mapped onto blocks and threads, and the arithmetic
// from a linear thread or block index back to loop coordinates.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_GPUGRID_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_GPUGRID_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"

#include <optional>

namespace mlir::kiln {

/// Maps `loop` (one dim) onto `processor`.
void mapTo(scf::ParallelOp loop, gpu::Processor processor);

/// The number of iterations of loop dim i.
Value tripCount(OpBuilder &b, Location loc, scf::ParallelOp loop, unsigned i);

/// The product of the trip counts of loop's first `dims` dims (all when 0;
/// 0 for an empty loop), each appended to `counts`.
Value totalCount(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 SmallVectorImpl<Value> &counts, unsigned dims = 0);

/// Maps the induction variables of loop's first `dims` dims (all when 0) to
/// the coordinates of linear index `linear` (the last of them fastest, so
/// that neighbouring threads touch neighbouring elements of row-major data).
/// With `lastScale` > 1, counts[last] counts groups of that many iterations
/// of the last dim, and its induction variable maps to each group's first.
void delinearize(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 ArrayRef<Value> counts, Value linear, IRMapping &map,
                 unsigned dims = 0, int64_t lastScale = 1);

/// A grid of `count` blocks of `threads` threads: the outer loop (blocks)
/// and the inner loop (threads), the builder inside the inner one.
std::pair<scf::ParallelOp, scf::ParallelOp>
createGrid(OpBuilder &b, Location loc, Value count, int64_t threads);

/// Whether v is computed from iv by ops inside `region`.
bool dependsOn(Value v, Value iv, Region &region);

/// The memref a load or store accesses, or null for other ops.
Value accessedMemRef(Operation *op);

/// Whether `op` reads or writes consecutive elements for consecutive
/// values of `iv`: its last index is iv itself and no other index depends
/// on it. Bytes only (an i1 vector would be bit-packed).
bool isContiguousAccess(Operation *op, Value iv, Region &body);

/// The loads and stores of a nest's body that read or write consecutive
/// elements for consecutive values of its last induction variable (the
/// last index is that variable, no other index depends on it; bytes only:
/// i1 vectors would be bit-packed), moved `width` at a time by one aligned
/// vector load or store each.
struct VectorAccesses {
  scf::ParallelOp loop;
  SmallVector<Operation *> ops;
  int64_t width;

  /// Whether, at run time, every access is aligned to its vector: the last
  /// dim's iteration count and lower bound multiples of the width, and
  /// each buffer's address, offset and outer strides too, its last stride
  /// 1.
  Value check(OpBuilder &b, Location loc, Value count, Value lowerBound) const;
  /// The view of each buffer the accesses go through, with the last stride
  /// 1 in its type (vector.load and vector.store require it).
  llvm::MapVector<Value, Value> views(OpBuilder &b, Location loc) const;
  /// Clones the loop's body for `width` lanes, the last induction variable
  /// mapped to its value in `first` plus the lane: each of `ops` as one
  /// vector access (its element per lane extracted, or gathered for the
  /// store), every other op once per lane.
  void emitLanes(OpBuilder &b, Location loc, IRMapping first,
                 const llvm::MapVector<Value, Value> &views) const;
  /// One vector load for `load` at lane 0's indices (lanes[0]), its
  /// elements mapped to the load's result in each lane.
  void loadLanes(OpBuilder &b, Location loc, memref::LoadOp load,
                 const llvm::MapVector<Value, Value> &views,
                 MutableArrayRef<IRMapping> lanes) const;
};

/// `loop`'s vector accesses, if it has any and they may be vectorized: the
/// last dim steps by 1 and the body is straight-line code.
std::optional<VectorAccesses> vectorAccesses(scf::ParallelOp loop,
                                             int64_t width);

/// Maps the row reductions among `nests` (outermost scf.parallel ops of one
/// function, in order), with the nests over the same rows around them, onto
/// one block per row (GpuRowKernels.cpp); returns the nests left for the
/// elementwise mapping.
SmallVector<scf::ParallelOp> mapRowKernels(ArrayRef<scf::ParallelOp> nests,
                                           int64_t blockSize,
                                           int64_t vectorWidth,
                                           bool serialThreads);

} // namespace mlir::kiln

#endif
