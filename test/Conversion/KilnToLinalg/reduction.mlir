// Tests that reductions become linalg.generic reductions with the right
// init values, mean divides by the element count, and amax/amin check for
// an empty reduction.
// RUN: kiln-opt %s -convert-kiln-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @sum_keepdim
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]]
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
func.func @sum_keepdim(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %0 = kiln.sum %x dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// CHECK-LABEL: func.func @mean_all
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.muli
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @mean_all(%x: tensor<?x?xf32>) -> tensor<f32> {
  %0 = kiln.mean %x dims [] : tensor<?x?xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @amax
// CHECK: cf.assert {{.*}}, "cannot reduce over a dim of size 0"
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
func.func @amax(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = kiln.amax %x dims [0] : tensor<?x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @amin_int
// CHECK: arith.constant 9223372036854775807 : i64
// CHECK: arith.minsi
func.func @amin_int(%x: tensor<3x?xi64>) -> tensor<3xi64> {
  %0 = kiln.amin %x dims [1] : tensor<3x?xi64> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
