// Tests the kiln-to-linalg pipeline: no kiln op is left, the graph is
// canonicalized, and the entry point returns its status.
// RUN: kiln-opt %s -kiln-to-linalg-pipeline | FileCheck %s

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: -> (tensor<?x10xf32>, i32)
// CHECK-NOT: kiln.
// CHECK: linalg.matmul
// CHECK: math.erf
// CHECK: linalg.matmul
// CHECK: return
func.func @mlp(%x: tensor<?x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
               %w2: tensor<32x10xf32>, %b2: tensor<10xf32>) -> tensor<?x10xf32> {
  %0 = kiln.matmul %x, %w1 : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  %1 = kiln.add %0, %b1 : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %2 = kiln.gelu %1 : tensor<?x32xf32>
  %3 = kiln.matmul %2, %w2 : (tensor<?x32xf32>, tensor<32x10xf32>) -> tensor<?x10xf32>
  %4 = kiln.add %3, %b2 : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  return %4 : tensor<?x10xf32>
}
