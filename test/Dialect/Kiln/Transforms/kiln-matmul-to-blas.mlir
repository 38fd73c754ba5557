// Tests that 2-d float matmuls on buffers call the runtime's gemm through
// its C interface, and that integer ones stay.
// RUN: kiln-opt %s -kiln-matmul-to-blas | FileCheck %s

// CHECK: func.func private @kiln_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @f32
// CHECK: %[[A:.*]] = memref.cast %arg0
// CHECK: %[[B:.*]] = memref.cast %arg1
// CHECK: %[[C:.*]] = memref.cast %arg2
// CHECK: call @kiln_gemm_f32(%[[A]], %[[B]], %[[C]])
// CHECK-NOT: linalg.matmul
func.func @f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// CHECK-LABEL: func.func @i64
// CHECK: linalg.matmul
func.func @i64(%a: memref<?x?xi64>, %b: memref<?x?xi64>, %c: memref<?x?xi64>) {
  linalg.matmul ins(%a, %b : memref<?x?xi64>, memref<?x?xi64>) outs(%c : memref<?x?xi64>)
  return
}
