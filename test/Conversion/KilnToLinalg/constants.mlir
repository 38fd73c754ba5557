// Tests the lowering of constants, fills, ranges, scalars and sizes.
// RUN: kiln-opt %s -convert-kiln-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK: linalg.fill
// CHECK: cf.assert {{.*}}, "arange: the step must be nonzero"
// CHECK: linalg.index
// CHECK: tensor.from_elements
// CHECK: tensor.dim
func.func @constants(%n: index, %s: f32, %x: tensor<?xf32>) -> (tensor<3xf32>, tensor<?x2xf32>, tensor<?xi64>, tensor<f32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = kiln.constant dense<2.0> : tensor<3xf32>
  %1 = kiln.full [%n] {value = 1.5 : f32} : tensor<?x2xf32>
  %2 = kiln.arange %c0, %n, %c1 : tensor<?xi64>
  %3 = kiln.from_scalar %s : f32 -> tensor<f32>
  %4 = kiln.dim %x, 0 : tensor<?xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<?x2xf32>, tensor<?xi64>, tensor<f32>, index
}
