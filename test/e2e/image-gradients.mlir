// Tests the image ops' gradients (kiln.conv2d_backward, kiln.pool2d_backward,
// kiln.adaptive_avg_pool2d_backward, which the CPU pipeline computes with
// the runtime's functions): for random gradients of the outputs, the
// gradient of every float input, compiled and interpreted, against eager
// autograd's (the forward run by the runtime's own ops on inputs that
// require grad).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// E2E-TOLERANCE: 1e-4 1e-5
// CHECK-NOT: FAIL
// CHECK: 7 passed, 0 failed

// A convolution with a bias, strides, padding, dilation and two groups:
// the input's and the weight's gradients, and the bias's (a sum), at sizes
// the function does not name.
// E2E-GRAD: @conv f32[2,4,9,8] f32[6,2,3,3] f32[6]
// E2E-GRAD: @conv f32[1,4,6,11] f32[6,2,3,3] f32[6]
func.func @conv(%x: tensor<?x4x?x?xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x?x?xf32> {
  %y = kiln.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 1, 2>, dilation = array<i64: 1, 2>, groups = 2 : i64} : (tensor<?x4x?x?xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<?x6x?x?xf32>
  return %y : tensor<?x6x?x?xf32>
}

// A first layer: the image takes no gradient (detached), only the weight:
// the input's gradient is never computed.
// E2E-GRAD: @first_layer f64[2,3,7,7] f64[5,3,3,3]
func.func @first_layer(%x: tensor<?x?x?x?xf64>, %w: tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64> {
  %d = kiln.detach %x : tensor<?x?x?x?xf64>
  %y = kiln.conv2d %d, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %r = kiln.relu %y : tensor<?x?x?x?xf64>
  return %r : tensor<?x?x?x?xf64>
}

// One image [C, H, W]: convolved as a batch of one.
// E2E-GRAD: @image f32[3,8,6] f32[4,3,3,3]
func.func @image(%x: tensor<?x?x?xf32>, %w: tensor<?x?x?x?xf32>) -> tensor<?x?x?xf32> {
  %y = kiln.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// Max pooling (ceil mode, padding: the gradient to each window's first
// maximum), average pooling without the padding in its divisor, and
// adaptive average pooling to a size that does not divide the input's.
// E2E-GRAD: @pools f32[2,3,7,6]
// E2E-GRAD: @pools f32[1,2,5,9]
func.func @pools(%x: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x2x3xf32>) {
  %m = kiln.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 1 : i64} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %a = kiln.pool2d avg %x {kernel = array<i64: 2, 3>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, count_include_pad = 0 : i64} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %p = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 2, 3>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x2x3xf32>
  return %m, %a, %p : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x2x3xf32>
}

// A ResNet block's pieces in f64: conv, relu, a residual add, max pooling
// and the global average over a batch.
// E2E-GRAD: @block f64[2,4,6,6] f64[4,4,3,3] f64[4]
func.func @block(%x: tensor<?x?x?x?xf64>, %w: tensor<?x?x?x?xf64>, %b: tensor<?xf64>) -> tensor<?x?x1x1xf64> {
  %y = kiln.conv2d %x, %w, %b {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>} : (tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>, tensor<?xf64>) -> tensor<?x?x?x?xf64>
  %r = kiln.relu %y : tensor<?x?x?x?xf64>
  %s = kiln.add %r, %x : (tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %m = kiln.pool2d max %s {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %p = kiln.adaptive_avg_pool2d %m {output_size = array<i64: 1, 1>} : (tensor<?x?x?x?xf64>) -> tensor<?x?x1x1xf64>
  return %p : tensor<?x?x1x1xf64>
}
