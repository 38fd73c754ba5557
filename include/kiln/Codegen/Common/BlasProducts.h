//===- BlasProducts.h - Products a BLAS library runs ------------*- C++ -*-===//
//
// The matcher the CPU's kiln-matmul-to-blas (OpenBLAS) and the GPU's
// kiln-gpu-matmul-to-cublas (cuBLAS) share: which float products of
// bufferized IR a library runs, and the call into the runtime's entry point
// for each (lib/Runtime/CPU/BlasEntryPoints.cpp,
// lib/Runtime/CUDA/CudaBlas.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_COMMON_BLASPRODUCTS_H
#define KILN_CODEGEN_COMMON_BLASPRODUCTS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln {

/// The kinds of product, in the order they are replaced.
enum class BlasProductKind {
  /// linalg.matmul, C += A * B with the default maps.
  Gemm,
  /// linear's contraction y[..., o] += x[..., k] * w[o, k].
  Linear,
  /// C[batch..., n, m] += A[batch..., n, k] * B[batch..., k, m], A's and
  /// B's batch dims aligned with C's from the right, size-1 ones broadcast;
  /// A may be read as [batch..., k, n] and B as [batch..., m, k]
  /// (transposed in place).
  BatchedGemm,
};

struct BlasProduct {
  linalg::LinalgOp op;
  BlasProductKind kind;
  /// A batched product's operands read with their last two dims swapped:
  /// the call passes them as transposed views (memref.transpose), which
  /// the runtime reads by their strides.
  bool transposeA = false, transposeB = false;
};

/// The f32 and f64 products of `module` on buffers, grouped by kind in the
/// order above, each group in walk order; with `bf16`, also the bfloat16
/// linear and batched products that sum into float32 outputs.
SmallVector<BlasProduct> findBlasProducts(ModuleOp module, bool bf16 = false);

/// Replaces `product` with a call of the runtime function `prefix` + kind +
/// "_f32", "_f64" or "_bf16" (bfloat16 inputs, a float32 output; e.g.
/// kiln_gemm_f32, kiln_linear_bf16), declared once with a C interface:
/// A, B and C as strided memrefs (linear's x and y, and the batched
/// operands, unranked). With `fallback`, the
/// function returns whether it ran (i1) and the op stays behind
/// scf.if (not done); otherwise the op is erased.
void replaceWithRuntimeCall(ModuleOp module, const BlasProduct &product,
                            StringRef prefix, bool fallback);

} // namespace mlir::kiln

#endif
