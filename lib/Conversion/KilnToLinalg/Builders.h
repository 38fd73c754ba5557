//===- Builders.h - linalg builders the patterns share ----------*- C++ -*-===//
#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_BUILDERS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_BUILDERS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::kiln::detail {

/// Computes an op's scalar result from its operands' scalars.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// MaxNum ignores NaN (arith.maxnumf, one instruction where maximumf needs
/// several): only for shifts such as softmax's, where a NaN reaches the
/// result through the other operations anyway.
enum class ReduceKind { Sum, Prod, Max, MaxNum, Min };

/// A reduction of input over dims (sorted; all when empty): which dims are
/// reduced, the loops' iterator types, and the result's sizes and map from
/// the loops (reduced dims kept as size 1, map result 0, when keepdim).
struct ReductionShape {
  SmallVector<bool> reduced;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<OpFoldResult> outSizes;
  SmallVector<AffineExpr> outExprs;
};
ReductionShape reductionShape(OpBuilder &b, Location loc, Value input,
                              ArrayRef<int64_t> dims, bool keepdim);

/// Reduces input over dims (sorted; all when empty), accumulating in
/// accType (input elements are converted to it); reduced dims stay as size
/// 1 when keepdim.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> dims, bool keepdim, ReduceKind kind,
                     Type accType);

/// A parallel linalg.generic over `sizes` (identity output map) that reads
/// each operand through its map: for ops whose operand shapes follow from
/// the result's by construction (no broadcasting to check).
Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Type elementType, ValueRange operands,
                   ArrayRef<AffineMap> maps, ScalarFn fn);

/// The map from a rank-`rank` iteration space to the dims not in `dropped`.
AffineMap projectOut(MLIRContext *context, int64_t rank,
                     ArrayRef<int64_t> dropped);

/// The sizes of `type`: its static ones, and its dynamic ones taken from
/// `dynamicSizes` in order (the operands of reshape, expand, full).
SmallVector<OpFoldResult> mixedSizesOf(OpBuilder &b, ShapedType type,
                                       ValueRange dynamicSizes);

/// The product of input's sizes along dims (1 when dims is empty).
Value dimProduct(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> dims);

/// v as `type` (a tensor.cast when the static information differs).
Value castTo(OpBuilder &b, Location loc, Value v, Type type);

/// tensor.empty of type with the given (mixed) sizes.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType);

/// A scalar constant of type (float or integer) with value.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// identity maps and iterator kinds.
SmallVector<utils::IteratorType> parallelIterators(int64_t rank);

/// An index constant.
Value indexConstant(OpBuilder &b, Location loc, int64_t v);

/// Value of an OpFoldResult as an index SSA value.
Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr);

/// Checks that every integer id lies in [0, rows) (a run-time shape check
/// failing with `message`). Users clamp ids with clampedIndex, so that a
/// failed check still reads in bounds.
void checkIds(OpBuilder &b, Location loc, Value ids, Value rows,
              StringRef message);

/// An id as an index clamped into [0, rows - 1].
Value clampedIndex(OpBuilder &b, Location loc, Value id, Value rows);

/// An i1 that holds where one of `table`'s dims `dims` is empty at run time
/// (ids into it then fail their check), or null where all of them are
/// static (the verifier saw their sizes).
Value anyEmptyAlong(OpBuilder &b, Location loc, Value table,
                    ArrayRef<int64_t> dims);

/// tensor.extract of `table` at `at`, or 0 where `empty` (anyEmptyAlong)
/// holds: a read that a failed check reports is never made, and the table
/// is read in place. (A one-row table of zeros standing in for an empty one
/// through an scf.if made One-Shot Bufferize copy a slice of an argument
/// whole on every call.)
Value extractUnlessEmpty(OpBuilder &b, Location loc, Value table, ValueRange at,
                         Value empty);

/// A row: the 1-d slice of `source` along `dim` at `coords` (the other
/// dims' positions, in order), `length` long.
Value rowOf(OpBuilder &b, Location loc, Value source, int64_t dim,
            ValueRange coords, OpFoldResult length);

/// Computes the rows a forEachRow iteration writes, from its position and
/// the outs' rows there.
using RowFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange coords, ValueRange rows)>;

/// One scf.forall over `extents` (the sizes of the dims other than `dim`,
/// one iteration when there are none) with `outs` shared: the body gets
/// each out's row along `dim` at the position and returns the rows to
/// write back. For ops that walk a row in order (scans, topk) or fill one
/// from a loop (attention): one thread each on the CPU and on the GPU.
SmallVector<Value> forEachRow(OpBuilder &b, Location loc,
                              ArrayRef<OpFoldResult> extents, int64_t dim,
                              ValueRange outs, RowFn fn);

/// The sizes of `v`'s dims other than `dim`.
SmallVector<OpFoldResult> otherExtents(OpBuilder &b, Location loc, Value v,
                                       int64_t dim);

} // namespace mlir::kiln::detail

#endif
