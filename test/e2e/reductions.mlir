// Tests compiled reductions and normalisations against the eager runtime.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 20 passed, 0 failed

// E2E: @reduce f32[3,5,7]
// E2E: @reduce f32[1,1,1]
func.func @reduce(%x: tensor<?x?x?xf32>) -> (tensor<?x1x?xf32>, tensor<?xf32>, tensor<f32>, tensor<?x?xf32>) {
  %0 = kiln.sum %x dims [1] keepdim : tensor<?x?x?xf32> -> tensor<?x1x?xf32>
  %1 = kiln.mean %x dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
  %2 = kiln.amax %x dims [] : tensor<?x?x?xf32> -> tensor<f32>
  %3 = kiln.amin %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<?x1x?xf32>, tensor<?xf32>, tensor<f32>, tensor<?x?xf32>
}

// E2E: @int_sum i64[4,6]{-100,100}
func.func @int_sum(%x: tensor<?x?xi64>) -> tensor<?xi64> {
  %0 = kiln.sum %x dims [0] : tensor<?x?xi64> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// E2E: @empty_amax f32[0,3] expect-error
func.func @empty_amax(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = kiln.amax %x dims [0] : tensor<?x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// E2E: @norms f32[4,9,64] f32[64] f32[64]
// E2E: @norms f32[1,2,64] f32[64] f32[64]
// Wide values, and inf, -inf, NaN, 0, -0 in the first row: the NaN row and
// column become NaN in both, the other rows agree.
// E2E: @norms f32[3,5,64]*30! f32[64] f32[64]
func.func @norms(%x: tensor<?x?x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>) {
  %0 = kiln.softmax %x dim 2 : tensor<?x?x64xf32>
  %1 = kiln.log_softmax %x dim 1 : tensor<?x?x64xf32>
  %2 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %3 = kiln.rms_norm %x, %w {eps = 1.0e-06 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %4 = kiln.softmax %x dim 0 : tensor<?x?x64xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>
}

// A fully masked row gives NaN in both.
// E2E: @masked_softmax f32[3,4] i1[3,1]
func.func @masked_softmax(%x: tensor<?x?xf32>, %mask: tensor<?x1xi1>) -> tensor<?x?xf32> {
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %m = kiln.where %mask, %ninf, %x : (tensor<?x1xi1>, tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = kiln.softmax %m dim 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @layer_norm_2d f32[5,2,8] f32[2,8]
// E2E: @layer_norm_2d f32[1,2,8] f32[2,8]
func.func @layer_norm_2d(%x: tensor<?x2x8xf32>, %w: tensor<2x8xf32>) -> tensor<?x2x8xf32> {
  %0 = kiln.layer_norm %x, %w {eps = 1.0e-05 : f64} : (tensor<?x2x8xf32>, tensor<2x8xf32>) -> tensor<?x2x8xf32>
  return %0 : tensor<?x2x8xf32>
}

// Dynamic weights: checked against the normalised dims at run time.
// E2E: @ln_dynamic f32[3,8] f32[8] f32[8]
// E2E: @ln_dynamic f32[3,8] f32[7] f32[8] expect-error
// E2E: @ln_dynamic f32[3,8] f32[8] f32[9] expect-error
func.func @ln_dynamic(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Products: floats over any dims (a zero, a NaN in the input), integers as
// int64 wrapping around.
// E2E: @product f32[3,5,7]!
// E2E: @product f32[2,1,4]
func.func @product(%x: tensor<?x?x?xf32>) -> (tensor<?x1x?xf32>, tensor<f32>, tensor<?xf32>) {
  %0 = kiln.prod %x dims [1] keepdim : tensor<?x?x?xf32> -> tensor<?x1x?xf32>
  %1 = kiln.prod %x dims [] : tensor<?x?x?xf32> -> tensor<f32>
  %2 = kiln.prod %x dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
  return %0, %1, %2 : tensor<?x1x?xf32>, tensor<f32>, tensor<?xf32>
}

// E2E: @int_product i64[4,30]{-3,4}
func.func @int_product(%x: tensor<?x?xi64>) -> tensor<?xi64> {
  %0 = kiln.prod %x dims [1] : tensor<?x?xi64> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// argmax and argmin: along a dim, kept or not, and flattened; NaN and
// infinities in the input (`!`), integers with ties (the first wins); an
// empty dim is an error.
// E2E: @indices f32[4,9]!
// E2E: @indices f32[1,3]
// E2E: @indices f32[3,0] expect-error
func.func @indices(%x: tensor<?x?xf32>) -> (tensor<?xi64>, tensor<1x?xi64>, tensor<i64>, tensor<?xi64>) {
  %0 = kiln.argmax %x dims [1] : tensor<?x?xf32> -> tensor<?xi64>
  %1 = kiln.argmin %x dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xi64>
  %2 = kiln.argmax %x dims [] : tensor<?x?xf32> -> tensor<i64>
  %3 = kiln.argmin %x dims [1] : tensor<?x?xf32> -> tensor<?xi64>
  return %0, %1, %2, %3 : tensor<?xi64>, tensor<1x?xi64>, tensor<i64>, tensor<?xi64>
}

// E2E: @int_indices i32[5,40]{-3,3}
func.func @int_indices(%x: tensor<?x?xi32>) -> (tensor<?xi64>, tensor<?xi64>) {
  %0 = kiln.argmax %x dims [1] : tensor<?x?xi32> -> tensor<?xi64>
  %1 = kiln.argmin %x dims [0] : tensor<?x?xi32> -> tensor<?xi64>
  return %0, %1 : tensor<?xi64>, tensor<?xi64>
}
