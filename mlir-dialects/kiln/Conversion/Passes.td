//===- Passes.td - Kiln's conversion passes ----------------*- tablegen -*-===//
#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKilnToLinalg : Pass<"convert-kiln-to-linalg", "ModuleOp"> {
  let summary = "Lower the kiln dialect to linalg, tensor, arith and math";
  let description = [{
    Every kiln op becomes named linalg ops or `linalg.generic` on tensors,
    ready for upstream fusion, tiling and bufferization. The patterns are
    split by op family (Elementwise, Reduction, Normalization, Linear,
    DataMovement, Constants, Calls) behind `populateKilnToLinalgPatterns`;
    `kiln.opaque_call` becomes a `func.call` of its declaration, with a C
    interface for the host to implement.

    Dynamic shapes are handled in full: a dynamic dim that turns out to be 1
    at run time broadcasts (an `scf.if` picks the broadcasting copy only
    then), unless the dims are known to be the same size (they derive from
    the same dim of the same value). Shape conditions the eager runtime would
    reject become `cf.assert`s; the generated code stays in bounds when they
    fail, and `kiln-lower-shape-asserts` turns them into the entry point's
    status result. The tensor arguments of public functions (a graph's
    inputs, its caller's tensors) are marked `bufferization.writable =
    false`: an op that updates a copy of its input (scatter_add) never
    writes into the caller's.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
