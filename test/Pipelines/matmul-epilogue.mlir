// Tests that matmul + bias + gelu becomes one gemm call over the whole
// matrix (OpenBLAS or Kiln's tiles through the runtime), which writes its
// output (kiln_assign_*: no zero fill, no loop nest before it), then one
// parallel loop over row tiles that applies the whole epilogue (bias add
// and gelu fused).
// RUN: kiln-opt %s -kiln-cpu-pipeline -mlir-print-ir-after=kiln-parallelize-outer-loop 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: func.func @mm_bias_gelu
// CHECK-NOT: scf.parallel
// CHECK: call @kiln_assign_gemm_f32
// CHECK-NEXT: scf.parallel
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.addf
// CHECK: math.erf
// CHECK: memref.store
// CHECK-NOT: scf.for
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @mm_bias_gelu(%a: tensor<?x1024xf32>, %w: tensor<1024x4096xf32>, %b: tensor<4096xf32>) -> tensor<?x4096xf32> {
  %0 = kiln.matmul %a, %w : (tensor<?x1024xf32>, tensor<1024x4096xf32>) -> tensor<?x4096xf32>
  %1 = kiln.add %0, %b : (tensor<?x4096xf32>, tensor<4096xf32>) -> tensor<?x4096xf32>
  %2 = kiln.gelu %1 : tensor<?x4096xf32>
  return %2 : tensor<?x4096xf32>
}
