// Tests that kiln-opt parses upstream dialects and runs upstream passes.
// RUN: kiln-opt %s --linalg-generalize-named-ops --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>,
                  %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @fold
// CHECK-NEXT: return %arg0
func.func @fold(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}
