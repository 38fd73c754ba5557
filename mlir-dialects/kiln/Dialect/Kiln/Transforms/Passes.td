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

def KilnDecomposeComposites : Pass<"kiln-decompose-composites"> {
  let summary = "Write the composite ops with the ops that compute them";
  let description = [{
    The composite ops (KilnOps.td, "Composites": `flatten`, `unflatten`,
    `reshape_as`, `repeat`, `tile`, `rank`, `numel`, `cast_like`,
    `logsumexp`, `var`, `std`, `norm`, `tril`, `triu`, `isnan`, `isinf`, `isfinite`,
    `logical_not`, `logical_and`, `logical_or`, `any`, `all`, `flip`,
    `roll`, `sign`,
    `leaky_relu`, `elu`, `clamp`, `masked_fill`, `lerp`, `stack`, `narrow`, `select`, `bmm`, `addmm`, `baddbmm`, `batch_norm`, `group_norm`, `eye`, `one_hot`, `linspace`, `randint`, `index_select`, `pad`, `einsum`, `interpolate`, `interpolate_scaled`, `dropout`, `full_like`, `conv_transpose2d`; a
    `conv2d` or 2-d pool of one unbatched `[C, H, W]` image) are functions of the runtime that the
    tracer takes whole, so that each is defined once, in the dialect, and
    typed by its own inference. On known types this pass rewrites each as
    the kiln ops that compute it (reshapes, a broadcasting `where`), before
    promotions are made explicit and the graph is lowered; the eager
    backend and the interpreter call the runtime's own function instead.

    ```mlir
    %y = kiln.flatten %x dims 1 to 2 : tensor<?x4x?xf32> -> tensor<?x?xf32>
    // becomes
    %b = kiln.dim %x, 0 : tensor<?x4x?xf32>
    %n = arith.muli (arith.muli %c1, kiln.dim %x, 1), kiln.dim %x, 2
    %y = kiln.reshape %x [%b, %n] : tensor<?x4x?xf32> -> tensor<?x?xf32>
    ```
  }];
  let dependentDialects = ["mlir::kiln::KilnDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect"];
}

def KilnDifferentiate : Pass<"kiln-differentiate", "mlir::ModuleOp"> {
  let summary = "Add each graph function's backward function";
  let description = [{
    Reverse-mode differentiation on the kiln dialect, the counterpart of
    AOTAutograd's joint graph: for each function `@f` with a floating-point
    tensor argument, `@f_backward` takes `@f`'s arguments and one gradient
    per floating-point tensor result of `@f`, recomputes `@f`'s body and
    returns the gradient of each floating-point tensor argument (zeros where
    none flows). Each op's gradient is its GradientOpInterface, one rule per
    op in lib/Dialect/Kiln/IR/KilnGradients.cpp with ATen's formulas;
    gradients reaching an op twice are added; integer, bool and index
    values take none, and neither do values that do not vary with a float
    argument (a mask built from constants). An op on the way from a float
    argument to a float result that has no rule fails the pass, naming it.

    ```mlir
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %y = kiln.exp %x : tensor<?xf32> -> tensor<?xf32>
      return %y : tensor<?xf32>
    }
    // gets
    func.func @f_backward(%x: tensor<?xf32>, %dy: tensor<?xf32>) -> tensor<?xf32> {
      %y = kiln.exp %x : tensor<?xf32> -> tensor<?xf32>
      %dx = kiln.mul %dy, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      return %dx : tensor<?xf32>
    }
    ```
  }];
  let options = [
    Option<"partition", "partition", "bool", /*default=*/"false",
           "Split each joint graph into @f_forward (returning what the "
           "backward reads besides @f's results) and @f_backward (the "
           "saved values and the gradients in) by AOTAutograd's min-cut "
           "rematerialization (buildForwardBackward)">
  ];
  // (cf: the composites' decompositions, which it applies, check sizes.)
  let dependentDialects = ["mlir::kiln::KilnDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect"];
}

def KilnRefineTypes : Pass<"kiln-refine-types", "mlir::func::FuncOp"> {
  let summary = "Type a graph traced on open types from its arguments' types";
  let description = [{
    A graph is traced before its inputs' ranks and element types are known:
    its ops are built on open tensors (`tensor<*x!kiln.open>`, KilnTypes.td)
    and infer open results. To type it, give each open argument its type as
    the argument attribute `kiln.type` (a type version of the graph: the
    function cloned and stamped); this pass sets the arguments' types and
    infers every result again in order with the ops' own inference
    (`InferTypeOpInterface`), so there is one type inference, the
    dialect's. The few kiln ops whose result type is stated rather than
    inferred keep what they state and take the rest from their input:
    `kiln.cast` its input's shape, `kiln.reshape` and `kiln.expand` its
    element type (an expanded size written as `kiln.dim` of the input's
    aligned dim, torch's `-1`, becomes static where that dim is),
    `kiln.slice` its input's type but for the sliced dim, `kiln.opaque_call`
    its first argument's rank and element type. What the source writes with
    torch's meaning takes the dialect's stricter form: a `kiln.squeeze` of
    a dim of known size other than 1 becomes a copy (`kiln.cast`), a scan
    (`kiln.cumsum`, `kiln.cumprod`) of integers or bools scans them cast to
    i64, and the
    arms of an `arith.select` of tensors are cast (`tensor.cast`) to what
    both promise. The function's result types follow its return. Each op is verified on the types it now has, so an op that
    cannot take them (a mean of integers, shapes that cannot broadcast)
    fails the pass with its own diagnostic, as does a type left open.

    ```mlir
    func.func @f(%x: tensor<*x!kiln.open> {kiln.type = tensor<?x4xi64>})
        -> tensor<*x!kiln.open> {
      %0 = kiln.exp %x : tensor<*x!kiln.open>
      return %0 : tensor<*x!kiln.open>
    }
    // becomes
    func.func @f(%x: tensor<?x4xi64>) -> tensor<?x4xf32> {
      %0 = kiln.exp %x : tensor<?x4xi64>
      return %0 : tensor<?x4xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::kiln::KilnDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
