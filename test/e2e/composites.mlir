// Tests compiled composite ops (kiln-decompose-composites writes them with
// the other ops) against the eager runtime's own functions for them.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 11 passed, 0 failed

// logsumexp over rows and over columns; inf, -inf and NaN in the first row
// (a column holding +inf gives +inf, one holding -inf a finite value).
// E2E: @logsumexp f32[4,8]*30!
// E2E: @logsumexp f32[1,3]
// E2E: @logsumexp f32[2,5]*0.01
func.func @logsumexp(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<f32>) {
  %0 = kiln.logsumexp %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.logsumexp %x dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.logsumexp %x dims [] : tensor<?x?xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<?xf32>, tensor<1x?xf32>, tensor<f32>
}

// Integers give f32 (their maximum subtracted exactly: values near 2^24
// that f32 cannot tell apart); f64 stays f64.
// E2E: @logsumexp_types i64[5,6]{-20,20} f64[2,3,4]
// E2E: @logsumexp_types i64[4,6]{16777210,16777222} f64[1,1,1]
func.func @logsumexp_types(%n: tensor<?x?xi64>, %d: tensor<?x?x?xf64>) -> (tensor<?xf32>, tensor<?x1x?xf64>) {
  %0 = kiln.logsumexp %n dims [0] : tensor<?x?xi64> -> tensor<?xf32>
  %1 = kiln.logsumexp %d dims [1] keepdim : tensor<?x?x?xf64> -> tensor<?x1x?xf64>
  return %0, %1 : tensor<?xf32>, tensor<?x1x?xf64>
}

// cast_like converts to the other tensor's element type.
// E2E: @cast_like f64[3,4] f32[2]
func.func @cast_like(%x: tensor<?x?xf64>, %like: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.cast_like %x, %like : (tensor<?x?xf64>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A conv2d and pools of one [C, H, W] image.
// E2E: @unbatched f32[3,9,9] f32[4,3,3,3] f32[4]
func.func @unbatched(%x: tensor<3x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<4x?x?xf32>, tensor<4x?x?xf32>, tensor<4x2x2xf32>) {
  %0 = kiln.conv2d %x, %w, %b {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : (tensor<3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<4x?x?xf32>
  %1 = kiln.pool2d max %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>}
      : (tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  %2 = kiln.adaptive_avg_pool2d %0 {output_size = array<i64: 2, 2>}
      : (tensor<4x?x?xf32>) -> tensor<4x2x2xf32>
  return %0, %1, %2 : tensor<4x?x?xf32>, tensor<4x?x?xf32>, tensor<4x2x2xf32>
}


// var and std: over rows with Bessel's correction, over columns kept with
// a correction known only at run time, over everything; NaN and infinities
// in the first row.
// E2E: @variance f32[4,6]*10! idx=0
// E2E: @variance f32[3,5] idx=2
func.func @variance(%x: tensor<?x?xf32>, %c: index) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>) {
  %0 = kiln.var %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.std %x dims [0] keepdim correction_value %c : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.var %x dims [] {correction = 0 : i64} : tensor<?x?xf32> -> tensor<f32>
  %3 = kiln.std %x dims [1] correction_value %c : tensor<?x?xf32> -> tensor<?xf32>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>
}

// tril and triu over the last two dims of a batch, on and off the main
// diagonal, on floats, integers and bools, square and not.
// E2E: @triangles f32[2,5,7] i64[6,4]{-9,9} i1[3,3]
// E2E: @triangles f32[1,1,1] i64[1,9]{-9,9} i1[4,2]
func.func @triangles(%x: tensor<?x?x?xf32>, %n: tensor<?x?xi64>, %b: tensor<?x?xi1>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xi64>, tensor<?x?xi1>) {
  %0 = kiln.tril %x : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %1 = kiln.triu %x diagonal 2 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %2 = kiln.tril %n diagonal -1 : tensor<?x?xi64> -> tensor<?x?xi64>
  %3 = kiln.triu %b diagonal -2 : tensor<?x?xi1> -> tensor<?x?xi1>
  return %0, %1, %2, %3 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xi64>, tensor<?x?xi1>
}
