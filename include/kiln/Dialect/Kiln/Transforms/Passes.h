//===- Passes.h - Transforms of the kiln dialect ----------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

/// The argument attribute that gives an open argument its type for
/// kiln-refine-types.
constexpr llvm::StringLiteral kTypeAttrName = "kiln.type";

/// kiln-refine-types on one function: its arguments take the types their
/// `kiln.type` attributes give (the attributes are dropped), every result
/// is inferred again in order and each op verified; the function's type
/// follows. Fails, with the op's diagnostic, where an op cannot take the
/// types or a type stays open.
LogicalResult refineTypes(func::FuncOp fn);

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

} // namespace mlir::kiln

#endif
