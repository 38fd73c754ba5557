//===- GpuGrid.h - Loop nests onto blocks and threads: shared parts -*- C++ -*-===//
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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

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

/// Maps the row reductions among `nests` (outermost scf.parallel ops of one
/// function, in order), with the nests over the same rows around them, onto
/// one block per row (GpuRowKernels.cpp); returns the nests left for the
/// elementwise mapping.
SmallVector<scf::ParallelOp> mapRowKernels(ArrayRef<scf::ParallelOp> nests,
                                           int64_t blockSize, bool emulate);

} // namespace mlir::kiln

#endif
