//===- Passes.td - Kiln's own transformation passes --------*- tablegen -*-===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Runtime ABI
//===----------------------------------------------------------------------===//

def KilnLowerShapeAsserts : Pass<"kiln-lower-shape-asserts", "ModuleOp"> {
  let summary = "Turn shape checks into the entry points' status result";
  let description = [{
    Conversion to linalg states every shape condition the eager runtime
    enforces as a `cf.assert`, and keeps the code in bounds when one fails.
    This pass gives each public function one more result, an `i32` status
    (0: every check held, 1: one failed), computed from the asserts in its
    body, and erases them. The caller that sees status 1 re-runs the graph
    eagerly, which raises the runtime's own `kiln::Error` for the same
    inputs (docs/abi.md), so compiled and eager code report errors alike.

    Asserts nested in regions (none are emitted there today) are left for
    the lowering of `cf.assert`, which aborts.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

def KilnApproximateMath : Pass<"kiln-approximate-math"> {
  let summary = "Replace transcendental math ops with vectorizable polynomials";
  let description = [{
    Rewrites `math.erf`, `math.exp`, `math.tanh`, `math.log` and friends on
    f32 (scalars and vectors) with upstream's polynomial approximations, so
    that the loops holding them vectorize instead of calling libm one element
    at a time. Runs before the math-to-LLVM lowering.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
