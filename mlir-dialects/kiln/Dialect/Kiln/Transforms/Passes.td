//===- Passes.td - Transforms of the kiln dialect ----------*- tablegen -*-===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnMaterializePromotions : Pass<"kiln-materialize-promotions"> {
  let summary = "Make the elementwise ops' type promotions explicit casts";
  let description = [{
    The elementwise kiln ops compute as the runtime does, in torch's result
    type of their operands (`promotedElementType`), which may differ from
    the operands' own. This pass casts each such operand to the type the op
    computes in (`kiln.cast`), so that every op reaching the lowering to
    linalg has operands of one element type: the result's for arithmetic,
    `where`'s branches, the unary floating ops and `sum`/`prod`; the
    promoted operand type for `cmp`. Arithmetic on bools (or, and, maximum)
    computes on i32 and casts the result back to i1, nonzero being true, as
    the runtime's does. It must run before anything folds a wrapped number
    (a `kiln.from_scalar` result) into another op.
  }];
  let dependentDialects = ["mlir::kiln::KilnDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
