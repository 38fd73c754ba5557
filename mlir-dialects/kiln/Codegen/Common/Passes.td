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

def KilnMatmulToBlas : Pass<"kiln-matmul-to-blas", "ModuleOp"> {
  let summary = "Call the runtime's BLAS gemm for 2-d float matmuls";
  let description = [{
    On bufferized IR, replaces each `linalg.matmul` of f32 or f64 memrefs
    with a call to the runtime's `kiln_gemm_f32`/`kiln_gemm_f64` (C
    interface: three strided memref descriptors, C += A * B), and each
    contraction of `linear`'s form (y[..., o] += x[..., k] * w[o, k], the
    weight read transposed) with `kiln_linear_f32`/`kiln_linear_f64` (x
    and y as unranked memrefs of any rank), and each float
    `linalg.conv_2d_nchw_fchw` without dilation with `kiln_conv2d_f32`/
    `kiln_conv2d_f64` (input already padded, strides as arguments: the
    runtime lays the input out as columns and runs one gemm per image, as
    the eager conv2d does). The runtime calls OpenBLAS,
    which reads transposed operands in place. The ops around it,
    a bias and activation epilogue included, stay generated code and fuse
    among themselves. Chosen by measurement over the scalar loops of
    `convert-linalg-to-parallel-loops` (docs/pipelines.md).

    With `target=cuda` (the GPU pipeline, on device buffers) the products
    call `kiln_cuda_gemm_*`, `kiln_cuda_linear_*` and `kiln_cuda_bmm_*`,
    which run cuBLAS (loaded at run time) and return whether they did: the
    original op stays behind an `scf.if` and becomes the generated kernel
    that runs when cuBLAS is missing or an operand has no unit stride.
    conv2d stays generated code there.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu (OpenBLAS) or cuda (cuBLAS, with the generated kernel as fallback)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // KILN_CODEGEN_COMMON_PASSES_TD
