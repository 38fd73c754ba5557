//===- Broadcast.h - Broadcasting and shape checks --------------*- C++ -*-===//
//
// How the kiln -> linalg patterns make operands' dynamic sizes agree: numpy
// broadcasting decided at run time, sizes proven equal where they derive
// from one source, and the shape checks eager enforces (docs/pipelines.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_BROADCAST_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_BROADCAST_H

#include "Builders.h"

namespace mlir::kiln::detail {

/// The value and dim that a dim of v is known to have the size of: v's own
/// dim unless ops that keep shapes (unary, cast, broadcasting against
/// lower-rank or size-1 operands...) carry it from an operand.
std::pair<Value, int64_t> dimSource(Value v, int64_t dim);

/// Emits cf.assert(cond, message): a shape condition the eager runtime
/// enforces. kiln-lower-shape-asserts makes it the entry point's status.
void emitShapeCheck(OpBuilder &b, Location loc, Value cond, StringRef message);

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

/// v with each dim dims[i] of size exactly rs[i]: broadcast when its
/// run-time size is smaller (1, legitimately; otherwise after a failed shape
/// check, where any in-bounds value will do), sliced when it is larger (a
/// failed check: linalg takes loop bounds from its operands, so no operand
/// may be longer than the result). One scf.if for all the dims makes the
/// copy only when one of them is smaller; it reads v at min(index, size - 1)
/// along them, so that any of them may be the one that is 1.
Value broadcastDimsIfSmaller(OpBuilder &b, Location loc, Value v,
                             ArrayRef<int64_t> dims, ArrayRef<Value> rs);

/// v with dims broadcast to sizes rs (broadcastDimsIfSmaller), after shape
/// checks that each of them is 1 or its r.
Value broadcastDimsChecked(OpBuilder &b, Location loc, Value v,
                           ArrayRef<int64_t> dims, ArrayRef<Value> rs,
                           StringRef message);

/// An elementwise linalg.generic computing fn(scalars of operands) over the
/// numpy broadcast of operands into a tensor of resultType. A dynamic result
/// dim whose operand dims do not share a dimSource is the smallest operand
/// size other than 1, with shape checks, so that a failed check never makes
/// a loop run past an operand's end; an operand dim that is smaller at run
/// time (1, legitimately) is broadcast by a copy that an scf.if makes only
/// then.
Value buildElementwise(OpBuilder &b, Location loc, ValueRange operands,
                       RankedTensorType resultType, ScalarFn fn);

} // namespace mlir::kiln::detail

#endif
