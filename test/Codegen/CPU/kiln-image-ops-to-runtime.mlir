// Tests that a batched kiln.conv2d becomes a call of the runtime's
// convolution: operands with dynamic sizes, strides, padding, dilation and
// groups as i64 (the attribute's, or the run-time operand's), a bias flag
// (an empty bias stands in without one); bf16 computes in f32 between
// kiln.casts; an unbatched one (left to kiln-decompose-composites) stays.
// And that the image ops' gradients call the runtime's gradient functions:
// each used result of kiln.conv2d_backward, kiln.pool2d_backward by its
// kind (the divisor 0 where there is none), kiln.adaptive_avg_pool2d_backward.
// RUN: kiln-opt %s -kiln-image-ops-to-runtime -cse | FileCheck %s

// CHECK-DAG: func.func private @kiln_conv2d_call_f32(tensor<?x?x?x?xf32> {bufferization.access = "read"}, tensor<?x?x?x?xf32> {bufferization.access = "read"}, tensor<?xf32> {bufferization.access = "read"}, i64, i64, i64, i64, i64, i64, i64, i64) -> tensor<?x?x?x?xf32> attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @static
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-DAG: %[[XC:.*]] = tensor.cast %[[X]] : tensor<?x3x32x32xf32> to tensor<?x?x?x?xf32>
// CHECK-DAG: %[[WC:.*]] = tensor.cast %[[W]] : tensor<16x3x3x3xf32> to tensor<?x?x?x?xf32>
// CHECK-DAG: %[[BC:.*]] = tensor.cast %[[B]] : tensor<16xf32> to tensor<?xf32>
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[Y:.*]] = call @kiln_conv2d_call_f32(%[[XC]], %[[WC]], %[[BC]], %[[TWO]], %[[TWO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]])
// CHECK: tensor.cast %[[Y]] : tensor<?x?x?x?xf32> to tensor<?x16x16x16xf32>
// CHECK-NOT: kiln.conv2d
func.func @static(%x: tensor<?x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x16x16xf32> {
  %y = kiln.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
  return %y : tensor<?x16x16x16xf32>
}

// A stride and groups known at run time, no bias: they go as the operands'
// values; the bias is an empty tensor and the flag 0.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%{{.*}}: tensor<?x?x?x?xf32>, %{{.*}}: tensor<?x?x?x?xf32>, %[[S:.*]]: index, %[[G:.*]]: index)
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<0xf32>
// CHECK-DAG: %[[NOBIAS:.*]] = tensor.cast %[[EMPTY]] : tensor<0xf32> to tensor<?xf32>
// CHECK-DAG: %[[SI:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK-DAG: %[[GI:.*]] = arith.index_cast %[[G]] : index to i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: call @kiln_conv2d_call_f32(%arg0, %arg1, %[[NOBIAS]], %[[SI]], %[[SI]], %[[ZERO]], %[[ZERO]], %[[TWO]], %[[TWO]], %[[GI]], %[[ZERO]])
func.func @dynamic(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>, %s: index, %g: index) -> tensor<?x?x?x?xf32> {
  %y = kiln.conv2d %x, %w params [%s, %s, %g] {strides = array<i64: -9223372036854775808, -9223372036854775808>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>, groups = -9223372036854775808 : i64} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, index, index, index) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}

// bf16: computed in f32 (as eager does), the result rounded back.
// CHECK-LABEL: func.func @bf16
// CHECK: kiln.cast %arg0 : tensor<?x3x8x8xbf16> to tensor<?x3x8x8xf32>
// CHECK: %[[Y:.*]] = call @kiln_conv2d_call_f32
// CHECK: kiln.cast %[[Y]] : tensor<?x?x?x?xf32> to tensor<?x?x?x?xbf16>
func.func @bf16(%x: tensor<?x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<?x4x6x6xbf16> {
  %y = kiln.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<?x4x6x6xbf16>
  return %y : tensor<?x4x6x6xbf16>
}

// CHECK-LABEL: func.func @unbatched
// CHECK: kiln.conv2d
func.func @unbatched(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32> {
  %y = kiln.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return %y : tensor<4x6x6xf32>
}

// Both of a convolution's gradients, its groups known at run time; in f64.
// CHECK-LABEL: func.func @conv_backward
// CHECK-SAME: (%[[G:.*]]: tensor<?x?x?x?xf64>, %[[X:.*]]: tensor<?x?x?x?xf64>, %[[W:.*]]: tensor<?x?x?x?xf64>, %[[N:.*]]: index)
// CHECK-DAG: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[GX:.*]] = call @kiln_conv2d_input_grad_call_f64(%[[G]], %[[X]], %[[W]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[NI]])
// CHECK: %[[GW:.*]] = call @kiln_conv2d_weight_grad_call_f64(%[[G]], %[[X]], %[[W]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[NI]])
// CHECK: return %[[GX]], %[[GW]]
func.func @conv_backward(%g: tensor<?x?x?x?xf64>, %x: tensor<?x?x?x?xf64>, %w: tensor<?x?x?x?xf64>, %n: index) -> (tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>) {
  %gx, %gw = kiln.conv2d_backward %g, %x, %w params [%n] {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, groups = -9223372036854775808 : i64} : (tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>, index) -> (tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>)
  return %gx, %gw : tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>
}

// Only the weight's gradient is read (a first layer): only it is computed,
// in f32 for bf16, rounded back and cast to the weight's sizes.
// CHECK-LABEL: func.func @weight_only
// CHECK-NOT: kiln_conv2d_input_grad_call
// CHECK: %[[GW:.*]] = call @kiln_conv2d_weight_grad_call_f32
// CHECK: %[[R:.*]] = kiln.cast %[[GW]] : tensor<?x?x?x?xf32> to tensor<?x?x?x?xbf16>
// CHECK: tensor.cast %[[R]] : tensor<?x?x?x?xbf16> to tensor<4x3x3x3xbf16>
// CHECK-NOT: kiln.conv2d_backward
func.func @weight_only(%g: tensor<?x4x6x6xbf16>, %x: tensor<?x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<4x3x3x3xbf16> {
  %gx, %gw = kiln.conv2d_backward %g, %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<?x4x6x6xbf16>, tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> (tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>)
  return %gw : tensor<4x3x3x3xbf16>
}

// CHECK-LABEL: func.func @pool_backward
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @kiln_max_pool2d_backward_call_f32(%arg0, %arg1, %[[TWO]], %[[TWO]], %[[TWO]], %[[TWO]], %[[ZERO]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ONE]], %[[ZERO]])
// CHECK: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK: call @kiln_avg_pool2d_backward_call_f32(%arg0, %arg1, %[[TWO]], %[[TWO]], %[[TWO]], %[[TWO]], %[[ZERO]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ZERO]], %[[THREE]])
// CHECK: %[[GP:.*]] = tensor.cast %arg2 : tensor<?x?x1x1xf32> to tensor<?x?x?x?xf32>
// CHECK: call @kiln_adaptive_avg_pool2d_backward_call_f32(%[[GP]], %arg1)
func.func @pool_backward(%g: tensor<?x?x?x?xf32>, %x: tensor<?x?x?x?xf32>, %gp: tensor<?x?x1x1xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.pool2d_backward max %g, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %1 = kiln.pool2d_backward avg %g, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, count_include_pad = 0 : i64, divisor = 3 : i64} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %2 = kiln.adaptive_avg_pool2d_backward %gp, %x : (tensor<?x?x1x1xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}
