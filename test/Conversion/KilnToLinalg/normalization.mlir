// Tests that softmax and the norms become reductions and elementwise
// generics: max (NaN-skipping: a NaN reaches the row through the sum),
// exp(x - max), sum, one reciprocal per row and a multiplication per
// element; mean and variance of rows, the deviations recomputed where they
// are read rather than stored.
// RUN: kiln-opt %s -convert-kiln-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK: arith.maxnumf
// CHECK: math.absf
// CHECK: arith.select
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: iterator_types = ["parallel"]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.constant 1.0
// CHECK-NEXT: arith.divf
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.softmax %x dim 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @log_softmax
// CHECK: math.exp
// CHECK: math.log
func.func @log_softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.log_softmax %x dim 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: ins(%arg0, %[[MEAN]] :
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: math.sqrt
// CHECK: ins(%arg0, %[[MEAN]], {{.*}}, %arg1, %arg2 :
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @layer_norm(%x: tensor<?x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// No centring in rms_norm: one reduction only.
// CHECK-LABEL: func.func @rms_norm
// CHECK-COUNT-1: "reduction"
// CHECK: math.sqrt
func.func @rms_norm(%x: tensor<?x8xf32>, %w: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = kiln.rms_norm %x, %w {eps = 1.0e-06 : f64} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
