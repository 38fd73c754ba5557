//===- KilnOps.h - The kiln dialect's operations ----------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_IR_KILNOPS_H
#define KILN_DIALECT_KILN_IR_KILNOPS_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Kiln/IR/KilnEnums.h.inc"

namespace mlir::kiln {

/// The numpy broadcast of the operands' shapes, as a ranked tensor of
/// elementType (the first operand's when null). A dynamic dim broadcast
/// against a static size > 1 takes that size; against 1 or ? it stays ?.
LogicalResult inferBroadcastResult(std::optional<Location> loc,
                                   ArrayRef<Type> operandTypes,
                                   Type elementType,
                                   SmallVectorImpl<Type> &inferred);

/// Shape of a reduction over dims (all dims when empty).
LogicalResult inferReductionResult(std::optional<Location> loc, Type input,
                                   ArrayRef<int64_t> dims, bool keepdim,
                                   SmallVectorImpl<Type> &inferred);

/// dims sorted, distinct and within [0, rank).
LogicalResult verifyReductionDims(Operation *op, Type input,
                                  ArrayRef<int64_t> dims);

/// 0 <= dim < rank, with what the dim is called in the message.
LogicalResult verifyDimInRange(Operation *op, int64_t dim, int64_t rank,
                               StringRef name);

} // namespace mlir::kiln

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.h.inc"

#endif
