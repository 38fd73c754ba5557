//===- Passes.h - Transforms of the kiln dialect ----------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

/// The argument attribute that gives an open argument its type for
/// kiln-refine-types.
constexpr llvm::StringLiteral kTypeAttrName = "kiln.type";

/// kiln-decompose-composites' patterns: each composite op written with the
/// ops that compute it, on known types.
void populateDecomposeCompositesPatterns(RewritePatternSet &patterns);

/// One op typed from its operands' types: its dims counted from 0
/// (DimsOpInterface), its results inferred again (InferTypeOpInterface), or
/// the types it states completed from its input. Fails with the op's
/// diagnostic where its operands do not fit or a result stays open.
LogicalResult refineOp(Operation *op);

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
