//===- KilnDialect.h - The kiln dialect -------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTypes.h.inc"

namespace mlir::kiln {

/// Whether t is a tensor whose rank or element type is not known yet
/// (unranked, or of !kiln.open elements).
bool isOpenTensor(Type t);

/// Whether any of types is an open tensor.
bool anyOpen(TypeRange types);

/// The tensor of unknown rank and element type, tensor<*x!kiln.open>.
TensorType openTensorType(MLIRContext *context);

} // namespace mlir::kiln

#endif
