// Tests that 2-d float matmuls, linear's and batched contractions on buffers call the
// runtime's gemm through its C interface, and that integer ones stay.
// RUN: kiln-opt %s -kiln-matmul-to-blas | FileCheck %s
// (The GPU's cuBLAS calls: test/Codegen/GPU/kiln-gpu-matmul-to-cublas.mlir.)

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

// linear: y[b, t, o] += x[b, t, k] * w[o, k]; x and y go unranked.
// CHECK-LABEL: func.func @linear
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<?x?x16xf32> to memref<*xf32>
// CHECK: %[[W:.*]] = memref.cast %arg1
// CHECK: %[[Y:.*]] = memref.cast %arg2 : memref<?x?x8xf32> to memref<*xf32>
// CHECK: call @kiln_linear_f32(%[[X]], %[[W]], %[[Y]])
// CHECK-NOT: linalg.generic
func.func @linear(%x: memref<?x?x16xf32>, %w: memref<8x16xf32>, %y: memref<?x?x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?x16xf32>, memref<8x16xf32>) outs(%y : memref<?x?x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// Batched: C[b, h, n, m] += A[b, h, n, k] * B[1, h, k, m] (B broadcast over
// b); all three go unranked and the runtime loops over C's matrices.
// CHECK-LABEL: func.func @batched
// CHECK: call @kiln_bmm_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
// CHECK-NOT: linalg.generic
func.func @batched(%a: memref<2x3x4x5xf32>, %b: memref<1x3x5x6xf32>, %c: memref<2x3x4x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<2x3x4x5xf32>, memref<1x3x5x6xf32>) outs(%c : memref<2x3x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// Operands read transposed (A as [k, n], B as [b, m, k]) go as transposed
// views, which the runtime reads by their strides.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[AT:.*]] = memref.transpose %arg0 (d0, d1) -> (d1, d0)
// CHECK: %[[BT:.*]] = memref.transpose %arg1 (d0, d1, d2) -> (d0, d2, d1)
// CHECK: %[[A:.*]] = memref.cast %[[AT]]
// CHECK: %[[B:.*]] = memref.cast %[[BT]]
// CHECK: call @kiln_bmm_f32(%[[A]], %[[B]], %{{.*}}) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
// CHECK-NOT: linalg.generic
func.func @transposed(%a: memref<5x4xf32>, %b: memref<2x6x5xf32>, %c: memref<2x4x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<5x4xf32>, memref<2x6x5xf32>) outs(%c : memref<2x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// conv2d is no product of this pass (kiln-conv2d-to-runtime runs it as the
// runtime's convolution before linalg): a linalg convolution stays.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv(%x: memref<?x?x?x?xf32>, %w: memref<?x?x?x?xf32>, %y: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
    ins(%x, %w : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%y : memref<?x?x?x?xf32>)
  return
}

// A product whose output was only zero-filled right before overwrites it
// (kiln_assign_*, C = A * B): the fill is dropped. A fill of another value,
// or a write between the fill and the product, keeps both (C += A * B).
// CHECK-LABEL: func.func @assign
// CHECK-NOT: linalg.fill
// CHECK: %[[M:.*]] = memref.dim
// CHECK: call @kiln_assign_gemm_f32(
// CHECK-NOT: linalg.fill
// CHECK: call @kiln_assign_linear_f32(
// CHECK: return
func.func @assign(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %x: memref<?x16xf32>, %w: memref<8x16xf32>, %y: memref<?x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  %c0 = arith.constant 0 : index
  %m = memref.dim %c, %c0 : memref<?x?xf32>
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<?x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x16xf32>, memref<8x16xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// CHECK-LABEL: func.func @accumulate
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg2
// CHECK: call @kiln_gemm_f32(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg3
// CHECK: memref.store
// CHECK: call @kiln_gemm_f32(
func.func @accumulate(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %d: memref<?x?xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%one : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<?x?xf32>)
  memref.store %one, %d[%c0, %c0] : memref<?x?xf32>
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%d : memref<?x?xf32>)
  return
}

// A bfloat16 product summed into float32 (the body widens both inputs):
// kiln_linear_bf16 / kiln_bmm_bf16, A and B bfloat16, C float32; 2-d
// products that are not linalg.matmul go as batched with no batch dim.
// CHECK-LABEL: func.func @bf16
// CHECK: call @kiln_linear_bf16(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<*xbf16>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<*xf32>) -> ()
// CHECK: call @kiln_bmm_bf16(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<*xbf16>, memref<*xbf16>, memref<*xf32>) -> ()
// CHECK-NOT: linalg.generic
func.func @bf16(%x: memref<?x16xbf16>, %w: memref<8x16xbf16>, %y: memref<?x8xf32>, %b: memref<16x8xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x16xbf16>, memref<8x16xbf16>) outs(%y : memref<?x8xf32>) {
  ^bb0(%a: bf16, %c: bf16, %acc: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %c : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %b : memref<?x16xbf16>, memref<16x8xbf16>) outs(%y : memref<?x8xf32>) {
  ^bb0(%a: bf16, %c: bf16, %acc: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %c : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// A product that widens only one input of two types, or sums bfloat16
// into bfloat16, stays.
// CHECK-LABEL: func.func @mixed
// CHECK-COUNT-2: linalg.generic
func.func @mixed(%x: memref<?x16xbf16>, %w: memref<8x16xf32>, %y: memref<?x8xf32>, %z: memref<?x8xbf16>, %v: memref<8x16xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x16xbf16>, memref<8x16xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%a: bf16, %c: f32, %acc: f32):
    %0 = arith.extf %a : bf16 to f32
    %2 = arith.mulf %0, %c : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %v : memref<?x16xbf16>, memref<8x16xbf16>) outs(%z : memref<?x8xbf16>) {
  ^bb0(%a: bf16, %c: bf16, %acc: bf16):
    %2 = arith.mulf %a, %c : bf16
    %3 = arith.addf %acc, %2 : bf16
    linalg.yield %3 : bf16
  }
  return
}
