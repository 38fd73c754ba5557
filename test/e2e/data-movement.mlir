// Tests compiled reshape, transpose, permute, slice, unsqueeze, squeeze,
// expand, cat, gather and the constant and size ops against the eager runtime.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 24 passed, 0 failed

// Heads of attention: [B, T, C] -> [B, T, H, D] -> [B, H, T, D].
// E2E: @heads f32[2,5,24]
// E2E: @heads f32[1,1,24]
func.func @heads(%x: tensor<?x?x24xf32>) -> (tensor<?x4x?x6xf32>, tensor<?x24x?xf32>) {
  %b = kiln.dim %x, 0 : tensor<?x?x24xf32>
  %t = kiln.dim %x, 1 : tensor<?x?x24xf32>
  %0 = kiln.reshape %x [%b, %t] : tensor<?x?x24xf32> -> tensor<?x?x4x6xf32>
  %1 = kiln.permute %0 [0, 2, 1, 3] : tensor<?x?x4x6xf32> -> tensor<?x4x?x6xf32>
  %2 = kiln.transpose %1 dims 2, 3 : tensor<?x4x?x6xf32> -> tensor<?x4x6x?xf32>
  %3 = kiln.transpose %2 dims 2, 3 : tensor<?x4x6x?xf32> -> tensor<?x4x?x6xf32>
  %bt = arith.muli %b, %t : index
  %4 = kiln.reshape %x [%bt] : tensor<?x?x24xf32> -> tensor<?x24xf32>
  %5 = kiln.transpose %4 dims 0, 1 : tensor<?x24xf32> -> tensor<24x?xf32>
  %6 = kiln.cast %5 : tensor<24x?xf32> to tensor<24x?xf32>
  %7 = kiln.reshape %6 [%b, %t] : tensor<24x?xf32> -> tensor<?x24x?xf32>
  return %3, %7 : tensor<?x4x?x6xf32>, tensor<?x24x?xf32>
}

// E2E: @bad_reshape f32[2,5] idx=3 expect-error
func.func @bad_reshape(%x: tensor<?x?xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = kiln.reshape %x [%n] : tensor<?x?xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// Python slicing: negative bounds, clamped end, steps.
// E2E: @slices f32[10,6] idx=-4 idx=100
// E2E: @slices f32[3,6] idx=1 idx=-1
// E2E: @slices f32[3,6] idx=-7 idx=2
// E2E: @slices f32[3,6] idx=5 idx=9
func.func @slices(%x: tensor<?x6xf32>, %s: index, %e: index) -> (tensor<?x6xf32>, tensor<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %0 = kiln.slice %x dim 0 [%s : %e] : tensor<?x6xf32> -> tensor<?x6xf32>
  %1 = kiln.slice %0 dim 1 [%c0 : %c6 step 2] : tensor<?x6xf32> -> tensor<?x3xf32>
  return %0, %1 : tensor<?x6xf32>, tensor<?x3xf32>
}

// E2E: @unit_dims f32[7,3]
func.func @unit_dims(%x: tensor<?x3xf32>) -> (tensor<?x1x3xf32>, tensor<?x3x1xf32>, tensor<?x3xf32>, tensor<4x?x3xf32>) {
  %0 = kiln.unsqueeze %x dim 1 : tensor<?x3xf32> -> tensor<?x1x3xf32>
  %1 = kiln.unsqueeze %x dim 2 : tensor<?x3xf32> -> tensor<?x3x1xf32>
  %2 = kiln.squeeze %1 dim 2 : tensor<?x3x1xf32> -> tensor<?x3xf32>
  %n = kiln.dim %x, 0 : tensor<?x3xf32>
  %u = kiln.unsqueeze %x dim 0 : tensor<?x3xf32> -> tensor<1x?x3xf32>
  %3 = kiln.expand %u [%n] : tensor<1x?x3xf32> -> tensor<4x?x3xf32>
  return %0, %1, %2, %3 : tensor<?x1x3xf32>, tensor<?x3x1xf32>, tensor<?x3xf32>, tensor<4x?x3xf32>
}

// E2E: @expand_dynamic f32[1,3] idx=5
// E2E: @expand_dynamic f32[5,3] idx=5
// E2E: @expand_dynamic f32[4,3] idx=5 expect-error
// E2E: @expand_dynamic f32[7,3] idx=5 expect-error
func.func @expand_dynamic(%x: tensor<?x3xf32>, %n: index) -> tensor<?x3xf32> {
  %0 = kiln.expand %x [%n] : tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// E2E: @concat f32[2,3] f32[2,5] f32[2,1]
// E2E: @concat f32[2,3] f32[4,5] f32[2,1] expect-error
func.func @concat(%a: tensor<?x3xf32>, %b: tensor<?x?xf32>, %c: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = kiln.cat %a, %b, %c dim 1 : (tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @constants idx=6 f32=0.25
func.func @constants(%n: index, %s: f32) -> (tensor<?x2xf32>, tensor<?xi64>, tensor<f32>, tensor<i64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = kiln.full [%n] {value = 1.5 : f32} : tensor<?x2xf32>
  %1 = kiln.arange %c1, %n, %c2 : tensor<?xi64>
  %2 = kiln.from_scalar %s : f32 -> tensor<f32>
  %3 = kiln.from_scalar %n : index -> tensor<i64>
  return %0, %1, %2, %3 : tensor<?x2xf32>, tensor<?xi64>, tensor<f32>, tensor<i64>
}

// torch.gather along each dim; an index smaller than the input outside
// dim; a 0-d gather; out-of-range and oversized indices fail as eager does.
// E2E: @gather f32[4,6] i64[3,5]{0,4} i64[2,6]{0,6}
// E2E: @gather f32[1,1] i64[1,1]{0,1} i64[1,1]{0,1}
// E2E: @gather f32[3,2] i64[2,2]{0,3} i64[2,2]{0,2}
// E2E: @gather f32[0,6] i64[0,5]{0,1} i64[0,6]{0,1}
// E2E: @gather f32[4,6] i64[3,5]{4,9} i64[2,6]{0,6} expect-error
// E2E: @gather f32[4,6] i64[3,7]{0,4} i64[2,6]{0,6} expect-error
// E2E: @gather f32[4,6] i64[3,5]{0,4} i64[5,6]{0,6} expect-error
func.func @gather(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>, %j: tensor<?x?xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.gather %x, %i dim 0 : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  %1 = kiln.gather %x, %j dim 1 : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// E2E: @gather_ints i32[5,3,4]{-9,9} i32[5,2,4]{0,3}
func.func @gather_ints(%x: tensor<?x?x?xi32>, %i: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %0 = kiln.gather %x, %i dim 1 : (tensor<?x?x?xi32>, tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  return %0 : tensor<?x?x?xi32>
}

// E2E: @gather_scalar f64[] i64[]{0,1}
func.func @gather_scalar(%x: tensor<f64>, %i: tensor<i64>) -> tensor<f64> {
  %0 = kiln.gather %x, %i dim 0 : (tensor<f64>, tensor<i64>) -> tensor<f64>
  return %0 : tensor<f64>
}
