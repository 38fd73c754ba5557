// Tests compiled max and average pooling (kiln.pool2d) and adaptive
// average pooling against the eager runtime: padding, dilation, ceil_mode's
// last window, the divisor with and without the padding counted, a
// divisor override, half floats summed in f32, window parameters known
// only at run time (a module's members) and their range checks raising as
// the runtime's do; an empty batch, and an empty plane (an error, nothing
// read from it).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 21 passed, 0 failed

// E2E: @pools f32[2,3,9,7]
// E2E: @pools f32[1,2,4,5]
// E2E: @pools f32[1,1,3,3]
// E2E: @pools f32[0,2,4,5]
// E2E: @pools f32[1,2,0,5] expect-error
func.func @pools(%x: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %1 = kiln.pool2d max %x {kernel = array<i64: 2, 3>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 2>, ceil_mode = 1} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %2 = kiln.pool2d avg %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 0} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %3 = kiln.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, divisor = 4} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2, %3 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// Static shapes: the result type gives the output's size.
// E2E: @static_avg f32[2,4,8,8]
func.func @static_avg(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32> {
  %0 = kiln.pool2d avg %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}

// E2E: @half_avg f16[2,3,6,5]
func.func @half_avg(%x: tensor<?x3x?x?xf16>) -> tensor<?x3x?x?xf16> {
  %0 = kiln.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x?x?xf16>) -> tensor<?x3x?x?xf16>
  return %0 : tensor<?x3x?x?xf16>
}

// Kernel, stride, padding and ceil_mode known only at run time.
// E2E: @pool_params f32[2,3,9,7] idx=3 idx=2 idx=1 idx=0
// E2E: @pool_params f32[1,2,5,6] idx=2 idx=2 idx=0 idx=1
// E2E: @pool_params f32[1,2,8,8] idx=3 idx=3 idx=1 idx=1
// E2E: @pool_params f32[1,2,5,5] idx=0 idx=1 idx=0 idx=0 expect-error
// E2E: @pool_params f32[1,2,5,5] idx=2 idx=1 idx=2 idx=0 expect-error
// E2E: @pool_params f32[1,2,2,2] idx=3 idx=1 idx=0 idx=0 expect-error
func.func @pool_params(%x: tensor<?x?x?x?xf32>, %k: index, %s: index, %p: index, %c: index) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.pool2d max %x params [%k, %k, %s, %s, %p, %p, %c] {kernel = array<i64: -9223372036854775808, -9223372036854775808>, strides = array<i64: -9223372036854775808, -9223372036854775808>, padding = array<i64: -9223372036854775808, -9223372036854775808>, dilation = array<i64: 1, 1>, ceil_mode = -9223372036854775808} : (tensor<?x?x?x?xf32>, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %1 = kiln.pool2d avg %x params [%k, %s, %c, %c] {kernel = array<i64: -9223372036854775808, 2>, strides = array<i64: 1, -9223372036854775808>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = -9223372036854775808, count_include_pad = -9223372036854775808} : (tensor<?x?x?x?xf32>, index, index, index, index) -> tensor<?x?x?x?xf32>
  return %0, %1 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// E2E: @adaptive f32[2,3,9,7]
// E2E: @adaptive f32[1,2,3,2]
// E2E: @adaptive f32[1,1,1,1]
// E2E: @adaptive f32[0,2,3,2]
// E2E: @adaptive f32[1,2,3,0] expect-error
func.func @adaptive(%x: tensor<?x?x?x?xf32>) -> (tensor<?x?x1x1xf32>, tensor<?x?x3x2xf32>, tensor<?x?x5x4xf32>) {
  %0 = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x1x1xf32>
  %1 = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x3x2xf32>
  %2 = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 5, 4>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x5x4xf32>
  return %0, %1, %2 : tensor<?x?x1x1xf32>, tensor<?x?x3x2xf32>, tensor<?x?x5x4xf32>
}

// E2E: @adaptive_params f32[2,3,9,7] idx=4 idx=3
// E2E: @adaptive_params f32[1,2,2,3] idx=5 idx=1
// E2E: @adaptive_params f32[1,2,4,4] idx=0 idx=2 expect-error
func.func @adaptive_params(%x: tensor<?x?x?x?xf32>, %h: index, %w: index) -> tensor<?x?x?x?xf32> {
  %0 = kiln.adaptive_avg_pool2d %x params [%h, %w] {output_size = array<i64: -9223372036854775808, -9223372036854775808>} : (tensor<?x?x?x?xf32>, index, index) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
