//===- Passes.td - Kiln's Common codegen passes ---------------*- tablegen -*-===//
//
// The codegen passes shared by the CPU and GPU pipelines: fusion, reductions, shape checks, library calls for products.
// None touches a kiln.* op: they work on linalg, SCF and memrefs after
// the conversion from the kiln dialect.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_COMMON_PASSES_TD
#define KILN_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise"> {
  let summary = "Elementwise fusion that never fuses into a contraction";
  let description = [{
    Upstream's elementwise fusion (with its patterns for reshapes and
    constants), with one more rule: a producer is not fused into a
    contraction (matmul, linear). Fused there, its body would be recomputed
    for every step of the contraction (a layer_norm feeding a linear, once
    per output feature), and the contraction would no longer match the
    BLAS call. Fusion into other reductions (the sum of a softmax) stays.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KilnLowerReductions : Pass<"kiln-lower-reductions"> {
  let summary = "Lower reduction generics to loops that carry the accumulator";
  let description = [{
    On bufferized IR, rewrites each `linalg.generic` whose trailing loops
    reduce into an `scf.parallel` over its parallel dims around `scf.for`
    loops over the reduced dims that carry the accumulator as an
    `iter_args` value: the output element is loaded once and stored once.
    (Upstream's loop lowering reads and writes the output at every step,
    and since the output may alias an input, nothing can keep the
    accumulator in a register or vectorize the loop.) Float sums are built
    with `reassoc` (kiln-to-linalg marks them), so LLVM vectorizes them.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def KilnEmptySlices : Pass<"kiln-empty-slices"> {
  let summary = "Replace slices of a static size 0 by tensor.empty";
  let description = [{
    A slice with a size of 0 in some dim has no elements: it is
    `tensor.empty` of its sizes, whatever its source. Folding can make the
    source dim of such a slice a static 0 (the slice of an empty slice),
    where no static offset is in bounds, and the subview that
    bufferization makes of it would not verify. This pass, run before
    bufferization, leaves no such slice.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def KilnSkipUnneededGradients
    : Pass<"kiln-skip-unneeded-gradients", "::mlir::ModuleOp"> {
  let summary = "Compute a backward's products only for needed gradients";
  let description = [{
    A partitioned backward (kiln-differentiate) returns the gradient of
    each floating-point input of its forward, and takes per gradient an
    `i64` argument marked `kiln.gradient_need = k` (the result it guards)
    that is nonzero when autograd needs that gradient: eager autograd skips
    the formulas of an input that does not require grad (a data batch, a
    frozen layer), and so does the compiled backward. On linalg on tensors,
    the ops that one gradient alone reads (through the ops that read them)
    run in one `scf.if` on its need, where they hold a product (a
    contraction) or a runtime kernel's call: a linear's weight or input
    gradient, a convolution's. Cheaper ops stay where they fuse with their
    neighbours; ops with memory effects, ops read by several gradients and
    what results without a need argument (the status) read stay
    unconditional. Shape checks read sizes, not elements: `tensor.dim`s of
    computed values are first resolved to the sizes they are made from, so
    that a check keeps no product alive. A skipped gradient is an empty
    tensor of its static sizes (0 in each dynamic dim): the caller drops
    it. The gradients that are needed are computed by the same ops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // KILN_CODEGEN_COMMON_PASSES_TD
