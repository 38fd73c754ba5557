// Tests that on the GPU (device buffers) float matmuls, linear's and batched
// contractions call cuBLAS wrappers that say whether they ran, the op
// staying behind them as the fallback kernel; integer products and conv2d
// stay generated code. (Which products match: the shared matcher,
// test/Codegen/CPU/kiln-matmul-to-blas.mlir.)
// RUN: kiln-opt %s -kiln-gpu-matmul-to-cublas | FileCheck %s

// CHECK-DAG: func.func private @kiln_cuda_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> i1 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_cuda_linear_f64(memref<*xf64>, memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<*xf64>) -> i1 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_cuda_bmm_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>) -> i1 attributes {llvm.emit_c_interface}
// CHECK-NOT: kiln_cuda_conv2d
// CHECK-LABEL: func.func @f32
// CHECK: %[[DONE:.*]] = call @kiln_cuda_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}) : {{.*}} -> i1
// CHECK: %[[NOT:.*]] = arith.xori %[[DONE]], %true
// CHECK: scf.if %[[NOT]] {
// CHECK-NEXT: linalg.matmul
func.func @f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// CHECK-LABEL: func.func @i64
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @i64(%a: memref<?x?xi64>, %b: memref<?x?xi64>, %c: memref<?x?xi64>) {
  linalg.matmul ins(%a, %b : memref<?x?xi64>, memref<?x?xi64>) outs(%c : memref<?x?xi64>)
  return
}

// CHECK-LABEL: func.func @linear
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<?x?x16xf64> to memref<*xf64>
// CHECK: %[[DONE:.*]] = call @kiln_cuda_linear_f64(%[[X]], %{{.*}}, %{{.*}})
// CHECK: scf.if
// CHECK-NEXT: linalg.generic
func.func @linear(%x: memref<?x?x16xf64>, %w: memref<8x16xf64>, %y: memref<?x?x8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?x16xf64>, memref<8x16xf64>) outs(%y : memref<?x?x8xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %0 = arith.mulf %a, %b : f64
    %1 = arith.addf %acc, %0 : f64
    linalg.yield %1 : f64
  }
  return
}

// CHECK-LABEL: func.func @batched
// CHECK: call @kiln_cuda_bmm_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> i1
// CHECK: scf.if
// CHECK-NEXT: linalg.generic
func.func @batched(%a: memref<2x3x4x5xf32>, %b: memref<1x3x5x6xf32>, %c: memref<2x3x4x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<2x3x4x5xf32>, memref<1x3x5x6xf32>) outs(%c : memref<2x3x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// CHECK-LABEL: func.func @conv
// CHECK-NOT: call @kiln
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv(%x: memref<?x?x?x?xf32>, %w: memref<?x?x?x?xf32>, %y: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
    ins(%x, %w : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%y : memref<?x?x?x?xf32>)
  return
}
