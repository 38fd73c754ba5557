//===- Utils.h - Shared by the kiln -> linalg patterns ----------*- C++ -*-===//
#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_UTILS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_UTILS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::kiln::detail {

/// The value and dim that a dim of v is known to have the size of: v's own
/// dim unless ops that keep shapes (unary, cast, broadcasting against
/// lower-rank or size-1 operands...) carry it from an operand.
std::pair<Value, int64_t> dimSource(Value v, int64_t dim);

/// Emits cf.assert(cond, message): a shape condition the eager runtime
/// enforces. kiln-lower-shape-asserts makes it the entry point's status.
void emitShapeCheck(OpBuilder &b, Location loc, Value cond, StringRef message);

/// An elementwise linalg.generic computing fn(scalars of operands) over the
/// numpy broadcast of operands into a tensor of resultType. A dynamic result
/// dim whose operand dims do not share a dimSource is the smallest operand
/// size other than 1, with shape checks, so that a failed check never makes
/// a loop run past an operand's end; an operand dim that is smaller at run
/// time (1, legitimately) is broadcast by a copy that an scf.if makes only
/// then.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;
Value buildElementwise(OpBuilder &b, Location loc, ValueRange operands,
                       RankedTensorType resultType, ScalarFn fn);

/// v with dim `dim` of size exactly r: broadcast when its run-time size is
/// smaller (1, legitimately; otherwise after a failed shape check, where any
/// in-bounds value will do; an scf.if makes the copy only then), sliced
/// when it is larger (a failed check: linalg takes loop bounds from its
/// operands, so no operand may be longer than the result).
Value broadcastDimIfSmaller(OpBuilder &b, Location loc, Value v, int64_t dim,
                            Value r);

/// Slices dim of v to size (the other dims whole).
Value sliceDim(OpBuilder &b, Location loc, Value v, int64_t dim, Value size);

/// Makes dim dx of x and dim dy of y agree, for ops that require equal sizes
/// (not broadcasting): equal static sizes or one dimSource pass through;
/// otherwise a shape check, and both are sliced to the smaller size so that
/// a failed check stays in bounds.
std::pair<Value, Value> agreeOnDim(OpBuilder &b, Location loc, Value x,
                                   int64_t dx, Value y, int64_t dy,
                                   StringRef message);
/// The same for any number of (value, dim) pairs, updated in place.
void agreeOnDims(OpBuilder &b, Location loc,
                 MutableArrayRef<std::pair<Value, int64_t>> dims,
                 StringRef message);

/// The broadcast of dynamic sizes: the smallest one other than 1, or 1.
/// (The smallest, so that when shape checks fail no loop runs past an
/// operand's end.)
Value broadcastSize(OpBuilder &b, Location loc, ArrayRef<Value> sizes);

/// Checks (a shape check) that dynamic sizes a and b are equal, and returns
/// the smaller one, which keeps every loop in bounds if they are not.
Value checkedEqualSize(OpBuilder &b, Location loc, Value a, Value bSize,
                       StringRef message);

/// MaxNum ignores NaN (arith.maxnumf, one instruction where maximumf needs
/// several): only for shifts such as softmax's, where a NaN reaches the
/// result through the other operations anyway.
enum class ReduceKind { Sum, Max, MaxNum, Min };

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
SmallVector<OpFoldResult> mixedSizesOf(OpBuilder &b, RankedTensorType type,
                                       ValueRange dynamicSizes);

/// v with dim `dim` broadcast to size r (broadcastDimIfSmaller), after a
/// shape check that its size is 1 or r.
Value broadcastDimChecked(OpBuilder &b, Location loc, Value v, int64_t dim,
                          Value r, StringRef message);

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

/// Value of an OpFoldResult as an index SSA value.
Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr);

} // namespace mlir::kiln::detail

#endif
